"""HDP and additive smoothing against the truth, on tables drawn from a hierarchy.

Usage::

    python benchmarks/hdp_synthetic.py                 # n = 50, 200, 1000, 5000; 5 tables each
    python benchmarks/hdp_synthetic.py --n 100 --reps 20

A table ``P(x | c, x_1, x_2)`` (3 classes, two parents of 5 states, 4 values) is
drawn from the model HDP assumes: a root ``P(x) ~ Dirichlet(1)``, then each
level a Dirichlet around its parent, with concentrations ``--concentrations``
(class, first parent, second parent). ``n`` rows are drawn (parent
configurations uniform) and the table is estimated from their counts by
``HDP(n_iter)`` and by ``Laplace(1)``. Reported: the mean over parent
configurations of ``KL(truth || estimate)`` in nats, and the share of the
table's cells given less than a tenth of their true probability (where a test
row costs the log loss most), averaged over ``--reps`` tables.
"""

from __future__ import annotations

import argparse

import numpy as np

from bnclassify.parameters import HDP, Laplace

C, R1, R2, K = 3, 5, 5, 4


def draw_table(rng, concentrations):
    a1, a2, a3 = concentrations
    root = rng.dirichlet(np.ones(K))
    table = np.empty((C, R1, R2, K))
    for c in range(C):
        by_class = rng.dirichlet(a1 * root)
        for i in range(R1):
            by_first = rng.dirichlet(a2 * by_class + 1e-12)
            for j in range(R2):
                table[c, i, j] = rng.dirichlet(a3 * by_first + 1e-12)
    return table


def draw_counts(rng, table, n):
    rows = table.reshape(-1, K)
    configurations = rng.integers(0, len(rows), n)
    counts = np.zeros_like(rows)
    for cell in np.unique(configurations):
        counts[cell] = rng.multinomial((configurations == cell).sum(), rows[cell])
    return counts.reshape(table.shape)


def scores(truth, estimate):
    kl = np.sum(truth * (np.log(np.maximum(truth, 1e-300)) - np.log(estimate)), axis=-1)
    starved = (estimate < truth / 10) & (truth > 1e-3)
    return float(kl.mean()), float(starved.mean())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", default="50,200,1000,5000")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--n-iter", type=int, default=5000)
    parser.add_argument("--concentrations", default="5,5,20")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    concentrations = [float(a) for a in args.concentrations.split(",")]
    print("rows  KL hdp  KL laplace  starved cells hdp  starved cells laplace")
    for n in map(int, args.n.split(",")):
        hdp, laplace = [], []
        for _ in range(args.reps):
            truth = draw_table(rng, concentrations)
            counts = draw_counts(rng, truth, n)
            hdp.append(scores(truth, np.exp(HDP(n_iter=args.n_iter).log_conditional(counts, rng))))
            laplace.append(scores(truth, np.exp(Laplace(1.0).log_conditional(counts))))
        h, lp = np.mean(hdp, axis=0), np.mean(laplace, axis=0)
        print(f"{n:5d}  {h[0]:.4f}  {lp[0]:.4f}  {h[1]:.4f}  {lp[1]:.4f}")


if __name__ == "__main__":
    main()
