"""Mixed categorical and continuous features: the glue between the core and the densities.

The core (codes, counts, CPTs, :class:`~bnclassify.network.CompiledNetwork`)
stays categorical. A non-categorical column enters it as a one-state dummy
(code 0, or MISSING where the cell is NaN): its CPT is identically 1, so the
compiled network still computes the categorical part exactly, missing
categorical cells included. The densities of :mod:`bnclassify.distributions`
then add their ``(n, n_classes)`` log-density terms on top. An all-categorical
table never reaches this module.

Structure for TAN on mixed data (documented rule, see :func:`hybrid_edge_weights`
and :func:`hybrid_feature_dag`):

- weights are each pair's per-row log-likelihood gain of an arc, in nats:
  the plug-in CMI for two categorical features, the Gaussian CMI
  ``-1/2 sum_c P(c) log(1 - rho_c^2)`` for two Gaussian features, and for a
  categorical ``X_i`` and a Gaussian ``X_j`` the gain of one Gaussian per
  ``(c, x_i)`` over one per ``c``:
  ``1/2 sum_c P(c) [log(v_c + eps) - sum_k P(k | c) log(v_ck + eps)]``;
- a categorical feature never gets a continuous parent: the tree is the
  maximum spanning tree among those whose categorical features form a
  connected subtree containing the root (the categorical features' own
  maximum spanning tree, plus the maximum spanning tree of the Gaussian
  features with all categorical ones contracted to one node), so orienting it
  away from a categorical root points every mixed arc from the categorical
  to the Gaussian end;
- kernel density, Bernoulli and multinomial features take no part in the
  tree: their only parent is the class.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import networkx as nx
import numpy as np
import pandas as pd
from scipy.special import logsumexp

from ._encoding import MISSING, default_kind
from .counts import TrainingCounts
from .distributions import KINDS, Distribution, Gaussian
from .network import CompiledNetwork
from .structure import add_class_arcs, forest_from_weights, tree_from_weights

CATEGORICAL = "categorical"
GAUSSIAN = "gaussian"
#: Kinds that may take part in a learned structure (have feature parents, be parents).
STRUCTURAL = (CATEGORICAL, GAUSSIAN)

_LOG_2PI = np.log(2 * np.pi)


# -- which distribution models which column ----------------------------------------
def _as_spec(value, where):
    if isinstance(value, str):
        if value not in KINDS:
            raise ValueError(
                f"Unknown distribution {value!r} for {where}; "
                f"use one of {sorted(KINDS)} or a bnclassify.distributions instance."
            )
        return KINDS[value]()
    if isinstance(value, Distribution) and value.kind is not None:
        return copy.deepcopy(value)
    raise TypeError(
        f"The distribution for {where} must be one of {sorted(KINDS)} or a "
        f"bnclassify.distributions instance, got {value!r}."
    )


def _column_position(key, columns):
    if isinstance(key, str) or not isinstance(key, (int, np.integer)):
        if key in columns:
            return columns.index(key)
    elif not isinstance(key, bool) and -len(columns) <= key < len(columns):
        return int(key) % len(columns)
    raise ValueError(
        f"distributions names the column {key!r}, which is neither a column name nor "
        f"a position; columns: {columns}."
    )


def resolve_distributions(frame: pd.DataFrame, spec) -> tuple[list, list]:
    """Each column's kind and the (columns, distribution) groups that are not categorical.

    Parameters
    ----------
    frame : DataFrame
    spec : None, str, Distribution or dict
        ``None``: by dtype (float -> Gaussian, anything else -> categorical).
        A string or instance: that distribution for every column (a
        multinomial then groups the whole table). A dict maps a column name or
        position, or a tuple of them, to a string or instance; columns it does
        not name are modelled by dtype. A tuple with a multinomial is one
        group; with any other distribution, each of its columns gets its own.

    Returns
    -------
    kinds : list of str
        Per column: ``"categorical"``, ``"gaussian"``, ``"kde"``, ``"bernoulli"``
        or ``"multinomial"``.
    groups : list of (tuple of int, Distribution)
        Unfitted copies, one per non-categorical column or multinomial group.
    """
    columns = list(frame.columns)
    chosen = [None] * len(columns)
    groups = []
    if spec is None:
        entries = []
    elif isinstance(spec, dict):
        entries = list(spec.items())
    else:
        entries = [(tuple(range(len(columns))), spec)]
    for key, value in entries:
        where = f"column(s) {key!r}"
        dist = _as_spec(value, where)
        keys = key if isinstance(key, tuple) else (key,)
        if len(keys) == 0:
            raise ValueError("distributions has an empty tuple of columns.")
        positions = [_column_position(k, columns) for k in keys]
        for pos in positions:
            if chosen[pos] is not None:
                raise ValueError(
                    f"Column {columns[pos]!r} is given more than one distribution in distributions."
                )
            chosen[pos] = dist
        if dist.joint:
            if len(positions) < 2:
                raise ValueError(
                    f"A multinomial models a group of count columns jointly; {where} is a "
                    "single column. Give the group as a tuple of columns."
                )
            groups.append((tuple(positions), dist))
        elif dist.kind != CATEGORICAL:
            groups.extend(((pos,), copy.deepcopy(dist)) for pos in positions)
    kinds = []
    for pos, name in enumerate(columns):
        if chosen[pos] is None:
            kind = default_kind(frame[name])
            chosen[pos] = KINDS[kind]()
            if kind != CATEGORICAL:
                groups.append(((pos,), chosen[pos]))
        kinds.append(chosen[pos].kind)
    groups.sort(key=lambda group: group[0][0])
    return kinds, groups


def continuous_values(frame: pd.DataFrame, kinds) -> np.ndarray:
    """The non-categorical columns as floats (NaN: missing; categorical columns all NaN).

    A value that is not a number or is infinite raises a ``ValueError``
    naming the column.
    """
    values = np.full(frame.shape, np.nan)
    plain = [  # numpy numeric columns convert in one block
        j
        for j, (kind, dtype) in enumerate(zip(kinds, frame.dtypes, strict=True))
        if kind != CATEGORICAL and isinstance(dtype, np.dtype) and dtype.kind in "biuf"
    ]
    if plain:
        values[:, plain] = frame.iloc[:, plain].to_numpy(dtype=float)
    done = set(plain)
    for j, (name, kind) in enumerate(zip(frame.columns, kinds, strict=True)):
        if kind == CATEGORICAL or j in done:
            continue
        column = frame[name]
        if isinstance(column.dtype, pd.CategoricalDtype):
            column = column.astype(object)
        numbers = pd.to_numeric(column, errors="coerce")
        bad = numbers.isna().to_numpy() & column.notna().to_numpy()
        if bad.any():
            raise ValueError(
                f"Column {name!r} is modelled as {kind} and needs numbers; "
                f"got {list(pd.unique(column[bad]))[:5]}."
            )
        values[:, j] = numbers.to_numpy(dtype=float, na_value=np.nan)
    infinite = np.isinf(values)
    if infinite.any():
        row, j = np.argwhere(infinite)[0]
        raise ValueError(
            f"Column {frame.columns[j]!r} has infinite value(s) (first at row {row}); "
            "continuous features must be finite or NaN."
        )
    return values


@dataclass
class HybridCounts(TrainingCounts):
    """:class:`~bnclassify.counts.TrainingCounts` plus the continuous columns.

    ``codes`` holds a one-state dummy for every non-categorical column.
    """

    values: np.ndarray = None
    kinds: list = field(default_factory=list)
    groups: list = field(default_factory=list)
    #: V of the variance floor: the largest variance of any Gaussian / kernel feature.
    variance_scale: float = 1.0


def training_counts(frame, codes, y, cards, n_classes, kinds, groups):
    """:class:`HybridCounts` when any column is not categorical, else plain counts."""
    if all(kind == CATEGORICAL for kind in kinds):
        return TrainingCounts(codes, y, cards, n_classes)
    values = continuous_values(frame, kinds)
    for j, kind in enumerate(kinds):
        if kind != CATEGORICAL and np.isnan(values[:, j]).all():
            raise ValueError(
                f"Column {frame.columns[j]!r} has no observed value: every cell is missing."
            )
    densities = [j for j, kind in enumerate(kinds) if kind in (GAUSSIAN, "kde")]
    scale = float(np.nanvar(values[:, densities], axis=0).max()) if densities else 1.0
    return HybridCounts(
        codes,
        y,
        cards,
        n_classes,
        values=values,
        kinds=list(kinds),
        groups=groups,
        variance_scale=scale if scale > 0 else 1.0,
    )


def is_hybrid(counts) -> bool:
    return isinstance(counts, HybridCounts)


# -- edge weights ------------------------------------------------------------------
def _centred_by_class(values, observed):
    """Values minus their mean over observed cells; exactly 0 for constant columns."""
    with np.errstate(invalid="ignore"):
        n = observed.sum(axis=0)
        mean = np.where(n > 0, np.where(observed, values, 0.0).sum(axis=0) / np.maximum(n, 1), 0)
        low = np.where(observed, values, np.inf).min(axis=0)
        high = np.where(observed, values, -np.inf).max(axis=0)
    z = np.where(observed, values - mean, 0.0)
    z[:, low == high] = 0.0
    return z


def gaussian_cmi(values, y, n_classes, return_rows=False):
    """Gaussian conditional mutual information ``-1/2 sum_c P(c) log(1 - rho_c^2)`` (nats).

    ``rho_c`` is the correlation of the pair within class ``c`` on the rows
    observing both (pairwise-complete, like the categorical CMI), and
    ``P(c)`` is the class's share of those rows. A correlation with a
    variable constant within the class is undefined and counts as 0;
    ``1 - rho^2`` is kept at least machine epsilon, so duplicated columns get
    a large finite weight. ``N_ij I_ij`` is the log-likelihood gain of the
    per-class least-squares arc between them.

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
        rho2 = np.clip(rho2, 0.0, 1.0 - np.finfo(float).eps)
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


