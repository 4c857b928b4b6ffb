"""scikit-learn estimators: thin layers of structure + parameters + network."""

from ._ande import AnDE
from ._aode import AODE, SPODE, SUBSUMPTION_MIN_COUNT, WAODE, subsumed, value_pair_counts
from ._base import AugmentedNaiveBayes, NetworkClassifier
from ._bayesnet import BayesNetClassifier
from ._bma import BMATAN
from ._ensemble import EnsembleTAN
from ._eskdb import ESKDB
from ._hnb import HNB
from ._kdb import KDB
from ._signal_subgraph import SignalSubgraphClassifier
from ._skdb import SKDB
from ._tan import TAN, NaiveBayes, SimplerTAN
from ._weighting import AWNB, MANB, WANBIA
from ._wrappers import BSEJ, FSSJ, KDBHC, TANHC, TANHCSP

__all__ = [
    "AODE",
    "AnDE",
    "BMATAN",
    "KDB",
    "SKDB",
    "SPODE",
    "WAODE",
    "SUBSUMPTION_MIN_COUNT",
    "subsumed",
    "value_pair_counts",
    "EnsembleTAN",
    "ESKDB",
    "HNB",
    "TAN",
    "AugmentedNaiveBayes",
    "BayesNetClassifier",
    "NetworkClassifier",
    "NaiveBayes",
    "SimplerTAN",
    "SignalSubgraphClassifier",
    "TANHC",
    "TANHCSP",
    "FSSJ",
    "BSEJ",
    "KDBHC",
    "AWNB",
    "MANB",
    "WANBIA",
]
