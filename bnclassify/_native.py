"""The passes over a whole integer table, compiled when the extension is built, numpy otherwise.

Passes that read every cell of a wide integer table: its per-column ranges and
value sets (the kinds rule and the categories), its cast to column-major codes,
and the counts of a tree's families; the symmetry check of a weight matrix; the
factorization of an object column (:func:`factorize_objects`); and selective
KDB's leave-one-out pass (:func:`loo_scores`), a few table look-ups and
logarithms per row and attribute that numpy can only do through temporaries
of every candidate's scores; and the pivots of the cancellation-free elimination
of many small weight matrices (:func:`tree_pivots`, the sums over spanning trees
of BMATAN's predictions), one numpy call per pivot over the whole batch
otherwise. numpy needs
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
import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import threadpoolctl

#: The kernels' interface this module calls (``KERNELS_VERSION`` in ``_kernels.c``).
KERNELS_VERSION = 21

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
_LARGE_STRING_ID = pa.large_string().id


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

    A uint64 value beyond the int64 range saturates at the int64 maximum (a cast would wrap
    it to a negative number, and a column of such values read as a narrow one).

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
    low, high = block.min(axis=0), block.max(axis=0)
    if block.dtype == np.uint64:
        top = np.uint64(np.iinfo(np.int64).max)
        low, high = np.minimum(low, top), np.minimum(high, top)
    return low.astype(np.int64), high.astype(np.int64)


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


# -- Arrow text columns ---------------------------------------------------------------------------
#: The most distinct values of a text column :func:`factorize_texts` codes (its codes are int8).
TEXT_MAX_CODES = 127


def factorize_texts(arrays, n_rows: int):
    """Codes and sorted distinct values of Arrow text columns, one pass over each column.

    ``arrays``: pyarrow ``ChunkedArray``s of ``string`` or ``large_string``,
    each ``n_rows`` long. Returns ``(codes, categories)``: ``codes`` an
    ``(n_rows, len(arrays))`` column-major int8 array whose column ``j`` holds
    each cell's position among ``categories[j]``, the column's distinct values
    sorted (an object array of str), and -1 for a missing cell. A column with
    more than :data:`TEXT_MAX_CODES` distinct values gets ``None`` for its
    categories (and an unset codes column): the caller codes it another way.

    The compiled version reads the Arrow buffers directly, without the GIL, and
    splits the columns over the cores; the other asks pyarrow for each
    column's distinct values and their positions (``pc.index_in``). Both sort
    the values as Python does (UTF-8 bytes in order are code points in order).

    Examples
    --------
    >>> import pyarrow as pa
    >>> codes, categories = factorize_texts([pa.chunked_array([["b", None, "a", "b"]])], 4)
    >>> codes[:, 0].tolist(), categories[0].tolist()
    ([1, -1, 0, 1], ['a', 'b'])
    """
    codes = np.empty((n_rows, len(arrays)), dtype=np.int8, order="F")
    if not COMPILED:
        return codes, [_index_texts(array, codes[:, j]) for j, array in enumerate(arrays)]
    columns = [_text_chunks(array) for array in arrays]

    def factorize(share):
        return _kernels.factorize_texts(columns[share], codes, share.start)

    found = itertools.chain.from_iterable(
        _on_shares(factorize, len(columns), n_rows * len(columns))
    )
    return codes, [None if values is None else _object_array(values) for values in found]


def factorize_object_columns(values: np.ndarray):
    """Codes and sorted distinct values of the string columns of a 2-D object array.

    ``values``: ``(n_rows, k)`` objects. Returns ``(codes, categories)`` as
    :func:`factorize_texts` does: ``codes`` an ``(n_rows, k)`` column-major
    int8 array whose column ``j`` holds each cell's position among
    ``categories[j]``, the column's distinct values sorted (an object array of
    str), and -1 for a missing cell (None or a float NaN). A column it cannot
    code so gets ``None`` (and an unset codes column): one holding anything but
    exact ``str`` and missing cells, no value at all, or more than
    :data:`TEXT_MAX_CODES` distinct values (compiled: distinct objects).

    The compiled version numbers each column's cells by object identity without
    the GIL (a string column repeats a few objects), the columns split over the
    cores, then sorts each column's few distinct objects by value and renumbers
    the cells through a table of 128 entries; the other factorizes each column
    with pandas. Both give the categories and codes :func:`pd.factorize` and a
    sort of each column would give.

    Examples
    --------
    >>> values = np.array([["b", "x"], [None, 1], ["a", "x"]], dtype=object)
    >>> codes, categories = factorize_object_columns(values)
    >>> codes[:, 0].tolist(), categories
    ([1, -1, 0], [array(['a', 'b'], dtype=object), None])
    """
    n_rows, k = values.shape
    codes = np.empty((n_rows, k), dtype=np.int8, order="F")
    if not COMPILED:
        return codes, [_index_objects(values[:, j], codes[:, j]) for j in range(k)]

    def factorize(share):
        out = codes[:, share]
        distinct = _kernels.factorize_object_columns(values[:, share], out)
        tables = np.zeros((len(distinct), 128), dtype=np.int8)
        found = [_sorted_texts(objects, tables[i]) for i, objects in enumerate(distinct)]
        _kernels.remap_codes(out, tables)
        return found

    found = _on_shares(factorize, k, n_rows * k)
    return codes, list(itertools.chain.from_iterable(found))


def _sorted_texts(objects, table):
    """The sorted distinct values of a column's distinct ``objects`` (exact ``str``, None or
    a float NaN), and ``table[i]`` each object's position among them (-1: missing); None
    when an object is anything else or no value is a str."""
    if objects is None:
        return None
    for value in objects:
        if type(value) is not str and value is not None and not _is_float_nan(value):
            return None
    texts = sorted({value for value in objects if type(value) is str})
    if not texts or len(texts) > TEXT_MAX_CODES:
        return None
    rank = {text: i for i, text in enumerate(texts)}
    table[: len(objects)] = [rank.get(value, -1) if type(value) is str else -1 for value in objects]
    return _object_array(texts)


def _is_float_nan(value) -> bool:
    return type(value) is float and value != value


def _index_objects(column, out):
    """The uncompiled :func:`factorize_object_columns` of one column: its categories, codes
    into ``out``."""
    try:
        indices, uniques = pd.factorize(column)  # missing cells (None, NaN, NA, NaT) are -1
    except TypeError:  # an unhashable cell: the column path names it
        return None
    if len(uniques) > TEXT_MAX_CODES:
        return None
    missing = column[indices < 0].tolist()
    if any(value is not None and not _is_float_nan(value) for value in missing):
        return None  # pd.NA, NaT, ...: left to the column path, as the compiled version does
    table = np.zeros(128, dtype=np.int8)
    categories = _sorted_texts(list(uniques), table)
    if categories is None:
        return None
    out[:] = np.where(indices < 0, -1, table[np.maximum(indices, 0)])
    return categories


def _text_chunks(array) -> tuple:
    """A text ``ChunkedArray``'s chunks as the kernel reads them."""
    large = array.type.id == _LARGE_STRING_ID
    return tuple((*chunk.buffers(), chunk.offset, len(chunk), large) for chunk in array.chunks)


