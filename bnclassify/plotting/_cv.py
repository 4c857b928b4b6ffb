"""Cross-validation results: the per-fold statistics and their figure.

:func:`cv_differences` computes each model's mean per-fold difference to a
baseline with the corrected resampled t interval; :func:`plot_cv_results`
draws either the means (bars with sd) or those differences, coloured by
:func:`model_family`.
"""

from __future__ import annotations

from numbers import Real

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.patches import Rectangle
from scipy import stats

from ..validation import LARGEST_SCORE, ArrayLike, Interval, check_parameter, float_array
from ._palette import FAMILY_COLORS, FONTSIZE, OTHER_MODEL_COLORS

__all__ = ["cv_differences", "model_family", "plot_cv_results"]

_METRIC_LABELS = {
    "accuracy": "accuracy",
    "balanced_accuracy": "balanced accuracy",
    "precision_macro": "precision (macro)",
    "recall_macro": "recall (macro)",
    "f1_macro": "F1 (macro)",
    "cll": "CLL",
    "log_loss": "log-loss",
    "fit_time": "fit time (s)",
    "predict_time": "predict time (s)",
}


_SCORES = ("accuracy", "balanced_accuracy", "precision", "recall", "f1", "roc_auc")


def _metric_label(metric, attrs):
    """A metric's display name, with what the table's ``attrs`` say of it (e.g. the CLL's base)."""
    label = _METRIC_LABELS.get(metric, str(metric))
    note = attrs.get(metric)
    return f"{label} ({note})" if isinstance(note, str) and note else label


#: Metrics that are sums or means of log-probabilities: never above 0.
_NON_POSITIVE = ("cll", "log_likelihood", "neg_log_loss")


def _is_non_positive(metric) -> bool:
    """Whether a metric cannot exceed 0 (the CLL, a log-likelihood): its sd bar stops at 0."""
    return str(metric).startswith(_NON_POSITIVE)


def _is_score(metric) -> bool:
    """Whether a metric is a score on the 0-1 scale (accuracy, precision, recall, F1, AUC)."""
    return str(metric).startswith(_SCORES)


def _fold_table(results):
    """The per-fold DataFrame inside whatever ``evaluate`` returned."""
    if isinstance(results, pd.DataFrame):
        return results
    if isinstance(results, tuple | list) and results and isinstance(results[0], pd.DataFrame):
        return results[0]
    for key in ("folds", "per_fold", "scores"):
        table = results.get(key) if isinstance(results, dict) else getattr(results, key, None)
        if isinstance(table, pd.DataFrame):
            return table
    raise TypeError(
        "results must be the per-fold DataFrame of bnclassify.metrics.evaluate "
        f"(one row per model and fold), got {type(results).__name__}."
    )


def _checked_table(results, metrics, columns=()):
    """The per-fold table of ``results`` with ``metrics`` (and ``columns``) as real numbers,
    or an error naming what is wrong: ``metrics`` itself, a missing column, a score that is
    not a number or not finite, no row."""
    check_parameter(metrics, "metrics", [ArrayLike("a sequence of column names")])
    metrics = list(metrics)
    if not metrics:
        raise ValueError("metrics is empty: name at least one column of results to show.")
    table = _fold_table(results)
    missing = [c for c in ("model", *columns, *metrics) if c not in table.columns]
    if missing:
        raise ValueError(
            f"results lack the column(s) {missing}; columns are {list(table.columns)}."
        )
    if table.empty:
        raise ValueError("results has no rows: nothing to draw.")
    numbers = {
        c: float_array(table[c], f"results[{c!r}]", largest=LARGEST_SCORE)
        for c in (*columns, *metrics)
    }
    table = table.assign(**numbers)
    _check_finite_scores(table, metrics)
    return table, metrics


def _check_finite_scores(table, metrics):
    """A ValueError naming the first infinite score: no bar or interval can show it (a
    fold's CLL is -inf when a true class got probability 0, e.g. with alpha=0)."""
    for metric in metrics:
        values = pd.to_numeric(table[metric], errors="coerce").to_numpy(dtype=float)
        infinite = np.isinf(values)
        if infinite.any():
            row = table.iloc[int(np.argmax(infinite))]
            fold = f", fold {row['fold']}" if "fold" in table.columns else ""
            raise ValueError(
                f"results[{metric!r}] is {values[infinite][0]} for model {row['model']!r}{fold}: "
                "a mean with an infinite term cannot be drawn (a CLL is -inf when a true class "
                "got probability 0; smooth with alpha > 0 or leave the fold out)."
            )


