"""Simpler TAN against TAN at 10^4 x 1,024 with dense, banded and tree contact matrices.

    python benchmarks/simpler_tan_tree.py                       # this checkout
    python benchmarks/simpler_tan_tree.py --before /path/to/checkout   # and another, same rounds

Simpler TAN skips TAN's mutual-information step: its fit is one pass of family
counts plus the contact matrix's maximum spanning tree, so its cost depends on
the matrix. Three matrices over the 1,024 columns of ``run.py``'s synthetic
table (10^4 rows, 4 states): ``dense``, every pair a weight (uniform in (0, 1),
as a contact matrix from a structure with a loose cutoff, or any user matrix,
looks); ``banded``, protein-like (blocks within 8 of each other in sequence in
contact, weight uniform in (0, 1), the rest 0); ``tree``, ``run.py``'s matrix
(the generating tree's 1,023 edges, 1, the rest 0). Forms: an int8 DataFrame
with Series labels, object strings, pandas ``category``. ``tree_from_weights``
alone on each matrix too (with the name rank Simpler TAN passes).

Every (checkout, task) once per round, every other round in reverse order, best
of ``--repeats``, one thread, wall clock and CPU time (``checkouts.py``).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from checkouts import THIS_TREE, interleaved, load_line, serve, summary

WIDE, ROWS = 1024, 10_000
MATRICES = ("dense", "banded", "tree")
FORMS = {
    "int8": "int8 DataFrame, Series labels",
    "object": "object strings (dtype object)",
    "category": "pandas category",
}


def contact_matrix(kind, truth):
    rng = np.random.default_rng(7)
    m = len(truth)
    if kind == "tree":
        return np.asarray(truth, dtype=float)
    weights = rng.random((m, m))
    if kind == "banded":
        distance = np.abs(np.subtract.outer(np.arange(m), np.arange(m)))
        weights = np.where(distance <= 8, weights, 0.0)
    weights = np.triu(weights, 1)
    return weights + weights.T


def worker(wide):
    """Tasks ``TAN|form``, ``SimplerTAN|form|matrix`` and ``tree|matrix``."""
    from run import stan_form_data, synthetic

    from bnclassify import TAN, SimplerTAN
    from bnclassify.structure import name_order, tree_from_weights

    X, y, truth = synthetic(ROWS, wide)
    matrices = {kind: contact_matrix(kind, truth) for kind in MATRICES}
    tables = {}
    names = [f"x{k}" for k in range(wide)]
    rank = np.empty(wide, dtype=np.int64)
    rank[name_order(names)] = np.arange(wide)

    def run(task):
        what, *rest = task.split("|")
        if what == "tree":
            return tree_from_weights(matrices[rest[0]], names, rank)
        form = rest[0]
        if form not in tables:
            tables[form] = stan_form_data(X, y, FORMS[form])
        if what == "TAN":
            return TAN().fit(*tables[form])
        return SimplerTAN(matrices[rest[1]]).fit(*tables[form])

    serve(run)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--before", metavar="PATH", help="also time the checkout at PATH")
    parser.add_argument("--forms", default=",".join(FORMS), help="comma-separated forms")
    parser.add_argument("--wide", type=int, default=WIDE, help=argparse.SUPPRESS)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.wide)
    from run import environment

    for key, value in environment().items():
        print(f"{key}: {value}")
    trees = {"after": THIS_TREE} if not args.before else {"before": args.before, "after": THIS_TREE}
    forms = args.forms.split(",")
    tasks = [f"tree|{kind}" for kind in MATRICES]
    for form in forms:
        tasks += [f"TAN|{form}"] + [f"SimplerTAN|{form}|{kind}" for kind in MATRICES]
    print(
        f"\n{ROWS} x {args.wide}, one thread, best of {args.repeats} rounds (CPU seconds; wall in "
        "brackets), every task on every checkout each round"
    )
    times = interleaved(__file__, trees, tasks, args.repeats, ["--wide", args.wide])
    best = {key: summary(samples) for key, samples in times.items()}

    def cell(name, task):
        r = best[(name, task)]
        return f"{r['cpu_best']:.4f} ({r['wall_best']:.4f})"

    print("\nspanning tree alone (tree_from_weights with the name rank), seconds")
    for kind in MATRICES:
        line = "  ".join(f"{name} {cell(name, f'tree|{kind}')}" for name in trees)
        if "before" in trees:
            ratio = best[("before", f"tree|{kind}")]["cpu_best"]
            ratio /= best[("after", f"tree|{kind}")]["cpu_best"]
            line += f"  before / after {ratio:.1f}x"
        print(f"  {kind:<8} {line}")
    print("\nfits: TAN, Simpler TAN per matrix, TAN / Simpler TAN (CPU)")
    for form in forms:
        for name in trees:
            tan = best[(name, f"TAN|{form}")]["cpu_best"]
            parts = [f"TAN {cell(name, f'TAN|{form}')}"]
            for kind in MATRICES:
                stan = best[(name, f"SimplerTAN|{form}|{kind}")]["cpu_best"]
                parts.append(f"{kind} {cell(name, f'SimplerTAN|{form}|{kind}')} {tan / stan:.1f}x")
            print(f"  {form:<9} {name:<7} " + "  ".join(parts))
    print(f"\nload average at the end: {load_line()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
