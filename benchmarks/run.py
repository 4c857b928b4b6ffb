"""bnclassify against pgmpy, pyAgrum and scikit-learn: same data, same process, ratios.

Usage::

    python benchmarks/run.py            # the full run (several minutes; pyAgrum at 10^6 rows)
    python benchmarks/run.py --quick    # P450, 10^4 x 20, 10^5 x 20, 256 features
    python benchmarks/run.py --json benchmarks/results.json --markdown /tmp/tables.md
    python benchmarks/run.py --targets  # issue 14's open targets only (input forms, Simpler TAN)
    python benchmarks/run.py --simpler-tan --repeats 7  # Simpler TAN vs TAN at 1,024 features only
    python benchmarks/run.py --labels --before /tmp/old-tree  # label forms x table forms, and
                                                             # the same fits on another tree
    python benchmarks/run.py --labels --before /tmp/old-tree --only SimplerTAN  # one row

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
- Simpler TAN vs TAN fit on 10^4 rows x 1,024 features (the contact matrix is
  the generating tree, so both learn a tree of the same kind), timed
  round-robin, then each fit again in its own process for its peak memory.
- Input forms: the 10^6 x 20 table (10^5 x 20 with ``--quick``) as int8, pandas
  ``category``, object strings, ``pd.ArrowDtype(pa.string())``, pandas 3's
  default ``str`` and ``"string[pyarrow]"``: TAN fit for bnclassify and pyAgrum
  on each form, side by side with the ratios and each fit's peak memory (its
  own fresh process); NB fit + predict on the string forms vs scikit-learn's
  ``OrdinalEncoder`` + ``CategoricalNB`` pipeline.
- Label forms (``--labels``): TAN fit and NB fit + predict at 10^6 x 20 for
  every table form (int8, ``category``, object, Arrow and ``string[pyarrow]``
  strings) beside every form of the class column (int64, object strings,
  ``string[pyarrow]``, ``category``; the strings sort like the integers), and
  TAN and Simpler TAN at 10^4 x 1,024. With ``--before PATH`` every fit also
  runs on the bnclassify at PATH (a checkout with its extension built), in
  its own worker process beside this tree's, the two timed round-robin; the
  table gives both and after / before, and each label form's time over the
  int64 labels' on the same table.
- Peak memory: each fit again in a fresh subprocess, reporting the process's
  peak resident set size (``resource.getrusage``, includes Python, the
  libraries and the data) and the growth during the fit.

Data: P450 (955 x 8, 3 states) and ``make_tree_classification`` (4 states per
feature, binary class, seed 0).
"""

from __future__ import annotations

import argparse
import io
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


FORMS = ("int8", "category", "object", "arrow string", "pandas str", "string[pyarrow]")
STRING_FORMS = ("object", "arrow string", "pandas str")  # for NB vs OrdinalEncoder + CategoricalNB


def form_data(n, m, form):
    """The synthetic table as one input form; the strings sort like the integer states."""
    import pyarrow as pa

    X, y, _ = synthetic(n, m)
    codes = X.astype(np.int8)
    if form == "int8":
        return pd.DataFrame(codes, columns=[f"x{i}" for i in range(m)]), y
    labels = np.array(["s0", "s1", "s2", "s3"], dtype=object)
    strings = pd.DataFrame(
        {f"x{i}": pd.Series(labels[codes[:, i]], dtype=object) for i in range(m)}
    )
    dtype = {
        "object": None,
        "category": "category",
        "arrow string": pd.ArrowDtype(pa.string()),
        "pandas str": "str",
        "string[pyarrow]": "string[pyarrow]",
    }[form]
    return (strings if dtype is None else strings.astype(dtype)), y


def sklearn_nb_pipeline():
    from sklearn.naive_bayes import CategoricalNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OrdinalEncoder

    def fit(X, y):
        return make_pipeline(OrdinalEncoder(), CategoricalNB(alpha=1.0)).fit(X, y)

    return fit, (lambda m, X: m.predict_proba(X))


def fit_and_predict(library):
    """``library`` as one call: fit on X, then predict_proba on the same X."""
    fit, predict = library
    return lambda X, y: predict(fit(X, y), X)


