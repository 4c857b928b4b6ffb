"""Tests of a difference between models: the combined 5x2cv F test, Friedman's test, the
Nemenyi critical difference and its diagram, against hand computation, scipy's distributions
and the worked example of Demsar (2006)."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from scipy import stats  # noqa: E402

from bnclassify.metrics import (  # noqa: E402
    combined_5x2cv_ftest,
    friedman_test,
    mean_ranks,
    nemenyi_critical_difference,
)
from bnclassify.plotting import critical_difference_groups, plot_critical_difference  # noqa: E402

#: Demsar (2006), table 6: AUC of C4.5, with curtailment (m), with its confidence level tuned
#: (cf), and both, on 14 UCI data sets (higher is better).
DEMSAR_MODELS = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
DEMSAR_SETS = [
    "adult (sample)",
    "breast cancer",
    "breast cancer wisconsin",
    "cmc",
    "ionosphere",
    "iris",
    "liver disorders",
    "lung cancer",
    "lymphography",
    "mushroom",
    "primary tumor",
    "rheum",
    "voting",
    "wine",
]
DEMSAR_AUC = [
    [0.763, 0.768, 0.771, 0.798],
    [0.599, 0.591, 0.590, 0.569],
    [0.954, 0.971, 0.968, 0.967],
    [0.628, 0.661, 0.654, 0.657],
    [0.882, 0.888, 0.886, 0.898],
    [0.936, 0.931, 0.916, 0.931],
    [0.661, 0.668, 0.609, 0.685],
    [0.583, 0.583, 0.563, 0.625],
    [0.775, 0.838, 0.866, 0.875],
    [1.000, 1.000, 1.000, 1.000],
    [0.940, 0.962, 0.965, 0.962],
    [0.619, 0.666, 0.614, 0.669],
    [0.972, 0.981, 0.975, 0.975],
    [0.957, 0.978, 0.946, 0.970],
]


def _demsar(as_printed=False):
    """The table as printed, or as the paper ranks it: its ranks put voting's C4.5+cf
    second and C4.5+m+cf third, though both AUCs print as 0.975 (the unrounded values
    differed); without that tie broken the mean ranks are 2.929 and 1.929, not the
    paper's 2.893 and 1.964."""
    table = pd.DataFrame(DEMSAR_AUC, index=DEMSAR_SETS, columns=DEMSAR_MODELS)
    if not as_printed:
        table.loc["voting", "C4.5+cf"] += 1e-5
    return table


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# -- the combined 5x2cv F test -------------------------------------------------------------


def _by_hand(a, b):
    """Alpaydin's statistic written out term by term, as in the paper."""
    numerator, spread = 0.0, 0.0
    for i in range(5):
        p1, p2 = a[2 * i] - b[2 * i], a[2 * i + 1] - b[2 * i + 1]
        mean = (p1 + p2) / 2
        numerator += p1**2 + p2**2
        spread += (p1 - mean) ** 2 + (p2 - mean) ** 2
    return numerator / (2 * spread)


def test_the_f_test_is_alpaydins_statistic_against_f_10_5():
    rng = np.random.default_rng(3)
    for shift in (0.0, 0.01, 0.05):
        a = rng.normal(0.2, 0.02, size=10)
        b = a - shift + rng.normal(0, 0.01, size=10)
        result = combined_5x2cv_ftest(a, b)
        f = _by_hand(a, b)
        assert result.statistic == pytest.approx(f, rel=1e-12)
        assert result.pvalue == pytest.approx(stats.f.sf(f, 10, 5), rel=1e-12)
        assert (result.df_num, result.df_den) == (10, 5)
        # two-sided and in units of the scores: swapping or scaling changes nothing
        assert combined_5x2cv_ftest(b, a).statistic == pytest.approx(f, rel=1e-12)
        assert combined_5x2cv_ftest(100 * a, 100 * b).statistic == pytest.approx(f, rel=1e-9)
        # replications as rows: the same test
        assert combined_5x2cv_ftest(a.reshape(5, 2), b.reshape(5, 2)) == result


def test_the_f_test_by_hand_on_small_numbers():
    # differences -0.02 -0.01 | -0.02 -0.01 | -0.03 -0.02 | -0.01 -0.02 | -0.02 -0.03:
    # squares sum to 41e-4, each replication's s^2 is 2 * 0.005^2 = 0.5e-4, f = 41 / 5
    a = [0.10, 0.12, 0.11, 0.12, 0.10, 0.12, 0.12, 0.11, 0.10, 0.11]
    b = [0.12, 0.13, 0.13, 0.13, 0.13, 0.14, 0.13, 0.13, 0.12, 0.14]
    result = combined_5x2cv_ftest(a, b)
    assert result.statistic == pytest.approx(8.2, rel=1e-9)
    # Alpaydin's critical value at 0.05: f > 4.74 rejects
    assert stats.f.ppf(0.95, 10, 5) == pytest.approx(4.74, abs=5e-3)
    assert result.pvalue < 0.05
    # one replication disagreeing inflates the spread: f = 45e-4 / (2 * 6.5e-4), not significant
    b[2] = 0.14
    a[3] = 0.13
    assert combined_5x2cv_ftest(a, b).statistic == pytest.approx(45 / 13, rel=1e-9)
    assert combined_5x2cv_ftest(a, b).pvalue > 0.05


