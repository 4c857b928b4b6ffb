"""bnclassify models against random forest and gradient boosting on a UCI collection.

Usage::

    python benchmarks/uci.py                                   # default models, every set
    python benchmarks/uci.py --models nb,tan,kdb2 --sets car,vote
    python benchmarks/uci.py --models skdb,eskdb --no-peers --results /tmp/e.json  # no HGB
    python benchmarks/uci.py --models "RandomForest,eskdb" --no-peers   # RF, not HGB
    python benchmarks/uci.py --models "kdb2,KDB(k=2, smoothing='hdp')" --results /tmp/r.json
    python benchmarks/uci.py --models "mdl:TAN()"               # MDLDiscretizer, then TAN
    python benchmarks/uci.py --models eskdb10 --threads both --results r.json --best eskdb10
    python benchmarks/uci.py --report-only --results benchmarks/results_uci.json \\
        --markdown /tmp/uci.md --figure figures/uci_vs_rf.png --cd-figure figures/uci_cd.png \\
        --best "ESKDB()"

The collection is a folder of CSV files with a ``MANIFEST.csv`` (columns ``name``
and ``target``; default: the nearest ``shared/data/uci`` above the checkout). Each table is read as
``pd.read_csv`` returns it (object or pandas ``str`` columns, floats with NaN,
integer codes, the class anywhere) and handed to every model as that DataFrame,
with the labels as strings.

Protocol: 5x2 cross-validation, ``RepeatedStratifiedKFold(n_splits=2,
n_repeats=5, random_state=0)`` (the same ten folds for every model). Peers:
``RandomForestClassifier(n_estimators=100, random_state=0)`` and
``HistGradientBoostingClassifier(random_state=0)``; for both, numeric columns
pass through (missing values native) and the other columns are ordinal-encoded
(unseen and missing categories are NaN); gradient boosting treats encoded
columns with at most 255 categories as native categoricals. The folds are the
outer loop and the models the inner one, so a change of the machine's load
falls on every model alike.

Threads (``--threads``): ``1`` (the default) runs every model on one thread:
``threadpool_limits(1)`` bounds BLAS, OpenMP (gradient boosting's trees) and
bnclassify's kernels, and every ``n_jobs`` (the forest's, ESKDB's) is 1, so the
times compare the algorithms. ``all`` lifts the limit and sets every ``n_jobs``
to -1 (each model on all cores, as its own parallelism allows); ``both`` fits
each fold twice, the losses kept from the one-thread fit. The times of each
setting are reported separately.

Per fold: 0-1 loss; log loss (the true class's probability clipped at 1e-15);
RMSE of the probability vector, ``sqrt(mean_i sum_c (p_ic - [c = y_i])^2 / C)``
(the definition of Petitjean et al. 2018); the number of test rows whose true
class gets a probability below 1e-15; fit and predict seconds, wall clock and
CPU (``fit_s``, ``predict_s``, ``fit_cpu_s``, ``predict_cpu_s`` on one thread;
the same ending in ``_all`` on every core); the fold's place (``repeat``,
``half``). A class absent from a training fold gets probability 0. A model that
raises on a fold is a refusal: the error is recorded and the set counts as a
loss for it (and as a significant one).

Summaries, over the sets: per model against each peer run, wins/draws/losses
of the mean losses (a draw: within ``--draw``, default 1e-3, the rule of issue
43's tables; it was 1e-9, under which a difference in the fourth decimal
counted as a win) and significant wins/losses by Alpaydin's combined 5x2cv F
test at ``--alpha`` (0.05) on the ten per-fold differences
(:func:`bnclassify.metrics.combined_5x2cv_ftest`); mean ranks (ties averaged,
a refusal last) with Friedman's test and the Nemenyi critical difference
(Demsar 2006; ``--cd-figure`` draws the diagram); total fit and predict times
per thread setting (each set: the mean of its folds). ``--best`` names the
model whose targets are checked against the forest (issue 43: log loss wins on
at least 2/3 of the sets, 0-1 wins on at least half, significantly worse on 0-1
on at most 1 in 6, total fit and predict seconds on one thread below the
forest's); the block says met or not met with the numbers. Results are kept per
(set, model) in ``--results`` (JSON), so a later run adds models, sets or the
times of another thread setting without recomputing the rest (``--force``
recomputes); files written before the CPU times and the folds' places still
report (the folds are in the protocol's order).

Model names: the short names below, or any Python expression over
``bnclassify``'s exports (``"KDB(k=2, smoothing='hdp')"``); the prefix ``mdl:``
puts ``MDLDiscretizer()`` in front in a ``Pipeline``; the prefix ``binned:`` fits
the model with the kinds rule's ``numbers="binned"`` (every column the rule reads
as continuous becomes a :class:`~bnclassify.distributions.Binned` node, MDL
intervals learned inside the estimator from the training fold: the default since
issue 32 item 3, see docs/user_guide/kinds.md), and ``density:`` with
``numbers="density"`` (Gaussian or log-normal nodes: the default before).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
import time
import traceback
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OrdinalEncoder
from threadpoolctl import threadpool_limits

import bnclassify
from bnclassify import MDLDiscretizer
from bnclassify.data import kinds_rule

HERE = Path(__file__).resolve().parent
#: The nearest ``shared/data/uci`` above this checkout (the workplace keeps the collection
#: beside the repository; a git worktree sits one level deeper).
DEFAULT_DATA = next(
    (
        p / "shared" / "data" / "uci"
        for p in HERE.parents
        if (p / "shared" / "data" / "uci").is_dir()
    ),
    HERE.parent.parent / "shared" / "data" / "uci",
)
RF, HGB = "RandomForest", "HistGradientBoosting"
PEERS = (RF, HGB)
_WEKA_BN = "score_type='bd', prior_weight=0.5, max_parents=2, start='naive_bayes', alpha=0.5"
#: Short names of bnclassify models (anything else is an expression over bnclassify).
SHORT = {
    "nb": "NaiveBayes()",
    "tan": "TAN()",
    "kdb1": "KDB(k=1)",
    "kdb2": "KDB(k=2)",
    "aode": "AODE()",
    "hnb": "HNB()",
    "ande1": "AnDE(n=1)",
    "a2de": "AnDE(n=2)",
    "a2desr": "AnDE(n=2, subsumption=True)",
    "aodesr": "AODE(subsumption=True)",
    "waode": "WAODE()",
    "bmatan": "BMATAN()",
    "skdb": "SKDB()",
    "eskdb": "ESKDB(random_state=0)",
    "eskdb10": "ESKDB(n_estimators=10, random_state=0)",
    # the recommended model: attributes ranked by leave-one-out information (README)
    "eskdb10-loo": "ESKDB(n_estimators=10, random_state=0, ranking='loo')",
    "eskdb10-noid": "ESKDB(n_estimators=10, random_state=0, parents='no_identifiers')",
    "bnc": "BayesNetClassifier()",
    # Weka's BayesNet presets of benchmarks/weka.py (BayesNet-K2, -HillClimber,
    # -TabuSearch): at most 2 parents, the BAYES score (BD, 0.5 a cell), SimpleEstimator
    # -A 0.5, every search from naive Bayes, no arc reversal; K2 in the file's column
    # order with the class first, tabu 10 moves with a list of 5.
    "bnc-k2": f"FileOrder(BayesNetClassifier(search='k2', {_WEKA_BN}))",
    "bnc-hc": f"BayesNetClassifier(search='hill_climbing', reversal=False, {_WEKA_BN})",
    "bnc-tabu": (
        f"BayesNetClassifier(search='tabu', tabu_length=5, max_iter=10, reversal=False, {_WEKA_BN})"
    ),
}
DEFAULT_MODELS = "nb,tan,kdb2,aode,bmatan"
FLOOR = 1e-15
#: Two per-fold losses this close (relative) are one loss computed twice: the F test calls
#: them equal (p = 1) rather than read their last bits as a consistent difference.
ROUNDING = 1e-12


def read_collection(folder: Path, names=None) -> list[tuple[str, str, Path]]:
    """``(name, target, path)`` of each set of the manifest (or of ``names``), in order."""
    manifest = pd.read_csv(folder / "MANIFEST.csv")
    rows = list(manifest[["name", "target"]].itertuples(index=False))
    if names:
        known = {r.name for r in rows}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise SystemExit(f"unknown set(s) {unknown}; the manifest lists {sorted(known)}")
        rows = [r for r in rows if r.name in names]
    return [(r.name, r.target, folder / f"{r.name}.csv") for r in rows]


def load_sets(names, folder: Path | None = None):
    """``(name, X, y)`` of each named set of the collection in ``folder`` (by default the
    development sets), in the order given, each as :func:`load_set` reads it."""
    found = {name: (target, path) for name, target, path in read_collection(folder or DEFAULT_DATA)}
    for name in names:
        target, path = found[name]
        yield (name, *load_set(path, target))


def load_set(path: Path, target: str):
    """``X`` as ``pd.read_csv`` gives it and the labels as strings."""
    frame = pd.read_csv(path)
    y = frame.pop(target)
    return frame, y.astype(str).to_numpy()


def _namespace() -> dict:
    space = {name: getattr(bnclassify, name) for name in bnclassify.__all__}
    space["bnclassify"] = bnclassify
    space["FileOrder"] = FileOrder
    return space


def model_specs(text: str) -> list[str]:
    """The model specs of ``--models``: split at ``;`` if there is one, else at the
    commas outside brackets and quotes (so ``"kdb2,KDB(k=2, alpha=1)"`` is two models).

    >>> model_specs("kdb2,KDB(k=2, smoothing='hdp')")
    ['kdb2', "KDB(k=2, smoothing='hdp')"]
    >>> model_specs("KDB(k=2, smoothing='hls');")
    ["KDB(k=2, smoothing='hls')"]
    """
    if ";" in text:
        parts = text.split(";")
    else:
        parts, depth, quote, start = [], 0, None, 0
        for i, char in enumerate(text):
            if quote:
                quote = None if char == quote else quote
            elif char in "'\"":
                quote = char
            elif char in "([{":
                depth += 1
            elif char in ")]}":
                depth -= 1
            elif char == "," and depth == 0:
                parts.append(text[start:i])
                start = i + 1
        parts.append(text[start:])
    return [part.strip() for part in parts if part.strip()]


def make_model(spec: str):
    """A fresh estimator for a model name (see the module docstring)."""
    if spec == RF:
        return make_pipeline(_peer_encoder(), RandomForestClassifier(100, random_state=0))
    if spec == HGB:
        return "hgb"  # built per fold: its categorical mask depends on the columns
    discretise = spec.startswith("mdl:")
    numbers = next((n for n in ("binned", "density") if spec.startswith(f"{n}:")), None)
    body = spec.removeprefix("mdl:").removeprefix("binned:").removeprefix("density:")
    model = eval(SHORT.get(body, body), _namespace())  # noqa: S307 (the user's own command line)
    if numbers is not None:
        return BinnedNumbers(model, numbers)
    return make_pipeline(MDLDiscretizer(), model) if discretise else model


class BinnedNumbers:
    """A bnclassify estimator fitted with the kinds rule's ``numbers`` (the prefixes
    ``binned:`` and ``density:``): the rule's constant is set for the fit only (the schema
    keeps the kinds and cut points, so prediction needs nothing)."""

    def __init__(self, model, numbers="binned"):
        self.model = model
        self.numbers = numbers

    def fit(self, X, y):
        saved = kinds_rule.NUMERIC_KIND
        kinds_rule.NUMERIC_KIND = self.numbers
        try:
            self.model.fit(X, y)
        finally:
            kinds_rule.NUMERIC_KIND = saved
        self.classes_ = self.model.classes_
        return self

    def predict_proba(self, X):
        return self.model.predict_proba(X)


class FileOrder:
    """A ``BayesNetClassifier`` whose K2 ``order`` is the training table's column order
    with the class first (Weka's ``K2``), set at each fit from the columns it is given."""

    def __init__(self, model):
        self.model = model

    def fit(self, X, y):
        self.model.set_params(order=list(X.columns))
        self.model.fit(X, y)
        self.classes_ = self.model.classes_
        return self

    def predict_proba(self, X):
        return self.model.predict_proba(X)


def _categorical_columns(X: pd.DataFrame) -> list:
    return [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c].dtype)]


