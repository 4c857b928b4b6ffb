"""Rows sampled from expert networks: the learnt Markov blanket and the log loss over Bayes.

Usage::

    python benchmarks/bayesnet_networks.py                      # the six class nodes below
    python benchmarks/bayesnet_networks.py --cases insurance:Accident --models bnc,hgb
    python benchmarks/bayesnet_networks.py --models "bnc,BayesNetClassifier(score_type='bic')"

For each network of ``shared/data/networks`` and class node (alarm ``TPR``,
child ``Disease``, insurance ``RiskAversion`` and ``Accident``, hailfinder
``CldShadeOth``, water ``CNOD_12_15``), ``--train`` rows (default 10^5) and
``--test`` rows (default 50,000) are sampled from the network with
:func:`bnclassify.datasets.sample_network` (seed ``--seed``, default 0, for
training, 1 for testing), every cell observed. (Results before this sampler used pgmpy's
forward sampler: other rows from the same network.)
The Bayes-optimal posterior ``P(c | x)`` is exact from the true network (its
class's Markov blanket, computed by :func:`bnclassify.io.from_pgmpy`, whose
predictions equal pgmpy's variable elimination); each model's log loss on the
test rows is reported as its excess over that optimum (natural log, mean per
row). For :class:`~bnclassify.BayesNetClassifier` models the learnt Markov
blanket of the class is compared with the true one (nodes missing, extra).
Fit times are on one thread; the machine may be shared, so compare them
within a run.

A network not in ``shared/data/networks`` is read from the copies pgmpy ships
(``--cases hepar2:Steatosis``).

Models: ``bnc`` (``BayesNetClassifier()``, the defaults), ``tan``, ``eskdb10``
(``ESKDB(n_estimators=10, random_state=0)``), ``hgb``
(``HistGradientBoostingClassifier(random_state=0)``, every column a native
categorical), or any Python expression over bnclassify's exports.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from threadpoolctl import threadpool_limits

import bnclassify
from bnclassify.datasets import sample_network
from bnclassify.io import from_pgmpy
from bnclassify.structure import markov_blanket

HERE = Path(__file__).resolve().parent
NETWORKS = next(
    (
        p / "shared" / "data" / "networks"
        for p in HERE.parents
        if (p / "shared" / "data" / "networks").is_dir()
    ),
    HERE.parent.parent / "shared" / "data" / "networks",
)
CASES = [
    ("alarm", "TPR"),
    ("child", "Disease"),
    ("insurance", "RiskAversion"),
    ("insurance", "Accident"),
    ("hailfinder", "CldShadeOth"),
    ("water", "CNOD_12_15"),
]
SHORT = {
    "bnc": "BayesNetClassifier()",
    "tan": "TAN()",
    "eskdb10": "ESKDB(n_estimators=10, random_state=0)",
    "nb": "NaiveBayes()",
    "kdb2": "KDB(k=2)",
}
DEFAULT_MODELS = "bnc,tan,eskdb10,hgb"


def sample(network, rows, seed) -> pd.DataFrame:
    """``rows`` rows of the network (:func:`bnclassify.datasets.sample_network`), every
    column the state names as object strings (the table ``pd.read_csv`` would give)."""
    return pd.concat(sample_network(network, rows, random_state=seed), ignore_index=True).astype(
        object
    )


def make_model(spec):
    if spec == "hgb":
        return HistGradientBoostingClassifier(categorical_features="from_dtype", random_state=0)
    space = {name: getattr(bnclassify, name) for name in bnclassify.__all__}
    return eval(SHORT.get(spec, spec), space)  # noqa: S307 (the user's own command line)


def as_categories(X, reference):
    """Every column a pandas categorical with the training table's states (HGB reads them)."""
    return pd.DataFrame(
        {c: pd.Categorical(X[c], categories=sorted(reference[c].unique())) for c in X.columns}
    )


def log_loss(proba, classes, y) -> float:
    position = {c: k for k, c in enumerate(classes)}
    picked = proba[np.arange(len(y)), [position[v] for v in y]]
    return float(-np.mean(np.log(np.clip(picked, 1e-15, 1.0))))


def load_network(name):
    """``shared/data/networks/NAME.bif``, or else the copy pgmpy ships (offline) of a
    bnlearn repository network (``hepar2``, ``win95pts``, ...)."""
    from pgmpy.readwrite import BIFReader

    path = NETWORKS / f"{name}.bif"
    if path.exists():
        return BIFReader(str(path)).get_model()
    from pgmpy.utils import get_example_model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return get_example_model(name)


