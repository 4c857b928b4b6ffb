"""Columns that cannot generalise: a written-out row index, and identifiers.

A CSV written with pandas' defaults (``frame.to_csv(path)``) carries the row
index as a leading ``Unnamed: 0`` column; a ``patient_id`` column holds a
distinct value in (almost) every row. Either is a perfect key of the
training rows and says nothing about new ones: a model that uses it looks
excellent in cross-validation on sorted data and learns nothing. The
estimators warn (:class:`IdentifierColumnWarning`); the command line leaves
such columns out.

Examples
--------
>>> import pandas as pd
>>> from bnclassify.data import identifier_columns
>>> frame = pd.DataFrame({"Unnamed: 0": range(25),
...                       "patient_id": [f"P{i:03d}" for i in range(25)],
...                       "smoker": ["yes", "no"] * 12 + ["yes"]})
>>> identifier_columns(frame)
{'Unnamed: 0': 'a row index', 'patient_id': 'an identifier (25 distinct values in 25 rows)'}
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

__all__ = [
    "IDENTIFIER_MIN_ROWS",
    "IDENTIFIER_SHARE",
    "IdentifierColumnWarning",
    "identifier_columns",
    "row_number_columns",
]

#: A text column with distinct values in at least this share of its observed cells ...
IDENTIFIER_SHARE = 0.9
#: ... and at least this many rows is an identifier (fewer rows prove nothing).
IDENTIFIER_MIN_ROWS = 20

_INDEX_NAME = re.compile(r"^(unnamed: \d+|index|level_0|)$", re.IGNORECASE)


class IdentifierColumnWarning(UserWarning):
    """A feature looks like a row index or an identifier (see :func:`identifier_columns`)."""


def identifier_columns(frame: pd.DataFrame, n_distinct=None) -> dict:
    """The columns of ``frame`` that look like a row index or an identifier, and why.

    Parameters
    ----------
    frame : DataFrame
    n_distinct : sequence of int or None, optional
        Each column's number of distinct observed values when already known
        (None for a column: count it), so a fit does not hash its columns twice.

    Returns
    -------
    dict
        Column name -> reason, in column order. A *row index* is an
        integer-valued column named like pandas' unnamed index (``Unnamed: 0``,
        ``index``, or empty) whose values increase strictly down the rows (the
        full table's 0..n-1, or any subset of its rows in order). An
        *identifier* is a text (object, string or categorical) column of at
        least ``IDENTIFIER_MIN_ROWS`` rows whose observed cells hold at
        least ``IDENTIFIER_SHARE`` distinct values per cell, not all of them
        numbers. Numeric columns (and numbers read as text) are never called
        identifiers: many distinct numbers are what a continuous feature has.
    """
    if n_distinct is not None and (
        isinstance(n_distinct, str | bytes)
        or not hasattr(n_distinct, "__len__")
        or len(n_distinct) != frame.shape[1]
    ):
        raise ValueError(
            f"n_distinct must give one count (or None) per column ({frame.shape[1]}), got "
            f"{n_distinct!r:.60}."
        )
    found = {}
    n_rows = len(frame)
    text = {}  # dtype -> whether it holds text: a wide table has few distinct dtypes
    candidates = []  # (position, name, distinct count if known) of the text columns
    # lists: iterating pandas' own Index and dtypes Series costs a call per column
    for j, (name, dtype) in enumerate(
        zip(frame.columns.tolist(), frame.dtypes.tolist(), strict=True)
    ):
        if _index_name(name):
            if _is_row_index(frame.iloc[:, j]):
                found[name] = "a row index"
            continue
        if n_rows < IDENTIFIER_MIN_ROWS:
            continue
        known = None if n_distinct is None else n_distinct[j]
        if known is not None and known < IDENTIFIER_SHARE * IDENTIFIER_MIN_ROWS:
            continue  # too few values for any qualifying number of observed cells
        # by identity: equal Categorical dtypes compare their categories, a cost per column
        key = dtype if isinstance(dtype, np.dtype) else id(dtype)
        if key not in text:
            text[key] = _is_text(dtype)
        if text[key]:
            candidates.append((j, name, known))
    counts = _observed_and_distinct(frame, [j for j, _, known in candidates if known is None])
    for j, name, known in candidates:
        observed, distinct = counts[j] if known is None else (_observed(frame.iloc[:, j]), known)
        if observed < IDENTIFIER_MIN_ROWS or distinct < IDENTIFIER_SHARE * observed:
            continue
        if not _all_numbers(frame.iloc[:, j]):  # numbers read as text are a feature's values
            found[name] = f"an identifier ({distinct} distinct values in {observed} rows)"
    return {name: found[name] for name in frame.columns if name in found}  # column order


#: Cells of a block of columns hashed at once (wide tables: many columns per block).
BLOCK_CELLS = 1 << 22


def _observed(column: pd.Series) -> int:
    return int(column.notna().sum())


def _observed_and_distinct(frame: pd.DataFrame, positions) -> dict:
    """``{position: (observed cells, distinct observed values)}`` of the columns at
    ``positions``, hashed a block of columns at a time (one factorisation per block, then a
    sort per column in numpy), as ``Series.nunique`` counts them."""
    out = {}
    n_rows = max(len(frame), 1)
    step = max(1, BLOCK_CELLS // n_rows)
    for start in range(0, len(positions), step):
        chunk = positions[start : start + step]
        cells = frame.iloc[:, chunk].to_numpy(dtype=object)
        codes, _ = pd.factorize(cells.ravel(order="F"))  # missing cells: -1
        codes = np.sort(codes.reshape(len(chunk), -1), axis=1)
        seen = codes >= 0
        new = np.ones_like(seen)
        new[:, 1:] = codes[:, 1:] != codes[:, :-1]
        observed, distinct = seen.sum(axis=1), (seen & new).sum(axis=1)
        for j, o, d in zip(chunk, observed.tolist(), distinct.tolist(), strict=True):
            out[j] = (o, d)
    return out


def _index_name(name) -> bool:
    return isinstance(name, str) and _INDEX_NAME.match(name.strip()) is not None


def _is_text(dtype) -> bool:
    if isinstance(dtype, pd.CategoricalDtype):
        return not pd.api.types.is_numeric_dtype(dtype.categories.dtype)
    return pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype)


def _all_numbers(column: pd.Series) -> bool:
    observed = column.dropna().astype(str)
    return bool(pd.to_numeric(observed, errors="coerce").notna().all())


def _is_row_index(column: pd.Series) -> bool:
    if len(column) < 2:
        return False
    if not pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(column.dtype):
        return False
    values = column.to_numpy(dtype=float, na_value=np.nan)
    if not np.isfinite(values).all() or (values != np.round(values)).any():
        return False
    return bool((np.diff(values) > 0).all())


def row_number_columns(frame: pd.DataFrame) -> list:
    """The integer columns of a whole table that number its rows, from 0 or from 1 in row
    order, whatever their name (a ``row_id`` written out as the last column).

    Only the whole table tells: in a subset of its rows (a training fold) such a column is
    just increasing, as a feature may be. The command line leaves such columns out (and
    never takes one for the class); :func:`identifier_columns` calls a column a row index
    by its name.

    Examples
    --------
    >>> frame = pd.DataFrame({"smoker": ["yes", "no", "no", "yes"], "row_id": [0, 1, 2, 3]})
    >>> row_number_columns(frame), row_number_columns(frame.iloc[2:])
    (['row_id'], [])
    """
    n = len(frame)
    if n < 2:
        return []
    numpy_int, other_int = [], []
    for j, dtype in enumerate(frame.dtypes.tolist()):
        if not pd.api.types.is_integer_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
            continue
        (numpy_int if isinstance(dtype, np.dtype) else other_int).append(j)
    numbered = set()
    step = max(1, BLOCK_CELLS // n)
    for start in range(0, len(numpy_int), step):  # numpy integers: a block at a time
        chunk = numpy_int[start : start + step]
        values = frame.iloc[:, chunk].to_numpy()
        first = values[0]
        steps = (np.diff(values, axis=0) == 1).all(axis=0)
        numbered.update(np.asarray(chunk)[steps & ((first == 0) | (first == 1))].tolist())
    for j in other_int:  # nullable or Arrow integers: a missing number numbers no row
        column = frame.iloc[:, j]
        if column.isna().any():
            continue
        first = column.iloc[0]
        if first in (0, 1) and np.array_equal(column.to_numpy(), np.arange(first, first + n)):
            numbered.add(j)
    return [frame.columns[j] for j in sorted(numbered)]
