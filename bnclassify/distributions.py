"""The kinds of node a feature can be: the public face of :mod:`bnclassify.factors`.

A Bayesian network classifier models each feature given its parents (the
class and, in TAN, one more feature). Every kind is a
:class:`~bnclassify.factors.Factor`: categorical features get a conditional
probability table (:class:`Categorical`); the others model numeric features:

======================  =========================================  ===================
distribution            model of the feature given the class c      parents allowed
======================  =========================================  ===================
:class:`Gaussian`       N(mu_c, s_c^2); with feature parents the     categorical and
                        conditional linear Gaussian                  Gaussian features
                        N(a_ck + b_ck . x_parents, s_ck^2)
:class:`LogNormal`      the Gaussian model of log x (positive,       categorical and
                        right-skewed columns: amounts, durations)    Gaussian features
:class:`KernelDensity`  mean of Gaussian kernels on the class's      class only
                        training values (bandwidth by rule)
:class:`Bernoulli`      P(x > binarize | c)                          class only
:class:`Multinomial`    counts of a *group* of columns modelled      class only
                        jointly: P(x | c) = n!/prod x_j!
                        prod p_cj^x_j
======================  =========================================  ===================

Pass them to an estimator's ``distributions`` parameter, per column (or per
tuple of columns for a multinomial group); columns not listed are modelled by
the rule of :func:`bnclassify.data.default_kind`: floats and integer columns
with more than 20 distinct values are continuous and :class:`Binned` (MDL
intervals learned in the fit), everything else (small integer codes, booleans,
strings, pandas Categorical) :class:`Categorical`. ``distributions="density"``
makes the continuous columns densities instead (:class:`LogNormal` when their
values are positive and fit a log-normal significantly better, else
:class:`Gaussian`); ``distributions="gaussian"`` models every column as
scikit-learn's ``GaussianNB`` does.

**Variance floor.** Every Gaussian (and kernel) variance is increased by
``epsilon = var_smoothing * V``. For a Gaussian (and log-normal) column ``V``
is by default the largest variance of any continuous feature of the model,
scikit-learn's ``GaussianNB`` rule (a shift of any column, or one change of
units for all, moves nothing); ``Gaussian(floor_scale="column")`` takes the
column's own variance (its value squared when constant, 1 for zeros), so no
single column's units matter either, at a measured cost on tables of
near-constant columns (see :class:`Gaussian`); for a kernel density ``V`` is
the largest variance of any Gaussian or kernel density feature of the model (1
if all of them are constant). A pixel that is
constant within a class therefore gets variance ``epsilon > 0`` instead of 0.

**Missing values** (NaN) are left out of the fit of the distributions they
touch and summed out exactly at prediction: the term of a missing feature
without Gaussian children integrates to 1 and is dropped; a missing Gaussian
parent is integrated out in closed form (see :class:`Gaussian`). A missing
cell in a multinomial group raises a ``ValueError`` (a count with an unknown
total has no marginal).

Examples
--------
>>> import numpy as np, pandas as pd
>>> from bnclassify import NaiveBayes
>>> from bnclassify.distributions import Gaussian, KernelDensity
>>> X = pd.DataFrame({"length": [310.0, 295.0, 420.0, 405.0], "tag": ["a", "a", "b", "b"]})
>>> y = ["short", "short", "long", "long"]
>>> model = NaiveBayes(distributions={"length": Gaussian(var_smoothing=1e-3)}).fit(X, y)
>>> model.feature_kinds_
['gaussian', 'categorical']
>>> model.distributions_["length"].mean_.round(1)
array([412.5, 302.5])
"""

from __future__ import annotations

from .factors import (
    KINDS,
    Bernoulli,
    Binned,
    Categorical,
    Gaussian,
    KernelDensity,
    LogNormal,
    Multinomial,
)
from .factors import Factor as Distribution

__all__ = [
    "KINDS",
    "Bernoulli",
    "Binned",
    "Categorical",
    "Distribution",
    "Gaussian",
    "KernelDensity",
    "LogNormal",
    "Multinomial",
]
