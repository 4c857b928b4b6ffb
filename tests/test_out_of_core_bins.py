"""Binned columns out of core: partial_fit and dask fits equal fit on the same rows, or
refuse by name with the remedies; a failed partial_fit leaves the model as it was (issue 44).

The table is the issue's: two text columns, an integer column, two float columns (binned by
default), text labels, in the input forms users have.
"""

import io
import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bnclassify import (
    AODE,
    HNB,
    KDB,
    SPODE,
    TAN,
    AnDE,
    BayesNetClassifier,
    MDLDiscretizer,
    NaiveBayes,
    SimplerTAN,
)
from bnclassify.data import MAX_BINNED_VALUES, ValueClassCounts
from bnclassify.data.binning import mdl_cut_points, mdl_cut_points_of_counts
from bnclassify.distributions import Binned
from bnclassify.exceptions import OutOfCoreError

FLOATS = ["size", "weight"]
CLASSES = ["yes", "no"]  # not sorted: partial_fit's classes are a set of labels

MODELS = {
    "nb": NaiveBayes,
    "tan": TAN,
    "simpler_tan": lambda **kw: SimplerTAN(np.add.outer(np.arange(5), np.arange(5)) + 1.0, **kw),
    "kdb2": lambda **kw: KDB(k=2, **kw),
    "spode": SPODE,
    "aode": AODE,
}


def _table(column_form="object", label_form="object", n=80, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(["yes", "no"], n)
    s = (y == "yes").astype(float)
    X = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n).astype(object),
            "shape": np.where(rng.random(n) < 0.3 + 0.4 * s, "round", "square").astype(object),
            "count": rng.integers(0, 12, n) + 3 * s.astype(int),
            "size": rng.normal(2.0 * s, 1.0, n).round(2),  # ties: MDL cuts between values
            "weight": rng.gamma(2.0 + s, 1.0, n),
        }
    )
    if column_form == "category":
        X[["colour", "shape"]] = X[["colour", "shape"]].astype("category")
    elif column_form == "pyarrow":
        X[["colour", "shape"]] = X[["colour", "shape"]].astype("string[pyarrow]")
    elif column_form == "csv":  # raw pd.read_csv output: missing cells, float64 and object
        for column in ["colour", "size", "weight"]:
            X.loc[X.index[rng.random(n) < 0.06], column] = np.nan
        X = pd.read_csv(io.StringIO(X.to_csv(index=False)))
    y = pd.Series(y, name="label")
    if label_form == "category":
        y = y.astype(pd.CategoricalDtype(["yes", "no"]))  # declared order, not sorted
    elif label_form == "pyarrow":
        y = y.astype("string[pyarrow]")
    return X, y


FORMS = [("object", "object"), ("category", "category"), ("pyarrow", "pyarrow"), ("csv", "object")]


def _chunks(n, seed, cuts):
    order = np.random.default_rng(seed).permutation(n)
    return [rows for rows in np.split(order, sorted(set(cuts))) if len(rows)]


def _partial(model, X, y, chunks, **kw):
    for rows in chunks:
        model.partial_fit(X.iloc[rows], y.iloc[rows], classes=CLASSES, **kw)
    return model


def _assert_equal_models(got, expected, X):
    assert got.feature_kinds_ == expected.feature_kinds_
    assert list(got.classes_) == list(expected.classes_)
    for a, b in zip(got.categories_, expected.categories_, strict=True):
        assert (a is None and b is None) or list(a) == list(b)
    for a, b in zip(got.schema_.cut_points, expected.schema_.cut_points, strict=True):
        assert (a is None and b is None) or np.array_equal(a, b)
    np.testing.assert_allclose(got.predict_proba(X), expected.predict_proba(X), rtol=0, atol=1e-9)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_partial_fit_refuses_cut_points_learned_from_one_chunk(name):
    X, y = _table()
    model = MODELS[name]()
    before = pickle.dumps(model)
    with pytest.raises(OutOfCoreError, match="cut points of the binned column") as refused:
        model.partial_fit(X.iloc[:20], y.iloc[:20], classes=CLASSES)
    assert refused.value.columns == FLOATS
    message = str(refused.value)
    assert "MDLDiscretizer(columns=['size', 'weight'])" in message
    assert "Binned(cut_points=" in message and "'size': 'gaussian'" in message
    assert pickle.dumps(model) == before  # nothing fitted
    # after fit, whose cut points came from its rows, more rows are refused alike
    fitted = MODELS[name]().fit(X, y)
    proba = fitted.predict_proba(X)
    with pytest.raises(OutOfCoreError, match="learned the cut points") as refused:
        fitted.partial_fit(X.iloc[:20], y.iloc[:20])
    assert refused.value.columns == FLOATS
    np.testing.assert_array_equal(fitted.predict_proba(X), proba)


