"""What the exact dask bins cost: TAN on 10^6 rows (two float columns binned by default, two
text columns, string labels), fitted in memory and on a dask LocalCluster of 2 processes (8
partitions, persisted), and on dask with the floats named Gaussian, interleaved in the same
run; the value counts one binned column keeps. The model of the dask fit must equal fit's.

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/dask_bins.py [--rows 1000000] [--repeats 2]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd


def _table(n, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(["no", "yes"], n)
    s = (y == "yes").astype(float)
    X = pd.DataFrame(
        {
            "a": rng.choice(["r", "g", "b"], n),
            "b": rng.choice(["u", "v"], n),
            "size": rng.normal(2 * s, 1.0, n),
            "weight": rng.gamma(2 + s, 1.0, n),
        }
    )
    return X, y


def main():
    import dask.dataframe as dd
    import distributed
    from threadpoolctl import threadpool_limits

    from bnclassify import TAN
    from bnclassify.data import ValueClassCounts

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**6)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    X, y = _table(args.rows)
    counts = ValueClassCounts.from_rows(X["size"].to_numpy(), y)
    print(f"value counts of 'size': {counts.n_values:,} values, {counts.nbytes / 1e6:.1f} MB")
    gaussian = {"size": "gaussian", "weight": "gaussian"}
    with (
        threadpool_limits(1),
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster),
    ):
        parts = dd.from_pandas(X.assign(label=y), npartitions=8, sort=False).persist()
        dX, dy = parts.drop(columns="label"), parts["label"]
        for rep in range(args.repeats):
            start = time.perf_counter()
            local = TAN().fit(X, y)
            t_fit = time.perf_counter() - start
            start = time.perf_counter()
            remote = TAN().fit(dX, dy)
            t_dask = time.perf_counter() - start
            start = time.perf_counter()
            TAN(distributions=gaussian).fit(dX, dy)
            t_gauss = time.perf_counter() - start
            head = X.head(10_000)
            gap = np.abs(local.predict_proba(head) - remote.predict_proba(head)).max()
            pairs = zip(local.schema_.cut_points, remote.schema_.cut_points, strict=True)
            cuts = all(np.array_equal(a, b) for a, b in list(pairs)[2:])
            print(
                f"repeat {rep}: fit {t_fit:.2f} s, dask binned {t_dask:.2f} s "
                f"({t_dask / t_fit:.2f}x), dask Gaussian {t_gauss:.2f} s, "
                f"max |proba gap| {gap:.1e}, cut points equal: {cuts}"
            )


if __name__ == "__main__":
    main()