def _index_texts(array, out):
    """The uncompiled :func:`factorize_texts` of one column: its categories, codes into ``out``."""
    values = sorted(pc.unique(array).drop_null().to_pylist())
    if len(values) > TEXT_MAX_CODES:
        return None
    positions = pc.index_in(array, value_set=pa.array(values, type=array.type))
    out[:] = pc.fill_null(positions, -1).to_numpy()
    return _object_array(values)


def _object_array(values: list) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


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


# -- hierarchical Dirichlet process sampler ------------------------------------------------------
#: What the sampler returns: its trees are done, or it stopped for a larger Stirling table.
HDP_DONE, HDP_NEEDS_TABLE = 0, 1
_MASK64 = (1 << 64) - 1


def hdp_run(forest, stirling, row_of, columns, settings) -> tuple:
    """Run (or resume) the Gibbs sampler of :mod:`bnclassify.parameters.hdp` on every tree.

    ``forest`` holds the trees' arrays, changed in place (see
    :class:`bnclassify.parameters.hdp.Forest`); ``stirling[row_of[n], t]`` is
    log S(n, t), ``columns[t, n]`` the same for ``n < len(columns[0])`` (the
    dense rows, where every inner node's count lies); ``settings`` is
    ``(n_iter, burn_in, window, sweeps_per_round)`` and ``(prior_shape,
    prior_rate, max_concentration, log_q_floor)``.

    Trees are independent (each has its own concentrations and its own
    xoshiro256** generator, ``forest.rng[tree]``), so they are run one after the
    other, split over threads when the work pays for them (see
    :func:`_on_shares`; the results do not depend on the split). Each tree runs
    its sweeps from ``forest.position[tree]`` (sweep, active cell): each sweep
    draws the table count of every active cell in order from its conditional
    over ``t - window .. t + window`` (:func:`hdp_window`) and, from sweep
    ``burn_in`` on, records the posterior mean of every node whose counts move
    (``forest.record``, parents first); after every ``sweeps_per_round`` sweeps
    (and the last) each other node (``forest.leaves``, parents first) adds its
    means over the round's recorded sweeps (its counts are fixed, so they follow
    from its parent's sums) and, unless the run is over, the tree's
    concentrations are redrawn (:func:`_draw_concentrations`).

    Returns ``(HDP_DONE, None)``, or ``(HDP_NEEDS_TABLE, (row, column))`` when a
    draw needs a number the table lacks (the largest asked for); the trees then
    stand where they stopped (nothing of that draw has happened) and a call with
    a larger table resumes them.

    The compiled kernel and the Python version below perform the same
    floating-point operations in the same order, with the same generators, so
    they give identical results (``tests/test_hdp.py``).
    """
    (n_iter, burn_in, window, per_round), priors = settings
    arrays = (
        forest.active, forest.active_node, forest.parent, forest.start, forest.group,
        forest.N, forest.T, forest.n, forest.t, forest.record, forest.leaves,
        forest.sampled_nodes, row_of, forest.position, forest.tree_active, forest.tree_record,
        forest.tree_leaves, forest.tree_sampled, forest.tree_groups, forest.concentration,
        forest.log_concentration, stirling, columns, forest.p, forest.acc, forest.round_acc,
        forest.rng,
    )  # fmt: skip
    run = _kernels.hdp_run if COMPILED else _python_hdp_run

    def trees(share):
        need = np.zeros(2, dtype=np.int64)
        status = run(
            *arrays, need, share.start, share.stop, n_iter, burn_in, window, per_round, *priors
        )
        return status, need

    n_trees = len(forest.tree_active) - 1
    work = len(forest.active) * n_iter * (2 * window + 1)
    # the Python version works on lists of the whole arrays and holds the GIL: one share
    results = _on_shares(trees, n_trees, work) if COMPILED else [trees(slice(0, n_trees))]
    needs = [need for status, need in results if status == HDP_NEEDS_TABLE]
    if not needs:
        return HDP_DONE, None
    return HDP_NEEDS_TABLE, tuple(int(x) for x in np.max(needs, axis=0))


