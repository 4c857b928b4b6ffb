"""Supervised discretisation for putting discrete models behind continuous data.

:class:`MDLDiscretizer` is Fayyad and Irani's (1993) entropy-based
discretisation with the minimum description length stopping rule, as a
scikit-learn transformer: ``make_pipeline(MDLDiscretizer(), TAN())`` is a
discretised TAN on numeric data.
"""

from __future__ import annotations

import warnings
from decimal import Decimal
from numbers import Real

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .data.binning import mdl_cut_points, sampled_mdl_cut_points
from .exceptions import InvalidParameterError, NoCutPointWarning
from .state import collect, require, restore
from .state import cut_points as check_cut_points
from .validation import ArrayLike, validate_parameters

__all__ = ["MDLDiscretizer", "mdl_cut_points", "sampled_mdl_cut_points"]


class MDLDiscretizer(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Supervised MDL discretisation (Fayyad and Irani 1993) of every numeric column.

    ``fit`` learns each column's cut points with :func:`mdl_cut_points`;
    ``transform`` replaces each value by the index of its bin (0 below the
    first cut; a value equal to a cut falls in the lower bin). The output is
    integer, so bnclassify's estimators model it as categorical and any
    discrete model can follow in a ``Pipeline``. A column for which no split
    pays becomes the constant 0 (one bin), which tells a model nothing about
    the class: ``fit`` says so in one
    :class:`~bnclassify.exceptions.NoCutPointWarning` naming those columns.

    On a DataFrame (a mixed table), only numeric columns are discretised
    (``columns`` to choose them): numpy and pandas nullable integers and
    floats, pyarrow numbers, and object columns holding only numbers; strings,
    booleans and categoricals pass through unchanged (a table with no numeric
    column passes through whole), and the output is a DataFrame with the same
    column names (``get_feature_names_out``, ``set_output(transform="pandas")``).
    A missing value (NaN, ``None``, ``pd.NA``) stays missing (a nullable
    ``Int64`` bin column), so a bnclassify model downstream sums it out; a
    column with no observed value is one bin of missing cells. An array, or a
    DataFrame of plain numeric columns without a missing cell, gives an
    ``int64`` array. An infinite value in ``fit``, a missing one in an array,
    and an object column mixing numbers with other values are refused with an
    error naming the column.

    Parameters
    ----------
    columns : list of str, optional
        The DataFrame columns to discretise; default: every numeric,
        non-boolean column.

    Attributes
    ----------
    cut_points_ : list of ndarray or None
        Ascending cut points of each column (``None`` for a passed-through one).
    n_bins_ : ndarray of shape (n_features,)
        ``len(cut_points_[j]) + 1`` (0 for a passed-through column).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X was a DataFrame with string column names.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.pipeline import make_pipeline
    >>> from bnclassify import TAN
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> mdl = MDLDiscretizer().fit(X, y)
    >>> mdl.cut_points_[2]  # petal length (cm)
    array([2.45, 4.75])
    >>> mdl.transform(X.iloc[[0, 50, 100]])
    array([[0, 2, 0, 0],
           [2, 1, 1, 1],
           [2, 1, 2, 2]])
    >>> model = make_pipeline(MDLDiscretizer(), TAN()).fit(X, y)
    >>> round(model.score(X, y), 2)
    0.95
    >>> mixed = X.assign(colour=["red", "blue", "green"] * 50)
    >>> MDLDiscretizer().fit(mixed, y).transform(mixed.iloc[[0, 50]]).iloc[:, 2:].to_numpy()
    array([[0, 0, 'red'],
           [1, 1, 'green']], dtype=object)
    """

    _parameter_constraints = {"columns": [ArrayLike("a list of column names"), None]}

    def __init__(self, columns=None):
        self.columns = columns

    def fit(self, X, y):
        """Learn the cut points of every numeric column.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numbers (an array: finite, no missing value), or a DataFrame of any
            columns (see the class description).
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self
        """
        validate_parameters(self)
        if isinstance(X, pd.DataFrame) and (
            self.columns is not None
            or not all(_is_plain_number_column(X[c]) for c in X.columns)
            or X.isna().to_numpy().any()
        ):
            self._fit_frame(X, y)
        else:
            if self.columns is not None:
                raise InvalidParameterError(
                    "columns= names DataFrame columns; X is not a DataFrame."
                )
            names = list(X.columns) if isinstance(X, pd.DataFrame) else None
            X, y = _numeric_array(self, X, y)
            check_classification_targets(y)
            _require_finite(X, names, "fit")
            self.cut_points_ = [mdl_cut_points(X[:, j], y) for j in range(X.shape[1])]
            self._frame = False
        self.n_bins_ = np.array([0 if c is None else len(c) + 1 for c in self.cut_points_])
        self._warn_no_cut()
        return self

    def _fit_frame(self, X, y):
        validate_data(self, X, skip_check_array=True)
        y = np.asarray(y)
        check_classification_targets(y)
        if len(y) != len(X):
            raise ValueError(f"X has {len(X)} rows but y has {len(y)}.")
        if self.columns is None:
            # no numeric column: the table passes through whole
            chosen = [c for c in X.columns if _is_number_column(X[c])]
        else:
            chosen = list(self.columns)
            unknown = [c for c in chosen if c not in X.columns]
            if unknown:
                raise InvalidParameterError(f"columns names {unknown}, which are not columns of X.")
            bad = [c for c in chosen if not _is_number_column(X[c])]
            if bad:
                raise InvalidParameterError(
                    f"columns {bad} are not numeric and cannot be discretised."
                )
        self.cut_points_ = []
        for name in X.columns:
            if name not in chosen:
                self.cut_points_.append(None)
                continue
            x = _column_numbers(X[name], name)
            if np.isinf(x).any():
                raise ValueError(f"Column {name!r} has infinite values; MDL needs finite numbers.")
            seen = ~np.isnan(x)
            self.cut_points_.append(mdl_cut_points(x[seen], y[seen]))
        self._frame = True

    def _warn_no_cut(self):
        """One :class:`~bnclassify.exceptions.NoCutPointWarning` naming the discretised
        columns that got one bin (none observed, or no split paid)."""
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            names = list(range(self.n_features_in_))
        single = [n for n, b in zip(list(names), self.n_bins_, strict=True) if b == 1]
        if not single:
            return
        listed = single if len(single) <= 10 else [*single[:10], "..."]
        warnings.warn(
            NoCutPointWarning(
                f"MDL found no cut point for {len(single)} column(s) {listed}: each becomes "
                "one bin, which carries nothing about the class (a model after it keeps "
                "only the class prior for them). Drop them, or model them otherwise.",
                single,
            ),
            stacklevel=3,
        )

    def transform(self, X):
        """Bin index of every value, shape ``(n_samples, n_features)``, dtype int64."""
        check_is_fitted(self, "cut_points_")
        if getattr(self, "_frame", False):
            return self._transform_frame(X)
        names = list(X.columns) if isinstance(X, pd.DataFrame) else None
        self._check_columns(X)
        if isinstance(X, pd.DataFrame):
            # a column that is not numbers, named before scikit-learn's cast says only "could
            # not convert string to float"
            for name in names:
                dtype = X[name].dtype
                if isinstance(dtype, pd.CategoricalDtype) and pd.api.types.is_numeric_dtype(
                    dtype.categories.dtype
                ):
                    continue  # categories that are numbers: read as numbers
                if not _is_plain_number_column(X[name]) and not _is_number_column(X[name]):
                    raise ValueError(
                        f"Column {name!r} was numbers in fit and is discretised, but it holds "
                        f"values that are not numbers (e.g. {_first_non_number(X[name])!r})."
                    )
        with warnings.catch_warnings():
            # an array after a fit on a DataFrame: its columns are taken in the fitted order
            # (checked by count above), as the estimators take them
            warnings.filterwarnings("ignore", message="X does not have valid feature names")
            X = _numeric_array(self, X, None, transform=True)
        _require_finite(X, names, "transform")
        out = np.empty(X.shape, dtype=np.int64)
        for j, cuts in enumerate(self.cut_points_):
            out[:, j] = np.searchsorted(cuts, X[:, j], side="left")
        return out

    def _check_columns(self, X):
        """A DataFrame's columns against the fitted names (the same columns in the same
        order), an error naming the difference; their count is scikit-learn's check."""
        fitted = getattr(self, "feature_names_in_", None)
        if isinstance(X, pd.DataFrame) and fitted is not None:
            given = list(X.columns)
            if given != list(fitted):
                missing = [c for c in fitted if c not in given]
                extra = [c for c in given if c not in list(fitted)]
                raise ValueError(
                    f"X's columns are not the fitted ones: missing {missing[:5]}, unexpected "
                    f"{extra[:5]}"
                    + ("" if missing or extra else ", or in another order")
                    + f"; fitted on {list(fitted)[:5]}"
                    + ("..." if len(fitted) > 5 else "")
                    + "."
                )

    def _transform_frame(self, X):
        if not isinstance(X, pd.DataFrame):
            raise TypeError("This MDLDiscretizer was fitted on a DataFrame; pass a DataFrame.")
        self._check_columns(X)
        validate_data(self, X, reset=False, skip_check_array=True)
        out = {}
        for name, cuts in zip(X.columns, self.cut_points_, strict=True):
            if cuts is None:
                out[name] = X[name]
                continue
            try:
                x = X[name].to_numpy(dtype=float, na_value=np.nan)
            except (TypeError, ValueError):
                raise ValueError(
                    f"Column {name!r} was numeric in fit and is discretised, but it holds "
                    f"values that are not numbers (e.g. {_first_non_number(X[name])!r})."
                ) from None
            bins = np.searchsorted(cuts, x, side="left")
            missing = np.isnan(x)
            if missing.any():
                out[name] = pd.array(np.where(missing, 0, bins), dtype="Int64")
                out[name][missing] = pd.NA
            else:
                out[name] = bins.astype(np.int64)
        return pd.DataFrame(out, index=X.index)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.transformer_tags.preserves_dtype = []
        return tags

    # -- declared state (the fields of a model file; see bnclassify.state) ---------------
    #: ``frame_output``: whether it was fitted on (and transforms) a DataFrame.
    _FITTED_FIELDS = {
        "feature_names_in_": "feature_names_in_",
        "n_features_in_": "n_features_in_",
        "cut_points_": "cut_points_",
        "n_bins_": "n_bins_",
        "_frame": "frame_output",
    }

    def _get_state(self) -> dict:
        """The fitted state by field (empty when unfitted); the parameters are not in it."""
        return collect(vars(self), self._FITTED_FIELDS)

    @classmethod
    def _from_state(cls, state, params=None):
        """The discretiser of ``params`` with :meth:`_get_state`'s fields, checked."""
        model = restore(cls(**(params or {})), cls._FITTED_FIELDS, state, cls.__name__)
        if not state:
            return model
        cuts = state.get("cut_points_")
        check_cut_points(cuts, "cut_points_", state.get("n_features_in_"))
        require(isinstance(state.get("frame_output"), bool), "frame_output", "must be a boolean.")
        return model


