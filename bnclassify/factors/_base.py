"""The one node abstraction: a :class:`Factor` models one feature (or a group) given its parents.

Every kind of feature (categorical CPT, conditional linear Gaussian, kernel
density, Bernoulli, multinomial group) is a subclass. A factor is first a
specification (its hyper-parameters, as given to an estimator's
``distributions``), then, once :meth:`Factor.fit_family` has read the
sufficient statistics of its family, a fitted node that

- gives per-row log terms ``log p(x_child | c, x_parents)`` for every class
  (:meth:`Factor.log_terms`);
- gives its log table over its missing family members
  (:meth:`Factor.log_potential`, discrete nodes) or integrates its own missing
  value out and sends a message to its parent (:meth:`Factor.upward`,
  continuous nodes), which is how the network marginalises missing cells of
  any kind exactly;
- counts its free parameters (``n_parameters_``) and exports itself to pgmpy
  where pgmpy has the type (:meth:`Factor.to_pgmpy`);
- describes itself for plots (:meth:`Factor.describe`).

Nothing outside the factors asks what kind a feature is: the rest of the
library reads the capabilities declared here (``discrete``, ``continuous``,
``structural``, ``joint``).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator

from ..data.kinds import IDENTITY
from ..state import collect, require, restore
from ._views import within_view

LOG_2PI = float(np.log(2 * np.pi))
LOG_2 = float(np.log(2.0))


class Factor(BaseEstimator):
    """Base of every node model: a specification, then a fitted state.

    An estimator deep-copies the specification it is given and fits the copy,
    so one specification can be shared between estimators. Fitted copies carry
    ``columns_`` (the feature names they model) and ``parents_`` (their feature
    parents, the class excluded).

    Class attributes say what a kind can do; they are what the rest of the
    library reads instead of asking for the kind.
    """

    #: Short name used in ``feature_kinds_`` and accepted as a string spec.
    kind = None
    #: Whether the node may have feature parents and children (take part in trees).
    structural = False
    #: Whether it models a group of columns jointly.
    joint = False
    #: Whether its variable takes finitely many states (integer codes) rather than numbers.
    discrete = False
    #: Whether its variable is a real number with a density (drawn as curves).
    continuous = False
    #: Whether its variance floor scales with V, the largest variance of such columns.
    scaled_by_variance = False
    #: Whether its column is fitted in units of a power of two (see ``column_exponents``).
    rescaled = False
    #: How its column's numbers are read (the data layer applies it when it encodes a table).
    scale = IDENTITY
    #: Whether it reads its column(s) at all; False for the node of a column with no observed
    #: training value (:class:`~bnclassify.factors.Unobserved`), whose cells are all missing.
    informative = True
    #: A discrete kind of numeric columns: how the data layer learns its cut points
    #: (a ``bnclassify.data.binning.Binning``; ``None``: not binned).
    binning = None
    #: Once fitted: codes of the classes whose training values showed no spread, so that the
    #: node gave them a borrowed spread (continuous nodes; the estimator names them in a warning).
    constant_classes_: tuple = ()

    @property
    def support(self) -> str:
        """What its values must be, for the message about a value :meth:`model_values` refuses."""
        return self.scale.support

    #: What each hyper-parameter may be (see :mod:`bnclassify.validation`); checked with the
    #: estimator's parameters, at the start of its fit.
    _parameter_constraints: dict = {}

    # -- fitting ----------------------------------------------------------------------
    def _setup(self, columns, parents, names, discrete):
        """Record the family: column positions, parent positions split by discreteness."""
        if parents and not self.structural:
            raise ValueError(
                f"{[names[c] for c in columns]} is a {self.kind} node, which depends on the "
                f"class only; the structure gives it the parents {[names[p] for p in parents]}."
            )
        # list comprehensions, not generators: a wide network sets up a thousand nodes
        self._columns = tuple([int(c) for c in columns])
        self._discrete_parents = tuple([int(p) for p in parents if discrete[p]])
        self._continuous_parents = tuple([int(p) for p in parents if not discrete[p]])
        self.columns_ = tuple([names[i] for i in self._columns])
        self.parents_ = tuple([names[i] for i in self._discrete_parents + self._continuous_parents])

    @property
    def _parents(self) -> tuple:
        return (*self._discrete_parents, *self._continuous_parents)

    # -- the family, by column position (what other layers read) ------------------------
    @property
    def column_positions(self) -> tuple:
        """Positions (in the training columns) of the column(s) this fitted node models.

        ``columns_`` holds the same columns by name.
        """
        return self._columns

    @property
    def parent_positions(self) -> tuple:
        """Positions of the feature parents: the discrete ones first, then the continuous."""
        return self._parents

    @property
    def discrete_parent_positions(self) -> tuple:
        """Positions of the discrete feature parents, in the order of the node's table axes."""
        return self._discrete_parents

    @property
    def continuous_parent_positions(self) -> tuple:
        """Positions of the continuous feature parents, in the order of ``coef_``'s last axis."""
        return self._continuous_parents

    def fit_family(self, stats, columns, parents, alpha, names):
        """Fit from the training statistics (a :class:`~bnclassify.stats.TrainingCounts`).

        Parameters
        ----------
        stats : TrainingCounts
        columns : tuple of int
            The column(s) this factor models.
        parents : tuple of int
            Feature parents (the class is always a parent).
        alpha : float
            The estimator's Dirichlet pseudo-count.
        names : list of str
            Every feature's name, for messages and ``columns_``/``parents_``.
        """
        raise NotImplementedError

    def model_values(self, x):
        """The numbers of a continuous column as this node models them, and the cells outside
        its support: ``(values, outside)``, as its :attr:`scale` gives them.

        The data layer encodes every table (fit and predict alike) on this scale,
        so the node's own fit, its children's regressions and every prediction see
        the same numbers. ``outside`` is a boolean mask of the observed cells the
        node cannot model, or ``None``.
        """
        return self.scale.model_values(x)

    def data_values(self, values):
        """The inverse of :meth:`model_values`: a column's values in the data's own units."""
        return self.scale.data_values(values)

    def axis_label(self, name) -> str:
        """How a plot axis names this node's values as :meth:`model_values` gives them."""
        return self.scale.axis_label(name)

    def variance_floor(self, log_scale, exponent=0) -> float:
        """The variance added to this node's variances given ``log V = log_scale`` (0 for most).

        In the column's internal units, ``2**exponent`` (1 unless ``rescaled``).
        """
        return 0.0

    # -- prediction -----------------------------------------------------------------
    def log_terms(self, codes, values) -> np.ndarray:
        """``log p(x | c, parents)`` of rows whose family is observed, shape ``(n, n_classes)``.

        A missing value of the factor's own variable with no children gives 0
        (it integrates to 1).
        """
        raise NotImplementedError

    def log_potential(self, codes, free):
        """A discrete node's log table over its family's members ``free``, missing in every
        row of ``codes``: ``(index, table)``, ``table[index]`` of shape ``(n, n_classes,
        *states of free)`` (see :meth:`bnclassify.factors.Categorical.log_potential`).

        The network sums a missing discrete cell out of these tables; a structural
        discrete kind implements it.
        """
        raise NotImplementedError(
            f"{type(self).__name__} gives no log table over its family's missing members."
        )

    def upward(self, codes, values, incoming, target):
        """Sum this node out given its evidence and the messages from its children.

        Parameters
        ----------
        codes, values : ndarray of shape (n, m)
            Encoded rows (missing cells: code -1 / NaN).
        incoming : message or None
            The product of the children's messages, in this node's own space.
        target : int or None
            The parent receiving the message (``None`` for a root).

        Returns
        -------
        const : ndarray of shape (n, n_classes)
            Log terms that no longer depend on any variable.
        message : message or None
            A function of ``target``'s value, in ``target``'s space.
        """
        if incoming is not None:
            raise ValueError(
                f"{self.columns_} is a {self.kind} node and cannot have feature children."
            )
        return self.log_terms(codes, values), None

    def combine(self, a, b):
        """The product of two messages about this node's variable (``None`` is 1)."""
        raise ValueError(f"{self.columns_} is a {self.kind} node and cannot have feature children.")

    @property
    def n_parameters_(self) -> int:
        raise NotImplementedError

    def describe(self):
        """The data a plot of this node needs, as a view of :mod:`bnclassify.factors._views`.

        A :class:`~bnclassify.factors.TableView` for nodes with finitely many
        states, a :class:`~bnclassify.factors.DensityView` for densities and a
        :class:`~bnclassify.factors.RegressionView` for a density linear in a
        real-valued parent.
        """
        raise NotImplementedError(f"{type(self).__name__} has no plot description.")

    def to_pgmpy(self, class_node, state_names):
        """The node as a pgmpy CPD; a ``TypeError`` where pgmpy's discrete networks cannot."""
        raise TypeError(
            f"{self.columns_} is a {self.kind} node; a pgmpy DiscreteBayesianNetwork "
            "holds categorical nodes only."
        )

    # -- declared state (the fields of a model file; see bnclassify.state) ---------------
    #: Attribute -> field of the family every fitted node records.
    _FAMILY_FIELDS = {
        "_columns": "columns",
        "_discrete_parents": "discrete_parents",
        "_continuous_parents": "continuous_parents",
        "columns_": "columns_",
        "parents_": "parents_",
    }
    #: Attribute -> field of the kind's own fitted state (each kind declares its own).
    _FITTED_FIELDS: dict | None = None

    def _get_state(self) -> dict:
        """The fitted state by field: the family's positions and names, then the kind's arrays."""
        if self._FITTED_FIELDS is None:
            raise TypeError(
                f"{type(self).__name__} declares no fitted state (_FITTED_FIELDS and "
                "check_fitted), so a model file cannot hold it."
            )
        return collect(vars(self), {**self._FAMILY_FIELDS, **self._FITTED_FIELDS})

    @classmethod
    def _from_state(cls, state, params=None):
        """The node rebuilt from :meth:`_get_state`'s fields; an unfitted specification has none.

        The kind's arrays are checked on their own here, against the classes and the
        columns' categories by :meth:`check_fitted`.
        """
        fields = {**cls._FAMILY_FIELDS, **(cls._FITTED_FIELDS or {})}
        node = restore(cls(**(params or {})), fields, state, cls.__name__)
        if not state:
            return node
        missing = [f for f in cls._FAMILY_FIELDS.values() if f not in state]
        require(not missing, cls.__name__, f"a fitted node needs the fields {missing}.")
        for field in ("columns", "discrete_parents", "continuous_parents"):
            require(
                isinstance(state[field], tuple)
                and all(isinstance(p, int) and not isinstance(p, bool) for p in state[field]),
                f"{cls.__name__}.{field}",
                "must be a tuple of column positions.",
            )
        require(
            len(state["columns_"]) == len(state["columns"])
            and len(state["parents_"])
            == len(state["discrete_parents"]) + len(state["continuous_parents"])
            and state["columns"],
            f"{cls.__name__}.columns_",
            "the names and positions of the family differ in number.",
        )
        return node

    def check_fitted(self, n_classes, cards):
        """Check the fitted arrays against the number of classes and the columns' states.

        Raises :class:`~bnclassify.state.StateError` (a ``ValueError``) naming the
        field when a shape or a value is not what a fit gives (e.g. a loaded model
        file that contradicts itself).

        Parameters
        ----------
        n_classes : int
        cards : array of int
            Number of states of every column (1 for a continuous one).

        Examples
        --------
        >>> from bnclassify import NaiveBayes
        >>> model = NaiveBayes().fit([[0], [1], [1]], [0, 1, 1])
        >>> model.compiled_.factors[0].check_fitted(2, model.schema_.cards)
        """
        raise NotImplementedError

    def _family_shape(self, n_classes, cards) -> tuple:
        return (n_classes, *(int(cards[p]) for p in self._discrete_parents))


