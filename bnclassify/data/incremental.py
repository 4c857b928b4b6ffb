"""What an incremental fit may not learn from one chunk: the checks that keep ``partial_fit``
equal to ``fit`` on the same rows, or refuse with the columns and the remedies.

``partial_fit`` fixes each column's kind and categories' coding at its first call and
then only adds statistics, which are exact over any chunking. Two things ``fit`` learns
from all its rows at once cannot be added up that way, so they must be fixed before the
first chunk, and a chunk that would change them is refused
(:class:`~bnclassify.exceptions.OutOfCoreError`, the model left as it was):

- a binned column's cut points (:func:`check_fixed`): given with its node,
  ``Binned(cut_points=...)``, e.g. learned by ``MDLDiscretizer.partial_fit`` in one
  pass over the chunks (exactly those of ``fit``);
- a kind the kinds rule reads from a column's values (:func:`check_fixed`,
  :func:`check_chunk`, :func:`check_value_counts`): a density's Gaussian-or-log-normal
  choice (final only once a value <= 0 was seen), an integer column read as a number or
  as categories (checked on every call from the accumulated counts of its values), and
  a dtype that changes between chunks so that the concatenated column would be read as
  another kind (``pd.read_csv`` makes an integer column with a missing cell float).

Examples
--------
>>> import pandas as pd
>>> from bnclassify.data import TableSchema
>>> first = pd.DataFrame({"code": [1, 2, 2], "size": [0.5, 1.5, 2.5]})
>>> schema, _ = TableSchema.learn(first, {"size": "gaussian"}, False, y=["a", "b", "a"])
>>> check_fixed(schema, "TAN")  # no binned column, no provisional kind: nothing to fix
>>> check_chunk(schema, first.assign(code=[1.0, None, 3.0]))
Traceback (most recent call last):
...
bnclassify.exceptions.OutOfCoreError: Column 'code' held integers in the first chunk ...
"""

from __future__ import annotations

import numpy as np

from ..exceptions import OutOfCoreError
from . import kinds_rule
from .kinds import kind_of
from .kinds_rule import categorical_by_value_counts, dtype_family


def _listed(names) -> str:
    return ", ".join(repr(n) for n in names)


def bins_remedy(owner, names, densities=True) -> str:
    """How to fix the cut points of the binned columns ``names`` before a first ``partial_fit``
    (``densities``: whether the model takes density nodes, a third remedy)."""
    columns = list(names)
    remedy = (
        "Fix them before the first call, by one of: (1) one exact pass over the chunks, "
        f"mdl = bnclassify.preprocessing.MDLDiscretizer(columns={columns!r}) with "
        f"mdl.partial_fit(X_chunk, y_chunk) on every chunk, then "
        f"{owner}(distributions=mdl.to_distributions()) (with any other entries of "
        "distributions added): the cut points fit learns from all the rows; (2) given cut "
        f"points, distributions={{{columns[0]!r}: bnclassify.distributions.Binned("
        "cut_points=[...])}"
    )
    if not densities:
        return remedy + "."
    gaussian = ", ".join(f"{n!r}: 'gaussian'" for n in columns)
    return (
        f"{remedy}; (3) densities, whose statistics add up exactly over chunks, "
        f"distributions={{{gaussian}}} (or 'lognormal' for a positive, skewed column)."
    )


