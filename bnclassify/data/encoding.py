"""Input validation and category encoding.

Every feature column becomes integer codes ``0 .. r-1`` into its ``categories``
array; a missing cell (NaN / None) becomes :data:`MISSING`. Numeric columns are
encoded with numpy (``np.unique`` + ``searchsorted``), other columns through
pandas' hash-based ``Categorical``, so encoding is vectorised either way.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .._native import (
    BLOCK_CELLS,
    column_major,
    column_ranges,
    cpu_count,
    factorize_object_columns,
    factorize_objects_in_two,
    factorize_texts,
    thread_limit,
    value_bits,
)
from ..exceptions import UnseenCategoryError

MISSING = -1
HANDLE_UNKNOWN = ("warn", "error", "marginalize")


def _is_numeric(values) -> bool:
    dtype = getattr(values, "dtype", None)
    return dtype is not None and not isinstance(dtype, pd.CategoricalDtype) and dtype.kind in "biuf"


#: Non-negative integer columns below this bound are encoded in O(n) with bincount
#: and a look-up table instead of sorting.
LOOKUP_LIMIT = 1 << 16


#: Rows from which the columns of a frame are encoded on a thread pool (when at
#: least two columns are Arrow-backed: pyarrow's hashing releases the GIL).
_THREAD_ROWS = 1 << 16


def codes_dtype(categories) -> np.dtype:
    """The smallest signed integer type holding every code and :data:`MISSING`."""
    largest = max((1 if c is None else len(c) for c in categories), default=0)
    for dtype in (np.int8, np.int16, np.int32):
        if largest <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def _small_nonnegative_ints(values) -> bool:
    return (
        values.dtype.kind in "iub"
        and len(values) > 0
        and values.min() >= 0
        and values.max() < LOOKUP_LIMIT
    )


def _numeric_values(column: pd.Series):
    """``(values, missing)`` of a numeric column as numpy, or None if it is not numeric.

    ``missing`` is a boolean mask, or None when no cell can be missing. Nullable
    (``Int64``, ``boolean``) and Arrow numeric columns are read with their
    missing cells filled, the mask telling which.
    """
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype) or dtype.kind not in "biuf":
        return None
    if isinstance(dtype, np.dtype):
        values = column.to_numpy()
        return values, (np.isnan(values) if dtype.kind == "f" else None)
    numpy_dtype = getattr(dtype, "numpy_dtype", None)
    if numpy_dtype is None or np.dtype(numpy_dtype).kind not in "biuf":
        return None
    numpy_dtype = np.dtype(numpy_dtype)
    missing = column.isna().to_numpy()
    fill = {"f": np.nan, "b": False}.get(numpy_dtype.kind, 0)  # Arrow bool refuses a 0
    values = column.to_numpy(dtype=numpy_dtype, na_value=fill)
    if numpy_dtype.kind == "f":
        missing = missing | np.isnan(values)  # not in place: isna() may hand a read-only view
    return values, (missing if missing.any() else None)


def _arrow_data(column: pd.Series):
    """The column's pyarrow ChunkedArray if it is Arrow-backed text or dictionary, else None.

    Covers ``pd.ArrowDtype`` string / large_string / string_view / dictionary
    columns and pandas' ``StringDtype`` with pyarrow storage (``"string[pyarrow]"``
    and pandas 3's default ``str``). The data are not copied.
    """
    dtype = column.dtype
    if isinstance(dtype, pd.ArrowDtype):
        kind = dtype.pyarrow_dtype
        if not (
            pa.types.is_string(kind)
            or pa.types.is_large_string(kind)
            or pa.types.is_string_view(kind)
            or pa.types.is_dictionary(kind)
        ):
            return None
    elif not (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"):
        return None
    data = column.array.__arrow_array__()  # pyarrow's protocol: the stored chunks, no copy
    return data if isinstance(data, pa.ChunkedArray) else pa.chunked_array([data])


def object_array(values) -> np.ndarray:
    """A 1-D object array of ``values`` (tuples stay elements, not rows)."""
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def _uniques_array(uniques) -> np.ndarray:
    """Distinct values as numpy: numeric and boolean stay numeric, everything else object."""
    if isinstance(uniques, np.ndarray) and uniques.dtype.kind in "biufO":
        return uniques
    array = np.asarray(uniques)
    if array.dtype.kind in "biuf":
        return array
    return object_array(uniques.tolist() if hasattr(uniques, "tolist") else list(uniques))


def sort_order(uniques: np.ndarray) -> np.ndarray:
    """Positions that sort distinct values; mixed types sort by (type name, text)."""
    if uniques.dtype != object:
        return np.argsort(uniques, kind="stable")
    items = uniques.tolist()
    try:
        order = sorted(range(len(items)), key=items.__getitem__)
    except TypeError:  # mixed types (e.g. 1 and "a"): sort by type, then text
        order = sorted(range(len(items)), key=lambda i: (type(items[i]).__name__, str(items[i])))
    return np.asarray(order, dtype=np.intp)


class _Factorized:
    """A column as integer indices into its distinct values, in one pass over the cells.

    ``parts`` cover the rows in order (one per Arrow chunk, else one); each is
    ``(indices, to_unique)``: ``indices`` are ints with -1 for a missing cell,
    ``to_unique`` maps them into ``uniques`` (None: the identity). ``observed``
    is False when some of ``uniques`` may not occur (a Categorical's declared
    but unused categories).
    """

    __slots__ = ("uniques", "parts", "observed")

    def __init__(self, uniques, parts, observed=True):
        self.uniques = uniques
        self.parts = parts
        self.observed = observed

    def remap(self, lookup: np.ndarray, dtype) -> np.ndarray:
        """Codes ``lookup[index]`` of every cell, :data:`MISSING` where the cell is missing."""
        table = np.empty(len(lookup) + 1, dtype=dtype)
        table[:-1] = lookup
        table[-1] = MISSING  # index -1 (missing) reads the last slot
        if len(self.parts) == 1 and self.parts[0][1] is None:
            indices = self.parts[0][0]
            if np.array_equal(lookup, np.arange(len(lookup))):  # e.g. sorted Categorical codes
                return indices.astype(dtype)
            return table[indices]
        pieces = []
        for indices, to_unique in self.parts:
            local = table
            if to_unique is not None:
                local = np.full(len(to_unique) + 1, MISSING, dtype=dtype)
                local[:-1] = table[to_unique]
            pieces.append(local[indices])
        return np.concatenate(pieces) if pieces else np.empty(0, dtype=dtype)

    def occurring(self) -> np.ndarray:
        """Which of ``uniques`` occur in the column."""
        if self.observed:
            return np.ones(len(self.uniques), dtype=bool)
        seen = np.zeros(len(self.uniques) + 1, dtype=bool)
        for indices, to_unique in self.parts:
            local = np.flatnonzero(np.bincount(indices.astype(np.intp) + 1)[1:])
            seen[local if to_unique is None else to_unique[local]] = True
        return seen[:-1]


def factorize_column(column: pd.Series) -> _Factorized:
    """Distinct values and per-cell indices of a non-numeric column, hashing each cell once.

    pandas Categorical: its codes, into its declared categories. Arrow-backed
    text: pyarrow's ``dictionary_encode`` on the chunks (no Python string per
    cell). Object columns: ``factorize_objects_in_two`` (``pd.factorize``, compiled when the
    extension is). Anything else: ``pd.factorize``.
    """
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        uniques = _uniques_array(dtype.categories)
        return _Factorized(uniques, [(column.cat.codes.to_numpy(), None)], observed=False)
    data = _arrow_data(column)
    if data is not None:
        return _factorize_arrow(data)
    plain_object = isinstance(dtype, np.dtype) and dtype.kind == "O"
    try:  # hashability is checked only on failure: a check per cell would double the work
        if plain_object:  # the two small tables are composed in remap: one pass over the cells
            indices, to_unique, uniques = factorize_objects_in_two(column.to_numpy())
        else:
            (indices, uniques), to_unique = pd.factorize(column), None
    except TypeError:
        raise _unhashable_error(column) from None
    return _Factorized(_uniques_array(uniques), [(indices, to_unique)])


def _unhashable_error(column) -> TypeError:
    """The error for a column holding list, dict, set or array cells."""
    bad = column[column.map(lambda v: not isinstance(v, Hashable))]
    where = f" (first at row {bad.index[0]!r})" if len(bad) else ""
    kind = type(bad.iloc[0]).__name__ if len(bad) else "unhashable"
    return TypeError(
        f"Column {column.name!r} holds {kind} cells{where}; each cell must be one value "
        "(a number, a string or NaN)."
    )


def _factorize_arrow(data) -> _Factorized:
    encoded = data if pa.types.is_dictionary(data.type) else data.dictionary_encode()
    dictionaries, parts = [], []
    for chunk in encoded.chunks:
        indices = chunk.indices
        if indices.null_count:
            indices = pc.fill_null(indices, -1)
        parts.append(indices.to_numpy())
        dictionaries.append(chunk.dictionary)
    if not dictionaries:
        return _Factorized(np.empty(0, dtype=object), [])
    first = dictionaries[0]
    if all(d is first or d.equals(first) for d in dictionaries[1:]):  # dictionary_encode: shared
        uniques = _uniques_array(first.to_numpy(zero_copy_only=False))
        # a stored dictionary (ArrowDtype dictionary) may hold values no cell uses
        return _Factorized(uniques, [(p, None) for p in parts], observed=encoded is not data)
    # chunks with their own dictionaries: factorize the (small) dictionaries together
    merged = np.concatenate(
        [_uniques_array(d.to_numpy(zero_copy_only=False)) for d in dictionaries]
    )
    to_unique, uniques = pd.factorize(merged)
    bounds = np.cumsum([0] + [len(d) for d in dictionaries])
    parts = [(p, to_unique[a:b]) for p, a, b in zip(parts, bounds[:-1], bounds[1:], strict=True)]
    return _Factorized(_uniques_array(uniques), parts, observed=False)


# -- learning and encoding one column -------------------------------------------------------------
def learn_categories(column: pd.Series) -> np.ndarray:
    """The categories of one training column, sorted, NaN excluded.

    A pandas Categorical column keeps its declared categories (sorted), so a
    category absent from a training fold still gets a (smoothed) probability.
    Object columns of mixed types sort by (type name, text). A column with no
    observed value has no category (an empty array).
    """
    numeric = _numeric_values(column)
    if numeric is not None:
        values, missing = numeric
        categories = _numeric_categories(values if missing is None else values[~missing])
    else:
        dtype = column.dtype
        if isinstance(dtype, pd.CategoricalDtype):
            uniques = _uniques_array(dtype.categories)
        elif (data := _arrow_data(column)) is not None:
            if pa.types.is_dictionary(data.type):
                data = data.cast(data.type.value_type)
            uniques = _uniques_array(pc.unique(data).drop_null().to_numpy(zero_copy_only=False))
        else:
            try:
                uniques = _uniques_array(pd.unique(column.dropna()))
            except TypeError:
                raise _unhashable_error(column) from None
        categories = uniques[sort_order(uniques)]
    return categories


def _numeric_categories(observed: np.ndarray) -> np.ndarray:
    if _small_nonnegative_ints(observed):
        return np.flatnonzero(np.bincount(observed)).astype(observed.dtype)
    return np.unique(observed)


def _learn_and_encode_column(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """``(categories, codes)`` of one training column, in one hashing pass over its cells."""
    if _numeric_values(column) is not None:
        categories = learn_categories(column)
        if not len(categories):  # no observed value: every code missing
            return categories, np.full(len(column), MISSING, dtype=np.int8)
        return categories, _encode(column, categories, "error", codes_dtype([categories]))
    factorized = factorize_column(column)
    uniques = factorized.uniques
    if factorized.observed or isinstance(column.dtype, pd.CategoricalDtype):
        kept = np.arange(len(uniques))  # a Categorical keeps its declared categories
    else:
        kept = np.flatnonzero(factorized.occurring())  # e.g. an Arrow dictionary's unused values
    order = kept[sort_order(uniques[kept])]
    lookup = np.full(len(uniques), MISSING, dtype=np.intp)
    lookup[order] = np.arange(len(order))
    categories = uniques[order]
    return categories, factorized.remap(lookup, codes_dtype([categories]))


def _encode(column: pd.Series, categories, handle_unknown, dtype) -> np.ndarray:
    """Codes of ``column`` into known ``categories`` as ``dtype``; see :func:`encode_column`."""
    categories = np.asarray(categories)
    numeric = _numeric_values(column)
    if numeric is not None and categories.dtype.kind in "biuf":
        return _encode_numeric(column, *numeric, categories, handle_unknown).astype(dtype)
    factorized = factorize_column(column)
    lookup = pd.Index(_as_index_values(categories)).get_indexer(
        _as_index_values(factorized.uniques)
    )
    unknown = lookup == MISSING
    if unknown.any() and handle_unknown == "error":
        unknown &= factorized.occurring()
        if unknown.any():
            _raise_unknown(column, factorized.uniques[unknown], categories)
    return factorized.remap(lookup, dtype)


def _as_index_values(uniques: np.ndarray):
    # object stays object: pandas 3 would infer Arrow strings, which refuse a lone surrogate
    return pd.Index(uniques, dtype=object) if uniques.dtype == object else uniques


def _raise_unknown(column, values, categories):
    values, known = np.asarray(values)[:5].tolist(), np.asarray(categories).tolist()
    if len(known) > 20:  # a wide column: the first ones say what the categories look like
        known = f"{known[:20]} ... ({len(known)} in all)"
    raise UnseenCategoryError(
        f"Column {column.name!r} has value(s) {values} not seen during fit "
        f"(known categories: {known}). Pass handle_unknown='marginalize' "
        "to treat unseen categories as missing."
    )


def _encode_numeric(column, values, missing, categories, handle_unknown) -> np.ndarray:
    """Codes of numeric values into numeric categories (look-up table or binary search)."""
    if values.dtype.kind in "iub" and _small_nonnegative_ints(categories):
        values = values.astype(np.intp, copy=False)  # bools must not act as masks
        lookup = np.full(int(categories.max()) + 1, MISSING, dtype=np.intp)
        lookup[categories.astype(np.intp)] = np.arange(len(categories))
        inside = (values >= 0) & (values < len(lookup))
        codes = lookup[np.where(inside, values, 0)]
        codes[~inside] = MISSING
        unknown = codes == MISSING
    else:
        position = np.searchsorted(categories, values)
        position = np.minimum(position, len(categories) - 1)
        known = categories[position] == values
        codes = np.where(known, position, MISSING)
        unknown = ~known
    if missing is not None:
        codes[missing] = MISSING
        unknown &= ~missing
    if unknown.any():
        if handle_unknown == "error":
            _raise_unknown(column, pd.unique(values[unknown]), categories)
        codes[unknown] = MISSING
    return codes


def encode_column(column: pd.Series, categories: np.ndarray, handle_unknown="error") -> np.ndarray:
    """Integer codes of ``column`` into ``categories``; missing cells get :data:`MISSING`.

    A value not in ``categories`` raises a ``ValueError`` naming the column and
    the value, or is treated as missing when ``handle_unknown="marginalize"``.
    """
    return _encode(column, categories, handle_unknown, np.intp)


# -- whole frames ----------------------------------------------------------------------------------
def _integer_block(frame: pd.DataFrame, integers=None):
    """``(block, high)``: the frame as one array of small non-negative integers and each
    column's largest value, or None.

    Whole-table integer data (e.g. integer codes from another library) is then
    learned and encoded in a few row-major passes instead of one strided pass
    per column, the dominant cost on tall tables. ``integers``: ``(block, low,
    high)``, the frame as one array and its :func:`~bnclassify._native.column_ranges`,
    when the caller has them already (a frame of many integer blocks, as
    ``read_csv`` makes, is copied into one array by every ``to_numpy``).
    """
    if integers is not None:
        block, low, high = integers
    elif all(isinstance(t, np.dtype) and t.kind in "iu" for t in frame.dtypes):
        block = frame.to_numpy()
        if block.size == 0:
            return None
        low, high = column_ranges(block)
    else:
        return None
    if block.dtype.kind not in "iu":  # int64 next to uint64 columns: one float64 array
        return None
    if low.min() < 0 or high.max() >= LOOKUP_LIMIT:
        return None
    return block, high


def _learn_integer_block(block, high) -> list:
    top = int(high.max())
    if top < 64:
        return _categories_of_bits(value_bits(block, top), top, block.dtype)
    sizes = high.astype(np.intp) + 1
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    present = np.zeros(offsets[-1], dtype=bool)
    step = max(1, BLOCK_CELLS // block.shape[1])
    for start in range(0, len(block), step):
        rows = block[start : start + step]
        present |= np.bincount((rows + offsets[:-1]).ravel(), minlength=offsets[-1]) > 0
    return [
        np.flatnonzero(present[offsets[j] : offsets[j + 1]]).astype(block.dtype)
        for j in range(block.shape[1])
    ]


def _categories_of_bits(bits, top, dtype) -> list:
    """Each column's categories from its values in ``[0, top]`` as bits (see ``value_bits``)."""
    values = np.arange(top + 1, dtype=np.uint64)
    present = (bits[:, None] >> values) & np.uint64(1)  # (features, values)
    columns, found = np.nonzero(present)
    ends = np.cumsum(np.bincount(columns, minlength=len(bits))).tolist()
    found = found.astype(dtype)
    return [found[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]  # np.split: 5x slower


def _learn_and_encode_integer_block(block, frame, high):
    """``(categories, codes)`` of an integer block of non-negative values up to ``high``.

    Values below 64 are cast to column-major codes first and the categories read
    from the codes (a tenth of the bytes of int64 data, read column by column);
    when every column's categories are ``0 .. r-1`` (integer codes, the usual
    integer input) the cast values are the codes.
    """
    top = int(high.max())
    if top >= 64:
        categories = _learn_integer_block(block, high)
        return categories, _codes_of_integer_block(block, frame, categories)
    values = column_major(block, np.int8)
    categories = _categories_of_bits(value_bits(values, top, high), top, block.dtype)
    if all(c[-1] == len(c) - 1 for c in categories):  # sorted, distinct, >= 0: 0..r-1 iff last
        return categories, values
    return categories, _encode_integer_block(block, frame, categories, "error")


def _codes_of_integer_block(block, frame, categories):
    """Column-major codes of an integer block, without a look-up when the values are the codes.

    When every column's categories are ``0 .. r-1`` (integer codes, the usual
    integer input), the codes are the values cast, which is one copy instead
    of :func:`_encode_integer_block`'s offset index and gather.
    """
    if any(c[-1] != len(c) - 1 for c in categories):  # sorted, distinct, >= 0: 0..r-1 iff last
        return _encode_integer_block(block, frame, categories, "error")
    return column_major(block, codes_dtype(categories))


def _categorical_columns(frame, kinds) -> list:
    if kinds is None:
        return [True] * frame.shape[1]
    return [kind == "categorical" for kind in kinds]


def learn_frame_categories(frame: pd.DataFrame, kinds=None) -> list:
    """:func:`learn_categories` of every column (vectorised for integer tables).

    With ``kinds`` (one per column), a column whose kind is not
    ``"categorical"`` gets ``None``: it is not a categorical feature, and
    :func:`encode_frame` gives it a one-state dummy code. To encode the same
    frame as well, :func:`learn_and_encode_frame` does both in one pass.
    """
    categorical = _categorical_columns(frame, kinds)
    if all(categorical):
        integers = _integer_block(frame)
        if integers is not None:
            return _learn_integer_block(*integers)
    return [
        learn_categories(frame.iloc[:, j]) if categorical[j] else None
        for j in range(frame.shape[1])
    ]


def learn_and_encode_frame(
    frame: pd.DataFrame, kinds=None, integers=None
) -> tuple[list, np.ndarray]:
    """``(categories, codes)`` of a training frame, hashing each cell once.

    The same as :func:`learn_frame_categories` followed by :func:`encode_frame`
    (a column whose kind is not ``"categorical"`` gets ``None`` and the dummy
    code), but each column is factorized once and its codes are remapped to
    the sorted categories through a small look-up table. ``integers``: an
    all-integer frame as one array with its column ranges, ``(block, low, high)``,
    when already known.

    Columns of one form are learned together, so that a wide table pays little
    Python per column: pandas Categoricals (each distinct set of categories
    sorted once, the codes read as pandas holds them) and Arrow-backed text
    (one compiled pass over every such column,
    :func:`~bnclassify._native.factorize_texts`).

    Examples
    --------
    >>> frame = pd.DataFrame({"a": ["y", "x", None], "b": [2, 0, 2]})
    >>> categories, codes = learn_and_encode_frame(frame)
    >>> [c.tolist() for c in categories]
    [['x', 'y'], [0, 2]]
    >>> codes
    array([[ 1,  1],
           [ 0,  0],
           [-1,  1]], dtype=int8)
    """
    categorical = _categorical_columns(frame, kinds)
    if all(categorical):
        integers = _integer_block(frame, integers)
        if integers is not None:
            return _learn_and_encode_integer_block(integers[0], frame, integers[1])
    # the columns as Series only when some are needed: taking 1,024 out costs 15-50 ms
    series = functools.cache(lambda: [column for _, column in frame.items()])  # not iloc: 10x
    dtypes = frame.dtypes.tolist()  # one call, not one per column
    categories = [None] * frame.shape[1]
    blocks = []  # (positions, codes (n, k)) of the columns learned together
    pending = [j for j, wanted in enumerate(categorical) if wanted]
    for together in (_objects_together, _categoricals_together, _texts_together):
        positions, learned, block = together(frame, series, dtypes, pending)
        if positions:
            blocks.append((positions, block))
            for j, cats in zip(positions, learned, strict=True):
                categories[j] = cats
            done = set(positions)
            pending = [j for j in pending if j not in done]
    if len(blocks) == 1 and len(blocks[0][0]) == frame.shape[1]:  # one form throughout
        return categories, np.asfortranarray(blocks[0][1])
    columns = series()

    def column_work(j, column):
        if not categorical[j]:
            return None, _dummy_codes(column, np.int8)
        return _learn_and_encode_column(column)

    together = {j for positions, _ in blocks for j in positions}
    rest = [(j, column) for j, column in enumerate(columns) if j not in together]
    dtype = np.result_type(np.int8, *(block.dtype for _, block in blocks))
    codes = np.empty(frame.shape, dtype=dtype, order="F")
    for positions, block in blocks:
        codes[:, positions] = block
    for (j, _), (cats, column_codes) in zip(rest, _map_columns(column_work, rest), strict=True):
        if column_codes.dtype.itemsize > codes.dtype.itemsize:  # > 127 categories: widen
            codes = codes.astype(column_codes.dtype, order="F")
        codes[:, j] = column_codes
        categories[j] = cats
    return categories, codes


def _objects_together(frame, series, dtypes, candidates) -> tuple[list, list, np.ndarray | None]:
    """``(positions, categories, codes)`` of the object columns of strings among ``candidates``,
    read as one 2-D array (a view of a frame of object columns: no Series per column) in one
    compiled pass (:func:`~bnclassify._native.factorize_object_columns`). A column it gives
    up (anything but strings and missing cells, or more than 127 values) is left to
    :func:`_learn_and_encode_column`."""
    positions = [j for j in candidates if isinstance(dtypes[j], np.dtype) and dtypes[j].kind == "O"]
    if not positions:
        return [], [], None
    if len(positions) == frame.shape[1]:
        values = frame.to_numpy()
    else:
        values = frame.iloc[:, positions].to_numpy()
    codes, learned = factorize_object_columns(values)
    kept = [i for i, cats in enumerate(learned) if cats is not None]
    if len(kept) < len(positions):
        codes = codes[:, kept]
        positions = [positions[i] for i in kept]
        learned = [learned[i] for i in kept]
    return positions, learned, codes


def _categoricals_together(
    frame, series, dtypes, candidates
) -> tuple[list, list, np.ndarray | None]:
    """``(positions, categories, codes)`` of the pandas Categorical columns among ``candidates``.

    Each distinct set of declared categories is sorted once (a wide table made
    with ``astype("category")`` repeats a few), and the codes are pandas' own,
    stacked into one column-major block and renumbered only for columns whose
    categories are not sorted: what :func:`_learn_and_encode_column` gives each
    column. A column with no category is left to it.
    """
    plans = {}  # the categories' values -> (sort order, renumbering table or None)
    positions, learned, codes, tables = [], [], [], []
    for j in candidates:
        if not isinstance(dtypes[j], pd.CategoricalDtype):
            continue
        column = series()[j]
        uniques = _uniques_array(dtypes[j].categories)
        if not len(uniques):
            continue
        key = _categories_key(uniques)
        plan = plans.get(key) if key is not None else None
        if plan is None:
            order = sort_order(uniques)
            table = None
            if (order != np.arange(len(order))).any():
                table = np.full(len(order) + 1, MISSING, dtype=np.intp)  # the last slot: -1
                table[order] = np.arange(len(order))
            plan = (order, table)
            if key is not None:
                plans[key] = plan
        positions.append(j)
        learned.append(uniques[plan[0]])
        codes.append(column.array.codes)
        tables.append(plan[1])
    if not positions:
        return [], [], None
    block = np.stack(codes).T  # (rows, columns), column-major
    dtype = codes_dtype(learned)
    if block.dtype != dtype:  # pandas keeps int16 codes from 127 categories on
        block = block.astype(dtype, order="F")
    for i, table in enumerate(tables):
        if table is not None:
            block[:, i] = table[block[:, i]]
    return positions, learned, block


def _categories_key(uniques: np.ndarray):
    """A key equal for two arrays of categories exactly when they hold the same values of
    the same types (bit for bit where numeric), or None when that is not cheap to tell."""
    if uniques.dtype.kind in "biufcmM":
        return uniques.dtype.str, uniques.tobytes()
    values = uniques.tolist()
    if all(type(v) is str for v in values):
        return tuple(values)
    return None


def _texts_together(frame, series, dtypes, candidates) -> tuple[list, list, np.ndarray | None]:
    """``(positions, categories, codes)`` of the Arrow-backed text columns among
    ``candidates`` (``string`` and ``large_string`` storage), in one compiled pass
    (:func:`~bnclassify._native.factorize_texts`). A column it gives up (more than
    127 values, or no observed value) is left to :func:`_learn_and_encode_column`."""
    positions, arrays = [], []
    for j in candidates:
        if not isinstance(dtypes[j], pd.ArrowDtype | pd.StringDtype):
            continue  # the others are not Arrow-backed: not asked column by column
        data = _arrow_data(series()[j])
        plain = data is not None and not pa.types.is_dictionary(data.type)
        if plain and (pa.types.is_string(data.type) or pa.types.is_large_string(data.type)):
            positions.append(j)
            arrays.append(data)
    if not positions:
        return [], [], None
    codes, learned = factorize_texts(arrays, len(frame))
    kept = [i for i, cats in enumerate(learned) if cats is not None and len(cats)]
    if len(kept) < len(positions):
        codes = codes[:, kept]
        positions = [positions[i] for i in kept]
        learned = [learned[i] for i in kept]
    return positions, learned, codes


def _dummy_codes(column, dtype):
    return np.where(column.isna().to_numpy(), MISSING, 0).astype(dtype)


def _map_columns(function, columns):
    """``function(j, column)`` for every ``(j, column)`` of ``columns``, in order; on threads
    when that pays.

    pyarrow's dictionary encoding releases the GIL, so tall frames with several
    Arrow-backed text columns are encoded a column per core; so does the
    compiled identity scan of an object column (:func:`~bnclassify._native.factorize_objects`),
    and the remapping of its codes overlaps too (pandas' hashing of an object
    column by value, without the extension, holds the GIL for most of its work).
    """
    threads = min(cpu_count(), thread_limit())  # the user's limit (threadpoolctl) applies
    if threads > 1 and columns and len(columns[0][1]) >= _THREAD_ROWS:
        hashed = sum(
            _arrow_data(column) is not None
            or (isinstance(column.dtype, np.dtype) and column.dtype == object)
            for _, column in columns
        )
        if hashed >= 2:
            with ThreadPoolExecutor(min(threads, hashed)) as pool:
                yield from pool.map(lambda pair: function(*pair), columns)
            return
    for j, column in columns:
        yield function(j, column)


def _columns_of(frame) -> list:
    """``(position, column)`` of every column (``items``: a tenth of ``iloc``'s cost)."""
    return list(enumerate(column for _, column in frame.items()))


def _encode_integer_block(block, frame, categories, handle_unknown):
    sizes = np.array([int(c.max()) + 1 for c in categories])
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    dtype = codes_dtype(categories)
    lookup = np.full(offsets[-1] + 1, MISSING, dtype=dtype)  # last slot: out of range
    for j, cats in enumerate(categories):
        lookup[offsets[j] + cats.astype(np.intp)] = np.arange(len(cats))
    codes = np.empty(block.shape, dtype=dtype, order="F")
    step = max(1, BLOCK_CELLS // block.shape[1])
    for start in range(0, len(block), step):
        rows = block[start : start + step]
        if rows.dtype.kind == "u":  # uint64 + int64 is float64: clip (beyond every size) first
            rows = np.minimum(rows, np.uint64(offsets[-1])).astype(np.int64)
        index = np.where(rows < sizes, rows + offsets[:-1], offsets[-1])
        codes[start : start + step] = lookup[index]
    if handle_unknown == "error":
        unknown = (codes == MISSING).any(axis=0)
        if unknown.any():  # let the column path raise its message naming column and value
            j = int(np.flatnonzero(unknown)[0])
            encode_column(frame.iloc[:, j], categories[j], handle_unknown)
    return codes


def encode_frame(frame: pd.DataFrame, categories, handle_unknown="error", unset=()) -> np.ndarray:
    """Codes of every column, shape ``(n_rows, n_features)``.

    The array is column-major and of the smallest integer type that holds the
    codes (see :func:`codes_dtype`): counting reads it column by column. A
    column whose categories are ``None`` (not categorical) gets the one-state
    dummy code 0, or :data:`MISSING` where the cell is missing, unless it is
    among the positions ``unset``: its codes are left for the caller to write
    (e.g. a binned column, coded by its intervals). Arrow-backed text columns
    are coded together (``encode_texts``).
    """
    dummies = any(c is None for c in categories)
    integers = None if dummies else _integer_block(frame)
    # categories read as look-up slots: a negative one would write into another column's
    if integers is not None and all(_small_nonnegative_ints(np.asarray(c)) for c in categories):
        return _encode_integer_block(integers[0], frame, categories, handle_unknown)
    dtype = codes_dtype(categories)
    if len(categories) != frame.shape[1]:
        raise ValueError(f"{len(categories)} category arrays for {frame.shape[1]} columns.")

    def column_work(j, column):
        return _encode(column, categories[j], handle_unknown, dtype)

    codes = np.empty(frame.shape, dtype=dtype, order="F")
    left = set(unset)
    dummy = [j for j, c in enumerate(categories) if c is None and j not in left]
    if dummy:  # every dummy column's missing cells in one pass (not a pass per column)
        missing = frame.iloc[:, dummy].isna().to_numpy()
        codes[:, dummy] = np.where(missing, MISSING, 0).astype(dtype)
    wanted = [j for j, c in enumerate(categories) if c is not None]
    done = _encode_integer_columns(frame, wanted, categories, handle_unknown)
    rest = [j for j in wanted if j not in done]
    if 2 * len(rest) >= frame.shape[1]:
        kept = set(rest)
        tables = [(j, column) for j, column in _columns_of(frame) if j in kept]
    else:  # a few columns of a wide table: not a Series for each of its columns
        tables = [(j, frame.iloc[:, j]) for j in rest]
    texts = encode_texts(tables, categories, handle_unknown, dtype)
    done.update(texts)
    for j, column_codes in done.items():
        codes[:, j] = column_codes
    tables = [(j, column) for j, column in tables if j not in texts]
    for (j, _), column_codes in zip(tables, _map_columns(column_work, tables), strict=True):
        codes[:, j] = column_codes
    return codes


def _encode_integer_columns(frame, columns, categories, handle_unknown) -> dict:
    """:func:`_encode_integer_block` of the numpy integer columns among ``columns`` (their
    positions) whose categories are small non-negative integers, when there are several (a
    wide table of integer and binned columns): ``{position: codes}``, the others left out."""
    dtypes = frame.dtypes.tolist()
    block = [
        j
        for j in columns
        if isinstance(dtypes[j], np.dtype)
        and dtypes[j].kind in "iu"
        and _small_nonnegative_ints(np.asarray(categories[j]))
    ]
    if len(block) < 2:
        return {}
    part = frame.iloc[:, block]
    integers = _integer_block(part)
    if integers is None:  # a value below 0 or beyond the look-up's range: column by column
        return {}
    kept = [categories[j] for j in block]
    codes = _encode_integer_block(integers[0], part, kept, handle_unknown)
    return {j: codes[:, i] for i, j in enumerate(block)}


def encode_texts(columns, categories, handle_unknown="error", dtype=np.intp) -> dict:
    """Codes of the Arrow-backed text columns among ``columns`` (``(position, column)``
    pairs) into their ``categories`` (indexed by position), in one compiled pass over all
    of them (:func:`~bnclassify._native.factorize_texts`) instead of a hashing pass and
    an index look-up per column.

    Returns ``{position: codes}`` (``dtype``; :data:`MISSING` for a missing cell and,
    unless ``handle_unknown="error"``, for an unseen value). A column left out of it
    (not Arrow text, more than ``TEXT_MAX_CODES`` distinct values in these rows, or an
    unseen value with ``handle_unknown="error"``) is for :func:`encode_column`, which
    codes it alike or raises.

    Examples
    --------
    >>> frame = pd.DataFrame({"a": pd.Series(["x", None, "z"], dtype="string[pyarrow]")})
    >>> encode_texts([(0, frame["a"])], [np.array(["x", "y"], dtype=object)], "marginalize")
    {0: array([ 0, -1, -1])}
    """
    positions, arrays = [], []
    for j, column in columns:
        if categories[j] is None or not isinstance(column.dtype, pd.ArrowDtype | pd.StringDtype):
            continue
        data = _arrow_data(column)
        if data is None or pa.types.is_dictionary(data.type):
            continue
        if pa.types.is_string(data.type) or pa.types.is_large_string(data.type):
            positions.append(j)
            arrays.append(data)
    if not positions:
        return {}
    codes, found = factorize_texts(arrays, len(arrays[0]))
    out = {}
    for i, (j, values) in enumerate(zip(positions, found, strict=True)):
        if values is None:
            continue
        # by equality, as an index look-up matches them: a text equals only a text
        rank = {value: k for k, value in enumerate(np.asarray(categories[j]).tolist())}
        table = np.empty(len(values) + 1, dtype=dtype)
        table[:-1] = [rank.get(value, MISSING) for value in values.tolist()]
        table[-1] = MISSING  # a missing cell's -1 reads the last slot
        if handle_unknown == "error" and (table[:-1] == MISSING).any():
            continue  # encode_column raises, naming the column and the value
        out[j] = table[codes[:, i]]
    return out
