"""Selective KDB's leave-one-out pass and the family cells and counts it reads."""

from __future__ import annotations

import numpy as np

from . import runtime

#: The losses :func:`loo_scores` sums, in the compiled kernel's numbering.
LOO_CRITERIA = ("rmse", "zero_one", "log_loss")
#: Relative size under which a weighted count is zero (sums of weights are rounded).
LOO_SEEN = 1e-9
#: Largest dense table ``N(c, x_parents, x)`` of one attribute, all depths together, that the
#: pass one attribute at a time (:func:`loo_pass`) counts into (128 MB); a family with more
#: cells is scored by the general pass, which numbers only the observed configurations.
DENSE_FAMILY_CELLS = 1 << 24
#: The dense pass zeroes, fills and reads every cell of every family's tables; the general pass
#: makes one look-up per row, attribute and depth. Over this many cells per look-up the dense
#: tables cost more than they save: an identifier as a parent (splice's 1,594 values: 380 cells
#: per look-up, 35 s against 0.4 s for ESKDB(10)'s fit); tables of few states sit below 3.
DENSE_CELLS_PER_LOOKUP = 8
#: Doubles of the pass's state per block of rows (256 MB): each row keeps ``(K + 1)(C + 1)``.
STATE_DOUBLES = 1 << 25
#: Bytes of a chunk of rows of the compiled pass (:func:`loo_rows`): the chunk's codes and its
#: candidates' scores, which stay in cache while every attribute's tables are read.
LOO_CHUNK_BYTES = 1 << 17
#: Bytes of the tables of a group of attributes of the compiled pass (:func:`loo_rows`): the
#: rows go through the pass once per group, every attribute of the group per chunk of rows. An
#: attribute's cells' records count by the cells some row is in (the ones read).
LOO_GROUP_BYTES = 1 << 21
#: Bytes of the rows' scores of a block of the compiled pass (:func:`loo_rows`) with several
#: groups of attributes: every group goes through a block of rows before the next block, so the
#: block's scores stay in cache (not all the rows' streamed through memory once per group).
LOO_BLOCK_BYTES = 1 << 20
#: The compiled pass (:func:`loo_rows`) takes rows of weight at least 1 in :func:`loo_order`'s
#: order, each distinct prefix's terms once, when their prefixes (summed over the levels) are at
#: most this share of ``rows x (attributes + 1)`` (else in chunks of rows, every attribute per
#: chunk: a prefix's step reads tables out of cache, about 1.5 times a chunked step's time).
LOO_PREFIX_SHARE = 0.25
#: Rows of the first sort, whose prefixes must be at most twice that share for all the rows to be
#: sorted.
LOO_PREFIX_SAMPLE = 1 << 15
#: The compiled pass (:func:`loo_rows`) reads an attribute's ratios from its cells' records
#: (computed once, for the cells some row is in) where the attribute has at most this many cells
#: per row, else computes them row by row: the same numbers (0: never, the tests' reference). On
#: 10^5 rows of hailfinder, 7 of 55 attributes have 1-2.2 cells per row (of which 97% are
#: empty), and a step without records takes about 2.6 times one with them.
LOO_RECORD_CELLS = 16
#: Whether the compiled pass in chunks may take SKDB's default steps (root mean squared error,
#: ``K = 5``, two or three classes) six candidates a vector where the CPU has AVX-512: the same
#: numbers to the last bit (the tests turn it off for the reference).
LOO_VECTOR_STEP = True


