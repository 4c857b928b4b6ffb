"""The authors' ESKDB beside bnclassify's ESKDB and random forest, on the same 5x2 folds.

Zhang, Petitjean and Buntine (2020) published their Java code: ESKDB with HDP
smoothing (GitHub ``icesky0125/ESKDB_HDP``; its demo runs ``-S ESKDB -K 5 -I 1000
-L 2 -E 10``) and a variant for numeric attributes, each member with its own
sampled MDL discretisation (``icesky0125/ESKDB-on-numerical-data``,
``MDL_R.TwoFoldCVESKDB -S SKDB_R``). Their own mains draw their own 2-fold
splits; this script instead writes the folds of ``benchmarks/uci.py``
(``RepeatedStratifiedKFold(2, 5, random_state=0)`` on each CSV as ``pd.read_csv``
returns it) as ARFF files, runs their code on them through a small fold driver,
reads back the class probabilities of every test row, and scores them with
``uci.probability_scores`` (the metrics of ``benchmarks/uci.py``). It then runs
bnclassify's ``ESKDB`` with the same settings (and any ``--models``, with random
forest) on the same folds through ``uci.run_set``, set by set, so the times of
both sides come from the same stretch of the machine's load. Results are kept
per (set, model) in ``--results`` (the JSON of ``benchmarks/uci.py``).

Nothing here builds Java code. The user passes a classpath, already built from
the authors' public repository, that holds their classes, Weka, commons-math3
and a fold driver class (``--classpath`` or ``ESKDB_HDP_CLASSPATH`` for
``ESKDB_HDP``, ``--numeric-classpath`` or ``ESKDB_NUMERIC_CLASSPATH`` for the
numeric variant: the two repositories define classes of the same names, so
they cannot share one). The driver's contract::

    java -cp CP DRIVER -K k -I iterations -L tying -E members DIR [DIR ...]

where each ``DIR`` holds ``train.arff`` and ``test.arff`` (class last, its
values the sorted labels); the driver fits on the first, writes ``proba.csv``
(one line per test row, one probability per class, in the header's order) and
``time.txt`` (fit and predict seconds, as measured inside the JVM) into
``DIR``. For ``ESKDB_HDP`` the driver discretises numeric attributes with
Weka's supervised MDL filter (``UseBetterEncoding``), learnt on ``train.arff``
(the authors' own runs on training folds, ``DisOnTrain``); the numeric
variant's driver fits ``E`` members as ``MDL_R.TwoFoldCVESKDB`` does (seed
``-R``, default 1990093, one more per member).

ARFF columns: a column the kinds rule (:func:`bnclassify.data.kinds_rule.default_kind`,
on the training rows) reads as continuous is ``NUMERIC``, any other ``NOMINAL``
with the values of the whole table (as one ARFF of the set would declare them);
missing cells are ``?``.

Without Java or a classpath the script says so and exits 0 (nothing is run).

Usage::

    python benchmarks/eskdb_authors.py --help
    ESKDB_HDP_CLASSPATH=... ESKDB_NUMERIC_CLASSPATH=... nice -n 10 \\
        python benchmarks/eskdb_authors.py --results /tmp/eskdb_authors.json
    python benchmarks/eskdb_authors.py --authors hdp:E=20 --sets car,vote --results ...
    python benchmarks/eskdb_authors.py --report-only --results ... --markdown /tmp/t.md
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import uci  # noqa: E402  (the benchmark beside this file)
from arff import (  # noqa: E402, F401  (the ARFF folds, shared with benchmarks/weka.py)
    arff_header,
    arff_rows,
    arff_value,
    driver_scores,
    log_driver,
    write_folds,
)

from bnclassify.data.kinds_rule import default_kind  # noqa: E402
from bnclassify.metrics import combined_5x2cv_ftest  # noqa: E402

#: The authors' variants: driver class and the environment variable of its classpath.
VARIANTS = {
    "hdp": ("EskdbHdpFolds", "ESKDB_HDP_CLASSPATH", "ESKDB_HDP"),
    "numeric": ("EskdbNumericFolds", "ESKDB_NUMERIC_CLASSPATH", "ESKDB_numeric"),
}
#: The authors' -L (their TyingStrategy) as bnclassify's ``HDP(tying=)``.
TYING = {0: "none", 1: "siblings", 2: "level", 3: "table"}
DEFAULT_AUTHORS = "hdp:E=10,numeric:E=10"
DEFAULT_MODELS = "eskdb10"


def authors_spec(variant: str, members: int, k: int, n_iter: int, tying: int) -> str:
    """The results key of one configuration of the authors' code."""
    return f"{VARIANTS[variant][2]}(E={members}, K={k}, I={n_iter}, L={tying})"


