"""contact_matrix_from_structure on structure files written here, atom by atom.

The toy chain (chain A, residues 1-6, blocks b1 = 1-2, b2 = 3-4, b3 = 5-6):

- residue 2's CB is 4.0 A from residue 1's CA: a contact through a side chain;
- residue 3's hydrogen is 3.0 A from residue 1: hydrogens do not count;
- residues 4 and 5 are exactly 4.5 A apart: a contact (the cutoff is inclusive);
- residue 6 has two conformers: A is 4.2 A from residue 1, B (dropped) near residue 3;
- a water 3.0 A from residue 4 and a chain B residue 3.0 A from residue 1 are not
  residues of chain A.

So the contacts are (1, 2) inside b1, (1, 6) across b1-b3 and (4, 5) across b2-b3.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("gemmi")

from bnclassify.contacts import contact_matrix_from_structure  # noqa: E402

# (record, atom, altloc, residue name, chain, residue number, x, y, z, element)
TOY = [
    ("ATOM", "CA", "", "GLY", "A", 1, 0.0, 0.0, 0.0, "C"),
    ("ATOM", "CA", "", "ALA", "A", 2, 20.0, 0.0, 0.0, "C"),
    ("ATOM", "CB", "", "ALA", "A", 2, 4.0, 0.0, 0.0, "C"),
    ("ATOM", "CA", "", "GLY", "A", 3, 40.0, 0.0, 0.0, "C"),
    ("ATOM", "H", "", "GLY", "A", 3, 0.0, 3.0, 0.0, "H"),
    ("ATOM", "CA", "", "GLY", "A", 4, 60.0, 0.0, 0.0, "C"),
    ("ATOM", "CA", "", "GLY", "A", 5, 60.0, 4.5, 0.0, "C"),
    ("ATOM", "CA", "A", "GLY", "A", 6, 0.0, -4.2, 0.0, "C"),
    ("ATOM", "CA", "B", "GLY", "A", 6, 40.0, 3.0, 0.0, "C"),
    ("HETATM", "O", "", "HOH", "A", 101, 60.0, 0.0, 3.0, "O"),
    ("ATOM", "CA", "", "GLY", "B", 1, 0.0, 0.0, 3.0, "C"),
]
BLOCKS = {"b1": (1, 2), "b2": (3, 4), "b3": (5, 6)}


def pdb_text(atoms) -> str:
    lines = []
    for serial, (record, name, alt, resname, chain, resseq, x, y, z, element) in enumerate(
        atoms, start=1
    ):
        occupancy = 0.5 if alt else 1.0
        lines.append(
            f"{record:<6}{serial:>5}  {name:<3}{alt or ' ':1}{resname:>3} {chain:1}{resseq:>4}"
            f"    {x:>8.3f}{y:>8.3f}{z:>8.3f}{occupancy:>6.2f}{0.0:>6.2f}          {element:>2}"
        )
    return "\n".join(lines) + "\nEND\n"


def cif_text(atoms) -> str:
    header = [
        "data_toy",
        "loop_",
        *(
            f"_atom_site.{field}"
            for field in (
                "group_PDB id type_symbol label_atom_id label_alt_id label_comp_id "
                "label_asym_id label_seq_id Cartn_x Cartn_y Cartn_z occupancy "
                "B_iso_or_equiv auth_seq_id auth_asym_id pdbx_PDB_model_num"
            ).split()
        ),
    ]
    rows = []
    for serial, (record, name, alt, resname, chain, resseq, x, y, z, element) in enumerate(
        atoms, start=1
    ):
        label_asym = chain if resname != "HOH" else "W"
        label_seq = resseq if resname != "HOH" else "."
        rows.append(
            f"{record} {serial} {element} {name} {alt or '.'} {resname} {label_asym} "
            f"{label_seq} {x} {y} {z} {0.5 if alt else 1.0} 0.0 {resseq} {chain} 1"
        )
    return "\n".join(header + rows) + "\n"


@pytest.fixture(params=["pdb", "cif"])
def toy_path(request, tmp_path):
    path = tmp_path / f"toy.{request.param}"
    path.write_text(pdb_text(TOY) if request.param == "pdb" else cif_text(TOY))
    return path


def frame(rows, names=("b1", "b2", "b3")):
    return pd.DataFrame(np.array(rows, dtype=np.int64), index=list(names), columns=list(names))


def test_counts_the_hand_placed_contacts_exactly(toy_path):
    matrix = contact_matrix_from_structure(toy_path, BLOCKS, chain="A")
    pd.testing.assert_frame_equal(matrix, frame([[1, 0, 1], [0, 0, 1], [1, 1, 0]]))


def test_sequence_neighbours_can_be_left_out(toy_path):
    matrix = contact_matrix_from_structure(toy_path, BLOCKS, chain="A", min_separation=2)
    pd.testing.assert_frame_equal(matrix, frame([[0, 0, 1], [0, 0, 0], [1, 0, 0]]))


def test_cutoff_is_inclusive_and_moves_contacts(toy_path):
    at_45 = contact_matrix_from_structure(toy_path, BLOCKS, 4.5, chain="A")
    at_44 = contact_matrix_from_structure(toy_path, BLOCKS, 4.4, chain="A")
    at_41 = contact_matrix_from_structure(toy_path, BLOCKS, 4.1, chain="A")
    assert at_45.loc["b2", "b3"] == 1 and at_44.loc["b2", "b3"] == 0
    assert at_44.loc["b1", "b3"] == 1 and at_41.loc["b1", "b3"] == 0
    assert at_41.loc["b1", "b1"] == 1  # the side-chain contact at 4.0 A


def test_excluded_residues_take_their_contacts_along(toy_path):
    matrix = contact_matrix_from_structure(toy_path, BLOCKS, chain="A", exclude=[1])
    pd.testing.assert_frame_equal(matrix, frame([[0, 0, 0], [0, 0, 1], [0, 1, 0]]))


def test_a_sequence_of_blocks_is_named_as_the_bundled_data(toy_path):
    matrix = contact_matrix_from_structure(toy_path, list(BLOCKS.values()), chain="A")
    assert list(matrix.index) == list(matrix.columns) == ["block1", "block2", "block3"]
    assert matrix.to_numpy().tolist() == [[1, 0, 1], [0, 0, 1], [1, 1, 0]]


def test_the_only_chain_is_the_default(tmp_path):
    path = tmp_path / "one_chain.pdb"
    path.write_text(pdb_text([atom for atom in TOY if atom[4] == "A"]))
    matrix = contact_matrix_from_structure(path, BLOCKS)
    assert matrix.to_numpy().tolist() == [[1, 0, 1], [0, 0, 1], [1, 1, 0]]


# -- errors ------------------------------------------------------------------------------
def test_several_chains_need_a_name(toy_path):
    with pytest.raises(ValueError, match=r"2 chains .*\['A', 'B'\].*chain="):
        contact_matrix_from_structure(toy_path, BLOCKS)


def test_missing_chain(toy_path):
    with pytest.raises(ValueError, match=r"chain='C' is not a chain.*\['A', 'B'\]"):
        contact_matrix_from_structure(toy_path, BLOCKS, chain="C")


def test_residues_outside_the_blocks(toy_path):
    with pytest.raises(
        ValueError, match=r"2 residue\(s\) of chain 'A' fall outside every block: 5, 6"
    ):
        contact_matrix_from_structure(toy_path, {"b1": (1, 2), "b2": (3, 4)}, chain="A")
    kept = contact_matrix_from_structure(
        toy_path, {"b1": (1, 2), "b2": (3, 4)}, chain="A", outside="ignore"
    )
    assert kept.to_numpy().tolist() == [[1, 0], [0, 0]]


def test_a_block_beyond_the_chain(toy_path):
    with pytest.raises(ValueError, match=r"block 'b4' \(7, 9\) holds no residue of chain 'A'.*1-6"):
        contact_matrix_from_structure(toy_path, {**BLOCKS, "b4": (7, 9)}, chain="A")


def test_a_block_running_past_the_chain_end_is_named_in_a_warning(toy_path):
    """Issue 32, item 8: blocks (1, 20), (21, 40), (41, 90) on a 60-residue chain were
    accepted silently; the likely typo is named with the chain's last residue."""
    blocks = {"b1": (1, 2), "b2": (3, 4), "b3": (5, 90)}
    with pytest.warns(
        UserWarning, match=r"'b3' \(5, 90\) run past the last residue of chain 'A'.*, 6:"
    ):
        matrix = contact_matrix_from_structure(toy_path, blocks, chain="A")
    pd.testing.assert_frame_equal(matrix, frame([[1, 0, 1], [0, 0, 1], [1, 1, 0]]))


