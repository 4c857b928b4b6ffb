"""Timing shared by the benchmarks: one call's seconds, and the least of several as ``timeit``'s.

A step of a tenth of a second is a ratio's denominator in several benchmarks (AODE's predict
against TAN's at 10^5 rows: 0.04-0.2 s); one run of it is moved by a cold cache, a wait for a
core or a page fault of a fresh array, so its ratio moved from 0.7x to 4.2x between rounds.
:func:`best_of` runs such a step again while its runs have taken less than a budget in all
and keeps the least time, as ``timeit`` does; a step of seconds runs once.
"""

from __future__ import annotations

import time


def timed(call, *args):
    """``(call(*args), seconds, CPU seconds)`` of one run (``time.perf_counter`` and
    ``time.process_time``)."""
    start, cpu = time.perf_counter(), time.process_time()
    out = call(*args)
    return out, time.perf_counter() - start, time.process_time() - cpu


def best_of(run, *args, budget=0.2, most=7):
    """``run(*args)``'s result with its least seconds and least CPU seconds over repeats.

    ``run`` returns ``(result, seconds, CPU seconds)`` (as :func:`timed` does: ``best_of(timed,
    call)``); it is run again while its runs have taken less than ``budget`` seconds (wall) in
    all, at most ``most`` runs, so a step of milliseconds is not measured by one run's noise
    while one of seconds runs once. The result is the first run's; a first run that returns
    ``None`` (stopped at a timeout) is not repeated. Returns ``(result, seconds, CPU seconds,
    runs)``.

    Examples
    --------
    >>> out, seconds, cpu, runs = best_of(timed, sum, [1, 2, 3], budget=0.0)
    >>> out, runs
    (6, 1)
    """
    found, seconds, cpu = run(*args)
    runs, spent = 1, seconds
    while found is not None and spent < budget and runs < most:
        _, s, c = run(*args)
        seconds, cpu, spent, runs = min(seconds, s), min(cpu, c), spent + s, runs + 1
    return found, seconds, cpu, runs
