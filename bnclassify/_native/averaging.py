"""The averaged one-dependence estimators' joint, a block of super-parents at a time.

:func:`aode_block` scores every row under a block of super-parents and merges their
weighted joints into each row's running log-sum-exp (``AODE``'s prediction,
``bnclassify/classifiers/_aode.py``). The compiled version reads each row's
categories once and sums, for each super-parent, the table rows of the row's
children (``m`` look-ups of ``C`` numbers each); where every column is a child and
a super-parent it takes the table's symmetric form instead, one look-up per pair of
the row's categories for both of their super-parents. The numpy version multiplies
the rows' one-hot vectors with the whole table (one matrix product per chunk of
rows) and picks each row's own category.
"""

from __future__ import annotations

import numpy as np

from . import runtime

#: numpy version: super-parents of at most this many categories are scored at every
#: category, and each row's own picked (one matrix product); those of more, at each row's
#: own category only.
FULL_PRODUCT_STATES = 16
#: numpy version: most rows of a chunk; the chunk's one-hot vectors and scores of a narrow
#: table then stay in cache between the product and the picking (a wide table's chunks are
#: smaller still: ``BLOCK_CELLS`` cells).
CHUNK_ROWS = 2048


def aode_block(
    codes, offsets, child_of, sp_column, sp_weight, frequency, min_frequency, marginalize,
    table, sp_table, top, total, n_eligible, pair=None, log_totals=None, unscale=1.0,
) -> None:  # fmt: skip
    """Merge a block of super-parents' weighted joints into each row's running log-sum-exp.

    Super-parent ``k`` (column ``j = sp_column[k]``) scores a row, at its category ``a``,
    ``sp_table[a, c] + sum_u table[a, u, c]`` over the row's children ``u``; where the row
    misses ``j`` and ``marginalize`` is set, its score is the log-sum-exp of that over
    every category ``a`` of ``j`` (the super-parent summed out). It takes part (is
    eligible) when its weight is positive and the row's category of it was seen at least
    ``min_frequency`` times, or it is missing and ``marginalize`` is set; never where the
    row's cell is ``-2``. Then, for each row and class,
    ``top + log total`` becomes the log of ``exp(top) total + sum_k w_k exp(score_k)``
    over the eligible ``k`` (``top`` the largest score so far: no overflow), and
    ``n_eligible`` grows by their weights.

    Parameters
    ----------
    codes : ndarray of signed int, shape (n, m)
        Each row's category code of each column (any layout: the compiled version reads a
        column's rows in order); -1 missing, -2 left out (neither child nor super-parent).
    offsets : ndarray of int64, shape (m + 1,)
        Each column's first place among all the columns' categories: code ``x`` of column
        ``j`` is place ``offsets[j] + x``; ``offsets[m] = R``.
    child_of : ndarray of int64, shape (R,)
        Each place's column of ``table`` (-1: not a child, e.g. a column of one category).
    sp_column : ndarray of int64, shape (B,)
        The block's super-parents.
    sp_weight : ndarray of float64, shape (B,)
        Their weights in the average (0: none takes part).
    frequency : ndarray of float64, shape (R,)
        Each category's training count.
    min_frequency : float
    marginalize : bool
    table : ndarray of float64, shape (S, U, C), or None with ``pair``
        ``log P(x_u | c, a)`` for the block's categories ``a``, super-parent by
        super-parent (0 at a super-parent's own column's children); ``-inf`` allowed.
    sp_table : ndarray of float64, shape (S, C)
        ``log P(c) + log P(a | c)``.
    top, total : ndarray of float64, shape (n, C)
        The running log-sum-exp (start: ``-inf`` and 0), updated in place.
    n_eligible : ndarray of float64, shape (n,)
        Added to: each row's eligible super-parents' weights.
    pair, log_totals : ndarrays of int64 and float64, shapes (R, R, C) and (S, m, C), optional
        The table in its symmetric form (``table`` then None), when every column is a child
        (``child_of`` the identity) and a super-parent (``sp_column`` every column in order):
        ``table[a, u] = unscale * pair[a, u] - log_totals[a, j]`` for ``u`` a category of
        child ``j``, where ``unscale * pair[g, h]`` is ``log (N(c, g, h) + alpha)`` in fixed
        point (:func:`fixed_point`; symmetric, 0 where ``g`` and ``h`` are categories of one
        column) and ``log_totals[a, j]`` is the log of child ``j``'s total at ``a`` (0 at
        ``a``'s own column). The compiled version then reads each pair of a row's categories
        once, for both of its super-parents, summing integers (exact in any order), and adds
        the totals of the children the row holds as one sum per category less those it
        misses; the numpy version builds ``table`` from them. Either may have its classes
        padded (``table``'s ``C`` is ``top``'s).
    unscale : float
        ``pair``'s unit (a power of 2).

    Examples
    --------
    >>> codes = np.array([[0, 0], [1, -1]])  # two binary columns; row 1 misses column 1
    >>> top, total, n_eligible = np.full((2, 1), -np.inf), np.zeros((2, 1)), np.zeros(2)
    >>> aode_block(codes, np.array([0, 2, 4]), np.arange(4), np.array([0, 1]), np.ones(2),
    ...            np.ones(4), 1, True, np.zeros((4, 4, 1)), np.zeros((4, 1)), top, total,
    ...            n_eligible)
    >>> np.exp(top + np.log(total)).ravel().round(12).tolist(), n_eligible.tolist()  # 1+1, 1+2
    ([2.0, 3.0], [2.0, 2.0])
    """
    codes = np.asarray(codes)
    if codes.dtype.kind != "i":
        codes = codes.astype(np.int64)
    offsets, child_of, sp_column = (
        np.ascontiguousarray(a, dtype=np.int64) for a in (offsets, child_of, sp_column)
    )
    sp_weight, frequency, sp_table = (
        np.ascontiguousarray(a, dtype=float) for a in (sp_weight, frequency, sp_table)
    )
    n_classes = top.shape[1]
    if not runtime.COMPILED or not hasattr(runtime.kernels, "aode_block"):  # not GCC or clang
        if pair is not None:  # the symmetric form's table, as the matrix product reads it
            table = _table_from_pair(pair, log_totals, offsets, unscale, n_classes)
        _numpy_aode_block(
            codes, offsets, child_of, sp_column, sp_weight, frequency, min_frequency,
            marginalize, np.ascontiguousarray(table[..., :n_classes], dtype=float),
            sp_table[:, :n_classes], top, total, n_eligible,
        )  # fmt: skip
        return

    padded = padded_classes(n_classes)  # each child's numbers one vector
    sp_table = pad_classes(sp_table, padded)
    if pair is None:
        table = pad_classes(table, padded)
        pair, log_totals = np.zeros((0, 0, padded), dtype=np.int64), np.zeros((0, 0, padded))
    else:
        table = np.zeros((0, 0, padded))
        pair = pad_classes(pair, padded, np.int64)
        log_totals = pad_classes(log_totals, padded)

    def share(rows):
        runtime.kernels.aode_block(
            codes[rows], offsets, child_of, sp_column, sp_weight, frequency,
            float(min_frequency), int(bool(marginalize)), table, sp_table, top[rows],
            total[rows], n_eligible[rows], pair, log_totals, float(unscale),
        )  # fmt: skip

    n, m = codes.shape
    runtime.on_shares(share, n, n * m * max(1, len(sp_column)), align=64)


