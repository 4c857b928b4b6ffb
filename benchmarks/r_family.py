"""R bnclassify's family here: wrappers, NB weighting, discriminative parameters, measured.

Usage::

    python benchmarks/r_family.py --json benchmarks/r_family_results.json

1. Accuracy and CLL (per-fold sum of log2 P(y | x)) by 10-fold stratified CV
   (``StratifiedKFold(10, shuffle=True, random_state=42)``, alpha 1) on car,
   nursery, p450, lactamase and vote for NB, TAN (R's ``tan_cl``), each wrapper
   (``random_state=0``), NB with AWNB / MANB / WANBIA and TAN with
   ``objective="conditional"``.
2. Wrapper fit time on p450 and nursery (best of 3) against the naive search that
   refits every candidate from rows on every inner fold (one run), with the number
   of candidates each scored and a check that both find the same search path.
3. The study's protocol (``KFold(10, shuffle=True, random_state=42)``, alpha 1,
   lactamase as the study loaded it) on p450 and lactamase: the discriminative
   models' CLL against TAN's, with the corrected resampled t-test.
4. ``l2="cv"``: on each of the five sets (all rows), the strength the inner CV of
   TAN(objective="conditional") chooses, and its fit time against the fixed ``l2=10``
   (best of 3).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedKFold

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _wrapper_reference import naive_search  # noqa: E402

from bnclassify import (  # noqa: E402
    BSEJ,
    FSSJ,
    KDB,
    KDBHC,
    TAN,
    TANHC,
    TANHCSP,
    EnsembleTAN,
    NaiveBayes,
    SimplerTAN,
)
from bnclassify.metrics import corrected_resampled_ttest, evaluate, study_cv  # noqa: E402
from bnclassify.study import load_study_data  # noqa: E402

DATASETS = ("car", "nursery", "p450", "lactamase", "vote")
WRAPPERS = {"tan_hc": TANHC, "tan_hcsp": TANHCSP, "fssj": FSSJ, "bsej": BSEJ, "kdb (hc)": KDBHC}


def family_models():
    models = {"nb": NaiveBayes(), "tan_cl": TAN(criterion="loglik")}
    models.update({name: cls(random_state=0) for name, cls in WRAPPERS.items()})
    models.update({f"nb {w}": NaiveBayes(weighting=w) for w in ("awnb", "manb", "wanbia")})
    models["tan_cl (conditional)"] = TAN(criterion="loglik", objective="conditional")
    fixed = TAN(criterion="loglik", objective="conditional", l2=10.0)
    models["tan_cl (conditional, l2=10)"] = fixed
    return models


def accuracy_and_cll():
    out = {}
    cv = StratifiedKFold(10, shuffle=True, random_state=42)
    for name in DATASETS:
        data = load_study_data(name)
        _, summary = evaluate(family_models(), data.data, data.target, cv=cv, progress=False)
        out[name] = {
            model: {
                "accuracy": float(summary.loc[model, ("accuracy", "mean")]),
                "cll": float(summary.loc[model, ("cll", "mean")]),
            }
            for model in summary.index
        }
        print(name, "done", flush=True)
    return out


def fit_times():
    out = {}
    for name in ("p450", "nursery"):
        data = load_study_data(name)
        X, y = data.data, data.target
        for wrapper, cls in WRAPPERS.items():
            best = np.inf
            for _ in range(3):
                start = time.perf_counter()
                model = cls(random_state=0).fit(X, y)
                best = min(best, time.perf_counter() - start)
            start = time.perf_counter()
            slow = naive_search(cls(random_state=0), X, y)
            naive = time.perf_counter() - start
            same = [m for _, m, _ in slow.path] == list(model.search_path_.move)
            out[f"{name} {wrapper}"] = {
                "fit_s": best,
                "naive_search_s": naive,
                "candidates": int(model.n_candidates_),
                "same_path": bool(same),
            }
            print(name, wrapper, round(best, 3), round(naive, 2), same, flush=True)
    return out


def study_protocol():
    out = {}
    for name in ("p450", "lactamase"):
        data = load_study_data(name, as_study_loaded=True)
        X, y = data.data, data.target
        contacts = data.contact_matrix
        models = {
            "TAN": TAN(),
            "TAN (conditional)": TAN(objective="conditional"),
            "TAN (conditional, l2=10)": TAN(objective="conditional", l2=10.0),
            "TAN loglik (conditional)": TAN(criterion="loglik", objective="conditional"),
            "NB (conditional)": NaiveBayes(objective="conditional"),
            "Simpler TAN (conditional)": SimplerTAN(contacts, objective="conditional"),
            "KDB k=1 (conditional)": KDB(k=1, objective="conditional"),
            "KDB k=2 (conditional)": KDB(k=2, objective="conditional"),
            "NB wanbia": NaiveBayes(weighting="wanbia"),
            "STAN+TAN bagging": EnsembleTAN(contacts, members="stan+tan"),
        }
        folds, summary = evaluate(models, X, y, cv=study_cv(), progress=False)
        n = len(X)
        rows = {}
        tan = folds[folds.model == "TAN"].sort_values("fold").cll.to_numpy()
        for model in models:
            scores = folds[folds.model == model].sort_values("fold").cll.to_numpy()
            test = corrected_resampled_ttest(scores, tan, n_train=n - n // 10, n_test=n // 10)
            rows[model] = {
                "accuracy": float(summary.loc[model, ("accuracy", "mean")]),
                "cll": float(summary.loc[model, ("cll", "mean")]),
                "t_vs_tan": float(test.statistic) if model != "TAN" else None,
                "p_vs_tan": float(test.pvalue) if model != "TAN" else None,
            }
        out[name] = rows
        print(name, "study protocol done", flush=True)
    return out


def l2_choice():
    out = {}
    for name in DATASETS:
        data = load_study_data(name)
        X, y = data.data, data.target
        row = {}
        for label, l2 in (("fixed_10", 10.0), ("cv", "cv")):
            best = np.inf
            for _ in range(3):
                start = time.perf_counter()
                model = TAN(criterion="loglik", objective="conditional", l2=l2).fit(X, y)
                best = min(best, time.perf_counter() - start)
            row[f"{label}_fit_s"] = best
        row["chosen_l2"] = float(model.l2_)
        start = time.perf_counter()
        TAN(criterion="loglik").fit(X, y)
        row["joint_fit_s"] = time.perf_counter() - start
        out[name] = row
        print(name, row, flush=True)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", default="benchmarks/r_family_results.json")
    parser.add_argument("--parts", default="times,study,cv,l2")
    parser.add_argument("--markdown", action="store_true", help="print the tables of a run")
    args = parser.parse_args(argv)
    path = Path(args.json)
    if args.markdown:
        print(markdown(json.loads(path.read_text())))
        return 0
    results = json.loads(path.read_text()) if path.exists() else {}
    parts = args.parts.split(",")
    runs = {
        "times": ("fit_times", fit_times),
        "study": ("study_protocol", study_protocol),
        "cv": ("stratified_cv", accuracy_and_cll),
        "l2": ("l2_cv", l2_choice),
    }
    for part, (key, run) in runs.items():
        if part in parts:
            results[key] = run()
            path.write_text(json.dumps(results, indent=1))  # each part kept as it finishes
    return 0


def table(header, rows) -> list:
    """Markdown lines of a table: ``header`` and ``rows`` are lists of cells."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return [*lines, ""]


