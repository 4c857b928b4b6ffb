"""The compiled DAG search (``bnclassify._native.search``) against its Python twin in
``bnclassify.dag_search``: the same graphs, the same moves, the scores to rounding."""

from __future__ import annotations

import numpy as np
import pytest
from _random_networks import dependent_table
from hypothesis import given, settings
from hypothesis import strategies as st

from bnclassify import _native
from bnclassify.dag_search import hill_climbing, iterated_search, tabu_search
from bnclassify.datasets import load_car, load_lactamase, load_p450, load_vote
from bnclassify.scores import SCORES, FamilyScores
from bnclassify.stats import VariableCounts, training_statistics

needs_extension = pytest.mark.skipif(
    _native.runtime.kernels is None, reason="the compiled extension is not built (no C compiler)"
)


def both(search, counts, score, prior_weight, *args, **options):
    """``search`` with the compiled kernel, then with the Python twin (fresh caches)."""
    switch = _native.runtime.COMPILED
    try:
        out = []
        for compiled in (True, False):
            _native.runtime.COMPILED = compiled
            scores = FamilyScores(counts, score, prior_weight)
            out.append((*search(scores, *args, **options), scores))
        return out
    finally:
        _native.runtime.COMPILED = switch


def assert_same(compiled, twin):
    (parents, path, scores), (parents_twin, path_twin, _) = compiled, twin
    assert parents == parents_twin
    assert [move[:3] for move in path] == [move[:3] for move in path_twin]
    for move, other in zip(path, path_twin, strict=True):
        assert move[3] == pytest.approx(other[3], rel=1e-9, abs=1e-9)
    # the compiled search's graph is what it says: acyclic, scored as the twin scores it
    network = scores.network(dict(enumerate(parents)))
    assert np.isfinite(network)


@needs_extension
@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n_variables=st.integers(2, 7),
    score=st.sampled_from(SCORES),
    missing=st.sampled_from([0.0, 0.05, 0.3]),
    weighted=st.sampled_from(["unit", "integer", "real"]),
    max_parents=st.sampled_from([None, 1, 2]),
    constrained=st.booleans(),
    walk=st.sampled_from(["tabu", "hill_climbing"]),
    tabu_length=st.integers(0, 6),
    reversal=st.booleans(),
    restarts=st.integers(0, 4),
    perturbation=st.integers(0, 3),
    max_iter=st.sampled_from([None, 3]),
)
def test_the_compiled_search_takes_the_twins_moves(
    seed,
    n_variables,
    score,
    missing,
    weighted,
    max_parents,
    constrained,
    walk,
    tabu_length,
    reversal,
    restarts,
    perturbation,
    max_iter,
):
    rng = np.random.default_rng(seed)
    codes, cards = dependent_table(seed, n_variables, rows=int(rng.integers(5, 300)))
    codes[rng.random(codes.shape) < missing] = -1
    weights = {
        "unit": None,
        "integer": rng.integers(1, 4, len(codes)).astype(float),
        "real": rng.random(len(codes)) + 0.1,
    }[weighted]
    counts = VariableCounts.merged(codes, weights, cards)
    options = {
        "max_parents": max_parents,
        "tabu_length": tabu_length,
        "reversal": reversal,
        "max_iter": max_iter,
        "restarts": restarts,
        "perturbation": perturbation,
        "walk": walk,
        "random_state": seed,
    }
    if constrained:
        order = rng.permutation(n_variables)
        options["required"] = [(int(order[0]), int(order[1]))]
        options["forbidden"] = [(int(order[1]), int(order[0]))] + (
            [(int(order[-1]), int(order[0]))] if n_variables > 2 else []
        )
        start = [set() for _ in range(n_variables)]
        if n_variables > 2:
            start[int(order[2])].add(int(order[0]))
        options["start"] = start
    prior = float(rng.choice([1.0, 10.0, 0.5]))
    compiled, twin = both(iterated_search, counts, score, prior, n_variables, **options)
    assert_same(compiled, twin)
    arcs = {(u, v) for v, ps in enumerate(compiled[0]) for u in ps}
    assert set(options.get("required", [])) <= arcs
    assert not arcs & set(options.get("forbidden", []))
    if max_parents is not None:
        assert max(map(len, compiled[0])) <= max(max_parents, 1)


def _table(load):
    X, y = load(return_X_y=True)
    _, classes, stats = training_statistics(X, y, warn=False)
    codes = np.column_stack([stats.codes, stats.y]).astype(np.int64)
    cards = np.append(stats.cards, len(classes)).astype(np.int64)
    return VariableCounts.merged(codes, None, cards)


@needs_extension
@pytest.mark.parametrize("load", [load_p450, load_vote, load_lactamase])
@pytest.mark.parametrize("score", ["bic", "bdeu"])
def test_the_compiled_search_takes_the_twins_moves_on_bundled_tables(load, score):
    counts = _table(load)
    n = counts.n_variables
    compiled, twin = both(iterated_search, counts, score, 10.0, n, restarts=4)
    assert_same(compiled, twin)
    for climb in (hill_climbing, tabu_search):
        compiled, twin = both(climb, counts, score, 10.0, n, ties="first")
        assert_same(compiled, twin)


