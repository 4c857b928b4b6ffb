"""Tables as DataFrames: what every layer above reads a user's ``X`` as."""

from __future__ import annotations

import numpy as np
import pandas as pd


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


def take_rows(X, y, keep):
    """Rows ``keep`` (a boolean mask) of the table ``X`` (as a DataFrame) and of ``y``.

    Returns ``(frame, has_names, y)``; ``has_names`` is that of the original ``X``.
    """
    frame, has_names = as_frame(X)
    keep = np.asarray(keep)
    if keep.dtype != bool or keep.shape != (len(frame),):
        raise ValueError(
            f"keep must be one boolean per row of X ({len(frame)}), got {keep.dtype} of shape "
            f"{keep.shape}."
        )
    if isinstance(y, (pd.Series, pd.DataFrame)):
        y_rows = y.iloc[keep] if len(y) == len(frame) else y
    else:
        values = np.asarray(y)
        y_rows = values[keep] if len(values) == len(frame) else values
    return frame.iloc[keep], has_names, y_rows
