"""Peak memory and time of every estimator on a short, wide table (issue 14).

Usage::

    python benchmarks/wide.py                      # 12 x 2000, every estimator
    python benchmarks/wide.py --columns 500 --only AODE EnsembleTAN
    python benchmarks/wide.py --strings            # the same table as object strings

Each estimator is fitted (and ``predict_proba`` called on the training rows)
in its own fresh process; the process reports its peak resident set size
(``VmHWM`` of ``/proc/self/status``, which includes Python, the imported
libraries and the data) and the wall-clock seconds of fit + predict.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ESTIMATORS = ("NaiveBayes", "TAN", "KDB", "AODE", "EnsembleTAN", "SimplerTAN")


def wide_table(rows, columns, strings=False, seed=0):
    """``rows`` x ``columns`` of 3-state columns, a binary class, and a symmetric contact matrix."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 3, (rows, columns))
    names = [f"x{j}" for j in range(columns)]
    X = pd.DataFrame(codes, columns=names)
    if strings:
        X = X.astype(str).astype(object)
    y = np.array(["a", "b"])[np.arange(rows) % 2]
    contact = rng.random((columns, columns))
    contact = pd.DataFrame(contact + contact.T, index=names, columns=names)
    return X, y, contact


def make(name, contact):
    import bnclassify as bnc

    if name == "KDB":
        return bnc.KDB(k=2)
    if name == "SimplerTAN":
        return bnc.SimplerTAN(contact)
    return getattr(bnc, name)()


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(name, rows, columns, strings):
    X, y, contact = wide_table(rows, columns, strings)
    model = make(name, contact)
    start = time.perf_counter()
    proba = model.fit(X, y).predict_proba(X)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "peak_mb": _peak_mb(), "proba_sum": float(proba.sum())}))


def measure(name, rows, columns, strings) -> dict:
    command = [sys.executable, __file__, "--child", name, "--rows", str(rows)]
    command += ["--columns", str(columns)] + (["--strings"] if strings else [])
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=12)
    parser.add_argument("--columns", type=int, default=2000)
    parser.add_argument("--strings", action="store_true")
    parser.add_argument("--only", nargs="+", choices=ESTIMATORS, default=list(ESTIMATORS))
    parser.add_argument("--child", choices=ESTIMATORS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.rows, args.columns, args.strings)
        return
    form = "strings" if args.strings else "int64"
    print(f"{args.rows} x {args.columns} ({form})")
    for name in args.only:
        result = measure(name, args.rows, args.columns, args.strings)
        if "error" in result:
            print(f"{name:12s} failed: {result['error']}", flush=True)
        else:
            print(
                f"{name:12s} {result['seconds']:8.2f} s {result['peak_mb']:8.0f} MB",
                flush=True,
            )


if __name__ == "__main__":
    main()
