"""Selective KDB's one extra pass: leave-one-out losses of every (k, number of attributes).

Martinez, Webb, Chen and Zaidi (2016, "Scalable learning of Bayesian network
classifiers", JMLR 17(44)) choose a sub-model of a KDB with ``K`` parents: the
first ``n`` attributes of its order, each with its ``k <= K`` strongest parents.
Every candidate is scored by leave-one-out cross-validation on the training
rows without refitting: a row is predicted from the counts of all rows minus
its own, in every cell it touches, and one pass over the rows scores all
``(K + 1) (m + 1)`` candidates at once, since the attributes' terms add up in
order and the ``k``-parent terms of one attribute share their counts.
"""

from __future__ import annotations

import numpy as np

from .._native import (
    cell_counts,
    dense_families,
    family_cells,
    lone_families,
    loo_pass,
    loo_scores,
)

#: The losses a selective KDB may minimise (``"rmse"`` is the paper's).
CRITERIA = ("rmse", "zero_one", "log_loss")
#: Cells per block of rows of the pass (two int64 indices per row, attribute and depth: 64 MB;
#: the scoring itself keeps ``(2K + 3) C`` floats at a time, or blocks in numpy). A table that
#: fits in one block keeps the indices its counting found; others look them up per block.
BLOCK_INDICES = 1 << 22
#: Relative difference of two candidates' losses under which they tie (the rounding of sums
#: over many rows in different orders stays far below it).
TIE = 1e-10
#: Key ranges up to this size plus four per key are compressed through a dense table rather
#: than by sorting.
DENSE_KEYS = 1 << 10


def family_depths(parents, child_cards, parent_cards, n_classes, max_cells) -> list:
    """How many of each attribute's ranked parents its table may take.

    The deepest prefix of ``parents[u]`` whose dense table ``N(c, x_parents, x_u)``
    has at most ``max_cells`` cells.

    Examples
    --------
    >>> family_depths([[1, 2], []], [4, 3], [3, 3, 100], 2, 500)
    [1, 0]
    """
    depths = []
    for u, ranked in enumerate(parents):
        cells, depth = n_classes * child_cards[u], 0
        for p in ranked:
            cells *= parent_cards[p]
            if cells > max_cells:
                break
            depth += 1
        depths.append(depth)
    return depths


