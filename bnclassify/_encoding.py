"""Input validation and category encoding.

Every feature column becomes integer codes ``0 .. r-1`` into its ``categories``
array; a missing cell (NaN / None) becomes :data:`MISSING`. Numeric columns are
encoded with numpy (``np.unique`` + ``searchsorted``), other columns through
pandas' hash-based ``Categorical``, so encoding is vectorised either way.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.multiclass import check_classification_targets

MISSING = -1
HANDLE_UNKNOWN = ("error", "marginalize")


def as_frame(X, feature_names=None) -> tuple[pd.DataFrame, bool]:
    """``X`` as a DataFrame, and whether it carried its own string column names.

    Arrays get the names ``x0 .. x{m-1}`` (or ``feature_names`` when given).
    """
    if isinstance(X, pd.DataFrame):
        has_names = len(X.columns) > 0 and all(isinstance(c, str) for c in X.columns)
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


#: Cells per block when encoding integer tables (bounds the temporary index arrays).
_ENCODE_CELLS = 1 << 18


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


def default_kind(column: pd.Series) -> str:
    """How a column is modelled unless told otherwise: ``"gaussian"`` for floats, else categorical.

    Integers, booleans, strings, objects and pandas Categorical columns (of
    any category type) are categorical; float columns are continuous.

    Examples
    --------
    >>> default_kind(pd.Series([1.5, 2.0])), default_kind(pd.Series([1, 2]))
    ('gaussian', 'categorical')
    """
    dtype = column.dtype
    if not isinstance(dtype, pd.CategoricalDtype) and dtype.kind == "f":
        return "gaussian"
    return "categorical"


def learn_categories(column: pd.Series) -> np.ndarray:
    """The categories of one training column, sorted, NaN excluded.

    A pandas Categorical column keeps its declared categories, so a category
    absent from a training fold still gets a (smoothed) probability.
    """
    if isinstance(column.dtype, pd.CategoricalDtype):
        categories = np.asarray(column.dtype.categories)
    elif _is_numeric(column):
        values = column.to_numpy()
        if _small_nonnegative_ints(values):
            categories = np.flatnonzero(np.bincount(values)).astype(values.dtype)
        else:
            categories = np.unique(values[~pd.isna(values)])
    else:
        observed = pd.unique(column.dropna())
        try:
            categories = np.asarray(sorted(observed), dtype=object)
        except TypeError:  # mixed types (e.g. 1 and "a"): sort by type, then text
            categories = np.asarray(
                sorted(observed, key=lambda v: (type(v).__name__, str(v))), dtype=object
            )
    if len(categories) == 0:
        raise ValueError(f"Column {column.name!r} has no observed value: every cell is missing.")
    return categories


def encode_column(column: pd.Series, categories: np.ndarray, handle_unknown="error") -> np.ndarray:
    """Integer codes of ``column`` into ``categories``; missing cells get :data:`MISSING`.

    A value not in ``categories`` raises a ``ValueError`` naming the column and
    the value, or is treated as missing when ``handle_unknown="marginalize"``.
    """
    if (
        _is_numeric(column)
        and column.dtype.kind in "iub"
        and np.asarray(categories).dtype.kind in "iub"
        and _small_nonnegative_ints(np.asarray(categories))
    ):
        values = column.to_numpy().astype(np.intp, copy=False)  # bools must not act as masks
        lookup = np.full(int(categories.max()) + 1, MISSING, dtype=np.intp)
        lookup[categories.astype(np.intp)] = np.arange(len(categories))
        inside = (values >= 0) & (values < len(lookup))
        codes = lookup[np.where(inside, values, 0)]
        codes[~inside] = MISSING
        unknown = codes == MISSING
    elif _is_numeric(column) and np.asarray(categories).dtype.kind in "biuf":
        values = column.to_numpy()
        missing = np.isnan(values) if values.dtype.kind == "f" else np.zeros(len(values), bool)
        position = np.searchsorted(categories, np.where(missing, categories[0], values))
        position = np.minimum(position, len(categories) - 1)
        known = categories[position] == values
        codes = np.where(known, position, MISSING)
        unknown = ~known & ~missing
    else:
        codes = pd.Index(categories).get_indexer(column).astype(np.intp)
        unknown = (codes == MISSING) & column.notna().to_numpy()
    if unknown.any():
        if handle_unknown == "error":
            seen = pd.unique(column[unknown])[:5]
            raise ValueError(
                f"Column {column.name!r} has value(s) {list(seen)} not seen during fit "
                f"(known categories: {list(categories)}). Pass handle_unknown='marginalize' "
                "to treat unseen categories as missing."
            )
        codes = np.where(unknown, MISSING, codes)
    return codes.astype(np.intp, copy=False)


def _integer_block(frame: pd.DataFrame):
    """The frame as one row-major array of small non-negative integers, or None.

    Whole-table integer data (e.g. integer codes from another library) is then
    learned and encoded in a few row-major passes instead of one strided pass
    per column, the dominant cost on tall tables.
    """
    if not all(not isinstance(t, pd.CategoricalDtype) and t.kind in "iu" for t in frame.dtypes):
        return None
    block = frame.to_numpy()
    if block.size == 0 or block.min() < 0 or block.max() >= _LOOKUP_LIMIT:
        return None
    return block


def learn_frame_categories(frame: pd.DataFrame, kinds=None) -> list:
    """:func:`learn_categories` of every column (vectorised for integer tables).

    With ``kinds`` (one per column), a column whose kind is not
    ``"categorical"`` gets ``None``: it is not a categorical feature, and
    :func:`encode_frame` gives it a one-state dummy code.
    """
    if kinds is not None and any(kind != "categorical" for kind in kinds):
        return [
            learn_categories(frame[name]) if kind == "categorical" else None
            for name, kind in zip(frame.columns, kinds, strict=True)
        ]
    block = _integer_block(frame)
    if block is None:
        return [learn_categories(frame[name]) for name in frame.columns]
    sizes = block.max(axis=0).astype(np.intp) + 1  # uint8 data: no wrap-around, int offsets
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    present = np.zeros(offsets[-1], dtype=bool)
    step = max(1, _ENCODE_CELLS // block.shape[1])
    for start in range(0, len(block), step):
        rows = block[start : start + step]
        present |= np.bincount((rows + offsets[:-1]).ravel(), minlength=offsets[-1]) > 0
    return [
        np.flatnonzero(present[offsets[j] : offsets[j + 1]]).astype(block.dtype)
        for j in range(block.shape[1])
    ]


def _encode_integer_block(block, frame, categories, handle_unknown):
    sizes = np.array([int(c.max()) + 1 for c in categories])
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    dtype = codes_dtype(categories)
    lookup = np.full(offsets[-1] + 1, MISSING, dtype=dtype)  # last slot: out of range
    for j, cats in enumerate(categories):
        lookup[offsets[j] + cats.astype(np.intp)] = np.arange(len(cats))
    codes = np.empty(block.shape, dtype=dtype, order="F")
    step = max(1, _ENCODE_CELLS // block.shape[1])
    for start in range(0, len(block), step):
        rows = block[start : start + step]
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
    block = None if dummies else _integer_block(frame)
    if block is not None and all(c.dtype.kind in "iu" for c in categories):
        return _encode_integer_block(block, frame, categories, handle_unknown)
    codes = np.empty(frame.shape, dtype=codes_dtype(categories), order="F")
    for j, (name, cats) in enumerate(zip(frame.columns, categories, strict=True)):
        if cats is None:
            codes[:, j] = np.where(frame[name].isna().to_numpy(), MISSING, 0)
        else:
            codes[:, j] = encode_column(frame[name], cats, handle_unknown)
    return codes


def check_sample_weight(sample_weight, n_rows: int):
    """Row weights as a float array, or None; a ``ValueError`` names ``sample_weight``.

    Weights must be one finite, non-negative number per row.

    Examples
    --------
    >>> check_sample_weight([1, 2], 2)
    array([1., 2.])
    """
    if sample_weight is None:
        return None
    try:
        weights = np.asarray(sample_weight, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("sample_weight must be numbers, one per row.") from None
    if weights.ndim != 1 or len(weights) != n_rows:
        raise ValueError(
            f"sample_weight has shape {weights.shape}, but X has {n_rows} rows; "
            "give one weight per row."
        )
    if not np.isfinite(weights).all():
        raise ValueError("sample_weight has NaN or infinite values; weights must be finite.")
    if (weights < 0).any():
        raise ValueError(
            f"sample_weight must be >= 0; got {weights[weights < 0][0]} "
            f"(row {int(np.argmax(weights < 0))})."
        )
    return weights


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


def check_alpha(alpha):
    """Validate the Dirichlet pseudo-count."""
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not np.isfinite(alpha):
        raise TypeError(f"alpha must be a finite number, got {alpha!r}.")
    if alpha < 0:
        raise ValueError(f"alpha must be >= 0, got {alpha!r}.")
    return float(alpha)
