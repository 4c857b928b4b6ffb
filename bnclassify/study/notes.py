"""The study's conclusion in words: what the accidental tree, the ensembles and averaging change.

Each note is Markdown written from the evaluations (label -> ``(dataset,
Evaluation)``, as :func:`~bnclassify.study.evaluation.study_runs` returns),
with the corrected resampled t test's p-values, so the text and the numbers
cannot drift apart.
"""

from __future__ import annotations

from .evaluation import baseline_differences
from .models import STUDY_RESULTS

__all__ = ["bma_note", "tan_flaw_note"]


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
