"""Column scales: powers of two that keep continuous columns' moments far from overflow.

A continuous column fitted by a Gaussian node is divided by ``2**e`` (``e`` from its
largest magnitude) before any moment is taken, so fits of data at 1e-200 or
1e200 behave as at 1; a power of two multiplies exactly, and the largest
magnitude of a concatenation is the largest of its chunks', so a fit in one
pass, chunk by chunk or on dask partitions chooses the same ``e``.
"""

from __future__ import annotations

import numpy as np

#: Exponent of a column without any observed value (any other wins when statistics add).
NO_EXPONENT = np.iinfo(np.int32).min


def column_exponents(values, rescaled) -> np.ndarray:
    """Per column the power of two ``e`` with ``max |x| = m 2**e``, ``0.5 <= m < 1``.

    The ``rescaled`` columns of ``values`` are divided by ``2**e`` in place, so
    their moments and variances stay far from overflow and underflow whatever
    the data's scale (1e-200 or 1e200); a power of two multiplies exactly. The
    largest magnitude of a concatenation is the largest of its chunks', so a
    fit in one pass, chunk by chunk or on dask partitions chooses the same
    ``e``. Other columns (and columns without values) get 0, or
    :data:`NO_EXPONENT` for a rescaled column with no observed value.

    Examples
    --------
    >>> values = np.array([[3e200, 1.0], [-1e200, np.nan]])
    >>> column_exponents(values, np.array([True, False])).tolist(), bool(values[0, 0] < 1)
    ([666, 0], True)
    """
    exponents = np.zeros(0 if values is None else values.shape[1], dtype=np.int64)
    if values is None or not np.any(rescaled):
        return exponents
    columns = np.flatnonzero(rescaled)
    block = np.abs(values[:, columns])
    seen = ~np.isnan(block).all(axis=0)
    largest = np.nanmax(np.where(np.isnan(block), -np.inf, block), axis=0, initial=-np.inf)
    _, e = np.frexp(np.where(seen, largest, 0.0))
    exponents[columns] = np.where(seen, e, NO_EXPONENT)
    values[:, columns] = np.ldexp(values[:, columns], -np.where(seen, e, 0)[None, :])
    return exponents


def log_largest(variances, exponents) -> float:
    """``log max_j v_j 4**e_j`` over the positive ``v_j`` (0, i.e. V = 1, when none is)."""
    positive = variances > 0
    if not positive.any():
        return 0.0
    with np.errstate(divide="ignore"):
        logs = np.log(variances) + 2 * np.log(2.0) * exponents
    return float(logs[positive].max())


def centred_columns(values, observed, weights=None) -> np.ndarray:
    """``values`` minus each column's (weighted) mean over its ``observed`` cells; 0 elsewhere.

    The float mean of a column like ``1e6 + 1e-6 z`` is off by up to half an ulp,
    as large as the spread itself, so the mean is corrected by the mean deviation
    from it (one more pass over the small deviations): the centred values then
    carry the spread, not the rounding, as the additive moments (which keep
    each exact mean) do.

    Examples
    --------
    >>> import numpy as np
    >>> x = 1e6 + np.spacing(1e6) * np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> centred_columns(x, ~np.isnan(x)).ravel() / np.spacing(1e6)
    array([-1.5, -0.5,  0.5,  1.5])
    """
    w = observed if weights is None else np.where(observed, weights[:, None], 0.0)
    total = np.maximum(w.sum(axis=0), np.finfo(float).tiny)
    x = np.where(observed, values, 0.0)
    # in units of each column's largest power of two (exact), so that the sums of a column
    # near the float maximum do not overflow
    _, e = np.frexp(np.abs(x).max(axis=0, initial=0.0))
    x = np.ldexp(x, -e)
    deviation = np.where(observed, x - (w * x).sum(axis=0) / total, 0.0)
    centred = np.where(observed, deviation - (w * deviation).sum(axis=0) / total, 0.0)
    return np.ldexp(centred, e)