@needs_extension
@pytest.mark.parametrize("rows", ["distinct", "repeated", "real"])
@pytest.mark.parametrize("missing", [0.0, 0.1])
@pytest.mark.parametrize("score", ["bic", "bdeu", "k2"])
def test_the_kept_tables_give_the_twins_moves(rows, missing, score):
    """Tables with many rows next to their families' cells: with integer weights the kernel
    counts the families on shuffled rows, reads a family met again from the tables it kept
    (or from one of a variable more, summed over it) and, every weight 1, adds ones; the
    moves and scores are the twin's all the same (real weights count as before)."""
    rng = np.random.default_rng(7)
    codes, cards = dependent_table(7, 7, rows=6000, noise=0.4)
    codes[rng.random(codes.shape) < missing] = -1
    weights = None
    if rows == "distinct":  # each row once: every weight 1
        codes = np.unique(codes, axis=0)
    elif rows == "real":
        weights = rng.random(len(codes)) + 0.5
    counts = VariableCounts.merged(codes, weights, cards)
    assert np.all(counts.weights == 1) == (rows == "distinct")
    n = counts.n_variables
    compiled, twin = both(iterated_search, counts, score, 10.0, n, restarts=10, random_state=3)
    assert_same(compiled, twin)
    assert len(compiled[1]) > n  # arcs found, then restarts' moves


@needs_extension
def test_ties_go_to_the_first_move_within_the_tolerance():
    """Under BIC adding 0 -> 1 and 1 -> 0 gain the same in exact arithmetic; both versions
    take the one listed first (parent 0), whatever the last bits of the two sums."""
    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, 997)
    b = (a + (rng.random(997) < 0.3)) % 3
    counts = VariableCounts.merged(np.column_stack([a, b]), None, [3, 3])
    for compiled, twin in [both(hill_climbing, counts, "bic", 1.0, 2, ties="first")]:
        assert compiled[0] == twin[0] == [(), (0,)]
    with pytest.raises(ValueError, match="ties"):
        hill_climbing(FamilyScores(counts), 2, ties="random")


def test_a_variable_beyond_16_bit_codes_runs_the_twin():
    codes = np.array([[0, 1], [1, 39_999], [1, 2]])
    found = _native.dag_search(
        codes, np.ones(3), [2, 40_000], *[np.zeros((2, 2), bool)] * 3, np.zeros((0, 0)),
        score="bic", prior_weight=1.0, n_rows=3.0, max_cells=1 << 25,
        relative_tolerance=1e-10, max_parents=None, walk="tabu", tabu_length=0, reversal=True,
        max_iter=None, restarts=0, perturbation=0,
    )  # fmt: skip
    assert found is None
    counts = VariableCounts(codes, np.ones(3), [2, 40_000])
    assert iterated_search(FamilyScores(counts, "bic"), 2, restarts=1)[0] == [(), ()]


def test_the_numpy_twin_runs_without_the_extension(monkeypatch):
    monkeypatch.setattr(_native.runtime, "COMPILED", False)
    counts = _table(load_p450)
    scores = FamilyScores(counts, "bic")
    assert _native.dag_search(
        counts.codes, counts.weights, counts.cards, *[np.zeros((1, 1), bool)] * 3,
        np.zeros((0, 0)), score="bic", prior_weight=1.0, n_rows=1.0, max_cells=1,
        relative_tolerance=1e-10, max_parents=None, walk="tabu", tabu_length=0, reversal=True,
        max_iter=None, restarts=0, perturbation=0,
    ) is None  # fmt: skip
    found, path = iterated_search(scores, counts.n_variables, restarts=2)
    assert path and all(move in ("add", "remove", "reverse") for move, *_ in path)
    assert len(scores.gain_cache) > 0  # the Python search filled the scorer's cache


@needs_extension
@pytest.mark.parametrize("class_variable", [None, 0, 6])
def test_a_family_without_the_class_counts_once_per_class_in_both(monkeypatch, class_variable):
    """The fitted network keeps a family without the class once per class, so both searches
    count its cells so against MAX_FAMILY_CELLS (here made small enough to bind on car)."""
    from bnclassify import dag_search

    monkeypatch.setattr(dag_search, "MAX_FAMILY_CELLS", 48)
    counts = _table(load_car)
    switch = _native.runtime.COMPILED
    found = []
    try:
        for compiled in (True, False):
            _native.runtime.COMPILED = compiled
            scores = FamilyScores(counts, "bic", 1.0, class_variable)
            found.append((*iterated_search(scores, 7, restarts=3), scores))
    finally:
        _native.runtime.COMPILED = switch
    assert_same(*found)
    parents, cards = found[0][0], counts.cards
    for v, ps in enumerate(parents):
        family = {v, *ps}
        copies = 1 if class_variable is None or class_variable in family else cards[class_variable]
        assert np.prod([cards[u] for u in family]) * copies <= 48
