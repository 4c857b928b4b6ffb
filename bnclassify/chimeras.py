"""A chimera library in the forms the estimators read: its block table and its blocks' residues.

A chimera recombines its parents block by block, and a library is usually
written down as one string per chimera, ``"13221331"``: block ``i`` comes from
parent 1, 2 or 3. Its blocks are chosen on the parents' multiple sequence
alignment, so their boundaries are alignment positions, while a structure
file numbers the residues of one parent. Two helpers bridge the gaps:

- :func:`block_table` turns the strings (or one list of parent labels per
  chimera) into the table of blocks that every estimator fits, a categorical
  column per block, as :func:`~bnclassify.datasets.load_p450` gives it;
- :func:`residue_blocks` maps block boundaries given in alignment positions
  onto a structure's residue numbers through that parent's aligned sequence
  (gaps skipped), which is what
  :func:`~bnclassify.contacts.contact_matrix_from_structure` takes.

Examples
--------
The whole path, from a structure file and strings to a fitted Simpler TAN.
A toy structure of six alpha carbons numbered 10-15, a chain folded back
on itself (residue 15 touches residue 12); a real file is read the same way,
and notebook 10 reads a crystal structure:

>>> import os, tempfile
>>> from bnclassify import SimplerTAN
>>> from bnclassify.contacts import contact_matrix_from_structure
>>> xyz = [(0, 0, 0), (3.8, 0, 0), (7.6, 0, 0), (11.4, 0, 0), (11.4, 3.8, 0), (7.6, 3.8, 0)]
>>> atom = "ATOM  {:5d}  CA  GLY A{:4d}    {:8.3f}{:8.3f}{:8.3f}  1.00  0.00           C"
>>> lines = [atom.format(k + 1, 10 + k, *p) for k, p in enumerate(xyz)]
>>> path = os.path.join(tempfile.mkdtemp(), "parent1.pdb")
>>> with open(path, "w") as f:
...     _ = f.write("\\n".join(lines) + "\\nEND\\n")

Parent 1's row of the alignment (a gap where the other parents have an
insertion) and the blocks' first alignment positions:

>>> blocks = residue_blocks("GG-GGGG", [1, 4, 6], first_residue=10)
>>> blocks
{'block1': (10, 11), 'block2': (12, 13), 'block3': (14, 15)}
>>> contacts = contact_matrix_from_structure(path, blocks)
>>> contacts
        block1  block2  block3
block1       1       1       0
block2       1       1       2
block3       0       2       1

The chimeras, one string each, and whether each one folded:

>>> X = block_table(["111", "123", "321", "222", "312", "133", "211", "232"], parents="123")
>>> y = ["1", "0", "0", "1", "0", "1", "1", "0"]
>>> model = SimplerTAN(contacts).fit(X, y)
>>> sorted(model.structure_.edges())  # doctest: +NORMALIZE_WHITESPACE
[('block1', 'block2'), ('block2', 'block3'), ('class', 'block1'),
 ('class', 'block2'), ('class', 'block3')]
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd

__all__ = ["block_table", "residue_blocks"]

#: Characters that stand for a gap in an aligned sequence.
GAPS = "-."


def block_table(chimeras, parents=None, *, names=None) -> pd.DataFrame:
    """The table of blocks the estimators fit, from one string (or label list) per chimera.

    Parameters
    ----------
    chimeras : sequence of str, or sequence of sequences
        One entry per chimera: a string with one character per block, the
        parent that block comes from (``"13221331"``), or a sequence of parent
        labels, one per block (``["A", "C", "B"]``, for labels longer than one
        character). A pandas Series keeps its index as the table's index.
        Numbers are refused: a CSV column of ``13221331`` read as integers
        would lose a leading ``0``, so read it as strings
        (``pd.read_csv(..., dtype=str)``).
    parents : str or sequence, optional
        The parent labels a block may take, in the order the table's
        categories keep (``"123"`` or ``["1", "2", "3"]``). Any other label is
        an error, and a parent no chimera uses at some block stays a category
        of that block (so it is smoothed, not unseen). By default the labels
        found, sorted.
    names : sequence of str, optional
        The blocks' column names; by default ``block1``, ``block2``, ... as the
        bundled data sets and :func:`residue_blocks` name them.

    Returns
    -------
    pandas.DataFrame
        One row per chimera, one categorical column per block whose values are
        the parent labels as strings.

    Raises
    ------
    ValueError
        No chimeras; a chimera whose number of blocks differs from the others'
        (or from ``names``); a missing label, or a label not in ``parents``.
        The message names the chimera (its row) and the block (its position).
    TypeError
        A chimera that is neither a string nor a sequence of labels.

    Examples
    --------
    >>> X = block_table(["1322", "2113", "3331"], parents="123")
    >>> X
      block1 block2 block3 block4
    0      1      3      2      2
    1      2      1      1      3
    2      3      3      3      1
    >>> X["block2"].cat.categories.tolist()
    ['1', '2', '3']
    >>> block_table([["A1", "B2"], ["B2", "B2"]], names=["N-term", "C-term"])
      N-term C-term
    0     A1     B2
    1     B2     B2
    >>> block_table(["1322", "213", "3331"])
    Traceback (most recent call last):
    ...
    ValueError: chimera 1 ('213') has 3 blocks; the others have 4.
    >>> block_table(["1322", "2143"], parents="123")
    Traceback (most recent call last):
    ...
    ValueError: chimera 1 ('2143'), block 3 (block3): '4' is not a parent label; the parents \
