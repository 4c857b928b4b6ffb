"""plot_inference draws what posteriors computes, on the model's own structure."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from bnclassify import TAN, EnsembleTAN, SimplerTAN  # noqa: E402
from bnclassify.datasets import load_car, load_p450, make_clinic_table  # noqa: E402
from bnclassify.inference import posteriors  # noqa: E402
from bnclassify.plotting import InferenceView, drawn_edges, plot_inference  # noqa: E402


@pytest.fixture(scope="module")
def car_tan():
    X, y = load_car(return_X_y=True)
    return TAN().fit(X, y)


@pytest.fixture(scope="module")
def clinic_tan():
    table = make_clinic_table(400, random_state=2)
    X, y = table.drop(columns="diagnosis"), table["diagnosis"]
    return TAN(distributions="density").fit(X, y)  # its Gaussian and log-normal nodes


def bar_widths(card):
    return np.array([patch.get_width() for patch in card.patches])


def test_every_node_has_a_chart_and_every_edge_is_drawn(car_tan):
    fig = plot_inference(car_tan, evidence={"safety": "high", "buying": "low"})
    names = car_tan.feature_names_
    assert set(fig.node_axes) == {car_tan.class_node_, *names}
    assert all(fig.node_axes[n].bnclassify_node == n for n in fig.node_axes)
    features = sorted(e for e in car_tan.structure_.edges if car_tan.class_node_ not in e)
    assert sorted(drawn_edges(fig.network_ax, role="feature")) == features
    arcs = sorted(drawn_edges(fig.network_ax, role="class"))
    assert arcs == sorted((car_tan.class_node_, n) for n in names)


def test_bars_are_the_exact_posteriors(car_tan):
    evidence = {"safety": "high", "buying": "low"}
    fig = plot_inference(car_tan, evidence=evidence)
    expected = posteriors(car_tan, evidence)
    np.testing.assert_allclose(bar_widths(fig.node_axes["class"]), expected.classes.to_numpy())
    for name, series in expected.features.items():
        np.testing.assert_allclose(bar_widths(fig.node_axes[name]), series.to_numpy())
    # an observed node shows its value, full
    shown = bar_widths(fig.node_axes["safety"])
    states = list(car_tan.categories_[car_tan.feature_names_.index("safety")])
    assert shown.tolist() == [1.0 if s == "high" else 0.0 for s in states]
    assert fig.node_axes["safety"].get_title() == "safety = high"


def test_prior_ticks_are_the_marginals_without_evidence(car_tan):
    fig = plot_inference(car_tan, evidence={"safety": "low"})
    prior = posteriors(car_tan).features["persons"].to_numpy()
    ticks = fig.node_axes["persons"].collections[0].get_offsets()[:, 0]
    np.testing.assert_allclose(ticks, prior)
    no_prior = plot_inference(car_tan, evidence={"safety": "low"}, prior=False)
    assert not no_prior.node_axes["persons"].collections


def test_effect_panel_ranks_and_marks_the_most_influential_item(car_tan):
    evidence = {"persons": "4", "safety": "low", "lug_boot": "big"}
    fig = plot_inference(car_tan, evidence=evidence)
    effect = fig.posteriors.evidence_effect
    panel = [a for a in fig.axes if a is not fig.network_ax and a not in fig.node_axes.values()]
    assert len(panel) == 1
    widths = bar_widths(panel[0])
    np.testing.assert_allclose(widths, np.sort(effect["total_variation"].to_numpy())[::-1])
    top = effect["total_variation"].idxmax()
    assert panel[0].get_yticklabels()[0].get_text() == f"{top} = {evidence[top]}"
    thick = {n for n, a in fig.node_axes.items() if a.spines["top"].get_linewidth() > 2}
    assert thick == {top}


def test_no_evidence_no_effect_panel(car_tan):
    fig = plot_inference(car_tan)
    assert fig.axes == [fig.network_ax]  # the node charts are insets of the network axes
    assert fig.posteriors.evidence_effect.empty


def test_a_continuous_node_shows_its_posterior_density(clinic_tan):
    evidence = {"visits": 12.0, "smoker": True}
    fig = plot_inference(clinic_tan, evidence=evidence, n_points=120)
    expected = posteriors(clinic_tan, evidence, n_points=120).features["glucose"]
    posterior_line = fig.node_axes["glucose"].get_lines()[0]
    np.testing.assert_allclose(posterior_line.get_xdata(), expected.index.to_numpy())
    np.testing.assert_allclose(posterior_line.get_ydata(), expected.to_numpy())
    observed = fig.node_axes["visits"]
    assert observed.get_title() == "visits = 12"
    assert any(np.allclose(line.get_xdata(), 12.0) for line in observed.get_lines())


def test_p450_simpler_tan_draws(tmp_path):
    p450 = load_p450()
    model = SimplerTAN(p450.contact_matrix).fit(p450.data, p450.target)
    fig = plot_inference(model, evidence={"block4": "2", "block1": "3"})
    fig.savefig(tmp_path / "p450.png", dpi=50)
    assert (tmp_path / "p450.png").stat().st_size > 0
    assert len(drawn_edges(fig.network_ax, role="feature")) == 7


def test_reuses_a_given_figure_and_refuses_ensembles(car_tan):
    X, y = load_car(return_X_y=True)
    fig = plt.figure()
    assert plot_inference(car_tan, fig=fig) is fig
    with pytest.raises(TypeError, match="estimators_"):
        plot_inference(EnsembleTAN().fit(X, y))
    with pytest.raises(ValueError, match="max_per_row"):
        plot_inference(car_tan, max_per_row=0)
    with pytest.raises(ValueError, match="not a category"):
        plot_inference(car_tan, evidence={"safety": "extreme"})


# -- InferenceView: the live teaching view, driven without widgets --------------------------
def test_the_view_follows_the_evidence_it_is_given(car_tan):
    view = InferenceView(car_tan)
    assert view.evidence == {}
    steps = [{"safety": "high"}, {"buying": "low"}, {"safety": "low"}]
    expected = {}
    for step in steps:  # each observation updates every node's posterior
        view.observe(**step)
        expected.update(step)
        exact = posteriors(car_tan, expected)
        assert view.evidence == expected
        np.testing.assert_allclose(view.posteriors.classes, exact.classes)
        for name, series in exact.features.items():
            np.testing.assert_allclose(view.posteriors.features[name], series)
        fig = view.draw()
        assert fig.posteriors.evidence == expected  # the figure shows the same evidence
        plt.close(fig)
    view.forget("safety")
    assert view.evidence == {"buying": "low"}
    assert view.clear().evidence == {}


def test_the_view_refuses_bad_evidence_and_keeps_its_own(car_tan, clinic_tan):
    view = InferenceView(car_tan, {"safety": "high"})
    with pytest.raises(ValueError, match="'very high' is not a category of 'safety'"):
        view.observe(safety="very high")
    with pytest.raises(ValueError, match="'colour', which is not a feature"):
        view.observe(colour="red")
    with pytest.raises(ValueError, match=r"\['doors'\] are not observed"):
        view.forget("doors")
    assert view.evidence == {"safety": "high"}
    with pytest.raises(TypeError, match="pass one of them"):
        X, y = load_car(return_X_y=True)
        InferenceView(EnsembleTAN().fit(X, y))


def test_menu_choices_set_and_forget_evidence(car_tan, clinic_tan):
    view = InferenceView(car_tan, {"doors": "2"})
    view.set_from_menus({"safety": "high", "doors": InferenceView.UNOBSERVED, "buying": ""})
    assert view.evidence == {"safety": "high"}
    with pytest.raises(ValueError, match="not a category"):
        view.set_from_menus({"safety": "med", "buying": "cheap"})
    assert view.evidence == {"safety": "high"}  # checked whole before it replaces the old
    continuous = next(
        n
        for n, c in zip(clinic_tan.feature_names_, clinic_tan.categories_, strict=True)
        if c is None
    )
    clinic = InferenceView(clinic_tan).set_from_menus({continuous: "1.5"})
    assert clinic.evidence == {continuous: 1.5}  # a text box's string, read as a number
    with pytest.raises(ValueError, match="'abc' is not a number"):
        clinic.set_from_menus({continuous: "abc"})


def test_the_widget_redraws_when_a_menu_changes(car_tan):
    widgets = pytest.importorskip("ipywidgets")
    view = InferenceView(car_tan)
    box = view.widget()
    menus = {menu.description: menu for menu in box.children[0].children}
    assert set(menus) == set(car_tan.feature_names_)
    assert isinstance(menus["safety"], widgets.Dropdown)
    menus["safety"].value = "high"
    assert view.evidence == {"safety": "high"}
    menus["safety"].value = InferenceView.UNOBSERVED
    assert view.evidence == {}


def test_the_widget_names_its_extra_when_ipywidgets_is_missing(car_tan, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # import fails
    with pytest.raises(ImportError, match=r"pip install ipywidgets .*\.\[teaching\]"):
        InferenceView(car_tan).widget()