def sampled_case(network_name, class_node, train_rows, test_rows, seed=0):
    """``(network, X, y, X_test, y_test, truth)``: training rows sampled with ``seed``, test
    rows with seed 1 (the same for every training seed), labels as strings, and the network
    itself as a classifier of ``class_node`` (the Bayes-optimal one)."""
    network = load_network(network_name)
    train, test = sample(network, train_rows, seed), sample(network, test_rows, 1)
    X, y = train.drop(columns=class_node), train[class_node].astype(str)
    X_test, y_test = test.drop(columns=class_node)[X.columns], test[class_node].astype(str)
    return network, X, y, X_test, y_test, from_pgmpy(network, class_node)


def run_case(network_name, class_node, specs, train_rows, test_rows, seed=0):
    _, X, y, X_test, y_test, truth = sampled_case(
        network_name, class_node, train_rows, test_rows, seed
    )
    true_blanket = sorted(markov_blanket(truth.structure_, class_node))
    bayes = truth.predict_proba(X_test[truth.feature_names_in_])
    bayes_loss = log_loss(bayes, [str(c) for c in truth.classes_], y_test)
    out = {
        "network": network_name,
        "class": class_node,
        "true_blanket": true_blanket,
        "bayes_log_loss": bayes_loss,
        "models": {},
    }
    for spec in specs:
        model = make_model(spec)
        data, data_test = (
            (as_categories(X, X), as_categories(X_test, X)) if spec == "hgb" else (X, X_test)
        )
        with threadpool_limits(1), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start, cpu = time.perf_counter(), time.process_time()
            model.fit(data, y)
            fitted, fit_cpu = time.perf_counter(), time.process_time() - cpu
            proba = model.predict_proba(data_test)
            done = time.perf_counter()
        row = {
            "excess": log_loss(proba, [str(c) for c in model.classes_], y_test) - bayes_loss,
            "fit_s": fitted - start,
            "fit_cpu_s": fit_cpu,
            "predict_s": done - fitted,
        }
        if hasattr(model, "markov_blanket_"):
            learnt = sorted(model.markov_blanket_)
            row["blanket"] = learnt
            row["missing"] = sorted(set(true_blanket) - set(learnt))
            row["extra"] = sorted(set(learnt) - set(true_blanket))
        out["models"][spec] = row
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", help="network:class pairs, comma-separated")
    parser.add_argument("--models", default=DEFAULT_MODELS)
    parser.add_argument("--train", type=int, default=100_000)
    parser.add_argument("--test", type=int, default=50_000)
    parser.add_argument("--results", type=Path)
    parser.add_argument(
        "--seed", type=int, default=0, help="the training rows' seed (the test rows': 1)"
    )
    args = parser.parse_args(argv)
    cases = CASES
    if args.cases:
        cases = [tuple(c.split(":")) for c in args.cases.split(",")]
    specs = [s.strip() for s in args.models.split(";" if ";" in args.models else ",")]
    done = json.loads(args.results.read_text()) if args.results and args.results.exists() else {}
    for network_name, class_node in cases:
        key = f"{network_name}:{class_node}|{args.train}|{args.test}"
        if args.seed:
            key += f"|seed {args.seed}"
        old = done.get(key, {"models": {}})
        todo = [s for s in specs if s not in old["models"]]
        if todo:
            result = run_case(network_name, class_node, todo, args.train, args.test, args.seed)
            result["models"] = {**old["models"], **result["models"]}
            done[key] = result
            if args.results:
                args.results.write_text(json.dumps(done, indent=1))
        result = done[key]
        print(
            f"\n{network_name} / {class_node}: Bayes-optimal log loss "
            f"{result['bayes_log_loss']:.4f}; true Markov blanket ({len(result['true_blanket'])}): "
            f"{', '.join(result['true_blanket'])}"
        )
        print(f"  {'model':46} {'excess':>8} {'fit s':>8} {'fit cpu':>8} {'predict s':>9}  blanket")
        for spec in specs:
            row = result["models"][spec]
            blanket = ""
            if "blanket" in row:
                same = not row["missing"] and not row["extra"]
                blanket = "equal" if same else f"missing {row['missing']}, extra {row['extra']}"
            print(
                f"  {spec:46} {row['excess']:+8.4f} {row['fit_s']:8.2f} "
                f"{row.get('fit_cpu_s', float('nan')):8.2f} {row['predict_s']:9.2f}  "
                f"{blanket}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
