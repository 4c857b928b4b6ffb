"""Parameters learnt for the conditional likelihood: ``objective="conditional"``.

Every estimator here fits its parameters to the joint likelihood ``sum log P(c, x)``
by counting. With ``objective="conditional"`` the categorical tables are then
refined to maximise the conditional log-likelihood of the training rows,

    sum_n w_n log P(c_n | x_n)  -  (l2 / 2) ||beta - beta_joint||^2,

by L-BFGS (scipy), starting from and regularised towards the generative log
tables ``beta_joint``. The estimators' ``l2="cv"`` (their default) chooses the
strength from :data:`L2_GRID` by inner stratified cross-validation on the
training rows (:func:`cross_validated_l2`); :func:`conditional_network` takes a
number (default :data:`DEFAULT_L2` nats per squared log-unit). The gradient is
computed from per-family one-hot counts of the residuals ``1[c = c_n] - P(c | x_n)``
(one ``bincount`` per family, no loop over rows).

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
from functools import cache

import numpy as np
import scipy.sparse
from scipy.optimize import minimize
from scipy.special import logsumexp
from threadpoolctl import ThreadpoolController

from .factors import Categorical
from .network import FittedNetwork
from .validation import Interval, Options

#: Default strength of the L2 pull towards the generative log tables (nats per squared log-unit).
DEFAULT_L2 = 10.0

#: The strengths ``l2="cv"`` chooses from by inner cross-validation (:func:`cross_validated_l2`).
L2_GRID = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)

#: Inner stratified folds of ``l2="cv"``.
L2_FOLDS = 3
#: The seed the inner folds are dealt with: the choice is deterministic.
L2_SEED = 0

#: Most L-BFGS iterations of :func:`refine_reached_rows` (a selective KDB's tables): on the
#: UCI development sets its refinements change the held-out losses little after 30 (car:
#: the same 0-1 and log loss at 30 and 100), and the cost is linear in them.
REFINE_ITERATIONS = 30

OBJECTIVES = ("joint", "conditional")

#: What an estimator's ``l2`` may be: a strength >= 0, or ``"cv"`` (chosen by inner CV).
L2 = [Interval(numbers.Real, 0, None, closed="left"), Options({"cv"})]


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
    network: FittedNetwork,
    codes,
    values,
    y,
    sample_weight=None,
    l2=DEFAULT_L2,
    names=None,
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
        Strength of the pull towards the generative log tables (see
        :func:`cross_validated_l2` to choose it).
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
    problem = _Problem(network, codes, values, y, sample_weight)
    return problem.network(problem.solve(_check_l2(l2)), names)


def cross_validated_l2(codes, values, y, folds, fit_fold, sample_weight=None, grid=L2_GRID):
    """The ``l2`` of ``grid`` whose refined networks predict the held-out inner folds best.

    For each inner fold the generative network is refitted on the other folds
    (``fit_fold``), refined at every strength of ``grid`` from the strongest pull
    to the weakest (each L-BFGS run starts at the previous optimum), and scored by
    the conditional log-likelihood of the fold's rows; the strength with the best
    total wins, ties going to the stronger pull. Only the rows given are read, so
    with the training rows of an outer split no test row is seen.

    Parameters
    ----------
    codes : ndarray of shape (n_rows, n_features)
    values : ndarray of shape (n_rows, n_features) or None
        As in :func:`conditional_network`.
    y : ndarray of shape (n_rows,)
        Class codes.
    folds : ndarray of shape (n_rows,)
        The inner fold of every row (``0 .. k-1``).
    fit_fold : callable
        ``fit_fold(rows)``: the generative :class:`~bnclassify.network.FittedNetwork`
        of the same structure fitted to the rows ``rows`` (positions) only.
    sample_weight : ndarray of shape (n_rows,), optional
    grid : sequence of float, default=L2_GRID

    Returns
    -------
    l2 : float
        The chosen strength.
    scores : ndarray of shape (len(grid),)
        The inner-CV conditional log-likelihood (nats, summed over folds) of each.

    Examples
    --------
    >>> import numpy as np
    >>> from bnclassify import TAN
    >>> from bnclassify.datasets import load_car
    >>> from bnclassify.network import fit_network
    >>> from bnclassify.stats import training_statistics
    >>> X, y = load_car(return_X_y=True)
    >>> model = TAN().fit(X, y)
    >>> codes, values = model.encode(X)
    >>> labels = np.searchsorted(model.classes_, y)
    >>> folds = np.arange(len(y)) % 3
    >>> def fit_fold(rows):
    ...     schema, _, stats = training_statistics(X.iloc[rows], y.iloc[rows])
    ...     return fit_network(stats, schema, model.compiled_.parents, 1.0)
    >>> l2, scores = cross_validated_l2(codes, values, labels, folds, fit_fold)
    >>> l2 in L2_GRID, scores.shape
    (True, (7,))
    """
    grid = [_check_l2(g) for g in grid]
    if not grid:
        raise ValueError("grid must hold at least one l2 strength.")
    codes, y, folds = np.asarray(codes), np.asarray(y, dtype=np.intp), np.asarray(folds)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    order = np.argsort(grid, kind="stable")[::-1]  # strongest pull first: warm starts
    scores = np.zeros(len(grid))
    for k in np.unique(folds):
        held = folds == k
        train = np.flatnonzero(~held)
        if not len(train):
            continue
        problem = _Problem(fit_fold(train), codes[train], _rows(values, train), y[train], w[train])
        test_codes, test_values = codes[held], _rows(values, held)
        rows = np.arange(int(held.sum()))
        theta = None
        for g in order:
            theta = problem.solve(grid[g], theta)
            joint = problem.network(theta).joint_log_likelihood(test_codes, test_values)
            log_post = joint - logsumexp(joint, axis=1, keepdims=True)
            scores[g] += float(w[held] @ log_post[rows, y[held]])
    best = order[int(np.argmax(scores[order]))]  # the first maximum: the strongest pull
    return grid[best], scores


def refine_reached_rows(
    network: FittedNetwork,
    codes,
    y,
    columns,
    sample_weight=None,
    l2=DEFAULT_L2,
    max_iter=REFINE_ITERATIONS,
) -> FittedNetwork:
    """``network`` with the table rows its training rows reach refined for ``log P(c | x)``.

    The conditional log-likelihood of the rows, ``sum_n w_n log P(c_n | x_n)``, less
    ``(l2 / 2) ||beta - beta_joint||^2``, is maximised over the log tables ``beta``
    of the categorical nodes of ``columns`` and the class prior, each table row the
    softmax of its weights (the parameterisation :func:`conditional_network` uses
    for a network that is not a forest), by L-BFGS from the generative tables, for at
    most ``max_iter`` iterations. Only the rows ``(c, x_parents)`` of a table whose
    parent configuration some training row holds are free: the others have no
    data term, so their optimum is the generative start, which they keep. The
    cost per iteration is then linear in the training rows and the reached rows,
    whatever the tables' sizes (a selective KDB's tables of five parents), with
    the rows' cells gathered and scattered by one sparse product each way.

    The nodes outside ``columns`` keep their tables and add nothing to the
    objective: they must be the same in every class (a selective KDB's left-out
    attributes). A row whose family holds a missing cell leaves that family out of
    its score, as in :func:`conditional_network`.

    Parameters
    ----------
    network : FittedNetwork
    codes : ndarray of shape (n_rows, n_features)
        The training rows' codes (-1 where missing).
    y : ndarray of shape (n_rows,)
        Class codes.
    columns : sequence of int
        The columns whose categorical nodes are refined.
    sample_weight : ndarray of shape (n_rows,), optional
    l2 : float, default=DEFAULT_L2
    max_iter : int, default=REFINE_ITERATIONS

    Returns
    -------
    FittedNetwork
        A new network (``network`` is not changed).

    Examples
    --------
    >>> import numpy as np
    >>> from bnclassify import KDB
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = KDB(k=2).fit(X, y)
    >>> codes, _ = model.encode(X)
    >>> labels = np.searchsorted(model.classes_, y)
    >>> refined = refine_reached_rows(model.compiled_, codes, labels, range(6), l2=1.0)
    >>> def cll(net):
    ...     joint = net.joint_log_likelihood(codes)
    ...     log_post = joint - np.logaddexp.reduce(joint, axis=1, keepdims=True)
    ...     return log_post[np.arange(len(y)), labels].sum()
    >>> bool(cll(refined) > cll(model.compiled_))
    True
    """
    problem = _ReachedRows(network, codes, y, columns, sample_weight)
    x0 = problem.anchor
    with _blas_controller().limit(limits=1, user_api="blas"):
        theta = minimize(
            problem.objective,
            x0,
            args=(_check_l2(l2),),
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": int(max_iter)},
        ).x
    return problem.network(theta)


class _ReachedRows:
    """The objective of :func:`refine_reached_rows`: free weights for the reached table rows."""

    def __init__(self, network, codes, y, columns, sample_weight=None):
        codes = np.asarray(codes)
        self.y = y = np.asarray(y, dtype=np.intp)
        n = len(y)
        self.C = C = network.n_classes
        self.w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        self.source = network
        wanted = {int(j) for j in columns}
        classes = np.arange(C)
        self.blocks, anchors, lengths, cells, targets = [], [], [], [], []
        size = 0
        for k, factor in enumerate(network.factors):
            if not isinstance(factor, Categorical) or factor.column_positions[0] not in wanted:
                continue
            (child,) = factor.column_positions
            parents = list(factor.discrete_parent_positions)
            table = factor.log_table_
            r = table.shape[-1]
            family = codes[:, [*parents, child]]
            seen = np.flatnonzero((family >= 0).all(axis=1))
            config = (
                np.ravel_multi_index(tuple(family[seen, :-1].T), table.shape[1:-1])
                if parents
                else np.zeros(len(seen), dtype=np.intp)
            )
            reached, row_of = np.unique(config, return_inverse=True)
            start = table.reshape(C, -1, r)[:, reached, :]  # (C, reached rows, r)
            # the weight of (class c, the row's configuration, its value): one per class
            cells.append(
                (size + (classes * len(reached) + row_of[:, None]) * r + family[seen, -1:]).ravel()
            )
            targets.append((seen[:, None] * C + classes).ravel())
            anchors.append(start.ravel())
            lengths.append(np.full(C * len(reached), r))
            self.blocks.append((k, reached, start.shape, size))
            size += start.size
        cells = np.concatenate(cells) if cells else np.zeros(0, dtype=np.intp)
        targets = np.concatenate(targets) if targets else np.zeros(0, dtype=np.intp)
        # cell x (row, class) incidence: scores are its transpose times the log weights, and
        # the cells' gradients it times the residuals
        self.incidence = scipy.sparse.csr_matrix(
            (np.ones(len(cells)), (cells, targets)), shape=(size, n * C)
        )
        self.scores_of = self.incidence.T.tocsr()
        self.lengths = np.concatenate(lengths) if lengths else np.zeros(0, dtype=np.intp)
        self.starts = np.concatenate([[0], np.cumsum(self.lengths)[:-1]]).astype(np.intp)
        self.anchor = np.concatenate([network.log_prior, *anchors])
        self.n = n

    def _log_rows(self, weights):
        """Each table row's weights minus their log-sum-exp (rows are contiguous segments)."""
        if not len(weights):
            return weights
        top = np.maximum.reduceat(weights, self.starts)
        total = np.add.reduceat(np.exp(weights - np.repeat(top, self.lengths)), self.starts)
        return weights - np.repeat(top + np.log(total), self.lengths)

    def objective(self, theta, l2):
        n, C, y, w = self.n, self.C, self.y, self.w
        prior, weights = theta[:C], theta[C:]
        log_prior = prior - np.logaddexp.reduce(prior)
        log_rows = self._log_rows(weights)
        score = (self.scores_of @ log_rows).reshape(n, C)
        score += log_prior - score.max(axis=1, keepdims=True)  # (scipy's logsumexp: 2x slower)
        posterior = np.exp(score)
        total = posterior.sum(axis=1)
        posterior /= total[:, None]
        value = float(w @ (score[np.arange(n), y] - np.log(total)))
        residual = -posterior
        residual[np.arange(n), y] += 1.0
        residual *= w[:, None]
        g_prior = residual.sum(axis=0)
        g_prior -= np.exp(log_prior) * g_prior.sum()
        g_cells = self.incidence @ residual.ravel()
        if len(g_cells):  # through the softmax of each table row
            row_sums = np.add.reduceat(g_cells, self.starts)
            g_cells -= np.repeat(row_sums, self.lengths) * np.exp(log_rows)
        gradient = np.concatenate([g_prior, g_cells])
        diff = theta - self.anchor
        return -(value - 0.5 * l2 * diff @ diff), -(gradient - l2 * diff)

    def network(self, theta):
        """The fitted network of the weights ``theta``: reached rows replaced, rows normalised."""
        network, C = self.source, self.C
        log_rows = self._log_rows(theta[C:])
        factors, names = list(network.factors), network.column_names
        for k, reached, shape, offset in self.blocks:
            old = factors[k]
            table = old.log_table_.copy()
            r = shape[-1]
            block = log_rows[offset : offset + int(np.prod(shape))]
            table.reshape(C, -1, r)[:, reached, :] = block.reshape(shape)
            (child,) = old.column_positions
            factors[k] = type(old).from_log_table(
                table, child, old.discrete_parent_positions, names
            )
        prior = theta[:C] - np.logaddexp.reduce(theta[:C])
        return FittedNetwork(prior, network.parents, factors)


