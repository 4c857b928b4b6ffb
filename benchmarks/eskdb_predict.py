"""ESKDB(n_estimators=10)'s predict against the random forest's, one thread, set by set.

Usage::

    python benchmarks/eskdb_predict.py                       # the 22 UCI development sets
    python benchmarks/eskdb_predict.py --sets splice,anneal --repeats 3
    python benchmarks/eskdb_predict.py --data other/folder   # any folder with a MANIFEST.csv
    python benchmarks/eskdb_predict.py --adult 48842         # a synthetic adult-sized table
    python benchmarks/eskdb_predict.py --json /tmp/predict.json

What ``benchmarks/uci.py`` times, on the first 5x2 fold of each set (its
``RepeatedStratifiedKFold(2, 5, random_state=0)``, both halves): each table as
``pd.read_csv`` returns it, ``ESKDB(n_estimators=10, random_state=0)`` and
``RandomForestClassifier(n_estimators=100, random_state=0)`` (ordinal codes, as
uci.py builds it) fitted on the training half, then the CPU seconds of the
first ``predict_proba`` of the test half after each fit (a fitted model is
predicted once in the benchmark, so nothing a first call builds is reused).
Both models run under ``threadpool_limits(1)`` with ``n_jobs=1``, interleaved
(model, then forest, on the same half), ``--repeats`` times; the least time of
each is kept. Printed: per set the two CPU times and their ratio (and the
wall-clock times), then the totals
and the number of sets where ESKDB predicts faster, with the machine's load.

``--adult N``: a table of N rows shaped like UCI adult (6 numeric columns, 8
categorical of 2-40 values, about 1% of the cells missing, two classes),
generated from seed 0.

``--fitted DIR``: the model is fitted once per half and kept in ``DIR/<set>.pkl``
(a set already there is not fitted again; one folder per ``--model``): each
timing unpickles a fresh copy, rebuilds what a fit leaves built (each member's
posterior network and its stacked tables) and times its first ``predict_proba``
with the garbage collector off; the forest (not picklable) is fitted once per
half and its ``predict_proba`` timed ``--repeats`` times. For comparing two
versions of the library on the same fitted models, one process each, alternated.
``--model SPEC``: the ESKDB expression timed (default ``ESKDB(n_estimators=10,
random_state=0)``).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import pickle
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import RepeatedStratifiedKFold
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
import uci  # noqa: E402 (the benchmark's own reader and models)

from bnclassify.study import environment  # noqa: E402

MODEL = "ESKDB(n_estimators=10, random_state=0)"


def adult_like(n_rows, seed=0):
    """A synthetic table shaped like UCI adult: ``(X, y)`` with string labels."""
    rng = np.random.default_rng(seed)
    y = rng.random(n_rows) < 0.24
    columns = {}
    for j, scale in enumerate([13.0, 1e5, 2.5, 7e3, 400.0, 12.0]):
        shift = rng.normal(0, 0.6) * y
        columns[f"num{j}"] = np.round(np.abs(rng.normal(shift, 1.0, n_rows)) * scale, 1)
    for j, values in enumerate([9, 16, 7, 15, 6, 5, 2, 40]):
        weights = rng.dirichlet(np.ones(values), size=2)
        codes = np.where(
            y,
            rng.choice(values, n_rows, p=weights[1]),
            rng.choice(values, n_rows, p=weights[0]),
        )
        columns[f"cat{j}"] = np.array([f"v{k}" for k in range(values)], dtype=object)[codes]
    X = pd.DataFrame(columns)
    for name in ["cat1", "cat5", "num3"]:
        X.loc[rng.random(n_rows) < 0.03, name] = None
    return X, np.where(y, ">50K", "<=50K")


def first_predict(spec, X, y, train, test) -> tuple[float, float]:
    """CPU and wall-clock seconds of the first ``predict_proba`` of ``test`` after a fit on
    ``train``."""
    model = uci.make_model(spec)
    uci.set_jobs(model, 1)
    model.fit(X.iloc[train], y[train])
    rows = X.iloc[test]
    start, wall = time.process_time(), time.perf_counter()
    model.predict_proba(rows)
    return time.process_time() - start, time.perf_counter() - wall


def time_set(X, y, repeats, spec=MODEL) -> tuple[float, float, float, float]:
    """The least first-predict CPU seconds of the model and of the forest, summed over the
    two halves of the first 5x2 fold, then their least wall-clock seconds likewise."""
    folds = list(RepeatedStratifiedKFold(n_splits=2, n_repeats=1, random_state=0).split(X, y))
    model = forest = model_wall = forest_wall = 0.0
    for train, test in folds:
        times = {spec: [], uci.RF: []}
        for _ in range(repeats):
            for each in times:  # interleaved: a change of load falls on both
                times[each].append(first_predict(each, X, y, train, test))
        model += min(t[0] for t in times[spec])
        forest += min(t[0] for t in times[uci.RF])
        model_wall += min(t[1] for t in times[spec])
        forest_wall += min(t[1] for t in times[uci.RF])
    return model, forest, model_wall, forest_wall


def time_fitted(X, y, repeats, spec, path) -> tuple[float, float, float, float]:
    """:func:`time_set` on the model fitted once per half and kept at ``path`` (``--fitted``):
    the least CPU and wall-clock seconds of the first ``predict_proba`` of ``repeats``
    fresh copies, and of ``repeats`` predictions of the forest, summed over the halves."""
    folds = list(RepeatedStratifiedKFold(n_splits=2, n_repeats=1, random_state=0).split(X, y))
    if not path.exists():
        fitted = []
        for train, _ in folds:
            model = uci.make_model(spec)
            uci.set_jobs(model, 1)
            fitted.append(model.fit(X.iloc[train], y[train]))
        path.write_bytes(pickle.dumps(fitted))
    kept = path.read_bytes()
    totals = np.zeros(4)
    for half, (train, test) in enumerate(folds):
        rows, model_times, forest_times = X.iloc[test], [], []
        for _ in range(repeats):
            model = pickle.loads(kept)[half]
            for member in model.estimators_:  # what the fit leaves built
                member.posterior_network()._table_gather()
            model_times.append(_timed(model, rows))
        forest = uci.make_model(uci.RF)
        uci.set_jobs(forest, 1)
        forest.fit(X.iloc[train], y[train])
        forest_times = [_timed(forest, rows) for _ in range(repeats)]
        pairs = (model_times, forest_times)
        totals += [min(t[k] for t in times) for k in (0, 1) for times in pairs]
    return tuple(float(t) for t in totals)


def _timed(model, rows) -> tuple[float, float]:
    gc.collect()
    gc.disable()
    try:
        start, wall = time.process_time(), time.perf_counter()
        model.predict_proba(rows)
        return time.process_time() - start, time.perf_counter() - wall
    finally:
        gc.enable()


def machine() -> str:
    """The machine line and the load average now."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{environment()['machine']}, load {load:.1f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=uci.DEFAULT_DATA)
    parser.add_argument("--sets", default="", help="comma-separated set names (default: all)")
    parser.add_argument("--repeats", type=int, default=2, help="fits per model and half")
    parser.add_argument("--adult", type=int, default=0, help="rows of a synthetic adult table")
    parser.add_argument("--json", type=Path, help="write the per-set times here")
    parser.add_argument("--fitted", type=Path, help="fit once per half, kept in this folder")
    parser.add_argument("--model", default=MODEL, help="the ESKDB expression timed")
    args = parser.parse_args(argv)
    if args.fitted:
        args.fitted.mkdir(parents=True, exist_ok=True)
    tables = []
    if args.adult:
        tables.append(("adult-like", lambda: adult_like(args.adult)))
    else:
        names = [s for s in args.sets.split(",") if s] or None
        for name, target, path in uci.read_collection(args.data, names):
            tables.append((name, lambda path=path, target=target: uci.load_set(path, target)))
    print(f"machine: {machine()}")
    results = {}
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unseen categories, identifiers: the sets' own
        for name, load in tables:
            X, y = load()
            if args.fitted:
                path = args.fitted / f"{name}.pkl"
                times = time_fitted(X, y, args.repeats, args.model, path)
            else:
                times = time_set(X, y, args.repeats, args.model)
            model, forest, model_wall, forest_wall = times
            results[name] = {
                "eskdb10": model,
                "forest": forest,
                "eskdb10_wall": model_wall,
                "forest_wall": forest_wall,
            }
            print(f"{name:28s} ESKDB(10) {model:7.3f} s  forest {forest:7.3f} s  "
                  f"ratio {model / forest:5.2f}  (wall {model_wall:7.3f} s, "
                  f"{forest_wall:7.3f} s)", flush=True)  # fmt: skip
    model = sum(r["eskdb10"] for r in results.values())
    forest = sum(r["forest"] for r in results.values())
    faster = sum(r["eskdb10"] < r["forest"] for r in results.values())
    walls = [sum(r[k] for r in results.values()) for k in ("eskdb10_wall", "forest_wall")]
    print(
        f"total: ESKDB(10) {model:.3f} s, forest {forest:.3f} s, ratio {model / forest:.2f}; "
        f"ESKDB faster on {faster} of {len(results)} sets; wall {walls[0]:.3f} s and "
        f"{walls[1]:.3f} s; machine: {machine()}"
    )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
