"""Sums over every spanning tree of a weighted graph: the matrix-tree theorem, in log space.

The sum over the ``m^(m-2)`` spanning trees of the product of their edge
weights is the determinant of the weighted Laplacian reduced at one node
(Kirchhoff); the probability of an edge under ``P(T)`` proportional to that
product is its weight times an effective resistance. Both are computed by
cancellation-free Gaussian elimination (Grassmann, Taksar and Heyman 1985):
each pivot is the sum of its column's remaining off-diagonal weights, so only
positive numbers are added, where plain LU loses every digit of the
determinant when the weights are peaked.

The weights are given as logarithms and may span any range. The elimination
runs on the column-scaled weights (each column's largest weight is 1), and a
matrix whose weights span more than the floating-point range (thousands of
nats, as BDeu edge weights do on tens of thousands of rows) underflows there:
its pivots come out 0 or next to it. Such matrices are eliminated again in
log space (every addition a ``logaddexp``), which is exact at any spread and
about ten times slower, so only they pay for it.
"""

from __future__ import annotations

import numpy as np

from ._native import is_symmetric, tree_log_sums, tree_pivots

__all__ = [
    "bottleneck_error",
    "bottleneck_scales",
    "checked_log_weights",
    "edge_marginals",
    "eliminate_nodes",
    "log_tree_sum",
    "log_tree_sums_by_states",
    "widest_paths",
]

#: Cells of the rootings :func:`edge_marginals` eliminates at once (``m^2`` each).
BLOCK_CELLS = 1 << 22

#: A pivot of the column-scaled elimination below this is redone in log space: a weight
#: that underflowed (below about 1e-308) could then have been one it needed.
SMALLEST_PIVOT = 1e-200

#: Largest spread (nats) of the column scales for which :func:`log_tree_sums_by_states`
#: eliminates one triangle of symmetric weights: a row entry it rebuilds from a column entry
#: flushed to 0 (below 2.3e-308) is then below 2.3e-308 * e^200 = 1.6e-221, far below
#: :data:`SMALLEST_PIVOT`, as negligible as the flushed entries of the full elimination.
SYMMETRIC_SPREAD = 200.0


def log_tree_sum(log_weights, *, validate=True) -> np.ndarray:
    """``log sum_T prod_{(u, v) in T} exp(log_weights[u, v])`` over all spanning trees.

    Batched over leading axes. ``-inf`` weights are absent edges; a graph
    without a spanning tree (disconnected) gives ``-inf``.

    Parameters
    ----------
    log_weights : ndarray of shape (..., m, m)
        Symmetric log edge weights; the diagonal is ignored.
    validate : bool, default=True
        Check the weights (:func:`checked_log_weights`). ``False`` is for a caller whose
        float array is symmetric with entries ``-inf`` or finite by construction (BMATAN's
        per-row stacks, built from checked weights): the checks cost more than the sum.

    Returns
    -------
    ndarray of shape (...)

    Examples
    --------
    >>> import numpy as np
    >>> round(float(np.exp(log_tree_sum(np.zeros((4, 4))))), 9)  # Cayley: 4^2 trees
    16.0
    >>> spread = np.array([[0.0, 0.0, -5e3], [0.0, 0.0, -9e3], [-5e3, -9e3, 0.0]])
    >>> float(log_tree_sum(spread))  # {01, 02}: e^-5000; the others e^-9000, e^-14000
    -5000.0
    """
    if validate:
        log_weights = checked_log_weights(log_weights)
    if log_weights.shape[-1] == 1:
        return np.zeros(log_weights.shape[:-2])
    batch, m = log_weights.shape[:-2], log_weights.shape[-1]
    flat = log_weights.reshape(-1, m, m)
    scaled, top = _column_scaled(flat)
    pivots = tree_pivots(scaled, SMALLEST_PIVOT)
    with np.errstate(divide="ignore"):
        out = np.log(pivots).sum(axis=-1) + top[..., 1:].sum(axis=-1)
    redo = underflowed(pivots)
    if redo.any():
        out[redo] = _log_eliminate(flat[redo])[0].sum(axis=-1)
    return out.reshape(batch)


