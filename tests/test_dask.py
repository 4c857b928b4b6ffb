"""dask input: fit from per-partition statistics summed on a real 2-process cluster (issue 15)."""

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

from bnclassify import AODE, HNB, KDB, TAN, AnDE, NaiveBayes  # noqa: E402
from bnclassify.datasets import load_car  # noqa: E402

# fits from partitions or chunks equal the in-memory fit where the nodes are densities (the
# kinds rule's distributions="density"); binned columns are tested in
# tests/test_out_of_core_bins.py
pytestmark = pytest.mark.usefixtures("numbers_as_densities")


def _mixed():
    rng = np.random.default_rng(11)
    n = 600
    y = rng.choice(["a", "b", "c"], n)
    shift = pd.Series(y).map({"a": 0.0, "b": 1.0, "c": 2.0}).to_numpy()
    colour = rng.choice(["red", "green", "blue"], n)
    size = rng.normal(shift, 1.0)
    frame = pd.DataFrame(
        {
            "colour": colour,
            "size": size,
            "weight": size + rng.normal(0, 0.5, n) + (colour == "red"),
            "level": rng.choice(["lo", "mid", "hi"], n),
        }
    )
    for column in frame.columns:
        frame.loc[rng.random(n) < 0.05, column] = np.nan
    return frame, pd.Series(y, name="label")


def _car_strings():
    X, y = load_car(return_X_y=True)
    return X.astype(str), y.astype(str)


def _split(X, y, npartitions, sort_by=None):
    frame = pd.concat([X, y], axis=1)
    if sort_by is not None:  # partitions that miss categories of sort_by
        frame = frame.sort_values(sort_by, kind="stable").reset_index(drop=True)
    df = dd.from_pandas(frame, npartitions=npartitions, sort=False)
    return df.drop(columns=y.name), df[y.name], frame.drop(columns=y.name), frame[y.name]


@pytest.mark.slow
@pytest.mark.parametrize("make", [_car_strings, _mixed], ids=["car", "mixed"])
@pytest.mark.parametrize("model", [NaiveBayes(), TAN(), KDB(k=2), AODE()])
def test_dask_fit_equals_the_in_memory_fit(client, make, model):
    X, y = make()
    sort_by = X.columns[0]
    dX, dy, X, y = _split(X, y, 5, sort_by)
    expected = type(model)(**model.get_params()).fit(X, y)
    got = type(model)(**model.get_params()).fit(dX, dy)
    proba = got.predict_proba(dX)
    assert isinstance(proba, da.Array)
    np.testing.assert_allclose(proba.compute(), expected.predict_proba(X), rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        got.predict_log_proba(dX).compute(), expected.predict_log_proba(X), rtol=0, atol=1e-9
    )
    assert (got.predict(dX).compute() == expected.predict(X)).all()
    for a, b in zip(got.categories_, expected.categories_, strict=True):
        assert (a is None and b is None) or list(a) == list(b)
    assert list(got.classes_) == list(expected.classes_)


@pytest.mark.parametrize("model", [HNB(), AnDE(n=2)], ids=["HNB", "A2DE"])
def test_dask_fit_of_the_models_of_tables_only(client, model):
    """HNB and A2DE (tables only: no density node) from summed partition statistics."""
    dX, dy, X, y = _split(*_car_strings(), 5, "buying")
    expected = type(model)(**model.get_params()).fit(X, y)
    got = type(model)(**model.get_params()).fit(dX, dy)
    np.testing.assert_allclose(
        got.predict_proba(dX).compute(), expected.predict_proba(X), rtol=0, atol=1e-12
    )
    if hasattr(got, "structure_"):
        assert set(got.structure_.edges()) == set(expected.structure_.edges())


