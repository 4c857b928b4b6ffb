"""BayesNetClassifier at Weka's BayesNet presets on folds with Weka's missing values filled.

Weka's ``BayesNet`` replaces each missing cell by the training fold's mode (nominal) or
mean (numeric) before it searches and predicts (``ReplaceMissingValues``); bnclassify
counts each family on the rows observing it and sums a missing cell out. This script
fills the cells as Weka does, fits ``bnc-k2``, ``bnc-hc`` and ``bnc-tabu``
(``benchmarks/uci.py``) on the same ten folds, and prints the mean losses beside the
stored ones (ours unfilled and Weka's, from ``--results``) with the combined 5x2cv F
test's p between the filled run and Weka's.

Usage::

    python benchmarks/weka_bayesnet_imputed.py anneal,primary.tumor,hepatitis,vote
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import uci  # noqa: E402  (the benchmarks beside this file)

from bnclassify.metrics import combined_5x2cv_ftest  # noqa: E402

PAIRS = (
    ("bnc-k2", "weka:BayesNet-K2"),
    ("bnc-hc", "weka:BayesNet-HillClimber"),
    ("bnc-tabu", "weka:BayesNet-TabuSearch"),
)


def filled(train: pd.DataFrame, test: pd.DataFrame):
    """Both tables with each column's missing cells set to the training rows' mode or mean."""
    train, test = train.copy(), test.copy()
    for column in train.columns:
        if train[column].isna().all():
            continue
        if pd.api.types.is_numeric_dtype(train[column]):
            value = train[column].mean()
        else:
            value = train[column].mode().iloc[0]
        train[column] = train[column].fillna(value)
        test[column] = test[column].fillna(value)
    return train, test


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sets", help="comma-separated set names")
    parser.add_argument("--results", type=Path, default=uci.HERE / "results_weka_bayesnet.json")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    results = json.loads(args.results.read_text())
    for name, X, y in uci.load_sets(args.sets.split(",")):
        classes = np.unique(y)
        for spec, weka in PAIRS:
            stored_pair = results.get(name, {})
            if not all("log_loss" in s for key in (spec, weka) for s in stored_pair.get(key, [{}])):
                print(f"{name} {spec}: no stored losses of both sides (a refusal or not run)")
                continue
            scores = []
            for train, test in uci.cv_folds(X, y):
                fit_rows, test_rows = filled(X.iloc[train], X.iloc[test])
                model = uci.make_model(spec).fit(fit_rows, y[train])
                full = np.zeros((len(test), len(classes)))
                full[:, np.searchsorted(classes, model.classes_)] = model.predict_proba(test_rows)
                scores.append(uci.probability_scores(full, y[test], classes))
            mine = [s["log_loss"] for s in scores]
            stored = [s["log_loss"] for s in results[name][spec]]
            theirs = [s["log_loss"] for s in results[name][weka]]
            print(
                f"{name} {spec}: log loss ours {np.mean(stored):.4f}, ours filled "
                f"{np.mean(mine):.4f}, Weka {np.mean(theirs):.4f}; 0-1 filled "
                f"{np.mean([s['zero_one'] for s in scores]):.4f}; p (filled against Weka) "
                f"{combined_5x2cv_ftest(mine, theirs).pvalue:.3f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
