"""Demsar's (2006) critical-difference diagram: many models' mean ranks over many data sets."""

from __future__ import annotations

import math
from numbers import Real

import matplotlib.pyplot as plt
import numpy as np

from ..metrics import friedman_test, nemenyi_critical_difference
from ..validation import Interval, check_parameter

__all__ = ["critical_difference_groups", "plot_critical_difference"]

_INK = "0.15"


def critical_difference_groups(ranks, cd) -> list:
    """The maximal groups of models whose mean ranks all lie within less than ``cd``.

    Two models differ significantly (Nemenyi) when their mean ranks differ by at
    least the critical difference; each group returned is a longest run of
    models, in rank order, of which no two do, and no group lies inside
    another. A model in no group of two or more differs from every other.

    Parameters
    ----------
    ranks : Series or dict of {model: mean rank}
    cd : float
        The critical difference (:func:`bnclassify.metrics.nemenyi_critical_difference`).

    Returns
    -------
    list of tuple
        Each group's models from the best rank to the worst, groups in the
        order of their best model; only groups of two or more.

    Examples
    --------
    >>> critical_difference_groups({"a": 1.2, "b": 1.9, "c": 2.5, "d": 3.9}, cd=1.0)
    [('a', 'b'), ('b', 'c')]
    """
    items = sorted(dict(ranks).items(), key=lambda item: (item[1], str(item[0])))
    names = [name for name, _ in items]
    values = np.array([rank for _, rank in items], dtype=float)
    groups, reach = [], -1
    for i in range(len(values)):
        j = i
        while j + 1 < len(values) and values[j + 1] - values[i] < cd:
            j += 1
        if j > reach and j > i:  # not inside the group of a better model
            groups.append(tuple(names[i : j + 1]))
        reach = max(reach, j)
    return groups


