"""The smoothing protocol: one family's counts in, its log conditional table out."""

from __future__ import annotations

import numpy as np

from .additive import log_conditional


class Smoothing:
    """How the counts of one family become its conditional probability table.

    ``counts`` has shape ``(n_classes, r_1, ..., r_p, r)``: ``N(c, x_1, ..., x_p, x)``
    with the axes in the order of the table's hierarchy, the class first and then
    the parents in the order the model states; the last axis is the child.
    :meth:`log_conditional` returns ``log P(x | c, x_1, ..., x_p)`` of the same
    shape, every last-axis row a distribution. A smoothing that samples reads its
    random numbers from ``rng`` only (a :class:`numpy.random.Generator`), so a
    seeded fit is repeatable.

    Examples
    --------
    >>> import numpy as np
    >>> from bnclassify.parameters import Laplace
    >>> np.exp(Laplace(1.0).log_conditional(np.array([[3.0, 1.0], [0.0, 0.0]])))
    array([[0.66666667, 0.33333333],
           [0.5       , 0.5       ]])
    """

    #: The name of the method, as the estimators' ``smoothing=`` parameter takes it.
    name = ""

    def log_conditional(self, counts: np.ndarray, rng=None) -> np.ndarray:
        raise NotImplementedError


class Laplace(Smoothing):
    """Additive smoothing: ``(N + alpha) / (N_parents + r alpha)`` cell by cell.

    The posterior mean under a symmetric Dirichlet(``alpha``) prior on each
    row, independent of every other row (``alpha=1``: Laplace's rule).

    Parameters
    ----------
    alpha : float, default=1.0
        The pseudo-count added to every cell.

    Examples
    --------
    >>> import numpy as np
    >>> np.exp(Laplace(0.5).log_conditional(np.array([1.0, 0.0])))
    array([0.75, 0.25])
    """

    name = "laplace"

    def __init__(self, alpha: float = 1.0):
        self.alpha = float(alpha)

    def log_conditional(self, counts: np.ndarray, rng=None) -> np.ndarray:
        return log_conditional(counts, self.alpha)

    def __repr__(self) -> str:
        return f"Laplace(alpha={self.alpha!r})"
