"""The study's SHAP figures, regenerated with exact Shapley values.

For P450 and lactamase: naive Bayes, TAN and Simpler TAN fitted on all rows
(alpha=1, trees rooted at the first block, the study's settings), every row
explained by :func:`bnclassify.explain.explain` (interventional log-odds, the
whole data set as background: exact, in closed form). Two figures per data set:

* ``shap_beeswarm_<data>.png``: one beeswarm panel per model, blocks ordered by
  mean |SHAP| within each panel, so a change of ranking shows as a change of
  order;
* ``shap_bar_<data>.png``: mean |SHAP| per block, the three models as grouped
  bars in one panel.

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
    """One shap beeswarm panel per model, on a shared SHAP axis, points coloured by parent."""
    fig, axes = plt.subplots(1, len(explanations), figsize=(5.2 * len(explanations), 4.8))
    limit = max(np.abs(e.values).max() for e in explanations.values()) * 1.05
    for ax, (name, explanation) in zip(axes, explanations.items(), strict=True):
        _check_parent_colours(explanation.data)
        np.random.seed(0)  # noqa: NPY002 - shap jitters with the legacy global RNG
        shap.plots.beeswarm(
            explanation,
            max_display=explanation.shape[1],
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
    fig.suptitle(title, fontsize=14)
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
    """Mean |SHAP| per feature, models side by side (shap's cohort bar plot)."""
    fig, ax = plt.subplots(figsize=(7.5, 7))
    shap.plots.bar(
        {name: e for name, e in explanations.items()},
        max_display=next(iter(explanations.values())).shape[1],
        ax=ax,
        show=False,
    )
    ax.set_xlabel("mean |SHAP value| (log-odds of functional)")
    ax.set_title(title)
    fig.tight_layout()
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