def scaled_floor(var_smoothing, log_scale, exponent=0) -> float:
    """``var_smoothing V / 4**exponent`` from ``log V``, capped at the largest float."""
    if var_smoothing == 0:
        return 0.0
    log_floor = np.log(var_smoothing) + log_scale - 2 * LOG_2 * exponent
    return float(np.exp(min(log_floor, np.log(np.finfo(float).max))))


def zero_variance_error(name, where):
    return ValueError(
        f"Feature {name!r} has zero variance {where} and var_smoothing=0; "
        "use var_smoothing > 0 to put a floor under the variances."
    )


def log_normal(x, mean, var):
    """log N(x; mean, var), elementwise (``-inf`` where the density underflows to 0)."""
    # a value far out in a narrow density: (x - mean)^2 / var overflows to inf, whose -inf
    # log density the prediction handles (a class without support for the row)
    with np.errstate(over="ignore"):
        return -0.5 * (LOG_2PI + np.log(var) + (x - mean) ** 2 / var)


def log_normal_sd(x, mean, sd):
    """log N(x; mean, sd**2) from the standard deviation, elementwise: a spread so small
    (subnormal) that its square underflows, or so large that it overflows, is still exact
    (``-inf`` where the density underflows to 0, as in :func:`log_normal`)."""
    with np.errstate(over="ignore"):
        return -0.5 * LOG_2PI - np.log(sd) - 0.5 * ((x - mean) / sd) ** 2


def spread_range(mean, sd, k):
    """``(low, high)``: every ``mean -+ k sd``, within :data:`~._views.VIEW_LIMIT`."""
    with np.errstate(over="ignore"):  # a spread near the float maximum: the range's end
        return within_view((mean - k * sd).min(), (mean + k * sd).max())


def observed_only(x, term_of_observed, n_classes):
    """Per-row terms for observed values of ``x`` and 0 (integrated out) for missing ones."""
    observed = ~np.isnan(x)
    out = np.zeros((len(x), n_classes))
    if observed.any():
        out[observed] = term_of_observed(x[observed])
    return out
