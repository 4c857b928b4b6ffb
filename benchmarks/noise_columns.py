"""Two many-valued noise columns: what they cost SKDB, ESKDB(10) and the random forest.

Usage::

    python benchmarks/noise_columns.py                 # both tables, every model
    python benchmarks/noise_columns.py --tables tree   # only the synthetic table

Each table has 8,000 rows: the first 6,400 (shuffled with seed 0) train, the other
1,600 test. The noisy copy adds two text columns of values drawn uniformly from 3,000
(about 2,650 distinct values in the 6,400 training rows, each recurring in a few rows:
not all distinct, so no identifier warning). Tables: ``tree``, the library's
``make_tree_classification(8000, 8, n_classes=3, concentration=3.0, random_state=0)``;
``nursery``, 8,000 rows of the bundled UCI nursery table (8 categorical columns, 5
classes). Models: ``SKDB`` and ``ESKDB(n_estimators=10, random_state=0)`` with each
``ranking`` (``"mi"``, the paper's plug-in I(X; C); ``"loo"``, the leave-one-out
information), and ``RandomForestClassifier(100, random_state=0)`` on ordinal codes.
Prints test accuracy clean / noisy and the attributes SKDB selects; one thread.
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder
from threadpoolctl import threadpool_limits

from bnclassify import ESKDB, SKDB
from bnclassify.datasets import make_tree_classification

DATA = Path(__file__).resolve().parents[1] / "data"


def table(name):
    """``(X, y)`` of 8,000 rows, shuffled with seed 0."""
    if name == "tree":
        X, y = make_tree_classification(
            8000, 8, n_classes=3, concentration=3.0, as_frame=True, random_state=0
        )
        return X, pd.Series(np.asarray(y))
    for folder in (DATA, Path("/work/shared/data")):
        if (folder / "nursery.csv").exists():
            frame = pd.read_csv(folder / "nursery.csv")
            break
    frame = frame.sample(8000, random_state=0).reset_index(drop=True)
    y = frame.pop(frame.columns[-1]).astype(str)
    return frame, y


def with_noise(X, values=3000, seed=0):
    rng = np.random.default_rng(seed)
    noise = {f"noise{i}": rng.integers(0, values, len(X)).astype(str) for i in (1, 2)}
    return X.assign(**noise)


def models():
    forest = make_pipeline(
        OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
        RandomForestClassifier(100, random_state=0),
    )
    quiet = {"handle_unknown": "marginalize"}  # unseen noise values: summed out
    return {
        "SKDB mi": SKDB(ranking="mi", **quiet),
        "SKDB loo": SKDB(ranking="loo", **quiet),
        "ESKDB(10) mi": ESKDB(n_estimators=10, random_state=0, ranking="mi", **quiet),
        "ESKDB(10) loo": ESKDB(n_estimators=10, random_state=0, ranking="loo", **quiet),
        "RandomForest": forest,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", default="tree,nursery")
    args = parser.parse_args(argv)
    rows = []
    for name in args.tables.split(","):
        X, y = table(name)
        train, test = np.arange(6400), np.arange(6400, 8000)
        noisy = with_noise(X)
        distinct = noisy["noise1"].iloc[train].nunique()
        for model_name, model in models().items():
            scores = {}
            for label, frame in (("clean", X), ("noisy", noisy)):
                with threadpool_limits(1), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model.fit(frame.iloc[train], y.iloc[train])
                    scores[label] = model.score(frame.iloc[test], y.iloc[test])
                    selected = getattr(model, "selected_features_", None)
                    if selected is not None:
                        scores[f"selected ({label})"] = len(selected)
            rows.append({"table": name, "distinct noise values": distinct, "model": model_name})
            rows[-1].update(scores)
            print(pd.DataFrame(rows[-1:]).to_string(header=len(rows) == 1), flush=True)
    frame = pd.DataFrame(rows)
    frame["cost"] = frame["clean"] - frame["noisy"]
    print(frame.round(4).to_string())


if __name__ == "__main__":
    main()
