"""The statistics layer: everything a fit reads, computed once from the encoded table.

It takes arrays (codes, values, class codes) from the data layer and answers
the questions of :mod:`bnclassify.stats.protocol`; the layers above (weights,
structures, nodes, the network) never read the rows again. It imports only the
data layer, the validators and the array kernels.

- :mod:`~bnclassify.stats.counting`: class, family and pairwise counts with numpy;
- :mod:`~bnclassify.stats.moments`: additive Gaussian moments;
- :mod:`~bnclassify.stats.tables`: family log-tables counted in batches, or made by
  a smoothing method (:class:`SmoothedTables`);
- :mod:`~bnclassify.stats.training`: :class:`TrainingCounts`, the statistics of an
  in-memory table, and :func:`training_statistics`, the fit's front end (schema,
  encoding, statistics);
- :mod:`~bnclassify.stats.sufficient`: :class:`SufficientStatistics`, additive
  over chunks (``partial_fit``) and dask partitions;
- :mod:`~bnclassify.stats.forest`: :class:`ForestCounts`, one forest's families;
- :mod:`~bnclassify.stats.variables`: :class:`VariableCounts`, the distinct rows with the
  class as one more variable (the counts of any family of a general network).
"""

from .counting import (
    BLOCK_CELLS,
    PairwiseCounts,
    category_slices,
    class_counts,
    column_blocks,
    family_counts,
    feature_totals,
    one_hot,
    pair_block_counts,
    pair_child_counts,
    pairwise_counts,
    parent_pair_states,
)
from .forest import ForestCounts
from .moments import GaussianMoments
from .protocol import FamilyStatistics, Statistics
from .sufficient import (
    MAX_FAMILY_CELLS,
    MAX_NETWORK_CELLS,
    MAX_TRIPLE_CELLS,
    StatisticsPlan,
    SufficientStatistics,
    class_codes,
    moment_keys,
)
from .tables import FamilyBatch, FamilyTables, SmoothedTables
from .training import MAX_PAIRWISE_CELLS, TrainingCounts, training_statistics
from .variables import VariableCounts

__all__ = [
    "one_hot",
    "BLOCK_CELLS",
    "MAX_FAMILY_CELLS",
    "MAX_NETWORK_CELLS",
    "MAX_PAIRWISE_CELLS",
    "MAX_TRIPLE_CELLS",
    "FamilyBatch",
    "FamilyStatistics",
    "FamilyTables",
    "ForestCounts",
    "GaussianMoments",
    "PairwiseCounts",
    "SmoothedTables",
    "Statistics",
    "StatisticsPlan",
    "SufficientStatistics",
    "TrainingCounts",
    "VariableCounts",
    "category_slices",
    "class_codes",
    "class_counts",
    "column_blocks",
    "family_counts",
    "feature_totals",
    "moment_keys",
    "pair_block_counts",
    "pair_child_counts",
    "parent_pair_states",
    "pairwise_counts",
    "training_statistics",
]
