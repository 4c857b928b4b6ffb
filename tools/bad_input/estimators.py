"""Every estimator on every odd column, shape and label vector, with its answer checked.

A fit that returns must give finite probabilities summing to 1 for its training rows and
predict classes it knows; where a reference exists the answer is compared with it:

- a non-range index on ``X`` and ``y`` (or ``y`` alone) changes nothing;
- reversing the columns changes nothing;
- shifting every Gaussian column by 1e6 changes neither the kinds nor the probabilities
  (a change of origin);
- a dask fit has the in-memory fit's kinds and probabilities;
- a saved and loaded model predicts the same; ``partial_fit`` in two chunks equals ``fit``;
- a constant categorical column leaves naive Bayes' probabilities unchanged.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import bnclassify as bnc
from bnclassify.io import dump, load

from .core import Case, proba_ok, same
from .tables import (
    COLUMNS,
    FAST_COLUMNS,
    FAST_LABELS,
    LABELS,
    N,
    Y,
    base_table,
    only_column,
    with_column,
)

TMP = Path(tempfile.mkdtemp(prefix="bnc-campaign-est-"))


def _contacts(columns):
    rng = np.random.default_rng(len(columns))
    c = rng.random((len(columns), len(columns)))
    c = (c + c.T) / 2
    return pd.DataFrame(c, index=list(columns), columns=list(columns))


def _float_columns(X, kind):
    """``{column: kind}`` for the float columns of a DataFrame (None otherwise)."""
    if not isinstance(X, pd.DataFrame):
        return None
    floats = [c for c, d in X.dtypes.items() if getattr(d, "kind", "O") == "f"]
    return {c: kind for c in floats} or None


#: The estimators (and the options that change how they read data): name -> make(X).
MAKERS = {
    "NaiveBayes": lambda X: bnc.NaiveBayes(),
    "NaiveBayes(kde)": lambda X: bnc.NaiveBayes(distributions=_float_columns(X, "kde")),
    "NaiveBayes(binned)": lambda X: bnc.NaiveBayes(distributions=_float_columns(X, "binned")),
    "NaiveBayes(awnb)": lambda X: bnc.NaiveBayes(weighting="awnb"),
    "NaiveBayes(manb)": lambda X: bnc.NaiveBayes(weighting="manb"),
    "NaiveBayes(wanbia)": lambda X: bnc.NaiveBayes(weighting="wanbia"),
    "TAN": lambda X: bnc.TAN(),
    "TAN(aic_tree)": lambda X: bnc.TAN(criterion="aic_tree"),
    "TAN(bic)": lambda X: bnc.TAN(criterion="bic"),
    "TAN(smoothing=hdp)": lambda X: bnc.TAN(smoothing="hdp", random_state=0),
    "SimplerTAN": lambda X: bnc.SimplerTAN(_contacts(X.columns)),
    "KDB": lambda X: bnc.KDB(),
    "KDB(k=2)": lambda X: bnc.KDB(k=2),
    "KDB(k=2, smoothing=hls)": lambda X: bnc.KDB(k=2, smoothing="hls"),
    "SPODE": lambda X: bnc.SPODE(),
    "AODE": lambda X: bnc.AODE(),
    "BMATAN": lambda X: bnc.BMATAN(),
    "EnsembleTAN": lambda X: bnc.EnsembleTAN(),
    "TANHC": lambda X: bnc.TANHC(cv=2, random_state=0),
    "TANHCSP": lambda X: bnc.TANHCSP(cv=2, random_state=0),
    "FSSJ": lambda X: bnc.FSSJ(cv=2, random_state=0),
    "BSEJ": lambda X: bnc.BSEJ(cv=2, random_state=0),
    "KDBHC": lambda X: bnc.KDBHC(cv=2, random_state=0),
    "SKDB": lambda X: bnc.SKDB(),
    "ESKDB(n_estimators=3)": lambda X: bnc.ESKDB(n_estimators=3, random_state=0),
}
#: Makers for the checks that cost more than one fit.
REFERENCE_MAKERS = ("NaiveBayes", "TAN", "KDB(k=2)", "AODE", "BMATAN", "EnsembleTAN")
FAST_MAKERS = ("NaiveBayes", "TAN", "AODE")
COLUMN = ("'t'", '"t"', "column t", "Column t", "odd")  # how a message names column t


def _covers(maker):
    return (f"bnclassify.{maker.split('(')[0]}",)


def fit_predict(maker, X, y, **fit):
    """Fit, then check the training rows' probabilities and predictions."""
    model = MAKERS[maker](X).fit(X, y, **fit)
    proba = model.predict_proba(X)
    classes = np.asarray(model.classes_)
    return (
        proba_ok(proba, len(X), len(classes))
        and np.isin(model.predict(X), classes).all()
        and bool(np.isfinite(model.predict_log_proba(X)).all() or _log_underflow(proba))
    )


