"""Slow, obviously-correct references used by the tests (loops over rows on purpose)."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pandas as pd


def slow_cmi(X: pd.DataFrame, y) -> pd.DataFrame:
    """I(Xi;Xj|C) in nats by counting row by row; each pair uses rows observing both."""
    names = list(X.columns)
    y = list(y)
    out = pd.DataFrame(0.0, index=names, columns=names)
    for a, b in itertools.combinations(names, 2):
        rows = [
            (xa, xb, c)
            for xa, xb, c in zip(X[a], X[b], y, strict=True)
            if not pd.isna(xa) and not pd.isna(xb)
        ]
        n = len(rows)
        n_abc = Counter(rows)
        n_ac = Counter((xa, c) for xa, _, c in rows)
        n_bc = Counter((xb, c) for _, xb, c in rows)
        n_c = Counter(c for _, _, c in rows)
        total = 0.0
        for (xa, xb, c), count in n_abc.items():
            total += count / n * math.log(count * n_c[c] / (n_ac[(xa, c)] * n_bc[(xb, c)]))
        out.loc[a, b] = out.loc[b, a] = total
    return out


def cpd_as_dict(cpd) -> dict:
    """A pgmpy TabularCPD as {frozenset((variable, state), ...): probability}."""
    variables = cpd.variables  # child first, then evidence
    states = [cpd.state_names[v] for v in variables]
    values = cpd.get_values()  # (child card, product of evidence cards)
    out = {}
    for k, child_state in enumerate(states[0]):
        for col, evidence in enumerate(itertools.product(*states[1:])):
            key = frozenset(zip(variables, (child_state, *evidence), strict=True))
            out[key] = values[k, col]
    return out


def slow_network_log_joint(
    parents, X, y, row, alpha=1.0, prior_strength=10.0, smoothing=1e-9, floor_scale="largest"
):
    """log P(c, x) of one complete ``row`` for every class, every parameter fitted afresh.

    ``parents`` maps each feature to its feature parents (the class is a parent of every
    feature). A categorical (non-float) feature is a table of smoothed frequencies counted
    row by row. A float feature is Gaussian given the class and the states of its
    categorical parents, linear in its float parents: the least-squares fit of the group's
    rows plus ``prior_strength`` pseudo-rows carrying the moments of the class's rows (the
    class's own fit alone when there is no categorical parent), its variance the mean squared
    residual plus ``smoothing`` times the largest float-column variance (``floor_scale=
    "column"``: the column's own variance, its value squared for a constant column, 1 for
    zeros).
    """
    names = list(X.columns)
    records = [dict(zip(names, values, strict=True)) for values in X.itertuples(index=False)]
    labels = list(y)
    classes = sorted(set(labels))
    numeric = {f for f in names if X[f].dtype.kind == "f"}
    if floor_scale == "column":
        floors = {
            f: smoothing * (float(np.var(X[f])) or float(np.mean(X[f])) ** 2 or 1.0)
            for f in numeric
        }
    else:
        largest = max((float(np.var(X[f])) for f in numeric), default=1.0)
        floors = dict.fromkeys(numeric, smoothing * largest)
    out = {}
    for c in classes:
        in_class = [r for r, label in zip(records, labels, strict=True) if label == c]
        total = math.log((len(in_class) + alpha) / (len(labels) + alpha * len(classes)))
        for f in names:
            states = [p for p in parents[f] if p not in numeric]
            slopes = [p for p in parents[f] if p in numeric]
            group = [r for r in in_class if all(r[p] == row[p] for p in states)]
            if f not in numeric:
                assert not slopes, f"categorical {f!r} with a float parent"
                r_f = len({r[f] for r in records})
                hits = sum(r[f] == row[f] for r in group)
                total += math.log((hits + alpha) / (len(group) + alpha * r_f))
                continue

            def moments(rows, f=f, slopes=slopes):
                z = np.array([[1.0, *(r[p] for p in slopes), r[f]] for r in rows])
                return z.T @ z  # sums of products of (1, parents, child)

            pooled = moments(group)
            if states:  # the class's rows, scaled to prior_strength pseudo-rows
                pooled = pooled + prior_strength * moments(in_class) / len(in_class)
            count = pooled[0, 0]
            beta = np.linalg.solve(pooled[:-1, :-1], pooled[:-1, -1])
            variance = (pooled[-1, -1] - beta @ pooled[:-1, -1]) / count + floors[f]
            mean = beta @ np.array([1.0, *(row[p] for p in slopes)])
            total += -0.5 * (math.log(2 * math.pi * variance) + (row[f] - mean) ** 2 / variance)
        out[c] = total
    return out
