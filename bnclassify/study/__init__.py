"""The study's experiments: its models, its protocol, its reported numbers, and ours beside them.

The "Simpler TAN and Ensemble TAN" study cross-validated naive Bayes, TAN,
Simpler TAN and three bagged ensembles on the P450 and beta-lactamase chimera
libraries with ``KFold(10, shuffle=True, random_state=42)``, Laplace
smoothing, trees rooted at the first feature, and CLL reported as the per-fold
sum of log2 P(true class | x), averaged over folds. :data:`STUDY_RESULTS`
holds what it reports; :func:`study_evaluation` reruns it here.

Its TAN attached features in column order because its Prim step ranked
candidate edges by ``int(weight)`` (every CMI is below 1 nat, so every rank
was 0). :class:`StudyTAN` rebuilds that accidental tree on purpose, so the
study's TAN figures can be reproduced and shown, clearly labelled, beside a
correct TAN's.
"""

from __future__ import annotations

import re
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd

from .. import datasets
from ..classifiers import TAN, NaiveBayes, SimplerTAN
from ..data import resolve_column
from ..metrics import Evaluation, corrected_resampled_ttest, evaluate, study_cv, summarize

__all__ = [
    "STUDY_RESULTS",
    "StudyTAN",
    "baseline_differences",
    "comparison_table",
    "repeated_evaluation",
    "results_markdown",
    "study_evaluation",
    "study_models",
    "update_marked_block",
]

#: Accuracy and CLL (log2, sum per fold, mean over 10 folds) as the study reports them.
STUDY_RESULTS = pd.DataFrame(
    [
        ("p450", "NB", 0.808, -60.69),
        ("p450", "TAN", 0.843, -53.21),
        ("p450", "Simpler TAN", 0.843, -52.13),
        ("p450", "STAN bagging", 0.842, -52.14),
        ("p450", "TAN bagging", 0.849, -52.31),
        ("p450", "STAN+TAN bagging", 0.850, -51.71),
        ("lactamase", "NB", 0.840, -29.18),
        ("lactamase", "TAN", 0.887, -22.44),
        ("lactamase", "Simpler TAN", 0.891, -20.61),
        ("lactamase", "STAN bagging", 0.893, -20.57),
        ("lactamase", "TAN bagging", 0.895, -21.47),
        ("lactamase", "STAN+TAN bagging", 0.902, -21.12),
    ],
    columns=["dataset", "model", "accuracy", "cll"],
)

#: Name of our row -> the study column it reproduces. The study's "TAN"
#: figures are those of its accidental tree, i.e. of :class:`StudyTAN`.
STUDY_COLUMN = {
    "NB": "NB",
    "TAN (study's tree)": "TAN",
    "Simpler TAN": "Simpler TAN",
    "STAN bagging": "STAN bagging",
    "TAN bagging (study's trees)": "TAN bagging",
    "STAN+TAN bagging (study's trees)": "STAN+TAN bagging",
}

STUDY_DATASETS = ("p450", "lactamase")


