"""Weight matrices and spanning trees: the symmetry check, Kruskal's union-find, and the pivots
and log sums of the cancellation-free elimination of many small weight matrices (BMATAN's sums
over trees)."""

from __future__ import annotations

import numpy as np

from . import runtime


# -- matrices ------------------------------------------------------------------------------------
def is_symmetric(values: np.ndarray, block: int = 128) -> bool:
    """Whether a square matrix equals its transpose exactly (NaN is not equal to itself).

    ``np.array_equal(values, values.T)`` reads the transpose a column at a
    time, which misses the cache on every row of a large matrix; both versions
    here compare square tiles with their mirror images.

    Examples
    --------
    >>> is_symmetric(np.array([[0.0, 1.0], [1.0, 0.0]])), is_symmetric(np.array([[0, 1], [2, 0]]))
    (True, False)
    """
    if values.ndim != 2 or values.shape[0] != values.shape[1]:
        raise ValueError(f"is_symmetric takes a square matrix, got shape {values.shape}.")
    if runtime.COMPILED and values.dtype == np.float64 and values.dtype.isnative:
        return runtime.kernels.is_symmetric(values)
    m = len(values)
    for i in range(0, m, block):
        for j in range(i, m, block):
            tile = values[i : i + block, j : j + block]
            if not np.array_equal(tile, values[j : j + block, i : i + block].T):
                return False
    return True


# -- spanning trees -------------------------------------------------------------------------------
def tree_pivots(scaled: np.ndarray, smallest: float) -> np.ndarray:
    """The pivots of the cancellation-free elimination of nodes ``1 .. m-1`` of each matrix.

    ``scaled`` holds column-scaled edge weights, shape ``(batch, m, m)`` with a
    zero diagonal; pivot ``k`` is the sum of column ``k``'s remaining
    off-diagonal weights (Grassmann, Taksar and Heyman), so only positive
    numbers are added. A pivot below ``smallest`` is kept but divides as 1 (the
    caller redoes that matrix in log space). See
    :func:`bnclassify.spanning_trees.log_tree_sum`.

    Parameters
    ----------
    scaled : ndarray of shape (batch, m, m)
    smallest : float

    Returns
    -------
    ndarray of shape (batch, m - 1)

    Examples
    --------
    >>> tree_pivots(np.ones((1, 3, 3)) - np.eye(3), 1e-200)  # K3: 3 trees = 2 * 1.5
    array([[2. , 1.5]])
    """
    a = np.array(scaled, dtype=float, order="C")
    batch, m = a.shape[0], a.shape[-1]
    pivots = np.empty((batch, m - 1))
    if not runtime.COMPILED:
        return _numpy_tree_pivots(a, smallest, pivots)

    def share(rows):
        runtime.kernels.tree_pivots(a[rows], pivots[rows], float(smallest))

    runtime.on_shares(share, batch, batch * m * m)
    return pivots


def _numpy_tree_pivots(a, smallest, pivots, scale=None):
    """The elimination of :func:`tree_pivots` in numpy. With ``scale`` (column-scaled
    symmetric weights), it reads only row 0 and the lower triangle: step ``k``'s row is its
    column times ``scale[k]``, the compiled symmetric elimination's products (the upper
    triangle is updated too but never read)."""
    m = a.shape[-1]
    for k in range(1, m):
        pivot = a[:, 0, k] + a[:, k + 1 :, k].sum(axis=-1)
        pivots[:, k - 1] = pivot
        safe = np.where(pivot >= smallest, pivot, 1.0)
        column = a[:, :, k] / safe[:, None]
        if scale is None:
            row = a[:, k, None, k + 1 :]  # only the root's row and the rows not yet eliminated
        else:
            row = (a[:, k + 1 :, k] * scale[k, k + 1 :])[:, None, :]
        a[:, :1, k + 1 :] += column[:, :1, None] * row
        a[:, k + 1 :, k + 1 :] += column[:, k + 1 :, None] * row
    return pivots


