"""What issue 32's bad-input campaign found, each on a small input made from its case.

Every test here failed before its fix (a wrong answer, a crash from deep inside, an
unnamed error, a numpy RuntimeWarning reaching the caller, or a hang); the suite runs with
warnings as errors, so a leaked warning fails it.
"""

import decimal
import warnings
from unittest import mock

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

import bnclassify as bnc
from bnclassify import data, parameters, plotting, stats, structure, study
from bnclassify.data import kinds_rule
from bnclassify.distributions import KernelDensity
from bnclassify.exceptions import SampledShapleyWarning
from bnclassify.explain import explain
from bnclassify.io import dump, load
from bnclassify.metrics import cll_scorer, study_cv

N = 40
Y = np.resize(np.array(["p", "q"]), N)


def _table(seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"s": rng.choice(list("abc"), N), "g": rng.normal(size=N)})


# -- the kinds rule: a change of origin, and a table read in chunks ------------------------------
@pytest.mark.parametrize("shift", [1e6, 1e9])
@pytest.mark.parametrize("make", ["skewed with negatives", "integers", "normal"])
def test_a_shift_of_a_gaussian_column_keeps_it_gaussian(make, shift):
    rng = np.random.default_rng(11)
    x = {
        "skewed with negatives": rng.gamma(2.0, 1.0, 400) - 1.0,
        "integers": rng.integers(0, 1000, 400).astype(float),
        "normal": rng.normal(size=400),
    }[make]
    assert data.default_kind(pd.Series(x)) == "gaussian"
    # before: Vuong's statistic at a far origin tests the column's skewness alone, and the
    # shifted right-skewed column passed for log-normal
    assert data.default_kind(pd.Series(x + shift)) == "gaussian"


def test_log_normal_columns_are_still_log_normal():
    rng = np.random.default_rng(0)
    for spread in (0.3, 0.8, 1.5):
        assert data.default_kind(pd.Series(np.exp(rng.normal(3, spread, 400)))) == "lognormal"


def test_a_model_does_not_change_under_a_shift_of_its_gaussian_columns():
    rng = np.random.default_rng(3)
    x = rng.gamma(2.0, 1.0, N) - 1.0 + np.resize([0.0, 1.0], N)
    X = _table().assign(t=x)
    moved = X.assign(g=X["g"] + 1e6, t=X["t"] + 1e6)
    density = bnc.TAN(distributions="density")  # the rule's Gaussian / log-normal choice
    before, after = clone(density).fit(X, Y), clone(density).fit(moved, Y)
    assert list(before.feature_kinds_) == list(after.feature_kinds_)
    np.testing.assert_allclose(before.predict_proba(X), after.predict_proba(moved), atol=1e-6)


def test_the_log_normal_test_takes_weights_near_the_float_maximum():
    x = np.exp(np.random.default_rng(0).normal(size=N))
    assert data.prefers_log_normal(x, weights=np.full(N, 1e308)) == data.prefers_log_normal(x)


def _dask_fit(X, y, npartitions, distributions=None):
    dask = pytest.importorskip("dask")
    import dask.dataframe as dd

    with dask.config.set({"dataframe.convert-string": False, "scheduler": "synchronous"}):
        frame = dd.from_pandas(X.assign(label=y), npartitions=npartitions)
        model = bnc.NaiveBayes(distributions=distributions)
        return model.fit(frame.drop(columns="label"), frame["label"])


