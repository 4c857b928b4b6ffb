"""TAN's fit at 10^6 x 20 on four input forms with string labels, pyAgrum in the same run.

The baseline a later change is compared against::

    python benchmarks/tan_fit.py                                    # times and ratios
    python benchmarks/tan_fit.py --save benchmarks/tan_fit_baseline.json
    python benchmarks/tan_fit.py --compare benchmarks/tan_fit_baseline.json  # exit 1 if slower
    python benchmarks/tan_fit.py --before /path/to/checkout --no-pyagrum     # two trees, one loop

The table is ``run.py``'s synthetic 10^6 x 20 (4 states, binary class) as int8,
object strings, pandas ``category`` and ``"string[pyarrow]"``; the labels are
object strings. bnclassify's ``TAN().fit`` is timed on every form in the same
rounds (best of ``--repeats``, every other round in reverse order), on one
thread (``threadpool_limits(1)``: on a shared 2-core machine threads add noise,
and the fit's counting is one thread's work anyway), wall clock and CPU time;
pyAgrum's ``BNClassifier(learningMethod="TAN")`` fits each form once (``run.py``'s
set-up), after bnclassify's rounds.

``--compare`` reads a file ``--save`` wrote and fails (exit status 1, the forms
named) when a form's CPU time is above the baseline's by more than the noise:
``--tolerance`` (default 10%) or the spread of either run (median over best),
whichever is larger. CPU time moves less with other jobs than wall clock, not
at all with another machine's speed: compare on the machine that saved it.

``--before PATH [PATH ...]`` also times the bnclassify checkouts at PATH (each
with its extension built in place: ``python setup.py build_ext --inplace -q``
there), each in a worker process of its own beside this checkout's, all in the
same rounds (``checkouts.py``); it fails like ``--compare`` when this checkout
is slower than one of them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from checkouts import THIS_TREE, interleaved, load_line, serve, summary

FORMS = ("int8", "object", "category", "string[pyarrow]")
ROWS, COLUMNS = 1_000_000, 20


def table(form, rows=ROWS):
    """``run.py``'s synthetic table as ``form``, with object-string labels."""
    from run import form_data, label_form

    X, y = form_data(rows, COLUMNS, form)
    return X, label_form(y, "object")


def worker(rows):
    """Run in a worker process (a bnclassify checkout first on ``PYTHONPATH``): a form per
    line, that form's ``TAN().fit`` timed."""
    from bnclassify import TAN

    tables = {}

    def fit(form):
        if form not in tables:
            tables[form] = table(form, rows)
        return TAN().fit(*tables[form])

    serve(fit)


def pyagrum_seconds(form, rows):
    """Wall clock and CPU seconds of one pyAgrum TAN fit (``run.py``'s set-up)."""
    from run import pyagrum_tan

    fit = pyagrum_tan()[0]
    X, y = table(form, rows)
    wall, cpu = time.perf_counter(), time.process_time()
    fit(X, y)
    return time.perf_counter() - wall, time.process_time() - cpu


def spread(result):
    return result["cpu_median"] / result["cpu_best"] - 1


def slower(current, baseline, tolerance):
    """Forms whose CPU time is above the baseline's by more than the noise, with the ratio."""
    out = {}
    for form, now in current.items():
        if form not in baseline:
            continue
        then = baseline[form]
        noise = max(tolerance, spread(now), spread(then))
        ratio = now["cpu_best"] / then["cpu_best"]
        out[form] = (ratio, noise, ratio > 1 + noise)
    return out


def environment():
    from run import environment as run_environment

    return run_environment()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="rounds; best of them is kept")
    parser.add_argument("--rows", type=int, default=ROWS, help=argparse.SUPPRESS)
    parser.add_argument("--forms", default=",".join(FORMS), help="comma-separated forms")
    parser.add_argument("--no-pyagrum", action="store_true", help="bnclassify only")
    parser.add_argument("--save", metavar="JSON", help="write this run as a baseline")
    parser.add_argument("--compare", metavar="JSON", help="fail if slower than this baseline")
    parser.add_argument(
        "--before", metavar="PATH", nargs="+", default=[], help="also time these checkouts"
    )
    parser.add_argument("--tolerance", type=float, default=0.10, help="smallest noise allowed")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.rows)
    forms = args.forms.split(",")
    env = environment()
    for key, value in env.items():
        print(f"{key}: {value}")
    trees = {**{path: path for path in args.before}, "this checkout": THIS_TREE}
    print(
        f"\nTAN fit at {args.rows} x {COLUMNS}, object-string labels, one thread, best of "
        f"{args.repeats} rounds (every form on every checkout each round)"
    )
    times = interleaved(__file__, trees, forms, args.repeats, ["--rows", args.rows])
    results = {name: {form: summary(times[(name, form)]) for form in forms} for name in trees}
    ours = results["this checkout"]
    if not args.no_pyagrum:  # after bnclassify's rounds: it takes minutes a form
        for form in forms:
            ours[form]["pyagrum_wall"], ours[form]["pyagrum_cpu"] = pyagrum_seconds(form, args.rows)
    print(
        f"\n  {'form':<16} {'checkout':<40} {'CPU s':>7} {'median':>7} {'wall s':>7} {'this/it':>7}"
    )
    failed = []
    for form in forms:
        for name in trees:
            r = results[name][form]
            ratio = ours[form]["cpu_best"] / r["cpu_best"]
            print(
                f"  {form:<16} {name[-40:]:<40} {r['cpu_best']:7.3f} {r['cpu_median']:7.3f} "
                f"{r['wall_best']:7.3f} {ratio:7.2f}"
            )
            if name != "this checkout":
                ratio, noise, worse = slower({form: ours[form]}, {form: r}, args.tolerance)[form]
                if worse:
                    failed.append(f"{form}: {ratio:.2f} of {name}'s CPU time (noise {noise:.0%})")
        if "pyagrum_wall" in ours[form]:
            r = ours[form]
            print(
                f"  {form:<16} {'pyAgrum':<40} {r['pyagrum_cpu']:7.2f} {'':>7} "
                f"{r['pyagrum_wall']:7.2f}   pyAgrum / this checkout: CPU "
                f"{r['pyagrum_cpu'] / r['cpu_best']:.1f}x, "
                f"wall {r['pyagrum_wall'] / r['wall_best']:.1f}x"
            )
    print(f"\nload average at the end: {load_line()}")
    if args.save:
        Path(args.save).write_text(
            json.dumps({"environment": env, "rows": args.rows, "forms": ours}, indent=2) + "\n"
        )
        print(f"baseline written to {args.save}")
    if args.compare:
        baseline = json.loads(Path(args.compare).read_text())
        if baseline.get("environment", {}).get("machine") != env.get("machine"):
            print("note: the baseline was saved on another machine; CPU times move with it")
        print(
            f"\nagainst {args.compare} (CPU best, now / then; noise = the larger of "
            f"{args.tolerance:.0%} and either run's median / best - 1)"
        )
        for form, (ratio, noise, worse) in slower(ours, baseline["forms"], args.tolerance).items():
            print(f"  {form:<16} {ratio:6.2f}  noise {noise:.0%}  {'SLOWER' if worse else 'ok'}")
            if worse:
                failed.append(f"{form}: {ratio:.2f} of the baseline (noise {noise:.0%})")
    if failed:
        print("\nFAILED, slower beyond the noise:\n  " + "\n  ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
