"""Contact matrices from a protein structure: residue contacts counted per block pair.

A chimera library recombines its parents' sequences block by block; the
contact matrix of its blocks, which :class:`~bnclassify.SimplerTAN`, the
contact prior of :class:`~bnclassify.TAN` and :class:`~bnclassify.BMATAN` read,
counts how many residue pairs of two blocks touch in the folded structure.
:func:`contact_matrix_from_structure` computes it from a PDB or mmCIF file and
the blocks' residue ranges.

The file is read by gemmi (``pip install gemmi``, or ``pip install -e
".[structure]"`` in a clone), a maintained C++ structural-biology library with
Python wheels that reads PDB and mmCIF alike, and whose entity set-up tells
polymer residues from ligands and waters without a residue-name table of our
own. The atom pairs within the cutoff are found by a k-d tree
(:class:`scipy.spatial.cKDTree`), all at once.
"""

from __future__ import annotations

import numbers
import os
import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from .validation import check_int

__all__ = ["contact_matrix_from_structure"]

#: Elements that are not heavy atoms (deuterium is hydrogen measured by neutrons).
_HYDROGENS = ("H", "D")


def contact_matrix_from_structure(
    path,
    blocks,
    cutoff=4.5,
    *,
    chain=None,
    min_separation=1,
    exclude=(),
    outside="raise",
):
    """Residue pairs in contact, counted per pair of blocks, from a PDB or mmCIF file.

    Two residues are in contact when any heavy atom of one lies within
    ``cutoff`` angstroms of any heavy atom of the other: SCHEMA's definition
    (Voigt et al. 2002, 4.5 A). Entry ``(a, b)`` counts the residue pairs
    with one residue in block ``a`` and the other in block ``b``; entry
    ``(a, a)`` counts the pairs inside block ``a``, each pair once. The matrix
    is symmetric and is what ``SimplerTAN(contact_matrix=...)`` reads (it uses
    the off-diagonal entries only).

    Conventions, each a parameter:

    - heavy atoms only: hydrogen and deuterium atoms are dropped;
    - one conformer: where atoms have alternative locations the first is kept;
    - the first model of the file, and the polymer residues of one chain
      (waters, ions and ligands such as a heme are not residues of the chain);
    - sequence neighbours count (``min_separation=1``), as in the SCHEMA
      contact maps, where residues ``i`` and ``i + 1`` are a contact like any
      other; ``min_separation=2`` leaves them out (separation is measured in
      residue numbers);
    - SCHEMA's disruption ``E`` counts only contacts whose two residues both
      vary among the parents; pass the conserved positions as ``exclude`` to
      count those.

    Parameters
    ----------
    path : str or path-like
        A PDB (``.pdb``, ``.ent``) or mmCIF (``.cif``) file, optionally gzipped.
    blocks : mapping of str to (int, int), or sequence of (int, int)
        Each block's first and last residue numbers (author numbering, both
        included). A sequence is named ``block1``, ``block2``, ... in order,
        as the bundled data sets name their columns. Blocks may not overlap.
    cutoff : float, default=4.5
        Largest heavy-atom distance of a contact, in angstroms (inclusive).
    chain : str, optional
        The chain to read; by default the structure's only chain with polymer
        residues (a structure with several must name one).
    min_separation : int, default=1
        Residue pairs whose residue numbers differ by less are not counted.
    exclude : iterable of int, default=()
        Residue numbers whose contacts are not counted (e.g. positions
        conserved in every parent).
    outside : {"raise", "ignore"}, default="raise"
        What to do with polymer residues of the chain that fall in no block:
        refuse (the blocks may be mistyped) or leave them out.

    Returns
    -------
    pandas.DataFrame
        Integer counts, block names as index and columns, in the order given.

    Raises
    ------
    ImportError
        gemmi is not installed.
    FileNotFoundError
        ``path`` does not exist.
    ValueError
        The file holds no atoms, ``chain`` is not in it, blocks overlap or hold
        no residue of the chain, residues fall outside every block, or a
        parameter is out of range; the message names it.

    Warns
    -----
    UserWarning
        A block ends after the chain's last residue (e.g. ``(41, 90)`` on a
        60-residue chain): the message names the block and that residue.

    Examples
    --------
    Three alpha carbons: residue 1 is 3.8 A from residue 2 and 4.0 A from residue 3,
    which are 5.5 A apart.

    >>> import tempfile, os
    >>> lines = [
    ...     "ATOM      1  CA  GLY A   1       0.000   0.000   0.000  1.00  0.00           C",
    ...     "ATOM      2  CA  GLY A   2       3.800   0.000   0.000  1.00  0.00           C",
    ...     "ATOM      3  CA  GLY A   3       0.000   4.000   0.000  1.00  0.00           C",
    ... ]
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "toy.pdb")
    >>> with open(path, "w") as f:
    ...     _ = f.write("\\n".join(lines) + "\\nEND\\n")
    >>> contact_matrix_from_structure(path, {"first": (1, 1), "rest": (2, 3)})
           first  rest
    first      0     2
    rest       2     0
    >>> contact_matrix_from_structure(path, [(1, 1), (2, 3)], min_separation=2)
            block1  block2
    block1       0       1
    block2       1       0
    """
    gemmi = _import_gemmi()
    names, ranges = _check_blocks(blocks)
    cutoff = _check_cutoff(cutoff)
    min_separation = check_int(min_separation, "min_separation", minimum=1)
    if outside not in ("raise", "ignore"):
        raise ValueError(f'outside must be "raise" or "ignore", got {outside!r}.')
    excluded = _check_exclude(exclude)

    resnums, residue_of_atom, coords, chain_name = _read_chain(gemmi, path, chain)
    block_of = _block_of(resnums, ranges)
    _check_coverage(resnums, block_of, names, ranges, chain_name, outside, path)

    counted = (block_of >= 0) & ~np.isin(resnums, excluded)
    keep = counted[residue_of_atom]
    coords, residue_of_atom = coords[keep], residue_of_atom[keep]
    pairs = cKDTree(coords).query_pairs(cutoff, output_type="ndarray")  # atom pairs, i < j
    residues = np.sort(residue_of_atom[pairs], axis=1)
    residues = residues[residues[:, 0] != residues[:, 1]]
    residues = np.unique(residues, axis=0)  # residue pairs, each once
    far = np.abs(resnums[residues[:, 0]] - resnums[residues[:, 1]]) >= min_separation
    residues = residues[far]

    n = len(names)
    counts = np.zeros((n, n), dtype=np.int64)
    a, b = block_of[residues[:, 0]], block_of[residues[:, 1]]
    np.add.at(counts, (a, b), 1)
    np.add.at(counts, (b[a != b], a[a != b]), 1)  # mirror the pairs across blocks
    return pd.DataFrame(counts, index=list(names), columns=list(names))


