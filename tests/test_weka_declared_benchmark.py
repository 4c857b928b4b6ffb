"""benchmarks/weka_bayesnet_declared.py: skips cleanly without Java, reads Weka's nominal
ARFF with every declared value as a category, and (where Weka is installed) fits
bnclassify on Weka's filtered folds with the same losses as Weka's BayesNet."""

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from _benchmark_scripts import load_script, toy_collection


def test_without_java_or_weka_it_says_so_and_runs_nothing(tmp_path, capsys):
    toy_collection(tmp_path, code=False)
    script = load_script("weka_bayesnet_declared")
    argv = ["toy", "--data", str(tmp_path), "--results", str(tmp_path / "none.json")]
    assert script.main([*argv, "--java", "no-such-java-runtime"]) == 0
    assert "skipped: no Java runtime" in capsys.readouterr().out
    assert script.main([*argv, "--java", sys.executable, "--weka-jar", str(tmp_path / "x")]) == 0
    assert "skipped: no Weka jar" in capsys.readouterr().out


def test_a_nominal_arff_is_read_with_its_declared_values(tmp_path):
    script = load_script("weka_bayesnet_declared")
    path = tmp_path / "t.arff"
    path.write_text(
        "@relation t\n"
        "@attribute 'a b' {'\\'(-inf-0.5]\\'','\\'(0.5-inf)\\''}\n"
        "@attribute c {x,'y, z',never}\n"
        "@attribute __class__ {'no','yes'}\n"
        "@data\n"
        "'\\'(-inf-0.5]\\'',x,'no'\n"
        "'\\'(0.5-inf)\\'','y, z',yes\n"
    )
    frame = script.read_nominal_arff(path)
    assert list(frame.columns) == ["a b", "c", "__class__"]
    assert list(frame["a b"].cat.categories) == ["'(-inf-0.5]'", "'(0.5-inf)'"]
    assert list(frame["c"].cat.categories) == ["x", "y, z", "never"]  # "never" declared, unseen
    assert frame["c"].tolist() == ["x", "y, z"] and frame["__class__"].tolist() == ["no", "yes"]
    path.write_text("@relation t\n@attribute c {x}\n@data\nq\n")
    with pytest.raises(ValueError, match="column 'c' holds undeclared values"):
        script.read_nominal_arff(path)
    path.write_text("@relation t\n@attribute n numeric\n@data\n1\n")
    with pytest.raises(ValueError, match="not a nominal attribute"):
        script.read_nominal_arff(path)


@pytest.mark.skipif(
    shutil.which("java") is None or not Path("/usr/share/java/weka.jar").is_file(),
    reason="needs a Java runtime and Weka (Debian's weka package)",
)
def test_on_wekas_filtered_folds_the_losses_are_wekas(tmp_path, capsys):
    toy_collection(tmp_path, code=False)
    results = tmp_path / "r.json"
    weka = load_script("weka")
    argv = ["--data", str(tmp_path), "--results", str(results)]
    assert weka.main([*argv, "--weka", "BayesNet-K2", "--ours", "bnc-k2"]) == 0
    assert len(json.loads(results.read_text())["toy"]["weka:BayesNet-K2"]) == 10
    script = load_script("weka_bayesnet_declared")
    capsys.readouterr()
    assert script.main(["toy", *argv, "--specs", "bnc-k2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2, lines
    for line in lines:
        difference = float(re.search(r"largest fold difference (\S+)", line).group(1))
        assert difference < 1e-9, line
