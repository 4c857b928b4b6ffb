"""The passes over a whole integer table, compiled when the extension is built, numpy otherwise.

Passes that read every cell of a wide integer table: its per-column ranges and
value sets (the kinds rule and the categories), its cast to column-major codes,
and the counts of a tree's families; the symmetry check of a weight matrix; the
factorization of an object column (:func:`factorize_objects`); and selective
KDB's leave-one-out pass (:func:`loo_scores`), a few table look-ups and
logarithms per row and attribute that numpy can only do through temporaries
of every candidate's scores. numpy needs
several full-size temporaries for each integer pass; the C kernels in
``_kernels.c`` read each cell once and release the GIL, so the ranges, the cast
and the counts are split over the cores (the object pass holds the GIL: its
cells are Python objects). Both versions give identical results
(``tests/test_native.py``); ``COMPILED`` says which one runs. The extension is
optional at install time: without a C compiler only speed differs.

Threads. A pass over at least ``THREAD_CELLS`` cells is split over
:func:`cpu_count` threads (the calling one included), and so is the column
encoder of ``bnclassify.data.encoding``, capped only by the user's limit: threadpoolctl sees
the compiled extension as a library with ``user_api="bnclassify"``, so
``threadpool_limits(1)`` (or ``threadpool_limits(2, user_api="bnclassify")``)
bounds both, as it bounds BLAS and OpenMP. An install without the extension
has no library for threadpoolctl to find; there :func:`thread_limit` is the
CPU count. The worker threads are kept for the process and grow to the limit
in force when a pass asks for them.

>>> from threadpoolctl import threadpool_limits
>>> with threadpool_limits(limits=1):
...     thread_limit() == 1 or not COMPILED
True
"""

from __future__ import annotations

import itertools
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import threadpoolctl

#: The kernels' interface this module calls (``KERNELS_VERSION`` in ``_kernels.c``).
KERNELS_VERSION = 8

try:
    from . import _kernels
except ImportError:  # installed without a C compiler: the numpy versions below
    _kernels = None
if getattr(_kernels, "VERSION", None) != KERNELS_VERSION:
    # a build older than this module (a failed rebuild keeps the old library): not used
    _kernels = None

#: Whether the compiled kernels are in use (``BNCLASSIFY_NUMPY_KERNELS=1`` turns them off).
COMPILED = _kernels is not None and not os.environ.get("BNCLASSIFY_NUMPY_KERNELS")

#: Cells per block of the numpy versions: blocks of index arrays that stay in cache.
BLOCK_CELLS = 1 << 18
#: Cells (rows x columns, or rows x families) above which a kernel's work is split over the
#: cores.
THREAD_CELLS = 1 << 21
#: Shares of a split pass per thread (see ``_on_shares``): small enough that a late thread
#: leaves little to wait for, large enough that the calls' overhead stays negligible.
SHARES_PER_THREAD = 2
_KERNEL_DTYPES = frozenset("bhilqBHI")


def cpu_count() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


_limit = None  # threads allowed by threadpoolctl; None: no limit set


def thread_limit() -> int:
    """Most threads a split pass (or the column encoder, ``bnclassify.data.encoding``) may use.

    The limit set through threadpoolctl, else :func:`cpu_count`.

    Examples
    --------
    >>> thread_limit() >= 1
    True
    """
    return cpu_count() if _limit is None else _limit


class _ThreadLimit(threadpoolctl.LibController):
    """threadpoolctl's handle on bnclassify's threads, found as the loaded ``_kernels`` library.

    Its ``dynlib`` (the extension loaded again by ctypes) is never called: the
    limit is this module's own variable.
    """

    user_api = "bnclassify"
    internal_api = "bnclassify"
    filename_prefixes = ("_kernels",)
    check_symbols = ("PyInit__kernels",)  # only bnclassify's extension module exports it

    def get_num_threads(self):
        return thread_limit()

    def set_num_threads(self, num_threads):
        global _limit
        _limit = max(1, int(num_threads))

    def get_version(self):
        return str(KERNELS_VERSION)


if _kernels is not None:
    threadpoolctl.register(_ThreadLimit)

_pool = None
_pool_size = 0
_pool_pid = None
_pool_lock = threading.Lock()


def _workers(n: int) -> ThreadPoolExecutor:
    """A pool of at least ``n`` worker threads, kept for the process (not for a forked child,
    which has none of the parent's threads)."""
    global _pool, _pool_size, _pool_pid
    with _pool_lock:
        if _pool is None or _pool_pid != os.getpid() or _pool_size < n:
            # a smaller pool is dropped, not shut down: another thread may still be submitting
            # to it, and its idle workers end once it is collected
            _pool = ThreadPoolExecutor(n, thread_name_prefix="bnclassify")
            _pool_size, _pool_pid = n, os.getpid()
        return _pool


