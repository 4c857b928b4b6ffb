"""Figures for continuous features: class-conditional densities and decision boundaries.

Re-exported by :mod:`bnclassify.plotting`. Both functions draw on an optional
``ax`` and return it; neither calls ``plt.show()``.
"""

from __future__ import annotations

from numbers import Real

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import ListedColormap
from sklearn.utils.validation import check_is_fitted

from ..exceptions import InvalidParameterError
from ..factors import VIEW_LIMIT
from ..validation import ArrayLike, Interval, check_int, check_parameter, check_range, float_array
from ._palette import category_colors

__all__ = ["plot_class_densities", "plot_decision_boundary"]

#: Most points on a density plot's x grid, and on a side of a decision-boundary grid
#: (2000 x 2000 cells: the grid's probabilities take 64 MB per class).
MAX_GRID_POINTS = 100_000
MAX_GRID_SIDE = 2_000


def _feature_name(model, feature):
    names = model.feature_names_
    if isinstance(feature, str) and feature in names:
        return feature
    if isinstance(feature, (int, np.integer)) and not isinstance(feature, bool):
        if -len(names) <= feature < len(names):
            return names[feature]
    raise ValueError(f"{feature!r} is neither a feature name nor a position; features: {names}.")


def _sample_frame(model, sample):
    """A one-row DataFrame in the model's column order from a Series, dict, sequence or frame."""
    names = model.feature_names_
    if isinstance(sample, pd.DataFrame):
        frame = sample.iloc[[0]]
    elif isinstance(sample, (pd.Series, dict)):
        row = dict(sample)
        missing = [n for n in names if n not in row]
        if missing:
            raise ValueError(f"sample lacks the feature(s) {missing}.")
        frame = pd.DataFrame({n: [row[n]] for n in names})
    else:
        values = np.asarray(sample, dtype=object).ravel()
        if len(values) != len(names):
            raise ValueError(f"sample has {len(values)} values for {len(names)} features.")
        frame = pd.DataFrame([list(values)], columns=names)
        frame = frame.infer_objects()
    return model.schema_.align(frame, owner=type(model).__name__)


def plot_class_densities(
    model, feature, sample=None, *, ax=None, weighted=False, n_points=400, xlim=None
):
    """The class-conditional densities p(x_i | c) of one continuous feature.

    One curve per class (a Gaussian or kernel density). With a ``sample``,
    its value is marked by a vertical line and a dot on each curve, and the
    legend gives the sample's posterior P(c | x) under the whole model. A
    feature with feature parents (Gaussian TAN) is drawn given the sample's
    parent values, so it then needs a sample.

    Parameters
    ----------
    model : fitted bnclassify estimator
    feature : str or int
        A continuous (Gaussian or kernel density) feature, by name or position.
    sample : Series, dict, sequence or one-row DataFrame, optional
        A full row of feature values.
    ax : matplotlib Axes, optional
    weighted : bool, default=False
        Draw ``P(c) p(x_i | c)`` instead of ``p(x_i | c)``; where the weighted
        curves cross is the one-feature decision boundary.
    n_points : int, default=400
        Points on the x grid.
    xlim : (float, float), optional
        The x range (default: every class's density down to about 1e-4 of its peak).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> from bnclassify import NaiveBayes
    >>> model = NaiveBayes.from_parameters(
    ...     [0.7542088, 0.2457912],
    ...     [[3.7338882, 2.7163842], [4.0007477, 2.8384269]],
    ...     [[0.1757146, 0.1019839], [0.2523813, 0.0969595]],
    ...     classes=["control", "disease"],
    ... )
    >>> ax = plot_class_densities(model, 0, sample=[3.7930077, 2.5993371])
    >>> [line.get_label() for line in ax.get_lines()[:2]]
    ['control (P = 0.984)', 'disease (P = 0.016)']
    """
    check_is_fitted(model, "compiled_")
    check_int(n_points, "n_points", minimum=2, maximum=MAX_GRID_POINTS)
    if xlim is not None:
        xlim = check_range(xlim, "xlim")
    name = _feature_name(model, feature)
    dist = getattr(model, "distributions_", {}).get(name)
    if dist is None or not dist.continuous:
        kind = model.feature_kinds_[model.feature_names_.index(name)]
        raise ValueError(
            f"Feature {name!r} is {kind}; plot_class_densities draws Gaussian or kernel "
            "densities (for a CPT use bnclassify.plotting.plot_cpt)."
        )
    row = None if sample is None else _sample_frame(model, sample)
    if dist.parents_ and row is None:
        raise ValueError(
            f"Feature {name!r} has the feature parents {list(dist.parents_)}; its density "
            "depends on their values, so pass a sample to condition on."
        )
    column = model.feature_names_.index(name)
    log_density = _density_given(model, dist, column, row)
    x_value = None if row is None else model.schema_.data_values(model.encode(row)[1])[0, column]
    if xlim is not None:
        low, high = xlim
    else:
        low, high = _mass_range(log_density, *dist.describe().value_range)
        if x_value is not None and np.isfinite(x_value):
            span = high - low
            low, high = min(low, x_value - 0.05 * span), max(high, x_value + 0.05 * span)
            low, high = max(low, -VIEW_LIMIT), min(high, VIEW_LIMIT)  # an axis of floats
    grid = np.linspace(low, high, n_points)
    density = np.exp(log_density(grid))
    if weighted:
        density = density * np.exp(model.compiled_.log_prior)
    posterior = None if row is None else model.predict_proba(row)[0]
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5))
    n_classes = len(model.classes_)
    colors = category_colors(n_classes)
    for c, label in enumerate(model.classes_):
        text = f"{label}" if posterior is None else f"{label} (P = {posterior[c]:.3f})"
        ax.plot(grid, density[:, c], color=colors[c], lw=2, label=text)
        ax.fill_between(grid, density[:, c], color=colors[c], alpha=0.12)
    if x_value is not None and np.isfinite(x_value) and low <= x_value <= high:
        at = np.exp(log_density(np.array([x_value])))[0]
        if weighted:
            at = at * np.exp(model.compiled_.log_prior)
        ax.axvline(x_value, color="#333333", ls="--", lw=1)
        ax.scatter(np.full(n_classes, x_value), at, color=colors[:n_classes], zorder=3, s=30)
        ax.annotate(
            f"x = {x_value:.4g}",
            (x_value, ax.get_ylim()[1]),
            xytext=(4, -12),
            textcoords="offset points",
            fontsize=9,
        )
    ax.set_xlabel(name)
    given = ", ".join(["c", *dist.parents_])
    ax.set_ylabel(f"P(c) p({name} | {given})" if weighted else f"p({name} | {given})")
    ax.legend(title=model.class_node_, frameon=False, fontsize=9)
    ax.spines[["top", "right"]].set_visible(False)
    return ax


