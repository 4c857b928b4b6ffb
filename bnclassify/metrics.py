"""Conditional log-likelihood, scorers, cross-validation with per-stage timings, and tests.

Tests of a difference: two models on one data set (:func:`corrected_resampled_ttest`
for any repeated cross-validation, :func:`combined_5x2cv_ftest` for 5x2 CV), and
many models over many data sets (:func:`friedman_test` on their :func:`mean_ranks`,
:func:`nemenyi_critical_difference`; the figure is
:func:`bnclassify.plotting.plot_critical_difference`).

The conditional log-likelihood (CLL) of a fold is ``sum_i log P(y_i | x_i)``
over its rows. Numbers called "CLL" are only comparable when they agree on
the base of the logarithm and on sum vs mean; the study this package
reproduces reports the per-fold **sum in base 2**, which is the default here
and what ``bnclassify compare`` prints.
"""

from __future__ import annotations

import numbers
import sys
import time
import warnings
from typing import NamedTuple

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import KFold, StratifiedKFold

from .exceptions import InvalidParameterError, UnseenCategoryWarning
from .validation import (
    LARGEST_SCORE,
    RANDOM_STATE,
    ArrayLike,
    Interval,
    Options,
    check_int,
    check_n_jobs,
    check_parameter,
    float_array,
)

__all__ = [
    "Evaluation",
    "FTestResult",
    "FriedmanResult",
    "METRICS",
    "TTestResult",
    "combined_5x2cv_ftest",
    "conditional_log_likelihood",
    "cll_scorer",
    "corrected_resampled_ttest",
    "evaluate",
    "friedman_test",
    "make_cll_scorer",
    "mean_ranks",
    "nemenyi_critical_difference",
    "study_cv",
    "summarize",
]

_REDUCE = ("sum", "mean")

#: Per-fold columns of :func:`evaluate` that are summarised (in this order).
METRICS = (
    "accuracy",
    "precision_macro",
    "recall_macro",
    "f1_macro",
    "cll",
    "log_loss",
    "fit_weights_s",
    "fit_structure_s",
    "fit_parameters_s",
    "fit_s",
    "predict_s",
)


def _check_base(base, name="base"):
    """A logarithm's base above 1: a base in (0, 1) would turn the log-likelihood's sign, and
    "greater is better" with it."""
    check_parameter(base, name, [Interval(numbers.Real, 1, None, closed="neither")])
    return float(base)


def _check_reduce(reduce, name="reduce"):
    check_parameter(reduce, name, [Options(_REDUCE)])
    return reduce


def conditional_log_likelihood(y_true, proba, *, classes=None, base=2, reduce="sum"):
    """Conditional log-likelihood ``sum_i log_base P(y_i | x_i)`` of predicted probabilities.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True class labels.
    proba : array-like of shape (n_samples, n_classes) or (n_samples,)
        Predicted class probabilities, columns in the order of ``classes``
        (as returned by ``predict_proba``). A 1-D array is the probability of
        the second of two classes, as in :func:`sklearn.metrics.log_loss`.
    classes : array-like of shape (n_classes,), optional
        Labels of the columns of ``proba`` (the fitted model's ``classes_``).
        Default: the sorted unique values of ``y_true``, which must then be
        as many as the columns.
    base : float, default=2
        Base of the logarithm (2: bits, as the study reports; ``np.e``: nats).
    reduce : {"sum", "mean"}, default="sum"
        Sum over rows (the study's per-fold figure) or mean per row.

    Returns
    -------
    float
        At most 0; ``-inf`` when a true class got probability 0.

    Raises
    ------
    ValueError
        If shapes disagree, probabilities are outside [0, 1] or NaN, or a
        label of ``y_true`` is not among ``classes``.

    See Also
    --------
    make_cll_scorer : the same number as a scikit-learn scorer.

    Examples
    --------
    >>> from bnclassify.metrics import conditional_log_likelihood
    >>> y = ["a", "b", "b"]
    >>> proba = [[0.5, 0.5], [0.25, 0.75], [0.5, 0.5]]
    >>> conditional_log_likelihood(y, proba)  # log2(.5) + log2(.75) + log2(.5)
    -2.415...
    >>> conditional_log_likelihood(y, proba, base=np.e, reduce="mean")
    -0.55799...
    """
    base = _check_base(base)
    reduce = _check_reduce(reduce)
    y_true = np.asarray(y_true)
    if y_true.ndim != 1:
        raise ValueError(f"y_true must be 1-D, got shape {y_true.shape}.")
    proba = float_array(proba, "proba")
    if proba.ndim == 1:
        proba = np.column_stack([1.0 - proba, proba])
    if proba.ndim != 2 or len(proba) != len(y_true):
        raise ValueError(
            f"proba must have shape (n_samples, n_classes) with n_samples={len(y_true)}, "
            f"got {proba.shape}."
        )
    if np.isnan(proba).any() or (proba < 0).any() or (proba > 1 + 1e-9).any():
        raise ValueError("proba must hold probabilities in [0, 1] without NaN.")
    classes = np.unique(y_true) if classes is None else _class_labels(classes)
    if pd.Index(classes).has_duplicates:
        dupes = [str(d) for d in pd.unique(np.asarray(classes)[pd.Index(classes).duplicated()])]
        raise ValueError(f"classes has duplicate label(s) {dupes}; each column needs one label.")
    if len(classes) != proba.shape[1]:
        raise ValueError(
            f"proba has {proba.shape[1]} columns but there are {len(classes)} classes "
            f"{list(classes)}; pass classes= (the model's classes_)."
        )
    sums = proba.sum(axis=1)
    if len(sums) and not np.allclose(sums, 1.0, rtol=0, atol=1e-6):
        bad = int(np.argmax(~np.isclose(sums, 1.0, rtol=0, atol=1e-6)))
        raise ValueError(
            f"proba's rows must sum to 1; row {bad} sums to {sums[bad]:.6g} "
            "(pass predict_proba's output, not scores)."
        )
    index = pd.Index(classes).get_indexer(y_true)
    if (index < 0).any():
        unknown = pd.unique(y_true[index < 0])[:5]
        raise ValueError(f"y_true has label(s) {list(unknown)} not in classes {list(classes)}.")
    with np.errstate(divide="ignore"):
        log_p = np.log(proba[np.arange(len(index)), index]) / np.log(base)
    if len(log_p) == 0:
        if reduce == "mean":
            raise ValueError("the mean CLL of no rows is undefined: y_true is empty.")
        return 0.0
    return float(log_p.sum() if reduce == "sum" else log_p.mean())


