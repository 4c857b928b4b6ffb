"""Shapley values of Bayesian network classifiers (bnclassify.explain).

Checked against shap's own ExactExplainer (same background, same output), the
textbook naive Bayes closed form from pgmpy's CPDs, exact enumeration through
the model's public predict_log_proba, and the efficiency (additivity) axiom.
"""

import itertools
from math import factorial

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
import shap
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp, softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression

from bnclassify import AODE, KDB, TAN, EnsembleTAN, NaiveBayes, SimplerTAN
from bnclassify import explain as explain_module
from bnclassify.datasets import load_car, load_lactamase, load_p450, load_vote
from bnclassify.exceptions import SampledShapleyWarning
from bnclassify.explain import explain

ADDITIVITY = 1e-10
AGREEMENT = 1e-8


@pytest.fixture(scope="module")
def p450():
    return load_p450()


@pytest.fixture(scope="module")
def p450_models(p450):
    X, y = p450.data, p450.target
    return {
        "NB": NaiveBayes().fit(X, y),
        "TAN": TAN().fit(X, y),
        "SimplerTAN": SimplerTAN(p450.contact_matrix).fit(X, y),
    }


@pytest.fixture(scope="module")
def vote():
    return load_vote()


def _frame(model, codes, columns):
    """Float codes (NaN = absent) -> the model's categorical DataFrame."""
    codes = np.asarray(codes, dtype=float)
    safe = np.where(np.isnan(codes), -1, codes).astype(int)
    return pd.DataFrame(
        {
            name: pd.Categorical.from_codes(safe[:, j], categories=list(model.categories_[j]))
            for j, name in enumerate(columns)
        }
    )


def _codes(model, X):
    return np.asarray(model.encode(X)[0], dtype=float)


def _log_odds(log_proba):
    return log_proba[:, 1] - log_proba[:, 0]


def _target(model, X, output):
    """The explained output computed through the model's public API."""
    log_proba = model.predict_log_proba(X)
    if output == "probability":
        proba = np.exp(log_proba)
        return proba[:, 1] if proba.shape[1] == 2 else proba
    if log_proba.shape[1] == 2:
        return _log_odds(log_proba)
    return log_proba - log_proba.mean(axis=1, keepdims=True)


def _nan_masker(mask, x):
    """A shap masker for the conditional game: absent features become NaN (missing)."""
    out = np.array(x, dtype=float).reshape(1, -1)
    out[0, ~mask] = np.nan
    return out


# -- additivity --------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["NB", "TAN", "SimplerTAN"])
@pytest.mark.parametrize("method", ["interventional", "conditional"])
@pytest.mark.parametrize("output", ["log_odds", "probability"])
def test_base_plus_values_is_the_model_output(p450, p450_models, name, method, output):
    model = p450_models[name]
    X = p450.data.iloc[::4]
    background = p450.data.iloc[::40] if method == "interventional" else None
    explanation = explain(model, X, background, method=method, output=output)
    total = explanation.base_values + explanation.values.sum(axis=1)
    np.testing.assert_allclose(total, _target(model, X, output), rtol=0, atol=ADDITIVITY)
    assert explanation.values.shape == (len(X), 8)
    assert explanation.feature_names == list(p450.data.columns)


def test_additivity_on_lactamase_for_all_rows():
    data = load_lactamase()
    X, y = data.data, data.target
    for model in (NaiveBayes(), TAN(), SimplerTAN(data.contact_matrix)):
        model.fit(X, y)
        explanation = explain(model, X)
        total = explanation.base_values + explanation.values.sum(axis=1)
        np.testing.assert_allclose(total, _target(model, X, "log_odds"), rtol=0, atol=ADDITIVITY)


# -- agreement with shap's ExactExplainer ------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name", ["NB", "TAN", "SimplerTAN"])
def test_interventional_log_odds_equal_shap_exact_explainer(p450, p450_models, name):
    model = p450_models[name]
    columns = list(p450.data.columns)
    background, rows = p450.data.iloc[:12], p450.data.iloc[[100, 200, 700]]

    def log_odds(codes):
        return _log_odds(model.predict_log_proba(_frame(model, codes, columns)))

    masker = shap.maskers.Independent(_codes(model, background), max_samples=len(background))
    reference = shap.explainers.Exact(log_odds, masker)(_codes(model, rows))
    ours = explain(model, rows, background)
    np.testing.assert_allclose(ours.values, reference.values, rtol=0, atol=AGREEMENT)
    np.testing.assert_allclose(ours.base_values, reference.base_values, rtol=0, atol=AGREEMENT)


