"""The use layer on unusual but valid input: plots, metrics and scorers, MDL discretisation,
data sets, contact matrices, dask, and the study's helpers."""

from __future__ import annotations

import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import bnclassify as bnc  # noqa: E402
from bnclassify import metrics, plotting  # noqa: E402
from bnclassify.plotting._layout import tree_layout  # noqa: E402
from bnclassify.plotting._structure import format_weight  # noqa: E402
from bnclassify.preprocessing import MDLDiscretizer, mdl_cut_points  # noqa: E402

from .core import Case, proba_ok  # noqa: E402
from .tables import COLUMNS, FAST_COLUMNS, N, Y, base_table, with_column  # noqa: E402

TMP = Path(tempfile.mkdtemp(prefix="bnc-campaign-use-"))
COLUMN = ("'t'", '"t"', "column t", "Column t")


def _wide(m, n=N, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.choice(list("abc"), (n, m)), columns=[f"f{j}" for j in range(m)])
    return X


def _tan(X=None, y=Y):
    X = base_table() if X is None else X
    return bnc.TAN().fit(X, y), X


# -- plotting -----------------------------------------------------------------------------------


def _format_weight_ok(w, fmt=None):
    out = format_weight(w, fmt)
    return out is None or isinstance(out, str)


WEIGHTS = {
    "nan": float("nan"),
    "inf": float("inf"),
    "-inf": float("-inf"),
    "1e300": 1e300,
    "-0.0": -0.0,
    "5e-324": 5e-324,
    "numpy float32": np.float32(0.25),
    "numpy int": np.int64(7),
    "bool": True,
    "a string": "0.5",
    "a word": "strong",
    "None": None,
    "complex": 1 + 2j,
    "Decimal": __import__("decimal").Decimal("0.125"),
    "Fraction": __import__("fractions").Fraction(1, 3),
    "pd.NA": pd.NA,
}


def _graphs():
    return {
        "empty graph": nx.Graph(),
        "one node": nx.path_graph(["a"]),
        "two components": nx.Graph([("a", "b"), ("c", "d")]),
        "a cycle": nx.cycle_graph(["a", "b", "c"]),
        "a self-loop": nx.Graph([("a", "a"), ("a", "b")]),
        "integer nodes": nx.path_graph(4),
        "mixed node types": nx.Graph([(1, "a"), ("a", (2, 3))]),
        "a star of 300": nx.star_graph(300),
        "a path of 300": nx.path_graph(300),
        "directed": nx.DiGraph([("a", "b"), ("b", "c")]),
    }


