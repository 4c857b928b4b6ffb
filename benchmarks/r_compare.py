"""This library's wrappers and TAN against R bnclassify's, on the same outer folds.

Usage::

    python benchmarks/r_compare.py --json benchmarks/r_compare_results.json
    python benchmarks/r_compare.py --from-json benchmarks/r_compare_results.json --markdown

Needs ``Rscript`` with R bnclassify (and jsonlite) installed; it is not part of the
test suite. For each bundled set (car, nursery, p450, lactamase, vote) it writes the
table, each column's categories and the outer folds
(``StratifiedKFold(10, shuffle=True, random_state=42)``, as ``benchmarks/r_family.py``)
to a work directory, runs ``benchmarks/r_compare.R`` there (R's ``tan_hc``,
``tan_hcsp``, ``fssj``, ``bsej`` and ``kdb(kdbk = 2)`` with ``k = 5``, ``epsilon =
0.01``, ``smooth = 1``, parameters by ``lp(smooth = 1)``), fits ``TANHC``,
``TANHCSP``, ``FSSJ``, ``BSEJ`` and ``KDBHC(k=2)`` here on the same folds (``cv=5``,
``epsilon=0.01``, ``alpha=1``) and compares accuracy and CLL (per fold, the sum of
``log2 P(y | x)`` over the test rows). It also compares the trees of R's
``tan_cl(score = "loglik")`` and of ``TAN()`` fitted on all the rows, as undirected
edge sets.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

from bnclassify import BSEJ, FSSJ, KDBHC, TAN, TANHC, TANHCSP
from bnclassify.classifiers import _wrappers
from bnclassify.study import load_study_data

DATASETS = ("car", "nursery", "p450", "lactamase", "vote")
LEARNERS = {
    "tan_hc": lambda: TANHC(random_state=0),
    "tan_hcsp": lambda: TANHCSP(random_state=0),
    "fssj": lambda: FSSJ(random_state=0),
    "bsej": lambda: BSEJ(random_state=0),
    "kdb": lambda: KDBHC(k=2, random_state=0),
}
R_SCRIPT = Path(__file__).resolve().with_name("r_compare.R")
TOLERANCE = 1.5


def check_r():
    """The R version and R bnclassify's version; a clear error when either is missing."""
    if shutil.which("Rscript") is None:
        raise SystemExit(
            "r_compare: Rscript was not found. Install R (e.g. apt-get install r-base-core) "
            "and R bnclassify with its dependencies, then run again."
        )
    probe = subprocess.run(
        [
            "Rscript",
            "-e",
            "suppressPackageStartupMessages({library(bnclassify); library(jsonlite)}); "
            'stopifnot(exists("kdb", asNamespace("bnclassify"))); '
            'cat(paste(R.version$major, R.version$minor, sep = "."), '
            'as.character(utils::packageVersion("bnclassify")))',
        ],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        raise SystemExit(
            "r_compare: R cannot load bnclassify (with kdb) and jsonlite:\n" + probe.stderr.strip()
        )
    r_version, bnc_version = probe.stdout.split()
    return r_version, bnc_version


def write_inputs(name, workdir):
    """The table, each column's categories and the outer test fold of each row."""
    data = load_study_data(name)
    X, y = data.data, pd.Series(np.asarray(data.target), name="class")
    frame = X.copy()
    frame["class"] = pd.Categorical(y.astype(str))
    frame.to_csv(workdir / f"{name}.csv", index=False, na_rep="")
    levels = {c: [str(v) for v in frame[c].cat.categories] for c in frame.columns}
    (workdir / f"{name}.levels.json").write_text(json.dumps(levels))
    fold_of = np.empty(len(y), dtype=int)
    cv = StratifiedKFold(10, shuffle=True, random_state=42)
    for k, (_, test) in enumerate(cv.split(X, y)):
        fold_of[test] = k
    pd.DataFrame({"fold": fold_of}).to_csv(workdir / f"{name}.folds.csv", index=False)
    return X, y.astype(str).to_numpy(), fold_of


def undirected(arcs):
    return sorted(sorted(map(str, a)) for a in arcs)


def feature_arcs(model, features):
    """Arcs between features of a fitted model, as (parent, child) name pairs."""
    graph = model.structure_
    names = set(map(str, features))
    return [(str(u), str(v)) for u, v in graph.edges if str(u) in names and str(v) in names]


def recording_folds(record):
    """``stratified_folds`` as the wrappers call it, keeping each draw in ``record``."""
    original = _wrappers.stratified_folds

    def draw(y, n_folds, rng):
        folds = original(y, n_folds, rng)
        record.append(folds.copy())
        return folds

    return original, draw


def ours(name, X, y, fold_of, workdir):
    """Every wrapper on every outer fold; writes the inner folds each search drew for R."""
    out = {}
    inner = pd.DataFrame(index=range(len(y)), columns=[str(k) for k in range(10)], dtype=float)
    for learner, make in LEARNERS.items():
        rows = []
        for k in range(10):
            train, test = fold_of != k, fold_of == k
            record = []
            original, draw = recording_folds(record)
            _wrappers.stratified_folds = draw
            try:
                start = time.perf_counter()
                model = make().fit(X[train], y[train])
                fit_s = time.perf_counter() - start
            finally:
                _wrappers.stratified_folds = original
            drawn = record[0] + 1
            if inner[str(k)].notna().any():
                # every wrapper has random_state=0, so all draw the same inner folds
                assert np.array_equal(inner.loc[train, str(k)].to_numpy(), drawn)
            inner.loc[train, str(k)] = drawn
            proba = model.predict_proba(X[test])
            classes = np.asarray(model.classes_).astype(str)
            pred = classes[np.argmax(proba, axis=1)]
            true_col = np.searchsorted(classes, y[test])
            p_true = proba[np.arange(test.sum()), true_col]
            rows.append(
                {
                    "fold": k,
                    "accuracy": float(np.mean(pred == y[test])),
                    "cll": float(np.sum(np.log2(p_true))),
                    "fit_s": fit_s,
                    "features": list(map(str, model.selected_features_)),
                    "arcs": feature_arcs(model, X.columns),
                    "inner_scores": [float(s) for s in model.search_scores_],
                }
            )
        out[learner] = rows
        print(name, learner, "ours done", flush=True)
    inner.to_csv(workdir / f"{name}.inner.csv", index=False, na_rep="NA", float_format="%.0f")
    tan = TAN().fit(X, y)
    out["tan_cl"] = {"arcs": feature_arcs(tan, X.columns)}
    return out


def normalised(folds):
    """R's JSON with lists kept lists (jsonlite writes a length-one vector as a scalar)."""
    if not isinstance(folds, list):
        return folds
    for fold in folds:
        for key in ("features", "inner_scores"):
            if not isinstance(fold[key], list):
                fold[key] = [fold[key]]
        if not isinstance(fold["arcs"], list):
            fold["arcs"] = list(fold["arcs"].values())
    return folds


def r_outputs(name, workdir, same_inner):
    suffix = ".same.r.json" if same_inner else ".r.json"
    names = [*LEARNERS] if same_inner else [*LEARNERS, "tan_cl"]
    return {learner: workdir / f"{name}.{learner}{suffix}" for learner in names}


def theirs(name, workdir, same_inner=False, reuse=False):
    """R's runs on the outer folds: with its own random inner folds, or with ours."""
    outputs = r_outputs(name, workdir, same_inner)

    def read():
        return {
            learner: normalised(json.loads(path.read_text())) for learner, path in outputs.items()
        }

    if reuse and all(path.exists() for path in outputs.values()):
        return {**read(), "wall_s": None}
    start = time.perf_counter()
    # R's progress (one line per fold) goes to this process's output
    flag = ["--same-inner"] if same_inner else []
    run = subprocess.run(["Rscript", str(R_SCRIPT), str(workdir), name, *flag])
    if run.returncode != 0:
        raise SystemExit(f"r_compare: R failed on {name} (exit {run.returncode}), see above.")
    return {**read(), "wall_s": time.perf_counter() - start}


def same_structure(a, b):
    """Same kept features and the same arcs, read undirected (R keeps one of two equal arcs)."""
    return sorted(a["features"]) == sorted(b["features"]) and undirected(a["arcs"]) == undirected(
        b["arcs"]
    )


def mean_of(folds, key, scale=1.0):
    return float(np.mean([f[key] for f in folds]) * scale)


def summarise(results):
    rows = []
    for name in results["datasets"]:
        here, r = results["here"][name], results["r"][name]
        same = results.get("r_same_inner", {}).get(name)
        for learner in LEARNERS:
            row = {
                "data": name,
                "learner": learner,
                "acc_here": mean_of(here[learner], "accuracy", 100),
                "acc_r": mean_of(r[learner], "accuracy", 100),
                "cll_here": mean_of(here[learner], "cll"),
                "cll_r": mean_of(r[learner], "cll"),
                "fit_s_here": mean_of(here[learner], "fit_s"),
                "fit_s_r": mean_of(r[learner], "fit_s"),
            }
            row["diff"] = row["acc_here"] - row["acc_r"]
            row["within"] = bool(abs(row["diff"]) <= TOLERANCE)
            if same is not None:
                row["acc_r_same_inner"] = mean_of(same[learner], "accuracy", 100)
                row["same_structure_folds"] = sum(
                    same_structure(a, b) for a, b in zip(here[learner], same[learner], strict=True)
                )
            rows.append(row)
    return rows


def markdown(results):
    lines = [
        "| data | learner | accuracy here | accuracy R | here - R | R, our inner folds "
        "| same structure | CLL here | CLL R | fit s here | fit s R |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in summarise(results):
        lines.append(
            f"| {row['data']} | {row['learner']} | {row['acc_here']:.1f} | {row['acc_r']:.1f} "
            f"| {row['diff']:+.1f} | {row.get('acc_r_same_inner', float('nan')):.1f} "
            f"| {row.get('same_structure_folds', '-')}/10 "
            f"| {row['cll_here']:.2f} | {row['cll_r']:.2f} "
            f"| {row['fit_s_here']:.3f} | {row['fit_s_r']:.1f} |"
        )
    lines += [
        "",
        "| data | TAN() edges equal to tan_cl's | only here | only in R |",
        "|---|---|---|---|",
    ]
    for name in results["datasets"]:
        here = {tuple(e) for e in undirected(results["here"][name]["tan_cl"]["arcs"])}
        r = {tuple(e) for e in undirected(results["r"][name]["tan_cl"]["arcs"])}
        only_here = ", ".join("-".join(e) for e in sorted(here - r)) or "none"
        only_r = ", ".join("-".join(e) for e in sorted(r - here)) or "none"
        lines.append(f"| {name} | {'yes' if here == r else 'no'} | {only_here} | {only_r} |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the raw results here")
    parser.add_argument("--from-json", type=Path, help="read results instead of running")
    parser.add_argument("--markdown", action="store_true", help="print the tables")
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--workdir", type=Path, help="keep R's inputs and outputs here")
    parser.add_argument(
        "--reuse-r",
        action="store_true",
        help="read R's outputs already in --workdir instead of running R again",
    )
    args = parser.parse_args(argv)
    if args.from_json:
        results = json.loads(args.from_json.read_text())
    else:
        r_version, bnc_version = check_r()
        workdir = args.workdir or Path(tempfile.mkdtemp(prefix="r_compare_"))
        workdir.mkdir(parents=True, exist_ok=True)
        results = {
            "r_version": r_version,
            "r_bnclassify_version": bnc_version,
            "datasets": args.datasets,
            "here": {},
            "r": {},
        }
        results["r_same_inner"] = {}
        for name in args.datasets:
            X, y, fold_of = write_inputs(name, workdir)
            results["r"][name] = theirs(name, workdir, reuse=args.reuse_r)
            print(name, "R done", results["r"][name]["wall_s"], "s", flush=True)
            results["here"][name] = ours(name, X, y, fold_of, workdir)
            same = theirs(name, workdir, same_inner=True, reuse=args.reuse_r)
            results["r_same_inner"][name] = same
            print(name, "R (our inner folds) done", same["wall_s"], "s", flush=True)
        results["summary"] = summarise(results)
        if args.json:
            args.json.write_text(json.dumps(results, indent=1, default=float) + "\n")
    if args.markdown:
        print(markdown(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
