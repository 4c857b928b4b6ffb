"""What a fitted factor looks like on paper: the data a node's plot needs, free of matplotlib.

:meth:`Factor.describe` returns one of these views; :func:`bnclassify.plotting.plot_cpt`
draws it. Each view is indexed by class and by the configuration of the
node's categorical parents (row-major over their states, one configuration
when there are none), the layout of a CPT's rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TableView:
    """A node with finitely many states: ``table[c, k, s] = P(state s | c, configuration k)``.

    ``states`` labels the states; ``None`` means the model's categories of the column.
    """

    table: np.ndarray  # (n_classes, n_configurations, n_states)
    states: list | None = None


@dataclass(frozen=True)
class DensityView:
    """A real-valued node with a density given the class and its categorical parents.

    ``log_density(grid)`` has shape ``(len(grid), n_classes, n_configurations)``;
    ``low`` and ``high`` bound where the densities have their mass.
    """

    log_density: Callable[[np.ndarray], np.ndarray]
    low: float
    high: float

    @property
    def value_range(self) -> tuple:
        """Where the node's values lie: ``(low, high)``."""
        return self.low, self.high


@dataclass(frozen=True)
class RegressionView:
    """A real-valued node linear in a real-valued parent: ``x = a + b * parent + N(0, sd^2)``.

    Arrays are ``(n_classes, n_configurations)``. With several real-valued
    parents, ``parent`` is the first one and ``intercept`` holds the others at
    their training means. ``low`` and ``high`` span the parent's training
    values (its mean +- 3 standard deviations).
    """

    parent: str
    intercept: np.ndarray
    slope: np.ndarray
    sd: np.ndarray
    low: float
    high: float

    @property
    def value_range(self) -> tuple:
        """Where the node's values lie: the lines over the parent's span, +- 4 sd."""
        ends = self.mean(np.array([self.low, self.high]))
        return float((ends - 4 * self.sd).min()), float((ends + 4 * self.sd).max())

    def mean(self, grid) -> np.ndarray:
        """The line at the parent values ``grid``, shape (len(grid), C, configurations)."""
        return self.intercept + self.slope * np.asarray(grid, dtype=float)[:, None, None]
