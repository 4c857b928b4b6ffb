"""The ``bnclassify`` command."""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd
from sklearn.model_selection import KFold, cross_validate

from . import TAN, NaiveBayes, SimplerTAN, datasets

BUNDLED = {
    "p450": datasets.load_p450,
    "lactamase": datasets.load_lactamase,
    "car": datasets.load_car,
    "nursery": datasets.load_nursery,
    "vote": datasets.load_vote,
}


def _cll_log2_sum(estimator, X, y):
    """Sum over rows of log2 P(true class | x) (the study's per-fold CLL)."""
    proba = estimator.predict_proba(X)
    index = np.searchsorted(estimator.classes_, np.asarray(y))
    return float(np.log2(proba[np.arange(len(index)), index]).sum())


def compare(args) -> int:
    bunch = BUNDLED[args.dataset]()
    models = {"NB": NaiveBayes(), "TAN": TAN()}
    if "contact_matrix" in bunch:
        models["Simpler TAN"] = SimplerTAN(bunch.contact_matrix)
    cv = KFold(n_splits=10, shuffle=True, random_state=42)
    rows = []
    for name, model in models.items():
        scores = cross_validate(
            model,
            bunch.data,
            bunch.target,
            cv=cv,
            scoring={"accuracy": "accuracy", "cll_log2_sum": _cll_log2_sum},
        )
        rows.append(
            {
                "model": name,
                "accuracy": scores["test_accuracy"].mean(),
                "CLL (log2, sum per fold)": scores["test_cll_log2_sum"].mean(),
                "fit seconds": scores["fit_time"].mean(),
            }
        )
    table = pd.DataFrame(rows).set_index("model")
    print(f"{args.dataset}: 10-fold CV (KFold, shuffle, random_state=42), alpha=1")
    print(table.to_string(float_format=lambda v: f"{v:.4f}"))
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="bnclassify", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("compare", help="cross-validate NB, TAN and Simpler TAN on a data set")
    p.add_argument("--dataset", choices=sorted(BUNDLED), default="p450")
    args = parser.parse_args(argv)
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