def check_fixed(schema, owner, fitted_by=None, densities=True) -> None:
    """Refuse a ``partial_fit`` whose schema learned from rows what chunks cannot add up.

    Parameters
    ----------
    schema : TableSchema
        The first chunk's (``fitted_by=None``), or the schema a fit learned.
    owner : str
        The estimator's class name, for the message.
    fitted_by : str, optional
        ``"fit"`` or ``"a dask fit"`` when the model continues from one.
    densities : bool, default=True
        Whether the model takes density nodes (a remedy the message offers).

    Raises
    ------
    OutOfCoreError
        Naming the binned columns whose cut points are learned, or the columns whose
        kind the kinds rule chose from values more rows could overturn, and the remedies.
    """
    names = schema.names
    learned = [names[j] for j in np.flatnonzero(schema.learned_bins)]
    if learned:
        if fitted_by is None:
            start = (
                f"{owner}.partial_fit cannot learn the cut points of the binned column(s) "
                f"{_listed(learned)} one chunk at a time: fit learns them (MDL) from all the "
                "rows at once, and counting later chunks in intervals learned from the first "
                "would give another model than fit on the same rows. "
            )
        else:
            start = (
                f"This {owner} learned the cut points of its binned column(s) "
                f"{_listed(learned)} from the rows of {fitted_by}; partial_fit would count "
                "new rows in those intervals, while fit on all the rows would learn others. "
                "To fit incrementally, start from partial_fit with the cut points fixed. "
            )
        raise OutOfCoreError(start + bins_remedy(owner, learned, densities), learned)
    provisional = [j for j in schema.provisional_kinds if j not in schema.unobserved]
    if provisional:
        chosen = ", ".join(f"{names[j]!r}: {schema.kinds[j]!r}" for j in provisional)
        where = "one chunk" if fitted_by is None else f"the rows of {fitted_by}"
        columns = [names[j] for j in provisional]
        raise OutOfCoreError(
            f"{owner}.partial_fit cannot keep the kind the kinds rule chose for "
            f"{_listed(columns)} from {where}: it models a positive numeric column as "
            "log-normal or Gaussian, and an integer column as a number unless one value "
            "holds half its rows, by reading all the rows, so later chunks could overturn "
            "it. Name the kinds before the first call, e.g. what these rows give: "
            f"distributions={{{chosen}}} (a Gaussian column holding a value <= 0 needs no "
            "name).",
            columns,
        )


def check_chunk(schema, frame) -> None:
    """Refuse a later chunk whose dtypes would make ``fit`` on the concatenated chunks read a
    column the kinds rule decided as another kind (an integer column arriving as floats, a
    numeric column arriving as text).

    ``frame`` is the chunk, aligned to ``schema``.
    """
    for j, first in schema.rule_dtypes.items():
        now = dtype_family(frame.dtypes.iloc[j])
        name, kind = schema.names[j], kind_of(schema.nodes_by_column[j]).name
        if first == "integer" and now == "float":
            raise OutOfCoreError(
                f"Column {name!r} held integers in the first chunk ({kind} by the kinds rule) "
                f"and floats in this one ({frame.dtypes.iloc[j]}), as pd.read_csv reads an "
                "integer column with a missing cell: fit on the chunks together would read it "
                "as a number. Read it as integers with missing cells (pd.read_csv(..., "
                f"dtype={{{name!r}: 'Int64'}})), or name its kind before the first call "
                f"(distributions={{{name!r}: 'categorical'}}).",
                [name],
            )
        if first == "float" and now == "other":
            raise OutOfCoreError(
                f"Column {name!r} held numbers in the first chunk ({kind} by the kinds rule) "
                f"and {frame.dtypes.iloc[j]} values in this one: fit on the chunks together "
                "would read it as categories. Give every chunk the same dtype (e.g. "
                "pd.to_numeric), or name its kind before the first call.",
                [name],
            )


def counted_columns(schema) -> list:
    """Positions of the integer columns the kinds rule made categorical: whether they stay so
    is read from the accumulated counts of their values (:func:`check_value_counts`)."""
    return [
        j
        for j, family in schema.rule_dtypes.items()
        if family == "integer" and kind_of(schema.nodes_by_column[j]).name == "categorical"
    ]


def check_value_counts(schema, counts, owner="the model", densities=True) -> None:
    """Refuse a chunk after which the kinds rule would no longer make a column categorical.

    ``counts`` maps each of :func:`counted_columns` to the (weighted) number of rows so far
    holding each of its values; ``owner``: the estimator's class name, and ``densities``:
    whether it takes density nodes, for the message's remedies.
    """
    for j, column_counts in counts.items():
        column_counts = np.asarray(column_counts, dtype=float)
        if not column_counts.any() or categorical_by_value_counts(column_counts):
            continue
        name = schema.names[j]
        numbers = kinds_rule.NUMERIC_KIND
        raise OutOfCoreError(
            f"Column {name!r} holds {np.count_nonzero(column_counts)} distinct integers in the "
            "rows so far, none of them in half the rows: fit on those rows would model it as "
            f"a number ({numbers}), not as the categorical column the kinds rule made it from "
            "the first chunk. Name its kind before the first call: "
            f"distributions={{{name!r}: 'categorical'}} keeps it categorical; as a number, "
            f"fix its bins as for any binned column. {bins_remedy(owner, [name], densities)}",
            [name],
        )


__all__ = [
    "bins_remedy",
    "check_chunk",
    "check_fixed",
    "check_value_counts",
    "counted_columns",
]
