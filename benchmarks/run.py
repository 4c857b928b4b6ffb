"""bnclassify against pgmpy, pyAgrum and scikit-learn: same data, same process, ratios.

Usage::

    python benchmarks/run.py            # the full run (several minutes; pyAgrum at 10^6 rows)
    python benchmarks/run.py --quick    # P450, 10^4 x 20, 10^5 x 20, 256 features
    python benchmarks/run.py --json benchmarks/results.json --markdown /tmp/tables.md

What is timed (wall clock, best of ``--repeats`` for the fast libraries, one
run for slow peers):

- TAN: bnclassify ``TAN().fit`` / ``predict_proba``; pgmpy ``TreeSearch(...)
  .estimate(estimator_type="tan")`` + ``DiscreteBayesianNetwork.fit`` with
  ``DiscreteBayesianEstimator(prior_type="dirichlet", pseudo_counts=1)`` /
  ``predict_probability``; pyAgrum ``skbn`` ``BNClassifier(learningMethod="TAN",
  prior="Smoothing", priorWeight=1)`` ``fit`` / ``predict_proba``, its ROC
  threshold step patched out (it is a post-processing of the training set
  that the other libraries do not do).
- NB: bnclassify ``NaiveBayes`` vs scikit-learn ``CategoricalNB(alpha=1)`` on the
  same integer codes, fit and ``predict_proba`` on the whole table.
- Simpler TAN vs TAN fit on 10^4 rows x 1,000 features (the contact matrix is
  the generating tree, so both learn a tree of the same kind).
- Peak memory: each fit again in a fresh subprocess, reporting the process's
  peak resident set size (``resource.getrusage``, includes Python, the
  libraries and the data) and the growth during the fit.

Data: P450 (955 x 8, 3 states) and ``make_tree_classification`` (4 states per
feature, binary class, seed 0).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

warnings.filterwarnings("ignore")  # pgmpy and pyAgrum deprecation chatter

PREDICT_ROWS = 10_000


# -- the libraries, each as fit(X, y) -> model and predict(model, X) -> proba ---------------------
def bnc_tan():
    from bnclassify import TAN

    return (lambda X, y: TAN().fit(X, y)), (lambda m, X: m.predict_proba(X))


def bnc_stan(contact):
    from bnclassify import SimplerTAN

    return (lambda X, y: SimplerTAN(contact).fit(X, y)), (lambda m, X: m.predict_proba(X))


def bnc_nb():
    from bnclassify import NaiveBayes

    return (lambda X, y: NaiveBayes().fit(X, y)), (lambda m, X: m.predict_proba(X))


def sklearn_nb():
    from sklearn.naive_bayes import CategoricalNB

    return (lambda X, y: CategoricalNB(alpha=1.0).fit(X, y)), (lambda m, X: m.predict_proba(X))


def pgmpy_tan(class_node="class"):
    from pgmpy.estimators import TreeSearch
    from pgmpy.models import DiscreteBayesianNetwork
    from pgmpy.parameter_estimator import DiscreteBayesianEstimator

    def fit(X, y):
        data = _frame(X).assign(**{class_node: np.asarray(y)})
        root = data.columns[0]
        dag = TreeSearch(data, root_node=root).estimate(
            estimator_type="tan", class_node=class_node, show_progress=False
        )
        model = DiscreteBayesianNetwork(dag.edges())
        estimator = DiscreteBayesianEstimator(prior_type="dirichlet", pseudo_counts=1)
        return model.fit(data, estimator=estimator)

    def predict(model, X):
        return model.predict_probability(_frame(X)).to_numpy()

    return fit, predict


def pyagrum_tan():
    import pyagrum.skbn as skbn
    import pyagrum.skbn.bnclassifier as bnclassifier

    bnclassifier.CThreshold = lambda *args, **kwargs: 0.5  # skip the ROC-threshold step

    def fit(X, y):
        model = skbn.createBNClassifier(learningMethod="TAN", prior="Smoothing", priorWeight=1)
        return model.fit(X, y)

    return fit, (lambda m, X: m.predict_proba(X))


def _frame(X):
    if isinstance(X, pd.DataFrame):
        return X
    return pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])


# -- data --------------------------------------------------------------
def p450_data():
    from bnclassify.datasets import load_p450

    p450 = load_p450()
    # Strings for the peers that read labels; the same table's integer codes for CategoricalNB.
    X = p450.data.astype(str)
    y = p450.target.astype(str).rename("functional")
    codes = np.column_stack([p450.data[c].cat.codes.to_numpy() for c in p450.data.columns])
    return X, y, codes, p450.contact_matrix


def synthetic(n, m):
    from bnclassify.datasets import make_tree_classification

    X, y, truth = make_tree_classification(n, m, return_network=True, random_state=0)
    return X.astype(np.int64), y, truth.adjacency


# -- timing --------------------------------------------------------------
def best_time(function, repeats):
    best, result = np.inf, None
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def time_pair(library, X, y, X_predict, repeats):
    fit, predict = library
    fit_s, model = best_time(lambda: fit(X, y), repeats)
    predict_s, proba = best_time(lambda: predict(model, X_predict), repeats)
    return fit_s, predict_s, proba


RESULTS: list = []


def record(scenario, task, library, seconds, note=""):
    RESULTS.append(
        {"scenario": scenario, "task": task, "library": library, "seconds": seconds, "note": note}
    )
    value = f"{seconds:10.0f} MB" if "MB" in task else f"{seconds:10.4f} s "
    print(f"  {scenario:<14} {task:<22} {library:<14} {value} {note}", flush=True)


def run_tan(scenario, X, y, X_predict, peers, repeats):
    """TAN fit and predict for bnclassify and the given peers."""
    fit_s, predict_s, ours = time_pair(bnc_tan(), X, y, X_predict, repeats)
    record(scenario, "TAN fit", "bnclassify", fit_s)
    record(scenario, "TAN predict", "bnclassify", predict_s, f"{len(X_predict)} rows")
    for name, library in peers.items():
        fit_s, predict_s, theirs = time_pair(library, X, y, X_predict, 1)
        agree = float(np.abs(np.asarray(theirs, dtype=float) - ours).max())
        record(scenario, "TAN fit", name, fit_s)
        record(
            scenario,
            "TAN predict",
            name,
            predict_s,
            f"{len(X_predict)} rows; max abs(P - P_bnclassify) = {agree:.1e}",
        )


def run_nb(scenario, codes, y, repeats):
    for name, library in (("bnclassify", bnc_nb()), ("scikit-learn", sklearn_nb())):
        fit_s, predict_s, _ = time_pair(library, codes, y, codes, repeats)
        record(scenario, "NB fit", name, fit_s)
        record(scenario, "NB predict", name, predict_s, f"{len(codes)} rows")


# -- memory, in a fresh process --------------------------------------------------------------
def child_memory(library, n, m):
    """Run in the subprocess: load data, then fit once; report RSS before and peak."""
    X, y, contact = synthetic(n, m)
    fit = {
        "bnclassify": lambda: bnc_tan()[0],
        "pyagrum": lambda: pyagrum_tan()[0],
        "pgmpy": lambda: pgmpy_tan()[0],
        "bnclassify-stan": lambda: bnc_stan(contact)[0],
        "bnclassify-nb": lambda: bnc_nb()[0],
        "scikit-learn-nb": lambda: sklearn_nb()[0],
    }[library]()
    resettable = _reset_peak()  # so the peak is the fit's, not the data generation's
    before = _proc_status_mb("VmRSS")
    start = time.perf_counter()
    fit(X, y)
    seconds = time.perf_counter() - start
    peak = _proc_status_mb("VmHWM") if resettable else _maxrss_mb()
    print(json.dumps({"before_mb": before, "peak_mb": peak, "seconds": seconds}))


def _maxrss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _reset_peak() -> bool:
    """Reset the kernel's peak-RSS mark (Linux: write 5 to /proc/self/clear_refs)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _proc_status_mb(key):
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    return _maxrss_mb()


