"""``bnclassify compare --save-model`` and ``bnclassify predict``: models that travel by file."""

import json

import numpy as np
import pandas as pd
import pytest
from _cli import assert_one_line_error, run_cli
from sklearn.metrics import log_loss
from sklearn.model_selection import KFold

from bnclassify import SKDB, TAN, NaiveBayes, SignalSubgraphClassifier
from bnclassify.datasets import load_p450, make_signal_subgraph_networks
from bnclassify.io import dump, load
from bnclassify.study.cli import main, model_file_name


def test_model_file_names():
    # a model's short name (what --models takes), else its display name's words
    assert model_file_name("Simpler TAN") == "stan.bnc"
    assert model_file_name("TAN (study's tree)") == "study-tan.bnc"
    assert model_file_name("KDB (k=2)") == "kdb2.bnc"
    assert model_file_name("A new model (k=3)") == "a-new-model-k-3.bnc"


def test_compare_saves_models_fitted_on_all_the_data_and_predict_reads_them(capsys, tmp_path):
    models = tmp_path / "models"
    code, out, err = run_cli(
        capsys, "compare", "--models", "NB,TAN", "--folds", "2", "--no-progress",
        "--save-model", models,
    )  # fmt: skip
    assert code == 0, err
    assert f"wrote {models / 'tan.bnc'}" in out
    assert sorted(p.name for p in models.iterdir()) == ["nb.bnc", "tan.bnc"]
    p450 = load_p450()
    saved = load(models / "tan.bnc")
    direct = TAN().fit(p450.data, p450.target)
    assert np.array_equal(saved.predict_proba(p450.data), direct.predict_proba(p450.data))

    rows = p450.frame.iloc[:20].copy()
    rows.iloc[3, 1] = None  # a missing cell is summed out
    csv = tmp_path / "rows.csv"
    rows.to_csv(csv, index=False)  # the class column is there too; predict ignores it
    out_csv = tmp_path / "pred.csv"
    code, out, err = run_cli(
        capsys, "predict", "--model", models / "tan.bnc", "--csv", csv, "--out", out_csv
    )
    assert code == 0, err
    assert f"wrote {out_csv} (20 rows)" in out
    written = pd.read_csv(out_csv, dtype={"prediction": str})
    assert list(written.columns) == ["prediction", "P(0)", "P(1)"]
    expected = direct.predict_proba(rows.drop(columns=p450.target.name))
    assert np.array_equal(written[["P(0)", "P(1)"]].to_numpy(), expected)
    assert written.prediction.tolist() == list(direct.classes_[expected.argmax(axis=1)])

    code, out, err = run_cli(capsys, "predict", "--model", models / "nb.bnc", "--csv", csv)
    assert code == 0, err
    assert out.splitlines()[0] == "prediction,P(0),P(1)" and len(out.splitlines()) == 21


def test_predict_matches_integer_bool_and_float_columns(capsys, tmp_path):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 120)
    X = pd.DataFrame(
        {
            "count": rng.integers(0, 4, 120) + y,
            "flag": rng.random(120) < 0.3 + 0.4 * y,
            "size": rng.normal(y, 1.0),
        }
    )
    model = TAN().fit(X, np.array(["no", "yes"])[y])
    dump(model, tmp_path / "m.bnc")
    rows = X.iloc[:10].astype(object)
    rows.iloc[2, 2] = None
    rows.iloc[4, 0] = None
    rows.to_csv(tmp_path / "rows.csv", index=False)
    code, out, err = run_cli(
        capsys, "predict", "--model", tmp_path / "m.bnc", "--csv", tmp_path / "rows.csv",
        "--out", tmp_path / "p.csv",
    )  # fmt: skip
    assert code == 0, err
    written = pd.read_csv(tmp_path / "p.csv")
    expected = model.predict_proba(rows.astype({"size": float}))
    assert np.array_equal(written[["P(no)", "P(yes)"]].to_numpy(), expected)