def _plot_cases():
    out = []
    for label, w in WEIGHTS.items():
        out.append(
            Case(
                "plotting: format_weight",
                f"format_weight({label})",
                lambda w=w: _format_weight_ok(w),
                names=("weight", "w"),
                covers=("bnclassify.plotting._structure.format_weight",),
                fast=True,
            )
        )
    for label, graph in _graphs().items():
        out.append(
            Case(
                "plotting: layouts of odd graphs",
                f"tree_layout({label})",
                lambda g=graph: _layout_ok(g),
                names=("graph", "tree", "root", "features"),
                covers=("bnclassify.plotting._layout.tree_layout",),
                fast=True,
            )
        )
        out.append(
            Case(
                "plotting: network plots of odd graphs",
                f"plot_structure({label})",
                lambda g=graph: plotting.plot_structure(g) is not None,
                names=("graph", "class_node", "model_or_graph"),
                covers=("bnclassify.plotting.plot_structure",),
            )
        )
    wide = _wide(300)
    weights300 = bnc.TAN().fit(wide, Y).weights_
    out += [
        Case(
            "plotting: 300 features",
            "plot_weights of 300 features",
            lambda: plotting.plot_weights(weights300) is not None,
            covers=("bnclassify.plotting.plot_weights",),
        ),
        Case(
            "plotting: 300 features",
            "plot_weights of 300 features, no annotation",
            lambda: plotting.plot_weights(weights300, annotate=False) is not None,
            covers=("bnclassify.plotting.plot_weights",),
        ),
        Case(
            "plotting: 300 features",
            "plot_structure of a 300-feature TAN",
            lambda: plotting.plot_structure(bnc.TAN().fit(wide, Y)) is not None,
            covers=("bnclassify.plotting.plot_structure",),
        ),
        Case(
            "plotting: 300 features",
            "plot_tree_comparison of two 300-feature trees",
            lambda: (
                plotting.plot_tree_comparison(
                    bnc.TAN().fit(wide, Y), bnc.TAN(criterion="aic_tree").fit(wide, Y)
                )
                is not None
            ),
            covers=("bnclassify.plotting.plot_tree_comparison",),
        ),
        Case(
            "plotting: 300 features",
            "plot_inference of a 300-feature naive Bayes",
            lambda: plotting.plot_inference(bnc.NaiveBayes().fit(wide, Y)) is not None,
            covers=("bnclassify.plotting.plot_inference",),
        ),
    ]
    for label, matrix in {
        "NaN weights": np.array([[0, np.nan], [np.nan, 0]]),
        "inf weights": np.array([[0, np.inf], [np.inf, 0]]),
        "all equal": np.ones((3, 3)),
        "1e300 weights": np.array([[0, 1e300], [1e300, 0]]),
        "negative weights": -np.ones((3, 3)),
        "one feature": np.zeros((1, 1)),
        "no feature": np.zeros((0, 0)),
        "object weights": np.array([[0, "a"], ["a", 0]], dtype=object),
        "int column labels": pd.DataFrame(np.ones((2, 2)), index=[3, 4], columns=[3, 4]),
    }.items():
        out.append(
            Case(
                "plotting: odd weight matrices",
                f"plot_weights({label})",
                lambda mx=matrix: plotting.plot_weights(mx) is not None,
                names=("weights", "matrix", "NaN", "inf"),
                covers=("bnclassify.plotting.plot_weights",),
                fast=True,
            )
        )
    out += _decision_boundary_cases() + _tree_comparison_cases() + _cv_plot_cases()
    out += _model_plot_cases()
    return out


def _layout_ok(graph):
    pos = tree_layout(graph)
    return set(pos) == set(graph.nodes) and all(
        np.isfinite(np.asarray(p, dtype=float)).all() for p in pos.values()
    )


def _numeric_table(n=N, m=2, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, m)), columns=[f"x{j}" for j in range(m)])
    X["x0"] += np.resize([0.0, 2.0], n)
    return X


def _decision_boundary_cases():
    frames = {
        "non-range index": _numeric_table().set_axis(np.arange(N) * 7 + 3),
        "string index": _numeric_table().set_axis([f"r{i}" for i in range(N)]),
        "integer column names": _numeric_table().set_axis([5, 9], axis=1),
        "one column": _numeric_table(m=1),
        "three columns": _numeric_table(m=3),
        "a categorical column": _numeric_table().assign(x1=np.resize(["a", "b"], N)),
        "a constant column": _numeric_table().assign(x1=1.0),
        "1e300 scale": _numeric_table() * 1e300,
        "1e-300 scale": _numeric_table() * 1e-300,
        "shift 1e12": _numeric_table() + 1e12,
        "NaN cells": _numeric_table().mask(np.eye(N, 2, dtype=bool)),
        "numpy array": _numeric_table().to_numpy(),
        "float32 columns": _numeric_table().astype(np.float32),
        "Float64 columns": _numeric_table().astype("Float64"),
    }
    out = []
    for label, X in frames.items():
        for maker in ("NaiveBayes", "TAN", "AODE"):
            out.append(
                Case(
                    "plotting: decision boundary",
                    f"plot_decision_boundary({maker}, X with {label})",
                    lambda m=maker, X=X: _boundary(m, X),
                    names=("X", "column", "feature", "two", "2"),
                    covers=("bnclassify.plotting.plot_decision_boundary",),
                    fast=maker == "NaiveBayes",
                )
            )
    return out


