"""Numeric columns as MDL bins, for the selective KDBs (whose nodes are all tables).

The columns the library's kinds rule would model as continuous (see
:func:`bnclassify.data.default_kind`) are cut with Fayyad and Irani's MDL rule
(:func:`bnclassify.preprocessing.mdl_cut_points`) or, for an ESKDB member, with
its stochastic version (:func:`bnclassify.preprocessing.sampled_mdl_cut_points`);
every other column passes through. A bin is a pandas categorical with every
bin declared, so the estimators model it as a category.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..data import TableSchema, as_frame, dtype_family, encode_target
from ..data.binning import SortedColumn
from ..preprocessing import mdl_cut_points
from ..validation import check_sample_weight


def weighted_rows(X, y, sample_weight=None):
    """``(X, y, sample_weight)`` without the rows of weight 0 (checked weights, or None).

    ``X`` keeps its type (a DataFrame its labels), so the fit sees the user's table.

    Examples
    --------
    >>> X, y, w = weighted_rows(np.eye(3), [0, 1, 1], [1, 0, 2])
    >>> X.tolist(), y.tolist(), w.tolist()
    ([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], [0, 1], [1.0, 2.0])
    """
    if sample_weight is None:
        return X, y, None
    frame, _ = as_frame(X)
    w = check_sample_weight(sample_weight, len(frame))
    keep = w > 0
    if not keep.any():
        raise ValueError("sample_weight: every weight is zero; there is nothing to fit.")
    if keep.all():
        return X, y, w
    X = X.iloc[keep] if isinstance(X, pd.DataFrame) else frame.iloc[keep].to_numpy()
    y = y.iloc[keep] if isinstance(y, pd.Series) else np.asarray(y)[keep]
    return X, y, w[keep]


def continuous_columns(X, y, sample_weight=None, distributions=None) -> list:
    """Positions of the columns of ``X`` the kinds rule models as continuous.

    ``distributions`` (a table model's, :data:`~bnclassify.factors.TABLE_DISTRIBUTIONS`)
    overrides the rule: a column it calls ``"binned"`` is cut, one it calls
    ``"categorical"`` is not.

    Examples
    --------
    >>> X = pd.DataFrame({"site": ["a", "b"] * 20, "size": np.linspace(0, 1, 40)})
    >>> continuous_columns(X, [0, 1] * 20)
    [1]
    """
    frame, _ = as_frame(X)
    if distributions is None and all(dtype_family(t) == "other" for t in frame.dtypes):
        return []  # no number in the table: the rule reads no column, and the class is not coded
    _, y_codes = encode_target(y, len(frame))
    schema, _ = TableSchema.learn(X, distributions, False, sample_weight, y_codes)
    numeric = ~schema.discrete | schema.binned  # binned: the default of every other model
    return np.flatnonzero(numeric).tolist()


def learn_cuts(X, y, columns, rng=None, sample_weight=None) -> list:
    """The cut points of each of ``columns`` (positions), learned on its observed cells.

    Deterministic MDL cuts, or cuts sampled with ``rng`` (a
    :class:`numpy.random.Generator`, one draw sequence per column in the order
    given), with the rows' weights as frequencies; an infinite value is refused
    (:func:`numbers`).

    Examples
    --------
    >>> learn_cuts(pd.DataFrame({"v": [1.0, 2, 3, 4, 5, 6, 7, 8]}), list("aaaabbbb"), [0])
    [array([4.5])]
    """
    return cuts_of(column_numbers(X, columns), y, rng, sample_weight)


def column_numbers(X, columns) -> list:
    """Each of ``columns`` (positions) of ``X`` as float64 (NaN where missing).

    Examples
    --------
    >>> column_numbers(pd.DataFrame({"c": ["a", "b"], "v": [1, None]}), [1])
    [array([ 1., nan])]
    """
    frame, _ = as_frame(X)
    return [numbers(frame.iloc[:, j], frame.columns[j]) for j in columns]


def cuts_of(values, y, rng=None, sample_weight=None) -> list:
    """:func:`learn_cuts` of columns already read by :func:`column_numbers`."""
    if rng is not None:
        return [column.sampled_cuts(rng) for column in sorted_columns(values, y, sample_weight)]
    return [mdl_cut_points(*rows) for rows in _observed_rows(values, y, sample_weight)]


def sorted_columns(values, y, sample_weight=None) -> list:
    """Each column of ``values`` (as :func:`column_numbers` reads them) as a
    :class:`~bnclassify.data.binning.SortedColumn` of its observed, weighted rows: what
    sampled cuts of it read (``column.sampled_cuts(rng)``), shared by the draws."""
    return [SortedColumn(*rows) for rows in _observed_rows(values, y, sample_weight)]


def _observed_rows(values, y, sample_weight):
    """``(x, y, w)`` of each column's rows with a finite value and a positive weight."""
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()  # a column vector: encode_target says so (DataConversionWarning) and reads it
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    for x in values:
        rows = (w > 0) & np.isfinite(x)
        yield x[rows], y[rows], w[rows]


def apply_cuts(frame, columns, cuts, values=None) -> pd.DataFrame:
    """``frame`` with each of ``columns`` (positions) replaced by its bins.

    Bin ``b`` holds the values in ``(cuts[b - 1], cuts[b]]``; a missing value
    stays missing. ``values``: the columns as :func:`column_numbers` read them,
    if already read.

    Examples
    --------
    >>> frame = pd.DataFrame({"v": [1.0, 4.5, 9.0, None], "c": list("abab")})
    >>> apply_cuts(frame, [0], [np.array([4.5])])["v"].tolist()
    [0, 0, 1, nan]
    """
    out = frame.copy(deep=False)
    if values is None:
        values = column_numbers(frame, columns)
    for j, edges, x in zip(columns, cuts, values, strict=True):
        bins = np.where(np.isnan(x), -1, np.searchsorted(edges, x, side="left"))
        out.isetitem(j, pd.Categorical.from_codes(bins, categories=np.arange(len(edges) + 1)))
    return out


def numbers(column, name) -> np.ndarray:
    """A column as float64 (NaN where missing), or a ValueError naming it (values that are
    not numbers, or infinite ones: a bin is an interval of finite numbers, as the other
    models' binned and density columns refuse them, in fit and in prediction)."""
    try:
        x = column.to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError):
        values = pd.to_numeric(column, errors="coerce")
        bad = column[values.isna() & column.notna()]
        raise ValueError(
            f"Column {name!r} was numeric in fit and is discretised, but it holds values that "
            f"are not numbers (e.g. {bad.iloc[0] if len(bad) else None!r})."
        ) from None
    infinite = np.flatnonzero(np.isinf(x))
    if len(infinite):
        raise ValueError(
            f"Column {name!r} has infinite value(s) (first at row {infinite[0]}); binned "
            "features must be finite or NaN."
        )
    return x