def equal_spec(variant: str, members: int, k: int, n_iter: int, tying: int) -> str:
    """bnclassify's ESKDB with the settings of the authors' configuration."""
    binning = "'mdl'" if variant == "hdp" else "'stochastic'"
    return (
        f"ESKDB(n_estimators={members}, k={k}, smoothing=bnclassify.parameters.HDP("
        f"n_iter={n_iter}, tying='{TYING[tying]}'), discretization={binning}, random_state=0)"
    )


def parse_authors(text: str) -> list[tuple[str, int]]:
    """``"hdp:E=10,numeric:E=20"`` -> ``[("hdp", 10), ("numeric", 20)]``."""
    out = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        variant, _, members = part.partition(":E=")
        if variant not in VARIANTS or not members.isdigit():
            raise SystemExit(
                f"--authors: {part!r} is not VARIANT:E=N with VARIANT in {list(VARIANTS)}"
            )
        out.append((variant, int(members)))
    return out


# -- running the authors' code ---------------------------------------------------------


def java_command(java, classpath, driver, jvm_options, k, n_iter, tying, members, dirs):
    return [
        java,
        *jvm_options,
        "-cp",
        classpath,
        driver,
        *("-K", str(k), "-I", str(n_iter), "-L", str(tying), "-E", str(members)),
        *map(str, dirs),
    ]


def java_missing(java: str | None, classpaths: dict) -> str | None:
    """Why nothing can run (no Java, no classpath for any variant asked), or None."""
    if java is None or shutil.which(java) is None:
        return "no Java runtime (java not found on PATH; --java names one)"
    if not any(classpaths.values()):
        names = ", ".join(f"--{'numeric-' if v == 'numeric' else ''}classpath" for v in classpaths)
        envs = ", ".join(VARIANTS[v][1] for v in classpaths)
        return f"no classpath of the authors' code ({names} or {envs})"
    return None


# -- the 5x2cv F test and the report ----------------------------------------------------


def fold_values(results, name, spec, metric):
    scores = results.get(name, {}).get(spec)
    if not scores or any("error" in s for s in scores):
        return None
    return [s[metric] for s in scores]