def _boundary(maker, X):
    y = pd.Series(Y, index=X.index) if isinstance(X, pd.DataFrame) else Y
    model = getattr(bnc, maker)().fit(X, y)
    return plotting.plot_decision_boundary(model, X, y) is not None


def _tree_comparison_cases():
    X = pd.DataFrame({c: np.random.default_rng(3).choice(list("xyz"), N) for c in "abcd"})
    tan = bnc.TAN().fit(X, Y)
    contacts = pd.DataFrame(np.ones((4, 4)), index=list("abcd"), columns=list("abcd"))
    simpler = bnc.SimplerTAN(contacts).fit(X, Y)
    inputs = {
        "TAN vs SimplerTAN": (tan, simpler, None, {}),
        "contacts missing a feature": (tan, simpler, contacts.iloc[:3, :3], {}),
        "contacts with NaN": (tan, simpler, contacts.where(np.eye(4) == 0), {}),
        "integer-labelled contacts": (
            tan,
            simpler,
            pd.DataFrame(np.ones((4, 4)), index=range(4), columns=range(4)),
            {},
        ),
        "contacts as an array": (tan, simpler, np.ones((4, 4)), {}),
        "edge_support with NaN": (
            tan,
            simpler,
            None,
            {"edge_support": contacts.where(np.eye(4) == 1)},
        ),
        "edge_support as an array": (tan, simpler, None, {"edge_support": np.ones((4, 4))}),
        "two graphs": (nx.path_graph(list("abc")), nx.star_graph(list("abc")), None, {}),
        "graphs over different nodes": (
            nx.path_graph(list("abc")),
            nx.path_graph(list("xyz")),
            None,
            {},
        ),
        "empty graphs": (nx.Graph(), nx.Graph(), None, {}),
        "a model and a graph": (tan, nx.path_graph(list("abcd")), None, {}),
        "pvalue NaN": (tan, simpler, None, {"pvalue": float("nan")}),
        "pvalue 'x'": (tan, simpler, None, {"pvalue": "x"}),
    }
    out = []
    for label, (a, b, c, kw) in inputs.items():
        out.append(
            Case(
                "plotting: tree comparison",
                f"plot_tree_comparison({label})",
                lambda a=a, b=b, c=c, kw=kw: (
                    plotting.plot_tree_comparison(a, b, c, **kw) is not None
                ),
                names=("contact_matrix", "edge_support", "pvalue", "model", "graph", "tree"),
                covers=("bnclassify.plotting.plot_tree_comparison",),
                fast=True,
            )
        )
        out.append(
            Case(
                "plotting: tree comparison",
                f"shared_edges_permutation_pvalue({label})",
                lambda a=a, b=b: (
                    0 <= plotting.shared_edges_permutation_pvalue(a, b, n_permutations=200) <= 1
                ),
                names=("model", "graph", "tree", "features", "nodes"),
                covers=("bnclassify.plotting.shared_edges_permutation_pvalue",),
            )
        )
    return out


def _cv_results(index=None, **changes):
    rng = np.random.default_rng(0)
    rows = []
    for model in ("NB", "TAN", "AODE"):
        for fold in range(5):
            rows.append(
                {
                    "model": model,
                    "fold": fold,
                    "accuracy": 0.7 + 0.05 * rng.random(),
                    "f1_macro": 0.6 + 0.05 * rng.random(),
                    "cll": -20 - rng.random(),
                }
            )
    table = pd.DataFrame(rows)
    for column, value in changes.items():
        table[column] = value
    if index is not None:
        table.index = index(len(table))
    return table