def hdp_window(n_k, t_k, n_up, t_up, total_up, log_a, a_up, row, column, window):
    """``(lo, weights)``: a table count's conditional over its window, unnormalised.

    For a cell with count ``n_k`` and table count ``t_k`` whose parent cell has
    ``n_up`` and ``t_up`` (its node's total count ``total_up``, concentration
    ``a_up``), the window is ``lo .. hi``: at least 1 and at least what keeps the
    parent's count above its table count, at most ``n_k``, within ``window`` of
    ``t_k``. The weight of ``v`` is proportional to ``S(n_k, v) a^v S(n_up + v -
    t_k, t_up) / (a_up)_(total_up + v - t_k)`` (``(x)_m`` the rising factorial),
    the factors of the tree's likelihood that change with ``v``: computed as
    ``exp(log S(n_k, v) + v log a + log S(..) - best)`` (``best`` the largest
    exponent) times the rising factorial's factors beyond ``v`` up to ``hi`` (a
    product, neither a logarithm nor a division per value). A weight that
    underflows to 0 is below ``1e-240`` of the largest: the window is short, the
    product at most ``(a_up + total_up + window)^(2 window)``.
    ``row(n)`` gives ``log S(n, .)`` and ``column(t)`` ``log S(., t)`` over the dense
    rows (IndexError ``(row, column)`` where the table lacks one). Empty weights:
    only one value is allowed.
    """
    lo = max(1, t_k - window, t_k + t_up - n_up)
    hi = min(n_k, t_k + window)
    if lo >= hi:
        return lo, []
    own = row(n_k)
    if hi >= len(own) or t_up >= len(own):
        raise IndexError((n_k, max(hi, t_up)))
    above = column(t_up)
    exponents, factors = [], []
    best = -math.inf
    for v in range(lo, hi + 1):
        m = n_up + v - t_k
        if m >= len(above):
            raise IndexError((m, 0))
        factors.append(a_up + (total_up + v - 1 - t_k))
        exponent = own[v] + v * log_a + above[m]
        if exponent > best:
            best = exponent
        exponents.append(exponent)
    weights = [0.0] * len(exponents)
    suffix = 1.0
    for j in range(len(exponents) - 1, -1, -1):
        weights[j] = math.exp(exponents[j] - best) * suffix
        suffix *= factors[j]
    return lo, weights


