"""bnclassify models against random forest and gradient boosting on a UCI collection.

Usage::

    python benchmarks/uci.py                                   # default models, every set
    python benchmarks/uci.py --models nb,tan,kdb2 --sets car,vote
    python benchmarks/uci.py --models skdb,eskdb --no-peers --results /tmp/e.json  # no HGB
    python benchmarks/uci.py --models "RandomForest,eskdb" --no-peers   # RF, not HGB
    python benchmarks/uci.py --models "kdb2,KDB(k=2, smoothing='hdp')" --results /tmp/r.json
    python benchmarks/uci.py --models "mdl:TAN()"               # MDLDiscretizer, then TAN
    python benchmarks/uci.py --report-only --results benchmarks/results_uci.json \\
        --markdown /tmp/uci.md --figure figures/uci_vs_rf.png --best "ESKDB()"

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
columns with at most 255 categories as native categoricals. Every model runs on
one thread (``threadpool_limits(1)``; random forest's default ``n_jobs`` is one
job anyway), so the times compare the algorithms, not the thread counts.

Per fold: 0-1 loss; log loss (the true class's probability clipped at 1e-15);
RMSE of the probability vector, ``sqrt(mean_i sum_c (p_ic - [c = y_i])^2 / C)``
(the definition of Petitjean et al. 2018); the number of test rows whose true
class gets a probability below 1e-15; fit and predict seconds. A class absent
from a training fold gets probability 0. A model that raises on a fold is a
refusal: the error is recorded and the set counts as a loss for it.

Summaries: per set the mean over the folds; wins/draws/losses of each model
against random forest (a draw: equal means to 1e-9); mean ranks over the sets
(average ranks for ties, a refusal ranks last); total fit time. Results are
kept per (set, model) in ``--results`` (JSON), so a later run adds models or
sets without recomputing the others (``--force`` recomputes).

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
#: Short names of bnclassify models (anything else is an expression over bnclassify).
SHORT = {
    "nb": "NaiveBayes()",
    "tan": "TAN()",
    "kdb1": "KDB(k=1)",
    "kdb2": "KDB(k=2)",
    "aode": "AODE()",
    "bmatan": "BMATAN()",
    "skdb": "SKDB()",
    "eskdb": "ESKDB(random_state=0)",
    "eskdb10": "ESKDB(n_estimators=10, random_state=0)",
}
DEFAULT_MODELS = "nb,tan,kdb2,aode,bmatan"
FLOOR = 1e-15


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


def load_set(path: Path, target: str):
    """``X`` as ``pd.read_csv`` gives it and the labels as strings."""
    frame = pd.read_csv(path)
    y = frame.pop(target)
    return frame, y.astype(str).to_numpy()


def _namespace() -> dict:
    space = {name: getattr(bnclassify, name) for name in bnclassify.__all__}
    space["bnclassify"] = bnclassify
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
    categorical = _categorical_columns(X)
    numeric = [c for c in X.columns if c not in categorical]
    native = [c for c in categorical if 0 < X[c].nunique() <= 255]  # none seen: numeric NaN
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


def fold_scores(spec, X, y, train, test, classes, timeout=None) -> dict:
    """One model on one fold: the losses, the times, or the error that stopped it."""
    model = _hgb(X.iloc[train]) if spec == HGB else make_model(spec)
    if timeout:
        signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(int(timeout))
    try:
        with warnings.catch_warnings(), threadpool_limits(1):
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            model.fit(X.iloc[train], y[train])
            fitted = time.perf_counter()
            proba = model.predict_proba(X.iloc[test])
            done = time.perf_counter()
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
    return {
        **probability_scores(full, y[test], classes),
        "fit_s": fitted - start,
        "predict_s": done - fitted,
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


def run_set(name, target, path, specs, results, *, force=False, timeout=None, log=print, repeats=5):
    """Every model of ``specs`` on the ``2 * repeats`` folds of one set, into ``results[name]``."""
    X, y = load_set(path, target)
    classes = np.unique(y)
    folds = cv_folds(X, y, repeats)
    entry = results.setdefault(name, {})
    for spec in specs:
        if spec in entry and not force:
            continue
        scores = [fold_scores(spec, X, y, tr, te, classes, timeout) for tr, te in folds]
        entry[spec] = scores
        errors = [s["error"] for s in scores if "error" in s]
        if errors:
            log(f"{name:28s} {spec:34s} REFUSED {len(errors)}/{len(folds)}: {errors[0][:120]}")
        else:
            mean = {k: np.mean([s[k] for s in scores]) for k in ("zero_one", "log_loss", "fit_s")}
            log(
                f"{name:28s} {spec:34s} 0-1 {mean['zero_one']:.4f}  log {mean['log_loss']:.4f}  "
                f"fit {mean['fit_s']:.3f} s"
            )
    return entry


# -- summaries -------------------------------------------------------------------------


def set_means(results: dict, specs, metric: str) -> pd.DataFrame:
    """Sets x models: the mean of ``metric`` over the ten folds (NaN: a refusal)."""
    table = {}
    for name, entry in results.items():
        row = {}
        for spec in specs:
            scores = entry.get(spec)
            if scores is None:
                continue
            refused = any("error" in s for s in scores)
            row[spec] = math.nan if refused else float(np.mean([s[metric] for s in scores]))
        table[name] = row
    return pd.DataFrame.from_dict(table, orient="index").reindex(columns=list(specs))


def wins_draws_losses(means: pd.DataFrame, spec: str, against: str = RF) -> tuple:
    """Sets where ``spec`` has the lower mean loss than ``against``, equal, higher (a refusal
    of ``spec`` is a loss)."""
    both = means[[spec, against]].dropna(subset=[against])
    a, b = both[spec].to_numpy(), both[against].to_numpy()
    refused = np.isnan(a)
    close = np.isclose(a, b, rtol=1e-9, atol=1e-12) & ~refused
    wins = int(np.sum((a < b) & ~close & ~refused))
    draws = int(np.sum(close))
    return wins, draws, len(both) - wins - draws


def mean_ranks(means: pd.DataFrame) -> pd.Series:
    """Each model's rank per set (1 best, ties averaged, a refusal last), averaged."""
    filled = means.fillna(np.inf)
    return filled.rank(axis=1, method="average").mean(axis=0).sort_values()


