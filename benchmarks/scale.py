"""Out-of-core TAN: parquet -> (a) dask on a local cluster, (b) partial_fit over record batches.

Writes ``--rows`` rows x ``--columns`` categorical columns (small integers; each
feature depends on the class and on the previous feature, so TAN has a chain
to find) plus the class to ``--partitions`` parquet files of row groups of
``--row-group`` rows, then fits TAN

(a) with dask on a ``LocalCluster(n_workers=--workers, threads_per_worker=1,
    processes=True)``: one partition per file, statistics summed on the cluster;
(b) with ``partial_fit`` over pyarrow record batches of ``--row-group`` rows,
    in this process, never holding more than one batch;

and reports rows/s and the peak resident memory of every process (psutil,
sampled every 50 ms; without psutil, ``resource.getrusage`` of this process
and its children). Both fits must agree to 1e-12 in ``predict_proba``; they are
compared with an in-memory ``TAN().fit`` on the first ``--sample`` rows (its
tree and, when it holds every row, its probabilities), and the dask fit time
is set against the in-memory fit's.

Run::

    PYTHONPATH=. python benchmarks/scale.py --rows 1000000 --partitions 8
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

N_CLASSES = 3


def write_parquet(directory, rows, columns, partitions, row_group, seed=0):
    """The synthetic table as ``partitions`` parquet files; returns their paths."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    cards = 2 + np.arange(columns) % 4  # 2..5 categories
    bounds = np.linspace(0, rows, partitions + 1).astype(np.int64)
    paths = []
    for k in range(partitions):
        path = directory / f"part-{k:04d}.parquet"
        writer = None
        for start in range(int(bounds[k]), int(bounds[k + 1]), row_group):
            n = min(row_group, int(bounds[k + 1]) - start)
            y = rng.integers(0, N_CLASSES, n)
            block = {}
            previous = np.zeros(n, dtype=np.int64)
            for j in range(columns):
                noise = rng.integers(0, cards[j], n)
                keep = rng.random(n) < 0.6
                value = np.where(keep, (previous + y) % cards[j], noise)
                block[f"x{j:02d}"] = value.astype(np.int8)
                previous = value
            block["class"] = y.astype(np.int8)
            table = pa.table(block)
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema)
            writer.write_table(table, row_group_size=row_group)
        if writer is not None:
            writer.close()
            paths.append(path)
    return paths


class MemoryMonitor:
    """Peak resident memory of this process and all its descendants, sampled in a thread."""

    def __init__(self, interval=0.05):
        self.interval = interval
        self.peaks = {}
        self._stop = threading.Event()
        try:
            import psutil
        except ImportError:
            psutil = None
        self._psutil = psutil

    def _sample(self):
        me = self._psutil.Process()
        for process in [me, *me.children(recursive=True)]:
            try:
                rss = process.memory_info().rss
                name = "main" if process.pid == me.pid else f"child {process.pid}"
            except self._psutil.Error:
                continue
            self.peaks[name] = max(self.peaks.get(name, 0), rss)

    def _run(self):
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.interval)

    def __enter__(self):
        if self._psutil is not None:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._psutil is not None:
            self._thread.join()
            self._sample()
        else:  # ru_maxrss: KiB on Linux, whole-life peaks
            self.peaks["main (getrusage)"] = (
                resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
            )
            self.peaks["children (getrusage)"] = (
                resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
            )

    def report(self) -> dict:
        return {name: round(rss / 2**20, 1) for name, rss in sorted(self.peaks.items())}


def _warm_up():
    import bnclassify  # noqa: F401


def fit_dask(paths, workers):
    """TAN fitted with dask on a local cluster; ``(model, seconds, peak MiB per process)``."""
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    from bnclassify import TAN

    with MemoryMonitor() as memory:
        cluster = LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
        )
        client = Client(cluster)
        try:
            client.run(_warm_up)  # imports on the workers are not part of the fit
            df = dd.read_parquet([str(p) for p in paths])
            start = time.perf_counter()
            model = TAN().fit(df.drop(columns="class"), df["class"])
            seconds = time.perf_counter() - start
            partitions = df.npartitions
        finally:
            client.close()
            cluster.close()
    return model, seconds, memory.report(), partitions