def _peer_encoder():
    def columns(X):
        return _categorical_columns(X)

    encoder = OrdinalEncoder(
        handle_unknown="use_encoded_value",
        unknown_value=np.nan,
        encoded_missing_value=np.nan,
    )
    return ColumnTransformer([("cat", encoder, columns)], remainder="passthrough")


def _hgb(X: pd.DataFrame):
    """Gradient boosting for the training rows ``X``. A column without one observed value
    there is left out: it carries nothing, and scikit-learn 1.9's binning of an all-NaN
    column raises ("window shape cannot be larger than input array shape"), which had
    made it refuse anneal and two folds of heart.h."""
    seen = [c for c in X.columns if X[c].notna().any()]
    categorical = [c for c in _categorical_columns(X) if c in seen]
    numeric = [c for c in seen if c not in categorical]
    native = [c for c in categorical if X[c].nunique() <= 255]
    mask = [c in native for c in categorical] + [False] * len(numeric)
    encoder = OrdinalEncoder(
        handle_unknown="use_encoded_value", unknown_value=np.nan, encoded_missing_value=np.nan
    )
    columns = ColumnTransformer(
        [("cat", encoder, categorical), ("num", "passthrough", numeric)],
        sparse_threshold=0,
    )
    model = HistGradientBoostingClassifier(categorical_features=mask or None, random_state=0)
    return make_pipeline(columns, model)


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout


#: ``--threads``: the thread settings each fold is timed under. ``1``: every library on one
#: thread (BLAS, OpenMP, bnclassify's kernels through ``threadpool_limits(1)``; ``n_jobs=1``);
#: ``all``: no limit and ``n_jobs=-1`` (the forest's trees, ESKDB's members on every core).
THREADS = {"1": ("1",), "all": ("all",), "both": ("1", "all")}
#: The per-fold keys of a thread setting's times (``1``: the keys of the original format).
TIME_KEYS = {
    "1": ("fit_s", "predict_s", "fit_cpu_s", "predict_cpu_s"),
    "all": ("fit_s_all", "predict_s_all", "fit_cpu_s_all", "predict_cpu_s_all"),
}
LOSSES = ("zero_one", "log_loss", "rmse", "below_floor")


def set_jobs(model, n_jobs) -> None:
    """Every ``n_jobs`` of ``model`` (a pipeline's steps included) set to ``n_jobs``."""
    inner = getattr(model, "model", None)
    if isinstance(model, BinnedNumbers):
        set_jobs(inner, n_jobs)
        return
    if not hasattr(model, "get_params"):
        return
    keys = [k for k in model.get_params(deep=True) if k == "n_jobs" or k.endswith("__n_jobs")]
    if keys:
        model.set_params(**dict.fromkeys(keys, n_jobs))


def fold_scores(spec, X, y, train, test, classes, timeout=None, threads="1") -> dict:
    """One model on one fold: the losses and the times, or the error that stopped it.

    ``threads="1"`` times it on one thread (keys ``fit_s``, ``predict_s`` and their CPU
    seconds ``fit_cpu_s``, ``predict_cpu_s``); ``"all"`` on every core (the same keys
    ending in ``_all``).
    """
    model = _hgb(X.iloc[train]) if spec == HGB else make_model(spec)
    set_jobs(model, 1 if threads == "1" else -1)
    if timeout:
        signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(int(timeout))
    try:
        with warnings.catch_warnings(), threadpool_limits(1 if threads == "1" else None):
            warnings.simplefilter("ignore")
            start, cpu_start = time.perf_counter(), time.process_time()
            model.fit(X.iloc[train], y[train])
            fitted, cpu_fitted = time.perf_counter(), time.process_time()
            proba = model.predict_proba(X.iloc[test])
            done, cpu_done = time.perf_counter(), time.process_time()
    except _Timeout:
        return {"error": f"over {timeout} s"}
    except Exception as error:  # a refusal is a result, not a crash of the benchmark
        last = traceback.extract_tb(error.__traceback__)[-1]
        where = f"{Path(last.filename).name}:{last.lineno}"
        return {"error": f"{type(error).__name__}: {error} ({where})"}
    finally:
        if timeout:
            signal.alarm(0)
    full = np.zeros((len(test), len(classes)))
    full[:, np.searchsorted(classes, model.classes_)] = proba
    fit_key, predict_key, fit_cpu_key, predict_cpu_key = TIME_KEYS[threads]
    return {
        **probability_scores(full, y[test], classes),
        fit_key: fitted - start,
        predict_key: done - fitted,
        fit_cpu_key: cpu_fitted - cpu_start,
        predict_cpu_key: cpu_done - cpu_fitted,
    }