def _class_labels(classes) -> np.ndarray:
    """``classes=`` as a 1-D array of labels, in the columns' order: a sequence, not one
    label (a string is one label, not a sequence of letters) and not a set (no order)."""
    check_parameter(
        classes, "classes", [ArrayLike("a 1-D sequence of labels, one per column of proba")]
    )
    labels = np.asarray(list(classes) if not hasattr(classes, "__array__") else classes)
    if labels.ndim != 1:
        raise InvalidParameterError(
            f"classes must be a 1-D sequence of labels, one per column of proba; got shape "
            f"{labels.shape}."
        )
    return labels


class _CLLScorer:
    """Callable ``scorer(estimator, X, y)`` for :func:`conditional_log_likelihood`.

    A plain ``make_scorer(conditional_log_likelihood, response_method="predict_proba")``
    would lose the column labels (and, for two classes, receive only one
    column), so the scorer reads ``estimator.classes_`` itself.
    """

    def __init__(self, base=2, reduce="sum"):
        self.base = _check_base(base)
        self.reduce = _check_reduce(reduce)

    def __call__(self, estimator, X, y, sample_weight=None):
        if sample_weight is not None:
            raise TypeError("the CLL scorer does not support sample_weight.")
        for attribute in ("predict_proba", "classes_"):
            if not hasattr(estimator, attribute):
                fitted = "fitted classifier" if attribute == "classes_" else "classifier"
                raise TypeError(
                    f"the CLL scorer needs a {fitted} with predict_proba and classes_; the "
                    f"estimator, {type(estimator).__name__}, has no {attribute}."
                )
        proba = estimator.predict_proba(X)
        return conditional_log_likelihood(
            y, proba, classes=estimator.classes_, base=self.base, reduce=self.reduce
        )

    def __repr__(self):
        base = "e" if self.base == np.e else f"{self.base:g}"
        return f"make_cll_scorer(base={base}, reduce={self.reduce!r})"


def make_cll_scorer(*, base=2, reduce="sum"):
    """A scikit-learn scorer for the conditional log-likelihood (greater is better).

    Use it wherever scikit-learn takes ``scoring=`` (``cross_validate``,
    ``GridSearchCV``). The estimator needs ``predict_proba`` and ``classes_``.

    Parameters
    ----------
    base : float, default=2
    reduce : {"sum", "mean"}, default="sum"
        ``"sum"`` gives the study's per-fold figure; ``"mean"`` does not grow
        with the fold size (better for comparing folds of unequal size).

    Returns
    -------
    callable
        ``scorer(estimator, X, y) -> float``.

    Examples
    --------
    >>> from sklearn.model_selection import cross_val_score
    >>> from bnclassify import NaiveBayes
    >>> from bnclassify.datasets import load_p450
    >>> from bnclassify.metrics import make_cll_scorer, study_cv
    >>> X, y = load_p450(return_X_y=True)
    >>> scores = cross_val_score(NaiveBayes(), X, y, cv=study_cv(), scoring=make_cll_scorer())
    >>> round(scores.mean(), 2)  # the study's NB figure on P450
    np.float64(-60.69)
    """
    return _CLLScorer(base=base, reduce=reduce)


#: The study's CLL scorer: per-fold sum of log2 P(true class | x).
cll_scorer = make_cll_scorer()


def study_cv(n_splits=10, *, stratified=False, random_state=42):
    """The study's cross-validation folds: ``KFold(n_splits, shuffle=True, random_state=42)``.

    Parameters
    ----------
    n_splits : int, default=10
    stratified : bool, default=False
        Use ``StratifiedKFold`` (same shuffling and seed) instead of plain
        ``KFold``. The study used plain folds.
    random_state : int, default=42

    Examples
    --------
    >>> study_cv()
    KFold(n_splits=10, random_state=42, shuffle=True)
    """
    check_int(n_splits, "n_splits", minimum=2)
    check_parameter(stratified, "stratified", ["boolean"])
    check_parameter(random_state, "random_state", RANDOM_STATE)
    splitter = StratifiedKFold if stratified else KFold
    return splitter(n_splits=n_splits, shuffle=True, random_state=random_state)


