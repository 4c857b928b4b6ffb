"""A selective KDB fitted on a dask table by passes over its partitions equals the in-memory fit."""

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
    ],
)
def test_a_fit_on_a_two_process_cluster_equals_the_in_memory_fit(client, params):
    X, y = _table()
    dX, dy, X, y = _split(X, y, 4)
    model = SKDB(**params).fit(dX, dy)
    memory = SKDB(**params).fit(X, y)
    _assert_same(model, memory, X)
    assert model.selected_features_  # the selection kept attributes, with their parents
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
    with pytest.raises(TypeError, match="compute the dask table"):
        ESKDB(n_estimators=2).fit(dX, dy)