def plot_critical_difference(
    scores,
    *,
    alpha=0.05,
    lower_is_better=True,
    ax=None,
    title=None,
    fontsize=9,
):
    """Demsar's critical-difference diagram of models compared over many data sets.

    The models' mean ranks (1: the best on a set) on an axis; a bar of the
    critical difference of Nemenyi's test at ``alpha``; and a thick line under
    each group of models no two of which differ significantly
    (:func:`critical_difference_groups`). The title reports Friedman's test
    (Iman and Davenport's F, :func:`bnclassify.metrics.friedman_test`): the
    groups are a post-hoc reading and mean little when it does not reject.

    Each model's label carries its name as ``bnclassify_model`` and its mean
    rank as ``bnclassify_rank``; each group's line its models as
    ``bnclassify_group``, so a figure can be read back.

    Parameters
    ----------
    scores : DataFrame or array-like of shape (n_sets, n_models)
        One row per data set, one column per model (an array's models are
        named by their column numbers). A model that failed on a set can be
        given ``inf`` (a loss) or ``-inf`` (a score): it ranks last there.
    alpha : float, default=0.05
    lower_is_better : bool, default=True
        True for losses, False for scores such as accuracy.
    ax : matplotlib Axes, optional
    title : str, optional
        Default: the number of sets, Friedman's p-value and the critical difference.
    fontsize : float, default=9

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import pandas as pd
    >>> losses = pd.DataFrame({"A": [0.31, 0.52, 0.20, 0.44, 0.12],
    ...                        "B": [0.30, 0.55, 0.22, 0.41, 0.15],
    ...                        "C": [0.35, 0.60, 0.25, 0.47, 0.18]})
    >>> ax = plot_critical_difference(losses)  # mean ranks 1.4, 1.6, 3.0; CD 1.48
    >>> [line.bnclassify_group for line in ax.lines if hasattr(line, "bnclassify_group")]
    [('A', 'B'), ('B', 'C')]
    """
    check_parameter(alpha, "alpha", [Interval(Real, 0, 1, closed="neither")])
    result = friedman_test(scores, lower_is_better=lower_is_better)
    ranks = result.ranks
    if not hasattr(ranks, "index"):
        ranks = dict(zip(map(str, range(len(ranks))), ranks, strict=True))
    else:
        ranks = dict(zip(map(str, ranks.index), ranks.to_numpy(), strict=True))
    k = len(ranks)
    n_sets = len(scores)
    cd = nemenyi_critical_difference(k, n_sets, alpha)
    groups = critical_difference_groups(ranks, cd)
    order = sorted(ranks, key=lambda name: (ranks[name], name))
    n_left = math.ceil(k / 2)
    left, right = order[:n_left], order[n_left:][::-1]  # right: the worst at the top

    step = 0.42
    group_top = -0.28
    group_step = 0.16
    first_label = group_top - group_step * max(len(groups), 1) - 0.18
    depth = -first_label + step * max(len(left), len(right))
    # room beside the axis for the longest label (inches, at about 0.55 em a character)
    longest = max(len(f"{name} ({ranks[name]:.2f})") for name in order) * 0.55 * fontsize / 72
    if ax is None:
        width = max(7.0, 2 * longest + 3.5)
        _, ax = plt.subplots(figsize=(width, 1.3 + 0.32 * depth), layout="constrained")
    lo, hi = 1.0, float(k)
    inches = ax.get_position().width * ax.figure.get_figwidth()
    span = hi - lo + 0.5
    margin = (longest + 0.1) * span / max(inches - 2 * (longest + 0.1), 0.25 * inches)
    ax.set_xlim(lo - 0.25 - margin, hi + 0.25 + margin)
    ax.set_ylim(-depth - 0.1, 1.35)
    ax.set_axis_off()

    # the rank axis, 1 to k, with its ticks
    ax.plot([lo, hi], [0, 0], color=_INK, linewidth=1.2)
    for tick in range(1, k + 1):
        ax.plot([tick, tick], [0, 0.12], color=_INK, linewidth=1.0)
        ax.text(tick, 0.2, str(tick), ha="center", va="bottom", fontsize=fontsize)
    for half in np.arange(1.5, k, 1.0):
        ax.plot([half, half], [0, 0.06], color=_INK, linewidth=0.7)

    # the critical difference, from rank 1
    cd_line = ax.plot([lo, lo + cd], [0.95, 0.95], color=_INK, linewidth=1.6)[0]
    cd_line.bnclassify_cd = cd
    for end in (lo, lo + cd):
        ax.plot([end, end], [0.88, 1.02], color=_INK, linewidth=1.0)
    ax.text(lo + cd / 2, 1.07, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=fontsize)

    # each model: a line from its rank down to its label
    for side, names in (("left", left), ("right", right)):
        tip = lo - 0.25 if side == "left" else hi + 0.25
        for row, name in enumerate(names):
            rank = ranks[name]
            y = first_label - step * row
            ax.plot([rank, rank, tip], [0, y, y], color=_INK, linewidth=0.9)
            label = ax.text(
                tip + (-0.05 if side == "left" else 0.05),
                y,
                f"{name} ({rank:.2f})",
                ha="right" if side == "left" else "left",
                va="center",
                fontsize=fontsize,
                clip_on=False,
            )
            label.bnclassify_model = name
            label.bnclassify_rank = float(rank)

    # the groups no two of whose members differ
    for j, group in enumerate(groups):
        y = group_top - group_step * j
        start, stop = ranks[group[0]], ranks[group[-1]]
        line = ax.plot(
            [start - 0.03, stop + 0.03], [y, y], color=_INK, linewidth=3.2, solid_capstyle="round"
        )[0]
        line.bnclassify_group = group

    if title is None:
        title = (
            f"{n_sets} data sets; Friedman (Iman-Davenport) p = {result.pvalue:.2g}; "
            f"Nemenyi CD = {cd:.2f} at {alpha:g}"
        )
    ax.set_title(title, fontsize=fontsize)
    return ax
