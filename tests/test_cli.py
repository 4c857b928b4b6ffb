"""The ``bnclassify`` command: compare, errors in one line, reproduce, figures, cost."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _cli import assert_one_line_error, run_cli

from bnclassify.datasets import make_tree_classification
from bnclassify.study import cost as cost_study
from bnclassify.study.cli import main


@pytest.fixture
def csv_dataset(tmp_path):
    X, y, truth = make_tree_classification(
        240, 4, n_categories=3, as_frame=True, return_network=True, random_state=0
    )
    frame = X.astype(str).assign(label=y.map({0: "no", 1: "yes"}))
    path = tmp_path / "toy.csv"
    frame.to_csv(path, index=False)
    contact = pd.DataFrame(truth.adjacency, index=X.columns, columns=X.columns)
    contact_path = tmp_path / "contacts.csv"
    contact.to_csv(contact_path)
    return path, contact_path, truth


def test_compare_p450_reproduces_the_studys_nb_and_simpler_tan(capsys):
    code, out, err = run_cli(capsys, "compare", "--models", "NB,Simpler TAN", "--no-progress")
    assert code == 0, err
    assert "KFold, shuffle, random_state=42" in out and "log2" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines()}
    nb = rows["NB"]
    # accuracy, accuracy sd, study accuracy, ..., CLL, CLL sd, study CLL
    assert nb[1] == nb[3] == "0.808"
    assert nb[7] == nb[9] == "-60.69"
    simpler = next(line.split() for line in out.splitlines() if line.startswith("Simpler TAN"))
    assert simpler[2] == simpler[4] == "0.843" and simpler[8] == simpler[10] == "-52.13"


def test_compare_csv_with_contact_matrix_and_out(capsys, csv_dataset, tmp_path):
    path, contact_path, _ = csv_dataset
    out_dir = tmp_path / "out"
    code, out, err = run_cli(
        capsys,
        "compare",
        "--csv",
        str(path),
        "--target",
        "label",
        "--contact",
        str(contact_path),
        "--folds",
        "3",
        "--stratified",
        "--seed",
        "7",
        "--models",
        "nb,tan,simpler tan",
        "--out",
        str(out_dir),
        "--no-progress",
    )
    assert code == 0, err
    assert "3-fold CV (StratifiedKFold, shuffle, random_state=7)" in out
    assert "Simpler TAN" in out and "study accuracy" not in out
    folds = pd.read_csv(out_dir / "toy_folds.csv")
    assert len(folds) == 9 and set(folds.model) == {"NB", "TAN", "Simpler TAN"}
    payload = json.loads((out_dir / "toy_results.json").read_text())
    assert set(payload["summary"]) == {"NB", "TAN", "Simpler TAN"}
    assert payload["cll"] == "log2, sum per fold"
    summary = pd.read_csv(out_dir / "toy_summary.csv", index_col=0)
    assert summary.loc["NB", "accuracy_mean"] == pytest.approx(
        folds[folds.model == "NB"].accuracy.mean()
    )
    assert (out_dir / "toy_cv_results.png").stat().st_size > 0


def test_compare_csv_defaults_to_the_last_column(capsys, csv_dataset):
    path, _, _ = csv_dataset
    code, out, _ = run_cli(capsys, "compare", "--csv", str(path), "--folds", "2", "--models", "NB")
    assert code == 0 and "toy: 240 rows, 4 features, 2 classes" in out


def test_study_tan_row_is_labelled_and_optional(capsys):
    code, out, _ = run_cli(capsys, "compare", "--models", "TAN (study's tree)", "--no-progress")
    assert code == 0 and "accidental TAN trees" in out
    code, out, _ = run_cli(capsys, "compare", "--no-study-tan", "--models", "NB", "--no-progress")
    assert code == 0 and "study's tree" not in out


@pytest.mark.parametrize(
    "argv, fragments",
    [
        (["--csv", "{missing}"], ["data file not found", "nope.csv"]),
        (["--csv", "{csv}", "--target", "colour"], ["no column named 'colour'"]),
        (["--csv", "{csv}", "--contact", "{missing}"], ["contact matrix file not found"]),
        (["--csv", "{csv}", "--contact", "{bad_contact}"], ["contact matrix", "x3"]),
        (["--csv", "{csv}", "--contact", "{asymmetric}"], ["symmetric"]),
        (["--models", "NB,forest"], ["unknown model 'forest'"]),
        (["--folds", "1"], ["--folds must be at least 2"]),
        (["--target", "functional"], ["--target only applies to --csv"]),
        (["--csv", "{empty}"], ["empty"]),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, csv_dataset, tmp_path, argv, fragments):
    path, contact_path, _ = csv_dataset
    contact = pd.read_csv(contact_path, index_col=0)
    bad_contact = tmp_path / "bad.csv"
    contact.iloc[:3, :3].to_csv(bad_contact)  # 3 x 3 for 4 features: x3 missing
    asymmetric = tmp_path / "asym.csv"
    skewed = contact.copy()
    skewed.iloc[0, 1] = 5.0
    skewed.to_csv(asymmetric)
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    names = {
        "missing": str(tmp_path / "nope.csv"),
        "csv": str(path),
        "bad_contact": str(bad_contact),
        "asymmetric": str(asymmetric),
        "empty": str(empty),
    }
    code, _, err = run_cli(capsys, "compare", "--no-progress", *[a.format(**names) for a in argv])
    assert_one_line_error(code, err, *fragments)


def test_usage_errors_are_one_line_too(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["compare", "--dataset", "iris"])
    _, err = capsys.readouterr()
    assert exit_info.value.code == 2 and len(err.strip().splitlines()) == 1
    assert err.startswith("bnclassify compare: error: ") and "invalid choice: 'iris'" in err


def test_console_command_prints_no_traceback(tmp_path):
    missing = tmp_path / "missing.csv"
    result = subprocess.run(
        [sys.executable, "-m", "bnclassify.study.cli", "compare", "--csv", str(missing)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert result.stderr.strip() == f"bnclassify: error: data file not found: {missing}"


@pytest.fixture
def tiny_cost_study(monkeypatch):
    tiny = cost_study.run_cost_study(
        features=(4, 8),
        rows=(200, 400),
        rows_for_features=200,
        features_for_rows=4,
        progress=False,
    )
    monkeypatch.setattr(cost_study, "default_cost_study", lambda quick=False: tiny)
    monkeypatch.setitem(cost_study._RUNS, "latest", tiny)
    return tiny


def test_cost_command(capsys, tiny_cost_study, tmp_path):
    code, out, err = run_cli(capsys, "cost", "--out", str(tmp_path))
    assert code == 0, err
    assert "TAN / Simpler TAN" in out
    table = pd.read_csv(tmp_path / "cost_table.csv")
    assert len(table) == 4
    assert (tmp_path / "cost_study.png").stat().st_size > 0


def _regenerate_tool():
    """``tools/regenerate.py`` of the checkout, imported by path (it is not installed)."""
    path = Path(__file__).resolve().parent.parent / "tools" / "regenerate.py"
    spec = importlib.util.spec_from_file_location("bnclassify_regenerate_tool", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_regenerate_rewrites_only_the_marked_blocks(capsys, tiny_cost_study, tmp_path):
    readme = tmp_path / "README.md"
    head = '```bash\npip install -e ".[dev]" && bnclassify compare --dataset p450\npytest\n```\n'
    readme.write_text(
        head
        + "\nintro\n<!-- bnclassify:results:start -->\nold\n<!-- bnclassify:results:end -->\n"
        + "middle\n<!-- bnclassify:cost:start -->\nold\n<!-- bnclassify:cost:end -->\ntail\n"
    )
    results = tmp_path / "docs" / "results.md"
    code = _regenerate_tool().main(
        [
            *("--readme", str(readme), "--results", str(results)),
            *("--figures", str(tmp_path / "figures"), "--no-figures", "--no-progress"),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    text = readme.read_text()
    assert text.startswith(head) and "\nintro\n" in text and "middle\n" in text
    assert text.endswith("tail\n") and "\nold\n" not in text
    assert "| NB | 0.808 | 0.808 | -60.69 | -60.69 |" in text
    assert "| Simpler TAN | 0.843 | 0.843 | -52.13 | -52.13 |" in text
    assert "What the study's TAN tree changes" in text
    page = results.read_text()
    assert "## Cost study" in page and "P450 TAN (study's tree): block1->block2" in page
    assert "![cost study](../figures/cost_study.png)" in page
    assert f"wrote {results}" in out and f"wrote {readme}" in out


def test_regenerate_refuses_a_readme_without_markers(capsys, tiny_cost_study, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("no markers\n")
    results = tmp_path / "r.md"
    code = _regenerate_tool().main(
        ["--readme", str(readme), "--results", str(results), "--no-figures"]
    )
    _, err = capsys.readouterr()
    assert code == 2 and "bnclassify:results:start" in err
    assert readme.read_text() == "no markers\n"
    assert not results.exists()  # refused before the run


def test_reproduce_writes_the_results_page_and_nothing_else(
    capsys, tiny_cost_study, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "README.md").write_text(
        "<!-- bnclassify:results:start -->\nold\n<!-- bnclassify:results:end -->\n"
    )
    code, out, err = run_cli(capsys, "reproduce", "--no-figures", "--no-progress")
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "results.md"]
    assert "\nold\n" in (tmp_path / "README.md").read_text()
    page = (tmp_path / "results.md").read_text()
    assert "### P450" in page and "![cost study](figures/cost_study.png)" in page
    assert out.strip() == "wrote results.md"
    with pytest.raises(SystemExit) as exit_info:
        main(["reproduce", "--readme", "README.md"])
    assert exit_info.value.code == 2


def test_figures_command_writes_the_cv_figure(capsys, tmp_path):
    code, out, err = run_cli(capsys, "figures", "--out", str(tmp_path), "--only", "cv_results")
    assert code == 0, err
    assert (tmp_path / "cv_results.png").stat().st_size > 0
    code, _, err = run_cli(capsys, "figures", "--out", str(tmp_path), "--only", "no_such_figure")
    assert_one_line_error(code, err, "no_such_figure")


def test_reproduced_tables_match_evaluate():
    from bnclassify.study import comparison_table, study_evaluation

    _, summary = study_evaluation("p450")
    table = comparison_table(summary, "p450")
    assert np.isnan(table.loc["TAN", "study accuracy"])  # the study has no correct-TAN figure
    assert table.loc["TAN (study's tree)", "study CLL"] == -53.21
    assert round(table.loc["TAN (study's tree)", "CLL"], 2) == -53.21


def test_compare_repeats_and_baseline_p_values(capsys):
    code, out, err = run_cli(
        capsys,
        "compare",
        "--models",
        "NB,TAN,BMA TAN",
        "--repeats",
        "2",
        "--folds",
        "3",
        "--baseline",
        "tan",
        "--no-progress",
    )
    assert code == 0, err
    assert "2 x 3-fold CV" in out and "random_state=42..43" in out
    assert "minus TAN" in out and "k = 6 folds" in out
    header = next(line for line in out.splitlines() if line.startswith("model"))
    assert header.endswith("acc diff  p (acc)  CLL diff  p (CLL)  log loss diff  p (log loss)")
    nb_row = next(line for line in out.splitlines() if line.startswith("NB "))
    assert 0 <= float(nb_row.split()[-1]) <= 1  # p (log loss) of NB against TAN
    tan_row = next(line for line in out.splitlines() if line.startswith("TAN "))
    assert len(tan_row.rstrip()) < len(header)  # the baseline has no difference to itself
    rows = {line.split()[0]: line for line in out.splitlines() if line.split()}
    assert "BMA" in rows and "NB" in rows


def test_compare_unknown_baseline_is_one_line(capsys):
    code, _, err = run_cli(capsys, "compare", "--models", "NB,TAN", "--baseline", "KDB")
    assert_one_line_error(code, err, "--baseline", "KDB")


def test_repeated_evaluation_uses_consecutive_seeds():
    from bnclassify import NaiveBayes
    from bnclassify.datasets import load_p450
    from bnclassify.metrics import evaluate, study_cv
    from bnclassify.study import baseline_differences, repeated_evaluation

    X, y = load_p450(return_X_y=True)
    models = {"NB": NaiveBayes(), "NB2": NaiveBayes(alpha=2)}
    folds, _ = repeated_evaluation(models, X, y, folds=3, repeats=2, seed=5, progress=False)
    second, _ = evaluate(models, X, y, cv=study_cv(3, random_state=6), progress=False)
    got = folds[folds.repeat == 1].reset_index(drop=True)
    np.testing.assert_array_equal(got["accuracy"], second["accuracy"])
    diffs = baseline_differences(folds, "NB")
    assert np.isnan(diffs.loc["NB", ("cll", "p")])
    assert 0 <= diffs.loc["NB2", ("cll", "p")] <= 1


def test_compare_csv_says_what_it_did(capsys, csv_dataset, tmp_path):
    path, _, _ = csv_dataset
    code, out, _ = run_cli(capsys, "compare", "--csv", str(path), "--folds", "2", "--models", "NB")
    assert code == 0
    assert "target: 'label' (the last column" in out
    assert "columns: x0 (categorical)" in out
    assert "unseen values:" in out
    # a trailing comma on every line: the empty "Unnamed" column is not the target
    trailing = tmp_path / "trailing.csv"
    trailing.write_text("".join(line + ",\n" for line in path.read_text().splitlines()))
    code, out, _ = run_cli(
        capsys, "compare", "--csv", str(trailing), "--folds", "2", "--models", "NB"
    )
    assert code == 0 and "target: 'label'" in out and "4 features" in out
    code, out, _ = run_cli(
        capsys, "compare", "--csv", str(path), "--target", "x0", "--folds", "2", "--models", "NB"
    )
    assert code == 0 and "target: 'x0' (--target)" in out


def test_id_like_target_warning_line(capsys, tmp_path):
    path = tmp_path / "ids.csv"
    pd.DataFrame({"a": list("xyxyxyxy") * 2, "id": [f"r{i % 12}" for i in range(16)]}).to_csv(
        path, index=False
    )
    code, out, _ = run_cli(capsys, "compare", "--csv", path, "--folds", "2", "--models", "NB")
    assert code == 0  # a warning, not a refusal
    assert "warning: the target 'id' has 12 classes in 16 rows" in out


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "1e308"])
def test_alpha_must_be_finite(capsys, csv_dataset, value):
    path, _, _ = csv_dataset
    with pytest.raises(SystemExit) as exit_info:
        main(["compare", "--csv", str(path), f"--alpha={value}"])
    _, err = capsys.readouterr()
    assert exit_info.value.code == 2 and len(err.strip().splitlines()) == 1
    assert "--alpha must be a finite number in [0, 1e+300]" in err


def test_non_utf8_file_is_named(capsys, tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("a,b\ncaf\xe9,x\nthé,y\n".encode("latin-1"))
    code, _, err = run_cli(capsys, "compare", "--csv", str(path), "--folds", "2")
    assert_one_line_error(code, err, "latin.csv", "UTF-8")


def test_compare_csv_applies_the_kinds_rule_unless_told_categorical(capsys, tmp_path):
    from bnclassify.datasets import make_credit_table

    path = tmp_path / "credit.csv"
    make_credit_table(300).to_csv(path, index=False)
    argv = ["compare", "--csv", str(path), "--target", "credit_risk", "--folds", "2"]
    code, out, _ = run_cli(capsys, *argv, "--models", "NB,BMA TAN")
    assert code == 0
    assert "duration (binned)" in out and "amount (binned)" in out
    assert "installment_rate (categorical)" in out
    assert "BMA TAN: averages categorical trees: MDL-discretises" in out
    code, out, _ = run_cli(capsys, *argv, "--models", "NB", "--kinds", "categorical")
    assert code == 0 and "amount (categorical)" in out and "binned" not in out


def test_load_csv_kinds(tmp_path):
    from bnclassify.datasets import load_csv

    path = tmp_path / "t.csv"
    pd.DataFrame({"n": range(30), "s": ["a", "b"] * 15, "y": [0, 1, 1] * 10}).to_csv(
        path, index=False
    )
    auto = load_csv(path, kinds="auto")
    assert str(auto.data["n"].dtype) == "int64" and auto.target.dtype == "category"
    assert all(str(t) == "category" for t in load_csv(path).data.dtypes)
    with pytest.raises(ValueError, match="kinds must be"):
        load_csv(path, kinds="raw")


def test_lactamase_compares_on_the_rows_the_study_loaded(capsys):
    from bnclassify.study import STUDY_RESULTS

    code, out, _ = run_cli(capsys, "compare", "--dataset", "lactamase", "--models", "NB")
    assert code == 0
    assert "lactamase: 552 rows" in out and "chimera 13222213, functional = 0" in out
    nb = next(line for line in out.splitlines() if line.startswith("NB "))
    reported = STUDY_RESULTS.set_index(["dataset", "model"]).loc[("lactamase", "NB")]
    # ours beside the study's, on its rows and folds: the same numbers
    assert nb.split().count(f"{reported['cll']:.2f}") == 2, nb
    code, out, _ = run_cli(
        capsys, "compare", "--dataset", "lactamase", "--all-rows", "--models", "NB"
    )
    assert code == 0 and "lactamase: 553 rows" in out
    header = next(line for line in out.splitlines() if line.startswith("model "))
    assert "study" not in header  # no study figures beside a run on other rows
    code, _, err = run_cli(capsys, "compare", "--dataset", "p450", "--all-rows")
    assert_one_line_error(code, err, "--all-rows", "lactamase")
