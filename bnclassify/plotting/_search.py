"""The figure of a wrapper's search: inner-CV accuracy against step, each move named."""

from __future__ import annotations

import matplotlib.pyplot as plt
from sklearn.utils.validation import check_is_fitted


def plot_search_path(model, ax=None):
    """Plot a wrapper's ``search_path_``: the score after every accepted move.

    Parameters
    ----------
    model : TANHC, TANHCSP, FSSJ, BSEJ or KDBHC
        A fitted wrapper.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
        One point per accepted move (the start included), labelled with the move.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from bnclassify import TANHC
    >>> from bnclassify.datasets import load_p450
    >>> from bnclassify.plotting import plot_search_path
    >>> X, y = load_p450(return_X_y=True)
    >>> ax = plot_search_path(TANHC(random_state=0).fit(X, y))
    >>> [t.get_text() for t in ax.texts][:2]
    ['start', 'arc block7 -> block1']
    """
    if not hasattr(model, "search_moves_"):
        raise TypeError(
            f"plot_search_path needs a fitted wrapper (TANHC, TANHCSP, FSSJ, BSEJ, KDBHC), "
            f"got {type(model).__name__}."
        )
    check_is_fitted(model, "search_moves_")
    path = model.search_path_
    if ax is None:
        _, ax = plt.subplots(figsize=(max(4.0, 1.2 * len(path) + 2), 3.5))
    ax.plot(path.step, path.score, marker="o", color="#0072B2")
    for step, move, score in zip(path.step, path.move, path.score, strict=True):
        ax.annotate(
            move,
            (step, score),
            textcoords="offset points",
            xytext=(4, 6),
            rotation=20,
            fontsize=8,
        )
    ax.set_xlabel("step")
    ax.set_ylabel(f"inner {model.cv}-fold CV accuracy")
    ax.set_title(f"{type(model).__name__} search (epsilon = {model.epsilon})")
    ax.set_xticks(list(path.step))
    return ax
