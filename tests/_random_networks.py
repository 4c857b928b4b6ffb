"""Random networks of tables with rows to predict, for the tests that compare a network's
sums with a brute-force enumeration of every completion of a row's missing cells."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import strategies as st

from bnclassify.network import FittedNetwork


def networks_and_rows(max_features=7, max_rows=6):
    """A random DAG over up to ``max_features`` categorical features (up to 3 parents each),
    random tables with some zeros, and up to ``max_rows`` rows with random missing cells."""

    @st.composite
    def strategy(draw):
        m = draw(st.integers(1, max_features))
        cards = draw(st.lists(st.integers(2, 4), min_size=m, max_size=m))
        n_classes = draw(st.integers(2, 3))
        parents = []
        for i in range(m):
            earlier = list(range(i))
            chosen = draw(st.lists(st.sampled_from(earlier), max_size=3, unique=True)) if i else []
            parents.append(tuple(chosen))
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        tables = []
        for i in range(m):
            shape = (n_classes, *(cards[p] for p in parents[i]), cards[i])
            table = rng.dirichlet(np.full(cards[i], 0.7), size=shape[:-1])
            table[rng.random(table.shape) < 0.05] = 0.0  # some impossible cells
            table[..., 0] += 1e-3  # every row keeps a possible state
            with np.errstate(divide="ignore"):
                tables.append(np.log(table / table.sum(axis=-1, keepdims=True)))
        prior = np.log(rng.dirichlet(np.ones(n_classes)))
        n = draw(st.integers(1, max_rows))
        codes = np.column_stack([rng.integers(0, c, n) for c in cards])
        codes[rng.random(codes.shape) < draw(st.sampled_from([0.2, 0.5, 0.9]))] = -1
        return FittedNetwork.from_log_tables(prior, parents, tables), codes

    return strategy()


def completions(row, cards) -> np.ndarray:
    """Every completion of ``row``'s missing cells (-1), one per row of the result."""
    missing = np.flatnonzero(row == -1)
    if not len(missing):
        return row[None, :].copy()
    out = []
    for states in itertools.product(*(range(cards[v]) for v in missing)):
        filled = row.copy()
        filled[missing] = states
        out.append(filled)
    return np.array(out)


def dependent_table(seed, n_variables=4, rows=300, noise=0.2, noise_step=0.1):
    """``(codes, cards)``: ``rows`` rows of ``n_variables`` dependent variables (the first of
    2 states, the others of 3), each a copy of an earlier one but for a fraction
    ``noise + noise_step * j`` of uniform noise: a table on which structure searches have
    arcs to find."""
    rng = np.random.default_rng(seed)
    codes = np.zeros((rows, n_variables), dtype=np.int64)
    codes[:, 0] = rng.integers(0, 2, rows)
    for j in range(1, n_variables):
        noisy = rng.random(rows) < noise + noise_step * j
        codes[:, j] = np.where(noisy, rng.integers(0, 3, rows), codes[:, rng.integers(0, j)])
    return codes, np.array([2] + [3] * (n_variables - 1))
