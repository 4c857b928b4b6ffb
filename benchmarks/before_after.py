"""Time the same fits on two versions of bnclassify: a git revision (before) and this tree.

    python benchmarks/before_after.py --base e83172c [--rows 100000] [--repeat 5]

Each version runs in its own subprocess (its ``bnclassify`` first on ``sys.path``),
on the same generated tables: categorical (20 columns, 4 states, binary class, int8
codes) and mixed (10 Gaussian + 10 categorical columns, NaN in 5% of the cells).
Prints the best-of-``repeat`` seconds per workload and the ratio after / before.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WORKER = r"""
import json, sys, time
import numpy as np, pandas as pd
from bnclassify import NaiveBayes, TAN, KDB, AODE

rows, repeat = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(0)
y = rng.integers(0, 2, rows)
cat = pd.DataFrame((rng.integers(0, 4, (rows, 20)) + y[:, None]) % 4, dtype=np.int8)
cat.columns = [f"c{j}" for j in range(20)]
holey_cat = cat.astype(float).mask(rng.random(cat.shape) < 0.05)
mixed = cat.iloc[:, :10].astype(str)
for j in range(10):
    mixed[f"g{j}"] = rng.normal(size=rows) + y * (0.2 + 0.05 * j) + 0.3 * cat.iloc[:, j]
holey_mixed = mixed.mask(rng.random(mixed.shape) < 0.05)

def best(work):
    times = []
    for _ in range(repeat):
        start = time.perf_counter(); work(); times.append(time.perf_counter() - start)
    return min(times)

results = {}
tan = TAN().fit(cat, y)
results["TAN fit, categorical"] = best(lambda: TAN().fit(cat, y))
results["TAN predict_proba, categorical"] = best(lambda: tan.predict_proba(cat))
results["TAN predict_proba, categorical, 5% missing"] = best(
    lambda: TAN(distributions="categorical").fit(holey_cat, y).predict_proba(holey_cat))
results["NB fit + predict, categorical"] = best(
    lambda: NaiveBayes().fit(cat, y).predict_proba(cat))
results["KDB(k=2) fit + predict, categorical"] = best(
    lambda: KDB(k=2).fit(cat, y).predict_proba(cat))
results["AODE fit + predict, categorical"] = best(lambda: AODE().fit(cat, y).predict_proba(cat))
results["TAN fit + predict, mixed"] = best(lambda: TAN().fit(mixed, y).predict_proba(mixed))
results["TAN fit + predict, mixed, 5% missing"] = best(
    lambda: TAN().fit(holey_mixed, y).predict_proba(holey_mixed))
results["NB fit + predict, mixed, 5% missing"] = best(
    lambda: NaiveBayes().fit(holey_mixed, y).predict_proba(holey_mixed))
print(json.dumps(results))
"""


def run(tree: Path, rows: int, repeat: int) -> dict:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import sys; sys.path.insert(0, {str(tree)!r})\n" + WORKER,
            str(rows),
            str(repeat),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="git revision to compare against")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(base), args.base],
            check=True,
        )
        try:
            before = run(base, args.rows, args.repeat)
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=True
            )
    after = run(ROOT, args.rows, args.repeat)
    print(f"{'workload':48} {'before s':>9} {'after s':>9} {'after/before':>13}")
    for name, seconds in after.items():
        old = before.get(name)
        ratio = f"{seconds / old:13.2f}" if old else f"{'-':>13}"
        print(f"{name:48} {old if old else float('nan'):9.3f} {seconds:9.3f} {ratio}")


if __name__ == "__main__":
    main()
