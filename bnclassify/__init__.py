"""bnclassify: Bayesian network classifiers on networkx structures and pgmpy networks.

Examples
--------
>>> from bnclassify import TAN
>>> from bnclassify.datasets import load_p450
>>> X, y = load_p450(return_X_y=True)
>>> TAN().fit(X, y).score(X, y) > 0.8
True
"""

from ._version import __version__ as __version__
from .classifiers import (
    AODE,
    BMATAN,
    BSEJ,
    ESKDB,
    FSSJ,
    HNB,
    KDB,
    KDBHC,
    SKDB,
    SPODE,
    TAN,
    TANHC,
    TANHCSP,
    WAODE,
    AnDE,
    AugmentedNaiveBayes,
    BayesNetClassifier,
    EnsembleTAN,
    NaiveBayes,
    SignalSubgraphClassifier,
    SimplerTAN,
)
from .preprocessing import MDLDiscretizer
from .weights import conditional_mutual_information, mutual_information_with_class

__all__ = [
    "AODE",
    "AnDE",
    "BMATAN",
    "KDB",
    "SKDB",
    "SPODE",
    "WAODE",
    "TAN",
    "EnsembleTAN",
    "ESKDB",
    "HNB",
    "AugmentedNaiveBayes",
    "BayesNetClassifier",
    "NaiveBayes",
    "SimplerTAN",
    "SignalSubgraphClassifier",
    "MDLDiscretizer",
    "conditional_mutual_information",
    "mutual_information_with_class",
    "TANHC",
    "TANHCSP",
    "FSSJ",
    "BSEJ",
    "KDBHC",
]
