"""benchmarks/uci.py on a two-set collection: folds, losses, refusals and the summaries."""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pandas as pd

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