def _cv_plot_cases():
    tables = {
        "non-range index": _cv_results(index=lambda n: np.arange(n) * 3 + 10),
        "string index": _cv_results(index=lambda n: [f"r{i}" for i in range(n)]),
        "duplicate index": _cv_results(index=lambda n: np.zeros(n, dtype=int)),
        "MultiIndex": _cv_results(
            index=lambda n: pd.MultiIndex.from_arrays([np.arange(n), np.arange(n)])
        ),
        "constant scores": _cv_results(accuracy=0.8, cll=-10.0),
        "a NaN score": _cv_results().assign(cll=lambda t: t["cll"].mask(t.index == 0)),
        "-inf CLL": _cv_results().assign(cll=lambda t: t["cll"].mask(t.index == 0, -np.inf)),
        "one fold": _cv_results().query("fold == 0"),
        "one model": _cv_results().query("model == 'NB'"),
    }
    out = []
    for label, table in tables.items():
        for baseline in (None, "NB"):
            out.append(
                Case(
                    "plotting: CV results",
                    f"plot_cv_results({label}, baseline={baseline})",
                    lambda t=table, b=baseline: plotting.plot_cv_results(t, baseline=b) is not None,
                    names=("results", "baseline", "cll", "fold", "model", "metric"),
                    covers=("bnclassify.plotting.plot_cv_results",),
                    fast=True,
                )
            )
        out.append(
            Case(
                "metrics: summaries",
                f"summarize({label})",
                lambda t=table: isinstance(metrics.summarize(t), pd.DataFrame),
                names=("folds", "model", "fold", "cll"),
                covers=("bnclassify.metrics.summarize",),
            )
        )
    return out


def _model_plot_cases():
    out = []
    for column in FAST_COLUMNS + ("log-normal", "1,000 values", "huge 1e300 spread", "subnormals"):
        X = with_column(column)
        for maker in ("NaiveBayes", "TAN"):
            out.append(
                Case(
                    f"plotting: model plots, column {column}",
                    f"plot_cpt/plot_class_densities/plot_inference/plot_structure of {maker}, "
                    f"t = {column}",
                    lambda m=maker, X=X: _model_plots(getattr(bnc, m)().fit(X, Y), X),
                    names=COLUMN,
                    covers=(
                        "bnclassify.plotting.plot_cpt",
                        "bnclassify.plotting.plot_class_densities",
                        "bnclassify.plotting.plot_inference",
                        "bnclassify.plotting.plot_structure",
                        "bnclassify.plotting.drawn_edges",
                    ),
                    fast=maker == "TAN" and column in FAST_COLUMNS[:3],
                )
            )
    out.append(
        Case(
            "plotting: model plots",
            "plot_edge_posterior / plot_search_path / signal plots",
            _other_plots,
            covers=(
                "bnclassify.plotting.plot_edge_posterior",
                "bnclassify.plotting.plot_search_path",
                "bnclassify.plotting.plot_signal_edges",
                "bnclassify.plotting.plot_signal_edge_probabilities",
            ),
        )
    )
    return out


def _model_plots(model, X):
    kinds = dict(zip(model.feature_names_in_, model.feature_kinds_, strict=True))
    for feature, kind in kinds.items():
        if kind in ("categorical", "binned"):  # tables (a binned column's are over its bins)
            plotting.plot_cpt(model, feature)
        else:
            plotting.plot_class_densities(model, feature, X.iloc[0])
            plotting.plot_cpt(model, feature, X=X, y=Y)
    plotting.plot_inference(model)
    plotting.plot_inference(model, {"s": "a"})
    plotting.plot_structure(model)
    return isinstance(plotting.drawn_edges(plotting.plot_structure(model)), list)