def _gaussian_epsilon(counts, j):
    spec = next(d for cols, d in counts.groups if cols == (j,))
    return spec.var_smoothing * counts.variance_scale


def hybrid_edge_weights(counts: HybridCounts, features, criterion=None) -> pd.DataFrame:
    """Edge weights for mixed data (see the module docstring for the rule).

    Parameters
    ----------
    counts : HybridCounts
    features : list of str
    criterion : {None, "loglik", "aic", "bic"}, default=None
        ``None``: the conditional mutual information ``I_ij`` in nats per row.
        Otherwise each pair's gain in (penalised) log-likelihood in nats,
        ``N_ij I_ij`` minus ``df_ij`` (AIC) or ``df_ij log(N_ij) / 2`` (BIC),
        as :func:`~bnclassify.structure.edge_gains` for categorical pairs,
        with ``N_ij`` the rows observing both and ``df_ij`` the parameters
        the arc adds: ``C (r_i - 1)(r_j - 1)`` for two categorical features,
        ``C`` (one slope per class) for two Gaussian ones and ``2 C (r_i - 1)``
        (a mean and a variance per extra category and class) for a
        categorical and a Gaussian one.

    Returns
    -------
    DataFrame of shape (m, m)
        Pairs involving a kernel density, Bernoulli or multinomial feature weigh 0.
    """
    from .information import cmi_from_counts

    kinds = counts.kinds
    m = len(kinds)
    cmi, rows, df = np.zeros((m, m)), np.zeros((m, m)), np.zeros((m, m))
    n_classes = counts.n_classes
    cat = [j for j in range(m) if kinds[j] == CATEGORICAL]
    gauss = [j for j in range(m) if kinds[j] == GAUSSIAN]
    if len(cat) >= 2:
        pairwise = counts.pairwise
        block = np.ix_(cat, cat)
        cmi[block] = cmi_from_counts(pairwise)[block]
        starts = pairwise.offsets[:-1]
        total = pairwise.table.sum(axis=0)
        rows[block] = np.add.reduceat(np.add.reduceat(total, starts, axis=0), starts, axis=1)[block]
        dof = counts.cards[cat] - 1.0
        df[block] = n_classes * np.outer(dof, dof)
    if len(gauss) >= 2:
        block = np.ix_(gauss, gauss)
        cmi[block], rows[block] = gaussian_cmi(
            counts.values[:, gauss], counts.y, n_classes, return_rows=True
        )
        df[block] = n_classes
    if cat and gauss:
        epsilon = np.array([_gaussian_epsilon(counts, j) for j in gauss])
        for i in cat:
            gain, n = mixed_cmi(
                counts.codes[:, i],
                int(counts.cards[i]),
                counts.values[:, gauss],
                counts.y,
                n_classes,
                epsilon,
                return_rows=True,
            )
            cmi[i, gauss] = cmi[gauss, i] = gain
            rows[i, gauss] = rows[gauss, i] = n
            df[i, gauss] = df[gauss, i] = 2.0 * n_classes * (counts.cards[i] - 1)
    if criterion is None:
        weights = cmi
    else:
        weights = rows * cmi
        if criterion == "aic":
            weights = weights - df
        elif criterion == "bic":
            weights = weights - df * np.log(np.maximum(rows, 1.0)) / 2.0
        np.fill_diagonal(weights, 0.0)
    return pd.DataFrame(weights, index=features, columns=features)