class _Xoshiro:
    """xoshiro256** (Blackman and Vigna), the sampler's generator, as the kernel runs it."""

    def __init__(self, state):
        self.s = [int(x) for x in state]

    def next(self):
        s0, s1, s2, s3 = self.s
        result = (_rotl((s1 * 5) & _MASK64, 7) * 9) & _MASK64
        t = (s1 << 17) & _MASK64
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = _rotl(s3, 45)
        self.s = [s0, s1, s2, s3]
        return result

    def uniform(self):
        """In [0, 1)."""
        return (self.next() >> 11) * 1.1102230246251565e-16

    def open_uniform(self):
        """In (0, 1)."""
        return ((self.next() >> 11) + 0.5) * 1.1102230246251565e-16

    def normal(self):
        """Marsaglia's polar method (one of the pair)."""
        while True:
            u = 2.0 * self.uniform() - 1.0
            v = 2.0 * self.uniform() - 1.0
            s = u * u + v * v
            if 0.0 < s < 1.0:
                return u * math.sqrt(-2.0 * math.log(s) / s)

    def gamma(self, shape):
        """A Gamma(shape, 1) draw (Marsaglia and Tsang; boosted below shape 1)."""
        if shape < 1.0:
            return self.gamma(shape + 1.0) * self.open_uniform() ** (1.0 / shape)
        d = shape - 1.0 / 3.0
        c = 1.0 / math.sqrt(9.0 * d)
        while True:
            x = self.normal()
            v = 1.0 + c * x
            if v <= 0.0:
                continue
            v = v * v * v
            u = self.open_uniform()
            if math.log(u) < 0.5 * x * x + d - d * v + d * math.log(v):
                return d * v


def _rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & _MASK64


