"""Wide tables (issue 14): 12 rows x 2000 columns in bounded memory; absurd sizes refused.

Memory is measured with tracemalloc (numpy's arrays are traced), which counts the same
allocations on every run: the bounds are a few times what the fits need now, and far
below the gigabytes that m networks of m nodes or a whole C x R x R pair table took.
"""

import tracemalloc

import numpy as np
import pandas as pd
import pytest

from bnclassify import AODE, KDB, TAN, EnsembleTAN, information
from bnclassify import network as network_module
from bnclassify.classifiers import _aode, _ensemble
from bnclassify.datasets import load_car, load_p450, load_vote
from bnclassify.stats import training as counts_module

MB = 1024**2


def wide_table(rows=12, columns=2000, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 3, (rows, columns)), columns=[f"x{j}" for j in range(columns)])
    return X, np.array(["a", "b"])[np.arange(rows) % 2]


@pytest.fixture(scope="module")
def wide():
    return wide_table()


def traced_peak(function):
    """``(result, peak bytes allocated while it ran)``."""
    tracemalloc.start()
    try:
        result = function()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# -- 12 x 2000 ------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize(
    ("estimator", "bound"),
    [(AODE(), 350 * MB), (EnsembleTAN(), 350 * MB)],
    ids=["AODE", "EnsembleTAN"],
)
def test_a_12_by_2000_table_fits_and_predicts_in_bounded_memory(wide, estimator, bound):
    # before: 8.6 GB and 7.0 GB of RSS (a network of 2000 nodes per feature); now about
    # 210 and 190 MB traced, mostly the m x m weights and a 4M-cell block of pair counts;
    # one whole pair table would be 576 MB
    X, y = wide
    proba, peak = traced_peak(lambda: estimator.fit(X, y).predict_proba(X))
    assert peak < bound, f"{peak / MB:.0f} MB"
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert len(estimator.estimators_) == X.shape[1]
    member = estimator.estimators_[-1]  # fitted when read, from the kept statistics
    assert member.structure_.number_of_nodes() == X.shape[1] + 1


# -- the blocked paths give the whole-table results -------------------------------------------
@pytest.fixture
def blocked(monkeypatch):
    """Every pair table counted and read in small blocks, as on a wide table."""
    monkeypatch.setattr(counts_module, "MAX_PAIRWISE_CELLS", 0)
    monkeypatch.setattr(information, "BLOCK_CELLS", 40)  # CMI: blocks of 2 to 4 features
    monkeypatch.setattr(_aode, "BLOCK_CELLS", 300)  # 2 to 3 super-parents, 8 rows at a time
    monkeypatch.setattr(_ensemble, "BLOCK_CELLS", 3000)  # 9 to 40 rows at a time


def _data(name):
    if name == "p450":
        X, y = load_p450(return_X_y=True)
    else:
        X, y = (load_car if name == "car" else load_vote)(return_X_y=True)
    missing = X.mask(np.random.default_rng(0).random(X.shape) < 0.1)
    return X, missing, y


@pytest.mark.parametrize("name", ["p450", "car", "vote"])
@pytest.mark.parametrize(
    "make",
    [
        lambda: TAN(),
        lambda: TAN(criterion="bic"),
        lambda: KDB(k=2),
        lambda: AODE(min_frequency=3),
        lambda: AODE(alpha=0.0),
        lambda: EnsembleTAN(),
        lambda: EnsembleTAN(members=TAN(criterion="aic")),
    ],
    ids=["tan", "tan-bic", "kdb2", "aode", "aode-alpha0", "ensemble", "ensemble-forest"],
)
def test_blocked_counting_gives_the_whole_table_results(name, make, request):
    X, missing, y = _data(name)
    expected = [make().fit(data, y) for data in (X, missing)]
    request.getfixturevalue("blocked")
    for data, whole in zip((X, missing), expected, strict=True):
        model = make().fit(data, y)
        if isinstance(model, AODE):
            assert "codes" in model._pair_source  # the rows are kept, not the table
        else:
            assert "pairwise" not in getattr(model, "_fit_rows", model).__dict__
        np.testing.assert_allclose(
            model.predict_proba(data), whole.predict_proba(data), rtol=0, atol=1e-12
        )
        if hasattr(whole, "weights_"):
            pd.testing.assert_frame_equal(model.weights_, whole.weights_, rtol=0, atol=1e-15)


def test_weighted_blocked_aode_is_the_mean_of_its_spodes(blocked):
    X, missing, y = _data("p450")
    weights = np.random.default_rng(1).integers(0, 4, len(y)).astype(float)
    # the mean of every SPODE: missing super-parents summed out
    model = AODE(missing_superparents="marginalize").fit(missing, y, sample_weight=weights)
    joint = np.mean([np.exp(m._joint_log_likelihood(missing)) for m in model.estimators_], axis=0)
    np.testing.assert_allclose(
        model.predict_proba(missing), joint / joint.sum(axis=1, keepdims=True), atol=1e-12
    )