@cache
def _blas_controller() -> ThreadpoolController:
    return ThreadpoolController()  # scans the loaded BLAS libraries once


def _rows(values, rows):
    return None if values is None else values[rows]


class _Problem:
    """The conditional log-likelihood of some rows as a function of the network's weights."""

    def __init__(self, network, codes, values, y, sample_weight=None):
        codes = np.asarray(codes)
        self.y = y = np.asarray(y, dtype=np.intp)
        self.n = n = len(y)
        self.C = C = network.n_classes
        self.w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        self.source = network
        tables, self.families, self.offset = [], [], np.zeros((n, C))
        for factor in network.factors:
            # every table node (a binned column's too): a tree of tables is renormalised
            # leaves first, so a refined child's parent must be refined as well
            if isinstance(factor, Categorical):
                (child,) = factor.column_positions
                family = [*factor.discrete_parent_positions, child]
                table = factor.log_table_
                block = codes[:, family]
                seen = (block >= 0).all(axis=1)
                index = np.ravel_multi_index(
                    tuple(np.where(seen[:, None], block, 0).T), table.shape[1:]
                )
                tables.append(table)
                self.families.append((child, tuple(factor.discrete_parent_positions), index, seen))
            else:
                terms = factor.log_terms(codes, values)
                self.offset += np.where(np.isfinite(terms), terms, 0.0)
        self.forest = network.is_forest
        self.start = [network.log_prior, *tables]
        self.sizes = [t.size for t in self.start]
        self.anchor = np.concatenate([t.ravel() for t in self.start])
        self.target = np.zeros((n, C))
        self.target[np.arange(n), y] = 1.0
        self.class_of_cell = [np.arange(C)[:, None] * (t.size // C) for t in tables]

    def unpack(self, theta):
        parts = np.split(theta, np.cumsum(self.sizes)[:-1])
        return [p.reshape(t.shape) for p, t in zip(parts, self.start, strict=True)]

    def objective(self, theta, l2):
        n, y, w, forest = self.n, self.y, self.w, self.forest
        prior, *betas = self.unpack(theta)
        logs = [b if forest else b - logsumexp(b, axis=-1, keepdims=True) for b in betas]
        log_prior = prior if forest else prior - logsumexp(prior)
        score = self.offset + log_prior
        for log_t, (_, _, index, seen) in zip(logs, self.families, strict=True):
            flat = log_t.reshape(self.C, -1)
            score += np.where(seen[:, None], flat[:, index].T, 0.0)
        log_post = score - logsumexp(score, axis=1, keepdims=True)
        residual = (self.target - np.exp(log_post)) * w[:, None]
        value = float((w * log_post[np.arange(n), y]).sum())
        grads = [residual.sum(axis=0)]
        for log_t, base, (_, _, index, seen) in zip(
            logs, self.class_of_cell, self.families, strict=True
        ):
            cell = (base + index[seen][None, :]).T.ravel()  # (rows, C) -> class-major cells
            g = np.bincount(cell, residual[seen].ravel(), minlength=log_t.size).reshape(log_t.shape)
            if not forest:  # through the softmax of each row
                g = g - np.exp(log_t) * g.sum(axis=-1, keepdims=True)
            grads.append(g)
        gradient = np.concatenate([g.ravel() for g in grads])
        diff = theta - self.anchor
        return -(value - 0.5 * l2 * diff @ diff), -(gradient - l2 * diff)

    def solve(self, l2, start=None):
        """The weights maximising the penalised objective, from ``start`` (the anchor)."""
        x0 = self.anchor.copy() if start is None else start
        # L-BFGS-B's steps are BLAS calls on a few hundred weights: extra BLAS threads only
        # wait on each other (7x slower on two busy cores), so one thread for the run
        with _blas_controller().limit(limits=1, user_api="blas"):
            return minimize(self.objective, x0, args=(l2,), jac=True, method="L-BFGS-B").x

    def network(self, theta, names=None):
        """The fitted network of the weights ``theta``: proper CPTs, other nodes kept."""
        network = self.source
        names = names or [f"x{j}" for j in range(network.n_features)]
        prior, *betas = self.unpack(theta)
        if self.forest:
            prior, betas = _renormalise(prior, betas, self.families, network.n_features)
        else:
            prior = prior - logsumexp(prior)
            betas = [b - logsumexp(b, axis=-1, keepdims=True) for b in betas]
        refined = iter(betas)
        factors = []
        for factor in network.factors:
            if isinstance(factor, Categorical):
                (child,) = factor.column_positions
                table = next(refined)
                factors.append(
                    type(factor).from_log_table(
                        table, child, factor.discrete_parent_positions, names
                    )
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