# -- structure -----------------------------------------------------------------------
def hybrid_root(root, features, kinds):
    """The root for mixed data: ``root`` (a name, checked) or the first categorical feature.

    Without categorical features, the first Gaussian one. A root that takes
    no part in the structure (kernel density, Bernoulli, multinomial) is a
    ``ValueError``.
    """
    cat = [f for f, k in zip(features, kinds, strict=True) if k == CATEGORICAL]
    structural = [f for f, k in zip(features, kinds, strict=True) if k in STRUCTURAL]
    if root is None:
        return (cat or structural or list(features))[0]
    kind = kinds[list(features).index(root)]
    if kind not in STRUCTURAL and structural:
        raise ValueError(
            f"root {root!r} is a {kind} feature, which takes no part in the tree; "
            f"choose one of {structural}."
        )
    return root


def constrained_tree(weights, features, kinds, forest=False) -> nx.Graph:
    """Maximum spanning tree (or forest) in which no continuous feature links categorical ones.

    Every valid tree is the union of a spanning tree of the categorical
    features (they must form a connected subtree, or a categorical node
    would get a continuous parent) and a spanning tree of the Gaussian
    features plus one node standing for all categorical ones. Both parts
    are maximised independently: the categorical features' maximum spanning
    tree, and the maximum spanning tree of the contracted graph, whose
    weight from the hub to a Gaussian feature is its largest weight to any
    categorical feature (ties to the first). The same holds for forests
    (``forest=True``: positive weights only, :func:`~bnclassify.structure.forest_from_weights`)
    with "a connected subtree" read per component. Kernel density, Bernoulli
    and multinomial features are isolated nodes. With a single kind this is
    ``tree_from_weights`` (or ``forest_from_weights``).

    Examples
    --------
    A Gaussian feature ``g`` may not join the categorical ``a`` and ``b``:

    >>> w = np.array([[0, 1, 5], [1, 0, 5], [5, 5, 0]])
    >>> tree = constrained_tree(w, ["a", "b", "g"], ["categorical", "categorical", "gaussian"])
    >>> sorted(tree.edges())
    [('a', 'b'), ('a', 'g')]
    """
    span = forest_from_weights if forest else tree_from_weights
    values = np.asarray(weights, dtype=float)
    features = list(features)
    cat = [j for j, k in enumerate(kinds) if k == CATEGORICAL]
    gauss = [j for j, k in enumerate(kinds) if k == GAUSSIAN]
    tree = nx.Graph()
    tree.add_nodes_from(features)
    if len(cat) > 1:
        sub = span(values[np.ix_(cat, cat)], [features[j] for j in cat])
        tree.add_edges_from(sub.edges(data=True))
    if gauss:
        hub = [-1] if cat else []
        nodes = hub + gauss
        contracted = np.zeros((len(nodes), len(nodes)))
        contracted[len(hub) :, len(hub) :] = values[np.ix_(gauss, gauss)]
        if cat:
            block = values[np.ix_(cat, gauss)]
            best = np.argmax(block, axis=0)
            contracted[0, 1:] = contracted[1:, 0] = block.max(axis=0)
        sub = span(contracted, list(range(len(nodes))))
        for u, v in sub.edges():
            a, b = nodes[u], nodes[v]
            if a == -1 or b == -1:
                b = b if a == -1 else a
                a = cat[best[gauss.index(b)]]
            tree.add_edge(features[a], features[b], weight=values[a, b])
    return tree