def aode_proba(top, total):
    """``P(c | x)`` from the running log-sum-exp ``(top, total)`` that :func:`aode_block`
    leaves: ``total[r, c] exp(top[r, c] - T_r)`` over its sum across the classes, ``T_r`` the
    row's largest ``top`` (a row's weight of eligible super-parents, a factor of every class,
    cancels). ``predict_proba`` without the log of the joint and the log-sum-exp over the classes
    that ``predict_log_proba`` takes.

    Parameters
    ----------
    top, total : ndarray of float64, shape (n, C)

    Returns
    -------
    proba : ndarray of float64, shape (n, C)
        NaN in the rows whose sum is not positive and finite (no class possible: none of
        their super-parents eligible, or every class's joint 0).
    n_bad : int
        How many rows those are.

    Examples
    --------
    >>> proba, n_bad = aode_proba(np.array([[0.0, np.log(3.0)], [-np.inf, -np.inf]]),
    ...                           np.array([[1.0, 1.0], [0.0, 0.0]]))
    >>> proba[0].round(12).tolist(), bool(np.isnan(proba[1]).all()), n_bad
    ([0.25, 0.75], True, 1)
    """
    top = np.ascontiguousarray(top, dtype=float)
    total = np.ascontiguousarray(total, dtype=float)
    out = np.empty_like(total)
    if runtime.COMPILED and hasattr(runtime.kernels, "aode_proba"):
        return out, runtime.kernels.aode_proba(top, total, out)
    return _numpy_aode_proba(top, total, out)