def _log_underflow(proba):
    return bool((np.asarray(proba) == 0).any())


def _fitted(maker, X, y):
    return MAKERS[maker](X).fit(X, y)


# -- the checks against a reference -------------------------------------------------------------


def _same_under_index(maker, X, y):
    index = np.arange(len(X))[::-1] * 5 + 11
    moved = X.set_axis(index)
    first = _fitted(maker, X, y).predict_proba(X)
    second = _fitted(maker, moved, pd.Series(y, index=index)).predict_proba(moved)
    third = _fitted(maker, X, pd.Series(y, index=index)).predict_proba(X)  # y's index alone
    return same(first, second) and same(first, third)


def _same_under_column_order(maker, X, y):
    order = list(X.columns)[::-1]
    first = _fitted(maker, X, y).predict_proba(X)
    second = _fitted(maker, X[order], y).predict_proba(X[order])
    return same(first, second, atol=1e-7)


def _same_under_shift(maker, X, y, shift=1e6):
    """A change of origin of every Gaussian column: same kinds, same probabilities.

    The reference is the table the shifted one represents, ``(X + shift) - shift``: a value
    rounded by the shift (1e12 + z, integers past 2**53) is the input's loss, not the model's.
    The probabilities must agree to 1e-6, or to ten times the columns' own resolution, the
    spacing of floats at their magnitude over their spread (1e12 + z holds z to 1.2e-4; a
    Gaussian with a Gaussian parent is evaluated about its intercept, in the data's origin).
    """
    kinds = dict(zip(X.columns, _fitted(maker, X, y).feature_kinds_, strict=True))
    gaussian = [c for c, k in kinds.items() if k == "gaussian"]
    if not gaussian:
        return True
    moved = X.assign(**{c: X[c].astype(float) + shift for c in gaussian})
    X = moved.assign(**{c: moved[c] - shift for c in gaussian})
    model = _fitted(maker, X, y)
    kinds = dict(zip(model.feature_names_in_, model.feature_kinds_, strict=True))
    after = _fitted(maker, moved, y)
    kinds_after = dict(zip(after.feature_names_in_, after.feature_kinds_, strict=True))
    if kinds_after != kinds:
        raise AssertionError(f"kinds changed under a shift of {shift:g}: {kinds} -> {kinds_after}")
    resolution = max(
        float(np.spacing(np.nanmax(np.abs(moved[c]))) / max(_spread(X[c]), 1e-300))
        for c in gaussian
    )
    return same(model.predict_proba(X), after.predict_proba(moved), atol=max(1e-6, 10 * resolution))


def _spread(values) -> float:
    """The standard deviation of ``values``, computed in units of the largest (a column near
    the float maximum overflows numpy's nanstd: the reference's warning, not the model's)."""
    values = np.asarray(values, dtype=float)
    top = float(np.nanmax(np.abs(values)))
    if not np.isfinite(top) or top == 0:
        return top
    return float(np.nanstd(values / top)) * top


def _same_on_dask(maker, X, y):
    import dask
    import dask.dataframe as dd

    model = _fitted(maker, X, y)
    with dask.config.set({"dataframe.convert-string": False, "scheduler": "synchronous"}):
        frame = dd.from_pandas(X.assign(label=y), npartitions=3)
        remote = MAKERS[maker](X).fit(frame.drop(columns="label"), frame["label"])
    if list(remote.feature_kinds_) != list(model.feature_kinds_):
        raise AssertionError(
            f"dask kinds {list(remote.feature_kinds_)} != {list(model.feature_kinds_)}"
        )
    return same(model.predict_proba(X), remote.predict_proba(X), atol=1e-7)