@pytest.mark.parametrize(
    "column",
    [
        (np.arange(80) * 37) % 1000,  # 80 distinct integers: 20 per partition (categorical)
        np.exp(np.random.default_rng(2).normal(size=80)),  # log-normal on the whole column
        np.where(np.arange(80) % 3 == 0, 0, np.arange(80)),  # a point mass in one partition
    ],
    ids=["integers", "log-normal", "point mass"],
)
def test_a_dask_fit_decides_kinds_on_the_whole_column(column):
    X = pd.DataFrame({"s": np.resize(list("abc"), 80), "t": column})
    y = np.resize(np.array(["p", "q"]), 80)
    local = bnc.NaiveBayes().fit(X, y)
    remote = _dask_fit(X, y, 4)  # before: the first partition's kinds
    assert list(remote.feature_kinds_) == list(local.feature_kinds_)
    # binned columns too: their cut points from every partition's value counts
    np.testing.assert_allclose(remote.predict_proba(X), local.predict_proba(X), atol=1e-9)
    # and as densities the same model
    local = bnc.NaiveBayes(distributions="density").fit(X, y)
    remote = _dask_fit(X, y, 4, "density")
    assert list(remote.feature_kinds_) == list(local.feature_kinds_)
    np.testing.assert_allclose(remote.predict_proba(X), local.predict_proba(X), atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    kind=st.sampled_from(["log-normal", "normal", "point mass", "integers", "few"]),
    cuts=st.lists(st.integers(0, 60), max_size=4),
    gaps=st.sampled_from(["none", "one", "some"]),
)
def test_the_chunked_kinds_rule_decides_what_the_whole_column_does(seed, kind, cuts, gaps):
    """count_evidence + value_evidence over any split of the rows == default_kind (the
    log-normal test reads every 4th row here: the chunks must pick the same rows; a float
    column of integers is read by the integer rule only when the whole column has a gap,
    which one missing cell puts in one chunk only)."""
    with mock.patch.object(kinds_rule, "LOG_NORMAL_TEST_ROWS", 16):
        _check_chunked_rule(seed, kind, cuts, gaps)


def _check_chunked_rule(seed, kind, cuts, gaps="some"):
    rng = np.random.default_rng(seed)
    n = 60
    x = {
        "log-normal": np.exp(rng.normal(size=n) * rng.uniform(0.05, 2)),
        "normal": rng.normal(size=n),
        "point mass": np.where(rng.random(n) < 0.55, 0.0, rng.integers(0, 500, n)),
        "integers": rng.integers(0, 60, n).astype(float),
        "few": rng.integers(0, 5, n).astype(float),
    }[kind]
    if gaps == "some":
        x[rng.random(n) < 0.1] = np.nan
    elif gaps == "one":
        x[rng.integers(n)] = np.nan
    y = rng.choice(["a", "b"], n)
    column = pd.Series(x)
    classes = pd.factorize(y)[0].astype(float)
    for numbers in ("binned", "density"):
        _check_chunked_kind(column, y, classes, cuts, numbers)


