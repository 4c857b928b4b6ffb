"""benchmarks/uci.py on a two-set collection: folds, losses, refusals and the summaries."""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "uci.py"


def _uci():
    spec = importlib.util.spec_from_file_location("bnclassify_uci_benchmark", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _collection(folder: Path) -> None:
    rng = np.random.default_rng(0)
    n = 80
    colour = rng.choice(["red", "green", "blue"], n)
    size = rng.normal(size=n)
    label = np.where((colour == "red") ^ (size > 0.5), "yes", "no")
    pd.DataFrame({"label": label, "colour": colour, "size": size}).to_csv(
        folder / "toy.csv", index=False
    )
    flips = rng.choice(["a", "b"], n)
    pd.DataFrame({"x": flips, "y": np.where(rng.random(n) < 0.8, flips, "c")}).to_csv(
        folder / "flips.csv", index=False
    )
    pd.DataFrame({"name": ["toy", "flips"], "target": ["label", "y"]}).to_csv(
        folder / "MANIFEST.csv", index=False
    )


@pytest.mark.slow
def test_the_benchmark_scores_every_fold_and_counts_a_refusal_as_a_loss(tmp_path):
    _collection(tmp_path)
    results = tmp_path / "results.json"
    uci = _uci()
    # KDB(k=-1) refuses every fold (an invalid parameter): a refusal, not a crash
    argv = [
        "--data",
        str(tmp_path),
        "--models",
        "nb;KDB(k=-1)",
        "--results",
        str(results),
        "--markdown",
        str(tmp_path / "summary.md"),
        "--figure",
        str(tmp_path / "fig.png"),
    ]
    assert uci.main(argv) == 0
    stored = json.loads(results.read_text())
    assert set(stored) == {"toy", "flips"}
    for entry in stored.values():
        assert set(entry) == {"RandomForest", "HistGradientBoosting", "nb", "KDB(k=-1)"}
        assert all(len(folds) == 10 for folds in entry.values())
        assert all("error" in fold for fold in entry["KDB(k=-1)"])
        for fold in entry["nb"]:
            assert 0 <= fold["zero_one"] <= 1 and fold["log_loss"] > 0 and 0 <= fold["rmse"] <= 1
    summary = uci.summary_table(stored, ["RandomForest", "nb", "KDB(k=-1)"])
    assert summary.loc["KDB(k=-1)", "refused sets"] == 2
    assert summary.loc["KDB(k=-1)", "log loss W/D/L vs RF"] == "0/0/2"
    assert summary.loc["KDB(k=-1)", "log loss rank"] == 3.0  # a refusal ranks last
    assert "| model |" in (tmp_path / "summary.md").read_text()
    assert (tmp_path / "fig.png").stat().st_size > 0


def test_the_losses_follow_their_definitions():
    uci = _uci()
    X = pd.DataFrame({"x": ["a", "b"] * 10})
    y = np.array(["p", "q"] * 10)
    classes = np.unique(y)
    scores = uci.fold_scores("nb", X, y, np.arange(20), np.arange(20), classes)
    p = (10 + 1) / (10 + 2)  # Laplace: each class sees its one value ten times
    posterior = p / (p + (1 - p))
    assert np.isclose(scores["log_loss"], -np.log(posterior))
    assert np.isclose(scores["rmse"], np.sqrt(2 * (1 - posterior) ** 2 / 2))
    assert scores["zero_one"] == 0 and scores["below_floor"] == 0


def test_models_split_at_top_level_commas_so_one_model_may_take_arguments():
    specs = _uci().model_specs
    assert specs("KDB(k=2, smoothing='hls')") == ["KDB(k=2, smoothing='hls')"]
    assert specs("kdb2,KDB(k=2, smoothing='hdp'),nb") == ["kdb2", "KDB(k=2, smoothing='hdp')", "nb"]
    assert specs("X(names=['a', 'b']);y") == ["X(names=['a', 'b'])", "y"]
    assert specs("X(s='a,b'),y") == ["X(s='a,b')", "y"]


# -- the report from given per-fold results (no model fitted) --------------------------------

RF, HGB = "RandomForest", "HistGradientBoosting"
SPREAD = np.array([0.01, -0.01, 0.02, -0.02, 0.0, 0.0, 0.01, -0.01, 0.015, -0.015])
WOBBLE = np.array([0.002, -0.002] * 5)  # the two halves of each repeat differ a little
SWING = np.array([0.1, -0.1] * 5)  # ... or a lot


def _folds(zero_one, log_loss, fit=0.1, predict=0.01, old_format=False):
    folds = []
    for i, (z, loss) in enumerate(zip(zero_one, log_loss, strict=True)):
        fold = {"zero_one": z, "log_loss": loss, "rmse": 0.3, "below_floor": 0}
        fold.update(fit_s=fit, predict_s=predict)
        if not old_format:  # the format before the CPU times and the fold's place
            fold.update(fit_cpu_s=fit, predict_cpu_s=predict, repeat=i // 2, half=i % 2)
        folds.append(fold)
    return folds


def _refused():
    return [{"error": "ValueError: no (x.py:1)"}] * 10


def _given_results():
    """Three sets, the forest, boosting, a candidate ``best`` and an ``other`` model.

    0-1 loss means: alpha RF .205 HGB .30 best .155 other .205; beta .10 .12 refused .11;
    gamma .30 .25 .31 .3005. Log loss: alpha .50 .60 .45 .5004; beta .30 .31 refused .25;
    gamma .70 .65 .60 .72.
    """
    rf = {s: 0.0 + SPREAD for s in ("alpha", "beta", "gamma")}
    zero = {"alpha": 0.205, "beta": 0.10, "gamma": 0.30}
    log = {"alpha": 0.50, "beta": 0.30, "gamma": 0.70}
    results = {}
    for name in ("alpha", "beta", "gamma"):
        z, lg = zero[name] + rf[name], log[name] + rf[name]
        results[name] = {RF: _folds(z, lg), HGB: None, "best": None, "other": None}
    a, b, c = results["alpha"], results["beta"], results["gamma"]
    za, la = 0.205 + SPREAD, 0.50 + SPREAD
    a[HGB] = _folds(za + 0.095 + SWING, la + 0.10 + WOBBLE)  # 0-1 n.s.; log loss worse, sig.
    a["best"] = _folds(za - 0.05 + WOBBLE, la - 0.05 + WOBBLE, fit=0.05, predict=0.02)
    a["other"] = _folds(za, la + 0.0004 + SWING / 10, old_format=True)
    zb, lb = 0.10 + SPREAD, 0.30 + SPREAD
    b[HGB] = _folds(zb + 0.02, lb + 0.01 + SWING)
    b["best"] = _refused()
    b["other"] = _folds(zb + 0.01 + SWING, lb - 0.05 + SWING, old_format=True)
    zc, lc = 0.30 + SPREAD, 0.70 + SPREAD
    c[HGB] = _folds(zc - 0.05 + SWING, lc - 0.05 + SWING)
    c["best"] = _folds(zc + 0.01 + SWING, lc - 0.10 + SWING, fit=0.05, predict=0.02)
    c["other"] = _folds(zc + 0.0005 + SWING / 10, lc + 0.02 + SWING, old_format=True)
    return results


def _alpaydin(a, b):
    d = (np.asarray(a) - np.asarray(b)).reshape(5, 2)
    spread = ((d - d.mean(axis=1, keepdims=True)) ** 2).sum()
    return (d**2).sum() / (2 * spread)


def test_the_report_counts_the_f_test_ranks_and_wins_from_given_folds():
    uci = _uci()
    results = _given_results()
    specs = [RF, HGB, "best", "other"]
    # the F test per set is Alpaydin's statistic on the stored folds
    table = uci.ftest_table(results, "best", RF, "zero_one")
    best = [f["zero_one"] for f in results["alpha"]["best"]]
    forest = [f["zero_one"] for f in results["alpha"][RF]]
    assert table.loc["alpha", "statistic"] == pytest.approx(_alpaydin(best, forest))
    assert table.loc["alpha", "diff"] == pytest.approx(-0.05)
    assert table["verdict"].to_dict() == {"alpha": 1, "beta": -1, "gamma": 0}
    assert table.loc["gamma", "pvalue"] > 0.05 and table.loc["alpha", "pvalue"] < 0.05

    summary = uci.summary_table(results, specs)
    # 0-1 ranks by hand: alpha best 1, RF = other 2.5, HGB 4; beta RF, other, HGB, best
    # (refused: last); gamma HGB, RF, other, best
    assert summary["0-1 rank"].to_dict() == pytest.approx(
        {RF: 5.5 / 3, HGB: 8 / 3, "best": 9 / 3, "other": 7.5 / 3}
    )
    assert summary.loc["best", "0-1 W/D/L vs RF"] == "1/0/2"
    assert summary.loc["best", "0-1 sig W/L vs RF"] == "1/1"  # the refusal is a significant loss
    assert summary.loc["other", "0-1 W/D/L vs RF"] == "0/2/1"  # within 1e-3: draws
    assert summary.loc["other", "0-1 sig W/L vs RF"] == "0/0"
    assert summary.loc["best", "log loss W/D/L vs RF"] == "2/0/1"
    assert summary.loc["best", "log loss sig W/L vs RF"] == "1/1"
    assert summary.loc[HGB, "log loss sig W/L vs RF"] == "0/1"
    assert summary.loc[RF, "log loss sig W/L vs HGB"] == "1/0"
    assert summary.loc["other", "log loss W/D/L vs HGB"] == "2/0/1"  # .5004<.60, .25<.31, .72>.65
    assert summary.loc["best", "refused sets"] == 1
    assert summary.loc["best", "fit s (1 thread)"] == pytest.approx(0.10)  # two sets fitted
    assert np.isnan(summary.loc["other", "fit CPU s (1 thread)"])  # not in the old format
    assert np.isnan(summary.loc["best", "fit s (all cores)"])  # not measured
    # the draw rule is an option: at 1e-9 the near-equal means win or lose
    strict = uci.summary_table(results, specs, draw=1e-9)
    assert strict.loc["other", "0-1 W/D/L vs RF"] == "0/1/2"

    rows = uci.targets(results, "best")
    assert [row["met"] for row in rows] == [True, False, False, True, False]
    assert rows[0]["value"].startswith("2/3 = 0.667")
    assert rows[2]["value"].startswith("1/3 = 0.333: beta (refused)")
    assert rows[3]["value"].startswith("0.10 vs 0.20 = 0.50x over 2 sets")
    block = uci.targets_block(results, "best")
    assert block.count("NOT MET") == 3 and "=> 3 not met (5 targets)" in block

    marked = uci.marked_table(results, specs, "zero_one")
    assert marked.loc["alpha", "best"] == "0.1550 +RF"  # against HGB the halves swing: n.s.
    assert marked.loc["beta", "best"] == "refused"


def test_the_command_line_reports_stored_results_and_adds_the_times_it_lacks(tmp_path, capsys):
    uci = _uci()
    stored = tmp_path / "given.json"
    stored.write_text(json.dumps(_given_results()))
    collection = tmp_path / "sets"
    collection.mkdir()
    pd.DataFrame({"name": ["alpha", "beta", "gamma"], "target": ["y"] * 3}).to_csv(
        collection / "MANIFEST.csv", index=False
    )
    argv = ["--data", str(collection), "--models", "best,other", "--results", str(stored)]
    assert (
        uci.main(
            [*argv, "--report-only", "--best", "best", "--cd-figure", str(tmp_path / "cd.png")]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "[    NOT MET] 0-1 loss wins on >= 1/2 of the sets: 1/3" in out
    assert "0-1: 4 models over 3 sets; Friedman" in out
    assert (tmp_path / "cd.png").stat().st_size > 0

    # a run adds what a stored fold lacks (here the all-core times), keeping its losses
    _collection(collection)
    before = json.loads((tmp_path / "given.json").read_text())
    argv = ["--data", str(collection), "--sets", "toy", "--no-peers", "--models", "nb"]
    assert uci.main([*argv, "--results", str(stored), "--threads", "1"]) == 0
    first = json.loads(stored.read_text())["toy"]["nb"]
    assert uci.main([*argv, "--results", str(stored), "--threads", "all"]) == 0
    after = json.loads(stored.read_text())
    for old, new in zip(first, after["toy"]["nb"], strict=True):
        assert new["log_loss"] == old["log_loss"] and new["fit_s"] == old["fit_s"]
        assert new["fit_s_all"] > 0 and new["predict_s_all"] > 0
    assert [(f["repeat"], f["half"]) for f in first] == [(i // 2, i % 2) for i in range(10)]
    assert after["alpha"] == before["alpha"]
