"""One node's conditional distribution: a CPT heatmap, class densities or regression lines.

Re-exported by :mod:`bnclassify.plotting`. What is drawn comes from the
node's factor (:meth:`~bnclassify.factors.Factor.describe`), so this module
never asks what kind a feature is: it draws the factor's view.
"""

from __future__ import annotations

import itertools

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from ..factors import DensityView, RegressionView, TableView
from ..validation import check_int, check_parameter
from ._continuous import MAX_GRID_POINTS
from ._palette import CATEGORY_COLORS, FONTSIZE, colormap, text_color
from ._views import network_view

__all__ = ["plot_cpt"]


def plot_cpt(
    model,
    feature,
    *,
    member=0,
    fig=None,
    annotate=True,
    cmap="Blues",
    fontsize=9,
    n_points=300,
    X=None,
    y=None,
):
    """One feature's conditional distribution given the class and its parents, one panel per class.

    What a panel shows depends on the node:

    - a categorical node (and a Bernoulli or multinomial one): its table as a
      heatmap; rows are the configurations of its parents other than the
      class (one row when the class is its only parent), columns its states,
      and each row sums to 1;
    - a real-valued node (Gaussian, kernel density): its density, one curve
      per configuration of its categorical parents;
    - a Gaussian with a Gaussian parent (Gaussian TAN, KDB): the regression
      line of the feature on that parent with a band of +- 2 standard
      deviations (about 95% of the values), one per configuration of its
      categorical parents. The line reads at a glance what a density at a few
      parent values would show only across several curves: where the feature
      is expected given the parent, and how far around it. Other Gaussian
      parents are held at their training means.

    Parameters
    ----------
    model : fitted bnclassify classifier
        An ensemble is drawn through one member (``member``); a
        :class:`~bnclassify.SignalSubgraphClassifier` through its signal edges,
        each a binary feature named ``"i-j"`` (``"i->j"`` when directed).
    feature : str or int
        Feature name or position.
    member : int, default=0
        For an ensemble, the position of the member in ``estimators_``.
    fig : matplotlib Figure, optional
    annotate : bool, default=True
        Write each probability in its cell (tables).
    cmap : str or Colormap, default="Blues"
        Colours of the tables.
    fontsize : float, default=9
    n_points : int, default=300
        Points on the x grid of densities and lines.
    X, y : training data, optional
        The rows the model was fitted on. With them, a table writes at the
        right of each row ``n``, the training rows of that (class, parent
        configuration) observing the feature and its parents: the count
        behind the row's smoothed probabilities (a row of small ``n`` is
        mostly prior).

    Returns
    -------
    matplotlib.figure.Figure
        One axes per class (plus the colour bar for a table). With ``X`` and
        ``y``, ``fig.row_counts[c, k]`` is the count written on row ``k`` of
        class ``c``'s table.

    Examples
    --------
    >>> from bnclassify import TAN
    >>> from bnclassify.datasets import load_p450
    >>> X, y = load_p450(return_X_y=True)
    >>> fig = plot_cpt(TAN().fit(X, y), "block8")
    >>> fig.axes[0].get_title()
    'functional = 0'
    >>> fig.axes[0].get_ylabel()
    'block7'

    With the training rows, each table row states its count:

    >>> fig = plot_cpt(TAN().fit(X, y), "block8", X=X, y=y)
    >>> fig.row_counts.sum() == len(X)  # every row observes block8 and block7
    np.True_

    A Gaussian feature draws its class densities (a binned one, the default for
    numbers, its table over the intervals):

    >>> from sklearn.datasets import load_iris
    >>> from bnclassify import NaiveBayes
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> fig = plot_cpt(NaiveBayes(distributions="density").fit(X, y), "petal length (cm)")
    >>> len(fig.axes), fig.axes[0].get_ylabel()
    (3, 'density')
    """
    check_parameter(fontsize, "fontsize", FONTSIZE)
    cmap = colormap(cmap)
    check_int(n_points, "n_points", minimum=2, maximum=MAX_GRID_POINTS)
    view = network_view(model, member)
    i = view.position(feature)
    names = view.feature_names
    name = names[i]
    factor = view.factors[i]
    drawing = factor.describe()
    parents = [names[p] for p in view.parents[i]]
    configuration_parents = list(factor.discrete_parent_positions)  # the order of the view's rows
    configurations = _configuration_labels(view, configuration_parents)
    n_classes = len(view.classes)
    if isinstance(drawing, TableView):
        shape = drawing.table.shape
        if fig is None:
            height = 1.4 + 0.42 * shape[1]
            width = 1.2 + n_classes * (0.9 + 0.6 * shape[2])
            fig = plt.figure(figsize=(max(width, 4.5), max(height, 2.4)), layout="constrained")
        states = drawing.states
        if states is None:
            states = [str(s) for s in view.categories[i]]
        subject = name if len(factor.columns_) == 1 else ", ".join(factor.columns_)
        axes = _draw_table(
            fig, drawing.table, states, configurations, subject, annotate, cmap, fontsize
        )
        if parents:
            axes[0].set_ylabel(", ".join(parents), fontsize=fontsize)
        else:
            axes[0].set_yticks([])
        if (X is None) != (y is None):
            raise ValueError("plot_cpt needs both X and y (the training rows) to write counts.")
        if X is not None:
            counts = _row_counts(model, view, i, configuration_parents, X, y, member)
            _label_counts(axes, counts, fontsize)
            fig.row_counts = counts
    else:
        if fig is None:
            fig = plt.figure(figsize=(max(4.5, 1.0 + 3.2 * n_classes), 3.2), layout="constrained")
        axes = fig.subplots(1, n_classes, sharey=True, squeeze=False)[0]
        if isinstance(drawing, RegressionView):
            parent_factor = view.factors[names.index(drawing.parent)]
            labels = factor.axis_label(name), parent_factor.axis_label(drawing.parent)
            _draw_regression(axes, drawing, configurations, labels, n_points)
        elif isinstance(drawing, DensityView):
            _draw_density(axes, drawing, configurations, name, n_points)
        else:
            raise TypeError(f"plot_cpt cannot draw a {type(drawing).__name__}.")
        if configuration_parents:
            axes[-1].legend(
                title=", ".join(names[p] for p in configuration_parents),
                frameon=False,
                fontsize=fontsize - 1,
                title_fontsize=fontsize - 1,
            )
        subject = name
    for c, ax in enumerate(axes):
        ax.set_title(f"{view.class_node} = {view.classes[c]}", fontsize=fontsize + 1)
    given = ", ".join([str(view.class_node), *parents])
    title = f"P({subject} | {given})" if isinstance(drawing, TableView) else f"p({name} | {given})"
    if view.title:
        title = f"{view.title}\n{title}"
    fig.suptitle(title, fontsize=fontsize + 2)
    return fig