def summary_table(results: dict, specs) -> pd.DataFrame:
    """One row per model: ranks, W/D/L against random forest, refusals, total times."""
    rows = []
    means = {m: set_means(results, specs, m) for m in ("zero_one", "log_loss", "rmse")}
    ranks = {m: mean_ranks(t) for m, t in means.items()}
    for spec in specs:
        fits = set_means(results, [spec], "fit_s")[spec]
        predicts = set_means(results, [spec], "predict_s")[spec]
        floors = set_means(results, [spec], "below_floor")[spec]
        row = {"model": spec}
        for metric, label in (("zero_one", "0-1"), ("log_loss", "log loss"), ("rmse", "RMSE")):
            row[f"{label} rank"] = ranks[metric].get(spec, math.nan)
            if spec != RF and RF in specs:  # --no-peers: nothing to count against
                w, d, loss = wins_draws_losses(means[metric], spec)
                row[f"{label} W/D/L vs RF"] = f"{w}/{d}/{loss}"
        row["refused sets"] = int(means["zero_one"][spec].isna().sum())
        row["rows < 1e-15 (sum of fold means)"] = round(float(floors.sum()), 1)
        row["fit s (total)"] = round(float(fits.sum()), 2)
        row["predict s (total)"] = round(float(predicts.sum()), 2)
        rows.append(row)
    return pd.DataFrame(rows).set_index("model")


def per_set_table(results: dict, specs, metric: str) -> pd.DataFrame:
    return set_means(results, specs, metric).round(4)


def figure(results: dict, spec: str, path: Path) -> None:
    """Log loss and 0-1 loss of ``spec`` against random forest's, one point per set."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.8))
    for ax, metric, label in zip(
        axes, ("log_loss", "zero_one"), ("log loss", "0-1 loss"), strict=True
    ):
        means = set_means(results, [spec, RF], metric).dropna()
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
        w, d, loss = wins_draws_losses(means, spec)
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


def markdown(results: dict, specs) -> str:
    parts = ["### Summary over the sets (5x2 CV)\n", to_markdown(summary_table(results, specs))]
    for metric, label in (("log_loss", "Log loss"), ("zero_one", "0-1 loss"), ("fit_s", "Fit s")):
        parts += [
            f"\n\n### {label} per set (mean of 10 folds; blank: refused)\n",
            to_markdown(per_set_table(results, specs, metric)),
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
    parser.add_argument("--results", type=Path, help="JSON file kept per (set, model)")
    parser.add_argument("--force", action="store_true", help="recompute models already stored")
    parser.add_argument("--timeout", type=float, default=None, help="seconds per fold and model")
    parser.add_argument("--markdown", type=Path, help="write the summary tables here")
    parser.add_argument("--figure", type=Path, help="the best model against random forest")
    parser.add_argument("--best", help="the model the figure shows (default: best log loss rank)")
    parser.add_argument("--report-only", action="store_true", help="summarise --results only")
    args = parser.parse_args(argv)

    specs = model_specs(args.models)
    if not args.no_peers:
        chosen = {"rf": RF, "hgb": HGB}
        peers = [chosen[p.strip()] for p in args.peers.split(",") if p.strip()]
        specs = [*peers, *[s for s in specs if s not in PEERS]]
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
            )
            if args.results:
                args.results.write_text(json.dumps(results, indent=1))
    shown = {name: results[name] for name, _, _ in sets if name in results}
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(summary_table(shown, specs).to_string())
    if args.markdown:
        args.markdown.write_text(markdown(shown, specs))
    if args.figure:
        best = args.best or next(
            (s for s in mean_ranks(set_means(shown, specs, "log_loss")).index if s not in PEERS),
            None,
        )
        if best:
            figure(shown, best, args.figure)
    print(f"machine load {os.getloadavg()[0]:.1f}; {len(shown)} sets", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