def test_predict_errors_are_one_line(capsys, tmp_path):
    p450 = load_p450()
    csv = tmp_path / "rows.csv"
    p450.frame.iloc[:5].to_csv(csv, index=False)
    code, _, err = run_cli(capsys, "predict", "--model", csv, "--csv", csv)
    assert_one_line_error(code, err, "is not a bnclassify model file")
    code, _, err = run_cli(capsys, "predict", "--model", tmp_path / "none.bnc", "--csv", csv)
    assert_one_line_error(code, err, "none.bnc")
    dump(NaiveBayes().fit(p450.data, p450.target), tmp_path / "nb.bnc")
    p450.frame.iloc[:5, 2:].to_csv(tmp_path / "short.csv", index=False)
    code, _, err = run_cli(
        capsys, "predict", "--model", tmp_path / "nb.bnc", "--csv", tmp_path / "short.csv"
    )
    assert_one_line_error(code, err, "lacks the model's columns ['block1', 'block2']")
    X, y = make_signal_subgraph_networks(
        n_networks=20, n_vertices=5, n_signal_edges=2, random_state=0
    )
    dump(SignalSubgraphClassifier(n_edges=2).fit(X, y), tmp_path / "ssg.bnc")
    code, _, err = run_cli(capsys, "predict", "--model", tmp_path / "ssg.bnc", "--csv", csv)
    assert_one_line_error(code, err, "predict takes a classifier of tables")


def test_predict_needs_model_and_csv(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["predict", "--csv", "x.csv"])
    assert exit_info.value.code == 2
    assert "--model" in capsys.readouterr().err


def test_compare_runs_the_selective_kdbs_with_a_smoothing_and_reports_log_loss(capsys, tmp_path):
    # the recommended model (ESKDB, 10 members) and SKDB by their short names, every table
    # smoothed by --smoothing (BMA TAN keeps its own BDeu estimates, said in a note)
    code, out, err = run_cli(
        capsys, "compare", "--models", "nb,skdb,eskdb,bma", "--folds", "2", "--no-progress",
        "--smoothing", "hls", "--out", tmp_path / "out", "--save-model", tmp_path / "models",
    )  # fmt: skip
    assert code == 0, err
    assert "note: --smoothing hls applies to the models with a smoothing parameter; BMA TAN" in out
    header = next(line for line in out.splitlines() if line.startswith("model"))
    assert "log loss  log loss sd" in header
    assert header.endswith("log loss diff  p (log loss)")
    rows = {line.split()[0]: line for line in out.splitlines() if line.split()}
    assert {"SKDB", "ESKDB", "NB"} <= set(rows)
    saved = {name: load(tmp_path / "models" / f"{name}.bnc") for name in ("skdb", "eskdb")}
    assert saved["eskdb"].get_params()["n_estimators"] == 10
    assert {m.get_params()["smoothing"] for m in saved.values()} == {"hls"}
    # the log loss column is scikit-learn's log_loss of each fold's model, mean over folds
    folds = pd.read_csv(tmp_path / "out" / "p450_folds.csv")
    p450 = load_p450()
    X, y = p450.data, p450.target
    losses = []
    for train, test in KFold(2, shuffle=True, random_state=42).split(X):
        model = SKDB(smoothing="hls", random_state=42).fit(X.iloc[train], y.iloc[train])
        proba = model.predict_proba(X.iloc[test])
        losses.append(log_loss(y.iloc[test], proba, labels=model.classes_))
    mine = folds[folds.model == "SKDB"].sort_values("fold")["log_loss"].to_numpy()
    np.testing.assert_allclose(mine, losses, rtol=1e-12)
    summary = json.loads((tmp_path / "out" / "p450_results.json").read_text())["summary"]
    assert summary["SKDB"]["log loss"] == pytest.approx(np.mean(losses), rel=1e-9)
    assert f"{np.mean(losses):.3f}" in rows["SKDB"].split()