def _row_counts(model, view, child, parents, X, y, member) -> np.ndarray:
    """Training rows per (class, parent configuration) observing the child and its parents."""
    encoder = model if hasattr(model, "encode") else model.estimators_[member]
    encoded = encoder.encode(X)
    codes = encoded[0] if isinstance(encoded, tuple) else encoded
    labels = np.asarray(y)
    if len(labels) != len(codes):
        raise ValueError(f"X has {len(codes)} rows but y has {len(labels)}.")
    classes = pd.Index(view.classes).get_indexer(labels)
    family = [*parents, child]
    observed = (classes >= 0) & (codes[:, family] >= 0).all(axis=1)
    cards = [len(view.categories[p]) for p in parents]
    configuration = (
        np.ravel_multi_index(tuple(codes[observed][:, p] for p in parents), cards)
        if parents
        else np.zeros(int(observed.sum()), dtype=np.intp)
    )
    n_configurations = int(np.prod(cards)) if parents else 1
    cells = classes[observed] * n_configurations + configuration
    return np.bincount(cells, minlength=len(view.classes) * n_configurations).reshape(
        len(view.classes), n_configurations
    )


def _label_counts(axes, counts, fontsize):
    """``n = ...`` at the right of every table row, per class panel."""
    for c, ax in enumerate(axes):
        right = ax.secondary_yaxis("right")
        right.set_yticks(range(counts.shape[1]), [f"n = {n}" for n in counts[c]])
        right.tick_params(length=0, labelsize=fontsize - 1)
        right.spines["right"].set_visible(False)
        right.bnclassify_counts = counts[c]


