"""A teaching view of inference: the network with every node's posterior drawn inside it.

:func:`plot_inference` is re-exported by :mod:`bnclassify.plotting`. The
numbers come from :func:`bnclassify.inference.posteriors` (exact; equal to
pgmpy's ``VariableElimination`` on categorical networks). Like every
bnclassify plot it draws on an optional ``fig``, returns it and never calls
``plt.show()``; edges remember which edge they are (``bnclassify_edge``), so
``bnclassify.plotting.drawn_edges`` reads them back, and each node's small
axes remembers its node (``bnclassify_node``).
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import pandas as pd
from matplotlib.patches import FancyArrowPatch

from ..inference import check_evidence, check_model, posteriors
from ..validation import check_int, check_parameter
from ._palette import FONTSIZE

__all__ = ["InferenceView", "plot_inference"]

# Okabe-Ito colours, one meaning each in this figure.
POSTERIOR_COLOR = "#0072B2"  # blue: a posterior given the evidence
EVIDENCE_COLOR = "#E69F00"  # orange: an observed node and its value
TOP_COLOR = "#D55E00"  # vermillion: the most probable class; the most influential evidence
PRIOR_COLOR = "#555555"  # grey: the same node before any evidence
UP_COLOR, DOWN_COLOR = "#009E73", "#CC79A7"  # green / purple: evidence raising / lowering
EDGE_COLOR = "#333333"
CLASS_ARC_COLOR = "#B0B0B0"

CARD_W, CARD_H = 1.0, 0.62  # a node's small chart, in layout units
STEP_X, STEP_Y = 1.3, 1.45


def plot_inference(
    model,
    evidence=None,
    *,
    prior=True,
    max_per_row=6,
    n_points=200,
    fig=None,
    fontsize=8,
):
    """The network with each node's posterior given ``evidence`` drawn inside the node.

    The class node (top) shows ``P(C | evidence)``, its most probable class in
    vermillion. Each unobserved categorical feature shows ``P(X_i | evidence)``
    as a bar chart and each unobserved continuous feature its posterior
    density (a mixture over the classes and the discrete nodes it depends
    on), with the prior (no evidence) as grey ticks or a dashed curve, so the
    chart shows how the evidence moved every node. Observed nodes are orange
    and name their value. A side panel ranks the evidence by how much each
    item moves the most probable class's probability (the posterior with
    all the evidence minus the posterior without that item); the item that
    changes the class posterior most (total variation) is outlined in
    vermillion on the network. It is pyAgrum's ``showInference`` view, for
    bnclassify's classifiers.

    Parameters
    ----------
    model : fitted single-network bnclassify classifier
        For an ensemble, pass one member (``model.estimators_[k]``).
    evidence : dict, optional
        ``{feature: observed value}``; none gives the prior marginals.
    prior : bool, default=True
        Also draw each node's marginal before any evidence.
    max_per_row : int, default=6
        Most nodes on one row of the layout (longer rows wrap).
    n_points : int, default=200
        Grid points of a continuous node's density.
    fig : matplotlib Figure, optional
        Drawn on (cleared first); a new one by default.
    fontsize : float, default=8

    Returns
    -------
    matplotlib.figure.Figure
        ``fig.posteriors`` holds the numbers drawn
        (:class:`~bnclassify.inference.Posteriors`); ``fig.network_ax`` is the
        axes of the network, ``fig.node_axes`` maps each node to its chart.

    Examples
    --------
    >>> from bnclassify import TAN
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = TAN(criterion="loglik").fit(X, y)
    >>> fig = plot_inference(model, evidence={"safety": "high", "buying": "low"})
    >>> fig.posteriors.top_class, round(float(fig.posteriors.classes["unacc"]), 2)
    ('unacc', 0.37)
    >>> sorted(fig.node_axes)[:3]
    ['buying', 'class', 'doors']
    """
    check_parameter(fontsize, "fontsize", FONTSIZE)
    check_model(model)
    max_per_row = check_int(max_per_row, "max_per_row", minimum=1)
    result = posteriors(model, evidence, n_points=n_points)
    before = posteriors(model, None, n_points=n_points) if prior else None
    names = list(model.feature_names_)
    features = model.structure_.subgraph(names)
    pos = _layout(features, max_per_row)
    n_rows = 1 + (round(-min(y for _, y in pos.values()) / STEP_Y) if pos else 0)
    width = max((x for x, _ in pos.values()), default=0.0)
    class_xy = (width / 2, STEP_Y)
    x_span = width + CARD_W + 0.9  # the class card is wider, and labels stick out left
    y_span = n_rows * STEP_Y + CARD_H + 0.7

    has_effect = bool(result.evidence)
    inch = 1.45  # inches per layout unit: a card is 1.45 x 0.9 inches
    fig_w = max(4.5, inch * x_span) + (3.4 if has_effect else 0.0)
    fig_h = max(3.4, inch * y_span + 0.5)
    if fig is None:
        fig = plt.figure(figsize=(fig_w, fig_h))
    else:
        fig.clf()
    margins = {"left": 0.02, "right": 0.97, "top": 1 - 0.5 / fig_h, "bottom": 0.2 / fig_h}
    if has_effect:
        panel_h = min(fig_h * 0.9, 1.3 + 0.4 * len(result.evidence))
        grid = fig.add_gridspec(
            2, 2, width_ratios=[fig_w - 3.4, 3.4], height_ratios=[panel_h, fig_h - panel_h],
            wspace=0.12, **margins,
        )  # fmt: skip
        ax = fig.add_subplot(grid[:, 0])
        effect_ax = fig.add_subplot(grid[0, 1])
    else:
        ax, effect_ax = fig.add_subplot(fig.add_gridspec(1, 1, **margins)[0]), None
    ax.set_xlim(-0.5 * CARD_W - 0.55, width + 0.5 * CARD_W + 0.35)
    ax.set_ylim(-(n_rows - 1) * STEP_Y - 0.5 * CARD_H - 0.25, class_xy[1] + 0.5 * CARD_H + 0.45)
    ax.set_aspect("equal", adjustable="box")
    ax.axis("off")

    spots = {model.class_node_: class_xy, **pos}
    influential = result.most_influential
    for name in names:
        _edge(ax, model.class_node_, name, spots, color=CLASS_ARC_COLOR, width=0.8, role="class")
    for u, v in features.edges:
        _edge(ax, u, v, spots, color=EDGE_COLOR, width=1.6, role="feature")

    node_axes = {}
    card = _card(ax, class_xy, model.class_node_, fontsize, observed=False, width=1.3)
    _bars(card, result.classes, None, fontsize, highlight=result.top_class)
    card.set_title(
        f"{model.class_node_}: P({result.top_class}) = {result.classes[result.top_class]:.2f}",
        fontsize=fontsize,
        fontweight="bold",
        pad=2,
    )
    node_axes[model.class_node_] = card
    for i, name in enumerate(names):
        observed = name in result.evidence
        card = _card(ax, pos[name], name, fontsize, observed=observed, mark=name == influential)
        node_axes[name] = card
        if not observed and name not in result.features:  # no training value: no posterior
            card.set_title(_short(f"{name}: unobserved"), fontsize=fontsize, pad=2)
            continue
        if name in result.continuous:
            value = result.evidence.get(name)
            _density(card, result.features.get(name), before, name, value, fontsize)
            title = f"{name} = {value:.4g}" if observed else name
        else:
            states = list(model.categories_[i])
            if observed:
                value = result.evidence[name]
                shown = np.array([1.0 if s == value else 0.0 for s in states])
                series = pd.Series(shown, index=states)
                title = f"{name} = {value}"
            else:
                series, title = result.features[name], name
            reference = None if (before is None or observed) else before.features[name]
            _bars(card, series, reference, fontsize, observed=observed)
        card.set_title(_short(title), fontsize=fontsize, pad=2)

    if effect_ax is not None:
        _effect_panel(effect_ax, result, fontsize)
    shown = ", ".join(f"{k}={v}" for k, v in result.evidence.items()) or "no evidence"
    fig.text(
        0.02, 1 - 0.12 / fig_h, f"Posterior of every node given {shown}",
        fontsize=fontsize + 2, va="top", ha="left",
    )  # fmt: skip
    key = "blue: posterior given the evidence; orange: observed"
    if prior:
        key += "; grey tick or dashed curve: before any evidence"
    fig.text(0.02, 0.08 / fig_h, key, fontsize=fontsize - 1, color=PRIOR_COLOR, va="bottom")
    fig.posteriors = result
    fig.network_ax = ax
    fig.node_axes = node_axes
    return fig


class InferenceView:
    """A network whose every posterior follows the evidence you set, one node at a time.

    The teaching view of :func:`plot_inference`, for a live notebook: observe
    a node (``view.observe(block1="3")``), forget it (``view.forget("block1")``),
    and :meth:`draw` shows every node's posterior given what is observed now.
    :meth:`widget` puts one menu per node above the figure (``ipywidgets``,
    ``pip install ipywidgets``), so a teacher sets evidence by
    clicking and the figure redraws at once. Everything but :meth:`widget` is
    plain Python: a static page shows the same figures, drawn cell by cell.

    Parameters
    ----------
    model : fitted single-network bnclassify classifier
        For an ensemble, pass one member (``model.estimators_[k]``).
    evidence : dict, optional
        The evidence to start from, ``{feature: value}``.
    prior, max_per_row, n_points, fontsize
        Passed to :func:`plot_inference` at every drawing.

    Attributes
    ----------
    evidence : dict
        What is observed now (a copy; change it with :meth:`observe`,
        :meth:`forget` and :meth:`clear`).
    posteriors : bnclassify.inference.Posteriors
        Every node's posterior given ``evidence``, computed exactly
        (:func:`bnclassify.inference.posteriors`).

    Examples
    --------
    >>> from bnclassify import TAN
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> view = InferenceView(TAN().fit(X, y))
    >>> round(float(view.posteriors.classes["unacc"]), 2)  # no evidence: the prior
    0.7
    >>> view.observe(safety="high", buying="low").posteriors.top_class
    'unacc'
    >>> round(float(view.posteriors.classes["unacc"]), 2)
    0.37
    >>> fig = view.draw()  # every node's posterior, safety and buying orange
    >>> view.forget("buying").evidence
    {'safety': 'high'}
    >>> view.observe(safety="very high")
    Traceback (most recent call last):
    ...
    ValueError: evidence['safety'] = 'very high' is not a category of 'safety': \