FORM_LIBRARIES = {
    "bnclassify TAN": lambda: bnc_tan()[0],
    "pyagrum TAN": lambda: pyagrum_tan()[0],
    "bnclassify NB": lambda: fit_and_predict(bnc_nb()),
    "scikit-learn NB": lambda: fit_and_predict(sklearn_nb_pipeline()),
}


# -- timing --------------------------------------------------------------
def best_time(function, repeats):
    """Best time of ``repeats`` calls, and the last call's result.

    A call's result is released after its clock stops (freeing a fitted model
    is not part of fitting it).
    """
    best, result = np.inf, None
    for _ in range(max(1, repeats)):
        result = None
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
    _print_fit_memory(fit, X, y)


def _print_fit_memory(fit, X, y):
    """Time one fit and print its peak resident memory as JSON (run in a subprocess)."""
    resettable = _reset_peak()  # so the peak is the fit's, not the data generation's
    before = _proc_status_mb("VmRSS")
    start = time.perf_counter()
    fit(X, y)
    seconds = time.perf_counter() - start
    peak = _proc_status_mb("VmHWM") if resettable else _maxrss_mb()
    print(json.dumps({"before_mb": before, "peak_mb": peak, "seconds": seconds}))


def child_form_memory(library, form, n, m):
    """Run in the subprocess: one input form, one fit (or fit + predict); peak RSS."""
    X, y = form_data(n, m, form)
    fit = FORM_LIBRARIES[library]()
    _print_fit_memory(fit, X, y)


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


def form_memory(library, form, n, m):
    command = [sys.executable, __file__, "--child-form-memory", library, form, str(n), str(m)]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def run_forms(n, m, repeats):
    """TAN fit per input form for bnclassify and pyAgrum, NB on strings vs scikit-learn.

    bnclassify's fits are timed round-robin over the forms, best of
    ``repeats`` rounds, so a change of load on a shared machine hits every
    form alike; pyAgrum and the scikit-learn pipeline run once per form. The
    peak RSS beside each time is from the same call repeated in a fresh
    process.
    """
    scale = f"10^{len(str(n)) - 1} x {m}"
    data = {form: form_data(n, m, form) for form in FORMS}
    tan, nb = FORM_LIBRARIES["bnclassify TAN"](), FORM_LIBRARIES["bnclassify NB"]()
    ours = {"TAN fit": {}, "NB fit + predict": {}}
    for form, (X, y) in data.items():
        ours["TAN fit"][form] = lambda X=X, y=y: tan(X, y)
        if form in STRING_FORMS:
            ours["NB fit + predict"][form] = lambda X=X, y=y: nb(X, y)
    ours = {task: interleaved_best(functions, repeats) for task, functions in ours.items()}
    rows = []
    for form, (X, y) in data.items():
        timed = [("TAN fit", "bnclassify TAN"), ("TAN fit", "pyagrum TAN")]
        if form in STRING_FORMS:
            timed += [
                ("NB fit + predict", "bnclassify NB"),
                ("NB fit + predict", "scikit-learn NB"),
            ]
        for task, library in timed:
            name = library.split()[0]
            if name == "bnclassify":
                seconds = ours[task][form]
            else:
                function = FORM_LIBRARIES[library]()
                seconds, _ = best_time(lambda function=function, X=X, y=y: function(X, y), 1)
            memory = form_memory(library, form, n, m)
            growth = memory["peak_mb"] - memory["before_mb"]
            record(f"{scale} {form}", task, name, seconds, "peak RSS in its own process below")
            record(
                f"{scale} {form}",
                f"{task} peak RSS (MB)",
                name,
                memory["peak_mb"],
                f"+{growth:.0f} MB over the data ({memory['before_mb']:.0f} MB before); "
                f"that run {memory['seconds']:.2f} s",
            )
            rows.append((form, task, name, seconds, growth))
    print_forms_table(scale, rows)
    return scale


#: The input forms of the Simpler TAN comparison, as users hand a table over.
STAN_FORMS = (
    "int64 ndarray",
    "int8 DataFrame, Series labels",
    "pd.read_csv output",
    "pandas category",
    "str strings (pandas 3's default)",
    "string[pyarrow]",
    "object strings (dtype object)",
)


