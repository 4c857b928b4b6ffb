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

from .data.binning import (
    ValueClassCounts,
    mdl_cut_points,
    mdl_cut_points_of_counts,
    sampled_mdl_cut_points,
)
from .distributions import Binned
from .exceptions import InvalidParameterError, NoCutPointWarning
from .state import collect, require, restore, unchanged_on_error
from .state import cut_points as check_cut_points
from .validation import ArrayLike, check_sample_weight, validate_parameters

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

    ``partial_fit`` learns the same cut points one chunk at a time, exactly:
    MDL reads a column only through each distinct value's count in each class,
    which add up over chunks (:class:`~bnclassify.data.ValueClassCounts`, ``8 (C
    + 1)`` bytes per distinct value, refused by name beyond
    :data:`~bnclassify.data.MAX_BINNED_VALUES`). ``to_distributions()`` hands
    them to an estimator as fixed :class:`~bnclassify.distributions.Binned`
    nodes: the first pass over the chunks of a ``partial_fit``, whose binned
    columns need their cut points before the first chunk.

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

    One pass over chunks, then a ``partial_fit`` of a model over them again:

    >>> import numpy as np
    >>> chunks = np.array_split(np.random.default_rng(0).permutation(150), 3)
    >>> first_pass = MDLDiscretizer()
    >>> for rows in chunks:
    ...     _ = first_pass.partial_fit(X.iloc[rows], y.iloc[rows])
    >>> first_pass.cut_points_[2]  # those of fit on all the rows
    array([2.45, 4.75])
    >>> model = TAN(distributions=first_pass.to_distributions())
    >>> for rows in chunks:
    ...     _ = model.partial_fit(X.iloc[rows], y.iloc[rows], classes=[0, 1, 2])
    >>> bool(np.allclose(model.predict_proba(X), TAN().fit(X, y).predict_proba(X)))
    True
    """

    _parameter_constraints = {"columns": [ArrayLike("a list of column names"), None]}

    def __init__(self, columns=None):
        self.columns = columns

    def fit(self, X, y, sample_weight=None):
        """Learn the cut points of every numeric column.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numbers (an array: finite, no missing value), or a DataFrame of any
            columns (see the class description).
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights, counted as frequencies (an integer weight
            equals repeating the row), as an estimator's ``fit`` weighs its bins.

        Returns
        -------
        self
        """
        validate_parameters(self)
        self.__dict__.pop("_value_counts", None)
        counts = self._first_chunk(X, y, sample_weight)
        self._set_cut_points(counts)
        self._value_counts = counts  # what a later partial_fit adds its chunks to
        self._warn_no_cut()
        return self

    def partial_fit(self, X, y, sample_weight=None):
        """Add a chunk of rows: the cut points become those of ``fit`` on every row so far.

        The columns are chosen on the first call (as ``fit`` chooses them);
        each later chunk must have the same columns. Each discretised column
        keeps its :class:`~bnclassify.data.ValueClassCounts` (``8 (C + 1)`` bytes
        per distinct value, ``C`` classes, at most
        :data:`~bnclassify.data.MAX_BINNED_VALUES` of them: a column with more
        is refused with its name and the remedies), so the cut points equal
        ``fit``'s on the concatenated chunks, in any chunking and order (to the
        last bit with integer weights or none); after ``fit`` it continues from
        ``fit``'s rows, whose counts ``fit`` keeps (not in a model file). No
        :class:`~bnclassify.exceptions.NoCutPointWarning` (read ``n_bins_``).
        A failed call leaves the discretiser as it was.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        self
        """
        validate_parameters(self)
        with unchanged_on_error(self):
            kept = getattr(self, "_value_counts", None)
            if kept is None and hasattr(self, "cut_points_"):
                raise ValueError(
                    "This MDLDiscretizer was read from a model file, which keeps no value "
                    "counts to add a chunk to; fit it again, or call partial_fit from the first "
                    "chunk on."
                )
            counts = self._first_chunk(X, y, sample_weight) if kept is None else None
            if counts is None:
                chunk = self._chunk_counts(X, y, sample_weight)
                counts = [
                    None if a is None else ValueClassCounts.total([a, b])
                    for a, b in zip(kept, chunk, strict=True)
                ]
            names = self._names()
            counts = [
                None if c is None else c.check_size(name)
                for c, name in zip(counts, names, strict=True)
            ]
            self._value_counts = counts
            self._set_cut_points(counts)
        return self

    def to_distributions(self) -> dict:
        """The discretised columns as :class:`~bnclassify.distributions.Binned` nodes with these
        cut points, keyed by column name (position for an array): an estimator's
        ``distributions``, whose bins are then fixed (what ``partial_fit`` needs).

        Examples
        --------
        >>> X = pd.DataFrame({"size": [1.0, 2, 3, 4, 5, 6, 7, 8], "tag": list("abababab")})
        >>> MDLDiscretizer().fit(X, list("ppppqqqq")).to_distributions()
        {'size': Binned(cut_points=array([4.5]))}
        """
        check_is_fitted(self, "cut_points_")
        return {
            name: Binned(cut_points=cuts.copy())
            for name, cuts in zip(self._names(), self.cut_points_, strict=True)
            if cuts is not None
        }

    def _names(self) -> list:
        names = getattr(self, "feature_names_in_", None)
        return list(range(self.n_features_in_)) if names is None else list(names)

    def _set_cut_points(self, counts):
        self.cut_points_ = [None if c is None else mdl_cut_points_of_counts(c) for c in counts]
        self.n_bins_ = np.array([0 if c is None else len(c) + 1 for c in self.cut_points_])

    def _first_chunk(self, X, y, sample_weight):
        """Choose the columns and the kind of input (frame or array) from a first table; the
        :class:`ValueClassCounts` of each chosen column (None for the others)."""
        if isinstance(X, pd.DataFrame) and (
            self.columns is not None
            or not all(_is_plain_number_column(X[c]) for c in X.columns)
            or X.isna().to_numpy().any()
        ):
            validate_data(self, X, skip_check_array=True)
            self._chosen = self._chosen_columns(X)
            self._frame = True
        else:
            if self.columns is not None:
                raise InvalidParameterError(
                    "columns= names DataFrame columns; X is not a DataFrame."
                )
            self._frame = False
        return self._chunk_counts(X, y, sample_weight, reset=True)

    def _chosen_columns(self, X) -> list:
        if self.columns is None:
            # no numeric column: the table passes through whole
            return [c for c in X.columns if _is_number_column(X[c])]
        chosen = list(self.columns)
        unknown = [c for c in chosen if c not in X.columns]
        if unknown:
            raise InvalidParameterError(f"columns names {unknown}, which are not columns of X.")
        bad = [c for c in chosen if not _is_number_column(X[c])]
        if bad:
            raise InvalidParameterError(f"columns {bad} are not numeric and cannot be discretised.")
        return chosen

    def _chunk_counts(self, X, y, sample_weight, reset=False) -> list:
        """Each column's :class:`ValueClassCounts` over a table's rows (None: passed through)."""
        if self._frame:
            if not isinstance(X, pd.DataFrame):
                raise TypeError("This MDLDiscretizer was fitted on a DataFrame; pass a DataFrame.")
            if not reset:
                validate_data(self, X, reset=False, skip_check_array=True)
            y = np.asarray(y)
            check_classification_targets(y)
            if len(y) != len(X):
                raise ValueError(f"X has {len(X)} rows but y has {len(y)}.")
            w = _positive_weights(sample_weight, len(X))
            counts = []
            for name in X.columns:
                if name not in self._chosen:
                    counts.append(None)
                    continue
                x = _column_numbers(X[name], name)
                if np.isinf(x).any():
                    raise ValueError(
                        f"Column {name!r} has infinite values; MDL needs finite numbers."
                    )
                seen = ~np.isnan(x)
                counts.append(
                    ValueClassCounts.from_rows(x[seen], y[seen], None if w is None else w[seen])
                )
            return counts
        names = list(X.columns) if isinstance(X, pd.DataFrame) else None
        if reset:
            X, y = _numeric_array(self, X, y)
        else:
            X = validate_data(self, X, reset=False, dtype="numeric", ensure_all_finite=False)
            y = np.asarray(y)
            if len(y) != len(X):
                raise ValueError(f"X has {len(X)} rows but y has {len(y)}.")
        check_classification_targets(y)
        _require_finite(X, names, "fit")
        w = _positive_weights(sample_weight, len(X))
        return [ValueClassCounts.from_rows(X[:, j], y, w) for j in range(X.shape[1])]

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


def _positive_weights(sample_weight, n_rows):
    """Checked sample weights (or None); all zero is refused: there is nothing to count."""
    w = check_sample_weight(sample_weight, n_rows)
    if w is not None and not (w > 0).any():
        raise ValueError("sample_weight: every weight is zero; there is nothing to count.")
    return w


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
