"""The node kinds the data layer knows: plain descriptors, registered by the factors layer.

The data layer decides each column's kind (by :func:`~bnclassify.data.default_kind`
or as the user says through ``distributions``) and encodes the column as that kind
models it, but it never imports the node classes: each kind is a :class:`Kind`, a
name, what the kind can do, and how to make its default specification. The
factors layer registers one per node class when it is imported
(:func:`register_kind`), so a new kind of node is added without touching this
layer (see ``docs/architecture.md``, "Add a node kind").

A *node specification* is what a schema holds for each node before fitting: an
unfitted node of the factors layer (or any object with the same public
attributes, :class:`NodeSpec`). The data layer reads only those attributes.

Examples
--------
>>> from bnclassify.data import kinds
>>> kinds.get_kind("gaussian").discrete
False
>>> sorted(kinds.kind_names())[:3]
['bernoulli', 'binned', 'categorical']
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from .binning import Binning


@dataclass(frozen=True)
class ValueScale:
    """How a kind's node reads a continuous column's numbers: the data layer applies it.

    The data layer encodes every continuous column on its node's scale (fit and
    predict alike), so the node's own fit, its children's regressions and every
    prediction see the same numbers; cells outside the scale's support are summed
    out like unseen categories.

    Parameters
    ----------
    name : str
    support : str
        What the values must be, for the message about a value outside it.
    forward, inverse : callable
        The data's numbers to the model's and back (elementwise).
    in_support : callable, optional
        A boolean mask of the values the scale accepts (NaN: any answer; missing
        cells are left alone); ``None``: every number.
    """

    name: str
    support: str
    forward: Callable = None
    inverse: Callable = None
    in_support: Callable | None = None
    label: str = "{}"

    def model_values(self, x):
        """``(values, outside)``: ``x`` on this scale, and the observed cells it cannot take
        (``None`` when there are none), set to NaN in ``values``.

        Examples
        --------
        >>> values, outside = LOG.model_values(np.array([1.0, -1.0, np.nan]))
        >>> values.round(3).tolist()[:1], outside.tolist()
        ([0.0], [False, True, False])
        """
        if self.forward is None:  # the numbers as they are
            return x, None
        if self.in_support is None:
            return self.forward(x), None
        with np.errstate(invalid="ignore"):
            outside = ~self.in_support(x) & ~np.isnan(x)
        if outside.any():
            with np.errstate(invalid="ignore", divide="ignore"):
                return self.forward(np.where(outside, np.nan, x)), outside
        return self.forward(x), None

    def data_values(self, values):
        """The inverse of :meth:`model_values`: values in the data's own units."""
        return values if self.inverse is None else self.inverse(values)

    def axis_label(self, name) -> str:
        """How a plot axis names a column's values on this scale."""
        return self.label.format(name)


def _positive(x):
    return x > 0


#: The numbers as they are.
IDENTITY = ValueScale("identity", "numbers")
#: The logarithm of positive numbers (log-normal nodes).
LOG = ValueScale("log", "positive", np.log, np.exp, _positive, "log {}")


@runtime_checkable
class NodeSpec(Protocol):
    """What the data and statistics layers read of a node specification.

    Attributes
    ----------
    kind : str
        A registered kind's name.
    discrete, structural, joint, rescaled, scaled_by_variance : bool
        Its capabilities (see :class:`bnclassify.factors.Factor`).
    support : str
        What its values must be, for messages.
    binning : Binning or None
        How a binned kind's cut points are learned (``None``: not binned).
    """

    kind: str
    discrete: bool
    structural: bool
    joint: bool
    rescaled: bool
    scaled_by_variance: bool