are '1', '2', '3'.
    """
    index = chimeras.index if isinstance(chimeras, pd.Series) else None
    rows = _as_rows(chimeras)
    if not rows:
        raise ValueError("block_table needs at least one chimera; got none.")
    lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    expected = len(names) if names is not None else int(np.bincount(lengths).argmax())
    wrong = np.flatnonzero(lengths != expected)
    if wrong.size:
        k = int(wrong[0])
        whom = f"names has {expected}" if names is not None else f"the others have {expected}"
        raise ValueError(
            f"chimera {_row_name(index, k)} ({_shown(rows[k])}) has {lengths[k]} blocks; {whom}."
        )
    if expected == 0:
        raise ValueError("the chimeras have no blocks (empty strings).")
    names = [f"block{b + 1}" for b in range(expected)] if names is None else [str(n) for n in names]
    if len(set(names)) != len(names):
        raise ValueError(f"names has repeated block names: {names}.")

    if all(isinstance(row, str) for row in rows):  # one character a block: no loop over rows
        labels = np.array(rows, dtype=f"<U{expected}").view("<U1").reshape(len(rows), expected)
        labels = labels.astype(object)
    else:
        labels = np.empty((len(rows), expected), dtype=object)
        labels[:] = [list(row) for row in rows]
    missing = pd.isna(labels)
    if missing.any():
        k, b = (int(v[0]) for v in np.nonzero(missing))
        raise ValueError(
            f"chimera {_row_name(index, k)} ({_shown(rows[k])}), block {b + 1} "
            f"({names[b]}) is missing; every block needs its parent."
        )
    labels = labels.astype(str)

    if parents is None:
        categories = sorted(set(np.unique(labels).tolist()))
    else:
        categories = _parent_labels(parents)
        unknown = ~np.isin(labels, categories)
        if unknown.any():
            k, b = (int(v[0]) for v in np.nonzero(unknown))
            allowed = ", ".join(repr(p) for p in categories)
            raise ValueError(
                f"chimera {_row_name(index, k)} ({_shown(rows[k])}), block {b + 1} ({names[b]}): "
                f"{str(labels[k, b])!r} is not a parent label; the parents are {allowed}."
            )
    dtype = pd.CategoricalDtype(categories)
    table = pd.DataFrame(labels, columns=names, index=index)
    return table.astype(dtype)


def residue_blocks(
    aligned_sequence, blocks, *, first_residue=1, residue_numbers=None, first_position=1
) -> dict:
    """Blocks given in alignment positions, as residue numbers of one parent's structure.

    The parent's row of the multiple sequence alignment says which alignment
    positions hold one of its residues (a letter) and which a gap (``-`` or
    ``.``): its ``k``-th letter is its ``k``-th residue, which the structure
    numbers ``first_residue + k - 1`` (or ``residue_numbers[k - 1]``).

    Parameters
    ----------
    aligned_sequence : str
        The parent's aligned sequence, gaps as ``-`` or ``.``: the residues the
        structure holds, in order (the structure's own sequence where it
        covers the parent; see ``residue_numbers`` for numbering that jumps).
    blocks : sequence of int, sequence of (int, int), or mapping of str to (int, int)
        Alignment positions, counted from ``first_position``. Either each
        block's first position (``[1, 65, 122, ...]``: a block runs to the
        position before the next block's first, the last block to the end of
        the alignment), or each block's first and last positions (both
        included), named ``block1``, ``block2``, ... in order unless a mapping
        names them.
    first_residue : int, default=1
        The structure's residue number of the parent's first residue.
    residue_numbers : sequence of int, optional
        The structure's number of every residue of the parent, in order (one
        per letter of ``aligned_sequence``), where numbering is not one run
        from ``first_residue``. Overrides ``first_residue``.
    first_position : int, default=1
        The number of the alignment's first position (0 for zero-based
        boundaries).

    Returns
    -------
    dict of str to (int, int)
        Each block's first and last residue numbers, the ``blocks`` that
        :func:`~bnclassify.contacts.contact_matrix_from_structure` reads.

    Raises
    ------
    ValueError
        A boundary outside the alignment or on a gap of this parent (the
        message names the block, the position and the nearest residues), a
        block holding no residue of the parent, blocks out of order or
        overlapping, or ``residue_numbers`` of the wrong length.

    Examples
    --------
    Residues M1 K2 L3 V4 A5 E6 (numbered from 151 in the structure), a gap at
    alignment position 3:

    >>> residue_blocks("MK-LVAE", [1, 4, 6], first_residue=151)
    {'block1': (151, 152), 'block2': (153, 154), 'block3': (155, 156)}
    >>> residue_blocks("MK-LVAE", {"N": (1, 2), "C": (4, 7)}, first_residue=151)
    {'N': (151, 152), 'C': (153, 156)}
    >>> residue_blocks("MK-LVAE", [1, 3, 6])
    Traceback (most recent call last):
    ...
    ValueError: block2 starts at alignment position 3, a gap of this parent ('-'); its nearest \
