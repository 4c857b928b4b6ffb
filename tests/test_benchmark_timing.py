"""benchmarks/_timing.py: a short step timed by the least of several runs, a long one once."""

import importlib.util
import time
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "_timing.py"


def _timing():
    spec = importlib.util.spec_from_file_location("bnclassify_benchmark_timing", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_short_step_is_run_again_and_its_least_time_kept():
    timing = _timing()
    calls = []

    def step():  # the first run slow (a cold start), the others quick
        calls.append(1)
        time.sleep(0.05 if len(calls) == 1 else 0.001)
        return len(calls)

    out, seconds, cpu, runs = timing.best_of(timing.timed, step, budget=0.2, most=7)
    assert out == 1 and runs == len(calls) == 7  # the first run's result, 7 runs in 0.2 s
    assert seconds < 0.02 and 0 <= cpu < 0.02  # the least, not the first, nor the mean


def test_a_step_over_the_budget_runs_once_and_a_timeout_is_not_repeated():
    timing = _timing()
    calls = []

    def slow():
        calls.append(1)
        time.sleep(0.03)

    assert timing.best_of(timing.timed, slow, budget=0.02)[3] == 1
    assert timing.best_of(lambda: (None, 0.0, 0.0), budget=1.0) == (None, 0.0, 0.0, 1)
    assert len(calls) == 1
