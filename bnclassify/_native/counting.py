"""Counts over the rows: the families of a tree (with the class), and the conditional
mutual information of every pair of columns."""

from __future__ import annotations

import numpy as np

from . import runtime

# -- family counts -------------------------------------------------------------------------------
#: What both versions of :func:`count_families` say of a code or class outside its range.
OUT_OF_RANGE = "count_families: a code or class out of its range"


def count_families(
    codes, y, weights, children, parents, child_cards, offsets, n_classes, has_missing=True
) -> np.ndarray:
    """Counts of single-parent families, flat: ``flat[c * total + offsets[k] + b * r_k + a]``.

    For family ``k`` (child ``children[k]`` with ``child_cards[k]`` states ``a``,
    parent ``parents[k]`` in state ``b``) and class ``c``, the (weighted) number
    of rows where both cells are observed. Family ``k`` holds the cells
    ``offsets[k] .. offsets[k + 1] - 1`` of each class's block of
    ``total = offsets[-1]``. ``codes``: ``(n, m)`` integer codes,
    :data:`~bnclassify.data.MISSING` (-1) for a missing cell; ``y``: class
    codes; ``weights``: row weights or None; ``has_missing``: whether any code is
    missing, or a function that says so (the numpy version asks, to skip its mask
    on complete data).

    A family may have no cell (a column with no observed category, e.g. in a
    chunk of ``partial_fit``: every code of it missing). A class code outside
    ``[0, n_classes)`` or, in a row where both codes are observed, a code outside
    its column's states raises a ``ValueError`` in both versions.

    Examples
    --------
    >>> codes = np.array([[0, 1], [1, 1], [1, -1]], dtype=np.int8)
    >>> count_families(codes, np.array([0, 1, 1]), None, [1], [0], [2], [0, 4], 2).tolist()
    [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    """
    children = np.asarray(children, dtype=np.int64)
    parents = np.asarray(parents, dtype=np.int64)
    offsets = np.asarray(offsets, dtype=np.int64)
    total = int(offsets[-1])
    flat = np.zeros(n_classes * total)
    if not len(children):
        return flat
    if runtime.COMPILED and codes.ndim == 2 and codes.dtype.char in "bhilq" and len(children):
        arrays = (
            np.ascontiguousarray(y, dtype=np.int64),
            None if weights is None else np.ascontiguousarray(weights, dtype=np.float64),
            children,
            parents,
            np.asarray(child_cards, dtype=np.int64),
            offsets,
        )

        def count(edges):
            runtime.kernels.count_families(
                codes, *arrays, total, n_classes, flat, edges.start, edges.stop
            )

        # each share of the families fills its own cells: no two threads write the same one
        runtime.on_shares(count, len(children), codes.shape[0] * len(children))
        return flat
    return _numpy_count_families(
        codes,
        y,
        weights,
        children,
        parents,
        child_cards,
        offsets[:-1],
        n_classes,
        flat,
        has_missing,
    )


