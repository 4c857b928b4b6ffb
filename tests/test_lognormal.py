"""The log-normal node and the continuous kinds rule that picks it."""

from __future__ import annotations

import io
import os
import tempfile
import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

matplotlib.use("Agg")

from bnclassify import TAN, NaiveBayes  # noqa: E402
from bnclassify.data import default_kind, prefers_log_normal  # noqa: E402
from bnclassify.datasets import make_credit_table  # noqa: E402
from bnclassify.distributions import Gaussian, LogNormal  # noqa: E402
from bnclassify.exceptions import OutOfCoreError, UnseenCategoryWarning  # noqa: E402

# tests of the density nodes as the kinds rule chooses them (distributions="density"; the
# default bins continuous columns, tests/test_binned.py)
pytestmark = pytest.mark.usefixtures("numbers_as_densities")


def _skewed(n=400, seed=0):
    """Two positive skewed columns (b grows with a), a category and a binary class."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.exp(rng.normal(3 + 0.5 * y, 0.8, n))
    b = np.exp(0.6 * np.log(a) + rng.normal(1 - 0.3 * y, 0.5, n))
    group = rng.choice(["u", "v", "w"], n)
    return pd.DataFrame({"a": a, "b": b, "group": group}), y


# -- the rule -------------------------------------------------------------------------------
def test_vuong_rule_separates_log_normal_from_normal_samples():
    rng = np.random.default_rng(1)
    assert prefers_log_normal(rng.lognormal(2, 0.8, 300))
    assert not prefers_log_normal(rng.normal(100, 10, 300))
    assert not prefers_log_normal(rng.uniform(1, 2, 300))
    x = rng.lognormal(2, 0.8, 300)
    assert not prefers_log_normal(np.append(x, 0.0))  # a zero: no log-normal
    assert not prefers_log_normal(x[:7])  # too few values to test
    assert not prefers_log_normal(np.full(50, 3.0))  # constant


@pytest.mark.parametrize("scale", [1e-200, 1e-9, 3.7, 1e150, 1e200])
def test_vuong_rule_does_not_depend_on_units(scale):
    rng = np.random.default_rng(2)
    for x in (rng.lognormal(2, 0.8, 200), rng.normal(100, 10, 200)):
        assert prefers_log_normal(x * scale) == prefers_log_normal(x)


def test_default_kinds_of_raw_columns():
    rng = np.random.default_rng(3)
    amounts = np.exp(rng.normal(7, 1, 500)).round()
    assert default_kind(pd.Series(amounts)) == "lognormal"
    assert default_kind(pd.Series(amounts.astype(np.int64))) == "lognormal"
    assert default_kind(pd.Series(amounts, dtype="Float64")) == "lognormal"
    assert default_kind(pd.Series(amounts - amounts.mean())) == "gaussian"  # not positive
    assert default_kind(pd.Series(rng.normal(50, 5, 500))) == "gaussian"
    assert default_kind(pd.Series([1, 2, 3] * 50)) == "categorical"
    assert default_kind(np.dtype(float)) == "gaussian"  # a dtype alone cannot tell


def test_credit_table_wide_columns_are_log_normal():
    table = make_credit_table()
    X = table.drop(columns="credit_risk")
    fitted = NaiveBayes().fit(X, table["credit_risk"])
    kinds = dict(zip(X.columns, fitted.feature_kinds_, strict=True))
    assert {c for c, k in kinds.items() if k == "lognormal"} == {"duration", "amount", "age"}
    X = pd.read_csv(io.StringIO(make_credit_table().to_csv(index=False)))
    model = TAN().fit(X.drop(columns="credit_risk"), X["credit_risk"])
    described = model.describe().set_index("column")
    assert described.loc["amount", "kind"] == "lognormal"


# -- against a slow reference: a Gaussian on log x --------------------------------------
@pytest.mark.parametrize("estimator", [NaiveBayes, TAN])
def test_log_normal_equals_gaussian_on_the_logarithm(estimator):
    X, y = _skewed()
    X.loc[::17, "a"] = np.nan  # missing cells, a Gaussian parent's included
    X.loc[::23, "b"] = np.nan
    logged = X.assign(a=np.log(X["a"]), b=np.log(X["b"]))
    model = estimator(distributions={"a": "lognormal", "b": "lognormal"}).fit(X, y)
    reference = estimator(distributions={"a": "gaussian", "b": "gaussian"}).fit(logged, y)
    assert model.feature_kinds_[:2] == ["lognormal", "lognormal"]
    assert set(model.structure_.edges) == set(reference.structure_.edges)
    np.testing.assert_allclose(
        model.predict_proba(X), reference.predict_proba(logged), rtol=0, atol=1e-12
    )
    # the joint density of x is that of log x times 1/x for every observed log-normal cell
    codes, values = model.encode(X)
    ref_codes, ref_values = reference.encode(logged)
    jacobian = -np.nansum(np.log(X[["a", "b"]].to_numpy()), axis=1)
    np.testing.assert_allclose(
        model.compiled_.joint_log_likelihood(codes, values),
        reference.compiled_.joint_log_likelihood(ref_codes, ref_values) + jacobian[:, None],
        rtol=1e-12,
    )


def test_log_normal_density_integrates_to_one_in_data_units():
    X, y = _skewed()
    node = NaiveBayes(distributions={"a": LogNormal()}).fit(X, y).distributions_["a"]
    grid = np.linspace(1e-6, 5000, 400_001)
    density = np.exp(node.describe().log_density(grid))  # (grid, C, 1)
    np.testing.assert_allclose(np.trapezoid(density, grid, axis=0), 1.0, atol=2e-3)
    assert np.exp(node.describe().log_density(np.array([-1.0, 0.0]))).max() == 0.0


def test_parameters_are_those_of_log_x():
    X, y = _skewed()
    node = NaiveBayes(distributions={"a": LogNormal()}).fit(X, y).distributions_["a"]
    logs = np.log(X["a"].to_numpy())
    np.testing.assert_allclose(node.mean_, [logs[y == c].mean() for c in (0, 1)], rtol=1e-12)
    np.testing.assert_allclose(node.var_, [logs[y == c].var() for c in (0, 1)], rtol=1e-6)


# -- values outside the support -----------------------------------------------------------
def test_non_positive_values_at_prediction_are_summed_out_and_counted():
    X, y = _skewed()
    model = TAN(distributions={"a": "lognormal", "b": "lognormal"}).fit(X, y)
    test = X.head(6).copy()
    test.loc[0, "a"], test.loc[3, "b"] = 0.0, -2.5
    with pytest.warns(UnseenCategoryWarning, match="'a' \\(1\\), 'b' \\(1\\)") as record:
        proba = model.predict_proba(test)
    assert record[0].message.counts == {"a": 1, "b": 1}
    as_missing = test.assign(a=test["a"].where(test["a"] > 0), b=test["b"].where(test["b"] > 0))
    np.testing.assert_allclose(proba, model.predict_proba(as_missing), rtol=0, atol=1e-15)
    strict = TAN(distributions={"a": "lognormal"}, handle_unknown="error").fit(X, y)
    with pytest.raises(ValueError, match="Column 'a' is modelled as lognormal.*row 0 holds 0"):
        strict.predict(test)


def test_non_positive_training_values_are_refused_naming_the_column():
    X, y = _skewed()
    X.loc[5, "b"] = -1.0
    with pytest.raises(ValueError, match="Column 'b' is modelled as lognormal.*row 5 holds -1"):
        NaiveBayes(distributions={"b": "lognormal"}).fit(X, y)
    assert NaiveBayes().fit(X, y).feature_kinds_[1] == "gaussian"  # the rule never picks it


# -- everything that reads or writes values ------------------------------------------------
def test_partial_fit_and_model_files_keep_log_normal_nodes():
    from bnclassify.io import dump, load

    X, y = _skewed()
    model = TAN().fit(X, y)
    assert model.feature_kinds_ == ["lognormal", "lognormal", "categorical"]
    with pytest.raises(OutOfCoreError, match="'a', 'b'"):  # the rule's choice reads every row
        TAN().partial_fit(X.iloc[:20], y[:20], classes=[0, 1])
    chunked = TAN(distributions={"a": "lognormal", "b": "lognormal"})
    for rows in np.array_split(np.arange(len(X)), 3):
        chunked.partial_fit(X.iloc[rows], y[rows], classes=[0, 1])
    np.testing.assert_allclose(chunked.predict_proba(X), model.predict_proba(X), atol=1e-12)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.bnc")
        dump(model, path)
        loaded = load(path)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert type(loaded.distributions_["a"]) is LogNormal


def test_explanations_show_data_units_and_equal_the_log_reference():
    from bnclassify.explain import explain

    X, y = _skewed(120)
    logged = X.assign(a=np.log(X["a"]), b=np.log(X["b"]))
    model = TAN(distributions={"a": "lognormal", "b": "lognormal"}).fit(X, y)
    reference = TAN(distributions={"a": Gaussian(), "b": Gaussian()}).fit(logged, y)
    for method in ("interventional", "conditional"):
        kwargs = {"background": X.head(20)} if method == "interventional" else {}
        ref_kwargs = {"background": logged.head(20)} if method == "interventional" else {}
        ours = explain(model, X.head(8), method=method, output="probability", **kwargs)
        ref = explain(reference, logged.head(8), method=method, output="probability", **ref_kwargs)
        np.testing.assert_allclose(ours.values, ref.values, atol=1e-10)
        np.testing.assert_allclose(ours.data[:, 0].astype(float), X["a"].head(8), rtol=1e-12)


def test_plots_draw_log_normal_nodes_in_data_units():
    import matplotlib.pyplot as plt

    from bnclassify.plotting import plot_class_densities, plot_cpt

    X, y = _skewed()
    model = TAN(distributions={"a": "lognormal", "b": "lognormal"}).fit(X, y)
    child = next(c for c in ("a", "b") if model.distributions_[c].parents_[-1:] in (("a",), ("b",)))
    fig = plot_cpt(model, child)
    assert fig.axes[0].get_ylabel().startswith(f"log {child}")
    assert fig.axes[0].get_xlabel().startswith("log ")
    plt.close(fig)
    root = "a" if child == "b" else "b"
    ax = plot_class_densities(model, root, sample=X.head(1))
    assert ax.get_xlim()[0] >= 0 or np.all(np.isfinite(ax.get_xlim()))
    plt.close("all")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(exponent=st.integers(-200, 200), factor=st.floats(1.0, 9.9))
def test_log_normal_predictions_do_not_depend_on_units(exponent, factor):
    X, y = _skewed(200)
    scale = factor * 10.0**exponent
    base = TAN().fit(X, y)
    scaled_X = X.assign(a=X["a"] * scale, b=X["b"] * scale)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scaled = TAN().fit(scaled_X, y)
        proba = scaled.predict_proba(scaled_X)
    assert scaled.feature_kinds_ == base.feature_kinds_
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba, base.predict_proba(X), atol=1e-9)


def test_rule_counts_sample_weights_as_repeated_rows():
    rng = np.random.default_rng(4)
    for x in (rng.lognormal(1, 0.3, 40), rng.normal(20, 4, 40), rng.gamma(3.0, 1.0, 40)):
        w = rng.integers(0, 4, len(x))
        for level in (0.0, 1.0, 1.96):
            assert prefers_log_normal(x, level, weights=w) == prefers_log_normal(
                np.repeat(x, w), level
            )


def test_rule_fits_within_classes_so_a_mixture_of_normals_stays_gaussian():
    rng = np.random.default_rng(5)
    y = rng.choice(2, 2000, p=[0.8, 0.2])
    x = rng.normal(np.where(y == 1, 20.0, 10.0), 1.0)  # a skewed mixture of two normals
    assert prefers_log_normal(x)  # pooled, the long right tail looks log-normal
    assert not prefers_log_normal(x, classes=y)
    assert NaiveBayes().fit(pd.DataFrame({"x": x}), y).feature_kinds_ == ["gaussian"]
    assert default_kind(pd.Series(x), classes=y) == "gaussian"
    labels = np.where(y == 1, "b", "a").astype(object)
    labels[:5] = None  # a missing label takes no part
    assert not prefers_log_normal(x, classes=labels)


def test_decision_boundary_of_log_normal_features_stays_in_their_support():
    import matplotlib.pyplot as plt

    from bnclassify.plotting import plot_decision_boundary

    X, y = _skewed()
    model = NaiveBayes().fit(X[["a", "b"]], y)
    assert model.feature_kinds_ == ["lognormal", "lognormal"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no cell outside the support: nothing summed out
        ax = plot_decision_boundary(model, X[["a", "b"]], y)
    assert ax.get_xlim()[0] > 0 and ax.get_ylim()[0] > 0
    plt.close("all")


def test_tall_columns_are_tested_on_an_even_subsample_of_rows():
    from bnclassify.data import LOG_NORMAL_MIN_Z

    rng = np.random.default_rng(6)
    n = 300_000
    y = rng.integers(0, 2, n)
    skewed = pd.Series(rng.lognormal(1 + y, 0.5))
    skewed[::7] = np.nan
    normal = pd.Series(rng.normal(50 + y, 3.0, n))
    assert default_kind(skewed, classes=y) == "lognormal"
    assert default_kind(normal, classes=y) == "gaussian"
    step = -(-n // (1 << 16))
    rows = np.arange(0, n, step)
    kept = skewed.iloc[rows].notna().to_numpy()
    assert prefers_log_normal(skewed.iloc[rows][kept], LOG_NORMAL_MIN_Z, classes=y[rows][kept]) == (
        default_kind(skewed, classes=y) == "lognormal"
    )


def test_the_log_normal_test_with_a_class_whose_weights_underflow():
    # weights relative to the largest (8e299): a class weighted only 5e-324 and 1e-30 has
    # size 0 there, and its mean divided 0 by 0 (a RuntimeWarning found by
    # test_extreme_values' hypothesis run)
    x = np.full(4, 1e308)
    weights = np.array([8e299, 5e-324, 1.0, 5e-324])
    assert prefers_log_normal(x, weights=weights, classes=np.array(["q", "p", "q", "p"])) is False