def test_the_f_test_edge_cases():
    a = np.linspace(0.1, 0.2, 10)
    assert combined_5x2cv_ftest(a, a)[:2] == (0.0, 1.0)
    # each replication's two differences equal but not zero: no spread, a certain difference
    shift = np.repeat([0.01, 0.02, 0.01, 0.03, 0.02], 2)
    assert combined_5x2cv_ftest(a + shift, a)[:2] == (np.inf, 0.0)
    lossy = a.copy()
    lossy[4] = np.inf
    assert np.isnan(combined_5x2cv_ftest(lossy, a).pvalue)
    huge = np.full(10, 1e308)
    huge[::2] = -1e308
    assert np.isfinite(combined_5x2cv_ftest(huge, -huge).statistic)
    with pytest.raises(ValueError, match="ten folds of 5x2"):
        combined_5x2cv_ftest(a[:8], a[:8])
    with pytest.raises(ValueError, match="ten folds of 5x2"):
        combined_5x2cv_ftest(a.reshape(2, 5), a.reshape(2, 5))
    with pytest.raises(ValueError, match=r"a \(one score per fold\) must hold real numbers"):
        combined_5x2cv_ftest(["x"] * 10, a)


# -- ranks, Friedman and Iman-Davenport ----------------------------------------------------


def test_demsars_worked_example():
    # Demsar (2006), section 3.2.2: mean ranks 3.143, 2.000, 2.893, 1.964; chi2_F = 9.28;
    # F_F = 3.69, above F(3, 39)'s critical value 2.85 at 0.05
    result = friedman_test(_demsar(), lower_is_better=False)
    assert list(result.ranks.index) == DEMSAR_MODELS
    np.testing.assert_allclose(result.ranks, [3.143, 2.000, 2.893, 1.964], atol=5e-4)
    assert result.chi2 == pytest.approx(9.28, abs=5e-3)
    assert result.statistic == pytest.approx(3.69, abs=5e-3)
    assert (result.df_num, result.df_den) == (3, 39)
    assert stats.f.ppf(0.95, 3, 39) == pytest.approx(2.85, abs=5e-3)
    assert result.pvalue == pytest.approx(stats.f.sf(result.statistic, 3, 39))
    assert result.chi2_pvalue == pytest.approx(stats.chi2.sf(result.chi2, 3))
    assert result.pvalue < 0.05 < result.chi2_pvalue * 2  # F_F rejects where chi2 is weaker
    # the printed table, its tie shared: ranks 2.929 and 1.929 for the two tied models
    printed = mean_ranks(_demsar(as_printed=True), lower_is_better=False)
    np.testing.assert_allclose(printed, [3.143, 2.000, 2.929, 1.929], atol=5e-4)


def test_friedman_equals_scipy_without_ties_and_the_formula_by_hand():
    rng = np.random.default_rng(11)
    scores = rng.random((9, 5))
    result = friedman_test(scores)
    reference = stats.friedmanchisquare(*scores.T)
    assert result.chi2 == pytest.approx(reference.statistic, rel=1e-12)
    assert result.chi2_pvalue == pytest.approx(reference.pvalue, rel=1e-12)
    n, k = scores.shape
    ranks = np.argsort(np.argsort(scores, axis=1), axis=1).mean(axis=0) + 1
    np.testing.assert_allclose(result.ranks, ranks)
    chi2 = 12 * n / (k * (k + 1)) * (np.sum(ranks**2) - k * (k + 1) ** 2 / 4)
    f = (n - 1) * chi2 / (n * (k - 1) - chi2)
    assert result.statistic == pytest.approx(f, rel=1e-12)
    assert result.pvalue == pytest.approx(stats.f.sf(f, k - 1, (k - 1) * (n - 1)), rel=1e-12)
    # scores rather than losses: every rank mirrored
    np.testing.assert_allclose(mean_ranks(scores, lower_is_better=False), k + 1 - ranks)