def _numpy_aode_proba(top, total, out):
    """:func:`aode_proba` in numpy."""
    peak = top.max(axis=1, initial=-np.inf, keepdims=True)
    with np.errstate(invalid="ignore", over="ignore"):
        np.multiply(total, np.exp(top - peak), out=out)
        sums = out.sum(axis=1, keepdims=True)
        out /= sums
    bad = ~((sums[:, 0] > 0) & (sums[:, 0] < np.inf))
    out[bad] = np.nan
    return out, int(bad.sum())


def pad_classes(array, padded, dtype=float):
    """``array`` (as ``dtype``) with its last axis (the classes) padded with zeros to
    ``padded``, on a 64-byte boundary (:func:`aligned_zeros`) when copied."""
    array = np.ascontiguousarray(array, dtype=dtype)
    if array.shape[-1] == padded:
        return array
    wide = aligned_zeros(array.shape[:-1] + (padded,), dtype)
    wide[..., : array.shape[-1]] = array
    return wide


def aligned_zeros(shape, dtype=float):
    """Zeros whose first byte is on a 64-byte boundary: a table of 32-byte cells (four classes
    of 8 bytes) then has none across two cache lines (a cell read across two costs about a
    third more in the pair sums).

    Examples
    --------
    >>> aligned_zeros((3, 4), np.int64).ctypes.data % 64
    0
    """
    dtype = np.dtype(dtype)
    size = int(np.prod(shape)) * dtype.itemsize
    buffer = np.zeros(size + 64, dtype=np.uint8)
    start = -buffer.ctypes.data % 64
    return buffer[start : start + size].view(dtype).reshape(shape)


def padded_classes(n_classes) -> int:
    """The classes padded to a multiple of 4, as the compiled :func:`aode_block` reads them (a
    caller may pad its tables once, for many calls)."""
    return -(-n_classes // 4) * 4


def fixed_point(pair, n_columns, n_classes=None):
    """``pair`` (float64, finite) in the fixed point :func:`aode_block` sums: ``(ints,
    unscale)`` with ``ints * unscale`` within ``unscale / 2`` of ``pair``.

    ``unscale`` is the smallest power of 2 with which ``n_columns - 1`` of the numbers,
    summed, stay within ``2^61``: a sum's rounding is then below ``(n_columns - 1) *
    unscale / 2``, at most ``2^-61`` of the largest sum a row may have (a float64 sum's is
    up to ``2^-53`` of it times the number of terms). With ``n_classes``, the last axis is
    padded with zeros to that many.

    Examples
    --------
    >>> ints, unscale = fixed_point(np.array([[[0.5, -1.25]]]), 3)
    >>> ints.dtype.name, float(ints[0, 0, 0] * unscale), float(ints[0, 0, 1] * unscale)
    ('int64', 0.5, -1.25)
    """
    pair = np.asarray(pair, dtype=float)
    largest = float(np.abs(pair).max(initial=0.0)) * max(1, n_columns - 1)
    # largest * 2^shift < 2^61 (a bit to spare for the rounding), shift at most 900 (a table of
    # zeros: any unit is exact)
    shift = 900 if largest == 0.0 else min(900, 61 - int(np.frexp(largest)[1]))
    ints = aligned_zeros(pair.shape[:-1] + (n_classes or pair.shape[-1],), np.int64)
    ints[..., : pair.shape[-1]] = np.rint(np.ldexp(pair, shift))
    return ints, float(np.ldexp(1.0, -shift))


def _table_from_pair(pair, log_totals, offsets, unscale, n_classes):
    """The CPT form ``table[a, u] = unscale * pair[a, u] - log_totals[a, j]`` (``u`` a category
    of column ``j``) of the symmetric form's arguments, their first ``n_classes`` classes."""
    column = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))  # each category's column
    table = pair[..., :n_classes] * unscale - np.asarray(log_totals)[:, column, :n_classes]
    table[column[:, None] == column[None, :]] = 0.0  # a super-parent is not its own child
    return table


