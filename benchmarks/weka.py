"""Weka's classifiers beside bnclassify's on the same 5x2 folds of the UCI collection.

Writes each set's ten folds of ``benchmarks/uci.py`` (``RepeatedStratifiedKFold(2, 5,
random_state=0)`` on the CSV as ``pd.read_csv`` returns it) as ARFF train and test files
(``benchmarks/arff.py``: nominal columns with the whole table's values, numeric as numeric,
``?`` for missing), fits a Weka classifier on each training file through the fold driver
``benchmarks/WekaFolds.java`` (run in Java's source-file mode: nothing is built or kept),
reads back every test row's class distribution at full precision and scores it with
``uci.probability_scores`` (0-1 loss, log loss, RMSE as ``benchmarks/uci.py``). Then it fits
bnclassify's models (``--ours``, ``benchmarks/uci.py`` names) on the same folds through
``uci.run_set``. Results are kept per (set, model) in ``--results`` (the JSON of
``benchmarks/uci.py``), so a later run adds classifiers or sets.

A Weka classifier is a preset (``AODE``, ``AODEsr``, ``WAODE``, ``HNB``, ``BayesNet-K2``,
``BayesNet-HillClimber``, ``BayesNet-TabuSearch``, see :data:`PRESETS`), optionally followed
by options that replace the preset's, or any class name and its options as on Weka's
command line (``"weka.classifiers.bayes.AODE -F 30"``, ``"weka.classifiers.trees.J48 -C
0.25"``); the results key is ``weka:`` and that text. ``--prepare`` says how the driver
meets data a classifier refuses (default ``discretize,impute``): a classifier that cannot
take numeric attributes (AODE, AODEsr, WAODE, HNB) is wrapped in Weka's
``FilteredClassifier`` with the supervised ``Discretize`` filter at its defaults (Fayyad and
Irani's MDL on the training fold), and one that cannot take missing values (AODEsr, WAODE,
HNB) gets them replaced first by ``ReplaceMissingValues`` (the training fold's modes and
means); ``none`` leaves both to the classifier, which then fails on such sets (a refusal).
``BayesNet`` discretises numeric attributes and fills missing values itself.

The report pairs the i-th ``--weka`` with the i-th ``--ours``: per set both mean 0-1 and log
losses and the p-value of Alpaydin's combined 5x2cv F test between the two on the ten
per-fold losses (:func:`bnclassify.metrics.combined_5x2cv_ftest`), the folds' noise
yardstick; a summary counts the sets where the two differ at ``--alpha``.

Without Java or ``weka.jar`` the script says so and exits 0 (nothing is run).

Usage::

    python benchmarks/weka.py --help
    nice -n 10 python benchmarks/weka.py --weka AODE --ours aode \\
        --results benchmarks/results_weka.json --markdown /tmp/weka.md
    python benchmarks/weka.py --weka AODEsr --ours "AODE(subsumption=50)" --sets car,vote ...
    python benchmarks/weka.py --weka "BayesNet-K2 -Q weka.classifiers.bayes.net.search.local.K2
        -- -P 3 -S BAYES -E weka.classifiers.bayes.net.estimate.SimpleEstimator -- -A 0.5" ...
    python benchmarks/weka.py --weka BayesNet-TabuSearch --results r.json     # Weka alone
    python benchmarks/weka.py --report-only --weka AODE --ours aode --results ...
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import uci  # noqa: E402  (the benchmarks beside this file)
from arff import driver_scores, log_driver, write_folds  # noqa: E402

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "WekaFolds.java"
WEKA_JAR = os.environ.get("WEKA_JAR", "/usr/share/java/weka.jar")
_ESTIMATOR = "-E weka.classifiers.bayes.net.estimate.SimpleEstimator -- -A 0.5"
_SEARCH = "weka.classifiers.bayes.net.search.local"
#: Short names of Weka classifiers: ``(class, options)``, the options Weka's defaults (for
#: ``BayesNet``: its GUI's default estimator, at most 2 parents a node, the BAYES score;
#: the class first in K2's order and every search started from naive Bayes, as Weka does).
PRESETS = {
    "AODE": ("weka.classifiers.bayes.AODE", "-F 1"),
    "AODEsr": ("weka.classifiers.bayes.AODEsr", "-C 50 -F 1 -M 1.0"),
    "WAODE": ("weka.classifiers.bayes.WAODE", ""),
    "HNB": ("weka.classifiers.bayes.HNB", ""),
    "BayesNet-K2": (
        "weka.classifiers.bayes.BayesNet",
        f"-D -Q {_SEARCH}.K2 -- -P 2 -S BAYES {_ESTIMATOR}",
    ),
    "BayesNet-HillClimber": (
        "weka.classifiers.bayes.BayesNet",
        f"-D -Q {_SEARCH}.HillClimber -- -P 2 -S BAYES {_ESTIMATOR}",
    ),
    "BayesNet-TabuSearch": (
        "weka.classifiers.bayes.BayesNet",
        f"-D -Q {_SEARCH}.TabuSearch -- -L 5 -U 10 -P 2 -S BAYES {_ESTIMATOR}",
    ),
}
PREPARE = ("discretize", "impute")


def weka_classifier(text: str) -> tuple[str, str]:
    """``(class name, options)`` of a preset (with options replacing its own) or of a full
    class name followed by its options."""
    head, _, rest = text.strip().partition(" ")
    if head in PRESETS:
        name, options = PRESETS[head]
        return name, rest.strip() or options
    if not head.startswith("weka."):
        raise SystemExit(f"--weka: {head!r} is neither a preset {list(PRESETS)} nor weka.*")
    return head, rest.strip()


def weka_spec(text: str) -> str:
    """The results key of a Weka classifier given as ``text``."""
    return f"weka:{' '.join(text.split())}"


def parse_prepare(text: str) -> str:
    steps = [s for s in text.split(",") if s]
    unknown = [s for s in steps if s not in PREPARE and s != "none"]
    if unknown:
        raise SystemExit(f"--prepare: {unknown} not in {['none', *PREPARE]}")
    return ",".join(s for s in steps if s != "none") or "none"


def java_missing(java: str, jar: str) -> str | None:
    """Why Weka cannot run here (no Java runtime, no weka.jar), or None."""
    if shutil.which(java) is None:
        return f"no Java runtime ({java!r} not found on PATH; --java names one)"
    if not Path(jar).is_file():
        return f"no Weka jar at {jar} (--weka-jar or WEKA_JAR; Debian: apt-get install weka)"
    return None


def driver_command(java, jar, jvm_options, prepare, classifier, dirs) -> list[str]:
    name, options = classifier
    return [java, *jvm_options, "-cp", jar, str(DRIVER), prepare, name, options, *map(str, dirs)]


def run_weka(name, X, y, folds, classes, specs, results, args, root) -> None:
    """Every Weka classifier of ``specs`` (key -> ``(class, options)``) not yet stored on
    the set ``name``, into ``results[name]``."""
    entry = results.setdefault(name, {})
    todo = {k: v for k, v in specs.items() if args.force or k not in entry}
    if not todo:
        return
    dirs = write_folds(X, y, folds, classes, root / name)
    for spec, classifier in todo.items():
        command = driver_command(
            args.java, args.weka_jar, args.jvm_options.split(), args.prepare, classifier, dirs
        )
        for fold in dirs:
            for stale in ("proba.csv", "time.txt"):
                (fold / stale).unlink(missing_ok=True)
        start = time.perf_counter()
        scores = driver_scores(command, dirs, y, folds, classes, args.timeout)
        for index, score in enumerate(scores):
            score.update(repeat=index // 2, half=index % 2)
        entry[spec] = scores
        log_driver(name, spec, scores, time.perf_counter() - start)


def comparison(results: dict, weka: str, ours: str, alpha=uci.ALPHA) -> pd.DataFrame:
    """Per set: both sides' mean 0-1 and log loss and the 5x2cv F test's p between them."""
    columns = {}
    for metric, label in (("zero_one", "0-1"), ("log_loss", "log loss")):
        means = uci.set_means(results, [ours, weka], metric)
        test = uci.ftest_table(results, ours, weka, metric, alpha)
        columns[f"{label} ours"] = means[ours]
        columns[f"{label} Weka"] = means[weka]
        columns[f"{label} p"] = test["pvalue"].reindex(means.index)
    table = pd.DataFrame(columns)
    table.index.name = "set"
    return table


def summary_line(results: dict, weka: str, ours: str, alpha=uci.ALPHA) -> str:
    """How many sets differ beyond the folds' noise, on each loss, and which way."""
    parts = []
    for metric, label in (("zero_one", "0-1 loss"), ("log_loss", "log loss")):
        test = uci.ftest_table(results, ours, weka, metric, alpha).dropna(subset=["verdict"])
        better = test.index[test["verdict"] > 0].tolist()
        worse = test.index[test["verdict"] < 0].tolist()
        parts.append(
            f"{label}: {len(test) - len(better) - len(worse)} of {len(test)} sets within "
            f"noise (p >= {alpha}), ours lower on {better or 'none'}, higher on "
            f"{worse or 'none'}"
        )
    return "; ".join(parts)