@pytest.mark.parametrize(("name", "form"), [("nb", 0), ("tan", 1), ("kdb2", 3), ("aode", 2)])
def test_a_dask_fit_of_binned_columns_equals_fit(client, name, form, monkeypatch):
    # numbers binned, the kinds rule's default: the cut points from every partition's value
    # counts are fit's (the table, tests/test_out_of_core_bins.py, in four forms)
    from test_out_of_core_bins import FORMS, MODELS, _assert_equal_models, _table

    from bnclassify.data import kinds_rule

    monkeypatch.setattr(kinds_rule, "NUMERIC_KIND", "binned")
    X, y = _table(*FORMS[form], n=200, seed=3)
    frame = pd.concat([X, y], axis=1).sample(frac=1.0, random_state=1).reset_index(drop=True)
    parts = dd.from_pandas(frame, npartitions=4, sort=False)
    got = MODELS[name]().fit(parts.drop(columns="label"), parts["label"])
    expected = MODELS[name]().fit(frame.drop(columns="label"), frame["label"])
    assert expected.feature_kinds_[3:] == ["binned", "binned"]
    _assert_equal_models(got, expected, frame.drop(columns="label"))


def test_a_hierarchical_smoothing_reads_the_same_statistics_on_dask(client):
    from bnclassify.parameters import HDP

    X, y = _car_strings()
    dX, dy, X, y = _split(X, y, 4, X.columns[0])
    for make in (TAN, lambda **kw: KDB(k=2, **kw)):
        expected = make(smoothing=HDP(n_iter=20), random_state=0).fit(X, y)
        got = make(smoothing=HDP(n_iter=20), random_state=0).fit(dX, dy)
        np.testing.assert_allclose(
            got.predict_proba(dX).compute(), expected.predict_proba(X), rtol=0, atol=1e-12
        )


def test_a_column_no_partition_observes_is_left_out_as_in_memory(client):
    from bnclassify.exceptions import UnobservedColumnWarning

    X, y = _mixed()
    X = X.assign(TBG=np.nan, m=pd.Series([None] * len(X), dtype=object))
    dX, dy, X, y = _split(X, y, 3)
    with pytest.warns(UnobservedColumnWarning, match="'TBG', 'm'"):
        got = TAN().fit(dX, dy)
    with pytest.warns(UnobservedColumnWarning):
        expected = TAN().fit(X, y)
    assert got.feature_kinds_[-2:] == ["unobserved", "unobserved"]
    np.testing.assert_allclose(
        got.predict_proba(dX).compute(), expected.predict_proba(X), rtol=0, atol=1e-12
    )


def test_known_dask_categoricals_give_their_declared_categories(client):
    X, y = load_car(return_X_y=True)  # pandas Categorical columns
    dX, dy, X, y = _split(X, y, 4)
    got = TAN().fit(dX, dy)
    expected = TAN().fit(X, y)
    np.testing.assert_allclose(
        got.predict_proba(dX).compute(), expected.predict_proba(X), rtol=0, atol=1e-12
    )


def test_raw_integer_columns_get_the_in_memory_kinds(client):
    from bnclassify.datasets import make_credit_table

    table = make_credit_table()  # duration, amount, age: integers with many values
    X, y = table.drop(columns="credit_risk"), table["credit_risk"]
    frame = dd.from_pandas(table, npartitions=4)
    model = TAN().fit(frame.drop(columns="credit_risk"), frame["credit_risk"])
    expected = TAN().fit(X, y)
    assert model.feature_kinds_ == expected.feature_kinds_
    assert model.feature_kinds_.count("lognormal") == 3
    np.testing.assert_allclose(model.predict_proba(X), expected.predict_proba(X), atol=1e-12)


def test_float_integer_columns_get_the_in_memory_kinds(client):
    """A float column of small integers is a measurement, with or without a missing cell
    (here the one gap is in the last partition); an integer column of them is categorical."""
    rng = np.random.default_rng(3)
    n = 400
    y = pd.Series(rng.choice(["a", "b"], n), name="label")
    codes = (rng.integers(0, 4, n) + (y == "b")).astype(float)
    X = pd.DataFrame(
        {
            "gappy": codes,
            "full": codes.copy(),
            "code": codes.astype(int),
            "size": rng.normal(size=n),
        }
    )
    X.loc[n - 1, "gappy"] = np.nan
    dX, dy, X, y = _split(X, y, 4)
    model = NaiveBayes().fit(dX, dy)
    expected = NaiveBayes().fit(X, y)
    assert model.feature_kinds_ == expected.feature_kinds_
    assert expected.feature_kinds_ == ["gaussian", "gaussian", "categorical", "gaussian"]
    np.testing.assert_allclose(model.predict_proba(X), expected.predict_proba(X), atol=1e-12)