def hybrid_feature_dag(weights, features, kinds, root, forest=False) -> nx.DiGraph:
    """:func:`constrained_tree` oriented so that no categorical feature has a continuous parent.

    The component holding ``root`` (see :func:`hybrid_root`) is rooted
    there; a continuous root whose component has categorical features is a
    ``ValueError``. Every other component is rooted at its first categorical
    feature, or its first feature if it has none.
    """
    features = list(features)
    tree = constrained_tree(weights, features, kinds, forest=forest)
    root = hybrid_root(root, features, kinds)
    kind = dict(zip(features, kinds, strict=True))
    position = {f: k for k, f in enumerate(features)}
    dag = nx.DiGraph()
    dag.add_nodes_from(features)
    for component in sorted(nx.connected_components(tree), key=lambda c: min(map(position.get, c))):
        cat = sorted((v for v in component if kind[v] == CATEGORICAL), key=position.get)
        if root in component:
            if kind[root] == GAUSSIAN and cat:
                raise ValueError(
                    f"root {root!r} is continuous, but a categorical feature never gets a "
                    "continuous parent, so the root must be one of the categorical features "
                    f"connected to it: {cat}."
                )
            start = root
        else:
            start = cat[0] if cat else min(component, key=position.get)
        dag.add_edges_from(nx.bfs_edges(tree, start))
    return dag


