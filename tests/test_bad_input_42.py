"""What issue 42's widened bad-input campaign found, each on a small input made from its case.

Every test here failed before its fix (a crash from deep inside, an unnamed error, a
numpy RuntimeWarning reaching the caller, or a silent acceptance); the suite runs with
warnings as errors, so a leaked warning fails it.
"""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import bnclassify as bnc  # noqa: E402
from bnclassify import data, metrics, plotting  # noqa: E402
from bnclassify.exceptions import InvalidParameterError  # noqa: E402
from bnclassify.preprocessing import MDLDiscretizer, mdl_cut_points  # noqa: E402
from bnclassify.study.cli import _columns_line  # noqa: E402
from bnclassify.study.csv_tables import decimal_comma_columns  # noqa: E402
from bnclassify.validation import float_array  # noqa: E402

N = 40
Y = np.resize(np.array(["p", "q"]), N)
FEATURES = list("abcd")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def tan():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({c: rng.choice(list("xyz"), N) for c in FEATURES})
    return bnc.TAN().fit(X, Y), X


def _drawn(obj):
    figure = obj if isinstance(obj, plt.Figure) else obj.figure
    figure.canvas.draw()  # warnings of the drawing itself are raised here
    return figure


def _square(values):
    return pd.DataFrame(values, index=FEATURES, columns=FEATURES)


# -- number formats ---------------------------------------------------------------------------
@pytest.mark.parametrize("spec", [3, "%q", ".2z", "{:.2f}", "%.2f", b".2f", "d", [".2f"]])
def test_a_format_spec_that_formats_no_number_is_refused_up_front(tan, spec):
    model, _ = tan
    with pytest.raises(InvalidParameterError, match="weight_format must be None or a format"):
        plotting.plot_structure(model, weight_format=spec)
    with pytest.raises(InvalidParameterError, match="fmt must be None or a format spec"):
        plotting.plot_weights(model, fmt=spec)


def test_a_format_spec_is_applied(tan):
    model, _ = tan
    ax = plotting.plot_weights(model, fmt=".1e")
    assert all("e-" in t.get_text() or "e+" in t.get_text() for t in ax.texts)


# -- weights of every dtype and size ------------------------------------------------------------
@pytest.mark.parametrize(
    "weights, error",
    [
        (_square(np.full((4, 4), "w", dtype=object)), "weights must hold real numbers"),
        (_square(np.full((4, 4), 0.5 + 1j)), "complex values"),
        ({frozenset("ab"): "strong"}, "weights must hold real numbers"),
        ({frozenset("ab"): 2 + 1j}, "complex values"),
    ],
    ids=["strings", "complex", "a dict of strings", "a dict of complex"],
)
def test_structure_weights_that_are_not_real_numbers_are_named(tan, weights, error):
    model, _ = tan
    with pytest.raises(InvalidParameterError, match=error):
        plotting.plot_structure(model, weights=weights)


def test_a_graph_with_text_weights_names_its_weight_attributes():
    graph = nx.Graph()
    graph.add_weighted_edges_from([("a", "b", "x"), ("b", "c", "y")])
    with pytest.raises(InvalidParameterError, match="the graph's 'weight' attributes"):
        plotting.plot_structure(graph)


@pytest.mark.parametrize("value", [1e308, np.finfo(float).max, np.inf, 5e-324])
def test_huge_tiny_and_infinite_weights_draw_without_a_warning(tan, value):
    model, _ = tan
    weights = _square(np.full((4, 4), value))
    _drawn(plotting.plot_structure(model, weights=weights))
    ax = plotting.plot_weights(weights)
    _drawn(ax)
    if np.isfinite(value) and value > 1:
        label = ax.figure.axes[-1].get_ylabel()  # the colour bar's
        assert "× 1e308" in label
        assert all(len(t.get_text()) < 12 for t in ax.texts)  # "1.8e+308", not 309 digits


def test_edge_widths_keep_their_order_at_the_float_maximum(tan):
    model, _ = tan
    big = _square(np.full((4, 4), 1e308))
    ax = plotting.plot_structure(model, weights=big * np.array([0.5, 1.0, 1.5, 1.7]))
    widths = [
        p.get_linewidth() for p in ax.patches if getattr(p, "bnclassify_role", "") == "feature"
    ]
    assert np.isfinite(widths).all() and max(widths) <= 5.5


