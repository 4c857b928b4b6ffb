"""Learning curves to the Bayes limit on rows sampled from expert networks.

Usage::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bn_limit.py --max-rows 100000
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bn_limit.py --cases alarm:TPR \\
        --sizes 1000000 --models tan,kdb2,skdb,bnc,hgb --results results_alarm.json
    python benchmarks/bn_limit.py --report results_*.json --figures figures   # tables, figures

For each network of ``shared/data/networks`` and its class node (alarm ``TPR``,
child ``Disease``, insurance ``RiskAversion`` and ``Accident``, hailfinder
``CldShadeOth``, water ``CNOD_12_15``: see ``--rule``), training sets of
10^3 .. 10^7 rows (``--sizes``, at most ``--max-rows``; seed 0) and one test
set of ``--test`` rows (seed 1) are drawn with
:func:`bnclassify.datasets.sample_network`, every column a pandas
``category`` of the network's state names. The Bayes limit is the log loss
(and 0-1 loss) of the exact posterior of the class given every other node,
:func:`bnclassify.datasets.bayes_posterior`, on the test rows; each model's
log loss is reported as its excess over that limit (natural log, mean per
row, probabilities clipped at 1e-15).

Models (``--models``, comma-separated; ``name:smoothing`` for a hierarchical
smoothing, e.g. ``tan:hdp``, ``kdb2:hls``): ``nb``, ``tan``, ``kdb1`` ..
``kdb5``, ``aode``, ``skdb``, ``eskdb10`` (``ESKDB(n_estimators=10,
random_state=0)``), ``bnc`` (``BayesNetClassifier()``: hill climbing, its default
score), ``bnc-bdeu1`` and ``bnc10`` (BDeu with the equivalent sample size 1 and 10),
``bnc-bds10`` (BDs with 10), ``bnc-hc``, ``bnc-iterated``, ``bnc-iterated40``,
``bnc-hc-iterated`` and ``bnc-hc-iterated40`` (the default score with
``search="hill_climbing"``, ``"iterated"``, ``"iterated"`` with 40 restarts, and
``"iterated"`` from hill climbing's graph, ``start="hill_climbing"``, with 10 and 40
restarts), ``bnc-ties-first`` (``ties="first"``: the compiled climb),
``forest`` (``RandomForestClassifier(random_state=0, n_jobs=1)`` on the
state codes) and ``hgb`` (``HistGradientBoostingClassifier(random_state=0)``,
every column a native categorical). ``--caps`` limits the training rows of a
model (by default the forest to 10^5 rows and HGB to 10^6: beyond, their time
and memory are out of reach on a shared machine; a name with its smoothing,
``tan:hdp=10000``, caps that variant alone). Above ``--chunk-rows``
training rows, models with ``partial_fit`` are fitted chunk by chunk, so the
training rows never sit in memory at once; KDB with ``k >= 2``, whose families
are counted by a pass once its structure is known (``k >= 3`` has no
``partial_fit``; ``k = 2``'s would keep a triple table, refused on hailfinder),
from a dask DataFrame of the same rows written once as parquet
files (``$BN_LIMIT_PARQUET``, by default ``/tmp/bn_limit_parquet``); the others
from one table.

Fit time is wall-clock on one thread; peak memory is the largest resident
set size of the process during the fit (psutil, sampled every 10 ms) minus
the one before it (after ``gc.collect()`` and glibc's ``malloc_trim``): it
misses memory freed and reused within the fit between two samples. The
machine may be shared: compare times within a run.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import shutil
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import psutil
from bayesnet_networks import CASES, NETWORKS
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from threadpoolctl import threadpool_limits

from bnclassify import AODE, ESKDB, KDB, SKDB, TAN, BayesNetClassifier, NaiveBayes
from bnclassify.datasets import bayes_posterior, sample_network, write_network_parquet

#: Where ``fit_from_parquet`` keeps the rows it writes (reused by later runs).
PARQUET_DIR = Path(os.environ.get("BN_LIMIT_PARQUET", "/tmp/bn_limit_parquet"))

BASES = {
    "nb": lambda s: NaiveBayes(smoothing=s),
    "tan": lambda s: TAN(smoothing=s),
    **{f"kdb{k}": (lambda s, k=k: KDB(k=k, smoothing=s)) for k in range(1, 6)},
    "aode": lambda s: AODE(smoothing=s),
    "skdb": lambda s: SKDB(smoothing=s),
    "eskdb10": lambda s: ESKDB(n_estimators=10, random_state=0, smoothing=s),
    "bnc": lambda s: BayesNetClassifier(),
    "bnc10": lambda s: BayesNetClassifier(score_type="bdeu", prior_weight=10),
    "bnc-bdeu1": lambda s: BayesNetClassifier(score_type="bdeu", prior_weight=1),
    "bnc-bds10": lambda s: BayesNetClassifier(score_type="bds", prior_weight=10),
    "bnc-hc": lambda s: BayesNetClassifier(search="hill_climbing"),
    "bnc-iterated": lambda s: BayesNetClassifier(search="iterated"),
    "bnc-iterated40": lambda s: BayesNetClassifier(search="iterated", restarts=40),
    "bnc-hc-iterated": lambda s: BayesNetClassifier(search="iterated", start="hill_climbing"),
    "bnc-hc-iterated40": lambda s: BayesNetClassifier(
        search="iterated", start="hill_climbing", restarts=40
    ),
    "bnc-ties-first": lambda s: BayesNetClassifier(ties="first"),
    "forest": lambda s: RandomForestClassifier(random_state=0, n_jobs=1),
    "hgb": lambda s: HistGradientBoostingClassifier(
        categorical_features="from_dtype", random_state=0
    ),
}
DEFAULT_MODELS = (
    "nb,tan,kdb1,kdb2,kdb3,kdb4,kdb5,aode,skdb,eskdb10,"
    "nb:hdp,tan:hdp,kdb2:hdp,skdb:hdp,eskdb10:hdp,bnc,bnc-hc-iterated40,forest,hgb"
)
#: The peers every model of the library is held against in :func:`targets`.
PEERS = ("forest", "hgb")
DEFAULT_CAPS = "forest=100000,hgb=1000000"


def make_model(spec):
    base, _, smoothing = spec.partition(":")
    return BASES[base](smoothing or "laplace")


def load(network_name):
    from pgmpy.readwrite import BIFReader

    return BIFReader(str(NETWORKS / f"{network_name}.bif")).get_model()


def class_node_rule(network, test_rows=50_000, low=0.05, high=0.5):
    """The rule's pick: the largest Markov blanket among nodes with 2-6 states whose Bayes
    0-1 loss (on ``test_rows`` rows, seed 1) is in ``[low, high]``; ties by node order."""
    X = pd.concat(sample_network(network, test_rows, random_state=1))
    best = None
    for node in network.nodes():
        states = len(X[node].cat.categories)
        if not 2 <= states <= 6:
            continue
        proba = bayes_posterior(network, node, X).to_numpy()
        zero_one = float(np.mean(proba.argmax(axis=1) != X[node].cat.codes.to_numpy()))
        size = len(set(network.get_markov_blanket(node)) - {node})
        if low <= zero_one <= high and (best is None or size > best[0]):
            best = (size, node, zero_one)
    return best


class PeakRSS:
    """The largest resident set size of this process while the block runs, less the one
    before it (bytes), sampled every ``every`` seconds on a thread."""

    def __init__(self, every=0.01):
        self.every = every
        self.process = psutil.Process()

    def _watch(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self.process.memory_info().rss)
            self._stop.wait(self.every)

    def __enter__(self):
        gc.collect()
        if sys.platform.startswith("linux"):  # hand freed heap back, so reuse is not hidden
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        self.base = self.peak = self.process.memory_info().rss
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.process.memory_info().rss)
        self.bytes = self.peak - self.base


def losses(proba, classes, y_codes, states):
    """Mean log loss and 0-1 loss of ``proba`` (columns ``classes``) on labels given as
    codes into ``states``; a state the model never saw has probability 0 (clipped)."""
    position = {str(c): k for k, c in enumerate(classes)}
    full = np.zeros((len(proba), len(states)))
    for j, state in enumerate(states):
        if state in position:
            full[:, j] = proba[:, position[state]]
    picked = full[np.arange(len(y_codes)), y_codes]
    log_loss = float(-np.mean(np.log(np.clip(picked, 1e-15, 1.0))))
    return log_loss, float(np.mean(full.argmax(axis=1) != y_codes))


def as_input(spec, X):
    if spec.split(":")[0] == "forest":
        return np.column_stack([X[c].cat.codes.to_numpy() for c in X.columns])
    return X


def fit_model(spec, network, class_node, features, rows, chunk_rows, table=None, seed=0):
    """The fitted model, the seconds of its fit and its peak memory; sampling is not timed.

    Up to ``chunk_rows`` rows, ``table`` (the training rows, sampled once per size) is
    fitted; beyond, the rows are sampled again chunk by chunk for ``partial_fit``."""
    model = make_model(spec)
    chunks = sample_network(network, rows, chunk_rows=chunk_rows, random_state=seed)
    if table is not None:
        chunks = [table]
    elif (
        rows > chunk_rows
        and getattr(model, "statistics_plan", None)
        and (model.statistics_plan().family_pass)
    ):  # KDB(k >= 2): its families by a pass of a dask fit over the rows as parquet files
        return fit_from_parquet(model, network, class_node, features, rows, chunk_rows, seed)
    elif rows > chunk_rows and hasattr(model, "partial_fit"):
        states = network.get_cpds(class_node).state_names[class_node]
        seconds, peak = 0.0, 0
        for chunk in chunks:
            X, y = chunk[features], chunk[class_node].astype(str)
            with PeakRSS() as memory:
                start = time.perf_counter()
                model.partial_fit(X, y, classes=np.array([str(s) for s in states], dtype=object))
                seconds += time.perf_counter() - start
            peak = max(peak, memory.bytes)
            del X, y, chunk
        return model, seconds, peak
    table = pd.concat(chunks, ignore_index=True)
    X, y = as_input(spec, table[features]), table[class_node].astype(str)
    del table
    with PeakRSS() as memory:
        start = time.perf_counter()
        model.fit(X, y)
        seconds = time.perf_counter() - start
    return model, seconds, memory.bytes


def fit_from_parquet(model, network, class_node, features, rows, chunk_rows, seed):
    """Fit ``model`` on a dask DataFrame of the same rows as the chunks of ``fit_model``,
    written once as parquet files (:func:`write_network_parquet`, one chunk a file) under
    ``PARQUET_DIR``; dask's synchronous scheduler, one partition in memory at a time."""
    import dask
    import dask.dataframe as dd

    directory = PARQUET_DIR / f"{class_node}_{len(network.nodes())}_{rows}_{chunk_rows}_{seed}"
    if not (directory / "_complete").exists():
        shutil.rmtree(directory, ignore_errors=True)
        write_network_parquet(network, directory, rows, rows_per_file=chunk_rows, random_state=seed)
        (directory / "_complete").touch()
    frame = dd.read_parquet(directory)
    with dask.config.set(scheduler="synchronous"), PeakRSS() as memory:
        start = time.perf_counter()
        model.fit(frame[features], frame[class_node].astype(str))
        seconds = time.perf_counter() - start
    return model, seconds, memory.bytes


