"""Label forms against int64 labels in one process: one table, every label form in each round.

``benchmarks/run.py --labels`` times each tree in a worker process that keeps every table
it has made; this script is the in-process cross-check of a row's "after / int64 y" ratio.

    python benchmarks/label_forms.py "string[pyarrow]" TAN
    python benchmarks/label_forms.py object NB --repeats 9
"""

import argparse
import time

import numpy as np
from run import form_data, label_form

from bnclassify import TAN, NaiveBayes

LABELS = ("int64", "object", "string[pyarrow]", "category")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", help="a table form of run.py (int8, category, object, ...)")
    parser.add_argument("task", choices=("TAN", "NB"), help="TAN fit or NB fit + predict_proba")
    parser.add_argument("--rows", type=int, default=10**6)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    X, y = form_data(args.rows, 20, args.table)
    targets = {form: label_form(y, form) for form in LABELS}

    def work(labels):
        if args.task == "TAN":
            return TAN().fit(X, labels)
        return NaiveBayes().fit(X, labels).predict_proba(X)

    for labels in targets.values():  # a first fit of each: caches warm
        work(labels)
    times = {form: [] for form in LABELS}
    for round_ in range(args.repeats):  # every label form in each round, order alternating
        for form in LABELS if round_ % 2 == 0 else LABELS[::-1]:
            start = time.perf_counter()
            work(targets[form])
            times[form].append(time.perf_counter() - start)
    base = min(times["int64"])
    print(f"{args.task} on {args.rows} x 20 {args.table}, best of {args.repeats}")
    for form, seconds in times.items():
        best = min(seconds)
        print(f"  y {form:<16} {best:.3f} s (median {np.median(seconds):.3f})  {best / base:.2f}")


if __name__ == "__main__":
    main()
