"""What the CPT and structure plots read from a model, whatever the model is.

:func:`network_view` turns a fitted single-network classifier, one member of
an ensemble, or a signal-subgraph classifier (naive Bayes over its signal
edges) into a :class:`NetworkView`. Models are recognised by their fitted
attributes, so this module imports no estimator.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from ..factors import Categorical

#: Class node name of a signal-subgraph classifier's network (it has no ``class_node_``).
SIGNAL_CLASS_NODE = "y"


@dataclass
class NetworkView:
    """A Bayesian network classifier as plots read it.

    ``parents[i]`` are feature ``i``'s feature parents (positions),
    ``factors[i]`` its fitted factor, ``categories[i]`` its states (None
    for a real-valued feature).
    """

    structure: nx.DiGraph
    class_node: object
    feature_names: list
    classes: list
    parents: list
    factors: list
    categories: list
    weights: object = None
    title: str | None = field(default=None)

    def position(self, feature) -> int:
        names = self.feature_names
        if isinstance(feature, str) and feature in names:
            return names.index(feature)
        if isinstance(feature, int | np.integer) and not isinstance(feature, bool):
            if -len(names) <= feature < len(names):
                return int(feature) % len(names)
        if feature in names:
            return names.index(feature)
        raise ValueError(f"feature={feature!r} is neither a feature name nor a position; {names}.")


def network_view(model, member=0) -> NetworkView:
    """The network of ``model`` (of its ``member``-th estimator for ensembles)."""
    if hasattr(model, "compiled_") and hasattr(model, "structure_"):
        return _single(model)
    if hasattr(model, "estimators_"):
        return _member(model, member)
    if hasattr(model, "signal_edges_"):
        return _signal_subgraph(model)
    if hasattr(model, "fit"):
        raise ValueError(
            f"This {type(model).__name__} is not fitted yet (no structure_); call fit first."
        )
    raise TypeError(f"Expected a fitted bnclassify model, got {type(model).__name__}.")


def members_summary(model, member=None):
    """``(arcs, class_node, title)`` of an ensemble that summarises its members' arcs in
    its own ``structure_`` (ESKDB: each arc with the share of members that have it, in
    ``weight``), when no ``member`` is asked for; None for any other model."""
    if member is not None or hasattr(model, "compiled_") or not hasattr(model, "estimators_"):
        return None
    try:
        arcs = model.structure_
    except AttributeError:  # an ensemble without such a summary (EnsembleTAN, AODE)
        return None
    n = arcs.graph.get("n_members", len(model.estimators_))
    title = f"{type(model).__name__}: the arcs of its {n} members (share of members)"
    return arcs, model.class_node_, title


def _single(model, title=None) -> NetworkView:
    network = model.compiled_
    n = network.n_features
    return NetworkView(
        structure=model.structure_,
        class_node=model.class_node_,
        feature_names=list(model.feature_names_),
        classes=list(model.classes_),
        parents=[tuple(p) for p in network.parents],
        factors=[network.factor_of(i) for i in range(n)],
        categories=list(model.categories_),
        weights=getattr(model, "weights_", None),
        title=title,
    )


def _member(model, member) -> NetworkView:
    members = model.estimators_
    if (
        isinstance(member, bool)
        or not isinstance(member, int | np.integer)
        or not -len(members) <= member < len(members)
    ):
        raise ValueError(
            f"member must be the position of one of the {len(members)} members of this "
            f"{type(model).__name__}, got {member!r}."
        )
    chosen = members[int(member)]
    if not (hasattr(chosen, "compiled_") and hasattr(chosen, "structure_")):
        raise TypeError(f"Member {member} is a {type(chosen).__name__} without a network.")
    title = f"{type(model).__name__} member {int(member) % len(members)}: {type(chosen).__name__}"
    return _single(chosen, title)


def _signal_subgraph(model) -> NetworkView:
    """Naive Bayes over the signal edges: one binary feature (absent, present) per edge."""
    arrow = "->" if model.directed else "-"
    names = [f"{i}{arrow}{j}" for i, j in model.signal_edges_]
    present = np.asarray(model.edge_log_prob_)  # (n_classes, n_edges)
    with np.errstate(divide="ignore"):
        absent = np.log1p(-np.exp(present))
    factors = [
        Categorical.from_log_table(np.stack([absent[:, k], present[:, k]], axis=1), k, (), names)
        for k in range(len(names))
    ]
    structure = nx.DiGraph()
    structure.add_node(SIGNAL_CLASS_NODE)
    structure.add_edges_from((SIGNAL_CLASS_NODE, name) for name in names)
    return NetworkView(
        structure=structure,
        class_node=SIGNAL_CLASS_NODE,
        feature_names=names,
        classes=list(model.classes_),
        parents=[() for _ in names],
        factors=factors,
        categories=[np.array(["absent", "present"], dtype=object) for _ in names],
    )