def _remedy(name, X, y, chunks):
    """``distributions`` that fix the binned columns before the first chunk, and whether the
    in-memory model to equal takes them too (the first pass gives fit's own cut points)."""
    if name == "first_pass":  # one exact pass over the chunks
        mdl = MDLDiscretizer(columns=FLOATS)
        for rows in chunks:
            mdl.partial_fit(X.iloc[rows], y.iloc[rows])
        return mdl.to_distributions(), False
    if name == "given":
        return {"size": Binned(cut_points=[0.0, 1.2]), "weight": Binned(cut_points=[2.5])}, True
    return {"size": "gaussian", "weight": "lognormal"}, True


@pytest.mark.parametrize("name", sorted(MODELS))
@settings(max_examples=3, deadline=None)
@given(
    form=st.sampled_from(FORMS),
    remedy=st.sampled_from(["first_pass", "given", "densities"]),
    seed=st.integers(0, 2**16),
    cuts=st.lists(st.integers(12, 79), max_size=4),
)
def test_partial_fit_with_fixed_bins_equals_fit_over_any_chunking(name, form, remedy, seed, cuts):
    X, y = _table(*form)
    chunks = _chunks(len(X), seed, cuts)  # the first holds >= 12 rows: every column observed
    distributions, both = _remedy(remedy, X, y, chunks)
    got = _partial(MODELS[name](distributions=distributions), X, y, chunks)
    expected = MODELS[name](**({"distributions": distributions} if both else {}))
    _assert_equal_models(got, expected.fit(X, y), X)


def _bad_chunks(X, y):
    """(name, X, y, keywords) of chunks a partial_fit must refuse; rows from the third chunk."""
    rows = slice(40, 60)
    Xc, yc = X.iloc[rows], y.iloc[rows]
    as_text = yc.astype(object).to_numpy().copy()
    unseen, missing = as_text.copy(), as_text.copy()
    unseen[3], missing[5] = "maybe", None
    return [
        ("new column", Xc.assign(extra=1.0), yc, {}),
        ("missing column", Xc.drop(columns="shape"), yc, {}),
        ("integers as floats", Xc.assign(count=Xc["count"].where(Xc["count"] > 2)), yc, {}),
        ("text in a number column", Xc.assign(size="big"), yc, {}),
        ("unseen class", Xc, pd.Series(unseen, name="label"), {}),
        ("missing label", Xc, pd.Series(missing, name="label"), {}),
        ("other classes", Xc, yc, {"classes": ["yes", "no", "maybe"]}),
        ("negative weight", Xc, yc, {"sample_weight": -np.ones(20)}),
        ("wrong number of labels", Xc, yc.iloc[:-1], {}),
        # the integer column would turn numeric: refused after this chunk's counts are added
        ("integer column turns numeric", Xc.assign(count=np.arange(100, 120)), yc, {}),
    ]


@pytest.mark.parametrize("bad", range(10), ids=[b[0] for b in _bad_chunks(*_table())])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_failed_partial_fit_leaves_the_model_as_it_was(name, bad):
    X, y = _table()
    mdl = MDLDiscretizer(columns=FLOATS).fit(X, y)
    model = MODELS[name](distributions=mdl.to_distributions())
    model.partial_fit(X.iloc[:20], y.iloc[:20], classes=CLASSES)
    model.partial_fit(X.iloc[20:40], y.iloc[20:40])
    seen = X.iloc[:40]  # the rows so far: every value known
    proba = model.predict_proba(seen)
    before = pickle.dumps(model)
    what, Xb, yb, keywords = _bad_chunks(X, y)[bad]
    with pytest.raises((ValueError, TypeError)):
        model.partial_fit(Xb, yb, **keywords)
    assert pickle.dumps(model) == before, what
    np.testing.assert_array_equal(model.predict_proba(seen), proba)
    # and nothing of the refused chunk is counted later
    model.partial_fit(X.iloc[40:], y.iloc[40:])
    _assert_equal_models(model, MODELS[name]().fit(X, y), X)


