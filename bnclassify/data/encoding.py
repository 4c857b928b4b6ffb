"""Input validation and category encoding.

Every feature column becomes integer codes ``0 .. r-1`` into its ``categories``
array; a missing cell (NaN / None) becomes :data:`MISSING`. Numeric columns are
encoded with numpy (``np.unique`` + ``searchsorted``), other columns through
pandas' hash-based ``Categorical``, so encoding is vectorised either way.
"""

from __future__ import annotations

import ctypes
import numbers
import sys
import warnings
from collections.abc import Hashable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.multiclass import check_classification_targets

from .._native import BLOCK_CELLS, MAX_THREADS, column_major, column_ranges, cpu_count, value_bits
from ..exceptions import UnseenCategoryError

MISSING = -1
HANDLE_UNKNOWN = ("warn", "error", "marginalize")


def as_frame(X, feature_names=None) -> tuple[pd.DataFrame, bool]:
    """``X`` as a DataFrame, and whether it carried its own string column names.

    Arrays get the names ``x0 .. x{m-1}`` (or ``feature_names`` when given).
    """
    if isinstance(X, pd.DataFrame):
        has_names = len(X.columns) > 0 and all(isinstance(c, str) for c in X.columns.tolist())
        frame = X if has_names else X.set_axis(_default_names(X.shape[1]), axis=1)
    else:
        if hasattr(X, "toarray") or hasattr(X, "tocsr"):
            raise TypeError("bnclassify needs dense categorical data, got a sparse matrix.")
        array = np.asarray(X, dtype=object if _is_ragged_or_mixed(X) else None)
        if array.ndim != 2:
            raise ValueError(
                f"Expected 2D array, got an array of shape {array.shape} instead. Reshape your "
                "data either using X.reshape(-1, 1) if it has a single feature or "
                "X.reshape(1, -1) if it contains a single sample."
            )
        names = feature_names if feature_names is not None else _default_names(array.shape[1])
        frame = pd.DataFrame(array, columns=list(names), copy=False)
        has_names = False
    if frame.shape[0] == 0:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={frame.shape}) while a minimum of 1 is required."
        )
    if frame.shape[1] == 0:
        raise ValueError(
            f"Found array with 0 feature(s) (shape={frame.shape}) while a minimum of 1 is required."
        )
    if frame.columns.has_duplicates:
        dupes = sorted(set(frame.columns[frame.columns.duplicated()]))
        raise ValueError(f"Duplicate column names: {dupes}.")
    return frame, has_names


def _default_names(m):
    return [f"x{i}" for i in range(m)]


def _is_ragged_or_mixed(X):
    try:
        np.asarray(X)
    except ValueError:
        return True
    return False


def _is_numeric(values) -> bool:
    dtype = getattr(values, "dtype", None)
    return dtype is not None and not isinstance(dtype, pd.CategoricalDtype) and dtype.kind in "biuf"


#: Non-negative integer columns below this bound are encoded in O(n) with bincount
#: and a look-up table instead of sorting.
_LOOKUP_LIMIT = 1 << 16


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
        and values.max() < _LOOKUP_LIMIT
    )


#: An integer column with more distinct values than this is continuous (Gaussian)
#: by default; chosen by cross-validation on bundled, scikit-learn and synthetic
#: mixed tables (docs/kinds.md).
INTEGER_MAX_CATEGORIES = 20


#: The continuous rule's test level: a positive column is log-normal when Vuong's
#: likelihood-ratio statistic for log-normal against normal exceeds this (5%, one-sided
#: 2.5% each way), chosen by cross-validation (docs/user_guide/kinds.md).
LOG_NORMAL_MIN_Z = 1.96