def markdown(results) -> str:
    """The tables of docs/user_guide/r_family.md from a results file."""
    lines = []
    cv = results.get("stratified_cv")
    if cv:
        models = list(next(iter(cv.values())))
        cell = "{:.1f} / {:.2f}".format
        rows = [
            [model, *(cell(100 * cv[d][model]["accuracy"], cv[d][model]["cll"]) for d in cv)]
            for model in models
        ]
        lines += table(["model", *cv], rows)
    times = results.get("fit_times")
    if times:
        header = ["data, wrapper", "candidates", "fit (s)", "naive search (s)", "ratio"]
        rows = [
            [
                key,
                t["candidates"],
                f"{t['fit_s']:.3f}",
                f"{t['naive_search_s']:.1f}",
                f"{t['naive_search_s'] / t['fit_s']:.0f}x",
                "yes" if t["same_path"] else "no",
            ]
            for key, t in times.items()
        ]
        lines += table([*header, "same path"], rows)
    choice = results.get("l2_cv")
    if choice:
        header = ["data", "chosen l2", "joint fit (s)", "l2=10 fit (s)", 'l2="cv" fit (s)']
        rows = [
            [name, f"{r['chosen_l2']:g}"]
            + [f"{r[k]:.3f}" for k in ("joint_fit_s", "fixed_10_fit_s", "cv_fit_s")]
            for name, r in choice.items()
        ]
        lines += table(header, rows)
    for name, rows in (results.get("study_protocol") or {}).items():
        body = [
            [
                model,
                f"{v['accuracy']:.3f}",
                f"{v['cll']:.2f}",
                "" if v["t_vs_tan"] is None else f"{v['t_vs_tan']:.2f}",
                "" if v["p_vs_tan"] is None else f"{v['p_vs_tan']:.3f}",
            ]
            for model, v in rows.items()
        ]
        lines += [f"**{name}**", "", *table(["model", "accuracy", "CLL", "t vs TAN", "p"], body)]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
