"""The smoothing protocol: one family's counts in, its log conditional table out."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator

from ..state import StateError
from ..validation import ALPHA
from .additive import log_conditional


class Smoothing(BaseEstimator):
    """How the counts of one family become its conditional probability table.

    ``counts`` has shape ``(n_classes, r_1, ..., r_p, r)``: ``N(c, x_1, ..., x_p, x)``
    with the axes in the order of the table's hierarchy, the class first and then
    the parents in the order the model states; the last axis is the child.
    :meth:`log_conditional` returns ``log P(x | c, x_1, ..., x_p)`` of the same
    shape, every last-axis row a distribution. A smoothing that samples reads its
    random numbers from ``rng`` only (a :class:`numpy.random.Generator`), so a
    seeded fit is repeatable.

    A method's options are its constructor's parameters (``get_params``,
    ``set_params`` and ``clone`` work as for scikit-learn estimators); model files
    store them, never any fitted state.

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
    #: Whether the method draws random numbers (estimators then seed it with ``random_state``).
    samples = False
    #: Whether :meth:`log_conditionals` also takes each table's shorter families
    #: (``prefixes=``), to count a row whose parent cell is missing at its observed prefix.
    partial_rows = False

    def log_conditional(self, counts: np.ndarray, rng=None) -> np.ndarray:
        raise NotImplementedError

    def log_conditionals(self, tables, rng=None) -> list:
        """:meth:`log_conditional` of every table in ``tables`` (a method may do them at once).

        Parameters
        ----------
        tables : list of ndarray
            Counts of each family, in hierarchy order.
        rng : numpy.random.Generator, optional

        Returns
        -------
        list of ndarray
        """
        return [self.log_conditional(counts, rng) for counts in tables]

    # -- model files: options only ------------------------------------------------------------
    def _get_state(self) -> dict:
        return {}

    @classmethod
    def _from_state(cls, state, params=None):
        if state:
            raise StateError(f"{cls.__name__} has no state, the file gives {sorted(state)}.")
        return cls(**(params or {}))


class Laplace(Smoothing):
    """Additive smoothing: ``(N + alpha) / (N_parents + r alpha)`` cell by cell.

    The posterior mean under a symmetric Dirichlet(``alpha``) prior on each
    row, independent of every other row (``alpha=1``: Laplace's rule). An
    estimator's ``smoothing="laplace"`` is this with its own ``alpha``.

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
    _parameter_constraints = {"alpha": ALPHA}

    def __init__(self, alpha: float = 1.0):
        self.alpha = alpha

    def log_conditional(self, counts: np.ndarray, rng=None) -> np.ndarray:
        return log_conditional(counts, float(self.alpha))


def generator(random_state) -> np.random.Generator:
    """A :class:`numpy.random.Generator` from a ``random_state`` as estimators take it.

    ``None`` (fresh entropy), an int seed, a ``Generator`` (used as is) or a legacy
    ``RandomState`` (a seed is drawn from it).

    Examples
    --------
    >>> float(generator(0).random()) == float(generator(0).random())
    True
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(np.iinfo(np.int32).max))
    if random_state is None or isinstance(random_state, numbers.Integral):
        return np.random.default_rng(random_state)
    raise TypeError(
        f"random_state must be None, an int, a numpy Generator or RandomState, got "
        f"{random_state!r}."
    )