def _check_chunked_kind(column, y, classes, cuts, numbers):
    n = len(column)
    expected = data.default_kind(column, classes=classes, numbers=numbers)
    bounds = [0, *sorted(set(cuts)), n]
    chunks = [(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]
    evidence = [data.count_evidence(column.iloc[a:b]) for a, b in chunks]
    total = sum(evidence[1:], evidence[0])
    values = None
    if data.needs_values(total, False):
        step = data.tested_row_step(n)
        parts = [
            data.value_evidence(column.iloc[a:b], total.candidates, y[a:b], a, step)
            for a, b in chunks
        ]
        values = sum(parts[1:], parts[0])
    assert data.decided_kind(total, False, values, numbers) == expected


def test_an_all_uint64_table_beyond_int64_fits_by_its_values():
    # before: the ranges wrapped to negative numbers and the encoder read the block as narrow
    # codes (IndexError inside data/encoding.py)
    X = pd.DataFrame({"a": np.arange(N).astype(np.uint64) * np.uint64(2**58)})
    for numbers, kind in (("binned", "binned"), ("density", "gaussian")):
        make = bnc.NaiveBayes(distributions=None if numbers == "binned" else "density")
        model = clone(make).fit(X, Y)
        assert model.feature_kinds_ == [kind]
        assert np.isfinite(model.predict_proba(X)).all()
        assert clone(make).fit(X.assign(b=1.5), Y).feature_kinds_[0] == kind


# -- prediction and labels --------------------------------------------------------------------
@pytest.mark.parametrize("make", [bnc.NaiveBayes, bnc.TAN, bnc.AODE, bnc.EnsembleTAN])
def test_a_value_no_class_can_have_is_named(make, densities):
    # a density gives 1e300 no probability in any class; a bin (the default) takes it
    model = make().fit(_table(), Y)
    rows = _table().head(3).assign(g=[0.0, 1e300, 2.0])
    for method in (model.predict_proba, model.predict):  # before: predict gave classes_[0]
        with pytest.raises(ValueError, match=r"row 1, column 'g' \(1e\+300\)"):
            method(rows)


@pytest.mark.parametrize("discretization", ["stochastic", "mdl"])
def test_an_eskdb_warns_once_of_an_empty_column_where_it_was_called(discretization):
    X = _table().assign(t=np.nan)
    model = bnc.ESKDB(n_estimators=3, discretization=discretization, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, Y)  # before: once per member, from joblib's worker thread
    (warning,) = caught
    assert issubclass(warning.category, bnc.exceptions.UnobservedColumnWarning)
    assert warning.filename == __file__


@pytest.mark.parametrize(
    "labels, match",
    [
        (np.resize([0.5, 1.5], N), "continuous"),
        (np.resize([1e300, -1e300], N), "continuous"),  # before: a RuntimeWarning from a cast
        (np.resize([1j, 2j], N), "Complex"),
    ],
)
def test_labels_that_are_not_classes_are_refused_by_name(labels, match):
    with pytest.raises(ValueError, match=f"y cannot be class labels.*{match}"):
        bnc.NaiveBayes().fit(_table(), labels)


def test_zero_weights_that_leave_one_class_say_so():
    weights = np.r_[1.0, np.zeros(N - 1)]
    with pytest.raises(ValueError, match="sample_weight"):
        bnc.NaiveBayes().fit(_table(), Y, sample_weight=weights)


@pytest.mark.parametrize("weights", [np.full(N, 1e308), np.r_[1e308, np.ones(N - 1)]])
def test_weights_whose_total_overflows_are_refused(weights):
    with pytest.raises(ValueError, match="sample_weight sums to more than"):
        bnc.KDB().fit(_table(), Y, sample_weight=weights)


def test_counts_near_the_float_maximum_give_a_table():
    p = np.exp(parameters.log_conditional(np.array([[1e308, 1e308, 0.0]]), 1.0))
    np.testing.assert_allclose(p, [[0.5, 0.5, 0.0]], atol=1e-12)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_tree_of_non_finite_weights_is_refused(bad):
    w = np.ones((3, 3))
    w[0, 1] = w[1, 0] = bad
    with pytest.raises(ValueError, match=r"weights\['a', 'b'\]"):
        structure.tree_from_weights(pd.DataFrame(w, index=list("abc"), columns=list("abc")))


@pytest.mark.parametrize("where", ["cmi", "class_mi"])
def test_a_kdb_of_non_finite_weights_is_refused(where):
    cmi, class_mi = np.ones((3, 3)), np.array([0.3, 0.2, 0.1])
    if where == "cmi":
        cmi[1, 2] = cmi[2, 1] = np.nan  # before: a DAG chosen as if NaN were a weight
        match = r"cmi\['b', 'c'\] is nan"
    else:
        class_mi[1] = np.inf
        match = r"class_mi\['b'\] is inf"
    with pytest.raises(ValueError, match=match):
        structure.kdb_feature_dag(cmi, class_mi, 2, features=list("abc"))


def test_a_kernel_density_with_a_huge_bandwidth_is_flat_not_zero():
    X = _table().assign(g=np.random.default_rng(0).normal(size=N))
    model = bnc.NaiveBayes(distributions={"g": KernelDensity(bandwidth=1e300)})
    proba = model.fit(X, Y).predict_proba(X)
    assert np.isfinite(proba).all()


def test_a_gaussian_parent_of_subnormal_slope_sums_out():
    rng = np.random.default_rng(1)
    a = rng.normal(size=N)
    X = pd.DataFrame({"a": a, "b": a * 5e-320 + rng.normal(size=N) * 1e-318})
    model = bnc.TAN().fit(X, Y)
    proba = model.predict_proba(X.assign(a=np.nan))  # sums the parent out: no overflow
    assert np.isfinite(proba).all()


# -- the contact matrix of a table with integer column labels -------------------------------------
def test_a_contact_matrix_labelled_like_integer_columns_is_matched():
    X = _table().set_axis([0, 1], axis=1)
    contacts = pd.DataFrame([[0.0, 1.0], [1.0, 0.0]], index=[0, 1], columns=[0, 1])
    model = bnc.SimplerTAN(contacts).fit(X, Y)  # before: "missing ['x0', 'x1']"
    assert np.isfinite(model.predict_proba(X)).all()


# -- model files -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "column",
    [
        pd.date_range("2020-01-01", periods=N),
        pd.date_range("2020-01-01", periods=N, tz="Europe/Paris"),
        pd.to_timedelta(np.arange(N) % 3, unit="D"),
        pd.period_range("2020-01", periods=N, freq="M"),
        pd.arrays.IntervalArray.from_breaks(np.arange(N + 1.0)),
        np.resize(np.array([1 + 1j, 2 - 1j], dtype=object), N),
        np.resize(np.array([b"x", b"y"], dtype=object), N),
        np.resize(np.array([decimal.Decimal("1.5"), decimal.Decimal("2")], dtype=object), N),
    ],
    ids=["dates", "dates with a zone", "durations", "periods", "intervals", "complex", "bytes",
         "decimals"],
)  # fmt: skip
def test_model_files_hold_the_categories_of_any_pandas_column(column, tmp_path):
    X = _table().assign(t=column)
    model = bnc.TAN().fit(X, Y)
    loaded = load(dump(model, tmp_path / "m.bnc"))  # before: a TypeError naming no column
    assert list(loaded.categories_[2]) == list(model.categories_[2])
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


