"""A selective KDB, and an ensemble of them, fitted on a dask table by passes over its
partitions equal the in-memory fit."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

from bnclassify import ESKDB, SKDB  # noqa: E402


def _table(n=400, seed=3):
    """Strings, a binned number with missing cells, a column absent from some partitions once
    sorted, and three classes."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], n)
    size = (y == "a") * 1.5 + rng.normal(size=n)
    frame = pd.DataFrame(
        {
            "size": np.where(rng.random(n) < 0.05, np.nan, size),
            "site": np.where(rng.random(n) < 0.7, y, rng.choice(["a", "b", "c"], n)),
            "colour": rng.choice(list("pqr"), n),
            "mood": np.where(rng.random(n) < 0.6, y, rng.choice(list("xyz"), n)),
            "level": np.where(rng.random(n) < 0.1, None, rng.choice(["lo", "hi"], n)),
        }
    )
    return frame, pd.Series(y, name="label")


def _split(X, y, npartitions):
    frame = pd.concat([X, y], axis=1).sort_values("colour", kind="stable").reset_index(drop=True)
    df = dd.from_pandas(frame, npartitions=npartitions, sort=False)
    return df.drop(columns="label"), df["label"], frame.drop(columns="label"), frame["label"]


def _assert_same(model, memory, X):
    assert model.selected_features_ == memory.selected_features_
    assert model.k_ == memory.k_ and model.order_ == memory.order_
    for got, want in zip(model.cut_points_, memory.cut_points_, strict=True):
        assert (got is None and want is None) or np.array_equal(got, want)
    np.testing.assert_allclose(model.loo_losses_, memory.loo_losses_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.predict_proba(X), memory.predict_proba(X), atol=1e-9)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"k": 1, "criterion": "log_loss", "ranking": "loo"},
        {"smoothing": "hdp", "random_state": 0},
        pytest.param(
            {"parents": "no_identifiers"},
            marks=pytest.mark.filterwarnings("ignore::bnclassify.data.IdentifierColumnWarning"),
        ),
    ],
)
def test_a_fit_on_a_two_process_cluster_equals_the_in_memory_fit(client, params, monkeypatch):
    X, y = _table()
    if params.get("parents"):  # an identifier, told by the counts summed over partitions
        import bnclassify.classifiers._skdb as skdb_module

        # every attribute kept at the largest k (decided on the client): the parents compared
        monkeypatch.setattr(skdb_module, "choose", lambda losses: (losses.shape[1] - 1, 2))
        X = X.assign(key=[f"k{i}" for i in range(len(X))])
    dX, dy, X, y = _split(X, y, 4)
    model = SKDB(**params).fit(dX, dy)
    memory = SKDB(**params).fit(X, y)
    _assert_same(model, memory, X)
    assert model.selected_features_  # the selection kept attributes, with their parents
    if params.get("parents"):
        assert {u for u, _ in model.structure_.edges()} == {u for u, _ in memory.structure_.edges()}
        assert "key" not in {u for u, _ in model.structure_.edges()}
        assert "key" in {u for u, _ in SKDB().fit(X, y).structure_.edges()}
    proba = model.predict_proba(dd.from_pandas(X, npartitions=3)).compute()
    np.testing.assert_allclose(proba, memory.predict_proba(X), atol=1e-9)


@settings(max_examples=8, deadline=None)
@given(st.lists(st.integers(1, 120), min_size=1, max_size=5))
def test_any_partitioning_gives_the_in_memory_fit(sizes):
    X, y = _table(200, seed=5)
    bounds = np.unique(np.clip(np.cumsum([0, *sizes]), 0, 200))
    frame = pd.concat([X, y], axis=1)
    parts = [frame.iloc[a:b] for a, b in zip(bounds[:-1], [*bounds[1:-1], 200], strict=True)]
    df = dd.from_delayed([dask.delayed(p) for p in parts if len(p)], meta=frame.iloc[:0])
    with dask.config.set(scheduler="synchronous"):
        model = SKDB(k=2).fit(df.drop(columns="label"), df["label"])
    _assert_same(model, SKDB(k=2).fit(X, y), X)


def test_what_needs_the_rows_in_memory_is_refused_by_name():
    X, y = _table(60)
    df = dd.from_pandas(pd.concat([X, y], axis=1), npartitions=2)
    dX, dy = df.drop(columns="label"), df["label"]
    with pytest.raises(ValueError, match="sample_weight"):
        SKDB().fit(dX, dy, sample_weight=np.ones(60))
    with pytest.raises(ValueError, match="conditional"):
        SKDB(objective="conditional").fit(dX, dy)


# -- ESKDB: every member's statistics from passes shared by all -----------------------------