def default_kind(column: pd.Series, max_categories=None, weights=None, classes=None) -> str:
    """How a column is modelled unless told otherwise: ``"gaussian"``, ``"lognormal"``
    or ``"categorical"``.

    The rule reads raw ``pd.read_csv`` output:

    - integer columns (numpy or pandas nullable), and float columns whose
      values are all integers (``read_csv`` makes an integer column with a
      missing cell float64), are continuous when they have more than
      ``max_categories`` (default :data:`INTEGER_MAX_CATEGORIES`, 20) distinct
      values, e.g. a duration in months, an amount or an age, and categorical
      otherwise (integer codes, Likert scores, small counts, pixel levels);
      one value holding at least half of the rows (:data:`POINT_MASS_MIN_SHARE`,
      e.g. a capital gain that is mostly 0) also makes them categorical;
    - other float columns are continuous;
    - a continuous column is log-normal (:class:`~bnclassify.distributions.LogNormal`)
      when its observed values are all positive and, within the classes, fit a
      log-normal significantly better than a normal (:func:`prefers_log_normal`,
      on at most 65,536 evenly spaced rows): amounts, durations,
      concentrations; Gaussian otherwise;
    - booleans, strings, objects, dates and pandas Categorical columns are
      categorical (a date is never read as nanoseconds by a Gaussian node).

    ``column`` is a Series, or a dtype when the values need not be read (an
    integer dtype alone is then categorical, a float dtype Gaussian).
    ``weights`` (the rows' sample weights, as frequencies) and ``classes`` (each
    row's class) inform the log-normal test.

    Examples
    --------
    >>> default_kind(pd.Series([1.5, 2.0])), default_kind(pd.Series([1, 2]))
    ('gaussian', 'categorical')
    >>> codes_with_a_gap = pd.Series([1.0, 2.0, None])  # read_csv: integers with NaN
    >>> mostly_zero = pd.Series([0] * 60 + list(range(40)))  # a point mass at 0
    >>> default_kind(codes_with_a_gap), default_kind(mostly_zero)
    ('categorical', 'categorical')
    >>> default_kind(pd.Series(range(100))), default_kind(pd.Series([True, False]))
    ('gaussian', 'categorical')
    >>> amounts = pd.Series(np.exp(np.random.default_rng(0).normal(7, 1, 500)).round())
    >>> default_kind(amounts), default_kind(amounts.astype(int))
    ('lognormal', 'lognormal')
    """
    limit = INTEGER_MAX_CATEGORIES if max_categories is None else max_categories
    dtype = getattr(column, "dtype", column)
    if isinstance(dtype, pd.CategoricalDtype):
        return "categorical"
    if dtype.kind not in "iuf":
        return "categorical"
    if not isinstance(column, pd.Series):
        # a dtype alone: an integer column the caller found narrow, a float one unread
        return "gaussian" if dtype.kind == "f" else "categorical"
    observed = column.notna().to_numpy()
    x = column[observed].to_numpy(dtype=float)
    w = None if weights is None else np.asarray(weights, dtype=float)[observed]
    if dtype.kind in "iu":
        if not len(x):
            return "categorical"
        integers = column[observed].to_numpy(dtype=np.int64)  # exact, beyond 2**53 too
    elif len(x) and (np.abs(x) < 2.0**53).all() and (x == np.round(x)).all():
        # integer codes or counts read as floats (read_csv makes an integer column with a
        # missing cell float64): the integer rule applies
        integers = x.astype(np.int64)
    else:
        integers = None
    if integers is not None and _categorical_by_counts(integers, limit, w):
        return "categorical"
    return _continuous_kind(x, observed, w, classes)


#: An integer column with more than :data:`INTEGER_MAX_CATEGORIES` values is still
#: categorical when one value holds at least this share of its (weighted) rows: a
#: point mass (e.g. a capital gain that is 0 for 91% of people) that no density models.
POINT_MASS_MIN_SHARE = 0.5


def _categorical_by_counts(values, limit, weights=None) -> bool:
    """Whether integers have at most ``limit`` distinct values or one value holding
    :data:`POINT_MASS_MIN_SHARE` of the (weighted) rows."""
    low, high = int(values.min()), int(values.max())
    if high - low < limit:
        return True  # at most `limit` distinct values: no counting needed
    if high - low < _LOOKUP_LIMIT:
        counts = np.bincount(values - low, weights=weights)
    else:
        counts = np.bincount(np.unique(values, return_inverse=True)[1], weights=weights)
    return bool(
        np.count_nonzero(counts) <= limit or counts.max() >= POINT_MASS_MIN_SHARE * counts.sum()
    )


#: Rows the log-normal test reads at most (evenly spaced): at 65,536 rows it tells
#: a log-normal from a normal many times over, and a tall table's fit does not pay
#: one pass per float column for it.
LOG_NORMAL_TEST_ROWS = 1 << 16