@dataclass(frozen=True)
class Kind:
    """A node kind as the data layer knows it: a name, capabilities and a default spec.

    Parameters
    ----------
    name : str
        Used in ``feature_kinds_`` and accepted as a string in ``distributions``.
    discrete : bool
        Its variable takes finitely many states (codes) rather than numbers.
    structural : bool
        It may have feature parents and children (take part in trees).
    joint : bool
        It models a group of columns jointly.
    new : callable
        Makes the kind's default node (unfitted), with default hyper-parameters.
    scale : ValueScale, default=IDENTITY
        How its node reads a continuous column's numbers.
    rescaled : bool, default=False
        Its column is fitted in units of a power of two
        (:func:`~bnclassify.data.scaling.column_exponents`).
    scaled_by_variance : bool, default=False
        Its variance floor scales with V, the largest variance of such columns.
    binning : Binning, optional
        A discrete kind of numeric columns: how the schema learns its column's
        cut points from the training rows and their classes (its states are
        the bins; see :mod:`bnclassify.data.binning`). ``None`` for the others.

    A schema holds a :class:`Kind` for a column of the kind's defaults and the
    user's node specification otherwise; :func:`kind_of` reads either.
    """

    name: str
    discrete: bool
    structural: bool
    joint: bool
    new: Callable[[], NodeSpec]
    scale: ValueScale = IDENTITY
    rescaled: bool = False
    scaled_by_variance: bool = False
    binning: Binning | None = None

    @property
    def kind(self) -> str:
        """The kind's name (a :class:`Kind` answers ``kind`` as a node specification does)."""
        return self.name

    @classmethod
    def of_node_class(cls, node_class) -> Kind:
        """The descriptor of a node class, read from its public class attributes."""
        return cls(
            name=node_class.kind,
            discrete=bool(node_class.discrete),
            structural=bool(node_class.structural),
            joint=bool(node_class.joint),
            new=node_class,
            scale=node_class.scale,
            rescaled=bool(node_class.rescaled),
            scaled_by_variance=bool(node_class.scaled_by_variance),
            binning=getattr(node_class, "binning", None),
        )


_REGISTRY: dict[str, Kind] = {}


def register_kind(kind: Kind) -> Kind:
    """Make ``kind`` known to the data layer (its name becomes a valid ``distributions`` string).

    Registering a name again replaces the earlier descriptor.
    """
    if not isinstance(kind, Kind):
        raise TypeError(f"register_kind takes a Kind, got {kind!r}.")
    _REGISTRY[kind.name] = kind
    return kind


def unregister_kind(name: str) -> None:
    """Forget the kind called ``name`` (a no-op for an unknown name)."""
    _REGISTRY.pop(name, None)


def kind_names() -> list:
    """The names of the registered kinds."""
    return list(_REGISTRY)


def get_kind(name: str) -> Kind:
    """The registered :class:`Kind` called ``name``; a ``ValueError`` lists the others."""
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(f"Unknown node kind {name!r}; use one of {sorted(_REGISTRY)}.") from None


def kind_of(spec) -> Kind:
    """The registered :class:`Kind` of a node specification, a kind's name, or the
    :class:`Kind` itself."""
    if isinstance(spec, Kind):
        return spec
    if isinstance(spec, str):
        return get_kind(spec)
    kind = getattr(spec, "kind", None)
    if not isinstance(kind, str):
        raise TypeError(
            f"spec must be a node kind's name, a Kind or a node model (e.g. Gaussian()), "
            f"got {spec!r:.60}."
        )
    return get_kind(kind)


def node_spec(value, where):
    """A column's node specification: a kind's name gives its :class:`Kind` (the kind's
    defaults), a node specification is copied.

    Parameters
    ----------
    value : str or NodeSpec
    where : str
        The column(s) it is for, for the message.
    """
    if isinstance(value, str):
        if value not in _REGISTRY:
            raise ValueError(
                f"Unknown distribution {value!r} for {where}; "
                f"use one of {sorted(_REGISTRY)} or a bnclassify.distributions instance."
            )
        return _REGISTRY[value]
    if isinstance(value, Kind):
        return value
    if isinstance(getattr(value, "kind", None), str) and value.kind in _REGISTRY:
        return copy.deepcopy(value)
    raise TypeError(
        f"The distribution for {where} must be one of {sorted(_REGISTRY)} or a "
        f"bnclassify.distributions instance, got {value!r}."
    )