def probability_scores(full, truth, classes) -> dict:
    """0-1 loss, log loss, RMSE and rows below the floor of the probabilities ``full``
    (one column per class of ``classes``, sorted) for the true labels ``truth``."""
    truth_codes = np.searchsorted(classes, truth)
    rows = np.arange(len(truth_codes))
    p_true = full[rows, truth_codes]
    onehot = np.zeros_like(full)
    onehot[rows, truth_codes] = 1.0
    predicted = classes[np.argmax(full, axis=1)]
    return {
        "zero_one": float(np.mean(predicted != truth)),
        "log_loss": float(-np.mean(np.log(np.maximum(p_true, FLOOR)))),
        "rmse": float(np.sqrt(np.mean(np.sum((full - onehot) ** 2, axis=1) / len(classes)))),
        "below_floor": int(np.sum(p_true < FLOOR)),
    }


def cv_folds(X, y, repeats=5) -> list:
    """The ``(train, test)`` index pairs of the protocol: ``RepeatedStratifiedKFold(2,
    repeats, random_state=0)``, repeat by repeat (folds ``2 i`` and ``2 i + 1`` split
    the rows once)."""
    cv = RepeatedStratifiedKFold(n_splits=2, n_repeats=repeats, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # classes with one member: stratification warns
        return list(cv.split(X, y))


def _missing_modes(fold: dict | None, modes) -> list:
    """The thread settings of ``modes`` a stored fold has no times for (all: not stored)."""
    if fold is None:
        return list(modes)
    if "error" in fold:
        return []  # refused on one thread: a refusal, not timed again
    return [
        m for m in modes if TIME_KEYS[m][0] not in fold and not (m == "all" and "error_all" in fold)
    ]


def _merge(fold: dict | None, new: dict, mode: str, log, where: str) -> dict:
    """A stored fold with a thread setting's new scores: its losses kept if it had them."""
    if fold is None or "error" in fold:
        return new
    if "error" in new:
        fold["error_all" if mode == "all" else "error"] = new["error"]
        return fold
    if "log_loss" in fold and not np.isclose(fold["log_loss"], new["log_loss"], rtol=1e-9):
        log(
            f"{where}: log loss {new['log_loss']:.6f} under {mode} thread(s), "
            f"{fold['log_loss']:.6f} before"
        )
    for key, value in new.items():
        fold.setdefault(key, value)
    return fold


def _mean(values) -> float:
    """The mean of the numbers that are there (NaN if none, without numpy's warning)."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    return float(values.mean()) if len(values) else math.nan


def run_set(
    name,
    target,
    path,
    specs,
    results,
    *,
    force=False,
    timeout=None,
    log=print,
    repeats=5,
    threads="1",
):
    """Every model of ``specs`` on the ``2 * repeats`` folds of one set, into ``results[name]``.

    The folds are the outer loop and the models the inner one, so a change of the
    machine's load falls on every model alike. Each fold's record holds the losses, the
    times of each thread setting of ``threads`` and the fold's place in the protocol
    (``repeat``, ``half``: the combined 5x2cv F test pairs the two halves of a repeat).
    A stored fold gets only the times it lacks (``--force``: everything again).
    """
    X, y = load_set(path, target)
    classes = np.unique(y)
    folds = cv_folds(X, y, repeats)
    entry = results.setdefault(name, {})
    modes = THREADS[threads]
    todo = {}
    for spec in specs:
        stored = None if force else entry.get(spec)
        if stored is not None and len(stored) != len(folds):
            stored = None  # another protocol's folds
        stored = stored or [None] * len(folds)
        if any(_missing_modes(fold, modes) for fold in stored):
            todo[spec] = stored
    for index, (train, test) in enumerate(folds):
        for spec, stored in todo.items():
            for mode in _missing_modes(stored[index], modes):
                new = fold_scores(spec, X, y, train, test, classes, timeout, threads=mode)
                stored[index] = _merge(stored[index], new, mode, log, f"{name} {spec} {index}")
            stored[index].update(repeat=index // 2, half=index % 2)
    for spec, scores in todo.items():
        entry[spec] = scores
        errors = [s["error"] for s in scores if "error" in s]
        if errors:
            log(f"{name:28s} {spec:34s} REFUSED {len(errors)}/{len(folds)}: {errors[0][:120]}")
            continue
        mean = {
            k: _mean([s.get(k, math.nan) for s in scores])
            for k in ("zero_one", "log_loss", "fit_s", "fit_s_all")
        }
        times = "".join(
            f" {mean[key]:.3f} s ({label})"
            for key, label in (("fit_s", "1 thread"), ("fit_s_all", "all cores"))
            if not math.isnan(mean[key])
        )
        log(
            f"{name:28s} {spec:34s} 0-1 {mean['zero_one']:.4f}  log {mean['log_loss']:.4f}  "
            f"fit{times}"
        )
    return entry


# -- summaries -------------------------------------------------------------------------

#: Significance level of the combined 5x2cv F test and of the Nemenyi critical difference.
ALPHA = 0.05
#: Two mean losses within this much of each other are a draw (``--draw``).
DRAW = 1e-3
LABELS = {"zero_one": "0-1", "log_loss": "log loss", "rmse": "RMSE"}
SHORT_PEER = {RF: "RF", HGB: "HGB"}


def _refused(scores) -> bool:
    return any("error" in s for s in scores)


def set_means(results: dict, specs, metric: str) -> pd.DataFrame:
    """Sets x models: the mean of ``metric`` over the folds (NaN: a refusal, a model not run
    on the set, or a fold without the value, e.g. times of a thread setting not measured)."""
    table = {}
    for name, entry in results.items():
        row = {}
        for spec in specs:
            scores = entry.get(spec)
            if scores is None:
                continue
            values = [math.nan if _refused(scores) else s.get(metric, math.nan) for s in scores]
            row[spec] = math.nan if np.isnan(values).any() else float(np.mean(values))
        table[name] = row
    return pd.DataFrame.from_dict(table, orient="index").reindex(columns=list(specs))


def loss_table(results: dict, specs, metric: str) -> pd.DataFrame:
    """Sets x models: the mean loss over the folds; ``inf`` for a refusal (it loses to any
    result and ranks last), NaN for a model not run on the set."""
    table = set_means(results, specs, metric)
    for name, entry in results.items():
        for spec in specs:
            if spec in entry and _refused(entry[spec]):
                table.loc[name, spec] = math.inf
    return table


def wins_draws_losses(means: pd.DataFrame, spec: str, against: str = RF, draw=DRAW) -> tuple:
    """Sets where ``spec``'s mean loss is lower than ``against``'s by more than ``draw``,
    within ``draw``, higher by more. ``inf`` is a refusal: it loses to any result (two
    refusals draw); sets where either has NaN (not run) are left out."""
    both = means[[spec, against]].dropna()
    a, b = both[spec].to_numpy(dtype=float), both[against].to_numpy(dtype=float)
    a_out, b_out = np.isinf(a), np.isinf(b)
    with np.errstate(invalid="ignore"):
        close = np.where(a_out | b_out, a_out & b_out, np.abs(a - b) <= draw * (1 + 1e-9))
        wins = np.where(a_out | b_out, b_out & ~a_out, (a < b) & ~close)
    wins, draws = int(np.sum(wins)), int(np.sum(close))
    return wins, draws, len(both) - wins - draws


def fold_losses(scores, metric: str) -> np.ndarray:
    """A model's per-fold losses in the protocol's order (repeat, then half)."""
    ordered = sorted(
        enumerate(scores),
        key=lambda item: (item[1].get("repeat", item[0] // 2), item[1].get("half", item[0] % 2)),
    )
    return np.array([s[metric] for _, s in ordered], dtype=float)


def ftest_table(results: dict, spec: str, against: str, metric: str, alpha=ALPHA) -> pd.DataFrame:
    """Per set, ``spec`` against ``against`` by the combined 5x2cv F test on ``metric``.

    Columns ``diff`` (mean loss of ``spec`` minus ``against``'s), ``statistic``,
    ``pvalue`` and ``verdict``: +1 significantly lower loss at ``alpha``, -1 significantly
    higher, 0 neither; a refusal is a significant loss (+1 for the other model; two
    refusals 0). Losses equal fold by fold to :data:`ROUNDING` get p = 1. NaN when the
    folds are not 5x2 CV's ten. Sets without both models are left out.
    """
    from bnclassify.metrics import combined_5x2cv_ftest

    rows = {}
    for name, entry in results.items():
        if spec not in entry or against not in entry:
            continue
        mine, theirs = entry[spec], entry[against]
        row = {"diff": math.nan, "statistic": math.nan, "pvalue": math.nan}
        if _refused(mine) or _refused(theirs):
            row["verdict"] = int(_refused(theirs)) - int(_refused(mine))
        elif len(mine) != 10 or len(theirs) != 10:
            row["verdict"] = math.nan
        else:
            a, b = fold_losses(mine, metric), fold_losses(theirs, metric)
            diff = float(np.mean(a - b))
            if np.all(np.abs(a - b) <= ROUNDING * np.maximum(1.0, np.abs(b))):
                # the same losses to rounding (two programs' sums of logs): the F test
                # would read the last bits as a consistent difference
                statistic, pvalue = 0.0, 1.0
            else:
                test = combined_5x2cv_ftest(a, b)
                statistic, pvalue = test.statistic, test.pvalue
            significant = pvalue < alpha
            row.update(diff=diff, statistic=statistic, pvalue=pvalue)
            row["verdict"] = int(-np.sign(diff)) if significant else 0
        rows[name] = row
    return pd.DataFrame.from_dict(
        rows, orient="index", columns=["diff", "statistic", "pvalue", "verdict"]
    )


def significant_wins_losses(results, spec, against, metric, alpha=ALPHA):
    """``(wins, losses)`` of ``spec`` against ``against`` by the 5x2cv F test, or None when
    the folds are not 5x2 CV's."""
    verdicts = ftest_table(results, spec, against, metric, alpha)["verdict"]
    if verdicts.isna().any():
        return None
    return int((verdicts > 0).sum()), int((verdicts < 0).sum())


def complete_losses(results: dict, specs, metric: str) -> pd.DataFrame:
    """:func:`loss_table` on the sets where every model ran (refusals ``inf``)."""
    return loss_table(results, specs, metric).dropna()


def mean_ranks(means: pd.DataFrame) -> pd.Series:
    """Each model's rank per set (1 best, ties averaged, a refusal last), averaged over the
    sets where every model ran (NaN in ``means`` is read as a refusal if the set is kept)."""
    from bnclassify.metrics import mean_ranks as ranks_of

    if means.empty:
        return pd.Series(math.nan, index=means.columns)
    if means.shape[1] == 1:
        return pd.Series(1.0, index=means.columns)
    return ranks_of(means.fillna(np.inf)).sort_values()


def friedman_lines(results: dict, specs, alpha=ALPHA) -> list:
    """Friedman's test (Iman-Davenport) and the Nemenyi critical difference per loss."""
    from bnclassify.metrics import friedman_test, nemenyi_critical_difference

    lines = []
    for metric in ("zero_one", "log_loss"):
        table = complete_losses(results, specs, metric)
        n, k = table.shape
        if n < 2 or k < 2:
            continue
        test = friedman_test(table)
        cd = nemenyi_critical_difference(k, n, alpha)
        lines.append(
            f"{LABELS[metric]}: {k} models over {n} sets; Friedman chi2 = {test.chi2:.2f}, "
            f"Iman-Davenport F({test.df_num}, {test.df_den}) = {test.statistic:.2f}, "
            f"p = {test.pvalue:.2g}; Nemenyi critical difference at {alpha:g} = {cd:.2f} "
            "(mean ranks further apart differ)"
        )
    return lines


def _total(means: pd.Series) -> float:
    return round(float(means.sum(min_count=1)), 2)


def summary_table(results: dict, specs, *, draw=DRAW, alpha=ALPHA) -> pd.DataFrame:
    """One row per model: mean ranks; against each peer run, W/D/L (draws within ``draw``)
    and significant wins/losses (combined 5x2cv F test at ``alpha``) on 0-1 and log loss;
    refusals; times summed over the sets (per-set means of the folds) on one thread
    (wall and CPU seconds) and on every core."""
    specs = list(specs)
    peers = [p for p in PEERS if p in specs]
    tables = {m: loss_table(results, specs, m) for m in LABELS}
    ranks = {m: mean_ranks(t.dropna()) for m, t in tables.items()}
    times = {
        key: set_means(results, specs, key)
        for key in (
            "fit_s",
            "predict_s",
            "fit_cpu_s",
            "predict_cpu_s",
            "fit_s_all",
            "predict_s_all",
        )
    }
    floors = set_means(results, specs, "below_floor")
    rows = []
    for spec in specs:
        row = {"model": spec}
        for metric in ("zero_one", "log_loss", "rmse"):
            label = LABELS[metric]
            row[f"{label} rank"] = ranks[metric].get(spec, math.nan)
            for peer in peers if metric != "rmse" else [p for p in peers if p == RF]:
                if spec == peer:
                    continue
                short = SHORT_PEER[peer]
                w, d, loss = wins_draws_losses(tables[metric], spec, peer, draw)
                row[f"{label} W/D/L vs {short}"] = f"{w}/{d}/{loss}"
                if metric == "rmse":
                    continue
                significant = significant_wins_losses(results, spec, peer, metric, alpha)
                row[f"{label} sig W/L vs {short}"] = (
                    "n/a" if significant is None else f"{significant[0]}/{significant[1]}"
                )
        row["refused sets"] = int(np.isinf(tables["zero_one"][spec]).sum())
        row["rows < 1e-15 (sum of fold means)"] = round(float(floors[spec].sum()), 1)
        row["fit s (1 thread)"] = _total(times["fit_s"][spec])
        row["predict s (1 thread)"] = _total(times["predict_s"][spec])
        row["fit CPU s (1 thread)"] = _total(times["fit_cpu_s"][spec])
        row["predict CPU s (1 thread)"] = _total(times["predict_cpu_s"][spec])
        row["fit s (all cores)"] = _total(times["fit_s_all"][spec])
        row["predict s (all cores)"] = _total(times["predict_s_all"][spec])
        rows.append(row)
    order = ["model"]
    for metric in ("zero_one", "log_loss", "rmse"):
        label = LABELS[metric]
        order.append(f"{label} rank")
        for peer in peers if metric != "rmse" else [RF]:
            short = SHORT_PEER[peer]
            order += [f"{label} W/D/L vs {short}", f"{label} sig W/L vs {short}"]
    table = pd.DataFrame(rows)
    return table[[c for c in order if c in table.columns] + TIME_COLUMNS].set_index("model")


#: The columns of the times table (the rest of :func:`summary_table` is the losses table).
TIME_COLUMNS = [
    "refused sets",
    "rows < 1e-15 (sum of fold means)",
    "fit s (1 thread)",
    "predict s (1 thread)",
    "fit CPU s (1 thread)",
    "predict CPU s (1 thread)",
    "fit s (all cores)",
    "predict s (all cores)",
]


def split_summary(summary: pd.DataFrame) -> tuple:
    """The summary as two narrower tables: the losses and the times."""
    times = [c for c in TIME_COLUMNS if c in summary.columns]
    return summary.drop(columns=times), summary[times]


def resolve(spec: str, specs) -> str:
    """The name under which ``spec`` is run: itself, or the short name of the same model."""
    if spec in specs:
        return spec
    for other in specs:
        if SHORT.get(other) == spec or SHORT.get(spec) == other:
            return other
    return spec


def targets(results: dict, best: str, *, draw=DRAW, alpha=ALPHA) -> list:
    """The recommended model's targets against the forest (issue 43), each a dict with
    ``target``, ``value`` (the numbers) and ``met`` (True, False, or None: not checkable).

    Over the sets where both ran: log loss wins on at least 2/3 of them; 0-1 wins on at
    least half; significantly worse on 0-1 (combined 5x2cv F test, ``alpha``) on at most
    1 in 6; total fit and total predict time on one thread below the forest's. A refusal
    is a loss (and a significant one); times are summed over the sets both fitted.
    """
    rows = []
    for metric, share, text in (
        ("log_loss", (2, 3), "log loss wins on >= 2/3 of the sets"),
        ("zero_one", (1, 2), "0-1 loss wins on >= 1/2 of the sets"),
    ):
        w, d, loss = wins_draws_losses(loss_table(results, [best, RF], metric), best, RF, draw)
        n = w + d + loss
        rows.append(
            {
                "target": text,
                "value": f"{w}/{n} = {w / n if n else math.nan:.3f} (W/D/L {w}/{d}/{loss})",
                "met": share[1] * w >= share[0] * n if n else None,
            }
        )
    table = ftest_table(results, best, RF, "zero_one", alpha)
    n = len(table)
    if n == 0 or table["verdict"].isna().any():
        rows.append(
            {
                "target": f"0-1 significantly worse (5x2cv F, {alpha:g}) on <= 1/6 of the sets",
                "value": "needs the ten folds of 5x2 CV",
                "met": None,
            }
        )
    else:
        worse = table[table["verdict"] < 0]
        named = ", ".join(
            f"{name} ({'refused' if np.isnan(r.pvalue) else f'p={r.pvalue:.3f}'})"
            for name, r in worse.iterrows()
        )
        rows.append(
            {
                "target": f"0-1 significantly worse (5x2cv F, {alpha:g}) on <= 1/6 of the sets",
                "value": f"{len(worse)}/{n} = {len(worse) / n:.3f}"
                + (f": {named}" if named else ""),
                "met": 6 * len(worse) <= n,
            }
        )
    for key, cpu, text in (
        ("fit_s", "fit_cpu_s", "total fit s, one thread each, below the forest's"),
        ("predict_s", "predict_cpu_s", "total predict s, one thread each, below the forest's"),
    ):
        wall = set_means(results, [best, RF], key).dropna()
        used = set_means(results, [best, RF], cpu).dropna()
        if wall.empty:
            rows.append({"target": text, "value": "not measured on one thread", "met": None})
            continue
        mine, theirs = wall[best].sum(), wall[RF].sum()
        value = f"{mine:.2f} vs {theirs:.2f} = {mine / theirs:.2f}x over {len(wall)} sets"
        if not used.empty:
            value += f" (CPU s: {used[best].sum():.2f} vs {used[RF].sum():.2f} = " + (
                f"{used[best].sum() / used[RF].sum():.2f}x)"
            )
        rows.append({"target": text, "value": value, "met": bool(mine < theirs)})
    return rows


def targets_block(results: dict, best: str, *, draw=DRAW, alpha=ALPHA) -> str:
    """:func:`targets` as the text ``uci.py`` prints."""
    rows = targets(results, best, draw=draw, alpha=alpha)
    word = {True: "met", False: "NOT MET", None: "not checked"}
    lines = [f"targets of {best} against {RF} (draws within {draw:g}):"]
    for row in rows:
        lines.append(f"  [{word[row['met']]:>11s}] {row['target']}: {row['value']}")
    unmet = sum(row["met"] is False for row in rows)
    unchecked = sum(row["met"] is None for row in rows)
    verdict = "all met" if unmet == 0 and unchecked == 0 else f"{unmet} not met"
    if unchecked:
        verdict += f", {unchecked} not checked"
    lines.append(f"  => {verdict} ({len(rows)} targets)")
    return "\n".join(lines)


def marked_table(results: dict, specs, metric: str, alpha=ALPHA) -> pd.DataFrame:
    """Per set and model the mean loss, followed by ``+RF``/``-RF`` (significantly lower /
    higher than the forest's by the 5x2cv F test at ``alpha``) and ``+HGB``/``-HGB``."""
    values = per_set_table(results, specs, metric)
    table = values.astype(object).map(lambda v: "" if pd.isna(v) else f"{v:.4f}")
    for spec in specs:
        for peer in PEERS:
            if peer == spec or peer not in specs:
                continue
            verdicts = ftest_table(results, spec, peer, metric, alpha)["verdict"]
            for name, verdict in verdicts.items():
                if verdict in (1, -1):
                    mark = ("+" if verdict > 0 else "-") + SHORT_PEER[peer]
                    table.loc[name, spec] = f"{table.loc[name, spec]} {mark}".strip()
    for spec in specs:
        for name, entry in results.items():
            if spec in entry and _refused(entry[spec]):
                table.loc[name, spec] = "refused"
    return table


def per_set_table(results: dict, specs, metric: str) -> pd.DataFrame:
    return set_means(results, specs, metric).round(4)


def figure(results: dict, spec: str, path: Path, draw=DRAW) -> None:
    """Log loss and 0-1 loss of ``spec`` against random forest's, one point per set."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.8))
    for ax, metric, label in zip(
        axes, ("log_loss", "zero_one"), ("log loss", "0-1 loss"), strict=True
    ):
        counted = loss_table(results, [spec, RF], metric)
        means = counted.replace(np.inf, np.nan).dropna()
        ax.scatter(means[RF], means[spec], color="#0072B2", s=28)
        for name, row in means.iterrows():
            ax.annotate(
                name,
                (row[RF], row[spec]),
                fontsize=7,
                xytext=(3, 2),
                textcoords="offset points",
                color="#444444",
            )
        top = float(np.nanmax(means.to_numpy())) * 1.05 if len(means) else 1.0
        ax.plot([0, top], [0, top], color="#999999", linewidth=1)
        w, d, loss = wins_draws_losses(counted, spec, RF, draw)
        ax.set(
            xlim=(0, top),
            ylim=(0, top),
            xlabel=f"random forest {label}",
            ylabel=f"{spec} {label}",
            title=f"{label}: {w} wins / {d} draws / {loss} losses (below the line: better)",
        )
        ax.title.set_fontsize(9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=150)
    plt.close(fig)


def display(spec: str) -> str:
    """A model's name for a figure: the expression of a short name, without its seed.

    >>> display("eskdb10")
    'ESKDB(n_estimators=10)'
    """
    text = SHORT.get(spec, spec)
    return text.replace(", random_state=0", "").replace("random_state=0", "")


def cd_figure(results: dict, specs, path: Path, alpha=ALPHA) -> None:
    """Demsar's critical-difference diagrams of 0-1 loss and log loss over the sets where
    every model ran (a refusal ranks last)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bnclassify.plotting import plot_critical_difference

    fig, axes = plt.subplots(2, 1, figsize=(8.0, 3.2 + 0.45 * len(specs)), layout="constrained")
    for ax, metric in zip(axes, ("zero_one", "log_loss"), strict=True):
        table = complete_losses(results, specs, metric)
        table.columns = [display(c) for c in table.columns]
        plot_critical_difference(table, alpha=alpha, ax=ax)
        name = "0-1 loss" if metric == "zero_one" else LABELS[metric]
        ax.set_title(f"{name}: " + ax.get_title(), fontsize=9)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=150)
    plt.close(fig)


def to_markdown(table: pd.DataFrame) -> str:
    """A pipe table of ``table`` with its index as the first column (no extra dependency)."""

    def cell(value):
        if isinstance(value, float):
            return "" if math.isnan(value) else f"{value:.4g}"
        return str(value)

    head = [str(table.index.name or ""), *map(str, table.columns)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, row in table.iterrows():
        lines.append("| " + " | ".join([str(name), *map(cell, row.tolist())]) + " |")
    return "\n".join(lines)


def markdown(results: dict, specs, *, best=None, draw=DRAW, alpha=ALPHA) -> str:
    losses, times = split_summary(summary_table(results, specs, draw=draw, alpha=alpha))
    parts = [
        f"### Losses over the sets (5x2 CV; draws within {draw:g}; sig: combined 5x2cv F "
        f"test at {alpha:g})\n",
        to_markdown(losses),
        "\n\n### Times summed over the sets (each set: the mean of its folds)\n",
        to_markdown(times),
    ]
    lines = friedman_lines(results, specs, alpha)
    if lines:
        parts += ["\n", *(f"- {line}" for line in lines)]
    if best and RF in specs:
        parts += ["\n```text", targets_block(results, best, draw=draw, alpha=alpha), "```"]
    for metric, label in (("log_loss", "Log loss"), ("zero_one", "0-1 loss")):
        parts += [
            f"\n\n### {label} per set (mean of the folds; +RF/-RF, +HGB/-HGB: significantly "
            f"lower/higher than the peer's, 5x2cv F test at {alpha:g})\n",
            to_markdown(marked_table(results, specs, metric, alpha)),
        ]
    for metric, label in (("fit_s", "Fit s, 1 thread"), ("fit_s_all", "Fit s, all cores")):
        table = per_set_table(results, specs, metric)
        if table.notna().any().any():
            parts += [
                f"\n\n### {label}, per set (mean of the folds)\n",
                to_markdown(table),
            ]
    return "\n".join(parts) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder with MANIFEST.csv")
    parser.add_argument("--sets", default="", help="comma-separated set names (default: all)")
    parser.add_argument(
        "--models",
        default=DEFAULT_MODELS,
        help=f"comma-separated model names (default {DEFAULT_MODELS}); short "
        f"names: {', '.join(SHORT)}; or expressions; ';' separates expressions "
        "that contain commas",
    )
    parser.add_argument("--no-peers", action="store_true", help="skip random forest and HGB")
    parser.add_argument("--peers", default="rf,hgb", help="the peers run (rf, hgb; default both)")
    parser.add_argument(
        "--repeats",
        type=int,
        default=5,
        help="2-fold repeats (default 5: 5x2 CV; 1: one 2-fold split, a quick look; keep "
        "each protocol in its own --results file)",
    )
    parser.add_argument(
        "--threads",
        choices=sorted(THREADS),
        default="1",
        help="time each fold on one thread (1, the default), on every core (all), or both "
        "(two fits per fold; the losses are the one-thread fit's)",
    )
    parser.add_argument("--results", type=Path, help="JSON file kept per (set, model)")
    parser.add_argument("--force", action="store_true", help="recompute models already stored")
    parser.add_argument("--timeout", type=float, default=None, help="seconds per fold and model")
    parser.add_argument("--markdown", type=Path, help="write the summary tables here")
    parser.add_argument("--figure", type=Path, help="the best model against random forest")
    parser.add_argument(
        "--cd-figure", type=Path, help="critical-difference diagrams (0-1 and log loss)"
    )
    parser.add_argument(
        "--best",
        help="the model of the figure and of the targets block (default: the best log loss "
        "rank but the peers'); a short name or the expression",
    )
    parser.add_argument(
        "--draw",
        type=float,
        default=DRAW,
        help=f"mean losses within this much of each other draw (default {DRAW:g})",
    )
    parser.add_argument(
        "--alpha",
        type=float,
        default=ALPHA,
        help=f"level of the 5x2cv F test and of the critical difference (default {ALPHA:g})",
    )
    parser.add_argument("--report-only", action="store_true", help="summarise --results only")
    args = parser.parse_args(argv)

    specs = model_specs(args.models)
    if not args.no_peers:
        chosen = {"rf": RF, "hgb": HGB}
        peers = [chosen[p.strip()] for p in args.peers.split(",") if p.strip()]
        specs = [*peers, *[s for s in specs if s not in PEERS]]
    best = resolve(args.best, specs) if args.best else None
    if best and best not in specs:
        specs.append(best)
    results = json.loads(args.results.read_text()) if args.results and args.results.exists() else {}
    sets = read_collection(args.data, [s for s in args.sets.split(",") if s])
    if not args.report_only:
        for name, target, path in sets:
            run_set(
                name,
                target,
                path,
                specs,
                results,
                force=args.force,
                timeout=args.timeout,
                repeats=args.repeats,
                threads=args.threads,
                log=lambda line: print(line, flush=True),
            )
            if args.results:
                args.results.write_text(json.dumps(results, indent=1))
    shown = {name: results[name] for name, _, _ in sets if name in results}
    options = {"draw": args.draw, "alpha": args.alpha}
    losses, times = split_summary(summary_table(shown, specs, **options))
    with pd.option_context("display.width", 250, "display.max_columns", 40):
        print(losses.to_string(), times.to_string(), sep="\n\n")
    for line in friedman_lines(shown, specs, args.alpha):
        print(line)
    best = best or next(
        (s for s in mean_ranks(complete_losses(shown, specs, "log_loss")).index if s not in PEERS),
        None,
    )
    if best and RF in specs and shown:
        print(targets_block(shown, best, **options))
    if args.markdown:
        args.markdown.write_text(markdown(shown, specs, best=best, **options))
    if args.figure and best:
        figure(shown, best, args.figure, args.draw)
    if args.cd_figure:
        cd_figure(shown, specs, args.cd_figure, args.alpha)
    print(f"machine load {os.getloadavg()[0]:.1f}; {len(shown)} sets", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
