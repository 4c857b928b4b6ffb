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
        frame = pd.DataFrame(array, columns=list(names))
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


def learn_categories(column: pd.Series) -> np.ndarray:
    """The categories of one training column, sorted, NaN excluded.

    A pandas Categorical column keeps its declared categories, so a category
    absent from a training fold still gets a (smoothed) probability.
    """
    if isinstance(column.dtype, pd.CategoricalDtype):
        categories = np.asarray(column.dtype.categories)
    elif _is_numeric(column):
        values = column.to_numpy()
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
    if _is_numeric(column) and np.asarray(categories).dtype.kind in "biuf":
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


def encode_frame(frame: pd.DataFrame, categories, handle_unknown="error") -> np.ndarray:
    """Codes of every column, shape ``(n_rows, n_features)``."""
    codes = np.empty(frame.shape, dtype=np.intp)
    for j, (name, cats) in enumerate(zip(frame.columns, categories, strict=True)):
        codes[:, j] = encode_column(frame[name], cats, handle_unknown)
    return codes


def encode_target(y, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """``(classes, codes)`` of the class column; checks length, missing values, >= 2 classes."""
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
    classes, codes = np.unique(values, return_inverse=True)
    if len(classes) < 2:
        raise ValueError(
            f"y has only 1 class ({classes[0]!r}) in {n_rows} sample(s); "
            "a classifier needs at least 2 classes."
        )
    return classes, codes.astype(np.intp)


def check_alpha(alpha):
    """Validate the Dirichlet pseudo-count."""
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not np.isfinite(alpha):
        raise TypeError(f"alpha must be a finite number, got {alpha!r}.")
    if alpha < 0:
        raise ValueError(f"alpha must be >= 0, got {alpha!r}.")
    return float(alpha)
