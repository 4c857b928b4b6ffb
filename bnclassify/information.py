"""Mutual information of discrete features, computed from counts (the plug-in estimates)."""

from __future__ import annotations

import numpy as np

from ._native import pair_information
from .stats import BLOCK_CELLS, PairwiseCounts, TrainingCounts, column_blocks


def cmi_from_counts(pairwise: PairwiseCounts) -> np.ndarray:
    """Conditional mutual information I(X_i; X_j | C) in nats for every pair of features.

    Each pair uses the rows observing both features (pairwise-complete), with
    its own marginals N(c, x_i), N(c, x_j) taken from the pair table, so it is
    the exact plug-in estimate on those rows:
    ``sum N(c,a,b)/N log(N(c,a,b) N(c) / (N(c,a) N(c,b)))``.

    Returns
    -------
    ndarray of shape (m, m)
        Symmetric, zero diagonal.
    """
    return pairwise_information(pairwise)[0]


def pairwise_information(stats, features=None, block_cells=None):
    """I(X_i; X_j | C) in nats and the rows observing both, for every pair of ``features``.

    The pair tables are read one block of columns at a time
    (``stats.pair_table``), so no more than about ``block_cells`` cells of them,
    or of the logarithms computed from them, exist at once: a wide table's CMI
    costs memory in its ``m x m`` results, not in its ``C R^2`` pair counts.
    Each pair's value does not depend on the blocks (the same sums in the same
    order), see :func:`cmi_from_counts`.

    Parameters
    ----------
    stats : TrainingCounts, SufficientStatistics or PairwiseCounts
        Anything with ``cards``, ``n_classes``, ``pair_table(rows, cols)`` and
        ``category_counts(features)``.
    features : sequence of int, optional
        Discrete feature positions (default: all).
    block_cells : int, optional
        Cells of pair counts read at a time (default: :data:`~bnclassify.stats.BLOCK_CELLS`).

    Returns
    -------
    cmi : ndarray of shape (k, k)
        Symmetric, zero diagonal.
    rows : ndarray of shape (k, k)
        Rows (total weight) observing both features of each pair.

    Examples
    --------
    >>> from bnclassify.stats import pairwise_counts
    >>> codes = np.array([[0, 0], [1, 1], [0, 0], [1, 1]])
    >>> pc = pairwise_counts(codes, np.array([0, 0, 1, 1]), np.array([2, 2]), 2)
    >>> cmi, rows = pairwise_information(pc)
    >>> round(float(cmi[0, 1]), 4), rows[0, 1]  # x1 copies x0 within each class: log 2
    (0.6931, np.float64(4.0))
    """
    cards = np.asarray(stats.cards)
    features = np.arange(len(cards)) if features is None else np.asarray(features, dtype=np.intp)
    sub_cards = cards[features]
    m = len(features)
    starts = np.concatenate([[0], np.cumsum(sub_cards)])[:-1]
    diagonal = stats.category_counts(features)  # (C, R): N(c, a) on the rows observing i
    feature_totals = np.add.reduceat(diagonal, starts, axis=1)  # (C, m)
    # Equal totals are necessary for every row to observe every feature, not sufficient
    # (two columns may miss as many cells in different rows): each block also checks
    # that every pair of it is observed on all the rows of each class.
    complete = bool((feature_totals == feature_totals[:, :1]).all())
    if complete:
        # every row observes every feature, so the marginals do not depend on the pair:
        # N I(i;j|C) = sum_c [sum_ab xlogx N(c,a,b) + xlogx N(c)
        #                     - sum_a xlogx N(c,a) - sum_b xlogx N(c,b)]
        feature_terms = np.add.reduceat(_xlogx(diagonal), starts, axis=1).sum(axis=0)
        class_totals = feature_totals[:, 0]
        class_term = _xlogx(class_totals).sum()
        n = class_totals.sum()
    cmi, rows = np.zeros((m, m)), np.zeros((m, m))
    block_cells = BLOCK_CELLS if block_cells is None else block_cells
    side = max(1, int(np.sqrt(block_cells / stats.n_classes)))  # categories per block side
    blocks = column_blocks(sub_cards, side)
    for b, block_i in enumerate(blocks):
        for block_j in blocks[b:]:
            table = stats.pair_table(features[block_i], features[block_j])
            si = starts[block_i] - starts[block_i[0]]
            sj = starts[block_j] - starts[block_j[0]]
            per_class = np.add.reduceat(np.add.reduceat(table, si, axis=1), sj, axis=2)
            if complete and (per_class == class_totals[:, None, None]).all():
                values = (
                    _pair_terms(table, si, sj)
                    + class_term
                    - feature_terms[block_i][:, None]
                    - feature_terms[block_j]
                ) / n
            else:
                values = _pairwise_complete_block(
                    table, si, sj, sub_cards[block_i], sub_cards[block_j]
                )
            pair = per_class.sum(axis=0)
            cmi[np.ix_(block_i, block_j)] = values
            rows[np.ix_(block_i, block_j)] = pair
    # Mirror one triangle: (i, j) and (j, i) sum in different orders and could
    # differ in the last bit; rounding can leave -1e-17 where the true value is 0.
    upper = np.maximum(np.triu(cmi, k=1), 0.0)
    upper_rows = np.triu(rows, k=1)
    rows = upper_rows + upper_rows.T + np.diag(np.diagonal(rows))
    return upper + upper.T, rows


