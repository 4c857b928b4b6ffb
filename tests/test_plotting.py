"""bnclassify.plotting on real fitted models: what is drawn is what the model holds."""

import matplotlib

matplotlib.use("Agg")

import itertools  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.colors import same_color  # noqa: E402

from bnclassify import TAN, NaiveBayes, SimplerTAN  # noqa: E402
from bnclassify.datasets import load_car, load_lactamase, load_p450  # noqa: E402
from bnclassify.plotting import (  # noqa: E402
    SHARED_COLOR,
    TREE_A_COLOR,
    TREE_B_COLOR,
    drawn_edges,
    plot_cpt,
    plot_cv_results,
    plot_structure,
    plot_tree_comparison,
    plot_weights,
)
from bnclassify.structure import tree_from_weights  # noqa: E402


@pytest.fixture(autouse=True)
def _no_show(monkeypatch):
    def show(*args, **kwargs):
        raise AssertionError("plotting functions must never call plt.show()")

    monkeypatch.setattr(plt, "show", show)


def _fit_all(bunch):
    X, y = bunch.data, bunch.target
    return {
        "nb": NaiveBayes().fit(X, y),
        "tan": TAN(criterion="loglik").fit(X, y),
        "stan": SimplerTAN(bunch.contact_matrix).fit(X, y),
    }


@pytest.fixture(scope="module")
def p450():
    bunch = load_p450()
    return bunch, _fit_all(bunch)


@pytest.fixture(scope="module")
def lactamase():
    bunch = load_lactamase()
    return bunch, _fit_all(bunch)


def _feature_edges(model):
    c = model.class_node_
    return {(u, v) for u, v in model.structure_.edges if c not in (u, v)}


def _undirected(edges):
    return {frozenset(e) for e in edges}


def _save_png(fig, path):
    fig.savefig(path, dpi=60)
    image = plt.imread(path)
    assert image.ndim == 3 and image.shape[0] > 50 and image.shape[1] > 50
    # not a blank canvas: some pixels differ from the background
    assert np.ptp(image[..., :3]) > 0.5


# -- plot_structure -----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["nb", "tan", "stan"])
@pytest.mark.parametrize("data", ["p450", "lactamase"])
def test_structure_draws_exactly_the_models_edges(name, data, request, tmp_path):
    _, models = request.getfixturevalue(data)
    model = models[name]
    ax = plot_structure(model)
    assert isinstance(ax, plt.Axes)
    assert set(drawn_edges(ax, role="feature")) == _feature_edges(model)
    class_arcs = set(drawn_edges(ax, role="class"))
    assert class_arcs == {(model.class_node_, f) for f in model.feature_names_}
    assert len(drawn_edges(ax)) == model.structure_.number_of_edges()
    _save_png(ax.figure, tmp_path / f"{data}_{name}.png")


def test_structure_edge_width_grows_with_weight(p450):
    _, models = p450
    for model in (models["tan"], models["stan"]):
        ax = plot_structure(model)
        arrows = [a for a in ax.patches if getattr(a, "bnclassify_role", None) == "feature"]
        weights = [model.weights_.loc[u, v] for u, v in (a.bnclassify_edge for a in arrows)]
        widths = [a.get_linewidth() for a in arrows]
        order = np.argsort(weights, kind="stable")
        assert np.all(np.diff(np.asarray(widths)[order]) >= 0)
        assert max(widths) > 2 * min(widths)


def test_structure_tree_is_laid_out_from_its_root(p450):
    _, models = p450
    model = models["tan"]
    ax = plot_structure(model)
    texts = {t.bnclassify_node: t.get_position() for t in ax.texts if hasattr(t, "bnclassify_node")}
    assert set(texts) == set(model.structure_.nodes)
    depth = nx.shortest_path_length(model.structure_.subgraph(model.feature_names_), "block1")
    for node, d in depth.items():  # one row per depth, root on top, class above the root
        assert texts[node][1] == pytest.approx(-d)
    assert texts[model.class_node_][1] > texts["block1"][1]
    for u, v in _feature_edges(model):  # every edge points down one row
        assert texts[u][1] - texts[v][1] == pytest.approx(1)


def _node_boxes(ax):
    return {
        t.bnclassify_node: t.get_bbox_patch().get_window_extent()
        for t in ax.texts
        if hasattr(t, "bnclassify_node")
    }


def _densify(points, n=25):
    """Points every 1/n of the way along each segment of a polyline."""
    t = np.linspace(0, 1, n)[:, None, None]
    return (points[:-1] + t * (points[1:] - points[:-1])).reshape(-1, 2)


def _assert_readable(ax):
    """No drawn edge crosses a node box other than its own two; no label overlaps another."""
    boxes = _node_boxes(ax)
    for arrow in ax.patches:
        edge = getattr(arrow, "bnclassify_edge", None)
        if edge is None:
            continue
        path = arrow.get_transform().transform_path(arrow.get_path())
        points = _densify(np.concatenate(path.to_polygons(closed_only=False)))
        for node, box in boxes.items():
            if node in edge:
                continue
            inside = (
                (points[:, 0] > box.x0)
                & (points[:, 0] < box.x1)
                & (points[:, 1] > box.y0)
                & (points[:, 1] < box.y1)
            )
            assert not inside.any(), f"{edge} passes through {node}"
    labels = [t.get_bbox_patch().get_window_extent() for t in ax.texts if t.get_bbox_patch()]
    for a, b in itertools.combinations(labels, 2):
        assert not a.overlaps(b), "two labels overlap"