def stan_form_data(X, y, form):
    """The 10^4 x m table of :func:`run_simpler_tan` as one input form."""
    columns = [f"x{i}" for i in range(X.shape[1])]
    if form == "int64 ndarray":
        return X, y
    if form == "int8 DataFrame, Series labels":
        return pd.DataFrame(X.astype(np.int8), columns=columns), pd.Series(y, name="class")
    if form == "pd.read_csv output":  # every column int64, the class column first
        buffer = io.StringIO()
        pd.DataFrame({"class": y, **dict(zip(columns, X.T, strict=True))}).to_csv(
            buffer, index=False
        )
        buffer.seek(0)
        frame = pd.read_csv(buffer)
        return frame.drop(columns="class"), frame["class"]
    if form == "pandas category":
        return pd.DataFrame(X.astype(np.int8), columns=columns).astype("category"), y
    labels = np.array(["s0", "s1", "s2", "s3"], dtype=object)
    if form == "str strings (pandas 3's default)":  # what read_csv gives a text column
        return pd.DataFrame(labels[X], columns=columns, dtype="str"), y
    if form == "string[pyarrow]":
        return pd.DataFrame(labels[X], columns=columns, dtype="string[pyarrow]"), y
    if form == "object strings (dtype object)":
        return pd.DataFrame(labels[X], columns=columns, dtype=object), y
    raise ValueError(f"unknown form {form!r}")


def run_simpler_tan(wide, repeats, forms=STAN_FORMS[:1]):
    """Simpler TAN vs TAN fit on 10^4 x ``wide``, timed round-robin (best of ``repeats``).

    Each input form of ``forms`` is timed in the same process, both models in
    the same rounds, so their ratios share the machine's load.
    """
    scenario = f"10^4 x {wide}"
    print(f"\nsynthetic {scenario}: Simpler TAN vs TAN")
    X, y, contact = synthetic(10_000, wide)
    tan, stan = bnc_tan()[0], bnc_stan(contact)[0]
    stan(X, y)  # first fit of the process: imports and caches, not what is compared
    for form in forms:
        Xf, yf = stan_form_data(X, y, form)
        stan(Xf, yf)
        best = interleaved_best(
            {
                "TAN fit": lambda Xf=Xf, yf=yf: tan(Xf, yf),
                "Simpler TAN fit": lambda Xf=Xf, yf=yf: stan(Xf, yf),
            },
            repeats,
        )
        where = scenario if form == STAN_FORMS[0] else f"{scenario} {form}"
        for name, seconds in best.items():
            record(where, name, "bnclassify", seconds)
        print(f"  {form}: TAN / Simpler TAN {best['TAN fit'] / best['Simpler TAN fit']:.1f}x")
    for library in ("bnclassify", "bnclassify-stan"):  # each fit again in its own process
        measure_memory(scenario, library, 10_000, wide)


def interleaved_best(functions: dict, repeats) -> dict:
    """Best time of each function over ``repeats`` rounds that call every function once.

    Every other round runs them in reverse order, so no function always runs
    right after the same other one: after a TAN fit, OpenBLAS's worker threads
    keep spinning for a while and take the second core from whatever runs next
    (Simpler TAN at 10^4 x 1,024 measured 32-37 ms right after TAN, 27-29 ms
    with ``OPENBLAS_NUM_THREADS=1``).
    """
    best = dict.fromkeys(functions, np.inf)
    for round_ in range(max(1, repeats)):
        order = list(functions.items())
        for key, function in order[::-1] if round_ % 2 else order:
            start = time.perf_counter()
            result = function()
            best[key] = min(best[key], time.perf_counter() - start)
            del result  # freed after the clock stops, as in best_time
    return best