# -- the tree comparison ------------------------------------------------------------------------
def test_contact_values_that_are_not_numbers_are_named(tan):
    model, X = tan
    simpler = bnc.SimplerTAN(_square(np.ones((4, 4)))).fit(X, Y)
    with pytest.raises(InvalidParameterError, match="contact_matrix must hold real numbers"):
        plotting.plot_tree_comparison(model, simpler, _square(np.full((4, 4), "x")))
    with pytest.raises(InvalidParameterError, match="edge_support must hold real numbers"):
        plotting.plot_tree_comparison(model, simpler, edge_support=_square(np.ones((4, 4)) + 1j))


def test_contact_labels_are_matched_to_the_features_as_text():
    X = pd.DataFrame(np.random.default_rng(0).integers(0, 3, (N, 4)))  # integer labels 0..3
    tan = bnc.TAN().fit(X, Y)
    contacts = pd.DataFrame(np.ones((4, 4)) - np.eye(4), index=list("0123"), columns=list("0123"))
    simpler = bnc.SimplerTAN(contacts).fit(X, Y)
    fig = plotting.plot_tree_comparison(tan, simpler, contacts)
    assert fig.edge_tables["a"]["contacts"].notna().all()  # found, not left blank
    with pytest.raises(ValueError, match="contact_matrix has no row or column for"):
        plotting.plot_tree_comparison(tan, simpler, contacts.set_axis(list("wxyz"), axis=0))


@pytest.mark.parametrize("kwargs", [{"n_permutations": 1.5}, {"random_state": "x"}])
def test_permutation_options_are_named(tan, kwargs):
    model, _ = tan
    with pytest.raises(InvalidParameterError, match=list(kwargs)[0]):
        plotting.shared_edges_permutation_pvalue(model, model, **kwargs)


def test_permutations_drawn_in_blocks_are_the_draws_of_one_block(tan, monkeypatch):
    from bnclassify.plotting import _trees

    model, X = tan
    simpler = bnc.SimplerTAN(_square(np.ones((4, 4)))).fit(X, Y)
    whole = plotting.shared_edges_permutation_pvalue(model, simpler, n_permutations=999)
    monkeypatch.setattr(_trees, "PERMUTATION_CELLS", 40)
    assert plotting.shared_edges_permutation_pvalue(model, simpler, n_permutations=999) == whole


# -- CV tables ----------------------------------------------------------------------------------
def _folds(models=("NB", "TAN"), **changes):
    rows = [
        {"model": m, "fold": f, "n_train": 36, "n_test": 4, "accuracy": 0.7 + 0.01 * f + k / 20}
        for k, m in enumerate(models)
        for f in range(5)
    ]
    return pd.DataFrame(rows).assign(**changes)


def test_differences_to_a_baseline_need_another_model():
    assert list(plotting.cv_differences(_folds(("NB",)), ["accuracy"]).columns)[:3] == [
        "dataset",
        "metric",
        "model",
    ]
    with pytest.raises(ValueError, match="no model to compare with baseline 'NB'"):
        plotting.plot_cv_results(_folds(("NB",)), ["accuracy"], baseline="NB")
    _drawn(plotting.plot_cv_results(_folds(), ["accuracy"], baseline="NB"))


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"metrics": "accuracy"}, "metrics must be a sequence of column names"),
        ({"metrics": ()}, "metrics is empty"),
        ({"results": _folds(accuracy="0.5")}, r"results\['accuracy'\] must hold real numbers"),
        ({"results": _folds(accuracy=0.5 + 1j)}, "complex values"),
        ({"results": _folds(accuracy=1e308)}, "beyond 1e\\+300"),
        ({"results": _folds().iloc[:0]}, "results has no rows"),
        ({"baseline": "NB", "confidence": 1.5}, "confidence must be"),
    ],
    ids=["a string", "no metric", "text", "complex", "1e308", "no row", "confidence"],
)
def test_cv_tables_and_options_are_named(kwargs, error):
    kwargs = {"results": _folds(), "metrics": ["accuracy"], **kwargs}
    with pytest.raises(ValueError, match=error):
        plotting.plot_cv_results(**kwargs)