@pytest.mark.parametrize("data", ["p450", "lactamase"])
def test_no_edge_passes_through_another_node(data, request):
    """Read back the drawn curves and labels, at the figures' final layout."""
    _, models = request.getfixturevalue(data)
    fig = plot_tree_comparison(models["tan"], models["stan"])
    fig.canvas.draw()
    for ax in fig.axes[:2]:
        _assert_readable(ax)
    for name in ("nb", "tan", "stan"):
        ax = plot_structure(models[name])
        ax.figure.canvas.draw()
        _assert_readable(ax)


def test_multi_parent_dag_is_drawn_exactly_and_readably(p450):
    """k-dependence Bayes: features with two feature parents, edges that skip rows."""
    from bnclassify import KDB

    bunch, _ = p450
    model = KDB(k=2).fit(bunch.data, bunch.target)
    assert any(len(list(model.structure_.predecessors(f))) == 3 for f in model.feature_names_)
    ax = plot_structure(model)
    assert set(drawn_edges(ax)) == set(model.structure_.edges)
    ax.figure.canvas.draw()
    _assert_readable(ax)


def test_narrow_deep_tree_is_readable():
    """Quinlan's weather data: the class arc to humidity must go round temperature."""
    X = pd.DataFrame(
        {
            "outlook": list("ssorrrossrsoor"),
            "temperature": list("hhhmcccmcmmmhm"),
            "humidity": list("hhhhnnnhnnnhnh"),
            "windy": list("nynnnyynnnyyny"),
        }
    )
    y = pd.Series(list("nnyyynynyyyyyn"), name="play")
    model = TAN().fit(X, y)
    ax = plot_structure(model)
    ax.figure.canvas.draw()
    _assert_readable(ax)


def test_structure_of_graphs():
    tree = tree_from_weights(np.array([[0, 3, 1, 0], [3, 0, 2, 1], [1, 2, 0, 5], [0, 1, 5, 0]]))
    ax = plot_structure(tree, root=1)
    assert _undirected(drawn_edges(ax)) == _undirected(tree.edges)
    assert all(a.get_arrowstyle().__class__.__name__ == "Curve" for a in ax.patches)

    dag = nx.DiGraph([("y", "a"), ("y", "b"), ("y", "c"), ("a", "b"), ("a", "c"), ("b", "c")])
    ax = plot_structure(dag)  # a k-dependence DAG (c has two feature parents); class guessed
    assert set(drawn_edges(ax, role="class")) == {("y", "a"), ("y", "b"), ("y", "c")}
    assert set(drawn_edges(ax, role="feature")) == {("a", "b"), ("a", "c"), ("b", "c")}
    ax = plot_structure(dag, class_node=False)
    assert set(drawn_edges(ax, role="feature")) == set(dag.edges)


def test_structure_on_given_axes_with_weights_from_edges(tmp_path):
    graph = nx.DiGraph()
    graph.add_edge("C", "a")
    graph.add_edge("C", "b")
    graph.add_edge("a", "b", weight=0.25)
    fig, ax = plt.subplots()
    assert plot_structure(graph, ax=ax, class_node="C") is ax
    labels = {t.get_text() for t in ax.texts}
    assert "0.250" in labels  # 3 significant digits, as every edge label
    _save_png(fig, tmp_path / "small.png")


def test_structure_errors(p450):
    with pytest.raises(ValueError, match="not fitted"):
        plot_structure(TAN())
    with pytest.raises(TypeError, match="networkx graph"):
        plot_structure(np.eye(3))
    with pytest.raises(ValueError, match="'z' is not a node"):
        plot_structure(nx.DiGraph([("a", "b")]), class_node="z")


# -- plot_tree_comparison ------------------------------------------------------------------------
@pytest.mark.parametrize("data", ["p450", "lactamase"])
def test_tree_comparison(data, request, tmp_path):
    bunch, models = request.getfixturevalue(data)
    tan, stan = models["tan"], models["stan"]
    fig = plot_tree_comparison(tan, stan, bunch.contact_matrix, labels=("TAN", "STAN"))
    ax_a, ax_b, ax_m = fig.axes[:3]
    assert set(drawn_edges(ax_a)) == set(tan.structure_.edges)
    assert set(drawn_edges(ax_b)) == set(stan.structure_.edges)

    shared = _undirected(_feature_edges(tan)) & _undirected(_feature_edges(stan))
    assert fig.shared_edges == sorted(tuple(sorted(e)) for e in shared)
    assert f"{len(shared)} of 7 tree edges shared" in fig._suptitle.get_text()

    # shared edges are vermillion in both trees, the others in each tree's own colour
    for ax, own in ((ax_a, TREE_A_COLOR), (ax_b, TREE_B_COLOR)):
        for arrow in ax.patches:
            if getattr(arrow, "bnclassify_role", None) == "feature":
                expected = SHARED_COLOR if frozenset(arrow.bnclassify_edge) in shared else own
                assert same_color(arrow.get_edgecolor(), expected)

    # the heatmap marks TAN's edges in the upper triangle, Simpler TAN's in the lower one
    names = list(bunch.contact_matrix.index)
    for role, model, upper in (("matrix-a", tan, True), ("matrix-b", stan, False)):
        marks = [p for p in ax_m.patches if getattr(p, "bnclassify_role", None) == role]
        assert _undirected(p.bnclassify_edge for p in marks) == _undirected(_feature_edges(model))
        for mark in marks:
            u, v = mark.bnclassify_edge
            row, col = round(mark.get_y() + 0.5), round(mark.get_x() + 0.5)
            assert {names[row], names[col]} == {u, v}
            assert (row < col) == upper
            shared_mark = frozenset((u, v)) in shared
            assert same_color(mark.get_edgecolor(), SHARED_COLOR) == shared_mark
    _save_png(fig, tmp_path / f"{data}_comparison.png")