def information_of_rows(stats, known=None):
    """:func:`pairwise_information` of every feature, read from the rows instead of pair tables.

    The same plug-in estimates (each pair on the rows observing both, up to
    the order of the sums) from ``stats.codes``, one pass over the rows per
    pair (compiled; :func:`bnclassify._native.pair_information`): on a wide
    table it costs ``m^2 (n + C r^2) / 2`` rather than ``C R^2`` cells of pair
    counts and their logarithms.

    Parameters
    ----------
    stats : TrainingCounts
        Counts that keep their rows (``codes``, ``y``, ``weights``).
    known : tuple, optional
        ``(positions, cmi, rows)``: the values of the pairs among some columns
        (increasing ``positions``), as this function returned them for other
        counts of the same rows that code those columns alike; they are copied,
        not computed again.

    Returns
    -------
    cmi, rows : ndarray of shape (m, m)

    Examples
    --------
    >>> from bnclassify.stats import TrainingCounts
    >>> stats = TrainingCounts(np.array([[0, 0], [1, 1], [0, 0], [1, 1]]), np.array([0, 0, 1, 1]),
    ...                        np.array([2, 2]), 2)
    >>> cmi, rows = information_of_rows(stats)
    >>> round(float(cmi[0, 1]), 4), rows[0, 1]
    (0.6931, np.float64(4.0))
    """
    return pair_information(
        stats.codes, stats.y, stats.weights, stats.cards, stats.n_classes, known
    )


def _xlogx(values):
    return values * np.log(np.where(values > 0, values, 1.0))


def _pair_terms(table, si, sj):
    """sum over each pair's cells and classes of xlogx N(c, a, b), shape ``(|I|, |J|)``."""
    terms = np.zeros((len(si), len(sj)))
    for part in table:
        terms += np.add.reduceat(np.add.reduceat(_xlogx(part), si, axis=0), sj, axis=1)
    return terms


def _pairwise_complete_block(table, si, sj, cards_i, cards_j):
    """The general plug-in estimate of a block, each pair on the rows observing both."""
    owner_i = np.repeat(np.arange(len(cards_i)), cards_i)  # category -> feature
    owner_j = np.repeat(np.arange(len(cards_j)), cards_j)
    total = np.zeros((len(si), len(sj)))
    weighted = np.zeros((len(si), len(sj)))
    for part in table:  # one class at a time keeps memory at one block
        row = np.add.reduceat(part, sj, axis=1)  # N(c, a, j): (R_I, |J|)
        col = np.add.reduceat(part, si, axis=0)  # N(c, i, b): (|I|, R_J)
        pair = np.add.reduceat(row, si, axis=0)  # N(c) on the rows observing (i, j)
        total += pair
        with np.errstate(divide="ignore", invalid="ignore"):
            # in logs: weighted counts near 1e300 would overflow the products
            logs = (
                np.log(part)
                + np.log(pair[owner_i][:, owner_j])
                - np.log(row[:, owner_j])
                - np.log(col[owner_i, :])
            )
            terms = np.where(part > 0, part * logs, 0.0)
        weighted += np.add.reduceat(np.add.reduceat(terms, si, axis=0), sj, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total > 0, weighted / total, 0.0)


def class_mi_from_counts(counts: TrainingCounts, features=None) -> np.ndarray:
    """Mutual information I(X_i; C) in nats of each (discrete) feature with the class."""
    features = range(counts.n_features) if features is None else features
    out = np.empty(len(features))
    for k, i in enumerate(features):
        joint = counts.family(i)
        n = joint.sum()
        pc = joint.sum(axis=1, keepdims=True)
        px = joint.sum(axis=0, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            # in logs: weighted counts near 1e300 would overflow the product joint * n
            logs = np.log(joint) - np.log(pc) + np.log(n) - np.log(px)
            terms = np.where(joint > 0, (joint / n) * logs, 0.0)
        out[k] = max(terms.sum(), 0.0)
    return out