def print_forms_table(scale, rows):
    time_of = {(f, t, lib): s for f, t, lib, s, _ in rows}
    grow = {(f, t, lib): g for f, t, lib, _, g in rows}
    int8 = time_of[("int8", "TAN fit", "bnclassify")]
    print(f"\n  input forms at {scale}: TAN fit (s, fit's peak RSS growth in MB)")
    print(f"  {'form':<16} {'bnclassify':>18} {'pyAgrum':>18} {'pyAgrum/bnc':>11} {'bnc/int8':>9}")
    for form in FORMS:
        ours, theirs = (
            time_of[(form, "TAN fit", "bnclassify")],
            time_of[(form, "TAN fit", "pyagrum")],
        )
        print(
            f"  {form:<16} {ours:8.3f} ({grow[(form, 'TAN fit', 'bnclassify')]:5.0f} MB)"
            f" {theirs:8.2f} ({grow[(form, 'TAN fit', 'pyagrum')]:5.0f} MB)"
            f" {theirs / ours:10.1f}x {ours / int8:8.2f}x"
        )
    print(f"\n  NB fit + predict_proba at {scale} (s, peak RSS growth in MB)")
    print(f"  {'form':<16} {'bnclassify':>18} {'scikit-learn':>18} {'sklearn/bnc':>11}")
    for form in STRING_FORMS:
        key = (form, "NB fit + predict")
        ours, theirs = time_of[(*key, "bnclassify")], time_of[(*key, "scikit-learn")]
        print(
            f"  {form:<16} {ours:8.3f} ({grow[(*key, 'bnclassify')]:5.0f} MB)"
            f" {theirs:8.2f} ({grow[(*key, 'scikit-learn')]:5.0f} MB) {theirs / ours:10.1f}x"
        )


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
    evaluate_simpler_tan_target(args)
    evaluate_form_targets(args)
    memory = [r for r in RESULTS if r["task"] == "peak RSS (MB)" and r["library"] == "bnclassify"]
    if memory:
        biggest = memory[-1]
        target(
            f"TAN fit at {biggest['scenario']} within 2 GB peak RSS (2048 MB / peak)",
            2048 / biggest["seconds"],
            1,
        )


def evaluate_simpler_tan_target(args):
    wide = f"10^4 x {args.wide}"
    ratio = seconds_of(wide, "TAN fit", "bnclassify") / seconds_of(
        wide, "Simpler TAN fit", "bnclassify"
    )
    target(f"Simpler TAN fit cheaper than TAN fit at {args.wide} features", ratio, 50)


def evaluate_form_targets(args):
    """Targets of the input-forms comparison (:func:`run_forms`)."""
    scale = args.forms_scale
    for form in FORMS:
        ratio = seconds_of(f"{scale} {form}", "TAN fit", "pyagrum") / seconds_of(
            f"{scale} {form}", "TAN fit", "bnclassify"
        )
        target(f"TAN fit at {scale} ({form}) vs pyAgrum", ratio, 25)
    int8 = seconds_of(f"{scale} int8", "TAN fit", "bnclassify")
    strings = seconds_of(f"{scale} object", "TAN fit", "bnclassify")
    target(
        f"object-string TAN fit within 1.5x of int8 at {scale} (1.5 x int8 / object)",
        1.5 * int8 / strings,
        1,
    )
    for form in STRING_FORMS:
        ratio = seconds_of(f"{scale} {form}", "NB fit + predict", "scikit-learn") / seconds_of(
            f"{scale} {form}", "NB fit + predict", "bnclassify"
        )
        target(f"NB fit + predict at {scale} ({form}) vs OrdinalEncoder + CategoricalNB", ratio, 5)


def environment():
    """bnclassify.study.environment() plus what a benchmark also needs: load, BLAS, pyAgrum.

    pyAgrum (``pip install -e ".[bench]"``) is needed by the comparisons with it,
    not by ``--simpler-tan`` or ``--labels``, which run without it.
    """
    from threadpoolctl import threadpool_info

    from bnclassify.study import environment as package_environment

    blas = [
        f"{p.get('internal_api')} {p.get('version')} x{p.get('num_threads')}"
        for p in threadpool_info()
    ]
    env = package_environment()
    env["machine"] += f" {platform.release()}"
    env["load average (1, 5, 15 min) at start"] = " ".join(f"{v:.2f}" for v in os.getloadavg())
    try:
        import pyagrum

        env["pyAgrum"] = pyagrum.__version__
    except ImportError:
        env["pyAgrum"] = "not installed (only --simpler-tan and --labels run without it)"
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


# -- label forms, before and after --------------------------------------------------------------
LABEL_FORMS = ("int64", "object", "string[pyarrow]", "category")
LABEL_TABLE_FORMS = ("int8", "category", "object", "arrow string", "string[pyarrow]")


def label_form(y, form):
    """The integer class column as another form; the labels sort like the integers."""
    if form == "int64":
        return np.asarray(y, dtype=np.int64)
    labels = np.array(["no", "yes", "zz2", "zz3"], dtype=object)[np.asarray(y)]
    if form == "object":
        return pd.Series(labels, dtype=object)
    return pd.Series(labels, dtype=object).astype(form)