def report(results: dict, specs: list, pairs: list) -> str:
    """Markdown: W/D/L against random forest, then one table per pair ``(authors', ours)``:
    per set each side's mean 0-1 loss, RMSE, log loss and fit seconds, the 5x2cv F test's
    p between them and random forest's means; last, every model's 0-1 and log loss."""
    shown = [s for s in specs if any(s in entry for entry in results.values())]
    short = {spec: f"m{i + 1}" for i, spec in enumerate(shown)}
    parts = [
        "#### Summary (5x2 CV; W/D/L against random forest on the sets each model ran on, "
        "a refusal a loss; draws within 1e-9)\n",
        uci.to_markdown(summary(results, shown).rename(index=short)),
        "\n\nModels: " + "; ".join(f"`{short[s]}` = `{s}`" for s in shown) + ".",
    ]
    metrics = (("zero_one", "0-1"), ("rmse", "RMSE"), ("log_loss", "log loss"), ("fit_s", "fit s"))
    for a, b in pairs:
        if a not in shown or b not in shown:
            continue
        beside = [uci.RF] if uci.RF in shown else []
        columns = {}
        for metric, label in metrics:
            means = uci.set_means(results, [a, b, *beside], metric)
            columns[f"{label} {short[a]}"] = means[a]
            columns[f"{label} {short[b]}"] = means[b]
            if metric != "fit_s":
                columns[f"{label} p"] = [
                    _pair_p(results, name, a, b, metric) for name in means.index
                ]
            for other in beside:
                columns[f"{label} {short[other]}"] = means[other]
        ran = [name for name in results if a in results[name]]  # run or refused
        table = pd.DataFrame(columns)
        table = table[table.index.isin(ran)]
        table.index.name = "set"
        parts.append(
            f"\n\n#### `{short[a]}` beside `{short[b]}` per set (mean of the ten folds; blank: "
            "refused or not run; p: 5x2cv F test)\n"
        )
        parts.append(uci.to_markdown(table.round(4)))
    every = {}
    for metric, label in metrics[:3:2]:
        means = uci.set_means(results, shown, metric)
        every.update({f"{label} {short[s]}": means[s] for s in shown})
    table = pd.DataFrame(every)
    table.index.name = "set"
    parts.append("\n\n#### Every model's 0-1 and log loss per set\n")
    parts.append(uci.to_markdown(table.round(4)))
    return "\n".join(parts) + "\n"


def summary(results: dict, specs: list) -> pd.DataFrame:
    """Per model against random forest, over the sets where both were run: the sets,
    refusals, W/D/L on 0-1 loss, log loss and RMSE, and both total fit times."""
    rows = []
    for spec in specs:
        if spec == uci.RF:
            continue
        ran = {name: e for name, e in results.items() if spec in e and uci.RF in e}
        row = {"model": spec, "sets": len(ran)}
        means = {m: uci.set_means(ran, [spec, uci.RF], m) for m in ("zero_one", "log_loss", "rmse")}
        row["refused"] = int(means["zero_one"][spec].isna().sum()) if ran else 0
        for metric, label in (("zero_one", "0-1"), ("log_loss", "log loss"), ("rmse", "RMSE")):
            w, d, loss = uci.wins_draws_losses(means[metric], spec) if ran else (0, 0, 0)
            row[f"{label} W/D/L"] = f"{w}/{d}/{loss}"
        fits = uci.set_means(ran, [spec, uci.RF], "fit_s").dropna()
        row["fit s (sum of fold means)"] = round(float(fits[spec].sum()), 1)
        row["forest's, same sets"] = round(float(fits[uci.RF].sum()), 1)
        rows.append(row)
    return pd.DataFrame(rows).set_index("model")


def _pair_p(results, name, a, b, metric) -> float:
    va, vb = (fold_values(results, name, s, metric) for s in (a, b))
    return math.nan if va is None or vb is None else combined_5x2cv_ftest(va, vb).pvalue


