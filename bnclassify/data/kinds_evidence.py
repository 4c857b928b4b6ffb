"""The kinds rule over a table read in chunks (a dask DataFrame's partitions): what each
chunk tells of a numeric column, added up, decides the same kind as the whole column.

:func:`~bnclassify.data.default_kind` reads a whole column. A column split into chunks
is read twice, and only small summaries leave a chunk:

1. :func:`count_evidence`: its rows, observed cells, whether it is an integer column,
   its distinct values while there are at most ``limit`` + 1 of them, and the values
   holding :data:`~bnclassify.data.POINT_MASS_MIN_SHARE` or more of the chunk's observed
   cells. Two add up (``+``).
2. Where step 1 leaves the kind open, :func:`value_evidence`: the counts of those
   candidate values in the chunk (a value holding half of the column holds half of
   some chunk), and the rows the log-normal test reads (every ``step``-th row of the
   whole column, as the in-memory rule takes them), with their classes (read also when
   the column will be binned: the evidence does not depend on ``numbers``).

:func:`decided_kind` then applies the rule of :func:`~bnclassify.data.default_kind`.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from . import kinds_rule
from .kinds_rule import (
    INTEGER_MAX_CATEGORIES,
    POINT_MASS_MIN_SHARE,
    prefers_log_normal,
)


@dataclasses.dataclass
class CountEvidence:
    """What the integer rule needs of one numeric column over some rows (step 1).

    Attributes
    ----------
    rows, observed : int
        Rows, and cells that are not missing.
    integers : bool
        An integer column (a float column, whatever its values, is a measurement);
        true of an integer chunk with no observed value, which adds nothing.
    distinct : ndarray or None
        The distinct values (int64), while at most ``limit`` + 1; None beyond.
    candidates : ndarray
        Values holding at least :data:`POINT_MASS_MIN_SHARE` of some chunk's observed cells:
        a value holding that share of the whole column holds it in some chunk.
    limit : int
    """

    rows: int
    observed: int
    integers: bool
    distinct: np.ndarray | None
    candidates: np.ndarray
    limit: int = INTEGER_MAX_CATEGORIES

    def __add__(self, other: CountEvidence) -> CountEvidence:
        distinct = None
        if self.distinct is not None and other.distinct is not None:
            distinct = np.union1d(self.distinct, other.distinct)
            if len(distinct) > self.limit + 1:
                distinct = None
        return CountEvidence(
            self.rows + other.rows,
            self.observed + other.observed,
            self.integers and other.integers,
            distinct,
            np.union1d(self.candidates, other.candidates),
            self.limit,
        )

    @property
    def few_values(self) -> bool:
        """Integers with at most ``limit`` distinct values: categorical, whatever the rest."""
        return (
            self.integers
            and self.observed > 0
            and self.distinct is not None
            and len(self.distinct) <= self.limit
        )


def count_evidence(column: pd.Series, limit=None) -> CountEvidence:
    """Step 1 of the chunked kinds rule for one chunk of a numeric column.

    Examples
    --------
    >>> a = count_evidence(pd.Series([1, 2, 2, None], dtype="Int64"))
    >>> b = count_evidence(pd.Series([2, 3]))
    >>> total = a + b
    >>> total.observed, total.integers, total.distinct.tolist(), total.candidates.tolist()
    (5, True, [1, 2, 3], [2, 3])
    >>> count_evidence(pd.Series([2.0, 3.0])).integers  # floats are measurements
    False
    """
    limit = INTEGER_MAX_CATEGORIES if limit is None else limit
    observed = column.notna().to_numpy()
    dtype = column.dtype
    n = int(observed.sum())
    none = np.array([], dtype=np.int64)
    if getattr(dtype, "kind", "O") in "iu":
        integers = column[observed].to_numpy(dtype=np.int64)
    else:  # a float column is a measurement, even of integers (issue 32 item 3)
        return CountEvidence(len(column), n, False, None, none, limit)
    values, counts = np.unique(integers, return_counts=True)
    return CountEvidence(
        len(column),
        n,
        True,
        values if len(values) <= limit + 1 else None,
        values[counts >= POINT_MASS_MIN_SHARE * n],
        limit,
    )


@dataclasses.dataclass
class ValueEvidence:
    """What the rest of the rule needs (step 2): candidate counts and the tested rows."""

    candidate_counts: np.ndarray
    tested_values: np.ndarray
    tested_classes: np.ndarray

    def __add__(self, other: ValueEvidence) -> ValueEvidence:
        return ValueEvidence(
            self.candidate_counts + other.candidate_counts,
            np.concatenate([self.tested_values, other.tested_values]),
            np.concatenate([self.tested_classes, other.tested_classes]),
        )


def value_evidence(column, candidates, classes, offset, step) -> ValueEvidence:
    """Step 2 for one chunk that starts at row ``offset`` of the whole column.

    ``classes``: the chunk's labels (missing ones have no class); ``step``: from
    :func:`tested_row_step` of the whole column's rows.
    """
    observed = column.notna().to_numpy()
    x = column.to_numpy(dtype=float, na_value=np.nan)
    if len(candidates):
        counts = np.array([np.count_nonzero(x[observed] == float(v)) for v in candidates])
    else:
        counts = np.zeros(0, dtype=np.int64)
    first = (-offset) % step  # the first row of the chunk whose global position step divides
    tested = np.zeros(len(x), dtype=bool)
    tested[first::step] = True
    tested &= observed
    labels = np.asarray(classes, dtype=object) if classes is not None else None
    return ValueEvidence(
        counts,
        x[tested],
        labels[tested] if labels is not None else np.full(int(tested.sum()), 0, dtype=object),
    )


def needs_values(evidence: CountEvidence, integer_dtype: bool) -> bool:
    """Whether step 1 left the kind open (step 2 must read the column again)."""
    if integer_dtype and evidence.observed == 0:
        return False
    return not evidence.few_values


def decided_kind(evidence: CountEvidence, integer_dtype: bool, values=None, numbers=None) -> str:
    """The kind :func:`~bnclassify.data.default_kind` gives the whole column, its classes
    known (``numbers`` as there: by default a continuous column is binned; with
    ``"density"`` it is Gaussian or log-normal).

    Examples
    --------
    >>> chunks = [pd.Series(np.arange(15) * 1.5), pd.Series(np.arange(15) * 2.5)]
    >>> evidence = sum(map(count_evidence, chunks[1:]), count_evidence(chunks[0]))
    >>> from bnclassify.data.kinds_rule import tested_row_step
    >>> step = tested_row_step(30)
    >>> values = value_evidence(chunks[0], evidence.candidates, None, 0, step) + value_evidence(
    ...     chunks[1], evidence.candidates, None, 15, step)
    >>> decided_kind(evidence, False, values), decided_kind(evidence, False, values, "density")
    ('binned', 'gaussian')
    """
    if integer_dtype and evidence.observed == 0:
        return "categorical"
    if evidence.few_values:
        return "categorical"
    if values is None:
        raise ValueError("values (step 2, value_evidence) are needed: step 1 left the kind open.")
    if evidence.integers and len(evidence.candidates):
        top = values.candidate_counts.max()
        if top >= POINT_MASS_MIN_SHARE * evidence.observed:
            return "categorical"
    numbers = kinds_rule.NUMERIC_KIND if numbers is None else numbers
    if numbers == "binned":
        return "binned"
    chosen = prefers_log_normal(values.tested_values, classes=values.tested_classes)
    return "lognormal" if chosen else "gaussian"