# -- fitting the densities ------------------------------------------------------------
def fit_distributions(counts: HybridCounts, parents, features, alpha) -> dict:
    """Fit every non-categorical distribution given each feature's feature parents.

    Returns ``{name or tuple of names: fitted distribution}``. Raises a
    ``ValueError`` if the structure gives a categorical feature a continuous
    parent, or a non-structural (kernel, Bernoulli, multinomial) feature any
    feature parent or child.
    """
    kinds = counts.kinds
    for i, kind in enumerate(kinds):
        for p in parents[i]:
            if kinds[p] not in STRUCTURAL or (kind == CATEGORICAL and kinds[p] != CATEGORICAL):
                raise ValueError(
                    f"The structure makes {features[p]!r} ({kinds[p]}) a parent of "
                    f"{features[i]!r} ({kind}); a categorical feature can only have categorical "
                    "feature parents, and kernel density, Bernoulli and multinomial features "
                    "can be neither parents nor children of other features."
                )
    fitted = {}
    n_classes, y = counts.n_classes, counts.y
    for columns, spec in counts.groups:
        dist = copy.deepcopy(spec)
        names = [features[j] for j in columns]
        if dist.joint:
            for j in columns:
                if parents[j]:
                    raise ValueError(
                        f"{names} form a multinomial group, which depends on the class only; "
                        f"the structure gives {features[j]!r} the parents "
                        f"{[features[p] for p in parents[j]]}."
                    )
            dist._setup(columns, names=features)
            dist._fit(counts.values[:, list(columns)], y, n_classes, alpha, names)
            fitted[tuple(names)] = dist
            continue
        (j,) = columns
        name = features[j]
        if parents[j] and not dist.structural:
            raise ValueError(
                f"{name!r} is a {dist.kind} feature, which depends on the class only; "
                f"the structure gives it the parents {[features[p] for p in parents[j]]}."
            )
        cat = [p for p in parents[j] if kinds[p] == CATEGORICAL]
        cont = [p for p in parents[j] if kinds[p] == GAUSSIAN]
        dist._setup((j,), cat, cont, features)
        x = counts.values[:, j]
        if isinstance(dist, Gaussian):
            dist._fit(
                x,
                y,
                n_classes,
                counts.codes[:, cat].astype(np.intp),
                counts.cards[cat],
                counts.values[:, cont],
                counts.variance_scale,
                name,
            )
        elif dist.kind == "kde":
            dist._fit(x, y, n_classes, counts.variance_scale, name)
        else:
            dist._fit(x, y, n_classes, alpha, name)
        fitted[name] = dist
    return fitted