def measure_memory(scenario, library, n, m):
    command = [sys.executable, __file__, "--child-memory", library, str(n), str(m)]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    result = json.loads(output.strip().splitlines()[-1])
    record(
        scenario,
        "peak RSS (MB)",
        library,
        result["peak_mb"],
        f"process RSS before the fit {result['before_mb']:.0f} MB; fit {result['seconds']:.2f} s",
    )
    return result


# -- the report --------------------------------------------------------------
def seconds_of(scenario, task, library):
    rows = [
        r["seconds"]
        for r in RESULTS
        if r["scenario"] == scenario and r["task"] == task and r["library"] == library
    ]
    return rows[0] if rows else np.nan


TARGETS = []


def target(text, ratio, goal):
    TARGETS.append({"target": text, "ratio": ratio, "goal": goal, "met": bool(ratio >= goal)})


def evaluate_targets(args):
    tan = ("TAN fit", "TAN predict")

    def fit_predict(scenario, library, tasks=tan):
        return sum(seconds_of(scenario, t, library) for t in tasks)

    ours = fit_predict("P450", "bnclassify")
    target("TAN fit + predict on P450 vs pgmpy", fit_predict("P450", "pgmpy") / ours, 100)
    for scenario in ("10^5 x 20", "10^6 x 20"):
        if not np.isnan(seconds_of(scenario, "TAN fit", "pyagrum")):
            ratio = seconds_of(scenario, "TAN fit", "pyagrum") / seconds_of(
                scenario, "TAN fit", "bnclassify"
            )
            target(f"TAN fit at {scenario} vs pyAgrum", ratio, 20)
    scenario = "10^5 x 20"
    ratio = seconds_of(scenario, "TAN predict", "pyagrum") / seconds_of(
        scenario, "TAN predict", "bnclassify"
    )
    target(f"TAN predict {PREDICT_ROWS} rows vs pyAgrum", ratio, 100)
    nb = ("NB fit", "NB predict")
    for scenario in sorted({r["scenario"] for r in RESULTS if r["task"] == "NB fit"}):
        ratio = fit_predict(scenario, "scikit-learn", nb) / fit_predict(scenario, "bnclassify", nb)
        target(f"NB fit + predict at {scenario} vs CategoricalNB", ratio, 1)
    wide = f"10^4 x {args.wide}"
    ratio = seconds_of(wide, "TAN fit", "bnclassify") / seconds_of(
        wide, "Simpler TAN fit", "bnclassify"
    )
    target(f"Simpler TAN fit cheaper than TAN fit at {args.wide} features", ratio, 50)
    memory = [r for r in RESULTS if r["task"] == "peak RSS (MB)" and r["library"] == "bnclassify"]
    if memory:
        biggest = memory[-1]
        target(
            f"TAN fit at {biggest['scenario']} within 2 GB peak RSS (2048 MB / peak)",
            2048 / biggest["seconds"],
            1,
        )