def test_interventional_probability_equals_shap_exact_explainer(p450, p450_models):
    model = p450_models["SimplerTAN"]
    columns = list(p450.data.columns)
    background, rows = p450.data.iloc[:12], p450.data.iloc[[5, 50]]

    def probability(codes):
        return model.predict_proba(_frame(model, codes, columns))[:, 1]

    masker = shap.maskers.Independent(_codes(model, background), max_samples=len(background))
    reference = shap.explainers.Exact(probability, masker)(_codes(model, rows))
    ours = explain(model, rows, background, output="probability")
    np.testing.assert_allclose(ours.values, reference.values, rtol=0, atol=AGREEMENT)
    np.testing.assert_allclose(ours.base_values, reference.base_values, rtol=0, atol=AGREEMENT)


@pytest.mark.parametrize("name", ["TAN", "SimplerTAN"])
def test_conditional_equals_shap_exact_explainer_with_a_marginalising_masker(
    p450, p450_models, name
):
    model = p450_models[name]
    columns = list(p450.data.columns)
    rows = p450.data.iloc[[3, 400]]

    def log_odds(codes):  # NaN cells are summed out by the model (exact inference)
        return _log_odds(model.predict_log_proba(_frame(model, codes, columns)))

    reference = shap.explainers.Exact(log_odds, _nan_masker)(_codes(model, rows))
    ours = explain(model, rows, method="conditional")
    np.testing.assert_allclose(ours.values, reference.values, rtol=0, atol=AGREEMENT)
    np.testing.assert_allclose(ours.base_values, reference.base_values, rtol=0, atol=AGREEMENT)


def test_multiclass_centred_scores_equal_shap_exact_explainer():
    X, y = load_car(return_X_y=True)
    model = TAN().fit(X, y)
    columns = list(X.columns)
    background, rows = X.iloc[::200], X.iloc[[0, 900]]

    def centred(codes):
        log_proba = model.predict_log_proba(_frame(model, codes, columns))
        return log_proba - log_proba.mean(axis=1, keepdims=True)

    masker = shap.maskers.Independent(_codes(model, background), max_samples=len(background))
    reference = shap.explainers.Exact(centred, masker)(_codes(model, rows))
    ours = explain(model, rows, background)
    assert ours.values.shape == (2, 6, 4)
    assert ours.output_names == [str(c) for c in model.classes_]
    np.testing.assert_allclose(ours.values, reference.values, rtol=0, atol=AGREEMENT)
    scores = ours.base_values + ours.values.sum(axis=1)
    np.testing.assert_allclose(softmax(scores, axis=1), model.predict_proba(rows), atol=1e-12)


def test_multiclass_probability_adds_up_per_class():
    X, y = load_car(return_X_y=True)
    model = NaiveBayes().fit(X, y)
    rows = X.iloc[::50]
    for method, background in (("interventional", X.iloc[::100]), ("conditional", None)):
        explanation = explain(model, rows, background, method=method, output="probability")
        total = explanation.base_values + explanation.values.sum(axis=1)
        np.testing.assert_allclose(total, model.predict_proba(rows), rtol=0, atol=ADDITIVITY)
        np.testing.assert_allclose(explanation.base_values.sum(axis=1), 1.0, atol=1e-12)


# -- closed forms ------------------------------------------------------------------------------
def test_naive_bayes_values_are_the_textbook_log_ratio_minus_its_background_mean(p450):
    X, y = p450.data, p450.target
    model = NaiveBayes(alpha=0.5).fit(X, y)
    network = model.network_  # pgmpy's CPDs, independent of the compiled tables
    background, rows = X.iloc[::3], X.iloc[:40]
    explanation = explain(model, rows, background)
    expected_base = np.log(network.get_cpds("functional").values[1]) - np.log(
        network.get_cpds("functional").values[0]
    )
    for j, feature in enumerate(X.columns):
        cpd = network.get_cpds(feature)
        table = cpd.values  # (states of the feature, classes)
        state = {s: k for k, s in enumerate(cpd.state_names[feature])}
        ratio = np.log(table[:, 1]) - np.log(table[:, 0])
        at_rows = ratio[[state[v] for v in rows[feature]]]
        mean_background = ratio[[state[v] for v in background[feature]]].mean()
        np.testing.assert_allclose(
            explanation.values[:, j], at_rows - mean_background, rtol=0, atol=1e-12
        )
        expected_base += mean_background
    np.testing.assert_allclose(explanation.base_values, expected_base, rtol=0, atol=1e-12)


