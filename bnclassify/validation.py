"""Validators of user-given parameters and row weights: one wording for every message.

The one home of the checks that estimators, plots, data sets and metrics share
(an integer, a pseudo-count, a range, ``n_jobs``, ``sample_weight``), so the
same mistake reads the same wherever it is made. It sits below every other
layer and imports nothing from the package but :mod:`bnclassify.exceptions`.
"""

from __future__ import annotations

import numbers

import numpy as np


def check_sample_weight(sample_weight, n_rows: int):
    """Row weights as a float array, or None; a ``ValueError`` names ``sample_weight``.

    Weights must be one finite, non-negative number per row.

    Examples
    --------
    >>> check_sample_weight([1, 2], 2)
    array([1., 2.])
    """
    if sample_weight is None:
        return None
    try:
        weights = np.asarray(sample_weight, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("sample_weight must be numbers, one per row.") from None
    if weights.ndim != 1 or len(weights) != n_rows:
        raise ValueError(
            f"sample_weight has shape {weights.shape}, but X has {n_rows} rows; "
            "give one weight per row."
        )
    if not np.isfinite(weights).all():
        raise ValueError("sample_weight has NaN or infinite values; weights must be finite.")
    if (weights < 0).any():
        raise ValueError(
            f"sample_weight must be >= 0; got {weights[weights < 0][0]} "
            f"(row {int(np.argmax(weights < 0))})."
        )
    return weights


def check_n_jobs(n_jobs):
    """``n_jobs``: None or a non-zero integer (joblib's convention; -1 is every CPU)."""
    if n_jobs is not None and (
        isinstance(n_jobs, bool | np.bool_)
        or not isinstance(n_jobs, numbers.Integral)
        or n_jobs == 0
    ):
        raise ValueError(f"n_jobs must be None or a non-zero integer, got {n_jobs!r}.")
    return n_jobs


def float_array(values, name) -> np.ndarray:
    """``values`` as a float array, or a ``ValueError`` naming the parameter."""
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must hold numbers, got {values!r}.") from None


def check_range(limits, name):
    """``(low, high)``: two finite numbers with ``low < high``."""
    try:
        low, high = (float(v) for v in limits)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a pair of numbers (low, high), got {limits!r}.") from None
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise ValueError(f"{name} must be finite with low < high, got {limits!r}.")
    return low, high


def check_int(value, name, minimum=0, maximum=None, why=""):
    """An integer parameter: Python and numpy integers pass, bools and floats do not.

    The one integer validator of the package (estimator, plot and data-set
    parameters alike), so every such message reads the same.

    Parameters
    ----------
    value : object
    name : str
        The parameter's name, for the message.
    minimum : int, default=0
    maximum : int, optional
        The largest value allowed: "between minimum and maximum" in the message;
        with ``why``, a larger value is refused as "more than maximum" + ``why``
        (a resource limit rather than a domain).
    why : str, default=""

    Returns
    -------
    int

    Examples
    --------
    >>> check_int(np.int64(3), "k")
    3
    >>> check_int(True, "k")
    Traceback (most recent call last):
    ...
    ValueError: k must be an integer >= 0, got True.
    >>> check_int(1, "n_points", minimum=2, maximum=100)
    Traceback (most recent call last):
    ...
    ValueError: n_points must be an integer between 2 and 100, got 1.
    """
    bounded = maximum is not None and not why
    wanted = f"an integer >= {minimum}"
    if bounded:
        wanted = f"an integer between {minimum} and {maximum}"
    if (
        isinstance(value, bool | np.bool_)
        or not isinstance(value, numbers.Integral)
        or value < minimum
        or (bounded and value > maximum)
    ):
        raise ValueError(f"{name} must be {wanted}, got {value!r}.")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name}={value!r} is more than {maximum}{why}")
    return int(value)


def check_alpha(alpha):
    """Validate the Dirichlet pseudo-count."""
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
        raise TypeError(f"alpha must be a finite number, got {alpha!r}.")
    alpha = float(alpha)  # Fraction, Decimal-like reals, numpy scalars
    if not np.isfinite(alpha):
        raise TypeError(f"alpha must be a finite number, got {alpha!r}.")
    if alpha < 0:
        raise ValueError(f"alpha must be >= 0, got {alpha!r}.")
    return float(alpha)
