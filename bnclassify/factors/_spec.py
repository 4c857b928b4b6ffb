"""What an estimator's ``distributions`` parameter may be: one declared constraint.

The estimators list :data:`~bnclassify.factors.DISTRIBUTIONS` in their
``_parameter_constraints``; checking it checks each node model's own
parameters (``var_smoothing``, ``prior_strength``, ``alpha``, ``bandwidth``,
...) against that model's table, so a bad node parameter is refused at the
start of ``fit`` like any other. Which columns the keys name is known only
with the data (:class:`~bnclassify.data.TableSchema` resolves them).
"""

from __future__ import annotations

from collections.abc import Hashable

from ..data import DENSITY
from ..validation import Constraint, validate_parameters
from ._base import Factor
from ._categorical import Categorical


class DistributionSpec(Constraint):
    """``None``, ``"density"``, a kind's name, a node model, or a dict from columns to either.

    Parameters
    ----------
    kinds : dict
        The kinds' names and their node classes (:data:`bnclassify.factors.KINDS`).

    Examples
    --------
    >>> from bnclassify.factors import DISTRIBUTIONS, Gaussian
    >>> DISTRIBUTIONS.check({"age": "gaussian", ("n1", "n2"): "multinomial"}) is None
    True
    >>> DISTRIBUTIONS.check({"age": "poisson"})
    "Unknown distribution 'poisson' for column(s) 'age'"
    >>> DISTRIBUTIONS.check("density") is None  # the kinds rule, numbers as densities
    True
    >>> DISTRIBUTIONS.check(Gaussian(prior_strength=-1))
    Traceback (most recent call last):
    ...
    bnclassify.exceptions.InvalidParameterError: Gaussian (distributions): prior_strength must be
    a finite number >= 0, got -1.
    """

    #: Whether a numeric column may be a density node (the remedies a refusal may offer).
    densities = True

    def __init__(self, kinds):
        self.kinds = kinds  # the registry itself: kinds registered later are valid too

    @property
    def description(self) -> str:
        return (
            f"one of {tuple(sorted(self.kinds))}, a bnclassify.distributions instance, a dict "
            "mapping columns (names, positions or tuples of them) to those, 'density' (the "
            "kinds rule with numeric columns as densities), or None (the kinds rule)"
        )

    def check(self, value):
        if value is None or (isinstance(value, str) and value == DENSITY):
            return None  # "density": the kinds rule, numeric columns as densities
        if isinstance(value, dict):
            for key, spec in value.items():
                reason = self._entry(key, spec)
                if reason is not None:
                    return reason
            return None
        if isinstance(value, str | Factor):
            return self._spec(value, "distributions")
        return ""

    def _entry(self, key, spec) -> str | None:
        if isinstance(key, tuple) and not key:
            return "it has an empty tuple of columns"
        if not isinstance(key, Hashable):
            return f"its key {key!r} is not a column name, position or tuple of them"
        where = f"distributions[{key!r}]"
        reason = self._spec(spec, where)
        if reason is not None:
            return reason or f"{where} is {spec!r}"
        joint = self.kinds.get(spec, Factor) if isinstance(spec, str) else type(spec)
        if joint.joint and not (isinstance(key, tuple) and len(key) >= 2):
            return (
                f"a multinomial models a group of count columns jointly; column(s) {key!r} is "
                "a single column. Give the group as a tuple of columns"
            )
        return None

    def _spec(self, spec, where) -> str | None:
        """Why ``spec`` is not a kind's name or a valid node model (``None``: it is)."""
        if isinstance(spec, str):
            if spec in self.kinds:
                return None
            column = where.removeprefix("distributions[").removesuffix("]")
            on = f" for column(s) {column}" if where != "distributions" else ""
            if spec == DENSITY:
                return (
                    f"{spec!r}{on}: 'density' is for the whole table (distributions='density'); "
                    "for one column give 'gaussian' or 'lognormal'"
                )
            return f"Unknown distribution {spec!r}{on}"
        if isinstance(spec, Factor) and spec.kind is not None:
            validate_parameters(spec, owner=f"{type(spec).__name__} ({where})")
            return None
        return ""