# -- main --------------------------------------------------------------------------------


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data", type=Path, default=uci.DEFAULT_DATA, help="folder with MANIFEST.csv"
    )
    parser.add_argument("--sets", default="", help="comma-separated set names (default: all)")
    parser.add_argument(
        "--authors",
        default=DEFAULT_AUTHORS,
        help=f"the authors' configurations, VARIANT:E=members, VARIANT in {list(VARIANTS)} "
        f"(default {DEFAULT_AUTHORS}); the numeric variant runs only on sets with a "
        "continuous column",
    )
    parser.add_argument("-K", type=int, default=5, help="largest k (their -K; default 5)")
    parser.add_argument("-I", type=int, default=1000, help="HDP Gibbs sweeps (their -I; 1000)")
    parser.add_argument(
        "-L", type=int, default=2, choices=sorted(TYING), help="HDP tying (2: level)"
    )
    parser.add_argument("--classpath", default=os.environ.get(VARIANTS["hdp"][1]), help="ESKDB_HDP")
    parser.add_argument(
        "--numeric-classpath",
        default=os.environ.get(VARIANTS["numeric"][1]),
        help="ESKDB-on-numerical-data",
    )
    parser.add_argument("--java", default="java", help="the Java runtime (default: java)")
    parser.add_argument(
        "--jvm-options",
        default="-XX:ActiveProcessorCount=1 -Xmx3g --add-opens java.base/java.lang=ALL-UNNAMED",
        help="JVM options (default: one processor, as bnclassify runs on one thread)",
    )
    parser.add_argument(
        "--models",
        default=DEFAULT_MODELS,
        help="bnclassify models run besides ESKDB at the authors' settings (benchmarks/uci.py "
        f"names; default {DEFAULT_MODELS}); random forest always",
    )
    parser.add_argument("--no-equal", action="store_true", help="skip ESKDB at their settings")
    parser.add_argument("--results", type=Path, required=True, help="JSON kept per (set, model)")
    parser.add_argument(
        "--workdir", type=Path, help="where the ARFF folds go (default: a temp dir)"
    )
    parser.add_argument("--force", action="store_true", help="recompute models already stored")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per set for Java")
    parser.add_argument("--markdown", type=Path, help="write the side-by-side tables here")
    parser.add_argument("--report-only", action="store_true", help="summarise --results only")
    args = parser.parse_args(argv)

    configs = parse_authors(args.authors)
    settings = (args.K, args.I, args.L)
    authors = [(v, e, authors_spec(v, e, *settings)) for v, e in configs]
    equal = [] if args.no_equal else [equal_spec(v, e, *settings) for v, e in configs]
    others = [s for s in uci.model_specs(args.models) if s not in equal]
    specs = [uci.RF, *[a for _, _, a in authors], *equal, *others]
    pairs = [(a, q) for (_, _, a), q in zip(authors, equal, strict=False)]
    results = json.loads(args.results.read_text()) if args.results.exists() else {}
    sets = uci.read_collection(args.data, [s for s in args.sets.split(",") if s])

    if not args.report_only:
        classpaths = {
            v: args.classpath if v == "hdp" else args.numeric_classpath for v, _ in configs
        }
        why = java_missing(args.java, classpaths)
        if why:
            print(f"skipped: {why}; nothing was run.")
            return 0
        root = args.workdir or Path(tempfile.mkdtemp(prefix="eskdb_authors_"))
        for name, target, path in sets:
            X, y = uci.load_set(path, target)
            classes = np.unique(y)
            folds = uci.cv_folds(X, y)
            entry = results.setdefault(name, {})
            has_numbers = any(default_kind(X[c]) != "categorical" for c in X.columns)
            for variant, members, spec in authors:
                if (spec in entry and not args.force) or not classpaths[variant]:
                    continue
                if variant == "numeric" and not has_numbers:
                    continue  # the variant's members differ only in their discretisations
                dirs = write_folds(X, y, folds, classes, root / name / spec.split("(")[0])
                command = java_command(
                    args.java,
                    classpaths[variant],
                    VARIANTS[variant][0],
                    args.jvm_options.split(),
                    *settings[:3],
                    members,
                    dirs,
                )
                start = time.perf_counter()
                entry[spec] = driver_scores(command, dirs, y, folds, classes, args.timeout)
                log_driver(name, spec, entry[spec], time.perf_counter() - start)
                args.results.write_text(json.dumps(results, indent=1))
            ours = [
                q
                for (variant, _, _), q in zip(authors, equal, strict=False)
                if variant == "hdp" or has_numbers
            ]
            uci.run_set(name, target, path, [*ours, uci.RF, *others], results, force=args.force)
            args.results.write_text(json.dumps(results, indent=1))
        if args.workdir is None:
            shutil.rmtree(root, ignore_errors=True)

    shown = {name: results[name] for name, _, _ in sets if name in results}
    text = report(shown, specs, pairs)
    print(text)
    if args.markdown:
        args.markdown.write_text(text)
    print(f"machine load {os.getloadavg()[0]:.1f}; {len(shown)} sets", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
