"""benchmarks/weka.py: skips cleanly without Java or weka.jar, parses its classifiers, scores
a driver's probabilities as benchmarks/uci.py does, and runs Weka's AODE where it is installed."""

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from _benchmark_scripts import load_script, prior_driver, toy_collection


def test_without_java_or_weka_it_says_so_and_runs_nothing(tmp_path, capsys):
    toy_collection(tmp_path, code=False)
    results = tmp_path / "r.json"
    weka = load_script("weka")
    argv = ["--data", str(tmp_path), "--results", str(results), "--weka", "AODE"]
    assert weka.main([*argv, "--java", "no-such-java-runtime"]) == 0
    assert "skipped: no Java runtime" in capsys.readouterr().out
    assert weka.main([*argv, "--java", sys.executable, "--weka-jar", str(tmp_path / "x")]) == 0
    assert "skipped: no Weka jar" in capsys.readouterr().out
    assert not results.exists()


def test_presets_and_class_names():
    weka = load_script("weka")
    assert weka.weka_classifier("AODE") == ("weka.classifiers.bayes.AODE", "-F 1")
    assert weka.weka_classifier("AODEsr -C 30 -L") == ("weka.classifiers.bayes.AODEsr", "-C 30 -L")
    name, options = weka.weka_classifier("BayesNet-TabuSearch")
    assert name == "weka.classifiers.bayes.BayesNet" and ".TabuSearch --" in options
    assert weka.weka_classifier("weka.classifiers.trees.J48 -C 0.25") == (
        "weka.classifiers.trees.J48",
        "-C 0.25",
    )
    assert weka.weka_spec("AODE  -F 30") == "weka:AODE -F 30"
    with pytest.raises(SystemExit, match="neither a preset"):
        weka.weka_classifier("J48")
    with pytest.raises(SystemExit, match="--prepare"):
        weka.parse_prepare("discretise")


def test_a_drivers_probabilities_are_scored_like_the_uci_benchmark(tmp_path):
    """A stand-in driver (a shell script as ``java``) writes class frequencies of its
    training fold; the stored fold scores are uci.probability_scores of those, paired in
    the report with a bnclassify model run on the same folds."""
    toy_collection(tmp_path, code=False)
    weka = load_script("weka")
    uci = load_script("uci")
    driver = prior_driver(tmp_path / "java", "0.5 0.25 0.4 0.2")
    jar = tmp_path / "weka.jar"
    jar.write_text("")
    results = tmp_path / "r.json"
    argv = ["--data", str(tmp_path), "--results", str(results), "--java", str(driver)]
    argv += ["--weka-jar", str(jar), "--weka", "HNB", "--ours", "nb"]
    argv += ["--markdown", str(tmp_path / "t.md")]
    assert weka.main(argv) == 0
    stored = json.loads(results.read_text())["toy"]
    assert set(stored) == {"weka:HNB", "nb"}
    X, y = uci.load_set(tmp_path / "toy.csv", "label")
    for index, (scores, (train, test)) in enumerate(
        zip(stored["weka:HNB"], uci.cv_folds(X, y), strict=True)
    ):
        prior = np.array([np.mean(y[train] == c) for c in ("no", "yes")])
        expected = uci.probability_scores(
            np.tile(prior, (len(test), 1)), y[test], np.array(["no", "yes"])
        )
        times = {"fit_s": 0.5, "predict_s": 0.25, "fit_cpu_s": 0.4, "predict_cpu_s": 0.2}
        place = {"repeat": index // 2, "half": index % 2}
        assert scores == pytest.approx({**expected, **times, **place})
    text = (tmp_path / "t.md").read_text()
    assert "`nb` beside `weka:HNB`" in text and "| toy |" in text


@pytest.mark.skipif(
    shutil.which("java") is None or not Path("/usr/share/java/weka.jar").is_file(),
    reason="needs a Java runtime and Weka (Debian's weka package)",
)
def test_wekas_aode_runs_on_the_folds(tmp_path):
    toy_collection(tmp_path, code=False)
    weka = load_script("weka")
    results = tmp_path / "r.json"
    argv = ["--data", str(tmp_path), "--results", str(results), "--weka", "AODE"]
    assert weka.main([*argv, "--ours", "aode"]) == 0
    stored = json.loads(results.read_text())["toy"]
    folds = stored["weka:AODE"]
    assert len(folds) == 10 and not any("error" in f for f in folds)
    ours = np.mean([f["log_loss"] for f in stored["aode"]])
    theirs = np.mean([f["log_loss"] for f in folds])
    assert abs(ours - theirs) < 0.2  # the same model family on 30 training rows
