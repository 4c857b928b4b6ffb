"""Every public plot on odd arguments: format specs, weights of every dtype and size,
contact matrices and edge lists that are not what they claim, a CV table of one model.

Each call either draws (the figure is rendered inside the case's time limit, so a warning
that matplotlib raises only when drawing is caught) or refuses naming the parameter.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import bnclassify as bnc  # noqa: E402
from bnclassify import plotting  # noqa: E402

from .core import Case  # noqa: E402
from .tables import N, Y  # noqa: E402

FEATURES = list("abcd")


def _categorical(seed=3):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({c: rng.choice(list("xyz"), N) for c in FEATURES})


def _square(values, dtype=None):
    frame = pd.DataFrame(values, index=FEATURES, columns=FEATURES)
    return frame if dtype is None else frame.astype(dtype)


def _weights(seed=0):
    rng = np.random.default_rng(seed)
    w = rng.random((4, 4))
    w = (w + w.T) / 2
    np.fill_diagonal(w, 0.0)
    return w


#: Weight matrices a user may hand a structure plot or a heatmap: label -> DataFrame.
WEIGHT_MATRICES = {
    "strings": _square(np.full((4, 4), "w", dtype=object)),
    "numbers as strings": _square(_weights().round(3).astype(str)),
    "complex": _square(_weights() + 1j),
    "complex, zero imaginary part": _square(_weights() + 0j),
    "1e308": _square(np.full((4, 4), 1e308)),
    "max float": _square(np.full((4, 4), np.finfo(float).max)),
    "overflowed to inf": _square(np.where(_weights() > 0.3, np.inf, _weights())),
    "-inf": _square(np.where(np.eye(4, k=1) > 0, -np.inf, _weights())),
    "NaN everywhere": _square(np.full((4, 4), np.nan)),
    "5e-324": _square(np.full((4, 4), 5e-324)),
    "mixed magnitudes": _square(_weights() * 10.0 ** (np.arange(16).reshape(4, 4) * 40 - 300)),
    "negative": _square(-_weights()),
    "booleans": _square(_weights() > 0.5),
    "object numbers and None": _square(np.where(_weights() > 0.5, None, _weights())),
    "Int64 with NA": _square((_weights() * 10).round(), "Int64").mask(np.eye(4, dtype=bool)),
    "Float64": _square(_weights(), "Float64"),
    "decimals": _square(
        np.vectorize(lambda v: __import__("decimal").Decimal(str(round(v, 3))))(_weights())
    ),
}

#: Format specs of plotted numbers (``weight_format=``, ``fmt=``): label -> value.
FORMAT_SPECS = {
    "an integer": 3,
    "'%q'": "%q",
    "'.2z'": ".2z",
    "'{:.2f}' (a template)": "{:.2f}",
    "'%.2f' (printf style)": "%.2f",
    "bytes": b".2f",
    "'.2f'": ".2f",
    "'' (empty)": "",
    "'d' (integers only)": "d",
    "'s' (strings only)": "s",
    "'.1e'": ".1e",
    "a list": [".2f"],
}


def _fitted():
    X = _categorical()
    tan = bnc.TAN().fit(X, Y)
    contacts = _square(np.ones((4, 4)) - np.eye(4))
    simpler = bnc.SimplerTAN(contacts).fit(X, Y)
    return tan, simpler


def _structure_cases():
    tan, _ = _fitted()
    out = []
    for label, spec in FORMAT_SPECS.items():
        out.append(
            Case(
                "plots: number formats",
                f"plot_structure(TAN, weight_format={label})",
                lambda s=spec: plotting.plot_structure(tan, weight_format=s) is not None,
                names=("weight_format",),
                covers=("bnclassify.plotting.plot_structure",),
                fast=label == "an integer",
            )
        )
        out.append(
            Case(
                "plots: number formats",
                f"plot_weights(TAN, fmt={label})",
                lambda s=spec: plotting.plot_weights(tan, fmt=s) is not None,
                names=("fmt",),
                covers=("bnclassify.plotting.plot_weights",),
            )
        )
    for label, matrix in WEIGHT_MATRICES.items():
        out.append(
            Case(
                "plots: weight values",
                f"plot_structure(TAN, weights={label})",
                lambda m=matrix: plotting.plot_structure(tan, weights=m) is not None,
                names=("weights",),
                covers=("bnclassify.plotting.plot_structure",),
                fast=label == "strings",
            )
        )
        out.append(
            Case(
                "plots: weight values",
                f"plot_structure(TAN, weights={{edge: {label}}})",
                lambda m=matrix: (
                    plotting.plot_structure(
                        tan, weights={frozenset(e): m.loc[e] for e in _feature_edges(tan)}
                    )
                    is not None
                ),
                names=("weights",),
                covers=("bnclassify.plotting.plot_structure",),
            )
        )
        out.append(
            Case(
                "plots: weight values",
                f"plot_weights({label})",
                lambda m=matrix: plotting.plot_weights(m) is not None,
                names=("matrix",),
                covers=("bnclassify.plotting.plot_weights",),
                fast=label == "overflowed to inf",
            )
        )
        out.append(
            Case(
                "plots: weight values",
                f"plot_weights({label}, outline_tree=True, gamma=0.5)",
                lambda m=matrix: plotting.plot_weights(m, outline_tree=True, gamma=0.5) is not None,
                names=("matrix", "gamma", "weights"),
                covers=("bnclassify.plotting.plot_weights",),
            )
        )
        graph = nx.Graph()
        graph.add_weighted_edges_from(
            (u, v, matrix.loc[u, v]) for u, v in [("a", "b"), ("b", "c"), ("c", "d")]
        )
        out.append(
            Case(
                "plots: weight values",
                f"plot_structure(a graph whose edge weights are {label})",
                lambda g=graph: plotting.plot_structure(g) is not None,
                names=("weight",),
                covers=("bnclassify.plotting.plot_structure",),
            )
        )
    for label, kwargs in {
        "vmax_scale=1e308": {"vmax_scale": 1e308},
        "vmax_scale=5e-324": {"vmax_scale": 5e-324},
        "gamma=1e308": {"gamma": 1e308},
        "gamma=5e-324": {"gamma": 5e-324},
        "cmap='nope'": {"cmap": "nope"},
        "cmap=3": {"cmap": 3},
        "annotate='x'": {"annotate": "x"},
        "fontsize=0": {"fontsize": 0},
        "fontsize=1e308": {"fontsize": 1e308},
        "colorbar_label=3": {"colorbar_label": 3},
    }.items():
        out.append(
            Case(
                "plots: heatmap options",
                f"plot_weights(TAN, {label})",
                lambda k=kwargs: plotting.plot_weights(tan, **k) is not None,
                names=tuple(kwargs),
                covers=("bnclassify.plotting.plot_weights",),
                fast=label == "cmap='nope'",
            )
        )
    for label, kwargs in {
        "fontsize=1e308": {"fontsize": 1e308},
        "fontsize='x'": {"fontsize": "x"},
        "member=1.5": {"member": 1.5},
        "member=-1": {"member": -1},
        "root='nope'": {"root": "nope"},
        "class_node='nope'": {"class_node": "nope"},
        "edge_colors with a bad colour": {"edge_colors": {frozenset("ab"): "not a colour"}},
        "edge_colors={edge: 3}": {"edge_colors": {frozenset("ab"): 3}},
        "title=3": {"title": 3},
        "show_weights='no'": {"show_weights": "no"},
    }.items():
        out.append(
            Case(
                "plots: structure options",
                f"plot_structure(TAN, {label})",
                lambda k=kwargs: plotting.plot_structure(tan, **k) is not None,
                names=tuple(kwargs) + ("colour", "color"),
                covers=("bnclassify.plotting.plot_structure",),
                fast=label == "edge_colors with a bad colour",
            )
        )
    return out


def _feature_edges(model):
    return [(u, v) for u, v in model.structure_.edges if model.class_node_ not in (u, v)]


def _comparison_cases():
    tan, simpler = _fitted()
    good = _square(np.ones((4, 4)) - np.eye(4))
    contacts = {
        "string values": _square(np.full((4, 4), "x", dtype=object)),
        "numbers as strings": good.astype(str),
        "string labels of integer features": pd.DataFrame(
            np.ones((4, 4)), index=[str(k) for k in range(4)], columns=[str(k) for k in range(4)]
        ),
        "complex values": good + 1j,
        "inf": good.replace(1.0, np.inf),
        "labels in another order": good.iloc[::-1, ::-1],
        "an array of strings": np.full((4, 4), "x"),
        "a list of lists": (np.ones((4, 4)) - np.eye(4)).tolist(),
        "one row": good.iloc[:1],
        "a Series": good.iloc[0],
        "a string": "contacts.csv",
    }
    out = []
    for label, matrix in contacts.items():
        for arg in ("contact_matrix", "edge_support"):
            kwargs = {arg: matrix}
            out.append(
                Case(
                    "plots: tree comparison inputs",
                    f"plot_tree_comparison(TAN, SimplerTAN, {arg}={label})",
                    lambda k=kwargs: plotting.plot_tree_comparison(tan, simpler, **k) is not None,
                    names=(arg,),
                    covers=("bnclassify.plotting.plot_tree_comparison",),
                    fast=label == "string values",
                )
            )
        out.append(
            Case(
                "plots: tree comparison inputs",
                f"plot_edge_posterior(BMATAN, contact_matrix={label})",
                lambda m=matrix: plotting.plot_edge_posterior(_bma(), m) is not None,
                names=("contact_matrix",),
                covers=("bnclassify.plotting.plot_edge_posterior",),
            )
        )
    for label, kwargs in {
        "labels=('one',)": {"labels": ("one",)},
        "labels='ab'": {"labels": "ab"},
        "labels=(1, 2)": {"labels": (1, 2)},
        "pvalue=2": {"pvalue": 2},
        "pvalue=-0.1": {"pvalue": -0.1},
        "pvalue=1j": {"pvalue": 1j},
        "support_name=3": {"support_name": 3},
        "fontsize=-1": {"fontsize": -1},
    }.items():
        out.append(
            Case(
                "plots: tree comparison inputs",
                f"plot_tree_comparison(TAN, SimplerTAN, {label})",
                lambda k=kwargs: plotting.plot_tree_comparison(tan, simpler, **k) is not None,
                names=tuple(kwargs),
                covers=("bnclassify.plotting.plot_tree_comparison",),
            )
        )
    for label, kwargs in {
        "n_permutations=0": {"n_permutations": 0},
        "n_permutations=-5": {"n_permutations": -5},
        "n_permutations=1.5": {"n_permutations": 1.5},
        "n_permutations=10**12": {"n_permutations": 10**12},
        "random_state='x'": {"random_state": "x"},
        "random_state=-1": {"random_state": -1},
    }.items():
        out.append(
            Case(
                "plots: tree comparison inputs",
                f"shared_edges_permutation_pvalue(TAN, SimplerTAN, {label})",
                lambda k=kwargs: (
                    0 <= plotting.shared_edges_permutation_pvalue(tan, simpler, **k) <= 1
                ),
                names=tuple(kwargs),
                covers=("bnclassify.plotting.shared_edges_permutation_pvalue",),
            )
        )
    return out


def _bma():
    return bnc.BMATAN().fit(_categorical(), Y)


def cv_table(models=("NB", "TAN", "AODE"), folds=5, seed=0, **changes):
    """A per-fold table as :func:`bnclassify.metrics.evaluate` returns it (fold sizes
    included, so the baseline differences are computed)."""
    rng = np.random.default_rng(seed)
    rows = [
        {
            "model": model,
            "fold": fold,
            "n_train": 36,
            "n_test": 4,
            "accuracy": 0.7 + 0.05 * rng.random(),
            "f1_macro": 0.6 + 0.05 * rng.random(),
            "cll": -20 - rng.random(),
        }
        for model in models
        for fold in range(folds)
    ]
    table = pd.DataFrame(rows)
    for column, value in changes.items():
        table[column] = value
    return table


def _cv_cases():
    tables = {
        "one model": cv_table(models=("NB",)),
        "two models": cv_table(models=("NB", "TAN")),
        "one fold": cv_table(folds=1),
        "one model, one fold": cv_table(models=("NB",), folds=1),
        "a model only in some folds": cv_table().drop(index=[5, 6]),
        "two data sets": pd.concat(
            [cv_table().assign(dataset="a"), cv_table(seed=1).assign(dataset="b")]
        ),
        "a data set of one model": pd.concat(
            [cv_table().assign(dataset="a"), cv_table(models=("NB",)).assign(dataset="b")]
        ),
        "scores as strings": cv_table().astype({"accuracy": str}),
        "complex scores": cv_table().assign(accuracy=lambda t: t["accuracy"] + 1j),
        "1e308 scores": cv_table().assign(cll=1e308),
        "n_test of zero": cv_table(n_test=0),
        "model names as numbers": cv_table(models=(1, 2, 3)),
        "an empty table": cv_table().iloc[:0],
    }
    out = []
    for label, table in tables.items():
        for baseline in (None, "NB", "nope"):
            out.append(
                Case(
                    "plots: CV tables",
                    f"plot_cv_results({label}, baseline={baseline!r})",
                    lambda t=table, b=baseline: plotting.plot_cv_results(t, baseline=b) is not None,
                    names=("results", "baseline", "model", "metric", "fold", "accuracy", "cll")
                    + ("n_test", "n_train"),
                    covers=("bnclassify.plotting.plot_cv_results",),
                    fast=label == "one model" and baseline == "NB",
                )
            )
        out.append(
            Case(
                "plots: CV tables",
                f"cv_differences({label})",
                lambda t=table: isinstance(plotting.cv_differences(t), pd.DataFrame),
                names=("results", "baseline", "model", "metric", "fold", "accuracy", "cll")
                + ("n_test", "n_train"),
                covers=("bnclassify.plotting.plot_cv_results",),
            )
        )
    table = cv_table()
    for label, kwargs in {
        "metrics='accuracy' (a string)": {"metrics": "accuracy"},
        "metrics=()": {"metrics": ()},
        "metrics=('nope',)": {"metrics": ("nope",)},
        "confidence=1.5": {"confidence": 1.5, "baseline": "NB"},
        "confidence=0": {"confidence": 0, "baseline": "NB"},
        "confidence=nan": {"confidence": np.nan, "baseline": "NB"},
        "baseline=3": {"baseline": 3},
        "title=3": {"title": 3},
    }.items():
        out.append(
            Case(
                "plots: CV tables",
                f"plot_cv_results(three models, {label})",
                lambda k=kwargs: plotting.plot_cv_results(table, **k) is not None,
                names=tuple(kwargs) + ("metric", "'nope'"),
                covers=("bnclassify.plotting.plot_cv_results",),
                fast=label.startswith("metrics='accuracy'"),
            )
        )
    return out


def _signal():
    from bnclassify.datasets import make_signal_subgraph_networks

    networks, labels = make_signal_subgraph_networks(40, 8, n_signal_edges=3, random_state=0)
    return bnc.SignalSubgraphClassifier(n_edges=3).fit(networks, labels)


def _signal_cases():
    model = _signal()
    out = []
    true_edges = {
        "a string": "x",
        "integers": [1, 2, 3],
        "a 3 x 3 matrix": np.ones((3, 3)),
        "pairs of strings": [("a", "b")],
        "an integer": 5,
        "pairs of floats": [(1.5, 2.0)],
        "one-element tuples": [(0,)],
        "triples": [(0, 1, 2)],
        "pairs out of range": [(100, 200)],
        "negative vertices": [(-1, 2)],
        "NaN": [(np.nan, 1)],
        "an empty list": [],
        "a set of pairs": {(0, 1), (2, 3)},
        "an array of pairs": np.array([[0, 1], [2, 3]]),
    }
    for label, edges in true_edges.items():
        out.append(
            Case(
                "plots: signal subgraph inputs",
                f"plot_signal_edges(true_edges={label})",
                lambda e=edges: plotting.plot_signal_edges(model, true_edges=e) is not None,
                names=("true_edges",),
                covers=("bnclassify.plotting.plot_signal_edges",),
                fast=label == "integers",
            )
        )
    probabilities = {
        "the right shape": np.full((2, 8, 8), 0.5),
        "strings": np.full((2, 8, 8), "x"),
        "complex": np.full((2, 8, 8), 0.5 + 1j),
        "NaN": np.full((2, 8, 8), np.nan),
        "above 1": np.full((2, 8, 8), 1.5),
        "a scalar": 0.5,
        "ragged": [[0.5], [0.5, 0.5]],
    }
    for label, p in probabilities.items():
        out.append(
            Case(
                "plots: signal subgraph inputs",
                f"plot_signal_edge_probabilities(true_probabilities={label})",
                lambda p=p: (
                    plotting.plot_signal_edge_probabilities(model, true_probabilities=p) is not None
                ),
                names=("true_probabilities",),
                covers=("bnclassify.plotting.plot_signal_edge_probabilities",),
                fast=label == "strings",
            )
        )
    for label, labels in {
        "too few": ["a"],
        "numbers": list(range(8)),
        "a string": "abcdefgh",
        "None entries": [None] * 8,
    }.items():
        for function in (plotting.plot_signal_edges, plotting.plot_signal_edge_probabilities):
            out.append(
                Case(
                    "plots: signal subgraph inputs",
                    f"{function.__name__}(vertex_labels={label})",
                    lambda f=function, v=labels: f(model, vertex_labels=v) is not None,
                    names=("vertex_labels",),
                    covers=(f"bnclassify.plotting.{function.__name__}",),
                )
            )
    return out


def _numeric_pair(n=N, scale=1.0, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 2)), columns=["x0", "x1"]) * scale
    X["x0"] += np.resize([0.0, 2.0 * scale], n)
    return X


def _boundary_cases():
    X = _numeric_pair()
    makers = {
        "NaiveBayes": lambda: bnc.NaiveBayes(),
        "NaiveBayes(density)": lambda: bnc.NaiveBayes(distributions="density"),
        "TAN(density)": lambda: bnc.TAN(distributions="density"),
    }
    out = []
    for label, kwargs in {
        "margin=1e308": {"margin": 1e308},
        "margin=1e300": {"margin": 1e300},
        "margin=1e16": {"margin": 1e16},
        "proba_levels=('x',)": {"proba_levels": ("x",)},
        "proba_levels=0.5": {"proba_levels": 0.5},
        "proba_levels=(1.5,)": {"proba_levels": (1.5,)},
        "proba_levels=(nan,)": {"proba_levels": (np.nan,)},
        "proba_levels=(0.5, 0.5)": {"proba_levels": (0.5, 0.5)},
        "proba_levels=(0, 1)": {"proba_levels": (0, 1)},
        "proba_levels='0.5'": {"proba_levels": "0.5"},
        "y of another length": {"y": Y[:5]},
        "y of other labels": {"y": np.resize(["u", "v"], N)},
        "y of NaN": {"y": np.full(N, np.nan)},
    }.items():
        for maker, make in makers.items():
            y = kwargs.get("y", Y)
            rest = {k: v for k, v in kwargs.items() if k != "y"}
            out.append(
                Case(
                    "plots: decision boundary options",
                    f"plot_decision_boundary({maker}, {label})",
                    lambda m=make, y=y, k=rest: (
                        plotting.plot_decision_boundary(m().fit(X, Y), X, y, **k) is not None
                    ),
                    names=tuple(kwargs) + ("X", "y", "label"),
                    covers=("bnclassify.plotting.plot_decision_boundary",),
                    fast=maker == "NaiveBayes" and label == "margin=1e308",
                )
            )
    for label, scale in {"1e307": 1e307, "1e300": 1e300, "1e-300": 1e-300}.items():
        big = _numeric_pair(scale=scale)
        for margin in (0.05, 1.0):
            out.append(
                Case(
                    "plots: decision boundary options",
                    f"plot_decision_boundary(NaiveBayes(density), X scaled by {label}, "
                    f"margin={margin})",
                    lambda X=big, m=margin: (
                        plotting.plot_decision_boundary(
                            bnc.NaiveBayes(distributions="density").fit(X, Y), X, Y, margin=m
                        )
                        is not None
                    ),
                    names=("margin", "X"),
                    covers=("bnclassify.plotting.plot_decision_boundary",),
                )
            )
    return out


def _model_plot_cases():
    X = _numeric_pair().assign(s=np.resize(["a", "b", "c"], N))
    model = bnc.TAN(distributions="density").fit(X, Y)
    out = []
    calls = {
        "plot_cpt(feature='nope')": lambda: plotting.plot_cpt(model, "nope"),
        "plot_cpt(feature=1.5)": lambda: plotting.plot_cpt(model, 1.5),
        "plot_cpt(feature=None)": lambda: plotting.plot_cpt(model, None),
        "plot_cpt(cmap='nope')": lambda: plotting.plot_cpt(model, "s", cmap="nope"),
        "plot_cpt(n_points=1)": lambda: plotting.plot_cpt(model, "x0", n_points=1),
        "plot_cpt(X without y)": lambda: plotting.plot_cpt(model, "x0", X=X),
        "plot_cpt(member=5)": lambda: plotting.plot_cpt(model, "s", member=5),
        "plot_class_densities(sample of a string)": lambda: plotting.plot_class_densities(
            model, "x0", {"x0": "x"}
        ),
        "plot_class_densities(sample 1e308)": lambda: plotting.plot_class_densities(
            model, "x0", {"x0": 1e308}
        ),
        "plot_class_densities(sample NaN)": lambda: plotting.plot_class_densities(
            model, "x0", {"x0": np.nan}
        ),
        "plot_class_densities(xlim=(1, 0))": lambda: plotting.plot_class_densities(
            model, "x0", xlim=(1, 0)
        ),
        "plot_class_densities(xlim=(-1e308, 1e308))": lambda: plotting.plot_class_densities(
            model, "x0", xlim=(-1e308, 1e308)
        ),
        "plot_class_densities(xlim='x')": lambda: plotting.plot_class_densities(
            model, "x0", xlim="x"
        ),
        "plot_class_densities(n_points=10**9)": lambda: plotting.plot_class_densities(
            model, "x0", n_points=10**9
        ),
        "plot_class_densities(a categorical feature)": lambda: plotting.plot_class_densities(
            model, "s"
        ),
        "plot_inference(max_per_row=0)": lambda: plotting.plot_inference(model, max_per_row=0),
        "plot_inference(max_per_row=1.5)": lambda: plotting.plot_inference(model, max_per_row=1.5),
        "plot_inference(n_points=1)": lambda: plotting.plot_inference(model, n_points=1),
        "plot_inference(evidence={'x0': 1e308})": lambda: plotting.plot_inference(
            model, {"x0": 1e308}
        ),
        "plot_inference(evidence={'s': 3})": lambda: plotting.plot_inference(model, {"s": 3}),
        "InferenceView(evidence='s')": lambda: plotting.InferenceView(model, "s"),
        "plot_search_path(a TAN)": lambda: plotting.plot_search_path(model),
        "drawn_edges(None)": lambda: plotting.drawn_edges(None),
        "drawn_edges(role='nope')": lambda: plotting.drawn_edges(
            plotting.plot_structure(model), role="nope"
        ),
    }
    for label, call in calls.items():
        out.append(
            Case(
                "plots: model plot options",
                label,
                lambda c=call: c() is not None,
                names=(
                    "feature",
                    "cmap",
                    "n_points",
                    "X",
                    "y",
                    "member",
                    "sample",
                    "xlim",
                    "max_per_row",
                    "evidence",
                    "role",
                    "obj",
                    "model",
                    "'x0'",
                    "'s'",
                    "'nope'",
                    "got TAN",
                ),
                covers=(
                    "bnclassify.plotting.plot_cpt",
                    "bnclassify.plotting.plot_class_densities",
                    "bnclassify.plotting.plot_inference",
                    "bnclassify.plotting.InferenceView",
                    "bnclassify.plotting.plot_search_path",
                    "bnclassify.plotting.drawn_edges",
                ),
                fast=label == "plot_class_densities(sample 1e308)",
            )
        )
    return out


def cases():
    return (
        _structure_cases()
        + _comparison_cases()
        + _cv_cases()
        + _signal_cases()
        + _boundary_cases()
        + _model_plot_cases()
    )