def test_conditional_base_value_is_the_prior_log_odds(p450_models, p450):
    model = p450_models["TAN"]
    explanation = explain(model, p450.data.iloc[:3], method="conditional")
    prior = np.asarray(p450.target.value_counts().sort_index()) + model.alpha
    np.testing.assert_allclose(explanation.base_values, np.log(prior[1] / prior[0]), atol=1e-12)


class _Opaque(ClassifierMixin, BaseEstimator):
    """A bnclassify model seen only through its public prediction API (no compiled_)."""

    def __init__(self, *members):
        self.members = members
        first = members[0]
        self.classes_ = first.classes_
        self.categories_ = first.categories_
        self.feature_names_in_ = first.feature_names_in_

    def fit(self, X, y):  # pragma: no cover - never called; marks this as an estimator
        raise NotImplementedError

    def encode(self, X):
        return self.members[0].encode(X)

    def predict_log_proba(self, X):
        stacked = np.stack([m.predict_log_proba(X) for m in self.members])
        return logsumexp(stacked, axis=0) - np.log(len(self.members))


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    st.integers(3, 6).flatmap(
        lambda m: st.tuples(
            st.lists(st.integers(2, 3), min_size=m, max_size=m),
            st.integers(0, 2**32 - 1),
        )
    ),
    st.sampled_from([0.5, 1.0]),
)
def test_closed_form_equals_enumeration_through_the_public_api(shape, alpha):
    cards, seed = shape
    rng = np.random.default_rng(seed)
    n = 60
    y = rng.integers(0, 2, n)
    X = pd.DataFrame(
        {f"f{j}": (rng.integers(0, r, n) + y * (j % 2)) % r for j, r in enumerate(cards)}
    )
    model = TAN(alpha=alpha).fit(X, y)
    rows, background = X.iloc[:7], X.iloc[20:45]
    closed = explain(model, rows, background)
    enumerated = explain(_Opaque(model), rows, background)
    np.testing.assert_allclose(closed.values, enumerated.values, rtol=0, atol=1e-10)
    np.testing.assert_allclose(closed.base_values, enumerated.base_values, rtol=0, atol=1e-10)


# -- ensembles and other models without a single network ---------------------------------------
def test_averaged_models_are_explained_exactly(p450, p450_models):
    ensemble = _Opaque(*p450_models.values())
    columns = list(p450.data.columns)
    background, rows = p450.data.iloc[:10], p450.data.iloc[[1, 600]]

    def log_odds(codes):
        return _log_odds(ensemble.predict_log_proba(_frame(ensemble, codes, columns)))

    masker = shap.maskers.Independent(_codes(ensemble, background), max_samples=len(background))
    reference = shap.explainers.Exact(log_odds, masker)(_codes(ensemble, rows))
    ours = explain(ensemble, rows, background)
    np.testing.assert_allclose(ours.values, reference.values, rtol=0, atol=AGREEMENT)
    conditional = explain(ensemble, rows, method="conditional")
    total = conditional.base_values + conditional.values.sum(axis=1)
    np.testing.assert_allclose(total, _target(ensemble, rows, "log_odds"), atol=ADDITIVITY)


@pytest.mark.parametrize("kind", ["EnsembleTAN", "AODE", "KDB"])
def test_ensembles_and_kdb_equal_shap_exact_explainer(p450, kind):
    X, y = p450.data, p450.target
    model = {
        "EnsembleTAN": EnsembleTAN(contact_matrix=p450.contact_matrix),  # STAN + TAN bagging
        "AODE": AODE(),
        "KDB": KDB(k=2),  # families of three: the closed form's general case
    }[kind].fit(X, y)
    columns = list(X.columns)
    background, rows = X.iloc[:10], X.iloc[[2, 800]]

    def log_odds(codes):
        return _log_odds(model.predict_log_proba(_frame(model, codes, columns)))

    masker = shap.maskers.Independent(_codes(model, background), max_samples=len(background))
    reference = shap.explainers.Exact(log_odds, masker)(_codes(model, rows))
    ours = explain(model, rows, background)
    np.testing.assert_allclose(ours.values, reference.values, rtol=0, atol=AGREEMENT)
    np.testing.assert_allclose(ours.base_values, reference.base_values, rtol=0, atol=AGREEMENT)
    conditional = explain(model, X.iloc[::20], method="conditional")
    total = conditional.base_values + conditional.values.sum(axis=1)
    np.testing.assert_allclose(total, _target(model, X.iloc[::20], "log_odds"), atol=ADDITIVITY)


