"""log S(n, t): unsigned Stirling numbers of the first kind, the table counts' combinatorics.

In a Chinese restaurant process, ``S(n, t)`` counts the seatings of ``n``
customers at ``t`` tables; the collapsed likelihood of a hierarchical Dirichlet
process has one factor ``S(n_k, t_k)`` per node and value
(:mod:`bnclassify.parameters.hdp`). They are read from a table computed by the
recurrence ``S(n, t) = S(n - 1, t - 1) + (n - 1) S(n - 1, t)`` in log space, one
row per ``n``.

The sampler reads rows ``0..R`` densely (the varying counts of inner nodes) and,
beyond them, only the rows of the fixed counts of the leaves: a leaf of a
million rows needs its own row but not the rows below it. Both the compiled
sampler and its numpy twin read the same table, so they see the same numbers.
"""

from __future__ import annotations

import threading

import numpy as np

#: Most cells of the table kept for later fits (32 MB); a larger one is made for its fit only.
CACHED_CELLS = 1 << 22

_dense = np.zeros((1, 1))  # log S(n, t) for n, t in 0..: grown on demand, shared by fits
_dense_lock = threading.Lock()


def log_stirling_table(n_rows: int, n_columns: int) -> np.ndarray:
    """``log S(n, t)`` for ``0 <= n < n_rows`` and ``0 <= t < n_columns`` (-inf where 0).

    Examples
    --------
    >>> np.exp(log_stirling_table(5, 5)).round()  # S(4, 2) = 11: 4 customers at 2 tables
    array([[ 1.,  0.,  0.,  0.,  0.],
           [ 0.,  1.,  0.,  0.,  0.],
           [ 0.,  1.,  1.,  0.,  0.],
           [ 0.,  2.,  3.,  1.,  0.],
           [ 0.,  6., 11.,  6.,  1.]])
    """
    global _dense
    table = _dense
    if table.shape[0] >= n_rows and table.shape[1] >= n_columns:
        return table[:n_rows, :n_columns]
    if n_rows * n_columns > CACHED_CELLS:
        return _rows_from(_first_row(n_columns), 0, range(n_rows))[1]
    with _dense_lock:
        table = _dense
        if table.shape[0] < n_rows or table.shape[1] < n_columns:
            rows, columns = max(n_rows, table.shape[0]), max(n_columns, table.shape[1])
            if rows * columns > CACHED_CELLS:
                rows, columns = n_rows, n_columns
            table = _rows_from(_first_row(columns), 0, range(rows))[1]
            _dense = table
    return table[:n_rows, :n_columns]


def _first_row(n_columns):
    row = np.full(n_columns, -np.inf)
    row[0] = 0.0  # S(0, 0) = 1
    return row


def _next_row(row, n):
    """Row ``n`` from row ``n - 1``: ``S(n, t) = S(n-1, t-1) + (n-1) S(n-1, t)``."""
    out = np.empty_like(row)
    out[0] = -np.inf
    with np.errstate(divide="ignore"):
        scale = np.log(n - 1.0)
    out[1:] = np.logaddexp(row[:-1], row[1:] + scale)
    return out


def _rows_from(row, n, wanted):
    """Rows ``wanted`` (sorted, each >= ``n``) of the recurrence started at row ``n``.

    Returns ``(last row, stacked wanted rows)``.
    """
    wanted = list(wanted)
    out = np.empty((len(wanted), len(row)))
    k = 0
    while k < len(wanted) and wanted[k] == n:
        out[k] = row
        k += 1
    while k < len(wanted):
        n += 1
        row = _next_row(row, n)
        while k < len(wanted) and wanted[k] == n:
            out[k] = row
            k += 1
    return row, out


class StirlingRows:
    """The rows of ``log S(n, t)`` a sampler reads: dense up to ``dense_rows``, then only
    ``sparse`` ones.

    ``table[row_of[n], t]`` is ``log S(n, t)``; ``row_of[n]`` is -1 for a row not kept.
    ``columns[t, n]`` is the dense part transposed (``n < dense_rows``): the sampler
    reads a row along ``t`` for a cell's own count and a column along ``n`` for its
    parent's, each from contiguous memory.

    Examples
    --------
    >>> rows = StirlingRows(3, 4, sparse=[6])
    >>> float(np.exp(rows.table[rows.row_of[6], 3]).round())  # S(6, 3) = 225
    225.0
    >>> rows.row_of.tolist()
    [0, 1, 2, -1, -1, -1, 3]
    """

    def __init__(self, dense_rows: int, n_columns: int, sparse=()):
        dense_rows = max(1, int(dense_rows))
        sparse = sorted({int(n) for n in sparse if n >= dense_rows})
        dense = log_stirling_table(dense_rows, n_columns)
        self.dense_rows, self.n_columns, self.sparse = dense_rows, n_columns, sparse
        if sparse:
            _, extra = _rows_from(dense[-1], dense_rows - 1, sparse)
            self.table = np.ascontiguousarray(np.concatenate([dense, extra]))
        else:
            self.table = np.ascontiguousarray(dense)
        self.columns = np.ascontiguousarray(dense.T)
        top = sparse[-1] if sparse else dense_rows - 1
        self.row_of = np.full(top + 1, -1, dtype=np.int64)
        self.row_of[:dense_rows] = np.arange(dense_rows)
        self.row_of[sparse] = dense_rows + np.arange(len(sparse))

    def covers(self, dense_rows: int, n_columns: int, sparse=()) -> bool:
        """Whether these rows hold rows ``0..dense_rows - 1``, the ``sparse`` ones, and
        ``n_columns`` columns."""
        if dense_rows > self.dense_rows or n_columns > self.n_columns:
            return False
        kept = self.row_of
        return all(n < len(kept) and kept[n] >= 0 for n in sparse)