def test_overlapping_blocks(toy_path):
    with pytest.raises(
        ValueError, match=r"'b2' \(2, 5\) and 'b1' \(4, 6\) overlap: .*residues 4-5"
    ):
        contact_matrix_from_structure(toy_path, {"b1": (4, 6), "b2": (2, 5)})
    with pytest.raises(
        ValueError, match=r"'b1' \(1, 3\) and 'b2' \(3, 4\) overlap: both hold residue 3;"
    ):
        contact_matrix_from_structure(toy_path, {"b1": (1, 3), "b2": (3, 4), "b3": (5, 6)})


@pytest.mark.parametrize(
    ("blocks", "message"),
    [
        ({}, "blocks is empty"),
        ({"b1": (4, 2)}, "starts after it ends"),
        ({"b1": (1.5, 2)}, "integer residue numbers"),
        ({"b1": 3}, r"\(first, last\) pair"),
        ("1-6", "blocks must map"),
    ],
)
def test_malformed_blocks(toy_path, blocks, message):
    with pytest.raises(ValueError, match=message):
        contact_matrix_from_structure(toy_path, blocks, chain="A")


@pytest.mark.parametrize("cutoff", [0, -1.0, float("nan"), "4.5", True])
def test_bad_cutoff(toy_path, cutoff):
    with pytest.raises(ValueError, match="cutoff must be a positive distance"):
        contact_matrix_from_structure(toy_path, BLOCKS, cutoff, chain="A")


