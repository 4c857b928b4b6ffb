"""The bad-input campaign: what a user can hand the public API, and what comes back.

Run from a checkout::

    PYTHONPATH=. python tools/bad_input_campaign.py            # every case (~15 min, 2 cores)
    PYTHONPATH=. python tools/bad_input_campaign.py --fast     # the subset the suite runs
    PYTHONPATH=. python tools/bad_input_campaign.py --sample 60 --seed 7  # another sample
    PYTHONPATH=. python tools/bad_input_campaign.py --only "labels:" -v
    PYTHONPATH=. python tools/bad_input_campaign.py --numbers binned  # the other default

Each case is one call of the public API on one input (tools/bad_input/: odd columns,
dtypes, shapes and labels through every estimator; prediction on odd values; the
library's functions; plots, metrics, MDL, data sets, dask; issue 27's kinds; every plot's
options, metrics' and MDL's arguments, alpha at the float range's ends, super-parents,
dtypes without an obvious kind at 300 rows; ``bnclassify compare`` on 5,000-column and
malformed CSV files in a child process). Its
outcome is classified (tools/bad_input/core.py): correct (checked against a reference
where there is one), a clear error naming the column, value or parameter, or bad: a
wrong answer, a crash from deep inside, an unnamed error, over the time limit (60 s), or
a numpy/pandas RuntimeWarning (or another library's warning) reaching the caller.

Prints a summary by kind of input, the bad outcomes grouped by where they happen, and
which public names (``__all__`` of every public module) the cases exercise. Exits 1 on
any bad outcome. Memory is capped (``--memory-gb``, default 8): an input that would take
the machine ends in a MemoryError, which counts as a crash.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import pkgutil
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bad_input import (  # noqa: E402
    arguments,
    command_line,
    core,
    estimators,
    functions,
    issue27,
    plots,
    use,
    values,
)

SECTIONS = (estimators, functions, use, arguments, issue27, plots, values, command_line)


def all_cases(fast=False, only=None, sample=0, seed=0, sections=SECTIONS):
    """Every case of ``sections``, or those :func:`select` picks."""
    cases = [case for section in sections for case in section.cases()]
    return select(cases, fast, only, sample, seed)


def select(cases, fast=False, only=None, sample=0, seed=0):
    """``fast``: the first case flagged fast of each kind (the suite's subset); ``sample``:
    that many others, drawn at random (``seed``) from the cases neither in that subset nor
    slow, at most one per kind; ``only``: those whose kind or name holds this text."""
    if only:
        cases = [c for c in cases if only in c.kind or only in c.name]
    if fast or sample:
        seen = set()
        subset = [c for c in cases if c.fast and not (c.kind in seen or seen.add(c.kind))]
        chosen = subset if fast else []
        if sample:
            taken = {id(c) for c in subset}
            rest = [c for c in cases if id(c) not in taken and not c.slow]
            order = np.random.default_rng(seed).permutation(len(rest))
            picked, kinds = [], set()
            for k in order:  # at most one per kind: the sample spreads over the kinds
                case = rest[k]
                if case.kind not in kinds and len(picked) < sample:
                    picked.append(case)
                    kinds.add(case.kind)
            chosen += picked
        cases = chosen
    return cases


def public_names() -> dict:
    """Every callable in ``__all__`` of a public module of bnclassify (not exceptions,
    warnings or protocols): id(object) -> qualified name (an object exported by several
    modules counts once, under its first name)."""
    import bnclassify

    found = {}
    modules = ["bnclassify"] + [
        m.name
        for m in pkgutil.walk_packages(bnclassify.__path__, "bnclassify.")
        if not any(part.startswith("_") for part in m.name.split(".")[1:])
    ]
    for name in modules:
        module = importlib.import_module(name)
        for attribute in getattr(module, "__all__", ()):
            obj = getattr(module, attribute, None)
            if callable(obj) and id(obj) not in found and not _not_an_entry(obj):
                found[id(obj)] = f"{name}.{attribute}"
    return found


def _not_an_entry(obj) -> bool:
    """Exceptions, warnings and protocols are types to catch or implement, not calls to try."""
    if isinstance(obj, type) and issubclass(obj, BaseException):
        return True
    return bool(getattr(obj, "_is_protocol", False))


def _resolve(qualified):
    module, _, attribute = qualified.rpartition(".")
    try:
        return getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError):
        return None


def coverage(cases) -> tuple[list, list]:
    """The public callables some case exercises, and those none does."""
    exported = public_names()
    covered = {id(_resolve(name)) for case in cases for name in case.covers}
    hit = sorted(name for key, name in exported.items() if key in covered)
    missed = sorted(name for key, name in exported.items() if key not in covered)
    return hit, missed


def run(cases, time_limit=60.0, verbose=False, stream=sys.stdout):
    """Run every case; returns ``[(case, outcome)]``."""
    results = []
    for case in cases:
        outcome = core.run_case(case, time_limit=time_limit)
        results.append((case, outcome))
        if verbose or outcome.bad:
            print(
                f"{outcome.status:<11} {outcome.seconds:6.1f}s | {case.name} | "
                f"{outcome.detail[:160]} {('@ ' + outcome.where) if outcome.where else ''}",
                file=stream,
                flush=True,
            )
    return results


def summary(results, stream=sys.stdout, detail=False):
    """The outcomes by kind of input (its family, the part of ``kind`` before a colon, or
    every kind with ``detail``), the bad ones by where they happen, and the totals."""
    by_kind = collections.defaultdict(collections.Counter)
    for case, outcome in results:
        kind = case.kind if detail else case.kind.split(":")[0]
        by_kind[kind][outcome.status] += 1
    statuses = ("correct", "clear error") + core.BAD
    print(f"\n{'kind of input':<46}" + "".join(f"{s:>9.9}" for s in statuses), file=stream)
    for kind in sorted(by_kind):
        counts = by_kind[kind]
        print(f"{kind[:46]:<46}" + "".join(f"{counts[s]:>9}" for s in statuses), file=stream)
    bad = [(c, o) for c, o in results if o.bad]
    groups = collections.defaultdict(list)
    for case, outcome in bad:
        groups[(outcome.status, outcome.where or outcome.detail[:60])].append(case)
    if groups:
        print(f"\nbad outcomes in {len(groups)} kinds (status, where):", file=stream)
        for (status, where), cases in sorted(groups.items(), key=lambda g: -len(g[1])):
            print(f"  {len(cases):>4} {status:<8} {where}: e.g. {cases[0].name}", file=stream)
    totals = collections.Counter(o.status for _, o in results)
    print(
        f"\n{len(results)} inputs: {totals['correct']} correct, {totals['clear error']} clear "
        f"errors, {len(bad)} bad (" + ", ".join(f"{totals[s]} {s}" for s in core.BAD) + ")",
        file=stream,
    )
    return len(bad)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fast", action="store_true", help="the subset the test suite runs")
    parser.add_argument("--only", help="cases whose kind or name holds this text")
    parser.add_argument(
        "--sample", type=int, default=0, help="a random sample of this many more cases"
    )
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed")
    parser.add_argument(
        "--section",
        action="append",
        choices=[section.__name__.split(".")[-1] for section in SECTIONS],
        help="only this section of tools/bad_input/ (repeatable)",
    )
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per case")
    parser.add_argument("--memory-gb", type=float, default=8.0, help="address-space cap")
    parser.add_argument(
        "--numbers",
        choices=("density", "binned"),
        help="the kinds rule's automatic kind of numeric columns (data.kinds_rule.NUMERIC_KIND)"
        " for this run; default: the library's",
    )
    parser.add_argument("--list", action="store_true", help="list the cases, run none")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every outcome")
    args = parser.parse_args(argv)
    if args.numbers:
        from bnclassify.data import kinds_rule

        kinds_rule.NUMERIC_KIND = args.numbers  # read at each fit: every case runs under it
    cap = int(args.memory_gb * 1e9)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    sections = (
        [s for s in SECTIONS if s.__name__.split(".")[-1] in args.section]
        if (args.section)
        else SECTIONS
    )
    cases = all_cases(args.fast, args.only, args.sample, args.seed, sections)
    if args.list:
        for case in cases:
            print(f"{case.kind} | {case.name}")
        return 0
    start = time.perf_counter()
    results = run(cases, args.time_limit, args.verbose)
    n_bad = summary(results, detail=args.verbose)
    hit, missed = coverage(all_cases())
    print(
        f"public callables exercised: {len(hit)} of {len(hit) + len(missed)} "
        f"(__all__ of every public module); not exercised: {', '.join(missed) or 'none'}"
    )
    print(f"ran in {time.perf_counter() - start:.0f} s")
    return 1 if n_bad else 0


if __name__ == "__main__":
    sys.exit(main())
