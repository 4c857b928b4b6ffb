"""Slow, obviously-correct references used by the tests (loops over rows on purpose)."""

from __future__ import annotations

import itertools
import math
from collections import Counter

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