def run(cases, specs, sizes, caps, test_rows, chunk_rows, results_path):
    done = json.loads(results_path.read_text()) if results_path and results_path.exists() else {}
    for network_name, class_node in cases:
        network = load(network_name)
        test = pd.concat(sample_network(network, test_rows, random_state=1), ignore_index=True)
        features = [c for c in test.columns if c != class_node]
        states = [str(s) for s in network.get_cpds(class_node).state_names[class_node]]
        y_codes = test[class_node].cat.codes.to_numpy()
        bayes = bayes_posterior(network, class_node, test).to_numpy()
        bayes_log, bayes_01 = losses(bayes, states, y_codes, states)
        case = f"{network_name}:{class_node}"
        done.setdefault("bayes", {})[case] = {
            "log_loss": bayes_log,
            "zero_one": bayes_01,
            "test_rows": test_rows,
            "features": len(features),
        }
        print(f"\n{case}: Bayes log loss {bayes_log:.4f}, 0-1 loss {bayes_01:.4f}", flush=True)
        for rows in sizes:
            table = None
            if rows <= chunk_rows:
                table = pd.concat(
                    sample_network(network, rows, chunk_rows=chunk_rows, random_state=0),
                    ignore_index=True,
                )
            for spec in specs:
                key = f"{case}|{rows}|{spec}"
                if key in done or rows > caps.get(spec, caps.get(spec.split(":")[0], np.inf)):
                    continue
                with threadpool_limits(1), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        model, fit_s, peak = fit_model(
                            spec, network, class_node, features, rows, chunk_rows, table
                        )
                    except ValueError as error:  # a refusal (a table over its bound) is a result
                        done[key] = {"case": case, "rows": rows, "model": spec, "error": str(error)}
                        print(f"  {rows:>9} {spec:12} refused: {error}", flush=True)
                        if results_path:
                            results_path.write_text(json.dumps(done, indent=1))
                        continue
                    start = time.perf_counter()
                    proba = model.predict_proba(as_input(spec, test[features]))
                    predict_s = time.perf_counter() - start
                log_loss, zero_one = losses(proba, model.classes_, y_codes, states)
                done[key] = {
                    "case": case,
                    "rows": rows,
                    "model": spec,
                    "log_loss": log_loss,
                    "excess": log_loss - bayes_log,
                    "zero_one": zero_one,
                    "excess_zero_one": zero_one - bayes_01,
                    "fit_s": fit_s,
                    "predict_s": predict_s,
                    "peak_mb": peak / 2**20,
                    "load": os.getloadavg()[0],
                }
                print(
                    f"  {rows:>9} {spec:12} excess {log_loss - bayes_log:+.5f} "
                    f"0-1 {zero_one - bayes_01:+.4f} fit {fit_s:8.2f} s predict {predict_s:6.2f} s "
                    f"peak {peak / 2**20:7.0f} MB  load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
                if results_path:
                    results_path.write_text(json.dumps(done, indent=1))
                del model
    return done


def merge(paths):
    out = {"bayes": {}}
    for path in paths:
        data = json.loads(Path(path).read_text())
        out["bayes"].update(data.pop("bayes", {}))
        out.update(data)
    return out


def table(done, rows):
    """The markdown table of excess log loss at ``rows`` training rows, one column per case."""
    cases = list(done["bayes"])
    entries = [v for k, v in done.items() if k != "bayes" and v["rows"] == rows]
    specs = list(dict.fromkeys(v["model"] for v in entries))
    cell = {(v["case"], v["model"]): v for v in entries}
    lines = [
        "| model | " + " | ".join(cases) + " |",
        "|---|" + "---|" * len(cases),
        "| Bayes log loss | "
        + " | ".join(f"{done['bayes'][c]['log_loss']:.4f}" for c in cases)
        + " |",
    ]
    for spec in specs:
        values = []
        for case in cases:
            v = cell.get((case, spec))
            if v is None:
                values.append("")
            else:
                values.append(
                    "refused" if "error" in v else f"{v['excess']:+.4f} ({v['fit_s']:.1f} s)"
                )
        lines.append(f"| {spec} | " + " | ".join(values) + " |")
    return "\n".join(lines)


def targets(done, rows=1_000_000, within=0.001):
    """Issue 44's target at ``rows`` training rows, as lines of text: per case, the library's
    best model, its excess over the Bayes limit and the peers' (each at its largest size up to
    ``rows``: the forest is capped), met when the best is within ``within`` of the limit and
    below every peer; then the models that meet it on every case (one setting for all)."""
    entries = [v for k, v in done.items() if k != "bayes" and "error" not in v]
    lines, passing = [], None
    for case in done["bayes"]:
        mine = {
            v["model"]: v["excess"]
            for v in entries
            if v["case"] == case and v["rows"] == rows and v["model"] not in PEERS
        }
        if not mine:
            continue
        peers = {}
        for peer in PEERS:
            sizes = [v for v in entries if v["case"] == case and v["model"] == peer]
            sizes = [v for v in sizes if v["rows"] <= rows]
            if sizes:
                peers[peer] = max(sizes, key=lambda v: v["rows"])["excess"]

        def meets(excess, peers=peers):
            return excess <= within and all(excess < e for e in peers.values())

        good = {m for m, e in mine.items() if meets(e)}
        passing = good if passing is None else passing & good
        best = min(mine, key=mine.get)
        lines.append(
            f"{case}: best {best} {mine[best]:+.5f}; "
            + ", ".join(f"{p} {e:+.5f}" for p, e in peers.items())
            + ("; met" if meets(mine[best]) else "; NOT met")
        )
    lines.append(f"one setting meeting it on every case: {sorted(passing or []) or 'none'}")
    return lines


def figures(done, directory):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for case in done["bayes"]:
        entries = [
            v for k, v in done.items() if k != "bayes" and v["case"] == case and "error" not in v
        ]
        specs = list(dict.fromkeys(v["model"] for v in entries))
        fig, axes = plt.subplots(1, 3, figsize=(16, 5))
        colours = plt.cm.tab20(np.linspace(0, 1, 20))
        for n, spec in enumerate(specs):
            colour = colours[n % 20]
            points = sorted((v["rows"], v) for v in entries if v["model"] == spec)
            rows = [r for r, _ in points]
            style = "--" if ":" in spec else "-"
            excess = [max(v["excess"], 1e-5) for _, v in points]
            axes[0].plot(rows, excess, style, color=colour, marker="o", ms=3, label=spec)
            axes[1].plot(
                rows, [v["fit_s"] for _, v in points], style, color=colour, marker="o", ms=3
            )
            memory = [max(v["peak_mb"], 0.1) for _, v in points]
            axes[2].plot(rows, memory, style, color=colour, marker="o", ms=3)
        for ax, label in zip(
            axes,
            ("log loss over Bayes (nats; below 1e-5 drawn at 1e-5)", "fit (s)", "peak memory (MB)"),
            strict=True,
        ):
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("training rows")
            ax.set_ylabel(label)
            ax.grid(True, which="both", alpha=0.3)
        axes[0].axhline(1e-3, color="grey", lw=0.8)
        axes[0].legend(fontsize=7, ncol=2)
        bayes = done["bayes"][case]["log_loss"]
        fig.suptitle(
            f"{case}: Bayes log loss {bayes:.4f} on {done['bayes'][case]['test_rows']} rows"
        )
        fig.tight_layout()
        path = directory / f"bn_limit_{case.replace(':', '_')}.png"
        fig.savefig(path, dpi=90)
        plt.close(fig)
        paths.append(path)
    return paths


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", help="network:class pairs, comma-separated")
    parser.add_argument("--models", default=DEFAULT_MODELS)
    parser.add_argument("--sizes", default="1000,10000,100000,1000000,10000000")
    parser.add_argument("--max-rows", type=int, default=10_000_000)
    parser.add_argument("--caps", default=DEFAULT_CAPS, help="model=rows, comma-separated")
    parser.add_argument("--test", type=int, default=50_000)
    parser.add_argument("--chunk-rows", type=int, default=1_000_000)
    parser.add_argument("--results", type=Path, help="JSON of results; rerun resumes it")
    parser.add_argument("--report", nargs="*", type=Path, help="merge these results and report")
    parser.add_argument("--figures", type=Path, help="write the figures to this directory")
    parser.add_argument("--rule", action="store_true", help="print the class-node rule's pick")
    args = parser.parse_args(argv)
    cases = CASES if not args.cases else [tuple(c.split(":")) for c in args.cases.split(",")]
    if args.rule:
        for network_name in dict.fromkeys(n for n, _ in cases):
            size, node, zero_one = class_node_rule(load(network_name))
            print(f"{network_name}: {node} (Markov blanket {size}, Bayes 0-1 loss {zero_one:.3f})")
        return 0
    if args.report:
        done = merge(args.report)
        for rows in sorted({v["rows"] for k, v in done.items() if k != "bayes"}):
            print(f"\n{rows} training rows: log loss over Bayes (fit seconds)\n")
            print(table(done, rows))
        print("\nwithin 0.001 nats of the Bayes limit and below the forest and HGB, 10^6 rows:")
        print("\n".join(targets(done)))
        if args.figures:
            for path in figures(done, args.figures):
                print(path)
        return 0
    caps = {k: int(v) for k, v in (c.split("=") for c in args.caps.split(",") if c)}
    sizes = [int(s) for s in args.sizes.split(",") if int(s) <= args.max_rows]
    specs = [s.strip() for s in args.models.split(",") if s.strip()]
    print(
        f"load average {os.getloadavg()[0]:.1f}; sizes {sizes}; models {specs}; caps {caps}",
        flush=True,
    )
    run(cases, specs, sizes, caps, args.test, args.chunk_rows, args.results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
