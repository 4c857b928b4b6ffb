"""Chimera strings -> block table, alignment positions -> residue numbers (bnclassify.chimeras)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bnclassify import SimplerTAN
from bnclassify.chimeras import block_table, residue_blocks
from bnclassify.datasets import load_p450


# -- block_table ---------------------------------------------------------------------------
def test_p450_strings_give_the_bundled_table():
    p450 = load_p450()
    strings = p450.data.astype(str).agg("".join, axis=1)  # "13221331" per chimera
    table = block_table(strings, parents="123")
    pd.testing.assert_frame_equal(table, p450.data)
    # and the estimators read it as they read the bundled table
    ours = SimplerTAN(p450.contact_matrix).fit(table, p450.target)
    theirs = SimplerTAN(p450.contact_matrix).fit(p450.data, p450.target)
    np.testing.assert_array_equal(ours.predict_proba(table), theirs.predict_proba(p450.data))


def test_strings_and_label_lists_give_the_same_table():
    strings = ["1322", "2113", "3331"]
    lists = [list(s) for s in strings]
    tuples = [tuple(int(c) for c in s) for s in strings]  # labels as numbers, per block
    expected = block_table(strings, parents="123")
    pd.testing.assert_frame_equal(block_table(lists, parents="123"), expected)
    pd.testing.assert_frame_equal(block_table(tuples, parents=[1, 2, 3]), expected)


def test_declared_parents_stay_categories_in_their_order():
    table = block_table(["11", "21"], parents="321")
    assert table["block2"].cat.categories.tolist() == ["3", "2", "1"]  # 2 and 3 never used there
    assert block_table(["11", "21"])["block1"].cat.categories.tolist() == ["1", "2"]


def test_a_series_keeps_its_index_and_errors_name_it():
    chimeras = pd.Series(["12", "21"], index=["F3", "G7"])
    assert block_table(chimeras).index.tolist() == ["F3", "G7"]
    with pytest.raises(ValueError, match=r"chimera 'G7' \('2'\) has 1 blocks; the others have 2"):
        block_table(pd.Series(["12", "2", "11"], index=["F3", "G7", "H1"]))


@pytest.mark.parametrize(
    "chimeras, kwargs, message",
    [
        ([], {}, "at least one chimera"),
        (["123", "12", "321"], {}, r"chimera 1 \('12'\) has 2 blocks; the others have 3"),
        (["123", "321"], {"names": ["a", "b"]}, r"chimera 0 \('123'\) has 3 blocks; names has 2"),
        (["12", "13"], {"parents": "12"}, r"chimera 1 \('13'\), block 2 \(block2\): '3' is not"),
        ([["A", None]], {}, r"chimera 0 \(\['A', None\]\), block 2 \(block2\) is missing"),
        (["", ""], {}, "no blocks"),
        (["12", "21"], {"names": ["x", "x"]}, "repeated block names"),
        (["12"], {"parents": "11"}, "distinct parent labels"),
    ],
)
def test_bad_chimeras_are_named(chimeras, kwargs, message):
    with pytest.raises(ValueError, match=message):
        block_table(chimeras, **kwargs)


@pytest.mark.parametrize(
    "chimeras, message",
    [
        ("13221331", r"one string '13221331'; pass \['13221331'\]"),
        ([13221331, 13221332], r"chimera 0 is 13221331 \(int\).*dtype=str"),
        (pd.DataFrame({"a": ["1"]}), "already a block table"),
        (5, "sequence of strings"),
    ],
)
def test_wrong_types_are_refused(chimeras, message):
    with pytest.raises(TypeError, match=message):
        block_table(chimeras)


# -- residue_blocks ------------------------------------------------------------------------
def _reference_blocks(sequence, starts, first_residue):
    """Walk the alignment letter by letter: the residue number at each block's columns."""
    number, numbers = first_residue, {}
    for column, letter in enumerate(sequence):
        if letter != "-":
            numbers[column] = number
            number += 1
    ends = [s - 1 for s in starts[1:]] + [len(sequence) - 1]
    blocks = {}
    for k, (first, last) in enumerate(zip(starts, ends, strict=True)):
        held = [numbers[c] for c in range(first, last + 1) if c in numbers]
        blocks[f"block{k + 1}"] = (min(held), max(held))
    return blocks


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.booleans(), min_size=1, max_size=40).filter(any),
    st.data(),
    st.integers(-5, 300),
)
def test_residue_blocks_match_a_letter_by_letter_walk(is_letter, data, first_residue):
    sequence = "".join("A" if b else "-" for b in is_letter)
    letters = [c for c, b in enumerate(is_letter) if b]
    starts = sorted(data.draw(st.sets(st.sampled_from(letters), min_size=1)))
    got = residue_blocks(sequence, [s + 1 for s in starts], first_residue=first_residue)
    assert got == _reference_blocks(sequence, starts, first_residue)
    # zero-based positions and explicit residue numbers give the same blocks
    numbers = list(range(first_residue, first_residue + len(letters)))
    assert residue_blocks(sequence, starts, first_position=0, residue_numbers=numbers) == got


def test_pairs_and_names_and_jumping_numbering():
    sequence = "MK-LV\nAE"  # a wrapped FASTA line
    pairs = residue_blocks(
        sequence, {"N": (1, 2), "C": (4, 7)}, residue_numbers=[5, 6, 7, 9, 10, 11]
    )
    assert pairs == {"N": (5, 6), "C": (7, 11)}
    assert residue_blocks("MK-LVAE", [(1, 2), (4, 7)]) == {"block1": (1, 2), "block2": (3, 6)}


@pytest.mark.parametrize(
    "blocks, kwargs, message",
    [
        ([1, 3], {}, r"block2 starts at alignment position 3, a gap .* positions 2 and 4"),
        ([(1, 3)], {}, r"block1 ends at alignment position 3, a gap"),
        (
            [1, 9],
            {},
            r"block2 starts at alignment position 9, outside .* \(positions 1-7",
        ),
        ([0, 4], {}, r"block1 starts at alignment position 0, outside"),
        ([4, 1], {}, "first positions must increase"),
        ([(1, 4), (4, 7)], {}, "block1 and block2 overlap"),
        ([(4, 1)], {}, "starts after it ends"),
        ([1], {"residue_numbers": [1, 2]}, "residue_numbers has 2 numbers; .* holds 6 residues"),
        ([], {}, "blocks is empty"),
        ("1,4", {}, "first alignment positions"),
        ([1.5], {}, r"\(first, last\) pair"),
    ],
)
def test_bad_boundaries_are_named(blocks, kwargs, message):
    with pytest.raises(ValueError, match=message):
        residue_blocks("MK-LVAE", blocks, **kwargs)


def test_a_sequence_of_gaps_or_not_a_string_is_refused():
    with pytest.raises(ValueError, match="only gaps"):
        residue_blocks("---", [1])
    with pytest.raises(TypeError, match="must be a string"):
        residue_blocks(["M", "K"], [1])
