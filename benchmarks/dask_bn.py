"""TAN, KDB(k=2), SKDB and ESKDB(10) fitted on dask from parquet sampled from an expert network.

Usage::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/dask_bn.py --rows 10000000 \\
        --data /work/data_big/alarm_1e7 --results dask_bn.json
    python benchmarks/dask_bn.py --rows 100000 --data /tmp/alarm_1e5   # a quick check
    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/dask_bn.py --data /work/data_big/alarm_1e8 \\
        --files 10 --models eskdb10 --results eskdb_1e7.json   # the first 10^7 rows

``--rows`` rows of ``--network`` (default alarm; class ``--class-node``,
default ``TPR``) are written with :func:`bnclassify.datasets.write_network_parquet`
(seed 0, ``--rows-per-file`` rows per file, one chunk in memory at a time)
to ``--data``, unless that directory already holds the data set. Then, on a
``distributed.LocalCluster(n_workers=2, threads_per_worker=1,
memory_limit="4GB")``, each model is fitted from
``dask.dataframe.read_parquet(--data)`` (one partition per file): the wall
time of the fit and the peak resident memory of each worker process (psutil,
sampled every 0.1 s from this process; it includes the worker's own baseline,
given as ``baseline_mb``) and the CPU seconds of the workers and of this
process are recorded. ``--files N`` fits on the first ``N`` files only. A
model that refuses dask input is reported as refused, with its message.

The check (``--check-files``, default 1): the same models fitted in memory on
the rows of the first files, and on dask from those files alone, must give the
same ``predict_proba`` on 10,000 test rows (largest difference reported; the
test suite checks the same at small scale).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import psutil
from bayesnet_networks import NETWORKS

from bnclassify import ESKDB, KDB, SKDB, TAN
from bnclassify.datasets import sample_network, write_network_parquet

MODELS = {
    "tan": TAN,
    "kdb2": lambda: KDB(k=2),
    "skdb": SKDB,
    "eskdb10": lambda: ESKDB(n_estimators=10, random_state=0),
}


class WorkerMemory:
    """The peak resident set size of each given process while the block runs (bytes)."""

    def __init__(self, pids, every=0.1):
        self.processes = {pid: psutil.Process(pid) for pid in pids}
        self.every = every

    def _rss(self):
        return {pid: p.memory_info().rss for pid, p in self.processes.items()}

    def _watch(self):
        while not self._stop.is_set():
            for pid, rss in self._rss().items():
                self.peak[pid] = max(self.peak[pid], rss)
            self._stop.wait(self.every)

    def __enter__(self):
        self.baseline = self._rss()
        self.peak = dict(self.baseline)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def _cpu_seconds(pids):
    """User and system CPU seconds of each process so far."""
    return [sum(psutil.Process(pid).cpu_times()[:2]) for pid in pids]


def ensure_data(network, directory, rows, rows_per_file):
    directory = Path(directory)
    files = sorted(directory.glob("part-*.parquet"))
    if files:
        return files, None
    start = time.perf_counter()
    files = write_network_parquet(
        network, directory, rows, rows_per_file=rows_per_file, random_state=0
    )
    return files, time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--network", default="alarm")
    parser.add_argument("--class-node", default="TPR")
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--rows-per-file", type=int, default=1_000_000)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--models", default="tan,kdb2,skdb")
    parser.add_argument(
        "--files", type=int, help="fit on the first FILES files of --data only (default: all)"
    )
    parser.add_argument("--check-files", type=int, default=1)
    parser.add_argument("--results", type=Path)
    args = parser.parse_args(argv)

    import dask.dataframe as dd
    import distributed
    from pgmpy.readwrite import BIFReader

    warnings.simplefilter("ignore")
    network = BIFReader(str(NETWORKS / f"{args.network}.bif")).get_model()
    files, write_s = ensure_data(network, args.data, args.rows, args.rows_per_file)
    files = files[: args.files] if args.files else files
    paths = [str(f) for f in files]
    rows = sum(pd.read_parquet(f, columns=[args.class_node]).shape[0] for f in files[:1]) * len(
        files
    )
    disk = sum(f.stat().st_size for f in files)
    out = {
        "network": args.network,
        "class": args.class_node,
        "files": len(files),
        "rows_approx": rows,
        "disk_mb": disk / 2**20,
        "write_s": write_s,
        "load_before": os.getloadavg()[0],
        "fits": {},
        "check": {},
    }
    print(
        f"{args.network} / {args.class_node}: {len(files)} files, about {rows} rows, "
        f"{disk / 2**20:.0f} MB on disk"
        + (f", written in {write_s:.0f} s" if write_s else " (already there)"),
        flush=True,
    )
    test = next(sample_network(network, 10_000, random_state=1)).drop(columns=args.class_node)
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, memory_limit="4GB", dashboard_address=":0"
    )
    with distributed.Client(cluster) as client:
        pids = list(client.run(os.getpid).values())
        for name in [m.strip() for m in args.models.split(",") if m.strip()]:
            frame = dd.read_parquet(paths)
            X, y = frame.drop(columns=args.class_node), frame[args.class_node]
            workers_cpu = _cpu_seconds(pids)
            with WorkerMemory(pids) as memory:
                start, client_cpu = time.perf_counter(), time.process_time()
                try:
                    MODELS[name]().fit(X, y)
                except (TypeError, ValueError) as error:
                    out["fits"][name] = {"refused": str(error)}
                    print(f"  {name}: refused: {error}", flush=True)
                    continue
                seconds = time.perf_counter() - start
                client_cpu = time.process_time() - client_cpu
            row = {
                "fit_s": seconds,
                "worker_cpu_s": [
                    after - before
                    for before, after in zip(workers_cpu, _cpu_seconds(pids), strict=True)
                ],  # fmt: skip
                "client_cpu_s": client_cpu,
                "rows_per_s": rows / seconds,
                "peak_mb": [memory.peak[p] / 2**20 for p in pids],
                "baseline_mb": [memory.baseline[p] / 2**20 for p in pids],
                "load": os.getloadavg()[0],
            }
            out["fits"][name] = row
            print(
                f"  {name}: fit {seconds:.1f} s ({rows / seconds:,.0f} rows/s); CPU "
                f"{', '.join(f'{c:.0f}' for c in row['worker_cpu_s'])} s (workers), "
                f"{client_cpu:.0f} s (client); worker peak "
                f"{', '.join(f'{m:.0f}' for m in row['peak_mb'])} MB (baseline "
                f"{', '.join(f'{m:.0f}' for m in row['baseline_mb'])} MB); load {row['load']:.1f}",
                flush=True,
            )
            if args.results:
                args.results.write_text(json.dumps(out, indent=1))
        subset = [str(f) for f in files[: args.check_files]]
        table = pd.concat([pd.read_parquet(f) for f in subset], ignore_index=True)
        for name in out["fits"]:
            if "refused" in out["fits"][name]:
                continue
            frame = dd.read_parquet(subset)
            on_dask = MODELS[name]().fit(
                frame.drop(columns=args.class_node), frame[args.class_node]
            )
            in_memory = MODELS[name]().fit(
                table.drop(columns=args.class_node), table[args.class_node]
            )
            if list(on_dask.classes_) != list(in_memory.classes_):
                raise AssertionError(
                    f"{name}: dask classes {list(on_dask.classes_)} differ from the "
                    f"in-memory fit's {list(in_memory.classes_)}"
                )
            gap = float(np.max(np.abs(on_dask.predict_proba(test) - in_memory.predict_proba(test))))
            out["check"][name] = {"rows": len(table), "max_abs_difference": gap}
            print(f"  check {name}: dask vs in-memory on {len(table)} rows: max |diff| {gap:.2e}")
    cluster.close()
    if args.results:
        args.results.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