['high', 'low', 'med'].
    """

    #: The menu entry of a node with no evidence.
    UNOBSERVED = "(unobserved)"

    def __init__(
        self, model, evidence=None, *, prior=True, max_per_row=6, n_points=200, fontsize=8
    ):
        check_parameter(fontsize, "fontsize", FONTSIZE)
        self.model = check_model(model)
        self._evidence = check_evidence(model, evidence)
        self._options = {
            "prior": prior, "max_per_row": max_per_row, "n_points": n_points, "fontsize": fontsize
        }  # fmt: skip

    @property
    def evidence(self) -> dict:
        return dict(self._evidence)

    @property
    def posteriors(self):
        return posteriors(self.model, self._evidence, n_points=self._options["n_points"])

    def observe(self, **evidence):
        """Add or change evidence, ``observe(feature=value, ...)``; returns the view.

        Checked before anything changes: an unknown feature or a value the
        feature does not have raises a ``ValueError`` naming it, and the view
        keeps its evidence.
        """
        self._evidence = check_evidence(self.model, {**self._evidence, **evidence})
        return self

    def forget(self, *features):
        """Make ``features`` unobserved again; returns the view."""
        unknown = [f for f in features if f not in self._evidence]
        if unknown:
            raise ValueError(f"{unknown} are not observed; the evidence is {self._evidence}.")
        self._evidence = {k: v for k, v in self._evidence.items() if k not in features}
        return self

    def clear(self):
        """Forget all evidence; returns the view."""
        self._evidence = {}
        return self

    def draw(self, fig=None):
        """:func:`plot_inference` of the model given the current evidence (on ``fig`` if given)."""
        return plot_inference(self.model, self._evidence, fig=fig, **self._options)

    def set_from_menus(self, choices):
        """Evidence from one menu choice per feature: ``UNOBSERVED`` forgets it.

        ``choices`` maps features to a category, a number (a continuous
        feature), ``UNOBSERVED``, or ``""`` (an empty text box). It is what
        :meth:`widget` calls when a menu changes; the new evidence is checked
        whole before it replaces the old. Returns the view.
        """
        evidence = dict(self._evidence)
        for feature, value in choices.items():
            if value == self.UNOBSERVED or (isinstance(value, str) and not value.strip()):
                evidence.pop(feature, None)
            else:
                evidence[feature] = _number_or_same(value, self._is_continuous(feature))
        self._evidence = check_evidence(self.model, evidence)
        return self

    def widget(self):
        """Menus (one per feature) above the figure, redrawn on every change (needs ipywidgets).

        A categorical feature gets a drop-down of its categories and
        ``UNOBSERVED``; a continuous one a text box (empty: unobserved).
        A value the model refuses is shown in place of the figure, and the
        evidence stays as it was.

        Returns
        -------
        ipywidgets.VBox
            Display it (the last line of a cell) in Jupyter.
        """
        try:
            import ipywidgets as widgets
        except ImportError:
            raise ImportError(
                "InferenceView.widget needs ipywidgets: pip install ipywidgets (or pip install -e "
                '".[teaching]" in a clone). draw() works without it.'
            ) from None
        from IPython.display import display

        output = widgets.Output()
        menus = {}
        for name, categories in zip(self.model.feature_names_, self.model.categories_, strict=True):
            current = self._evidence.get(name)
            if categories is None:
                menus[name] = widgets.Text(
                    value="" if current is None else str(current),
                    placeholder="unobserved",
                    description=str(name),
                )
            else:
                options = [(self.UNOBSERVED, self.UNOBSERVED)] + [(str(c), c) for c in categories]
                menus[name] = widgets.Dropdown(
                    options=options,
                    value=self.UNOBSERVED if current is None else current,
                    description=str(name),
                )

        def redraw(_change=None):
            output.clear_output(wait=True)
            with output:
                try:
                    self.set_from_menus({name: menu.value for name, menu in menus.items()})
                except ValueError as error:
                    print(error)
                    return
                figure = self.draw()
                display(figure)
                plt.close(figure)

        for menu in menus.values():
            menu.observe(redraw, names="value")
        redraw()
        return widgets.VBox(
            [widgets.HBox(list(menus.values()), layout={"flex_flow": "row wrap"}), output]
        )

    def _is_continuous(self, feature) -> bool:
        names = list(self.model.feature_names_)
        return feature in names and self.model.categories_[names.index(feature)] is None


def _number_or_same(value, continuous):
    """A text box's string as a number for a continuous feature; anything else as given."""
    if continuous and isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            raise ValueError(f"{value!r} is not a number.") from None
    return value


