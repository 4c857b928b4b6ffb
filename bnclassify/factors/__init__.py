"""Node models: one :class:`Factor` interface, one class per kind of feature.

See :mod:`bnclassify.distributions` for the user-facing description of each kind.
"""

import copy

from ..data import Kind, register_kind, unregister_kind
from ._base import Factor
from ._bernoulli import Bernoulli
from ._binned import Binned
from ._categorical import Categorical
from ._class_table import ClassTable
from ._gaussian import Gaussian
from ._kernel import KernelDensity
from ._lognormal import LogNormal
from ._multinomial import Multinomial
from ._spec import DistributionSpec, TableSpec
from ._unobserved import UNOBSERVED_STATE, Unobserved
from ._views import VIEW_LIMIT, DensityView, RegressionView, TableView

#: The node class of each kind, by name: the strings the estimators' ``distributions`` accepts.
KINDS = {
    node.kind: node
    for node in (Categorical, Binned, Gaussian, LogNormal, KernelDensity, Bernoulli, Multinomial)
}


def register_node(node_class):
    """Make a node class a kind: its ``kind`` name becomes a ``distributions`` string.

    The data layer learns the kind's descriptor (name, capabilities, value scale)
    and the factors layer its class; nothing else in the library asks what kind a
    column is, so this is all a new kind of node needs (see ``docs/architecture.md``,
    "Add a node kind"). Registering a name again replaces the earlier class.

    Parameters
    ----------
    node_class : type
        A :class:`Factor` subclass with a ``kind`` name.

    Returns
    -------
    node_class
        Unchanged, so ``register_node`` can decorate the class.
    """
    if not (isinstance(node_class, type) and issubclass(node_class, Factor)):
        raise TypeError(f"register_node takes a Factor subclass, got {node_class!r}.")
    if not isinstance(node_class.kind, str) or not node_class.kind:
        raise ValueError(f"{node_class.__name__} needs a kind name (a non-empty string).")
    KINDS[node_class.kind] = node_class
    # the data layer knows each kind by its descriptor only (it never imports this package)
    register_kind(Kind.of_node_class(node_class))
    return node_class


def unregister_node(kind: str) -> None:
    """Forget a kind registered with :func:`register_node` (a no-op for an unknown name).

    Models already fitted keep their nodes; only new ``distributions`` strings and
    specifications of that kind are refused.
    """
    KINDS.pop(kind, None)
    unregister_kind(kind)


for _node in list(KINDS.values()):
    register_node(_node)

#: The constraint of the estimators' ``distributions`` parameter (and of its node models').
DISTRIBUTIONS = DistributionSpec(KINDS)
#: The same for a model whose every node is a table (SKDB, ESKDB, BMATAN): no density.
TABLE_DISTRIBUTIONS = TableSpec(KINDS)
#: The same for a table model that bins through the table's schema (BayesNetClassifier, AnDE,
#: HNB): given cut points are taken (``partial_fit`` needs them fixed before the first chunk).
CUT_TABLE_DISTRIBUTIONS = TableSpec(KINDS, cut_points=True)

__all__ = [
    "CUT_TABLE_DISTRIBUTIONS",
    "DISTRIBUTIONS",
    "TABLE_DISTRIBUTIONS",
    "KINDS",
    "node_from_spec",
    "register_node",
    "unregister_node",
    "node_statistics",
    "Bernoulli",
    "Binned",
    "Categorical",
    "ClassTable",
    "DensityView",
    "DistributionSpec",
    "TableSpec",
    "Factor",
    "Gaussian",
    "KernelDensity",
    "LogNormal",
    "Multinomial",
    "RegressionView",
    "TableView",
    "UNOBSERVED_STATE",
    "Unobserved",
    "VIEW_LIMIT",
]


def node_from_spec(spec) -> Factor:
    """A new unfitted node from a schema's node specification.

    A :class:`~bnclassify.data.Kind` (a column of the kind's defaults) gives the
    kind's node with default hyper-parameters; a node given by the user is copied,
    so one specification can serve several estimators.

    Examples
    --------
    >>> from bnclassify.data import get_kind
    >>> node_from_spec(get_kind("gaussian"))
    Gaussian()
    """
    return spec.new() if isinstance(spec, Kind) else copy.deepcopy(spec)


def node_statistics(stats, schema) -> dict:
    """The additive sums each class-only node of ``schema`` keeps, keyed by its columns.

    What :class:`~bnclassify.stats.SufficientStatistics` holds for the nodes
    that are neither discrete nor in structures (Bernoulli, multinomial; a
    kernel density keeps its values, so it refuses), computed from in-memory
    statistics (:class:`~bnclassify.stats.TrainingCounts`).
    """
    if not hasattr(schema, "nodes") or not hasattr(schema, "names"):
        raise TypeError(f"schema must be a TableSchema, got {type(schema).__name__}.")
    sums = {}
    for columns, spec in schema.nodes:
        node = node_from_spec(spec)
        if not node.discrete and not node.structural:
            sums[columns] = node.node_statistics(stats, columns, schema.names)
    return sums
