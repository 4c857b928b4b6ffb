import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bnclassify.stats import TrainingCounts, family_counts, one_hot, pairwise_counts


def _random_codes(seed, n=300, cards=(2, 3, 4), n_classes=3, missing=0.1):
    rng = np.random.default_rng(seed)
    codes = np.column_stack([rng.integers(0, r, n) for r in cards])
    codes[rng.random(codes.shape) < missing] = -1
    return codes, rng.integers(0, n_classes, n), np.array(cards), n_classes


def _slow_pair_table(codes, y, i, j, cards, n_classes):
    table = np.zeros((n_classes, cards[i], cards[j]))
    for row, c in zip(codes, y, strict=True):
        if row[i] >= 0 and row[j] >= 0:
            table[c, row[i], row[j]] += 1
    return table


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), chunk=st.integers(1, 400))
def test_pairwise_counts_equal_a_row_loop_for_any_chunk_size(seed, chunk):
    codes, y, cards, n_classes = _random_codes(seed)
    pc = pairwise_counts(codes, y, cards, n_classes, chunk_rows=chunk)
    for i in range(3):
        for j in range(3):
            expected = _slow_pair_table(codes, y, i, j, cards, n_classes)
            if i == j:
                np.testing.assert_array_equal(pc.feature_class(i), np.einsum("caa->ca", expected))
            else:
                np.testing.assert_array_equal(pc.block(i, j), expected)


def test_family_counts_equal_pairwise_blocks_and_are_cached():
    codes, y, cards, n_classes = _random_codes(5)
    direct = family_counts(codes, y, 2, [0], cards, n_classes)
    counts = TrainingCounts(codes, y, cards, n_classes)
    before = counts.family(2, (0,))
    np.testing.assert_array_equal(before, direct)
    counts.pairwise  # noqa: B018 - computing it switches family() to read blocks
    counts._families.clear()
    np.testing.assert_array_equal(counts.family(2, (0,)), direct)
    assert counts.family(2, (0,)) is counts.family(2, (0,))


def test_two_parent_family_counts():
    codes, y, cards, n_classes = _random_codes(7)
    table = family_counts(codes, y, 2, [0, 1], cards, n_classes)
    assert table.shape == (n_classes, 2, 3, 4)
    complete = (codes >= 0).all(axis=1)
    assert table.sum() == complete.sum()
    c, a, b, x = y[complete][0], *codes[complete][0]
    expected = np.sum((y == c) & (codes[:, 0] == a) & (codes[:, 1] == b) & (codes[:, 2] == x))
    assert table[c, a, b, x] == expected


@pytest.mark.parametrize("n_classes", [2, 5])
def test_class_counts_total(n_classes):
    codes, y, cards, _ = _random_codes(1, n_classes=n_classes)
    counts = TrainingCounts(codes, y, cards, n_classes)
    assert counts.classes.sum() == len(y)


def test_batched_single_parent_families_equal_one_at_a_time():
    codes, y, cards, n_classes = _random_codes(11, n=500, cards=(2, 3, 4, 2, 3))
    parents_of = [(), (0,), (1,), (1,), (2,)]
    batched = TrainingCounts(codes, y, cards, n_classes).families(parents_of)
    for i, parents in enumerate(parents_of):
        direct = family_counts(codes, y, i, list(parents), cards, n_classes)
        np.testing.assert_array_equal(batched[i], direct)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), m=st.integers(2, 7), missing=st.sampled_from([0.0, 0.1]))
def test_a_trees_single_counts_from_its_families_equal_the_counted_ones(seed, m, missing):
    # a spanning tree's arcs: each feature's parent is an earlier one
    rng = np.random.default_rng(seed)
    cards = tuple(int(r) for r in rng.integers(1, 5, m))
    codes, y, cards, n_classes = _random_codes(seed, cards=cards, missing=missing)
    arcs = [(int(rng.integers(0, child)), child) for child in range(1, m)]
    parents_of = [()] + [(parent,) for parent, _ in arcs]
    fitted = TrainingCounts(codes, y, cards, n_classes)
    fitted.families(parents_of)  # what a fit of this tree counts
    batch = fitted.arc_batch(arcs)
    for k, (parent, child) in enumerate(arcs):
        np.testing.assert_array_equal(batch.counts(k), fitted.family(child, (parent,)))
    singles = fitted.arc_single_counts(arcs, batch)
    expected = np.concatenate(TrainingCounts(codes, y, cards, n_classes).feature_class, axis=1)
    if missing:  # a child's count is its family's sum only when no parent cell is missing
        assert singles is None
    else:
        np.testing.assert_allclose(singles, expected, rtol=0, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    missing=st.sampled_from([0.0, 0.3]),
    dtype=st.sampled_from(["int8", "int64"]),
)
def test_one_hot_equals_a_cell_loop_with_and_without_missing_cells(seed, missing, dtype):
    codes, _, cards, _ = _random_codes(seed, n=50, missing=missing)
    codes = codes.astype(dtype)
    offsets = np.concatenate([[0], np.cumsum(cards)[:-1]])
    expected = np.zeros((len(codes), cards.sum()), dtype=np.float32)
    for r, row in enumerate(codes):
        for j, code in enumerate(row):
            if code >= 0:
                expected[r, offsets[j] + code] = 1.0
    np.testing.assert_array_equal(one_hot(codes, offsets, int(cards.sum())), expected)


@pytest.mark.parametrize("bad", [9, -2])
def test_one_hot_refuses_codes_outside_its_columns(bad):
    codes = np.array([[0, 1], [1, bad]], dtype=np.int8)
    with pytest.raises(ValueError, match="point into the n_total=5 columns"):
        one_hot(codes, [0, 2], 5)
