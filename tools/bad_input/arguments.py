"""Odd arguments to the rest of the public functions and node models: each call returns a
result (numbers in it finite) or refuses with an error naming one of the function's
parameters or the value given."""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pandas as pd

import bnclassify as bnc
from bnclassify import data, distributed, distributions, stats, study
from bnclassify.classifiers import AWNB, MANB, WANBIA
from bnclassify.datasets import make_signal_subgraph_networks

from .core import Case, proba_ok
from .tables import N, Y, base_table, with_column


def _finite(result) -> bool:
    """No NaN or inf in the numbers of a result (arrays, tuples of them); no inf in a
    table's (where NaN says "not measured", e.g. a fit stage a model does not have)."""
    if isinstance(result, tuple | list):
        return all(_finite(r) for r in result)
    if isinstance(result, pd.DataFrame | pd.Series):
        numeric = result.select_dtypes("number") if isinstance(result, pd.DataFrame) else result
        values = np.asarray(numeric, dtype=object)
        try:
            return not np.isinf(np.asarray(values, dtype=float)).any()
        except (TypeError, ValueError):
            return True
    elif isinstance(result, np.ndarray):
        values = result
    else:
        return True
    try:
        return bool(np.isfinite(np.asarray(values, dtype=float)).all())
    except (TypeError, ValueError):
        return True