class StudyTAN(TAN):
    """TAN with the study's tree: its Prim step ranking edges by ``int(weight)``.

    For reproduction only. Weights are the conditional mutual information,
    as in :class:`~bnclassify.TAN`, but the tree is grown the way the study's
    code did it: from the root, at each step every tree node proposes the
    outside feature with the largest *truncated* weight (ties: lowest
    column), and the proposal with the largest true weight is attached. With
    every weight below 1 the proposals are all "the next column", so features
    join in column order, each under the tree node it shares most
    information with. Use :class:`~bnclassify.TAN` for the maximum spanning
    tree.

    Parameters
    ----------
    alpha : float, default=1.0
    root : str or int, optional
        The study's ``starting_node`` (default: the first feature).
    handle_unknown : {"warn", "error", "marginalize"}, default="warn"

    Examples
    --------
    >>> from bnclassify.datasets import load_p450
    >>> from bnclassify.study import StudyTAN
    >>> X, y = load_p450(return_X_y=True)
    >>> tree = StudyTAN().fit(X, y).structure_
    >>> sorted(tree.successors("block1"))  # the near-star SOURCES.md describes
    ['block2', 'block3', 'block4', 'block5', 'block6', 'block7']
    """

    def __init__(self, alpha=1.0, root=None, handle_unknown="warn"):
        # the study ranked edges by int(CMI): the plain-information weights, not AIC gains
        super().__init__(alpha=alpha, root=root, criterion="loglik", handle_unknown=handle_unknown)

    def _feature_dag(self, weights, features, counts):
        values = np.asarray(weights, dtype=float).copy()
        np.fill_diagonal(values, 0.0)
        truncated = np.trunc(values)
        root = 0 if self.root is None else resolve_column(self.root, features, what="root")
        in_tree = np.zeros(len(features), dtype=bool)
        in_tree[root] = True
        order = [root]
        dag = nx.DiGraph()
        dag.add_nodes_from(features)
        while len(order) < len(features):
            # each tree node's best outside feature by int(weight), lowest column on ties
            proposals = [int(np.argmax(np.where(in_tree, -np.inf, truncated[:, v]))) for v in order]
            gains = [values[k, v] for k, v in zip(proposals, order, strict=True)]
            best = int(np.argmax(gains))  # first tree node on ties, as the study's stable sort
            child = proposals[best]
            dag.add_edge(features[order[best]], features[child])
            order.append(child)
            in_tree[child] = True
        return dag


def study_models(contact_matrix=None, *, alpha=1.0, study_tan=True, extra=True) -> dict:
    """The models of the comparison, by display name, in table order.

    Parameters
    ----------
    contact_matrix : DataFrame, optional
        Enables Simpler TAN and the ensembles built on it; labelled by feature
        (its columns name the features the study-tree ensembles are rooted at).
    alpha : float, default=1.0
        Dirichlet smoothing of every model (the study: 1).
    study_tan : bool, default=True
        Add the rows built on the study's accidental tree, each labelled
        "(study's tree)" / "(study's trees)": :class:`StudyTAN`, and its
        TAN bagging and STAN+TAN bagging (8 StudyTANs rooted at each feature,
        which the study's int(weight) step makes 8 *different* trees).
    extra : bool, default=True
        Add the ensembles (Ensemble TAN) and the structures beyond the study
        (k-dependence Bayes, AODE, TAN with a BIC-penalised forest, and the
        Bayesian average over all TAN trees, :class:`~bnclassify.BMATAN`,
        at the BDeu equivalent sample size the training evidence prefers (its
        default), with a uniform tree prior and, given contacts, with the
        contact prior whose strength maximises the training evidence, and
        that one again at BDeu's customary ``s = 1`` for comparison).
        BMATAN's smoothing is not ``alpha``: the two are on different scales.

    Examples
    --------
    >>> from bnclassify.datasets import load_p450
    >>> list(study_models(load_p450().contact_matrix, extra=False))
    ['NB', 'TAN', "TAN (study's tree)", 'Simpler TAN']
    """
    from ..classifiers import AODE, BMATAN, KDB, EnsembleTAN

    models = {"NB": NaiveBayes(alpha=alpha), "TAN": TAN(alpha=alpha)}
    if study_tan:
        models["TAN (study's tree)"] = StudyTAN(alpha=alpha)
    if contact_matrix is not None:
        models["Simpler TAN"] = SimplerTAN(contact_matrix, alpha=alpha)
    if not extra:
        return models
    if contact_matrix is not None:
        models["STAN bagging"] = EnsembleTAN(contact_matrix, members="stan", alpha=alpha)
    models["TAN bagging"] = EnsembleTAN(members="tan", alpha=alpha)
    if study_tan:
        models["TAN bagging (study's trees)"] = EnsembleTAN(members=StudyTAN(alpha=alpha))
    if contact_matrix is not None:
        models["STAN+TAN bagging"] = EnsembleTAN(contact_matrix, members="stan+tan", alpha=alpha)
        if study_tan:
            features = [str(f) for f in getattr(contact_matrix, "columns", [])]
            if features:
                members = [StudyTAN(alpha=alpha, root=f) for f in features]
                members.append(SimplerTAN(contact_matrix, alpha=alpha))
                models["STAN+TAN bagging (study's trees)"] = EnsembleTAN(members=members)
    models["KDB (k=2)"] = KDB(k=2, alpha=alpha)
    models["AODE"] = AODE(alpha=alpha)
    models["TAN (BIC forest)"] = TAN(alpha=alpha, criterion="bic")
    models["BMA TAN"] = BMATAN()
    if contact_matrix is not None:
        models["BMA TAN (contact prior)"] = BMATAN(
            contact_matrix=contact_matrix, contact_prior="auto"
        )
        models["BMA TAN (s = 1, contact prior)"] = BMATAN(
            equivalent_sample_size=1.0, contact_matrix=contact_matrix, contact_prior="auto"
        )
    return models