def _continuous_kind(x, observed, weights, classes) -> str:
    """Log-normal or Gaussian from the observed values ``x`` (rows ``observed``), tested on
    every step-th row of the column."""
    step = -(-len(observed) // LOG_NORMAL_TEST_ROWS)  # ceil
    tested = np.zeros(len(observed), dtype=bool)
    tested[::step] = True
    kept = tested[observed]  # the tested rows among the observed ones
    w = None if weights is None else weights[kept]
    c = None if classes is None else np.asarray(classes)[tested & observed]
    return "lognormal" if prefers_log_normal(x[kept], weights=w, classes=c) else "gaussian"


def prefers_log_normal(x, min_z=None, weights=None, classes=None) -> bool:
    """Whether positive numbers fit a log-normal significantly better than a normal.

    Vuong's test for non-nested models: with both fitted by maximum likelihood
    in each class (as a classifier's node is), ``d_i = log LN(x_i | c_i) -
    log N(x_i | c_i)`` and ``z = sqrt(n) mean(d) / sd(d)``; the log-normal is
    preferred when ``z > min_z`` (default :data:`LOG_NORMAL_MIN_Z`). Fitting
    per class keeps a mixture of normal classes, which is skewed, from passing
    for a log-normal. Both models have the same number of parameters, so no
    penalty enters. False when a value is not positive, or with fewer than 8
    values in classes where the column varies. Invariant to the units of ``x``
    (rescaling shifts both log-likelihoods alike).

    Parameters
    ----------
    x : array-like of shape (n,)
        The observed (non-missing) values.
    min_z : float, optional
    weights : array-like of shape (n,), optional
        Frequencies: an integer weight counts as that many repeated values.
    classes : array-like of shape (n,), optional
        The class of each value (None: one class).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> prefers_log_normal(rng.lognormal(0, 1, 200)), prefers_log_normal(rng.normal(50, 5, 200))
    (True, False)
    """
    level = LOG_NORMAL_MIN_Z if min_z is None else min_z
    x = np.asarray(x, dtype=float)
    w = np.ones(len(x)) if weights is None else np.asarray(weights, dtype=float)
    group = np.zeros(len(x), dtype=np.intp) if classes is None else pd.factorize(classes)[0]
    kept = (w > 0) & (group >= 0)  # a missing label has no class to fit in
    x, w, group = x[kept], w[kept], group[kept]
    if not len(x) or not (x > 0).all() or not np.isfinite(x).all():  # inf fits neither
        return False
    # in units of the largest value's power of two: exact, and no square overflows at 1e300
    x = np.ldexp(x, -np.frexp(x.max())[1])
    logs = np.log(x)
    size = np.bincount(group, weights=w)

    def class_mean(v):
        return (np.bincount(group, weights=w * v) / size)[group]

    def class_sd(v):
        return np.sqrt(class_mean((v - class_mean(v)) ** 2))

    x_sd, log_sd = class_sd(x), class_sd(logs)
    varies = (x_sd > 0) & (log_sd > 0)  # a class with one value says nothing either way
    n = w[varies].sum()
    if n < 8:
        return False
    with np.errstate(divide="ignore", invalid="ignore"):
        normal = -0.5 * ((x - class_mean(x)) / x_sd) ** 2 - np.log(x_sd)
        log_normal = -0.5 * ((logs - class_mean(logs)) / log_sd) ** 2 - np.log(log_sd) - logs
    d, w = (log_normal - normal)[varies], w[varies]
    mean = (w * d).sum() / n
    spread = np.sqrt((w * (d - mean) ** 2).sum() / n)
    if not spread > 0:
        return bool(mean > 0)
    return bool(np.sqrt(n) * mean / spread > level)


# -- the forms of a column ------------------------------------------------------------------------
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


def _object_array(values) -> np.ndarray:
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
    return _object_array(uniques.tolist() if hasattr(uniques, "tolist") else list(uniques))


def _sort_order(uniques: np.ndarray) -> np.ndarray:
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


def _factorize(column: pd.Series) -> _Factorized:
    """Distinct values and per-cell indices of a non-numeric column, hashing each cell once.

    pandas Categorical: its codes, into its declared categories. Arrow-backed
    text: pyarrow's ``dictionary_encode`` on the chunks (no Python string per
    cell). Anything else (object columns): ``pd.factorize``.
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
        if plain_object:
            by_identity = _factorize_by_identity(column.to_numpy())
            if by_identity is not None:
                return by_identity
        indices, uniques = pd.factorize(column.to_numpy() if plain_object else column)
    except TypeError:
        raise _unhashable_error(column) from None
    return _Factorized(_uniques_array(uniques), [(indices, None)])


def _unhashable_error(column) -> TypeError:
    """The error for a column holding list, dict, set or array cells."""
    bad = column[column.map(lambda v: not isinstance(v, Hashable))]
    where = f" (first at row {bad.index[0]!r})" if len(bad) else ""
    kind = type(bad.iloc[0]).__name__ if len(bad) else "unhashable"
    return TypeError(
        f"Column {column.name!r} holds {kind} cells{where}; each cell must be one value "
        "(a number, a string or NaN)."
    )


#: Cells of an object column sampled to decide whether its cells share objects.
_IDENTITY_SAMPLE = 4096


def _factorize_by_identity(values: np.ndarray):
    """:class:`_Factorized` of an object array whose cells share a few objects, else None.

    Object columns usually hold a few string objects many times over (the
    labels of ``read_csv(dtype=object)``, of ``astype(object)`` on a
    Categorical, of a mapping). pandas' object factorize hashes every cell's
    text while holding the GIL; here the cells are first factorized by object
    identity, an integer hash table (which releases the GIL and is about 4x
    faster), and only one cell per distinct object is then hashed by value,
    so equal values held by different objects still meet. In CPython an object
    array's buffer holds the objects' addresses; elsewhere this returns None.
    """
    if sys.implementation.name != "cpython" or values.ndim != 1 or not len(values):
        return None
    values = np.ascontiguousarray(values)  # the identities below read this array's buffer
    address = (ctypes.c_ssize_t * len(values)).from_address(values.ctypes.data)
    identities = np.frombuffer(address, dtype=np.intp)
    sample, seen = pd.factorize(identities[:_IDENTITY_SAMPLE])
    if len(seen) > _IDENTITY_SAMPLE // 4:
        return None  # mostly distinct objects: hashing the values once is cheaper
    indices, distinct = pd.factorize(identities)
    if len(distinct) == len(seen):  # every object is in the sample, numbered alike (first seen)
        holder = np.empty(len(seen), dtype=np.intp)
        holder[sample] = np.arange(len(sample))  # a cell holding each object (any one will do)
    else:
        holder = np.empty(len(distinct), dtype=np.intp)
        holder[indices] = np.arange(len(indices))
    to_unique, uniques = pd.factorize(values[holder])  # None / NaN objects: -1, missing
    return _Factorized(_uniques_array(uniques), [(indices, to_unique)])


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
def _no_category(column):
    raise ValueError(f"Column {column.name!r} has no observed value: every cell is missing.")


def learn_categories(column: pd.Series) -> np.ndarray:
    """The categories of one training column, sorted, NaN excluded.

    A pandas Categorical column keeps its declared categories (sorted), so a
    category absent from a training fold still gets a (smoothed) probability.
    Object columns of mixed types sort by (type name, text).
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
            uniques = _uniques_array(pd.unique(column.dropna()))
        categories = uniques[_sort_order(uniques)]
    if len(categories) == 0:
        _no_category(column)
    return categories


def _numeric_categories(observed: np.ndarray) -> np.ndarray:
    if _small_nonnegative_ints(observed):
        return np.flatnonzero(np.bincount(observed)).astype(observed.dtype)
    return np.unique(observed)


def _learn_and_encode_column(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """``(categories, codes)`` of one training column, in one hashing pass over its cells."""
    if _numeric_values(column) is not None:
        categories = learn_categories(column)
        return categories, _encode(column, categories, "error", codes_dtype([categories]))
    factorized = _factorize(column)
    uniques = factorized.uniques
    if factorized.observed or isinstance(column.dtype, pd.CategoricalDtype):
        kept = np.arange(len(uniques))  # a Categorical keeps its declared categories
    else:
        kept = np.flatnonzero(factorized.occurring())  # e.g. an Arrow dictionary's unused values
    if len(kept) == 0:
        _no_category(column)
    order = kept[_sort_order(uniques[kept])]
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
    factorized = _factorize(column)
    lookup = _as_index_values(categories)
    lookup = pd.Index(lookup).get_indexer(_as_index_values(factorized.uniques))
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
    if low.min() < 0 or high.max() >= _LOOKUP_LIMIT:
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

    def column_work(j, column):
        if not categorical[j]:
            return None, _dummy_codes(column, np.int8)
        return _learn_and_encode_column(column)

    categories = []
    codes = np.empty(frame.shape, dtype=np.int8, order="F")
    for j, (cats, column_codes) in enumerate(_map_columns(column_work, frame)):
        if column_codes.dtype.itemsize > codes.dtype.itemsize:  # > 127 categories: widen
            codes = codes.astype(column_codes.dtype, order="F")
        codes[:, j] = column_codes
        categories.append(cats)
    return categories, codes


def _dummy_codes(column, dtype):
    return np.where(column.isna().to_numpy(), MISSING, 0).astype(dtype)


def _map_columns(function, frame):
    """``function(j, column)`` for every column, in order; on threads when that pays.

    pyarrow's dictionary encoding and the integer hash table of object columns
    factorized by identity (:func:`_factorize_by_identity`) release the GIL, so
    tall frames with several such columns are encoded a column per core.
    """
    columns = [frame.iloc[:, j] for j in range(frame.shape[1])]  # taken here, not on threads
    threads = min(cpu_count(), MAX_THREADS)
    if threads > 1 and len(frame) >= _THREAD_ROWS:
        hashed = sum(
            _arrow_data(column) is not None or column.dtype == object for column in columns
        )
        if hashed >= 2:
            with ThreadPoolExecutor(min(threads, hashed)) as pool:
                yield from pool.map(function, range(len(columns)), columns)
            return
    for j, column in enumerate(columns):
        yield function(j, column)


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


def encode_frame(frame: pd.DataFrame, categories, handle_unknown="error") -> np.ndarray:
    """Codes of every column, shape ``(n_rows, n_features)``.

    The array is column-major and of the smallest integer type that holds the
    codes (see :func:`codes_dtype`): counting reads it column by column. A
    column whose categories are ``None`` (not categorical) gets the one-state
    dummy code 0, or :data:`MISSING` where the cell is missing.
    """
    dummies = any(c is None for c in categories)
    integers = None if dummies else _integer_block(frame)
    if integers is not None and all(np.asarray(c).dtype.kind in "iu" for c in categories):
        return _encode_integer_block(integers[0], frame, categories, handle_unknown)
    dtype = codes_dtype(categories)
    if len(categories) != frame.shape[1]:
        raise ValueError(f"{len(categories)} category arrays for {frame.shape[1]} columns.")

    def column_work(j, column):
        if categories[j] is None:
            return _dummy_codes(column, dtype)
        return _encode(column, categories[j], handle_unknown, dtype)

    codes = np.empty(frame.shape, dtype=dtype, order="F")
    for j, column_codes in enumerate(_map_columns(column_work, frame)):
        codes[:, j] = column_codes
    return codes


def take_rows(X, y, keep):
    """Rows ``keep`` (a boolean mask) of the table ``X`` (as a DataFrame) and of ``y``.

    Returns ``(frame, has_names, y)``; ``has_names`` is that of the original ``X``.
    """
    frame, has_names = as_frame(X)
    if isinstance(y, (pd.Series, pd.DataFrame)):
        y_rows = y.iloc[keep] if len(y) == len(frame) else y
    else:
        values = np.asarray(y)
        y_rows = values[keep] if len(values) == len(frame) else values
    return frame.iloc[keep], has_names, y_rows


def encode_target(y, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """``(classes, codes)`` of the class column; checks length, missing values, >= 2 classes.

    ``classes`` are the sorted observed labels, except for a pandas Categorical
    target, whose declared categories are kept (as R keeps a factor's levels):
    a class absent from a training fold then still gets a smoothed prior
    instead of probability 0 on the test fold.
    """
    if y is None:
        raise ValueError("requires y to be passed, but the target y is None.")
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise ValueError(f"y must be one column, got a DataFrame with {y.shape[1]} columns.")
        y = y.iloc[:, 0]
    values = y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y)
    if values.ndim == 2 and values.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected; using y.ravel().",
            DataConversionWarning,
            stacklevel=3,
        )
        values = values.ravel()
    if values.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {values.shape}.")
    if len(values) != n_rows:
        raise ValueError(f"X has {n_rows} rows but y has {len(values)}; they must match.")
    missing = pd.isna(values)
    if missing.any():
        raise ValueError(
            f"y has {int(missing.sum())} missing value(s) "
            f"(first at row {int(np.argmax(missing))}); the class must be observed in every row."
        )
    if not hasattr(y, "dtype"):  # a list: numpy would silently turn 1 into "1"
        try:
            values_for_check = np.asarray(y, dtype=object).ravel()
        except (TypeError, ValueError):
            values_for_check = values
    else:
        values_for_check = values
    if values_for_check.dtype == object:
        values_check = values_for_check
        kinds = {type(v).__name__ for v in values_check if isinstance(v, str)} | {
            "number" for v in values_check if isinstance(v, numbers.Number)
        }
        if len(kinds) > 1:
            raise TypeError(
                "y mixes strings and numbers (e.g. 'a' and 1); give every label one type, "
                "e.g. y.astype(str)."
            )
    if values.dtype.kind not in "iub":  # integer and boolean labels are always classes
        check_classification_targets(values)
    observed, codes = np.unique(values, return_inverse=True)
    if len(observed) < 2:
        raise ValueError(
            f"y has only 1 class ({observed[0]!r}) in {n_rows} sample(s); "
            "a classifier needs at least 2 classes."
        )
    dtype = getattr(y, "dtype", None)
    if isinstance(dtype, pd.CategoricalDtype):
        classes = np.asarray(dtype.categories)
        return classes, pd.Index(classes).get_indexer(values).astype(np.intp)
    return observed, codes.astype(np.intp)
