"""Node models: one :class:`Factor` interface, one class per kind of feature.

See :mod:`bnclassify.distributions` for the user-facing description of each kind.
"""

from ..data import Kind, register_kind
from ._base import Factor
from ._bernoulli import Bernoulli
from ._categorical import Categorical
from ._gaussian import Gaussian
from ._kernel import KernelDensity
from ._lognormal import LogNormal
from ._multinomial import Multinomial
from ._views import DensityView, RegressionView, TableView

#: The node class of each kind, by name: the strings the estimators' ``distributions`` accepts.
KINDS = {
    node.kind: node
    for node in (Categorical, Gaussian, LogNormal, KernelDensity, Bernoulli, Multinomial)
}

# the data layer knows each kind by its descriptor only (it never imports this package)
for _node in KINDS.values():
    register_kind(Kind.of_node_class(_node))

__all__ = [
    "KINDS",
    "Bernoulli",
    "Categorical",
    "DensityView",
    "Factor",
    "Gaussian",
    "KernelDensity",
    "LogNormal",
    "Multinomial",
    "RegressionView",
    "TableView",
]