# -- prediction --------------------------------------------------------------------------
def hybrid_joint_log_likelihood(compiled: CompiledNetwork, distributions: dict, codes, values):
    """log P(c, x_observed) of mixed rows, shape ``(n, n_classes)``, missing cells summed out.

    Categorical parents of Gaussian features that are missing are enumerated
    (each value filled in, the compiled network summing out the other missing
    categorical cells, the results log-sum-exp'ed); missing continuous values
    are integrated out by :func:`continuous_terms`.
    """
    dists = list(distributions.values())
    hidden_parents = sorted({p for d in dists for p in d._categorical_parents})
    if not hidden_parents:
        return compiled.joint_log_likelihood(codes) + continuous_terms(dists, codes, values)
    out = np.empty((len(codes), compiled.n_classes))
    cards = compiled.cards
    patterns, inverse = np.unique(codes[:, hidden_parents] == MISSING, axis=0, return_inverse=True)
    for k, pattern in enumerate(patterns):
        rows = np.flatnonzero(inverse.ravel() == k)
        hidden = [hidden_parents[j] for j in np.flatnonzero(pattern)]
        if not hidden:
            out[rows] = compiled.joint_log_likelihood(codes[rows]) + continuous_terms(
                dists, codes[rows], values[rows]
            )
            continue
        grid = np.indices([cards[v] for v in hidden]).reshape(len(hidden), -1).T
        filled = np.repeat(codes[rows], len(grid), axis=0)
        filled[:, hidden] = np.tile(grid, (len(rows), 1))
        filled_values = np.repeat(values[rows], len(grid), axis=0)
        joint = compiled.joint_log_likelihood(filled) + continuous_terms(
            dists, filled, filled_values
        )
        out[rows] = logsumexp(joint.reshape(len(rows), len(grid), -1), axis=1)
    return out


def continuous_terms(dists, codes, values) -> np.ndarray:
    """Sum of the densities' log terms, shape ``(n, n_classes)``, missing values summed out."""
    n = len(codes)
    out = None
    gaussians = []
    for d in dists:
        if isinstance(d, Gaussian):
            gaussians.append(d)
            continue
        if d.joint:
            term = d._log_density(values[:, list(d._columns)])
        else:
            x = values[:, d._columns[0]]
            observed = ~np.isnan(x)
            part = d._log_density(x[observed])
            term = np.zeros((n, part.shape[1]))
            term[observed] = part
        out = term if out is None else out + term
    if gaussians:
        term = _gaussian_terms(gaussians, codes, values)
        out = term if out is None else out + term
    return out


