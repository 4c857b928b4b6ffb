"""ARFF train and test files of the benchmarks' folds, for Weka-based peers.

Shared by ``benchmarks/eskdb_authors.py`` and ``benchmarks/weka.py``. A column the kinds
rule (:func:`bnclassify.data.kinds_rule.default_kind`, on the training rows) reads as
continuous is ``NUMERIC``; any other is ``NOMINAL`` with the values of the whole table
(training and test rows, as one ARFF of the set would declare them); missing cells are
``?``; the class is last, its values the sorted labels.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import uci  # noqa: E402  (the benchmark beside this file)

from bnclassify.data.kinds_rule import default_kind  # noqa: E402


def arff_value(value) -> str:
    """``value`` as a quoted ARFF token (Weka's backslash escapes)."""
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return f"'{text}'"


def arff_header(X: pd.DataFrame, train, labels) -> tuple[str, list[bool]]:
    """The ARFF header of a fold (``@data`` included) and which columns are numeric."""
    lines, numeric = ["@relation fold"], []
    for column in X.columns:
        is_number = default_kind(X[column].iloc[train]) != "categorical"
        numeric.append(is_number)
        if is_number:
            lines.append(f"@attribute {arff_value(column)} numeric")
        else:
            values = sorted({str(v) for v in X[column].dropna()})
            lines.append(f"@attribute {arff_value(column)} {{{','.join(map(arff_value, values))}}}")
    lines.append(f"@attribute __class__ {{{','.join(map(arff_value, labels))}}}")
    return "\n".join([*lines, "@data", ""]), numeric


def arff_rows(X: pd.DataFrame, y, rows, numeric) -> str:
    """The ``@data`` lines of ``rows`` (missing cells ``?``)."""
    columns = []
    for j, column in enumerate(X.columns):
        values = X[column].iloc[rows]
        missing = values.isna().to_numpy()
        if numeric[j]:
            text = np.array([repr(float(v)) for v in values.to_numpy(dtype=float)], dtype=object)
        else:
            text = np.array([arff_value(v) for v in values.astype(object)], dtype=object)
        text[missing] = "?"
        columns.append(text)
    columns.append(np.array([arff_value(v) for v in np.asarray(y)[rows]], dtype=object))
    return "\n".join(",".join(row) for row in zip(*columns, strict=True)) + "\n"


def write_folds(X, y, folds, classes, folder: Path) -> list[Path]:
    """``train.arff`` and ``test.arff`` of each fold under ``folder`` (one directory each)."""
    dirs = []
    for i, (train, test) in enumerate(folds):
        fold = folder / f"fold{i}"
        fold.mkdir(parents=True, exist_ok=True)
        header, numeric = arff_header(X, train, classes)
        (fold / "train.arff").write_text(header + arff_rows(X, y, train, numeric))
        (fold / "test.arff").write_text(header + arff_rows(X, y, test, numeric))
        for stale in ("proba.csv", "time.txt"):
            (fold / stale).unlink(missing_ok=True)
        dirs.append(fold)
    return dirs


#: The times a fold driver writes to ``time.txt``: wall-clock fit and predict seconds, then
#: (when it measures them) the same in CPU seconds.
TIME_FIELDS = ("fit_s", "predict_s", "fit_cpu_s", "predict_cpu_s")


def driver_scores(command, dirs, y, folds, classes, timeout) -> list[dict]:
    """Run a fold driver (``command``) over the fold directories ``dirs`` and score each
    fold's ``proba.csv`` with ``uci.probability_scores``; the times from its ``time.txt``.
    A fold without probabilities, of the wrong shape or not finite is an error recorded for
    every fold (the set counts as a refusal)."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return [{"error": f"over {timeout} s for the {len(dirs)} folds"}] * len(dirs)
    scores = []
    for fold, (_, test) in zip(dirs, folds, strict=True):
        if not (fold / "proba.csv").exists():
            lines = (done.stderr or done.stdout).strip().splitlines()
            why = [line for line in lines if "Exception" in line][:1] or lines[-3:]
            return [{"error": f"exit {done.returncode}: {' | '.join(why)[:300]}"}] * len(dirs)
        proba = np.loadtxt(fold / "proba.csv", delimiter=",", ndmin=2)
        times = map(float, (fold / "time.txt").read_text().split())
        if proba.shape != (len(test), len(classes)) or not np.isfinite(proba).all():
            return [{"error": f"proba of shape {proba.shape}, not finite or not per class"}] * len(
                dirs
            )
        scores.append(
            {
                **uci.probability_scores(proba, y[test], classes),
                **dict(zip(TIME_FIELDS, times, strict=False)),
            }
        )
    return scores


def log_driver(name, spec, scores, seconds):
    """One line: a driver's mean losses and fit seconds on a set, or its refusal."""
    errors = [s["error"] for s in scores if "error" in s]
    if errors:
        print(f"{name:28s} {spec:40s} REFUSED: {errors[0][:160]}", flush=True)
        return
    mean = {k: np.mean([s[k] for s in scores]) for k in ("zero_one", "log_loss", "fit_s")}
    print(
        f"{name:28s} {spec:40s} 0-1 {mean['zero_one']:.4f}  log {mean['log_loss']:.4f}  "
        f"fit {mean['fit_s']:.3f} s  (JVM wall {seconds:.1f} s)",
        flush=True,
    )