def _same_after_load(maker, X, y):
    model = _fitted(maker, X, y)
    loaded = load(dump(model, TMP / "model.bnc"))
    return same(model.predict_proba(X), loaded.predict_proba(X), atol=0)


def _same_in_chunks(maker, X, y):
    """partial_fit over two chunks equals fit, the kinds given and a binned column's cut
    points fixed (partial_fit refuses what it cannot learn from one chunk as fit does)."""
    from bnclassify.distributions import Binned

    model = _fitted(maker, X, y)
    kinds = {
        name: Binned(cut_points=cuts) if kind == "binned" else kind
        for name, kind, cuts in zip(
            X.columns, model.feature_kinds_, model.schema_.cut_points, strict=True
        )
    }
    chunked = MAKERS[maker](X)
    if "distributions" in chunked.get_params():
        model = MAKERS[maker](X).set_params(distributions=kinds).fit(X, y)
        chunked.set_params(distributions=kinds)
    half = len(X) // 2
    chunked.partial_fit(X.iloc[:half], y[:half], classes=np.unique(y))
    if list(chunked.feature_kinds_) != list(model.feature_kinds_):
        return True  # kinds read from the first chunk (AODE takes no distributions): no reference
    chunked.partial_fit(X.iloc[half:], y[half:])
    return same(model.predict_proba(X), chunked.predict_proba(X), atol=1e-7)


def _explains(maker, X, y):
    from bnclassify.explain import explain

    model = _fitted(maker, X, y)
    rows = X.iloc[:4]
    out = explain(model, rows, X.iloc[:12], random_state=0)
    values = np.asarray(out.values, dtype=float)
    if not np.isfinite(values).all():
        return False
    # the values add up to the explained output minus the base value
    proba = model.predict_proba(rows)
    with np.errstate(divide="ignore"):
        log_odds = np.log(proba[:, 1]) - np.log(proba[:, 0])
    total = values.sum(axis=1) + np.asarray(out.base_values, dtype=float)
    finite = np.isfinite(log_odds)
    return same(total[finite], log_odds[finite], atol=1e-6)


def _nb_ignores_a_constant_category(maker, X, y):
    plain = _fitted(maker, X, y).predict_proba(X)
    with_constant = X.assign(k="same")
    return same(plain, _fitted(maker, with_constant, y).predict_proba(with_constant), atol=1e-12)


REFERENCES = {
    "non-range index": (_same_under_index, REFERENCE_MAKERS),
    "column order": (_same_under_column_order, REFERENCE_MAKERS),
    "shift of every Gaussian column by 1e6": (_same_under_shift, REFERENCE_MAKERS),
    "dask fit": (_same_on_dask, ("NaiveBayes", "TAN", "AODE")),
    "dump/load": (_same_after_load, REFERENCE_MAKERS),
    "partial_fit in two chunks": (_same_in_chunks, ("NaiveBayes", "TAN", "AODE")),
    "explain adds up": (_explains, ("NaiveBayes", "TAN", "AODE")),
    "constant categorical column": (_nb_ignores_a_constant_category, ("NaiveBayes",)),
}


# -- odd shapes ---------------------------------------------------------------------------------


def _duplicate_names(n):
    X = base_table(n)
    X.columns = ["s", "s"]
    return X


def _wide(n, m=300):
    rng = np.random.default_rng(3)
    return pd.DataFrame(rng.choice(list("abc"), (n, m)), columns=[f"f{j}" for j in range(m)])


