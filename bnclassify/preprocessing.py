"""Supervised discretisation for putting discrete models behind continuous data.

:class:`MDLDiscretizer` is Fayyad and Irani's (1993) entropy-based
discretisation with the minimum description length stopping rule, as a
scikit-learn transformer: ``make_pipeline(MDLDiscretizer(), TAN())`` is a
discretised TAN on numeric data.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .exceptions import InvalidParameterError
from .state import collect, require, restore
from .state import cut_points as check_cut_points
from .validation import ArrayLike, validate_parameters

__all__ = ["MDLDiscretizer", "mdl_cut_points", "sampled_mdl_cut_points"]


def _entropy(counts):
    """Class entropy in bits of each row of ``counts`` (shape (..., n_classes))."""
    total = counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(counts > 0, counts / total, 1.0)
        return -(np.where(counts > 0, p * np.log2(p), 0.0)).sum(axis=-1)


def mdl_cut_points(x, y, sample_weight=None) -> np.ndarray:
    """Fayyad-Irani MDL cut points of one feature, sorted.

    The values are sorted once; a segment ``S`` of ``N`` rows is split at the
    cut ``T`` (a midpoint between consecutive distinct values) minimising the
    class information entropy ``E(T) = |S1|/N Ent(S1) + |S2|/N Ent(S2)``
    (ties to the smallest cut), and the split is kept when

        Gain(T) > log2(N - 1) / N + Delta / N,
        Delta = log2(3^k - 2) - [k Ent(S) - k1 Ent(S1) - k2 Ent(S2)],

    ``k``, ``k1``, ``k2`` the numbers of classes present in ``S``, ``S1``,
    ``S2`` (entropies in bits); both halves are then split the same way.
    Every segment's candidate entropies come from one cumulative class-count
    table, vectorised over the cuts.

    Parameters
    ----------
    x : array-like of shape (n,)
        Finite numbers.
    y : array-like of shape (n,)
        Class labels.
    sample_weight : array-like of shape (n,), optional
        Positive row weights counted as frequencies (``N`` and the class
        counts are sums of weights): an integer weight equals repeating the row.

    Returns
    -------
    ndarray
        The accepted cut points, ascending (empty when no split pays).

    Examples
    --------
    >>> mdl_cut_points([1, 2, 3, 4, 5, 6, 7, 8], list("aaaabbbb"))
    array([4.5])
    """

    def best_passing(gain, margin, whole_column):
        best = int(np.flatnonzero(gain >= gain.max() - 1e-12)[0])  # least E(T), ties: first
        return (best, True) if margin[best] > 0 else None

    return _mdl_walk(x, y, sample_weight, best_passing)


def sampled_mdl_cut_points(x, y, rng, sample_weight=None) -> np.ndarray:
    """Cut points of one feature sampled around Fayyad-Irani's MDL rule (ESKDB's discretiser).

    The stochastic discretisation of Zhang, Petitjean and Buntine (2020, the
    ensemble of selective KDBs): each segment's candidate cuts are those that
    pass the MDL test of :func:`mdl_cut_points`, and one of them is drawn with
    probability proportional to its margin ``Gain(T) - (log2(N - 1) + Delta) / N``
    instead of taking the best; both halves are then cut the same way. When no
    candidate of the whole column passes the test, one cut is drawn with
    probability proportional to its information gain (none when every gain is
    0), so that a numeric column keeps at least two bins. Two calls with
    generators in the same state return the same cuts.

    Parameters
    ----------
    x : array-like of shape (n,)
        Finite numbers.
    y : array-like of shape (n,)
        Class labels.
    rng : numpy.random.Generator
        The only source of randomness.
    sample_weight : array-like of shape (n,), optional
        As in :func:`mdl_cut_points`.

    Returns
    -------
    ndarray
        The sampled cut points, ascending.

    Examples
    --------
    >>> x, y = [1, 2, 3, 4, 5, 6, 7, 8], list("aaaabbbb")
    >>> sampled_mdl_cut_points(x, y, np.random.default_rng(0))
    array([4.5])
    """

    def drawn(gain, margin, whole_column):
        weight = np.where(margin > 0, margin, 0.0)
        if weight.any():
            return int(rng.choice(len(weight), p=weight / weight.sum())), True
        if not whole_column or not (gain > 0).any():
            return None
        weight = np.maximum(gain, 0.0)  # at least one cut, drawn by information gain
        return int(rng.choice(len(weight), p=weight / weight.sum())), False

    return _mdl_walk(x, y, sample_weight, drawn)


def _mdl_walk(x, y, sample_weight, pick) -> np.ndarray:
    """Split segments recursively; ``pick(gain, margin, whole_column)`` chooses a candidate.

    ``pick`` returns ``None`` (no cut) or ``(candidate, split_halves)``; ``gain``
    and ``margin`` (gain minus the MDL threshold) are per candidate cut.
    """
    x = np.asarray(x, dtype=float)
    _, y = np.unique(np.asarray(y), return_inverse=True)
    n = len(x)
    if n < 2:
        return np.empty(0)
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y.ravel()[order]
    onehot = np.zeros((n, int(ys.max()) + 1))
    onehot[np.arange(n), ys] = w[order]
    cum = np.zeros((n + 1, onehot.shape[1]))
    np.cumsum(onehot, axis=0, out=cum[1:])
    mass = cum.sum(axis=1)  # the weight of the rows before each position
    boundary = np.zeros(n + 1, dtype=bool)
    boundary[1:n] = xs[1:] > xs[:-1]  # a cut at position t separates xs[t-1] < xs[t]
    cuts = []
    stack = [(0, n, True)]
    while stack:
        lo, hi, whole_column = stack.pop()
        candidates = np.flatnonzero(boundary[lo + 1 : hi]) + lo + 1
        size = mass[hi] - mass[lo]
        if len(candidates) == 0 or size <= 1:
            continue
        total = cum[hi] - cum[lo]
        left = cum[candidates] - cum[lo]
        right = cum[hi] - cum[candidates]
        left_entropy, right_entropy = _entropy(left), _entropy(right)
        share = (mass[candidates] - mass[lo]) / size
        whole = float(_entropy(total))
        gain = whole - (share * left_entropy + (1 - share) * right_entropy)
        k = np.count_nonzero(total)
        k1, k2 = np.count_nonzero(left, axis=1), np.count_nonzero(right, axis=1)
        delta = np.log2(3.0**k - 2) - (k * whole - k1 * left_entropy - k2 * right_entropy)
        chosen = pick(gain, gain - (np.log2(size - 1) + delta) / size, whole_column)
        if chosen is None:
            continue
        best, split = chosen
        t = candidates[best]
        cuts.append((xs[t - 1] + xs[t]) / 2)
        if split:
            stack.extend([(t, hi, False), (lo, t, False)])
    return np.sort(np.asarray(cuts, dtype=float))


class MDLDiscretizer(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Supervised MDL discretisation (Fayyad and Irani 1993) of every column.

    ``fit`` learns each column's cut points with :func:`mdl_cut_points`;
    ``transform`` replaces each value by the index of its bin (0 below the
    first cut; a value equal to a cut falls in the lower bin). The output is
    integer, so bnclassify's estimators model it as categorical and any
    discrete model can follow in a ``Pipeline``. A column for which no split
    pays becomes the constant 0 (one bin).

    On a DataFrame (a mixed table), only numeric columns are discretised
    (``columns`` to choose them); strings, booleans and categoricals pass
    through unchanged, and the output is a DataFrame with the same column
    names (``get_feature_names_out``, ``set_output(transform="pandas")``). A
    missing value stays missing (a nullable ``Int64`` bin column), so a
    bnclassify model downstream sums it out.

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
        """Learn the cut points of every column.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric, finite (no missing values).
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self
        """
        validate_parameters(self)
        if isinstance(X, pd.DataFrame) and (
            self.columns is not None
            or not all(_is_number_column(X[c]) for c in X.columns)
            or X.isna().to_numpy().any()
        ):
            return self._fit_frame(X, y)  # a mixed table: pass the others through
        if self.columns is not None:
            raise InvalidParameterError("columns= names DataFrame columns; X is not a DataFrame.")
        X, y = validate_data(self, X, y, dtype="numeric", y_numeric=False)
        check_classification_targets(y)
        X = X.astype(float, copy=False)
        self.cut_points_ = [mdl_cut_points(X[:, j], y) for j in range(X.shape[1])]
        self.n_bins_ = np.array([len(c) + 1 for c in self.cut_points_])
        self._frame = False
        return self

    def _fit_frame(self, X, y):
        validate_data(self, X, skip_check_array=True)
        y = np.asarray(y)
        check_classification_targets(y)
        if len(y) != len(X):
            raise ValueError(f"X has {len(X)} rows but y has {len(y)}.")
        if self.columns is None:
            chosen = [c for c in X.columns if _is_number_column(X[c])]
            if not chosen:
                raise ValueError("X has no numeric column to discretise.")
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
            x = X[name].to_numpy(dtype=float, na_value=np.nan)
            if np.isinf(x).any():
                raise ValueError(f"Column {name!r} has infinite values; MDL needs finite numbers.")
            seen = ~np.isnan(x)
            self.cut_points_.append(mdl_cut_points(x[seen], y[seen]))
        self.n_bins_ = np.array([0 if c is None else len(c) + 1 for c in self.cut_points_])
        self._frame = True
        return self

    def transform(self, X):
        """Bin index of every value, shape ``(n_samples, n_features)``, dtype int64."""
        check_is_fitted(self, "cut_points_")
        if getattr(self, "_frame", False):
            return self._transform_frame(X)
        X = validate_data(self, X, reset=False, dtype="numeric")
        out = np.empty(X.shape, dtype=np.int64)
        for j, cuts in enumerate(self.cut_points_):
            out[:, j] = np.searchsorted(cuts, X[:, j], side="left")
        return out

    def _transform_frame(self, X):
        if not isinstance(X, pd.DataFrame):
            raise TypeError("This MDLDiscretizer was fitted on a DataFrame; pass a DataFrame.")
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


def _is_number_column(column: pd.Series) -> bool:
    dtype = column.dtype
    return not isinstance(dtype, pd.CategoricalDtype) and getattr(dtype, "kind", "O") in "iuf"


def _first_non_number(column):
    """The first cell of ``column`` that ``float()`` refuses (for the error message)."""
    numbers = pd.to_numeric(column, errors="coerce")
    refused = numbers.isna() & column.notna()
    return column[refused].iloc[0] if refused.any() else None