class Evaluation(NamedTuple):
    """What :func:`evaluate` returns: ``folds, summary = evaluate(...)``.

    Attributes
    ----------
    folds : DataFrame
        One row per (model, fold).
    summary : DataFrame
        Index ``model`` (in the order given), columns ``(metric, "mean" | "std")``.
    """

    folds: pd.DataFrame
    summary: pd.DataFrame


def _named_models(models) -> dict:
    if (
        models is None
        or isinstance(models, str | bytes)
        or not (isinstance(models, dict) or hasattr(models, "fit") or np.iterable(models))
    ):
        raise TypeError(
            "models must be an estimator, a list of estimators or a dict of {name: estimator}, "
            f"got {type(models).__name__}."
        )
    if isinstance(models, dict):
        named = dict(models)
    else:
        if hasattr(models, "fit"):
            models = [models]
        named = {}
        for model in models:
            name = base = type(model).__name__
            k = 2
            while name in named:
                name, k = f"{base}_{k}", k + 1
            named[name] = model
    if not named:
        raise ValueError("evaluate needs at least one model.")
    for name, model in named.items():
        if not (hasattr(model, "fit") and hasattr(model, "predict_proba")):
            raise TypeError(
                f"model {name!r} needs fit and predict_proba, got {type(model).__name__}."
            )
    return named


def _resolve_cv(cv):
    if cv is None:
        return study_cv()
    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        if cv < 2:
            raise ValueError(f"cv must be at least 2 folds, got {cv}.")
        return study_cv(int(cv))
    if isinstance(cv, str | bytes) or not (hasattr(cv, "split") or np.iterable(cv)):
        raise TypeError(
            f"cv must be None, a number of folds, a splitter or an iterable of "
            f"(train, test) index pairs, got {cv!r}."
        )
    return cv


def _checked_fold(fold, pair, n_rows):
    """A (train, test) pair of row positions within ``range(n_rows)``, or a ValueError."""
    try:
        train, test = pair
        train, test = np.asarray(train), np.asarray(test)
    except (TypeError, ValueError):
        raise ValueError(f"cv fold {fold} is not a (train, test) pair of row indices.") from None
    for name, index in (("train", train), ("test", test)):
        if index.dtype.kind == "b":
            index = np.flatnonzero(index) if len(index) == n_rows else np.array([n_rows])
        if index.dtype.kind not in "iu" or (
            index.size and (index.min() < -n_rows or index.max() >= n_rows)
        ):
            raise ValueError(
                f"cv fold {fold}: its {name} indices must be integer row positions in "
                f"0..{n_rows - 1} (the data have {n_rows} rows)."
            )
    return train, test


def _take(data, index):
    return data.iloc[index] if hasattr(data, "iloc") else np.asarray(data)[index]