def load_study_dataset(name):
    loaders = {
        "p450": datasets.load_p450,
        "lactamase": datasets.load_lactamase,
        "car": datasets.load_car,
        "nursery": datasets.load_nursery,
        "vote": datasets.load_vote,
    }
    if name not in loaders:
        raise ValueError(f"unknown data set {name!r}; choose from {sorted(loaders)}.")
    return loaders[name]()


def load_study_data(dataset, *, as_study_loaded=False):
    """A bundled data set; ``as_study_loaded=True`` drops lactamase's first row, as the study did.

    The study's lactamase loader skipped the file's first line, so it used
    552 of the 553 chimeras (and different folds); with that row dropped its
    figures are reproduced exactly.

    Examples
    --------
    >>> load_study_data("lactamase", as_study_loaded=True).data.shape
    (552, 8)
    """
    bunch = load_study_dataset(dataset)
    if as_study_loaded and dataset == "lactamase":
        for key in ("data", "target", "frame"):
            bunch[key] = bunch[key].iloc[1:].reset_index(drop=True)
    return bunch


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
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}.")
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


START = "<!-- bnclassify:{name}:start -->"
END = "<!-- bnclassify:{name}:end -->"


def update_marked_block(path, name, content) -> bool:
    """Replace the text between ``<!-- bnclassify:NAME:start -->`` and ``...:end -->``.

    Returns whether the file changed. Raises ``ValueError`` if the markers
    are missing, so a README without them is never silently rewritten.
    """
    path = Path(path)
    text = path.read_text()
    start, end = START.format(name=name), END.format(name=name)
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), flags=re.DOTALL)
    if not pattern.search(text):
        raise ValueError(f"{path}: no block {start} ... {end} to rewrite.")
    new = pattern.sub(lambda _: f"{start}\n{content.strip()}\n{end}", text, count=1)
    if new != text:
        path.write_text(new)
    return new != text


# -- the study's conclusion, with and without the accidental tree -----------------------------
def _means(evaluation):
    summary = evaluation.summary
    return summary.xs("mean", axis=1, level="stat"), summary.xs("std", axis=1, level="stat")