SHAPES = {
    "0 rows": (lambda: base_table().iloc[:0], lambda: Y[:0], ("0", "empty", "row", "sample")),
    "1 row": (lambda: base_table().iloc[:1], lambda: Y[:1], ("class", "row", "sample")),
    "2 rows, 2 classes": (lambda: base_table().iloc[:2], lambda: Y[:2], ()),
    "1 column": (lambda: base_table()[["g"]], lambda: Y, ()),
    "0 columns": (lambda: base_table()[[]], lambda: Y, ("feature", "column")),
    "300 columns": (lambda: _wide(N), lambda: Y, ()),
    "duplicate column names": (lambda: _duplicate_names(N), lambda: Y, ("'s'", "duplicate")),
    "integer column names": (lambda: base_table().set_axis([0, 1], axis=1), lambda: Y, ()),
    "mixed column names": (lambda: base_table().set_axis([0, "g"], axis=1), lambda: Y, ()),
    "tuple column names": (
        lambda: base_table().set_axis([("a", 1), ("b", 2)], axis=1),
        lambda: Y,
        (),
    ),
    "MultiIndex columns": (
        lambda: base_table().set_axis(pd.MultiIndex.from_tuples([("a", 1), ("b", 2)]), axis=1),
        lambda: Y,
        (),
    ),
    "None and NaN column names": (
        lambda: base_table().set_axis([None, np.nan], axis=1),
        lambda: Y,
        ("name", "column"),
    ),
    "float column names": (lambda: base_table().set_axis([1.5, 2.5], axis=1), lambda: Y, ()),
    "non-range index": (lambda: base_table().set_axis(np.arange(N) * 3 + 5), lambda: Y, ()),
    "duplicate index": (lambda: base_table().set_axis(np.zeros(N, dtype=int)), lambda: Y, ()),
    "datetime index": (
        lambda: base_table().set_axis(pd.date_range("2020", periods=N)),
        lambda: pd.Series(Y, index=pd.date_range("2020", periods=N)),
        (),
    ),
    "numpy object array": (lambda: base_table().to_numpy(), lambda: Y, ()),
    "numpy float array": (lambda: base_table()[["g"]].to_numpy(), lambda: Y, ()),
    "list of lists": (lambda: base_table().to_numpy().tolist(), lambda: list(Y), ()),
    "3-d array": (lambda: np.zeros((N, 2, 2)), lambda: Y, ("X", "dimension", "2-d", "2D")),
    "1-d array": (lambda: np.arange(N, dtype=float), lambda: Y, ("X", "dimension", "2-d", "2D")),
    "scalar": (lambda: 3.0, lambda: Y, ("X",)),
    "None": (lambda: None, lambda: Y, ("X",)),
    "Series": (lambda: base_table()["g"], lambda: Y, ("X", "Series", "DataFrame")),
    "sparse matrix": (
        lambda: __import__("scipy.sparse").sparse.csr_matrix(np.eye(N, 3)),
        lambda: Y,
        ("sparse", "X"),
    ),
}


def cases():
    out = []
    for column in COLUMNS:
        fast_column = column in FAST_COLUMNS
        for maker in MAKERS:
            out.append(
                Case(
                    f"column: {column}",
                    f"{maker}.fit/predict_proba with column t = {column}",
                    lambda m=maker, c=column: fit_predict(m, with_column(c), Y),
                    names=COLUMN,
                    covers=_covers(maker),
                    fast=fast_column and maker in FAST_MAKERS,
                )
            )
        for maker in ("NaiveBayes", "TAN"):
            out.append(
                Case(
                    f"column alone: {column}",
                    f"{maker}.fit/predict_proba on column t = {column} alone",
                    lambda m=maker, c=column: fit_predict(m, only_column(c), Y),
                    names=COLUMN,
                    covers=_covers(maker),
                )
            )
        for reference, (check, makers) in REFERENCES.items():
            if reference != "shift of every Gaussian column by 1e6" and not fast_column:
                continue  # the dearer checks on one column per family
            for maker in makers:
                out.append(
                    Case(
                        f"reference: {reference}",
                        f"{maker} {reference}, column t = {column}",
                        lambda f=check, m=maker, c=column: f(m, with_column(c), Y),
                        names=COLUMN,
                        covers=_covers(maker),
                        fast=fast_column and maker == "NaiveBayes",
                    )
                )
    for label in LABELS:
        for maker in MAKERS:
            out.append(
                Case(
                    f"labels: {label}",
                    f"{maker}.fit/predict_proba with y = {label}",
                    lambda m=maker, lab=label: fit_predict(m, base_table(), LABELS[lab](N)),
                    names=("y", "label", "class"),
                    covers=_covers(maker),
                    fast=label in FAST_LABELS and maker in FAST_MAKERS,
                )
            )
    for shape, (make_x, make_y, names) in SHAPES.items():
        for maker in MAKERS:
            out.append(
                Case(
                    f"shape: {shape}",
                    f"{maker}.fit/predict_proba on X = {shape}",
                    lambda m=maker, mx=make_x, my=make_y: _fit_shape(m, mx(), my()),
                    names=names or ("X",),
                    covers=_covers(maker),
                    fast=maker == "NaiveBayes",
                )
            )
    out += _prediction_cases()
    return out