def _python_hdp_run(
    active, active_node, parent, start, group, node_n, node_t, cell_n, cell_t, record, leaves,
    sampled, row_of, position, tree_active, tree_record, tree_leaves, tree_sampled, tree_groups,
    concentration, log_concentration, stirling, columns, p, acc, round_acc, rng_states, need,
    tree_lo,
    tree_hi, n_iter, burn_in, window, per_round, prior_shape, prior_rate, max_concentration,
    log_q_floor,
) -> int:  # fmt: skip
    N, T, n, t = node_n.tolist(), node_t.tolist(), cell_n.tolist(), cell_t.tolist()
    up, first, own_group = parent.tolist(), start.tolist(), group.tolist()
    a, log_a = concentration.tolist(), log_concentration.tolist()
    rows = row_of.tolist()
    cells, nodes = active.tolist(), active_node.tolist()
    mean, total, this_round = p.tolist(), acc.tolist(), round_acc.tolist()
    cache, column_cache = {}, {}

    def row(m):
        if m >= len(rows) or rows[m] < 0:
            raise IndexError((m, 0))
        if m not in cache:
            cache[m] = stirling[rows[m]].tolist()
        return cache[m]

    def column(t_up):
        if t_up not in column_cache:
            column_cache[t_up] = columns[t_up].tolist()
        return column_cache[t_up]

    status = HDP_DONE
    for tree in range(tree_lo, tree_hi):
        rng = _Xoshiro(rng_states[4 * tree : 4 * tree + 4])
        inner = record[tree_record[tree] : tree_record[tree + 1]].tolist()
        outer = leaves[tree_leaves[tree] : tree_leaves[tree + 1]].tolist()
        drawn = sampled[tree_sampled[tree] : tree_sampled[tree + 1]].tolist()
        groups = range(tree_groups[tree], tree_groups[tree + 1])
        begin, end = int(tree_active[tree]), int(tree_active[tree + 1])
        sweep, resume = int(position[2 * tree]), int(position[2 * tree + 1])
        while sweep < n_iter:
            for k in range(begin + resume, end):
                cell, node = cells[k], nodes[k]
                n_k = n[cell]
                if n_k < 2:
                    continue
                node_up = up[node]
                cell_up = first[node_up] + (cell - first[node])
                t_k = t[cell]
                try:
                    lo, weights = hdp_window(
                        n_k, t_k, n[cell_up], t[cell_up], N[node_up], log_a[own_group[node]],
                        a[own_group[node_up]], row, column, window,
                    )  # fmt: skip
                except IndexError as missing:
                    need[:] = missing.args[0]
                    position[2 * tree : 2 * tree + 2] = sweep, k - begin
                    status = HDP_NEEDS_TABLE
                    break
                if not weights:
                    continue
                mass = 0.0
                for w in weights:
                    mass += w
                target = rng.uniform() * mass
                chosen = lo + len(weights) - 1
                cumulative = 0.0
                for j in range(len(weights)):
                    cumulative += weights[j]
                    if target < cumulative:
                        chosen = lo + j
                        break
                step = chosen - t_k
                if step:
                    t[cell] = chosen
                    T[node] += step
                    n[cell_up] += step
                    N[node_up] += step
            if status != HDP_DONE:
                break
            resume = 0
            if sweep >= burn_in:
                for node in inner:
                    _record_node(node, up, first, own_group, a, N, n, mean, total, this_round)
            if (sweep + 1) % per_round == 0 or sweep + 1 == n_iter:
                recorded = sweep + 1 - max(sweep - sweep % per_round, burn_in)
                if recorded > 0:
                    _still_means(outer, up, first, own_group, a, N, n, total, this_round, recorded)
                    for node in inner:
                        for cell in range(first[node], first[node + 1]):
                            this_round[cell] = 0.0
                if sweep + 1 < n_iter:
                    _draw_concentrations(
                        drawn, groups, own_group, N, T, a, log_a, rng, prior_shape, prior_rate,
                        max_concentration, log_q_floor,
                    )  # fmt: skip
            sweep += 1
        rng_states[4 * tree : 4 * tree + 4] = rng.s
        if status != HDP_DONE:
            break
        position[2 * tree : 2 * tree + 2] = n_iter, 0
    node_n[:], node_t[:], cell_n[:], cell_t[:] = N, T, n, t
    concentration[:], log_concentration[:] = a, log_a
    p[:], acc[:], round_acc[:] = mean, total, this_round
    return status


def _record_node(node, up, first, own_group, a, N, n, mean, total, this_round):
    conc = a[own_group[node]]
    begin, node_up = first[node], up[node]
    size = first[node + 1] - begin
    denominator = N[node] + conc
    for j in range(size):
        cell = begin + j
        above = 1.0 / size if node_up < 0 else mean[first[node_up] + j]
        value = (n[cell] + conc * above) / denominator
        mean[cell] = value
        total[cell] += value
        this_round[cell] += value


def _still_means(still, up, first, own_group, a, N, n, total, this_round, recorded):
    for node in still:
        begin, node_up = first[node], up[node]
        size = first[node + 1] - begin
        conc = a[own_group[node]]
        denominator = N[node] + conc
        for j in range(size):
            cell = begin + j
            above = recorded / size if node_up < 0 else this_round[first[node_up] + j]
            value = (recorded * n[cell] + conc * above) / denominator
            this_round[cell] = value
            total[cell] += value


