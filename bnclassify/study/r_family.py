"""R bnclassify's learners beyond nb / tan_cl / kdb / aode, named as in R, for ``compare``."""

from __future__ import annotations


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
    from ..classifiers import BSEJ, FSSJ, KDBHC, TAN, TANHC, TANHCSP, NaiveBayes

    wrappers = {"tan_hc": TANHC, "tan_hcsp": TANHCSP, "fssj": FSSJ, "bsej": BSEJ}
    models = {name: cls(alpha=alpha, random_state=random_state) for name, cls in wrappers.items()}
    models["kdb (hc)"] = KDBHC(k=2, alpha=alpha, random_state=random_state)
    for weighting in ("awnb", "manb", "wanbia"):
        models[f"nb {weighting}"] = NaiveBayes(alpha=alpha, weighting=weighting)
    models["NB (conditional)"] = NaiveBayes(alpha=alpha, objective="conditional")
    models["TAN (conditional)"] = TAN(alpha=alpha, objective="conditional")
    return models