def _numpy_aode_block(
    codes, offsets, child_of, sp_column, sp_weight, frequency, min_frequency, marginalize,
    table, sp_table, top, total, n_eligible,
):  # fmt: skip
    """:func:`aode_block` in numpy: for a chunk of rows, one product of their one-hot
    vectors over the children (and a constant 1) with the table (and its column of
    ``sp_table``), each row's own category picked."""
    n = len(codes)
    n_states, n_children, n_classes = table.shape
    codes = np.asarray(codes, dtype=np.int64)
    cells = np.where(codes >= 0, codes + offsets[:-1], codes)  # places; -1 and -2 kept
    sizes = offsets[sp_column + 1] - offsets[sp_column]
    starts = np.concatenate([[0], np.cumsum(sizes)])[:-1].astype(np.intp)
    finite = bool(np.isfinite(table).all())
    # (C, S, U + 1): the last column, which every row holds, is log P(c) + log P(a | c)
    log_cpt = np.concatenate([table.transpose(2, 0, 1), sp_table.T[:, :, None]], axis=2)
    place = np.where(cells >= 0, child_of[np.maximum(cells, 0)], -1)
    place[place < 0] = n_children  # none: z's last column, which is 1 anyway
    rows_per_chunk = max(1, runtime.BLOCK_CELLS // (n_children + 1 + n_classes * n_states))
    rows_per_chunk = min(rows_per_chunk, CHUNK_ROWS)
    for start in range(0, n, rows_per_chunk):
        rows = slice(start, start + rows_per_chunk)
        chunk = place[rows]
        z = np.zeros((len(chunk), n_children + 1))
        z[np.arange(len(chunk))[:, None], chunk] = 1.0
        z[:, -1] = 1.0
        parts = (z, log_cpt, finite)
        x = cells[rows][:, sp_column]
        observed = x >= 0
        at = starts + np.where(observed, x - offsets[sp_column], 0)
        joint = _picked_scores(parts, at, observed, starts, sizes)
        for k in np.flatnonzero(~observed.all(axis=0)):  # missing: summed out
            missing = np.flatnonzero(~observed[:, k])
            states = slice(starts[k], starts[k] + sizes[k])
            joint[missing, :, k] = _log_sum_exp(_state_scores(parts, missing, states))
        seen = np.where(observed, frequency[np.maximum(x, 0)], 0)
        eligible = np.where(observed, seen >= min_frequency, (x == -1) & bool(marginalize))
        eligible &= sp_weight > 0
        n_eligible[rows] += eligible @ sp_weight
        masked = joint if eligible.all() else np.where(eligible[:, None, :], joint, -np.inf)
        new_top = np.maximum(top[rows], masked.max(axis=2, initial=-np.inf))
        shift = np.where(np.isfinite(new_top), new_top, 0.0)
        with np.errstate(invalid="ignore"):
            total[rows] = (
                total[rows] * np.exp(top[rows] - shift)
                + np.exp(masked - shift[:, :, None]) @ sp_weight
            )
        top[rows] = new_top


def _state_scores(parts, rows, states):
    """``log P(c) + log P(a | c) + sum_j log P(x_j | c, a)`` over the observed children of
    ``rows``, for the super-parent categories ``states`` (rows of the block), shape
    ``(n, C, R_states)``: one product of the rows' one-hot vectors (and their constant 1)
    with the block's log CPT rows (and its column of ``log P(c) + log P(a | c)``)."""
    z, log_cpt, finite = parts
    return _children_sum(z[rows], log_cpt[:, states], finite=finite)


def _picked_scores(parts, at, observed, starts, sizes):
    """Each row's score of each observed super-parent at its category ``at``, ``(n, C, B)``.

    ``starts`` and ``sizes``: each super-parent's first category (row of the block) and
    number of categories. A super-parent of at most :data:`FULL_PRODUCT_STATES` categories
    is scored at all of them by one product of every row with their log CPT rows, and each
    row's own category is picked: a few times the arithmetic, in one matrix product rather
    than one small one per category. For a super-parent of more, the rows holding one
    category are scored together by a product with that category's log CPT row alone: a
    row costs one category of it, not all of them.
    """
    n_classes = parts[1].shape[0]
    picked = np.zeros((len(at), n_classes, at.shape[1]))
    few = np.asarray(sizes) <= FULL_PRODUCT_STATES
    if few.any() and len(at):
        states = np.concatenate(
            [np.arange(s, s + c) for s, c in zip(starts[few], sizes[few], strict=True)]
        )
        column = np.zeros(parts[1].shape[1], dtype=np.intp)
        column[states] = np.arange(len(states))  # each category's place among ``states``
        scores = _state_scores(parts, slice(None), states)  # (n, C, S)
        # each row's own categories, as positions in the flattened scores
        lines = np.arange(0, scores.size, len(states)).reshape(len(at), n_classes, 1)
        chosen = scores.take(lines + column[at[:, few]][:, None, :])
        if few.all() and observed.all():
            return chosen
        picked[:, :, few] = np.where(observed[:, None, few], chosen, 0.0)
        observed = observed & ~few
    rows, members = np.nonzero(observed)
    keys = at[rows, members]
    order = np.argsort(keys, kind="stable")
    for run in np.split(order, np.flatnonzero(np.diff(keys[order])) + 1):
        if len(run):
            state = keys[run[0]]
            picked[rows[run], :, members[run]] = _state_scores(
                parts, rows[run], slice(state, state + 1)
            )[:, :, 0]
    return picked


def _log_sum_exp(scores):
    """``log sum exp`` over the last axis; ``-inf`` where every term is."""
    peak = scores.max(axis=-1)
    safe = np.where(np.isfinite(peak), peak, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.exp(scores - safe[..., None]).sum(axis=-1))


def _product(z, table):
    """``sum_r z[n, r] table[c, b, r]``, shape ``(n, C, B)``: one matrix product whose result
    is already in that layout (no copy)."""
    n_classes, width, depth = table.shape
    return (z @ table.reshape(n_classes * width, depth).T).reshape(len(z), n_classes, width)


def _children_sum(z, log_cpt, finite=False):
    """``sum_j log P(x_j | c, a)`` over each row's observed children, shape ``(n, C, R_B)``.

    One matrix product of the rows' one-hot vectors ``z`` with the log CPTs; a
    zero probability (``alpha=0``) is -inf, which a product would turn into
    NaN (0 * -inf), so those cells go through a second product of indicators (``finite``:
    the caller knows there are none).
    """
    if finite:
        return _product(z, log_cpt)
    impossible = np.isneginf(log_cpt)
    finite = np.where(impossible, 0.0, log_cpt) if impossible.any() else log_cpt
    scores = _product(z, finite)
    if finite is not log_cpt:
        scores[_product(z, impossible.astype(float)) > 0] = -np.inf
    return scores