@settings(max_examples=30, deadline=None)
@given(
    values=st.lists(st.integers(-6, 6), min_size=2, max_size=60),
    labels=st.lists(st.sampled_from("abc"), min_size=60, max_size=60),
    weights=st.lists(st.integers(1, 3), min_size=60, max_size=60),
    cuts=st.lists(st.integers(0, 60), max_size=5),
)
def test_summed_value_counts_give_the_cut_points_of_the_whole_column(values, labels, weights, cuts):
    x = np.asarray(values, dtype=float) / 4
    c, w = np.asarray(labels[: len(x)]), np.asarray(weights[: len(x)], dtype=float)
    parts = [
        ValueClassCounts.from_rows(x[r], c[r], w[r])
        for r in np.split(np.arange(len(x)), sorted(set(cuts)))
        if len(r)
    ]
    whole = mdl_cut_points(x, c, w)
    np.testing.assert_array_equal(mdl_cut_points_of_counts(ValueClassCounts.total(parts)), whole)
    np.testing.assert_array_equal(
        mdl_cut_points_of_counts(ValueClassCounts.total(parts[::-1])), whole
    )


def test_a_column_of_too_many_values_is_refused_by_name(monkeypatch):
    X, y = _table()
    from bnclassify.data import binning

    monkeypatch.setattr(binning, "MAX_BINNED_VALUES", 50)
    mdl = MDLDiscretizer(columns=FLOATS).partial_fit(X.iloc[:40], y.iloc[:40])
    state = pickle.dumps(mdl)
    with pytest.raises(OutOfCoreError, match="Column 'size' has more than 50 distinct") as error:
        mdl.partial_fit(X.iloc[40:], y.iloc[40:])
    assert error.value.columns == ["size"] and "round" in str(error.value)
    assert pickle.dumps(mdl) == state
    assert MAX_BINNED_VALUES == 1 << 22  # the documented bound


# the table models whose numeric columns are MDL bins of the table's schema (no densities)
TABLE_MODELS = {"bnc": BayesNetClassifier, "a2de": lambda **kw: AnDE(n=2, **kw), "hnb": HNB}


@pytest.mark.parametrize("name", sorted(TABLE_MODELS))
def test_a_table_models_refusal_offers_only_remedies_it_takes(name):
    X, y = _table()
    with pytest.raises(OutOfCoreError, match="cut points of the binned column") as refused:
        TABLE_MODELS[name]().partial_fit(X.iloc[:20], y.iloc[:20], classes=CLASSES)
    message = str(refused.value)
    assert "MDLDiscretizer(columns=['size', 'weight'])" in message
    assert "Binned(cut_points=" in message and "gaussian" not in message
    with pytest.raises(ValueError, match="every node of this model is a table"):
        TABLE_MODELS[name](distributions={"size": "gaussian"}).fit(X, y)


@pytest.mark.parametrize("name", sorted(TABLE_MODELS))
@settings(max_examples=3, deadline=None)
@given(
    form=st.sampled_from(FORMS),
    remedy=st.sampled_from(["first_pass", "given"]),
    seed=st.integers(0, 2**16),
    cuts=st.lists(st.integers(12, 79), max_size=4),
)
def test_a_table_model_with_fixed_bins_equals_fit_over_any_chunking(name, form, remedy, seed, cuts):
    # the refusal's remedies work for the table models too: the exact first pass gives fit's
    # own cut points, given cut points are taken by fit and partial_fit alike
    X, y = _table(*form)
    chunks = _chunks(len(X), seed, cuts)
    distributions, both = _remedy(remedy, X, y, chunks)
    got = _partial(TABLE_MODELS[name](distributions=distributions), X, y, chunks)
    expected = TABLE_MODELS[name](**({"distributions": distributions} if both else {}))
    _assert_equal_models(got, expected.fit(X, y), X)