def _draw_concentrations(
    drawn, groups, own_group, N, T, a, log_a, rng, prior_shape, prior_rate, max_concentration,
    log_q_floor,
):  # fmt: skip
    """A tree's tied concentrations by the auxiliary-variable step: ``log q_j`` of ``q_j ~
    Beta(a, N_j)`` (as ``X / (X + Y)`` of two Gamma draws) for each of its nodes, then ``a ~
    Gamma(shape + sum T_j, rate + sum log(1 / q_j))``, at most ``max_concentration``."""
    rate = {g: prior_rate for g in groups}
    shape = {g: prior_shape for g in groups}
    for node in drawn:
        g = own_group[node]
        x = rng.gamma(a[g])
        y = rng.gamma(float(N[node]))
        log_q = log_q_floor
        if x > 0.0:
            log_q = math.log(x) - math.log(x + y)
            if log_q < log_q_floor:
                log_q = log_q_floor
        rate[g] -= log_q
        shape[g] += T[node]
    for g in groups:
        value = rng.gamma(shape[g]) / rate[g]
        if value > max_concentration:
            value = max_concentration
        if value < 1e-300:
            value = 1e-300
        a[g] = value
        log_a[g] = math.log(value)


# -- ridge-penalised log-linear tables over trees ------------------------------------------------


def row_sums(values: np.ndarray) -> np.ndarray:
    """The sum of each row of a 2-D array, left to right.

    numpy's sum over short rows costs ~10x a loop over the columns; a matrix
    product would call BLAS, whose threads only wait on a busy machine.

    Examples
    --------
    >>> row_sums(np.array([[1.0, 2.0], [3.0, 4.0]]))
    array([3., 7.])
    """
    if values.shape[1] > 8:
        return np.einsum("ij->i", values)
    total = values[:, 0].copy()
    for j in range(1, values.shape[1]):
        total += values[:, j]
    return total


#: A predicted decrease below this share of the objective is a step near the optimum, taken whole.
HLS_LOCAL = 1e-10


def hls_fit(forest, beta, tolerance: float, max_steps: int) -> list:
    """Newton's method for the coefficients of :mod:`bnclassify.parameters.hierarchy`'s forest.

    ``forest`` is a :class:`bnclassify.parameters.hierarchy.Forest`, ``beta`` its
    starting coefficients (one ``(nodes, states)`` array per level). Each step
    takes the exact gradient and the direction of the approximate Hessian
    (a diagonal minus a rank-one block per node, children's rank-one parts
    merged; see that module), then halves it until the penalised
    negative log-likelihood falls enough (Armijo), except near the optimum
    (a predicted decrease below ``HLS_LOCAL`` of the objective, which rounding
    would hide), where the whole step is taken; the iteration stops when no
    coefficient moved more than ``tolerance`` or after ``max_steps`` steps.

    The compiled kernel visits the nodes one by one, the numpy version below a
    level at a time; both do the same arithmetic on each node but add some
    sums in another order, so they agree to the tolerance (``tests/test_hls.py``
    checks 1e-9), not bit for bit.

    Returns
    -------
    beta : list of ndarray
        The coefficients per level.
    log_p : list of ndarray
        ``log softmax`` of the nodes' predictors, per level.
    """
    if not COMPILED:
        return _numpy_hls_fit(forest, beta, tolerance, max_steps)
    parent, child_start, child_stop = forest.flat_structure()
    counts, totals = forest.flat_counts()
    flat = np.ascontiguousarray(np.concatenate(beta), dtype=float).ravel()
    log_p = np.empty(counts.shape)
    r = forest.n_states
    _kernels.hls_fit(
        parent, child_start, child_stop, forest.flat_ridge(), counts, totals, flat, log_p, r,
        tolerance, max_steps, HLS_LOCAL,
    )  # fmt: skip
    bounds = np.cumsum(forest.sizes)[:-1]
    return np.split(flat.reshape(-1, r), bounds), np.split(log_p.reshape(-1, r), bounds)


