"""BayesNetClassifier on the tables Weka's BayesNet fits: its filters' output, values declared.

Weka's ``BayesNet`` discretises numeric attributes (supervised ``Discretize``) and then
fills missing cells (``ReplaceMissingValues``) inside its fit, and its estimator counts
every value the ARFF header *declares*: a nominal value that no training row of the fold
has is a state of zero count, whose smoothed share differs by class
(``(0 + alpha) / (n_c + alpha r)``). From the CSVs, bnclassify knows the values the
training rows hold. This script writes each fold as ARFF (``benchmarks/arff.py``, the
header's values from the whole table, as ``benchmarks/weka.py`` gives Weka), runs Weka's
two filters in batch mode (fitted on the training file, applied to both), reads the
filtered files with every column a pandas ``Categorical`` of the header's declared values,
and the labels a ``Categorical`` of every class, fits bnclassify's presets
(``benchmarks/uci.py``: ``bnc-k2``, ``bnc-hc``, ``bnc-tabu``)
and prints the mean losses beside the stored ones (ours from the CSVs, and Weka's, from
``--results``), with the combined 5x2cv F test's p against Weka's and the largest
difference of a fold's losses.

Usage::

    python benchmarks/weka_bayesnet_declared.py arrhythmia --specs bnc-k2

Without Java or ``weka.jar`` it says so and exits 0 (nothing is run).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import uci  # noqa: E402  (the benchmarks beside this file)
from arff import write_folds  # noqa: E402
from weka import WEKA_JAR, java_missing  # noqa: E402

from bnclassify.metrics import combined_5x2cv_ftest  # noqa: E402

WEKA_OF = {
    "bnc-k2": "weka:BayesNet-K2",
    "bnc-hc": "weka:BayesNet-HillClimber",
    "bnc-tabu": "weka:BayesNet-TabuSearch",
}
FILTERS = (
    ("weka.filters.supervised.attribute.Discretize", ["-R", "first-last", "-c", "last"]),
    ("weka.filters.unsupervised.attribute.ReplaceMissingValues", []),
)
ATTRIBUTE = re.compile(r"@attribute\s+('(?:[^'\\]|\\.)*'|\S+)\s+\{(.*)\}\s*$", re.IGNORECASE)
TOKEN = re.compile(r"'((?:[^'\\]|\\.)*)'|([^,\s][^,]*)")


def tokens(text: str) -> list[str]:
    """The comma-separated ARFF tokens of ``text``, quotes and backslash escapes undone."""
    out = []
    for quoted, bare in TOKEN.findall(text):
        value = re.sub(r"\\(.)", r"\1", quoted) if quoted or not bare else bare.strip()
        out.append(value)
    return out


def read_nominal_arff(path: Path) -> pd.DataFrame:
    """An ARFF file whose attributes are all nominal, each column a ``Categorical`` of the
    values its header declares (in their order)."""
    head, data = path.read_text().split("@data", 1)
    names, declared = [], []
    for line in head.splitlines():
        match = ATTRIBUTE.match(line.strip())
        if match:
            names.append(tokens(match.group(1))[0])
            declared.append(tokens(match.group(2)))
        elif line.strip().lower().startswith("@attribute"):
            raise ValueError(f"{path}: not a nominal attribute: {line.strip()[:80]}")
    rows = [tokens(line) for line in data.strip().splitlines() if line.strip()]
    frame = pd.DataFrame(rows, columns=names)
    for name, values in zip(names, declared, strict=True):
        column = frame[name].mask(frame[name] == "?")  # a missing cell
        if (column.notna() & ~column.isin(values)).any():
            raise ValueError(f"{path}: column {name!r} holds undeclared values")
        frame[name] = pd.Categorical(column, categories=values)
    return frame


def filtered_fold(java: str, jar: str, fold: Path) -> tuple[Path, Path]:
    """``train.arff``/``test.arff`` of ``fold`` through Weka's two filters in batch mode."""
    train, test = fold / "train.arff", fold / "test.arff"
    for step, (name, options) in enumerate(FILTERS):
        out_train, out_test = fold / f"train{step}.arff", fold / f"test{step}.arff"
        command = [java, "-cp", jar, name, *options, "-b"]
        command += ["-i", str(train), "-o", str(out_train), "-r", str(test), "-s", str(out_test)]
        subprocess.run(command, check=True, capture_output=True, text=True)
        train, test = out_train, out_test
    return train, test


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sets", help="comma-separated set names")
    parser.add_argument("--specs", default="bnc-k2,bnc-hc,bnc-tabu")
    parser.add_argument("--data", type=Path, default=uci.DEFAULT_DATA, help="a MANIFEST.csv folder")
    parser.add_argument("--results", type=Path, default=uci.HERE / "results_weka_bayesnet.json")
    parser.add_argument("--java", default="java")
    parser.add_argument("--weka-jar", default=WEKA_JAR)
    args = parser.parse_args(argv)
    why = java_missing(args.java, args.weka_jar)
    if why:
        print(f"skipped: {why}")
        return 0
    warnings.simplefilter("ignore")
    results = json.loads(args.results.read_text())
    for name, X, y in uci.load_sets(args.sets.split(","), args.data):
        classes = np.unique(y)
        folds = uci.cv_folds(X, y)
        root = Path(tempfile.mkdtemp(prefix=f"declared-{name}-"))
        try:
            tables = []
            for fold in write_folds(X, y, folds, classes, root):
                train, test = (
                    read_nominal_arff(p) for p in filtered_fold(args.java, args.weka_jar, fold)
                )
                tables.append((train, test))
            for spec in args.specs.split(","):
                weka = WEKA_OF[spec]
                stored = results.get(name, {})
                if not all("log_loss" in s for k in (spec, weka) for s in stored.get(k, [{}])):
                    print(f"{name} {spec}: no stored losses of both sides (a refusal or not run)")
                    continue
                scores = []
                for (train, test), (_, test_rows) in zip(tables, folds, strict=True):
                    label_train = train.pop("__class__").astype(str).to_numpy()
                    test = test.drop(columns="__class__")
                    declared = pd.Categorical(label_train, categories=classes)  # as the header
                    model = uci.make_model(spec).fit(train, declared)
                    train["__class__"] = label_train  # the table serves the next spec
                    full = np.zeros((len(test), len(classes)))
                    found = np.searchsorted(classes, np.asarray(model.classes_, dtype=str))
                    full[:, found] = model.predict_proba(test)
                    scores.append(uci.probability_scores(full, y[test_rows], classes))
                for metric in ("log_loss", "zero_one"):
                    mine = [s[metric] for s in scores]
                    ours = [s[metric] for s in stored[spec]]
                    theirs = [s[metric] for s in stored[weka]]
                    print(
                        f"{name} {spec} {metric}: ours from the CSVs {np.mean(ours):.4f}, ours "
                        f"on Weka's filtered tables {np.mean(mine):.4f}, Weka {np.mean(theirs):.4f}"
                        f"; p (filtered against Weka) "
                        f"{combined_5x2cv_ftest(mine, theirs).pvalue:.3f}, largest fold "
                        f"difference {np.max(np.abs(np.subtract(mine, theirs))):.2e}",
                        flush=True,
                    )
        finally:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