def test_bad_options(toy_path):
    with pytest.raises(ValueError, match="min_separation must be an integer >= 1"):
        contact_matrix_from_structure(toy_path, BLOCKS, chain="A", min_separation=0)
    with pytest.raises(ValueError, match="outside must be"):
        contact_matrix_from_structure(toy_path, BLOCKS, chain="A", outside="drop")
    with pytest.raises(ValueError, match="exclude must hold integer residue numbers"):
        contact_matrix_from_structure(toy_path, BLOCKS, chain="A", exclude=["1"])


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="No structure file at .*nowhere.pdb"):
        contact_matrix_from_structure(tmp_path / "nowhere.pdb", BLOCKS)


@pytest.mark.parametrize(
    ("name", "text"),
    [("notes.pdb", "hello, I am not a structure\n"), ("notes.txt", "no atoms here\n")],
)
def test_a_file_that_is_not_a_structure(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ValueError, match="not a PDB or mmCIF file|holds no atoms"):
        contact_matrix_from_structure(path, BLOCKS)


# -- against a brute-force count -----------------------------------------------------------
def brute_force(atoms, blocks, cutoff, min_separation):
    """Every residue pair, every atom pair, in Python: the definition, slowly."""
    by_residue = {}
    for _, _, _, _, _, resseq, x, y, z, _ in atoms:
        by_residue.setdefault(resseq, []).append(np.array([x, y, z]))
    names = list(blocks)
    block_of = {r: k for k, (lo, hi) in enumerate(blocks.values()) for r in range(lo, hi + 1)}
    counts = np.zeros((len(names), len(names)), dtype=np.int64)
    for r, s in itertools.combinations(sorted(by_residue), 2):
        if abs(r - s) < min_separation:
            continue
        if any(np.linalg.norm(p - q) <= cutoff for p in by_residue[r] for q in by_residue[s]):
            a, b = block_of[r], block_of[s]
            counts[a, b] += 1
            if a != b:
                counts[b, a] += 1
    return counts


@settings(max_examples=25, deadline=None)
@given(
    coords=st.lists(
        st.tuples(*[st.integers(0, 120).map(lambda v: v / 10)] * 3), min_size=4, max_size=30
    ),
    n_residues=st.integers(2, 8),
    min_separation=st.integers(1, 3),
    cutoff=st.sampled_from([2.05, 3.55, 4.45]),  # never a grid distance: no ties
)
def test_matches_a_brute_force_count(tmp_path_factory, coords, n_residues, min_separation, cutoff):
    atoms = [
        ("ATOM", f"C{k}", "", "ALA", "A", k % n_residues + 1, x, y, z, "C")  # names unique
        for k, (x, y, z) in enumerate(coords)
    ]
    present = sorted({atom[5] for atom in atoms})
    middle = present[len(present) // 2]
    blocks = {"low": (present[0], middle - 1), "high": (middle, present[-1])}
    if middle == present[0]:
        blocks = {"all": (present[0], present[-1])}
    path = tmp_path_factory.mktemp("random") / "random.pdb"
    path.write_text(pdb_text(sorted(atoms, key=lambda atom: atom[5])))
    got = contact_matrix_from_structure(path, blocks, cutoff, min_separation=min_separation)
    expected = brute_force(atoms, blocks, cutoff, min_separation)
    np.testing.assert_array_equal(got.to_numpy(), expected)
    np.testing.assert_array_equal(got.to_numpy(), got.to_numpy().T)
