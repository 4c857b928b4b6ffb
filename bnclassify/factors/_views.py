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

#: The largest magnitude a view's value range reaches: a plot's axis (its span, and
#: matplotlib's tick steps of up to 20 powers of ten) must stay within the floats, which a
#: column spread near the float maximum (1e308) would not.
VIEW_LIMIT = float(np.finfo(float).max / 1e3)


def within_view(low, high) -> tuple:
    """``(low, high)`` clipped to ``[-VIEW_LIMIT, VIEW_LIMIT]``, as floats (an end that is
    not a number, from infinities, is the limit)."""
    low = float(low) if low > -VIEW_LIMIT else -VIEW_LIMIT
    high = float(high) if high < VIEW_LIMIT else VIEW_LIMIT
    return low, high


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
        """Where the node's values lie: ``(low, high)``, within :data:`VIEW_LIMIT`."""
        return within_view(self.low, self.high)


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
        with np.errstate(over="ignore", invalid="ignore"):  # beyond the floats: the ends
            ends = self.mean(np.array([self.low, self.high]))
            low, high = (ends - 4 * self.sd).min(), (ends + 4 * self.sd).max()
        return within_view(low, high)

    def mean(self, grid) -> np.ndarray:
        """The line at the parent values ``grid``, shape (len(grid), C, configurations)."""
        return self.intercept + self.slope * np.asarray(grid, dtype=float)[:, None, None]
