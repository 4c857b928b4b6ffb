"""The fixed list of classes a model file may name.

A model file names the class of every object it holds (the estimator, its
members, its factors) by a short name; :func:`lookup` finds it in the dicts
below and nowhere else, so nothing named in a file is ever imported. To make a
new estimator loadable, add one line to :data:`ESTIMATORS` (e.g.
``"BMATAN": BMATAN,``) and give the class its declared state
(``_get_state`` / ``_from_state``, see :mod:`bnclassify.state`), whose
values are of the kinds listed in :mod:`bnclassify.io._format`. An
estimator in a module that is slow to import goes in :data:`LAZY_ESTIMATORS`
instead.
"""

from __future__ import annotations

import importlib

from ..classifiers import (
    AODE,
    AWNB,
    BMATAN,
    BSEJ,
    ESKDB,
    FSSJ,
    HNB,
    KDB,
    KDBHC,
    MANB,
    SKDB,
    SPODE,
    TAN,
    TANHC,
    TANHCSP,
    WANBIA,
    WAODE,
    AnDE,
    BayesNetClassifier,
    EnsembleTAN,
    NaiveBayes,
    SignalSubgraphClassifier,
    SimplerTAN,
)
from ..data import TableSchema
from ..factors import KINDS, ClassTable, Unobserved
from ..network import FittedNetwork
from ..parameters import SMOOTHINGS
from ..preprocessing import MDLDiscretizer

#: Estimators a model file may hold, by name (the class's own ``__name__``).
ESTIMATORS: dict = {
    cls.__name__: cls
    for cls in (
        NaiveBayes,
        TAN,
        SimplerTAN,
        KDB,
        SPODE,
        AODE,
        AnDE,
        HNB,
        WAODE,
        EnsembleTAN,
        ESKDB,
        SignalSubgraphClassifier,
        MDLDiscretizer,
        BMATAN,
        BayesNetClassifier,
        TANHC,
        TANHCSP,
        FSSJ,
        BSEJ,
        KDBHC,
        SKDB,
    )
}

#: bnclassify's own estimators defined in modules that are slow to import, by name:
#: (module, attribute), both fixed here; imported only when a file names them.
LAZY_ESTIMATORS: dict = {"StudyTAN": ("bnclassify.study", "StudyTAN")}

#: Node models (factors), by class name (and the node a fit gives a column it never observed,
#: and a general network's class table).
FACTORS: dict = {cls.__name__: cls for cls in (*KINDS.values(), Unobserved, ClassTable)}

#: The other classes a model file may hold inside an estimator, by name (naive Bayes'
#: weighting options too: ``NaiveBayes(weighting=AWNB(trees=20))``, and the smoothing
#: methods: ``KDB(smoothing=HDP(n_iter=1000))``).
PARTS: dict = {
    cls.__name__: cls
    for cls in (TableSchema, FittedNetwork, AWNB, MANB, WANBIA, *SMOOTHINGS.values())
}


def register(cls):
    """Add an estimator class to the list of classes model files may name; returns ``cls``.

    Used for bnclassify's own classes defined outside :mod:`bnclassify.classifiers`
    (e.g. :class:`bnclassify.io.PgmpyClassifier`).
    """
    ESTIMATORS[cls.__name__] = cls
    return cls


def lookup(name):
    """The bnclassify class called ``name``, or ``None`` when it is not on the list."""
    if not isinstance(name, str):
        return None
    if name in LAZY_ESTIMATORS and name not in ESTIMATORS:
        module, attribute = LAZY_ESTIMATORS[name]
        register(getattr(importlib.import_module(module), attribute))
    return ESTIMATORS.get(name) or FACTORS.get(name) or PARTS.get(name)


def name_of(obj):
    """The registered name of ``obj``'s class, or ``None`` when it is not on the list."""
    name = type(obj).__name__
    if name not in ESTIMATORS and name not in FACTORS and name not in PARTS:
        if name not in LAZY_ESTIMATORS:
            return None
    return name if lookup(name) is type(obj) else None


def is_estimator(name) -> bool:
    """Whether ``name`` is an estimator's (what a model file holds at its top)."""
    return name in ESTIMATORS or name in LAZY_ESTIMATORS


def known() -> list:
    """Names of every estimator a model file may hold."""
    return sorted({*ESTIMATORS, *LAZY_ESTIMATORS})