def evaluate(
    models,
    X,
    y,
    cv=None,
    *,
    cll_base=2,
    cll_reduce="sum",
    progress=None,
    n_jobs=None,
):
    """Cross-validate classifiers on the same folds: metrics and fit/predict times per fold.

    Every model is cloned and fitted on each training fold, then scored on
    the held-out fold. Predictions are the most probable class of
    ``predict_proba`` (ties to the first of ``classes_``).

    Parameters
    ----------
    models : dict of {str: estimator}, or estimator, or list of estimators
        Classifiers with ``fit``, ``predict_proba`` and ``classes_``; a list
        is named by class name.
    X : DataFrame or array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    cv : int, cross-validation splitter or iterable of (train, test), optional
        Default: the study's ``KFold(10, shuffle=True, random_state=42)``;
        an int ``k`` means ``KFold(k, shuffle=True, random_state=42)``
        (see :func:`study_cv`; scikit-learn's own ``cv=k`` is unshuffled and
        stratified).
    cll_base : float, default=2
    cll_reduce : {"sum", "mean"}, default="sum"
        The ``cll`` column: by default the per-fold sum of log2 P(y | x).
    progress : bool, optional
        Show a progress bar (tqdm, on stderr) over the (model, fold) fits.
        Default: only when stderr is a terminal.
    n_jobs : int, optional
        Run the (model, fold) fits in parallel through joblib, as
        scikit-learn's ``cross_validate`` does (``None``: one job, -1: every
        CPU). Each fit is timed inside its own job, and the rows are the same
        as a serial run's, in the same order (only the timings differ).

    Returns
    -------
    Evaluation
        ``folds``: one row per model and fold with columns ``model``,
        ``fold``, ``n_train``, ``n_test``, ``n_unseen_class`` (test rows whose
        class the training fold lacks: the model gives them probability 0, so
        their fold's ``cll`` is ``-inf``), ``n_unseen_values`` (test cells
        holding a category absent from the training fold, summed out as
        missing; counted instead of warned), ``accuracy``, ``precision_macro``,
        ``recall_macro``, ``f1_macro`` (macro averages over the fitted
        model's classes; a class never predicted has precision 0),
        ``cll``, ``log_loss`` (mean negative log-likelihood in nats, as in
        scikit-learn), ``fit_weights_s``, ``fit_structure_s``,
        ``fit_parameters_s`` (from the fitted model's ``fit_times_``; NaN
        for models without it), ``fit_s`` (the whole ``fit`` call, encoding
        included) and ``predict_s`` (``predict_proba`` on the test fold).
        ``summary``: mean and standard deviation (ddof=1) over folds.

    Examples
    --------
    >>> from bnclassify import NaiveBayes, SimplerTAN
    >>> from bnclassify.datasets import load_p450
    >>> from bnclassify.metrics import evaluate
    >>> p450 = load_p450()
    >>> models = {"NB": NaiveBayes(), "Simpler TAN": SimplerTAN(p450.contact_matrix)}
    >>> folds, summary = evaluate(models, p450.data, p450.target, progress=False)
    >>> folds.shape[0]
    20
    >>> summary[[("accuracy", "mean"), ("cll", "mean")]].round(2)
                metric  accuracy    cll
                stat        mean   mean
    model
    NB                      0.81 -60.69
    Simpler TAN             0.84 -52.13
    """
    named = _named_models(models)
    base = _check_base(cll_base, "cll_base")
    reduce = _check_reduce(cll_reduce, "cll_reduce")
    check_n_jobs(n_jobs)
    cv = _resolve_cv(cv)
    try:
        splits = list(cv.split(X, y)) if hasattr(cv, "split") else list(cv)
    except ValueError as error:  # e.g. more folds than rows, said by scikit-learn
        raise ValueError(f"cv cannot split these {len(y)} rows: {error}") from None
    if not splits:
        raise ValueError("cv produced no folds.")
    splits = [_checked_fold(fold, pair, len(y)) for fold, pair in enumerate(splits)]
    # Fold by fold, every model on each fold: after the first fold the bar's estimate of the
    # time left has seen every model's cost (model by model, it would extrapolate the first
    # model's, however cheap, until the last model began). The rows are model by model.
    tasks = [
        (name, model, fold, train, test)
        for fold, (train, test) in enumerate(splits)
        for name, model in named.items()
    ]
    rows = []
    with _progress_bar(len(tasks), _show_progress(progress)) as bar:
        if n_jobs is None or n_jobs == 1:
            for name, model, fold, train, test in tasks:
                bar.set_description(f"{name} fold {fold + 1}/{len(splits)}")
                rows.append(
                    _fit_and_score(
                        clone(model), name, fold, X, y, train, test, base=base, reduce=reduce
                    )
                )
                bar.update(1)
        else:
            from joblib import Parallel, delayed

            jobs = Parallel(n_jobs=n_jobs, return_as="generator")(
                delayed(_fit_and_score)(
                    clone(model), name, fold, X, y, train, test, base=base, reduce=reduce
                )
                for name, model, fold, train, test in tasks
            )
            for row in jobs:  # in task order, whatever order the jobs finish in
                rows.append(row)
                bar.update(1)
    position = {name: k for k, name in enumerate(named)}
    rows.sort(key=lambda row: (position[row["model"]], row["fold"]))
    _warn_once([w for row in rows for w in row.pop(WARNINGS)])
    folds = pd.DataFrame(rows)
    folds.attrs["cll"] = _describe_cll(base, reduce)
    summary = summarize(folds)
    return Evaluation(folds=folds, summary=summary)


class TTestResult(NamedTuple):
    """A t test's statistic and two-sided p-value (like scipy's results).

    Attributes
    ----------
    statistic : float
    pvalue : float
    df : int
        Degrees of freedom of the Student t reference distribution.
    """

    statistic: float
    pvalue: float
    df: int


def corrected_resampled_ttest(a, b, n_train, n_test) -> TTestResult:
    """Nadeau and Bengio's (2003) corrected resampled t test of paired per-fold scores.

    Folds of one cross-validation share training rows, so their scores are
    correlated and the plain paired t test (:func:`scipy.stats.ttest_rel`)
    is far too eager to call a difference real. With ``d = a - b`` over ``k``
    folds the corrected statistic is

        t = mean(d) / sqrt((1 / k + n_test / n_train) var(d)),

    ``var`` with ``ddof=1``, compared with Student's t with ``k - 1`` degrees
    of freedom (two-sided). For R times repeated K-fold cross-validation pass
    all ``R * K`` folds: ``k = R K`` gives Bouckaert and Frank's (2004)
    corrected repeated k-fold test. Dropping the ``n_test / n_train`` term
    gives back ``ttest_rel``.

    Parameters
    ----------
    a, b : array-like of shape (k,)
        The two models' scores on the same folds (k >= 2).
    n_train, n_test : float
        Rows per training and test fold (their means when folds differ).

    Returns
    -------
    TTestResult
        ``statistic``, ``pvalue`` and ``df = k - 1``. If ``d`` is constant:
        statistic 0 and p-value 1 when it is 0, else +-inf and 0. NaN when a
        score is not finite (e.g. a CLL of ``-inf``).

    Examples
    --------
    >>> a = [0.81, 0.84, 0.80, 0.86, 0.83]
    >>> b = [0.80, 0.82, 0.80, 0.83, 0.81]
    >>> result = corrected_resampled_ttest(a, b, n_train=80, n_test=20)
    >>> round(result.statistic, 4), round(result.pvalue, 4), result.df
    (2.0919, 0.1046, 4)
    """
    from scipy import stats

    a, b = float_array(a, "a (one score per fold)"), float_array(b, "b (one score per fold)")
    if a.ndim != 1 or a.shape != b.shape or len(a) < 2:
        raise ValueError(
            f"a and b must be 1-D with the same length >= 2, got shapes {a.shape} and {b.shape}."
        )
    d = a - b
    check_parameter(n_train, "n_train", [Interval(numbers.Real, 0, None, closed="neither")])
    check_parameter(n_test, "n_test", [Interval(numbers.Real, 0, None, closed="left")])
    k = len(d)
    if not np.isfinite(d).all():
        return TTestResult(float("nan"), float("nan"), k - 1)
    scale = np.abs(d).max()
    if scale > 0:  # the statistic does not depend on the units; 1e308 would overflow var
        d = d / scale
    mean, var = d.mean(), d.var(ddof=1)
    if var == 0:
        if mean == 0:
            return TTestResult(0.0, 1.0, k - 1)
        return TTestResult(float(np.copysign(np.inf, mean)), 0.0, k - 1)
    statistic = mean / np.sqrt((1.0 / k + n_test / n_train) * var)
    pvalue = 2.0 * stats.t.sf(abs(statistic), df=k - 1)
    return TTestResult(float(statistic), float(pvalue), k - 1)