def tree_log_sums(cells, ratio, base, fill, smallest: float, scale=None, pairs=None) -> tuple:
    """For each row and class, the log pivots' sum of the elimination of a built matrix.

    Matrix ``(r, c)`` is ``base * ratio[c, cells[r, c, :, None], cells[r, c, None, :]] +
    fill`` (``cells[r, 0]`` for every class when ``cells`` has one class): column-scaled
    weights (zero diagonal) times per-state factors, as :func:`tree_pivots` takes them,
    built one at a time in a scratch matrix instead of a ``(rows, classes, m, m)`` stack
    (the compiled version; the numpy one builds blocks).
    The compiled version eliminates four pivots per pass over the matrix, the same
    products and sums in the same order.

    With ``scale``, the matrices are symmetric but for the column scaling: ``base[u, v]
    = W[u, v] / t_v`` and ``fill`` alike with ``W`` symmetric, ``ratio`` symmetric in its
    last two axes, and ``scale[k, j] = t_k / t_j``. The Schur complements of a symmetric
    matrix stay symmetric, so only row 0 and the lower triangle are eliminated, each
    step's row ``k`` rebuilt from its column as ``a[j, k] * scale[k, j]``: half the
    multiply-adds. The caller keeps ``scale`` well inside the float range (a row entry
    rebuilt from a column entry flushed to 0 must stay negligible).

    With ``pairs = (mu, factors)``, the matrices are symmetric and scaled by pairs rather
    than by columns: ``base[u, v] = W[u, v] / beta[u, v]`` and ``fill`` alike, ``beta`` an
    ultrametric at least the weights (the widest-path bottlenecks), so the entries stay
    near 1 however far the weights spread. ``mu[k, i] = beta[i, k] / B_k`` with ``B_k`` the
    largest ``beta[i, k]`` over the nodes left at step ``k`` (0 and ``i > k``): pivot ``k``
    is ``sum_i a[i, k] mu[k, i]``; ``factors[k, j, i] = beta[i, k] beta[k, j] / (B_k
    beta[i, j])`` (at most 1) turns step ``k``'s product into units of ``beta[i, j]``.
    One triangle is eliminated; the sums lack ``sum_k log B_k``, which the caller adds
    (:func:`bnclassify.spanning_trees.log_tree_sums_by_states`).

    Parameters
    ----------
    cells : ndarray of int, shape (n, C, m) or (n, 1, m)
        Indices into the last two axes of ``ratio``; ``(n, 1, m)``: the same for every class.
    ratio : ndarray of shape (C, S, S)
    base, fill : ndarray of shape (m, m)
    smallest : float
        A pivot below it (or not finite) flags its matrix (and divides as 1).
    scale : ndarray of shape (m, m), optional
        The ratios of the column scales of symmetric weights: one triangle is eliminated.
    pairs : tuple of ndarray of shapes (m, m) and (m, m, m), optional
        ``(mu, factors)`` of weights scaled by pairs; not with ``scale``.

    Returns
    -------
    log_sums : ndarray of shape (n, C)
        The sum of the logs of each matrix's ``m - 1`` pivots.
    low : ndarray of bool, shape (n, C)
        The matrices with a flagged pivot: the caller redoes them in log space.

    Examples
    --------
    >>> k3 = np.ones((3, 3)) - np.eye(3)  # K3: 3 spanning trees; ratio 2 on every edge: 12
    >>> sums, low = tree_log_sums(np.zeros((1, 1, 3), int), np.full((1, 1, 1), 2.0), k3,
    ...                           np.zeros((3, 3)), 1e-200)
    >>> float(np.exp(sums[0, 0]).round(9)), bool(low[0, 0])
    (12.0, False)
    >>> sums, low = tree_log_sums(np.zeros((1, 1, 3), int), np.full((1, 1, 1), 2.0), k3,
    ...                           np.zeros((3, 3)), 1e-200, scale=np.ones((3, 3)))
    >>> float(np.exp(sums[0, 0]).round(9)), bool(low[0, 0])
    (12.0, False)
    >>> sums, low = tree_log_sums(np.zeros((1, 1, 3), int), np.full((1, 1, 1), 2.0), k3,
    ...                           np.zeros((3, 3)), 1e-200, pairs=(np.ones((3, 3)),
    ...                                                            np.ones((3, 3, 3))))
    >>> float(np.exp(sums[0, 0]).round(9)), bool(low[0, 0])
    (12.0, False)
    """
    cells = np.ascontiguousarray(cells, dtype=np.int64)
    ratio, base, fill = (np.ascontiguousarray(a, dtype=float) for a in (ratio, base, fill))
    if scale is not None and pairs is not None:
        raise ValueError("tree_log_sums: scale or pairs, not both.")
    if scale is not None:
        scale = np.ascontiguousarray(scale, dtype=float)
    mu = factors = None
    if pairs is not None:
        mu, factors = (np.ascontiguousarray(a, dtype=float) for a in pairs)
    n, m, n_classes = cells.shape[0], cells.shape[2], ratio.shape[0]
    out = np.empty((n, n_classes))
    low = np.zeros((n, n_classes), dtype=np.uint8)
    if not runtime.COMPILED:
        return _numpy_tree_log_sums(cells, ratio, base, fill, smallest, out, low, scale, pairs)

    def share(rows):
        runtime.kernels.tree_log_sums(
            cells[rows],
            ratio,
            base,
            fill,
            float(smallest),
            out[rows],
            low[rows],
            scale,
            mu,
            factors,
        )

    runtime.on_shares(share, n, n * n_classes * m * m)
    return out, low.astype(bool)


