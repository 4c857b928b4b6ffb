"""BMATAN's prediction against a random forest's fit plus prediction, timed in the same run.

Usage::

    python benchmarks/bma_predict.py                        # 22 UCI sets + 3 stand-ins, 1 thread
    python benchmarks/bma_predict.py --threads all          # every core for both
    python benchmarks/bma_predict.py --extra /path/to/more  # more CSVs and their MANIFEST.csv
    python benchmarks/bma_predict.py --sets letter-like,nursery --forms csv,category,arrow
    python benchmarks/bma_predict.py --save /tmp/p.npz      # keep every predict_proba ...
    python benchmarks/bma_predict.py --compare /tmp/p.npz   # ... and compare another version's
    python benchmarks/bma_predict.py --tree /path/to/checkout  # that checkout's bnclassify
    python benchmarks/bma_predict.py --figure out.png --before before.json  # CPU times drawn
    python benchmarks/bma_predict.py --figure out.png --before b.json --replot a.json  # no run
    python benchmarks/bma_predict.py --sets letter-like --holes 0.02,0.1  # cells made missing

Protocol: each table is read as ``pd.read_csv`` returns it, the labels as strings, and
split once into two stratified halves (``StratifiedKFold(n_splits=2, shuffle=True,
random_state=0)``: a class of one row is in one half only); each half is fitted and the
other predicted ("A->B", "B->A"). Per half: ``BMATAN().fit`` once, then
``BMATAN.predict_proba`` of the other half and ``RandomForestClassifier(n_estimators=100,
random_state=0)``'s fit plus ``predict_proba`` (numeric columns as they are, the others
ordinal-encoded: benchmarks/uci.py's peer), interleaved ``--repeat`` times, best of each,
in wall-clock and in CPU seconds of the process (``time.process_time``: on a shared
machine the fairer measure of one thread's work; with ``--threads all`` it adds up the
threads). ``--threads 1`` (the default) runs both under ``threadpool_limits(1)``;
``--threads all`` leaves every core to both (bnclassify's kernels split their rows over
the cores; the forest gets ``n_jobs=-1``).

Input forms (``--forms``): ``csv`` (as read), ``category`` (every column that is not
float as pandas ``category``), ``arrow`` (every column that is not float as its strings
in ``pd.ArrowDtype(pa.string())``, missing cells kept missing); the forest always reads
the table as read (scikit-learn's encoder refuses ``pd.NA``).

``--holes 0.02,0.1`` adds, for each set, variants with that share of the feature cells
made missing at random (``name+2%``; the same cells in every form and for both models).

Stand-ins (on by default, ``--no-synthetic`` leaves them out) for three UCI tables the
collection lacks, with their shapes and kinds: ``letter-like`` (20,000 x 16 integer
features 0-15, 26 classes), ``hypothyroid-like`` (3,772 x 29: 7 numeric columns, one
never observed, the others ``f``/``t`` and a few categories, missing cells, 4 classes of
about 3,481 / 194 / 95 / 2 rows), ``mushroom-like`` (8,124 x 22 one-letter categories,
one column missing in 2,480 rows, one constant column, 2 classes), sampled from random
TAN networks (:func:`bnclassify.datasets.make_tree_classification`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
FORMS = ("csv", "category", "arrow")


def _parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None, help="UCI folder (MANIFEST.csv)")
    parser.add_argument("--extra", type=Path, action="append", default=[], help="more folders")
    parser.add_argument("--no-synthetic", action="store_true", help="no stand-ins")
    parser.add_argument("--sets", default="", help="comma-separated names (default: all)")
    parser.add_argument("--forms", default="csv", help="csv,category,arrow")
    parser.add_argument("--holes", default="", help="shares of cells made missing: 0.02,0.1")
    parser.add_argument("--threads", default="1", choices=["1", "all"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tree", type=Path, default=None, help="a checkout to import from")
    parser.add_argument("--save", type=Path, default=None, help="predict_proba per case (.npz)")
    parser.add_argument("--compare", type=Path, default=None, help="an .npz of --save")
    parser.add_argument("--results", type=Path, default=None, help="JSON of every case")
    parser.add_argument("--figure", type=Path, default=None, help="a PNG of the CPU times")
    parser.add_argument("--before", type=Path, default=None, help="--results of another run")
    parser.add_argument("--replot", type=Path, default=None, help="draw --figure from results")
    return parser.parse_args(argv)


def stand_ins() -> dict:
    """``{name: (X, y)}``: the synthetic tables of the module docstring."""
    from bnclassify.datasets import make_tree_classification

    tables = {}
    X, y = make_tree_classification(
        20000, 16, n_categories=16, n_classes=26, concentration=0.3, random_state=0
    )
    tables["letter-like"] = (
        pd.DataFrame(X.astype(np.int64), columns=[f"x{j}" for j in range(16)]),
        np.array([chr(65 + c) for c in y]),
    )

    rng = np.random.default_rng(1)
    cards = np.r_[[6] * 7, [2] * 21, 5]
    X, y = make_tree_classification(
        3772, 29, n_categories=cards, n_classes=4, concentration=0.4,
        weights=[3481, 194, 95, 2], random_state=1,
    )  # fmt: skip
    for c in range(4):  # a class of 2 rows: at least one in each half
        short = 2 - int((y == c).sum())
        if short > 0:
            y[rng.choice(np.flatnonzero(y == 0), short, replace=False)] = c
    frame = {}
    for j in range(29):
        codes = X[:, j].astype(float)
        if j < 7:  # numeric: a level per code, spread
            values = np.round(np.exp(codes / 2.0 + rng.normal(0.0, 0.3, len(codes))), 2)
            values[rng.random(len(values)) < (1.0 if j == 6 else 0.03 + 0.03 * j)] = np.nan
            frame[f"n{j}"] = values
        elif j < 28:
            column = np.where(X[:, j] == 1, "t", "f").astype(object)
            column[rng.random(len(column)) < (0.04 if j == 7 else 0.0)] = np.nan
            frame[f"b{j}"] = column
        else:
            frame["source"] = np.array(["SVHC", "other", "SVI", "STMW", "SVHD"])[X[:, j]]
    labels = np.array(["negative", "compensated", "primary", "secondary"])
    tables["hypothyroid-like"] = (pd.DataFrame(frame), labels[y])

    cards = np.array([6, 4, 10, 2, 9, 2, 2, 2, 12, 2, 5, 4, 4, 9, 9, 1, 4, 3, 5, 9, 6, 7])
    X, y = make_tree_classification(
        8124, 22, n_categories=cards, n_classes=2, concentration=0.3,
        weights=[4208, 3916], random_state=2,
    )  # fmt: skip
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    frame = pd.DataFrame({f"m{j}": letters[X[:, j]].astype(object) for j in range(22)})
    hole = np.random.default_rng(3).permutation(8124)[:2480]
    frame.loc[hole, "m10"] = np.nan
    tables["mushroom-like"] = (frame, np.where(y == 1, "p", "e"))
    return tables


def collection(folders: list[Path], synthetic: bool, names) -> list:
    """``(name, X, y)`` of every set: the folders' (``pd.read_csv``, labels as strings)
    then the stand-ins."""
    sets = []
    for folder in folders:
        manifest = pd.read_csv(folder / "MANIFEST.csv")
        for row in manifest.itertuples(index=False):
            if names and row.name not in names:
                continue
            frame = pd.read_csv(folder / f"{row.name}.csv")
            y = frame.pop(row.target).astype(str).to_numpy()
            sets.append((row.name, frame, y))
    if synthetic:
        for name, (X, y) in stand_ins().items():
            if not names or name in names:
                sets.append((name, X, y))
    return sets


def in_form(X: pd.DataFrame, form: str) -> pd.DataFrame:
    """X with its columns that are not float as ``category`` or Arrow strings."""
    if form == "csv":
        return X
    out = X.copy()
    for column in X.columns:
        if pd.api.types.is_float_dtype(X[column].dtype):
            continue
        if form == "category":
            out[column] = X[column].astype("category")
        else:
            import pyarrow as pa

            text = X[column].map(lambda v: v if pd.isna(v) else str(v))
            out[column] = text.astype(pd.ArrowDtype(pa.string()))
    return out


def forest(threads: str):
    """benchmarks/uci.py's random forest peer (ordinal-encoded non-numeric columns)."""
    sys.path.insert(0, str(HERE))
    from uci import RF, make_model

    model = make_model(RF)
    if threads == "all":
        model.set_params(randomforestclassifier__n_jobs=-1)
    return model


