"""10-fold CV log loss of Gaussian TAN and naive Bayes on tables with small class/parent groups.

    python benchmarks/gaussian_prior.py [--strengths 0 1 2 5 10 20]

Each table is cross-validated with the same stratified folds (seed 0). With
``--strengths``, every Gaussian column is given ``Gaussian(prior_strength=k)``
for each ``k`` (the kinds rule's densities, ``distributions="density"``); without
it, the library's defaults (continuous columns binned). Prints one line per
table and setting: NB and TAN log loss and whether TAN is at least as good.
docs/user_guide/features.md quotes the result.
"""

from __future__ import annotations

import argparse
import io
import warnings

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.metrics import log_loss
from sklearn.model_selection import StratifiedKFold

from bnclassify import TAN, NaiveBayes
from bnclassify.datasets import make_census_table, make_clinic_table, make_credit_table
from bnclassify.distributions import KINDS
from bnclassify.exceptions import UnseenCategoryWarning

# census' categorical capital gain meets unseen amounts in test folds: summed out, as counted
warnings.filterwarnings("ignore", category=UnseenCategoryWarning)


def ten_level_parent(n=600, seed=0):
    """A Gaussian whose mean and spread depend on a 10-level categorical feature and the class."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    level = rng.integers(0, 10, n)
    shift = rng.normal(0, 2, (2, 10))
    spread = rng.uniform(0.3, 2.0, (2, 10))
    x = shift[y, level] + spread[y, level] * rng.normal(size=n)
    other = rng.normal(size=n) + 0.5 * y
    X = pd.DataFrame({"level": level.astype(str), "x": x, "other": other})
    return X, pd.Series(y, name="y")


def tables():
    """``name -> (X, y)``; the raw tables go through a CSV round trip as a user reads them."""

    def split(frame, target):
        frame = pd.read_csv(io.StringIO(frame.to_csv(index=False)))
        return frame.drop(columns=target), frame[target]

    out = {
        "credit": split(make_credit_table(), "credit_risk"),
        "census": split(make_census_table(), "income"),
        "clinic": split(make_clinic_table(), "diagnosis"),
    }
    for name, loader in [("breast_cancer", load_breast_cancer), ("wine", load_wine)]:
        X, y = loader(return_X_y=True, as_frame=True)
        out[name] = (X, y)
    X, y = load_iris(return_X_y=True, as_frame=True)
    out["iris"] = (X, y)
    out["ten_level_parent"] = ten_level_parent()
    return out


def cv_log_loss(make, X, y, folds=10, seed=0):
    """Log loss of out-of-fold probabilities (each row predicted by the model not seeing it)."""
    cv = StratifiedKFold(folds, shuffle=True, random_state=seed)
    labels = np.unique(y)
    proba = np.zeros((len(y), len(labels)))
    for train, test in cv.split(X, y):
        model = make().fit(X.iloc[train], y.iloc[train])
        cols = np.searchsorted(labels, model.classes_)
        proba[np.ix_(test, cols)] = model.predict_proba(X.iloc[test])
    return log_loss(y, proba, labels=labels)


def gaussian_columns(X, y):
    """The continuous columns, with the density the kinds rule gives them: Gaussian or log-normal.

    Asked with ``distributions="density"``: by default continuous columns are binned, and
    no column would be given a Gaussian prior.
    """
    kinds = NaiveBayes(distributions="density").fit(X, y).feature_kinds_
    return {
        name: kind
        for name, kind in zip(X.columns, kinds, strict=True)
        if kind in ("gaussian", "lognormal")
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--strengths", type=float, nargs="*", default=None)
    args = parser.parse_args()
    settings = [None] if args.strengths is None else args.strengths
    for name, (X, y) in tables().items():
        gauss = gaussian_columns(X, y)
        for k in settings:
            spec = None if k is None else {c: KINDS[g](prior_strength=k) for c, g in gauss.items()}
            nb = cv_log_loss(lambda spec=spec: NaiveBayes(distributions=spec), X, y)
            tan = cv_log_loss(lambda spec=spec: TAN(distributions=spec), X, y)
            setting = "default" if k is None else f"prior_strength={k:g}"
            print(
                f"{name:17s} {setting:20s} NB {nb:.4f}  TAN {tan:.4f}  "
                f"{'TAN <= NB' if tan <= nb else 'TAN loses'}",
                flush=True,
            )


if __name__ == "__main__":
    main()