def loo_scores(
    family, parent, family_counts, parent_counts, y, weights, class_weight, inverse_r, criterion,
    total,
) -> np.ndarray:  # fmt: skip
    """Add a block of rows' leave-one-out losses of every selective KDB to ``total``.

    The pass of :func:`bnclassify.classifiers._selective.loo_losses` (which
    documents the estimates) over rows whose table cells are already looked
    up. For attribute ``u`` at depth ``d`` (its first ``d`` parents),
    ``family[u, d, i]`` is the row of ``family_counts`` (class-wise counts
    ``N(c, x_parents, x_u)``) holding row ``i``'s cell, and ``parent[u, d, i]``
    the row of ``parent_counts`` (``N(c, x_parents)``), or -1 where the
    attribute or one of those parents is missing in row ``i`` (and at depths
    beyond its parents). Row ``i`` leaves ``min(weights[i], 1)`` of its weight
    out of every cell it touches; its ``K + 1 = family.shape[1]`` candidates
    back off to the deepest prefix seen in other rows; entry ``[k, n]`` of
    ``total`` (shape ``(K + 1, m + 1)``) gains the weighted loss of the
    classifier over the first ``n`` attributes with at most ``k`` parents:
    ``(1 - P(y | x))^2`` (``"rmse"``), ``[argmax P(c | x) != y]`` or
    ``-log P(y | x)``. The compiled kernel takes cache-sized chunks of rows,
    attribute by attribute (each total gains its rows in row order); this
    version blocks of rows. They agree to rounding (the order of a few sums).

    Examples
    --------
    >>> family = np.array([[[0, 1, 0]]])  # one attribute, no parent, three rows
    >>> counts = np.array([[2.0, 0.0], [0.0, 1.0]])  # N(c, x): x=0 twice in class 0, x=1 once
    >>> total = np.zeros((1, 2))
    >>> loo_scores(family, np.zeros_like(family), counts, np.array([[2.0, 1.0]]),
    ...            np.array([0, 1, 0]), np.ones(3), np.array([2.0, 1.0]), np.array([0.5]),
    ...            "zero_one", total).tolist()
    [[1.0, 1.0]]
    """
    class_weight = np.ascontiguousarray(class_weight, dtype=np.float64)
    arrays = (
        np.ascontiguousarray(family, dtype=np.int64),
        np.ascontiguousarray(parent, dtype=np.int64),
        np.ascontiguousarray(family_counts, dtype=np.float64),
        np.ascontiguousarray(parent_counts, dtype=np.float64),
        np.ascontiguousarray(y, dtype=np.int64),
        np.ascontiguousarray(weights, dtype=np.float64),
        class_weight,
    )
    inverse_r = np.ascontiguousarray(inverse_r, dtype=np.float64)
    if runtime.COMPILED:
        runtime.kernels.loo_scores(
            *arrays, float(class_weight.sum()), inverse_r, LOO_CRITERIA.index(criterion), total
        )
        return total
    family, parent, family_counts, parent_counts, y, weights, _ = arrays
    D, C = family.shape[1], family_counts.shape[1]
    block = max(1, runtime.BLOCK_CELLS * 16 // ((2 * D + 1) * C))  # rows whose temporaries fit
    for start in range(0, len(y), block):
        rows = slice(start, start + block)
        _numpy_loo_block(
            family[:, :, rows], parent[:, :, rows], family_counts, parent_counts, y[rows],
            weights[rows], class_weight, inverse_r, criterion, total,
        )  # fmt: skip
    return total


def _numpy_loo_block(
    family, parent, family_counts, parent_counts, y, w, cw, inverse_r, criterion, total
):
    m, D, n = family.shape
    C = len(cw)
    rows = np.arange(n)
    depths = np.arange(D)[:, None]
    held_out = np.minimum(w, 1.0)  # one copy of the row
    own = np.zeros((n, C))
    own[rows, y] = held_out  # removed from every cell the row touches
    prior = cw - own + 1.0 / C
    prior = np.log(prior) - np.log(cw.sum() - held_out + 1.0)[:, None]
    joint = np.repeat(prior[None], D, axis=0)
    total[:, 0] += _loo_loss(joint, y, w, criterion)
    for u in range(m):
        observed = family[u, 0] >= 0
        terms = np.zeros((D, n, C))
        reach = np.zeros(n, dtype=np.intp)  # the deepest prefix seen with x in other rows
        seen = observed.copy()
        for d in range(D):
            seen &= family[u, d] >= 0
            if not seen.any():
                break
            counts = family_counts[np.where(seen, family[u, d], 0)]
            mine = own * seen[:, None]
            numerator = counts - mine + inverse_r[u]
            denominator = parent_counts[np.where(seen, parent[u, d], 0)] - mine + 1.0
            terms[d] = np.where(seen[:, None], np.log(numerator) - np.log(denominator), 0.0)
            if d:
                others = counts.sum(axis=1) - held_out  # seen without this copy
                seen &= others > LOO_SEEN * (1.0 + others)
                reach[seen] = d
        depth = np.minimum(reach[None, :], depths)  # the k-parent term: the deepest seen prefix
        joint += np.where(observed[None, :, None], terms[depth, rows[None, :]], 0.0)
        total[:, u + 1] += _loo_loss(joint, y, w, criterion)


def _loo_loss(joint, y, w, criterion):
    """Weighted sum over rows of each candidate's loss, from log P(c, x) of shape (K+1, n, C)."""
    top = joint.max(axis=2, keepdims=True)
    log_norm = top[..., 0] + np.log(np.exp(joint - top).sum(axis=2))
    log_true = np.take_along_axis(joint, y[None, :, None], axis=2)[..., 0] - log_norm
    if criterion == "rmse":
        loss = (1.0 - np.exp(log_true)) ** 2
    elif criterion == "zero_one":
        loss = (joint.argmax(axis=2) != y[None]).astype(float)
    else:
        loss = -log_true
    return loss @ w


def family_cells(codes, cards, attributes) -> tuple:
    """Each row's parent configuration and family at every depth of every attribute.

    ``codes`` has one column per row (shape ``(k, n)``, -1 missing);
    ``attributes[u]`` (shape ``(m, D)``) is attribute ``u``'s column, then its
    parents' in order, -1 after the last. At depth ``d`` (its first ``d``
    parents) a row observing the attribute and those parents has a parent
    configuration (its configuration at depth ``d - 1`` with parent ``d``'s
    value; at depth 0 the empty one) and a family (the configuration with the
    attribute's value). Each (attribute, depth) numbers its configurations in
    order of first appearance among those rows, after those of every earlier
    (attribute, depth) (attribute first); the other rows, and depths past an
    attribute's parents, have -1. Returns ``(family, parent, sizes)``: two
    int64 arrays of shape ``(m, D, n)`` and the numbers of families and of
    parent configurations of each (attribute, depth), shape ``(2, m, D)``. The
    compiled kernel maps keys through a hash table, this version through
    ``np.unique``.

    Examples
    --------
    >>> codes = np.array([[1, 0, 1, -1], [2, 2, 0, 1]])
    >>> family, parent, sizes = family_cells(codes, [2, 3], [[0, 1], [1, -1]])
    >>> family.tolist()
    [[[0, 1, 0, -1], [2, 3, 4, -1]], [[5, 5, 6, 7], [-1, -1, -1, -1]]]
    >>> parent.tolist()
    [[[0, 0, 0, -1], [1, 1, 2, -1]], [[3, 3, 3, 3], [-1, -1, -1, -1]]]
    >>> sizes.tolist()
    [[[2, 3], [3, 0]], [[1, 2], [1, 0]]]
    """
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    cards = np.ascontiguousarray(cards, dtype=np.int64)
    attributes = np.ascontiguousarray(attributes, dtype=np.int64)
    (m, D), n = attributes.shape, codes.shape[1]
    family = np.full((m, D, n), -1, dtype=np.int64)
    parent = np.full((m, D, n), -1, dtype=np.int64)
    sizes = np.zeros((2, m, D), dtype=np.int64)
    if runtime.COMPILED:
        runtime.kernels.family_cells(codes, cards, attributes, family, parent, sizes)
        return family, parent, sizes
    family_start = parent_start = 0
    for u in range(m):
        x, r = codes[attributes[u, 0]], int(cards[attributes[u, 0]])
        local = np.where(x >= 0, 0, -1)
        sizes[1, u, 0] = int((x >= 0).any())
        for d in range(D):
            if d:
                column = attributes[u, d]
                if column < 0:
                    break
                seen = (local >= 0) & (codes[column] >= 0)
                keys = local[seen] * int(cards[column]) + codes[column, seen]
                local = np.full(n, -1, dtype=np.int64)
                local[seen], sizes[1, u, d] = _first_seen(keys)
            seen = local >= 0
            family[u, d, seen], sizes[0, u, d] = _first_seen(local[seen] * r + x[seen])
            family[u, d, seen] += family_start
            parent[u, d, seen] = local[seen] + parent_start
            family_start += sizes[0, u, d]
            parent_start += sizes[1, u, d]
    return family, parent, sizes


def _first_seen(keys) -> tuple:
    """Each key's position among the distinct keys by first appearance, and their number."""
    distinct, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    position = np.empty(len(distinct), dtype=np.int64)
    position[np.argsort(first)] = np.arange(len(distinct))
    return position[inverse], len(distinct)


def lone_families(family, parent, weights, n_families, n_parents) -> tuple:
    """Drop the families of a single row below depth 0 and renumber the rest, in place.

    ``family`` and ``parent`` as :func:`family_cells` returns them (shape
    ``(m, D, n)``, numbered ``0 .. n_families - 1`` and ``0 .. n_parents - 1``):
    a family at depth ``d >= 1`` that only row ``i`` has, with
    ``weights[i] <= 1``, becomes -1 (leaving the row out leaves it unseen, so
    selective KDB's pass backs off there alike). The families left and the
    parent configurations they have are renumbered from 0 in the order of
    their numbers; the parent configurations no family left has become -1.
    Returns the numbers of families and of parent configurations left.

    Examples
    --------
    >>> family = np.array([[[0, 0, 1], [2, 3, 3]]])  # depth 1: row 0's family is alone
    >>> parent = np.array([[[0, 0, 0], [1, 2, 2]]])
    >>> lone_families(family, parent, np.ones(3), 4, 3)
    (3, 2)
    >>> family.tolist(), parent.tolist()
    ([[[0, 0, 1], [-1, 2, 2]]], [[[0, 0, 0], [-1, 1, 1]]])
    """
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    if runtime.COMPILED:
        return runtime.kernels.lone_families(
            family, parent, weights, int(n_families), int(n_parents)
        )
    # one extra slot: the -1 cells read it, and are left as they are
    rows = np.bincount(family[family >= 0], minlength=int(n_families) + 1)
    deep = family[:, 1:]
    deep[(deep >= 0) & (rows[deep] == 1) & (weights <= 1.0)] = -1
    numbers = []
    for cells, size in ((family, n_families), (parent, n_parents)):
        used = np.zeros(int(size) + 1, dtype=bool)
        used[cells[family >= 0]] = True
        new = np.where(used, np.cumsum(used) - 1, -1)
        np.copyto(cells, new[cells], where=cells >= 0)
        numbers.append(int(used.sum()))
    return tuple(numbers)


def cell_counts(cells, y, weights, n_cells, n_classes) -> np.ndarray:
    """Class-weighted counts of table cells, shape ``(n_cells, n_classes)``.

    ``cells`` has shape ``(..., n)``: entry ``[..., i]`` is a cell of row ``i``
    (-1: none), which gains ``weights[i]`` in class ``y[i]``; the entries are
    added in order (the sums of ``np.bincount`` on the flattened array).

    Examples
    --------
    >>> cell_counts(np.array([[0, 1, -1], [1, 1, 0]]), np.array([0, 1, 1]), np.ones(3), 2, 2)
    array([[1., 1.],
           [1., 2.]])
    """
    cells = np.ascontiguousarray(cells, dtype=np.int64)
    y = np.ascontiguousarray(y, dtype=np.int64)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    C = int(n_classes)
    if runtime.COMPILED:
        counts = np.zeros((int(n_cells), C))
        runtime.kernels.cell_counts(cells.reshape(-1, cells.shape[-1]), y, weights, counts)
        return counts
    seen = cells >= 0
    yv = np.broadcast_to(y, cells.shape)[seen]
    wv = np.broadcast_to(weights, cells.shape)[seen]
    return np.bincount(cells[seen] * C + yv, weights=wv, minlength=int(n_cells) * C).reshape(-1, C)


def loo_layout(cards) -> tuple:
    """Where each depth's rows start in :func:`loo_family_counts`'s two tables, and their sizes.

    ``cards``: the attribute's categories, then its parents', in order. Depth ``d``
    (the first ``d`` parents) has one row per configuration of those parents'
    values (mixed radix, the last parent fastest) in the parent table, and one per
    configuration and attribute value in the family table. Returns
    ``(family_at, parent_at)``, each of length ``len(cards) + 1`` (the last entry:
    the table's size).

    Examples
    --------
    >>> [a.tolist() for a in loo_layout([2, 3, 4])]
    [[0, 2, 8, 32], [0, 1, 4, 16]]
    """
    cards = np.asarray(cards, dtype=np.int64)
    configurations = np.cumprod(np.concatenate([[1], cards[1:]]))
    parent_at = np.concatenate([[0], np.cumsum(configurations)])
    return parent_at * int(cards[0]), parent_at


def loo_depth_counts(family_counts, cards, depth) -> np.ndarray:
    """Depth ``depth`` of :func:`loo_family_counts`'s table, laid out as a family's counts.

    ``cards``: the attribute's categories, then its parents'. Returns ``N(c, x_parents, x)`` over
    the first ``depth`` parents, shape ``(n_classes, *cards[1 : depth + 1], cards[0])`` (a copy):
    :func:`bnclassify.stats.counting.family_counts` of the same rows, to the last bit (both sum
    each cell's rows in row order, or whole numbers).

    Examples
    --------
    >>> codes = np.array([[0, 1, 1, -1], [1, 1, 0, 0]])  # the attribute, one parent
    >>> family = loo_family_counts(codes, [0, 1], [2, 2], np.array([0, 1, 1, 0]), np.ones(4), 2)
    >>> loo_depth_counts(family, [2, 2], 1)[1].tolist()  # class 1: (z, x) = (0, 1) and (1, 1)
    [[0.0, 1.0], [0.0, 1.0]]
    """
    cards = [int(c) for c in cards]
    family_at, _ = loo_layout(cards)
    block = np.asarray(family_counts)[family_at[depth] : family_at[depth + 1]]
    shape = (*cards[1 : depth + 1], cards[0], block.shape[1])
    return np.ascontiguousarray(np.moveaxis(block.reshape(shape), -1, 0))


def loo_family_counts(codes, family, cards, y, weights, n_classes, family_counts=None):
    """One attribute's class-weighted table ``N(c, x_parents, x)`` at every depth of its parents.

    ``codes`` (shape ``(k, n)``): each column's codes, one row per column (-1
    missing); ``family``: the attribute's column, then its parents' in order;
    ``cards`` their categories. At every depth ``d < len(family)``, a row observing
    the attribute and its first ``d`` parents adds its weight to its cell (laid out
    by :func:`loo_layout`, the same for any rows: the tables of parts of the rows
    add up to those of all). ``family_counts``: a table to add to (else a new one).
    :func:`loo_parent_counts` sums it over the attribute's values.

    Examples
    --------
    >>> codes = np.array([[0, 1, 1, -1], [1, 1, 0, 0]])  # the attribute, one parent
    >>> family = loo_family_counts(codes, [0, 1], [2, 2], np.array([0, 1, 1, 0]), np.ones(4), 2)
    >>> family.tolist()  # depth 0: x = 0, 1; depth 1: (z, x) = (0, 0), (0, 1), (1, 0), (1, 1)
    [[1.0, 0.0], [0.0, 2.0], [0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]
    >>> loo_parent_counts(family, [2, 2]).tolist()
    [[1.0, 2.0], [0.0, 1.0], [1.0, 1.0]]
    """
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    family = np.ascontiguousarray(family, dtype=np.int64)
    cards = np.ascontiguousarray(cards, dtype=np.int64)
    y = np.ascontiguousarray(y, dtype=np.int64)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    family_at, _ = loo_layout(cards)
    C = int(n_classes)
    if family_counts is None:
        family_counts = np.zeros((int(family_at[-1]), C))
    if runtime.COMPILED:
        runtime.kernels.loo_family_counts(codes, family, cards, y, weights, family_counts)
        return family_counts
    columns = codes[family]
    x = columns[0]
    valid = x >= 0
    key = np.zeros(len(y), dtype=np.int64)
    for d in range(len(cards)):
        if d:
            valid &= columns[d] >= 0
            key = np.where(valid, key * cards[d] + columns[d], 0)
        cells = (family_at[d] + key * cards[0] + x)[valid] * C + y[valid]
        family_counts += np.bincount(cells, weights[valid], family_counts.size).reshape(-1, C)
    return family_counts


def loo_parent_counts(family_counts, cards, out=None) -> np.ndarray:
    """``N(c, x_parents)`` at every depth: :func:`loo_family_counts`'s table summed over ``x``.

    The values of ``x`` added in order, one array addition each (the sum over that axis numpy
    makes, to the last bit, without its strided reduction); ``out``: where to write it.
    """
    r = int(cards[0])
    block = np.asarray(family_counts).reshape(-1, r, family_counts.shape[1])
    if out is None:
        out = block[:, 0].copy()
    else:
        out[...] = block[:, 0]
    for x in range(1, r):
        out += block[:, x]
    return out


def loo_start(y, weights, class_weight, max_k, criterion, total) -> tuple:
    """The leave-one-out pass's state of rows before any attribute: the class prior.

    Each row's ``P(c)`` without it (the m-estimate of :func:`loo_scores`); its
    loss, times its weight, is added to column 0 of ``total`` (shape
    ``(max_k + 1, m + 1)``) for every ``k``. Returns the state
    :func:`loo_attribute` updates: ``(joint, reached, logs, losses)``, the
    rows' candidates' class scores (shape ``(n, max_k + 1, C)``; probabilities when
    the kernels are compiled, ``logs[i] = 0``, as :func:`loo_rows`'s kernel keeps
    them; logs otherwise), the deepest prefix each row
    has reached, and each candidate's last loss (times the weight).

    Examples
    --------
    >>> total = np.zeros((1, 2))
    >>> _ = loo_start(np.array([0, 0, 1]), np.ones(3), np.array([2.0, 1.0]), 0, "zero_one", total)
    >>> total.tolist()  # the held-out class-1 row is predicted as class 0
    [[1.0, 0.0]]
    """
    y = np.ascontiguousarray(y, dtype=np.int64)
    w = np.ascontiguousarray(weights, dtype=np.float64)
    n, D = len(y), int(max_k) + 1
    prior, rows, loss = _prior_losses(y, w, class_weight, criterion, total)
    joint = np.zeros((n, D, prior.shape[1]))
    joint[:, 0] = prior / rows[:, None]
    logs = np.zeros(n, dtype=np.int8)
    if not runtime.COMPILED:  # logs summed as the general pass sums them (the same ties)
        joint[:, 0] = np.log(prior) - np.log(rows)[:, None]
        logs[:] = 1
    losses = np.zeros((n, D))
    losses[:, 0] = loss * w
    return joint, np.zeros(n, dtype=np.int64), logs, losses


def _prior_losses(y, w, class_weight, criterion, total) -> tuple:
    """``(prior, rows, loss)``: each row's class weights without it (shape ``(n, C)``, the
    m-estimate's numerators), their denominator, and its loss (times its weight, added to column 0
    of ``total``)."""
    cw = np.asarray(class_weight, dtype=float)
    n, C = len(y), len(cw)
    held = np.minimum(w, 1.0)
    if n > C and bool((held == 1.0).all()):  # one row per class, the same numbers, gathered
        prior = cw - np.eye(C) + 1.0 / C
        with np.errstate(invalid="ignore", divide="ignore"):  # the rows of absent classes
            loss = _probability_loss(prior, np.arange(C), criterion)
        prior, loss = prior[y], loss[y]
    else:
        own = np.zeros((n, C))
        own[np.arange(n), y] = held
        prior = cw - own + 1.0 / C  # in this order: classes that tie in the counts tie here
        loss = _probability_loss(prior, y, criterion)
    total[:, 0] += loss @ w
    return prior, cw.sum() - held + 1.0, loss


def _scaled_prior(y, w, class_weight, criterion, total) -> tuple:
    """``(prior, loss)``: :func:`_prior_losses`' with each row's class weights divided by their
    denominator (shape ``(n, C)``, C-contiguous), as :func:`loo_rows`' kernel reads them.

    Where every row has weight at least 1 (one row per class, the same numbers) the divided
    rows are gathered from a table of one row per class: the same divisions, not one per row.
    """
    cw = np.asarray(class_weight, dtype=float)
    n, C = len(y), len(cw)
    if n > C and bool((w >= 1.0).all()):
        prior = cw - np.eye(C) + 1.0 / C
        with np.errstate(invalid="ignore", divide="ignore"):  # the rows of absent classes
            loss = _probability_loss(prior, np.arange(C), criterion)[y]
        total[:, 0] += loss @ w
        return (prior / (cw.sum() - 1.0 + 1.0))[y], loss
    prior, rows, loss = _prior_losses(y, w, class_weight, criterion, total)
    return np.ascontiguousarray(prior / rows[:, None]), loss


def _probability_loss(p, y, criterion):
    """Each row's loss from its (unnormalised, positive) class scores."""
    total = p.sum(axis=1)
    mine = p[np.arange(len(y)), y]
    if criterion == "rmse":
        return ((total - mine) / total) ** 2
    if criterion == "zero_one":
        return (p.argmax(axis=1) != y).astype(float)
    return np.log(total) - np.log(mine)


def loo_attribute(
    codes, family, cards, first, y, weights, family_counts, parent_counts, inverse_r, criterion,
    state, total, column,
) -> None:  # fmt: skip
    """One attribute's step of selective KDB's leave-one-out pass, for every candidate at once.

    ``codes``, ``family``, ``cards``: the columns' codes, the attribute's column and
    its ranked parents' (at most ``max_k``), and their categories, as
    :func:`loo_family_counts` takes them; the rows scored are ``codes[:, first:
    first + len(y)]``, of classes ``y`` and weights ``weights``;
    ``family_counts``, ``parent_counts``: its tables over all the training rows
    (these rows among them); ``state``: :func:`loo_start`'s, updated in place. Each
    row leaves ``min(w, 1)`` of its weight out of every cell; the candidate with
    ``k`` parents adds the term of the deepest prefix of at most ``k`` parents
    whose family some other row has (:func:`loo_scores` gives the estimates); a row
    missing the attribute adds nothing. Column ``column`` of ``total`` gains every
    candidate's weighted losses, the rows in order.

    numpy only, in logs: the reference of :func:`loo_rows`, whose compiled kernel takes
    every attribute per chunk of rows (a row ``state`` keeps as probabilities,
    ``logs[i] = 0``, is moved to logs first).

    Examples
    --------
    >>> codes, y, w = np.array([[0, 1, 0]]), np.array([0, 1, 0]), np.ones(3)
    >>> family = loo_family_counts(codes, [0], [2], y, w, 2)
    >>> total = np.zeros((1, 2))
    >>> state = loo_start(y, w, np.array([2.0, 1.0]), 0, "zero_one", total)
    >>> parent = loo_parent_counts(family, [2])
    >>> loo_attribute(codes, [0], [2], 0, y, w, family, parent, 0.5, "zero_one", state, total, 1)
    >>> total.tolist()  # as loo_scores's example: the class-1 row is still missed
    [[1.0, 1.0]]
    """
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    family = np.ascontiguousarray(family, dtype=np.int64)
    cards = np.ascontiguousarray(cards, dtype=np.int64)
    y = np.ascontiguousarray(y, dtype=np.int64)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    joint, reached, logs, losses = state
    columns = codes[family, int(first) : int(first) + len(y)]
    n, D, C = joint.shape
    rows = np.arange(n)
    for i in np.flatnonzero(logs == 0):  # rows kept as probabilities (loo_start, compiled)
        joint[i, : reached[i] + 1] = np.log(joint[i, : reached[i] + 1])
    logs[:] = 1
    family_at, parent_at = loo_layout(cards)
    x = columns[0]
    observed = x >= 0
    held = np.minimum(weights, 1.0)
    own = np.zeros((n, C))
    own[rows, y] = held
    terms = np.zeros((len(cards), n, C))
    reach = np.zeros(n, dtype=np.int64)
    seen = observed.copy()
    key = np.zeros(n, dtype=np.int64)
    for d in range(len(cards)):
        if d:
            seen &= columns[d] >= 0
            key = np.where(seen, key * cards[d] + columns[d], 0)
        if not seen.any():
            break
        counts = family_counts[np.where(seen, family_at[d] + key * cards[0] + x, 0)]
        mine = own * seen[:, None]
        numerator = counts - mine + inverse_r
        denominator = parent_counts[np.where(seen, parent_at[d] + key, 0)] - mine + 1.0
        terms[d] = np.where(seen[:, None], np.log(numerator) - np.log(denominator), 0.0)
        if d:
            others = counts.sum(axis=1) - held
            seen &= others > LOO_SEEN * (1.0 + others)
            reach[seen] = d
    hi = np.where(observed, np.maximum(reached, reach), reached)
    for k in range(1, D):  # candidates past a row's last reached prefix start as that prefix's
        fresh = (reached < k) & (k <= hi)
        joint[fresh, k] = joint[fresh, reached[fresh]]
    for k in range(D):
        update = observed & (k <= hi)
        joint[update, k] += terms[np.minimum(k, reach[update]), rows[update]]
        losses[update, k] = _log_loss_of(joint[update, k], y[update], criterion) * weights[update]
    reached[:] = hi
    for k in range(D):
        total[k, column] += losses[rows, np.minimum(k, hi)].sum()


def _log_loss_of(joint, y, criterion):
    """Each row's loss from its log class scores (shape ``(n, C)``)."""
    if criterion == "zero_one":
        return (joint.argmax(axis=1) != y).astype(float)
    top = joint.max(axis=1, keepdims=True)
    log_true = joint[np.arange(len(y)), y] - (top[:, 0] + np.log(np.exp(joint - top).sum(axis=1)))
    return (1.0 - np.exp(log_true)) ** 2 if criterion == "rmse" else -log_true


def dense_families(families, cards, n_classes, rows=None) -> bool:
    """Whether the pass over dense tables (:func:`loo_pass`) serves these families.

    Every family's tables must fit :data:`DENSE_FAMILY_CELLS`; given the number of
    ``rows`` the general pass would read, all the tables together must also stay
    within :data:`DENSE_CELLS_PER_LOOKUP` cells per look-up of that pass (rows times
    families times depths), or they cost more than the look-ups they replace.

    Examples
    --------
    >>> dense_families([[0, 1]], [3, 4], 2)
    True
    >>> dense_families([[0, 1]], [3, 1594], 2, rows=100)  # a parent of many values
    False
    """
    cards = np.asarray(cards, dtype=np.int64)
    cells = [
        int(loo_layout(np.maximum(cards[family], 1))[0][-1]) * int(n_classes) for family in families
    ]
    if any(c > DENSE_FAMILY_CELLS for c in cells):
        return False
    if rows is None or not families:
        return True
    lookups = int(rows) * sum(len(family) for family in families)
    return sum(cells) <= DENSE_CELLS_PER_LOOKUP * lookups


def column_codes(codes) -> np.ndarray:
    """Codes of shape ``(n, k)`` as the pass reads them: one row per column, C-contiguous.

    A column-major table of signed integers (what the encoders give) is read as it is, through
    its transpose; other integer types are cast to int64.

    Examples
    --------
    >>> codes = np.asfortranarray(np.array([[0, 1], [2, -1]], dtype=np.int8))
    >>> column_codes(codes).tolist(), np.shares_memory(column_codes(codes), codes)
    ([[0, 2], [1, -1]], True)
    """
    by_column = np.asarray(codes).T
    if by_column.dtype not in (np.int8, np.int16, np.int32, np.int64):
        return np.ascontiguousarray(by_column, dtype=np.int64)
    return np.ascontiguousarray(by_column)


def _chunk_rows(families, max_k, n_classes) -> int:
    """Rows per chunk of :func:`loo_rows`: their codes and scores in :data:`LOO_CHUNK_BYTES`."""
    columns = len({int(c) for family in families for c in family})
    D = int(max_k) + 1
    return max(16, LOO_CHUNK_BYTES // (8 * (D * (int(n_classes) + 1) + columns + 2)))


def _padded(families, depths) -> np.ndarray:
    """Each family as a row of ``depths`` columns, -1 after its last."""
    padded = np.full((len(families), max(int(depths), 1)), -1, dtype=np.int64)
    for u, family in enumerate(families):
        padded[u, : len(family)] = family
    return padded


def _offsets(sizes) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64)


def loo_tables(codes, families, cards, y, weights, n_classes, order=None) -> list:
    """Every attribute's :func:`loo_family_counts` table, counted in one pass over the rows.

    ``codes`` (shape ``(k, n)``, one row per column, as :func:`column_codes` gives them),
    ``families`` (each attribute's column, then its parents'), ``cards`` (every column's
    categories): the tables of :func:`loo_family_counts` for each family, to the last bit (each
    cell gains its rows in row order). The compiled kernel takes the rows in chunks, every family
    per chunk, and reads 1-, 2-, 4- or 8-byte codes as they are (with whole weights summing below
    2**53, every sum exact in any order, a row adds its weight at its deepest depth only and each
    depth is then summed into the one above: one scattered addition per row and family, not one
    per depth); this version counts one family at a time. The tables are views of one array.
    ``order``: :func:`loo_order`'s of all the rows (whole weights): the compiled kernel adds each
    prefix's summed weight to its cells instead, the same sums (of whole numbers).

    Examples
    --------
    >>> codes = np.array([[0, 1, 1, -1], [1, 1, 0, 0]], dtype=np.int8)
    >>> tables = loo_tables(codes, [[0, 1], [1]], [2, 2], np.array([0, 1, 1, 0]), np.ones(4), 2)
    >>> [t.shape for t in tables]
    [(6, 2), (2, 2)]
    >>> one = loo_family_counts(codes, [0, 1], [2, 2], np.array([0, 1, 1, 0]), np.ones(4), 2)
    >>> np.array_equal(tables[0], one)
    True
    """
    cards = np.maximum(np.asarray(cards, dtype=np.int64), 1)
    sizes = [int(loo_layout(cards[list(family)])[0][-1]) for family in families]
    offsets = _offsets(sizes)
    C = int(n_classes)
    stacked = np.zeros((int(offsets[-1]), C))
    y = np.ascontiguousarray(y, dtype=np.int64)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    if runtime.COMPILED and families:
        codes = np.asarray(codes)
        if codes.dtype not in (np.int8, np.int16, np.int32, np.int64):
            codes = codes.astype(np.int64)
        runtime.kernels.loo_tables(
            np.ascontiguousarray(codes), _padded(families, max(map(len, families))), cards, y,
            weights, offsets, stacked, _chunk_rows(families, 0, C), *(order or (None, None, None)),
        )  # fmt: skip
    else:
        codes = np.ascontiguousarray(codes, dtype=np.int64)
        for u, family in enumerate(families):
            table = stacked[offsets[u] : offsets[u + 1]]
            loo_family_counts(codes, family, cards[list(family)], y, weights, C, table)
    return [stacked[offsets[u] : offsets[u + 1]] for u in range(len(families))]


def loo_order(codes, families, cards, first, y, limit=None):
    """The rows sorted by their prefixes, ``(perm, level, rows)``: the order of SKDB's pass.

    A row's candidates after attribute ``u`` of :func:`loo_rows` depend on its class and on the
    codes of the columns of ``families[0..u]`` only. The rows ``first .. first + len(y) - 1`` of
    ``codes`` (shape ``(k, N)``, one row per column) are sorted by their class ``y``, then by the
    families' columns in order of first appearance (-1, missing, first), ties in row order:
    ``perm[s]`` is the row (from ``first``) at place ``s``. ``level[s]`` is the first level at
    which row ``perm[s]`` differs from row ``perm[s - 1]``: 0 its class, ``u + 1`` a column that
    family ``u`` reads first, ``len(families) + 1`` none (``level[0] = 0``). Rows from place
    ``s`` on whose levels all exceed ``L`` share the prefix of level ``L`` of row ``perm[s]``.
    ``rows[s]``: the codes of row ``perm[s]`` in those columns (in that order; the codes' integer
    type), which the passes given the order read one row after the other. The compiled kernel
    sorts most significant column first, within the groups still tied; this version by
    ``np.lexsort``. ``cards``: every column's categories (a code must be below its). ``limit``:
    ``None`` is returned when the distinct prefixes, summed over the levels ``0 ..
    len(families)``, exceed it (the kernel stops sorting once they must).

    Examples
    --------
    >>> codes = np.array([[1, 0, 1, 0], [0, 1, 1, 0]])  # two columns, four rows
    >>> perm, level, rows = loo_order(codes, [[0], [1, 0]], [2, 2], 0, np.array([0, 0, 0, 1]))
    >>> perm.tolist(), level.tolist()  # rows 1 and 0 differ in column 0, 0 and 2 in column 1
    ([1, 0, 2, 3], [0, 1, 2, 0])
    >>> rows.tolist()
    [[0, 1], [1, 0], [1, 1], [0, 0]]
    """
    y = np.ascontiguousarray(y, dtype=np.int64)
    n = len(y)
    cards = np.maximum(np.asarray(cards, dtype=np.int64), 1)
    perm, level = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    m = len(families)
    limit = n * (m + 1) if limit is None else int(limit)
    codes = np.asarray(codes)
    if codes.dtype not in (np.int8, np.int16, np.int32, np.int64):
        codes = codes.astype(np.int64)
    columns, levels = [], [0]
    for u, family in enumerate(families):
        for column in family:
            if int(column) not in columns:
                columns.append(int(column))
                levels.append(u + 1)
    if runtime.COMPILED and families:
        depths = max(map(len, families))
        rows = np.empty((n, len(columns)), dtype=codes.dtype)
        within = runtime.kernels.loo_order(
            np.ascontiguousarray(codes), _padded(families, depths), cards, int(first), y, perm,
            level, rows, limit,
        )  # fmt: skip
        return (perm, level, rows) if within else None
    rows = slice(int(first), int(first) + n)
    keys = np.array([y] + [np.maximum(codes[j, rows], -1).astype(np.int64) for j in columns])
    if (keys[1:] >= cards[columns][:, None]).any():
        raise ValueError("loo_order: a code is not below its column's categories")
    perm = np.lexsort(keys[::-1])
    ordered = keys[:, perm]
    differs = ordered[:, 1:] != ordered[:, :-1]
    first_diff = np.where(differs.any(axis=0), differs.argmax(axis=0), len(levels))
    level[1:] = np.append(levels, m + 1)[first_diff]
    prefixes = (m + 1) * int(n > 0) + int((m + 1 - level[1:]).sum())  # level m + 1 adds none
    if prefixes > limit:
        return None
    ordered_rows = np.ascontiguousarray(codes[columns][:, int(first) + perm].T)
    return perm.astype(np.int64), level, ordered_rows


def prefix_order(codes, families, cards, first, y, weights):
    """:func:`loo_order`'s order of the rows when the compiled pass should take it, else ``None``.

    Taken when the kernels are compiled, every weight is at least 1 and the rows' prefixes,
    summed over the levels, are at most :data:`LOO_PREFIX_SHARE` of ``rows x (attributes + 1)``:
    first the first :data:`LOO_PREFIX_SAMPLE` rows are sorted, against twice that share (a sample
    shares fewer prefixes than the whole; where it has many, sorting all the rows would cost a
    tenth of the chunked pass for nothing).

    Examples
    --------
    >>> codes = np.zeros((2, 100), dtype=np.int8)  # every row alike: 3 prefixes in all
    >>> order = prefix_order(codes, [[0], [1, 0]], [1, 1], 0, np.zeros(100), np.ones(100))
    >>> order is None or order[1].tolist() == [0] + [3] * 99
    True
    """
    w = np.asarray(weights, dtype=float)
    if not (runtime.COMPILED and LOO_PREFIX_SHARE > 0 and families and len(y)):
        return None
    if not bool((w >= 1.0).all()):
        return None
    levels = len(families) + 1
    few = min(len(y), LOO_PREFIX_SAMPLE)
    if few < len(y):
        limit = int(2 * LOO_PREFIX_SHARE * few * levels)
        if loo_order(codes, families, cards, first, np.asarray(y)[:few], limit) is None:
            return None
    return loo_order(codes, families, cards, first, y, int(LOO_PREFIX_SHARE * len(y) * levels))


def _one_block(tables, n_classes):
    """The array of which ``tables`` are consecutive views, in order (as :func:`loo_tables`
    gives them), or ``None``: read in place instead of concatenated."""
    base = tables[0].base if tables else None
    if not (
        isinstance(base, np.ndarray) and base.ndim == 2 and base.dtype == np.float64
        and base.shape[1] == n_classes and base.flags.c_contiguous
    ):  # fmt: skip
        return None
    at = base.__array_interface__["data"][0]
    for table in tables:
        if table.base is not base or table.__array_interface__["data"][0] != at:
            return None
        at += table.nbytes
    return base if at == base.__array_interface__["data"][0] + base.nbytes else None


def stacked_tables(counts, families, cards, n_classes) -> tuple:
    """``(counts, offsets, parents, parent_offsets)``: every family's table and its
    :func:`loo_parent_counts` one after the other, as :func:`loo_rows`'s kernel reads them.

    Computed once for all the blocks of rows of a pass; ``counts`` as :func:`loo_tables` gives
    them (views of one array) are read in place. Each parent table is ``loo_parent_counts``'s,
    written in place (by the compiled kernel ``loo_parents``, which adds the same numbers in the
    same order).
    """
    C = int(n_classes)
    cards = np.maximum(np.asarray(cards, dtype=np.int64), 1)
    offsets = _offsets([len(t) for t in counts])
    stacked = _one_block(counts, C)
    if stacked is None:
        stacked = np.concatenate(counts) if counts else np.zeros((0, C))
    stacked = np.ascontiguousarray(stacked, dtype=np.float64)
    r = [int(cards[family[0]]) for family in families]
    parent_offsets = _offsets([len(t) // r[u] for u, t in enumerate(counts)])
    parents = np.empty((int(parent_offsets[-1]), C))
    if runtime.COMPILED and families:  # the same sums, in the same order (loo_parent_counts')
        runtime.kernels.loo_parents(
            stacked, offsets, np.array(r, dtype=np.int64), parents, parent_offsets
        )
        return stacked, offsets, parents, parent_offsets
    for u, family in enumerate(families):
        table = stacked[offsets[u] : offsets[u + 1]]
        loo_parent_counts(
            table, cards[list(family)], parents[parent_offsets[u] : parent_offsets[u + 1]]
        )
    return stacked, offsets, parents, parent_offsets


def loo_rows(
    codes, families, cards, first, y, weights, class_weight, counts, max_k, criterion, total,
    order=None, stacked=None,
) -> int:  # fmt: skip
    """Selective KDB's leave-one-out pass over rows, every attribute's losses added to ``total``.

    The rows ``first .. first + len(y) - 1`` of ``codes`` (shape ``(k, N)``, as
    :func:`column_codes` gives them; ``y``, ``weights``: theirs) start from the class prior
    (:func:`loo_start`, column 0 of ``total``) and take every attribute's terms in order
    (:func:`loo_attribute`, column ``u + 1``), read from ``counts``, each family's
    :func:`loo_family_counts` table over all the training rows (``class_weight``: their class
    weights). The compiled kernel takes the rows in chunks of :data:`LOO_CHUNK_BYTES`, every
    attribute of a group (:data:`LOO_GROUP_BYTES`) per chunk (a chunk's scores stay in cache),
    every group per block of rows (:data:`LOO_BLOCK_BYTES`), and keeps the scores as probabilities,
    moving a row to logs when one falls below 1e-200 (where the CPU has AVX-512, SKDB's default
    steps take a class's six candidates as one vector, :data:`LOO_VECTOR_STEP`: the same numbers
    to the last bit); this version takes one attribute at a time
    over all the rows, in logs. Each total gains its rows in row order: the compiled sums are
    those of the compiled steps one attribute at a time to the last bit, and the numpy version's to
    rounding. ``order``: :func:`loo_order`'s of these rows (every weight at least 1: each row
    leaves one copy of itself out, so rows of one prefix have the same terms; see
    :func:`prefix_order`): the compiled kernel takes the rows in that order instead, computes each
    distinct prefix's terms once (from a stack of one prefix per attribute) and adds its losses
    times its rows' summed weight: the same losses, summed in another order (to rounding; the
    numpy version ignores it). ``stacked``: :func:`stacked_tables` of ``counts`` (else computed
    here; a pass over several blocks of rows computes it once). Returns the number of rows moved
    to logs (the numpy version: all of them).

    Examples
    --------
    >>> codes, y, w = np.array([[0, 1, 0]]), np.array([0, 1, 0]), np.ones(3)
    >>> counts = loo_tables(codes, [[0]], [2], y, w, 2)
    >>> total = np.zeros((1, 2))
    >>> _ = loo_rows(codes, [[0]], [2], 0, y, w, [2.0, 1.0], counts, 0, "zero_one", total)
    >>> total.tolist()  # as loo_attribute's example
    [[1.0, 1.0]]
    """
    y = np.ascontiguousarray(y, dtype=np.int64)
    w = np.ascontiguousarray(weights, dtype=np.float64)
    cards = np.maximum(np.asarray(cards, dtype=np.int64), 1)
    inverse_r = np.array([1.0 / int(cards[family[0]]) for family in families])
    C, D = len(class_weight), int(max_k) + 1
    if not runtime.COMPILED:
        codes = np.ascontiguousarray(codes, dtype=np.int64)
        state = loo_start(y, w, class_weight, max_k, criterion, total)
        for u, family in enumerate(families):
            family_cards = cards[list(family)]
            loo_attribute(
                codes, family, family_cards, first, y, w, counts[u],
                loo_parent_counts(counts[u], family_cards), inverse_r[u], criterion, state,
                total, u + 1,
            )  # fmt: skip
        return len(y)
    codes = np.asarray(codes)
    if codes.dtype not in (np.int8, np.int16, np.int32, np.int64):
        codes = codes.astype(np.int64)
    prior, loss = _scaled_prior(y, w, class_weight, criterion, total)
    if stacked is None:
        stacked = stacked_tables(counts, families, cards, C)
    return runtime.kernels.loo_rows(
        np.ascontiguousarray(codes), _padded(families, D), cards, int(first), y, w, *stacked,
        inverse_r, prior, loss, total,
        LOO_CRITERIA.index(criterion), _chunk_rows(families, max_k, C), LOO_GROUP_BYTES // 8,
        *(order or (None, None, None)), LOO_VECTOR_STEP, LOO_RECORD_CELLS,
        max(1, LOO_BLOCK_BYTES // (8 * (D * (C + 1) + 2))),
    )  # fmt: skip


def loo_pass(
    codes, y, weights, cards, class_weight, families, max_k, criterion, counts=None,
    return_counts=False,
):  # fmt: skip
    """Weighted sums over rows of every candidate's leave-one-out loss, ``(max_k + 1, m + 1)``.

    The sums (before the mean) of
    :func:`bnclassify.classifiers._selective.loo_losses`:
    the rows' candidates start from the class prior (:func:`loo_start`) and take
    each attribute's terms in order
    (:func:`loo_attribute`), from its dense tables at every depth
    (:func:`loo_family_counts`), by :func:`loo_rows` (compiled: in chunks of rows, every
    attribute per chunk). ``families``: each attribute's
    column, then its ranked parents'. ``class_weight`` and
    ``counts`` (each attribute's family table) are those of
    all the training rows, of which ``codes`` may be a part (a partition of a dask
    table): the sums of the parts' totals are the whole's. ``counts=None``: counted
    from these rows (:func:`loo_tables`; nothing of size rows x attributes is
    kept). Rows go in blocks of :data:`STATE_DOUBLES`, or, where :func:`prefix_order`
    takes the rows' order (few distinct prefixes, weights at least 1), all at once in
    that order, each prefix's terms (and, for whole weights, its table counts) once.
    ``return_counts``: return ``(sums, counts)``, the tables read (the families' counts at every
    depth, which a final fit of these rows may read instead of counting them again).
    """
    y = np.asarray(y, dtype=np.int64)
    w = np.asarray(weights, dtype=float)
    n, C, D, m = len(y), len(class_weight), int(max_k) + 1, len(families)
    cards = np.maximum(np.asarray(cards, dtype=np.int64), 1)
    total = np.zeros((D, m + 1))
    by_column = column_codes(codes)
    if not runtime.COMPILED:
        by_column = by_column.astype(np.int64, copy=False)
    order = prefix_order(by_column, families, cards, 0, y, w)
    if counts is None:
        whole = order is not None and bool((w == np.round(w)).all())
        counts = loo_tables(by_column, families, cards, y, w, C, order if whole else None)
    if order is not None:  # no state per row: all the rows at once
        loo_rows(
            by_column, families, cards, 0, y, w, class_weight, counts, max_k, criterion, total,
            order,
        )  # fmt: skip
        return (total, counts) if return_counts else total
    size = max(1, STATE_DOUBLES // (D * (C + 1)))
    stacked = stacked_tables(counts, families, cards, C) if runtime.COMPILED else None
    for start in range(0, max(n, 1), size):
        rows = slice(start, min(start + size, n))
        loo_rows(
            by_column, families, cards, start, y[rows], w[rows], class_weight, counts, max_k,
            criterion, total, stacked=stacked,
        )  # fmt: skip
    return (total, counts) if return_counts else total
