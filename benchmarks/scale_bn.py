"""Speed at scale on rows sampled from an expert network: SKDB and AODE against TAN and a forest.

Usage::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/scale_bn.py          # alarm / TPR, 10^5 rows
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/scale_bn.py --eskdb  # and ESKDB(10)
    python benchmarks/scale_bn.py --network hailfinder --class-node CldShadeOth --rows 1000000
    python benchmarks/scale_bn.py --eskdb --dtype category --threads all

``--rows`` training rows (default 10^5) and ``--test`` rows (default 50,000)
are sampled once from the network (``shared/data/networks``) with
:func:`bnclassify.datasets.sample_network` (seeds 0 and 1; pgmpy's forward
sampler before), as the object-string table ``pd.read_csv`` gives (``--dtype
object``, the default) or as pandas categoricals (``--dtype category``), the
labels strings; then, in each of ``--rounds`` rounds, one after the other, on one
thread (``--threads 1``, ``threadpool_limits(1)`` and ``n_jobs=1``) or on all
cores (``--threads all``: no limit, ``n_jobs=-1``):
``TAN()`` fit and predict_proba, ``SKDB()`` fit, ``ESKDB(n_estimators=10,
random_state=0)`` fit (``--eskdb``), ``AODE()`` fit and predict_proba, and
a ``RandomForestClassifier(random_state=0, n_jobs=1)`` fit on the ordinal
codes of the columns. Every step, of every model alike, is timed as ``timeit``
does (``_timing.best_of``): run again while its runs have taken less than
``--budget`` seconds (default 1) in all, at most ``--most`` runs (default 5),
and its least wall-clock and least CPU time kept: a fit or predict of a tenth
of a second (TAN's and AODE's predicts at 10^5 rows, whose ratio moved from
0.7x to 4.2x between rounds timed by one run each) is not measured by one run's
noise, while a step of seconds (fits at 10^6 rows, the forest) runs once
(``--budget 0``: every step once). The ratios of the speed targets are printed per round:
SKDB fit / TAN fit and AODE predict / TAN predict (each at most 3), ESKDB(10)
fit / forest fit (below 1), from wall-clock times and from the process's CPU
times (which a shared machine's load disturbs less; on all cores they add the
threads up). The machine may be shared: compare times within a round, not
across runs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
import warnings
from pathlib import Path

import pandas as pd
from _timing import best_of, timed
from bayesnet_networks import NETWORKS, sample
from sklearn.ensemble import RandomForestClassifier
from sklearn.preprocessing import OrdinalEncoder
from threadpoolctl import threadpool_limits

from bnclassify import AODE, ESKDB, SKDB, TAN

STEPS = ("tan", "skdb", "eskdb", "aode", "forest")


def sampled_table(network_name, class_node, rows, test, seed=0, dtype="object"):
    """``(X, y, X_test)`` sampled from the network: the training rows with ``seed``, the test
    rows with ``seed + 1``; the features as object strings or categoricals, the class as
    strings."""
    from pgmpy.readwrite import BIFReader

    network = BIFReader(str(NETWORKS / f"{network_name}.bif")).get_model()
    train, held = sample(network, rows, seed), sample(network, test, seed + 1)
    X = train.drop(columns=class_node)
    X_test = held.drop(columns=class_node)[X.columns]
    if dtype == "category":  # the test rows' categories those of the training rows
        X = X.astype("category")
        X_test = pd.DataFrame(
            {c: pd.Categorical(X_test[c], categories=X[c].cat.categories) for c in X.columns}
        )
    return X, train[class_node].astype(str).to_numpy(dtype=object), X_test


def one_round(X, y, X_test, steps, n_jobs=1, budget=1.0, most=5):
    """Wall-clock and CPU seconds of every step, in order, on this round: each the least of
    its runs (:func:`_timing.best_of`), and how many runs each took."""
    seconds, cpu, runs = {}, {}, {}

    def run(label, call):
        out, seconds[label], cpu[label], runs[label] = best_of(
            timed, call, budget=budget, most=most
        )
        return out

    if "tan" in steps:
        tan = run("tan fit", lambda: TAN().fit(X, y))
        run("tan predict", lambda: tan.predict_proba(X_test))
    if "skdb" in steps:
        skdb = run("skdb fit", lambda: SKDB().fit(X, y))
        run("skdb predict", lambda: skdb.predict_proba(X_test))
    if "eskdb" in steps:
        eskdb = ESKDB(n_estimators=10, random_state=0, n_jobs=n_jobs)
        run("eskdb10 fit", lambda: eskdb.fit(X, y))
    if "aode" in steps:
        aode = run("aode fit", lambda: AODE().fit(X, y))
        run("aode predict", lambda: aode.predict_proba(X_test))
    if "forest" in steps:
        encoder = OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1)
        forest = RandomForestClassifier(n_estimators=100, random_state=0, n_jobs=n_jobs)
        codes = encoder.fit_transform(X)
        run("forest fit", lambda: forest.fit(codes, y))
    return seconds, cpu, runs


RATIOS = (
    ("skdb fit / tan fit", "skdb fit", "tan fit", 3.0),
    ("aode predict / tan predict", "aode predict", "tan predict", 3.0),
    ("eskdb10 fit / forest fit", "eskdb10 fit", "forest fit", 1.0),
)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--network", default="alarm")
    parser.add_argument("--class-node", default="TPR")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--test", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--dtype", choices=("object", "category"), default="object")
    parser.add_argument("--threads", choices=("1", "all"), default="1")
    parser.add_argument("--eskdb", action="store_true", help="also time ESKDB(10)'s fit")
    parser.add_argument("--skip", default="", help="steps to leave out, comma-separated")
    parser.add_argument("--results", type=Path, help="write the times as JSON here")
    parser.add_argument(
        "--budget", type=float, default=1.0, help="run a step again while its runs took less"
    )
    parser.add_argument("--most", type=int, default=5, help="runs of a step at most")
    args = parser.parse_args(argv)
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    steps = [s for s in STEPS if s not in skip and (s != "eskdb" or args.eskdb)]
    start = time.perf_counter()
    X, y, X_test = sampled_table(args.network, args.class_node, args.rows, args.test, 0, args.dtype)
    print(
        f"{args.network} / {args.class_node}: {len(X)} training rows x {X.shape[1]} features "
        f"({args.dtype}), {len(X_test)} test rows "
        f"(sampled in {time.perf_counter() - start:.1f} s); "
        f"threads {args.threads}; load average {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    rounds = []
    limit = threadpool_limits(1) if args.threads == "1" else contextlib.nullcontext()
    n_jobs = 1 if args.threads == "1" else -1
    with limit, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(args.rounds):
            seconds, cpu, runs = one_round(X, y, X_test, steps, n_jobs, args.budget, args.most)
            rounds.append({"wall": seconds, "cpu": cpu, "runs": runs})
            print(f"round {r} (least wall, least cpu, runs): " + ", ".join(
                f"{k} {v:.3f} {cpu[k]:.3f} s x{runs[k]}" for k, v in seconds.items()
            ))  # fmt: skip
            for label, top, bottom, target in RATIOS:
                if top in seconds and bottom in seconds:
                    ratio = seconds[top] / seconds[bottom]
                    ratio_cpu = cpu[top] / cpu[bottom]
                    met = "met" if max(ratio, ratio_cpu) <= target else "not met"
                    print(
                        f"  {label}: {ratio:.2f} wall, {ratio_cpu:.2f} cpu "
                        f"(target <= {target:g}: {met})"
                    )
            print(f"  load average {os.getloadavg()[0]:.1f}", flush=True)
    if args.results:
        settings = {k: v for k, v in vars(args).items() if k != "results"}
        args.results.write_text(json.dumps({"args": settings, "rounds": rounds}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
