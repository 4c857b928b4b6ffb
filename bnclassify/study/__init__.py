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

Modules: :mod:`~bnclassify.study.models` (the study's models and data),
:mod:`~bnclassify.study.evaluation` (its protocol rerun and the comparison
tables), :mod:`~bnclassify.study.notes` (its conclusion in words),
:mod:`~bnclassify.study.report` (the results page and ``bnclassify
reproduce``), :mod:`~bnclassify.study.figures` (the figure registry),
:mod:`~bnclassify.study.cost` (the cost study) and
:mod:`~bnclassify.study.cli` (the ``bnclassify`` command).
"""

# The names imported "as" themselves are importable as before but not in __all__.
from . import models
from .evaluation import (
    baseline_differences,
    comparison_table,
    repeated_evaluation,
    results_markdown,
    study_evaluation,
)
from .evaluation import format_table as format_table
from .models import STUDY_DATASETS as STUDY_DATASETS
from .models import StudyTAN, study_models
from .models import load_study_data as load_study_data
from .models import load_study_dataset as load_study_dataset
from .report import environment as environment
from .report import reproduce as reproduce

# Bound here, not only imported, so that the API reference reads its doc comment.
#: Accuracy and CLL (log2, sum per fold, mean over 10 folds) as the study reports them.
STUDY_RESULTS = models.STUDY_RESULTS

__all__ = [
    "STUDY_RESULTS",
    "StudyTAN",
    "baseline_differences",
    "comparison_table",
    "repeated_evaluation",
    "results_markdown",
    "study_evaluation",
    "study_models",
]
