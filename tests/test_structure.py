import networkx as nx
import numpy as np
import pandas as pd
import pytest
from _reference import python_kruskal_tree
from hypothesis import given, settings
from hypothesis import strategies as st

from bnclassify import SimplerTAN, _native
from bnclassify.datasets import make_tree_classification
from bnclassify.structure import (
    add_class_arcs,
    check_weight_matrix,
    constrained_tree,
    naive_bayes_structure,
    orient_tree,
    tan_structure,
    tree_from_weights,
    weight_graph,
)


def test_tree_equals_networkx_maximum_spanning_tree():
    rng = np.random.default_rng(0)
    w = rng.random((7, 7))
    w = w + w.T
    names = list("abcdefg")
    ours = tree_from_weights(pd.DataFrame(w, index=names, columns=names))
    reference = nx.maximum_spanning_tree(nx.from_numpy_array(w))
    assert {frozenset((names[i], names[j])) for i, j in reference.edges()} == {
        frozenset(e) for e in ours.edges()
    }


@pytest.mark.parametrize("seed", range(20))
def test_tree_equals_networkx_with_ties_and_zeros(seed):
    # small integer weights, many ties and zeros (like contact matrices): same edges as networkx
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 12))
    w = rng.integers(0, 3, (m, m)).astype(float)
    w = np.triu(w, 1) + np.triu(w, 1).T
    reference = nx.maximum_spanning_tree(weight_graph(w), algorithm="kruskal")
    assert {frozenset(e) for e in tree_from_weights(w).edges()} == {
        frozenset(e) for e in reference.edges()
    }


def test_ties_break_by_feature_order():
    # all weights equal: Kruskal with a stable sort keeps (a,b), (a,c), (a,d) — a star on a
    w = np.ones((4, 4))
    assert sorted(tree_from_weights(w, list("abcd")).edges()) == [
        ("a", "b"),
        ("a", "c"),
        ("a", "d"),
    ]


@settings(max_examples=60, deadline=None)
@given(
    m=st.integers(2, 40),
    levels=st.integers(1, 4),
    seed=st.integers(0, 2**31),
    kinds=st.sampled_from(["discrete", "mixed"]),
    forest=st.booleans(),
)
def test_a_rank_breaks_ties_as_reordering_the_matrix_would(m, levels, seed, kinds, forest):
    # few weight levels: many ties; m > 16 also takes the heaviest-first path of Kruskal
    rng = np.random.default_rng(seed)
    w = rng.integers(-1, levels, (m, m)).astype(float)
    w = np.triu(w, 1) + np.triu(w, 1).T
    names = [f"f{k}" for k in range(m)]
    discrete = [True] * m if kinds == "discrete" else rng.random(m) < 0.5
    structural = [True] * m
    order = rng.permutation(m)
    rank = np.empty(m, dtype=int)
    rank[order] = np.arange(m)
    ranked = constrained_tree(w, names, discrete, structural, forest=forest, rank=rank)
    reordered = constrained_tree(
        w[np.ix_(order, order)],
        [names[k] for k in order],
        [discrete[k] for k in order],
        structural,
        forest=forest,
    )
    assert list(ranked.nodes) == names
    assert {frozenset(e) for e in ranked.edges} == {frozenset(e) for e in reordered.edges}


def test_a_rank_that_is_not_a_permutation_is_refused():
    with pytest.raises(ValueError, match="rank must be a permutation"):
        tree_from_weights(np.ones((3, 3)), rank=[0, 0, 1])


def test_zero_weights_still_give_a_spanning_tree():
    w = np.zeros((5, 5))
    w[0, 1] = w[1, 0] = 2.0
    tree = tree_from_weights(w)
    assert nx.is_tree(tree) and tree.number_of_nodes() == 5


def test_orientation_points_away_from_root_and_handles_forests():
    tree = nx.Graph([("a", "b"), ("b", "c"), ("d", "e")])
    dag = orient_tree(tree, root="c", order=list("abcde"))
    assert set(dag.edges()) == {("c", "b"), ("b", "a"), ("d", "e")}
    assert list(dag.nodes) == list("abcde")
    assert all(dag.in_degree(v) <= 1 for v in dag)
    with pytest.raises(ValueError, match="root 'z'"):
        orient_tree(tree, root="z")
    with pytest.raises(ValueError, match="cycle"):
        orient_tree(nx.cycle_graph(3))