# -- checks ------------------------------------------------------------------------------
def _import_gemmi():
    try:
        import gemmi
    except ImportError:
        raise ImportError(
            "contact_matrix_from_structure reads structure files with gemmi, which is not "
            'installed: pip install gemmi (or pip install -e ".[structure]" in a clone).'
        ) from None
    return gemmi


def _check_cutoff(cutoff):
    if isinstance(cutoff, bool) or not isinstance(cutoff, numbers.Real):
        raise ValueError(f"cutoff must be a positive distance in angstroms, got {cutoff!r}.")
    cutoff = float(cutoff)
    if not (np.isfinite(cutoff) and cutoff > 0):
        raise ValueError(f"cutoff must be a positive distance in angstroms, got {cutoff!r}.")
    return cutoff


def _check_blocks(blocks):
    """(names, (n, 2) int array of first/last residue numbers) of valid, disjoint blocks."""
    if isinstance(blocks, Mapping):
        names, spans = [str(k) for k in blocks], list(blocks.values())
        if len(set(names)) != len(names):
            raise ValueError(f"blocks has repeated names: {names}.")
    elif isinstance(blocks, str | bytes) or not hasattr(blocks, "__iter__"):
        raise ValueError(
            "blocks must map block names to (first, last) residue numbers, or be a "
            f"sequence of (first, last) pairs; got {blocks!r}."
        )
    else:
        spans = list(blocks)
        names = [f"block{k + 1}" for k in range(len(spans))]
    if not spans:
        raise ValueError("blocks is empty; give at least one (first, last) residue range.")
    ranges = np.empty((len(spans), 2), dtype=np.int64)
    for k, (name, span) in enumerate(zip(names, spans, strict=True)):
        try:
            first, last = span
        except (TypeError, ValueError):
            raise ValueError(
                f"block {name!r} must be a (first, last) pair of residue numbers, got {span!r}."
            ) from None
        for value in (first, last):
            if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
                raise ValueError(
                    f"block {name!r} must be a pair of integer residue numbers, got {span!r}."
                )
        if first > last:
            raise ValueError(f"block {name!r} starts after it ends: {span!r}.")
        ranges[k] = first, last
    order = np.argsort(ranges[:, 0], kind="stable")
    sorted_ranges = ranges[order]
    clash = np.flatnonzero(sorted_ranges[1:, 0] <= sorted_ranges[:-1, 1])
    if clash.size:
        i, j = order[clash[0]], order[clash[0] + 1]
        low, high = ranges[j, 0], min(ranges[i, 1], ranges[j, 1])
        shared = f"residue {low}" if low == high else f"residues {low}-{high}"
        raise ValueError(
            f"blocks {names[i]!r} {tuple(ranges[i].tolist())} and {names[j]!r} "
            f"{tuple(ranges[j].tolist())} overlap: both hold {shared}; a residue belongs "
            "to one block."
        )
    return names, ranges