def tan_flaw_note(evaluations: dict) -> str:
    """What the accidental tree changes, in words and numbers, from the evaluations.

    ``evaluations`` maps a label (e.g. ``"P450"``) to ``(dataset, Evaluation)``
    with the rows NB, TAN, TAN (study's tree) and Simpler TAN.
    """
    lines, verdicts, was_accuracy = [], [], {}
    for label, (dataset, evaluation) in evaluations.items():
        mean, _ = _means(evaluation)
        reported = STUDY_RESULTS[STUDY_RESULTS.dataset == dataset].set_index("model")
        stan, tan, study_tan = (mean.loc[m] for m in ("Simpler TAN", "TAN", "TAN (study's tree)"))
        test = baseline_differences(evaluation.folds, "TAN", ("accuracy", "cll")).loc["Simpler TAN"]
        gap_acc, gap_cll = stan.accuracy - tan.accuracy, stan.cll - tan.cll
        p_acc, p_cll = test[("accuracy", "p")], test[("cll", "p")]
        was_acc = reported.loc["Simpler TAN", "accuracy"] - reported.loc["TAN", "accuracy"]
        was_cll = reported.loc["Simpler TAN", "cll"] - reported.loc["TAN", "cll"]
        lines.append(
            f"- **{label}**: the study's TAN is reproduced by `TAN (study's tree)` "
            f"({study_tan.accuracy:.3f} / {study_tan.cll:.2f}; reported "
            f"{reported.loc['TAN', 'accuracy']:.3f} / {reported.loc['TAN', 'cll']:.2f}). "
            f"The correct TAN scores {tan.accuracy:.3f} / {tan.cll:.2f}. Simpler TAN minus TAN: "
            f"accuracy {gap_acc:+.3f} (study: {was_acc:+.3f}; corrected paired t test "
            f"p = {p_acc:.2f}), CLL {gap_cll:+.2f} bits per fold (study: {was_cll:+.2f}; "
            f"p = {p_cll:.2f})."
        )
        verdicts.append((label, gap_acc, gap_cll, was_cll, p_acc, p_cll))
        was_accuracy[label] = was_acc
    significant = [label for label, _, _, _, p_a, p_c in verdicts if min(p_a, p_c) < 0.05]
    if not significant:
        text = (
            "With a correct TAN, no difference between Simpler TAN and TAN is significant "
            "(corrected resampled t test over the 10 folds, every p >= 0.05), so the study's "
            "claim that Simpler TAN predicts *as well as* TAN stands (and it does so without "
            "the CMI step; see the cost study)."
        )
    else:
        text = (
            f"With a correct TAN, Simpler TAN and TAN differ significantly (p < 0.05) on "
            f"{', '.join(significant)}; read the rows above before repeating the study's claim."
        )
    shrunk = [label for label, _, c, was, _, _ in verdicts if was > 0 and c < 0.5 * was]
    grown = [label for label, _, c, was, _, _ in verdicts if was > 0 and c > was]
    if shrunk:
        text += (
            f" Simpler TAN's CLL advantage on {', '.join(shrunk)} mostly came from the "
            "accidental tree: against a correct TAN it shrinks to the figures above."
        )
    if grown:
        text += (
            f" On {', '.join(grown)} the correct tree fits the CLL worse than the accidental one, "
            "so Simpler TAN's CLL advantage there is larger than the study reports."
        )
    flipped = [label for label, a, *_ in verdicts if a < 0 and was_accuracy[label] > 0]
    if flipped:
        text += (
            f" In accuracy the correct TAN is marginally ahead on {', '.join(flipped)}, where "
            "the study has Simpler TAN ahead; the difference is a few rows and not "
            "significant, so neither ranking is established."
        )
    return "\n".join(lines) + "\n\n" + text + _ensemble_note(evaluations) + bma_note(evaluations)


def bma_note(evaluations: dict) -> str:
    """Bayesian averaging over every tree against the best single trees, with p-values.

    Differences are BMA minus TAN (and minus Simpler TAN) per fold of the
    study's protocol, tested with the corrected resampled t test
    (:func:`baseline_differences`); ``""`` when no BMA row was evaluated.
    """
    lines = []
    for label, (_, evaluation) in evaluations.items():
        mean, _ = _means(evaluation)
        bma = [m for m in mean.index if m.startswith("BMA TAN")]
        if not bma:
            return ""
        cells = []
        for reference in ("TAN", "Simpler TAN"):
            diffs = baseline_differences(evaluation.folds, reference, ("accuracy", "cll"))
            for model in bma:
                row = diffs.loc[model]
                cells.append(
                    f"{model} minus {reference}: accuracy {row[('accuracy', 'diff')]:+.3f} "
                    f"(p = {row[('accuracy', 'p')]:.2f}), CLL {row[('cll', 'diff')]:+.2f} bits "
                    f"per fold (p = {row[('cll', 'p')]:.2f})"
                )
        best = max(bma, key=lambda m: mean.loc[m, "cll"])
        lines.append(
            f"- **{label}**: best BMA row `{best}` {mean.loc[best, 'accuracy']:.3f} / "
            f"{mean.loc[best, 'cll']:.2f}. " + "; ".join(cells) + "."
        )
    return (
        "\n\n**Bayesian model averaging over every tree.** `BMATAN` sums over all "
        "m^(m-2) spanning trees exactly (matrix-tree theorem); p-values are the corrected "
        "resampled t test (Nadeau and Bengio) over the 10 folds, so a p above 0.05 says the "
        "difference is not established by these data. `bnclassify compare --repeats 10` pools "
        "10 x 10 folds for a sharper test.\n\n" + "\n".join(lines)
    )