def test_misaligned_y_is_refused_and_the_model_left_unchanged(client):
    X, y = _car_strings()
    dX, dy, X, y = _split(X, y, 4)
    model = NaiveBayes().fit(X, y)
    before = model.predict_proba(X)
    other = dd.from_pandas(y, npartitions=3).clear_divisions()
    with pytest.raises(ValueError, match="partitions"):
        model.fit(dX, other)
    # same number of partitions, unknown divisions, index labels that do not match X's:
    # caught on the workers
    relabelled = y.set_axis(y.index + 10_000)
    lopsided = dd.from_pandas(relabelled, npartitions=4, sort=False).clear_divisions()
    with pytest.raises(ValueError, match="partitioned alike"):
        model.fit(dX.clear_divisions(), lopsided)
    np.testing.assert_array_equal(model.predict_proba(X), before)
    # known divisions, other partitioning: dask aligns y to X by index, which is right
    realigned = NaiveBayes().fit(dX, dd.from_pandas(y, npartitions=3))
    np.testing.assert_allclose(realigned.predict_proba(X), before, rtol=0, atol=1e-12)
    model = NaiveBayes().fit(X, y)
    with pytest.raises(ValueError, match="sample_weight"):
        model.fit(dX, dy, sample_weight=np.ones(len(X)))
    np.testing.assert_array_equal(model.predict_proba(X), before)


def test_partial_fit_continues_a_dask_fit(client):
    X, y = _car_strings()
    order = np.random.default_rng(0).permutation(len(X))
    X, y = X.iloc[order].reset_index(drop=True), y.iloc[order].reset_index(drop=True)
    dX, dy, _, _ = _split(X.iloc[:1000], y.iloc[:1000], 3)
    model = TAN().fit(dX, dy)
    model.partial_fit(X.iloc[1000:], y.iloc[1000:])
    np.testing.assert_allclose(
        model.predict_proba(X), TAN().fit(X, y).predict_proba(X), rtol=0, atol=1e-12
    )


# -- issue 27, item 2: empty partitions and dask Arrays (local threads, no cluster) -----------
def _without_first_partition_rows(X, y, npartitions=3):
    frame = dd.from_pandas(X.assign(label=y), npartitions=npartitions)
    first = frame.divisions[1]
    emptied = frame.map_partitions(lambda part: part[part.index >= first])
    return emptied.drop(columns="label"), emptied["label"]


@pytest.mark.parametrize("model", [NaiveBayes(), TAN(), AODE()], ids=lambda m: type(m).__name__)
def test_an_empty_first_partition_is_passed_over(model):
    X, y = _mixed()
    dX, dy = _without_first_partition_rows(X, y)
    assert len(dX.get_partition(0).compute()) == 0
    kept = X.index >= dX.divisions[1]
    expected = type(model)().fit(X[kept], y[kept]).predict_proba(X)
    np.testing.assert_allclose(model.fit(dX, dy).predict_proba(X), expected, atol=1e-9)
    np.testing.assert_allclose(model.predict_proba(dX).compute(), expected[kept], atol=1e-9)
    assert model.predict(dX).compute().shape == (kept.sum(),)


@pytest.mark.filterwarnings("ignore:AODE found no categorical feature")  # numbers only
@pytest.mark.parametrize("model", [NaiveBayes(), TAN(), AODE()], ids=lambda m: type(m).__name__)
def test_a_dask_array_is_fitted_and_predicted_like_a_numpy_array(model):
    X, y = _mixed()
    values = X[["size", "weight"]].to_numpy()
    dX = da.from_array(values, chunks=(150, 1))  # column chunks are joined
    dy = da.from_array(y.to_numpy(), chunks=150)
    expected = type(model)().fit(values, y.to_numpy()).predict_proba(values)
    np.testing.assert_allclose(model.fit(dX, dy).predict_proba(values), expected, atol=1e-9)
    assert not hasattr(model, "feature_names_in_")
    np.testing.assert_allclose(model.predict_proba(dX).compute(), expected, atol=1e-9)
    # y chunked unlike X is re-chunked to X's rows
    other = da.from_array(y.to_numpy(), chunks=100)
    np.testing.assert_allclose(model.fit(dX, other).predict_proba(values), expected, atol=1e-9)


