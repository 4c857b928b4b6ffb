"""benchmarks/eskdb_authors.py: skips cleanly without Java or a classpath, writes ARFF
folds a reader parses back, scores a driver's probabilities as benchmarks/uci.py does."""

import json
import stat

import numpy as np
import pytest
from _benchmark_scripts import load_script, prior_driver, toy_collection
from scipy.io import arff


@pytest.fixture
def no_classpath(monkeypatch):
    monkeypatch.delenv("ESKDB_HDP_CLASSPATH", raising=False)
    monkeypatch.delenv("ESKDB_NUMERIC_CLASSPATH", raising=False)


def test_without_java_it_says_so_and_runs_nothing(tmp_path, capsys, no_classpath):
    toy_collection(tmp_path)
    results = tmp_path / "r.json"
    module = load_script("eskdb_authors")
    argv = ["--data", str(tmp_path), "--results", str(results), "--classpath", "x.jar"]
    assert module.main([*argv, "--java", "no-such-java-runtime"]) == 0
    assert "skipped: no Java runtime" in capsys.readouterr().out
    assert not results.exists()


def test_without_a_classpath_it_says_so_and_runs_nothing(tmp_path, capsys, no_classpath):
    toy_collection(tmp_path)
    results = tmp_path / "r.json"
    module = load_script("eskdb_authors")
    fake_java = tmp_path / "java"
    fake_java.write_text("#!/bin/sh\nexit 3\n")
    fake_java.chmod(fake_java.stat().st_mode | stat.S_IEXEC)
    assert (
        module.main(["--data", str(tmp_path), "--results", str(results), "--java", str(fake_java)])
        == 0
    )
    out = capsys.readouterr().out
    assert "skipped: no classpath" in out and "ESKDB_HDP_CLASSPATH" in out
    assert not results.exists()


def test_the_arff_folds_parse_back_with_their_kinds_and_missing_cells(tmp_path):
    toy_collection(tmp_path)
    module = load_script("eskdb_authors")
    uci = load_script("uci")
    X, y = uci.load_set(tmp_path / "toy.csv", "label")
    folds = uci.cv_folds(X, y)
    dirs = module.write_folds(X, y, folds[:1], np.unique(y), tmp_path / "folds")
    data, meta = arff.loadarff(dirs[0] / "train.arff")
    assert meta.types() == ["nominal", "numeric", "nominal", "nominal"]  # code: 3 integer codes
    assert meta["colour"][1] == ("blue, dark", "green {light}", "red")
    assert module.arff_value("it's") == "'it\\'s'"  # Weka's escape (scipy reads none)
    train = folds[0][0]
    np.testing.assert_array_equal(data["size"], X["size"].to_numpy()[train])
    colours = np.array([v.decode() for v in data["colour"]])
    expected = X["colour"].iloc[train].fillna("?").to_numpy(dtype=str)
    np.testing.assert_array_equal(colours, expected)
    assert [v.decode() for v in data["__class__"]] == list(y[train])


def test_a_drivers_probabilities_are_scored_like_the_uci_benchmark(tmp_path, no_classpath):
    """A stand-in driver (a shell script as ``java``) writes class frequencies of its
    training fold; the stored fold scores are uci.probability_scores of those."""
    toy_collection(tmp_path)
    module = load_script("eskdb_authors")
    uci = load_script("uci")
    driver = prior_driver(tmp_path / "java", "0.5 0.25")
    results = tmp_path / "r.json"
    argv = ["--data", str(tmp_path), "--results", str(results), "--java", str(driver)]
    argv += ["--classpath", "unused", "--authors", "hdp:E=10", "--no-equal", "--models", ""]
    argv += ["--markdown", str(tmp_path / "t.md")]
    assert module.main(argv) == 0
    stored = json.loads(results.read_text())["toy"]
    spec = module.authors_spec("hdp", 10, 5, 1000, 2)
    assert set(stored) == {spec, uci.RF}
    X, y = uci.load_set(tmp_path / "toy.csv", "label")
    for scores, (train, test) in zip(stored[spec], uci.cv_folds(X, y), strict=True):
        prior = np.array([np.mean(y[train] == c) for c in ("no", "yes")])
        expected = uci.probability_scores(
            np.tile(prior, (len(test), 1)), y[test], np.array(["no", "yes"])
        )
        assert scores == pytest.approx({**expected, "fit_s": 0.5, "predict_s": 0.25})
    assert "| toy |" in (tmp_path / "t.md").read_text()