# -- explanations ---------------------------------------------------------------------------
def test_explain_says_what_an_exact_game_would_cost_before_playing_it(densities):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(30, 14)), columns=[f"f{i}" for i in range(14)])
    model = bnc.NaiveBayes().fit(X, np.resize(["p", "q"], 30))
    with pytest.raises(ValueError, match="max_exact_features=14 asks for all 2\\*\\*14"):
        explain(model, X.iloc[:20], output="probability", max_exact_features=14)
    with pytest.warns(SampledShapleyWarning, match="14 features, max_exact_features=12"):
        out = explain(model, X.iloc[:2], output="probability", random_state=0)  # sampled: cheap
    assert np.isfinite(out.values).all()


@pytest.mark.parametrize("where", ["X", "background"])
def test_explain_names_a_table_without_rows(where):
    model = bnc.TAN().fit(_table(), Y)
    X, background = _table().head(3), None
    if where == "X":
        X = X.iloc[:0]
    else:
        background = _table().iloc[:0]
    with pytest.raises(ValueError, match=f"{where} has no rows"):
        explain(model, X, background)


# -- plots ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "weight, text",
    [
        (float("nan"), "nan"),
        (float("inf"), "inf"),
        ("strong", "strong"),
        (1 + 2j, "(1+2j)"),
        (pd.NA, "<NA>"),
        (decimal.Decimal("0.125"), "0.125"),
        (np.float32(0.25), "0.250"),
    ],
)
def test_format_weight_writes_any_weight(weight, text):
    from bnclassify.plotting._structure import format_weight

    assert format_weight(weight) == text


def test_a_heatmap_of_300_features_fits_a_page():
    from bnclassify.plotting import _heatmap

    rng = np.random.default_rng(0)
    w = rng.random((300, 300))
    ax = plotting.plot_weights((w + w.T) / 2)
    width, height = ax.figure.get_size_inches()
    assert width <= _heatmap.MAX_FIGURE[0] and height <= _heatmap.MAX_FIGURE[1]
    assert not ax.texts  # 90,000 numbers do not fit their cells: "auto" leaves them out
    assert len(ax.get_xticklabels()) <= _heatmap.MAX_TICK_LABELS


def test_a_heatmap_of_infinite_weights_draws_them_at_the_scale_end():
    ax = plotting.plot_weights(np.array([[0, np.inf, 1.0], [np.inf, 0, 2.0], [1.0, 2.0, 0]]))
    ax.figure.canvas.draw()  # before: a RuntimeWarning from matplotlib's norm