def _check_exclude(exclude):
    values = list(exclude)
    for value in values:
        if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
            raise ValueError(f"exclude must hold integer residue numbers, got {value!r}.")
    return np.asarray(values, dtype=np.int64)


# -- reading ----------------------------------------------------------------------------
def _read_chain(gemmi, path, chain):
    """Residue numbers, each heavy atom's residue position and coordinates, and the chain."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"No structure file at {path!r}.")
    try:
        structure = gemmi.read_structure(path)
    except (RuntimeError, ValueError) as error:
        raise ValueError(f"{path!r} is not a PDB or mmCIF file gemmi can read: {error}") from None
    if len(structure) == 0 or structure[0].count_atom_sites() == 0:
        raise ValueError(f"{path!r} holds no atoms; is it a PDB or mmCIF structure file?")
    structure.setup_entities()  # tells polymer residues from ligands and waters
    structure.remove_hydrogens()
    structure.remove_alternative_conformations()
    model = structure[0]
    polymers = {c.name: c.get_polymer() for c in model}
    with_residues = [name for name, polymer in polymers.items() if len(polymer)]
    if chain is None:
        if len(with_residues) != 1:
            raise ValueError(
                f"{path!r} has {len(with_residues)} chains with polymer residues "
                f"{with_residues}; name one with chain=."
            )
        chain = with_residues[0]
    elif str(chain) not in with_residues:
        raise ValueError(
            f"chain={chain!r} is not a chain with polymer residues in {path!r}; "
            f"its chains are {with_residues}."
        )
    polymer = polymers[str(chain)]
    sizes = [len(residue) for residue in polymer]
    resnums = np.array([residue.seqid.num for residue in polymer], dtype=np.int64)
    coords = np.array([atom.pos.tolist() for residue in polymer for atom in residue], dtype=float)
    elements = np.array([atom.element.name for residue in polymer for atom in residue])
    residue_of_atom = np.repeat(np.arange(len(sizes)), sizes)
    heavy = ~np.isin(elements, _HYDROGENS)  # remove_hydrogens misses unusual element labels
    return resnums, residue_of_atom[heavy], coords[heavy].reshape(-1, 3), str(chain)


def _block_of(resnums, ranges):
    """Position of each residue's block, -1 for residues in no block."""
    order = np.argsort(ranges[:, 0])
    starts, ends = ranges[order, 0], ranges[order, 1]
    slot = np.searchsorted(starts, resnums, side="right") - 1
    inside = (slot >= 0) & (resnums <= ends[np.clip(slot, 0, None)])
    return np.where(inside, order[np.clip(slot, 0, None)], -1)


def _check_coverage(resnums, block_of, names, ranges, chain, outside, path):
    held = np.bincount(block_of[block_of >= 0], minlength=len(names))
    empty = np.flatnonzero(held == 0)
    if empty.size:
        k = empty[0]
        raise ValueError(
            f"block {names[k]!r} {tuple(ranges[k].tolist())} holds no residue of chain "
            f"{chain!r} in {path!r}, whose residues run {resnums.min()}-{resnums.max()}."
        )
    last = int(resnums.max())
    beyond = np.flatnonzero(ranges[:, 1] > last)
    if beyond.size:  # a likely typo: a block whose end the structure never reaches
        listed = ", ".join(f"{names[k]!r} {tuple(ranges[k].tolist())}" for k in beyond)
        warnings.warn(
            f"block(s) {listed} run past the last residue of chain {chain!r} in {path!r}, "
            f"{last}: their residues after {last} are not in the structure (a mistyped "
            "block end?).",
            UserWarning,
            stacklevel=3,
        )
    stray = resnums[block_of < 0]
    if stray.size and outside == "raise":
        shown = ", ".join(str(v) for v in stray[:10]) + (" ..." if stray.size > 10 else "")
        raise ValueError(
            f"{stray.size} residue(s) of chain {chain!r} fall outside every block: {shown}. "
            'Extend the blocks, or pass outside="ignore" to leave them out.'
        )
