"""The study's SHAP figures, regenerated with exact Shapley values.

For P450 and lactamase: naive Bayes, TAN and Simpler TAN fitted on all rows
(alpha=1, trees rooted at the first block, the study's settings), every row
explained by :func:`bnclassify.explain.explain` (interventional log-odds, the
whole data set as background: exact, in closed form). Two figures per data set:

* ``shap_beeswarm_<data>.png``: one beeswarm panel per model, the blocks in
  one common order in every panel (by mean |SHAP| averaged over the three
  models, :func:`common_order`), so that rows line up across models;
* ``shap_bar_<data>.png``: mean |SHAP| per block, the three models as grouped
  bars in one colour each, in the same common order.

Registered as ``"shap"`` in :mod:`bnclassify.study.figures`
(``python -m bnclassify.study.figures shap``).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import shap
from matplotlib.colors import ListedColormap
from matplotlib.lines import Line2D

from ..classifiers import TAN, NaiveBayes, SimplerTAN
from ..datasets import load_lactamase, load_p450
from ..explain import explain
from .figures import figure

DATASETS = {"p450": load_p450, "lactamase": load_lactamase}
MODEL_NAMES = ("NB", "TAN", "Simpler TAN")
#: Okabe-Ito blue, orange and bluish green: parents 1, 2 and 3 (colour-blind safe).
PARENT_COLOURS = ("#0072B2", "#E69F00", "#009E73")
#: One colour per model in the bar plot: the model families' colours of cv_results.
MODEL_COLOURS = {"NB": "#000000", "TAN": "#0072B2", "Simpler TAN": "#009E73"}
ORDER_NOTE = "blocks ordered by mean |SHAP| averaged over the models"


def common_order(explanations) -> list:
    """Feature positions by mean |SHAP| averaged over the models, largest first.

    Every panel of a figure uses this one order, so that a block's row is the
    same in each; ties keep feature order.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace as E
    >>> common_order({"a": E(values=np.array([[1.0, 3.0, 2.0]])),
    ...               "b": E(values=np.array([[2.0, 0.0, 2.0]]))})
    [2, 0, 1]
    """
    importance = np.mean([np.abs(e.values).mean(axis=0) for e in explanations.values()], axis=0)
    return [int(k) for k in np.argsort(-importance, kind="stable")]


def study_explanations(dataset):
    """Exact interventional log-odds explanations of NB, TAN and Simpler TAN on one data set.

    Parameters
    ----------
    dataset : {"p450", "lactamase"}

    Returns
    -------
    dict
        Model name -> ``shap.Explanation`` of every row.

    Examples
    --------
    >>> explanations = study_explanations("p450")
    >>> list(explanations), explanations["TAN"].values.shape
    (['NB', 'TAN', 'Simpler TAN'], (955, 8))
    """
    data = DATASETS[dataset]()
    X, y = data.data, data.target
    models = (NaiveBayes(), TAN(), SimplerTAN(data.contact_matrix))
    return {name: explain(m.fit(X, y), X) for name, m in zip(MODEL_NAMES, models, strict=True)}


def plot_beeswarms(explanations, title):
    """One shap beeswarm panel per model, on a shared SHAP axis, points coloured by parent.

    The blocks are in the same order in every panel (:func:`common_order`).
    """
    fig, axes = plt.subplots(1, len(explanations), figsize=(5.2 * len(explanations), 4.8))
    limit = max(np.abs(e.values).max() for e in explanations.values()) * 1.05
    order = np.array(common_order(explanations))
    for ax, (name, explanation) in zip(axes, explanations.items(), strict=True):
        _check_parent_colours(explanation.data)
        np.random.seed(0)  # noqa: NPY002 - shap jitters with the legacy global RNG
        shap.plots.beeswarm(
            explanation,
            max_display=explanation.shape[1],
            order=order,
            clustering=False,
            ax=ax,
            show=False,
            plot_size=None,
            color=ListedColormap(PARENT_COLOURS),
            color_bar=False,
            s=10,
        )
        ax.set_xlim(-limit, limit)
        ax.set_title(name, fontsize=13)
        ax.set_xlabel("SHAP value (log-odds of functional)", fontsize=10)
    handles = [
        Line2D([], [], marker="o", linestyle="", color=c, markersize=7, label=f"parent {k}")
        for k, c in enumerate(PARENT_COLOURS, start=1)
    ]
    fig.suptitle(f"{title}\n{ORDER_NOTE} (the same rows in every panel)", fontsize=13)
    fig.legend(handles=handles, loc="upper right", ncol=3, frameon=False, fontsize=10)
    fig.tight_layout()
    return fig


def _check_parent_colours(data):
    """shap scales each feature's colours from its 5th to 95th percentile: need 1 and 3 there.

    Then parents 1, 2 and 3 map to the three colours of the discrete colour map.
    """
    low, high = np.nanpercentile(data, [5, 95], axis=0)
    if not (np.all(low == 1) and np.all(high == 3)):
        raise ValueError("a block has parent 1 or 3 in fewer than 5% of rows; colours would lie")


def plot_bars(explanations, title):
    """Mean |SHAP| per feature, models side by side in one colour each, in :func:`common_order`.

    The values are unsigned (a mean of absolute values) and written with the
    same three decimals; the title names the order.
    """
    order = common_order(explanations)
    names = list(next(iter(explanations.values())).feature_names)
    n_models = len(explanations)
    fig, ax = plt.subplots(figsize=(7.5, 1.2 + 0.28 * n_models * len(order)), layout="constrained")
    height = 0.8 / n_models
    top = 0.0
    for k, (name, explanation) in enumerate(explanations.items()):
        means = np.abs(explanation.values).mean(axis=0)[order]
        y = np.arange(len(order)) + (k - (n_models - 1) / 2) * height
        colour = MODEL_COLOURS.get(name, PARENT_COLOURS[k % len(PARENT_COLOURS)])
        bars = ax.barh(y, means, height, color=colour, label=name)
        ax.bar_label(bars, fmt="{:.3f}", padding=2, fontsize=8, color=colour)
        top = max(top, float(means.max()))
    ax.set_yticks(range(len(order)), [names[k] for k in order])
    ax.set_ylim(len(order) - 0.5, -0.5)
    ax.set_xlim(0, top * 1.15)
    ax.set_xlabel("mean |SHAP value| (log-odds of functional)")
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(loc="lower right", frameon=False)
    ax.set_title(f"{title}\n{ORDER_NOTE}", fontsize=11)
    return fig


@figure("shap")
def shap_figures(out_dir) -> list[Path]:
    """Write the SHAP beeswarm and bar figures of P450 and lactamase into ``out_dir``.

    Returns
    -------
    list of Path
        The PNG files written.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for dataset in DATASETS:
        explanations = study_explanations(dataset)
        label = {"p450": "P450", "lactamase": "β-lactamase"}[dataset]
        for kind, plot, title in (
            ("beeswarm", plot_beeswarms, f"{label}: exact SHAP values of every chimera"),
            ("bar", plot_bars, f"{label}: mean |SHAP| per block"),
        ):
            fig = plot(explanations, title)
            path = out_dir / f"shap_{kind}_{dataset}.png"
            fig.savefig(path, dpi=110, bbox_inches="tight", facecolor="white")
            plt.close(fig)
            written.append(path)
    return written