def _numpy_hls_fit(forest, beta, tolerance, max_steps):
    log_p = forest.node_log_probabilities(beta)
    value = forest.objective(beta, log_p)
    for _ in range(max_steps):
        p = [np.exp(lp) for lp in log_p]
        residual = [
            n[:, None] * q - c for n, q, c in zip(forest.totals, p, forest.counts, strict=True)
        ]
        sums = forest.gather_up(residual)
        gradient = [s + ridge * b for s, ridge, b in zip(sums, forest.ridge, beta, strict=True)]
        step = _hls_direction(forest, _hls_blocks(forest, p), gradient)
        decrease = -sum(float((g * s).sum()) for g, s in zip(gradient, step, strict=True))
        size = max(float(np.abs(s).max(initial=0.0)) for s in step)
        if size <= tolerance or decrease <= 0:
            break
        # near the optimum the objective's rounding hides the decrease: take the whole step
        local = decrease <= HLS_LOCAL * (1.0 + abs(value))
        t = 1.0
        while t >= 1e-8:
            trial = [b + t * s for b, s in zip(beta, step, strict=True)]
            trial_log_p = forest.node_log_probabilities(trial)
            trial_value = forest.objective(trial, trial_log_p)
            if local or trial_value <= value - 1e-4 * t * decrease:
                break
            t /= 2
        else:  # no decrease along the step
            break
        beta, log_p, value = trial, trial_log_p, trial_value
        if size * t <= tolerance:
            break
    return beta, log_p


def _hls_blocks(forest, p_nodes):
    """Per level, ``(scale, z, gain)``: each node's block of the approximate Hessian inverted,
    ``diag(1 / scale) + gain z z^T`` (see :mod:`bnclassify.parameters.hierarchy`)."""
    blocks = [None] * forest.depth
    d_below = u_below = None
    for level in range(forest.depth - 1, -1, -1):
        ridge, inner = forest.ridge[level], forest.inner[level]
        n = forest.totals[level][:, None]
        p = p_nodes[level]
        d, u = n * p, np.sqrt(n) * p  # the node's own rows: n (diag p - p p^T)
        leaf = np.ones(len(d), dtype=bool)
        if d_below is not None:
            children = forest.children[level + 1]
            leaf[:inner] = np.diff(children.indptr) == 0
            # the own rows' and the children's rank-one parts merged into one:
            # sum_c |u_c| u_c / sqrt(sum |u_c|^2), the own rows one of the parts
            size = np.sqrt(row_sums(u_below**2))
            own = row_sums(u[:inner] ** 2)
            norm = np.sqrt(children @ size**2 + own)
            merged = children @ (size[:, None] * u_below) + np.sqrt(own)[:, None] * u[:inner]
            d[:inner] += children @ d_below
            u[:inner] = np.where(
                leaf[:inner, None], u[:inner], merged / np.where(norm > 0, norm, 1.0)[:, None]
            )
        scale = d + ridge
        z = u / scale
        # 1 - u^T z, at a leaf without cancellation: sum_x p_x ridge / (n p_x + ridge)
        deficit = np.where(leaf, row_sums(p * ridge / scale), 1.0 - row_sums(u * z))
        gain = 1.0 / np.maximum(deficit, 1e-300)
        blocks[level] = (scale, z, gain)
        d_below = ridge * d / scale
        u_below = (ridge[:, 0] * np.sqrt(gain))[:, None] * z
    return blocks


def _hls_inverse(block, values):
    scale, z, gain = block
    return values / scale + (gain * row_sums(z * values))[:, None] * z


def _hls_direction(forest, blocks, gradient):
    """``-P^{-1} gradient`` for the approximate Hessian ``P`` (an up and a down pass)."""
    linear = [None] * forest.depth  # each node's linear term in its predictor's change
    linear[-1] = gradient[-1]
    for level in range(forest.depth - 2, -1, -1):
        below = forest.ridge[level + 1] * _hls_inverse(blocks[level + 1], linear[level + 1])
        passed = forest.children[level + 1] @ (below - gradient[level + 1])
        linear[level] = gradient[level].copy()
        linear[level][: forest.inner[level]] += passed
    change = _hls_inverse(blocks[0], -linear[0])
    step = [change]
    for level in range(1, forest.depth):
        above = np.take(change, forest.parent[level], axis=0)
        change = _hls_inverse(blocks[level], forest.ridge[level] * above - linear[level])
        step.append(change - above)
    return step


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
    if not COMPILED:
        return _numpy_tree_pivots(a, smallest, pivots)

    def share(rows):
        _kernels.tree_pivots(a[rows], pivots[rows], float(smallest))

    _on_shares(share, batch, batch * m * m)
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