def _gaussian_terms(gaussians, codes, values):
    n = len(codes)
    n_classes = gaussians[0].var_.shape[0]
    missing = np.isnan(values)
    parents = sorted({p for d in gaussians for p in d._continuous_parents})
    integrate = missing[:, parents].any(axis=1) if parents else np.zeros(n, dtype=bool)
    out = np.zeros((n, n_classes))
    direct = np.flatnonzero(~integrate)
    for d in gaussians:
        j = d._columns[0]
        rows = direct[~missing[direct, j]]  # a missing leaf integrates to 1
        if len(rows):
            out[rows] += d._log_density(
                values[rows, j],
                codes[np.ix_(rows, d._categorical_parents)].astype(np.intp),
                values[np.ix_(rows, d._continuous_parents)],
            )
    if integrate.any():
        rows = np.flatnonzero(integrate)
        out[rows] = gaussian_forest_marginal(gaussians, codes[rows], values[rows])
    return out


def _log_normal(x, mean, var):
    return -0.5 * (_LOG_2PI + np.log(var) + (x - mean) ** 2 / var)


def _multiply(a, b):
    """Product of two messages ``exp(K) N(x; m, W)`` (``W = inf``: the constant ``exp(K)``)."""
    k1, m1, w1 = a
    k2, m2, w2 = b
    f1, f2 = np.isfinite(w1), np.isfinite(w2)
    both = f1 & f2
    s = np.where(both, w1 + w2, 1.0)
    w1s, w2s = np.where(both, w1, 1.0), np.where(both, w2, 1.0)
    k = k1 + k2 + np.where(both, _log_normal(np.where(both, m1, 0), np.where(both, m2, 0), s), 0)
    m = np.where(both, (m1 * w2s + m2 * w1s) / s, np.where(f1, m1, m2))
    w = np.where(both, w1s * w2s / s, np.where(f1, w1, w2))
    return k, m, w


def gaussian_forest_marginal(gaussians, codes, values) -> np.ndarray:
    """Sum of the Gaussian features' log terms with missing values integrated out exactly.

    Given the class (and the categorical parents), Gaussian features whose
    Gaussian parents form a forest are a linear Gaussian forest. Messages
    ``exp(K) N(x_parent; m, W)`` pass from the leaves up, vectorised over
    rows and classes; an observed feature evaluates its density, a missing
    one integrates it: ``int N(x; a + b x_p, s^2) N(x; m, W) dx =
    N(m; a + b x_p, s^2 + W)``.
    """
    n = len(codes)
    n_classes = gaussians[0].var_.shape[0]
    by_column = {d._columns[0]: d for d in gaussians}
    children = {j: [] for j in by_column}
    roots = []
    for j, d in by_column.items():
        if len(d._continuous_parents) > 1:
            raise ValueError(
                f"Feature {d.columns_[0]!r} has {len(d._continuous_parents)} Gaussian parents; "
                "integrating out missing continuous values is implemented when each Gaussian "
                "feature has at most one Gaussian parent (naive Bayes, TAN, forests). Impute "
                "the missing values or use a tree-structured model."
            )
        if d._continuous_parents:
            children[d._continuous_parents[0]].append(j)
        else:
            roots.append(j)
    order, stack = [], list(roots)
    while stack:
        v = stack.pop()
        order.append(v)
        stack.extend(children[v])
    flat = (np.zeros((n, n_classes)), np.zeros((n, n_classes)), np.full((n, n_classes), np.inf))
    incoming = {j: flat for j in by_column}
    total = np.zeros((n, n_classes))
    for v in reversed(order):
        d = by_column[v]
        a, b, s2 = d._conditional(codes[:, list(d._categorical_parents)].astype(np.intp))
        b = b[..., 0] if b.shape[-1] else np.zeros_like(a)
        k_in, m_in, w_in = incoming[v]
        x = values[:, v][:, None]
        observed = np.broadcast_to(~np.isnan(x), a.shape)
        has_info = np.isfinite(w_in)
        w_safe = np.where(has_info, w_in, 1.0)
        at_x = np.where(has_info, _log_normal(np.where(observed, x, 0), m_in, w_safe), 0.0)
        const = k_in + np.where(observed, at_x, 0.0)
        # the factor left to pass on: N(t; a + b x_p, S), or nothing (flat)
        t = np.where(observed, x, m_in)
        var = np.where(observed, s2, s2 + w_safe)
        empty = ~observed & ~has_info
        if d._continuous_parents:
            slope = ~empty & (b != 0)
            b_safe = np.where(slope, b, 1.0)
            message = (
                const
                + np.where(slope, -np.log(np.abs(b_safe)), 0.0)
                + np.where(~empty & ~slope, _log_normal(t, a, var), 0.0),
                np.where(slope, (t - a) / b_safe, 0.0),
                np.where(slope, var / b_safe**2, np.inf),
            )
            p = d._continuous_parents[0]
            incoming[p] = _multiply(incoming[p], message)
        else:
            total += const + np.where(empty, 0.0, _log_normal(t, a, var))
    return total