class FTestResult(NamedTuple):
    """An F test's statistic and p-value (like scipy's results).

    Attributes
    ----------
    statistic : float
    pvalue : float
        The F distribution's survival function at ``statistic``.
    df_num, df_den : int
        Degrees of freedom of the F reference distribution.
    """

    statistic: float
    pvalue: float
    df_num: int
    df_den: int


def combined_5x2cv_ftest(a, b) -> FTestResult:
    """Alpaydin's (1999) combined 5x2cv F test of two models' scores on the same ten folds.

    Five replications of two-fold cross-validation (for example
    ``RepeatedStratifiedKFold(n_splits=2, n_repeats=5)``) give each model ten
    scores, in the order the splitter yields the folds: the two folds of the
    first replication, then the two of the second, and so on. With
    ``p_ij = a_ij - b_ij`` the difference on fold ``j`` of replication ``i``,
    ``pbar_i = (p_i1 + p_i2) / 2`` and ``s_i^2 = (p_i1 - pbar_i)^2 + (p_i2 - pbar_i)^2``,

        f = sum_ij p_ij^2 / (2 sum_i s_i^2)

    is compared with the F distribution with 10 and 5 degrees of freedom
    (equal expected scores are rejected at level 0.05 when f > 4.74).
    Dietterich's (1998) 5x2cv t test reads the first fold's difference only and
    its verdict changes with the order of the folds; this test combines all
    ten, with a lower type I error and a higher power in Alpaydin's
    simulations. It is two-sided: the sign of ``mean(a - b)`` says which model
    did better.

    Parameters
    ----------
    a, b : array-like of shape (10,) or (5, 2)
        The two models' scores (or losses) on the same ten folds; the rows of a
        (5, 2) array are the replications.

    Returns
    -------
    FTestResult
        ``statistic``, ``pvalue``, ``df_num=10`` and ``df_den=5``. When each
        replication's two differences are equal (every ``s_i^2`` is 0): statistic
        0 and p-value 1 if every difference is 0, else inf and 0. NaN when a
        score is not finite (e.g. a log loss of ``inf``).

    See Also
    --------
    corrected_resampled_ttest : the same question for other repeated cross-validations.
    friedman_test : many models over many data sets.

    Examples
    --------
    Model a's 0-1 loss is below b's on every fold:

    >>> a = [0.10, 0.12, 0.11, 0.12, 0.10, 0.12, 0.12, 0.11, 0.10, 0.11]
    >>> b = [0.12, 0.13, 0.13, 0.13, 0.13, 0.14, 0.13, 0.13, 0.12, 0.14]
    >>> result = combined_5x2cv_ftest(a, b)  # f = 0.0041 / (2 * 0.00025)
    >>> round(result.statistic, 2), round(result.pvalue, 4), result.df_num, result.df_den
    (8.2, 0.0157, 10, 5)
    """
    from scipy import stats

    a, b = float_array(a, "a (one score per fold)"), float_array(b, "b (one score per fold)")
    if a.shape != b.shape or a.size != 10 or a.shape not in ((10,), (5, 2)):
        raise ValueError(
            "a and b must hold the scores of the same ten folds of 5x2 cross-validation, "
            f"shape (10,) or (5, 2), got shapes {a.shape} and {b.shape}."
        )
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        return FTestResult(float("nan"), float("nan"), 10, 5)
    # the statistic does not depend on the units: scaled, 1e308 - (-1e308) cannot overflow
    scale = max(np.abs(a).max(), np.abs(b).max())
    d = ((a / scale - b / scale) if scale > 0 else a - b).reshape(5, 2)
    scale = np.abs(d).max()
    if scale > 0:
        d = d / scale
    spread = ((d - d.mean(axis=1, keepdims=True)) ** 2).sum()
    if spread == 0:
        if scale == 0:
            return FTestResult(0.0, 1.0, 10, 5)
        return FTestResult(float("inf"), 0.0, 10, 5)
    statistic = float((d**2).sum() / (2.0 * spread))
    return FTestResult(statistic, float(stats.f.sf(statistic, 10, 5)), 10, 5)


