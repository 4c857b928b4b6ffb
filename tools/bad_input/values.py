"""Odd values of the parameters the earlier sections take as given: metrics' ``classes``,
the MDL discretiser's columns, ``alpha`` at the ends of the float range, super-parents that
are not categories, and the column dtypes with no obvious kind (dates, durations, nullable
booleans, complex numbers, mixed objects) through every estimator at two table sizes."""

from __future__ import annotations

import numpy as np
import pandas as pd

import bnclassify as bnc
from bnclassify import metrics
from bnclassify.preprocessing import MDLDiscretizer, mdl_cut_points

from .core import Case, proba_ok
from .estimators import MAKERS, fit_predict
from .tables import COLUMNS, N, Y, base_table

COLUMN = ("'t'", '"t"', "column t", "Column t")


# -- metrics ---------------------------------------------------------------------------------
def _proba(n=N):
    rng = np.random.default_rng(0)
    p = rng.random(n)
    return np.c_[1 - p, p]


def _cll_ok(y, proba, **kw):
    value = metrics.conditional_log_likelihood(y, proba, **kw)
    return isinstance(value, float) and value <= 0


def _metric_cases():
    proba = _proba()
    out = []
    classes = {
        "a string": "p",
        "an integer": 3,
        "a float": 1.5,
        "a 0-d array": np.array("p"),
        "a set": {"p", "q"},
        "a dict": {"p": 0, "q": 1},
        "duplicates": ["p", "p"],
        "too many": ["p", "q", "r"],
        "too few": ["p"],
        "not the labels": ["u", "v"],
        "a 2-d array": np.array([["p", "q"]]),
        "NaN and a label": [np.nan, "p"],
        "a generator": (c for c in "pq"),
        "a Series": pd.Series(["p", "q"]),
        "a category Series": pd.Series(["p", "q"], dtype="category"),
    }
    for label, value in classes.items():
        out.append(
            Case(
                "metrics: classes",
                f"conditional_log_likelihood(classes={label})",
                lambda v=value: _cll_ok(Y, proba, classes=v),
                names=("classes",),
                covers=("bnclassify.metrics.conditional_log_likelihood",),
                fast=label == "a string",
            )
        )
    probas = {
        "NaN": np.where(np.eye(N, 2, dtype=bool), np.nan, proba),
        "negative": proba - 0.5,
        "rows not summing to 1": proba * 2,
        "complex": proba + 0j,
        "strings": proba.astype(str),
        "3-d": proba[:, :, None],
        "fewer rows": proba[:5],
        "a scalar": 0.5,
        "a ragged list": [[0.5, 0.5], [1.0]],
        "booleans": proba > 0.5,
    }
    for label, p in probas.items():
        out.append(
            Case(
                "metrics: probabilities",
                f"conditional_log_likelihood(proba={label})",
                lambda p=p: _cll_ok(Y, p, classes=["p", "q"]),
                names=("proba", "probabilit", "y_true"),
                covers=("bnclassify.metrics.conditional_log_likelihood",),
                fast=label == "complex",
            )
        )
    for label, kwargs in {
        "base=1": {"base": 1},
        "base=0": {"base": 0},
        "base=-2": {"base": -2},
        "base=1e308": {"base": 1e308},
        "base=5e-324": {"base": 5e-324},
        "base='e'": {"base": "e"},
        "reduce='median'": {"reduce": "median"},
        "reduce=None": {"reduce": None},
    }.items():
        out.append(
            Case(
                "metrics: options",
                f"conditional_log_likelihood({label})",
                lambda k=kwargs: _cll_ok(Y, proba, **k),
                names=tuple(kwargs),
                covers=("bnclassify.metrics.conditional_log_likelihood",),
            )
        )
        out.append(
            Case(
                "metrics: options",
                f"make_cll_scorer({label})",
                lambda k=kwargs: callable(metrics.make_cll_scorer(**k)),
                names=tuple(kwargs),
                covers=("bnclassify.metrics.make_cll_scorer",),
            )
        )
    scores = np.linspace(0.7, 0.8, 10)
    for label, (a, b, n_train, n_test) in {
        "n_train=0": (scores, scores[::-1], 0, 10),
        "n_train='90'": (scores, scores[::-1], "90", 10),
        "n_test=nan": (scores, scores[::-1], 90, np.nan),
        "n_train=inf": (scores, scores[::-1], np.inf, 10),
        "n_test=1e308, n_train=5e-324": (scores, scores[::-1], 5e-324, 1e308),
        "complex scores": (scores + 1j, scores, 90, 10),
        "a 2-d score table": (np.c_[scores, scores], np.c_[scores, scores], 90, 10),
        "scores of different lengths": (scores, scores[:5], 90, 10),
        "scalars": (0.8, 0.7, 90, 10),
    }.items():
        out.append(
            Case(
                "metrics: t-test arguments",
                f"corrected_resampled_ttest({label})",
                lambda a=a, b=b, tr=n_train, te=n_test: _ttest_ok(
                    metrics.corrected_resampled_ttest(a, b, tr, te)
                ),
                names=("a", "b", "n_train", "n_test", "score"),
                covers=("bnclassify.metrics.corrected_resampled_ttest",),
                fast=label == "n_train='90'",
            )
        )
    X = base_table()
    for label, kwargs in {
        "cv=1": {"cv": 1},
        "cv=1.5": {"cv": 1.5},
        "cv='x'": {"cv": "x"},
        "cv=a list of one-element tuples": {"cv": [(np.arange(5),)]},
        "cv=10**6 folds": {"cv": 10**6},
        "progress='x'": {"progress": "x"},
        "n_jobs=0": {"n_jobs": 0},
        "n_jobs=1.5": {"n_jobs": 1.5},
        "cll_base=1": {"cll_base": 1},
        "cll_reduce='x'": {"cll_reduce": "x"},
    }.items():
        out.append(
            Case(
                "metrics: evaluate options",
                f"evaluate(NaiveBayes, {label})",
                lambda k=kwargs: len(metrics.evaluate(bnc.NaiveBayes(), X, Y, **k).folds) > 0,
                names=tuple(kwargs) + ("folds", "splits"),
                covers=("bnclassify.metrics.evaluate",),
                fast=label == "cv=1.5",
            )
        )
    for label, kwargs in {
        "n_splits=1": {"n_splits": 1},
        "n_splits=2.5": {"n_splits": 2.5},
        "random_state='x'": {"random_state": "x"},
        "random_state=-1": {"random_state": -1},
        "stratified='yes'": {"stratified": "yes"},
    }.items():
        out.append(
            Case(
                "metrics: evaluate options",
                f"study_cv({label})",
                lambda k=kwargs: (
                    len(list(metrics.study_cv(**k).split(X, Y))) == k.get("n_splits", 10)
                ),
                names=tuple(kwargs),
                covers=("bnclassify.metrics.study_cv",),
            )
        )
    tables = {
        "scores as strings": pd.DataFrame({"model": ["a", "b"], "accuracy": ["0.5", "x"]}),
        "complex scores": pd.DataFrame({"model": ["a", "b"], "accuracy": [0.5 + 1j, 0.7]}),
        "no metric column": pd.DataFrame({"model": ["a", "b"]}),
        "a dict": {"model": ["a"], "accuracy": [0.5]},
    }
    for label, table in tables.items():
        out.append(
            Case(
                "metrics: summaries",
                f"summarize({label})",
                lambda t=table: isinstance(metrics.summarize(t), pd.DataFrame),
                names=("folds", "accuracy", "model", "metric"),
                covers=("bnclassify.metrics.summarize",),
            )
        )
    return out