# -- construction from given parameters -------------------------------------------------
def gaussian_naive_bayes_from_parameters(
    model, class_prior, means, stds, classes=None, feature_names=None, class_name="class"
):
    """Make ``model`` (an unfitted NaiveBayes) a fitted Gaussian naive Bayes with these values."""
    from .structure import _empty_feature_graph

    if isinstance(means, pd.DataFrame):
        classes = list(means.index) if classes is None else classes
        feature_names = list(means.columns) if feature_names is None else feature_names
    means = np.asarray(means, dtype=float)
    stds = np.asarray(stds, dtype=float)
    prior = np.asarray(class_prior, dtype=float)
    if means.ndim != 2 or stds.shape != means.shape:
        raise ValueError(
            "means and stds must both have shape (n_classes, n_features); got "
            f"{means.shape} and {stds.shape}."
        )
    n_classes, m = means.shape
    if prior.shape != (n_classes,):
        raise ValueError(f"class_prior must have {n_classes} entries, got shape {prior.shape}.")
    if (prior < 0).any() or not np.isclose(prior.sum(), 1.0, atol=1e-6):
        raise ValueError(f"class_prior must be >= 0 and sum to 1, got {prior.tolist()}.")
    if not (np.isfinite(means).all() and np.isfinite(stds).all() and (stds > 0).all()):
        raise ValueError("means must be finite and stds finite and > 0.")
    classes = np.arange(n_classes) if classes is None else np.asarray(classes)
    if len(classes) != n_classes:
        raise ValueError(f"{len(classes)} classes given for {n_classes} rows of means.")
    named = feature_names is not None
    names = [str(f) for f in feature_names] if named else [f"x{j}" for j in range(m)]
    if len(names) != m:
        raise ValueError(f"{len(names)} feature names given for {m} columns of means.")
    model.classes_ = classes
    model.n_features_in_ = m
    if named:
        model.feature_names_in_ = np.asarray(names, dtype=object)
    model.class_node_ = class_name
    model.feature_kinds_ = [GAUSSIAN] * m
    model.categories_ = [None] * m
    model.structure_ = add_class_arcs(_empty_feature_graph(names), class_name)
    model.weights_ = None
    with np.errstate(divide="ignore"):
        log_prior = np.log(prior / prior.sum())
    model.compiled_ = CompiledNetwork(
        log_prior=log_prior, parents=[()] * m, log_cpts=[np.zeros((n_classes, 1))] * m
    )
    model.distributions_ = {}
    for j, name in enumerate(names):
        g = Gaussian(var_smoothing=0.0)
        g._setup((j,), names=names)
        g.intercept_ = means[:, j].copy()
        g.coef_ = np.zeros((n_classes, 0))
        g.var_ = stds[:, j] ** 2
        g.count_ = np.full(n_classes, np.nan)
        g.epsilon_ = 0.0
        model.distributions_[name] = g
    model.fit_times_ = {"weights": 0.0, "structure": 0.0, "parameters": 0.0}
    model._network = None
    return model


__all__ = [
    "HybridCounts",
    "constrained_tree",
    "continuous_values",
    "fit_distributions",
    "gaussian_cmi",
    "hybrid_edge_weights",
    "hybrid_feature_dag",
    "hybrid_joint_log_likelihood",
    "is_hybrid",
    "mixed_cmi",
    "resolve_distributions",
    "training_counts",
]