def test_tree_comparison_defaults_to_model_b_weights(p450):
    _, models = p450
    fig = plot_tree_comparison(models["tan"], models["stan"])
    image = fig.axes[2].images[0].get_array()
    off_diagonal = ~np.eye(8, dtype=bool)
    np.testing.assert_array_equal(
        image[off_diagonal], models["stan"].weights_.to_numpy()[off_diagonal]
    )
    with pytest.raises(ValueError, match="contact_matrix"):
        plot_tree_comparison(models["tan"], models["nb"])


# -- plot_weights ----------------------------------------------------------------------------------
def test_weights_heatmap(p450, tmp_path):
    bunch, models = p450
    ax = plot_weights(models["tan"])
    image = ax.images[0].get_array()
    cmi = models["tan"].weights_.to_numpy()
    assert image.mask.diagonal().all() and not image.mask[~np.eye(8, dtype=bool)].any()
    np.testing.assert_allclose(image[~image.mask], cmi[~np.eye(8, dtype=bool)])
    assert [t.get_text() for t in ax.get_yticklabels()] == models["tan"].feature_names_
    cell_texts = [t for t in ax.texts if t.get_text()]
    assert len(cell_texts) == 8 * 7
    _save_png(ax.figure, tmp_path / "cmi.png")

    ax = plot_weights(bunch.contact_matrix, diagonal=True, annotate=False, colorbar=False)
    np.testing.assert_array_equal(ax.images[0].get_array(), bunch.contact_matrix.to_numpy())
    assert not ax.texts

    with pytest.raises(ValueError, match="no weights_"):
        plot_weights(models["nb"])
    with pytest.raises(ValueError, match="square"):
        plot_weights(np.zeros((2, 3)))


# -- plot_cpt ------------------------------------------------------------
@pytest.mark.parametrize(("name", "feature"), [("tan", "block7"), ("stan", 2), ("nb", "block1")])
def test_cpt_panels_equal_pgmpy_cpds(p450, name, feature, tmp_path):
    _, models = p450
    model = models[name]
    fig = plot_cpt(model, feature)
    feature = feature if isinstance(feature, str) else model.feature_names_[feature]
    cpd = model.network_.get_cpds(feature)  # the peer: pgmpy's TabularCPD of the same model
    values = cpd.get_values().T  # (class x parent configurations, states)
    n_classes = len(model.classes_)
    panels = fig.axes[:n_classes]
    for c, ax in enumerate(panels):
        shown = ax.images[0].get_array()
        block = values.reshape(n_classes, -1, values.shape[-1])[c]
        np.testing.assert_allclose(shown, block)
        np.testing.assert_allclose(shown.sum(axis=1), 1.0)
        assert ax.get_title() == f"functional = {model.classes_[c]}"
    parents = [p for p in cpd.variables[1:] if p != model.class_node_]
    assert fig._suptitle.get_text() == f"P({feature} | {', '.join(['functional', *parents])})"
    _save_png(fig, tmp_path / f"cpt_{name}.png")


def test_cpt_multiclass_and_errors(tmp_path):
    X, y = load_car(return_X_y=True)
    model = TAN().fit(X, y)
    fig = plot_cpt(model, "safety")
    assert len([ax for ax in fig.axes if ax.images]) == len(model.classes_)
    _save_png(fig, tmp_path / "car.png")
    with pytest.raises(ValueError, match="'colour'"):
        plot_cpt(model, "colour")
    with pytest.raises(ValueError, match="not fitted"):
        plot_cpt(TAN(), "safety")