def test_class_arcs_and_naive_bayes():
    nb = naive_bayes_structure(["a", "b"], "y")
    assert set(nb.edges()) == {("y", "a"), ("y", "b")} and list(nb.nodes)[0] == "y"
    with pytest.raises(ValueError, match="also a feature"):
        add_class_arcs(nx.DiGraph([("y", "a")]), "y")


def test_tan_structure_is_a_dag_where_every_feature_has_the_class_and_at_most_one_feature_parent():
    rng = np.random.default_rng(3)
    w = rng.random((6, 6))
    dag = tan_structure(w + w.T, root=2, class_node="C", features=range(6))
    assert nx.is_directed_acyclic_graph(dag)
    for v in range(6):
        parents = list(dag.predecessors(v))
        assert "C" in parents and len(parents) <= 2
    assert dag.in_degree(2) == 1


def test_weight_graph_inserts_edges_in_feature_order():
    graph = weight_graph(np.arange(9).reshape(3, 3) * 1.0, ["a", "b", "c"])
    assert list(graph.edges()) == [("a", "b"), ("a", "c"), ("b", "c")]


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        (np.ones((2, 3)), "square"),
        (np.ones((2, 2)), "2 x 2 but the data has 3"),
        (np.array([[0, 1, 2], [1, 0, 1], [3, 1, 0]]), "symmetric.*'a', 'c'"),
        (np.array([[0, -1, 0], [-1, 0, 0], [0, 0, 0]]), "non-negative.*'a', 'b'"),
        (np.array([[0, np.nan, 0], [np.nan, 0, 0], [0, 0, 0]]), "non-finite.*'a', 'b'"),
        (pd.DataFrame(np.zeros((3, 3)), index=list("abz"), columns=list("abz")), "unexpected"),
        (np.array([["x"] * 3] * 3), "numeric"),
    ],
)
def test_weight_matrix_errors(matrix, message):
    with pytest.raises((ValueError, TypeError), match=message):
        check_weight_matrix(matrix, ["a", "b", "c"])


def test_labelled_weight_matrix_is_reordered_to_the_columns():
    frame = pd.DataFrame([[0, 1, 2], [1, 0, 3], [2, 3, 0]], index=list("cab"), columns=list("cab"))
    out = check_weight_matrix(frame, ["a", "b", "c"])
    assert out.loc["a", "b"] == 3 and out.loc["c", "a"] == 1
    assert list(out.index) == ["a", "b", "c"]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(10, 70),
    st.sampled_from(["ties", "continuous", "sparse"]),
    st.integers(0, 2**32 - 1),
)
def test_tree_equals_networkx_on_wider_matrices(m, kind, seed):
    # wide enough for the heaviest-pairs-first path (m > 9), with a diagonal that is ignored
    rng = np.random.default_rng(seed)
    if kind == "ties":
        w = rng.integers(0, 3, (m, m)).astype(float)
    elif kind == "continuous":
        w = rng.random((m, m))
    else:  # a contact-like matrix: a few ones among zeros
        w = (rng.random((m, m)) < 3 / m).astype(float)
    w = np.triu(w, 1) + np.triu(w, 1).T + np.diag(rng.random(m) * 5)
    reference = nx.maximum_spanning_tree(weight_graph(w * (1 - np.eye(m))), algorithm="kruskal")
    assert {frozenset(e) for e in tree_from_weights(w).edges()} == {
        frozenset(e) for e in reference.edges()
    }


def _same_tree(ours, reference):
    """Equal node lists and equal edge lists, weights and order included (NaN equals NaN)."""
    assert list(ours.nodes) == list(reference.nodes)
    edges, expected = list(ours.edges(data="weight")), list(reference.edges(data="weight"))
    assert [e[:2] for e in edges] == [e[:2] for e in expected]
    np.testing.assert_array_equal([e[2] for e in edges], [e[2] for e in expected])