# -- signal subgraphs ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def signal_model():
    from bnclassify.datasets import make_signal_subgraph_networks

    networks, labels = make_signal_subgraph_networks(40, 8, n_signal_edges=3, random_state=0)
    return bnc.SignalSubgraphClassifier(n_edges=3).fit(networks, labels)


@pytest.mark.parametrize(
    "edges", ["x", [1, 2, 3], np.ones((3, 3)), [("a", "b")], 5, [(1.5, 2)], [(0,)], [(0, 9)]]
)
def test_true_edges_that_are_not_vertex_pairs_are_named(signal_model, edges):
    with pytest.raises((ValueError, TypeError), match="true_edges"):
        plotting.plot_signal_edges(signal_model, true_edges=edges)


def test_true_edges_of_integer_valued_floats_are_vertex_pairs(signal_model):
    ax = plotting.plot_signal_edges(signal_model, true_edges=np.array([[0.0, 1.0]]))
    assert ax.recovered in (0, 1)


@pytest.mark.parametrize("p", [np.full((2, 8, 8), "x"), np.full((2, 8, 8), 0.5 + 1j), 1.5])
def test_true_probabilities_that_are_not_probabilities_are_named(signal_model, p):
    p = np.full((2, 8, 8), p) if np.ndim(p) == 0 else p
    with pytest.raises(ValueError, match="true_probabilities"):
        plotting.plot_signal_edge_probabilities(signal_model, true_probabilities=p)


# -- the decision boundary ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def plane():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(N, 2)), columns=["x0", "x1"])
    X["x0"] += np.resize([0.0, 2.0], N)
    return bnc.NaiveBayes().fit(X, Y), X


@pytest.mark.parametrize(
    "kwargs", [{"proba_levels": ("x",)}, {"proba_levels": 0.5}, {"proba_levels": (1.5,)}]
)
def test_probability_levels_are_named(plane, kwargs):
    model, X = plane
    with pytest.raises(InvalidParameterError, match="proba_levels"):
        plotting.plot_decision_boundary(model, X, Y, **kwargs)


def test_a_margin_beyond_the_float_range_is_named(plane):
    model, X = plane
    with pytest.raises(ValueError, match="margin=1e\\+308 takes the plane of 'x0'"):
        plotting.plot_decision_boundary(model, X, Y, margin=1e308)
    _drawn(plotting.plot_decision_boundary(model, X, Y, proba_levels=(0.5, 0.5, 0.9)))


# -- other plot options -------------------------------------------------------------------------
def test_colour_maps_and_font_sizes_are_checked_up_front(tan):
    model, _ = tan
    with pytest.raises(InvalidParameterError, match="cmap must be a matplotlib colour map"):
        plotting.plot_weights(model, cmap="nope")
    with pytest.raises(InvalidParameterError, match="cmap must be a matplotlib colour map"):
        plotting.plot_cpt(model, "a", cmap="nope")
    for plot in (plotting.plot_structure, plotting.plot_weights):
        with pytest.raises(InvalidParameterError, match="fontsize must be"):
            plot(model, fontsize=1e308)
    with pytest.raises(TypeError, match="drawn_edges reads a matplotlib Figure or Axes"):
        plotting.drawn_edges(None)


# -- metrics --------------------------------------------------------------------------------------
@pytest.mark.parametrize("classes", ["p", 3, np.array("p"), {"p", "q"}, {"p": 0, "q": 1}])
def test_classes_that_are_not_a_sequence_of_labels_are_named(classes):
    proba = np.full((N, 2), 0.5)
    with pytest.raises(InvalidParameterError, match="classes must be a 1-D sequence of labels"):
        metrics.conditional_log_likelihood(Y, proba, classes=classes)