def loo_losses(
    codes, y, cards, n_classes, order, parents, max_k, criterion="rmse", weights=None, passes=None,
    tables=None,
):  # fmt: skip
    """Leave-one-out loss of every selective KDB, shape ``(max_k + 1, len(order) + 1)``.

    Entry ``[k, n]`` scores the classifier over the first ``n`` attributes of
    ``order`` in which attribute ``order[u]`` has the first ``min(k, len(parents[u]))``
    of its ranked parents ``parents[u]`` (column 0: the class prior alone). Each
    training row is predicted from the counts of the other rows, with the
    paper's estimates (those of its authors' code):

    - ``P(c) = (N_c + 1/C) / (N + 1)`` and
      ``P(x | c, x_pa) = (N(c, x_pa, x) + 1/r) / (N(c, x_pa) + 1)``, m-estimates
      with m = 1, every count without the held-out row (a row of weight ``w``
      counts as ``w`` copies, one of which is held out: ``min(w, 1)`` of its
      weight leaves every cell it touches, and its loss counts ``w`` times);
    - an attribute whose value was never seen with the row's first ``d`` parent
      values in the other rows (any class) backs off to its first ``d - 1``
      parents, so a ``k``-parent term is the deepest seen prefix of at most
      ``k`` parents; a missing parent value ends the prefix, and a missing value
      of the attribute itself adds no term (it is summed out).

    The loss of a row is ``(1 - P(y | x))^2`` for ``"rmse"`` (the root of the
    weighted mean is returned), ``[argmax_c P(c | x) != y]`` for ``"zero_one"``
    and ``-log P(y | x)`` for ``"log_loss"`` (weighted means). Rows are
    processed in blocks of :data:`BLOCK_INDICES` table look-ups, then scored by
    :func:`bnclassify._native.loo_scores` (compiled: chunks of rows); the
    count tables are those of the observed parent configurations (at most one
    per row).

    Parameters
    ----------
    codes : ndarray of shape (n_rows, n_columns)
        Category codes, -1 for missing.
    y : ndarray of shape (n_rows,)
        Class codes.
    cards : sequence of int
        Categories of each column.
    n_classes : int
    order : sequence of int
        The attributes' columns, in order.
    parents : sequence of sequence of int
        Each attribute's parent columns, strongest first (earlier attributes).
    max_k : int
    criterion : {"rmse", "zero_one", "log_loss"}
    weights : ndarray of shape (n_rows,), optional
        Row weights, counted as frequencies.
    passes : object, optional
        Rows kept elsewhere (``codes`` and ``y`` are then ``None``): its method
        ``leave_one_out(families, max_k, criterion)`` returns :func:`bnclassify._native.loo_pass`'s
        sums over all the rows and their total weight (a dask table's partitions:
        :class:`bnclassify.distributed.PartitionPasses`).
    tables : dict, optional
        Filled, where the pass counts dense tables from ``codes``, with each scored attribute's
        :func:`bnclassify._native.loo_family_counts` table: ``tables[(child, *parents[u][:max_k])]``
        (:func:`bnclassify._native.loo_depth_counts` reads a depth out of it).

    Returns
    -------
    ndarray of shape (max_k + 1, len(order) + 1)

    Examples
    --------
    >>> codes = np.array([[0, 0], [0, 1], [1, 1], [1, 0], [0, 0], [1, 1]])
    >>> y = np.array([0, 0, 1, 1, 0, 1])
    >>> loo_losses(codes, y, [2, 2], 2, [0, 1], [[], [0]], 1).round(3)
    array([[0.583, 0.174, 0.278],
           [0.583, 0.174, 0.291]])
    """
    codes = None if codes is None else np.asarray(codes)
    # an attribute with one state adds log(N + 1) - log(N + 1) = 0 to every row's score, so its
    # candidates' losses are those of the attributes before it, exactly: it is not scored
    scored = [u for u, child in enumerate(order) if int(cards[child]) > 1]
    if len(scored) < len(order):
        losses = loo_losses(
            codes, y, cards, n_classes, [order[u] for u in scored], [parents[u] for u in scored],
            max_k, criterion, weights, passes, tables,
        )  # fmt: skip
        before = np.cumsum(np.isin(np.arange(len(order)), scored))  # scored among the first u + 1
        return losses[:, np.concatenate([[0], before])]
    families = loo_families(order, parents, max_k)
    if passes is not None:
        total, weight = passes.leave_one_out(families, max_k, criterion)
        mean = total / weight
        return np.sqrt(mean) if criterion == "rmse" else mean
    y = np.asarray(y, dtype=np.intp)
    n, C, D = len(y), int(n_classes), int(max_k) + 1
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    m = len(order)
    if dense_families(families, cards, C, rows=n):
        class_weight = np.bincount(y, weights=w, minlength=C)
        total, counts = loo_pass(
            codes, y, w, cards, class_weight, families, max_k, criterion, return_counts=True
        )
        if tables is not None:
            tables.update(
                (tuple(family), table) for family, table in zip(families, counts, strict=True)
            )
        mean = total / w.sum()
        return np.sqrt(mean) if criterion == "rmse" else mean
    whole = n * D * m <= BLOCK_INDICES  # one block: the rows' cells as the counting finds them
    class_weight = np.bincount(y, weights=w, minlength=C)
    # a column with no observed value has no state (card 0); its cells never reach 1/r
    inverse_r = 1.0 / np.array([max(int(cards[child]), 1) for child in order], dtype=float)
    total = np.zeros((D, m + 1))
    if whole:
        blocks = [(slice(0, n), *_row_cells(codes, y, w, cards, C, order, parents, D))]
    else:
        tables = [
            _attribute_tables(codes, y, w, cards, C, order[u], parents[u][:max_k]) for u in range(m)
        ]
        family_counts, parent_counts, offsets = _stacked(tables, C)
        size = max(1, BLOCK_INDICES // (D * max(m, 1)))
        blocks = (
            (
                rows,
                *_block_cells(codes[rows], cards, order, parents, tables, offsets, D),
                family_counts,
                parent_counts,
            )
            for rows in (slice(i, min(i + size, n)) for i in range(0, n, size))
        )
    for rows, family, parent, family_counts, parent_counts in blocks:
        loo_scores(
            family, parent, family_counts, parent_counts, y[rows], w[rows], class_weight,
            inverse_r, criterion, total,
        )  # fmt: skip
    mean = total / w.sum()
    return np.sqrt(mean) if criterion == "rmse" else mean


def loo_families(order, parents, max_k) -> list:
    """Each attribute's column, then its first ``max_k`` ranked parents' columns."""
    return [[int(child), *(int(p) for p in parents[u][:max_k])] for u, child in enumerate(order)]


def loo_class_information(stats, features=None) -> np.ndarray:
    """Leave-one-out information of each attribute about the class, in nats.

    The mean over the training rows of ``log P(y | x_j) - log P(y)``, each row
    predicted from the counts of the other rows with the estimates of
    :func:`loo_losses` (its m-estimates; a row missing ``x_j`` adds 0): the gain
    in leave-one-out log loss of the one-attribute classifier over the class
    prior, i.e. ``loo_losses(..., criterion="log_loss")[0, 0] - [0, 1]`` for
    that attribute alone. It is what the plug-in I(X_j; C) estimates (the
    same gain, each row predicted from counts that include it) without its
    bias towards many values: a column whose values recur in a few rows each
    (an identifier, a code of thousands of values) has a plug-in information
    near H(C) but a leave-one-out one below 0, since a held-out row's value,
    seen in one or two other rows, votes strongly for their classes.

    ``stats``: training statistics with their rows (``codes``, ``y``,
    ``weights``, ``cards``, ``family``, ``classes``); ``features``: only those
    positions are computed (the others are 0). A row of weight ``w`` counts
    as ``w`` copies, one of which is held out, as in :func:`loo_losses`.

    Examples
    --------
    Column ``b`` repeats five of its values once in each class: its plug-in
    information is the larger, but a held-out row of one of them is predicted
    into the other class.

    >>> import pandas as pd
    >>> from bnclassify.stats import training_statistics
    >>> from bnclassify.weights import class_information
    >>> X = pd.DataFrame({"a": list("aaaabbbbbbaa"), "b": list("uvwxyzuvwxst")})
    >>> schema, _, stats = training_statistics(X, [0] * 6 + [1] * 6, "categorical")
    >>> class_information(stats, schema).round(3), loo_class_information(stats).round(3)
    (array([0.057, 0.231]), array([-0.048, -0.996]))
    """
    C = int(stats.n_classes)
    features = range(len(stats.cards)) if features is None else features
    class_weight = np.asarray(stats.classes, dtype=float)
    total = class_weight.sum()
    w = stats.weights
    whole_copies = w is None or bool((w >= 1).all())  # every row leaves one copy: cells suffice
    out = np.zeros(len(stats.cards))
    if whole_copies:
        # every attribute's observed cells at once (a held-out row leaves its cell's count
        # less one), each attribute's gain its cells' gains times their weights
        kept, sizes, r, y, weight, cells, totals = [], [], [], [], [], [], []
        for j in features:
            table = np.asarray(stats.family(j), dtype=float).T  # N(x, c), shape (r, C)
            value, own = np.nonzero(table > 0)
            if not len(value):
                continue
            kept.append(j)
            sizes.append(len(value))
            r.append(max(int(stats.cards[j]), 1))
            y.append(own)
            weight.append(table[value, own])
            cells.append(table[value])
            totals.append(np.broadcast_to(table.sum(axis=0), (len(value), C)))
        if not kept:
            return out
        y, weight = np.concatenate(y), np.concatenate(weight)
        gains = _cell_gains(
            np.concatenate(cells), np.concatenate(totals), np.repeat(r, sizes)[:, None], y,
            np.ones(len(y)), class_weight, total,
        )  # fmt: skip
        starts = np.concatenate([[0], np.cumsum(sizes)])
        for j, a, b in zip(kept, starts[:-1], starts[1:], strict=True):
            out[j] = float(np.array(gains[a:b]) @ np.array(weight[a:b])) / total
        return out
    for j in features:
        r = max(int(stats.cards[j]), 1)
        table = np.asarray(stats.family(j), dtype=float).T  # N(x, c), shape (r, C)
        x = stats.codes[:, j]
        seen = x >= 0
        value, y, weight = x[seen].astype(np.intp), stats.y[seen], w[seen]
        if not len(value):
            continue
        held_out = np.minimum(weight, 1.0)
        totals = np.broadcast_to(table.sum(axis=0), (len(value), C))
        gain = _cell_gains(table[value], totals, r, y, held_out, class_weight, total)
        out[j] = float(gain @ weight) / total
    return out


def _cell_gains(cells, totals, r, y, held_out, class_weight, total):
    """Each held-out row's (or cell's) ``log P(y | x) - log P(y)`` of
    :func:`loo_class_information`: ``cells`` its value's counts ``N(x, c)``, ``totals`` the
    class counts ``N(c)`` of its attribute's observed rows, ``r`` its attribute's values,
    ``held_out`` the weight it takes out of its own class's counts."""
    n, C = cells.shape
    own = np.zeros((n, C))
    own[np.arange(n), y] = held_out
    prior = np.log(class_weight - own + 1.0 / C) - np.log(total - held_out + 1.0)[:, None]
    joint = prior + (np.log(cells - own + 1.0 / r) - np.log(totals - own + 1.0))
    return _log_share(joint, y) - _log_share(prior, y)


def _log_share(scores, y):
    """``log softmax(scores)[i, y_i]`` of each row."""
    top = scores.max(axis=1, keepdims=True)
    norm = top[:, 0] + np.log(np.exp(scores - top).sum(axis=1))
    return scores[np.arange(len(y)), y] - norm


def candidate_cells(parents, child_cards, parent_cards, n_classes, max_k) -> np.ndarray:
    """Cells of every candidate's tables, shape ``(max_k + 1, m + 1)`` like the losses.

    Entry ``[k, n]``: the sum over the first ``n`` attributes of
    ``C r_u prod(r_p)`` over each one's first ``min(k, len(parents[u]))`` parents.

    Examples
    --------
    >>> candidate_cells([[], [0]], [3, 2], [3, 2], 2, 1).tolist()
    [[0, 6, 10], [0, 6, 18]]
    """
    m = len(parents)
    parent_cards = np.asarray(parent_cards, dtype=np.int64)
    # factors[u, k - 1]: the card of attribute u's k-th parent, 1 beyond its parents
    factors = np.ones((m, max(max_k, 1)), dtype=np.int64)
    for u, ranked in enumerate(parents):
        ranked = list(ranked[:max_k])
        factors[u, : len(ranked)] = parent_cards[ranked]
    cells = np.zeros((max_k + 1, m + 1), dtype=np.int64)
    cells[0, 1:] = n_classes * np.asarray(child_cards, dtype=np.int64)
    cells[1:, 1:] = (cells[0, 1:, None] * np.cumprod(factors, axis=1)[:, :max_k]).T
    return np.cumsum(cells, axis=1)


def choose(losses):
    """``(n_attributes, k)`` of the smallest loss; ties go to fewer attributes, then smaller k.

    Losses within :data:`TIE` (relative) of the smallest are ties: candidates
    that predict every row alike (e.g. every ``k`` above the deepest parent
    prefix any row reaches) have equal losses up to the order of the sums, and
    rounding must not choose among them.

    Examples
    --------
    >>> choose(np.array([[0.5, 0.4, 0.3], [0.5, 0.3, 0.3]]))
    (1, 1)
    >>> choose(np.array([[0.5, 0.3, 0.2], [0.5, 0.3, 0.2 - 1e-17]]))
    (2, 0)
    """
    scan = np.concatenate([losses[:1, 0], losses[:, 1:].T.ravel()])  # n = 0, then (n, k)
    smallest = scan.min()
    best = int(np.argmax(scan <= smallest + TIE * abs(smallest)))
    if best == 0:
        return 0, 0
    n_attributes, k = divmod(best - 1, losses.shape[0])
    return n_attributes + 1, k


def _attribute_tables(codes, y, w, cards, C, child, parents):
    """Per depth ``d``: the observed configurations of (first d parents) and (them, child),
    as look-ups from a row's mixed-radix key, and their class-weighted counts (the rows
    read in blocks; see :func:`_family_tables` for all rows at once)."""
    x = codes[:, child]
    valid = x >= 0
    key = np.zeros(len(y), dtype=np.int64)
    levels = []
    r = int(cards[child])
    for d in range(len(parents) + 1):
        if d:
            p = parents[d - 1]
            valid = valid & (codes[:, p] >= 0)
            parent_lookup, key_valid = _compress(key[valid] * int(cards[p]) + codes[valid, p])
            key = np.zeros(len(y), dtype=np.int64)
            key[valid] = key_valid
        else:
            parent_lookup = (np.zeros(1, dtype=np.int64), True)
        family_lookup, family_index = _compress(key[valid] * r + x[valid])
        yv, wv = y[valid], w[valid]
        n_families = int(family_index.max()) + 1 if len(family_index) else 0
        family_counts = np.bincount(
            family_index * C + yv, weights=wv, minlength=n_families * C
        ).reshape(-1, C)
        n_parents = int(key[valid].max()) + 1 if valid.any() else 0
        parent_counts = np.bincount(
            key[valid] * C + yv, weights=wv, minlength=n_parents * C
        ).reshape(-1, C)
        levels.append((parent_lookup, family_lookup, family_counts, parent_counts))
    return levels


def _row_cells(codes, y, w, cards, C, order, parents, D):
    """``(family, parent, family_counts, parent_counts)`` of all the rows at once: each row's
    cells at every attribute and depth (shape ``(m, D, n)``, -1 where it observes neither, or
    where its family has no other row: see :func:`bnclassify._native.lone_families`) and the
    class-weighted counts they index, numbered by :func:`bnclassify._native.family_cells`
    (no look-ups: the rows are all here)."""
    attributes = np.full((len(order), D), -1, dtype=np.int64)
    for u, child in enumerate(order):
        ranked = list(parents[u][: D - 1])
        attributes[u, : len(ranked) + 1] = [child, *ranked]
    by_column = np.ascontiguousarray(np.asarray(codes).T, dtype=np.int64)
    family, parent, sizes = family_cells(by_column, cards, attributes)
    n_families, n_parents = lone_families(family, parent, w, sizes[0].sum(), sizes[1].sum())
    return (
        family,
        parent,
        cell_counts(family, y, w, n_families, C),
        cell_counts(parent, y, w, n_parents, C),
    )


def _compress(raw):
    """``(lookup, inverse)``: each distinct key's position in sorted order, and the keys'.

    Small key ranges are mapped through a dense table (one bincount-sized pass),
    others through the sorted distinct keys (a search per look-up).
    """
    top = int(raw.max()) + 1 if len(raw) else 0
    if top <= DENSE_KEYS + 4 * len(raw):
        present = np.zeros(top, dtype=bool)
        present[raw] = True
        position = np.cumsum(present) - 1
        return (position, True), position[raw]
    keys, inverse = np.unique(raw, return_inverse=True)
    return (keys, False), inverse


def _look_up(lookup, raw):
    """Positions of keys ``raw`` that :func:`_compress` saw (others: any valid position)."""
    table, dense = lookup
    if dense:
        return table[np.clip(raw, 0, len(table) - 1)]
    return np.minimum(np.searchsorted(table, raw), len(table) - 1)


def _stacked(tables, C):
    """Every level's family and parent counts in two tables, and each level's first rows."""
    families = [level[2] for levels in tables for level in levels]
    parents = [level[3] for levels in tables for level in levels]
    family_starts = np.cumsum([0] + [len(t) for t in families])
    parent_starts = np.cumsum([0] + [len(t) for t in parents])
    offsets, at = [], 0
    for levels in tables:
        offsets.append([(family_starts[at + d], parent_starts[at + d]) for d in range(len(levels))])
        at += len(levels)
    stack = lambda ts: np.concatenate(ts) if ts else np.zeros((0, C))  # noqa: E731
    return stack(families), stack(parents), offsets


def _block_cells(codes, cards, order, parents, tables, offsets, D):
    """``(family, parent)`` of shape ``(m, D, rows)``: each row's cell in the stacked tables
    at every attribute and depth, -1 where the attribute or one of the parents is missing."""
    n = len(codes)
    family = np.full((len(order), D, n), -1, dtype=np.int64)
    parent = np.full((len(order), D, n), -1, dtype=np.int64)
    for u, child in enumerate(order):
        x = codes[:, child]
        seen = x >= 0
        r = int(cards[child])
        key = np.zeros(n, dtype=np.int64)
        for d, (parent_lookup, family_lookup, family_counts, _) in enumerate(tables[u]):
            if not len(family_counts):  # no row observes the attribute (with these parents)
                break
            if d:
                p = parents[u][d - 1]
                seen &= codes[:, p] >= 0
                key = np.where(seen, _look_up(parent_lookup, key * int(cards[p]) + codes[:, p]), 0)
            family_start, parent_start = offsets[u][d]
            family[u, d] = np.where(seen, _look_up(family_lookup, key * r + x) + family_start, -1)
            parent[u, d] = np.where(seen, key + parent_start, -1)
    return family, parent