def _numpy_count_families(
    codes, y, weights, children, parents, child_cards, starts, n_classes, flat, has_missing
):
    total = len(flat) // n_classes
    y = np.asarray(y)
    if len(y) and (int(y.min()) < 0 or int(y.max()) >= n_classes):
        raise ValueError(OUT_OF_RANGE)
    rows = max(1, runtime.BLOCK_CELLS // len(children))  # cache-sized index blocks
    # int32 arithmetic halves the memory traffic when every index fits
    dtype = np.int32 if len(flat) < np.iinfo(np.int32).max else np.intp
    child_cards = np.asarray(child_cards).astype(dtype)
    starts = np.asarray(starts).astype(dtype)
    sizes = np.diff(np.append(starts, total)).astype(dtype)
    class_starts = (y * int(total)).astype(dtype)
    # complete unweighted data (the usual case) needs no mask: a third of the work
    plain = weights is None and not (has_missing() if callable(has_missing) else has_missing)
    for start in range(0, len(y), rows):
        child = codes[start : start + rows, children]
        parent = codes[start : start + rows, parents]
        index = parent * child_cards
        index += child
        beyond = (child >= child_cards) | (index >= sizes)  # a code outside its states
        if not plain:
            beyond &= (child >= 0) & (parent >= 0)  # the kernel reads observed pairs only
        if beyond.any():
            raise ValueError(OUT_OF_RANGE)
        index += starts
        index += class_starts[start : start + rows, None]
        if plain:  # the gathered columns are column-major: a C-order ravel would copy
            flat += np.bincount(index.ravel(order="K"), minlength=len(flat))
            continue
        missing = (child < 0) | (parent < 0)  # MISSING
        keep = ~missing
        w = None
        if weights is not None:
            w = np.broadcast_to(weights[start : start + rows, None], index.shape)[keep]
        if missing.any():
            index = index[keep]
        flat += np.bincount(index.ravel(), w, minlength=len(flat))
    return flat


def pair_information(codes, y, weights, cards, n_classes, known=None) -> tuple:
    """I(X_i; X_j | C) in nats and the rows observing both, for every pair of columns.

    Each pair's plug-in estimate on the rows observing both (its own
    marginals): ``sum N(c,a,b)/N log(N(c,a,b) N(c) / (N(c,a) N(c,b)))`` with
    the row ``weights`` as frequencies (exactly 0 when a column has one
    state); the diagonal of ``rows`` is the weight observing each column, that
    of ``cmi`` is 0. ``codes`` has shape
    ``(n, m)`` (-1 missing). The compiled kernel counts each pair in one pass
    over the rows; this version by ``np.bincount``; they agree to rounding.

    ``known``: ``(positions, cmi, rows)``, the values of the pairs among some
    columns (increasing ``positions``), computed before from the same codes of
    those columns (e.g. by this function on them alone): they are copied, not
    computed again (a pair's value does not depend on the other columns).

    Examples
    --------
    >>> codes = np.array([[0, 0], [1, 1], [0, 0], [1, 1]])
    >>> cmi, rows = pair_information(codes, np.array([0, 0, 1, 1]), None, [2, 2], 2)
    >>> round(float(cmi[0, 1]), 4), rows.tolist()  # x1 copies x0 within each class: log 2
    (0.6931, [[4.0, 4.0], [4.0, 4.0]])
    >>> again, _ = pair_information(codes, np.array([0, 0, 1, 1]), None, [2, 2], 2,
    ...                             known=([0, 1], cmi, rows))
    >>> bool((again == cmi).all())
    True
    """
    columns = np.ascontiguousarray(np.asarray(codes).T, dtype=np.int64)
    y = np.ascontiguousarray(y, dtype=np.int64)
    m, n = columns.shape
    w = np.ones(n) if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
    cards = np.ascontiguousarray(cards, dtype=np.int64)
    C = int(n_classes)
    cmi, rows = np.zeros((m, m)), np.zeros((m, m))
    skip = np.zeros(m, dtype=np.int64)
    if known is not None:
        positions, known_cmi, known_rows = known
        positions = np.asarray(positions, dtype=np.intp)
        skip[positions] = 1
        cmi[np.ix_(positions, positions)] = known_cmi
        rows[np.ix_(positions, positions)] = known_rows
    if runtime.COMPILED:
        runtime.kernels.pair_information(columns, y, w, cards, C, cmi, rows, skip)
        return cmi, rows
    for i in range(m):
        rows[i, i] = w[columns[i] >= 0].sum()
        for j in range(i + 1, m):
            if skip[i] and skip[j]:
                continue
            seen = (columns[i] >= 0) & (columns[j] >= 0)
            ri, rj = int(cards[i]), int(cards[j])
            joint = np.bincount(
                (y[seen] * ri + columns[i, seen]) * rj + columns[j, seen],
                weights=w[seen],
                minlength=C * ri * rj,
            ).reshape(C, ri, rj)
            total = joint.sum()
            if ri <= 1 or rj <= 1:  # a column with one state tells nothing: exactly 0
                rows[i, j] = rows[j, i] = total
                continue
            pair = joint.sum(axis=(1, 2))[:, None, None]
            row, col = joint.sum(axis=2)[:, :, None], joint.sum(axis=1)[:, None, :]
            with np.errstate(divide="ignore", invalid="ignore"):
                logs = np.log(joint) + np.log(pair) - np.log(row) - np.log(col)
                weighted = np.where(joint > 0, joint * logs, 0.0).sum()
            value = weighted / total if total > 0 else 0.0
            cmi[i, j] = cmi[j, i] = value if value > 0 else 0.0
            rows[i, j] = rows[j, i] = total
    return cmi, rows