def _numpy_tree_log_sums(cells, ratio, base, fill, smallest, out, low, scale=None, pairs=None):
    n, m, n_classes = cells.shape[0], cells.shape[2], ratio.shape[0]
    by_class = np.arange(n_classes)[:, None, None]
    step = max(1, runtime.BLOCK_CELLS * 16 // (n_classes * m * m))
    for start in range(0, n, step):
        g = cells[start : start + step]
        a = base * ratio[by_class, g[..., None], g[..., None, :]] + fill  # (b, C, m, m)
        a = a.reshape(-1, m, m)
        pivots = np.empty((len(a), m - 1))
        if pairs is None:
            _numpy_tree_pivots(a, smallest, pivots, scale)
        else:
            _numpy_pair_pivots(a, smallest, pivots, *pairs)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[start : start + step] = np.log(pivots).sum(axis=-1).reshape(-1, n_classes)
        flagged = ~((pivots >= smallest) & (pivots <= np.finfo(float).max)).all(axis=-1)
        low[start : start + step] = flagged.reshape(-1, n_classes)
    return out, low.astype(bool)


def _numpy_pair_pivots(a, smallest, pivots, mu, factors):
    """The elimination of :func:`tree_log_sums` with ``pairs``, in numpy, on whole matrices
    (both triangles): pivot ``k`` is ``sum_i a[i, k] mu[k, i]`` over the nodes left, and step
    ``k`` adds ``a[i, k] a[k, j] / pivot * factors[k, j, i]`` to each entry left."""
    m = a.shape[-1]
    for k in range(1, m):
        left = np.r_[0, k + 1 : m]
        pivot = a[:, left, k] @ mu[k, left]
        pivots[:, k - 1] = pivot
        safe = np.where(pivot >= smallest, pivot, 1.0)
        column = a[:, left, k] / safe[:, None]
        step = factors[k][np.ix_(left, left)].T  # [i, j] = factors[k, j, i]
        row = a[:, k, left][:, None, :]
        a[:, left[:, None], left[None, :]] += column[:, :, None] * row * step
    return pivots


# -- maximum spanning trees ------------------------------------------------------------------------
def open_pairs(values: np.ndarray, threshold: float, root: np.ndarray) -> np.ndarray:
    """The flat positions ``i * m + j``, ``i < j``, ascending, of the pairs of a square matrix
    heavier than ``threshold`` whose ends have different roots (``root[i] != root[j]``).

    The candidates of one block of Kruskal's algorithm
    (:func:`bnclassify.structure.tree_from_weights`): a pair whose ends are
    joined already would be rejected, so it is not read back at all.

    Examples
    --------
    >>> w = np.array([[0.0, 3, 1], [3, 0, 2], [1, 2, 0]])
    >>> open_pairs(w, 1.5, np.arange(3)), open_pairs(w, 0.0, np.array([0, 0, 2]))
    (array([1, 5]), array([2, 5]))
    """
    values = np.asarray(values)
    m = len(values)
    root = np.ascontiguousarray(root, dtype=np.int64)
    if runtime.COMPILED and values.dtype == np.float64 and values.dtype.isnative:
        out = np.empty(m * (m - 1) // 2, dtype=np.int64)
        return out[: runtime.kernels.open_pairs(values, float(threshold), root, out)]
    mask = np.triu(values > threshold, k=1)
    mask &= root[:, None] != root[None, :]
    return np.flatnonzero(mask)


def spanning_edges(rows, columns, parent: np.ndarray, limit: int) -> np.ndarray:
    """Kruskal's union-find over candidate edges in the order given: the positions of those taken.

    Edge ``e`` joins nodes ``rows[e]`` and ``columns[e]`` unless they are
    connected already; at most ``limit`` edges are taken. ``parent`` (int64,
    one entry per node, ``np.arange(m)`` at the start) is the union-find
    forest, updated in place, so the edges may come a block at a time. Which
    edges are taken depends only on their order (the caller sorts them:
    :func:`bnclassify.structure.tree_from_weights`).

    Examples
    --------
    >>> parent = np.arange(3)
    >>> spanning_edges([0, 1, 0], [1, 0, 2], parent, 2)  # (1, 0) closes a cycle
    array([0, 2])
    >>> spanning_edges([1], [2], parent, 2)  # joined already through 0
    array([], dtype=int64)
    """
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    columns = np.ascontiguousarray(columns, dtype=np.int64)
    if parent.dtype != np.int64 or not parent.flags.c_contiguous:
        raise TypeError("spanning_edges: parent must be a contiguous int64 array (updated here).")
    limit = max(0, min(int(limit), len(rows)))
    accepted = np.empty(limit, dtype=np.int64)
    if runtime.COMPILED:
        taken = runtime.kernels.spanning_edges(rows, columns, parent, accepted, limit)
        return accepted[:taken]
    return _numpy_spanning_edges(rows, columns, parent, accepted)


def _numpy_spanning_edges(rows, columns, parent, accepted):
    """The union-find of :func:`spanning_edges` in Python, on a list (numpy scalars are slower
    one at a time): the same links, so ``parent`` ends as the compiled version leaves it."""
    links = parent.tolist()

    def root(v):
        while links[v] != v:
            links[v] = links[links[v]]
            v = links[v]
        return v

    taken = 0
    for e, (i, j) in enumerate(zip(rows.tolist(), columns.tolist(), strict=True)):
        if taken == len(accepted):
            break
        a, c = root(i), root(j)
        if a != c:
            links[c] = a
            accepted[taken] = e
            taken += 1
    parent[:] = links
    return accepted[:taken]