def _score_table(scores, name="scores"):
    """``(values, models, sets)`` of a data sets x models table; ``models``/``sets`` None for
    an array. NaN (a missing score) and text are refused with the cell they were found in."""
    if isinstance(scores, pd.DataFrame):
        models, sets = list(scores.columns), list(scores.index)
        try:
            values = scores.to_numpy(dtype=float)
        except (TypeError, ValueError):
            raise ValueError(
                f"{name} must hold numbers (one per data set and model), got the dtypes "
                f"{sorted({str(t) for t in scores.dtypes})}."
            ) from None
    else:
        models = sets = None
        values = float_array(scores, name)
    if values.ndim != 2 or values.shape[0] < 1 or values.shape[1] < 2:
        raise ValueError(
            f"{name} must be 2-D, one row per data set and one column per model (at least "
            f"two models), got shape {values.shape}."
        )
    missing = np.isnan(values)
    if missing.any():
        row, column = (int(i[0]) for i in np.nonzero(missing))
        where = (
            f"model {models[column]!r} on data set {sets[row]!r}"
            if models is not None
            else f"row {row}, column {column}"
        )
        raise ValueError(
            f"{name} has no value (NaN) for {where}: every model needs a score on every "
            "set (a model that failed on a set can be given an infinitely bad one, which "
            "ranks last)."
        )
    return values, models, sets


def mean_ranks(scores, *, lower_is_better=True):
    """Each model's rank on every data set (1: the best; ties share their mean rank), averaged.

    Parameters
    ----------
    scores : DataFrame or array-like of shape (n_sets, n_models)
        One row per data set and one column per model: e.g. each model's mean
        loss over the folds. A model that failed on a set can be given ``inf``
        (a loss; ``-inf`` for a score): it ranks last there. NaN is refused.
    lower_is_better : bool, default=True
        True for losses (0-1 loss, log loss), False for scores (accuracy, CLL).

    Returns
    -------
    Series or ndarray of shape (n_models,)
        A Series indexed by the models (the columns, in their order) when
        ``scores`` is a DataFrame.

    Examples
    --------
    >>> losses = pd.DataFrame({"A": [0.10, 0.30, 0.20], "B": [0.20, 0.30, 0.10],
    ...                        "C": [0.30, 0.40, np.inf]})
    >>> mean_ranks(losses)
    A    1.5
    B    1.5
    C    3.0
    dtype: float64
    """
    from scipy import stats

    values, models, _ = _score_table(scores)
    ranks = stats.rankdata(values if lower_is_better else -values, axis=1).mean(axis=0)
    return ranks if models is None else pd.Series(ranks, index=models)


class FriedmanResult(NamedTuple):
    """Friedman's test with Iman and Davenport's F (what :func:`friedman_test` returns).

    Attributes
    ----------
    statistic : float
        Iman and Davenport's ``F_F``.
    pvalue : float
        Its p-value under the F distribution with ``df_num`` and ``df_den``
        degrees of freedom.
    df_num, df_den : int
        ``k - 1`` and ``(k - 1)(N - 1)`` for ``k`` models over ``N`` data sets.
    chi2 : float
        Friedman's ``chi2_F``.
    chi2_pvalue : float
        Its p-value under chi-square with ``k - 1`` degrees of freedom (conservative).
    ranks : Series or ndarray
        The models' mean ranks (:func:`mean_ranks`).
    """

    statistic: float
    pvalue: float
    df_num: int
    df_den: int
    chi2: float
    chi2_pvalue: float
    ranks: object


def friedman_test(scores, *, lower_is_better=True) -> FriedmanResult:
    """Friedman's test that k models do equally well over N data sets, with Iman and Davenport's F.

    The test Demsar (2006) recommends for comparing many classifiers over many
    data sets. With ``R_j`` the mean rank of model ``j`` (:func:`mean_ranks`),

        chi2_F = 12 N / (k (k + 1)) (sum_j R_j^2 - k (k + 1)^2 / 4)

    follows chi-square with ``k - 1`` degrees of freedom when the models are
    alike, a conservative approximation that Iman and Davenport's

        F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F),

    F-distributed with ``k - 1`` and ``(k - 1)(N - 1)`` degrees of freedom,
    improves on; ``statistic`` and ``pvalue`` are F_F's. Ties share their mean
    rank and chi2_F is Demsar's, without a correction for ties
    (:func:`scipy.stats.friedmanchisquare` divides by one, so the two agree
    only on tables without ties). When every set orders the models alike
    (``chi2_F = N (k - 1)``) F_F is inf and its p-value 0. If the test rejects,
    models whose mean ranks differ by at least
    :func:`nemenyi_critical_difference` differ (Nemenyi's post-hoc test).

    Parameters
    ----------
    scores : DataFrame or array-like of shape (n_sets, n_models)
        As for :func:`mean_ranks`; at least two sets and two models.
    lower_is_better : bool, default=True

    Returns
    -------
    FriedmanResult

    Examples
    --------
    Three models' log loss on five data sets; C is last on all five:

    >>> losses = pd.DataFrame({"A": [0.31, 0.52, 0.20, 0.44, 0.12],
    ...                        "B": [0.30, 0.55, 0.22, 0.41, 0.15],
    ...                        "C": [0.35, 0.60, 0.25, 0.47, 0.18]})
    >>> result = friedman_test(losses)
    >>> result.ranks.tolist()
    [1.4, 1.6, 3.0]
    >>> round(result.chi2, 2), round(result.statistic, 2), (result.df_num, result.df_den)
    (7.6, 12.67, (2, 8))
    >>> round(result.pvalue, 4)
    0.0033
    """
    from scipy import stats

    values, models, _ = _score_table(scores)
    n, k = values.shape
    if n < 2:
        raise ValueError(f"the Friedman test needs at least two data sets, got {n}.")
    ranks = mean_ranks(values, lower_is_better=lower_is_better)
    chi2 = float(12.0 * n / (k * (k + 1)) * (np.sum(ranks**2) - k * (k + 1) ** 2 / 4.0))
    chi2 = max(chi2, 0.0)  # rounding of an all-tied table
    df_num, df_den = k - 1, (k - 1) * (n - 1)
    rest = n * (k - 1) - chi2
    if rest <= 1e-12 * n * k:
        statistic, pvalue = float("inf"), 0.0
    else:
        statistic = (n - 1) * chi2 / rest
        pvalue = float(stats.f.sf(statistic, df_num, df_den))
    return FriedmanResult(
        float(statistic),
        pvalue,
        df_num,
        df_den,
        chi2,
        float(stats.chi2.sf(chi2, k - 1)),
        ranks if models is None else pd.Series(ranks, index=models),
    )


