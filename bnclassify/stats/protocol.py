"""The questions every statistics object answers: one declared interface for every fit.

Every later stage of a fit (edge weights, structures, nodes) reads the training
data only through these questions, never the rows, so a model is fitted the same
way from an in-memory table (:class:`~bnclassify.stats.TrainingCounts`), from
statistics summed over chunks or dask partitions
(:class:`~bnclassify.stats.SufficientStatistics`) or from the few tables an
ensemble shares (:class:`~bnclassify.stats.ForestCounts`).

Two levels:

- :class:`FamilyStatistics`: what a node reads to fit itself (class counts, a
  family's counts, their smoothed logarithms). Every statistics object answers
  these.
- :class:`Statistics`: adds what structure learning reads (every pair's
  class-conditional table, Gaussian moments, each node's own sums, the variance
  scale). :class:`~bnclassify.stats.TrainingCounts` and
  :class:`~bnclassify.stats.SufficientStatistics` answer these; the latter also
  adds: ``a + b`` is the statistics of both tables.

Examples
--------
>>> import numpy as np
>>> from bnclassify.stats import Statistics, TrainingCounts
>>> codes = np.array([[0, 1], [1, 1], [1, 0]])
>>> stats = TrainingCounts(codes, np.array([0, 1, 1]), np.array([2, 2]), 2)
>>> isinstance(stats, Statistics)
True
>>> stats.family(1, (0,))[1]  # N(c=1, x_0, x_1)
array([[0., 0.],
       [1., 1.]])
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class FamilyStatistics(Protocol):
    """What a node reads to fit itself.

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
        The (weighted) number of rows of each class.
    n_classes : int
    discrete : ndarray of bool, shape (n_features,)
        Whether each column takes codes (True) or numbers.
    """

    classes: np.ndarray
    n_classes: int
    discrete: np.ndarray

    def family(self, child: int, parents=()) -> np.ndarray:
        """N(c, x_parents..., x_child), shape ``(n_classes, *parent cards, child card)``."""

    def log_family(self, child: int, parents, alpha: float) -> np.ndarray:
        """``log P(x_child | c, x_parents)`` with Dirichlet pseudo-count ``alpha``."""

    def prefetch_families(self, children, parents_of) -> None:
        """Say which families will be asked for next, so they can be counted together."""


@runtime_checkable
class Statistics(FamilyStatistics, Protocol):
    """What structure learning reads, besides what a node reads.

    Attributes
    ----------
    cards : ndarray of int, shape (n_features,)
        Categories of each discrete column (1 for a continuous one).
    n_features : int
    variance_scale : float
        V, the largest variance of the columns whose variance floors scale with it.
    """

    cards: np.ndarray
    n_features: int
    variance_scale: float

    @property
    def pairwise(self):
        """Every pair's class-conditional table N(c, x_i, x_j), as a ``PairwiseCounts``."""

    def pair_table(self, rows, cols) -> np.ndarray:
        """N(c, x_i, x_j) of the blocks of columns ``rows`` x ``cols``."""

    def category_counts(self, features) -> np.ndarray:
        """N(c, x) of each category of ``features``, concatenated."""

    @property
    def feature_class(self) -> list:
        """N(c, x_j) of every feature, as a list of ``(n_classes, card)`` tables."""

    def gaussian_moments(self, child, discrete_parents=(), continuous_parents=()):
        """The :class:`~bnclassify.stats.GaussianMoments` of a Gaussian family."""

    def kept_node_sums(self, columns) -> dict | None:
        """A class-only node's additive sums (Bernoulli, multinomial), if these statistics
        keep them (summed statistics do; in-memory ones answer None: the node reads
        the rows' values)."""
