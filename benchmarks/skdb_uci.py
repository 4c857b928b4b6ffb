"""SKDB and ESKDB against random forest on the UCI collection, 5x2 stratified CV.

Every CSV listed in a folder's ``MANIFEST.csv`` (``name,target,...``) is read as
``pd.read_csv`` returns it (object strings, floats with NaN, the class in its
own column) and cross-validated with ``RepeatedStratifiedKFold(2, 5,
random_state=0)``. bnclassify's models take the table as it is; the forest
(``RandomForestClassifier(n_estimators=100, random_state=0)``) gets median
imputation of numeric columns, and most-frequent imputation plus ordinal codes
(unseen: -1) of the others. Per set and model: mean log loss (natural log,
probabilities floored at 1e-15), 0-1 loss, fit and predict seconds (per fold,
summed over the 10 folds), and the rows whose true class got below 1e-15.

    python benchmarks/skdb_uci.py --data ../shared/data/uci --out results_skdb_uci.json

The labels are a pandas categorical with every class of the set, so a class
missing from a training fold keeps its (smoothed) place in bnclassify's models;
the forest gives it probability 0.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.impute import SimpleImputer
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder

from bnclassify import ESKDB, SKDB

FLOOR = 1e-15


def forest(X):
    numeric = [c for c in X.columns if X[c].dtype.kind in "iuf"]
    other = [c for c in X.columns if c not in numeric]
    encode = make_pipeline(
        SimpleImputer(strategy="most_frequent"),
        OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
    )
    prepare = ColumnTransformer(
        [("num", SimpleImputer(strategy="median"), numeric), ("cat", encode, other)]
    )
    return make_pipeline(prepare, RandomForestClassifier(n_estimators=100, random_state=0))


MODELS = {
    "SKDB": lambda X: SKDB(),
    "ESKDB": lambda X: ESKDB(random_state=0),
    "RF": forest,
}


def proba_all(model, X, classes):
    """Probabilities over every class of the set (0 for a class the model never saw)."""
    proba = model.predict_proba(X)
    seen = list(model.classes_)
    out = np.zeros((len(X), len(classes)))
    for j, c in enumerate(seen):
        out[:, classes.index(c)] = proba[:, j]
    return out


def run_set(path, target, models, folds):
    table = pd.read_csv(path)
    y_raw = table[target]
    X = table.drop(columns=[target])
    classes = sorted(pd.unique(y_raw.astype(str)))
    y = pd.Series(pd.Categorical(y_raw.astype(str), categories=classes), name=target)
    codes = y.cat.codes.to_numpy()
    out = {}
    for name in models:
        rows, refused = [], None
        for train, test in folds.split(X, codes):
            model = MODELS[name](X)
            start = time.perf_counter()
            try:
                model.fit(X.iloc[train], y.iloc[train])
                fitted = time.perf_counter()
                proba = proba_all(model, X.iloc[test], classes)
            except (ValueError, MemoryError) as error:  # a refusal: recorded, not fatal
                refused = f"{type(error).__name__}: {error}"
                break
            done = time.perf_counter()
            true = proba[np.arange(len(test)), codes[test]]
            rows.append(
                {
                    "log_loss": float(-np.log(np.maximum(true, FLOOR)).mean()),
                    "zero_one": float((proba.argmax(axis=1) != codes[test]).mean()),
                    "fit_s": fitted - start,
                    "predict_s": done - fitted,
                    "below_floor": int((true < FLOOR).sum()),
                }
            )
        if refused is not None:
            out[name] = {"refused": refused}
            print(path.stem, name, "refused:", refused, flush=True)
            continue
        frame = pd.DataFrame(rows)
        out[name] = {
            "log_loss": frame.log_loss.mean(),
            "zero_one": frame.zero_one.mean(),
            "fit_s": frame.fit_s.sum(),
            "predict_s": frame.predict_s.sum(),
            "below_floor": int(frame.below_floor.sum()),
        }
        print(path.stem, name, {k: round(v, 4) for k, v in out[name].items()}, flush=True)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="../shared/data/uci")
    parser.add_argument("--out", default="results_skdb_uci.json")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--sets", default=None, help="comma-separated names (default: all)")
    args = parser.parse_args(argv)
    folder = Path(args.data)
    manifest = pd.read_csv(folder / "MANIFEST.csv")
    if args.sets:  # in the order given
        manifest = manifest.set_index("name").loc[args.sets.split(",")].reset_index()
    models = args.models.split(",")
    folds = RepeatedStratifiedKFold(n_splits=2, n_repeats=5, random_state=0)
    results = {}
    out = Path(args.out)
    if out.exists():
        results = json.loads(out.read_text())
    for row in manifest.itertuples():
        done = results.get(row.name, {})
        todo = [m for m in models if m not in done]
        if todo:
            done.update(run_set(folder / f"{row.name}.csv", row.target, todo, folds))
            results[row.name] = done
            out.write_text(json.dumps(results, indent=1))
    print(summary(results, models))


def summary(results, models) -> str:
    """Markdown: per-set numbers and each model's wins/draws/losses against the forest."""
    lines = ["| set | " + " | ".join(f"{m} log loss | {m} 0-1" for m in models) + " |"]
    lines.append("|---|" + "---:|" * (2 * len(models)))
    for name, by_model in results.items():
        cells = []
        for m in models:
            r = by_model.get(m)
            if r is None or "refused" in r:
                cells += ["refused" if r else "", ""]
            else:
                cells += [f"{r['log_loss']:.3f}", f"{r['zero_one']:.3f}"]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    for m in models:
        if m == "RF":
            continue
        for metric in ("log_loss", "zero_one"):
            pairs = [(r[m][metric], r["RF"][metric]) for r in results.values() if _both(r, m)]
            wins = sum(a < b - 1e-12 for a, b in pairs)
            draws = sum(abs(a - b) <= 1e-12 for a, b in pairs)
            lines.append(f"{m} vs RF {metric}: {wins}/{draws}/{len(pairs) - wins - draws}")
        fit = [(r[m]["fit_s"], r["RF"]["fit_s"]) for r in results.values() if _both(r, m)]
        lines.append(
            f"{m} total fit s {sum(a for a, _ in fit):.1f} vs RF {sum(b for _, b in fit):.1f}"
        )
    return "\n".join(lines)


def _both(by_model, m) -> bool:
    return all(k in by_model and "refused" not in by_model[k] for k in (m, "RF"))


if __name__ == "__main__":
    main()
