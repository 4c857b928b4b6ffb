"""TAN's default tree (``criterion="loglik"``) against the AIC spanning tree (``"aic_tree"``).

Every table is written to CSV and read back with plain ``pd.read_csv`` and
scored by 10-fold stratified cross-validation
(``StratifiedKFold(10, shuffle=True, random_state=0)``, default ``alpha=1``):
mean log loss and accuracy over the folds. The numbers are quoted in
docs/user_guide/structures.md.

Run: ``PYTHONPATH=. python benchmarks/tan_criterion.py [table ...]``
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pandas as pd
from sklearn.metrics import log_loss, make_scorer
from sklearn.model_selection import StratifiedKFold, cross_validate

from bnclassify import TAN
from bnclassify import datasets as bn

TARGETS = {"credit": "credit_risk", "census": "income", "clinic": "diagnosis"}


def _round_trip(frame):
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    buffer.seek(0)
    return pd.read_csv(buffer)


def tables():
    """name -> (X, y) read back from CSV."""
    out = {}
    for name, target in TARGETS.items():
        frame = _round_trip(getattr(bn, f"make_{name}_table")())
        out[name] = (frame.drop(columns=target), frame[target])
    for name in ["car", "nursery", "vote", "p450", "lactamase"]:
        X, y = getattr(bn, f"load_{name}")(return_X_y=True)
        frame = _round_trip(X.assign(target=np.asarray(y)))
        out[name] = (frame.drop(columns="target"), frame["target"].astype("category"))
    return out


def main(names=None):
    rows = []
    cv = StratifiedKFold(10, shuffle=True, random_state=0)
    for name, (X, y) in tables().items():
        if names and name not in names:
            continue
        # every class in the log loss: a rare class (nursery's 2 "recommend" rows) misses folds
        loss = make_scorer(
            log_loss,
            response_method="predict_proba",
            greater_is_better=False,
            labels=np.unique(y),
        )
        row = {"table": name}
        for criterion in ("loglik", "aic_tree"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                scores = cross_validate(
                    TAN(criterion=criterion),
                    X,
                    y,
                    cv=cv,
                    scoring={"accuracy": "accuracy", "neg_log_loss": loss},
                    error_score="raise",
                )
            row[f"{criterion} accuracy"] = scores["test_accuracy"].mean()
            row[f"{criterion} log loss"] = -scores["test_neg_log_loss"].mean()
        rows.append(row)
        print(pd.DataFrame(rows).round(3).to_string(index=False), flush=True)  # no tabulate needed


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
