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
['bernoulli', 'categorical', 'gaussian']
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


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
    """

    kind: str
    discrete: bool
    structural: bool
    joint: bool
    rescaled: bool
    scaled_by_variance: bool
    support: str

    def model_values(self, x):
        """``(values, outside)``: the column's numbers as the node models them."""

    def data_values(self, values):
        """The inverse of :meth:`model_values`."""


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
        Makes the kind's default specification (an unfitted node).
    """

    name: str
    discrete: bool
    structural: bool
    joint: bool
    new: Callable[[], NodeSpec]

    @classmethod
    def of_node_class(cls, node_class) -> Kind:
        """The descriptor of a node class, read from its public class attributes."""
        return cls(
            name=node_class.kind,
            discrete=bool(node_class.discrete),
            structural=bool(node_class.structural),
            joint=bool(node_class.joint),
            new=node_class,
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


def kind_names() -> list:
    """The names of the registered kinds."""
    return list(_REGISTRY)


def get_kind(name: str) -> Kind:
    """The registered :class:`Kind` called ``name``; a ``ValueError`` lists the others."""
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(f"Unknown node kind {name!r}; use one of {sorted(_REGISTRY)}.") from None


def node_spec(value, where) -> NodeSpec:
    """A node specification from a kind's name (its default) or a specification (copied).

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
        return _REGISTRY[value].new()
    if isinstance(getattr(value, "kind", None), str) and value.kind in _REGISTRY:
        return copy.deepcopy(value)
    raise TypeError(
        f"The distribution for {where} must be one of {sorted(_REGISTRY)} or a "
        f"bnclassify.distributions instance, got {value!r}."
    )