def test_a_tree_comparison_of_wide_trees_draws_the_strongest_edges():
    from bnclassify.plotting import _router, _trees

    rng = np.random.default_rng(3)
    m = 60
    X = pd.DataFrame(rng.choice(list("ab"), (N, m)), columns=[f"f{j}" for j in range(m)])
    fig = plotting.plot_tree_comparison(bnc.TAN().fit(X, Y), bnc.TAN().fit(X, Y[::-1]))
    assert len(fig.edge_tables["a"]) == m - 1  # every edge in the table returned
    drawn = [t for t in fig.axes[0].tables][0]
    rows = {key[0] for key in drawn.get_celld()}
    assert len(rows) == 1 + _trees.MAX_TABLE_ROWS + 1  # header, the strongest, "... more"
    assert m - 1 <= _router.MAX_ROUTED_EDGES  # routed; wider trees are drawn straight


def test_plot_tree_comparison_checks_edge_support_and_pvalue():
    X = pd.DataFrame({c: np.random.default_rng(1).choice(list("xy"), N) for c in "abc"})
    tan = bnc.TAN().fit(X, Y)
    with pytest.raises(ValueError, match="edge_support has shape"):
        plotting.plot_tree_comparison(tan, tan, np.ones((3, 3)), edge_support=np.ones((2, 2)))
    with pytest.raises(ValueError, match="pvalue must be a probability"):
        plotting.plot_tree_comparison(tan, tan, np.ones((3, 3)), pvalue="x")
    fig = plotting.plot_tree_comparison(tan, tan, np.ones((3, 3)), edge_support=np.ones((3, 3)))
    assert fig.edge_tables["a"]["support"].notna().all()


def test_a_network_of_many_edges_is_drawn_straight_on_a_capped_figure():
    from bnclassify.plotting import _router, _structure

    m = _router.MAX_ROUTED_EDGES + 10
    tree = nx.DiGraph([(f"f{j // 2}", f"f{j}") for j in range(1, m + 1)])  # a binary tree
    ax = plotting.plot_structure(tree)
    width, height = ax.figure.get_size_inches()
    assert width <= _structure.MAX_FIGURE[0] and height <= _structure.MAX_FIGURE[1]
    router = next(p for p in ax.patches if isinstance(p, _router.RoutedArrow))._router
    with mock.patch.object(_router.Router, "_bend", side_effect=AssertionError("routed")):
        # what drawing asks (matplotlib's own clipping of the arrows costs seconds here)
        bends = router.bends(ax.figure.canvas.get_renderer())
    assert set(bends.values()) == {0.0}  # before: each bend tested pair by pair, minutes at 300


def _plane(m=2):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(N, m)), columns=[f"x{j}" for j in range(m)])
    return X.set_axis(np.arange(N) * 7 + 3)


def test_a_decision_boundary_of_an_ensemble_is_drawn():
    X = _plane()
    y = pd.Series(Y, index=X.index)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="AODE found no categorical")
        for make in (bnc.AODE, bnc.EnsembleTAN):
            assert plotting.plot_decision_boundary(make().fit(X, y), X, y) is not None


def test_a_decision_boundary_of_a_categorical_feature_is_refused_by_name():
    X = _plane().assign(x1=np.resize(["a", "b"], N))
    with pytest.raises(ValueError, match="'x1' is modelled as 'categorical'"):
        plotting.plot_decision_boundary(bnc.NaiveBayes().fit(X, Y), X, Y)


def test_cv_results_with_an_infinite_score_name_it():
    folds = pd.DataFrame(
        {"model": ["NB", "NB", "TAN", "TAN"], "fold": [0, 1, 0, 1], "cll": [-3, -np.inf, -2, -2]}
    )
    with pytest.raises(ValueError, match=r"results\['cll'\] is -inf for model 'NB', fold 1"):
        plotting.plot_cv_results(folds, metrics=("cll",))


# some columns are constant within a class: the ZeroVarianceWarning is right, not the subject
@pytest.mark.filterwarnings("ignore::bnclassify.exceptions.ZeroVarianceWarning")
@pytest.mark.parametrize(
    "column",
    [
        np.random.default_rng(1).normal(size=N) * 1e300,
        np.random.default_rng(1).normal(size=N) * 5e-324 * 64,
        np.where(np.arange(N) % 2, 1.7e308, -1.7e308),
    ],
    ids=["1e300 spread", "subnormal spread", "near the float maximum"],
)
def test_class_densities_of_extreme_columns_draw(column, densities):
    X = _table().assign(t=column)
    model = bnc.NaiveBayes().fit(X, Y)
    plotting.plot_class_densities(model, "t", X.iloc[0])
    plotting.plot_cpt(model, "t")
    plt.gcf().canvas.draw()


