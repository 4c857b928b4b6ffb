"""The command line on files nobody here wrote (issue 31, items 3 and 5-11), each case a small
file made from what UCI anneal, credit and hepatitis did to it."""

import subprocess
import sys
import zipfile

import numpy as np
import pandas as pd
import pytest
from _cli import assert_one_line_error, run_cli

from bnclassify import TAN, NaiveBayes
from bnclassify.io import dump, load
from bnclassify.study import cli
from bnclassify.study.r_family import OPTIONAL_MODELS


def _table(n=60, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(["1", "2", "3"], n)
    return pd.DataFrame(
        {
            "steel": np.where(y == "3", rng.choice(["A", "R"], n, p=[0.8, 0.2]), "R"),
            "thick": rng.normal(np.where(y == "1", 1.0, 2.0), 0.5).round(2),
            "shape": rng.choice(["COIL", "SHEET"], n),
            "class": y,
        }
    )


def _compare(capsys, path, *extra):
    return run_cli(capsys, "compare", "--csv", path, "--folds", "3", "--no-progress", *extra)


# -- 3: anneal: columns that are empty in the file, or in some training folds ----------------
def test_anneal_like_columns_leave_the_fits_to_run(capsys, tmp_path):
    table = _table()
    table.insert(2, "'m'", np.nan)  # empty in the whole file (anneal has six such)
    table.insert(3, "bc", pd.Series([None] * len(table), dtype=object))
    table.loc[0, "bc"] = "Y"  # one value: the fold that tests its row has none in training
    path = tmp_path / "anneal.csv"
    table.to_csv(path, index=False)
    code, out, err = _compare(capsys, path, "--models", "nb,tan,kdb2,aode")
    assert code == 0, err
    assert "note: left out \"'m'\": no row of" in out
    assert "columns: steel (categorical), thick (binned), bc (categorical)" in out
    note = next(
        line
        for line in out.splitlines()
        if "held no value in the training rows of some folds" in line
    )
    assert "'bc'" in note and "'m'" not in note
    assert "has no observed value" not in out + err


# -- 5: every short name listed is accepted, --r-family or not -------------------------------
@pytest.mark.parametrize(
    "name", ["tanhc", "awnb", "wanbia", "TANHC", "tan_hc", "hnb", "a2de", "waode", "aodesr"]
)
def test_models_run_on_request_without_r_family(capsys, tmp_path, name):
    path = tmp_path / "t.csv"
    _table().to_csv(path, index=False)
    code, out, err = _compare(capsys, path, "--models", f"nb,{name}")
    assert code == 0, err
    display = OPTIONAL_MODELS[name.lower().replace("_", "")].display
    assert any(line.startswith(display) for line in out.splitlines()), out


def test_every_listed_short_name_selects_its_model():
    contacts = pd.DataFrame([[0.0]], index=["a"], columns=["a"])
    models = cli.study_models(contacts)
    for key, display in cli.SHORT_NAMES.items():
        assert list(cli._select(models, key)) == [display]
    with pytest.raises(cli.InputError, match=r"unknown model 'nope'; available: .*tanhc"):
        cli._select(models, "nope")


def test_a_model_on_request_is_one_line_of_the_registry():
    # its line in OPTIONAL_MODELS gives the short name, the help text and --models
    compare = cli.build_parser()._subparsers._group_actions[0].choices["compare"]
    help_text = compare.epilog
    for key, model in OPTIONAL_MODELS.items():
        assert cli.SHORT_NAMES[key] == model.display
        assert f"{key} = {model.display!r}" in help_text
        assert list(cli._select(cli.study_models(None), key)) == [model.display]


# -- 6: a target of one class ------------------------------------------------------------------
def test_a_target_of_one_class_is_said_before_any_fold(capsys, tmp_path):
    table = _table(700).assign(**{"class": "only"})
    path = tmp_path / "one.csv"
    table.to_csv(path, index=False)
    code, out, err = _compare(capsys, path)
    assert_one_line_error(code, err, "one class ('only')", "700 rows", "--target")
    assert "fewer --folds" not in out + err


# -- 7: a workbook under a .csv name, and a Latin-1 file ----------------------------------------
def test_a_workbook_saved_as_csv_is_recognised(capsys, tmp_path):
    path = tmp_path / "credit.csv"
    with zipfile.ZipFile(path, "w") as book:  # what an .xlsx file is
        book.writestr("[Content_Types].xml", "<Types/>")
        book.writestr("xl/workbook.xml", "<workbook/>")
    code, _, err = _compare(capsys, path)
    assert_one_line_error(code, err, "credit.csv is a zip archive", "Excel", "export it as a CSV")


def test_a_latin1_file_is_placed_at_its_first_foreign_byte(capsys, tmp_path):
    table = _table(30)
    text = table.to_csv(index=False)
    at = text.index("\n", 250) + 1  # a row starting near byte 259
    path = tmp_path / "hepatitis.csv"
    path.write_bytes((text[:at] + "caf\xe9" + text[at:].split(",", 1)[1]).encode("latin-1"))
    code, _, err = _compare(capsys, path)
    line = text[:at].count("\n") + 1
    assert_one_line_error(code, err, f"byte {at + 3} (line {line}) is 0xe9", "UTF-8")


# -- 8: decimal commas ---------------------------------------------------------------------
def test_decimal_commas_are_noted_and_read_with_decimal(capsys, tmp_path):
    path = tmp_path / "semicolon.csv"
    _table().to_csv(path, index=False, sep=";", decimal=",")
    code, out, err = _compare(capsys, path, "--models", "nb")
    assert code == 0, err
    assert "'thick' hold numbers written with a decimal comma" in out and "--decimal ','" in out
    assert "thick (categorical)" in out
    code, out, err = _compare(capsys, path, "--models", "nb", "--decimal", ",")
    assert code == 0, err
    assert "thick (binned)" in out and "decimal comma" not in out


# -- 9: a trailing row number ------------------------------------------------------------------
def test_a_trailing_row_number_is_left_out_and_not_the_target(capsys, tmp_path):
    path = tmp_path / "rows.csv"
    _table().assign(row_id=np.arange(60)).to_csv(path, index=False)
    code, out, err = _compare(capsys, path, "--models", "nb")
    assert code == 0, err
    assert "target: 'class' (the last column but one: the last, 'row_id', numbers" in out
    assert "left out 'row_id': it looks like a row number" in out
    assert "row_id (" not in out


# -- 10: extra columns at predict, the same rule in Python and on the command line ------------
def test_predict_takes_the_models_columns_by_name_in_python_and_cli(capsys, tmp_path):
    table = _table()
    model = TAN().fit(table.drop(columns="class"), table["class"])
    dump(model, tmp_path / "tan.bnc")
    rows = table.head(8).assign(applicant=[f"a{i}" for i in range(8)])  # class and a key too
    rows.to_csv(tmp_path / "rows.csv", index=False)
    in_python = load(tmp_path / "tan.bnc").predict_proba(pd.read_csv(tmp_path / "rows.csv"))
    code, out, err = run_cli(
        capsys, "predict", "--model", tmp_path / "tan.bnc", "--csv", tmp_path / "rows.csv"
    )
    assert code == 0, err
    from io import StringIO

    on_the_command_line = pd.read_csv(StringIO(out)).drop(columns="prediction").to_numpy()
    np.testing.assert_array_equal(on_the_command_line, in_python)
    with pytest.raises(ValueError, match=r"missing \['shape'\]"):  # a training column lacking
        model.predict_proba(rows.drop(columns="shape"))


# -- 11: rough edges -----------------------------------------------------------------------------
def test_saved_models_are_named_by_their_short_names(capsys, tmp_path):
    path = tmp_path / "t.csv"
    _table().to_csv(path, index=False)
    code, out, err = _compare(capsys, path, "--models", "tan-bic,tanhc", "--save-model", tmp_path)
    assert code == 0, err
    assert (tmp_path / "tan-bic.bnc").is_file() and (tmp_path / "tanhc.bnc").is_file()
    assert cli.model_file_name("Simpler TAN") == "stan.bnc"


def test_a_wrong_model_path_is_said_once(capsys, tmp_path):
    path = tmp_path / "t.csv"
    _table().to_csv(path, index=False)
    code, _, err = run_cli(capsys, "predict", "--model", tmp_path / "no.bnc", "--csv", path)
    assert_one_line_error(code, err, f"model file not found: {tmp_path / 'no.bnc'}")
    assert "file not found: model file" not in err


def test_header_only_files(capsys, tmp_path):
    table = _table()
    dump(NaiveBayes().fit(table.drop(columns="class"), table["class"]), tmp_path / "nb.bnc")
    path = tmp_path / "header.csv"
    table.head(0).to_csv(path, index=False)
    code, out, err = run_cli(capsys, "predict", "--model", tmp_path / "nb.bnc", "--csv", path)
    assert code == 0 and out.strip() == "prediction,P(1),P(2),P(3)"
    assert "has a header but no data rows" in err
    code, _, err = _compare(capsys, path)
    assert_one_line_error(code, err, "header.csv has a header but no data rows")
    assert "--sep" not in err


@pytest.mark.slow
def test_predict_into_a_closed_pipe_stops_quietly(tmp_path):
    table = _table(3000)
    dump(NaiveBayes().fit(table.drop(columns="class"), table["class"]), tmp_path / "nb.bnc")
    table.to_csv(tmp_path / "rows.csv", index=False)
    command = (
        f"{sys.executable} -m bnclassify.study.cli predict --model {tmp_path / 'nb.bnc'} "
        f"--csv {tmp_path / 'rows.csv'} | head -3"
    )
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=300)
    assert done.stdout.splitlines()[0].startswith("prediction,")
    assert len(done.stdout.splitlines()) == 3
    assert done.stderr == ""