def _density_given(model, dist, column, row):
    """``grid -> log p(x = grid | c, the row's parent values)``, shape (len(grid), C)."""
    n_features = len(model.feature_names_)
    if row is None:
        codes, values = np.zeros((1, n_features), dtype=np.intp), np.full((1, n_features), np.nan)
    else:
        codes, values = model.encode(row)

    def log_density(grid):
        grid = np.asarray(grid, dtype=float)
        grid_codes = np.repeat(codes, len(grid), axis=0)
        grid_values = np.repeat(values, len(grid), axis=0)
        grid_values[:, column], outside = dist.model_values(grid)
        out = dist.log_terms(grid_codes, grid_values)
        if outside is not None:  # outside the support (a log-normal's x <= 0): no density
            out[outside] = -np.inf
        return out

    return log_density


def _mass_range(log_density, low, high, floor=-9.21):  # log(1e-4)
    """Where some class's density exceeds ``exp(floor)`` times its peak, within ``[low, high]``."""
    grid = np.linspace(low, high, 2001)
    relative = log_density(grid)
    relative = relative - relative.max(axis=0)
    inside = np.flatnonzero((relative >= floor).any(axis=1))
    if len(inside) == 0:
        return low, high
    return float(grid[inside[0]]), float(grid[inside[-1]])