# -- plot_cpt on real-valued nodes, ensembles and signal subgraphs ------------------------------
@pytest.fixture(scope="module")
def mixed():
    """Breast cancer: four float columns (Gaussian) and two bands of equal frequency (strings)."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer(as_frame=True)
    X = data.data.iloc[:, [0, 1, 4, 7, 20, 27]].copy()
    X.columns = ["radius", "texture", "smoothness", "concavity", "worst_radius", "worst_concav"]
    for column in ["worst_radius", "worst_concav"]:
        X[column] = pd.qcut(X[column], 2, labels=["low", "high"]).astype(str)
    return X, data.target.map({0: "malignant", 1: "benign"})


#: The mixed table's float columns as Gaussians (by default two of them are log-normal).
_GAUSSIAN = dict.fromkeys(["radius", "texture", "smoothness", "concavity"], "gaussian")


def _curves(ax):
    return [line for line in ax.get_lines() if len(line.get_xdata()) > 2]


def test_gaussian_node_draws_one_density_per_class_peaking_at_the_mean(mixed, tmp_path):
    X, y = mixed
    model = NaiveBayes(distributions=_GAUSSIAN).fit(X, y)
    gaussian = model.distributions_["texture"]
    fig = plot_cpt(model, "texture")
    panels = fig.axes
    assert len(panels) == len(model.classes_)
    for c, ax in enumerate(panels):
        (line,) = _curves(ax)
        x, density = line.get_xdata(), line.get_ydata()
        mean, var = gaussian.mean_[c], gaussian.var_[c]
        assert np.trapezoid(density, x) == pytest.approx(1.0, abs=1e-3)
        assert abs(x[np.argmax(density)] - mean) <= x[1] - x[0]
        assert density.max() == pytest.approx(1 / np.sqrt(2 * np.pi * var), rel=1e-3)
        assert ax.get_title() == f"target = {model.classes_[c]}"
        assert ax.get_xlabel() == "texture"
    assert fig._suptitle.get_text() == "p(texture | target)"
    _save_png(fig, tmp_path / "gaussian.png")


def test_gaussian_with_a_categorical_parent_draws_a_density_per_parent_state(mixed):
    X, y = mixed
    model = TAN(distributions=_GAUSSIAN).fit(X, y)
    gaussian = model.distributions_["radius"]
    assert gaussian.parents_ == ("worst_radius",)
    states = list(model.categories_[model.feature_names_.index("worst_radius")])
    fig = plot_cpt(model, "radius")
    for c, ax in enumerate(fig.axes[: len(model.classes_)]):
        curves = _curves(ax)
        assert [line.get_label() for line in curves] == [str(s) for s in states]
        for k, line in enumerate(curves):
            x, density = line.get_xdata(), line.get_ydata()
            assert abs(x[np.argmax(density)] - gaussian.intercept_[c, k]) <= x[1] - x[0]
            assert np.trapezoid(density, x) == pytest.approx(1.0, abs=1e-3)
    assert fig._suptitle.get_text() == "p(radius | target, worst_radius)"


def test_gaussian_with_a_gaussian_parent_draws_regression_lines_with_two_sd_bands(mixed):
    X, y = mixed
    model = TAN(distributions=_GAUSSIAN).fit(X, y)
    child = next(
        name
        for name, factor in model.distributions_.items()
        if factor.continuous and any(model.distributions_[p].continuous for p in factor.parents_)
    )
    gaussian = model.distributions_[child]
    (parent,) = gaussian.parents_
    fig = plot_cpt(model, child)
    for c, ax in enumerate(fig.axes):
        (line,) = _curves(ax)
        x, mean = line.get_xdata(), line.get_ydata()
        expected = gaussian.intercept_[c] + gaussian.coef_[c, 0] * x
        np.testing.assert_allclose(mean, expected, rtol=1e-12)
        band = ax.collections[0].get_paths()[0].vertices
        at_start = band[np.isclose(band[:, 0], x[0]), 1]
        width = at_start.max() - at_start.min()
        assert width == pytest.approx(4 * np.sqrt(gaussian.var_[c]), rel=1e-9)
        assert ax.get_xlabel() == parent
    assert fig.axes[0].get_ylabel() == f"{child} (mean +- 2 sd)"


def test_kernel_and_bernoulli_nodes(mixed):
    from bnclassify.distributions import Bernoulli

    X, y = mixed
    floats = X[["radius", "texture"]]
    kde = NaiveBayes(distributions="kde").fit(floats, y)
    for ax in plot_cpt(kde, "radius").axes:
        (line,) = _curves(ax)
        assert np.trapezoid(line.get_ydata(), line.get_xdata()) == pytest.approx(1, abs=1e-3)
    bernoulli = NaiveBayes(distributions=Bernoulli(binarize=15.0)).fit(floats, y)
    fig = plot_cpt(bernoulli, "radius")
    prob = bernoulli.distributions_["radius"].prob_
    for c, ax in enumerate(fig.axes[: len(prob)]):
        np.testing.assert_allclose(ax.images[0].get_array()[0], [1 - prob[c], prob[c]])
        assert [t.get_text() for t in ax.get_xticklabels()] == ["<= 15", "> 15"]


def test_multinomial_group_is_drawn_as_its_per_class_shares():
    X = pd.DataFrame([[2, 1, 0], [3, 0, 1], [0, 2, 2], [1, 3, 4]], columns=["w1", "w2", "w3"])
    model = NaiveBayes(distributions="multinomial").fit(X, ["a", "a", "b", "b"])
    prob = model.distributions_[("w1", "w2", "w3")].prob_
    fig = plot_cpt(model, "w2")
    for c in range(2):
        np.testing.assert_allclose(fig.axes[c].images[0].get_array()[0], prob[c])
        assert [t.get_text() for t in fig.axes[c].get_xticklabels()] == ["w1", "w2", "w3"]
    assert fig._suptitle.get_text().startswith("P(w1, w2, w3 | ")


def test_ensemble_members_are_drawn(mixed, p450):
    from bnclassify import AODE, EnsembleTAN

    X, y = mixed
    ensemble = EnsembleTAN().fit(X, y)
    for k in (0, len(ensemble.estimators_) - 1):
        member = ensemble.estimators_[k]
        ax = plot_structure(ensemble, member=k)
        assert set(drawn_edges(ax)) == set(member.structure_.edges)
        assert ax.get_title().startswith(f"EnsembleTAN member {k}")
    assert set(drawn_edges(plot_structure(ensemble))) == set(
        ensemble.estimators_[0].structure_.edges
    )
    fig = plot_cpt(ensemble, "worst_concav", member=1)
    table = ensemble.estimators_[1].distributions_["worst_concav"].table_
    for c in range(len(ensemble.classes_)):
        np.testing.assert_allclose(
            fig.axes[c].images[0].get_array(), table[c].reshape(-1, table.shape[-1])
        )
    with pytest.raises(ValueError, match="member must be"):
        plot_cpt(ensemble, "radius", member=len(ensemble.estimators_))
    with pytest.raises(ValueError, match="not fitted"):
        plot_structure(EnsembleTAN())
    bunch, _ = p450
    aode = AODE().fit(bunch.data, bunch.target)
    ax = plot_structure(aode, member=2)
    assert set(drawn_edges(ax)) == set(aode.estimators_[2].structure_.edges)


def test_eskdb_is_drawn_as_its_members_arcs_or_one_member(mixed):
    # not silently member 0: by default the arcs of every member, labelled with their share
    # (arcs of two members may run both ways); member=k draws that member
    from bnclassify import ESKDB

    X, y = mixed
    model = ESKDB(n_estimators=4, k=2, random_state=0).fit(X.iloc[:, :5], y)
    arcs = model.structure_
    assert any(arcs.has_edge(v, u) for u, v in arcs.edges)  # not a DAG, drawn all the same
    ax = plot_structure(model)
    assert set(drawn_edges(ax)) == set(arcs.edges)
    assert ax.get_title() == "ESKDB: the arcs of its 4 members (share of members)"
    ax = plot_structure(model, member=3)
    assert set(drawn_edges(ax)) == set(model.estimators_[3].structure_.edges)
    assert ax.get_title().startswith("ESKDB member 3")


def test_signal_subgraph_classifier_is_drawn_as_naive_bayes_over_its_edges():
    from bnclassify import SignalSubgraphClassifier
    from bnclassify.datasets import make_signal_subgraph_networks

    X, y = make_signal_subgraph_networks(120, 10, n_signal_edges=4, random_state=0)
    model = SignalSubgraphClassifier(n_edges=4).fit(X, y)
    names = [f"{i}-{j}" for i, j in model.signal_edges_]
    ax = plot_structure(model)
    assert sorted(drawn_edges(ax, role="class")) == sorted(("y", n) for n in names)
    assert drawn_edges(ax, role="feature") == []
    i, j = model.signal_edges_[0]
    fig = plot_cpt(model, names[0])
    for c in range(len(model.classes_)):
        p = model.edge_prob_[c, i, j]
        np.testing.assert_allclose(fig.axes[c].images[0].get_array()[0], [1 - p, p])
    assert fig._suptitle.get_text() == f"P({names[0]} | y)"


def test_plotting_modules_import_no_estimator():
    """Plots read models by their fitted attributes (duck typing), never by class."""
    import ast
    from pathlib import Path

    import bnclassify

    package = Path(bnclassify.__file__).parent
    for path in (package / "plotting").glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert "classifiers" not in (node.module or ""), path.name
                assert not {a.name for a in node.names} & set(bnclassify.__all__), path.name


def test_class_densities_condition_on_the_samples_gaussian_parent(mixed):
    from bnclassify.plotting import plot_class_densities

    X, y = mixed
    model = TAN(distributions=_GAUSSIAN).fit(X, y)
    child, gaussian = next(
        (name, factor)
        for name, factor in model.distributions_.items()
        if factor.continuous and any(model.distributions_[p].continuous for p in factor.parents_)
    )
    sample = X.iloc[3]
    ax = plot_class_densities(model, child, sample=sample)
    parent = sample[gaussian.parents_[0]]
    for c, line in enumerate(ax.get_lines()[: len(model.classes_)]):
        x, density = line.get_xdata(), line.get_ydata()
        mean = gaussian.intercept_[c] + gaussian.coef_[c, 0] * parent
        assert abs(x[np.argmax(density)] - mean) <= x[1] - x[0]
        assert density.max() == pytest.approx(1 / np.sqrt(2 * np.pi * gaussian.var_[c]), rel=1e-3)


# -- plot_cv_results ------------------------------------------------------------
def _hand_results(seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for model, acc, cll in (
        ("NB", 0.81, -60.7),
        ("TAN", 0.84, -53.2),
        ("Simpler TAN", 0.84, -52.1),
    ):
        for fold in range(10):
            rows.append(
                {
                    "model": model,
                    "fold": fold,
                    "accuracy": acc + rng.normal(0, 0.03),
                    "f1_macro": acc - 0.05 + rng.normal(0, 0.03),
                    "cll": cll + rng.normal(0, 4),
                    "fit_time": abs(rng.normal(0.01, 0.002)),
                }
            )
    return pd.DataFrame(rows)


def _bars(ax):
    """(label, height, x) of every bar, and the error-bar half-lengths, read from the axes."""
    bars = []
    for container in ax.containers:
        if hasattr(container, "patches") and container.patches:
            label = container.get_label()
            segments = container.errorbar.lines[2][0].get_segments()
            for patch, segment in zip(container.patches, segments, strict=True):
                half = (segment[1][1] - segment[0][1]) / 2
                bars.append((label, patch.get_height(), patch.get_x(), half))
    return bars


def test_cv_results_bars_are_fold_means_with_sd(tmp_path):
    results = _hand_results()
    fig = plot_cv_results(results)
    score_ax, cll_ax = fig.axes
    mean = results.groupby("model").mean(numeric_only=True)
    sd = results.groupby("model").std(numeric_only=True)
    bars = _bars(score_ax)
    assert len(bars) == 3 * 2
    for label, height, x, half in bars:
        metric = "accuracy" if x < 0.5 else "f1_macro"  # first group: accuracy
        assert height == pytest.approx(mean.loc[label, metric])
        assert half == pytest.approx(sd.loc[label, metric])
    for label, height, _, half in _bars(cll_ax):
        assert height == pytest.approx(mean.loc[label, "cll"])
        assert abs(half) == pytest.approx(sd.loc[label, "cll"])
    _save_png(fig, tmp_path / "cv.png")


def test_cv_results_cll_bars_never_reach_above_zero():
    # a CLL near 0 with a large spread: mean + sd > 0, which no CLL can be
    results = _hand_results()
    results["cll"] = -np.exp(np.random.default_rng(1).normal(0.0, 1.5, len(results)))
    fig = plot_cv_results(results, metrics=("accuracy", "cll"))
    cll_ax = fig.axes[1]
    mean = results.groupby("model")["cll"].mean()
    sd = results.groupby("model")["cll"].std()
    assert (mean + sd > 0).any()  # the case the clip exists for
    for container in cll_ax.containers:
        if hasattr(container, "patches") and container.patches:
            model = container.get_label()
            (low, high), *_ = (seg[:, 1] for seg in container.errorbar.lines[2][0].get_segments())
            assert high == pytest.approx(min(mean[model] + sd[model], 0.0))
            assert low == pytest.approx(mean[model] - sd[model])  # the lower bar is the full sd
    assert "cannot exceed 0" in fig._suptitle.get_text()
    plt.close(fig)


def test_cv_interval_and_corrected_p_value_agree_on_the_study_folds():
    # the figure's interval excludes 0 exactly when the corrected test's p < 0.05
    from bnclassify.metrics import evaluate, study_cv
    from bnclassify.plotting import cv_differences
    from bnclassify.study import baseline_differences

    bunch = load_p450()
    models = {"NB": NaiveBayes(), "TAN": TAN(), "Simpler TAN": SimplerTAN(bunch.contact_matrix)}
    folds = evaluate(models, bunch.data, bunch.target, cv=study_cv(10), progress=False).folds
    intervals = cv_differences(folds, ("accuracy", "cll"), "NB").set_index(["metric", "model"])
    tests = baseline_differences(folds, "NB", ("accuracy", "cll"))
    for (metric, model), row in intervals.iterrows():
        p = tests.loc[model, (metric, "p")]
        assert row["diff"] == pytest.approx(tests.loc[model, (metric, "diff")])
        assert (row["low"] > 0 or row["high"] < 0) == (p < 0.05), (metric, model, row, p)


def test_cv_results_per_dataset_rows_and_errors(tmp_path):
    both = pd.concat(
        [_hand_results(0).assign(dataset="p450"), _hand_results(1).assign(dataset="lactamase")]
    )
    fig = plot_cv_results((both, None), metrics=("accuracy", "cll", "fit_time"))
    assert len(fig.axes) == 2 * 3  # [accuracy] [cll] [fit_time] per data set
    assert fig.axes[0].get_title() == "p450: accuracy"
    assert fig.axes[5].get_title() == "lactamase: fit time (s)"
    _save_png(fig, tmp_path / "cv_two.png")
    with pytest.raises(ValueError, match=r"\['recall_macro'\]"):
        plot_cv_results(both, metrics=("accuracy", "recall_macro"))
    with pytest.raises(TypeError, match="per-fold DataFrame"):
        plot_cv_results([1, 2, 3])


def test_cv_results_from_evaluate(tmp_path):
    """The real evaluation table of bnclassify.metrics.evaluate."""
    from sklearn.model_selection import KFold

    from bnclassify import metrics

    bunch = load_p450()
    models = {"NB": NaiveBayes(), "Simpler TAN": SimplerTAN(bunch.contact_matrix)}
    results = metrics.evaluate(models, bunch.data, bunch.target, cv=KFold(3))
    fig = plot_cv_results(results)
    heights = {label for label, *_ in _bars(fig.axes[0])}
    assert heights == set(models)
    _save_png(fig, tmp_path / "cv_evaluate.png")


def test_cv_results_give_every_model_its_own_look(tmp_path):
    # 12 models (the compare table) outnumber the palette: no two may look alike
    base = _hand_results()
    frames = []
    for k in range(12):
        part = base[base["model"] == base["model"].iloc[0]].copy()
        part["model"] = f"model {k}"
        frames.append(part)
    fig = plot_cv_results(pd.concat(frames, ignore_index=True))
    looks = {}
    for container in fig.axes[0].containers:
        if hasattr(container, "patches"):
            patch = container.patches[0]
            looks[container.get_label()] = (tuple(patch.get_facecolor()), patch.get_hatch() or "")
    assert len(looks) == 12 and len(set(looks.values())) == 12
    _save_png(fig, tmp_path / "cv12.png")


# -- issue 18: figures read at a glance ----------------------------------------------------------
def _folds_with_sizes():
    rng = np.random.default_rng(3)
    rows = []
    for model, acc, cll in (
        ("NB", 0.81, -60.7),
        ("TAN", 0.84, -53.2),
        ("Simpler TAN", 0.84, -52.1),
        ("STAN bagging", 0.845, -52.0),
        ("AODE", 0.83, -55.0),
        ("BMA TAN", 0.85, -51.0),
    ):
        for fold in range(10):
            rows.append(
                {
                    "model": model,
                    "fold": fold,
                    "n_train": 860,
                    "n_test": 95,
                    "accuracy": acc + rng.normal(0, 0.02),
                    "cll": cll + rng.normal(0, 3),
                }
            )
    return pd.DataFrame(rows)


def test_cv_results_against_a_baseline_show_corrected_intervals_by_family():
    from scipy import stats

    from bnclassify.plotting import FAMILY_COLORS, model_family

    folds = _folds_with_sizes()
    fig = plot_cv_results(folds, metrics=("accuracy", "cll"), baseline="NB")
    acc_ax, cll_ax = fig.axes[:2]
    # one interval per model but NB; the interval is the corrected resampled t one
    wide = folds.pivot(index="fold", columns="model", values="accuracy")
    d = wide["TAN"] - wide["NB"]
    half = stats.t.ppf(0.975, 9) * np.sqrt((1 / 10 + 95 / 860) * d.var(ddof=1))
    row = fig.cv_differences.query("metric == 'accuracy' and model == 'TAN'").iloc[0]
    assert row["diff"] == pytest.approx(d.mean())
    assert (row["low"], row["high"]) == pytest.approx((d.mean() - half, d.mean() + half))
    # the axis is fitted to the differences, not 0-1.1, and includes 0 (the baseline)
    lo, hi = acc_ax.get_xlim()
    assert lo <= 0 <= hi and hi - lo < 0.5
    assert acc_ax.get_yticklabels()[0].get_text() == "TAN"
    assert "NB" not in [t.get_text() for t in acc_ax.get_yticklabels()]
    # colours by family: distinct across families, shared within one
    colours = {}
    for line in acc_ax.lines:
        model = getattr(line, "bnclassify_model", None)
        if model is not None:
            assert same_color(line.get_color(), FAMILY_COLORS[model_family(model)])
            colours.setdefault(model_family(model), set()).add(line.get_color())
    assert len(colours) == 5
    assert len({next(iter(c)) for c in colours.values()}) == 5
    # labels: one precision per panel
    for ax in (acc_ax, cll_ax):
        values = [t.get_text() for t in ax.texts if t.get_text().startswith(("+", "-"))]
        assert len(values) == 5
        assert len({len(v.split(".")[1]) for v in values}) == 1
    assert all(len(t.get_text().split(".")[1]) == 3 for t in acc_ax.texts)
    assert "corrected" in fig._suptitle.get_text()
    with pytest.raises(ValueError, match="baseline"):
        plot_cv_results(folds, metrics=("accuracy",), baseline="KDB")
    with pytest.raises(ValueError, match="n_train"):
        plot_cv_results(_hand_results(), metrics=("accuracy",), baseline="NB")


def test_model_families_of_the_study_models():
    from bnclassify.plotting import model_family
    from bnclassify.study import study_models

    families = {m: model_family(m) for m in study_models(load_p450().contact_matrix)}
    assert families["NB"] == "NB"
    assert families["TAN (study's tree)"] == "TAN"
    assert families["STAN+TAN bagging (study's trees)"] == "ensemble"
    assert families["KDB (k=2)"] == families["AODE"] == "KDB/AODE"
    assert families["BMA TAN (contact prior)"] == "BMA"
    assert "other" not in families.values()


def test_weights_darker_is_stronger_robust_scale_and_tree_outlined(p450):
    from matplotlib.colors import PowerNorm, to_rgb

    bunch, models = p450
    for matrix in (models["tan"].weights_, bunch.contact_matrix):
        ax = plot_weights(matrix, gamma=0.5, outline_tree=True, colorbar_label="w")
        image = ax.images[0]
        light, dark = (sum(to_rgb(image.cmap(x))) for x in (0.0, 1.0))
        assert dark < light  # darker = stronger
        assert isinstance(image.norm, PowerNorm) and image.norm.gamma == 0.5
        assert "square-root colour scale" in ax.figure.axes[-1].get_ylabel()
        tree = {
            frozenset(e) for e in tree_from_weights(matrix.where(~np.eye(8, dtype=bool), 0)).edges
        }
        marks = [p for p in ax.patches if getattr(p, "bnclassify_role", None) == "tree"]
        assert {frozenset(p.bnclassify_edge) for p in marks} == tree
        assert len(marks) == 2 * 7  # both triangles
        plt.close(ax.figure)
    # the study TAN's tree is the CMI matrix's maximum spanning tree
    assert tree_from_weights(
        models["tan"].weights_.where(~np.eye(8, dtype=bool), 0)
    ).number_of_edges() == len(_feature_edges(models["tan"]))


@pytest.mark.parametrize("data", ["p450", "lactamase"])
def test_tree_comparison_colour_bar_units_and_chance(data, request):
    from bnclassify.plotting import expected_shared_edges

    bunch, models = request.getfixturevalue(data)
    fig = plot_tree_comparison(models["tan"], models["stan"], bunch.contact_matrix)
    image = fig.axes[2].images[0]
    shown = bunch.contact_matrix.to_numpy()[~np.eye(8, dtype=bool)]
    assert image.norm.vmax == pytest.approx(shown.max())  # the bar ends at the largest value
    assert fig.axes[-1].get_ylim()[1] == pytest.approx(shown.max())
    texts = [t.get_text() for ax in fig.axes[:2] for t in ax.texts]
    assert "edge labels: I(Xi; Xj | C), nats" in texts
    assert "edge labels: contacts" in texts
    assert expected_shared_edges(8) == pytest.approx(7**2 / 28)
    assert "(chance ~1.75)" in fig._suptitle.get_text()


def test_edge_labels_share_three_significant_digits(p450):
    from bnclassify.plotting._structure import format_weight

    assert format_weight(0.0101) == "0.0101"
    assert format_weight(0.0096) == "0.00960"
    assert format_weight(65.0) == "65"
    _, models = p450
    ax = plot_structure(models["tan"])
    labels = [t.get_text() for t in ax.texts if getattr(t, "bnclassify_node", None) is None]
    labels = [t for t in labels if t and t[0].isdigit()]
    assert len(labels) == 7  # feature edges only: none on the class arcs
    for label in labels:
        digits = label.replace(".", "").lstrip("0")
        assert len(digits) == 3, label


def test_structure_of_a_wide_tree_keeps_every_label_apart_and_inside():
    # wine's 13 features: a row of five leaves with labels up to 28 characters
    from sklearn.datasets import load_wine

    wine = load_wine(as_frame=True)
    ax = plot_structure(TAN().fit(wine.data, wine.target))
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = {
        t.bnclassify_node: t.get_bbox_patch().get_window_extent(renderer)
        for t in ax.texts
        if hasattr(t, "bnclassify_node")
    }
    assert len(boxes) == 14
    for (a, box_a), (b, box_b) in itertools.combinations(boxes.items(), 2):
        assert not box_a.overlaps(box_b), (a, b)
    frame = fig.bbox
    for name, box in boxes.items():
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1, name
        assert frame.y0 <= box.y0 and box.y1 <= frame.y1, name
    plt.close(fig)


def test_cpt_rows_state_their_training_counts():
    X, y = load_car(return_X_y=True)
    X = X.copy()
    X.loc[X.index[::7], "buying"] = np.nan  # rows missing the parent count in no row
    model = TAN(root="safety").fit(X, y)
    (parent,) = [p for p in model.structure_.predecessors("maint") if p != model.class_node_]
    fig = plot_cpt(model, "maint", X=X, y=y)
    observed = X[[parent, "maint"]].notna().all(axis=1)
    expected = pd.crosstab(y[observed], X.loc[observed, parent])
    expected = expected.reindex(
        index=model.classes_, columns=model.categories_[list(X.columns).index(parent)], fill_value=0
    )
    np.testing.assert_array_equal(fig.row_counts, expected.to_numpy())
    written = [
        [t.get_text() for t in ax.get_yticklabels()]
        for ax in fig.findobj(lambda a: hasattr(a, "bnclassify_counts"))
    ]
    assert written[0] == [f"n = {n}" for n in expected.iloc[0]]
    with pytest.raises(ValueError, match="both X and y"):
        plot_cpt(model, "maint", X=X)
    plt.close("all")


# -- shared_edges_permutation_pvalue -------------------------------------------------------------
def _exact_overlap_pvalue(graph_a, graph_b):
    """Every relabelling of graph_b's nodes enumerated: the exact p-value the function samples."""
    nodes = sorted(graph_a)
    edges_a = {frozenset(e) for e in graph_a.edges}
    observed = sum(frozenset(e) in edges_a for e in graph_b.edges)
    counts = []
    for perm in itertools.permutations(nodes):
        relabel = dict(zip(nodes, perm, strict=True))
        counts.append(sum(frozenset((relabel[u], relabel[v])) in edges_a for u, v in graph_b.edges))
    return np.mean(np.array(counts) >= observed)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_overlap_pvalue_estimates_the_exact_permutation_distribution(seed):
    from bnclassify.plotting import shared_edges_permutation_pvalue

    nodes = list("abcdef")
    rng = np.random.default_rng(seed)
    graph_a = nx.random_labeled_tree(6, seed=seed)
    graph_b = nx.random_labeled_tree(6, seed=seed + 10)
    names = dict(enumerate(rng.permutation(nodes)))
    graph_a, graph_b = nx.relabel_nodes(graph_a, names), nx.relabel_nodes(graph_b, names)
    exact = _exact_overlap_pvalue(graph_a, graph_b)
    sampled = shared_edges_permutation_pvalue(graph_a, graph_b, n_permutations=20_000)
    assert 0.0 <= sampled <= 1.0
    assert sampled == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / 20_000) + 1e-9)