#: (_DENSE_CACHE, _MAX_KEYED) that send the evaluation of rows down each route
_ROUTES = {"dense cache": (1 << 62, 1 << 62), "keys": (0, 1 << 62), "rows": (0, 0)}


@pytest.mark.parametrize("route", list(_ROUTES))
def test_every_evaluation_route_gives_the_same_values(p450, p450_models, monkeypatch, route):
    model = p450_models["SimplerTAN"]
    columns = list(p450.data.columns)
    rows, background = p450.data.iloc[:6], p450.data.iloc[::60]

    def log_odds(codes):
        return _log_odds(model.predict_log_proba(_frame(model, codes, columns)))

    def on_route(name, **options):
        dense, keyed = _ROUTES[name]
        monkeypatch.setattr(explain_module, "_DENSE_CACHE", dense)
        monkeypatch.setattr(explain_module, "_MAX_KEYED", keyed)
        return explain(model, rows, **options)

    masker = shap.maskers.Independent(_codes(model, background), max_samples=len(background))
    reference = shap.explainers.Exact(log_odds, masker)(_codes(model, rows))
    exact = on_route(route, background=background)
    np.testing.assert_allclose(exact.values, reference.values, rtol=0, atol=AGREEMENT)
    # the sampled game sees the same outputs on any route: the same draws, the same values
    sampling = dict(method="conditional", max_exact_features=0, random_state=3)
    with pytest.warns(SampledShapleyWarning):
        sampled = on_route(route, **sampling)
        other = on_route("rows" if route != "rows" else "dense cache", **sampling)
    np.testing.assert_allclose(sampled.values, other.values, rtol=0, atol=1e-14)


# -- missing cells and sampling ----------------------------------------------------------------
def test_conditional_gives_missing_cells_zero_and_still_adds_up(vote):
    X, y = vote.data, vote.target
    model = TAN().fit(X, y)
    rows = X[X.isna().any(axis=1)].iloc[:20]
    with pytest.warns(SampledShapleyWarning):  # 16 features: sampled
        explanation = explain(model, rows, method="conditional", random_state=0)
    missing = rows.isna().to_numpy()
    assert np.all(explanation.values[missing] == 0.0)
    assert np.all(np.isnan(explanation.data[missing]))
    total = explanation.base_values + explanation.values.sum(axis=1)
    np.testing.assert_allclose(total, _target(model, rows, "log_odds"), rtol=0, atol=ADDITIVITY)


def test_sampling_estimate_agrees_with_enumeration_within_its_standard_error(vote):
    X, y = vote.data, vote.target
    model = TAN().fit(X, y)
    rows = X.dropna().iloc[:2]
    exact = explain(model, rows, method="conditional", max_exact_features=16)
    assert np.all(exact.error_std == 0)
    with pytest.warns(SampledShapleyWarning) as caught:
        sampled = explain(model, rows, method="conditional", n_permutations=400, random_state=1)
        again = explain(model, rows, method="conditional", n_permutations=400, random_state=1)
    # said where the user called it, with the estimates' standard error
    (first, _) = caught
    assert first.filename == __file__
    assert first.message.max_error == sampled.error_std.max() > 0
    assert first.message.mean_error == pytest.approx(sampled.error_std.mean())
    assert f"up to {sampled.error_std.max():.3g}" in str(first.message)
    assert "400 sampled feature orders per row" in str(first.message)
    assert "(16 features, max_exact_features=12)" in str(first.message)
    np.testing.assert_array_equal(sampled.values, again.values)
    assert np.all(sampled.error_std > 0)
    assert not np.allclose(sampled.values, exact.values, atol=1e-6)  # it is an estimate ...
    # ... within 5 standard errors of the exact values, and exactly additive
    assert np.all(np.abs(sampled.values - exact.values) <= 5 * sampled.error_std + 1e-9)
    np.testing.assert_allclose(
        sampled.values.sum(axis=1), exact.values.sum(axis=1), rtol=0, atol=ADDITIVITY
    )