def report(results: dict, pairs: list, alpha=uci.ALPHA) -> str:
    parts = []
    for weka, ours in pairs:
        parts.append(f"#### `{ours}` beside `{weka}` (5x2 CV means; p: combined 5x2cv F test)\n")
        parts.append(summary_line(results, weka, ours, alpha) + "\n")
        parts.append(uci.to_markdown(comparison(results, weka, ours, alpha).round(4)) + "\n")
    return "\n".join(parts)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=uci.DEFAULT_DATA, help="MANIFEST.csv's")
    parser.add_argument("--sets", default="", help="comma-separated set names (default: all)")
    parser.add_argument(
        "--weka",
        action="append",
        default=[],
        help=f"a Weka classifier: a preset {list(PRESETS)} (options after it replace its "
        "own) or a weka.* class name and its options; repeat for more",
    )
    parser.add_argument(
        "--ours",
        action="append",
        default=[],
        help="a bnclassify model (benchmarks/uci.py names), paired with the --weka of the "
        "same position in the report; repeat for more",
    )
    parser.add_argument(
        "--prepare",
        default=",".join(PREPARE),
        help="what the driver does for a classifier that refuses numeric attributes "
        "(discretize: supervised MDL) or missing values (impute: ReplaceMissingValues); "
        "'none' for neither (default: discretize,impute)",
    )
    parser.add_argument("--results", type=Path, required=True, help="JSON kept per (set, model)")
    parser.add_argument("--java", default="java", help="the Java runtime (default: java)")
    parser.add_argument("--weka-jar", default=WEKA_JAR, help=f"Weka's jar (default {WEKA_JAR})")
    parser.add_argument(
        "--jvm-options",
        default="-XX:ActiveProcessorCount=1 -Xmx2g",
        help="JVM options (default: one processor, as bnclassify runs on one thread)",
    )
    parser.add_argument("--workdir", type=Path, help="where the ARFF folds go (default: temp)")
    parser.add_argument("--force", action="store_true", help="recompute models already stored")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per set for Weka")
    parser.add_argument(
        "--ours-timeout", type=float, help="seconds per fold for each of ours (default: none)"
    )
    parser.add_argument("--alpha", type=float, default=uci.ALPHA, help="the F test's level")
    parser.add_argument("--markdown", type=Path, help="write the side-by-side tables here")
    parser.add_argument("--report-only", action="store_true", help="summarise --results only")
    args = parser.parse_args(argv)

    args.prepare = parse_prepare(args.prepare)
    suffix = "" if args.prepare == ",".join(PREPARE) else f" [prepare={args.prepare}]"
    keys = [weka_spec(text) + suffix for text in args.weka]  # a classifier may pair twice
    wekas = dict(zip(keys, map(weka_classifier, args.weka), strict=True))
    ours = [spec for text in args.ours for spec in uci.model_specs(text)]
    pairs = list(zip(keys, ours, strict=False))
    results = json.loads(args.results.read_text()) if args.results.exists() else {}
    sets = uci.read_collection(args.data, [s for s in args.sets.split(",") if s])

    if not args.report_only:
        why = java_missing(args.java, args.weka_jar) if wekas else None
        if why:
            print(f"skipped: {why}; nothing was run.")
            return 0
        root = args.workdir or Path(tempfile.mkdtemp(prefix="weka_folds_"))
        for name, target, path in sets:
            X, y = uci.load_set(path, target)
            classes = np.unique(y)
            folds = uci.cv_folds(X, y)
            run_weka(name, X, y, folds, classes, wekas, results, args, root)
            args.results.write_text(json.dumps(results, indent=1))
            if ours:
                uci.run_set(
                    name,
                    target,
                    path,
                    list(dict.fromkeys(ours)),
                    results,
                    force=args.force,
                    timeout=args.ours_timeout,
                )
                args.results.write_text(json.dumps(results, indent=1))
        if args.workdir is None:
            shutil.rmtree(root, ignore_errors=True)

    shown = {name: results[name] for name, _, _ in sets if name in results}
    text = report(shown, pairs, args.alpha)
    print(text)
    if args.markdown:
        args.markdown.write_text(text)
    print(f"machine load {os.getloadavg()[0]:.1f}; {len(shown)} sets", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
