"""A newcomer's first hour with the command line and the README (issue 27, items 1-12)."""

import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _cli import assert_one_line_error, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_wine

from bnclassify import AODE, NaiveBayes
from bnclassify.data import IdentifierColumnWarning, identifier_columns, kinds_rule
from bnclassify.datasets import load_csv
from bnclassify.exceptions import UnseenCategoryWarning
from bnclassify.io import dump, load
from bnclassify.study import cli, versions
from bnclassify.study.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def wine_csv(tmp_path):
    """scikit-learn's wine table written with pandas' defaults: the index as ``Unnamed: 0``."""
    frame = load_wine(as_frame=True).frame
    path = tmp_path / "wine.csv"
    frame.to_csv(path)
    return path


def _small_table(n=20, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "smoker": rng.choice(["yes", "no"], n),
            "bp": rng.choice(["high", "low", "normal"], n),
            "status": ["sick"] * 4 + ["well"] * (n - 4),
        }
    )


def _run(capsys, *argv):
    """run_cli, recording every warning instead of letting it print."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code, out, err = run_cli(capsys, *argv)
    return code, out, err, caught


# -- 2: AODE on all-continuous data -----------------------------------------------------
def test_aode_warns_that_it_is_naive_bayes_without_a_categorical_feature(densities):
    X, y = load_wine(return_X_y=True, as_frame=True)
    with pytest.warns(UserWarning, match="AODE found no categorical feature"):
        aode = AODE().fit(X, y)
    assert set(aode.feature_kinds_) <= {"gaussian", "lognormal"}
    assert np.allclose(aode.predict_proba(X), NaiveBayes().fit(X, y).predict_proba(X))
    assert "naive Bayes" in AODE.__doc__ and "MDLDiscretizer" in AODE.__doc__


def test_aode_on_binned_numbers_has_super_parents():
    # by default the wine columns are binned: tables, so each can be a super-parent
    X, y = load_wine(return_X_y=True, as_frame=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        aode = AODE().fit(X, y)
    assert set(aode.feature_kinds_) == {"binned"}
    assert len(aode.superparents_) > 0
    assert not np.allclose(aode.predict_proba(X), NaiveBayes().fit(X, y).predict_proba(X))


def test_aode_with_a_categorical_feature_does_not_warn(densities):
    X, y = load_wine(return_X_y=True, as_frame=True)
    X = X.assign(band=pd.cut(X["alcohol"], 3, labels=["lo", "mid", "hi"]).astype(str))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        AODE().fit(X, y)


def test_compare_says_aode_is_naive_bayes_on_continuous_csv(capsys, wine_csv, monkeypatch):
    code, out, _, caught = _run(capsys, "compare", "--csv", wine_csv, "--models", "nb,aode")
    assert code == 0
    assert "(binned)" in out and "AODE is naive Bayes here" not in out  # bins are tables
    assert not [w for w in caught if "AODE found no" in str(w.message)]
    monkeypatch.setattr(kinds_rule, "NUMERIC_KIND", "density")
    code, out, _, caught = _run(capsys, "compare", "--csv", wine_csv, "--models", "nb,aode")
    assert code == 0
    assert "AODE is naive Bayes here" in out
    assert not [w for w in caught if "AODE found no" in str(w.message)]


# -- 3 and 9: stratified --csv folds, one-class folds, small classes ---------------------
def test_csv_folds_are_stratified_by_default_and_bundled_ones_are_not(tmp_path):
    parser = build_parser()
    csv_args = parser.parse_args(["compare", "--csv", str(tmp_path / "t.csv")])
    assert "StratifiedKFold" in cli._protocol(csv_args)
    no = parser.parse_args(["compare", "--csv", "t.csv", "--no-stratified"])
    assert "StratifiedKFold" not in cli._protocol(no)
    bundled = parser.parse_args(["compare", "--dataset", "vote"])
    assert "(KFold" in cli._protocol(bundled)


def test_one_class_test_folds_are_reported(capsys, tmp_path):
    path = tmp_path / "small.csv"
    _small_table().to_csv(path, index=False)
    code, out, _, _ = _run(capsys, "compare", "--csv", path, "--models", "nb", "--no-stratified")
    assert code == 0
    single = re.search(r"note: (\d+) of the 10 test folds hold one class only", out)
    assert single and int(single.group(1)) > 0
    code, out, _, _ = _run(capsys, "compare", "--csv", path, "--models", "nb")
    assert code == 0 and "StratifiedKFold" in out


def test_a_class_smaller_than_the_folds_is_said_in_our_words(capsys, tmp_path):
    table = _small_table(30)
    table.loc[0, "status"] = "rare"
    path = tmp_path / "rare.csv"
    table.to_csv(path, index=False)
    code, out, _, caught = _run(capsys, "compare", "--csv", path, "--models", "nb", "--stratified")
    assert code == 0
    assert "'rare' (1 row) have fewer rows than the 10 folds" in out
    assert not [w for w in caught if "least populated class" in str(w.message)]


def test_exact_ties_go_to_the_first_class():
    X = pd.DataFrame({"a": ["u", "v"] * 20})
    y = ["q", "p"] * 10 + ["p", "q"] * 10  # a independent of the class, classes balanced
    model = NaiveBayes().fit(X, y)
    proba = model.predict_proba(X)
    assert np.array_equal(proba[:, 0], proba[:, 1])
    assert (model.predict(X) == model.classes_[0]).all()
    assert "ties go to the first class" in NaiveBayes.predict.__doc__


# -- 4: --version and info ----------------------------------------------------------------
def test_version_says_the_version_and_the_kernels(capsys, monkeypatch):
    from bnclassify import __version__

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"bnclassify {__version__}") and "compiled kernels:" in out


def test_info_lists_dependencies_and_a_fallback(capsys, monkeypatch):
    code, out, _ = run_cli(capsys, "info")
    assert code == 0
    assert "numpy " in out and "scikit-learn " in out and "pgmpy " in out
    monkeypatch.setattr(versions, "compiled_kernels_active", lambda: False)
    code, out, _ = run_cli(capsys, "info")
    assert "compiled kernels: NOT active" in out and "numpy fallback" in out


def test_compiled_kernels_active_reads_the_native_flag(monkeypatch):
    from bnclassify import _native

    monkeypatch.setattr(_native.runtime, "COMPILED", False)
    assert versions.compiled_kernels_active() is False
    monkeypatch.setattr(_native.runtime, "COMPILED", True)
    assert versions.compiled_kernels_active() is True


# -- 5, 10, 12: predict ---------------------------------------------------------------------
@pytest.fixture
def age_model(tmp_path):
    """A 30-row table whose integer ``age`` has empty cells (read as float by pandas)."""
    rng = np.random.default_rng(0)
    age = rng.choice([40, 52, 64, 71], 30).astype(object)
    age[[3, 8, 15]] = None
    train = pd.DataFrame(
        {
            "age": age,
            "smoker": rng.choice(["yes", "no"], 30),
            "bp": rng.choice(["high", "low"], 30),
            "status": rng.choice(["sick", "well"], 30),
        }
    )
    train.to_csv(tmp_path / "train.csv", index=False)
    rows = pd.DataFrame(
        {"pid": ["a1", "a2"], "age": [64, 40], "smoker": ["yes", "no"], "bp": ["high", "low"]}
    )
    rows.to_csv(tmp_path / "rows.csv", index=False)
    X, y = load_csv(tmp_path / "train.csv", kinds="auto", return_X_y=True)
    from bnclassify import TAN

    dump(TAN().fit(X, y), tmp_path / "m.bnc")
    return tmp_path


def test_predict_reads_rows_as_the_python_api(capsys, age_model):
    model_path, rows = age_model / "m.bnc", age_model / "rows.csv"
    code, out, err, caught = _run(capsys, "predict", "--model", model_path, "--csv", rows)
    assert code == 0, err
    printed = pd.read_csv(pd.io.common.StringIO(out))
    api = load(model_path).predict_proba(pd.read_csv(rows).drop(columns="pid"))
    assert np.allclose(printed[["P(sick)", "P(well)"]].to_numpy(), api, rtol=0, atol=1e-12)
    assert not caught and "never saw" not in err


def test_predict_says_unseen_values_in_its_own_words(capsys, age_model):
    rows = pd.DataFrame({"age": [64], "smoker": ["maybe"], "bp": ["high"]})
    rows.to_csv(age_model / "odd.csv", index=False)
    code, out, err, caught = _run(
        capsys, "predict", "--model", age_model / "m.bnc", "--csv", age_model / "odd.csv"
    )
    assert code == 0
    assert not [w for w in caught if issubclass(w.category, UnseenCategoryWarning)]
    assert "note: 1 cell(s)" in err and "'smoker' (1)" in err
    assert "handle_unknown" not in err


def test_predict_names_the_file_and_column_of_a_value_that_is_not_a_number(capsys, tmp_path):
    X = pd.DataFrame({"size": np.linspace(1, 3, 20), "c": ["a", "b"] * 10})
    dump(NaiveBayes().fit(X, ["p", "q"] * 10), tmp_path / "m.bnc")
    pd.DataFrame({"size": ["1.5", "high"], "c": ["a", "b"]}).to_csv(tmp_path / "r.csv", index=False)
    code, _, err = run_cli(
        capsys, "predict", "--model", tmp_path / "m.bnc", "--csv", tmp_path / "r.csv"
    )
    assert_one_line_error(code, err, "r.csv", "'size'", "'high'", "row 2")


def test_predict_id_and_keep_input(capsys, age_model):
    argv = ("predict", "--model", age_model / "m.bnc", "--csv", age_model / "rows.csv")
    code, out, _, _ = _run(capsys, *argv, "--id", "pid")
    assert code == 0
    assert out.splitlines()[0] == "pid,prediction,P(sick),P(well)"
    assert out.splitlines()[1].startswith("a1,")
    code, out, _, _ = _run(capsys, *argv, "--keep-input")
    assert out.splitlines()[0] == "pid,age,smoker,bp,prediction,P(sick),P(well)"
    code, _, err, _ = _run(capsys, *argv, "--id", "nope")
    assert_one_line_error(code, err, "--id", "'nope'")


# -- 5: delimiters -------------------------------------------------------------------------
def test_a_semicolon_file_is_sniffed_and_sep_is_offered(capsys, tmp_path):
    path = tmp_path / "semi.csv"
    _small_table(24).to_csv(path, sep=";", index=False)
    code, out, err, _ = _run(capsys, "compare", "--csv", path, "--models", "nb", "--folds", "3")
    assert code == 0, err
    assert "delimiter ';'" in out and "smoker (categorical)" in out
    code, _, err, _ = _run(capsys, "compare", "--csv", path, "--sep", ",", "--models", "nb")
    assert_one_line_error(code, err, "at least two columns")  # told, not sniffed
    code, out, err, _ = _run(
        capsys, "compare", "--csv", path, "--sep", ";", "--models", "nb", "--folds", "3"
    )
    assert code == 0 and "delimiter" not in out


def test_a_comma_file_has_no_delimiter_note(tmp_path, capsys):
    path = tmp_path / "t.csv"
    _small_table().to_csv(path, index=False)
    assert cli.csv_delimiter(path) == ","
    assert capsys.readouterr().out == ""


# -- 6: model names ------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["kdb2", "KDB2", "KDB (k=2)", "kdb (K=2)", "kdb-k-2"])
def test_short_and_display_names_select_the_same_model(name):
    models = cli.study_models(None)
    assert list(cli._select(models, name)) == ["KDB (k=2)"]


def test_every_short_name_names_a_model():
    from bnclassify.study.r_family import OPTIONAL_MODELS

    models = cli.study_models(pd.DataFrame([[0.0]], index=["a"], columns=["a"]))
    # compare --r-family, or named in --models (SKDB, ESKDB, ... run only when named)
    models.update({model.display: model.make(1.0, 0) for model in OPTIONAL_MODELS.values()})
    assert set(cli.SHORT_NAMES.values()) <= set(models)
    assert all(cli.model_key(key, models) == name for key, name in cli.SHORT_NAMES.items())


def test_simpler_tan_without_contacts_says_contact_is_needed(capsys, tmp_path):
    path = tmp_path / "t.csv"
    _small_table().to_csv(path, index=False)
    code, _, err, _ = _run(capsys, "compare", "--csv", path, "--models", "nb,stan")
    assert_one_line_error(code, err, "'Simpler TAN' needs a contact matrix", "--contact")
    code, out, _, _ = _run(capsys, "compare", "--csv", path, "--models", "nb", "--folds", "2")
    assert "need a contact matrix" not in out  # a chosen subset is not a silent drop
    assert cli._contact_models()[0] == "Simpler TAN"


def test_help_lists_the_short_names(capsys):
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for key in ("nb", "stan", "kdb2", "aode", "bma"):
        assert f"{key} = " in out


# -- 11: columns that cannot generalise ---------------------------------------------------
def test_identifier_columns_finds_an_index_and_ids_but_not_features():
    n = 30
    frame = pd.DataFrame(
        {
            "Unnamed: 0": np.arange(n),
            "patient_id": [f"P{i:03d}" for i in range(n)],
            "amount": np.linspace(0, 1, n),  # continuous: distinct values are normal
            "code": [str(i) for i in range(n)],  # numbers read as text
            "colour": ["red", "blue", "green"] * 10,
            "rank": np.arange(n),  # named like a feature
        }
    )
    assert list(identifier_columns(frame)) == ["Unnamed: 0", "patient_id"]
    assert identifier_columns(frame.iloc[:10]) == {"Unnamed: 0": "a row index"}
    assert identifier_columns(frame.sample(frac=1, random_state=0)) == {
        "patient_id": "an identifier (30 distinct values in 30 rows)"
    }


def test_a_fit_warns_about_identifier_columns():
    X = pd.DataFrame({"patient_id": [f"P{i}" for i in range(30)], "c": ["a", "b", "c"] * 10})
    with pytest.warns(IdentifierColumnWarning, match="'patient_id' is an identifier"):
        NaiveBayes().fit(X, ["p", "q"] * 15)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        NaiveBayes().fit(X[["c"]], ["p", "q"] * 15)


def test_compare_leaves_the_written_index_out(capsys, wine_csv):
    code, out, _, _ = _run(capsys, "compare", "--csv", wine_csv, "--models", "nb", "--folds", "3")
    assert code == 0
    assert "note: left out 'Unnamed: 0': it looks like a row index" in out
    columns = next(line for line in out.splitlines() if line.startswith("columns: "))
    assert "Unnamed" not in columns and "alcohol" in columns
    code, out, _, _ = _run(
        capsys, "compare", "--csv", wine_csv, "--models", "nb", "--folds", "3",
        "--keep", "Unnamed: 0", "--drop", "alcohol", "--kind", "magnesium=categorical",
    )  # fmt: skip
    columns = next(line for line in out.splitlines() if line.startswith("columns: "))
    assert "Unnamed: 0 (" in columns and "alcohol" not in columns
    assert "magnesium (categorical)" in columns


def test_drop_and_kind_name_bad_columns(capsys, wine_csv):
    code, _, err, _ = _run(capsys, "compare", "--csv", wine_csv, "--drop", "nope")
    assert_one_line_error(code, err, "--drop", "'nope'")
    with pytest.raises(SystemExit) as stop:
        main(["compare", "--csv", str(wine_csv), "--kind", "alcohol=round"])
    assert stop.value.code == 2 and "--kind takes COLUMN=categorical" in capsys.readouterr().err
    code, _, err, _ = _run(capsys, "compare", "--csv", wine_csv, "--kind", "nope=continuous")
    assert_one_line_error(code, err, "--kind", "'nope'")


def test_a_directory_is_not_a_missing_file(capsys, tmp_path):
    code, _, err, _ = _run(capsys, "compare", "--csv", tmp_path)
    assert_one_line_error(code, err, "is a directory")


# -- 7: the README -------------------------------------------------------------------------
def _blocks(language):
    text = (ROOT / "README.md").read_text()
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def test_readme_first_commands_install_and_run():
    first = _blocks("bash")[0]
    assert "pip install -e . && bnclassify compare --dataset p450" in first
    assert 'pip install -e ".[dev]" && pytest' in first
    text = (ROOT / "README.md").read_text()
    for extra in ("[dask]", "[structure]", "[dev]", "[docs]"):
        assert extra in text


def _run_script(code, cwd):
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_readme_starts_from_the_users_csv_and_every_first_block_prints(tmp_path):
    own, study = _blocks("python")[:2]
    assert 'load_csv("my_table.csv"' in own  # the user's own file, before the study's data
    assert "load_p450" in study
    for code in (own, study):
        assert _run_script(code, tmp_path).strip()


@pytest.mark.slow
def test_every_other_python_block_of_the_readme_runs_as_pasted(tmp_path):
    # the first two run above; each block is a reader's paste into a fresh interpreter: a
    # fragment (issue 31: partial_fit's loop over undefined chunks) fails here
    blocks = _blocks("python")[2:]
    assert any("partial_fit" in block for block in blocks)
    for code in blocks:
        _run_script(code, tmp_path)


def test_readme_own_csv_example_reads_a_users_file(tmp_path):
    own = _blocks("python")[0]
    start = own.index("from sklearn.model_selection")  # a user with their own file starts here
    table = _small_table(40).rename(columns={"status": "target"})
    table.to_csv(tmp_path / "my_table.csv", index=False)
    assert _run_script(own[start:], tmp_path).strip()


def test_readme_predict_example_makes_its_rows_first():
    predict = next(b for b in _blocks("bash") if "new_rows.csv" in b)
    assert "bnclassify predict" in predict
    # the file the example predicts is made by a command shown before it
    assert predict.index("new_rows.csv") < predict.index("bnclassify predict")


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.text(alphabet="abcdefgh", min_size=1, max_size=3), min_size=1, max_size=60),
    seed=st.integers(0, 2**16),
)
def test_identifiers_do_not_depend_on_row_order(values, seed):
    frame = pd.DataFrame({"code": values})
    shuffled = frame.sample(frac=1, random_state=seed).reset_index(drop=True)
    found = identifier_columns(frame)
    assert found == identifier_columns(shuffled)
    distinct, n = len(set(values)), len(values)
    assert ("code" in found) == (n >= 20 and distinct >= 0.9 * n)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_many_classes_are_noted_once_in_the_tools_words(capsys, tmp_path, jobs):
    """Issue 27, item 4: scikit-learn's "unique classes > 50%" warning came once per fit of
    every fold (70 times); it is one note naming the classes and the rows."""
    rng = np.random.default_rng(0)
    n = 44
    table = pd.DataFrame(
        {c: rng.choice(list("xyz"), n) for c in "abc"} | {"label": [f"k{i % 25}" for i in range(n)]}
    )
    path = tmp_path / "crowded.csv"
    table.to_csv(path, index=False)
    code, out, err = run_cli(
        capsys, "compare", "--csv", path, "--no-progress", "--folds", "2", "--jobs", jobs
    )
    assert code == 0
    assert "unique classes" not in out + err
    notes = [line for line in out.splitlines() if "more classes than half their rows" in line]
    assert len(notes) == 1
    assert "25 classes in all 44 rows" in notes[0] and "'k19' (1)" in notes[0]


def test_a_wide_table_is_costed_up_front_and_its_cubic_models_left_out(capsys, tmp_path):
    """Issue 27, item 5: 40 rows x 5,000 columns ran for many minutes in silence (BMA TAN
    grows with the cube of the features)."""
    rng = np.random.default_rng(0)
    n, m = 24, cli.WIDE_FEATURES + 1
    table = pd.DataFrame(rng.choice(list("abc"), (n, m)), columns=[f"f{j}" for j in range(m)])
    path = tmp_path / "wide.csv"
    table.assign(label=rng.choice(["p", "q"], n)).to_csv(path, index=False)
    code, out, err = run_cli(
        capsys, "compare", "--csv", path, "--folds", "2", "--models", "nb,tan", "--no-progress"
    )
    assert code == 0 and f"cost: {m} features, {n} rows" in out
    assert "left out" not in out  # nothing cubic asked for
    args = build_parser().parse_args(["compare", "--csv", str(path)])
    models = {"NB": object(), "BMA TAN": object(), "BMA TAN (contact prior)": object()}
    kept, notes = cli._wide_table_plan(dict(models), table, args)
    assert list(kept) == ["NB"] and args.progress is True
    assert "left out BMA TAN, BMA TAN (contact prior)" in notes[1] and "--models" in notes[1]
    named = build_parser().parse_args(["compare", "--csv", str(path), "--models", "nb,bma"])
    assert list(cli._wide_table_plan(dict(models), table, named)[0]) == list(models)
    narrow = table.iloc[:, : cli.WIDE_FEATURES]
    assert cli._wide_table_plan(dict(models), narrow, args) == (models, [])