residues are at positions 2 and 4.
    """
    sequence = _check_sequence(aligned_sequence)
    start = _integer(first_position, "first_position")
    is_residue = np.array([c not in GAPS for c in sequence], dtype=bool)
    n_residues = int(is_residue.sum())
    if n_residues == 0:
        raise ValueError("aligned_sequence holds only gaps: no residue to number.")
    numbers_of = _residue_numbers(first_residue, residue_numbers, n_residues)
    # residue (0-based) at or before each alignment column (0-based), -1 before the first
    residue_at = np.cumsum(is_residue) - 1
    last_column = len(sequence) - 1

    names, spans, given_as_starts = _alignment_spans(blocks, start, last_column)
    for name, (first, last) in zip(names, spans, strict=True):
        for which, column in (("starts", first), ("ends", last))[: 1 if given_as_starts else 2]:
            if not 0 <= column <= last_column:
                raise ValueError(
                    f"{name} {which} at alignment position {column + start}, outside the "
                    f"alignment (positions {start}-{last_column + start})."
                )
            if not is_residue[column]:
                raise ValueError(
                    f"{name} {which} at alignment position {column + start}, a gap of this "
                    f"parent ({sequence[column]!r}); {_nearest(is_residue, column, start)}."
                )
    for k in range(1, len(spans)):
        if spans[k][0] <= spans[k - 1][1]:
            raise ValueError(
                f"{names[k - 1]} and {names[k]} overlap or are out of order: {names[k - 1]} ends "
                f"at alignment position {spans[k - 1][1] + start}, {names[k]} starts at "
                f"{spans[k][0] + start}."
            )
    # Given as first positions, a block ends at the last residue before the next one's first.
    result = {}
    for name, (first, last) in zip(names, spans, strict=True):
        result[name] = (int(numbers_of[residue_at[first]]), int(numbers_of[residue_at[last]]))
    return result


# -- helpers ------------------------------------------------------------------------------
def _as_rows(chimeras) -> list:
    if isinstance(chimeras, str | bytes):
        raise TypeError(
            f"chimeras must be a sequence with one entry per chimera, got one string "
            f"{chimeras!r}; pass [{chimeras!r}] for a single chimera."
        )
    if isinstance(chimeras, pd.DataFrame):
        raise TypeError(
            "chimeras must be one string (or label list) per chimera, not a DataFrame; "
            "a table with one column per block is already a block table."
        )
    try:
        rows = list(chimeras)
    except TypeError:
        raise TypeError(
            f"chimeras must be a sequence of strings (or of label lists), got {chimeras!r}."
        ) from None
    for k, row in enumerate(rows):
        if isinstance(row, str):
            continue
        if isinstance(row, numbers.Number) or row is None or not hasattr(row, "__len__"):
            raise TypeError(
                f"chimera {k} is {row!r} ({type(row).__name__}): give each chimera as a string "
                "of parent labels, one character a block, or a sequence of labels (a CSV column "
                "read as numbers loses leading zeros: read it with dtype=str)."
            )
    return rows


def _row_name(index, k) -> str:
    return str(k) if index is None else f"{index[k]!r}"


def _shown(row) -> str:
    text = repr(row) if isinstance(row, str) else repr(list(row))
    return text if len(text) <= 60 else text[:57] + "..."


def _parent_labels(parents) -> list:
    labels = list(parents) if isinstance(parents, str) else [str(p) for p in parents]
    if not labels or len(set(labels)) != len(labels):
        raise ValueError(f"parents must list distinct parent labels, got {parents!r}.")
    return labels


def _check_sequence(aligned_sequence) -> str:
    if not isinstance(aligned_sequence, str):
        raise TypeError(
            f"aligned_sequence must be a string (one letter per alignment position, '-' or '.' "
            f"for gaps), got {type(aligned_sequence).__name__}."
        )
    sequence = "".join(aligned_sequence.split())  # wrapped FASTA lines
    if not sequence:
        raise ValueError("aligned_sequence is empty.")
    return sequence


def _integer(value, name) -> int:
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}.")
    return int(value)


def _residue_numbers(first_residue, residue_numbers, n_residues) -> np.ndarray:
    if residue_numbers is None:
        return _integer(first_residue, "first_residue") + np.arange(n_residues)
    values = list(residue_numbers)
    for value in values:
        _integer(value, "residue_numbers")
    if len(values) != n_residues:
        raise ValueError(
            f"residue_numbers has {len(values)} numbers; the aligned sequence holds "
            f"{n_residues} residues (one number each)."
        )
    return np.asarray(values, dtype=np.int64)


def _alignment_spans(blocks, start, last_column):
    """(names, [(first, last) 0-based columns], whether blocks were given as first positions)."""
    if isinstance(blocks, Mapping):
        names, items = [str(k) for k in blocks], list(blocks.values())
    elif isinstance(blocks, str | bytes) or not hasattr(blocks, "__iter__"):
        raise ValueError(
            "blocks must be the blocks' first alignment positions, a sequence of (first, last) "
            f"positions, or a mapping of names to (first, last); got {blocks!r}."
        )
    else:
        items = list(blocks)
        names = [f"block{k + 1}" for k in range(len(items))]
    if not items:
        raise ValueError("blocks is empty; give at least one block.")
    starts_only = not isinstance(blocks, Mapping) and all(
        isinstance(v, numbers.Integral) and not isinstance(v, bool | np.bool_) for v in items
    )
    if starts_only:
        firsts = [int(v) - start for v in items]
        for k in range(1, len(firsts)):
            if firsts[k] <= firsts[k - 1]:
                raise ValueError(
                    f"block first positions must increase: {names[k]} starts at "
                    f"{firsts[k] + start}, after {names[k - 1]} at {firsts[k - 1] + start}."
                )
        lasts = [f - 1 for f in firsts[1:]] + [last_column]
        return names, list(zip(firsts, lasts, strict=True)), True
    spans = []
    for name, item in zip(names, items, strict=True):
        try:
            first, last = item
        except (TypeError, ValueError):
            raise ValueError(
                f"{name} must be a (first, last) pair of alignment positions, got {item!r}."
            ) from None
        first, last = _integer(first, name) - start, _integer(last, name) - start
        if first > last:
            raise ValueError(f"{name} starts after it ends: {item!r}.")
        spans.append((first, last))
    return names, spans, False


def _nearest(is_residue, column, start) -> str:
    before = np.flatnonzero(is_residue[:column])
    after = np.flatnonzero(is_residue[column + 1 :])
    found = []
    if before.size:
        found.append(str(before[-1] + start))
    if after.size:
        found.append(str(after[0] + column + 1 + start))
    return "its nearest residues are at positions " + " and ".join(found)