def _fit_shape(maker, X, y):
    frame = X if isinstance(X, pd.DataFrame) else None
    model = MAKERS[maker](frame if frame is not None else pd.DataFrame(np.zeros((1, 1))))
    model.fit(X, y)
    proba = model.predict_proba(X)
    return proba_ok(proba, len(y), len(model.classes_))


# -- prediction on odd values after an ordinary fit -----------------------------------------

PREDICT_VALUES = {
    "1e300": 1e300,
    "-1e300": -1e300,
    "max float": 1.7976931348623157e308,
    "1e-300": 1e-300,
    "subnormal": 5e-324,
    "-0.0": -0.0,
    "0": 0.0,
    "NaN": np.nan,
    "inf": np.inf,
    "a string": "x",
    "None": None,
    "True": True,
    "pd.NA": pd.NA,
}


def _fitted_mixed(maker):
    X = base_table().assign(h=np.exp(np.random.default_rng(5).normal(size=N)))
    return MAKERS[maker](X).fit(X, Y), X


def _predict_value(maker, columns, value):
    model, X = _fitted_mixed(maker)
    rows = X.head(3).astype(object)
    for c in columns:
        rows[c] = [value] * len(rows)
    return proba_ok(model.predict_proba(rows), len(rows), 2)


def _predict_frame(maker, change):
    model, X = _fitted_mixed(maker)
    rows = change(X.head(5).copy())
    return proba_ok(model.predict_proba(rows), len(rows), 2)


PREDICT_FRAMES = {
    "columns reordered": lambda R: R[list(R.columns)[::-1]],
    "a column missing": lambda R: R.drop(columns="h"),
    "an extra column": lambda R: R.assign(extra=1.0),
    "0 rows": lambda R: R.iloc[:0],
    "numpy array": lambda R: R.to_numpy(),
    "category dtype": lambda R: R.assign(s=R["s"].astype("category")),
    "Float64 dtype": lambda R: R.assign(g=R["g"].astype("Float64")),
    "pyarrow dtypes": lambda R: R.astype({"s": "string[pyarrow]", "g": "double[pyarrow]"}),
    "strings of numbers": lambda R: R.assign(g=R["g"].map(str)),
    "renamed columns": lambda R: R.set_axis(["a", "b", "c"], axis=1),
    "non-range index": lambda R: R.set_axis([9, 3, 7, 1, 5]),
    "int column where float fitted": lambda R: R.assign(g=np.arange(5)),
    "unseen category": lambda R: R.assign(s="never"),
}


def _prediction_cases():
    out = []
    for maker in MAKERS:
        fast = maker in FAST_MAKERS
        for label, value in PREDICT_VALUES.items():
            for columns in (("g",), ("h",), ("s",), ("s", "g", "h")):
                out.append(
                    Case(
                        f"predict value: {label}",
                        f"{maker}.predict_proba with {'+'.join(columns)} = {label}",
                        lambda m=maker, c=columns, v=value: _predict_value(m, c, v),
                        names=tuple(f"'{c}'" for c in columns),
                        covers=_covers(maker),
                        fast=fast and label in ("1e300", "NaN"),
                    )
                )
        for label, change in PREDICT_FRAMES.items():
            out.append(
                Case(
                    f"predict frame: {label}",
                    f"{maker}.predict_proba on rows with {label}",
                    lambda m=maker, f=change: _predict_frame(m, f),
                    names=("'h'", "'a'", "column", "feature", "X", "0 sample"),
                    covers=_covers(maker),
                    fast=fast,
                )
            )
    return out
