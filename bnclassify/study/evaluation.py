"""The study's evaluation: its protocol rerun, per-fold differences, and the comparison tables.

:func:`study_evaluation` cross-validates :func:`~bnclassify.study.study_models`
with the study's protocol (``KFold(10, shuffle=True, random_state=42)``,
Laplace smoothing, trees rooted at the first feature, CLL as the per-fold sum
of log2 P(true class | x), averaged over folds); :func:`comparison_table` puts
its means beside the study's reported figures.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..metrics import Evaluation, corrected_resampled_ttest, evaluate, study_cv, summarize
from ..validation import check_int
from .models import (
    STUDY_COLUMN,
    STUDY_DATASETS,
    STUDY_RESULTS,
    load_study_data,
    study_models,
)

__all__ = [
    "baseline_differences",
    "comparison_table",
    "cv_folds_by_dataset",
    "format_table",
    "repeated_evaluation",
    "results_markdown",
    "study_evaluation",
    "study_runs",
]


_EVALUATIONS: dict = {}


def study_evaluation(
    dataset,
    *,
    folds=10,
    seed=42,
    stratified=False,
    alpha=1.0,
    extra=True,
    as_study_loaded=False,
    progress=None,
) -> Evaluation:
    """Cross-validate :func:`study_models` on a bundled data set with the study's protocol.

    Cached per arguments (``progress`` aside): the results page and the
    figures share one run. Treat the returned tables as read-only.

    Examples
    --------
    >>> from bnclassify.study import study_evaluation
    >>> folds, summary = study_evaluation("p450", extra=False, progress=False)
    >>> summary.loc["Simpler TAN", ("cll", "mean")].round(2)  # the study: -52.13
    np.float64(-52.13)
    """
    key = (dataset, folds, seed, stratified, alpha, extra, as_study_loaded)
    if key not in _EVALUATIONS:
        bunch = load_study_data(dataset, as_study_loaded=as_study_loaded)
        models = study_models(
            bunch.get("contact_matrix"),
            alpha=alpha,
            study_tan=dataset in STUDY_DATASETS,
            extra=extra,
        )
        cv = study_cv(folds, stratified=stratified, random_state=seed)
        _EVALUATIONS[key] = evaluate(models, bunch.data, bunch.target, cv=cv, progress=progress)
    return _EVALUATIONS[key]


def repeated_evaluation(
    models,
    X,
    y,
    *,
    folds=10,
    repeats=1,
    seed=42,
    stratified=False,
    progress=None,
    n_jobs=None,
) -> Evaluation:
    """R times repeated K-fold cross-validation, repeat ``r`` shuffled with ``seed + r``.

    All ``R * K`` (model, fold) fits go through one :func:`~bnclassify.metrics.evaluate`
    call (so ``n_jobs`` spreads them all). ``folds`` numbers the folds
    ``0 .. R K - 1`` and has a ``repeat`` column; ``summary`` is over all of them.
    ``repeats=1`` is the study's protocol.

    Examples
    --------
    >>> from bnclassify import NaiveBayes
    >>> from bnclassify.datasets import load_p450
    >>> X, y = load_p450(return_X_y=True)
    >>> ev = repeated_evaluation({"NB": NaiveBayes()}, X, y, folds=5, repeats=2, progress=False)
    >>> ev.folds.groupby("repeat").size().tolist()
    [5, 5]
    """
    check_int(folds, "folds", minimum=2)
    check_int(repeats, "repeats", minimum=1)
    splits = [
        split
        for r in range(repeats)
        for split in study_cv(folds, stratified=stratified, random_state=seed + r).split(X, y)
    ]
    result = evaluate(models, X, y, cv=splits, progress=progress, n_jobs=n_jobs)
    table = result.folds.assign(repeat=result.folds["fold"] // folds)
    return Evaluation(folds=table, summary=summarize(table))


def baseline_differences(folds: pd.DataFrame, baseline="NB", metrics=("accuracy", "cll")):
    """Each model's mean per-fold difference to ``baseline`` and its corrected p-value.

    The p-value is the two-sided corrected resampled t test
    (:func:`~bnclassify.metrics.corrected_resampled_ttest`) over every fold
    in ``folds``: with R repeats of K folds, ``k = R K`` in its ``1/k`` term
    and ``R K - 1`` degrees of freedom (Bouckaert and Frank's corrected
    repeated k-fold test), ``n_test / n_train`` the mean fold sizes.

    Returns
    -------
    DataFrame
        Index ``model`` (the baseline's row is NaN); columns ``(metric, "diff")``
        and ``(metric, "p")``.

    Examples
    --------
    >>> folds = pd.DataFrame({"model": ["a"] * 3 + ["b"] * 3, "fold": [0, 1, 2] * 2,
    ...                       "n_train": 90, "n_test": 10,
    ...                       "accuracy": [0.8, 0.7, 0.9, 0.9, 0.8, 0.9]})
    >>> baseline_differences(folds, "a", ["accuracy"]).round(3)
    metric accuracy
    stat       diff      p
    model
    a           NaN    NaN
    b         0.067  0.225
    """
    models = list(dict.fromkeys(folds["model"]))
    if baseline not in models:
        raise ValueError(f"baseline {baseline!r} is not one of the models {models}.")
    n_train, n_test = folds["n_train"].mean(), folds["n_test"].mean()
    out = pd.DataFrame(
        index=pd.Index(models, name="model"),
        columns=pd.MultiIndex.from_product(
            [list(metrics), ["diff", "p"]], names=["metric", "stat"]
        ),
        dtype=float,
    )
    for metric in metrics:
        wide = folds.pivot(index="fold", columns="model", values=metric)
        for model in models:
            if model == baseline:
                continue
            d = wide[model] - wide[baseline]
            result = corrected_resampled_ttest(wide[model], wide[baseline], n_train, n_test)
            out.loc[model, (metric, "diff")] = d.mean()
            out.loc[model, (metric, "p")] = result.pvalue
    return out


def comparison_table(summary: pd.DataFrame, dataset=None) -> pd.DataFrame:
    """Means (and sd of accuracy and CLL) per model, with the study's figures beside them.

    Parameters
    ----------
    summary : DataFrame
        The ``summary`` of :func:`~bnclassify.metrics.evaluate`.
    dataset : str, optional
        ``"p450"`` or ``"lactamase"`` adds the columns ``study accuracy`` and
        ``study CLL`` (empty for rows the study has no figure for).

    Examples
    --------
    >>> _, summary = study_evaluation("p450", extra=False, progress=False)
    >>> comparison_table(summary, "p450").loc["NB", ["accuracy", "study accuracy"]].round(3)
    accuracy          0.808
    study accuracy    0.808
    Name: NB, dtype: float64
    """
    if not isinstance(summary, pd.DataFrame) or "stat" not in (summary.columns.names or ()):
        columns = list(getattr(summary, "columns", []))[:5]
        raise ValueError(
            "summary must be the summary of bnclassify.metrics.evaluate (columns (metric, "
            f"stat)), got {type(summary).__name__} with columns {columns}."
        )
    mean = summary.xs("mean", axis=1, level="stat")
    sd = summary.xs("std", axis=1, level="stat")
    table = pd.DataFrame(index=summary.index)
    table["accuracy"] = mean["accuracy"]
    table["accuracy sd"] = sd["accuracy"]
    if dataset in STUDY_DATASETS:
        table["study accuracy"] = _study_column(table.index, dataset, "accuracy")
    table["precision"] = mean["precision_macro"]
    table["recall"] = mean["recall_macro"]
    table["F1"] = mean["f1_macro"]
    table["CLL"] = mean["cll"]
    table["CLL sd"] = sd["cll"]
    if dataset in STUDY_DATASETS:
        table["study CLL"] = _study_column(table.index, dataset, "cll")
    table["fit ms"] = 1000 * mean["fit_s"]
    table["predict ms"] = 1000 * mean["predict_s"]
    table.index.name = "model"
    return table


def _study_column(models, dataset, metric):
    reported = STUDY_RESULTS[STUDY_RESULTS.dataset == dataset].set_index("model")[metric]
    return [reported.get(STUDY_COLUMN.get(m), np.nan) for m in models]


def format_table(table: pd.DataFrame, fmt="text") -> str:
    """The comparison table as aligned text or a Markdown table (3 decimals; CLL 2; ms 1)."""

    def cell(column, value):
        if pd.isna(value):
            return ""
        if column.startswith("CLL") or column.startswith("study CLL"):
            return f"{value:.2f}"
        if column.endswith("ms"):
            return f"{value:.1f}"
        if column.startswith("p (") and value < 0.001:
            return "<0.001"
        return f"{value:.3f}"

    rows = [[str(i)] + [cell(c, v) for c, v in row.items()] for i, row in table.iterrows()]
    header = [table.index.name or ""] + list(table.columns)
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |"]
        lines.append("|---|" + "---:|" * len(table.columns))
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header))]
    out = []
    for r in [header, *rows]:
        first = r[0].ljust(widths[0])
        out.append(
            "  ".join([first] + [v.rjust(w) for v, w in zip(r[1:], widths[1:], strict=True)])
        )
    return "\n".join(out)


def results_markdown(evaluations: dict, *, protocol: str) -> str:
    """Markdown tables (ours beside the study's) for each evaluated data set."""
    parts = []
    for dataset, evaluation in evaluations.items():
        table = comparison_table(evaluation.summary, dataset)
        parts.append(f"**{dataset}** ({protocol})\n\n{format_table(table, 'markdown')}")
    return "\n\n".join(parts)


def cv_folds_by_dataset(progress=None) -> pd.DataFrame:
    """Per-fold results of P450 and lactamase in one table with a ``dataset`` column."""
    frames = []
    for dataset in STUDY_DATASETS:
        folds = study_evaluation(dataset, progress=progress).folds
        frames.append(folds.assign(dataset=dataset))
    return pd.concat(frames, ignore_index=True)


def study_runs(progress=None) -> dict:
    """The runs the results page reports: label -> (dataset, Evaluation).

    P450, lactamase (all 553 rows) and lactamase as the study loaded it (552 rows).
    """
    return {
        "P450": ("p450", study_evaluation("p450", progress=progress)),
        "lactamase (553 rows)": ("lactamase", study_evaluation("lactamase", progress=progress)),
        "lactamase as the study loaded it (552 rows)": (
            "lactamase",
            study_evaluation("lactamase", as_study_loaded=True, progress=progress),
        ),
    }
