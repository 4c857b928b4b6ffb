"""The fitted network: a DAG plus one fitted factor per node; exact inference; pgmpy export.

The class is a parent of every feature; each feature may have further feature
parents. ``log P(c, x)`` of a complete row is ``log P(c)`` plus every
factor's log term (table look-ups and closed-form densities, no loop over
rows). Rows with missing cells, of any kind, are marginalised exactly:

- in a forest (every feature has at most one feature parent: naive Bayes,
  TAN, forests, SPODE) by upward message passing from the leaves, vectorised
  over rows and classes; each factor sums its own variable out and sends its
  parent a message in the parent's own form (a table over a discrete
  parent's states, a Gaussian in a continuous parent's value);
- in other DAGs (e.g. k-dependence) by enumerating the missing discrete
  cells, then passing messages through the continuous nodes.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

from .data import MISSING, kind_of
from .factors import Categorical, Factor, Unobserved, node_from_spec
from .parameters import Laplace, log_class_prior
from .state import acyclic, float_array, positions, probability_rows, require
from .stats import SmoothedTables

#: Most cells (rows x joint states of their missing categorical cells x features) a
#: non-tree network fills in at once to sum missing cells out; a row needing more is refused.
MAX_ENUMERATED_CELLS = 1 << 24


def fit_network(stats, schema, parents, alpha, smoothing=None, rng=None) -> FittedNetwork:
    """Fit one factor per node of ``schema`` given each feature's feature parents.

    Parameters
    ----------
    stats : TrainingCounts
    schema : TableSchema
    parents : list of tuple of int
        Feature parents of each column, in the order of each table's hierarchy
        (the class first, then these).
    alpha : float
        The class prior's pseudo-count, and every categorical table's unless
        ``smoothing`` says otherwise.
    smoothing : bnclassify.parameters.Smoothing, optional
        How the categorical tables are made from their counts (default: additive
        with ``alpha``). The tables of every categorical node are made in one call
        (:class:`~bnclassify.stats.SmoothedTables`).
    rng : numpy.random.Generator, optional
        For a smoothing that samples.

    Returns
    -------
    FittedNetwork
    """
    unobserved = set(schema.unobserved)  # no observed training value: nothing to learn
    discrete = [
        columns[0]
        for columns, spec in schema.nodes
        if kind_of(spec).discrete and columns[0] not in unobserved
    ]
    stats.prefetch_families(discrete, parents)  # a tree's families in one pass, not one each
    additive = isinstance(smoothing, Laplace) and float(smoothing.alpha) == alpha
    if smoothing is not None and not additive:
        tables = [(j, parents[j]) for j in discrete if all(schema.discrete[p] for p in parents[j])]
        stats = SmoothedTables(stats, smoothing, tables, rng)
    factors, names = [], schema.names
    for columns, spec in schema.nodes:
        node_parents = (
            tuple(parents[columns[0]])  # a node of one column (all but a multinomial group)
            if len(columns) == 1
            else tuple(p for j in columns for p in parents[j])
        )
        factor = Unobserved() if unobserved.issuperset(columns) else node_from_spec(spec)
        factors.append(factor.fit_family(stats, columns, node_parents, alpha, names))
    return FittedNetwork(log_class_prior(stats.classes, alpha), parents, factors)


class FittedNetwork:
    """The class prior and one fitted factor per node of a Bayesian network classifier.

    Parameters
    ----------
    log_prior : ndarray of shape (n_classes,)
        log P(c).
    parents : list of tuple of int
        Feature parents of each feature (column positions), the class excluded.
    factors : list of Factor
        One fitted factor per node; a node models one column, or a group of
        columns with no feature parents.

    Examples
    --------
    >>> import numpy as np
    >>> from bnclassify import TAN
    >>> from bnclassify.datasets import load_p450
    >>> X, y = load_p450(return_X_y=True)
    >>> network = TAN().fit(X, y).compiled_
    >>> network.n_features, network.is_forest, network.factors[0].kind
    (8, True, 'categorical')
    """

    def __init__(self, log_prior, parents, factors):
        self.log_prior = np.asarray(log_prior, dtype=float)
        self.parents = [tuple(p) for p in parents]
        self.factors = list(factors)
        self.node_of = {}
        for k, factor in enumerate(self.factors):
            for j in factor.column_positions:
                self.node_of[j] = k
        #: Columns no factor reads (no observed training value): always missing, never summed.
        self.unread = [j for f in self.factors if not f.informative for j in f.column_positions]

    @classmethod
    def from_log_tables(cls, log_prior, parents, log_tables, names=None):
        """An all-categorical network from log CPTs shaped ``(C, *parent cards, r_i)``."""
        names = names if names is not None else [f"x{i}" for i in range(len(log_tables))]
        factors = [
            Categorical.from_log_table(table, i, parents[i], names)
            for i, table in enumerate(log_tables)
        ]
        return cls(log_prior, parents, factors)

    @property
    def n_classes(self) -> int:
        return len(self.log_prior)

    @property
    def n_features(self) -> int:
        return len(self.parents)

    @property
    def cards(self) -> list:
        """Number of states of each discrete column (1 for the others)."""
        return [getattr(self.factor_of(j), "n_states", 1) for j in range(self.n_features)]

    @property
    def is_forest(self) -> bool:
        """True when every feature has at most one feature parent."""
        return all(len(p) <= 1 for p in self.parents)

    @property
    def n_parameters(self) -> int:
        """Free parameters: ``C - 1`` for the class plus every factor's."""
        return int(self.n_classes - 1 + sum(f.n_parameters_ for f in self.factors))

    def factor_of(self, column):
        """The factor modelling ``column``."""
        return self.factors[self.node_of[column]]

    # -- inference ---------------------------------------------------------------------
    def joint_log_likelihood(self, codes, values=None) -> np.ndarray:
        """log P(c, x_observed) for every row and class, shape ``(n_rows, n_classes)``.

        ``codes`` holds -1 for every missing cell (a continuous column's dummy
        code included), ``values`` the continuous columns (``None`` when there
        are none).
        """
        codes = np.asarray(codes)
        out = np.empty((len(codes), self.n_classes))
        incomplete = self._incomplete(codes)
        complete = ~incomplete
        if complete.any():
            out[complete] = self.complete_rows(codes[complete], _rows(values, complete))
        if incomplete.any():
            rows, vals = codes[incomplete], _rows(values, incomplete)
            out[incomplete] = (
                self.forest_marginal(rows, vals)
                if self.is_forest
                else self._enumerated_marginal(rows, vals)
            )
        return out

    def _incomplete(self, codes) -> np.ndarray:
        """Rows with a missing cell that a factor reads (and must sum out)."""
        missing = codes == MISSING
        if self.unread:
            missing[:, self.unread] = False
        return missing.any(axis=1)

    def complete_rows(self, codes, values=None) -> np.ndarray:
        """log P(c, x) of rows without missing cells."""
        out = np.broadcast_to(self.log_prior, (len(codes), self.n_classes)).copy()
        for factor in self.factors:
            out += factor.log_terms(codes, values)
        return out

    def _pass(self, codes, values, nodes, target_of):
        """Messages up through ``nodes`` (children before parents); returns the log terms."""
        out = np.zeros((len(codes), self.n_classes))
        incoming = {}
        for k in nodes:
            target = target_of.get(k)
            const, message = self.factors[k].upward(codes, values, incoming.get(k), target)
            out += const
            if target is not None:
                parent = self.node_of[target]
                incoming[parent] = self.factors[parent].combine(incoming.get(parent), message)
        return out

    def forest_marginal(self, codes, values):
        target_of = {
            k: self.parents[f.column_positions[0]][0]
            for k, f in enumerate(self.factors)
            if len(f.column_positions) == 1 and self.parents[f.column_positions[0]]
        }
        order = _children_first(len(self.factors), target_of, self.node_of)
        return self.log_prior + self._pass(codes, values, order, target_of)

    def _enumerated_marginal(self, codes, values):
        """Exact marginal for general DAGs: log-sum-exp over the missing discrete cells' values."""
        discrete = [j for j in range(self.n_features) if self.factor_of(j).discrete]
        out = np.empty((len(codes), self.n_classes))
        if not discrete:
            return self._continuous_marginal(codes, values)
        patterns, inverse = np.unique(codes[:, discrete] == MISSING, axis=0, return_inverse=True)
        for k, pattern in enumerate(patterns):
            rows = np.flatnonzero(inverse.ravel() == k)
            missing = [discrete[j] for j in np.flatnonzero(pattern)]
            if not missing:
                out[rows] = self._continuous_marginal(codes[rows], _rows(values, rows))
                continue
            cards = [self.factor_of(v).n_states for v in missing]
            states = math.prod(cards)
            if states * self.n_features > MAX_ENUMERATED_CELLS:
                raise ValueError(
                    f"{len(rows)} row(s) have {len(missing)} missing categorical cells, whose "
                    f"{states:.3g} joint states this network (a feature has two or more feature "
                    "parents, e.g. KDB with k >= 2) would enumerate to sum them out, "
                    f"{states * self.n_features:.3g} filled-in cells per row, more than "
                    f"MAX_ENUMERATED_CELLS = {MAX_ENUMERATED_CELLS:,}. Impute the missing "
                    "cells, or use a tree (TAN, KDB with k=1), which sums them out by messages."
                )
            grid = np.indices(cards).reshape(len(missing), -1).T
            per_chunk = max(1, MAX_ENUMERATED_CELLS // (states * self.n_features))
            for start in range(0, len(rows), per_chunk):
                chunk = rows[start : start + per_chunk]
                filled = np.repeat(codes[chunk], len(grid), axis=0)
                filled[:, missing] = np.tile(grid, (len(chunk), 1))
                filled_values = (
                    None if values is None else np.repeat(values[chunk], len(grid), axis=0)
                )
                joint = self._continuous_marginal(filled, filled_values)
                out[chunk] = logsumexp(joint.reshape(len(chunk), len(grid), -1), axis=1)
        return out

    def _continuous_marginal(self, codes, values):
        """Rows whose discrete cells are all observed; missing continuous ones integrated."""
        out = np.empty((len(codes), self.n_classes))
        incomplete = self._incomplete(codes)
        if (~incomplete).any():
            out[~incomplete] = self.complete_rows(codes[~incomplete], _rows(values, ~incomplete))
        if incomplete.any():
            rows, vals = codes[incomplete], _rows(values, incomplete)
            total = np.broadcast_to(self.log_prior, (len(rows), self.n_classes)).copy()
            continuous, target_of = [], {}
            for k, factor in enumerate(self.factors):
                if factor.discrete or factor.joint or not factor.structural:
                    total += factor.log_terms(rows, vals)
                    continue
                continuous.append(k)
                if len(factor.continuous_parent_positions) == 1:
                    target_of[k] = factor.continuous_parent_positions[0]
            order = [k for k in _children_first(len(self.factors), target_of, self.node_of)]
            order = [k for k in order if k in set(continuous)]
            out[incomplete] = total + self._pass(rows, vals, order, target_of)
        return out

    # -- export ---------------------------------------------------------------------
    def to_pgmpy(self, structure, class_node, features, categories, classes):
        """A pgmpy ``DiscreteBayesianNetwork`` with the same CPTs, states named by value.

        The class CPD has no parents; feature ``i``'s CPD has evidence
        ``[class_node, *parents]`` in that order. A node that pgmpy's discrete
        networks cannot hold raises a ``TypeError`` naming it.
        """
        from pgmpy.factors.discrete import TabularCPD
        from pgmpy.models import DiscreteBayesianNetwork

        network = DiscreteBayesianNetwork()
        network.add_nodes_from(structure.nodes)
        network.add_edges_from(structure.edges)
        state_names = {class_node: python_values(classes)}
        state_names.update(
            {
                f: python_values(c)
                for f, c in zip(features, categories, strict=True)
                if c is not None
            }
        )
        cpds = [
            TabularCPD(
                class_node,
                self.n_classes,
                np.exp(self.log_prior).reshape(-1, 1),
                state_names={class_node: state_names[class_node]},
            )
        ]
        cpds += [factor.to_pgmpy(class_node, state_names) for factor in self.factors]
        network.add_cpds(*cpds)
        return network

    # -- declared state (the fields of a model file; see bnclassify.state) ---------------
    def _get_state(self) -> dict:
        """``log_prior``, ``parents`` (each feature's parent positions) and ``factors``."""
        return {"log_prior": self.log_prior, "parents": self.parents, "factors": self.factors}

    @classmethod
    def _from_state(cls, state, params=None):
        """The network of :meth:`_get_state`'s fields, checked: a normalised prior, an
        acyclic structure and one fitted factor per node that agrees with it."""
        require(params is None, "FittedNetwork", "takes no parameters.")
        fields = {"log_prior", "parents", "factors"}
        require(
            isinstance(state, dict) and set(state) == fields,
            "FittedNetwork",
            f"needs the fields {sorted(fields)}.",
        )
        log_prior, parents, factors = state["log_prior"], state["parents"], state["factors"]
        float_array(log_prior, "log_prior", allow_minus_inf=True)
        require(log_prior.ndim == 1, "log_prior", "must be a 1-D float array.")
        probability_rows(log_prior, "log_prior", log=True)
        require(isinstance(parents, list), "parents", "must be a list.")
        m = len(parents)
        for family in parents:
            positions(family, "parents", m)
        acyclic(parents, "parents")
        require(isinstance(factors, list), "factors", "must be a list.")
        covered = []
        for factor in factors:
            require(
                isinstance(factor, Factor) and getattr(factor, "columns_", None) is not None,
                "factors",
                "a network factor is not a fitted bnclassify factor.",
            )
            columns = factor.column_positions
            positions(columns, f"{factor.columns_} columns", m)
            positions(factor.parent_positions, f"{factor.columns_} parents", m)
            covered += list(columns)
            require(
                len(columns) > 1 or sorted(factor.parent_positions) == sorted(parents[columns[0]]),
                f"{factor.columns_}",
                "the factor's parents differ from the network's.",
            )
        require(
            sorted(covered) == list(range(m)),
            "factors",
            "the network's factors do not cover every column exactly once.",
        )
        return cls(log_prior, parents, factors)


def rooted_forest_joints(
    codes, log_prior, log_single, log_pairs, edges, roots, root_order=None
) -> np.ndarray:
    """log P_r(c, x_observed) of one categorical forest rooted at each feature in ``roots``.

    The members of an ensemble that differ only in their root share the
    forest and the counts, so an arc ``p -> j`` has the same CPT in every
    member where it points that way. Belief propagation therefore computes
    each directed message once (an upward and a downward pass, ``2 (m - 1)``
    messages in all) and every rooting's exact marginal from them: member
    ``r`` is ``log P(c)`` plus, for ``r``'s component, the log-sum-exp over
    ``x_r`` of ``log P(x_r | c)``, its evidence and its neighbours' messages,
    plus every other component's term at that component's own root (its
    first feature, as :func:`~bnclassify.structure.orient_constrained` roots
    it). Missing cells are summed out; observed ones are evidence. The cost
    is that of one member, not of ``m``.

    Parameters
    ----------
    codes : ndarray of shape (n, m)
        Category codes, :data:`~bnclassify.data.MISSING` for missing cells.
    log_prior : ndarray of shape (C,)
    log_single : list of ndarray
        ``log P(x_j | c)`` of each feature as a root, shape ``(C, r_j)``.
    log_pairs : dict
        ``(p, j) -> log P(x_j | c, x_p)``, shape ``(C, r_p, r_j)``, for every
        edge of the forest in both directions.
    edges : list of tuple of int
        The forest's edges.
    roots : sequence of int
        The rootings wanted.
    root_order : sequence of int, optional
        The feature positions in the order that picks each other component's
        root (its first feature in it); default ``0 .. m-1``. TAN passes its
        name order (:func:`~bnclassify.structure.name_order`).

    Returns
    -------
    ndarray of shape (n, len(roots), C)

    Examples
    --------
    >>> log_single = [np.log(np.array([[0.5, 0.5]]))] * 2
    >>> log_pairs = {(0, 1): np.log(np.array([[[0.9, 0.1], [0.2, 0.8]]])),
    ...              (1, 0): np.log(np.array([[[0.7, 0.3], [0.4, 0.6]]]))}
    >>> joint = rooted_forest_joints(np.array([[0, -1]]), np.zeros(1), log_single,
    ...                              log_pairs, [(0, 1)], [0, 1])
    >>> np.exp(joint).round(3).ravel().tolist()  # P_0(x_0 = 0); P_1(x_0 = 0) = .5 * .7 + .5 * .4
    [0.5, 0.55]
    """
    codes = np.asarray(codes)
    n, m = codes.shape
    neighbours = [[] for _ in range(m)]
    for u, v in edges:
        neighbours[u].append(v)
        neighbours[v].append(u)
    starts = range(m) if root_order is None else root_order
    component_of = np.full(m, -1)
    component_roots, parent, order = [], [-1] * m, []
    for start in starts:  # each component is rooted at its first feature in ``root_order``
        if component_of[start] >= 0:
            continue
        component_of[start] = len(component_roots)
        component_roots.append(start)
        queue, head = [start], 0
        while head < len(queue):
            u = queue[head]
            head += 1
            for v in neighbours[u]:
                if component_of[v] < 0:
                    component_of[v] = component_of[start]
                    parent[v] = u
                    queue.append(v)
        order += queue
    forest = {
        "parent": parent,
        "order": order,
        "children": [[v for v in neighbours[u] if parent[v] == u] for u in range(m)],
        "component_of": component_of,
        "component_roots": component_roots,
    }
    out = np.empty((n, len(roots), len(log_prior)))
    complete = (codes != MISSING).all(axis=1)
    for rows, observed in ((complete, True), (~complete, False)):
        if rows.any():
            out[rows] = _propagate(
                codes[rows], observed, forest, log_prior, log_single, log_pairs, roots
            )
    return out


def _propagate(codes, observed, forest, log_prior, log_single, log_pairs, roots):
    """The rooted joints of ``codes``; ``observed``: every cell is, so messages are numbers.

    A message from ``j`` to its neighbour ``p`` is a function of ``x_p`` (a
    log-sum-exp over ``x_j``); when every cell is observed it is only needed
    at the observed ``x_p``, and it is the sum of the log CPT terms of the
    edges behind it, so the same passes run on ``(n, C)`` sums instead.
    """
    n, n_classes = len(codes), len(log_prior)
    parent, children = forest["parent"], forest["children"]
    if observed:
        base = [np.zeros((n, n_classes)) for _ in log_single]

        def send(key, belief):  # key (p, j): log P(x_j | c, x_p) at the observed values
            return log_pairs[key][:, codes[:, key[0]], codes[:, key[1]]].T + belief

        def at_root(r, belief):
            return log_single[r][:, codes[:, r]].T + belief

    else:
        base = []
        for j, table in enumerate(log_single):
            column = codes[:, j]
            seen = column != MISSING
            evidence = np.zeros((n, table.shape[-1]))
            evidence[seen] = -np.inf
            evidence[seen, column[seen]] = 0.0
            base.append(np.broadcast_to(evidence[:, None, :], (n, n_classes, table.shape[-1])))

        def send(key, belief):
            return _send(log_pairs[key], belief)

        def at_root(r, belief):
            return _send(log_single[r][:, None, :], belief)[:, :, 0]

    up, inside = [None] * len(base), [None] * len(base)  # to the parent; children's summed
    for j in reversed(forest["order"]):
        inside[j] = base[j]
        for k in children[j]:
            inside[j] = inside[j] + up[k]
        if parent[j] >= 0:
            up[j] = send((parent[j], j), inside[j])
    down = [None] * len(base)  # the message from the parent
    for p in forest["order"]:
        kids = children[p]
        before = [base[p] if down[p] is None else base[p] + down[p]]  # prefix sums
        for k in kids:
            before.append(before[-1] + up[k])
        after = None
        for i in range(len(kids) - 1, -1, -1):
            k = kids[i]
            belief = before[i] if after is None else before[i] + after
            down[k] = send((k, p), belief)
            after = up[k] if after is None else after + up[k]
    rooted = {}
    for r in set(int(r) for r in roots) | set(forest["component_roots"]):
        rooted[r] = at_root(r, inside[r] if down[r] is None else inside[r] + down[r])
    # the other components' terms at their own roots, summed without subtracting
    terms = [rooted[g] for g in forest["component_roots"]]
    prefix = [np.zeros((n, n_classes))]
    for t in terms:
        prefix.append(prefix[-1] + t)
    suffix = [np.zeros((n, n_classes))] * (len(terms) + 1)
    for i in range(len(terms) - 1, -1, -1):
        suffix[i] = terms[i] + suffix[i + 1]
    out = np.empty((n, len(roots), n_classes))
    for k, r in enumerate(roots):
        c = forest["component_of"][r]
        out[:, k] = log_prior + rooted[r] + (prefix[c] + suffix[c + 1])
    return out


def _send(log_table, belief):
    """``log sum_b P(b | c, a) exp(belief[n, c, b])``, shape ``(n, C, r_a)``.

    ``log_table`` is ``log P(b | c, a)`` of shape ``(C, r_a, r_b)``; the
    log-sum-exp is taken as :meth:`~bnclassify.factors.Categorical.upward` takes it.
    """
    top = belief.max(axis=2)  # (n, C)
    safe_top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        weights = np.exp(belief - safe_top[:, :, None])
        return safe_top[:, :, None] + np.log(np.einsum("cpv,ncv->ncp", np.exp(log_table), weights))


def _rows(values, mask):
    return None if values is None else values[mask]


def _children_first(n_nodes, target_of, node_of) -> list:
    """Nodes ordered so that every node comes before the node its message goes to."""
    children = [[] for _ in range(n_nodes)]
    roots = []
    for k in range(n_nodes):
        if k in target_of:
            children[node_of[target_of[k]]].append(k)
        else:
            roots.append(k)
    order, stack = [], roots[::-1]
    while stack:
        k = stack.pop()
        order.append(k)
        stack.extend(children[k])
    return order[::-1]


def python_values(values):
    """numpy scalars as Python values (pgmpy state names)."""
    return [v.item() if isinstance(v, np.generic) else v for v in values]