def nemenyi_critical_difference(n_models, n_sets, alpha=0.05) -> float:
    """The smallest difference of mean ranks Nemenyi's test calls significant (Demsar 2006).

    ``CD = q_alpha sqrt(k (k + 1) / (6 N))`` for ``k`` models over ``N`` data
    sets, ``q_alpha`` the ``1 - alpha`` quantile of the studentized range of
    ``k`` means with infinite degrees of freedom divided by ``sqrt(2)``
    (Demsar's table 5a: 2.569 for four models at 0.05). Two models whose mean
    ranks differ by at least CD differ significantly, all pairs compared at
    once; :func:`bnclassify.plotting.plot_critical_difference` draws it.

    Parameters
    ----------
    n_models : int
        At least 2.
    n_sets : int
        At least 1.
    alpha : float, default=0.05
        The family-wise significance level, in (0, 1).

    Returns
    -------
    float

    Examples
    --------
    Four models over Demsar's 14 data sets:

    >>> round(nemenyi_critical_difference(4, 14), 2)
    1.25
    >>> round(nemenyi_critical_difference(4, 14, alpha=0.10), 2)
    1.12
    """
    from scipy import stats

    check_int(n_models, "n_models", minimum=2)
    check_int(n_sets, "n_sets", minimum=1)
    check_parameter(alpha, "alpha", [Interval(numbers.Real, 0, 1, closed="neither")])
    q = stats.studentized_range.ppf(1.0 - alpha, n_models, np.inf) / np.sqrt(2.0)
    return float(q * np.sqrt(n_models * (n_models + 1) / (6.0 * n_sets)))


