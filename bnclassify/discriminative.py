"""Parameters learnt for the conditional likelihood: ``objective="conditional"``.

Every estimator here fits its parameters to the joint likelihood ``sum log P(c, x)``
by counting. With ``objective="conditional"`` the categorical tables are then
refined to maximise the conditional log-likelihood of the training rows,

    sum_n w_n log P(c_n | x_n)  -  (l2 / 2) ||beta - beta_joint||^2,

by L-BFGS (scipy), starting from and regularised towards the generative log
tables ``beta_joint``. ``l2`` defaults to :data:`DEFAULT_L2` nats per squared
log-unit; the gradient is computed from per-family one-hot counts of the
residuals ``1[c = c_n] - P(c | x_n)`` (one ``bincount`` per family, no loop over
rows).

**The parameterisation.** When every feature has at most one feature parent (naive
Bayes, TAN, Simpler TAN, KDB with ``k=1``, BMATAN's MAP tree) the tables are
free log-linear weights ``beta`` (``log P(c, x) = beta_0[c] + sum_i
beta_i[c, x_pa(i), x_i]`` up to a constant), in which the conditional
log-likelihood is concave, so the optimum is the global one; afterwards the
weights are renormalised into proper CPTs from the leaves up (each child's
normaliser ``log sum_x exp beta_i[c, x_p, x]`` moves into its parent's table,
the roots' into the class prior), which changes no ``P(c | x)`` on complete rows:
for these structures log-linear models and Bayesian network classifiers define
the same conditional distributions (Roos et al. 2005). For other DAGs (KDB with
``k >= 2``, the wrappers' joined nodes) such a renormalisation does not exist in
general, so each CPT row is the softmax of its weights: the objective is then
not concave and L-BFGS finds the local optimum nearest the generative start.

**What is not refined.** Gaussian, log-normal, kernel, Bernoulli and multinomial
nodes keep their generative fit and enter the objective as fixed terms. In
training a categorical family with a missing cell is left out of that row's
score (exact for a missing leaf); prediction marginalises missing cells
exactly, as for any fitted network.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.optimize import minimize
from scipy.special import logsumexp

from .factors import Categorical
from .network import FittedNetwork

#: Default strength of the L2 pull towards the generative log tables (nats per squared log-unit).
DEFAULT_L2 = 10.0

OBJECTIVES = ("joint", "conditional")


def check_objective(objective) -> str:
    """``objective`` validated: ``"joint"`` or ``"conditional"``.

    Examples
    --------
    >>> check_objective("conditional")
    'conditional'
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}.")
    return objective


def _check_l2(l2) -> float:
    if isinstance(l2, bool) or not isinstance(l2, numbers.Real) or not np.isfinite(l2) or l2 < 0:
        raise ValueError(f"l2 must be a finite number >= 0, got {l2!r}.")
    return float(l2)


