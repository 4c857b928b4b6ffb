"""Parameter estimation: how a family's counts become its conditional probability table.

A :class:`Smoothing` turns the counts of one family into ``log P(x | c, x_parents)``.
:class:`Laplace` is the textbook additive (Dirichlet) estimate; hierarchical
methods back a table off to the tables of fewer parents, in the family's parent
order (the class first): :class:`HDP`, the hierarchical Dirichlet process of
Petitjean et al. (2018), and :class:`HLS`, the hierarchical linear smoothing of
Cooper, Webb and Schmidt (2025). The estimators take one by name or as an
instance (``smoothing="hdp"``, ``smoothing=HDP(n_iter=1000)``, ``smoothing="hls"``;
:func:`smoothing_method`).
"""

from .additive import log_class_prior, log_conditional
from .hdp import HDP
from .hls import HLS
from .methods import SMOOTHING, SMOOTHINGS, smoothing_method
from .smoothing import Laplace, Smoothing, generator

__all__ = [
    "HDP",
    "HLS",
    "SMOOTHING",
    "SMOOTHINGS",
    "Laplace",
    "Smoothing",
    "generator",
    "log_class_prior",
    "log_conditional",
    "smoothing_method",
]