def fit_batches(paths, batch_rows):
    """TAN fitted by partial_fit over pyarrow record batches; ``(model, seconds, peak MiB)``."""
    import pyarrow.parquet as pq

    from bnclassify import TAN

    with MemoryMonitor() as memory:
        start = time.perf_counter()
        classes = np.unique(
            np.concatenate([pq.read_table(p, columns=["class"])["class"].to_numpy() for p in paths])
        )
        model = TAN()
        for path in paths:
            for batch in pq.ParquetFile(path).iter_batches(batch_size=batch_rows):
                frame = batch.to_pandas()
                y = frame.pop("class")
                model.partial_fit(frame, y, classes=classes)
        seconds = time.perf_counter() - start
    return model, seconds, memory.report()


def read_head(paths, rows):
    """The first ``rows`` rows of the table, in memory."""
    import pyarrow.parquet as pq

    frames, total = [], 0
    for path in paths:
        for batch in pq.ParquetFile(path).iter_batches(batch_size=min(rows, 1 << 20)):
            frames.append(batch.to_pandas())
            total += len(frames[-1])
            if total >= rows:
                break
        if total >= rows:
            break
    frame = pd.concat(frames, ignore_index=True).iloc[:rows]
    return frame.drop(columns="class"), frame["class"]


def _tree(model):
    return {tuple(sorted(e)) for e in model.structure_.edges() if model.class_node_ not in e}


def main(argv=None) -> dict:
    """Run the benchmark; returns (and prints as JSON) every figure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--columns", type=int, default=20)
    parser.add_argument("--partitions", type=int, default=8, help="parquet files = dask partitions")
    parser.add_argument("--row-group", type=int, default=250_000, help="rows per row group/batch")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sample", type=int, default=1_000_000, help="rows of the in-memory fit")
    parser.add_argument("--out", default=None, help="directory for the parquet files")
    parser.add_argument("--json", default=None, help="also write the results here")
    args = parser.parse_args(argv)
    out = args.out or tempfile.mkdtemp(prefix="bnclassify-scale-")
    from bnclassify import TAN

    start = time.perf_counter()
    paths = write_parquet(out, args.rows, args.columns, args.partitions, args.row_group)
    written = time.perf_counter() - start

    dask_model, dask_seconds, dask_memory, n_partitions = fit_dask(paths, args.workers)
    batch_model, batch_seconds, batch_memory = fit_batches(paths, args.row_group)

    sample_rows = min(args.sample, args.rows)
    X, y = read_head(paths, sample_rows)
    with MemoryMonitor() as memory:
        start = time.perf_counter()
        memory_model = TAN().fit(X, y)
        memory_seconds = time.perf_counter() - start
    probe = X.iloc[:5000]
    dask_proba = dask_model.predict_proba(probe)
    gap = float(np.abs(dask_proba - batch_model.predict_proba(probe)).max())
    tree = _tree(dask_model)
    results = {
        "rows": args.rows,
        "columns": args.columns,
        "partitions": n_partitions,
        "workers": args.workers,
        "row_group": args.row_group,
        "write_seconds": round(written, 2),
        "parquet_mib": round(sum(os.path.getsize(p) for p in paths) / 2**20, 1),
        "dask": {
            "seconds": round(dask_seconds, 2),
            "rows_per_second": round(args.rows / dask_seconds),
            "peak_mib": dask_memory,
        },
        "partial_fit": {
            "seconds": round(batch_seconds, 2),
            "rows_per_second": round(args.rows / batch_seconds),
            "peak_mib": batch_memory,
        },
        "in_memory": {
            "rows": sample_rows,
            "seconds": round(memory_seconds, 2),
            "rows_per_second": round(sample_rows / memory_seconds),
            "peak_mib": memory.report(),
        },
        "dask_vs_partial_fit_max_abs_proba_gap": gap,
        "same_tree_dask_partial_fit": tree == _tree(batch_model),
        "tree_edges_shared_with_in_memory_sample": len(tree & _tree(memory_model)),
        "tree_edges": len(tree),
    }
    if sample_rows == args.rows:
        results["dask_vs_in_memory_max_abs_proba_gap"] = float(
            np.abs(dask_proba - memory_model.predict_proba(probe)).max()
        )
        results["dask_target_seconds"] = round(4 * memory_seconds + 2, 2)
    print(json.dumps(results, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main(sys.argv[1:])