def best_of(repeat: int, works: list) -> tuple:
    """The best wall-clock and CPU seconds of each of ``works``, run interleaved ``repeat``
    times, and the result of each one's last run."""
    wall, cpu = [[] for _ in works], [[] for _ in works]
    results = [None] * len(works)
    for _ in range(repeat):
        for k, work in enumerate(works):
            start, start_cpu = time.perf_counter(), time.process_time()
            results[k] = work()
            wall[k].append(time.perf_counter() - start)
            cpu[k].append(time.process_time() - start_cpu)
    return [min(t) for t in wall], [min(t) for t in cpu], results


def run_case(X, raw, y, train, test, threads, repeat):
    """BMATAN on ``X`` (one input form), the forest on ``raw`` (the table as read)."""
    from bnclassify import BMATAN

    start = time.perf_counter()
    model = BMATAN().fit(X.iloc[train], y[train])
    fit = time.perf_counter() - start

    def peer():
        return forest(threads).fit(raw.iloc[train], y[train]).predict_proba(raw.iloc[test])

    (predict, rf), (predict_cpu, rf_cpu), (proba, _) = best_of(
        repeat, [lambda: model.predict_proba(X.iloc[test]), peer]
    )
    times = {"bmatan_fit": fit, "bmatan_predict": predict, "forest_fit_predict": rf}
    times.update(bmatan_predict_cpu=predict_cpu, forest_fit_predict_cpu=rf_cpu)
    return times, proba


