"""The kinds rule: how a column is modelled when the user does not say (categorical, or
for a numeric column binned: MDL intervals learned with the class), from its dtype and,
where needed, its values; ``distributions="density"`` models the numeric columns as
densities instead (Gaussian or log-normal)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .encoding import LOOKUP_LIMIT

#: An integer column with more distinct values than this is continuous (binned, or a
#: density with ``distributions="density"``) by default; chosen by cross-validation on
#: bundled, scikit-learn and synthetic mixed tables (docs/kinds.md).
INTEGER_MAX_CATEGORIES = 20


#: The continuous rule's test level: a positive column is log-normal when Vuong's
#: likelihood-ratio statistic for log-normal against normal exceeds this (5%, one-sided
#: 2.5% each way), chosen by cross-validation (docs/user_guide/kinds.md).
LOG_NORMAL_MIN_Z = 1.96


#: How the default rule models a continuous column: ``"binned"`` (MDL intervals learned
#: with the class, when the classes are known, as in every estimator's fit), or
#: ``"density"`` (Gaussian or log-normal, below; also where the classes are unknown).
#: Binned, because on the 21 UCI sets of docs/user_guide/kinds.md it outranks the density
#: on log loss for NB, TAN, KDB(k=2) and AODE and leaves 20 held-out rows with the true
#: class below 1e-15 where the density left 107-346 (a random forest 276). One model takes
#: densities by its own ``distributions="density"``; this constant, read at each fit, is
#: what ``distributions=None`` means in every later fit of the process (the benchmarks'
#: ``density:`` prefix sets it for one fit).
NUMERIC_KIND = "binned"

#: The ``distributions`` word that keeps the kinds rule but models its continuous columns
#: as densities (``numbers="density"``): the default before the switch to bins.
DENSITY = "density"

#: The kinds the rule gives a continuous column with ``numbers="density"``.
DENSITY_KINDS = ("gaussian", "lognormal")


def dtype_family(dtype) -> str:
    """What the kinds rule reads of a column's dtype: ``"integer"`` (numpy, pandas nullable
    or Arrow integers), ``"float"``, or ``"other"`` (text, booleans, Categorical, dates...).

    Examples
    --------
    >>> [dtype_family(t) for t in (np.dtype("int8"), pd.Float64Dtype(), np.dtype(bool))]
    ['integer', 'float', 'other']
    """
    if isinstance(dtype, pd.CategoricalDtype):
        return "other"
    kind = getattr(dtype, "kind", "O")
    return "integer" if kind in "iu" else "float" if kind == "f" else "other"


def categorical_by_value_counts(counts, limit=None) -> bool:
    """Whether the kinds rule keeps an integer column categorical given the (weighted)
    number of rows holding each of its values: at most ``limit`` (default
    :data:`INTEGER_MAX_CATEGORIES`) values, or one holding
    :data:`POINT_MASS_MIN_SHARE` of the rows.

    Examples
    --------
    >>> spread, point_mass = np.ones(21), np.r_[21, np.ones(20)]
    >>> categorical_by_value_counts(spread), categorical_by_value_counts(point_mass)
    (False, True)
    """
    limit = INTEGER_MAX_CATEGORIES if limit is None else limit
    counts = np.asarray(counts, dtype=float)
    return bool(
        np.count_nonzero(counts) <= limit or counts.max() >= POINT_MASS_MIN_SHARE * counts.sum()
    )


def default_kind(
    column: pd.Series, max_categories=None, weights=None, classes=None, numbers=None
) -> str:
    """How a column is modelled unless told otherwise: ``"binned"``, ``"gaussian"``,
    ``"lognormal"`` or ``"categorical"``.

    The rule reads raw ``pd.read_csv`` output:

    - integer columns (numpy or pandas nullable) are continuous when they have
      more than
      ``max_categories`` (default :data:`INTEGER_MAX_CATEGORIES`, 20) distinct
      values, e.g. a duration in months, an amount or an age, and categorical
      otherwise (integer codes, Likert scores, small counts, pixel levels);
      one value holding at least half of the rows (:data:`POINT_MASS_MIN_SHARE`,
      e.g. a capital gain that is mostly 0) also makes them categorical;
    - float columns are continuous, integer-valued ones included: a float column
      is a measurement (sklearn's digits pixels, an ECG count). ``read_csv`` makes
      an integer column with a missing cell float64, which is then continuous too:
      on the UCI sets that change gave lower log loss on 22 of 30 model/set pairs
      than keeping such columns as integers (docs/user_guide/kinds.md); read codes
      as ``Int64`` (``pd.read_csv(path, dtype={"code": "Int64"})``) or declare
      them ``"categorical"`` to keep them categories;
    - a continuous column is binned (:class:`~bnclassify.distributions.Binned`:
      intervals learned from the class by the MDL rule, a table over them) when
      the classes are known, as in every estimator's fit; this is
      :data:`NUMERIC_KIND`, chosen on the UCI collection
      (``docs/user_guide/kinds.md``: better log loss than a density for NB, TAN,
      KDB(k=2) and AODE, and far fewer true classes given less than 1e-15);
    - with ``numbers="density"`` (an estimator's ``distributions="density"``), or
      when the classes are unknown, a continuous column is a density: log-normal
      (:class:`~bnclassify.distributions.LogNormal`) when its observed values
      are all positive and, within the classes, fit a log-normal significantly
      better than a normal (:func:`prefers_log_normal`, on at most 65,536 evenly
      spaced rows): amounts, durations, concentrations; Gaussian otherwise, and
      always where ``log x`` hardly spreads (values far from 0 for their spread:
      a shift of a Gaussian column by 1e6 keeps it Gaussian);
    - booleans, strings, objects, dates and pandas Categorical columns are
      categorical (a date is never read as nanoseconds by a Gaussian node).

    ``column`` is a Series, or a dtype when the values need not be read (an
    integer dtype alone is then categorical, a float dtype Gaussian).
    ``weights`` (the rows' sample weights, as frequencies) and ``classes`` (each
    row's class) inform the rule. ``numbers``: ``"binned"`` or ``"density"``
    (default :data:`NUMERIC_KIND`, ``"binned"``).

    Examples
    --------
    >>> classes = ["a", "b"]
    >>> default_kind(pd.Series([1.5, 2.0]), classes=classes), default_kind(pd.Series([1, 2]))
    ('binned', 'categorical')
    >>> default_kind(pd.Series([1.5, 2.0]), classes=classes, numbers="density")
    'gaussian'
    >>> default_kind(pd.Series([1.5, 2.0]))  # no classes to learn the bins from
    'gaussian'
    >>> codes_with_a_gap = pd.Series([1.0, 2.0, None])  # read_csv: integers with NaN
    >>> default_kind(codes_with_a_gap), default_kind(codes_with_a_gap.astype("Int64"))
    ('gaussian', 'categorical')
    >>> default_kind(pd.Series([1.0, 2.0, 2.0, 1.0]), classes=classes * 2)  # a measurement
    'binned'
    >>> mostly_zero = pd.Series([0] * 60 + list(range(40)))  # a point mass at 0
    >>> default_kind(mostly_zero)
    'categorical'
    >>> default_kind(pd.Series(range(100)), classes=[0, 1] * 50)
    'binned'
    >>> default_kind(pd.Series(range(100))), default_kind(pd.Series([True, False]))
    ('gaussian', 'categorical')
    >>> amounts = pd.Series(np.exp(np.random.default_rng(0).normal(7, 1, 500)).round())
    >>> default_kind(amounts), default_kind(amounts.astype(int))
    ('lognormal', 'lognormal')
    """
    limit = INTEGER_MAX_CATEGORIES if max_categories is None else max_categories
    numbers = NUMERIC_KIND if numbers is None else numbers
    if numbers not in ("binned", DENSITY):
        raise ValueError(f"numbers must be 'binned' or 'density', got {numbers!r}.")
    dtype = getattr(column, "dtype", column)
    if isinstance(dtype, pd.CategoricalDtype):
        return "categorical"
    if dtype.kind not in "iuf":
        return "categorical"
    if not isinstance(column, pd.Series):
        # a dtype alone: an integer column the caller found narrow, a float one unread
        return "gaussian" if dtype.kind == "f" else "categorical"
    observed = column.notna().to_numpy()
    x = column[observed].to_numpy(dtype=float)
    w = None if weights is None else np.asarray(weights, dtype=float)[observed]
    if dtype.kind in "iu":
        if not len(x):
            return "categorical"
        integers = column[observed].to_numpy(dtype=np.int64)  # exact, beyond 2**53 too
    else:  # a float column is a measurement, even of integers (issue 32 item 3)
        integers = None
    if integers is not None and _categorical_by_counts(integers, limit, w):
        return "categorical"
    if numbers == "binned" and classes is not None:
        return "binned"
    return _continuous_kind(x, observed, w, classes)


#: An integer column with more than :data:`INTEGER_MAX_CATEGORIES` values is still
#: categorical when one value holds at least this share of its (weighted) rows: a
#: point mass (e.g. a capital gain that is 0 for 91% of people) that no density models.
POINT_MASS_MIN_SHARE = 0.5


def _categorical_by_counts(values, limit, weights=None) -> bool:
    """Whether integers have at most ``limit`` distinct values or one value holding
    :data:`POINT_MASS_MIN_SHARE` of the (weighted) rows."""
    low, high = int(values.min()), int(values.max())
    if high - low < limit:
        return True  # at most `limit` distinct values: no counting needed
    if high - low < LOOKUP_LIMIT:
        counts = np.bincount(values - low, weights=weights)
    else:
        counts = np.bincount(np.unique(values, return_inverse=True)[1], weights=weights)
    return categorical_by_value_counts(counts, limit)


#: A continuous column whose within-class spread of ``log x`` (the pooled standard
#: deviation) is below this is Gaussian without a test. There ``log x`` is a linear
#: function of ``x`` up to a few parts in a hundred, a log-normal and a normal differ by
#: about ``0.75 sd**2`` nats per row (under 0.002), and Vuong's statistic measures only
#: the column's skewness, which a change of origin sets at will: a Gaussian column
#: shifted by 1e6 passed for log-normal (116 of the 272 Gaussian columns of the UCI and
#: benchmark tables did). The smallest spread of a log-normal column on those tables is
#: 0.097 (cylinder.bands' humidity) apart from a date written as a number (0.0004).
LOG_NORMAL_MIN_LOG_SD = 0.05

#: Rows the log-normal test reads at most (evenly spaced): at 65,536 rows it tells
#: a log-normal from a normal many times over, and a tall table's fit does not pay
#: one pass per float column for it.
LOG_NORMAL_TEST_ROWS = 1 << 16


def tested_row_step(n_rows: int) -> int:
    """Every how many rows of a column of ``n_rows`` the log-normal test reads one.

    Examples
    --------
    >>> tested_row_step(1000), tested_row_step(200_000)
    (1, 4)
    """
    return max(1, -(-n_rows // LOG_NORMAL_TEST_ROWS))  # ceil


def _continuous_kind(x, observed, weights, classes) -> str:
    """Log-normal or Gaussian from the observed values ``x`` (rows ``observed``), tested on
    every step-th row of the column."""
    step = tested_row_step(len(observed))
    tested = np.zeros(len(observed), dtype=bool)
    tested[::step] = True
    kept = tested[observed]  # the tested rows among the observed ones
    w = None if weights is None else weights[kept]
    c = None if classes is None else np.asarray(classes)[tested & observed]
    return "lognormal" if prefers_log_normal(x[kept], weights=w, classes=c) else "gaussian"


def prefers_log_normal(x, min_z=None, weights=None, classes=None) -> bool:
    """Whether positive numbers fit a log-normal significantly better than a normal.

    Vuong's test for non-nested models: with both fitted by maximum likelihood
    in each class (as a classifier's node is), ``d_i = log LN(x_i | c_i) -
    log N(x_i | c_i)`` and ``z = sqrt(n) mean(d) / sd(d)``; the log-normal is
    preferred when ``z > min_z`` (default :data:`LOG_NORMAL_MIN_Z`). Fitting
    per class keeps a mixture of normal classes, which is skewed, from passing
    for a log-normal. Both models have the same number of parameters, so no
    penalty enters. False when a value is not positive, with fewer than 8
    values in classes where the column varies, or when ``log x`` spreads less
    than :data:`LOG_NORMAL_MIN_LOG_SD` within the classes (values far from 0
    for their spread: then the two models are one up to the column's skewness,
    and a change of origin must not change the kind). Invariant to the units of
    ``x`` (rescaling shifts both log-likelihoods alike).

    Parameters
    ----------
    x : array-like of shape (n,)
        The observed (non-missing) values.
    min_z : float, optional
    weights : array-like of shape (n,), optional
        Frequencies: an integer weight counts as that many repeated values.
    classes : array-like of shape (n,), optional
        The class of each value (None: one class).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> prefers_log_normal(rng.lognormal(0, 1, 200)), prefers_log_normal(rng.normal(50, 5, 200))
    (True, False)
    """
    level = LOG_NORMAL_MIN_Z if min_z is None else min_z
    x = np.asarray(x, dtype=float)
    w = np.ones(len(x)) if weights is None else np.asarray(weights, dtype=float)
    group = np.zeros(len(x), dtype=np.intp) if classes is None else pd.factorize(classes)[0]
    kept = (w > 0) & (group >= 0)  # a missing label has no class to fit in
    x, w, group = x[kept], w[kept], group[kept]
    if not len(x) or not (x > 0).all() or np.isinf(x).any():  # inf is refused later, by name
        return False
    # weights relative to the largest (means and shares are free of their scale; no sum of
    # weights near 1e308 overflows), values in units of the largest one's power of two
    # (exact, and no square overflows at 1e300)
    scale, w = w.max(), w / w.max()
    e = np.frexp(x.max())[1]
    logs = np.log(x) - e * np.log(2.0)  # from x itself: 1e-300 next to 1e300 underflows below
    x = np.ldexp(x, -e)
    size = np.bincount(group, weights=w)

    def class_mean(v):
        # a class whose weights all underflow relative to the largest (5e-324 beside 1e300)
        # has size 0: it adds nothing, and must not divide 0 by 0
        sums = np.bincount(group, weights=w * v)
        return np.divide(sums, size, out=np.zeros_like(sums), where=size > 0)[group]

    def class_sd(v):
        return np.sqrt(class_mean((v - class_mean(v)) ** 2))

    x_sd, log_sd = class_sd(x), class_sd(logs)
    if np.sqrt((w * log_sd**2).sum() / w.sum()) < LOG_NORMAL_MIN_LOG_SD:
        return False  # log x is x up to a change of origin and units: nothing to test
    varies = (x_sd > 0) & (log_sd > 0)  # a class with one value says nothing either way
    # sqrt(n) for n = the weighted count, as sqrt(scale) * sqrt(relative count): no overflow
    if np.sqrt(scale) * np.sqrt(w[varies].sum()) < np.sqrt(8):
        return False
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        normal = -0.5 * ((x - class_mean(x)) / x_sd) ** 2 - np.log(x_sd)
        log_normal = -0.5 * ((logs - class_mean(logs)) / log_sd) ** 2 - np.log(log_sd) - logs
    # a spread that underflowed next to its values says nothing either way
    varies &= np.isfinite(normal) & np.isfinite(log_normal)
    relative = w[varies].sum()
    root_n = np.sqrt(scale) * np.sqrt(relative)
    if root_n < np.sqrt(8):
        return False
    d, share = (log_normal - normal)[varies], w[varies] / relative
    mean = (share * d).sum()
    dev = d - mean
    top = np.abs(dev).max()
    spread = top * np.sqrt((share * (dev / top) ** 2).sum()) if top > 0 else 0.0
    if not spread > 0:
        return bool(mean > 0)
    # z = sqrt(n) mean / spread > level, written so that no quotient overflows
    return bool(mean > level * spread / root_n)


# -- the forms of a column ------------------------------------------------------------------------