class TableSpec(DistributionSpec):
    """``distributions`` of a model whose every node is a table: densities are refused.

    :class:`~bnclassify.SKDB`, :class:`~bnclassify.ESKDB` and
    :class:`~bnclassify.BMATAN` score tables only (a leave-one-out pass over
    codes, sums over trees of categorical families), so they cut every numeric
    column into MDL bins themselves. Their ``distributions`` says which columns
    are numbers to cut and which are categories: ``None`` (the kinds rule),
    ``"categorical"`` or ``"binned"`` (or a :class:`Categorical` or
    :class:`~bnclassify.distributions.Binned` instance), for the whole table or
    per column in a dict. ``"density"`` and every density kind are refused,
    before any data is read, with the model's name; so are cut points given
    with a ``Binned`` node: these models learn their own. With ``cut_points=True``
    (:data:`~bnclassify.factors.CUT_TABLE_DISTRIBUTIONS`: :class:`~bnclassify.BayesNetClassifier`,
    :class:`~bnclassify.AnDE`, :class:`~bnclassify.HNB`, which bin through the table's
    schema as :class:`~bnclassify.TAN` does) given cut points are taken, so that
    ``partial_fit`` can count numeric columns in bins fixed before the first chunk.

    Parameters
    ----------
    kinds : dict
        As in :class:`DistributionSpec`.
    cut_points : bool, default=False
        Whether a :class:`~bnclassify.distributions.Binned` node may give its cut points.

    Examples
    --------
    >>> from bnclassify.factors import TABLE_DISTRIBUTIONS
    >>> TABLE_DISTRIBUTIONS.check({"age": "categorical", "dose": "binned"}) is None
    True
    >>> TABLE_DISTRIBUTIONS.check("density")
    "'density' asks for density nodes"
    >>> TABLE_DISTRIBUTIONS.check({"age": "gaussian"})
    "'gaussian' for column(s) 'age' asks for a node that is not a table"
    >>> from bnclassify.distributions import Binned
    >>> TABLE_DISTRIBUTIONS.check({"age": Binned(cut_points=[30, 50])})
    "Binned(cut_points=[30, 50]) for column(s) 'age' gives cut points"
    """

    densities = False

    def __init__(self, kinds, cut_points=False):
        super().__init__(kinds)
        self.cut_points = bool(cut_points)

    @property
    def description(self) -> str:
        binned = "Binned instance" + (" (with cut points or not)" if self.cut_points else "")
        return (
            "None (the kinds rule, numeric columns cut into bins), 'categorical', 'binned', a "
            f"Categorical or {binned}, or a dict mapping columns (names, positions or "
            "tuples of them) to those"
        )

    def check(self, value):
        reason = super().check(value)
        if reason is not None:
            return reason
        if self.cut_points:
            return self._density_request(value)
        return self._density_request(value) or self._cut_points_given(value)

    def message(self, name, value) -> str | None:
        if super().check(value) is not None:
            return None  # not a valid spec at all: the description says what is allowed
        if self._density_request(value) is None:
            return (
                f"{name}: {self._cut_points_given(value)}, but this model learns the cut "
                "points of its numeric columns itself (MDL); give 'binned' (or Binned()), or "
                "use a model that takes fixed cut points (NaiveBayes, TAN, KDB, AODE)."
            )
        return (
            f"{name}: {self._density_request(value)}, but every node of this model is a table "
            "(its numeric columns are cut into MDL bins); give None, 'categorical', 'binned' "
            "or a dict of them, or use a model that takes densities (NaiveBayes, TAN, KDB, "
            "AODE)."
        )

    @staticmethod
    def _cut_points_given(value) -> str | None:
        """Why a valid ``distributions`` gives cut points (``None``: it does not)."""
        entries = value.items() if isinstance(value, dict) else [(None, value)]
        for key, spec in entries:
            if getattr(spec, "cut_points", None) is not None:
                on = "" if key is None else f" for column(s) {key!r}"
                return f"{spec!r}{on} gives cut points"
        return None

    def _density_request(self, value) -> str | None:
        """Why a valid ``distributions`` asks for a density node (``None``: it does not)."""
        if isinstance(value, str) and value == DENSITY:
            return f"{DENSITY!r} asks for density nodes"
        entries = value.items() if isinstance(value, dict) else [(None, value)]
        for key, spec in entries:
            node = self.kinds.get(spec) if isinstance(spec, str) else type(spec)
            if spec is not None and not (node is not None and issubclass(node, Categorical)):
                on = "" if key is None else f" for column(s) {key!r}"
                return f"{spec!r}{on} asks for a node that is not a table"
        return None