def plot_decision_boundary(
    model, X, y=None, *, ax=None, resolution=200, margin=0.05, proba_levels=()
):
    """A two-feature scatter with the model's predicted regions and decision boundary.

    The model must have been fitted on exactly two numeric features (densities,
    or binned: the default for numbers); the plane is coloured by the predicted
    class on a ``resolution`` x ``resolution`` grid, the boundary is drawn where the prediction
    changes, and (two classes only) optional probability contours of the
    second class are added.

    Parameters
    ----------
    model : fitted bnclassify estimator with two features
    X : DataFrame or array of shape (n_samples, 2)
        Points to scatter, columns in the model's order (a DataFrame is
        aligned by name).
    y : array-like of shape (n_samples,), optional
        Their classes, for the point colours (grey without).
    ax : matplotlib Axes, optional
    resolution : int, default=200
    margin : float, default=0.05
        Extra room around the points, as a fraction of their range.
    proba_levels : sequence of float, default=()
        Levels of P(second class | x) to draw as dotted contours, e.g.
        ``(0.1, 0.9)``; two-class models only (0.5 is the boundary itself).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from bnclassify import NaiveBayes
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> X2 = X[["petal length (cm)", "petal width (cm)"]]
    >>> ax = plot_decision_boundary(NaiveBayes().fit(X2, y), X2, y)
    >>> ax.get_xlabel()
    'petal length (cm)'
    """
    check_is_fitted(model)
    if not hasattr(model, "schema_"):
        raise TypeError(
            f"plot_decision_boundary draws a fitted bnclassify classifier; got "
            f"{type(model).__name__}."
        )
    if model.n_features_in_ != 2:
        raise ValueError(
            f"plot_decision_boundary needs a model of two features; this one has "
            f"{model.n_features_in_}. Fit it on the two columns to draw."
        )
    check_int(resolution, "resolution", minimum=2, maximum=MAX_GRID_SIDE)
    check_parameter(margin, "margin", [Interval(Real, 0, None, closed="left")])
    check_parameter(proba_levels, "proba_levels", [ArrayLike("a sequence of probabilities")])
    levels = float_array(proba_levels, "proba_levels").ravel()
    if not ((levels > 0) & (levels < 1)).all():
        raise InvalidParameterError(
            f"proba_levels must be probabilities strictly between 0 and 1, got {proba_levels!r}."
        )
    levels = np.unique(levels)
    names = list(model.schema_.names)
    schema = model.schema_
    # a binned column reads numbers (its intervals are learned from them): it has a plane
    discrete = [n for n, d in zip(names, schema.discrete & ~schema.binned, strict=True) if d]
    if discrete:
        raise ValueError(
            f"plot_decision_boundary draws the plane of two numeric features; {discrete[0]!r} "
            f"is modelled as {model.schema_.kinds[names.index(discrete[0])]!r}. Fit the model "
            "on two continuous columns (or draw it with plot_class_densities / plot_cpt)."
        )
    frame = model.schema_.align(X, owner=type(model).__name__)
    points = frame.to_numpy(dtype=float, na_value=np.nan)
    if y is not None and len(y) != len(points):
        raise ValueError(f"y has {len(y)} labels but X has {len(points)} rows.")
    empty = np.isnan(points).all(axis=0)
    if empty.any():
        raise ValueError(
            f"Column {names[int(np.argmax(empty))]!r} of X has no value to place on the plot "
            "(every cell is missing)."
        )
    low, high = np.nanmin(points, axis=0), np.nanmax(points, axis=0)
    with np.errstate(over="ignore", invalid="ignore"):  # checked below: the plane is finite
        pad = margin * np.where(high > low, high - low, 1.0)
        # positive data keep a positive plane: a log-normal feature has no density at x <= 0
        start = np.where((low > 0) & (low - pad <= 0), low / 2, low - pad)
        stop = high + pad
        width = stop - start
    if not np.isfinite(np.r_[start, stop, width]).all():
        k = int(np.argmax(~np.isfinite(width)))
        raise ValueError(
            f"margin={margin!r} takes the plane of {names[k]!r} (values {low[k]:.3g} .. "
            f"{high[k]:.3g}) beyond the largest float; use a smaller margin (default 0.05)."
        )
    xs = np.linspace(start[0], stop[0], resolution)
    ys = np.linspace(start[1], stop[1], resolution)
    gx, gy = np.meshgrid(xs, ys)
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    grid_input = pd.DataFrame(grid, columns=names) if hasattr(model, "feature_names_in_") else grid
    proba = model.predict_proba(grid_input)
    predicted = proba.argmax(axis=1).reshape(gx.shape)
    n_classes = len(model.classes_)
    colors = category_colors(n_classes)
    if ax is None:
        _, ax = plt.subplots(figsize=(5.5, 4.5))
    ax.contourf(
        gx,
        gy,
        predicted,
        levels=np.arange(n_classes + 1) - 0.5,
        cmap=ListedColormap(colors),
        alpha=0.22,
    )
    ax.contour(
        gx, gy, predicted, levels=np.arange(n_classes) + 0.5, colors="#333333", linewidths=1.2
    )
    if n_classes == 2 and len(levels):
        second = proba[:, 1].reshape(gx.shape)
        lines = ax.contour(gx, gy, second, levels=levels, colors="#777777", linestyles=":")
        ax.clabel(lines, fmt=lambda v: f"P={v:g}", fontsize=8)
    if y is None:
        ax.scatter(points[:, 0], points[:, 1], s=14, color="#555555", edgecolor="white", lw=0.4)
    else:
        labels = np.asarray(y)
        for c, label in enumerate(model.classes_):
            keep = labels == label
            ax.scatter(
                points[keep, 0],
                points[keep, 1],
                s=16,
                color=colors[c],
                edgecolor="white",
                lw=0.4,
                label=str(label),
            )
        ax.legend(
            title=model.class_node_,
            frameon=False,
            fontsize=9,
            loc="upper left",
            bbox_to_anchor=(1.0, 1.0),
        )
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(ys[0], ys[-1])
    return ax