def test_overlap_pvalue_of_a_tree_with_itself_is_its_automorphism_share():
    from bnclassify.plotting import shared_edges_permutation_pvalue

    path = nx.path_graph(list("abcd"))  # 2 of the 24 relabellings map the path onto itself
    p = shared_edges_permutation_pvalue(path, path, n_permutations=40_000)
    assert p == pytest.approx(2 / 24, abs=4 * np.sqrt((1 / 12) * (11 / 12) / 40_000))
    with pytest.raises(ValueError, match="n_permutations"):
        shared_edges_permutation_pvalue(path, path, n_permutations=0)


def test_study_tree_comparison_carries_support_and_the_overlap_pvalue(monkeypatch, tmp_path):
    from bnclassify.study import figures

    saved = {}

    def keep(fig, out_dir, filename):
        saved[filename] = fig
        return tmp_path / filename

    monkeypatch.setattr(figures, "save", keep)
    figures.make_figures(tmp_path, names=["p450_tree_comparison"])
    fig = saved["p450_tree_comparison.png"]
    learned = fig.edge_tables["a"]
    support = [c for c in learned.columns if c.startswith("BMA posterior (s = ")]
    assert len(support) == 1 and learned[support[0]].between(0, 1).all()
    assert learned["contacts"].notna().all() and len(learned) == 7
    assert fig.edge_tables["b"]["CMI"].notna().all()
    assert "overlap permutation p = 0.2" in fig._suptitle.get_text()
    plt.close(fig)