def _ensemble_note(evaluations: dict) -> str:
    """The bagged ensembles with the study's trees and with correct ones."""
    pairs = (
        ("TAN bagging", "TAN bagging (study's trees)"),
        ("STAN+TAN bagging", "STAN+TAN bagging (study's trees)"),
    )
    lines, same_as_tan = [], []
    for label, (_, evaluation) in evaluations.items():
        mean, _ = _means(evaluation)
        if not all(m in mean.index for pair in pairs for m in pair):
            return ""
        cells = []
        for correct, study in pairs:
            cells.append(
                f"{correct} {mean.loc[study, 'accuracy']:.3f} / {mean.loc[study, 'cll']:.2f} "
                f"with the study's trees, {mean.loc[correct, 'accuracy']:.3f} / "
                f"{mean.loc[correct, 'cll']:.2f} with correct ones"
            )
        tan, bagged = mean.loc["TAN"], mean.loc["TAN bagging"]
        if abs(bagged.accuracy - tan.accuracy) < 0.005 and abs(bagged.cll - tan.cll) < 0.5:
            same_as_tan.append(label)
        lines.append(f"- **{label}**: " + "; ".join(cells) + ".")
    text = (
        "\n\n**The ensembles.** The study's TAN bagging averages TANs rooted at each feature. "
        "With its int(weight) step each root grows a *different* tree; with a correct TAN "
        "every root gives the same maximum spanning tree, only oriented differently, so the "
        "members differ only in their smoothing.\n\n" + "\n".join(lines)
    )
    if same_as_tan:
        text += (
            f"\n\nOn {' and '.join(same_as_tan)} the correct TAN bagging is practically TAN "
            "itself: the accuracy and CLL gains the study credits to Ensemble TAN came from "
            "averaging several accidental trees, not from bagging a correct TAN."
        )
    return text


# -- the results page, the README blocks and the figures ----------------------------------------
PROTOCOL = (
    "10-fold CV, `KFold(n_splits=10, shuffle=True, random_state=42)`, alpha = 1, trees rooted "
    "at the first feature; mean over the 10 folds. CLL = sum over a fold's rows of "
    "log2 P(true class | x). Precision, recall and F1 are macro averages."
)


def environment() -> dict:
    """Versions and machine, for the record."""
    import os
    import platform

    import networkx
    import numpy
    import pgmpy
    import scipy
    import sklearn

    from .. import __version__

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "bnclassify": __version__,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "pandas": pd.__version__,
        "scikit-learn": sklearn.__version__,
        "networkx": networkx.__version__,
        "pgmpy": pgmpy.__version__,
        "machine": f"{cpu}, {os.cpu_count()} logical CPUs, {platform.system()}",
    }


def _evaluations(progress=None) -> dict:
    """The runs the README reports: label -> (dataset, Evaluation)."""
    return {
        "P450": ("p450", study_evaluation("p450", progress=progress)),
        "lactamase (553 rows)": ("lactamase", study_evaluation("lactamase", progress=progress)),
        "lactamase as the study loaded it (552 rows)": (
            "lactamase",
            study_evaluation("lactamase", as_study_loaded=True, progress=progress),
        ),
    }