def figure(path: Path, rows: list, before=None):
    """BMATAN's predict against the forest's fit + predict, CPU seconds, one point per case
    (log scales; below the diagonal BMATAN is faster), and another run's as open circles
    joined to this run's (``before``: its ``--results``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 5.2))
    known = {(c["set"], c["form"], c["half"]): c for c in before or [] if "cpu_ratio" in c}
    for c in rows:
        old = known.get((c["set"], c["form"], c["half"]))
        x, y = c["forest_fit_predict_cpu"], c["bmatan_predict_cpu"]
        if old is not None:
            xo, yo = old["forest_fit_predict_cpu"], old["bmatan_predict_cpu"]
            ax.plot([xo, x], [yo, y], color="0.75", lw=0.8, zorder=1)
            ax.scatter([xo], [yo], facecolors="none", edgecolors="tab:red", s=28, zorder=2)
            if old["cpu_ratio"] > 1 and c["half"] == "A->B":
                ax.annotate(c["set"], (xo, yo), xytext=(4, 2), textcoords="offset points", size=7)
        ax.scatter([x], [y], color="tab:blue", s=18, zorder=3)
    points = [v for c in [*rows, *known.values()] for v in (c["forest_fit_predict_cpu"],
              c["bmatan_predict_cpu"])]  # fmt: skip
    low, high = min(points) / 1.5, max(points) * 1.5
    ax.plot([low, high], [low, high], color="k", lw=0.8, ls="--")
    ax.set(xscale="log", yscale="log", xlim=(low, high), ylim=(low, high))
    ax.set_xlabel("random forest fit + predict_proba, CPU s (one thread)")
    ax.set_ylabel("BMATAN predict_proba, CPU s (one thread)")
    ax.scatter([], [], color="tab:blue", s=18, label="this version")
    if known:
        ax.scatter([], [], facecolors="none", edgecolors="tab:red", s=28, label="before")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None):
    args = _parse(argv)
    if args.replot is not None:  # no run: the figure of saved results
        before = json.loads(args.before.read_text()) if args.before else None
        rows = [c for c in json.loads(args.replot.read_text()) if "cpu_ratio" in c]
        return figure(args.figure, rows, before)
    if args.tree is not None:
        sys.path.insert(0, str(args.tree.resolve()))
    from sklearn.model_selection import StratifiedKFold
    from threadpoolctl import threadpool_limits

    import bnclassify

    sys.path.insert(0, str(HERE))
    from uci import DEFAULT_DATA

    names = {n for n in args.sets.split(",") if n}
    folders = [args.data or DEFAULT_DATA, *args.extra]
    forms = [f for f in args.forms.split(",") if f]
    unknown = set(forms) - set(FORMS)
    if unknown:
        raise SystemExit(f"unknown form(s) {sorted(unknown)}; choose from {FORMS}")
    previous = dict(np.load(args.compare)) if args.compare else {}
    saved, rows, refusals = {}, [], []
    print(f"bnclassify from {Path(bnclassify.__file__).parent}; threads {args.threads}; "
          f"{os.cpu_count()} CPUs; load {os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip
    header = (
        "| set | form | half | train/test rows x features, classes | BMATAN predict (s) | "
        "forest fit + predict (s) | ratio | CPU s: BMATAN / forest | CPU ratio |"
    )
    print(header + (" max abs diff |" if previous else ""))
    print("|---" * (9 + bool(previous)) + "|")
    holes = [float(h) for h in args.holes.split(",") if h]
    cases = []
    for name, X, y in collection(folders, not args.no_synthetic, names):
        cases.append((name, X, y))
        for share in holes:  # seeded by the set's name: the same cells on every run
            rng = np.random.default_rng(sum(map(ord, name)))
            cases.append((f"{name}+{share:.0%}", X.mask(rng.random(X.shape) < share), y))
    for name, X, y in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a class of one row
            folds = StratifiedKFold(n_splits=2, shuffle=True, random_state=0)
            (first, second), _ = folds.split(np.zeros(len(y)), y)
        for form in forms:
            data = in_form(X, form)
            for half, (train, test) in {"A->B": (first, second), "B->A": (second, first)}.items():
                limits = threadpool_limits(1) if args.threads == "1" else threadpool_limits(None)
                with limits, warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        times, proba = run_case(data, X, y, train, test, args.threads, args.repeat)
                    except Exception as error:  # a refusal is a result: recorded, not a crash
                        print(f"| {name} | {form} | {half} | refused: {error} |", flush=True)
                        refusals.append({"set": name, "form": form, "half": half,
                                         "error": f"{type(error).__name__}: {error}"})  # fmt: skip
                        continue
                key = f"{name}/{form}/{half}"
                saved[key] = proba
                case = {"set": name, "form": form, "half": half, "rows": len(test),
                        "features": X.shape[1], "classes": len(np.unique(y)), **times}  # fmt: skip
                case["ratio"] = times["bmatan_predict"] / times["forest_fit_predict"]
                case["cpu_ratio"] = times["bmatan_predict_cpu"] / times["forest_fit_predict_cpu"]
                line = (
                    f"| {name} | {form} | {half} | {len(train)}/{len(test)} x {X.shape[1]}, "
                    f"{case['classes']} | {times['bmatan_predict']:.3f} | "
                    f"{times['forest_fit_predict']:.3f} | {case['ratio']:.2f} | "
                    f"{times['bmatan_predict_cpu']:.3f} / {times['forest_fit_predict_cpu']:.3f} | "
                    f"{case['cpu_ratio']:.2f} |"
                )
                if key in previous:
                    case["max_abs_diff"] = float(np.abs(previous[key] - proba).max())
                    line += f" {case['max_abs_diff']:.2g} |"
                print(line, flush=True)
                rows.append(case)
    for key, what in (("ratio", "wall-clock"), ("cpu_ratio", "CPU")):
        slower = [(c["set"], c["form"], c["half"]) for c in rows if c[key] > 1]
        print(f"\n{len(rows)} cases; BMATAN's predict slower than the forest's fit + predict "
              f"({what}) in {len(slower)}: {slower}")  # fmt: skip
    print(f"refusals: {len(refusals)} {[(r['set'], r['form'], r['half']) for r in refusals]}")
    if previous:
        diffs = [c["max_abs_diff"] for c in rows if "max_abs_diff" in c]
        print(f"largest predict_proba difference to {args.compare}: {max(diffs):.3g}")
    if args.save:
        np.savez_compressed(args.save, **saved)
    if args.results:
        args.results.write_text(json.dumps(rows + refusals, indent=1))
    if args.figure:
        before = json.loads(args.before.read_text()) if args.before else None
        figure(args.figure, rows, before)


if __name__ == "__main__":
    main()