def _configuration_labels(view, parents) -> list:
    """Labels of the configurations of categorical ``parents``, row-major ([""] for none)."""
    if not parents:
        return [""]
    names = [view.feature_names[p] for p in parents]
    return [
        ", ".join(f"{p}={s}" for p, s in zip(names, combo, strict=True))
        if len(parents) > 1
        else str(combo[0])
        for combo in itertools.product(*(view.categories[p] for p in parents))
    ]


def _draw_table(fig, table, states, row_labels, xlabel, annotate, cmap, fontsize):
    n_classes, n_rows, n_states = table.shape
    axes = fig.subplots(1, n_classes, sharey=True, squeeze=False)[0]
    image = None
    for c, ax in enumerate(axes):
        image = ax.imshow(table[c], cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
        ax.set_xticks(range(n_states), states, fontsize=fontsize)
        ax.tick_params(length=0)
        if annotate:
            for r, s in itertools.product(range(n_rows), range(n_states)):
                p = table[c, r, s]
                ax.text(
                    s,
                    r,
                    f"{p:.2f}",
                    ha="center",
                    va="center",
                    fontsize=fontsize,
                    color=text_color(image.cmap(image.norm(p))),
                )
        ax.set_xlabel(xlabel, fontsize=fontsize)
    axes[0].set_yticks(range(len(row_labels)), row_labels, fontsize=fontsize)
    bar = fig.colorbar(image, ax=list(axes), shrink=0.9, pad=0.02)
    bar.ax.tick_params(labelsize=fontsize - 1)
    return axes


def _draw_density(axes, drawing, configurations, name, n_points):
    grid = np.linspace(*drawing.value_range, n_points)
    density = np.exp(drawing.log_density(grid))  # (grid, C, configurations)
    for c, ax in enumerate(axes):
        for k, label in enumerate(configurations):
            color = CATEGORY_COLORS[k % len(CATEGORY_COLORS)]
            ax.plot(grid, density[:, c, k], color=color, lw=2, label=label or None)
            ax.fill_between(grid, density[:, c, k], color=color, alpha=0.12)
        ax.set_xlabel(name)
        ax.spines[["top", "right"]].set_visible(False)
    axes[0].set_ylabel("density")


def _draw_regression(axes, drawing, configurations, labels, n_points):
    """Each class's lines ``labels[0]`` against the parent's ``labels[1]``, +- 2 sd."""
    name, parent = labels
    grid = np.linspace(drawing.low, drawing.high, n_points)
    line = drawing.mean(grid)  # (grid, C, configurations)
    for c, ax in enumerate(axes):
        for k, label in enumerate(configurations):
            color = CATEGORY_COLORS[k % len(CATEGORY_COLORS)]
            band = 2 * drawing.sd[c, k]
            ax.plot(grid, line[:, c, k], color=color, lw=2, label=label or None)
            ax.fill_between(
                grid, line[:, c, k] - band, line[:, c, k] + band, color=color, alpha=0.15
            )
        ax.set_xlabel(parent)
        ax.spines[["top", "right"]].set_visible(False)
    axes[0].set_ylabel(f"{name} (mean +- 2 sd)")