def readme_results_block(evaluations: dict) -> str:
    """Short tables (accuracy and CLL, ours beside the study's) and the note on TAN."""
    parts = []
    for label, (dataset, evaluation) in evaluations.items():
        table = comparison_table(evaluation.summary, dataset)
        keep = ["accuracy", "study accuracy", "CLL", "study CLL", "F1", "fit ms"]
        parts.append(f"**{label}**\n\n{format_table(table[keep], 'markdown')}")
    flaw = {k: v for k, v in evaluations.items() if not k.startswith("lactamase (553")}
    parts.append("**What the study's TAN tree changes**\n\n" + tan_flaw_note(flaw))
    return "\n\n".join(parts)


def readme_cost_block(cost: pd.DataFrame) -> str:
    """The cost study's headline numbers and the figure."""
    from .cost import cost_table

    table = cost_table(cost)
    wide = table[table.sweep == "features"].sort_values("features").iloc[-1]
    tall = table[table.sweep == "rows"].sort_values("rows").iloc[-1]
    cmi_share = wide["TAN CMI s"] / wide["TAN fit s"]
    return (
        "![Fit time of TAN by stage and of Simpler TAN](figures/cost_study.png)\n\n"
        f"At {int(wide.features):,} features x {int(wide.rows):,} rows TAN fits in "
        f"{wide['TAN fit s']:.2f} s, {cmi_share:.0%} of it in the pairwise counts and CMI; "
        f"Simpler TAN fits in {wide['Simpler TAN fit s']:.3f} s "
        f"({wide['TAN / Simpler TAN']:.0f}x less). At {int(tall.rows):,} rows x "
        f"{int(tall.features)} features: TAN {tall['TAN fit s']:.2f} s, Simpler TAN "
        f"{tall['Simpler TAN fit s']:.2f} s ({tall['TAN / Simpler TAN']:.1f}x). "
        "Full table: [docs/results.md](docs/results.md#cost-study)."
    )


def results_page(evaluations: dict, cost: pd.DataFrame | None) -> str:
    """The whole of ``docs/results.md``."""
    env = environment()
    out = [
        "# Results",
        "",
        "Generated by `bnclassify reproduce`; do not edit by hand. Timings are wall-clock "
        "milliseconds in the comparison tables (`fit ms`, `predict ms`: one call, mean over "
        "folds) and seconds in the cost study (columns ending in ` s`), on a shared machine (see "
        "[benchmarks.md](benchmarks.md) for the contention); compare them within a table, "
        "not across machines.",
        "",
        "Environment: " + "; ".join(f"{k} {v}" for k, v in env.items()) + ".",
        "",
        "## The study's comparison",
        "",
        PROTOCOL,
        "`TAN` is the maximum spanning tree of the conditional mutual information; "
        "`TAN (study's tree)` rebuilds the study's accidental tree (its Prim step ranked edges "
        "by `int(weight)`, so features joined in column order); the study's TAN figures are "
        "that row's. `sd` is the standard deviation over folds.",
        "",
    ]
    for label, (dataset, evaluation) in evaluations.items():
        table = comparison_table(evaluation.summary, dataset)
        out += [f"### {label}", "", format_table(table, "markdown"), ""]
    flaw = {k: v for k, v in evaluations.items() if not k.startswith("lactamase (553")}
    out += ["## What the study's TAN tree changes", "", tan_flaw_note(flaw), ""]
    p450 = load_study_data("p450")
    edges = {
        name: sorted(
            (u, v)
            for u, v in model.fit(p450.data, p450.target).structure_.edges
            if u != model.class_node_
        )
        for name, model in (("TAN", TAN()), ("TAN (study's tree)", StudyTAN()))
    }
    for name, tree in edges.items():
        out.append(f"- P450 {name}: " + ", ".join(f"{u}->{v}" for u, v in tree))
    out.append("")
    if cost is not None:
        out += [results_cost_section(cost), ""]
    return "\n".join(out)


