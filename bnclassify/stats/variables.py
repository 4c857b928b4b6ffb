"""Counts over any set of variables, the class one of them: what a general network reads.

A Bayesian network in which the class is an ordinary node scores and fits
families such as ``N(x_a, x_b, c)`` or ``N(x_a, x_b)`` alike, so its
statistics hold the training rows themselves with the class as one more
column, each distinct row once with its (weighted) number of occurrences.
That table answers every family's counts, it is additive (two tables add by
stacking their rows and merging equal ones, which is how ``partial_fit`` and
a dask fit accumulate it), and it is never larger than the table it comes
from: often much smaller, since discrete rows repeat.

Counts of a family use the rows that observe every variable of it; a missing
cell (code :data:`~bnclassify.data.MISSING`) leaves its row out of the
families that hold its variable. (Two families of one node are then counted on
different rows; :mod:`bnclassify.scores` compares them on the same rows.)
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from .._native import count_families
from ..data import MISSING
from .counting import PairwiseCounts, pairwise_counts

#: Cells (over all candidates) of the counts :meth:`VariableCounts.extended_counts` fills
#: at once; more candidates are counted in groups below it (about 32 MB of floats).
CANDIDATE_CELLS = 1 << 22
#: Largest table of every pair's counts (cells) :meth:`VariableCounts.extended_counts`
#: counts once, by one matrix product, and keeps (128 MB); wider tables count pairs by rows.
PAIR_CELLS = 1 << 24
#: Joint states (of a family's parents) numbered by their code up to this many per row;
#: beyond it the states that occur are renumbered (``np.unique``), so no table is larger
#: than the rows need.
DENSE_STATES = 1


class VariableCounts:
    """The distinct rows of a table, the class as its last column, with their weights.

    Parameters
    ----------
    codes : ndarray of shape (k, n_variables)
        Category codes of each distinct row (:data:`~bnclassify.data.MISSING`
        where missing); the last column is the class.
    weights : ndarray of shape (k,)
        How many rows (their total weight) each distinct row stands for.
    cards : array of int, shape (n_variables,)
        Number of states of each variable (the class's: the number of classes).

    Examples
    --------
    >>> codes = np.array([[0, 1], [1, 1], [0, 1]])
    >>> counts = VariableCounts.from_rows(codes, np.array([0, 1, 0]), [2, 2], 2)
    >>> counts.codes.tolist(), counts.weights.tolist()
    ([[0, 1, 0], [1, 1, 1]], [2.0, 1.0])
    >>> counts.table([0, 2]).tolist()  # N(x_0, c)
    [[2.0, 0.0], [0.0, 1.0]]
    """

    def __init__(self, codes, weights, cards):
        self.codes = np.asarray(codes)
        self.weights = np.asarray(weights, dtype=float)
        self.cards = np.asarray(cards, dtype=np.int64)
        if self.codes.ndim != 2 or self.codes.shape[1] != len(self.cards):
            raise ValueError(
                f"codes must have one column per variable ({len(self.cards)}), "
                f"got shape {self.codes.shape}."
            )
        if self.weights.shape != (self.codes.shape[0],):
            raise ValueError(f"weights must hold one weight per row ({self.codes.shape[0]}).")

    @classmethod
    def from_rows(cls, codes, y, cards, n_classes, weights=None) -> VariableCounts:
        """The distinct rows of ``codes`` with the class codes ``y`` as a last column.

        Rows are merged when they are equal in every cell (a missing cell equals
        a missing cell) and sorted, so the result does not depend on the order
        of the rows, nor on how they were split into chunks.

        Parameters
        ----------
        codes : ndarray of shape (n, m)
        y : ndarray of shape (n,)
        cards : array of int, shape (m,)
        n_classes : int
        weights : ndarray of shape (n,), optional
        """
        codes = np.asarray(codes)
        cards = [int(c) for c in cards] + [int(n_classes)]
        dtype = _codes_dtype(max(cards, default=1))
        table = np.empty((codes.shape[0], codes.shape[1] + 1), dtype=dtype)
        table[:, :-1] = codes
        table[:, -1] = y
        return cls.merged(table, weights, cards)

    @classmethod
    def merged(cls, table, weights, cards) -> VariableCounts:
        """These rows (``table``, one column per variable) with equal rows merged, sorted.

        The rows are sorted by their codes, column by column (a missing cell first),
        so equal sets of rows give equal tables whatever their order.
        """
        table = np.asarray(table)
        if len(table) == 0:
            return cls(np.ascontiguousarray(table), np.zeros(0), cards)
        # each row's key in the mixed radix of the columns (a missing code one more digit),
        # the keys so far renumbered in order before the radix would overflow
        digits = [int(card) + 1 for card in cards]
        n = len(table)
        bound = math.prod(digits)
        if bound < 1 << 62 and digits and table.flags.c_contiguous:
            # one product of the rows with the radix's weights
            radix = np.cumprod([1, *digits[:0:-1]])[::-1].astype(np.int64)
            key = (table.astype(np.int64) + 1) @ radix
        else:  # column by column (no copy of a table stored by columns)
            key = np.zeros(n, dtype=np.int64)
            bound = 1
            for j, digit in enumerate(digits):
                if bound * digit >= 1 << 62:
                    distinct, key = np.unique(key, return_inverse=True)
                    key, bound = key.ravel().astype(np.int64), len(distinct)
                key = key * digit + (table[:, j].astype(np.int64) + 1)
                bound *= digit
        # np.unique's work without its inverse: a stable sort, each key's first row
        if bound * n < 1 << 62:  # the row's position in the key's low digits: a plain sort
            both = np.sort(key * n + np.arange(n))
            ranked, order = both // n, both % n
        else:
            order = np.argsort(key, kind="stable")
            ranked = key[order]
        new = np.empty(len(key), dtype=bool)
        new[0] = True
        np.not_equal(ranked[1:], ranked[:-1], out=new[1:])
        starts = np.flatnonzero(new)
        first = order[starts]
        if weights is None:
            totals = np.diff(np.append(starts, len(key))).astype(float)
        else:  # each key's weights added in the rows' order, as a bincount adds them
            group = np.cumsum(new) - 1
            weights = np.asarray(weights, dtype=float)[order]
            totals = np.bincount(group, weights, minlength=len(starts))
        if table.shape[1] and table.flags.c_contiguous and table.dtype.isnative:
            rows = table.view(np.dtype((np.void, table.shape[1] * table.itemsize)))
            distinct = rows[first, 0].view(table.dtype).reshape(len(first), table.shape[1])
        else:
            distinct = table[first]
        narrow = _codes_dtype(max((int(c) for c in cards), default=1))
        if distinct.dtype.kind == "i" and distinct.dtype.itemsize > narrow.itemsize:
            # the compiled counters read a byte per code several times faster than 8 bytes
            distinct = distinct.astype(narrow)
        return cls(np.ascontiguousarray(distinct), totals, cards)

    @property
    def n_variables(self) -> int:
        return len(self.cards)

    @property
    def class_variable(self) -> int:
        """The class's variable: the last column."""
        return len(self.cards) - 1

    @property
    def n_rows(self) -> float:
        """The (weighted) number of rows the distinct rows stand for."""
        return float(self.weights.sum())

    @cached_property
    def unit_weights(self) -> bool:
        """Whether every distinct row stands for one row of weight 1."""
        return bool(np.all(self.weights == 1.0))

    @cached_property
    def has_missing(self) -> np.ndarray:
        """Whether each variable has a missing cell in some row."""
        return (self.codes == MISSING).any(axis=0)

    @cached_property
    def _some_missing(self) -> bool:
        return bool(self.has_missing.any())

    def observed(self, variables) -> np.ndarray:
        """Which distinct rows observe every one of ``variables`` (a new boolean mask)."""
        variables = [v for v in variables if self.has_missing[v]]
        if not variables:
            return np.ones(len(self.codes), dtype=bool)
        return (self.codes[:, variables] != MISSING).all(axis=1)

    def table(self, variables) -> np.ndarray:
        """N(x_variables) over the rows observing all of them, shape ``cards[variables]``.

        Examples
        --------
        >>> counts = VariableCounts(np.array([[0, 1], [1, -1]]), np.array([2.0, 1.0]), [2, 2])
        >>> counts.table([1]).tolist(), counts.table([0, 1]).tolist()
        ([0.0, 2.0], [[0.0, 2.0], [0.0, 0.0]])
        """
        variables = list(variables)
        shape = tuple(int(self.cards[v]) for v in variables)
        size = math.prod(shape)
        seen = self.observed(variables)
        if not variables:
            return np.asarray(self.weights[seen].sum())
        index = np.ravel_multi_index(
            tuple(self.codes[seen, v].astype(np.intp) for v in variables), shape
        )
        return np.bincount(index, self.weights[seen], minlength=size).reshape(shape)

    def configurations(self, variables, rows=None) -> tuple:
        """Each row's joint state of ``variables``, numbered among the states that occur.

        Returns ``(ids, n)``: ``ids`` of shape (k,) (-1 for a row that misses one of
        the variables, or that ``rows`` leaves out), ``n`` distinct states occurring.
        With no variable every row is in the one (empty) state 0.
        """
        variables = list(variables)
        keep = self.observed(variables)
        if rows is not None:
            keep &= rows
        codes, cards = self.codes, self.cards
        ids = np.full(len(self.codes), -1, dtype=np.int64)
        if not variables:
            ids[keep] = 0
            return ids, int(keep.any())
        every = bool(keep.all())  # no row to leave out: the columns as they are, no copy
        key = np.zeros(int(keep.sum()), dtype=np.int64)
        bound = 1
        for v in variables:
            card = int(cards[v])
            if bound * card >= 1 << 62:  # renumber the states so far before the key overflows
                distinct, key = np.unique(key, return_inverse=True)
                key, bound = key.ravel().astype(np.int64), len(distinct)
            key = key * card + (codes[:, v] if every else codes[keep, v])
            bound *= card
        if bound <= DENSE_STATES * max(1, len(key)):  # few states: numbered by their code
            if every:
                return key, bound
            ids[keep] = key
            return ids, bound
        distinct, inverse = np.unique(key, return_inverse=True)
        if every:
            return inverse.ravel().astype(np.int64, copy=False), len(distinct)
        ids[keep] = inverse.ravel()
        return ids, len(distinct)

    def family_counts(self, child, parents, rows=None) -> np.ndarray:
        """N(x_parents, x_child) over the rows observing the family, shape ``(q, r)``.

        ``q`` counts the joint parent states that occur (in the order of their codes);
        a parent state that never occurs has no row here (all its counts are zero).
        ``rows`` (a boolean mask of the distinct rows), when given, keeps only those.

        Examples
        --------
        >>> counts = VariableCounts(np.array([[0, 1], [-1, 1], [1, 0]]), np.ones(3), [2, 2])
        >>> counts.family_counts(1, [0]).tolist()  # the row missing x_0 is left out
        [[0.0, 1.0], [1.0, 0.0]]
        """
        seen = self.observed([*parents, child])
        if rows is not None:
            seen &= rows
        parent_ids, q = self.configurations(parents, rows=seen)
        r = int(self.cards[child])
        cells = parent_ids[seen] * r + self.codes[seen, child]
        return np.bincount(cells, self.weights[seen], minlength=q * r).reshape(q, r)

    def extended_counts(self, child, parents, candidates) -> list:
        """N(x_parents, x_u, x_child) for every candidate parent ``u``, in one pass per group.

        Each table has shape ``(q, r_u, r_child)``, ``q`` the joint states of
        ``parents`` that occur with the child observed (as :meth:`family_counts`);
        a row counts in a candidate's table when it also observes ``u``. The
        candidates' tables are counted together, a block of candidates per pass
        over the rows (the compiled family counter when it is built), so adding
        any one parent to a family costs one look at each row, not one per
        candidate.

        Examples
        --------
        >>> counts = VariableCounts(np.array([[0, 1, 1], [1, 1, 0]]), np.ones(2), [2, 2, 2])
        >>> [t.shape for t in counts.extended_counts(2, [], [0, 1])]
        [(1, 2, 2), (1, 2, 2)]
        >>> counts.extended_counts(2, [], [0])[0][0].tolist()  # N(x_0, x_2)
        [[0.0, 1.0], [1.0, 0.0]]
        """
        candidates = [int(u) for u in candidates]
        if not candidates:
            return []
        r = int(self.cards[child])
        cards = self.cards
        if not len(parents) and self.pairs is not None:  # read from every pair's counts
            return [self.pairs.block(u, child).copy() for u in candidates]
        base, q = self.configurations(parents, rows=self.observed([child]))
        if not q:  # no row observes the child: every count is 0
            return [np.zeros((0, int(cards[u]), r)) for u in candidates]
        seen = base >= 0
        if seen.all():  # no row to leave out: no copy
            codes, key, weights = self.codes, base, self.weights
        else:
            codes, key, weights = self.codes[seen], base[seen], self.weights[seen]
        if self.unit_weights:  # every distinct row once: the kernel's integer counts
            weights = None
        if codes.dtype.char not in "bhilq":
            codes = codes.astype(np.int64)
        sizes = [int(cards[u]) * r for u in candidates]
        room = _group(q)
        out = []
        start = 0
        while start < len(candidates):
            stop, cells = start, 0
            while stop < len(candidates) and (stop == start or cells + sizes[stop] <= room):
                cells += sizes[stop]
                stop += 1
            group = candidates[start:stop]
            offsets = np.concatenate([[0], np.cumsum(sizes[start:stop])])
            flat = count_families(
                codes, key, weights, [child] * len(group), group, [r] * len(group), offsets, q
            ).reshape(q, int(offsets[-1]))
            for k, u in enumerate(group):
                block = flat[:, offsets[k] : offsets[k + 1]]
                out.append(block.reshape(q, int(cards[u]), r))
            start = stop
        return out

    def side_by_side(self, child, parents, candidates) -> np.ndarray | None:
        """N(x_parents, x_u, x_child) of every candidate ``u``, side by side in one array.

        The tables of :meth:`extended_counts` when no row misses a variable of
        them, counted in one pass and kept together: row ``j`` is the joint state
        of ``parents`` numbered by its code (every state, occurring or not), and
        candidate ``k``'s table ``(r_u, r_child)`` is its ``k``-th block of columns.
        None when a column of them has a missing cell, when the parents' joint
        states outnumber the rows, or when the array would hold more than
        ``CANDIDATE_CELLS`` cells: :meth:`extended_counts` counts those. A search
        scores every candidate's family from this array with a few calls, not a few
        per candidate.

        Returns
        -------
        ndarray of shape (q, sum of r_u r_child) or None

        Examples
        --------
        >>> counts = VariableCounts(np.array([[0, 1, 1], [1, 1, 0]]), np.ones(2), [2, 2, 2])
        >>> counts.side_by_side(2, [], [0, 1]).tolist()  # N(x_0, x_2), then N(x_1, x_2)
        [[0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0]]
        """
        missing, cards, n = self.has_missing, self.cards, len(self.codes)
        if not n:
            return None
        if self._some_missing and (
            missing[child] or any(missing[v] for v in (*parents, *candidates))
        ):
            return None
        q = math.prod(int(cards[p]) for p in parents)
        r = int(cards[child])
        sizes = [int(cards[u]) * r for u in candidates]
        if q > DENSE_STATES * n or q * sum(sizes) > CANDIDATE_CELLS:
            return None
        if not parents and self._pair_tables is not None:
            tables = self._pair_tables
            blocks = [tables[u, child] if u < child else tables[child, u].T for u in candidates]
            return np.concatenate([b.ravel() for b in blocks])[None, :]
        codes = self.codes
        if codes.dtype.char not in "bhilq":
            codes = codes.astype(np.int64)
        key = np.zeros(n, dtype=np.int64)
        for v in parents:  # as configurations numbers them, the states by their code
            key = key * int(cards[v]) + codes[:, v]
        offsets = np.concatenate([[0], np.cumsum(sizes)])
        weights = None if self.unit_weights else self.weights
        k = len(candidates)
        flat = count_families(codes, key, weights, [child] * k, candidates, [r] * k, offsets, q)
        return flat.reshape(q, int(offsets[-1]))

    @cached_property
    def _pair_tables(self) -> dict | None:
        """N(x_u, x_v) of every pair ``u < v``, shape ``(r_u, r_v)``, counted in one pass when
        no cell is missing (each pair serves both orientations: a search starting from
        no arc asks for every one twice); None when a cell is missing or the tables
        would hold more than ``CANDIDATE_CELLS`` cells."""
        cards, m = self.cards, self.n_variables
        if self.has_missing.any() or int(cards.sum()) ** 2 > 2 * CANDIDATE_CELLS:
            return None
        lower = [(u, v) for v in range(m) for u in range(v)]
        if not lower:
            return {}
        sizes = [int(cards[u]) * int(cards[v]) for u, v in lower]
        offsets = np.concatenate([[0], np.cumsum(sizes)])
        codes = self.codes if self.codes.dtype.char in "bhilq" else self.codes.astype(np.int64)
        flat = count_families(
            codes,
            np.zeros(len(codes), dtype=np.int64),
            None if self.unit_weights else self.weights,
            [v for _, v in lower],
            [u for u, _ in lower],
            [int(cards[v]) for _, v in lower],
            offsets,
            1,
        )
        return {
            (u, v): flat[offsets[k] : offsets[k + 1]].reshape(int(cards[u]), int(cards[v]))
            for k, (u, v) in enumerate(lower)
        }

    @cached_property
    def pairs(self) -> PairwiseCounts | None:
        """N(x_u, x_v) of every pair of variables (on the rows observing both), as one
        ``(1, R, R)`` table (``R`` the states of all variables), counted by one matrix
        product; None when it would have
        more than ``PAIR_CELLS`` cells, or when the variables are so few that counting
        each pair row by row costs less (measured: 9 variables of 32 states in all, nursery;
        the product pays from about 16 variables, alarm's 37 of 105 states: 2.5 times faster)."""
        m, cards = self.n_variables, self.cards
        states = int(cards.sum())
        if states**2 > PAIR_CELLS or m * (m - 1) < 10 * m + states**2 / 40:
            return None  # too wide; or counting the pairs row by row costs less (few variables)
        one = np.zeros(len(self.codes), dtype=np.intp)
        return pairwise_counts(self.codes, one, cards, 1, weights=self.weights)


def _group(q) -> int:
    """Cells per parent state of one group of candidates (their counts fit CANDIDATE_CELLS)."""
    return max(1, CANDIDATE_CELLS // max(1, q))


def _codes_dtype(largest) -> np.dtype:
    for dtype in (np.int8, np.int16, np.int32):
        if largest <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)
