"""Edge weights between features of any kind, from the training statistics, in one place.

The weight of a pair is the per-row log-likelihood gain of an arc between
them, in nats (what the maximum spanning tree maximises):

- two discrete features: the plug-in conditional mutual information
  I(X_i; X_j | C) (:func:`~bnclassify.information.pairwise_information`, which
  reads the pair tables a block of columns at a time);
- two continuous (Gaussian) features: the Gaussian CMI
  ``-1/2 sum_c P(c) log(1 - rho_c^2)`` (:func:`gaussian_cmi`);
- a discrete ``X_i`` and a continuous ``X_j``: the gain of one Gaussian per
  ``(c, x_i)`` over one per ``c`` (:func:`mixed_cmi`);
- a feature that takes no part in structures (kernel density, Bernoulli,
  multinomial): 0.

With a criterion the weights are each pair's gain in (penalised)
log-likelihood, and a contact prior adds ``lambda c_ij / max c``
(:func:`edge_weights`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._native import is_symmetric
from .data import MISSING, centred_columns
from .factors import node_from_spec
from .information import class_mi_from_counts, pairwise_information
from .stats import TrainingCounts, training_statistics

#: The least ``1 - rho^2`` of a Gaussian pair: a residual variance is floored at this
#: share of the child's own (centred, within-class) variance. Rounding leaves
#: ``1 - rho^2`` of an exactly collinear pair anywhere in ``[0, 1e-12]`` or so (more
#: on values far from 0), and ``log(1 - rho^2)`` turned that noise into weights that
#: moved under a change of units (a 12-row table: 4.09 against 4.53 nats after x1000);
#: a floor far above the noise and relative to each column's scale is unit-free.
RESIDUAL_SHARE_FLOOR = 1e-8


def _centred_by_class(values, observed):
    """Values minus their mean over observed cells; exactly 0 for constant columns."""
    with np.errstate(invalid="ignore"):
        low = np.where(observed, values, np.inf).min(axis=0)
        high = np.where(observed, values, -np.inf).max(axis=0)
    z = centred_columns(values, observed)
    z[:, low == high] = 0.0
    return z


def gaussian_cmi(values, y, n_classes, return_rows=False):
    """Gaussian conditional mutual information ``-1/2 sum_c P(c) log(1 - rho_c^2)`` (nats).

    ``rho_c`` is the correlation of the pair within class ``c`` on the rows
    observing both (pairwise-complete, like the categorical CMI), and
    ``P(c)`` is the class's share of those rows. A correlation with a
    variable constant within the class is undefined and counts as 0;
    ``1 - rho^2`` is kept at least :data:`RESIDUAL_SHARE_FLOOR` (``1e-8``: the
    residual variance at least that share of the column's own), far above
    rounding noise, so duplicated or exactly collinear columns (two rows in a
    class) get a large finite weight that no change of units moves. ``N_ij I_ij``
    is the log-likelihood gain of the per-class least-squares arc between them.

    Parameters
    ----------
    values : ndarray of shape (n, m)
    y : ndarray of shape (n,)
        Class codes ``0 .. n_classes-1``.
    n_classes : int
    return_rows : bool, default=False
        Also return ``N_ij``, the rows observing both features.

    Returns
    -------
    ndarray of shape (m, m), and of shape (m, m) with ``return_rows``

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a = rng.normal(size=400)
    >>> X = np.column_stack([a, a + 0.5 * rng.normal(size=400), rng.normal(size=400)])
    >>> gaussian_cmi(X, np.repeat([0, 1], 200), 2).round(1)  # rho^2 = 0.8: -log(0.2) / 2
    array([[0. , 0.8, 0. ],
           [0.8, 0. , 0. ],
           [0. , 0. , 0. ]])
    """
    values = np.asarray(values, dtype=float)
    m = values.shape[1]
    total = np.zeros((m, m))
    weighted = np.zeros((m, m))
    for c in range(n_classes):
        rows = values[y == c]
        if not len(rows):  # a class without rows adds nothing (e.g. in a bootstrap sample)
            continue
        observed = ~np.isnan(rows)
        z = _centred_by_class(rows, observed)
        mask = observed.astype(float)
        n = mask.T @ mask
        sums = z.T @ mask  # [i, j]: sum of z_i over the rows observing j
        squares = (z * z).T @ mask
        products = z.T @ z
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_i, mean_j = sums / n, sums.T / n
            var_i = squares / n - mean_i**2
            var_j = squares.T / n - mean_j**2
            cov = products / n - mean_i * mean_j
            own = (z * z).sum(axis=0) / np.maximum(observed.sum(axis=0), 1)  # class variance
            valid = (
                (n >= 2)
                & (var_i > 1e-10 * own[:, None])
                & (var_j > 1e-10 * own[None, :])
                & (own[:, None] > 0)
                & (own[None, :] > 0)
            )
            rho2 = np.where(valid, cov**2 / (var_i * var_j), 0.0)
        rho2 = np.clip(rho2, 0.0, 1.0 - RESIDUAL_SHARE_FLOOR)
        total += n
        weighted += n * (-0.5 * np.log1p(-rho2))
    with np.errstate(invalid="ignore", divide="ignore"):
        cmi = np.where(total > 0, weighted / total, 0.0)
    upper = np.maximum(np.triu(cmi, k=1), 0.0)
    cmi = upper + upper.T
    return (cmi, total) if return_rows else cmi


def mixed_cmi(codes, card, values, y, n_classes, epsilon, return_rows=False):
    """Gain of an arc from one categorical feature to each Gaussian feature (nats per row).

    ``1/2 sum_c P(c) [log(v_c + eps_j) - sum_k P(k | c) log(v_ck + eps_j)]``:
    the per-row log-likelihood gain of fitting one Gaussian per (class,
    category) instead of one per class, ``v`` the maximum-likelihood
    variances on the rows observing both features, ``eps_j`` the feature's
    variance floor. Never negative (law of total variance and Jensen).

    Parameters
    ----------
    codes : ndarray of shape (n,)
        The categorical feature's codes (MISSING allowed).
    card : int
    values : ndarray of shape (n, g)
        Gaussian features (NaN allowed).
    y : ndarray of shape (n,)
    n_classes : int
    epsilon : ndarray of shape (g,)
    return_rows : bool, default=False
        Also return the rows observing both features.

    Returns
    -------
    ndarray of shape (g,), and of shape (g,) with ``return_rows``
    """
    g = values.shape[1]
    total = np.zeros(g)
    weighted = np.zeros(g)
    tiny = np.finfo(float).tiny
    for c in range(n_classes):
        in_class = y == c
        if not in_class.any():
            continue
        k = codes[in_class]
        rows = values[in_class]
        observed = ~np.isnan(rows) & (k != MISSING)[:, None]
        z = _centred_by_class(rows, observed)
        onehot = np.zeros((len(k), card))
        seen = k != MISSING
        onehot[np.flatnonzero(seen), k[seen]] = 1.0
        mask = observed.astype(float)
        n_k = onehot.T @ mask  # (card, g)
        s_k = onehot.T @ z
        ss_k = onehot.T @ (z * z)
        n = n_k.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            size_k, size = np.maximum(n_k, 1), np.maximum(n, 1)
            var_k = np.where(n_k > 0, ss_k / size_k - (s_k / size_k) ** 2, 0.0)
            var_c = ss_k.sum(axis=0) / size - (s_k.sum(axis=0) / size) ** 2
            var_k = np.maximum(var_k, 0.0)
            var_c = np.maximum(var_c, 0.0)
            share = np.where(n > 0, n_k / size, 0.0)
            within = (share * np.log(np.maximum(var_k + epsilon, tiny))).sum(axis=0)
            gain = 0.5 * (np.log(np.maximum(var_c + epsilon, tiny)) - within)
        gain = np.where(n > 0, np.maximum(gain, 0.0), 0.0)
        total += n
        weighted += n * gain
    with np.errstate(invalid="ignore", divide="ignore"):
        cmi = np.where(total > 0, weighted / total, 0.0)
    return (cmi, total) if return_rows else cmi


def check_weight_matrix(matrix, features, name="contact_matrix", labels=None) -> pd.DataFrame:
    """Validate a feature-by-feature weight matrix and return it labelled by ``features``.

    A DataFrame is matched to the features by its labels (and re-ordered); an
    array must already be in column order. The matrix must be square, of the
    right size, symmetric, finite and non-negative. ``labels``: the table's own
    column labels when they are not strings (the features are then ``x0, x1,
    ...``); a DataFrame labelled by them is matched to the features too.
    """
    features = list(features)
    m = len(features)
    if isinstance(matrix, pd.DataFrame) and labels is not None and len(labels) == m:
        own = {str(label): feature for label, feature in zip(labels, features, strict=True)}
        if {str(v) for v in matrix.columns} == set(own) == {str(v) for v in matrix.index}:
            matrix = matrix.set_axis([own[str(v)] for v in matrix.index], axis=0)
            matrix = matrix.set_axis([own[str(v)] for v in matrix.columns], axis=1)
    if isinstance(matrix, pd.DataFrame):
        rows, cols = [str(v) for v in matrix.index], [str(v) for v in matrix.columns]
        if matrix.shape[0] != matrix.shape[1]:
            raise ValueError(f"{name} must be square, got shape {matrix.shape}.")
        for label, labels in (("columns", cols), ("index", rows)):
            missing = [f for f in features if f not in labels]
            extra = [f for f in labels if f not in features]
            if missing or extra:
                raise ValueError(
                    f"{name} {label} do not match the data's columns: "
                    f"missing {missing}, unexpected {extra}."
                )
        frame = matrix.set_axis(rows, axis=0).set_axis(cols, axis=1).loc[features, features]
        values = frame.to_numpy()
    else:
        try:
            values = np.asarray(matrix)
        except ValueError:
            raise ValueError(f"{name} is ragged: every row must have {m} entries.") from None
        if values.dtype == object and values.ndim == 1:
            raise ValueError(f"{name} is ragged: every row must have {m} entries.")
        if values.ndim != 2 or values.shape[0] != values.shape[1]:
            raise ValueError(f"{name} must be a square matrix, got shape {values.shape}.")
        if values.shape[0] != m:
            raise ValueError(
                f"{name} is {values.shape[0]} x {values.shape[0]} but the data has {m} features."
            )
    if np.iscomplexobj(values):
        raise TypeError(f"{name} must hold real numbers, got complex {values.dtype}.")
    try:
        values = values.astype(float)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name} must be numeric: {error}") from None
    # cheap whole-matrix tests first; the positions are looked for only when one fails
    if not np.isfinite(values).all():
        i, j = np.argwhere(~np.isfinite(values))[0]
        raise ValueError(f"{name} has a non-finite entry at ({features[i]!r}, {features[j]!r}).")
    if values.min(initial=0.0) < 0:
        i, j = np.argwhere(values < 0)[0]
        raise ValueError(
            f"{name} must be non-negative; entry ({features[i]!r}, {features[j]!r}) "
            f"is {values[i, j]}."
        )
    if not is_symmetric(values):
        asymmetric = np.argwhere(~np.isclose(values, values.T))
        if len(asymmetric):
            i, j = asymmetric[0]
            raise ValueError(
                f"{name} must be symmetric; ({features[i]!r}, {features[j]!r}) = "
                f"{values[i, j]} but ({features[j]!r}, {features[i]!r}) = {values[j, i]}."
            )
    return pd.DataFrame(values, index=features, columns=features, copy=False)  # values: ours


#: Scores understood by :func:`edge_gains`.
EDGE_SCORES = ("loglik", "aic", "bic")


def edge_gains(cmi, pair_rows, cards, n_classes, score="loglik") -> np.ndarray:
    """Gain in (penalised) log-likelihood, in nats, of an arc between each pair of features.

    Adding the arc X_j -> X_i (or X_i -> X_j) to a class-rooted forest raises
    the maximised log-likelihood by ``N_ij * I(X_i; X_j | C)`` and the number
    of free parameters by ``df_ij = K (r_i - 1) (r_j - 1)`` (``K`` classes,
    ``r_i`` categories of ``X_i``), so the gains are

    - ``"loglik"``: ``N_ij I_ij``;
    - ``"aic"``: ``N_ij I_ij - df_ij``;
    - ``"bic"``: ``N_ij I_ij - df_ij log(N_ij) / 2``;

    the per-edge terms of R bnclassify's ``tan_cl(score=...)``, whose AIC and
    BIC scores are the penalised log-likelihoods ``LL - k`` and
    ``LL - k log(N) / 2``. ``N_ij`` is the number of rows observing both
    features (every row when nothing is missing). The maximum spanning forest
    of the positive gains (:func:`forest_from_weights`) maximises the score
    over all class-rooted forests (Chow and Liu 1968; Friedman et al. 1997).

    Parameters
    ----------
    cmi : ndarray of shape (m, m)
        I(X_i; X_j | C) in nats.
    pair_rows : ndarray of shape (m, m)
        Rows observing both features of each pair.
    cards : sequence of int
        Number of categories of each feature.
    n_classes : int
    score : {"loglik", "aic", "bic"}, default="loglik"

    Returns
    -------
    ndarray of shape (m, m)
        Symmetric, zero diagonal.

    Examples
    --------
    >>> cmi = np.array([[0.0, 0.02], [0.02, 0.0]])
    >>> rows = np.full((2, 2), 1000.0)
    >>> edge_gains(cmi, rows, [3, 3], 2, "aic")[0, 1]  # 1000 * 0.02 - 2 * 2 * 2
    np.float64(12.0)
    """
    dof = np.asarray(cards, dtype=float) - 1.0
    return penalised_gains(cmi, pair_rows, n_classes * np.outer(dof, dof), score)


def penalised_gains(cmi, pair_rows, df, score="loglik") -> np.ndarray:
    """``N_ij I_ij`` minus the AIC (``df_ij``) or BIC (``df_ij log(N_ij) / 2``) penalty."""
    if score not in EDGE_SCORES:
        raise ValueError(f"score must be one of {EDGE_SCORES}, got {score!r}.")
    pair_rows = np.asarray(pair_rows, dtype=float)
    gains = pair_rows * np.asarray(cmi, dtype=float)
    if score == "aic":
        gains = gains - df
    elif score == "bic":
        gains = gains - df * np.log(np.maximum(pair_rows, 1.0)) / 2.0
    np.fill_diagonal(gains, 0.0)
    return gains


def contact_prior_terms(contacts) -> np.ndarray:
    """Contacts scaled by their largest off-diagonal entry (``c_ij / max c``), zero diagonal.

    Examples
    --------
    >>> contact_prior_terms(np.array([[9.0, 4.0, 0.0], [4.0, 9.0, 2.0], [0.0, 2.0, 9.0]]))
    array([[0. , 1. , 0. ],
           [1. , 0. , 0.5],
           [0. , 0.5, 0. ]])
    """
    values = np.array(contacts, dtype=float)
    np.fill_diagonal(values, 0.0)
    top = values.max() if values.size else 0.0
    return values / top if top > 0 else values


def contact_weights(matrix, features, labels=None) -> pd.DataFrame:
    """The validated contact matrix (array, DataFrame or callable of the feature names);
    ``labels``: the table's own non-string column labels (see :func:`check_weight_matrix`)."""
    if callable(matrix):
        matrix = matrix(list(features))
    return check_weight_matrix(matrix, features, name="contact_matrix", labels=labels)


def edge_weights(stats, schema, criterion=None, contacts=None, contact_prior=0.0):
    """Edge weights of every pair of features, any kinds (see the module docstring).

    Parameters
    ----------
    stats : TrainingCounts
    schema : TableSchema
    criterion : {None, "loglik", "aic", "bic"}, default=None
        ``None``: the conditional mutual information ``I_ij`` in nats per row.
        Otherwise each pair's gain in (penalised) log-likelihood in nats,
        ``N_ij I_ij`` minus ``df_ij`` (AIC) or ``df_ij log(N_ij) / 2`` (BIC),
        with ``N_ij`` the rows observing both and ``df_ij`` the parameters the
        arc adds: ``K (r_i - 1)(r_j - 1)`` for two discrete features (``K``
        classes, ``r_i`` categories of ``X_i``), ``K`` (one slope per class)
        for two Gaussian ones and ``2 K (r_i - 1)`` (a
        mean and a variance per extra category and class) for a discrete and a
        Gaussian one. R bnclassify's ``tan_cl(score=...)`` per-edge terms.
    contacts : DataFrame of shape (m, m), optional
        A validated contact matrix (:func:`contact_weights`).
    contact_prior : float, default=0
        ``lambda``: adds ``lambda c_ij / max c`` to every gain (a criterion is
        implied: ``"loglik"`` when ``criterion`` is None).

    Returns
    -------
    DataFrame of shape (m, m)
        Symmetric, zero diagonal, labelled by feature name.
    """
    if criterion is not None and criterion not in EDGE_SCORES:
        raise ValueError(f"criterion must be one of {EDGE_SCORES}, got {criterion!r}.")
    if contact_prior > 0 and criterion is None:
        criterion = "loglik"
    features = schema.names
    m = len(features)
    discrete, structural = schema.discrete, schema.structural
    n_classes = stats.n_classes
    cat = [j for j in range(m) if discrete[j] and structural[j]]
    gauss = [j for j in range(m) if not discrete[j] and structural[j]]
    if len(cat) == m:  # the categorical fast path: one pass over the pair tables
        cmi, rows = pairwise_information(stats)
        dof = stats.cards - 1.0
        df = n_classes * np.outer(dof, dof)
    else:
        cmi, rows, df = np.zeros((m, m)), np.zeros((m, m)), np.zeros((m, m))
        if len(cat) >= 2:
            block = np.ix_(cat, cat)
            cmi[block], rows[block] = pairwise_information(stats, cat)
            dof = stats.cards[cat] - 1.0
            df[block] = n_classes * np.outer(dof, dof)
        # rows at hand and unweighted: the raw-value estimates; otherwise the same
        # quantities from additive moments (partial_fit, dask, sample_weight)
        raw = isinstance(stats, TrainingCounts) and stats.weights is None
        if len(gauss) >= 2:
            block = np.ix_(gauss, gauss)
            cmi[block], rows[block] = (
                gaussian_cmi(stats.values[:, gauss], stats.y, n_classes, return_rows=True)
                if raw
                else gaussian_cmi_from_moments(stats, gauss)
            )
            df[block] = n_classes
        if cat and gauss:
            floors = [
                node_from_spec(schema.nodes_by_column[j]).column_floor(stats, j) for j in gauss
            ]
            for i in cat:
                gain, n = (
                    mixed_cmi(
                        stats.codes[:, i],
                        int(stats.cards[i]),
                        stats.values[:, gauss],
                        stats.y,
                        n_classes,
                        np.array(floors),
                        return_rows=True,
                    )
                    if raw
                    else mixed_cmi_from_moments(stats, i, gauss, np.array(floors))
                )
                cmi[i, gauss] = cmi[gauss, i] = gain
                rows[i, gauss] = rows[gauss, i] = n
                df[i, gauss] = df[gauss, i] = 2.0 * n_classes * (stats.cards[i] - 1)
    if criterion is None:
        weights = cmi
    else:
        weights = penalised_gains(cmi, rows, df, criterion)
        if contact_prior > 0:
            weights = weights + contact_prior * contact_prior_terms(contacts)
    return pd.DataFrame(weights, index=features, columns=features)


def _constant(moments) -> np.ndarray:
    """Per group: the values are constant, as the raw-value estimates' ``min == max`` says.

    The moments are centred on the exact means, so a constant column's sum of squares is
    0 up to a residue of order ``(eps^2 m)^2``, while two distinct values, an ulp
    (at least ``eps |m| / 2``) apart, give at least ``(eps m)^2 / 8``.
    """
    return moments.sxx <= (np.finfo(float).eps * moments.mean_x) ** 2 / 64


def gaussian_cmi_from_moments(stats, gauss):
    """:func:`gaussian_cmi` of the Gaussian columns ``gauss`` from additive moments.

    Per pair and class the moments on the rows observing both (key
    ``(j, (), (k,))``) give the pairwise-complete variances and covariance,
    and the moments of each column alone (``(j, (), ())``) its class
    variance; the same estimate as the raw-value one up to rounding. A column
    constant within a class has correlation 0 there.

    Returns
    -------
    cmi, rows : ndarray of shape (g, g)
    """
    g = len(gauss)
    cmi, total = np.zeros((g, g)), np.zeros((g, g))
    own = []
    for j in gauss:
        alone = stats.gaussian_moments(j)
        own.append(np.where(_constant(alone), 0.0, alone.sxx / np.maximum(alone.count, 1.0)))
    for a in range(g):
        for b in range(a + 1, g):
            m = stats.gaussian_moments(gauss[a], (), (gauss[b],))
            n = m.count
            with np.errstate(invalid="ignore", divide="ignore"):
                size = np.maximum(n, 1.0)
                var_a, var_b, cov = m.sxx / size, m.spp[:, 0, 0] / size, m.sxp[:, 0] / size
                valid = (
                    (n >= 2)
                    & (var_a > 1e-10 * own[a])
                    & (var_b > 1e-10 * own[b])
                    & (own[a] > 0)
                    & (own[b] > 0)
                )
                rho2 = np.where(valid, cov**2 / (var_a * var_b), 0.0)
            rho2 = np.clip(rho2, 0.0, 1.0 - RESIDUAL_SHARE_FLOOR)
            rows = n.sum()
            value = (n * (-0.5 * np.log1p(-rho2))).sum() / rows if rows > 0 else 0.0
            cmi[a, b] = cmi[b, a] = max(value, 0.0)
            total[a, b] = total[b, a] = rows
    for a in range(g):
        total[a, a] = stats.gaussian_moments(gauss[a]).count.sum()
    return cmi, total


def mixed_cmi_from_moments(stats, i, gauss, epsilon):
    """:func:`mixed_cmi` of categorical feature ``i`` and the Gaussian ``gauss``, from moments.

    The moments of each Gaussian column per (class, category of ``i``) on
    the rows observing both (key ``(j, (i,), ())``) are all it needs.

    Returns
    -------
    gain, rows : ndarray of shape (g,)
    """
    tiny = np.finfo(float).tiny
    card = int(stats.cards[i])
    gains, totals = np.zeros(len(gauss)), np.zeros(len(gauss))
    for k, j in enumerate(gauss):
        m = stats.gaussian_moments(j, (i,), ())
        n_k = m.count.reshape(-1, card)
        ss_k = m.sxx.reshape(-1, card)
        n = n_k.sum(axis=1)
        by_class = m.pooled(card)  # its exact class means, not the rounded ones of the groups
        with np.errstate(invalid="ignore", divide="ignore"):
            size_k, size = np.maximum(n_k, 1), np.maximum(n, 1)
            var_k = np.where(n_k > 0, ss_k / size_k, 0.0)
            var_k = np.where(_constant(m).reshape(-1, card), 0.0, var_k)
            var_c = by_class.sxx / size
            share = np.where(n[:, None] > 0, n_k / size[:, None], 0.0)
            within = (share * np.log(np.maximum(var_k + epsilon[k], tiny))).sum(axis=1)
            gain = 0.5 * (np.log(np.maximum(var_c + epsilon[k], tiny)) - within)
        gain = np.where(n > 0, np.maximum(gain, 0.0), 0.0)
        totals[k] = n.sum()
        gains[k] = (n * gain).sum() / totals[k] if totals[k] > 0 else 0.0
    return gains, totals


def class_information(stats, schema, features=None) -> np.ndarray:
    """Mutual information I(X_i; C) in nats of every feature with the class, any kind.

    Discrete features: the plug-in estimate from N(c, x_i). Gaussian features:
    the gain of one Gaussian per class over one for all rows,
    ``1/2 [log(v + eps) - sum_c P(c) log(v_c + eps)]`` on the observed rows.
    Features that take no part in structures: 0. ``features``: only those
    positions are computed (the others are 0).
    """
    out = np.zeros(schema.n_features)
    discrete, structural = schema.discrete, schema.structural
    features = range(schema.n_features) if features is None else features
    cat = [j for j in features if discrete[j] and structural[j]]
    if cat:
        out[cat] = class_mi_from_counts(stats, cat)
    for j in features:
        if discrete[j] or not structural[j]:
            continue
        floor = node_from_spec(schema.nodes_by_column[j]).column_floor(stats, j)
        by_class = stats.gaussian_moments(j)
        pooled = by_class.pooled()
        n = by_class.count
        with np.errstate(divide="ignore", invalid="ignore"):
            within = np.log(by_class.sxx / np.maximum(n, 1) + floor)
            total = np.log(pooled.sxx[0] / max(pooled.count[0], 1) + floor)
            gain = 0.5 * (total - np.where(n > 0, n * within, 0.0).sum() / max(n.sum(), 1))
        out[j] = max(float(gain), 0.0) if np.isfinite(gain) else 0.0
    return out


def conditional_mutual_information(X, y, distributions=None) -> pd.DataFrame:
    """Conditional mutual information I(X_i; X_j | C) of every pair of features, in nats.

    Exactly the weights :class:`~bnclassify.TAN` learns its tree from
    (``TAN().fit(X, y).weights_``), for features of any kind: the plug-in CMI
    for two categorical features, the Gaussian CMI for two continuous ones
    and the mixed gain for one of each (see :func:`edge_weights`).

    Parameters
    ----------
    X : DataFrame or array of shape (n_rows, n_features)
        Features; NaN is missing (each pair uses the rows observing both).
    y : array-like of shape (n_rows,)
        Class labels.
    distributions : None, str, Distribution or dict, default=None
        How each column is modelled, as in :class:`~bnclassify.NaiveBayes`.

    Returns
    -------
    DataFrame of shape (n_features, n_features)
        Symmetric, zero diagonal, labelled by feature name.

    Examples
    --------
    >>> from bnclassify.datasets import load_p450
    >>> X, y = load_p450(return_X_y=True)
    >>> cmi = conditional_mutual_information(X, y)
    >>> round(float(cmi.loc["block1", "block4"]), 4)
    0.0101
    """
    schema, _, stats = training_statistics(X, y, distributions)
    return edge_weights(stats, schema)


def mutual_information_with_class(X, y, distributions=None) -> pd.Series:
    """Mutual information I(X_i; C) of every feature with the class, in nats.

    Examples
    --------
    >>> from bnclassify.datasets import load_p450
    >>> X, y = load_p450(return_X_y=True)
    >>> mutual_information_with_class(X, y).idxmax()
    'block5'
    """
    schema, _, stats = training_statistics(X, y, distributions)
    return pd.Series(
        class_information(stats, schema), index=schema.names, name="mutual_information"
    )