def conditional_network(
    network: FittedNetwork, codes, values, y, sample_weight=None, l2=DEFAULT_L2, names=None
) -> FittedNetwork:
    """``network`` with its categorical tables refined for the conditional log-likelihood.

    Parameters
    ----------
    network : FittedNetwork
        A fitted network (its generative tables are the start and the anchor).
    codes : ndarray of shape (n_rows, n_features)
        Category codes of the training rows (-1 where missing).
    values : ndarray of shape (n_rows, n_features) or None
        The continuous columns, as the network's factors read them.
    y : ndarray of shape (n_rows,)
        Class codes.
    sample_weight : ndarray of shape (n_rows,), optional
    l2 : float, default=DEFAULT_L2
        Strength of the pull towards the generative log tables.
    names : list of str, optional
        Column names (for the new nodes' ``columns_``).

    Returns
    -------
    FittedNetwork

    Examples
    --------
    >>> import numpy as np
    >>> from bnclassify import NaiveBayes
    >>> from bnclassify.datasets import load_vote
    >>> X, y = load_vote(return_X_y=True)
    >>> model = NaiveBayes().fit(X, y)
    >>> codes, values = model.encode(X)
    >>> labels = np.searchsorted(model.classes_, y)
    >>> refined = conditional_network(model.compiled_, codes, values, labels)
    >>> def cll(net):
    ...     joint = net.joint_log_likelihood(codes, values)
    ...     log_post = joint - np.logaddexp.reduce(joint, axis=1, keepdims=True)
    ...     return log_post[np.arange(len(y)), labels].sum()
    >>> bool(cll(refined) > cll(model.compiled_))
    True
    """
    l2 = _check_l2(l2)
    codes = np.asarray(codes)
    y = np.asarray(y, dtype=np.intp)
    n, C = len(y), network.n_classes
    names = names or [f"x{j}" for j in range(network.n_features)]
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    tables, families, offset = [], [], np.zeros((n, C))
    for factor in network.factors:
        if factor.kind == "categorical":
            (child,) = factor.column_positions
            family = [*factor.discrete_parent_positions, child]
            table = factor.log_table_
            block = codes[:, family]
            seen = (block >= 0).all(axis=1)
            index = np.ravel_multi_index(
                tuple(np.where(seen[:, None], block, 0).T), table.shape[1:]
            )
            tables.append(table)
            families.append((child, tuple(factor.discrete_parent_positions), index, seen))
        else:
            terms = factor.log_terms(codes, values)
            offset += np.where(np.isfinite(terms), terms, 0.0)
    forest = network.is_forest
    start = [network.log_prior, *tables]
    sizes = [t.size for t in start]
    anchor = np.concatenate([t.ravel() for t in start])
    target = np.zeros((n, C))
    target[np.arange(n), y] = 1.0
    class_of_cell = [np.arange(C)[:, None] * (t.size // C) for t in tables]

    def unpack(theta):
        parts = np.split(theta, np.cumsum(sizes)[:-1])
        return [p.reshape(t.shape) for p, t in zip(parts, start, strict=True)]

    def objective(theta):
        prior, *betas = unpack(theta)
        logs = [b if forest else b - logsumexp(b, axis=-1, keepdims=True) for b in betas]
        log_prior = prior if forest else prior - logsumexp(prior)
        score = offset + log_prior
        for log_t, (_, _, index, seen) in zip(logs, families, strict=True):
            flat = log_t.reshape(C, -1)
            score += np.where(seen[:, None], flat[:, index].T, 0.0)
        log_post = score - logsumexp(score, axis=1, keepdims=True)
        residual = (target - np.exp(log_post)) * w[:, None]
        value = float((w * log_post[np.arange(n), y]).sum())
        grads = [residual.sum(axis=0)]
        for log_t, base, (_, _, index, seen) in zip(logs, class_of_cell, families, strict=True):
            cell = (base + index[seen][None, :]).T.ravel()  # (rows, C) -> class-major cells
            g = np.bincount(cell, residual[seen].ravel(), minlength=log_t.size).reshape(log_t.shape)
            if not forest:  # through the softmax of each row
                g = g - np.exp(log_t) * g.sum(axis=-1, keepdims=True)
            grads.append(g)
        gradient = np.concatenate([g.ravel() for g in grads])
        diff = theta - anchor
        return -(value - 0.5 * l2 * diff @ diff), -(gradient - l2 * diff)

    result = minimize(objective, anchor.copy(), jac=True, method="L-BFGS-B")
    prior, *betas = unpack(result.x)
    if forest:
        prior, betas = _renormalise(prior, betas, families, network.n_features)
    else:
        prior = prior - logsumexp(prior)
        betas = [b - logsumexp(b, axis=-1, keepdims=True) for b in betas]
    refined = iter(betas)
    factors = []
    for factor in network.factors:
        if factor.kind == "categorical":
            (child,) = factor.column_positions
            table = next(refined)
            factors.append(
                Categorical.from_log_table(table, child, factor.discrete_parent_positions, names)
            )
        else:
            factors.append(factor)
    return FittedNetwork(prior, network.parents, factors)


def _renormalise(prior, betas, families, n_features):
    """Log-linear weights of a forest as CPTs with the same ``P(c | x)``: leaves first."""
    betas = [b.copy() for b in betas]
    position = {child: k for k, (child, _, _, _) in enumerate(families)}
    parent_of = {child: parents[0] for child, parents, _, _ in families if parents}
    depth = {}

    def depth_of(v):
        if v not in depth:
            depth[v] = 0 if v not in parent_of else depth_of(parent_of[v]) + 1
        return depth[v]

    prior = prior.copy()
    for child in sorted(position, key=depth_of, reverse=True):
        k = position[child]
        norm = logsumexp(betas[k], axis=-1, keepdims=True)
        betas[k] = betas[k] - norm
        if child in parent_of and parent_of[child] in position:
            parent = betas[position[parent_of[child]]]
            # norm is (C, r_parent, 1): a function of the class and the parent's own value
            parent += norm[..., 0].reshape(parent.shape[0], *([1] * (parent.ndim - 2)), -1)
        else:
            prior = prior + norm.reshape(len(prior))
    return prior - logsumexp(prior), betas