def test_a_dask_array_that_is_not_a_table_is_refused_by_name():
    X, y = _mixed()
    flat = da.from_array(X["size"].to_numpy(), chunks=150)
    labels = da.from_array(y.to_numpy(), chunks=150)
    with pytest.raises(ValueError, match="X is a 1-D dask Array"):
        NaiveBayes().fit(flat, labels)
    model = NaiveBayes().fit(X[["size"]].to_numpy(), y)
    with pytest.raises(ValueError, match="X is a 1-D dask Array"):
        model.predict_proba(flat)
    with pytest.raises(ValueError, match="y is a 2-D dask Array"):
        NaiveBayes().fit(flat.reshape(-1, 1), labels.reshape(-1, 1))


@pytest.mark.parametrize("k", [2, 3, 4])
def test_kdb_beyond_one_parent_counts_its_families_by_one_more_pass(client, k, monkeypatch):
    """KDB with k >= 2 keeps no table of its families ahead of the structure: the dask fit
    counts them in a pass once the structure is known (no triple table), and equals fit
    (car's strings, and a table of binned numbers with missing cells)."""
    from test_out_of_core_bins import FORMS, _table

    from bnclassify.data import kinds_rule

    dX, dy, X, y = _split(*_car_strings(), 5, "buying")
    expected = KDB(k=k).fit(X, y)
    got = KDB(k=k).fit(dX, dy)
    assert got.statistics_.triple_table is None
    assert sorted(got.structure_.edges()) == sorted(expected.structure_.edges())
    assert max(len(list(expected.structure_.predecessors(f))) for f in X.columns) == k + 1
    np.testing.assert_allclose(
        got.predict_proba(dX).compute(), expected.predict_proba(X), rtol=0, atol=1e-12
    )
    monkeypatch.setattr(kinds_rule, "NUMERIC_KIND", "binned")
    X, y = _table(*FORMS[3], n=200, seed=3)
    frame = pd.concat([X, y], axis=1).sample(frac=1.0, random_state=1).reset_index(drop=True)
    for column in frame.columns[:-1]:
        frame.loc[frame.index % 7 == 0, column] = None
    parts = dd.from_pandas(frame, npartitions=4, sort=False)
    got = KDB(k=k).fit(parts.drop(columns="label"), parts["label"])
    expected = KDB(k=k).fit(frame.drop(columns="label"), frame["label"])
    np.testing.assert_allclose(
        got.predict_proba(frame.drop(columns="label")),
        expected.predict_proba(frame.drop(columns="label")),
        rtol=0,
        atol=1e-12,
    )


def test_kdb2_on_dask_needs_no_triple_table_and_partial_fit_refuses_to_continue(monkeypatch):
    """A triple table over MAX_TRIPLE_CELLS no longer stops KDB(k=2) on dask (the families
    come from the pass); continuing that fit with partial_fit, which adds to a triple table,
    is refused by name and leaves the model as it was."""
    from bnclassify.stats import sufficient

    monkeypatch.setattr(sufficient, "MAX_TRIPLE_CELLS", 10)
    dX, dy, X, y = _split(*_car_strings(), 4, "buying")
    with dask.config.set(scheduler="synchronous"):
        model = KDB(k=2).fit(dX, dy)
    expected = KDB(k=2).fit(X, y).predict_proba(X)
    np.testing.assert_allclose(model.predict_proba(X), expected, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="partial_fit cannot continue this fit.*triple table"):
        model.partial_fit(X.iloc[:50], y.iloc[:50])
    np.testing.assert_array_equal(model.predict_proba(X), expected)
    with pytest.raises(ValueError, match="MAX_TRIPLE_CELLS"):  # partial_fit keeps the table
        KDB(k=2).partial_fit(X, y, classes=np.unique(y))


def test_kdb_beyond_two_parents_names_a_gaussian_family_it_cannot_count(client):
    X, y = _car_strings()
    X = X.assign(size=np.linspace(0.0, 1.0, len(X)) + (y == "unacc").to_numpy())
    dX, dy, X, y = _split(X, y, 4)
    model = KDB(k=3, distributions={"size": "gaussian"}, order=list(X.columns))  # size last
    with pytest.raises(ValueError, match="Column 'size': a Gaussian node with the parents"):
        model.fit(dX, dy)
    assert not hasattr(model, "classes_")