def _assert_same_ensemble(model, memory, X):
    assert len(model.estimators_) == len(memory.estimators_)
    for got, want in zip(model.estimators_, memory.estimators_, strict=True):
        _assert_same(got, want, X)
    assert model.schema_.kinds == memory.schema_.kinds
    for got, want in zip(model.schema_.categories, memory.schema_.categories, strict=True):
        assert (got is None and want is None) or list(got) == list(want)
    assert list(model.classes_) == list(memory.classes_)
    np.testing.assert_allclose(model.predict_proba(X), memory.predict_proba(X), atol=1e-9)


def test_an_ensemble_on_a_two_process_cluster_equals_the_in_memory_fit(client):
    X, y = _table()
    dX, dy, X, y = _split(X, y, 4)
    params = {"n_estimators": 3, "k": 2, "random_state": 0}
    model = ESKDB(**params).fit(dX, dy)
    memory = ESKDB(**params).fit(X, y)
    _assert_same_ensemble(model, memory, X)
    assert len({tuple(m.cut_points_[0]) for m in model.estimators_}) > 1  # cuts of their own
    proba = model.predict_proba(dd.from_pandas(X, npartitions=3)).compute()
    np.testing.assert_allclose(proba, memory.predict_proba(X), atol=1e-9)


@pytest.mark.parametrize(
    "params",
    [
        {"n_estimators": 4},
        {"n_estimators": 3, "discretization": "mdl", "k": 1},
        {"n_estimators": 3, "ranking": "loo", "criterion": "log_loss"},
        {"n_estimators": 2, "smoothing": "hls"},
        {"n_estimators": 2, "smoothing": "hdp"},
        {"n_estimators": 2, "k": 0},
        {"n_estimators": 2, "distributions": {"size": "categorical"}},
    ],
)
def test_an_ensemble_on_dask_equals_the_in_memory_fit(params):
    X, y = _table(300)
    dX, dy, X, y = _split(X, y, 3)
    with dask.config.set(scheduler="synchronous"):
        model = ESKDB(random_state=1, **params).fit(dX, dy)
    _assert_same_ensemble(model, ESKDB(random_state=1, **params).fit(X, y), X)


def test_an_ensemble_of_categories_and_categorical_labels_on_dask():
    X, y = _table(300)
    X = X.drop(columns="size")
    y = y.astype(pd.CategoricalDtype(["c", "a", "b"]))  # declared, not sorted
    frame = pd.concat([X, y], axis=1)
    df = dd.from_pandas(frame, npartitions=3)
    with dask.config.set(scheduler="synchronous"):
        model = ESKDB(n_estimators=3, random_state=2).fit(df.drop(columns="label"), df["label"])
    _assert_same_ensemble(model, ESKDB(n_estimators=3, random_state=2).fit(X, y), X)
    assert list(model.classes_) == ["c", "a", "b"]


def test_the_members_share_the_passes(monkeypatch):
    """The value counts, the counts, then every member's tables and every member's losses:
    four sums over the partitions, whatever the number of members."""
    import bnclassify.distributed as distributed_module

    sums = []
    tree_sum = distributed_module._tree_sum

    def counted(*args, **kwargs):
        sums.append(args[1])
        return tree_sum(*args, **kwargs)

    monkeypatch.setattr(distributed_module, "_tree_sum", counted)
    X, y = _table(200)
    dX, dy, _, _ = _split(X, y, 3)
    with dask.config.set(scheduler="synchronous"):
        ESKDB(n_estimators=5, random_state=0).fit(dX, dy)
    assert len(sums) == 4


@settings(max_examples=3, deadline=None)
@given(st.lists(st.integers(1, 120), min_size=1, max_size=5), st.integers(0, 3))
def test_any_partitioning_gives_the_in_memory_ensemble(sizes, seed):
    X, y = _table(200, seed=5)
    bounds = np.unique(np.clip(np.cumsum([0, *sizes]), 0, 200))
    frame = pd.concat([X, y], axis=1)
    parts = [frame.iloc[a:b] for a, b in zip(bounds[:-1], [*bounds[1:-1], 200], strict=True)]
    df = dd.from_delayed([dask.delayed(p) for p in parts if len(p)], meta=frame.iloc[:0])
    params = {"n_estimators": 2, "k": 2, "random_state": seed}
    with dask.config.set(scheduler="synchronous"):
        model = ESKDB(**params).fit(df.drop(columns="label"), df["label"])
    _assert_same_ensemble(model, ESKDB(**params).fit(X, y), X)


def test_what_an_ensemble_cannot_fit_exactly_on_dask_is_refused_by_name():
    X, y = _table(60)
    df = dd.from_pandas(pd.concat([X, y], axis=1), npartitions=2)
    dX, dy = df.drop(columns="label"), df["label"]
    with pytest.raises(ValueError, match="bootstrap=True"):
        ESKDB(n_estimators=2, bootstrap=True).fit(dX, dy)
    with pytest.raises(ValueError, match="conditional"):
        ESKDB(n_estimators=2, objective="conditional").fit(dX, dy)
    with pytest.raises(ValueError, match="sample_weight"):
        ESKDB(n_estimators=2).fit(dX, dy, sample_weight=np.ones(60))
