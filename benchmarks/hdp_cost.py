"""What HDP smoothing costs on the KDB tables of a UCI collection.

Usage::

    python benchmarks/hdp_cost.py                          # k = 2 and 5, raw and MDL, every set
    python benchmarks/hdp_cost.py --k 2 --sets car,splice --n-iter 1000
    python benchmarks/hdp_cost.py --json /tmp/hdp_cost.json

For each set of the collection (``MANIFEST.csv``; the nearest ``shared/data/uci``
above the checkout by default): the first training fold of
``RepeatedStratifiedKFold(2, 5, random_state=0)``, read as ``pd.read_csv`` gives
it (``raw``: numeric columns are Gaussian nodes, which no smoothing touches) and
after :class:`~bnclassify.MDLDiscretizer` (``mdl``: every column categorical;
a set without numeric columns has only its ``raw`` row).
``KDB(k)`` is fitted with additive smoothing; its categorical tables (the counts
of each family, parents in the order KDB added them) are then smoothed by
:class:`~bnclassify.parameters.HDP` alone, timed on one thread (CPU seconds,
best of ``--repeat``). Reported: the tables, their non-empty cells (a node per
parent configuration with data, one cell per child value), the active cells (two
rows or more below them: the table counts the sampler draws), the draws
(active cells x sweeps), CPU seconds and nanoseconds per draw, and for scale the
additive ``KDB(k)`` fit and a ``RandomForestClassifier(100)`` fit on the same fold
as read (one thread, CPU seconds).
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder
from threadpoolctl import threadpool_limits

from bnclassify import KDB, MDLDiscretizer
from bnclassify.parameters import HDP
from bnclassify.parameters import hdp as hdp_module
from bnclassify.stats import training_statistics

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = next(
    (
        p / "shared" / "data" / "uci"
        for p in HERE.parents
        if (p / "shared" / "data" / "uci").is_dir()
    ),
    HERE.parent.parent / "shared" / "data" / "uci",
)


def first_fold(path, target):
    frame = pd.read_csv(path)
    y = frame.pop(target).astype(str).to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        train, _ = next(
            RepeatedStratifiedKFold(n_splits=2, n_repeats=5, random_state=0).split(frame, y)
        )
    return frame.iloc[train].reset_index(drop=True), y[train]


def cpu(function, repeat):
    best = np.inf
    for _ in range(repeat):
        start = time.process_time()
        function()
        best = min(best, time.process_time() - start)
    return best


def forest_fit(X, y):
    categorical = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c].dtype)]
    encoder = OrdinalEncoder(
        handle_unknown="use_encoded_value", unknown_value=np.nan, encoded_missing_value=np.nan
    )
    columns = ColumnTransformer([("cat", encoder, categorical)], remainder="passthrough")
    make_pipeline(columns, RandomForestClassifier(100, random_state=0)).fit(X, y)


def measure(name, X, y, form, k, n_iter, repeat):
    raw = X
    if form == "mdl":
        if not any(pd.api.types.is_numeric_dtype(X[c].dtype) for c in X.columns):
            return None  # nothing to discretise: the same tables as raw
        X = MDLDiscretizer().fit_transform(X, y)
    model = KDB(k=k).fit(X, y)
    schema, _, stats = training_statistics(X, y)
    tables = [
        stats.family(j, tuple(schema.names.index(p) for p in model.distributions_[name_].parents_))
        for j, name_ in enumerate(schema.names)
        if schema.discrete[j]
    ]
    counts = [hdp_module._integer_counts(t) for t in tables]
    forest = hdp_module.Forest(counts, "level")
    smoothing = HDP(n_iter=n_iter)
    seconds = cpu(lambda: smoothing.log_conditionals(tables, np.random.default_rng(0)), repeat)
    draws = len(forest.active) * n_iter if forest.n_nodes else 0
    return {
        "set": name,
        "form": form,
        "k": k,
        "tables": len(tables),
        "cells": len(forest.n) if forest.n_nodes else 0,
        "active": len(forest.active) if forest.n_nodes else 0,
        "draws": draws,
        "hdp_s": round(seconds, 3),
        "ns_per_draw": round(1e9 * seconds / draws, 1) if draws else None,
        "kdb_fit_s": round(cpu(lambda: KDB(k=k).fit(X, y), repeat), 3),
        "forest_fit_s": round(cpu(lambda: forest_fit(raw, y), 1), 3),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--sets", default="")
    parser.add_argument("--k", default="2,5")
    parser.add_argument("--forms", default="raw,mdl")
    parser.add_argument("--n-iter", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    manifest = pd.read_csv(args.data / "MANIFEST.csv")
    wanted = [s for s in args.sets.split(",") if s]
    rows = []
    with warnings.catch_warnings(), threadpool_limits(1):
        warnings.simplefilter("ignore")
        for entry in manifest.itertuples(index=False):
            if wanted and entry.name not in wanted:
                continue
            X, y = first_fold(args.data / f"{entry.name}.csv", entry.target)
            for form in args.forms.split(","):
                for k in map(int, args.k.split(",")):
                    try:
                        row = measure(entry.name, X, y, form, k, args.n_iter, args.repeat)
                    except Exception as error:  # a refusal is a result
                        row = {"set": entry.name, "form": form, "k": k, "error": str(error)[:120]}
                    if row is None:
                        continue
                    rows.append(row)
                    print(json.dumps(row), flush=True)
                    if args.json:
                        args.json.write_text(json.dumps(rows, indent=1))
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False))
    print(f"machine load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