def test_interventional_sampling_agrees_with_enumeration(p450, p450_models):
    model = p450_models["TAN"]
    rows, background = p450.data.iloc[:3], p450.data.iloc[::50]
    exact = explain(model, rows, background, output="probability")
    with pytest.warns(SampledShapleyWarning, match="max_exact_features=0"):
        sampled = explain(
            model,
            rows,
            background,
            output="probability",
            max_exact_features=0,
            n_permutations=300,
            random_state=0,
        )
    assert np.all(np.abs(sampled.values - exact.values) <= 5 * sampled.error_std + 1e-9)
    np.testing.assert_allclose(sampled.base_values, exact.base_values, rtol=0, atol=1e-12)


# -- what the explanation carries, and shap's plots --------------------------------------------
def test_explanation_data_and_plots(p450, p450_models):
    model = p450_models["TAN"]
    rows = p450.data.iloc[:30]
    explanation = explain(model, rows)
    np.testing.assert_array_equal(explanation.data, rows.astype(int).to_numpy())
    assert explanation.display_data[0, 1] == rows.iloc[0, 1]
    for plot in (shap.plots.beeswarm, shap.plots.bar):
        plot(explanation, show=False)
        labels = {t.get_text() for t in plt.gca().get_yticklabels()}
        assert labels & set(p450.data.columns)
        plt.close("all")
    shap.plots.waterfall(explanation[0], show=False)
    plt.close("all")


# -- bad input ---------------------------------------------------------------------------------
def test_bad_arguments_raise(p450, p450_models, vote):
    model = p450_models["NB"]
    X = p450.data.iloc[:5]
    with pytest.raises(ValueError, match="method must be one of"):
        explain(model, X, method="kernel")
    with pytest.raises(ValueError, match="output must be one of"):
        explain(model, X, output="logit")
    with pytest.raises(ValueError, match="uses no background"):
        explain(model, X, X, method="conditional")
    with pytest.raises(ValueError, match="max_exact_features"):
        explain(model, X, max_exact_features=-1)
    with pytest.raises(ValueError, match="n_permutations"):
        explain(model, X, n_permutations=0)
    with pytest.raises(ValueError, match="X's columns differ"):
        explain(model, X.drop(columns="block3"))
    with pytest.raises(TypeError, match="bnclassify classifier"):
        explain(LogisticRegression(), X)
    with pytest.raises(Exception, match="not fitted"):
        explain(NaiveBayes(), X)
    vote_model = NaiveBayes().fit(vote.data, vote.target)
    incomplete = vote.data[vote.data.isna().any(axis=1)].iloc[:3]
    with pytest.raises(ValueError, match="X has missing cells .* column"):
        explain(vote_model, incomplete)
    with pytest.raises(ValueError, match="background has missing cells"):
        explain(vote_model, vote.data.dropna().iloc[:3], incomplete)


# -- the study's figures -----------------------------------------------------------------------
def test_beeswarm_panels_share_one_order_by_the_mean_over_models():
    from bnclassify.study.shap_figures import common_order, plot_beeswarms, study_explanations

    explanations = study_explanations("lactamase")
    fig = plot_beeswarms(explanations, "lactamase")
    names = np.array(next(iter(explanations.values())).feature_names)
    mean_abs = np.mean([np.abs(e.values).mean(0) for e in explanations.values()], axis=0)
    expected = list(names[np.argsort(-mean_abs, kind="stable")])
    assert list(names[common_order(explanations)]) == expected
    panels = [ax for ax in fig.axes if ax.get_title() in explanations]
    assert len(panels) == 3
    for ax in panels:
        drawn = [t.get_text() for t in ax.get_yticklabels()][::-1]  # shap draws bottom-up
        assert drawn == expected
    assert "averaged over the models" in fig._suptitle.get_text()
    plt.close(fig)