def _short(text, limit=20):
    """A card's title fits its card: long names lose their middle."""
    text = str(text)
    return text if len(text) <= limit else text[: limit - 7] + "…" + text[-6:]


# -- layout ------------------------------------------------------------------------------
def _layout(features: nx.DiGraph, max_per_row: int) -> dict:
    """Rows by depth in the feature DAG (wrapped at ``max_per_row``), each by parents' x."""
    order = list(features.nodes)
    if not order:
        return {}
    rank = {v: k for k, v in enumerate(order)}
    depth = {}
    for v in nx.topological_sort(features):
        depth[v] = 1 + max((depth[p] for p in features.predecessors(v)), default=-1)
    rows, x = [], {}
    for d in range(max(depth.values()) + 1):
        level = [v for v in order if depth[v] == d]
        level.sort(
            key=lambda v: (np.mean([x[p] for p in features.predecessors(v)] or [0]), rank[v])
        )
        for start in range(0, len(level), max_per_row):
            row = level[start : start + max_per_row]
            for k, v in enumerate(row):
                x[v] = float(k)  # provisional, for the next level's ordering
            rows.append(row)
    widest = max(len(r) for r in rows)
    pos = {}
    for r, row in enumerate(rows):
        offset = (widest - len(row)) / 2
        for k, v in enumerate(row):
            pos[v] = ((offset + k) * STEP_X, -float(r) * STEP_Y)
    return pos


