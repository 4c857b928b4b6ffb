"""scikit-learn estimators: thin layers of structure + parameters + network."""

from ._base import BayesNetClassifier
from ._signal_subgraph import SignalSubgraphClassifier
from ._tan import TAN, NaiveBayes, SimplerTAN

__all__ = ["TAN", "BayesNetClassifier", "NaiveBayes", "SimplerTAN", "SignalSubgraphClassifier"]
