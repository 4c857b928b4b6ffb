"""Passes over a whole table for its encoding: column ranges and value sets, the cast to
column-major codes, and the factorization of object and Arrow text columns."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from . import runtime

_LARGE_STRING_ID = pa.large_string().id


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
    if runtime.kernel_reads(block) and block.shape[0]:

        def ranges(rows):
            low, high = np.empty(block.shape[1], np.int64), np.empty(block.shape[1], np.int64)
            runtime.kernels.column_ranges(block[rows], low, high)
            return low, high

        shares = runtime.on_shares(ranges, len(block), block.size, align=64)
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
    if runtime.kernel_reads(block) and block.strides[0] == block.itemsize:
        bits = np.empty(block.shape[1], np.uint64)
        runtime.kernels.value_bits(
            block, bits, None if high is None else np.asarray(high, np.int64)
        )
        return bits
    # OR-reducing 1 << value down the rows in the narrowest unsigned type that holds the
    # bits reads the block once with no index arrays
    dtype = next(t for t in (np.uint8, np.uint16, np.uint32, np.uint64) if top < 8 * t().itemsize)
    one = dtype(1)
    bits = np.zeros(block.shape[1], dtype=dtype)
    step = max(1, runtime.BLOCK_CELLS // max(block.shape[1], 1))
    for start in range(0, len(block), step):
        rows = block[start : start + step].astype(dtype)
        bits |= np.bitwise_or.reduce(np.left_shift(one, rows), axis=0)
    return bits.astype(np.uint64)


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
    if runtime.kernel_reads(block) and np.dtype(dtype).itemsize <= 2:

        def cast(rows):
            runtime.kernels.copy_cast(block[rows], out[rows])

        runtime.on_shares(cast, len(block), block.size, align=64)
        return out
    step = max(1, (runtime.BLOCK_CELLS >> 2) // block.shape[1])
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
    compiled = runtime.COMPILED and isinstance(values, np.ndarray) and values.ndim == 1
    if not compiled or values.dtype != object:
        return _plain_factorize(values)
    identity = np.empty(len(values), dtype=np.int64)
    distinct = runtime.kernels.factorize_objects(values, identity)
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
    if not runtime.COMPILED:
        return codes, [_index_texts(array, codes[:, j]) for j, array in enumerate(arrays)]
    columns = [_text_chunks(array) for array in arrays]

    def factorize(share):
        return runtime.kernels.factorize_texts(columns[share], codes, share.start)

    found = itertools.chain.from_iterable(
        runtime.on_shares(factorize, len(columns), n_rows * len(columns))
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
    if not runtime.COMPILED:
        return codes, [_index_objects(values[:, j], codes[:, j]) for j in range(k)]

    def factorize(share):
        out = codes[:, share]
        distinct = runtime.kernels.factorize_object_columns(values[:, share], out)
        tables = np.zeros((len(distinct), 128), dtype=np.int8)
        found = [_sorted_texts(objects, tables[i]) for i, objects in enumerate(distinct)]
        runtime.kernels.remap_codes(out, tables)
        return found

    found = runtime.on_shares(factorize, k, n_rows * k)
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