def results_cost_section(cost: pd.DataFrame) -> str:
    """The cost study's section of ``docs/results.md`` (heading, method, figure, table)."""
    from .cost import cost_table

    return "\n".join(
        [
            "## Cost study",
            "",
            "Fit time (wall clock, best of the repeats) on `make_tree_classification` data "
            "(4 states per feature, binary class). TAN's stages come from `fit_times_`: "
            "`CMI` = pairwise class-conditional counts + conditional mutual information, "
            "`tree` = maximum spanning tree + orientation, `CPTs` = family counts + smoothing; "
            "`encode` = the rest of `fit` (validation, category codes). Simpler TAN gets the "
            "generating tree as its contact matrix. The figure's lower panels are the ratio "
            "of the two fits. Regenerate alone with `bnclassify cost --out figures`.",
            "",
            "![cost study](../figures/cost_study.png)",
            "",
            _cost_markdown(cost_table(cost)),
        ]
    )


def _cost_markdown(table) -> str:
    columns = [c for c in table.columns if c not in ("sweep",)]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---:|" * len(columns)]
    for _, row in table.iterrows():
        cells = []
        for c in columns:
            v = row[c]
            if c in ("rows", "features"):
                cells.append(f"{int(v):,}")
            elif c == "TAN / Simpler TAN":
                cells.append(f"{v:.1f}x")
            else:
                cells.append(f"{v:.4f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def cv_folds_by_dataset(progress=None) -> pd.DataFrame:
    """Per-fold results of P450 and lactamase in one table with a ``dataset`` column."""
    frames = []
    for dataset in STUDY_DATASETS:
        folds = study_evaluation(dataset, progress=progress).folds
        frames.append(folds.assign(dataset=dataset))
    return pd.concat(frames, ignore_index=True)


def save_cv_figure(out_dir, progress=None) -> list:
    """``cv_results.png``: each model's accuracy, F1 and CLL minus naive Bayes', P450 and lactamase.

    Differences to NB with corrected resampled t 95% intervals, coloured by
    model family, on axes fitted to the differences (the means differ by
    hundredths: bars from 0 hid them); 9 inches wide, so its text stays
    readable at the README's width.
    """
    import matplotlib.pyplot as plt

    from ..plotting import plot_cv_results

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    fig = plot_cv_results(
        cv_folds_by_dataset(progress),
        ("accuracy", "f1_macro", "cll"),
        baseline="NB",
        title="10-fold CV, the study's protocol",
    )
    path = out / "cv_results.png"
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return [path]


def reproduce(
    *,
    figures_dir="figures",
    results_path="docs/results.md",
    readme_path="README.md",
    quick=False,
    figures=True,
    progress=None,
) -> list:
    """Rerun everything the README reports; returns the paths written.

    The P450 and lactamase comparisons, the cost study, ``docs/results.md``,
    the README's blocks between ``<!-- bnclassify:results:start -->`` /
    ``...:end -->`` and ``<!-- bnclassify:cost:start -->`` / ``...:end -->``,
    and the figures (every figure registered in :mod:`bnclassify.study.figures`
    when it exists, else this module's and the cost study's).
    """
    import matplotlib

    matplotlib.use("Agg")
    from .cost import default_cost_study, save_cost_study

    written = []
    evaluations = _evaluations(progress)
    cost = default_cost_study(quick=quick)
    results_path = Path(results_path)
    results_path.parent.mkdir(parents=True, exist_ok=True)
    results_path.write_text(results_page(evaluations, cost))
    written.append(results_path)
    if readme_path is not None:
        update_marked_block(readme_path, "results", readme_results_block(evaluations))
        update_marked_block(readme_path, "cost", readme_cost_block(cost))
        written.append(Path(readme_path))
    if figures:
        try:
            from .figures import make_figures
        except ImportError:
            written += save_cv_figure(figures_dir) + save_cost_study(
                figures_dir, cost, tables=False
            )
        else:
            written += list(make_figures(figures_dir))
    return written


def _register_figures():
    try:
        from .figures import figure
    except ImportError:  # the figure registry is optional
        return
    figure("cv_results")(save_cv_figure)


_register_figures()