def test_complex_probabilities_and_scores_are_named():
    with pytest.raises(InvalidParameterError, match="proba must hold real numbers"):
        metrics.conditional_log_likelihood(Y, np.full((N, 2), 0.5 + 0j))
    with pytest.raises(InvalidParameterError, match="a \\(one score per fold\\) must hold real"):
        metrics.corrected_resampled_ttest(np.ones(5) + 1j, np.ones(5), 90, 10)
    with pytest.raises(InvalidParameterError, match="n_train must be"):
        metrics.corrected_resampled_ttest(np.arange(5.0), np.ones(5), "90", 10)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"cll_base": 1}, "cll_base"),
        ({"cll_base": 0.5}, "cll_base"),
        ({"cll_reduce": "x"}, "cll_reduce"),
        ({"cv": 10**6}, "cv cannot split these 40 rows"),
    ],
)
def test_evaluate_names_its_options(kwargs, name):
    X = pd.DataFrame({"s": np.resize(list("abc"), N)})
    with pytest.raises(ValueError, match=name):
        metrics.evaluate(bnc.NaiveBayes(), X, Y, progress=False, **kwargs)


@pytest.mark.parametrize("kwargs", [{"random_state": "x"}, {"random_state": -1}, {"stratified": 1}])
def test_study_cv_names_its_options(kwargs):
    with pytest.raises(InvalidParameterError, match=list(kwargs)[0]):
        metrics.study_cv(**kwargs)


def test_summaries_name_scores_that_cannot_be_averaged():
    with pytest.raises(ValueError, match="folds has no metric column"):
        metrics.summarize(pd.DataFrame({"model": ["a", "b"]}))
    with pytest.raises(InvalidParameterError, match="complex values"):
        metrics.summarize(pd.DataFrame({"model": ["a", "b"], "accuracy": [0.5 + 1j, 0.7]}))


def test_evaluate_fits_fold_by_fold_and_returns_model_by_model():
    X = pd.DataFrame({"s": np.resize(list("abc"), N)})
    folds, _ = metrics.evaluate([bnc.NaiveBayes(), bnc.TAN()], X, Y, cv=3, progress=False)
    assert folds["model"].tolist() == ["NaiveBayes"] * 3 + ["TAN"] * 3
    assert folds["fold"].tolist() == [0, 1, 2] * 2


# -- preprocessing --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def numbers():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=N) + np.resize([0.0, 3.0], N), "b": rng.normal(size=N)})
    with pytest.warns(UserWarning, match="no cut point"):
        return MDLDiscretizer().fit(X, Y), X


@pytest.mark.parametrize(
    "change, example",
    [
        (lambda X: X.assign(a="x"), "'x'"),
        (lambda X: X.assign(a=X["a"].map(str)), "'"),
        (lambda X: X.assign(a=X["a"] + 1j), "complex"),
        (lambda X: X.assign(a=pd.date_range("2020", periods=N)), "Timestamp"),
    ],
    ids=["strings", "numbers as text", "complex", "dates"],
)
def test_mdl_transform_names_a_column_of_other_values(numbers, change, example):
    model, X = numbers
    with pytest.raises(ValueError, match=f"Column 'a' was numbers in fit.*{example}"):
        model.transform(change(X))


def test_mdl_transform_names_columns_it_was_not_fitted_on(numbers):
    model, X = numbers
    with pytest.raises(ValueError, match=r"missing \['a', 'b'\], unexpected \['x', 'y'\]"):
        model.transform(X.set_axis(["x", "y"], axis=1))
    np.testing.assert_array_equal(model.transform(X.to_numpy()), model.transform(X))


@pytest.mark.parametrize(
    "x, y, name",
    [
        (np.array(["a", "b"] * 20), Y, "x must hold real numbers"),
        (np.arange(N) + 1j, Y, "complex"),
        (np.zeros((N, 2)), Y, "x must be one column"),
        (np.arange(N, dtype=float), Y[:5], "y must hold one label per value"),
        (np.r_[np.nan, np.arange(N - 1.0)], Y, "x must be finite"),
    ],
)
def test_mdl_cut_points_name_their_arguments(x, y, name):
    with pytest.raises(ValueError, match=name):
        mdl_cut_points(x, y)


# -- estimator parameters -------------------------------------------------------------------------
@pytest.mark.parametrize("maker", [bnc.AODE, bnc.SPODE, bnc.NaiveBayes, bnc.ESKDB])
def test_alpha_beyond_its_bound_is_refused_with_the_bound(maker):
    X = pd.DataFrame({c: np.resize(list("xyz"), N) for c in "ab"})
    with pytest.raises(InvalidParameterError, match="alpha=1e\\+308 is more than 1e\\+300"):
        maker(alpha=1e308).fit(X, Y)


