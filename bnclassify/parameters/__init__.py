"""Parameter estimation: how a family's counts become its conditional probability table.

A :class:`Smoothing` turns the counts of one family into ``log P(x | c, x_parents)``.
:class:`Laplace` is the textbook additive (Dirichlet) estimate; hierarchical
methods back a table off to the tables of fewer parents, in the family's parent
order (the class first).
"""

from .additive import log_class_prior, log_conditional
from .hls import HLS
from .smoothing import Laplace, Smoothing

__all__ = ["HLS", "Laplace", "Smoothing", "log_class_prior", "log_conditional"]
