"""Additive (Dirichlet, Laplace) smoothing: conditional probability tables from counts."""

from __future__ import annotations

import numpy as np

#: A cell above this over the row's number of cells could make the row's sum overflow.
_LARGEST_CELL = np.finfo(float).max / 2
_TINY = np.finfo(float).tiny


def log_conditional(counts: np.ndarray, alpha: float) -> np.ndarray:
    """log P(last axis | other axes) from counts with pseudo-count ``alpha`` per cell.

    ``(N + alpha) / (N_parent + r * alpha)``, the posterior mean under a
    symmetric Dirichlet prior (``alpha=1``: Laplace). This is what pgmpy's
    ``BayesianEstimator(prior_type="dirichlet", pseudo_counts=alpha)`` and R's
    bnclassify compute. A parent configuration with no data at all (possible
    only with ``alpha=0``) gets the uniform distribution.

    Examples
    --------
    >>> np.exp(log_conditional(np.array([[3.0, 1.0], [0.0, 0.0]]), 1.0))
    array([[0.66666667, 0.33333333],
           [0.5       , 0.5       ]])
    """
    smoothed = np.asarray(counts, dtype=float) + alpha
    if smoothed.size and smoothed.max() > _LARGEST_CELL / smoothed.shape[-1]:
        # counts whose sum would overflow (weights near the float maximum): in units of each
        # row's largest cell, which leave the proportions as they are
        smoothed = smoothed / np.maximum(smoothed.max(axis=-1, keepdims=True), _TINY)
    totals = smoothed.sum(axis=-1, keepdims=True)
    if alpha > 0:  # every cell positive: no zero to guard (np.errstate costs more on 1,000 CPTs)
        return log_ratio(smoothed, totals)
    r = smoothed.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        probabilities = np.where(totals > 0, smoothed / totals, 1.0 / r)
        return np.log(probabilities)


def log_ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``log(numerator / denominator)`` of positive arrays (broadcast), finite where the ratio
    falls below the smallest normal float (a pseudo-count of 5e-324 over a count of 100):
    those are taken as a difference of logarithms. Otherwise one division and one
    logarithm per cell, as before.

    Examples
    --------
    >>> log_ratio(np.array([5e-324, 1.0]), np.array([100.0]))
    array([-749.04524211,   -4.60517019])
    """
    ratio = numerator / denominator
    if ratio.size == 0 or ratio.min() >= _TINY:
        return np.log(ratio)
    return np.log(numerator) - np.log(denominator)


def log_class_prior(class_counts: np.ndarray, alpha: float) -> np.ndarray:
    """log P(c), smoothed with the same ``alpha`` as every CPT.

    Examples
    --------
    >>> np.exp(log_class_prior(np.array([1.0, 3.0]), 1.0))
    array([0.33333333, 0.66666667])
    """
    return log_conditional(class_counts, alpha)
