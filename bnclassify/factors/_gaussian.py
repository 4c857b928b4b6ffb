"""The Gaussian node: a conditional linear Gaussian given the class and its parents."""

from __future__ import annotations

from numbers import Real

import numpy as np

from ..state import float_array, require
from ..stats import GaussianMoments
from ..validation import Interval, Options
from ._base import (
    LOG_2,
    Factor,
    log_normal,
    log_normal_sd,
    scaled_floor,
    spread_range,
    zero_variance_error,
)
from ._views import DensityView, RegressionView


class Gaussian(Factor):
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
    the class's fit without the categorical parents. The fit reads only the
    group's additive moments (:class:`~bnclassify.stats.GaussianMoments`).

    A (class, categorical parent state) group may hold a handful of rows, whose
    least-squares variance can be near 0 and whose density then spikes. Each
    such group therefore has a conjugate Normal-inverse-gamma prior centred on
    its class's fit (the same regression without the categorical parents),
    worth ``prior_strength`` pseudo-rows: ``kappa_0 = nu_0 = prior_strength``,
    prior variance the class's residual variance and, on the slopes, the
    class's parent scatter (Zellner's g-prior). The parameters are the
    posterior estimates: the least-squares fit of the group's moments plus
    ``prior_strength`` rows carrying the class's moments, so a group of ``n``
    rows moves towards its class by ``prior_strength / (n + prior_strength)``
    and its variance also counts the spread between its mean and the class's.
    An empty group is its class's fit. A node without categorical parents
    (naive Bayes, a Gaussian parent only) is the plain per-class fit, as in
    scikit-learn's ``GaussianNB``.

    A class (or group) whose training values show no spread (a single row, or
    equal values: a fitted variance of 0) would get a density that spikes at
    that value and takes every row holding it (on UCI anneal, ``len`` is 0 in
    all 8 rows of class 1, and naive Bayes sent 236 of 898 rows there, scoring
    below the majority rate). Its variance is instead the column's pooled
    within-class variance (the residual variance of every class's fit,
    weighted by its rows), or, when every class is constant, the column's
    variance over all rows. The classes with more such rows than the fit has
    coefficients are listed in ``constant_classes_`` and the estimator names
    them in one :class:`~bnclassify.exceptions.ZeroVarianceWarning`; a class
    with a single row (and no Gaussian parent) borrows silently, as there is no
    spread to measure, and a regression on Gaussian parents fitted to no more
    rows than coefficients keeps the floor (its 0 is rounding's). A column
    constant over all rows keeps the floor (it tells no class from another).

    Parameters
    ----------
    var_smoothing : float, default=1e-9
        ``epsilon = var_smoothing * V`` is added to every variance, ``V`` as
        ``floor_scale`` says.
    floor_scale : {"largest", "column"}, default="largest"
        ``"largest"``: ``V`` is the largest variance of any continuous feature
        of the model, scikit-learn's ``GaussianNB`` rule (its fit with the
        default ``var_smoothing``): a shift of any column, or one change of
        units for all of them, changes nothing, but one column's units move
        every column's floor. ``"column"``: ``V`` is this column's own
        variance over the training rows (about its mean), so a change of any
        one column's units (any affine map) changes nothing but the units of
        the fit; for a constant column ``V`` is its value squared (1 for
        zeros). The default is the one the library's evidence supports: with
        ``"column"`` near-constant columns get near-zero variances, which cost
        naive Bayes on scikit-learn's digits 0.840 -> 0.786 accuracy and TAN
        0.889 -> 0.848 (10-fold stratified CV, seed 0), and tied iris, wine and
        breast cancer (0.937-0.989 either way).
    prior_strength : float, default=10.0
        Pseudo-rows of the class-level prior behind each (class, categorical
        parent state) group; 0 gives each group's own maximum-likelihood fit.
        The default was chosen by 10-fold cross-validated log loss on tables
        with small groups (``benchmarks/gaussian_prior.py``).
    zero_variance : {"pooled", "floor"}, default="pooled"
        A class (or group) without spread: ``"pooled"`` gives it the column's
        pooled within-class variance (see above); ``"floor"`` keeps its
        variance 0 plus ``epsilon``, scikit-learn's ``GaussianNB``. The default
        is the one the library's evidence supports (10-fold stratified CV, seed
        0, ``distributions="gaussian"``): on scikit-learn's digits, whose edge
        pixels are constant within some classes, naive Bayes 0.840 -> 0.897
        accuracy (log loss 2.87 -> 1.91) and TAN 0.889 -> 0.927 (2.19 -> 1.40).

    Attributes
    ----------
    intercept_ : ndarray of shape ``(n_classes, *categorical parent cards)``
        ``a``; the class means when there are no Gaussian parents.
    coef_ : ndarray of shape ``(n_classes, *categorical parent cards, n_gaussian_parents)``
        ``b``.
    var_ : ndarray of shape ``(n_classes, *categorical parent cards)``
        ``s^2``, ``epsilon`` included.
    count_ : ndarray of shape ``(n_classes, *categorical parent cards)``
        Training rows behind each fit (the prior's pseudo-rows not included).
    epsilon_ : float
    constant_classes_ : tuple of int
        Codes (positions in the estimator's ``classes_``) of the classes whose
        observed values showed no spread though more than the fit's coefficients,
        and whose variance is the pooled one (see above).
    mean_ : ndarray of shape (n_classes,)
        ``intercept_`` of a Gaussian without feature parents.

    Notes
    -----
    A missing Gaussian value is integrated out exactly, in any structure the
    kind rule allows (a Gaussian node has at most one Gaussian parent). The
    Gaussian nodes joined by missing values pass messages from the leaves
    up: a node sends its missing Gaussian parent a Gaussian ``exp(K)
    N(x_parent; m, W)``, in closed form and vectorised over rows; the
    network does this for every state of their missing categorical parents
    and sums those out with the rest (variable elimination).

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
    continuous = True

    scaled_by_variance = True
    rescaled = True
    _parameter_constraints = {
        "var_smoothing": [Interval(Real, 0, None, closed="left")],
        "prior_strength": [Interval(Real, 0, None, closed="left")],
        "floor_scale": [Options(("column", "largest"))],
        "zero_variance": [Options(("pooled", "floor"))],
    }

    def variance_floor(self, log_scale, exponent=0) -> float:
        return scaled_floor(float(self.var_smoothing), log_scale, exponent)

    def column_floor(self, stats, column) -> float:
        """``epsilon`` of ``column`` in its fitted units (the column over ``2**exponent``)."""
        if getattr(self, "floor_scale", "largest") == "column":
            pooled = stats.gaussian_moments(column).pooled()
            n = float(pooled.count[0])
            own = float(pooled.sxx[0]) / n if n > 0 else 0.0
            if not (own > 0 and np.isfinite(own)):
                # a constant column: its squared value, 1 for zeros (the fitted units hold
                # |x| in [0.5, 1), so neither under- nor overflows at 1e-300 or 1e300)
                mean = float(pooled.mean_x[0]) if n > 0 else 0.0
                own = mean * mean if np.isfinite(mean) and mean != 0 else 1.0
            floor = float(self.var_smoothing) * own
            if floor > 0 or self.var_smoothing == 0:
                return floor
        return self.variance_floor(stats.log_variance_scale, int(stats.exponents[column]))

    def __init__(
        self, var_smoothing=1e-9, prior_strength=10.0, floor_scale="largest", zero_variance="pooled"
    ):
        self.var_smoothing = var_smoothing
        self.prior_strength = prior_strength
        self.floor_scale = floor_scale
        self.zero_variance = zero_variance

    # -- units: fitted on the column divided by 2**e (e from the data), reported in its own --
    @property
    def intercept_(self):
        return np.ldexp(self._intercept, self._exponent[0])

    @property
    def coef_(self):
        return np.ldexp(self._coef, self._exponent[0] - self._exponent[1:])

    @property
    def var_(self):
        # inf where the variance in the column's units is beyond the float range (a spread
        # over about 1e154): the node itself works in scaled units, and std_ is exact
        with np.errstate(over="ignore"):
            return np.ldexp(self._var, 2 * self._exponent[0])

    @property
    def epsilon_(self):
        return float(np.ldexp(self._epsilon, 2 * self._exponent[0]))

    @property
    def mean_(self):
        if self._coef.shape[-1] or self._intercept.ndim > 1:
            raise AttributeError(
                "mean_ is defined for a Gaussian without feature parents; "
                "read intercept_ and coef_ instead."
            )
        return self.intercept_

    @property
    def std_(self):
        """Standard deviations, ``sqrt(var_)`` (from the scaled variances: exact where
        ``var_`` over- or underflows)."""
        return np.ldexp(np.sqrt(self._var), self._exponent[0])

    @property
    def n_parameters_(self) -> int:
        """Intercepts, slopes and variances of every (class, categorical parent state)."""
        return int(self._intercept.size + self._coef.size + self._var.size)

    # -- fitting ----------------------------------------------------------------------
    def fit_family(self, stats, columns, parents, alpha, names):
        self._setup(columns, parents, names, stats.discrete)
        (child,) = columns
        self._exponent = np.asarray(stats.exponents, dtype=np.int64)[
            [child, *self._continuous_parents]
        ]
        self._epsilon = self.column_floor(stats, child)
        cards = tuple(int(stats.cards[p]) for p in self._discrete_parents)
        strength = float(self.prior_strength)
        moments = stats.gaussian_moments(child, self._discrete_parents, self._continuous_parents)
        n_classes, n_configs = stats.n_classes, int(np.prod(cards)) if cards else 1
        count, observed = moments.count, moments
        if cards and strength > 0:
            by_class = stats.gaussian_moments(child, (), self._continuous_parents)
            moments = moments + _pseudo_rows(by_class, strength, n_configs)
        intercept, coef, var = moments.least_squares()
        empty = moments.count == 0
        if empty.any():
            # (class, state) groups without rows: the class's fit ignoring the categorical parents
            own = np.repeat(np.arange(n_classes), n_configs)
            if cards:
                by_class = stats.gaussian_moments(child, (), self._continuous_parents)
                a, b, v = by_class.least_squares()
                if (by_class.count == 0).any():  # a class with no value at all: every class's
                    a, b, v = _pooled(by_class, a, b, v)
            else:  # a class with no observed value: the fit over all classes
                a, b, v = _pooled(moments, intercept, coef, var)
            intercept[empty], coef[empty], var[empty] = a[own[empty]], b[own[empty]], v[own[empty]]
        if getattr(self, "zero_variance", "pooled") == "pooled":
            var, spreadless = _borrowed_spread(
                var, count, observed, 1 + len(self._continuous_parents)
            )
        else:
            spreadless = np.zeros(var.shape, dtype=bool)
        var = var + self._epsilon
        if (var <= 0).any():
            where = int(np.flatnonzero(var <= 0)[0]) // n_configs
            raise zero_variance_error(names[child], f"in class code {where}")
        shape = (n_classes, *cards)
        self._intercept = intercept.reshape(shape)
        self._coef = coef.reshape(*shape, len(self._continuous_parents))
        self._var = var.reshape(shape)
        self.count_ = count.reshape(shape)
        pooled = moments.pooled()  # where the Gaussian parents' training values lie, for plots
        spread = np.diag(pooled.spp[0]) / max(float(pooled.count[0]), 1.0)
        self._parent_mean, self._parent_sd = pooled.mean_p[0], np.sqrt(spread)
        # no more rows than the fit's parameters leave no spread to measure (one row, or a
        # regression on as many rows as coefficients): their borrowing is the rule, not news
        fitted = 1 + len(self._continuous_parents)
        constant = (spreadless & (count > fitted)).reshape(n_classes, -1).any(axis=1)
        self.constant_classes_ = tuple(np.flatnonzero(constant).tolist())
        return self

    @classmethod
    def from_moments(cls, means, variances, column, names):
        """A fitted parentless Gaussian with given class means and variances (no data)."""
        node = cls(var_smoothing=0.0)
        node._setup((column,), (), names, [False] * len(names))
        node._exponent = np.zeros(1, dtype=np.int64)
        node._intercept = np.asarray(means, dtype=float).copy()
        node._coef = np.zeros((len(node._intercept), 0))
        node._var = np.asarray(variances, dtype=float).copy()
        node.count_ = np.full(len(node._intercept), np.nan)
        node._epsilon = 0.0
        return node

    def describe(self):
        """Class densities per categorical-parent state; regression lines given a Gaussian parent.

        Without Gaussian parents: a :class:`~bnclassify.factors.DensityView`
        spanning every mean +- 4 standard deviations. With them: a
        :class:`~bnclassify.factors.RegressionView` on the first Gaussian
        parent, the others held at their training means.
        """
        n_classes = self._var.shape[0]
        mean = self.intercept_.reshape(n_classes, -1)
        sd = self.std_.reshape(n_classes, -1)
        if not self._continuous_parents:
            low, high = spread_range(mean, sd, 4)
            return DensityView(
                lambda grid: log_normal_sd(np.asarray(grid, float)[:, None, None], mean, sd),
                low,
                high,
            )
        coef = self.coef_.reshape(n_classes, mean.shape[1], -1)
        parent_mean = np.ldexp(self._parent_mean, self._exponent[1:])
        parent_sd = np.ldexp(self._parent_sd, self._exponent[1:])
        others = np.einsum("ckp,p->ck", coef[:, :, 1:], parent_mean[1:])
        centre, spread = parent_mean[0], parent_sd[0]
        return RegressionView(
            parent=self.parents_[len(self._discrete_parents)],
            intercept=mean + others,
            slope=coef[:, :, 0],
            sd=sd,
            low=float(centre - 3 * spread),
            high=float(centre + 3 * spread),
        )

    # -- prediction -----------------------------------------------------------------
    def _conditional(self, cat_codes):
        """Per-row ``(a, b, s^2)`` for every class, shapes (n, C), (n, C, p), (n, C).

        In the fitted units: the child and each Gaussian parent over ``2**_exponent``.
        """
        n_classes = self._var.shape[0]
        cards = self._var.shape[1:]
        if cards:
            config = np.ravel_multi_index(tuple(cat_codes.T), cards)
        else:
            config = np.zeros(len(cat_codes), dtype=np.intp)
        a = self._intercept.reshape(n_classes, -1)[:, config].T
        n_configs = int(np.prod(cards)) if cards else 1
        b = self._coef.reshape(n_classes, n_configs, -1)[:, config].transpose(1, 0, 2)
        v = self._var.reshape(n_classes, -1)[:, config].T
        return a, b, v

    def _scaled(self, values, columns, exponents):
        """``values[:, columns]`` in the fitted units (an exact division by powers of two)."""
        return np.ldexp(values[:, columns], -exponents)

    def _jacobian(self, values, rows=slice(None)):
        """log of d(fitted units)/d(data units) in ``rows`` of ``values`` (a scalar, or a
        column broadcasting over the classes): a density in data units adds it."""
        return -float(self._exponent[0]) * LOG_2

    def log_terms(self, codes, values):
        x = self._scaled(values, self._columns[0], self._exponent[0])
        out = np.zeros((len(x), self._var.shape[0]))
        rows = ~np.isnan(x)  # a missing leaf integrates to 1
        if rows.all():  # no row copied (the common case)
            rows = slice(None)
        elif not rows.any():
            return out
        a, b, v = self._conditional(codes[:, self._discrete_parents][rows])
        # the parents' columns first, then the rows: not a copy of every column per node
        parents = self._scaled(values, list(self._continuous_parents), self._exponent[1:])[rows]
        mean = a + np.einsum("ncp,np->nc", b, parents)
        out[rows] = log_normal(x[rows, None], mean, v) + self._jacobian(values, rows)
        return out

    def upward(self, codes, values, incoming, target):
        x = self._scaled(values, self._columns[0], self._exponent[0])[:, None]
        n, n_classes = len(x), self._var.shape[0]
        k_in, m_in, w_in = incoming if incoming is not None else _flat(n, n_classes)
        observed = np.broadcast_to(~np.isnan(x), (n, n_classes))
        if incoming is None:  # a flat message: no information, its density term is 0
            has_info = np.zeros((n, n_classes), dtype=bool)
            w_safe = np.ones((n, n_classes))
            at_x = 0.0
        else:
            has_info = np.isfinite(w_in)
            w_safe = np.where(has_info, w_in, 1.0)
            at_x = np.where(has_info, log_normal(np.where(observed, x, 0), m_in, w_safe), 0.0)
        const = k_in + np.where(observed, at_x + self._jacobian(values), 0.0)
        # what is left to pass on: N(t; a + b x_p, var), or nothing (flat)
        t = np.where(observed, x, m_in)
        empty = ~observed & ~has_info
        a, b, s2 = self._conditional(codes[:, self._discrete_parents].astype(np.intp))
        var = np.where(observed, s2, s2 + w_safe)
        if target is None:
            if self._continuous_parents:  # observed in these rows: they set the mean
                parents = self._scaled(values, list(self._continuous_parents), self._exponent[1:])
                if np.isnan(parents).any():
                    raise self._too_many_parents()
                a = a + np.einsum("ncp,np->nc", b, parents)
            return const + np.where(empty, 0.0, log_normal(t, a, var)), None
        if target not in self._continuous_parents:
            raise ValueError(
                f"{self.columns_[0]!r} sends messages to a Gaussian parent only; its "
                "categorical parents are summed out by the network."
            )
        if len(self._continuous_parents) != 1:
            raise self._too_many_parents()
        b = b[..., 0]
        # a slope so small that the message's variance var / b**2 overflows is no slope: the
        # message is then flat in the parent (the child's density hardly depends on it)
        slope = ~empty & (np.abs(b) > np.sqrt(var / np.finfo(float).max))
        b_safe = np.where(slope, b, 1.0)
        message = (
            const
            + np.where(slope, -np.log(np.abs(b_safe)), 0.0)
            + np.where(~empty & ~slope, log_normal(t, a, var), 0.0),
            np.where(slope, (t - a) / b_safe, 0.0),
            np.where(slope, var / b_safe**2, np.inf),
        )
        return np.zeros((n, n_classes)), message

    def _too_many_parents(self):
        return ValueError(
            f"Feature {self.columns_[0]!r} has {len(self._continuous_parents)} Gaussian "
            "parents; integrating out missing continuous values is implemented when each "
            "Gaussian feature has at most one Gaussian parent (naive Bayes, TAN, forests). "
            "Impute the missing values or use a tree-structured model."
        )

    def combine(self, a, b):
        """Product of ``exp(K) N(x; m, W)`` messages (``W = inf``: the constant ``exp(K)``)."""
        if a is None:
            return b
        if b is None:
            return a
        k1, m1, w1 = a
        k2, m2, w2 = b
        f1, f2 = np.isfinite(w1), np.isfinite(w2)
        both = f1 & f2
        s = np.where(both, w1 + w2, 1.0)
        w1s, w2s = np.where(both, w1, 1.0), np.where(both, w2, 1.0)
        at = log_normal(np.where(both, m1, 0), np.where(both, m2, 0), s)
        k = k1 + k2 + np.where(both, at, 0)
        m = np.where(both, (m1 * w2s + m2 * w1s) / s, np.where(f1, m1, m2))
        w = np.where(both, w1s * w2s / s, np.where(f1, w1, w2))
        return k, m, w

    # -- declared state (see Factor._get_state) ------------------------------------------
    #: The arrays in the units the node was fitted in (the column over 2**exponent).
    _FITTED_FIELDS = {
        "_exponent": "exponent",
        "_epsilon": "epsilon",
        "_intercept": "intercept",
        "_coef": "coef",
        "_var": "var",
        "count_": "count_",
        "_parent_mean": "parent_mean",
        "_parent_sd": "parent_sd",
        "constant_classes_": "constant_classes_",
    }

    def check_fitted(self, n_classes, cards):
        where = f"{self.columns_}"
        shape = self._family_shape(n_classes, cards)
        n_continuous = len(self._continuous_parents)
        exponent = self._exponent
        require(
            isinstance(exponent, np.ndarray)
            and exponent.dtype.kind == "i"
            and exponent.shape == (1 + n_continuous,),
            f"{where} exponent",
            f"must be {1 + n_continuous} integer(s).",
        )
        float_array(self._intercept, f"{where} intercept_", shape)
        float_array(self._var, f"{where} var_", shape, positive=True)
        float_array(self._coef, f"{where} coef_", (*shape, n_continuous))
        require(
            isinstance(self._epsilon, float) and np.isfinite(self._epsilon) and self._epsilon >= 0,
            f"{where} epsilon",
            "must be a finite float >= 0.",
        )
        constant = getattr(self, "constant_classes_", ())
        require(
            isinstance(constant, tuple)
            and all(isinstance(c, int) and 0 <= c < n_classes for c in constant),
            f"{where} constant_classes_",
            f"must be a tuple of class codes below {n_classes}.",
        )
        for field in ("_parent_mean", "_parent_sd"):
            if field in vars(self):
                float_array(getattr(self, field), f"{where} {field[1:]}", (n_continuous,))


def _pseudo_rows(by_class: GaussianMoments, strength, n_configs) -> GaussianMoments:
    """Each class's moments rescaled to ``strength`` rows, repeated for its ``n_configs`` groups.

    Added to a group's moments they give the conjugate posterior of the
    group's regression under a prior centred on its class's fit.
    """
    n = by_class.count
    weight = np.where(n > 0, strength / np.maximum(n, 1.0), 0.0)

    def each_group(a):
        return np.repeat(a, n_configs, axis=0)

    return GaussianMoments(
        count=each_group(np.where(n > 0, strength, 0.0)),
        mean_x=each_group(by_class.mean_x),
        mean_p=each_group(by_class.mean_p),
        sxx=each_group(by_class.sxx * weight),
        sxp=each_group(by_class.sxp * weight[:, None]),
        spp=each_group(by_class.spp * weight[:, None, None]),
        rest_x=each_group(by_class.rest_x * weight),
        rest_p=each_group(by_class.rest_p * weight[:, None]),
    )


def _borrowed_spread(var, count, moments: GaussianMoments, fitted=1):
    """``(var, spreadless)``: the groups whose fitted variance is 0 (no spread: one row, or
    equal values) take the pooled within-group variance (every group's residual variance
    weighted by its ``count``), else the pooled fit's over all rows; ``spreadless`` marks
    them (none when the column is constant over all rows).

    A regression on ``fitted`` coefficients (Gaussian parents) fitted to no more rows
    than that passes through them whatever the values: its 0 is rounding's, not the
    data's, so such a group keeps the floor (a change of units must not move it)."""
    spreadless = (var <= 0) & ((count > fitted) | (fitted == 1))
    if not spreadless.any():
        return var, spreadless
    n = float(count.sum())
    spread = float((var * count).sum()) / n if n > 0 else 0.0
    if not spread > 0:
        spread = float(moments.pooled().least_squares()[2][0])
    if not spread > 0:  # constant over all rows: every class alike, the floor decides
        return var, np.zeros_like(spreadless)
    return np.where(spreadless, spread, var), spreadless


def _flat(n, n_classes):
    return np.zeros((n, n_classes)), np.zeros((n, n_classes)), np.full((n, n_classes), np.inf)


def _pooled(moments: GaussianMoments, intercept, coef, var):
    """Groups without rows take the fit of all groups' rows pooled together."""
    pooled = moments.pooled()
    a, b, v = pooled.least_squares()
    empty = moments.count == 0
    intercept, coef, var = intercept.copy(), coef.copy(), var.copy()
    intercept[empty], coef[empty], var[empty] = a[0], b[0], v[0]
    return intercept, coef, var