def tree_log_sums(cells, ratio, base, fill, smallest: float, scale=None) -> tuple:
    """For each row and class, the log pivots' sum of the elimination of a built matrix.

    Matrix ``(r, c)`` is ``base * ratio[c, cells[r, c, :, None], cells[r, c, None, :]] +
    fill``: column-scaled weights (zero diagonal) times per-state factors, as
    :func:`tree_pivots` takes them, built one at a time in a scratch matrix instead of a
    ``(rows, classes, m, m)`` stack (the compiled version; the numpy one builds blocks).
    The compiled version eliminates four pivots per pass over the matrix, the same
    products and sums in the same order.

    With ``scale``, the matrices are symmetric but for the column scaling: ``base[u, v]
    = W[u, v] / t_v`` and ``fill`` alike with ``W`` symmetric, ``ratio`` symmetric in its
    last two axes, and ``scale[k, j] = t_k / t_j``. The Schur complements of a symmetric
    matrix stay symmetric, so only row 0 and the lower triangle are eliminated, each
    step's row ``k`` rebuilt from its column as ``a[j, k] * scale[k, j]``: half the
    multiply-adds. The caller keeps ``scale`` well inside the float range (a row entry
    rebuilt from a column entry flushed to 0 must stay negligible).

    Parameters
    ----------
    cells : ndarray of int, shape (n, C, m)
        Indices into the last two axes of ``ratio``.
    ratio : ndarray of shape (C, S, S)
    base, fill : ndarray of shape (m, m)
    smallest : float
        A pivot below it (or not finite) flags its matrix (and divides as 1).
    scale : ndarray of shape (m, m), optional
        The ratios of the column scales of symmetric weights: one triangle is eliminated.

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
    """
    cells = np.ascontiguousarray(cells, dtype=np.int64)
    ratio, base, fill = (np.ascontiguousarray(a, dtype=float) for a in (ratio, base, fill))
    if scale is not None:
        scale = np.ascontiguousarray(scale, dtype=float)
    n, n_classes, m = cells.shape
    out = np.empty((n, n_classes))
    low = np.zeros((n, n_classes), dtype=np.uint8)
    if not COMPILED:
        return _numpy_tree_log_sums(cells, ratio, base, fill, smallest, out, low, scale)

    def share(rows):
        _kernels.tree_log_sums(
            cells[rows], ratio, base, fill, float(smallest), out[rows], low[rows], scale
        )

    _on_shares(share, n, n * n_classes * m * m)
    return out, low.astype(bool)


def _numpy_tree_log_sums(cells, ratio, base, fill, smallest, out, low, scale=None):
    n, n_classes, m = cells.shape
    by_class = np.arange(n_classes)[:, None, None]
    step = max(1, BLOCK_CELLS * 16 // (n_classes * m * m))
    for start in range(0, n, step):
        g = cells[start : start + step]
        a = base * ratio[by_class, g[..., None], g[..., None, :]] + fill  # (b, C, m, m)
        a = a.reshape(-1, m, m)
        pivots = np.empty((len(a), m - 1))
        _numpy_tree_pivots(a, smallest, pivots, scale)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[start : start + step] = np.log(pivots).sum(axis=-1).reshape(-1, n_classes)
        flagged = ~((pivots >= smallest) & (pivots <= np.finfo(float).max)).all(axis=-1)
        low[start : start + step] = flagged.reshape(-1, n_classes)
    return out, low.astype(bool)


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
    if COMPILED:
        _kernels.family_cells(codes, cards, attributes, family, parent, sizes)
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
    if COMPILED:
        return _kernels.lone_families(family, parent, weights, int(n_families), int(n_parents))
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
    if COMPILED:
        counts = np.zeros((int(n_cells), C))
        _kernels.cell_counts(cells.reshape(-1, cells.shape[-1]), y, weights, counts)
        return counts
    seen = cells >= 0
    yv = np.broadcast_to(y, cells.shape)[seen]
    wv = np.broadcast_to(weights, cells.shape)[seen]
    return np.bincount(cells[seen] * C + yv, weights=wv, minlength=int(n_cells) * C).reshape(-1, C)


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
    if COMPILED:
        _kernels.pair_information(columns, y, w, cards, C, cmi, rows, skip)
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
