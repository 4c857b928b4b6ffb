"""``bnclassify compare`` on 5,000-column CSV files: a git revision (before) and this tree.

    python benchmarks/cli_wide.py --base main [--repeat 2] [--rows 100] [--columns 5000]

Writes three CSV files of ``rows`` x ``columns`` (integer codes 0-2, strings x/y/z, floats
rounded to 4 decimals; a binary class last) and times, for each version in its own
process (its ``bnclassify`` first on ``PYTHONPATH``; the base gets this tree's compiled
kernels when it has none of its own), interleaved ``repeat`` times:

- until the run first shows an estimate of the time left on stderr (tqdm's
  ``[elapsed<left``) with the default models, for each table: the CPU seconds of the
  command (all its threads, read from ``/proc``) and the wall seconds; the run is then
  stopped;
- the whole run with ``--models nb`` on the integer table: CPU and wall seconds.

CPU seconds are the comparison to read on a shared machine; wall seconds depend on the
load. Prints one row per measurement and the ratio after / before of the medians.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
ESTIMATE = re.compile(r"\[(?:\d+:)?\d+:\d+<(?:\d+:)?\d+:\d+")
TICKS = os.sysconf("SC_CLK_TCK")


def write_tables(folder: Path, rows: int, columns: int) -> dict:
    rng = np.random.default_rng(0)
    names = [f"f{j}" for j in range(columns)]
    values = {
        "integers": rng.integers(0, 3, (rows, columns)),
        "strings": rng.choice(np.array(["x", "y", "z"]), (rows, columns)),
        "floats": rng.normal(size=(rows, columns)).round(4),
    }
    paths = {}
    for kind, cells in values.items():
        frame = pd.DataFrame(cells, columns=names)
        frame["class"] = np.resize(np.array(["a", "b"]), rows)
        paths[kind] = folder / f"{kind}_{rows}x{columns}.csv"
        frame.to_csv(paths[kind], index=False)
    return paths


def base_tree(revision: str, folder: Path) -> Path:
    """``bnclassify`` of ``revision`` in ``folder``, with this tree's compiled kernels."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "bnclassify"], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    for built in ROOT.glob("bnclassify/**/_kernels*.so"):
        target = folder / built.relative_to(ROOT)
        if target.parent.is_dir() and not any(target.parent.glob("_kernels*.so")):
            shutil.copy(built, target)
    return folder


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime, every thread


def _command(tree: Path, *argv) -> tuple:
    environ = {**os.environ, "PYTHONPATH": str(tree), "COLUMNS": "100"}
    environ.pop("CI", None)
    return [sys.executable, "-m", "bnclassify.study.cli", *map(str, argv)], environ


def until_estimate(tree: Path, csv: Path, limit: float = 3600.0) -> tuple:
    """(CPU s, wall s) of ``compare --csv csv`` until stderr shows an estimate of the time
    left (NaN if the run ends or ``limit`` wall seconds pass first)."""
    argv, environ = _command(tree, "compare", "--csv", csv)
    start = time.perf_counter()
    child = subprocess.Popen(
        argv, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=False
    )
    seen = threading.Event()

    def watch():
        text = b""
        for chunk in iter(lambda: child.stderr.read1(4096), b""):
            text = (text + chunk)[-2000:]
            if ESTIMATE.search(text.decode(errors="replace")):
                seen.set()

    threading.Thread(target=watch, daemon=True).start()
    cpu = wall = float("nan")
    while child.poll() is None and time.perf_counter() - start < limit:
        if seen.wait(0.05):
            cpu, wall = _cpu_seconds(child.pid), time.perf_counter() - start
            break
    child.kill()
    child.wait()
    return cpu, wall


def whole_run(tree: Path, csv: Path, *options) -> tuple:
    """(CPU s, wall s) of a whole ``compare --csv csv OPTIONS`` run."""
    argv, environ = _command(tree, "compare", "--csv", csv, *options)
    before = os.times()
    start = time.perf_counter()
    subprocess.run(argv, env=environ, capture_output=True, check=True)
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return cpu, time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="git revision to compare against")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--rows", type=int, default=100)
    parser.add_argument("--columns", type=int, default=5000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        tables = write_tables(tmp, args.rows, args.columns)
        trees = {"before": base_tree(args.base, tmp / "base"), "after": ROOT}
        measures = {}
        for _ in range(args.repeat):
            for version, tree in trees.items():  # interleaved: the load hits both alike
                for kind, csv in tables.items():
                    key = f"default models, {kind}: until an estimate of the time left"
                    measures.setdefault((key, version), []).append(until_estimate(tree, csv))
                key = "--models nb, integers: the whole run"
                measures.setdefault((key, version), []).append(
                    whole_run(tree, tables["integers"], "--models", "nb")
                )
    print(f"{args.rows} rows x {args.columns} columns; median of {args.repeat}")
    print(f"{'measurement':64} {'before CPU s':>12} {'after CPU s':>12} {'ratio':>6} "
          f"{'before wall':>11} {'after wall':>11}")  # fmt: skip
    for key in dict.fromkeys(k for k, _ in measures):
        b = [statistics.median(v) for v in zip(*measures[(key, "before")], strict=True)]
        a = [statistics.median(v) for v in zip(*measures[(key, "after")], strict=True)]
        print(f"{key:64} {b[0]:12.1f} {a[0]:12.1f} {a[0] / b[0]:6.2f} {b[1]:11.1f} {a[1]:11.1f}")


if __name__ == "__main__":
    main()
