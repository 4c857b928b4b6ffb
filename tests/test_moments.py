"""Additive Gaussian moments: chunks merge into the exact moments of all rows, at any offset.

A column far from 0 with a spread of a few of its ulps (1e12 + 1e-4 z, 1e6 + 1e-9 z) is where
a merge that rounds the chunks' means to floats loses the spread: the centred sums are then
taken about means off by up to half an ulp, as large as the spread itself. The reference here
is exact rational arithmetic on the same floats.
"""

from fractions import Fraction

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bnclassify.stats import GaussianMoments

OFFSETS = [0.0, 1.0, -3.5e3, 1e6, -1e6, 2.0**40, 1e12, -1e12, 3e15]


@st.composite
def tables(draw):
    """Child and parent columns at large offsets with tiny spreads, groups, optional weights."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(2, 40))
    columns = []
    for _ in range(2):
        offset = draw(st.sampled_from(OFFSETS))
        # the spread in units of the offset's ulp: from below one ulp to far above it
        ulps = 10.0 ** draw(st.integers(-1, 6))
        spread = ulps * np.spacing(abs(offset)) if offset else 10.0 ** draw(st.integers(-8, 3))
        column = offset + spread * rng.normal(size=n)
        if draw(st.booleans()):  # few distinct values: means on a midpoint between floats
            column = offset + spread * rng.integers(-1, 2, n)
        columns.append(column)
    n_groups = draw(st.integers(1, 3))
    group = rng.integers(0, n_groups, n)
    weights = None
    if draw(st.booleans()):
        weights = rng.integers(1, 4, n).astype(float)
    cuts = sorted(draw(st.lists(st.integers(1, n - 1), max_size=4)))
    return columns[0], columns[1][:, None], group, n_groups, weights, cuts


def _exact(x, p, group, n_groups, weights):
    """Per group: count, mean of x, mean of p, and the centred sums, as Fractions."""
    w = np.ones(len(x)) if weights is None else weights
    out = []
    for g in range(n_groups):
        rows = np.flatnonzero(group == g)
        ws = [Fraction(float(w[i])) for i in rows]
        xs = [Fraction(float(x[i])) for i in rows]
        ps = [Fraction(float(p[i, 0])) for i in rows]
        n = sum(ws)
        if n == 0:
            out.append(None)
            continue
        mx = sum(a * b for a, b in zip(ws, xs, strict=True)) / n
        mp = sum(a * b for a, b in zip(ws, ps, strict=True)) / n
        sxx = sum(a * (b - mx) ** 2 for a, b in zip(ws, xs, strict=True))
        spp = sum(a * (b - mp) ** 2 for a, b in zip(ws, ps, strict=True))
        sxp = sum(a * (b - mx) * (c - mp) for a, b, c in zip(ws, xs, ps, strict=True))
        out.append((n, mx, mp, sxx, spp, sxp))
    return out


def _chunked(x, p, group, n_groups, weights, cuts):
    total = GaussianMoments.empty(n_groups, 1)
    for rows in np.split(np.arange(len(x)), cuts):
        w = None if weights is None else weights[rows]
        total = total + GaussianMoments.from_data(x[rows], p[rows], group[rows], n_groups, w)
    return total


def _assert_exact(moments, exact):
    for g, ref in enumerate(exact):
        if ref is None:
            assert moments.count[g] == 0
            continue
        n, mx, mp, sxx, spp, sxp = ref
        assert moments.count[g] == float(n)
        # the centred sums to 1e-9 of their exact values (0 when the values are all equal)
        assert abs(Fraction(float(moments.sxx[g])) - sxx) <= Fraction(1, 10**9) * sxx
        assert abs(Fraction(float(moments.spp[g, 0, 0])) - spp) <= Fraction(1, 10**9) * spp
        scale = float(sxx * spp) ** 0.5  # a cross-product may cancel to 0: its natural scale
        assert abs(float(Fraction(float(moments.sxp[g, 0])) - sxp)) <= 1e-9 * scale
        # the means (and the intercept of a constant parent, the child's mean) to within
        # rounding to the nearest float, plus 1e-9 of the spread
        means = [(moments.mean_x[g], mx, sxx), (moments.mean_p[g, 0], mp, spp)]
        if spp == 0:
            means.append((moments.least_squares()[0][g], mx, sxx))
        for got, want, sums in means:
            error = abs(float(Fraction(float(got)) - want))
            assert error <= 0.5 * np.spacing(abs(float(want))) + 1e-9 * float(sums / n) ** 0.5


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables())
def test_moments_of_chunks_are_the_exact_moments_of_all_rows(table):
    x, p, group, n_groups, weights, cuts = table
    exact = _exact(x, p, group, n_groups, weights)
    _assert_exact(GaussianMoments.from_data(x, p, group, n_groups, weights), exact)
    _assert_exact(_chunked(x, p, group, n_groups, weights, cuts), exact)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables())
def test_pooled_groups_are_the_exact_moments_of_all_rows(table):
    x, p, group, n_groups, weights, cuts = table
    pooled = _chunked(x, p, group, n_groups, weights, cuts).pooled()
    _assert_exact(pooled, _exact(x, p, np.zeros_like(group), 1, weights))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables())
def test_least_squares_of_chunks_equals_least_squares_of_all_rows(table):
    x, p, group, n_groups, weights, cuts = table
    moments = GaussianMoments.from_data(x, p, group, n_groups, weights)
    intercept, coef, var = moments.least_squares()
    got = _chunked(x, p, group, n_groups, weights, cuts).least_squares()
    n = np.maximum(moments.count, 1.0)
    spread = np.sqrt(moments.sxx / n)  # of the child: the scale of every error below
    with np.errstate(divide="ignore", invalid="ignore"):
        per_parent = np.where(
            moments.spp[:, 0, 0] > 0, spread / np.sqrt(moments.spp[:, 0, 0] / n), 0
        )
    np.testing.assert_array_less(np.abs(got[2] - var), 1e-9 * spread**2 + 1e-300)
    np.testing.assert_array_less(np.abs(got[1] - coef)[:, 0], 1e-9 * per_parent + 1e-300)
    # the fitted mean of every row, without a slope to 1e-9 of the spread: where the spread is
    # an ulp or two (at 1e12, say) the same float
    fitted = intercept[group] + coef[group, 0] * p[:, 0]
    refit = got[0][group] + got[1][group, 0] * p[:, 0]
    rounding = 4 * np.finfo(float).eps * (np.abs(intercept[group]) + np.abs(fitted))
    bound = 1e-9 * spread[group] + np.where(coef[group, 0] == 0, 0.0, rounding)
    assert (np.abs(refit - fitted) <= bound).all()


def test_moments_pickled_before_the_rests_load_with_rests_of_zero():
    moments = GaussianMoments.from_data(np.array([1.0, 2.0, 4.0]), np.ones((3, 1)), [0, 0, 1], 2)
    state = dict(vars(moments))
    del state["rest_x"], state["rest_p"]
    old = GaussianMoments.__new__(GaussianMoments)
    old.__setstate__(state)
    assert old.rest_x.shape == (2,) and old.rest_p.shape == (2, 1)
    assert not old.rest_x.any() and not old.rest_p.any()
    np.testing.assert_array_equal((old + old).least_squares()[2], [0.25, 0.0])