def _other_plots():
    X = pd.DataFrame({c: np.random.default_rng(9).choice(list("xy"), N) for c in "abc"})
    bma = bnc.BMATAN().fit(X, Y)
    plotting.plot_edge_posterior(bma)
    hc = bnc.TANHC(cv=2, random_state=0).fit(X, Y)
    plotting.plot_search_path(hc)
    from bnclassify.datasets import make_signal_subgraph_networks

    networks, labels = make_signal_subgraph_networks(40, 8, n_signal_edges=3, random_state=0)
    ss = bnc.SignalSubgraphClassifier(n_edges=3).fit(networks, labels)
    plotting.plot_signal_edges(ss)
    plotting.plot_signal_edge_probabilities(ss)
    return True


# -- metrics ------------------------------------------------------------------------------------


def _metric_cases():
    model, X = _tan()
    proba = model.predict_proba(X)
    labels = {
        "Series, non-range index": pd.Series(Y, index=np.arange(N) * 3 + 7),
        "Series, string index": pd.Series(Y, index=[f"r{i}" for i in range(N)]),
        "Series, reversed index": pd.Series(Y, index=np.arange(N)[::-1]),
        "category Series": pd.Series(Y, dtype="category"),
        "string[pyarrow] Series": pd.Series(Y, dtype="string[pyarrow]"),
        "list": list(Y),
        "numpy bytes": Y.astype("S1"),
    }
    out = []
    expected = metrics.conditional_log_likelihood(Y, proba, classes=model.classes_)
    for label, y in labels.items():
        out.append(
            Case(
                "metrics: labels",
                f"conditional_log_likelihood(y = {label})",
                lambda y=y: bool(
                    np.isclose(
                        metrics.conditional_log_likelihood(y, proba, classes=model.classes_),
                        expected,
                    )
                ),
                names=("y_true", "classes"),
                covers=("bnclassify.metrics.conditional_log_likelihood",),
                fast=True,
            )
        )
        out.append(
            Case(
                "metrics: labels",
                f"conditional_log_likelihood(y = {label}, classes from y)",
                lambda y=y: bool(
                    np.isclose(metrics.conditional_log_likelihood(y, proba), expected)
                ),
                names=("y_true", "classes"),
                covers=("bnclassify.metrics.conditional_log_likelihood",),
            )
        )
        out.append(
            Case(
                "metrics: labels",
                f"cll_scorer(TAN, X, y = {label})",
                lambda y=y: bool(np.isclose(metrics.cll_scorer(model, X, y), expected)),
                names=("y", "y_true", "classes"),
                covers=("bnclassify.metrics.cll_scorer", "bnclassify.metrics.make_cll_scorer"),
            )
        )
    probas = {
        "a 0 for the true class": np.where(np.arange(2)[None, :] == 0, 1.0, 0.0).repeat(N, 0),
        "subnormal probabilities": np.c_[np.full(N, 5e-324), np.full(N, 1 - 5e-324)],
        "float32": proba.astype(np.float32),
        "one column": proba[:, 1],
        "1e300 entries": np.full((N, 2), 1e300),
        "inf entries": np.full((N, 2), np.inf),
        "object entries": proba.astype(object),
        "a DataFrame": pd.DataFrame(proba, index=np.arange(N) + 5),
    }
    for label, p in probas.items():
        out.append(
            Case(
                "metrics: probabilities",
                f"conditional_log_likelihood(proba = {label})",
                lambda p=p: isinstance(
                    metrics.conditional_log_likelihood(Y, p, classes=model.classes_), float
                ),
                names=("proba", "probabilit"),
                covers=("bnclassify.metrics.conditional_log_likelihood",),
                fast=True,
            )
        )
    estimators = {
        "None": None,
        "an unfitted TAN": bnc.TAN(),
        "a string": "TAN",
        "a scikit-learn LogisticRegression": __import__(
            "sklearn.linear_model"
        ).linear_model.LogisticRegression(),
        "a fitted scikit-learn regressor": __import__("sklearn.linear_model")
        .linear_model.LinearRegression()
        .fit(np.arange(N)[:, None], np.arange(N)),
        "a pipeline": __import__("sklearn.pipeline").pipeline.make_pipeline(bnc.NaiveBayes()),
        "an object without classes_": type("P", (), {"predict_proba": lambda self, X: proba})(),
    }
    for label, estimator in estimators.items():
        out.append(
            Case(
                "metrics: scorer with an unexpected estimator",
                f"cll_scorer({label}, X, y)",
                lambda e=estimator: isinstance(metrics.cll_scorer(e, X, Y), float),
                names=("estimator", "predict_proba", "classes_", "fitted"),
                covers=("bnclassify.metrics.cll_scorer",),
                fast=True,
            )
        )
    for label, (a, b) in {
        "identical scores": (np.full(10, 0.8), np.full(10, 0.8)),
        "constant difference": (np.full(10, 0.8), np.full(10, 0.7)),
        "1e300 scores": (np.full(10, 1e300), np.r_[np.full(9, -1e300), 0.0]),
        "one fold": (np.array([0.8]), np.array([0.7])),
        "NaN score": (np.r_[np.nan, np.ones(9)], np.ones(10)),
        "-inf score": (np.r_[-np.inf, np.ones(9)], np.ones(10)),
        "non-range Series": (
            pd.Series(np.linspace(0, 1, 10), index=np.arange(10) + 5),
            pd.Series(np.linspace(0, 1, 10) ** 2, index=np.arange(10)[::-1]),
        ),
    }.items():
        out.append(
            Case(
                "metrics: t-test",
                f"corrected_resampled_ttest({label})",
                lambda a=a, b=b: _ttest_ok(metrics.corrected_resampled_ttest(a, b, 90, 10)),
                names=("a", "b", "score", "fold"),
                covers=("bnclassify.metrics.corrected_resampled_ttest",),
                fast=True,
            )
        )
    for label, (X_, y_) in {
        "y Series with a non-range index": (
            base_table().set_axis(np.arange(N) + 100),
            pd.Series(Y, index=np.arange(N) + 100),
        ),
        "y Series with another index than X": (
            base_table(),
            pd.Series(Y, index=np.arange(N) + 100),
        ),
        "a class of one row": (base_table(), np.r_[Y[:-1], ["r"]]),
        "one column": (base_table()[["s"]], Y),
        "continuous columns": (with_column("log-normal"), Y),
    }.items():
        out.append(
            Case(
                "metrics: evaluate",
                f"evaluate({{NB, TAN}}, {label})",
                lambda X_=X_, y_=y_: _evaluate_ok(X_, y_),
                names=("y", "cv", "fold", "class"),
                covers=("bnclassify.metrics.evaluate", "bnclassify.metrics.study_cv"),
            )
        )
    return out