def _names_of(function) -> tuple:
    try:
        return tuple(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return ()


def _shown(args) -> tuple:
    """How a message may name the values given: their reprs and texts (paths, strings and
    numbers, also inside lists and tuples)."""
    out = []
    for a in args:
        items = a if isinstance(a, list | tuple) else [a]
        for item in items:
            if item is None or isinstance(item, str | int | float | type | Path):
                out += [repr(item), str(item)]
    return tuple(out)


def _calls(kind, qualified, function, argument_sets, fast_first=True):
    out = []
    for k, (label, args, kwargs) in enumerate(argument_sets):
        out.append(
            Case(
                kind,
                f"{qualified}({label})",
                lambda a=args, kw=kwargs: _finite(function(*a, **kw)),
                names=_names_of(function) + tuple(kwargs) + _shown(args) + ("column", "X", "y"),
                covers=(qualified,),
                fast=fast_first and k == 0,
            )
        )
    return out


ODD = [
    ("None", (None,), {}),
    ("an empty frame", (pd.DataFrame(),), {}),
    ("a 0-row frame", (base_table().iloc[:0],), {}),
    ("a string", ("abc",), {}),
    ("NaN", (np.nan,), {}),
]


def _data_cases():
    frame = with_column("object mixing types")
    out = []
    out += _calls(
        "data functions: odd arguments",
        "bnclassify.data.as_frame",
        data.as_frame,
        ODD + [("a 3-d array", (np.zeros((2, 2, 2)),), {}), ("a frame", (frame,), {})],
    )
    out += _calls(
        "data functions: odd arguments",
        "bnclassify.data.encode_target",
        data.encode_target,
        [
            ("NaN labels", (np.array([np.nan, 1.0, 0.0]), 3), {}),
            ("length mismatch", (np.array(["a", "b"]), 3), {}),
            ("mixed labels", (np.array([1, "1", "b"], dtype=object), 3), {}),
            ("a frame of two columns", (pd.DataFrame({"a": [1, 2], "b": [1, 2]}), 2), {}),
            ("category with NaN", (pd.Series(pd.Categorical(["a", None, "b"])), 3), {}),
        ],
    )
    out += _calls(
        "data functions: odd arguments",
        "bnclassify.data.learn_categories",
        data.learn_categories,
        [
            ("object mixing types", (frame["t"],), {}),
            ("all missing", (pd.Series([None, np.nan]),), {}),
            ("lists", (pd.Series([[1], [2]]),), {}),
            ("Float64 with NA", (pd.Series(pd.array([1.5, None], dtype="Float64")),), {}),
        ],
    )
    out += _calls(
        "data functions: odd arguments",
        "bnclassify.data.identifier_columns",
        data.identifier_columns,
        [
            ("a mixed frame", (frame,), {}),
            ("an empty frame", (pd.DataFrame(),), {}),
            ("n_distinct=-1", (frame,), {"n_distinct": -1}),
            ("unique strings", (pd.DataFrame({"id": [f"r{i}" for i in range(N)]}),), {}),
        ],
    )
    out += _calls(
        "data functions: odd arguments",
        "bnclassify.data.resolve_column",
        data.resolve_column,
        [
            ("an unknown name", ("nope", ["a", "b"]), {}),
            ("a position out of range", (5, ["a", "b"]), {}),
            ("a negative position", (-1, ["a", "b"]), {}),
            ("a float", (1.5, ["a", "b"]), {}),
            ("None", (None, ["a", "b"]), {}),
        ],
    )
    out += _calls(
        "data functions: odd arguments",
        "bnclassify.data.get_kind",
        data.get_kind,
        [("an unknown kind", ("nope",), {}), ("None", (None,), {}), ("a number", (3,), {})],
    )
    out += _calls(
        "data functions: odd arguments",
        "bnclassify.data.node_spec",
        data.node_spec,
        [("an unknown kind", ("nope", "here"), {}), ("a number", (3, "here"), {})],
    )
    schema, table = data.TableSchema.learn(base_table())
    out += _calls(
        "data functions: odd arguments",
        "bnclassify.data.TableSchema",
        lambda X: np.isfinite(schema.encode(schema.align(X))[0]).all(),
        [
            ("columns reordered", (base_table()[["g", "s"]],), {}),
            ("a column missing", (base_table()[["s"]],), {}),
            ("strings in a number column", (base_table().assign(g="x"),), {}),
            ("an unseen category", (base_table().assign(s="never"),), {}),
        ],
    )
    out += _calls(
        "data functions: odd arguments",
        "bnclassify.data.encode_frame",
        data.encode_frame,
        [
            ("categories of another length", (base_table()[["s"]], [np.array(["a"])] * 2), {}),
            (
                "handle_unknown='x'",
                (base_table()[["s"]], schema.categories[:1]),
                {"handle_unknown": "x"},
            ),
            ("unseen, error", (base_table()[["s"]].assign(s="z"), schema.categories[:1]), {}),
        ],
    )
    out += _calls(
        "data functions: odd arguments",
        "bnclassify.data.take_rows",
        data.take_rows,
        [
            ("a mask of another length", (base_table(), Y, np.ones(3, dtype=bool)), {}),
            ("an all-false mask", (base_table(), Y, np.zeros(N, dtype=bool)), {}),
        ],
    )
    values = with_column("huge 1e300 spread")[["g", "t"]].to_numpy()
    out += _calls(
        "data functions: odd arguments",
        "bnclassify.data.column_exponents",
        data.column_exponents,
        [
            ("1e300 values", (values, True), {}),
            ("NaN only", (np.full((3, 2), np.nan), True), {}),
            ("None", (None, True), {}),
        ],
    )
    out += _calls(
        "data functions: odd arguments",
        "bnclassify.data.log_largest",
        data.log_largest,
        [
            ("zero variances", (np.zeros(2), np.zeros(2, dtype=int)), {}),
            ("1e308 variances", (np.full(2, 1e308), np.full(2, 10)), {}),
            ("empty", (np.zeros(0), np.zeros(0, dtype=int)), {}),
        ],
    )
    out += _calls(
        "data functions: odd arguments",
        "bnclassify.data.warn_unseen",
        data.warn_unseen,
        [("no counts", ({},), {}), ("odd counts", ({"a": -1, 3: "x"},), {})],
    )
    out += _calls(
        "data functions: odd arguments",
        "bnclassify.data.kind_names",
        data.kind_names,
        [("no argument", (), {})],
    )
    out += _calls(
        "data functions: odd arguments",
        "bnclassify.data.kind_of",
        data.kind_of,
        [("a string", ("gaussian",), {}), ("None", (None,), {}), ("an object", (object(),), {})],
    )
    chunk = pd.Series(np.arange(N) % 30 * 1.0)
    out += _calls(
        "data functions: odd arguments",
        "bnclassify.data.count_evidence",
        data.count_evidence,
        [
            ("a float column", (chunk,), {}),
            ("an empty column", (pd.Series([], dtype=float),), {}),
            ("all missing", (pd.Series([np.nan] * 3),), {}),
            ("huge floats", (pd.Series([1e300, -1e300]),), {}),
        ],
    )
    return out


def _distribution_cases():
    X = with_column("log-normal")
    out = []
    specs = {
        "Gaussian(var_smoothing=nan)": lambda: distributions.Gaussian(var_smoothing=np.nan),
        "Gaussian(var_smoothing=-1)": lambda: distributions.Gaussian(var_smoothing=-1),
        "Gaussian(var_smoothing=1e308)": lambda: distributions.Gaussian(var_smoothing=1e308),
        "Gaussian(prior_strength=inf)": lambda: distributions.Gaussian(prior_strength=np.inf),
        "Gaussian(floor_scale='x')": lambda: distributions.Gaussian(floor_scale="x"),
        "LogNormal(var_smoothing=0)": lambda: distributions.LogNormal(var_smoothing=0),
        "KernelDensity(bandwidth=-1)": lambda: distributions.KernelDensity(bandwidth=-1),
        "KernelDensity(bandwidth=1e300)": lambda: distributions.KernelDensity(bandwidth=1e300),
        "KernelDensity(bandwidth='x')": lambda: distributions.KernelDensity(bandwidth="x"),
        "Bernoulli(binarize=inf)": lambda: distributions.Bernoulli(binarize=np.inf),
        "Bernoulli(alpha=-1)": lambda: distributions.Bernoulli(alpha=-1),
        "Categorical()": lambda: distributions.Categorical(),
    }
    for label, make in specs.items():
        out.append(
            Case(
                "node models: odd parameters",
                f"NaiveBayes(distributions={{'t': {label}}})",
                lambda make=make: proba_ok(
                    bnc.NaiveBayes(distributions={"t": make()}).fit(X, Y).predict_proba(X)
                ),
                names=("var_smoothing", "prior_strength", "floor_scale", "bandwidth", "binarize")
                + ("alpha", "'t'"),
                covers=(f"bnclassify.distributions.{label.split('(')[0]}",),
                fast=label.startswith("Gaussian(var"),
            )
        )
    counts = pd.DataFrame(np.random.default_rng(0).integers(0, 5, (N, 3)), columns=list("abc"))
    for label, table in {
        "counts": counts,
        "negative counts": counts - 3,
        "float counts": counts + 0.5,
        "all zero rows": counts * 0,
    }.items():
        out.append(
            Case(
                "node models: odd parameters",
                f"NaiveBayes(distributions={{('a', 'b', 'c'): Multinomial()}}) on {label}",
                lambda t=table: proba_ok(
                    bnc.NaiveBayes(distributions={("a", "b", "c"): distributions.Multinomial()})
                    .fit(t, Y)
                    .predict_proba(t)
                ),
                names=("'a'", "'b'", "'c'", "count", "Multinomial"),
                covers=("bnclassify.distributions.Multinomial",),
            )
        )
    for label, weighting in {
        "AWNB(trees=0)": lambda: AWNB(trees=0),
        "MANB(prior=2)": lambda: MANB(prior=2),
        "WANBIA()": lambda: WANBIA(),
        "AWNB()": lambda: AWNB(),
    }.items():
        out.append(
            Case(
                "node models: odd parameters",
                f"NaiveBayes(weighting={label})",
                lambda w=weighting: proba_ok(
                    bnc.NaiveBayes(weighting=w()).fit(base_table(), Y).predict_proba(base_table())
                ),
                names=("trees", "prior", "weighting"),
                covers=(f"bnclassify.classifiers.{label.split('(')[0]}",),
            )
        )
    return out


def _signal_cases():
    networks, labels = make_signal_subgraph_networks(40, 8, n_signal_edges=3, random_state=0)
    out = []
    odd = {
        "the generated networks": (networks, labels),
        "weighted edges": (networks * 2.5, labels),
        "NaN edges": (np.where(networks > 0, np.nan, networks), labels),
        "one class": (networks, np.zeros(len(labels))),
        "flattened": (networks.reshape(len(networks), -1), labels),
        "non-square": (networks[:, :, :-1], labels),
        "a list": (list(networks), list(labels)),
    }
    for label, (X, y) in odd.items():
        out.append(
            Case(
                "signal subgraphs: odd networks",
                f"SignalSubgraphClassifier on {label}",
                lambda X=X, y=y: proba_ok(
                    bnc.SignalSubgraphClassifier(n_edges=3).fit(X, y).predict_proba(X)
                ),
                names=("X", "y", "network", "edge", "n_edges", "vertices"),
                covers=("bnclassify.SignalSubgraphClassifier",),
                fast=label == "NaN edges",
            )
        )
    return out


def _dask_cases():
    import dask.dataframe as dd

    X = with_column("log-normal")
    frame = dd.from_pandas(X.assign(label=Y), npartitions=2)
    out = []
    out += _calls(
        "dask functions: odd arguments",
        "bnclassify.distributed.dask_training_statistics",
        distributed.dask_training_statistics,
        [
            ("a dask frame", (frame.drop(columns="label"), frame["label"]), {}),
            ("a pandas frame", (X, Y), {}),
            ("y a numpy array", (frame.drop(columns="label"), Y), {}),
        ],
    )
    out += _calls(
        "dask functions: odd arguments",
        "bnclassify.distributed.predict_dask",
        distributed.predict_dask,
        [
            (
                "an unknown method",
                (bnc.NaiveBayes().fit(X, Y), frame.drop(columns="label"), "x"),
                {},
            ),
            ("an unfitted model", (bnc.NaiveBayes(), frame.drop(columns="label"), "predict"), {}),
        ],
    )
    out += _calls(
        "dask functions: odd arguments",
        "bnclassify.distributed.is_dask_collection",
        distributed.is_dask_collection,
        [("None", (None,), {}), ("a frame", (X,), {})],
    )
    return out


def _stats_cases():
    codes = np.zeros((N, 2), dtype=np.int8)
    y = np.resize(np.array([0, 1]), N)
    out = []
    out += _calls(
        "statistics functions: odd arguments",
        "bnclassify.stats.class_counts",
        stats.class_counts,
        [
            ("weights 1e300", (y, 2), {"weights": np.full(N, 1e300)}),
            ("a code out of range", (np.r_[y[:-1], 5], 2), {}),
            ("negative codes", (np.r_[y[:-1], -1], 2), {}),
        ],
    )
    out += _calls(
        "statistics functions: odd arguments",
        "bnclassify.stats.family_counts",
        stats.family_counts,
        [
            ("a parent out of range", (codes, y, 0, [5], np.array([1, 1]), 2), {}),
            ("the child its own parent", (codes, y, 0, [0], np.array([1, 1]), 2), {}),
        ],
    )
    out += _calls(
        "statistics functions: odd arguments",
        "bnclassify.stats.class_codes",
        stats.class_codes,
        [("unknown classes", (np.array(["a", "z"]), 2), {"classes": np.array(["a", "b"])})],
    )
    out += _calls(
        "statistics functions: odd arguments",
        "bnclassify.stats.pairwise_counts",
        stats.pairwise_counts,
        [("one column", (codes[:, :1], y, np.array([1]), 2), {})],
    )
    return out


def _study_cases():
    from bnclassify.study import evaluation, notes

    X = base_table()
    out = []
    out += _calls(
        "study functions: odd arguments",
        "bnclassify.study.study_models",
        study.study_models,
        [
            ("a contact matrix with NaN", (pd.DataFrame([[0, np.nan], [np.nan, 0]]),), {}),
            ("alpha=-1", (), {"alpha": -1}),
        ],
    )
    out += _calls(
        "study functions: odd arguments",
        "bnclassify.study.repeated_evaluation",
        lambda *a, **k: study.repeated_evaluation(*a, **k).folds,
        [
            ("two folds", ({"NB": bnc.NaiveBayes()}, X, Y), {"folds": 2}),
            ("folds=1", ({"NB": bnc.NaiveBayes()}, X, Y), {"folds": 1}),
            ("repeats=0", ({"NB": bnc.NaiveBayes()}, X, Y), {"repeats": 0}),
        ],
    )
    out += _calls(
        "study functions: odd arguments",
        "bnclassify.study.evaluation.format_table",
        evaluation.format_table,
        [
            ("an empty table", (pd.DataFrame(),), {}),
            ("fmt='x'", (pd.DataFrame({"a": [1]}),), {"fmt": "x"}),
        ],
    )
    out += _calls(
        "study functions: odd arguments",
        "bnclassify.study.notes.bma_note",
        notes.bma_note,
        [("no evaluations", ({},), {})],
    )
    return out


def _more_cases(tmp):
    """The remaining public functions and types: data sets, study helpers, node and
    statistics types, with the odd arguments a user can pass."""
    from bnclassify import contacts, datasets, factors, metrics, parameters
    from bnclassify.study import cost, evaluation, figures, models, notes, report

    calls = {
        "bnclassify.datasets.load_car": (
            datasets.load_car,
            [("return_X_y='x'", (), {"return_X_y": "x"})],
        ),
        "bnclassify.datasets.load_vote": (datasets.load_vote, [("defaults", (), {})]),
        "bnclassify.datasets.load_nursery": (
            datasets.load_nursery,
            [("return_X_y", (), {"return_X_y": True})],
        ),
        "bnclassify.datasets.load_p450": (datasets.load_p450, [("defaults", (), {})]),
        "bnclassify.datasets.load_lactamase": (datasets.load_lactamase, [("defaults", (), {})]),
        "bnclassify.contacts.contact_matrix_from_structure": (
            contacts.contact_matrix_from_structure,
            [
                ("a missing file", (tmp / "none.pdb", [(1, 5)]), {}),
                ("blocks of strings", (tmp / "none.pdb", ["a"]), {}),
            ],
        ),
        "bnclassify.study.models.load_study_dataset": (
            models.load_study_dataset,
            [("an unknown name", ("nope",), {})],
        ),
        "bnclassify.study.models.load_study_data": (
            models.load_study_data,
            [("an unknown name", ("nope",), {})],
        ),
        "bnclassify.study.study_evaluation": (
            study.study_evaluation,
            [("an unknown data set", ("nope",), {})],
        ),
        "bnclassify.study.results_markdown": (
            study.results_markdown,
            [("no evaluations", ({},), {"protocol": ""})],
        ),
        "bnclassify.study.comparison_table": (
            study.comparison_table,
            [("an empty summary", (pd.DataFrame(),), {})],
        ),
        "bnclassify.study.baseline_differences": (
            study.baseline_differences,
            [
                (
                    "an unknown baseline",
                    (
                        pd.DataFrame(
                            {"model": ["NB"], "fold": [0], "accuracy": [1.0], "cll": [-1.0]}
                        ),
                    ),
                    {"baseline": "nope"},
                )
            ],
        ),
        "bnclassify.study.notes.tan_flaw_note": (
            notes.tan_flaw_note,
            [("no evaluations", ({},), {})],
        ),
        "bnclassify.study.cost.measure_fit": (
            cost.measure_fit,
            [("no rows", (0, 4), {}), ("no features", (10, 0), {})],
        ),
        "bnclassify.study.cost.run_cost_study": (
            cost.run_cost_study,
            [("no sizes", (), {"features": (), "rows": ()})],
        ),
        "bnclassify.study.cost.cost_table": (
            cost.cost_table,
            [("an empty table", (pd.DataFrame(),), {})],
        ),
        "bnclassify.study.cost.plot_cost_study": (
            cost.plot_cost_study,
            [("an empty table", (pd.DataFrame(),), {})],
        ),
        "bnclassify.study.cost.save_cost_study": (
            cost.save_cost_study,
            [("a file as the folder", (tmp / "x.txt",), {"results": pd.DataFrame()})],
        ),
        "bnclassify.study.cost.default_cost_study": (
            cost.default_cost_study,
            [("quick='x'", (), {"quick": "x"})],
        ),
        "bnclassify.study.figures.make_figures": (
            figures.make_figures,
            [("an unknown figure", (tmp,), {"names": ["nope"]})],
        ),
        "bnclassify.study.figures.load_figure_modules": (
            figures.load_figure_modules,
            [("an unknown module", (("nope",),), {})],
        ),
        "bnclassify.study.figures.figure": (figures.figure, [("a number as the name", (3,), {})]),
        "bnclassify.study.report.environment": (report.environment, [("no argument", (), {})]),
        "bnclassify.study.report.results_page": (
            report.results_page,
            [("no evaluations", ({}, None), {})],
        ),
        "bnclassify.study.report.save_cv_figure": (
            report.save_cv_figure,
            [("a file as the folder", (tmp / "x.txt",), {})],
        ),
        "bnclassify.study.report.reproduce": (
            report.reproduce,
            [
                (
                    "figures='x'",
                    (),
                    {
                        "figures_dir": tmp / "x.txt",
                        "quick": True,
                        "figures": False,
                        "results_path": tmp / "nope" / "r.md",
                    },
                )
            ],
        ),
        "bnclassify.study.evaluation.study_runs": (
            evaluation.study_runs,
            [("progress='x'", (), {"progress": "x"})],
        ),
        "bnclassify.study.evaluation.cv_folds_by_dataset": (
            evaluation.cv_folds_by_dataset,
            [("progress='x'", (), {"progress": "x"})],
        ),
        "bnclassify.study.StudyTAN": (
            lambda **k: study.StudyTAN(**k).fit(base_table(), Y).predict_proba(base_table()),
            [("alpha=-1", (), {"alpha": -1}), ("root='nope'", (), {"root": "nope"})],
        ),
        "bnclassify.factors.node_from_spec": (
            factors.node_from_spec,
            [("None", (None,), {}), ("a string", ("nope",), {})],
        ),
        "bnclassify.factors.register_node": (
            factors.register_node,
            [("a plain class", (int,), {}), ("None", (None,), {})],
        ),
        "bnclassify.factors.unregister_node": (
            factors.unregister_node,
            [("an unknown kind", ("nope",), {})],
        ),
        "bnclassify.factors.node_statistics": (
            factors.node_statistics,
            [("None", (None, None), {})],
        ),
        "bnclassify.factors.TableView": (
            lambda t: factors.TableView(t).table,
            [("a list", ([[0.5, 0.5]],), {})],
        ),
        "bnclassify.factors.DensityView": (
            lambda: factors.DensityView(np.log, -np.inf, np.inf).value_range,
            [("infinite ends", (), {})],
        ),
        "bnclassify.factors.RegressionView": (
            lambda: (
                factors.RegressionView(
                    "p", np.zeros((1, 1)), np.full((1, 1), 1e308), np.ones((1, 1)), -1e308, 1e308
                ).value_range
            ),
            [("a slope near the float maximum", (), {})],
        ),
        "bnclassify.factors.DistributionSpec": (factors.DistributionSpec, [("None", (None,), {})]),
        "bnclassify.parameters.Laplace": (
            lambda a: parameters.Laplace(a).log_conditional(np.ones((2, 2))),
            [("alpha=-1", (-1,), {}), ("alpha='x'", ("x",), {})],
        ),
        "bnclassify.metrics.TTestResult": (
            lambda: metrics.corrected_resampled_ttest([1.0, 2.0], [1.0, 2.0], 9, 1),
            [("identical", (), {})],
        ),
        "bnclassify.metrics.Evaluation": (
            lambda: metrics.Evaluation(pd.DataFrame(), pd.DataFrame()).folds,
            [("empty", (), {})],
        ),
        "bnclassify.inference.Posteriors": (
            lambda: (
                __import__("bnclassify.inference")
                .inference.posteriors(bnc.TAN().fit(base_table(), Y))
                .most_influential
            ),
            [("no evidence", (), {})],
        ),
        "bnclassify.io.PgmpyClassifier": (
            lambda **k: (
                __import__("bnclassify.io")
                .io.PgmpyClassifier(**k)
                .fit(base_table()[["s"]], Y)
                .predict_proba(base_table()[["s"]])
            ),
            [("arcs to nowhere", (), {"arcs": [("s", "nope")]})],
        ),
        "bnclassify.AugmentedNaiveBayes": (
            lambda: bnc.AugmentedNaiveBayes(),
            [("instantiated", (), {})],
        ),
        "bnclassify.stats.StatisticsPlan": (
            lambda **k: stats.StatisticsPlan(**k),
            [("edges of strings", (), {"edges": ("ab",)})],
        ),
        "bnclassify.stats.one_hot": (
            stats.one_hot,
            [("codes past the offsets", (np.array([[5]]), np.array([0]), 2), {})],
        ),
        "bnclassify.stats.column_blocks": (
            stats.column_blocks,
            [("no columns", (np.array([], dtype=int), 10), {})],
        ),
        "bnclassify.stats.category_slices": (
            stats.category_slices,
            [("no features", (np.array([2, 3]), []), {})],
        ),
        "bnclassify.data.decided_kind": (
            data.decided_kind,
            [("no step-2 evidence", (data.count_evidence(pd.Series([1.5] * 40)), False, None), {})],
        ),
        "bnclassify.data.warn_identifiers": (data.warn_identifiers, [("nothing found", ({},), {})]),
        "bnclassify.data.register_kind": (data.register_kind, [("None", (None,), {})]),
        "bnclassify.data.unregister_kind": (
            data.unregister_kind,
            [("an unknown kind", ("nope",), {})],
        ),
        "bnclassify.distributed.partition_statistics": (
            distributed.partition_statistics,
            [("no schema", (base_table(), Y, None, None), {})],
        ),
        "bnclassify.distributed.dask_statistics": (
            distributed.dask_statistics,
            [("pandas input", (base_table(), Y, None, None), {})],
        ),
    }
    out = []
    for qualified, (function, argument_sets) in calls.items():
        out += _calls("more functions: odd arguments", qualified, function, argument_sets, False)
    return out


def cases():
    import tempfile
    from pathlib import Path

    tmp = Path(tempfile.mkdtemp(prefix="bnc-campaign-args-"))
    (tmp / "x.txt").write_text("not a folder")
    return (
        _more_cases(tmp)
        + _data_cases()
        + _distribution_cases()
        + _signal_cases()
        + _dask_cases()
        + _stats_cases()
        + _study_cases()
    )
