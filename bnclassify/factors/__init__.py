"""Node models: one :class:`Factor` interface, one class per kind of feature.

See :mod:`bnclassify.distributions` for the user-facing description of each kind.
"""

from ._base import Factor
from ._bernoulli import Bernoulli
from ._categorical import Categorical
from ._gaussian import Gaussian
from ._kernel import KernelDensity
from ._lognormal import LogNormal
from ._multinomial import Multinomial
from ._spec import DistributionSpec
from ._views import DensityView, RegressionView, TableView

#: String specs accepted by the estimators' ``distributions`` parameter.
KINDS = {
    "categorical": Categorical,
    "gaussian": Gaussian,
    "lognormal": LogNormal,
    "kde": KernelDensity,
    "bernoulli": Bernoulli,
    "multinomial": Multinomial,
}

#: The constraint of the estimators' ``distributions`` parameter (and of its node models').
DISTRIBUTIONS = DistributionSpec(KINDS)

__all__ = [
    "DISTRIBUTIONS",
    "KINDS",
    "Bernoulli",
    "Categorical",
    "DensityView",
    "DistributionSpec",
    "Factor",
    "Gaussian",
    "KernelDensity",
    "LogNormal",
    "Multinomial",
    "RegressionView",
    "TableView",
]