def _ttest_ok(result):
    return (np.isnan(result.pvalue) or 0 <= result.pvalue <= 1) and isinstance(result.df, int)


def _evaluate_ok(X, y):
    folds, summary = metrics.evaluate(
        {"NB": bnc.NaiveBayes(), "TAN": bnc.TAN()}, X, y, cv=metrics.study_cv(3), progress=False
    )
    return bool(np.isfinite(folds["accuracy"]).all()) and len(summary) == 2


# -- MDL, data sets, contacts, dask, study ------------------------------------------------------


def _mdl_cases():
    out = []
    for column in COLUMNS:
        out.append(
            Case(
                f"MDL: column {column}",
                f"MDLDiscretizer fit/transform + NaiveBayes, t = {column}",
                lambda c=column: _mdl_ok(with_column(c)),
                names=COLUMN,
                covers=("bnclassify.MDLDiscretizer",),
                fast=column in FAST_COLUMNS[:4],
            )
        )
    for label, x in {
        "constant": np.ones(N),
        "1e300": np.random.default_rng(0).normal(size=N) * 1e300,
        "NaN": np.full(N, np.nan),
        "empty": np.array([]),
    }.items():
        out.append(
            Case(
                "MDL: cut points",
                f"mdl_cut_points({label})",
                lambda x=x: np.isfinite(mdl_cut_points(x, Y[: len(x)])).all(),
                names=("x", "y"),
                covers=("bnclassify.preprocessing.mdl_cut_points",),
            )
        )
    return out