def test_shap_bars_one_colour_per_model_unsigned_labels_common_order():
    from matplotlib.colors import same_color

    from bnclassify.study.shap_figures import common_order, plot_bars, study_explanations

    explanations = study_explanations("p450")
    fig = plot_bars(explanations, "P450")
    ax = fig.axes[0]
    names = np.array(next(iter(explanations.values())).feature_names)
    assert [t.get_text() for t in ax.get_yticklabels()] == list(names[common_order(explanations)])
    colours = []
    for container, (name, explanation) in zip(ax.containers, explanations.items(), strict=True):
        assert container.get_label() == name
        faces = {tuple(p.get_facecolor()) for p in container.patches}
        assert len(faces) == 1
        colours.append(faces.pop())
        widths = [p.get_width() for p in container.patches]
        order = common_order(explanations)
        np.testing.assert_allclose(widths, np.abs(explanation.values).mean(0)[order])
    assert not any(same_color(a, b) for a, b in itertools.combinations(colours, 2))
    labels = [t.get_text() for t in ax.texts]
    assert len(labels) == 3 * 8
    assert not any(t.startswith(("+", "-")) for t in labels)
    assert {len(t.split(".")[1]) for t in labels} == {3}
    assert "averaged over the models" in ax.get_title()
    plt.close(fig)


def test_shap_figures_writes_four_pngs(tmp_path):
    from bnclassify.study.shap_figures import shap_figures

    paths = shap_figures(tmp_path)
    assert sorted(p.name for p in paths) == sorted(
        f"shap_{kind}_{data}.png" for kind in ("bar", "beeswarm") for data in ("p450", "lactamase")
    )
    for path in paths:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert plt.imread(path).shape[0] > 400


# -- continuous and mixed features -------------------------------------------------------------
@pytest.fixture(scope="module")
def mixed():
    """Breast cancer: four float columns kept as floats, two banded into strings.

    Two bands of equal frequency keep the (class, band, band) groups of KDB's
    conditional Gaussians populated, so log-odds stay moderate (below 100) and
    an absolute 1e-8 is a meaningful agreement.
    """
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer(as_frame=True)
    X = data.data.iloc[:, [0, 1, 4, 7, 20, 27]].copy()
    X.columns = ["radius", "texture", "smoothness", "concavity", "worst_radius", "worst_concav"]
    for column in ["worst_radius", "worst_concav"]:
        X[column] = pd.qcut(X[column], 2, labels=["low", "high"]).astype(str)
    y = data.target.map({0: "malignant", 1: "benign"})
    return X, y


def _shapley_by_brute_force(model, rows, background):
    """Interventional Shapley values of the log-odds: all 2^m coalitions, one by one."""
    m = rows.shape[1]
    values = np.zeros(rows.shape)
    for r in range(len(rows)):
        worth = {}
        for size in range(m + 1):
            for coalition in itertools.combinations(range(m), size):
                hybrid = background.copy()
                for j in coalition:
                    hybrid.iloc[:, j] = rows.iloc[r, j]
                worth[coalition] = _log_odds(model.predict_log_proba(hybrid)).mean()
        for i in range(m):
            for coalition, v in worth.items():
                if i in coalition:
                    continue
                weight = factorial(len(coalition)) * factorial(m - len(coalition) - 1)
                joined = tuple(sorted((*coalition, i)))
                values[r, i] += weight / factorial(m) * (worth[joined] - v)
    return values, worth[()]


def _mixed_estimator(name):
    return {
        "NaiveBayes": NaiveBayes,
        "TAN": TAN,
        "KDB2": lambda: KDB(k=2),
        "EnsembleTAN": EnsembleTAN,
        "AODE": AODE,
    }[name]()


@pytest.mark.parametrize("name", ["NaiveBayes", "TAN", "KDB2", "EnsembleTAN", "AODE"])
def test_mixed_interventional_log_odds_equal_brute_force_shapley(mixed, name, densities):
    X, y = mixed
    model = _mixed_estimator(name).fit(X, y)
    assert model.feature_kinds_.count("gaussian") + model.feature_kinds_.count("lognormal") == 4
    _check_against_brute_force(model, X)


@pytest.mark.parametrize("name", ["NaiveBayes", "TAN", "AODE"])
def test_binned_interventional_log_odds_equal_brute_force_shapley(mixed, name):
    X, y = mixed
    model = _mixed_estimator(name).fit(X, y)
    assert model.feature_kinds_.count("binned") == 4  # the default for continuous columns
    _check_against_brute_force(model, X, densities=False)


