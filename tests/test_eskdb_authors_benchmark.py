"""benchmarks/eskdb_authors.py: skips cleanly without Java or a classpath, writes ARFF
folds a reader parses back, scores a driver's probabilities as benchmarks/uci.py does."""

import importlib.util
import json
import stat
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.io import arff

HERE = Path(__file__).resolve().parents[1] / "benchmarks"


def _load(name):
    sys.path.insert(0, str(HERE))  # the script imports uci.py beside it
    try:
        spec = importlib.util.spec_from_file_location(
            f"bnclassify_{name}_benchmark", HERE / f"{name}.py"
        )
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(HERE))
    return module


def _collection(folder: Path) -> None:
    rng = np.random.default_rng(0)
    n = 60
    colour = rng.choice(["red", "green {light}", "blue, dark"], n).astype(object)
    colour[3] = None
    size = rng.normal(size=n)
    size[5] = np.nan
    label = np.where((colour == "red") ^ (size > 0.5), "yes", "no")
    pd.DataFrame(
        {"label": label, "colour": colour, "size": size, "code": rng.integers(0, 3, n)}
    ).to_csv(folder / "toy.csv", index=False)
    pd.DataFrame({"name": ["toy"], "target": ["label"]}).to_csv(
        folder / "MANIFEST.csv", index=False
    )


@pytest.fixture
def no_classpath(monkeypatch):
    monkeypatch.delenv("ESKDB_HDP_CLASSPATH", raising=False)
    monkeypatch.delenv("ESKDB_NUMERIC_CLASSPATH", raising=False)


def test_without_java_it_says_so_and_runs_nothing(tmp_path, capsys, no_classpath):
    _collection(tmp_path)
    results = tmp_path / "r.json"
    module = _load("eskdb_authors")
    argv = ["--data", str(tmp_path), "--results", str(results), "--classpath", "x.jar"]
    assert module.main([*argv, "--java", "no-such-java-runtime"]) == 0
    assert "skipped: no Java runtime" in capsys.readouterr().out
    assert not results.exists()


def test_without_a_classpath_it_says_so_and_runs_nothing(tmp_path, capsys, no_classpath):
    _collection(tmp_path)
    results = tmp_path / "r.json"
    module = _load("eskdb_authors")
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
    _collection(tmp_path)
    module = _load("eskdb_authors")
    uci = _load("uci")
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
    _collection(tmp_path)
    module = _load("eskdb_authors")
    uci = _load("uci")
    driver = tmp_path / "java"
    driver.write_text(
        f"#!/bin/sh\nexec {sys.executable} -c '"
        "import sys, pathlib\n"
        'for d in [pathlib.Path(a) for a in sys.argv[1:] if a.startswith("/")]:\n'
        '    rows = lambda f: [l.rsplit(",", 1)[1].strip("\\x27") for l in (d / f).read_text()'
        '.split("@data\\n")[1].splitlines()]\n'
        '    train, test = rows("train.arff"), rows("test.arff")\n'
        '    p = [train.count(c) / len(train) for c in ("no", "yes")]\n'
        '    (d / "proba.csv").write_text("".join(f"{p[0]},{p[1]}\\n" for _ in test))\n'
        '    (d / "time.txt").write_text("0.5 0.25\\n")\n'
        '\' "$@"\n'
    )
    driver.chmod(driver.stat().st_mode | stat.S_IEXEC)
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