@st.composite
def weight_matrices(draw):
    """Symmetric matrices with many ties: a few levels (zeros, negatives), scaled values, blocks
    of zeros that leave the positive pairs disconnected, near-ties below the rounding."""
    m = draw(st.integers(1, 90))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["levels", "continuous", "sparse", "blocks", "near ties"]))
    if kind == "levels":
        w = rng.integers(draw(st.integers(-3, 0)), draw(st.integers(1, 4)), (m, m)).astype(float)
    elif kind == "continuous":
        w = rng.random((m, m)) - draw(st.sampled_from([0.0, 0.5]))
    elif kind == "sparse":  # a contact-like matrix: a few ones among zeros
        w = (rng.random((m, m)) < draw(st.floats(0, 4)) / max(m, 1)).astype(float)
    elif kind == "blocks":  # positive pairs only within blocks: the rest tie at zero
        blocks = rng.integers(0, draw(st.integers(1, 6)), m)
        w = rng.integers(1, 4, (m, m)) * (blocks[:, None] == blocks[None, :]).astype(float)
    else:  # equal up to the 12-digit rounding, or not
        w = rng.integers(1, 3, (m, m)) * rng.choice([1.0, 1 + 1e-14, 1 + 1e-9], (m, m))
    w = w * draw(st.sampled_from([1.0, 1e-300, 1e300, 3.7]))
    w = np.triu(w, 1) + np.triu(w, 1).T
    diagonal = draw(st.sampled_from(["zero", "random", "large", "nan"]))
    if diagonal != "zero":  # the diagonal is not an edge; it only scales the rounding
        values = {"random": rng.random(m), "large": np.full(m, 1e3), "nan": np.full(m, np.nan)}
        np.fill_diagonal(w, values[diagonal])
    return w


@settings(max_examples=150, deadline=None)
@given(w=weight_matrices(), ranked=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_tree_equals_the_python_kruskal_it_replaced(w, ranked, seed):
    # the compiled union-find over numpy-sorted blocks takes the same edges, in the same order,
    # with the same rounded weights as the Python Kruskal it replaced, ties and zeros included;
    # on the numpy twins as well. The reference's tie rounding read the diagonal too (a large
    # or NaN self-weight changed the tree): it is given the matrix without it
    rng = np.random.default_rng(seed)
    m = len(w)
    names = [f"f{k}" for k in rng.permutation(m)]
    rank = rng.permutation(m) if ranked else None
    pairs = w.copy()
    np.fill_diagonal(pairs, 0.0)
    reference = python_kruskal_tree(pairs, names, rank)
    for compiled in (True, False):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_native.runtime, "COMPILED", compiled and _native.COMPILED)
            _same_tree(tree_from_weights(w, names, rank), reference)


@pytest.mark.parametrize("diagonal", [1e15, np.inf, np.nan])
def test_the_diagonal_does_not_change_the_tree(diagonal):
    # it is not an edge: self-weights of 1e15 beside pair weights near 1 made every pair tie
    # in the 12-digit rounding (and an infinite one gave NaN weights with a numpy warning)
    w = np.random.default_rng(0).random((6, 6))
    w = np.triu(w, 1) + np.triu(w, 1).T
    selfish = w.copy()
    np.fill_diagonal(selfish, diagonal)
    for rank in (None, [5, 0, 4, 1, 3, 2]):
        _same_tree(tree_from_weights(selfish, rank=rank), tree_from_weights(w, rank=rank))
        _same_tree(tree_from_weights(w, rank=rank), python_kruskal_tree(w, rank=rank))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_a_weight_that_is_not_finite_is_refused_by_cell(bad):
    w = np.ones((40, 40))
    w[3, 17] = w[17, 3] = bad
    with pytest.raises(ValueError, match=r"weights\['f3', 'f17'\] is"):
        tree_from_weights(w, [f"f{k}" for k in range(40)])


def test_simpler_tan_on_a_dense_tied_contact_matrix_does_not_depend_on_column_order():
    # contact counts at few levels: most pairs tie, and ties break by column name
    X, y = make_tree_classification(300, 60, random_state=1)
    X = pd.DataFrame(X, columns=[f"b{k}" for k in range(60)])
    rng = np.random.default_rng(4)
    counts = rng.integers(0, 3, (60, 60))
    contacts = pd.DataFrame(np.triu(counts, 1) + np.triu(counts, 1).T, X.columns, X.columns)
    first = SimplerTAN(contacts).fit(X, y)
    reordered = list(rng.permutation(X.columns))
    second = SimplerTAN(contacts).fit(X[reordered], y)
    assert set(first.structure_.edges) == set(second.structure_.edges)
    np.testing.assert_allclose(first.predict_proba(X), second.predict_proba(X[reordered]))