def _ttest_ok(result):
    return (np.isnan(result.pvalue) or 0 <= result.pvalue <= 1) and isinstance(result.df, int)


# -- preprocessing ---------------------------------------------------------------------------
def _numbers(n=N, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    frame["a"] += np.resize([0.0, 3.0], n)
    return frame


def _mdl_transform_ok(fit_on, transform):
    out = MDLDiscretizer().fit(fit_on, Y).transform(transform)
    return len(out) == len(transform)


def _mdl_cases():
    numbers = _numbers()
    changes = {
        "strings": numbers.assign(a="x"),
        "numbers as strings": numbers.assign(a=numbers["a"].map(str)),
        "complex": numbers.assign(a=numbers["a"] + 1j),
        "datetimes": numbers.assign(a=pd.date_range("2020", periods=N)),
        "booleans": numbers.assign(a=numbers["a"] > 0),
        "boolean with NA": numbers.assign(
            a=pd.array(np.resize([True, False, None], N), dtype="boolean")
        ),
        "category": numbers.assign(a=numbers["a"].round().astype("category")),
        "columns renamed": numbers.set_axis(["x", "y"], axis=1),
        "a column more": numbers.assign(c=1.0),
        "a column fewer": numbers[["a"]],
        "columns reordered": numbers[["b", "a"]],
        "NaN cells": numbers.mask(np.eye(N, 2, dtype=bool)),
        "1e308": numbers * 1e308,
        "an array": numbers.to_numpy(),
        "an array of strings": numbers.to_numpy().astype(str),
    }
    out = []
    for label, frame in changes.items():
        out.append(
            Case(
                "preprocessing: MDL transform",
                f"MDLDiscretizer.fit(numbers).transform({label})",
                lambda f=frame: _mdl_transform_ok(numbers, f),
                names=("'a'", "column", "X", "feature", "'x'", "'c'"),
                covers=("bnclassify.MDLDiscretizer",),
                fast=label == "strings",
            )
        )
        out.append(
            Case(
                "preprocessing: MDL fit",
                f"MDLDiscretizer.fit({label}).transform(same)",
                lambda f=frame: _mdl_transform_ok(f, f),
                names=("'a'", "column", "X", "feature"),
                covers=("bnclassify.MDLDiscretizer",),
            )
        )
    for label, kwargs in {
        "columns='a' (a string)": {"columns": "a"},
        "columns=['nope']": {"columns": ["nope"]},
        "columns=[0]": {"columns": [0]},
        "columns=[]": {"columns": []},
    }.items():
        out.append(
            Case(
                "preprocessing: MDL fit",
                f"MDLDiscretizer({label}).fit",
                lambda k=kwargs: _mdl_transform_ok_with(k, numbers),
                names=("columns", "'nope'"),
                covers=("bnclassify.MDLDiscretizer",),
            )
        )
    for label, (x, y) in {
        "strings": (np.array(["a", "b"] * (N // 2)), Y),
        "complex": (np.arange(N) + 1j, Y),
        "2-d": (np.zeros((N, 2)), Y),
        "y shorter": (np.arange(N, dtype=float), Y[:5]),
        "y of NaN": (np.arange(N, dtype=float), np.full(N, np.nan)),
        "1e308 spread": (np.resize([-1e308, 0.0, 1e308], N), Y),
    }.items():
        out.append(
            Case(
                "preprocessing: MDL cut points",
                f"mdl_cut_points({label})",
                lambda x=x, y=y: np.isfinite(np.asarray(mdl_cut_points(x, y), float)).all(),
                names=("x", "y"),
                covers=("bnclassify.preprocessing.mdl_cut_points",),
            )
        )
    return out


def _mdl_transform_ok_with(kwargs, frame):
    out = MDLDiscretizer(**kwargs).fit(frame, Y).transform(frame)
    return len(out) == len(frame)


# -- estimator parameters ---------------------------------------------------------------------
ALPHAS = {
    "1e308": 1e308,
    "max float": np.finfo(float).max,
    "1e300": 1e300,
    "1e-300": 1e-300,
    "5e-324": 5e-324,
    "-0.0": -0.0,
    "numpy float32 1e38": np.float32(3e38),
}


def _alpha_cases():
    out = []
    X = base_table()
    for label, alpha in ALPHAS.items():
        for maker in MAKERS:
            out.append(
                Case(
                    f"alpha: {label}",
                    f"{maker} with alpha={label}",
                    lambda m=maker, a=alpha: _fit_with(m, X, alpha=a),
                    names=("alpha",),
                    covers=(f"bnclassify.{maker.split('(')[0]}",),
                    fast=maker in ("AODE", "SPODE", "SimplerTAN") and label == "1e308",
                )
            )
    return out


def _fit_with(maker, X, **params):
    model = MAKERS[maker](X)
    if "alpha" in params and "alpha" not in model.get_params():
        return True  # takes no alpha
    model.set_params(**params)
    model.fit(X, Y)
    return proba_ok(model.predict_proba(X), len(X), 2)


def _superparent_cases():
    rng = np.random.default_rng(1)
    y = np.resize(Y, 200)
    informative = rng.normal(size=200) + np.where(y == "p", 0.0, 2.0)
    tables = {
        "a float column that bins": pd.DataFrame(
            {"f": informative, "s": rng.choice(list("ab"), 200)}
        ),
        "a float column with no cut": pd.DataFrame(
            {"f": rng.normal(size=200), "s": rng.choice(list("ab"), 200)}
        ),
        "a Gaussian column": pd.DataFrame({"f": informative, "s": rng.choice(list("ab"), 200)}),
        "a constant column": pd.DataFrame({"f": "k", "s": rng.choice(list("ab"), 200)}),
        "an all-missing column": pd.DataFrame(
            {"f": [None] * 200, "s": rng.choice(list("ab"), 200)}
        ),
    }
    out = []
    for label, X in tables.items():
        density = label == "a Gaussian column"
        out.append(
            Case(
                "superparent: columns that are not categories",
                f"SPODE(superparent='f') with f {label}",
                lambda X=X, d=density: _superparent_ok(X, y, d),
                names=("superparent", "'f'"),
                covers=("bnclassify.SPODE",),
                fast=label == "a float column with no cut",
            )
        )
    X = tables["a float column that bins"]
    for label, value in {
        "1.0 (a float position)": 1.0,
        "True": True,
        "a list": ["f"],
        "None as a name": None,
        "an out-of-range position": 7,
        "-3": -3,
        "np.int64(1)": np.int64(1),
        "'F' (another case)": "F",
    }.items():
        out.append(
            Case(
                "superparent: values",
                f"SPODE(superparent={label})",
                lambda v=value: proba_ok(bnc.SPODE(superparent=v).fit(X, y).predict_proba(X)),
                names=("superparent",),
                covers=("bnclassify.SPODE",),
            )
        )
    return out


def _superparent_ok(X, y, density):
    """A super-parent the model uses (a state per row group) or a refusal; a model that
    quietly becomes naive Bayes (a one-state super-parent) with no word is the silent
    acceptance the campaign looks for."""
    import warnings

    kwargs = {"distributions": "density"} if density else {}
    model = bnc.SPODE(superparent="f", **kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y)
    ok = proba_ok(model.predict_proba(X), len(X), 2)
    hub = model.schema_.names.index("f")
    states = len(model.categories_[hub]) if model.categories_[hub] is not None else 0
    said = any("'f'" in str(w.message) for w in caught)
    return ok and (states > 1 or said)


# -- column kinds --------------------------------------------------------------------------------
#: The column dtypes with no obvious kind, through every estimator at more rows.
KIND_COLUMNS = (
    "boolean with NA",
    "datetime",
    "datetime with tz",
    "datetime with NaT",
    "timedelta",
    "period",
    "complex",
    "complex, real values",
    "object mixing types",
    "object ints and strings",
    "interval",
    "decimal objects",
)


def _kind_cases():
    out = []
    for n in (300,):
        y = np.resize(Y, n)
        for column in KIND_COLUMNS:
            for maker in MAKERS:
                out.append(
                    Case(
                        f"column kinds at {n} rows: {column}",
                        f"{maker}.fit/predict_proba, {n} rows, t = {column}",
                        lambda m=maker, c=column, n=n, y=y: fit_predict(
                            m, base_table(n).assign(t=COLUMNS[c](n)), y
                        ),
                        names=COLUMN,
                        covers=(f"bnclassify.{maker.split('(')[0]}",),
                        fast=maker in ("NaiveBayes", "KDB", "SimplerTAN")
                        and column in ("boolean with NA", "datetime"),
                    )
                )
            out.append(
                Case(
                    f"column kinds at {n} rows: {column}",
                    f"every estimator reads t = {column} as the same kind",
                    lambda c=column, n=n, y=y: _same_kind_everywhere(
                        base_table(n).assign(t=COLUMNS[c](n)), y
                    ),
                    names=COLUMN,
                    covers=("bnclassify.NaiveBayes",),
                )
            )
    return out


def _same_kind_everywhere(X, y):
    """The kind of column ``t`` is the data layer's, whatever the model: one answer (or the
    same refusal) from every estimator."""
    kinds, refusals = set(), set()
    for maker in ("NaiveBayes", "TAN", "KDB", "SPODE", "AODE", "SimplerTAN", "BMATAN"):
        try:
            model = MAKERS[maker](X).fit(X, y)
        except (ValueError, TypeError) as error:
            refusals.add(type(error).__name__ + str(error).split(";")[0])
            continue
        kinds.add(model.feature_kinds_[list(model.feature_names_in_).index("t")])
    return len(kinds) + len(refusals) == 1


def cases():
    return _metric_cases() + _mdl_cases() + _alpha_cases() + _superparent_cases() + _kind_cases()