def log_tree_sums_by_states(log_weights, log_ratio, states, log_fill=None) -> np.ndarray:
    """:func:`log_tree_sum` of a family of graphs that differ by per-state edge factors.

    Graph ``(r, c)`` has the log weights ``logaddexp(log_weights[u, v] + log_ratio[c,
    states[r, c, u], states[r, c, v]], log_fill[u, v])``, with the ratio term 0 on the edges
    of a node whose state is ``-1``: BMATAN's average over all trees of row ``r`` and class
    ``c``, whose ratios depend on the states of both ends of an edge (``-1``: a missing cell
    summed out as a leaf). Equal to building that ``(n, C, m, m)`` stack and calling
    :func:`log_tree_sum`, without the stack: the scaling is taken once from the weights
    the graphs share (``logaddexp(log_weights, log_fill)``), the ratios of the states that
    occur are exponentiated once, each matrix is built and eliminated in turn
    (:func:`bnclassify._native.tree_log_sums`), and only the matrices whose scaled
    elimination underflowed (a pivot below :data:`SMALLEST_PIVOT`) are built in log space
    and summed by :func:`log_tree_sum`. Memory: the ratios of the states that occur, not the
    stack.

    When the weights, the fill and the ratios are exactly symmetric (BMATAN's are), only
    one triangle of each matrix is eliminated (its Schur complements stay symmetric): half
    the work, the same sums to float rounding. Its scaling is then one of three. Column
    scales (each column's largest shared weight) when they spread at most
    :data:`SYMMETRIC_SPREAD` nats. Past that (BDeu weights spread by hundreds or thousands
    of nats on thousands of rows, where column scales leave pivots below
    :data:`SMALLEST_PIVOT` and their matrices to the log-space elimination, ten times
    slower), column ``k`` is scaled by the largest widest-path bottleneck between ``k`` and
    a node left at its step (:func:`bottleneck_scales`), which keeps every pivot above
    ``1 / m`` times the smallest ratio, when :func:`bottleneck_error` bounds the error of
    the flushed numbers below :data:`BOTTLENECK_ERROR`; otherwise each entry ``(u, v)`` is
    scaled by the widest-path bottleneck between ``u`` and ``v`` (:func:`widest_paths`),
    which keeps every entry and pivot near 1 at any spread, at 1.65 times the cost. Both
    are also the second try of the matrices a column-scaled pass flagged; they need ``m^3``
    work (and the second ``m^3`` shared factors), so they are used for at most
    :data:`PAIR_FACTOR_CELLS` of them.

    Parameters
    ----------
    log_weights : ndarray of shape (m, m)
        Symmetric log edge weights shared by every graph; the diagonal is ignored.
    log_ratio : ndarray of shape (C, S, S)
        Log factors of an edge by the states of its two ends, symmetric in them; those of
        the states that occur must be finite.
    states : ndarray of int, shape (n, C, m) or (n, 1, m)
        Each graph's state of every node, in ``[0, S)``, or ``-1``; ``(n, 1, m)``: the same
        states for every class.
    log_fill : ndarray of shape (m, m), optional
        Symmetric log weights added to every graph's edges (``logaddexp``), unscaled by
        the ratios: the fill of :func:`eliminate_nodes`.

    Returns
    -------
    ndarray of shape (n, C)

    Examples
    --------
    >>> import numpy as np
    >>> log_ratio = np.log([[[1.0, 1.0], [1.0, 3.0]]])  # both ends in state 1: weight x 3
    >>> # K3's trees {01, 02}, {01, 12}, {02, 12}: with edge 01 x 3, 3 + 3 + 1
    >>> states = np.array([[[0, 0, 0]], [[1, 1, 0]], [[1, 1, -1]]])
    >>> np.exp(log_tree_sums_by_states(np.zeros((3, 3)), log_ratio, states)).round(9)
    array([[3.],
           [7.],
           [7.]])
    >>> wide = np.array([[0.0, 5e3, 0.0], [5e3, 0.0, 0.0], [0.0, 0.0, 0.0]])  # by pairs
    >>> round(float(log_tree_sums_by_states(wide, log_ratio, states[:1])[0, 0]), 9)
    5000.693147181
    """
    weights = checked_log_weights(log_weights)
    m = weights.shape[-1]
    states = np.asarray(states)
    log_ratio = np.asarray(log_ratio)
    n_states = log_ratio.shape[-1]
    if weights.ndim != 2 or states.ndim != 3 or states.shape[-1] != m:
        raise ValueError(
            f"log_tree_sums_by_states: weights (m, m) and states (n, C, m), got shapes "
            f"{weights.shape} and {states.shape}."
        )
    n_classes = log_ratio.shape[0] if log_ratio.ndim == 3 else -1
    if log_ratio.shape != (n_classes, n_states, n_states) or states.shape[1] not in (1, n_classes):
        raise ValueError(
            f"log_tree_sums_by_states: log_ratio must be of shape (C, S, S) with C = "
            f"{states.shape[1]} (or any C for states of shape (n, 1, m)), got shape "
            f"{log_ratio.shape}."
        )
    if states.size and not (states.min() >= -1 and states.max() < n_states):
        raise ValueError(f"log_tree_sums_by_states: states must be in [-1, {n_states}).")
    if m == 1 or states.size == 0:
        return np.zeros((len(states), n_classes))
    # the states that occur, renumbered 0 .. U-1 in order, and U for -1, whose every ratio
    # is 1 (a look-up table: the states are below n_states, no sort needed); when every
    # ratio is finite (BMATAN's), all the states: a copy of the table rather than a gather
    present = np.zeros(n_states + 1, dtype=bool)
    if np.isfinite(log_ratio).all():
        present[:] = True
    else:
        present[states.ravel()] = True  # -1 marks the last entry
    occurring = np.flatnonzero(present[:-1])
    renumber = np.full(n_states + 1, len(occurring), dtype=np.int64)
    renumber[occurring] = np.arange(len(occurring))
    states = renumber[states]
    log_table = np.zeros((n_classes, len(occurring) + 1, len(occurring) + 1))
    every = len(occurring) == n_states
    log_table[:, :-1, :-1] = log_ratio if every else log_ratio[:, occurring[:, None], occurring]
    if not np.isfinite(log_table).all():
        raise ValueError(
            "log_tree_sums_by_states: the log ratios of the states used must be finite."
        )
    if log_fill is not None:
        log_fill = checked_log_weights(log_fill)
    shared = weights if log_fill is None else np.logaddexp(weights, log_fill)
    with np.errstate(over="ignore"):  # a ratio past the float range: flagged and redone
        table = np.exp(log_table)
    _, top = _column_scaled(shared)  # (m,): every graph's columns scaled alike
    symmetric = (
        is_symmetric(weights)
        and (log_fill is None or is_symmetric(log_fill))
        and np.array_equal(log_table, np.swapaxes(log_table, 1, 2))
    )
    by_pairs = symmetric and m**3 <= PAIR_FACTOR_CELLS
    if symmetric and top.max() - top.min() <= SYMMETRIC_SPREAD:
        base, fill = _scaled_by(weights, log_fill, top[None, :])
        scale = np.exp(top[:, None] - top[None, :])
        out, low = tree_log_sums(states, table, base, fill, SMALLEST_PIVOT, scale=scale)
        out += top[1:].sum()
    elif by_pairs:
        out, low = _pair_scaled_sums(weights, log_fill, shared, table, states)
        by_pairs = False  # done: what it flags goes to the log-space elimination
    else:
        base, fill = _scaled_by(weights, log_fill, top[None, :])
        out, low = tree_log_sums(states, table, base, fill, SMALLEST_PIVOT)
        out += top[1:].sum()
    if by_pairs and low.any():  # the column scales underflowed: scaled by pairs instead
        rows = np.flatnonzero(low.any(axis=1))
        again, low_again = _pair_scaled_sums(weights, log_fill, shared, table, states[rows])
        out[rows] = np.where(low[rows], again, out[rows])
        low[rows] &= low_again
    rows, classes = np.nonzero(low)
    step = max(1, BLOCK_CELLS // (m * m))
    for start in range(0, len(rows), step):  # the underflowed ones, a block at a time
        r, c = rows[start : start + step], classes[start : start + step]
        s = states[r, c if states.shape[1] > 1 else 0]
        stack = weights + log_table[c[:, None, None], s[:, :, None], s[:, None, :]]
        if log_fill is not None:
            stack = np.logaddexp(stack, log_fill)
        out[r, c] = log_tree_sum(stack, validate=False)
    return out


#: Most cells (``m^3``) of the shared factors of the elimination scaled by pairs
#: (:func:`log_tree_sums_by_states`): 128 MiB, up to 256 features.
PAIR_FACTOR_CELLS = 1 << 24


def widest_paths(log_weights) -> np.ndarray:
    """The widest-path bottleneck of every pair of nodes: the largest, over the paths from
    ``u`` to ``v``, of the smallest log weight on the path (``-inf``: no path).

    Also the smallest weight on the path from ``u`` to ``v`` in a maximum spanning tree.
    An ultrametric (``beta[u, v] >= min(beta[u, w], beta[w, v])``), at least the weight of
    every edge, computed exactly (maxima and minima, no rounding) in ``m`` steps of
    Floyd and Warshall's algorithm. The diagonal is ``-inf``.

    Parameters
    ----------
    log_weights : ndarray of shape (m, m)
        Symmetric log edge weights; the diagonal is ignored.

    Returns
    -------
    ndarray of shape (m, m)

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([[0.0, 5.0, 1.0], [5.0, 0.0, 3.0], [1.0, 3.0, 0.0]])
    >>> widest_paths(w)  # 0 - 2 through 1: min(5, 3)
    array([[-inf,   5.,   3.],
           [  5., -inf,   3.],
           [  3.,   3., -inf]])
    """
    widest = np.array(log_weights, dtype=float)
    m = widest.shape[-1]
    np.fill_diagonal(widest, -np.inf)
    for k in range(m):
        np.maximum(widest, np.minimum(widest[:, k, None], widest[None, k, :]), out=widest)
    np.fill_diagonal(widest, -np.inf)
    return widest


def _scaled_by(weights, log_fill, log_scale):
    """``exp(weights - log_scale)`` and the fill alike, with zero diagonals."""
    m = weights.shape[-1]
    off = ~np.eye(m, dtype=bool)
    # -inf - -inf: an absent edge, 0; past the float range: only in the triangle that the
    # one-triangle elimination by bottleneck column scales never reads
    with np.errstate(invalid="ignore", over="ignore"):
        base = np.exp(np.where(off, weights - log_scale, -np.inf))
        fill = (
            np.zeros((m, m))
            if log_fill is None
            else np.exp(np.where(off, log_fill - log_scale, -np.inf))
        )
    return np.nan_to_num(base, nan=0.0), np.nan_to_num(fill, nan=0.0)


def _pair_scaled_sums(weights, log_fill, shared, table, states) -> tuple:
    """:func:`bnclassify._native.tree_log_sums` of symmetric weights scaled by their widest-path
    bottlenecks ``beta``: ``(log sums, flagged)``. Column ``k`` by ``B_k``, the largest
    ``beta[i, k]`` over the nodes ``i`` left at step ``k``, when :func:`bottleneck_error`
    allows it (the one-triangle elimination by columns); otherwise each entry by its pair's
    ``beta`` (see ``tree_log_sums``). A disconnected graph (some ``beta`` is ``-inf``) has
    no spanning tree: every sum is ``-inf``."""
    beta = widest_paths(shared)
    m = len(beta)
    if not np.isfinite(beta[~np.eye(m, dtype=bool)]).all():
        shape = (len(states), len(table))
        return np.full(shape, -np.inf), np.zeros(shape, dtype=bool)
    log_b = bottleneck_scales(beta)
    with np.errstate(divide="ignore"):  # a ratio of 0 (log -inf): no bound
        ratios = np.log([table.min(), table.max()])
    if bottleneck_error(log_b[1:], *ratios) <= BOTTLENECK_ERROR:
        base, fill = _scaled_by(weights, log_fill, log_b[None, :])
        scale = np.exp(log_b[:, None] - log_b[None, :])
        out, low = tree_log_sums(states, table, base, fill, SMALLEST_PIVOT, scale=scale)
    else:
        _, mu, factors, _ = _pair_factors(shared, beta)
        base, fill = _scaled_by(weights, log_fill, beta)
        out, low = tree_log_sums(states, table, base, fill, SMALLEST_PIVOT, pairs=(mu, factors))
    out += log_b[1:].sum()
    return out, low


#: Largest bound on the relative error of a pivot (:func:`bottleneck_error`) for which
#: symmetric weights past :data:`SYMMETRIC_SPREAD` are scaled by columns (each by its
#: largest widest-path bottleneck left, :func:`bottleneck_scales`) rather than by pairs:
#: below the float rounding itself.
BOTTLENECK_ERROR = 1e-20


def bottleneck_scales(beta) -> np.ndarray:
    """``log B_k``: the largest widest-path bottleneck ``beta[i, k]`` over the nodes ``i``
    left when node ``k`` is eliminated (node 0 and ``i > k``); entry 0 over every node.

    Node ``k``'s degree in the Schur complement at step ``k`` (its pivot) is at least
    ``B_k / (m - 1)``: a widest path to a node left reaches one through eliminated nodes
    only, over at most ``m - 1`` edges of weight at least ``B_k`` (their conductance in
    series), and the degree is the conductance from ``k`` to the nodes left. So the pivots
    of the weights scaled by ``B`` by column are at least ``1 / (m - 1)``, at any spread.

    Parameters
    ----------
    beta : ndarray of shape (m, m)
        :func:`widest_paths` of the weights.

    Returns
    -------
    ndarray of shape (m,)

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 900.0], [1.0, 900.0, 0.0]])
    >>> bottleneck_scales(widest_paths(w))  # node 1 is eliminated before 2: 2's left is 0
    array([  1., 900.,   1.])
    """
    m = len(beta)
    later = np.where(np.tri(m, k=-1, dtype=bool), beta, -np.inf)  # [i, k]: i > k
    log_b = np.maximum(beta[0], later.max(axis=0))
    log_b[0] = beta[0, 1:].max()
    return log_b


def bottleneck_error(log_b, smallest_ratio, largest_ratio=0.0) -> float:
    """A bound on the relative error of every pivot that flushed numbers can cause in the
    one-triangle elimination of weights scaled by columns ``exp(log_b)`` (nodes 1 .. m-1),
    the weights times ratios between ``exp(smallest_ratio)`` and ``exp(largest_ratio)``
    (1 counts as both).

    Every number below the smallest normal float (2.3e-308) is read and written as 0. Each
    such number (a built entry, an update, a row entry rebuilt from its column, a step's
    factor; fewer than ``3 m^3``) changes the unscaled weights by at most 2.3e-308 times
    the largest unscaled number of its step, ``m^3 max(1, ratio) max B`` (an entry between
    two nodes is at most the weights across a cut between them, each at most their
    bottleneck). A pivot is the conductance from its node to the nodes left in the Schur
    complement of that step, which moves by at most the total change of the weights
    (Thomson's principle: its derivative in each weight is a squared potential difference,
    at most 1); a row entry or a factor flushed alone moves the next step's entries by at
    most its share of the pivot in all. The pivot is at least ``min B min(1, ratio) /
    (m - 1)`` (:func:`bottleneck_scales`). Overflow needs no bound: a pivot past the float
    range is flagged and redone.

    Examples
    --------
    >>> bottleneck_error(np.array([0.0, 545.0]), -10.0, 10.0) < BOTTLENECK_ERROR
    True
    """
    m = len(log_b) + 1
    if m == 1:
        return 0.0
    log_bound = (
        np.log(3.0 * m**6 * (m - 1) * np.finfo(float).tiny)
        + float(np.ptp(log_b))
        + max(0.0, -float(smallest_ratio))
        + max(0.0, float(largest_ratio))
    )
    return float(np.exp(min(log_bound, 700.0)))


def _pair_factors(shared, beta=None) -> tuple:
    """``(beta, mu, factors, log_b)`` of the elimination scaled by pairs of nodes 1 .. m-1
    in order, node 0 kept (see :func:`bnclassify._native.tree_log_sums`): the widest-path
    bottlenecks (``beta`` when given), the pivots' and the steps' factors, and ``sum_k log
    B_k``; ``beta`` is None when the graph is disconnected."""
    m = shared.shape[-1]
    beta = widest_paths(shared) if beta is None else beta
    off = ~np.eye(m, dtype=bool)
    if not np.isfinite(beta[off]).all():
        return None, None, None, None
    mu, factors, log_b = np.zeros((m, m)), np.zeros((m, m, m)), 0.0
    for k in range(1, m):
        left = np.r_[0, k + 1 : m]  # the nodes left at step k
        column = beta[left, k]
        top = column.max()
        log_b += top
        mu[k, left] = np.exp(column - top)
        # [j, i] = beta[i, k] beta[k, j] / (B_k beta[i, j]), at most 1 (an ultrametric)
        exponent = column[None, :] + column[:, None] - top - beta[np.ix_(left, left)]
        np.fill_diagonal(exponent, -np.inf)  # beta's diagonal is -inf: no entry (i, i)
        factors[k][np.ix_(left, left)] = np.exp(exponent)
    return beta, mu, factors, log_b


def eliminate_nodes(log_weights, nodes) -> tuple:
    """Sum a set of nodes out of every spanning tree once, for graphs that differ elsewhere.

    For every matrix ``W'`` that agrees with ``log_weights`` on each edge touching
    ``nodes``, ``log_tree_sum(W') == log_factor + log_tree_sum(logaddexp(W'[kept, kept],
    fill))``, ``kept`` the other nodes in order: Gaussian elimination of ``nodes`` (the
    Schur complement of a Laplacian is a Laplacian: Kron reduction) reads only the edges
    touching them, so its pivots (``log_factor``) and the weights it adds between the kept
    nodes (``fill``) are computed once. BMATAN's columns of a single category touch every
    row's tree through the same prior weights, so its per-row determinants shrink to the
    informative columns. Cancellation-free and in log space (exact at any spread).

    Parameters
    ----------
    log_weights : ndarray of shape (m, m)
        Symmetric log edge weights; the diagonal is ignored.
    nodes : sequence of int
        The nodes to eliminate; at least one node must be left.

    Returns
    -------
    log_factor : float
        ``-inf`` when some eliminated node has no edge left (no spanning tree).
    fill : ndarray of shape (m - len(nodes), m - len(nodes))
        Symmetric log weights added between the kept nodes; ``-inf`` diagonal.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.log(np.array([[1, 1, 2, 3], [1, 1, 4, 5], [2, 4, 1, 6], [3, 5, 6, 1.0]]))
    >>> log_factor, fill = eliminate_nodes(w, [0, 2])
    >>> reduced = np.logaddexp(w[np.ix_([1, 3], [1, 3])], fill)
    >>> bool(np.isclose(log_factor + log_tree_sum(reduced), log_tree_sum(w)))
    True
    """
    weights = checked_log_weights(log_weights)
    if weights.ndim != 2:
        raise ValueError(f"eliminate_nodes takes one (m, m) matrix, got shape {weights.shape}.")
    m = weights.shape[-1]
    gone = sorted({int(v) for v in nodes})
    if any(v < 0 or v >= m for v in gone) or len(gone) >= m:
        raise ValueError(f"eliminate_nodes: nodes must be distinct in [0, {m}) and leave one.")
    kept = [v for v in range(m) if v not in set(gone)]
    order = gone + kept
    la = weights[np.ix_(order, order)]
    first = len(gone)
    la[first:, first:] = -np.inf  # the fill starts empty: the kept edges are added per graph
    la[np.arange(m), np.arange(m)] = -np.inf
    log_factor = 0.0
    for k in range(first):
        log_pivot = float(_log_sum(la[k + 1 :, k], axis=-1))
        if not np.isfinite(log_pivot):  # an eliminated node left without an edge
            return -np.inf, np.full((len(kept), len(kept)), -np.inf)
        log_factor += log_pivot
        rest = la[k + 1 :, k + 1 :]
        np.logaddexp(rest, la[k + 1 :, k, None] + la[k, None, k + 1 :] - log_pivot, out=rest)
    fill = la[first:, first:]
    upper = np.triu(np.ones(fill.shape, dtype=bool), 1)
    fill = np.where(upper, fill, fill.T)  # exactly symmetric
    fill[np.arange(len(kept)), np.arange(len(kept))] = -np.inf
    return log_factor, fill


def edge_marginals(log_weights) -> np.ndarray:
    """Probability of each edge under ``P(T) ∝ prod_{e in T} exp(log_weights[e])``.

    ``P(uv in T) = A_uv R_uv`` (Kirchhoff), ``R_uv`` the effective resistance.
    With ``G`` the inverse of the Laplacian reduced at node 0 (from the
    nonnegative inverses of the cancellation-free LU factors, so every entry
    to full relative precision), ``R_uv = G_uu + G_vv - G_uv - G_vu``: one
    ``O(m^3)`` elimination for every edge. That difference loses digits when
    the posterior is peaked (``R_uv`` far below ``G_uu``), so each edge's
    rounding error is bounded (:data:`EDGE_TOLERANCE`) and the edges past it
    are computed again with one of their ends as the root, where ``R_uv =
    G_vv`` has no cancellation: ``O(m^3)`` per root needed (every node at
    worst, ``O(m^4)``, as before).

    Parameters
    ----------
    log_weights : ndarray of shape (m, m)

    Returns
    -------
    ndarray of shape (m, m)
        Symmetric, zero diagonal; the upper triangle sums to ``m - 1``.

    Raises
    ------
    ValueError
        The weights (``-inf`` edges left out) leave the graph without a spanning tree.

    Examples
    --------
    >>> import numpy as np
    >>> p = edge_marginals(np.zeros((3, 3)))  # 3 trees, each edge in 2 of them
    >>> p.round(4)
    array([[0.    , 0.6667, 0.6667],
           [0.6667, 0.    , 0.6667],
           [0.6667, 0.6667, 0.    ]])
    """
    log_weights = checked_log_weights(log_weights)
    m = log_weights.shape[-1]
    if m == 1:
        return np.zeros((1, 1))
    if not np.isfinite(log_tree_sum(log_weights)):
        raise ValueError(
            "the edge weights leave the graph disconnected (no spanning tree), so no edge "
            "has a posterior probability."
        )
    out, bad = _edge_marginals_rooted_once(log_weights)
    roots = _covering_roots(bad)
    if roots:  # rooted at u: u first, the others in order; a block of rootings at a time
        orders = np.array([[u, *(v for v in range(m) if v != u)] for u in roots])
        step = max(1, BLOCK_CELLS // (m * m))
        for start in range(0, len(roots), step):
            block = orders[start : start + step]
            log_edge = _log_edge_terms(log_weights[block[:, :, None], block[:, None, :]])
            for order, terms in zip(block, log_edge, strict=True):
                out[order[0], order[1:]] = out[order[1:], order[0]] = np.exp(terms)
    np.fill_diagonal(out, 0.0)
    return np.clip(out, 0.0, 1.0)


#: The largest rounding error bound (absolute, on a probability) :func:`edge_marginals`
#: accepts from the one-root formula; an edge past it is computed again, rooted at one end.
EDGE_TOLERANCE = 1e-12


def _edge_marginals_rooted_once(log_weights):
    """Every edge's probability from the Laplacian reduced at node 0, and which edges'
    error bounds exceed :data:`EDGE_TOLERANCE` (all of them when the scaled elimination
    underflowed): ``(probabilities, bad)``, both ``(m, m)``.

    With column scaling ``A' = A S^-1`` the inverse is ``G = S^-1 H``, ``H = L'^-1``, so
    ``P(uv) = A'_vu (H_uu - H_uv) + A'_uv (H_vv - H_vu)``: scaled weights at most 1 times
    differences of entries of ``H``, each accurate to a few ``eps`` of itself.
    """
    m = log_weights.shape[-1]
    scaled, _ = _column_scaled(log_weights[None])
    pivots, lower, upper = _eliminate(scaled, factors=True)
    if underflowed(pivots).any():
        return np.zeros((m, m)), ~np.eye(m, dtype=bool)
    with np.errstate(all="ignore"):
        inv_upper = np.linalg.inv(upper[0])
        inv_lower = np.linalg.inv(lower[0])
        inner = inv_upper @ inv_lower  # H over nodes 1 .. m-1: nonnegative
    if not (np.isfinite(inner).all() and (inner >= 0).all()):
        return np.zeros((m, m)), ~np.eye(m, dtype=bool)
    h = np.zeros((m, m))  # H with the root's row and column 0 (G_0v = 0)
    h[1:, 1:] = inner
    a = scaled[0]  # a[u, v] = A_uv / s_v
    diag = np.diag(h)
    own = a.T * (diag[:, None] - h)  # A'_vu (H_uu - H_uv), at [u, v]
    out = own + own.T
    size = a.T * (diag[:, None] + h)  # what the differences are taken of
    bound = 8 * m * np.finfo(float).eps * (size + size.T)
    bad = bound > EDGE_TOLERANCE
    np.fill_diagonal(bad, False)
    return out, bad


def _covering_roots(bad) -> list:
    """Roots such that every edge of ``bad`` has one end among them (greedy: the node
    with the most uncovered edges first)."""
    bad = np.triu(bad | bad.T, 1)
    bad = bad | bad.T
    roots = []
    while bad.any():
        u = int(np.argmax(bad.sum(axis=1)))
        roots.append(u)
        bad[u, :] = bad[:, u] = False
    return roots


#: The largest magnitude of a finite log edge weight: a tree's log weight sums up to
#: ``m - 1`` of them, which must stay within the floating-point range (1.8e308).
MAX_LOG_WEIGHT = 1e300


def checked_log_weights(log_weights) -> np.ndarray:
    """``log_weights`` as a float array, checked: square in its last two axes, symmetric
    off the diagonal (to 1e-9 relative), and every off-diagonal weight ``-inf`` (an absent
    edge) or finite and at most :data:`MAX_LOG_WEIGHT` in magnitude.

    Both sums read one triangle of the matrix, so an asymmetric matrix is refused rather
    than read half; ``nan`` and ``+inf`` name no graph.

    Examples
    --------
    >>> import numpy as np
    >>> checked_log_weights([[0.0, 1.0], [2.0, 0.0]])
    Traceback (most recent call last):
    ...
    ValueError: The log edge weights must be symmetric: weight (0, 1) is 1.0 but (1, 0) is 2.0.
    """
    weights = np.asarray(log_weights, dtype=float)
    if weights.ndim < 2 or weights.shape[-1] != weights.shape[-2]:
        raise ValueError(
            f"The log edge weights must be square matrices (..., m, m), got shape {weights.shape}."
        )
    m = weights.shape[-1]
    off = ~np.eye(m, dtype=bool)
    bad = off & ~(np.isneginf(weights) | (np.abs(weights) <= MAX_LOG_WEIGHT))
    if bad.any():
        where = np.argwhere(bad)[0]
        raise ValueError(
            f"The log edge weights must be -inf (an absent edge) or finite and at most "
            f"{MAX_LOG_WEIGHT:g} in magnitude: weight {tuple(int(i) for i in where)} is "
            f"{weights[tuple(where)]}."
        )
    transposed = np.swapaxes(weights, -1, -2)
    both_absent = np.isneginf(weights) & np.isneginf(transposed)
    with np.errstate(invalid="ignore", over="ignore"):
        gap = np.abs(weights - transposed)
        tolerance = 1e-9 * np.maximum(1.0, np.abs(weights))
    asymmetric = off & ~both_absent & ~(gap <= tolerance)
    if asymmetric.any():
        where = tuple(int(i) for i in np.argwhere(asymmetric)[0])
        mirror = (*where[:-2], where[-1], where[-2])
        raise ValueError(
            f"The log edge weights must be symmetric: weight {where[-2:]} is "
            f"{weights[where]} but {mirror[-2:]} is {weights[mirror]}."
        )
    return weights


def _log_edge_terms(permuted):
    """``log A_uv G_vv`` of each rooting ``u`` (first in its matrix) and each other ``v``."""
    scaled, _ = _column_scaled(permuted)
    pivots, lower, upper = _eliminate(scaled, factors=True)
    with np.errstate(all="ignore"):  # a peaked rooting may overflow: it is redone below
        # diag(U^-1 L^-1): both inverses are nonnegative (M-matrix factors), no cancellation
        inv_upper = np.linalg.inv(upper)
        inv_lower = np.swapaxes(np.linalg.inv(np.swapaxes(lower, -1, -2)), -1, -2)
        diag = np.einsum("rvk,rkv->rv", inv_upper, inv_lower)
        log_edge = np.log(scaled[:, 0, 1:] * diag)  # A_uv G_vv with G = S^-1 L'^-1
    redo = underflowed(pivots) | ~(np.isfinite(diag) & (diag >= 0)).all(axis=-1)
    if redo.any():
        log_edge[redo] = permuted[redo, 0, 1:] + _log_resistances(permuted[redo])
    return log_edge


def _column_scaled(log_weights):
    """``A_uv / s_v`` with ``s_v = max_u A_uv``, zero diagonal, and ``log s``.

    Every spanning tree, rooted at node 0, gives each other node exactly one
    incoming edge, so dividing column ``v`` by ``s_v`` divides every tree's
    weight by ``s_v`` once: ``Z(A) = Z(A') prod_{v > 0} s_v``. Each column then
    holds a 1, so no column underflows as a whole however spread the
    log-weights are (a column of ``-inf`` keeps ``s_v = 1``: an isolated node).
    """
    la = np.array(log_weights, dtype=float)
    m = la.shape[-1]
    diagonal = np.arange(m)
    la[..., diagonal, diagonal] = -np.inf
    top = la.max(axis=-2, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    return np.exp(la - top), top[..., 0, :]


def underflowed(pivots) -> np.ndarray:
    """Which matrices' column-scaled elimination may have lost a weight it needed (a pivot
    below :data:`SMALLEST_PIVOT`): they are eliminated again in log space."""
    return ~(pivots >= SMALLEST_PIVOT).all(axis=-1)


def _eliminate(scaled, factors=False):
    """Gaussian elimination of nodes 1 .. m-1 of the rooted Laplacian, cancellation-free.

    Each pivot is recomputed as the sum of its column's remaining off-diagonal
    weights (the Schur complement of a Laplacian is a Laplacian), as in the
    Grassmann-Taksar-Heyman algorithm, so only positive numbers are added:
    plain LU loses every digit of the determinant when the tree posterior is
    peaked (at 100+ features the reduced Laplacian's condition number passes
    1e18). Returns the pivots, and with ``factors`` the LU factors of the
    reduced Laplacian. Only the rows still to be eliminated (and the root's) are updated.
    """
    a = np.array(scaled, dtype=float)
    m = a.shape[-1]
    pivots = np.empty(a.shape[:-2] + (m - 1,))
    if factors:
        lower = np.zeros(a.shape[:-2] + (m - 1, m - 1))
        upper = np.zeros_like(lower)
    for k in range(1, m):
        pivot = a[..., 0, k] + a[..., k + 1 :, k].sum(axis=-1)
        pivots[..., k - 1] = pivot
        # a pivot this small sends the matrix to the log-space elimination: avoid overflow
        safe = np.where(pivot >= SMALLEST_PIVOT, pivot, 1.0)
        column = a[..., :, k] / safe[..., None]
        if factors:
            lower[..., k - 1, k - 1] = 1.0
            lower[..., k:, k - 1] = -column[..., k + 1 :]
            upper[..., k - 1, k - 1] = safe
            upper[..., k - 1, k:] = -a[..., k, k + 1 :]
        row = a[..., k, None, k + 1 :]  # only the root's row and the rows not yet eliminated
        a[..., :1, k + 1 :] += column[..., :1, None] * row
        a[..., k + 1 :, k + 1 :] += column[..., k + 1 :, None] * row
    return (pivots, lower, upper) if factors else pivots


def _log_sum(terms, axis):
    """``log sum exp`` along ``axis``; ``-inf`` where every term is ``-inf``."""
    top = terms.max(axis=axis, keepdims=True)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(terms - safe).sum(axis=axis)) + np.squeeze(safe, axis)


def _log_eliminate(log_weights, factors=False):
    """:func:`_eliminate` with every number a logarithm: exact at any spread of weights.

    Returns the log pivots and, with ``factors``, the logs of the LU factors'
    off-diagonal magnitudes (``L = I - N`` with ``N`` strictly lower, ``U = D
    (I - M)`` with ``M`` strictly upper, both nonnegative) as ``(log N, log M)``.
    """
    la = np.array(log_weights, dtype=float)
    m = la.shape[-1]
    diagonal = np.arange(m)
    la[..., diagonal, diagonal] = -np.inf
    batch = la.shape[:-2]
    log_pivots = np.empty(batch + (m - 1,))
    if factors:
        log_n = np.full(batch + (m - 1, m - 1), -np.inf)
        log_m = np.full(batch + (m - 1, m - 1), -np.inf)
    for k in range(1, m):
        remaining = np.concatenate([la[..., :1, k], la[..., k + 1 :, k]], axis=-1)
        log_pivot = _log_sum(remaining, axis=-1)
        log_pivots[..., k - 1] = log_pivot
        safe = np.where(np.isfinite(log_pivot), log_pivot, 0.0)[..., None]
        row = la[..., k, None, k + 1 :]
        if factors:
            log_n[..., k:, k - 1] = la[..., k + 1 :, k] - safe
            log_m[..., k - 1, k:] = row[..., 0, :] - safe
        for rows in (slice(0, 1), slice(k + 1, m)):  # the root's row and those still to go
            block = la[..., rows, k + 1 :]
            np.logaddexp(block, (la[..., rows, k] - safe)[..., None] + row, out=block)
    return (log_pivots, log_n, log_m) if factors else (log_pivots,)


def _log_resistances(log_weights):
    """``log G_vv`` of each rooting (root first in each matrix), in log space throughout.

    ``G = U^-1 L^-1`` with ``L^-1 = (I - N)^-1 = sum_p N^p`` and ``U^-1 = (I -
    M)^-1 D^-1``: forward and back substitution over logarithms.
    """
    log_pivots, log_n, log_m = _log_eliminate(log_weights, factors=True)
    batch, size = log_pivots.shape[:-1], log_pivots.shape[-1]
    identity = np.where(np.eye(size, dtype=bool), 0.0, -np.inf)
    inv_lower = np.broadcast_to(identity, batch + (size, size)).copy()
    for i in range(1, size):  # row i of (I - N)^-1 from the rows above it
        terms = log_n[..., i, :i, None] + inv_lower[..., :i, :]
        inv_lower[..., i, :] = np.logaddexp(inv_lower[..., i, :], _log_sum(terms, axis=-2))
    inv_unit_upper = np.broadcast_to(identity, batch + (size, size)).copy()
    for i in range(size - 2, -1, -1):  # row i of (I - M)^-1 from the rows below it
        terms = log_m[..., i, i + 1 :, None] + inv_unit_upper[..., i + 1 :, :]
        inv_unit_upper[..., i, :] = np.logaddexp(
            inv_unit_upper[..., i, :], _log_sum(terms, axis=-2)
        )
    inv_upper = inv_unit_upper - log_pivots[..., None, :]
    return _log_sum(inv_upper + np.swapaxes(inv_lower, -1, -2), axis=-1)