_HATCHES = ["", "///", "...", "xxx", "\\\\\\", "ooo", "+++"]


def _model_styles(models) -> dict:
    """Each model in its family's colour, the models of one family told apart by hatches.

    Models of no known family take the colours no family has, then hatches.
    """
    styles, seen = {}, {}
    for m in models:
        family = model_family(m)
        k = seen[family] = seen.get(family, -1) + 1
        if family == "other":
            colors = OTHER_MODEL_COLORS
            color, hatch = colors[k % len(colors)], _HATCHES[(k // len(colors)) % len(_HATCHES)]
        else:
            color, hatch = FAMILY_COLORS[family], _HATCHES[k % len(_HATCHES)]
        styles[m] = {"facecolor": color, "hatch": hatch, "edgecolor": "white"}
    return styles


def model_family(name) -> str:
    """The family of a model named as in the study's tables (a key of ``FAMILY_COLORS``).

    Examples
    --------
    >>> [model_family(m) for m in ("NB", "TAN (BIC forest)", "Simpler TAN", "STAN bagging",
    ...                            "AODE", "BMA TAN (contact prior)", "SVM")]
    ['NB', 'TAN', 'Simpler TAN', 'ensemble', 'KDB/AODE', 'BMA', 'other']
    """
    text = str(name)
    lower = text.lower()
    if lower in ("nb", "naive bayes") or lower.startswith(("nb ", "naivebayes", "naive bayes")):
        return "NB"
    if lower.startswith("bma"):
        return "BMA"
    if "bagging" in lower or "ensemble" in lower:
        return "ensemble"
    if lower.startswith(("kdb", "aode")):
        return "KDB/AODE"
    if lower.startswith(("simpler tan", "stan", "simplertan")):
        return "Simpler TAN"
    if lower.startswith("tan"):
        return "TAN"
    return "other"


def _significant_decimals(values, digits=2):
    """Decimals that give the largest of ``values`` ``digits`` significant digits (0 to 6)."""
    finite = np.abs(np.asarray(values, dtype=float))
    finite = finite[np.isfinite(finite)]
    top = finite.max() if finite.size else 0.0
    if top == 0:
        return digits
    return int(np.clip(digits - 1 - np.floor(np.log10(top)), 0, 6))


def cv_differences(results, metrics=("accuracy", "cll"), baseline="NB", confidence=0.95):
    """Each model's mean per-fold difference to ``baseline`` with a corrected-t interval.

    For the ``k`` per-fold differences ``d`` of a model and the baseline on
    the same folds, the interval is ``mean(d) +- t_{k-1} sqrt((1/k + n_test /
    n_train) var(d))``: the corrected resampled t test's (Nadeau and Bengio)
    interval, ``n_train`` and ``n_test`` the mean fold sizes.

    Parameters
    ----------
    results : DataFrame or Evaluation
        The per-fold table of :func:`bnclassify.metrics.evaluate`, with its
        ``n_train`` and ``n_test`` columns (and optionally ``dataset``).
    metrics : sequence of str
    baseline : str, default="NB"
    confidence : float, default=0.95

    Returns
    -------
    DataFrame
        One row per (dataset, metric, model other than the baseline):
        ``baseline_mean``, ``diff``, ``low``, ``high``, ``family``.

    Examples
    --------
    >>> folds = pd.DataFrame({"model": ["NB"] * 3 + ["TAN"] * 3, "fold": [0, 1, 2] * 2,
    ...                       "n_train": 90, "n_test": 10,
    ...                       "accuracy": [0.8, 0.7, 0.9, 0.9, 0.8, 0.9]})
    >>> cv_differences(folds, ["accuracy"])[["diff", "low", "high"]].round(3)
        diff    low   high
    0  0.067 -0.099  0.232
    """
    check_parameter(confidence, "confidence", [Interval(Real, 0, 1, closed="neither")])
    table, metrics = _checked_table(results, metrics, ("fold", "n_train", "n_test"))
    if not (table["n_train"] > 0).all() or not (table["n_test"] > 0).all():
        raise ValueError("results' n_train and n_test must be positive row counts.")
    models = list(pd.unique(table["model"]))
    if baseline not in models:
        raise ValueError(f"baseline {baseline!r} is not one of the models {models}.")
    datasets = list(pd.unique(table["dataset"])) if "dataset" in table.columns else [None]
    rows = []
    for dataset in datasets:
        part = table if dataset is None else table[table["dataset"] == dataset]
        ratio = part["n_test"].mean() / part["n_train"].mean()
        for metric in metrics:
            wide = part.pivot(index="fold", columns="model", values=metric)
            for model in models:
                if model == baseline or model not in wide:
                    continue
                d = (wide[model] - wide[baseline]).dropna().to_numpy(dtype=float)
                k = len(d)
                half = (
                    stats.t.ppf(0.5 + confidence / 2, k - 1)
                    * np.sqrt((1.0 / k + ratio) * d.var(ddof=1))
                    if k > 1
                    else np.nan
                )
                rows.append(
                    {
                        "dataset": dataset,
                        "metric": metric,
                        "model": model,
                        "baseline_mean": float(wide[baseline].mean()),
                        "diff": float(d.mean()),
                        "low": float(d.mean() - half),
                        "high": float(d.mean() + half),
                        "family": model_family(model),
                    }
                )
    return pd.DataFrame(rows, columns=_DIFFERENCE_COLUMNS)


#: The columns of :func:`cv_differences`' table (also when it has no row).
_DIFFERENCE_COLUMNS = [
    "dataset", "metric", "model", "baseline_mean", "diff", "low", "high", "family",
]  # fmt: skip


def _plot_cv_differences(table, metrics, baseline, fig, title, fontsize, confidence):
    """plot_cv_results(baseline=...): one dot-and-interval panel per (data set, metric)."""
    diffs = cv_differences(table, metrics, baseline, confidence)
    datasets = list(pd.unique(table["dataset"])) if "dataset" in table.columns else [None]
    models = [m for m in pd.unique(table["model"]) if m != baseline]
    if diffs.empty:
        raise ValueError(
            f"results hold no model to compare with baseline {baseline!r} on the same folds "
            f"(models: {list(pd.unique(table['model']))}); draw them without a baseline."
        )
    y_of = {m: k for k, m in enumerate(models)}
    if fig is None:
        fig = plt.figure(
            figsize=(
                min(10.0, 3.0 + 2.4 * len(metrics)),
                len(datasets) * (0.9 + 0.22 * len(models)) + 0.9,
            ),
            layout="constrained",
        )
    axes = fig.subplots(len(datasets), len(metrics), squeeze=False, sharey=True)
    for row, dataset in zip(axes, datasets, strict=True):
        for ax, metric in zip(row, metrics, strict=True):
            part = diffs[(diffs["metric"] == metric)]
            if dataset is not None:
                part = part[part["dataset"] == dataset]
            decimals = _significant_decimals(
                np.r_[part["diff"].to_numpy(), part["baseline_mean"].to_numpy()[:1]], 3
            )
            if _is_score(metric):
                decimals = 3
            ax.axvline(0.0, color="0.35", linewidth=1.0, linestyle="--", zorder=1)
            for record in part.itertuples():
                color = FAMILY_COLORS[record.family]
                y = y_of[record.model]
                line = ax.errorbar(
                    record.diff,
                    y,
                    xerr=[[record.diff - record.low], [record.high - record.diff]],
                    fmt="o",
                    markersize=4.5,
                    color=color,
                    ecolor=color,
                    elinewidth=1.6,
                    capsize=2.5,
                    zorder=3,
                )
                line.lines[0].bnclassify_model = record.model
                line.lines[0].bnclassify_family = record.family
            ends = part[["low", "high"]].to_numpy(dtype=float).ravel()
            ends = ends[np.isfinite(ends)]
            lo = min(0.0, ends.min()) if ends.size else -1.0
            hi = max(0.0, ends.max()) if ends.size else 1.0
            span = (hi - lo) or 1.0
            for record in part.itertuples():  # a column of values right of every interval
                ax.text(
                    hi + 0.06 * span,
                    y_of[record.model],
                    f"{record.diff:+.{decimals}f}",
                    ha="left",
                    va="center",
                    fontsize=fontsize - 2,
                    color=FAMILY_COLORS[record.family],
                )
            ax.set_xlim(lo - 0.05 * span, hi + 0.45 * span)
            ax.xaxis.set_major_locator(plt.MaxNLocator(4))
            base = part["baseline_mean"].iloc[0] if len(part) else np.nan
            name = _metric_label(metric, table.attrs)
            ax.set_title(f"{name}\n{baseline}: {base:.{decimals}f}", fontsize=fontsize - 1)
            ax.set_xlabel(f"difference to {baseline}", fontsize=fontsize - 1)
            ax.tick_params(labelsize=fontsize - 1)
            ax.spines[["top", "right"]].set_visible(False)
            ax.grid(True, axis="x", alpha=0.3)
        row[0].set_yticks(range(len(models)), [str(m) for m in models], fontsize=fontsize - 1)
        if dataset is not None:
            row[0].set_ylabel(str(dataset), fontsize=fontsize + 1, fontweight="bold")
        row[0].set_ylim(len(models) - 0.5, -0.5)
    families = [f for f in FAMILY_COLORS if f in set(diffs["family"])]
    handles = [
        plt.Line2D([], [], marker="o", color=FAMILY_COLORS[f], linestyle="-", markersize=5)
        for f in families
    ]
    handles.append(plt.Line2D([], [], color="0.35", linestyle="--", linewidth=1.0))
    fig.legend(
        handles,
        [*families, f"{baseline} (0)"],
        loc="outside lower center",
        ncol=len(handles),
        fontsize=fontsize - 1,
        frameon=False,
        title="model family",
        title_fontsize=fontsize - 1,
    )
    heading = (
        f"mean per-fold difference to {baseline} ± {confidence:.0%} corrected resampled t interval"
    )
    fig.suptitle(f"{title}\n{heading}" if title else heading, fontsize=fontsize + 1)
    fig.cv_differences = diffs
    return fig


def plot_cv_results(
    results,
    metrics=("accuracy", "f1_macro", "cll"),
    *,
    baseline=None,
    confidence=0.95,
    fig=None,
    title=None,
    fontsize=10,
):
    """Cross-validation results as grouped bars (mean over folds) with error bars (sd).

    Scores on a 0-1 scale (accuracy, precision, recall, F1, AUC: by column
    name) share one panel, grouped by metric with one bar per model; every
    other metric (CLL, log-loss, times) gets a panel of its own. With a
    ``dataset`` column there is one row of panels per data set. Each model
    is drawn in its family's colour, the same in every figure (NB black, TAN
    blue, Simpler TAN bluish green, ensembles orange, KDB/AODE reddish
    purple, BMA vermillion), models of one family told apart by hatching.
    The CLL and other sums of log-probabilities cannot exceed 0: their sd
    bars are clipped at 0 (the lower bar keeps the full sd), and the title
    says so.

    With a ``baseline`` (e.g. ``"NB"``) it draws instead, per data set and
    metric, every other model's mean per-fold difference to the baseline
    with its corrected resampled t interval (Nadeau and Bengio), on an
    axis fitted to the differences, coloured by model family (NB, TAN,
    Simpler TAN, ensemble, KDB/AODE, BMA), the value written at the right: differences of
    a few hundredths are what such tables turn on, and bars from 0 hide them.

    Parameters
    ----------
    results : DataFrame or Evaluation
        The tidy per-fold table of :func:`bnclassify.metrics.evaluate`: one row
        per (model, fold) with a ``model`` column and one column per metric;
        or what ``evaluate`` returns (a ``(folds, summary)`` pair). A string in
        ``results.attrs[metric]`` is added to that metric's label, e.g.
        ``attrs["cll"] = "log2, sum per fold"``.
    metrics : sequence of str, default=("accuracy", "f1_macro", "cll")
        Columns to show.
    baseline : str, optional
        Model to show differences to (needs ``n_train`` and ``n_test``
        columns, as ``evaluate`` writes). Default: bars of the means.
    confidence : float, default=0.95
        Level of the intervals with a ``baseline``.
    fig : matplotlib Figure, optional
    title : str, optional
    fontsize : float, default=10

    Returns
    -------
    matplotlib.figure.Figure
        With a ``baseline``, ``fig.cv_differences`` holds what is drawn.

    Examples
    --------
    >>> import pandas as pd
    >>> from bnclassify.plotting import plot_cv_results
    >>> folds = pd.DataFrame({"model": ["NB", "NB", "TAN", "TAN"], "fold": [0, 1, 0, 1],
    ...                       "accuracy": [0.80, 0.82, 0.85, 0.84],
    ...                       "f1_macro": [0.75, 0.77, 0.80, 0.81], "cll": [-61, -60, -53, -54]})
    >>> fig = plot_cv_results(folds)
    >>> [ax.get_title() for ax in fig.axes]
    ['accuracy, F1 (macro)', 'CLL']
    """
    check_parameter(fontsize, "fontsize", FONTSIZE)
    table, metrics = _checked_table(results, metrics)
    if baseline is not None:
        return _plot_cv_differences(table, metrics, baseline, fig, title, fontsize, confidence)
    datasets = list(pd.unique(table["dataset"])) if "dataset" in table.columns else [None]
    models = list(pd.unique(table["model"]))
    styles = _model_styles(models)
    bounded = [m for m in metrics if _is_score(m)]
    panels = ([bounded] if bounded else []) + [[m] for m in metrics if m not in bounded]
    if fig is None:
        widths = [1.0 + 0.45 * len(p) * len(models) for p in panels]
        fig = plt.figure(
            figsize=(max(6.0, 1.3 * sum(widths) + 1.5), 3.6 * len(datasets)), layout="constrained"
        )
    axes = fig.subplots(
        len(datasets),
        len(panels),
        squeeze=False,
        gridspec_kw={"width_ratios": [max(len(p), 1.5) for p in panels]},
    )
    bar_width = 0.8 / len(models)
    for row, dataset in zip(axes, datasets, strict=True):
        part = table if dataset is None else table[table["dataset"] == dataset]
        grouped = part.groupby("model", sort=False)[list(metrics)]
        mean, sd = grouped.mean(), grouped.std().fillna(0.0)
        decimals = {m: _significant_decimals(mean[m], 3) for m in metrics}  # one per panel
        for ax, panel in zip(row, panels, strict=True):
            for k, model in enumerate(models):
                if model not in mean.index:
                    continue
                x = np.arange(len(panel)) + (k - (len(models) - 1) / 2) * bar_width
                heights = mean.loc[model, panel].to_numpy(dtype=float)
                spread = sd.loc[model, panel].to_numpy(dtype=float)
                # a CLL is a sum of log-probabilities: mean + sd above 0 would be impossible
                ceiling = np.array(
                    [
                        -h if _is_non_positive(m) else np.inf
                        for m, h in zip(panel, heights, strict=True)
                    ]
                )
                bars = ax.bar(
                    x,
                    heights,
                    bar_width,
                    yerr=np.vstack([spread, np.clip(np.minimum(spread, ceiling), 0.0, None)]),
                    capsize=3,
                    label=str(model),
                    **styles[model],
                    error_kw={"elinewidth": 1, "ecolor": "#333333"},
                )
                ax.bar_label(
                    bars,
                    fmt="{:.3f}" if panel is bounded else f"{{:.{decimals[panel[0]]}f}}",
                    fontsize=fontsize - 2,
                    padding=2,
                )
            names = [_metric_label(m, table.attrs) for m in panel]
            if len(panel) > 1:
                ax.set_xticks(range(len(panel)), names, fontsize=fontsize)
            else:  # the title names it
                ax.set_xticks([])
            heading = ", ".join(names)
            ax.set_title(heading if dataset is None else f"{dataset}: {heading}", fontsize=fontsize)
            if panel is bounded:
                ax.set_ylim(0, 1.1)
            ax.spines[["top", "right"]].set_visible(False)
            ax.tick_params(labelsize=fontsize - 1)
            ax.margins(y=0.15)
    handles = [Rectangle((0, 0), 1, 1, **styles[m]) for m in models]
    fig.legend(
        handles,
        [str(m) for m in models],
        loc="outside lower center",
        ncol=min(len(models), 6),
        fontsize=fontsize,
        frameon=False,
    )
    heading = "mean ± sd over folds"
    if any(_is_non_positive(m) for m in metrics):
        heading += "; CLL cannot exceed 0, so its sd bars stop there"
    fig.suptitle(f"{title} ({heading})" if title else heading, fontsize=fontsize + 2)
    return fig
