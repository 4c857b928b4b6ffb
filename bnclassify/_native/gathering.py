"""Sums of a matrix's rows picked per row: the state sums of a variable summed out.

:func:`gathered_sums` adds, for each row, the rows of a matrix its picks name. The
compiled version adds them in turn, a tile of the matrix's columns at a time (the
tile stays in cache while every row reads it, a strip of columns summed in
registers); the numpy version adds them in turn when the rows pick few rows in all
or the matrix is narrow, and otherwise multiplies the rows' one-hot vectors with
the matrix (one BLAS product, sparse when the matrix has many rows per pick; the
``-inf`` cells through a second product of indicators), which sums in another
order: the two agree to rounding.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from . import runtime

#: numpy version: one-hot rows are multiplied dense up to this many matrix rows per pick
#: on average (BLAS twice as fast as a sparse product at 4, slower from about 8).
DENSE_ROWS = 8
#: numpy version: a matrix of at most this many columns (a table's classes) has its picked
#: rows added in turn: a product pays only over wide rows.
NARROW_COLUMNS = 16


def gathered_sums(matrix, picks, bounds=None):
    """``out[r] = matrix[picks[r, 0]] + matrix[picks[r, 1]] + ...``, shape ``(n, T)``.

    Parameters
    ----------
    matrix : ndarray of float64, shape (R, T)
        No NaN nor ``+inf``; a sum that reads a ``-inf`` cell is ``-inf``.
    picks : ndarray of int, shape (n, F)
        Rows of ``matrix``, ``0 <= picks < R``, at least one per row.
    bounds : ndarray of int, shape (S + 1,), optional
        Segments of the columns, ``0 = bounds[0] < ... < bounds[S] = T``: each row's
        largest sum in each segment (0 where it is not finite) is taken off the segment's
        sums and returned too, ``(out, peak)`` with ``peak`` of shape ``(n, S)`` (the first
        step of a log-sum-exp over each segment, done while the row is in cache).

    Examples
    --------
    >>> matrix = np.array([[1.0, 2.0], [10.0, 20.0], [100.0, 200.0]])
    >>> gathered_sums(matrix, np.array([[0, 1], [2, 2]]))
    array([[ 11.,  22.],
           [200., 400.]])
    >>> gathered_sums(matrix, np.array([[0, 1]]), bounds=np.array([0, 2]))
    (array([[-11.,   0.]]), array([[22.]]))
    """
    matrix = np.ascontiguousarray(matrix, dtype=np.float64)
    picks = np.ascontiguousarray(picks, dtype=np.int64)
    if picks.ndim != 2 or picks.shape[1] < 1:
        raise ValueError(f"picks must be 2-D with at least one column, got shape {picks.shape}")
    if picks.size and (picks.min() < 0 or picks.max() >= len(matrix)):
        raise ValueError(f"picks must be rows of the matrix, in [0, {len(matrix)})")
    if bounds is not None:
        bounds = np.ascontiguousarray(bounds, dtype=np.int64)
        if (
            len(bounds) < 2
            or bounds[0] != 0
            or bounds[-1] != matrix.shape[1]
            or (np.diff(bounds) <= 0).any()
        ):
            raise ValueError("bounds must rise from 0 to the matrix's columns")
    if not runtime.COMPILED or not hasattr(runtime.kernels, "gathered_sums"):
        out = _numpy_gathered_sums(matrix, picks)
        return out if bounds is None else (out, _numpy_peaks_taken_off(out, bounds))
    out = np.empty((len(picks), matrix.shape[1]))
    if bounds is None:
        if len(picks):
            runtime.kernels.gathered_sums(matrix, picks, out)
        return out
    peak = np.empty((len(picks), len(bounds) - 1))
    if len(picks):
        runtime.kernels.gathered_sums(matrix, picks, out, bounds, peak)
    return out, peak


def _numpy_peaks_taken_off(out, bounds) -> np.ndarray:
    peak = np.maximum.reduceat(out, bounds[:-1], axis=1)
    peak[~np.isfinite(peak)] = 0.0
    for s in range(len(bounds) - 1):
        out[:, bounds[s] : bounds[s + 1]] -= peak[:, s : s + 1]
    return peak


def _numpy_gathered_sums(matrix, picks) -> np.ndarray:
    n, n_picks = picks.shape
    n_total = len(matrix)
    if n * n_picks <= n_total or matrix.shape[1] <= NARROW_COLUMNS:
        # few rows, or narrow ones: the picked rows added in turn
        out = np.take(matrix, picks[:, 0], axis=0)
        for f in range(1, n_picks):
            out += np.take(matrix, picks[:, f], axis=0)
        return out
    if n_total > DENSE_ROWS * n_picks:  # many rows a pick: sparse
        hot = sparse.csr_matrix(
            (np.ones(picks.size), picks.ravel(), np.arange(0, picks.size + 1, n_picks)),
            shape=(n, n_total),
        )
    else:
        hot = np.zeros((n, n_total))
        np.add.at(hot, (np.repeat(np.arange(n), n_picks), picks.ravel()), 1.0)
    impossible = np.isneginf(matrix)
    if not impossible.any():
        return np.asarray(hot @ matrix)
    # 0 * -inf would be NaN in the product: the -inf cells counted by a second one
    out = np.asarray(hot @ np.where(impossible, 0.0, matrix))
    out[np.asarray(hot @ impossible.astype(float)) > 0] = -np.inf
    return out


def table_sums(codes, cells, family, strides, offsets, left_out=None) -> np.ndarray:
    """Each row's terms of a network's table nodes: ``out[r] = sum_k cells[i_k(r)]``.

    Node ``k``'s cell in row ``r`` is ``i_k(r) = offsets[k] + sum_a codes[r, family[k, a]]
    * strides[k, a]`` (its table's rows stacked in ``cells``; a padded family axis has
    stride 0), or the last row of ``cells`` (zeros: no term) where ``left_out[r, k]``. The
    nodes' cells are added in turn, as :func:`gathered_sums` adds its picks; the compiled
    version computes each row's cells as it adds them, the numpy version computes every
    cell first.

    Parameters
    ----------
    codes : ndarray of int, shape (n, m)
        Codes of the columns, any layout; where a node is not left out, its family's codes
        must be states of their columns (a cell outside ``cells`` raises ``ValueError``).
    cells : ndarray of float64, shape (R, C)
    family, strides : ndarray of int, shape (K, A)
    offsets : ndarray of int, shape (K,)
    left_out : ndarray of bool, shape (n, K), optional

    Examples
    --------
    Two nodes over one column of two states (rows 0-1 and 2-3 of ``cells``), zeros last:

    >>> cells = np.array([[1.0], [2.0], [10.0], [20.0], [0.0]])
    >>> family, strides, offsets = np.array([[0], [0]]), np.array([[1], [1]]), np.array([0, 2])
    >>> table_sums(np.array([[0], [1]]), cells, family, strides, offsets).ravel().tolist()
    [11.0, 22.0]
    """
    cells = np.ascontiguousarray(cells, dtype=np.float64)
    family, strides, offsets = (
        np.ascontiguousarray(a, dtype=np.int64) for a in (family, strides, offsets)
    )
    n = len(codes)
    if runtime.kernel_reads(codes) and hasattr(runtime.kernels, "table_sums"):
        out = np.empty((n, cells.shape[1]))
        left = np.zeros((0, 0), dtype=bool) if left_out is None else left_out
        left = np.ascontiguousarray(left, dtype=bool)
        zero = len(cells) - 1

        def share(rows):
            part = left if left_out is None else left[rows]
            runtime.kernels.table_sums(
                codes[rows], family, strides, offsets, cells, zero, part, out[rows]
            )

        if n:
            runtime.on_shares(share, n, n * family.size, align=64)
        return out
    index = np.einsum("kar,ka->kr", codes.T[family], strides) + offsets[:, None]
    if left_out is not None:
        index[left_out.T] = len(cells) - 1
    if index.size and (index.min() < 0 or index.max() >= len(cells)):
        raise ValueError(
            "table_sums: a cell outside the tables (a code outside its column's states)"
        )
    return gathered_sums(cells, index.T)