def _edge(ax, u, v, spots, *, color, width, role):
    (x0, y0), (x1, y1) = spots[u], spots[v]
    start, end = _border(x0, y0, x1, y1), _border(x1, y1, x0, y0)
    arrow = FancyArrowPatch(
        start,
        end,
        arrowstyle="-|>",
        mutation_scale=9,
        color=color,
        linewidth=width,
        connectionstyle="arc3,rad=0.0",
        zorder=1,
    )
    arrow.bnclassify_edge = (u, v)
    arrow.bnclassify_role = role
    arrow.set_gid(f"bnclassify-{role}:{u}->{v}")
    ax.add_patch(arrow)


def _border(x0, y0, x1, y1, pad=0.06):
    """Where the segment from a card's centre towards (x1, y1) leaves the card."""
    dx, dy = x1 - x0, y1 - y0
    half_w, half_h = CARD_W / 2 + pad, CARD_H / 2 + pad + 0.12  # the title sits above
    scale = min(half_w / abs(dx) if dx else np.inf, half_h / abs(dy) if dy else np.inf)
    return x0 + dx * scale, y0 + dy * scale


# -- the nodes ---------------------------------------------------------------------------
def _card(ax, xy, name, fontsize, *, observed, mark=False, width=CARD_W):
    x, y = xy
    card = ax.inset_axes([x - width / 2, y - CARD_H / 2, width, CARD_H], transform=ax.transData)
    card.set_facecolor("#FFF6E5" if observed else "white")
    for spine in card.spines.values():
        spine.set_edgecolor(TOP_COLOR if mark else (EVIDENCE_COLOR if observed else "#8FA8C8"))
        spine.set_linewidth(2.4 if mark else 1.2)
    card.tick_params(labelsize=fontsize - 2, length=2, pad=1)
    card.bnclassify_node = name
    return card