def _on_shares(function, n_items: int, n_cells: int, align: int = 1) -> list:
    """``function(share)`` for consecutive slices ``share`` of ``range(n_items)``, on every
    core when ``n_cells`` is large enough to pay for it. Returns the results in order.

    The calling thread works too, and every thread takes the next share left
    until none is: when a worker is slow to be scheduled (the other core busy,
    e.g. with a BLAS library's spinning threads), this thread does its shares
    instead of waiting for it. Share bounds are multiples of ``align`` (e.g. 64
    rows: no two threads write one cache line of a column).
    """
    units = max(1, n_items // align)  # the most shares the alignment allows
    threads = min(cpu_count(), thread_limit(), units)
    if threads < 2 or n_cells < THREAD_CELLS:
        return [function(slice(0, n_items))]
    n_shares = min(SHARES_PER_THREAD * threads, units)
    bounds = [-(-n_items * k // n_shares) // align * align for k in range(n_shares)] + [n_items]
    shares = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]
    results = [None] * len(shares)
    claims = itertools.count()  # next() on it is atomic under the GIL

    def work():
        for k in iter(claims.__next__, None):
            if k >= len(shares):
                return
            results[k] = function(shares[k])

    others = [_workers(threads - 1).submit(work) for _ in range(threads - 1)]
    work()
    for other in others:
        other.result()
    return results


def _kernel_reads(block: np.ndarray) -> bool:
    return (
        COMPILED and block.ndim == 2 and block.dtype.char in _KERNEL_DTYPES and block.dtype.isnative
    )


# -- ranges and value sets ------------------------------------------------------------------------
def column_ranges(block: np.ndarray):
    """``(low, high)`` of a 2-D integer array: each column's smallest and largest value (int64).

    Examples
    --------
    >>> low, high = column_ranges(np.array([[3, 0], [1, 2]]))
    >>> low.tolist(), high.tolist()
    ([1, 0], [3, 2])
    """
    if _kernel_reads(block) and block.shape[0]:

        def ranges(rows):
            low, high = np.empty(block.shape[1], np.int64), np.empty(block.shape[1], np.int64)
            _kernels.column_ranges(block[rows], low, high)
            return low, high

        shares = _on_shares(ranges, len(block), block.size, align=64)
        return (
            np.minimum.reduce([low for low, _ in shares]),
            np.maximum.reduce([high for _, high in shares]),
        )
    return block.min(axis=0).astype(np.int64), block.max(axis=0).astype(np.int64)


def value_bits(block: np.ndarray, top: int, high=None) -> np.ndarray:
    """Each column's values (integers in ``[0, top]``, ``top < 64``) as the bits of a uint64.

    ``high``: each column's largest value (int64), when known: the compiled
    version then looks for each possible value of a byte column instead of
    reading every cell.

    Examples
    --------
    >>> value_bits(np.array([[0, 5], [2, 5]]), 5).tolist()
    [5, 32]
    """
    # the kernel reads a column at a time: on rows laid out contiguously (a C-ordered
    # int64 table) numpy's row-wise OR is 15x faster than its strided reads
    if _kernel_reads(block) and block.strides[0] == block.itemsize:
        bits = np.empty(block.shape[1], np.uint64)
        _kernels.value_bits(block, bits, None if high is None else np.asarray(high, np.int64))
        return bits
    # OR-reducing 1 << value down the rows in the narrowest unsigned type that holds the
    # bits reads the block once with no index arrays
    dtype = next(t for t in (np.uint8, np.uint16, np.uint32, np.uint64) if top < 8 * t().itemsize)
    one = dtype(1)
    bits = np.zeros(block.shape[1], dtype=dtype)
    step = max(1, BLOCK_CELLS // max(block.shape[1], 1))
    for start in range(0, len(block), step):
        rows = block[start : start + step].astype(dtype)
        bits |= np.bitwise_or.reduce(np.left_shift(one, rows), axis=0)
    return bits.astype(np.uint64)


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
    if COMPILED and values.dtype == np.float64 and values.dtype.isnative:
        return _kernels.is_symmetric(values)
    m = len(values)
    for i in range(0, m, block):
        for j in range(i, m, block):
            tile = values[i : i + block, j : j + block]
            if not np.array_equal(tile, values[j : j + block, i : i + block].T):
                return False
    return True


# -- codes ---------------------------------------------------------------------------------------
def column_major(block: np.ndarray, dtype) -> np.ndarray:
    """``block`` cast to ``dtype`` (its values fit) as a column-major array.

    Examples
    --------
    >>> codes = column_major(np.array([[1, 0], [2, 1]]), np.int8)
    >>> codes.flags.f_contiguous, codes.tolist()
    (True, [[1, 0], [2, 1]])
    """
    if block.flags.f_contiguous:  # a DataFrame's own 2-D block: one plain cast
        return block.astype(dtype, order="F")
    out = np.empty(block.shape, dtype=dtype, order="F")
    if _kernel_reads(block) and np.dtype(dtype).itemsize <= 2:

        def cast(rows):
            _kernels.copy_cast(block[rows], out[rows])

        _on_shares(cast, len(block), block.size, align=64)
        return out
    step = max(1, (BLOCK_CELLS >> 2) // block.shape[1])
    for start in range(0, len(block), step):
        out[start : start + step] = block[start : start + step]  # cache-sized transposes
    return out


# -- object columns ------------------------------------------------------------------------------
def factorize_objects(values: np.ndarray):
    """``pd.factorize(values)`` of a 1-D object array: ``(codes, uniques)``.

    Codes number the distinct values in order of first appearance; a missing
    cell (None, NaN, ``pd.NA``, ``NaT``) is -1, and equal values held by
    different objects share a code, all exactly as pandas has them. The
    compiled version first numbers the cells by object identity (a pointer
    table: a string column repeats a few objects, and pandas hashes and
    compares every cell's value while holding the GIL), then lets pandas
    factorize only the distinct objects (or every cell, when most cells hold
    their own object). An unhashable value raises pandas' ``TypeError``.

    Examples
    --------
    >>> codes, uniques = factorize_objects(np.array(["b", "a", None, "b"], dtype=object))
    >>> codes.tolist(), uniques.tolist()
    ([0, 1, -1, 0], ['b', 'a'])
    """
    indices, to_unique, uniques = factorize_objects_in_two(values)
    return (indices, uniques) if to_unique is None else (to_unique[indices], uniques)


def factorize_objects_in_two(values: np.ndarray):
    """:func:`factorize_objects` as ``(indices, to_unique, uniques)``, the codes being
    ``to_unique[indices]`` (``to_unique`` None: ``indices`` are the codes).

    A caller that maps the codes through a table of its own composes the two small
    tables instead of making the codes: one pass over the cells, not two.

    Examples
    --------
    >>> values = np.array(["b", "a", "b"], dtype=object)
    >>> indices, to_unique, uniques = factorize_objects_in_two(values)
    >>> (indices if to_unique is None else to_unique[indices]).tolist(), uniques.tolist()
    ([0, 1, 0], ['b', 'a'])
    """
    compiled = COMPILED and isinstance(values, np.ndarray) and values.ndim == 1
    if not compiled or values.dtype != object:
        return _plain_factorize(values)
    identity = np.empty(len(values), dtype=np.int64)
    distinct = _kernels.factorize_objects(values, identity)
    if distinct is None:  # most cells hold their own object: nothing to gain over pandas
        return _plain_factorize(values)
    # fromiter keeps a tuple one element (an object array built from a list would unpack it)
    to_unique, uniques = pd.factorize(np.fromiter(distinct, dtype=object, count=len(distinct)))
    return identity, to_unique, uniques


def _plain_factorize(values):
    codes, uniques = pd.factorize(values)
    return codes, None, uniques


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
    if COMPILED and codes.ndim == 2 and codes.dtype.char in "bhilq" and len(children):
        arrays = (
            np.ascontiguousarray(y, dtype=np.int64),
            None if weights is None else np.ascontiguousarray(weights, dtype=np.float64),
            children,
            parents,
            np.asarray(child_cards, dtype=np.int64),
            offsets,
        )

        def count(edges):
            _kernels.count_families(codes, *arrays, total, n_classes, flat, edges.start, edges.stop)

        # each share of the families fills its own cells: no two threads write the same one
        _on_shares(count, len(children), codes.shape[0] * len(children))
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
    rows = max(1, BLOCK_CELLS // len(children))  # cache-sized index blocks
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


#: The losses :func:`loo_scores` sums, in the compiled kernel's numbering.
LOO_CRITERIA = ("rmse", "zero_one", "log_loss")
#: Relative size under which a weighted count is zero (sums of weights are rounded).
LOO_SEEN = 1e-9


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
    ``-log P(y | x)``. The compiled kernel takes one row at a time; this
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
    if COMPILED:
        _kernels.loo_scores(
            *arrays, float(class_weight.sum()), inverse_r, LOO_CRITERIA.index(criterion), total
        )
        return total
    family, parent, family_counts, parent_counts, y, weights, _ = arrays
    D, C = family.shape[1], family_counts.shape[1]
    block = max(1, BLOCK_CELLS * 16 // ((2 * D + 1) * C))  # rows whose temporaries fit
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