def _is_plain_number_column(column: pd.Series) -> bool:
    """A column whose dtype holds numbers (numpy, pandas nullable or pyarrow), not booleans."""
    dtype = column.dtype
    return not isinstance(dtype, pd.CategoricalDtype) and getattr(dtype, "kind", "O") in "iuf"


def _is_real(value) -> bool:
    return isinstance(value, Real | Decimal) and not isinstance(value, bool | np.bool_)


def _is_number_column(column: pd.Series) -> bool:
    """Whether MDL discretises ``column`` by default: a numeric dtype, or an object column
    holding only numbers; an object column mixing numbers with other values is refused."""
    if _is_plain_number_column(column):
        return True
    if getattr(column.dtype, "kind", None) != "O":
        return False
    inferred = pd.api.types.infer_dtype(column, skipna=True)
    if inferred in ("integer", "floating", "mixed-integer-float", "decimal"):
        return True
    if inferred in ("mixed", "mixed-integer"):
        cells = column[column.notna()]
        numbers = cells.map(_is_real).to_numpy(dtype=bool)
        if numbers.any():
            raise ValueError(
                f"Column {column.name!r} holds numbers and other values (e.g. "
                f"{cells[~numbers].iloc[0]!r}): make it numbers (pd.to_numeric) to discretise "
                "it, or text (astype(str)) to pass it through."
            )
    return False


