"""The same fits on several bnclassify checkouts, timed in the same rounds.

Each checkout (a directory with ``bnclassify/`` and its extension built in
place: ``python setup.py build_ext --inplace -q`` there) gets a worker process
of its own, started as ``python SCRIPT --worker ...`` with the checkout first on
``PYTHONPATH``; the script's worker reads one task per line and answers with
the task's wall-clock and CPU seconds (:func:`serve`). :func:`interleaved` asks
every worker for every task once per round, every other round in reverse
order, so a change of load on a shared machine hits every checkout alike.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
THIS_TREE = str(HERE.parent)


def serve(run):
    """The worker's loop: ``run(task)`` for each line of stdin, its seconds as JSON.

    One thread (``threadpool_limits(1)``): on a shared 2-core machine threads add
    noise. The first call of each task (its data made, imports and caches warm)
    is not reported; each reported call is timed alone and its result freed
    after the clock stops.
    """
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    seen = set()
    for line in sys.stdin:
        task = line.strip()
        if task not in seen:
            seen.add(task)
            run(task)
        wall, cpu = time.perf_counter(), time.process_time()
        result = run(task)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        del result
        print(json.dumps([wall, cpu]), flush=True)


def interleaved(script, trees: dict, tasks: list, repeats: int, worker_args=()) -> dict:
    """``{(tree name, task): [(wall, cpu), ...]}``: every task on every tree once per round."""
    workers = {}
    for name, tree in trees.items():
        env = {**os.environ, "PYTHONPATH": f"{Path(tree).resolve()}{os.pathsep}{HERE}"}
        workers[name] = subprocess.Popen(
            [sys.executable, str(script), "--worker", *map(str, worker_args)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tree,
        )

    def run(name, task):
        workers[name].stdin.write(task + "\n")
        workers[name].stdin.flush()
        return json.loads(workers[name].stdout.readline())

    pairs = [(name, task) for task in tasks for name in trees]
    times = {pair: [] for pair in pairs}
    for round_ in range(max(1, repeats)):
        for pair in pairs if round_ % 2 == 0 else pairs[::-1]:
            times[pair].append(run(*pair))
    for worker in workers.values():
        worker.stdin.close()
        worker.wait()
    return times


def summary(samples) -> dict:
    """Best and median of the wall-clock and CPU seconds of one (tree, task)."""
    wall, cpu = np.array(samples).T
    return {
        "wall_best": float(wall.min()),
        "wall_median": float(np.median(wall)),
        "cpu_best": float(cpu.min()),
        "cpu_median": float(np.median(cpu)),
    }


def load_line() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())