def _mdl_ok(X):
    transformed = MDLDiscretizer().fit(X, Y).transform(X)
    model = bnc.NaiveBayes().fit(transformed, Y)
    return proba_ok(model.predict_proba(transformed))


def _dataset_cases():
    from bnclassify import datasets

    out = []
    csvs = {
        "empty file": "",
        "header only": "a,label\n",
        "one row": "a,label\nx,p\n",
        "a class column of NaN": "a,label\nx,\ny,\n",
        "quoted newlines": 'a,label\n"x\ny",p\nz,q\nx,p\nz,q\n',
        "BOM": "\ufeffa,label\nx,p\nz,q\nx,p\nz,q\n",
        "duplicate header": "a,a,label\nx,y,p\nz,w,q\nx,y,p\n",
        "numbers with commas": 'a,label\n"1,5",p\n"2,5",q\n"1,5",p\n',
    }
    for label, text in csvs.items():
        path = TMP / f"{abs(hash(label))}.csv"
        path.write_text(text, encoding="utf-8")
        out.append(
            Case(
                "datasets: load_csv",
                f"load_csv({label})",
                lambda p=path: _load_ok(datasets.load_csv(p, target="label", return_X_y=True)),
                names=(str(path.name), "label", "target", "csv", "CSV", "column"),
                covers=("bnclassify.datasets.load_csv",),
                fast=True,
            )
        )
    for name, kwargs in {
        "make_tree_classification": {"n_samples": 1},
        "make_credit_table": {"n_samples": 0},
        "make_clinic_table": {"n_samples": 1},
        "make_census_table": {"n_samples": 2},
        "make_signal_subgraph_networks": {"n_networks": 1, "n_vertices": 2, "n_signal_edges": 1},
    }.items():
        out.append(
            Case(
                "datasets: generators at their edges",
                f"datasets.{name}({kwargs})",
                lambda n=name, k=kwargs: getattr(datasets, n)(**k) is not None,
                names=tuple(kwargs) + ("n_samples", "n_networks"),
                covers=(f"bnclassify.datasets.{name}",),
            )
        )
    return out


def _load_ok(pair):
    X, y = pair
    return len(X) == len(y)


def _dask_cases():
    out = []
    for column in FAST_COLUMNS + ("integers 1,000 values", "log-normal"):
        out.append(
            Case(
                "dask: kinds of the whole table",
                f"dask fit kinds == in-memory kinds, t = {column}, 4 partitions",
                lambda c=column: _dask_kinds(with_column(c, n=80)),
                names=COLUMN,
                covers=("bnclassify.distributed.fit_dask",),
                fast=column == "integers 1,000 values",
            )
        )
    return out


def _dask_kinds(X):
    import dask
    import dask.dataframe as dd

    y = np.resize(np.array(["p", "q"]), len(X))
    with dask.config.set({"dataframe.convert-string": False, "scheduler": "synchronous"}):
        frame = dd.from_pandas(X.assign(label=y), npartitions=4)
        remote = bnc.NaiveBayes().fit(frame.drop(columns="label"), frame["label"])
    local = bnc.NaiveBayes().fit(X, y)
    if list(remote.feature_kinds_) != list(local.feature_kinds_):
        raise AssertionError(
            f"dask kinds {list(remote.feature_kinds_)} != in memory {list(local.feature_kinds_)}"
        )
    return proba_ok(remote.predict_proba(X))


def cases():
    return _plot_cases() + _metric_cases() + _mdl_cases() + _dataset_cases() + _dask_cases()