@pytest.mark.parametrize(
    "params",
    [{}, {"members": TAN(criterion="bic")}, {"alpha": 0.0}, {"members": "all"}],
    ids=["tree", "forest", "alpha0", "all"],
)
def test_every_rooting_is_predicted_as_its_member_predicts(params):
    """Belief propagation over the shared tree equals each member's own marginal."""
    X, y = load_vote(return_X_y=True)  # missing cells in most rows
    contact = np.abs(np.subtract.outer(np.arange(16), np.arange(16))).astype(float)
    model = EnsembleTAN(contact, **params).fit(X, y)
    members = list(model.estimators_)
    assert len({m.root for m in members}) == X.shape[1]
    mean = np.mean([m.predict_proba(X) for m in members], axis=0)
    np.testing.assert_allclose(model.predict_proba(X), mean, rtol=0, atol=1e-12)


def test_members_fitted_when_read_behave_as_a_sequence():
    X, y = load_car(return_X_y=True)
    members = AODE().fit(X, y).estimators_
    assert len(members) == 6
    assert members[-1].superparent == members[5].superparent == "safety"
    assert [m.superparent for m in members[1:3]] == ["maint", "doors"]
    with pytest.raises(IndexError):
        members[6]
    with pytest.raises(TypeError):
        members[True]


# -- absurd sizes are refused up front --------------------------------------------------------
@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"n_estimators": 10**7}, r"n_estimators=10000000 is more than 10000: every bootstrap"),
        ({"n_estimators": 2.0}, "n_estimators must be an integer >= 1, got 2.0"),
        ({"n_estimators": True}, "n_estimators must be an integer >= 1, got True"),
        ({"n_jobs": 0}, "n_jobs must be None or a non-zero integer, got 0"),
        ({"n_jobs": 1.5}, "n_jobs must be None or a non-zero integer, got 1.5"),
        ({"n_jobs": True}, "n_jobs must be None or a non-zero integer, got True"),
    ],
)
def test_ensemble_refuses_absurd_sizes_before_encoding(params, message, monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("the data were encoded before the parameters were checked")

    monkeypatch.setattr(EnsembleTAN, "_training_statistics", never)
    with pytest.raises(ValueError, match=message):
        EnsembleTAN(**params).fit(*load_car(return_X_y=True))


def test_bootstrap_members_that_would_not_fit_in_memory_are_refused_before_fitting(wide):
    X, y = wide
    with pytest.raises(ValueError, match=r"n_estimators=600 bootstrap members over 2000 features"):
        EnsembleTAN(bootstrap=True, n_estimators=600).fit(X, y)


def test_integer_likes_are_accepted_and_threads_capped():
    X, y = load_car(return_X_y=True)
    model = EnsembleTAN(bootstrap=True, n_estimators=np.int64(2), n_jobs=10**7, random_state=0)
    assert len(model.fit(X, y).estimators_) == 2  # two threads, not ten million
    assert KDB(k=np.int64(2)).fit(X, y).score(X, y) > 0.9
    assert AODE(min_frequency=np.int64(2)).fit(X, y).score(X, y) > 0.9
    with pytest.raises(ValueError, match="min_frequency must be an integer >= 0"):
        AODE(min_frequency=2.0).fit(X, y)


def test_kdb_refuses_families_too_large_to_count(wide, monkeypatch):
    X, y = wide

    def never(*args, **kwargs):
        raise AssertionError("the CMI was computed before k was checked")

    monkeypatch.setattr("bnclassify.classifiers._kdb.edge_weights", never)
    with pytest.raises(ValueError, match=r"k=10000000 gives the last feature .* use a smaller k"):
        KDB(k=10**7).fit(X, y)
    monkeypatch.undo()
    # on six features every k is at most five parents: no refusal
    X, y = load_car(return_X_y=True)
    assert KDB(k=10**7).fit(X, y).score(X, y) > 0.9


def test_kdb_refuses_a_structure_too_wide_for_its_missing_cells(monkeypatch):
    """Summing out is by variable elimination; only a largest table beyond
    MAX_TABLE_CELLS (per row) is refused, up front and naming its size."""
    X, y = load_p450(return_X_y=True)
    model = KDB(k=2).fit(X, y)
    row = X.iloc[:1].copy()
    row.iloc[0, :6] = np.nan
    assert np.isfinite(model.predict_proba(row)).all()
    monkeypatch.setattr(network_module, "MAX_TABLE_CELLS", 4)
    # a row of few completions is summed by enumerating them: no table to refuse
    assert np.isfinite(model.predict_proba(row)).all()
    monkeypatch.setattr(network_module, "ENUMERATED_STATES", 0)  # every row planned
    monkeypatch.setattr(network_module, "ENUMERATED_GROUP_STATES", 0)  # and every group
    monkeypatch.setattr(network_module, "ENUMERATED_GROUP_CELLS", 0)
    # only the missing cells that elimination must join are counted (2 of the 6 here)
    with pytest.raises(ValueError, match=r"1 row\(s\) miss 2 cells .* table of .* MAX_TABLE_CELLS"):
        model.predict_proba(row)