# -- metrics, data sets and the other functions ------------------------------------------------
@pytest.mark.parametrize(
    "estimator", [None, "TAN", bnc.TAN()], ids=["None", "a string", "unfitted"]
)
def test_the_cll_scorer_names_an_estimator_it_cannot_score(estimator):
    with pytest.raises(TypeError, match="the CLL scorer needs a"):
        cll_scorer(estimator, _table(), Y)


def test_load_csv_names_an_empty_file(tmp_path):
    from bnclassify.datasets import load_csv

    path = tmp_path / "empty.csv"
    path.write_text("")
    with pytest.raises(ValueError, match="empty.csv is empty"):
        load_csv(path)


def test_load_csv_names_a_file_pandas_cannot_read(tmp_path):
    from bnclassify.datasets import load_csv

    path = tmp_path / "ragged.csv"
    path.write_text("a,b,c\n1,2,3\n4,5,6,7,8\n")  # a row longer than the header
    with pytest.raises(ValueError, match="ragged.csv: not a table pandas can read"):
        load_csv(path)


def test_study_cv_needs_two_folds():
    with pytest.raises(ValueError, match="n_splits"):
        study_cv(1)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: study.repeated_evaluation({"NB": bnc.NaiveBayes()}, _table(), Y, folds=1),
         "folds must be an integer >= 2"),
        (lambda: study.comparison_table(pd.DataFrame({"accuracy": [0.5]})), "summary must be"),
        (lambda: study.cost.cost_table(pd.DataFrame({"model": ["TAN"]})), "run_cost_study"),
    ],
    ids=["repeated_evaluation with 1 fold", "comparison_table", "cost_table"],
)  # fmt: skip
def test_the_study_helpers_name_a_table_of_another_shape(call, match):
    with pytest.raises(ValueError, match=match):  # before: a KeyError or sklearn's message
        call()


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: data.kind_of(None), "spec must be"),
        (lambda: data.take_rows(_table(), Y, np.ones(3, dtype=bool)), "keep must be"),
        (lambda: data.identifier_columns(_table(), n_distinct=-1), "n_distinct"),
        (lambda: data.learn_categories(pd.Series([[1], [2]], name="c")), "Column 'c'"),
        (lambda: stats.class_counts(np.array([0, 5]), 2), "class codes"),
        (lambda: stats.family_counts(np.zeros((2, 2)), np.zeros(2), 0, [5], [1, 1], 1), "parents"),
    ],
)
def test_the_data_and_statistics_functions_name_a_bad_argument(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_kind_of_takes_a_kind_name():
    assert data.kind_of("gaussian").name == "gaussian"


def test_posteriors_name_a_grid_of_words(densities):
    from bnclassify.inference import posteriors

    model = bnc.TAN().fit(_table(), Y)
    with pytest.raises(ValueError, match=r"grid\['g'\]"):
        posteriors(model, grid={"g": ["a"]})


def test_a_row_impossible_only_as_a_whole_names_each_far_cell():
    # NaiveBayes(kde) with every cell at 1e300: no single cell explains the row (each left
    # out leaves two impossible ones), so the error names each cell impossible on its own
    import numpy as np
    import pandas as pd

    from bnclassify import NaiveBayes

    rng = np.random.default_rng(0)
    X = pd.DataFrame({c: rng.normal(size=60) for c in "sgh"})
    model = NaiveBayes(distributions="kde").fit(X, rng.choice(["u", "v"], 60))
    with pytest.raises(ValueError, match=r"column 's' \(1e\+300\), column 'g' .* each have"):
        model.predict_proba(pd.DataFrame([{"s": 1e300, "g": 1e300, "h": 1e300}]))
    with pytest.raises(ValueError, match=r"column 'g' \(1.79.*\) alone"):  # no overflow warning
        model.predict_proba(pd.DataFrame([{"s": 0.0, "g": np.finfo(float).max, "h": 0.0}]))