def _check_against_brute_force(model, X, densities=True):
    rows, background = X.iloc[[0, 7, 100]], X.iloc[::15]
    expected, base = _shapley_by_brute_force(model, rows, background)
    ours = explain(model, rows, background)
    np.testing.assert_allclose(ours.values, expected, rtol=0, atol=AGREEMENT)
    np.testing.assert_allclose(ours.base_values, base, rtol=0, atol=AGREEMENT)
    total = ours.base_values + ours.values.sum(axis=1)
    np.testing.assert_allclose(total, _target(model, rows, "log_odds"), rtol=0, atol=AGREEMENT)
    if not densities:
        return
    # continuous columns show their own values
    np.testing.assert_array_equal(ours.data[:, 0], rows["radius"].to_numpy())
    assert ours.display_data[1, 4] == rows["worst_radius"].iloc[1]


@pytest.mark.parametrize("name", ["NaiveBayes", "TAN", "KDB2", "EnsembleTAN", "AODE"])
@pytest.mark.parametrize("output", ["log_odds", "probability"])
def test_mixed_conditional_values_add_up_with_missing_floats_and_strings(mixed, name, output):
    X, y = mixed
    model = _mixed_estimator(name).fit(X, y)
    rows = X.iloc[:6].copy()
    rows.loc[1, "radius"] = np.nan
    rows.loc[2, "worst_radius"] = np.nan
    rows.loc[3, ["concavity", "worst_concav"]] = np.nan
    rows.loc[4, ["texture", "smoothness", "worst_radius"]] = np.nan
    ours = explain(model, rows, method="conditional", output=output)
    total = ours.base_values + ours.values.sum(axis=1)
    np.testing.assert_allclose(total, _target(model, rows, output), rtol=0, atol=AGREEMENT)
    missing = rows.isna().to_numpy()
    np.testing.assert_allclose(ours.values[missing], 0.0, atol=1e-12)
    assert np.isnan(ours.data[1, 0]) and ours.display_data[2, 4] is None


def test_mixed_interventional_probability_and_sampling_add_up(mixed):
    X, y = mixed
    model = TAN().fit(X, y)
    rows, background = X.iloc[:4], X.iloc[::20]
    exact = explain(model, rows, background, output="probability")
    total = exact.base_values + exact.values.sum(axis=1)
    np.testing.assert_allclose(total, _target(model, rows, "probability"), atol=ADDITIVITY)
    sampled = explain(model, rows, background, max_exact_features=0, random_state=0)
    closed = explain(model, rows, background)
    total = sampled.base_values + sampled.values.sum(axis=1)
    np.testing.assert_allclose(total, _target(model, rows, "log_odds"), atol=ADDITIVITY)
    assert np.all(np.abs(sampled.values - closed.values) <= 5 * sampled.error_std + 1e-9)


def test_multinomial_groups_and_kernel_densities_equal_brute_force_shapley():
    """Each column of a multinomial group is its own player; the group is one family."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.poisson(3, (80, 3)).astype(float), columns=["a", "b", "c"])
    X["k"] = rng.normal(size=80)
    X["s"] = rng.choice(list("xyz"), 80)
    y = np.where(X["a"] + X["k"] > 3.5, "p", "n")
    model = NaiveBayes(distributions={("a", "b", "c"): "multinomial", "k": "kde"}).fit(X, y)
    assert model.feature_kinds_ == ["multinomial"] * 3 + ["kde", "categorical"]
    rows, background = X.iloc[:3], X.iloc[::8]
    expected, base = _shapley_by_brute_force(model, rows, background)
    ours = explain(model, rows, background)
    np.testing.assert_allclose(ours.values, expected, rtol=0, atol=AGREEMENT)
    np.testing.assert_allclose(ours.base_values, base, rtol=0, atol=AGREEMENT)


def test_an_exact_categorical_game_is_costed_by_its_distinct_background_terms():
    # 955 rows x 256 coalitions x 955 background rows is 2.3e8 hybrid rows, but background
    # rows that agree outside a coalition are one term (3.3e7 here, under a second): the cost
    # check refused notebook 05's explanations by the naive count
    from bnclassify.datasets import load_p450

    X, y = load_p450(return_X_y=True)
    values = explain(TAN().fit(X, y), X)
    assert np.isfinite(values.values).all()