def summarize(folds: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard deviation (ddof=1) of every metric per model, models in input order.

    Examples
    --------
    >>> folds = pd.DataFrame({"model": ["a", "a", "b", "b"], "accuracy": [0.5, 0.7, 0.9, 0.9]})
    >>> summarize(folds)
    metric accuracy
    stat       mean       std
    model
    a           0.6  0.141421
    b           0.9  0.000000
    """
    if not isinstance(folds, pd.DataFrame) or "model" not in folds.columns:
        raise ValueError(
            "folds must be a DataFrame of per-fold scores with a 'model' column (as evaluate "
            f"returns); got {type(folds).__name__}"
            + (f" with columns {list(folds.columns)}." if isinstance(folds, pd.DataFrame) else ".")
        )
    metrics = [m for m in METRICS if m in folds.columns]
    if not metrics:
        raise ValueError(
            f"folds has no metric column (any of {list(METRICS)}); columns are "
            f"{list(folds.columns)}."
        )
    folds = folds.assign(
        **{m: float_array(folds[m], f"folds[{m!r}]", largest=LARGEST_SCORE) for m in metrics}
    )
    summary = folds.groupby("model", sort=False)[metrics].agg(["mean", "std"])
    summary.columns = summary.columns.set_names(["metric", "stat"])
    summary.attrs = dict(folds.attrs)
    return summary


def _describe_cll(base, reduce):
    name = {2.0: "log2", float(np.e): "ln", 10.0: "log10"}.get(base, f"log base {base:g}")
    return f"{name}, {'sum' if reduce == 'sum' else 'mean'} per fold"


#: The key under which a fold's row carries the warnings of its fit and prediction.
WARNINGS = "_warnings"


def _warn_once(caught) -> None:
    """Each distinct warning of the folds' fits, once (by category and text), as raised."""
    seen = set()
    for category, message, filename, lineno in caught:
        if (category, str(message)) not in seen:
            seen.add((category, str(message)))
            warnings.warn_explicit(message, category, filename, lineno)


def _fit_and_score(model, name, fold, X, y, train, test, *, base, reduce):
    X_train, y_train = _take(X, train), _take(y, train)
    X_test, y_test = _take(X, test), np.asarray(_take(y, test))
    with warnings.catch_warnings(record=True) as caught:
        # unseen categories counted per fold; the others handed to the caller, which says
        # each distinct one once (a joblib worker's own warnings would never reach it)
        warnings.simplefilter("always")
        start = time.perf_counter()
        model.fit(X_train, y_train)
        fit_s = time.perf_counter() - start
        start = time.perf_counter()
        proba = model.predict_proba(X_test)
        predict_s = time.perf_counter() - start
    n_unseen_values = 0
    others = []
    for w in caught:
        if issubclass(w.category, UnseenCategoryWarning):
            n_unseen_values += sum(w.message.counts.values())
        else:
            others.append((w.category, w.message, w.filename, w.lineno))  # its fields kept
    classes = model.classes_
    y_pred = classes[np.argmax(proba, axis=1)]
    unseen = ~np.isin(y_test, classes)
    if unseen.any():
        # a class absent from the training fold: the model gives it probability 0
        extra = np.unique(y_test[unseen])
        classes = np.concatenate([classes, extra])
        proba = np.hstack([proba, np.zeros((len(proba), len(extra)))])
    stages = getattr(model, "fit_times_", None) or {}
    scores = {
        "model": name,
        "fold": fold,
        "n_train": len(train),
        "n_test": len(test),
        "n_unseen_class": int(unseen.sum()),
        "n_unseen_values": int(n_unseen_values),
        WARNINGS: others,
    }
    # scikit-learn's definitions from one confusion matrix in numpy: its scorers'
    # input validation cost more than the fits in `compare --repeats 10`
    position = pd.Index(classes)
    true, pred = position.get_indexer(y_test), position.get_indexer(y_pred)
    k = len(classes)
    confusion = np.bincount(true * k + pred, minlength=k * k).reshape(k, k).astype(float)
    hits, n_pred, n_true = np.diag(confusion), confusion.sum(axis=0), confusion.sum(axis=1)
    scores["accuracy"] = float(hits.sum() / len(true))
    with np.errstate(divide="ignore", invalid="ignore"):  # zero_division=0
        scores["precision_macro"] = float(np.where(n_pred > 0, hits / n_pred, 0.0).mean())
        scores["recall_macro"] = float(np.where(n_true > 0, hits / n_true, 0.0).mean())
        f1 = np.where(n_pred + n_true > 0, 2 * hits / (n_pred + n_true), 0.0)
    scores["f1_macro"] = float(f1.mean())
    scores["cll"] = conditional_log_likelihood(
        y_test, proba, classes=classes, base=base, reduce=reduce
    )
    eps = np.finfo(float).eps  # log_loss clips as scikit-learn does
    p_true = np.clip(np.asarray(proba, dtype=float)[np.arange(len(true)), true], eps, 1 - eps)
    scores["log_loss"] = float(-np.mean(np.log(p_true)))
    for stage in ("weights", "structure", "parameters"):
        scores[f"fit_{stage}_s"] = float(stages.get(stage, np.nan))
    scores["fit_s"] = fit_s
    scores["predict_s"] = predict_s
    return scores


class _NoBar:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n=1):
        pass

    def set_description(self, text):
        pass


def _show_progress(progress, *, environ=None, stream=None, in_kernel=None) -> bool:
    """Whether ``evaluate`` shows its progress bar.

    ``progress=True`` or ``False`` (also ``1``/``0``) is obeyed as given. By
    default (``None``) the bar shows where someone watches: off when the
    ``CI`` environment variable is set (to anything but ``""``, ``0`` or
    ``false``), otherwise on when stderr is a terminal or the code runs in a
    Jupyter kernel (where stderr is never a terminal). ``environ``,
    ``stream`` and ``in_kernel`` replace ``os.environ``, ``sys.stderr`` and
    the kernel check, for tests.

    Examples
    --------
    >>> _show_progress(False), _show_progress(True)
    (False, True)
    >>> _show_progress(None, environ={"CI": "true"}, in_kernel=True)
    False
    >>> _show_progress(None, environ={}, in_kernel=True)
    True
    """
    check_parameter(progress, "progress", [None, "boolean", Options((0, 1))])
    if progress is not None:
        return bool(progress)
    if environ is None:
        import os

        environ = os.environ
    if environ.get("CI", "").strip().lower() not in ("", "0", "false"):
        return False
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        if isatty is not None and isatty():
            return True
    except ValueError:  # a closed stream
        pass
    return _in_jupyter_kernel() if in_kernel is None else bool(in_kernel)


def _in_jupyter_kernel() -> bool:
    """Whether this process is a Jupyter (IPython) kernel, without importing IPython."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
        return shell is not None and "IPKernelApp" in shell.config
    except Exception:  # an IPython too old or too new to ask
        return False


def _progress_bar(total, enabled):
    """A ``tqdm.auto`` bar: a widget in Jupyter (text on stderr without ipywidgets), text in a
    terminal; a no-op when not ``enabled``."""
    if not enabled:
        return _NoBar()
    import warnings

    with warnings.catch_warnings():
        # without ipywidgets tqdm.auto warns and falls back to the text bar, which Jupyter shows
        warnings.filterwarnings("ignore", message=".*IProgress not found.*")
        from tqdm.auto import tqdm

    return tqdm(total=total, unit="fit", leave=False, file=sys.stderr)


def progress_bar(total, progress=None):
    """A progress bar over ``total`` steps, shown as ``progress`` says (see :func:`evaluate`).

    ``None`` shows it in a terminal or a Jupyter kernel unless ``CI`` is set;
    ``True``/``False`` force it on or off. Off, it is a silent stand-in with the
    same methods.

    Examples
    --------
    >>> with progress_bar(3, progress=False) as bar:
    ...     bar.update(3)
    """
    return _progress_bar(total, _show_progress(progress))
