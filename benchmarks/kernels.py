"""Whole fits with the compiled kernels against their numpy versions, in one process.

    python benchmarks/kernels.py [--repeats 3] [--wide-only]

``_native.COMPILED`` is toggled between the two in round-robin rounds (every
other round in reverse order), best of ``--repeats``; the ratio numpy /
compiled is what the kernels earn on a whole fit. Tables from
``make_tree_classification`` as int8 and int64; TAN is left out where its pair
tables alone take minutes (10^5 x 1,000).
"""

from __future__ import annotations

import argparse
import gc
import time

import numpy as np

from bnclassify import TAN, NaiveBayes, SimplerTAN, _native
from bnclassify.datasets import make_tree_classification

CASES = [(10**5, 20), (10**5, 100), (10**5, 1000), (10**6, 20), (10**6, 100), (10**4, 1024)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--wide-only", action="store_true", help="10^4 x 1,024 only")
    args = parser.parse_args(argv)
    if not _native.COMPILED:
        raise SystemExit("the compiled extension is not built (python setup.py build_ext -i)")
    cases = CASES[-1:] if args.wide_only else CASES
    print("rows cols dtype model compiled_s numpy_s numpy/compiled", flush=True)
    for n, m in cases:
        for dtype in ("int8", "int64"):
            if n * m * np.dtype(dtype).itemsize > 9e8:
                continue
            X, y, truth = make_tree_classification(n, m, return_network=True, random_state=0)
            X, y = np.asarray(X, dtype=dtype), np.asarray(y)
            models = {"NB": lambda X=X, y=y: NaiveBayes().fit(X, y)}
            if m < 1000 or n * m <= 10**7:
                models["TAN"] = lambda X=X, y=y: TAN().fit(X, y)
            if m >= 1000:
                models["SimplerTAN"] = lambda X=X, y=y, a=truth.adjacency: SimplerTAN(a).fit(X, y)
            for name, fit in models.items():
                best = {True: np.inf, False: np.inf}
                fit()
                for r in range(args.repeats):
                    for compiled in (True, False) if r % 2 == 0 else (False, True):
                        _native.runtime.COMPILED = compiled
                        start = time.perf_counter()
                        model = fit()
                        best[compiled] = min(best[compiled], time.perf_counter() - start)
                        del model
                _native.runtime.COMPILED = True
                ratio = best[False] / best[True]
                print(f"{n} {m} {dtype} {name} {best[True]:.4f} {best[False]:.4f} {ratio:.2f}")
            del X
            gc.collect()


if __name__ == "__main__":
    main()
