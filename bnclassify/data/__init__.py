"""The data layer: what each column is, and the table as codes and numbers.

The lowest layer of the library (above only the validators and the array
kernels): it imports nothing from the statistics, the nodes or anything above
them.

- :mod:`~bnclassify.data.kinds`: the node kinds as plain descriptors (the
  factors layer registers one per node class);
- :mod:`~bnclassify.data.frames`: a user's ``X`` as a DataFrame;
- :mod:`~bnclassify.data.kinds_rule`: how a column is modelled by default
  (:func:`default_kind`); :mod:`~bnclassify.data.kinds_evidence`: the same rule
  over a table read in chunks (a dask DataFrame's partitions);
- :mod:`~bnclassify.data.encoding`: the column codecs (categories, codes, numbers);
- :mod:`~bnclassify.data.targets`: the class labels, coded by hashing;
- :mod:`~bnclassify.data.schema`: :class:`TableSchema`, learned once from the
  training table, which aligns and encodes every later table;
- :mod:`~bnclassify.data.identifiers`: columns that cannot generalise (a
  written-out row index, identifiers), which a fit warns about;
- :mod:`~bnclassify.data.scaling`: powers of two that keep continuous columns'
  moments far from overflow.

A table becomes

- ``codes`` (n, m): integer codes of the discrete columns (missing:
  :data:`MISSING`), a one-state dummy (0, or -1 where missing) for the others;
- ``values`` (n, m) or ``None``: the numbers of the continuous columns (NaN:
  missing), ``None`` when every column is discrete.

Examples
--------
>>> import pandas as pd
>>> from bnclassify.data import TableSchema
>>> X = pd.DataFrame({"site": ["a", "b", "a"], "size": [1.5, 2.5, 0.5]})
>>> schema, frame = TableSchema.learn(X)
>>> schema.kinds
['categorical', 'gaussian']
>>> codes, values = schema.encode(frame)
>>> codes[:, 0].tolist(), values[:, 1].tolist()
([0, 1, 0], [1.5, 2.5, 0.5])
"""

from . import incremental
from .binning import MAX_BINNED_VALUES, ValueClassCounts
from .encoding import HANDLE_UNKNOWN, MISSING, encode_frame, learn_categories
from .frames import as_frame, take_rows
from .identifiers import IdentifierColumnWarning, identifier_columns, row_number_columns
from .kinds import (
    IDENTITY,
    LOG,
    Kind,
    NodeSpec,
    ValueScale,
    get_kind,
    kind_names,
    kind_of,
    node_spec,
    register_kind,
    unregister_kind,
)
from .kinds_evidence import (
    CountEvidence,
    ValueEvidence,
    count_evidence,
    decided_kind,
    needs_values,
    value_evidence,
)
from .kinds_rule import (
    DENSITY,
    DENSITY_KINDS,
    INTEGER_MAX_CATEGORIES,
    LOG_NORMAL_MIN_LOG_SD,
    LOG_NORMAL_MIN_Z,
    NUMERIC_KIND,
    POINT_MASS_MIN_SHARE,
    default_kind,
    dtype_family,
    prefers_log_normal,
    tested_row_step,
)
from .scaling import NO_EXPONENT, centred_columns, column_exponents, log_largest
from .schema import (
    UNOBSERVED,
    TableSchema,
    resolve_column,
    warn_identifiers,
    warn_unobserved,
    warn_unseen,
    warn_zero_variance,
)
from .targets import CROWDED_WARNING, crowded, declared_classes, encode_target

__all__ = [
    "CROWDED_WARNING",
    "DENSITY",
    "DENSITY_KINDS",
    "MAX_BINNED_VALUES",
    "ValueClassCounts",
    "dtype_family",
    "incremental",
    "CountEvidence",
    "ValueEvidence",
    "count_evidence",
    "decided_kind",
    "needs_values",
    "tested_row_step",
    "value_evidence",
    "LOG_NORMAL_MIN_LOG_SD",
    "HANDLE_UNKNOWN",
    "IDENTITY",
    "LOG",
    "INTEGER_MAX_CATEGORIES",
    "LOG_NORMAL_MIN_Z",
    "MISSING",
    "NUMERIC_KIND",
    "NO_EXPONENT",
    "POINT_MASS_MIN_SHARE",
    "IdentifierColumnWarning",
    "Kind",
    "NodeSpec",
    "TableSchema",
    "UNOBSERVED",
    "ValueScale",
    "as_frame",
    "column_exponents",
    "crowded",
    "declared_classes",
    "default_kind",
    "encode_frame",
    "encode_target",
    "get_kind",
    "identifier_columns",
    "kind_names",
    "kind_of",
    "learn_categories",
    "log_largest",
    "node_spec",
    "prefers_log_normal",
    "register_kind",
    "resolve_column",
    "row_number_columns",
    "take_rows",
    "unregister_kind",
    "warn_identifiers",
    "warn_unobserved",
    "warn_unseen",
    "warn_zero_variance",
    "centred_columns",
]