def label_worker():
    """Run in a worker process: read ``task|table|label|n|m`` lines, print each fit's seconds."""
    from bnclassify import TAN, NaiveBayes, SimplerTAN

    tables, targets = {}, {}
    for line in sys.stdin:
        task, table, label, n, m = line.strip().split("|")
        n, m = int(n), int(m)
        if task in ("TAN-wide", "SimplerTAN-wide"):
            if (n, m) not in tables:
                tables[(n, m)] = synthetic(n, m)
            X, y, contact = tables[(n, m)]
            model = TAN() if task == "TAN-wide" else SimplerTAN(contact)
            work = lambda model=model, X=X, y=y: model.fit(X, y)  # noqa: E731
        else:
            if (table, n, m) not in tables:
                tables[(table, n, m)] = form_data(n, m, table)
            X, y = tables[(table, n, m)]
            if (label, n) not in targets:
                targets[(label, n)] = label_form(y, label)
            y = targets[(label, n)]
            if task == "TAN":
                work = lambda X=X, y=y: TAN().fit(X, y)  # noqa: E731
            else:
                work = lambda X=X, y=y: NaiveBayes().fit(X, y).predict_proba(X)  # noqa: E731
        seconds, _ = best_time(work, 1)
        print(seconds, flush=True)


def run_labels(rows, repeats, before=None, only=None):
    """Every label form beside every table form, on this tree and optionally on ``before``.

    ``only``: keep the rows whose ``task|table|label`` contains every one of these words (a
    quick re-run of one row, e.g. ``["SimplerTAN"]`` or ``["NB|object|int64"]``).
    """
    trees = {"after": str(Path(__file__).resolve().parent.parent)}
    if before:
        trees = {"before": str(Path(before).resolve()), **trees}
    workers = {}
    for name, tree in trees.items():
        env = {**os.environ, "PYTHONPATH": tree}
        workers[name] = subprocess.Popen(
            [sys.executable, __file__, "--labels-worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tree,
        )
    rows_ = [
        (task, table, label, rows, 20)
        for task in ("TAN", "NB")
        for table in LABEL_TABLE_FORMS
        for label in LABEL_FORMS
    ]
    rows_ += [("TAN-wide", "int64", "int64", 10_000, 1024)]
    rows_ += [("SimplerTAN-wide", "int64", "int64", 10_000, 1024)]
    if only:
        rows_ = [row for row in rows_ if all(word in "|".join(map(str, row[:3])) for word in only)]
        if not rows_:
            raise SystemExit(f"--only {' '.join(only)}: no row matches")

    def run(name, row):
        worker = workers[name]
        worker.stdin.write("|".join(map(str, row)) + "\n")
        worker.stdin.flush()
        return float(worker.stdout.readline())

    times = {(name, row): [] for name in trees for row in rows_}
    # the label forms of one table are timed in the same rounds, each round visiting every
    # (label form, tree) in turn, so a change of load hits their ratios to int64 labels alike
    groups = {}
    for row in rows_:
        groups.setdefault((row[0], row[1], row[3], row[4]), []).append(row)
    for group in groups.values():
        for row in group:  # a first fit of each row on each tree: its data made, caches warm
            for name in trees:
                run(name, row)
        for round_ in range(max(1, repeats)):  # round-robin: load changes hit every tree
            names = list(trees) if round_ % 2 == 0 else list(trees)[::-1]
            for row in group if round_ % 2 == 0 else group[::-1]:
                for name in names:
                    times[(name, row)].append(run(name, row))
        for row in group:
            line = "  ".join(
                f"{name} {min(times[(name, row)]):.3f} s "
                f"(median {np.median(times[(name, row)]):.3f})"
                for name in trees
            )
            print(f"  {row[0]:<16} {row[1]:<16} y {row[2]:<16} {line}", flush=True)
    best = {key: min(seconds) for key, seconds in times.items()}
    for worker in workers.values():
        worker.stdin.close()
        worker.wait()
    print_labels_table(best, trees, rows_, rows)
    for (name, (task, table, label, n, m)), seconds in best.items():
        scenario = f"{n} x {m} {table}, y {label}"
        task = f"{task} {'fit + predict' if task == 'NB' else 'fit'}"
        RESULTS.append({"scenario": scenario, "task": task, "library": name, "seconds": seconds})


def print_labels_table(best, trees, rows_, n_rows):
    """Markdown: each row's seconds per tree, after / before, and over the int64 labels."""
    names = list(trees)
    head = ["fit", "table", "y"] + [f"{name} (s)" for name in names]
    if "before" in trees:
        head += ["after / before"]
    head += [f"{names[-1]} / int64 y"]
    print("\n| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for task, table, label, n, m in rows_:
        row = (task, table, label, n, m)
        cells = [f"{task} {n:.0e} x {m}".replace("e+0", "e"), table, label]
        cells += [f"{best[(name, row)]:.3f}" for name in names]
        if "before" in trees:
            cells.append(f"{best[('after', row)] / best[('before', row)]:.2f}")
        base = (task, table, "int64", n, m)
        cells.append(f"{best[(names[-1], row)] / best.get((names[-1], base), np.nan):.2f}")
        print("| " + " | ".join(cells) + " |")


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
    parser.add_argument("--child-form-memory", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--forms-only", action="store_true", help="only the input-forms comparison")
    parser.add_argument(
        "--simpler-tan",
        action="store_true",
        help="only Simpler TAN vs TAN at 10^4 x 1,024, on each input form (minutes; runs "
        "without pyAgrum)",
    )
    parser.add_argument(
        "--targets",
        action="store_true",
        help="only issue 14's open targets: the input forms and Simpler TAN vs TAN",
    )
    parser.add_argument(
        "--labels",
        action="store_true",
        help="only the label forms beside the table forms (TAN, NB at 10^6 x 20; 10^4 x 1,024)",
    )
    parser.add_argument(
        "--before",
        metavar="PATH",
        help="with --labels: also time the bnclassify checkout at PATH, round-robin",
    )
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="WORD",
        help="with --labels: only the rows whose task|table|label contains every WORD",
    )
    parser.add_argument("--labels-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.labels_worker:
        return label_worker()
    if args.blas_threads:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=args.blas_threads)
    if args.child_memory:
        library, n, m = args.child_memory
        return child_memory(library, int(n), int(m))
    if args.child_form_memory:
        library, form, n, m = args.child_form_memory
        return child_form_memory(library, form, int(n), int(m))
    args.wide = 256 if args.quick else 1024
    env = environment()
    for key, value in env.items():
        print(f"{key}: {value}")
    forms_rows = 100_000 if args.quick else 1_000_000
    if args.labels:
        print(f"\nlabel forms x table forms at {forms_rows} x 20, and 10^4 x 1,024")
        run_labels(forms_rows, args.repeats, args.before, args.only)
        if args.json:
            Path(args.json).write_text(
                json.dumps({"environment": env, "results": RESULTS}, indent=2)
            )
        return 0
    if args.simpler_tan:
        run_simpler_tan(args.wide, args.repeats, forms=STAN_FORMS)
        return report(args, env, simpler_tan_only=True)
    if args.forms_only or args.targets:
        if args.targets:
            run_simpler_tan(args.wide, args.repeats)
        print(f"\ninput forms: TAN and NB at {forms_rows} x 20")
        args.forms_scale = run_forms(forms_rows, 20, args.repeats)
        return report(args, env, forms_only=True)

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

    run_simpler_tan(args.wide, args.repeats)

    print("\npeak memory (fresh process per fit)")
    measure_memory("10^5 x 20", "pyagrum", 100_000, 20)
    measure_memory("10^5 x 20", "bnclassify", 100_000, 20)
    if not args.quick:
        measure_memory("10^6 x 20", "bnclassify", 1_000_000, 20)
        measure_memory("10^6 x 100", "bnclassify", 1_000_000, 100)

    print(f"\ninput forms: TAN and NB at {forms_rows} x 20")
    args.forms_scale = run_forms(forms_rows, 20, args.repeats)
    return report(args, env)


def report(args, env, forms_only=False, simpler_tan_only=False):
    if simpler_tan_only:
        evaluate_simpler_tan_target(args)
    elif forms_only:
        if args.targets:
            evaluate_simpler_tan_target(args)
        evaluate_form_targets(args)
    else:
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
