"""The models ``compare`` runs on request: R bnclassify's learners beyond nb / tan_cl / kdb /
aode (``--r-family``) and any other model named in ``--models``.

A model joins the command line by one line in :data:`OPTIONAL_MODELS`: its short name (what
``--models`` and ``--baseline`` accept, listed in ``compare --help``), its display name (the
table's row) and how to make it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..classifiers import (
    AODE,
    BSEJ,
    ESKDB,
    FSSJ,
    HNB,
    KDBHC,
    SKDB,
    TAN,
    TANHC,
    TANHCSP,
    WAODE,
    AnDE,
    BayesNetClassifier,
    NaiveBayes,
)


@dataclass(frozen=True)
class OptionalModel:
    """A model of ``compare`` beyond its default comparison.

    Parameters
    ----------
    display : str
        Its row's name in the table (R's name for R's learners).
    make : callable
        ``make(alpha, random_state)``: a new unfitted estimator with the run's smoothing
        and seed.
    r_family : bool, default=False
        Whether ``--r-family`` adds it (besides ``--models`` naming it).
    """

    display: str
    make: Callable[[float, int], object]
    r_family: bool = False


#: The models ``compare`` runs on request, by short name; one line adds one.
OPTIONAL_MODELS = {
    "tanhc": OptionalModel("tan_hc", lambda a, s: TANHC(alpha=a, random_state=s), True),
    "tanhcsp": OptionalModel("tan_hcsp", lambda a, s: TANHCSP(alpha=a, random_state=s), True),
    "fssj": OptionalModel("fssj", lambda a, s: FSSJ(alpha=a, random_state=s), True),
    "bsej": OptionalModel("bsej", lambda a, s: BSEJ(alpha=a, random_state=s), True),
    "kdbhc": OptionalModel("kdb (hc)", lambda a, s: KDBHC(k=2, alpha=a, random_state=s), True),
    "awnb": OptionalModel("nb awnb", lambda a, s: NaiveBayes(alpha=a, weighting="awnb"), True),
    "manb": OptionalModel("nb manb", lambda a, s: NaiveBayes(alpha=a, weighting="manb"), True),
    "wanbia": OptionalModel(
        "nb wanbia", lambda a, s: NaiveBayes(alpha=a, weighting="wanbia"), True
    ),
    "nb-cll": OptionalModel(
        "NB (conditional)", lambda a, s: NaiveBayes(alpha=a, objective="conditional"), True
    ),
    "tan-cll": OptionalModel(
        "TAN (conditional)", lambda a, s: TAN(alpha=a, objective="conditional"), True
    ),
    "bnc": OptionalModel("BayesNet", lambda a, s: BayesNetClassifier(alpha=a)),
    # for 10^5 rows and more (docs/benchmarks.md, "The iterated search from hill climbing's
    # graph"): on the UCI sets its higher-scoring graphs predict worse than the default's
    "bnc-ils": OptionalModel(
        "BayesNet (climb, then iterated)",
        lambda a, s: BayesNetClassifier(
            alpha=a, search="iterated", start="hill_climbing", restarts=40, random_state=s
        ),
    ),
    # the paper's m-estimate (m = 1 spread over a table's values), not a per-cell alpha
    "hnb": OptionalModel("HNB", lambda a, s: HNB()),
    "ande1": OptionalModel("AnDE (n=1)", lambda a, s: AnDE(n=1, alpha=a)),
    "a2de": OptionalModel("A2DE", lambda a, s: AnDE(n=2, alpha=a)),
    "skdb": OptionalModel("SKDB", lambda a, s: SKDB(alpha=a, random_state=s)),
    "aodesr": OptionalModel("AODE (subsumption)", lambda a, s: AODE(alpha=a, subsumption=True)),
    "waode": OptionalModel("WAODE", lambda a, s: WAODE(alpha=a)),
    # the recommended model (10 members ranked by leave-one-out information), the paper's 20
    "eskdb": OptionalModel(
        "ESKDB", lambda a, s: ESKDB(n_estimators=10, alpha=a, random_state=s, ranking="loo")
    ),
    "eskdb20": OptionalModel(
        "ESKDB (20 members)", lambda a, s: ESKDB(n_estimators=20, alpha=a, random_state=s)
    ),
}


def r_family_models(alpha=1.0, random_state=0) -> dict:
    """The wrappers, the naive Bayes weightings and the conditional-likelihood parameters.

    Named as R bnclassify names them (``tan_hc``, ``fssj``, ...; ``kdb (hc)`` is
    R's greedy ``kdb``, not :class:`~bnclassify.KDB`'s fixed ranking); the
    wrappers' inner folds are seeded with ``random_state``.

    Examples
    --------
    >>> list(r_family_models())[:5]
    ['tan_hc', 'tan_hcsp', 'fssj', 'bsej', 'kdb (hc)']
    """
    return {
        model.display: model.make(alpha, random_state)
        for model in OPTIONAL_MODELS.values()
        if model.r_family
    }