@pytest.mark.parametrize("maker", [bnc.AODE, bnc.SPODE, bnc.SimplerTAN, bnc.NaiveBayes, bnc.KDB])
@pytest.mark.parametrize("alpha", [1e300, 5e-324])
def test_alpha_at_the_ends_of_its_range_gives_finite_probabilities(maker, alpha):
    rng = np.random.default_rng(1)
    X = pd.DataFrame({c: rng.choice(list("xyz"), N) for c in "abc"})
    model = (
        maker(
            _square(np.ones((4, 4)))
            .iloc[:3, :3]
            .set_axis(list("abc"), axis=0)
            .set_axis(list("abc"), axis=1),
            alpha=alpha,
        )
        if maker is bnc.SimplerTAN
        else maker(alpha=alpha)
    )
    proba = model.fit(X, Y).predict_proba(X)
    assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1.0)


def test_weightings_that_take_logs_of_probabilities_need_a_positive_alpha():
    X = pd.DataFrame({c: np.resize(list("xyz"), N) for c in "ab"})
    for weighting in ("wanbia", "manb"):
        with pytest.raises(InvalidParameterError, match=f"weighting='{weighting}' needs alpha > 0"):
            bnc.NaiveBayes(weighting=weighting, alpha=0.0).fit(X, Y)


def test_a_super_parent_of_one_state_is_said():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"f": rng.normal(size=200), "s": rng.choice(list("ab"), 200)})
    y = np.resize(Y, 200)
    with pytest.warns(UserWarning, match="superparent 'f' has a single state.*no cut point"):
        bnc.SPODE(superparent="f").fit(X, y)
    with pytest.warns(UserWarning, match="superparent 'f' has a single state"):
        bnc.SPODE(superparent="f").fit(X.assign(f="k"), y)


# -- the data layer's column checks, a block of columns at a time --------------------------------
def test_identifier_and_row_number_columns_of_a_wide_table_match_a_column_by_column_count():
    rng = np.random.default_rng(0)
    n = 30
    columns = {f"c{j}": rng.choice(list("abc"), n) for j in range(50)}
    columns["id"] = [f"r{i}" for i in range(n)]
    columns["half"] = [f"r{i // 2}" for i in range(n)]
    columns["numbers as text"] = [str(i) for i in range(n)]
    columns["with missing"] = [f"r{i}" if i % 10 else None for i in range(n)]
    columns["row"] = np.arange(n)
    columns["row from 1"] = np.arange(1, n + 1, dtype=np.uint16)
    columns["almost"] = np.r_[np.arange(n - 1), 0]
    columns["Int64 row"] = pd.array(np.arange(n), dtype="Int64")
    frame = pd.DataFrame(columns)
    assert list(data.identifier_columns(frame)) == ["id", "with missing"]
    assert data.row_number_columns(frame) == ["row", "row from 1", "Int64 row"]
    counts = {c: frame[c].nunique() for c in ("id", "with missing")}
    reasons = data.identifier_columns(frame)
    assert f"{counts['with missing']} distinct values in 27 rows" in reasons["with missing"]


def test_decimal_comma_columns_of_a_wide_table():
    frame = pd.DataFrame({f"c{j}": ["x", "y"] * 5 for j in range(60)})
    frame["price"] = ["3,5", "12,25", None, "1.000,5", "0,1"] * 2
    frame["mixed"] = ["3,5", "x"] * 5
    assert decimal_comma_columns(frame) == ["price"]


def test_the_columns_line_of_a_wide_table_counts_the_kinds():
    line = _columns_line([f"f{j}" for j in range(5000)], ["categorical"] * 4999 + ["binned"])
    assert line.startswith("columns: 5,000 (4,999 categorical, 1 binned): f0 (categorical)")
    assert line.endswith("..., f4999 (binned)") and len(line) < 200


def test_float_array_takes_real_numbers_only():
    np.testing.assert_array_equal(float_array(pd.array([1, None], dtype="Int64"), "w"), [1, np.nan])
    with pytest.raises(InvalidParameterError, match="w must hold real numbers, got values"):
        float_array(["1.5"], "w")
