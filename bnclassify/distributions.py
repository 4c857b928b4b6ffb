"""Class-conditional distributions of single features or groups of features.

A Bayesian network classifier models each feature given its parents (the
class and, in TAN, one more feature). Categorical features get a conditional
probability table (:class:`Categorical`, the core's fast path); the classes
here model numeric features:

=====================  =========================================  ===================
distribution           model of the feature given the class c      parents allowed
=====================  =========================================  ===================
:class:`Gaussian`      N(mu_c, s_c^2); with feature parents the     categorical and
                       conditional linear Gaussian                  Gaussian features
                       N(a_ck + b_ck . x_parents, s_ck^2)
:class:`KernelDensity`  mean of Gaussian kernels on the class's      class only
                       training values (bandwidth by rule)
:class:`Bernoulli`     P(x > binarize | c)                          class only
:class:`Multinomial`   counts of a *group* of columns modelled      class only
                       jointly: P(x | c) = n!/prod x_j! prod p_cj^x_j
=====================  =========================================  ===================

Pass them to an estimator's ``distributions`` parameter, per column (or per
tuple of columns for a multinomial group); columns not listed are modelled
by dtype: float columns are :class:`Gaussian`, everything else (integers,
booleans, strings, pandas Categorical) :class:`Categorical`.

**Variance floor.** As in scikit-learn's ``GaussianNB``, every Gaussian (and
kernel) variance is increased by ``epsilon = var_smoothing * V``, where ``V``
is the largest variance (over all training rows) of any Gaussian or kernel
density feature of the model (1 if all of them are constant). A pixel that is
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

import numbers

import numpy as np
from scipy.special import gammaln, logsumexp
from sklearn.base import BaseEstimator

from ._encoding import MISSING

__all__ = [
    "Bernoulli",
    "Categorical",
    "Distribution",
    "Gaussian",
    "KernelDensity",
    "Multinomial",
]

_LOG_2PI = np.log(2 * np.pi)

#: Cells of the (test rows x training values) kernel matrix evaluated at once.
_KDE_BLOCK = 1 << 22


class Distribution(BaseEstimator):
    """Base of the feature distributions: a specification, then a fitted state.

    An estimator deep-copies the specification it is given and fits the copy,
    so a specification can be shared between estimators. Fitted copies carry
    ``columns_`` (the feature names they model) and ``parents_`` (their
    feature parents, the class excluded).
    """

    #: Short name used in ``feature_kinds_`` and accepted as a string spec.
    kind = None
    #: Whether the distribution may have feature parents (and be one).
    structural = False
    #: Whether it models a group of columns jointly.
    joint = False

    def _setup(self, columns, categorical_parents=(), continuous_parents=(), names=()):
        self.columns_ = tuple(names[i] for i in columns) if names else tuple(columns)
        self.parents_ = tuple(names[i] for i in (*categorical_parents, *continuous_parents))
        self._columns = tuple(columns)
        self._categorical_parents = tuple(categorical_parents)
        self._continuous_parents = tuple(continuous_parents)


class Categorical(Distribution):
    """A conditional probability table (Dirichlet-smoothed with the estimator's ``alpha``).

    The default for integer, boolean, string and pandas Categorical columns;
    name it explicitly to treat a float column (e.g. integer codes with NaN)
    as categorical.

    Examples
    --------
    >>> from bnclassify import NaiveBayes
    >>> from bnclassify.distributions import Categorical
    >>> model = NaiveBayes(distributions=Categorical()).fit([[1.0], [2.0]], ["a", "b"])
    >>> model.feature_kinds_, model.categories_[0].tolist()
    (['categorical'], [1.0, 2.0])
    """

    kind = "categorical"
    structural = True


def _check_var_smoothing(value, owner):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value >= 0:
        raise ValueError(f"{owner}: var_smoothing must be a number >= 0, got {value!r}.")
    if not np.isfinite(value):
        raise ValueError(f"{owner}: var_smoothing must be finite, got {value!r}.")
    return float(value)


def _zero_variance_error(name, where):
    return ValueError(
        f"Feature {name!r} has zero variance {where} and var_smoothing=0; "
        "use var_smoothing > 0 to put a floor under the variances."
    )


class Gaussian(Distribution):
    """Gaussian density; with feature parents, the conditional linear Gaussian.

    Given the class ``c`` and the states ``k`` of its categorical parents,
    ``X | c, k, x_P ~ N(a_ck + b_ck . x_P, s_ck^2)`` where ``x_P`` are the
    values of its Gaussian parents. The parameters are the per-(class,
    parent state) least-squares fit on the training rows observing the feature
    and all its parents: ``b`` the regression slopes (0 for a parent constant
    within the group), ``a`` the intercept and ``s^2`` the mean squared
    residual (maximum likelihood, ``ddof=0``) plus ``epsilon``. With no feature
    parents this is the class mean and variance, as in scikit-learn's
    ``GaussianNB``. A (class, parent state) pair without training rows borrows
    the class's fit without the categorical parents.

    Parameters
    ----------
    var_smoothing : float, default=1e-9
        ``epsilon = var_smoothing * V`` is added to every variance, ``V`` the
        largest variance of any continuous feature of the model
        (scikit-learn's ``GaussianNB`` rule and default).

    Attributes
    ----------
    intercept_ : ndarray of shape (n_classes, *categorical parent cards)
        ``a``; the class means when there are no Gaussian parents.
    coef_ : ndarray of shape (n_classes, *categorical parent cards, n_gaussian_parents)
        ``b``.
    var_ : ndarray of shape (n_classes, *categorical parent cards)
        ``s^2``, ``epsilon`` included.
    count_ : ndarray of shape (n_classes, *categorical parent cards)
        Training rows behind each fit.
    epsilon_ : float
    mean_ : ndarray of shape (n_classes,)
        ``intercept_`` of a Gaussian without feature parents.

    Notes
    -----
    A missing Gaussian value is integrated out exactly. In a tree (each
    Gaussian feature has at most one Gaussian parent, as in TAN) the Gaussian
    features form a linear Gaussian forest given the class, and the integral
    is computed by upward message passing in closed form, vectorised over
    rows. A feature with several Gaussian parents (e.g. from a k-dependence
    structure) supports missing values only where no integral is needed
    (missing leaves); otherwise prediction raises a ``ValueError``.

    Examples
    --------
    >>> import numpy as np
    >>> from bnclassify import NaiveBayes
    >>> from bnclassify.distributions import Gaussian
    >>> X = np.array([[1.0], [3.0], [10.0], [14.0]])
    >>> model = NaiveBayes(alpha=0, distributions=Gaussian(var_smoothing=0)).fit(X, [0, 0, 1, 1])
    >>> g = model.distributions_["x0"]
    >>> g.mean_, g.var_
    (array([ 2., 12.]), array([1., 4.]))
    """

    kind = "gaussian"
    structural = True

    def __init__(self, var_smoothing=1e-9):
        self.var_smoothing = var_smoothing

    @property
    def mean_(self):
        if self.coef_.shape[-1] or self.intercept_.ndim > 1:
            raise AttributeError(
                "mean_ is defined for a Gaussian without feature parents; "
                "read intercept_ and coef_ instead."
            )
        return self.intercept_

    @property
    def std_(self):
        """Standard deviations, ``sqrt(var_)``."""
        return np.sqrt(self.var_)

    @property
    def n_parameters_(self) -> int:
        """Intercepts, slopes and variances of every (class, categorical parent state)."""
        return int(self.intercept_.size + self.coef_.size + self.var_.size)

    def _fit(self, x, y, n_classes, cat_codes, cat_cards, cont, scale, name):
        """Fit from values ``x`` (n,), class codes, parent codes (n, k) and values (n, p)."""
        self.epsilon_ = _check_var_smoothing(self.var_smoothing, "Gaussian") * scale
        cat_cards = tuple(int(r) for r in cat_cards)
        n_configs = int(np.prod(cat_cards)) if cat_cards else 1
        p = cont.shape[1]
        observed = ~np.isnan(x) & ~np.isnan(cont).any(axis=1) & (cat_codes != MISSING).all(axis=1)
        config = (
            np.ravel_multi_index(tuple(cat_codes[observed].T), cat_cards)
            if cat_cards
            else np.zeros(observed.sum(), dtype=np.intp)
        )
        group = y[observed] * n_configs + config
        xs, parents = x[observed], cont[observed]
        n_groups = n_classes * n_configs
        count = np.bincount(group, minlength=n_groups).astype(float)
        intercept, coef, var = _least_squares(xs, parents, group, count, n_groups)
        # (class, state) groups without rows: the class's fit ignoring the categorical parents
        empty = count == 0
        if empty.any():
            if cat_cards:
                by_class = Gaussian(self.var_smoothing)
                by_class._fit(x, y, n_classes, cat_codes[:, :0], (), cont, scale, name)
                own = np.repeat(np.arange(n_classes), n_configs)
                intercept[empty] = by_class.intercept_.reshape(n_classes)[own[empty]]
                coef[empty] = by_class.coef_.reshape(n_classes, p)[own[empty]]
                var[empty] = by_class.var_.reshape(n_classes)[own[empty]] - by_class.epsilon_
            else:  # a class with no observed value: the fit over all classes
                pooled = np.zeros(len(xs), dtype=np.intp)
                a, b, v = _least_squares(xs, parents, pooled, np.array([len(xs)], float), 1)
                intercept[empty], coef[empty], var[empty] = a[0], b[0], v[0]
        var = var + self.epsilon_
        if (var <= 0).any():
            where = int(np.flatnonzero(var <= 0)[0]) // n_configs
            raise _zero_variance_error(name, f"in class code {where}")
        shape = (n_classes, *cat_cards)
        self.intercept_ = intercept.reshape(shape)
        self.coef_ = coef.reshape(*shape, p)
        self.var_ = var.reshape(shape)
        self.count_ = count.reshape(shape)
        return self

    def _conditional(self, cat_codes):
        """Per-row ``(a, b, s^2)`` for every class, shapes (n, C), (n, C, p), (n, C)."""
        n_classes = self.var_.shape[0]
        cards = self.var_.shape[1:]
        if cards:
            config = np.ravel_multi_index(tuple(cat_codes.T), cards)
        else:
            config = np.zeros(len(cat_codes), dtype=np.intp)
        a = self.intercept_.reshape(n_classes, -1)[:, config].T
        n_configs = int(np.prod(cards)) if cards else 1
        b = self.coef_.reshape(n_classes, n_configs, -1)[:, config].transpose(1, 0, 2)
        v = self.var_.reshape(n_classes, -1)[:, config].T
        return a, b, v

    def _log_density(self, x, cat_codes, cont):
        """log p(x | c, parents) for rows with every value observed, shape (n, C)."""
        a, b, v = self._conditional(cat_codes)
        mean = a + np.einsum("ncp,np->nc", b, cont)
        return -0.5 * (_LOG_2PI + np.log(v) + (x[:, None] - mean) ** 2 / v)


def _least_squares(xs, parents, group, count, n_groups):
    """Per-group least squares of ``xs`` on ``parents`` (centred, so constant parents get 0)."""
    p = parents.shape[1]
    intercept = np.zeros(n_groups)
    coef = np.zeros((n_groups, p))
    var = np.zeros(n_groups)
    safe = np.maximum(count, 1.0)
    mean_x = np.bincount(group, xs, minlength=n_groups) / safe
    dx = xs - mean_x[group]
    if p == 0:
        var[:] = np.bincount(group, dx * dx, minlength=n_groups) / safe
        return mean_x, coef, var
    if p == 1:  # closed form, vectorised over groups
        mean_p = np.bincount(group, parents[:, 0], minlength=n_groups) / safe
        dp = parents[:, 0] - mean_p[group]
        spp = np.bincount(group, dp * dp, minlength=n_groups)
        spx = np.bincount(group, dp * dx, minlength=n_groups)
        # a parent constant within the group (relative to its scale) explains nothing
        scale = np.bincount(group, parents[:, 0] ** 2, minlength=n_groups)
        usable = spp > 1e-12 * np.maximum(scale, np.finfo(float).tiny)
        slope = np.where(usable, spx / np.where(usable, spp, 1.0), 0.0)
        coef[:, 0] = slope
        intercept = mean_x - slope * mean_p
        residual = dx - slope[group] * dp
        var[:] = np.bincount(group, residual * residual, minlength=n_groups) / safe
        return intercept, coef, var
    for g in np.flatnonzero(count):  # several Gaussian parents: one lstsq per group
        rows = group == g
        centred = parents[rows] - parents[rows].mean(axis=0)
        slope = np.linalg.lstsq(centred, dx[rows], rcond=None)[0]
        coef[g] = slope
        intercept[g] = mean_x[g] - slope @ parents[rows].mean(axis=0)
        residual = dx[rows] - centred @ slope
        var[g] = residual @ residual / count[g]
    return intercept, coef, var


class KernelDensity(Distribution):
    """Gaussian kernel density estimate of the feature in each class.

    ``p(x | c) = mean over the class's training values v of N(x; v, h_c^2 + epsilon)``.

    Parameters
    ----------
    bandwidth : {"scott", "silverman"} or float, default="scott"
        The kernel standard deviation ``h_c``. The rules are those of
        ``scipy.stats.gaussian_kde`` in one dimension, with ``sigma_c`` the
        class's sample standard deviation (``ddof=1``) and ``n_c`` its number
        of observed values: Scott ``h_c = sigma_c n_c^(-1/5)``, Silverman
        ``h_c = sigma_c (3 n_c / 4)^(-1/5)``. A float is used for every class.
    var_smoothing : float, default=1e-9
        ``epsilon``, as in :class:`Gaussian`, keeps a class with one value or
        a constant feature from a zero bandwidth.

    Attributes
    ----------
    bandwidth_ : ndarray of shape (n_classes,)
        ``h_c``.
    epsilon_ : float
    values_ : list of ndarray
        The training values of each class (the kernel centres).

    Examples
    --------
    >>> import numpy as np
    >>> from bnclassify import NaiveBayes
    >>> from bnclassify.distributions import KernelDensity
    >>> X = np.array([[0.0], [0.2], [0.4], [3.0], [3.5], [4.0]])
    >>> model = NaiveBayes(distributions=KernelDensity()).fit(X, [0, 0, 0, 1, 1, 1])
    >>> model.predict([[0.1], [3.3]]).tolist()
    [0, 1]
    """

    kind = "kde"

    def __init__(self, bandwidth="scott", var_smoothing=1e-9):
        self.bandwidth = bandwidth
        self.var_smoothing = var_smoothing

    def _fit(self, x, y, n_classes, scale, name):
        self.epsilon_ = _check_var_smoothing(self.var_smoothing, "KernelDensity") * scale
        bandwidth = self.bandwidth
        rules = ("scott", "silverman")
        if isinstance(bandwidth, str):
            if bandwidth not in rules:
                raise ValueError(
                    f"KernelDensity bandwidth must be one of {rules} or a positive number, "
                    f"got {bandwidth!r}."
                )
        elif (
            isinstance(bandwidth, bool)
            or not isinstance(bandwidth, numbers.Real)
            or not (np.isfinite(bandwidth) and bandwidth > 0)
        ):
            raise ValueError(
                f"KernelDensity bandwidth must be one of {rules} or a positive number, "
                f"got {bandwidth!r}."
            )
        observed = ~np.isnan(x)
        self.values_ = [x[observed & (y == c)] for c in range(n_classes)]
        everything = x[observed]
        h = np.empty(n_classes)
        for c, values in enumerate(self.values_):
            if len(values) == 0:  # a class without values borrows every class's
                self.values_[c] = values = everything
            n_c = len(values)
            if isinstance(bandwidth, str):
                sigma = values.std(ddof=1) if n_c > 1 else 0.0
                factor = n_c ** (-1 / 5) if bandwidth == "scott" else (3 * n_c / 4) ** (-1 / 5)
                h[c] = sigma * factor
            else:
                h[c] = bandwidth
        self.bandwidth_ = h
        if (h**2 + self.epsilon_ <= 0).any():
            raise _zero_variance_error(name, f"in class code {int(np.argmin(h))}")
        return self

    @property
    def n_parameters_(self) -> int:
        """The bandwidths only: a kernel density's effective complexity is not a count."""
        return int(self.bandwidth_.size)

    def _log_density(self, x):
        """log p(x | c) for observed values ``x`` (n,), shape (n, C)."""
        out = np.empty((len(x), len(self.values_)))
        for c, centres in enumerate(self.values_):
            var = self.bandwidth_[c] ** 2 + self.epsilon_
            block = max(1, _KDE_BLOCK // max(len(centres), 1))
            for start in range(0, len(x), block):
                d = x[start : start + block, None] - centres[None, :]
                out[start : start + block, c] = logsumexp(-0.5 * d * d / var, axis=1)
            out[:, c] += -0.5 * (_LOG_2PI + np.log(var)) - np.log(len(centres))
        return out


def _check_alpha(alpha, owner):
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not np.isfinite(alpha):
        raise TypeError(f"{owner}: alpha must be a finite number or None, got {alpha!r}.")
    if alpha < 0:
        raise ValueError(f"{owner}: alpha must be >= 0, got {alpha!r}.")
    return float(alpha)


def _xlogy_rows(x, log_p):
    """``x @ log_p.T`` with ``0 * log 0 = 0``; -inf where a positive x meets p = 0."""
    finite = np.isfinite(log_p)
    out = x @ np.where(finite, log_p, 0.0).T
    impossible = (x > 0).astype(float) @ (~finite).astype(float).T > 0
    out[impossible] = -np.inf
    return out


class Bernoulli(Distribution):
    """Bernoulli feature: ``P(x > binarize | c)``, as scikit-learn's ``BernoulliNB``.

    Parameters
    ----------
    binarize : float or None, default=0.0
        Values above it count as 1, the others as 0. ``None``: the values must
        already be 0/1 (or booleans).
    alpha : float or None, default=None
        Pseudo-count: ``P(1 | c) = (N(c, 1) + alpha) / (N(c) + 2 alpha)``;
        ``None`` uses the estimator's ``alpha``.

    Attributes
    ----------
    prob_ : ndarray of shape (n_classes,)
        ``P(x = 1 | c)``.

    Examples
    --------
    >>> from bnclassify import NaiveBayes
    >>> from bnclassify.distributions import Bernoulli
    >>> X = [[0.0], [2.0], [3.0], [0.0]]
    >>> model = NaiveBayes(alpha=0, distributions=Bernoulli()).fit(X, ["a", "a", "b", "b"])
    >>> model.distributions_["x0"].prob_
    array([0.5, 0.5])
    """

    kind = "bernoulli"

    def __init__(self, binarize=0.0, alpha=None):
        self.binarize = binarize
        self.alpha = alpha

    def _binary(self, x, name):
        if self.binarize is None:
            values = x[~np.isnan(x)]
            bad = values[(values != 0) & (values != 1)]
            if len(bad):
                raise ValueError(
                    f"Column {name!r} is Bernoulli with binarize=None and needs 0/1 values, "
                    f"got {bad[:5].tolist()}."
                )
            return x
        return np.where(np.isnan(x), np.nan, (x > self.binarize).astype(float))

    def _fit(self, x, y, n_classes, alpha, name):
        alpha = _check_alpha(alpha if self.alpha is None else self.alpha, "Bernoulli")
        b = self._binary(x, name)
        observed = ~np.isnan(b)
        ones = np.bincount(y[observed], b[observed], minlength=n_classes)
        total = np.bincount(y[observed], minlength=n_classes).astype(float)
        with np.errstate(invalid="ignore"):
            prob = (ones + alpha) / (total + 2 * alpha)
        self.prob_ = np.where(np.isfinite(prob), prob, 0.5)
        self._name = name
        return self

    @property
    def n_parameters_(self) -> int:
        return int(self.prob_.size)

    def _log_density(self, x):
        b = self._binary(x, self._name)[:, None]
        with np.errstate(divide="ignore"):
            log1, log0 = np.log(self.prob_), np.log1p(-self.prob_)
        return _xlogy_rows(b, log1[:, None]) + _xlogy_rows(1 - b, log0[:, None])


class Multinomial(Distribution):
    """A group of count columns modelled jointly by one multinomial per class.

    ``P(x | c) = n! / prod_j x_j! * prod_j p_cj^x_j`` with ``n = sum_j x_j``
    (the coefficient does not depend on the class, so predictions equal
    scikit-learn's ``MultinomialNB``). Word counts of a document and amino-acid
    counts of a protein are the typical groups. Give the group as a tuple key:
    ``distributions={("w1", "w2", "w3"): Multinomial()}``, or
    ``distributions="multinomial"`` for the whole table.

    Parameters
    ----------
    alpha : float or None, default=None
        Pseudo-count: ``p_cj = (N_cj + alpha) / (N_c + g alpha)`` with ``N_cj``
        the total count of column ``j`` in class ``c`` and ``g`` the group
        size; ``None`` uses the estimator's ``alpha``. ``alpha=0`` gives the
        unsmoothed (maximum likelihood) estimates.

    Attributes
    ----------
    prob_ : ndarray of shape (n_classes, n_columns)
        ``p_cj``; each row sums to 1.

    Examples
    --------
    >>> from bnclassify import NaiveBayes
    >>> X = [[2, 1, 0], [3, 0, 1], [0, 2, 2]]
    >>> model = NaiveBayes(alpha=0, distributions="multinomial").fit(X, ["a", "a", "b"])
    >>> model.distributions_[("x0", "x1", "x2")].prob_.round(3)
    array([[0.714, 0.143, 0.143],
           [0.   , 0.5  , 0.5  ]])
    """

    kind = "multinomial"
    joint = True

    def __init__(self, alpha=None):
        self.alpha = alpha

    def _fit(self, counts, y, n_classes, alpha, names):
        alpha = _check_alpha(alpha if self.alpha is None else self.alpha, "Multinomial")
        _check_counts(counts, names)
        totals = np.zeros((n_classes, counts.shape[1]))
        np.add.at(totals, y, counts)
        smoothed = totals + alpha
        norm = smoothed.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            self.prob_ = np.where(norm > 0, smoothed / norm, 1.0 / counts.shape[1])
        self._names = names
        return self

    @property
    def n_parameters_(self) -> int:
        """``n_classes * (n_columns - 1)``: each row of ``prob_`` sums to 1."""
        return int(self.prob_.shape[0] * (self.prob_.shape[1] - 1))

    def _log_density(self, counts):
        _check_counts(counts, self._names)
        with np.errstate(divide="ignore"):
            log_p = np.log(self.prob_)
        coefficient = gammaln(counts.sum(axis=1) + 1) - gammaln(counts + 1).sum(axis=1)
        return _xlogy_rows(counts, log_p) + coefficient[:, None]


def _check_counts(counts, names):
    missing = np.isnan(counts)
    if missing.any():
        j = int(np.flatnonzero(missing.any(axis=0))[0])
        raise ValueError(
            f"Column {names[j]!r} of a multinomial group has missing values; a count in a "
            "multinomial cannot be summed out. Impute it (e.g. with 0) first."
        )
    negative = counts < 0
    if negative.any():
        j = int(np.flatnonzero(negative.any(axis=0))[0])
        raise ValueError(
            f"Column {names[j]!r} of a multinomial group has negative values "
            f"(e.g. {counts[negative][0]}); multinomial counts must be >= 0."
        )


#: String specs accepted by the estimators' ``distributions`` parameter.
KINDS = {
    "categorical": Categorical,
    "gaussian": Gaussian,
    "kde": KernelDensity,
    "bernoulli": Bernoulli,
    "multinomial": Multinomial,
}