def _column_numbers(column: pd.Series, name) -> np.ndarray:
    """A numeric column as floats, NaN where missing (``None``, ``pd.NA``, NaN)."""
    try:
        return column.to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError):
        raise ValueError(
            f"Column {name!r} holds values that are not numbers "
            f"(e.g. {_first_non_number(column)!r})."
        ) from None


def _numeric_array(estimator, X, y, transform=False):
    """``validate_data`` of a numeric table (NaN and infinities left to :func:`_require_finite`);
    ``transform``: ``X`` alone, checked against the fitted columns."""
    try:
        if transform:
            return validate_data(
                estimator, X, reset=False, dtype="numeric", ensure_all_finite=False
            )
        return validate_data(
            estimator, X, y, dtype="numeric", y_numeric=False, ensure_all_finite=False
        )
    except ValueError as error:
        if "convert" not in str(error).lower():
            raise
        raise ValueError(
            f"X holds values that are not numbers ({error}); pass a DataFrame to discretise "
            "its numeric columns and pass the others through."
        ) from None


def _require_finite(X, names, where):
    """A missing or infinite cell of an array, refused with its column's name (or position)."""
    for problem, cells in (("missing values (NaN)", np.isnan(X)), ("infinite values", np.isinf(X))):
        columns = np.flatnonzero(cells.any(axis=0))
        if not len(columns):
            continue
        j = int(columns[0])
        name = names[j] if names is not None else j
        if problem.startswith("infinite"):
            advice = "MDL bins finite numbers."
        elif where == "fit":
            advice = "pass a DataFrame, whose missing cells stay missing."
        else:
            advice = (
                "this MDLDiscretizer was fitted on a table without missing cells and returns "
                "an int64 array, which cannot hold one; fit it on a DataFrame with columns= "
                "given to get a DataFrame whose missing cells stay missing."
            )
        raise ValueError(
            f"Column {name!r} has {problem} (first at row {int(np.argmax(cells[:, j]))}); " + advice
        )


def _first_non_number(column):
    """The first cell of ``column`` that ``float()`` refuses (for the error message)."""
    if not isinstance(column.dtype, pd.CategoricalDtype) and column.dtype.kind in "bcmM":
        observed = column.dropna()  # booleans, complex numbers, dates: not numbers to bin
        return observed.iloc[0] if len(observed) else None
    numbers = pd.to_numeric(column, errors="coerce")
    refused = numbers.isna() & column.notna()
    if refused.any():
        return column[refused].iloc[0]
    observed = column.dropna()  # numbers written as text
    return observed.iloc[0] if len(observed) else None