def environment():
    """bnclassify.study.environment() plus what a benchmark also needs: load, BLAS, pyAgrum."""
    import pyagrum
    from threadpoolctl import threadpool_info

    from bnclassify.study import environment as package_environment

    blas = [
        f"{p.get('internal_api')} {p.get('version')} x{p.get('num_threads')}"
        for p in threadpool_info()
    ]
    env = package_environment()
    env["machine"] += f" {platform.release()}"
    env["load average (1, 5, 15 min) at start"] = " ".join(f"{v:.2f}" for v in os.getloadavg())
    env["pyAgrum"] = pyagrum.__version__
    env["BLAS"] = "; ".join(blas)
    return env


def markdown(env) -> str:
    lines = ["| scenario | task | library | seconds | note |", "|---|---|---|---:|---|"]
    for r in RESULTS:
        value = f"{r['seconds']:.0f} MB" if "MB" in r["task"] else f"{r['seconds']:.4f}"
        task = r["task"].replace(" (MB)", "")
        lines.append(f"| {r['scenario']} | {task} | {r['library']} | {value} | {r['note']} |")
    lines += ["", "| target | ratio | goal | met |", "|---|---:|---:|---|"]
    for t in TARGETS:
        lines.append(
            f"| {t['target']} | {t['ratio']:.1f}x | {t['goal']}x | {'yes' if t['met'] else 'NO'} |"
        )
    lines += ["", "Environment:", ""] + [f"- {k}: {v}" for k, v in env.items()]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only (about a minute)")
    parser.add_argument("--repeats", type=int, default=3, help="best of N for fast libraries")
    parser.add_argument("--pgmpy-max-rows", type=int, default=10_000)
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON")
    parser.add_argument("--markdown", metavar="PATH", help="write the tables as Markdown")
    parser.add_argument(
        "--blas-threads",
        type=int,
        help="cap BLAS/OpenMP threads for every library (threadpoolctl); default: as installed",
    )
    parser.add_argument("--child-memory", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.blas_threads:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=args.blas_threads)
    if args.child_memory:
        library, n, m = args.child_memory
        return child_memory(library, int(n), int(m))
    args.wide = 256 if args.quick else 1000
    env = environment()
    for key, value in env.items():
        print(f"{key}: {value}")

    print("\nP450 (955 x 8)")
    X, y, codes, contact = p450_data()
    peers = {"pgmpy": pgmpy_tan("functional"), "pyagrum": pyagrum_tan()}
    run_tan("P450", X, y, X, peers, args.repeats)
    run_nb("P450", codes, y.to_numpy(), args.repeats)

    sizes = [(10_000, 20), (100_000, 20)]
    if not args.quick:
        sizes += [(1_000_000, 20), (100_000, 100)]
    for n, m in sizes:
        scenario = f"10^{len(str(n)) - 1} x {m}"
        print(f"\nsynthetic {scenario}")
        X, y, _ = synthetic(n, m)
        peers = {"pyagrum": pyagrum_tan()}
        if n <= args.pgmpy_max_rows:
            peers = {"pgmpy": pgmpy_tan(), **peers}
        run_tan(scenario, X, y, X[:PREDICT_ROWS], peers, args.repeats)
        run_nb(scenario, X, y, args.repeats)

    scenario = f"10^4 x {args.wide}"
    print(f"\nsynthetic {scenario}: Simpler TAN vs TAN")
    X, y, contact = synthetic(10_000, args.wide)
    for name, library in (("TAN fit", bnc_tan()), ("Simpler TAN fit", bnc_stan(contact))):
        seconds, _ = best_time(lambda library=library: library[0](X, y), args.repeats)
        record(scenario, name, "bnclassify", seconds)

    print("\npeak memory (fresh process per fit)")
    measure_memory("10^5 x 20", "pyagrum", 100_000, 20)
    measure_memory("10^5 x 20", "bnclassify", 100_000, 20)
    if not args.quick:
        measure_memory("10^6 x 20", "bnclassify", 1_000_000, 20)
        measure_memory("10^6 x 100", "bnclassify", 1_000_000, 100)

    evaluate_targets(args)
    print("\ntargets")
    for t in TARGETS:
        status = "met" if t["met"] else "MISSED"
        print(f"  {t['target']:<62} {t['ratio']:8.1f}x  (goal {t['goal']}x)  {status}")
    if args.json:
        payload = {"environment": env, "results": RESULTS, "targets": TARGETS}
        Path(args.json).write_text(json.dumps(payload, indent=2) + "\n")
    if args.markdown:
        Path(args.markdown).write_text(markdown(env) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