def test_friedman_limits_and_refusals():
    agree = np.tile([0.1, 0.2, 0.3], (6, 1)) + np.arange(6)[:, None]
    result = friedman_test(agree)
    assert result.chi2 == pytest.approx(6 * 2) and result[:2] == (np.inf, 0.0)
    tied = friedman_test(np.ones((4, 3)))
    assert tied.chi2 == 0.0 and tied.statistic == 0.0 and tied.pvalue == pytest.approx(1.0)
    # a refusal as an infinite loss ranks last
    losses = pd.DataFrame({"a": [0.1, 0.2], "b": [np.inf, 0.1], "c": [0.3, np.inf]})
    assert mean_ranks(losses).tolist() == [1.5, 2.0, 2.5]
    missing = losses.copy()
    missing.loc[1, "b"] = np.nan
    with pytest.raises(ValueError, match="model 'b' on data set 1"):
        friedman_test(missing)
    with pytest.raises(ValueError, match="at least two data sets"):
        friedman_test(losses.iloc[:1])
    with pytest.raises(ValueError, match="one column per model"):
        mean_ranks(np.ones((3, 1)))
    with pytest.raises(ValueError, match="must hold numbers"):
        mean_ranks(pd.DataFrame({"a": ["x", "y"], "b": [1.0, 2.0]}))


# -- the Nemenyi critical difference -------------------------------------------------------

#: Demsar (2006), table 5a: q_alpha for 2 to 10 models.
Q_05 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
Q_10 = [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]


@pytest.mark.parametrize(("alpha", "table"), [(0.05, Q_05), (0.10, Q_10)])
def test_the_critical_difference_uses_demsars_q(alpha, table):
    for k, q in enumerate(table, start=2):
        n = 14
        cd = nemenyi_critical_difference(k, n, alpha)
        assert cd / np.sqrt(k * (k + 1) / (6 * n)) == pytest.approx(q, abs=1e-3)


def test_the_critical_difference_of_demsars_example_and_bad_arguments():
    # Demsar: CD = 2.569 sqrt(4 * 5 / (6 * 14)) = 1.25 at 0.05
    assert nemenyi_critical_difference(4, 14) == pytest.approx(1.25, abs=5e-3)
    with pytest.raises(ValueError, match="n_models"):
        nemenyi_critical_difference(1, 14)
    with pytest.raises(ValueError, match="alpha"):
        nemenyi_critical_difference(4, 14, alpha=1.5)


# -- the diagram ---------------------------------------------------------------------------


def _drawn(ax):
    labels = {
        t.bnclassify_model: t.bnclassify_rank for t in ax.texts if hasattr(t, "bnclassify_model")
    }
    groups = [line.bnclassify_group for line in ax.lines if hasattr(line, "bnclassify_group")]
    (cd,) = [line.bnclassify_cd for line in ax.lines if hasattr(line, "bnclassify_cd")]
    return labels, groups, cd


def test_the_diagram_of_demsars_example():
    # at 0.05 (CD 1.25) no two differ: one group of all four; at 0.10 (CD 1.12) C4.5 is
    # worse than C4.5+m and C4.5+m+cf (differences 1.143 and 1.179), as the paper concludes
    labels, groups, cd = _drawn(plot_critical_difference(_demsar(), lower_is_better=False))
    assert labels == pytest.approx(
        dict(zip(DEMSAR_MODELS, [22 / 7, 2.0, 40.5 / 14, 27.5 / 14], strict=True))
    )
    assert cd == pytest.approx(1.25, abs=5e-3)
    assert groups == [("C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5")]
    _, groups, cd = _drawn(plot_critical_difference(_demsar(), lower_is_better=False, alpha=0.1))
    assert cd == pytest.approx(1.12, abs=5e-3)
    assert groups == [("C4.5+m+cf", "C4.5+m", "C4.5+cf"), ("C4.5+cf", "C4.5")]


def test_groups_are_maximal_runs_within_the_critical_difference():
    ranks = {"a": 1.0, "b": 1.5, "c": 2.4, "d": 2.6, "e": 4.0}
    groups = [("a", "b", "c"), ("b", "c", "d"), ("d", "e")]
    assert critical_difference_groups(ranks, cd=1.5) == groups
    assert critical_difference_groups(ranks, cd=0.1) == []
    assert critical_difference_groups(ranks, cd=10) == [tuple("abcde")]
    # exactly CD apart is a significant difference (Demsar: "differ by at least the CD")
    assert critical_difference_groups({"a": 1.0, "b": 2.0}, cd=1.0) == []
    # an array's models are named by their column numbers, on an axes given
    _, ax = plt.subplots()
    assert plot_critical_difference(np.array(DEMSAR_AUC), lower_is_better=False, ax=ax) is ax
    assert set(_drawn(ax)[0]) == {"0", "1", "2", "3"}