def _bars(card, series, reference, fontsize, *, observed=False, highlight=None):
    labels = [str(s) for s in series.index]
    values = series.to_numpy(dtype=float)
    rows = np.arange(len(values))
    colors = [
        TOP_COLOR
        if highlight is not None and s == highlight
        else (EVIDENCE_COLOR if observed else POSTERIOR_COLOR)
        for s in series.index
    ]
    card.barh(rows, values, color=colors, height=0.7)
    if reference is not None:
        card.scatter(
            reference.loc[list(series.index)].to_numpy(dtype=float),
            rows,
            marker="|",
            s=60,
            color=PRIOR_COLOR,
            linewidths=1.2,
            zorder=3,
        )
    for r, v in zip(rows, values, strict=True):
        if not observed:
            card.text(
                min(v, 1.0) + 0.03, r, f"{v:.2f}", va="center", fontsize=max(fontsize - 2.5, 4)
            )
    card.set_xlim(0, 1.35)
    card.set_ylim(len(values) - 0.5, -0.5)
    card.set_yticks(rows, labels)
    card.set_xticks([])


def _density(card, density, before, name, value, fontsize):
    if density is not None:
        grid = density.index.to_numpy()
        card.fill_between(grid, density.to_numpy(), color=POSTERIOR_COLOR, alpha=0.35, lw=0)
        card.plot(grid, density.to_numpy(), color=POSTERIOR_COLOR, lw=1.2)
    if before is not None and name in before.features:
        prior = before.features[name]
        card.plot(prior.index.to_numpy(), prior.to_numpy(), color=PRIOR_COLOR, lw=0.9, ls="--")
    if value is not None:
        card.axvline(value, color=EVIDENCE_COLOR, lw=2.0)
    card.set_yticks([])
    card.locator_params(axis="x", nbins=3)
    card.set_ylim(bottom=0)


def _effect_panel(ax, result, fontsize):
    """Evidence items by how far the class posterior moves without each (total variation)."""
    effect = result.evidence_effect
    order = np.argsort(-effect["total_variation"].to_numpy(), kind="stable")
    names = [effect.index[k] for k in order]
    moved = effect["total_variation"].to_numpy()[order]
    shifts = effect["shift"].to_numpy()[order]
    rows = np.arange(len(names))
    colors = [UP_COLOR if s >= 0 else DOWN_COLOR for s in shifts]
    ax.barh(rows, moved, color=colors, height=0.6)
    labels = [f"{n} = {result.evidence[n]}" for n in names]
    ax.set_yticks(rows, labels, fontsize=fontsize)
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.get_yticklabels()[0].set_color(TOP_COLOR)
    ax.get_yticklabels()[0].set_fontweight("bold")
    top = max(float(moved.max()), 0.05)
    ax.set_xlim(0, 1.6 * top)
    for r, (m, s) in enumerate(zip(moved, shifts, strict=True)):
        ax.text(
            m + 0.03 * top,
            r,
            f"{m:.2f}  (P({result.top_class}) {s:+.2f})",
            va="center",
            fontsize=fontsize - 1,
        )
    ax.set_xlabel(
        "how far P(class | evidence) moves\nwhen the item is left out (total variation)",
        fontsize=fontsize,
    )
    ax.set_title(
        f"which evidence moved the class\n(green raises P({result.top_class}), purple lowers it)",
        fontsize=fontsize,
    )
    ax.spines[["top", "right"]].set_visible(False)
    ax.tick_params(axis="x", labelsize=fontsize - 1)
