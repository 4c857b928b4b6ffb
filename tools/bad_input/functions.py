"""The library's functions (data, statistics, information, structure, parameters, factors,
inference, explanations, model files) on odd input, each answer checked where a slow
reference exists."""

from __future__ import annotations

import itertools
import math
import tempfile
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import scipy.special

import bnclassify as bnc
from bnclassify import data, parameters, spanning_trees, stats, structure
from bnclassify.explain import explain
from bnclassify.inference import posteriors
from bnclassify.io import dump, from_bif, from_pgmpy, load, to_bif

from .core import Case, proba_ok, same
from .tables import COLUMNS, FAST_COLUMNS, N, Y, base_table, with_column

TMP = Path(tempfile.mkdtemp(prefix="bnc-campaign-fn-"))
COLUMN = ("'t'", '"t"', "column t", "Column t")


# -- references ---------------------------------------------------------------------------------


def slow_cmi(a, b, y) -> float:
    """I(A; B | Y) in nats by the plug-in formula, one cell at a time (rows observing both)."""
    frame = pd.DataFrame({"a": a, "b": b, "y": y}).dropna()
    n = len(frame)
    total = 0.0
    for (va, vb, vy), n_abc in frame.value_counts().items():
        n_c = (frame["y"] == vy).sum()
        n_ac = ((frame["a"] == va) & (frame["y"] == vy)).sum()
        n_bc = ((frame["b"] == vb) & (frame["y"] == vy)).sum()
        total += n_abc / n * math.log(n_abc * n_c / (n_ac * n_bc))
    return total


def slow_mi(a, y) -> float:
    frame = pd.DataFrame({"a": a, "y": y}).dropna()
    n = len(frame)
    total = 0.0
    for (va, vy), n_ay in frame.value_counts().items():
        n_a = (frame["a"] == va).sum()
        n_y = (frame["y"] == vy).sum()
        total += n_ay / n * math.log(n_ay * n / (n_a * n_y))
    return total


def _categorical_cmi_matches(X, y):
    X = X.astype(object).where(X.notna(), np.nan)
    got = bnc.conditional_mutual_information(X, y, distributions="categorical")
    cols = list(X.columns)
    for i, a in enumerate(cols):
        for b in cols[i + 1 :]:
            if not np.isclose(got.loc[a, b], slow_cmi(X[a], X[b], y), atol=1e-10):
                return False
    return bool(np.allclose(got.to_numpy(), got.to_numpy().T)) and (got.to_numpy() >= -1e-12).all()


def _categorical_mi_matches(X, y):
    X = X.astype(object).where(X.notna(), np.nan)
    got = bnc.mutual_information_with_class(X, y, distributions="categorical")
    return all(np.isclose(got[c], slow_mi(X[c], y), atol=1e-10) for c in X.columns)


def _information_finite(X, y):
    cmi = bnc.conditional_mutual_information(X, y)
    mi = bnc.mutual_information_with_class(X, y)
    w = cmi.to_numpy(dtype=float)
    return bool(np.isfinite(w).all() and np.allclose(w, w.T) and np.isfinite(mi.to_numpy()).all())


def _kind_is_one_of(column, kinds):
    return data.default_kind(pd.Series(column)) in kinds


def _centred_ok(column):
    x = np.asarray(pd.Series(column).astype(float), dtype=float)
    observed = np.isfinite(x)
    centred = data.centred_columns(x[:, None], observed[:, None])
    return bool(np.isfinite(centred[observed[:, None]]).all())


# -- cases ----------------------------------------------------------------------------------


def _information_cases():
    out = []
    for column in COLUMNS:
        out.append(
            Case(
                f"information: {column}",
                f"conditional_mutual_information/mutual_information_with_class, t = {column}",
                lambda c=column: _information_finite(with_column(c), Y),
                names=COLUMN,
                covers=(
                    "bnclassify.conditional_mutual_information",
                    "bnclassify.mutual_information_with_class",
                ),
                fast=column in FAST_COLUMNS,
            )
        )
        out.append(
            Case(
                f"kinds rule: {column}",
                f"data.default_kind / centred_columns on {column}",
                lambda c=column: (
                    _kind_is_one_of(COLUMNS[c](N), ("gaussian", "lognormal", "categorical"))
                    and (_numeric(c) is None or _centred_ok(_numeric(c)))
                ),
                names=COLUMN + ("column",),
                covers=("bnclassify.data.default_kind", "bnclassify.data.centred_columns"),
                fast=column in FAST_COLUMNS,
            )
        )
    rng = np.random.default_rng(7)
    tables = {
        "three categorical": pd.DataFrame({c: rng.choice(list("xyz"), N) for c in "abc"}),
        "with missing cells": pd.DataFrame(
            {c: np.where(rng.random(N) < 0.2, None, rng.choice(list("xy"), N)) for c in "abc"}
        ),
        "a constant column": pd.DataFrame({"a": rng.choice(list("xy"), N), "b": "k"}),
        "integer codes": pd.DataFrame({c: rng.integers(0, 4, N) for c in "ab"}),
        "many categories": pd.DataFrame({c: rng.integers(0, 30, N).astype(str) for c in "ab"}),
    }
    for label, X in tables.items():
        out.append(
            Case(
                "information: against the plug-in formula",
                f"conditional_mutual_information == slow CMI, {label}",
                lambda X=X: _categorical_cmi_matches(X, Y),
                covers=("bnclassify.conditional_mutual_information",),
                fast=True,
            )
        )
        out.append(
            Case(
                "information: against the plug-in formula",
                f"mutual_information_with_class == slow MI, {label}",
                lambda X=X: _categorical_mi_matches(X, Y),
                covers=("bnclassify.mutual_information_with_class",),
                fast=True,
            )
        )
    return out


def _numeric(name):
    column = pd.Series(COLUMNS[name](N))
    if pd.api.types.is_complex_dtype(column.dtype):
        return None  # no real number to centre: the kinds rule reads it as categories
    try:
        return pd.to_numeric(column).astype(float).to_numpy()
    except (TypeError, ValueError):
        return None


def _log_normal_checks():
    out = []
    odd = {
        "1e300 and 1e-300": np.resize([1e300, 1e-300], N),
        "subnormals": np.resize([5e-324, 1e-320, 2e-310], N),
        "max float": np.full(N, 1.7976931348623157e308),
        "one value": np.full(N, 3.0),
        "two rows": np.array([1.0, 2.0]),
        "empty": np.array([]),
        "NaN": np.full(N, np.nan),
        "inf": np.r_[np.inf, np.ones(N - 1)],
        "weights 1e308": np.exp(np.random.default_rng(0).normal(size=N)),
    }
    for label, x in odd.items():
        weights = np.full(len(x), 1e308) if label == "weights 1e308" else None
        out.append(
            Case(
                "kinds rule: log-normal test",
                f"data.prefers_log_normal on {label}",
                lambda x=x, w=weights: isinstance(data.prefers_log_normal(x, weights=w), bool),
                names=("x", "weights"),
                covers=("bnclassify.data.prefers_log_normal",),
                fast=True,
            )
        )
    # a change of origin far beyond the spread leaves the kind alone
    rng = np.random.default_rng(11)
    for label, x in {
        "right-skewed with negatives": rng.gamma(2.0, 1.0, 400) - 1.0,
        "uniform integers": rng.integers(0, 1000, 400).astype(float),
        "normal": rng.normal(size=400),
    }.items():
        for shift in (1e6, 1e9, 1e12):
            out.append(
                Case(
                    "kinds rule: change of origin",
                    f"default_kind({label} + {shift:g}) == default_kind({label})",
                    lambda x=x, s=shift: (
                        data.default_kind(pd.Series(x)) == data.default_kind(pd.Series(x + s))
                    ),
                    covers=("bnclassify.data.default_kind",),
                    fast=shift == 1e6,
                )
            )
    return out


def _laplace_ok(counts, alpha):
    table = parameters.log_conditional(np.asarray(counts, dtype=float), alpha)
    p = np.exp(table)
    return bool(np.isfinite(p).all() and np.allclose(p.sum(axis=-1), 1.0))


def _parameter_cases():
    inputs = {
        "zeros, alpha 1": (np.zeros((2, 3)), 1.0),
        "zeros, alpha 0": (np.zeros((2, 3)), 0.0),
        "1e308 counts": (np.full((2, 3), 1e308), 1.0),
        "max float counts": (np.full((2, 2), 1.7976931348623157e308), 1.0),
        "subnormal counts": (np.full((2, 2), 5e-324), 0.0),
        "1e-300 alpha": (np.array([[1.0, 0.0]]), 1e-300),
        "1e300 alpha": (np.array([[1.0, 0.0]]), 1e300),
        "one state": (np.array([[5.0], [0.0]]), 0.0),
    }
    out = []
    for label, (counts, alpha) in inputs.items():
        out.append(
            Case(
                "parameters: odd counts",
                f"parameters.log_conditional, {label}",
                lambda c=counts, a=alpha: _laplace_ok(c, a),
                names=("alpha", "counts"),
                covers=("bnclassify.parameters.log_conditional",),
                fast=True,
            )
        )
        out.append(
            Case(
                "parameters: odd counts",
                f"Laplace smoothing of {label}",
                lambda c=counts, a=alpha: bool(
                    np.isfinite(np.exp(parameters.log_class_prior(c[0], a))).all()
                ),
                names=("alpha", "counts"),
                covers=("bnclassify.parameters.log_class_prior",),
            )
        )
    for label, weights in {
        "1e308": np.full(N, 1e308),
        "max float": np.full(N, 1.7976931348623157e308),
        "5e-324": np.full(N, 5e-324),
        "one row 1e308, rest 1": np.r_[1e308, np.ones(N - 1)],
        "all zero": np.zeros(N),
        "all zero but one": np.r_[1.0, np.zeros(N - 1)],
    }.items():
        for maker in ("NaiveBayes", "TAN", "AODE", "KDB", "SPODE"):
            out.append(
                Case(
                    f"sample_weight: {label}",
                    f"{maker}.fit(sample_weight={label})",
                    lambda m=maker, w=weights: proba_ok(
                        getattr(bnc, m)()
                        .fit(base_table(), Y, sample_weight=w)
                        .predict_proba(base_table())
                    ),
                    names=("sample_weight",),
                    covers=(f"bnclassify.{maker}",),
                    fast=maker == "NaiveBayes",
                )
            )
    return out


def _structure_cases():
    features = list("abcd")
    rng = np.random.default_rng(2)
    w = rng.random((4, 4))
    w = (w + w.T) / 2
    np.fill_diagonal(w, 0)
    odd = {
        "NaN weight": np.where(np.eye(4, k=1) > 0, np.nan, w),
        "inf weight": np.where(np.eye(4, k=1) > 0, np.inf, w),
        "-inf weight": np.where(np.eye(4, k=1) > 0, -np.inf, w),
        "all equal": np.ones((4, 4)),
        "all zero": np.zeros((4, 4)),
        "1e308": w * 1e308,
        "subnormal": w * 5e-324,
        "negative": -w,
        "asymmetric": w + np.triu(np.ones((4, 4))),
    }
    out = []
    for label, matrix in odd.items():
        frame = pd.DataFrame(matrix, index=features, columns=features)
        out.append(
            Case(
                "structure: odd weights",
                f"structure.tree_from_weights on {label} weights",
                lambda f=frame: _is_spanning_tree(structure.tree_from_weights(f), f),
                names=("weight", "weights", "NaN", "inf", "symmetric"),
                covers=("bnclassify.structure.tree_from_weights",),
                fast=True,
            )
        )
        out.append(
            Case(
                "structure: odd weights",
                f"structure.tan_structure on {label} weights",
                lambda f=frame: nx.is_directed_acyclic_graph(structure.tan_structure(f)),
                names=("weight", "weights", "NaN", "inf", "symmetric"),
                covers=("bnclassify.structure.tan_structure",),
            )
        )
        out.append(
            Case(
                "structure: odd weights",
                f"structure.kdb_feature_dag on {label} weights",
                lambda f=frame: nx.is_directed_acyclic_graph(
                    structure.kdb_feature_dag(f, pd.Series(1.0, index=features), k=2)
                ),
                names=("weight", "weights", "NaN", "inf", "symmetric"),
                covers=("bnclassify.structure.kdb_feature_dag",),
            )
        )
        out.append(
            Case(
                "structure: odd weights",
                f"SimplerTAN with a {label} contact matrix",
                lambda f=frame: proba_ok(
                    bnc.SimplerTAN(f).fit(_four_columns(), Y).predict_proba(_four_columns())
                ),
                names=("contact_matrix", "contact"),
                covers=("bnclassify.SimplerTAN",),
            )
        )
    for label, items in {
        "one feature": ["a"],
        "no feature": [],
    }.items():
        frame = pd.DataFrame(np.zeros((len(items), len(items))), index=items, columns=items)
        out.append(
            Case(
                "structure: odd weights",
                f"structure.tree_from_weights with {label}",
                lambda f=frame: structure.tree_from_weights(f).number_of_nodes() == len(f),
                names=("weight",),
                covers=("bnclassify.structure.tree_from_weights",),
            )
        )
    return out


def _tree_log_weights(log_weights):
    """``(log weight, edges)`` of every spanning tree, by enumeration (the slow reference)."""
    m = len(log_weights)
    if m == 1:
        yield 0.0, ()  # one node: one tree, without an edge
        return
    pairs = [(u, v) for u in range(m) for v in range(u + 1, m)]
    for edges in itertools.combinations(pairs, m - 1):
        if nx.is_tree(nx.Graph(edges)) and len({n for e in edges for n in e}) == m:
            yield math.fsum(log_weights[u][v] for u, v in edges), edges


def _slow_log_tree_sum(log_weights) -> float:
    terms = [w for w, _ in _tree_log_weights(log_weights)]
    return float(scipy.special.logsumexp(terms)) if terms else -np.inf


def _slow_edge_marginals(log_weights) -> np.ndarray:
    m = len(log_weights)
    total = _slow_log_tree_sum(log_weights)
    out = np.zeros((m, m))
    for w, edges in _tree_log_weights(log_weights):
        for u, v in edges:
            out[u, v] += math.exp(w - total)
            out[v, u] = out[u, v]
    return out


def _agrees_with_enumeration(function, reference, matrix) -> bool:
    got = np.asarray(function(matrix), dtype=float)
    with np.errstate(all="ignore"):  # the reference may overflow where the answer is inf
        expected = np.asarray(reference(matrix), dtype=float)
    if not np.isfinite(expected).all():
        return bool(np.array_equal(got, expected, equal_nan=True))
    return bool(np.allclose(got, expected, rtol=1e-7, atol=1e-9))


def _spanning_tree_cases():
    """BMATAN's sums over every spanning tree on odd log weights, against enumeration."""
    rng = np.random.default_rng(3)
    w = rng.normal(size=(4, 4))
    w = (w + w.T) / 2
    np.fill_diagonal(w, 0)
    odd = {
        "NaN weight": np.where(np.eye(4, k=1) > 0, np.nan, w),
        "inf weight": np.where(np.eye(4, k=1) > 0, np.inf, w),
        "-inf edge": np.where(np.eye(4, k=1) + np.eye(4, k=-1) > 0, -np.inf, w),
        "a node cut off (-inf)": np.where(
            (np.arange(4) == 3)[:, None] | (np.arange(4) == 3), -np.inf, w
        ),
        "all equal": np.zeros((4, 4)),
        "peaked (1e3 spread)": w * 1e3,
        "1e308": w * 1e308,
        "-1e300": -np.abs(w) * 1e300,
        "subnormal": w * 5e-324,
        "asymmetric": w + np.triu(np.ones((4, 4))),
        "one feature": np.zeros((1, 1)),
        "two features": np.array([[0.0, 2.0], [2.0, 0.0]]),
    }
    functions = {
        "log_tree_sum": (spanning_trees.log_tree_sum, _slow_log_tree_sum),
        "edge_marginals": (spanning_trees.edge_marginals, _slow_edge_marginals),
    }
    out = []
    for label, matrix in odd.items():
        for name, (function, reference) in functions.items():
            out.append(
                Case(
                    "spanning trees: odd log weights",
                    f"spanning_trees.{name} on {label}",
                    lambda f=function, r=reference, x=matrix: _agrees_with_enumeration(f, r, x),
                    names=("weight", "NaN", "inf", "symmetric", "spanning tree"),
                    covers=(f"bnclassify.spanning_trees.{name}",),
                )
            )
    return out


def _four_columns():
    rng = np.random.default_rng(4)
    return pd.DataFrame({c: rng.choice(list("xyz"), N) for c in "abcd"})


def _is_spanning_tree(tree, frame):
    return nx.is_tree(tree) and set(tree.nodes) == set(frame.index)


def _fitted(maker="TAN", X=None):
    X = base_table() if X is None else X
    return getattr(bnc, maker)().fit(X, Y), X


def _posteriors_ok(maker, evidence):
    model, _ = _fitted(maker, with_column("log-normal"))
    out = posteriors(model, evidence)
    return proba_ok(out.classes.to_numpy()[None, :])


def _inference_cases():
    evidences = {
        "none": None,
        "empty": {},
        "a category": {"s": "a"},
        "an unseen category": {"s": "never"},
        "a number": {"g": 0.5},
        "1e300": {"g": 1e300},
        "-1e300 in a log-normal column": {"t": -1e300},
        "0 in a log-normal column": {"t": 0.0},
        "NaN": {"g": np.nan},
        "inf": {"g": np.inf},
        "a string in a number column": {"g": "x"},
        "an unknown feature": {"nope": 1},
        "a list": {"s": ["a", "b"]},
        "every feature": {"s": "a", "g": 0.0, "t": 1.0},
        "not a dict": [("s", "a")],
    }
    out = []
    for label, evidence in evidences.items():
        for maker in ("NaiveBayes", "TAN", "KDB"):
            out.append(
                Case(
                    f"inference: evidence {label}",
                    f"posteriors({maker}, {label})",
                    lambda m=maker, e=evidence: _posteriors_ok(m, e),
                    names=("evidence", "'g'", "'s'", "'t'", "'nope'", "g", "s"),
                    covers=("bnclassify.inference.posteriors",),
                    fast=maker == "TAN",
                )
            )
    for label, kwargs in {
        "n_points=1": {"n_points": 1},
        "n_points=10**9": {"n_points": 10**9},
        "grid with NaN": {"grid": {"g": [np.nan, 0.0]}},
        "grid of strings": {"grid": {"g": ["a"]}},
        "empty grid": {"grid": {"g": []}},
    }.items():
        out.append(
            Case(
                "inference: options",
                f"posteriors(TAN, {label})",
                lambda k=kwargs: proba_ok(
                    posteriors(
                        _fitted("TAN", with_column("log-normal"))[0], **k
                    ).classes.to_numpy()[None, :]
                ),
                names=("n_points", "grid"),
                covers=("bnclassify.inference.posteriors",),
            )
        )
    return out


def _wide(n_features, n_rows=30, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        rng.choice(list("ab"), (n_rows, n_features)), columns=[f"f{j}" for j in range(n_features)]
    )
    return X, np.resize(np.array(["p", "q"]), n_rows)


def _explain_adds_up(model, rows, **kw):
    out = explain(model, rows, **kw)
    values = np.asarray(out.values, dtype=float)
    if not np.isfinite(values).all():
        return False
    proba = model.predict_proba(rows)
    log_odds = np.log(proba[:, 1]) - np.log(proba[:, 0])
    if kw.get("output") == "probability":
        log_odds = proba[:, 1]
    return same(values.sum(axis=1) + np.asarray(out.base_values, dtype=float), log_odds, atol=1e-6)


def _explain_cases():
    out = []
    for maker in ("NaiveBayes", "TAN", "AODE", "EnsembleTAN", "KDB"):
        for method in ("interventional", "conditional"):
            for n_features in (1, 14):
                X, y = _wide(n_features)
                out.append(
                    Case(
                        "explain: features asked for exact values",
                        f"explain({maker}, {n_features} features, method={method}, "
                        "max_exact_features=14)",
                        lambda m=maker, X=X, y=y, meth=method: _explain_adds_up(
                            getattr(bnc, m)().fit(X, y),
                            X.iloc[:5],
                            method=meth,
                            output="probability",
                            max_exact_features=14,
                        ),
                        names=("max_exact_features", "coalition", "features"),
                        covers=("bnclassify.explain.explain",),
                        fast=maker == "NaiveBayes" and n_features == 14,
                    )
                )
    for column in FAST_COLUMNS:
        out.append(
            Case(
                f"explain: column {column}",
                f"explain(TAN) with t = {column}",
                lambda c=column: _explain_adds_up(
                    bnc.TAN().fit(with_column(c), Y), with_column(c).iloc[:4], random_state=0
                ),
                names=COLUMN,
                covers=("bnclassify.explain.explain",),
            )
        )
    for label, kwargs in {
        "background of 0 rows": {"background": base_table().iloc[:0]},
        "background with missing cells": {"background": base_table().assign(g=np.nan)},
        "X of 0 rows": {"X": base_table().iloc[:0]},
        "X with an unseen category": {"X": base_table().assign(s="never").iloc[:3]},
        "X with NaN": {"X": base_table().assign(g=np.nan).iloc[:3]},
        "X with 1e300": {"X": base_table().assign(g=1e300).iloc[:3]},
        "output='x'": {"output": "x"},
        "method='x'": {"method": "x"},
        "max_exact_features=-1": {"max_exact_features": -1},
        "max_exact_features=1.5": {"max_exact_features": 1.5},
    }.items():
        out.append(
            Case(
                "explain: odd arguments",
                f"explain(TAN, {label})",
                lambda k=kwargs: _explain_kw(**k),
                names=("background", "X", "output", "method", "max_exact_features", "'g'", "'s'"),
                covers=("bnclassify.explain.explain",),
                fast=True,
            )
        )
    return out


def _explain_kw(X=None, **kw):
    model, table = _fitted("TAN")
    rows = table.iloc[:3] if X is None else X
    out = explain(model, rows, **kw)
    return bool(np.isfinite(np.asarray(out.values, dtype=float)).all())


def _io_cases():
    out = []
    for column in COLUMNS:
        out.append(
            Case(
                f"model files: column {column}",
                f"dump/load a TAN with t = {column}",
                lambda c=column: _round_trip(with_column(c)),
                names=COLUMN + ("'t'",),
                covers=("bnclassify.io.dump", "bnclassify.io.load"),
                fast=column in FAST_COLUMNS,
            )
        )
    for column in FAST_COLUMNS:
        out.append(
            Case(
                f"pgmpy: column {column}",
                f"to_bif/from_bif and from_pgmpy of a NaiveBayes with t = {column}",
                lambda c=column: _pgmpy_round_trip(with_column(c)),
                names=COLUMN + ("Gaussian", "continuous", "gaussian"),
                covers=(
                    "bnclassify.io.to_bif",
                    "bnclassify.io.from_bif",
                    "bnclassify.io.from_pgmpy",
                ),
            )
        )
    return out


def _round_trip(X):
    model = bnc.TAN().fit(X, Y)
    loaded = load(dump(model, TMP / "m.bnc"))
    return same(model.predict_proba(X), loaded.predict_proba(X), atol=0)


def _pgmpy_round_trip(X):
    model = bnc.NaiveBayes().fit(X, Y)
    network = model.network_
    back = from_pgmpy(network, model.class_node_)
    path = to_bif(model, TMP / "m.bif")
    read = from_bif(path, model.class_node_)
    rows = X.iloc[:5]
    return same(back.predict_proba(rows), model.predict_proba(rows), atol=1e-9) and same(
        read.predict_proba(rows), model.predict_proba(rows), atol=1e-6
    )


def _statistics_cases():
    out = []
    for column in FAST_COLUMNS:
        out.append(
            Case(
                f"statistics: column {column}",
                f"stats.training_statistics + SufficientStatistics sums, t = {column}",
                lambda c=column: _statistics_add_up(with_column(c)),
                names=COLUMN,
                covers=("bnclassify.stats.training_statistics",),
            )
        )
    return out


def _statistics_add_up(X):
    schema, classes, counts = stats.training_statistics(X, Y)
    class_count = counts.class_count if hasattr(counts, "class_count") else None
    return class_count is None or bool(np.isclose(np.sum(class_count), len(X)))


def _slow_row_numbers(frame) -> list:
    """The columns holding exactly 0..n-1 or 1..n in row order, as Python integers."""
    n, found = len(frame), []
    for name, column in frame.items():
        if n < 2 or column.dtype == bool or not pd.api.types.is_integer_dtype(column.dtype):
            continue
        if column.isna().any():  # a missing number numbers no row
            continue
        values = column.tolist()
        if values in (list(range(n)), list(range(1, n + 1))):
            found.append(name)
    return found


def _row_number_cases():
    numbered = {
        "int64 0..n-1": np.arange(N),
        "uint8 1..n": np.arange(1, N + 1, dtype=np.uint8),
        "Int64 0..n-1": pd.array(np.arange(N), dtype="Int64"),
        "Int64 with NA": pd.array([*range(N - 1), None], dtype="Int64"),
        "reversed": np.arange(N)[::-1].copy(),
        "floats 0..n-1": np.arange(N, dtype=float),
    }
    tables = {f"t = {c}": (lambda c=c: with_column(c)) for c in COLUMNS}
    tables.update({f"t = {k}": (lambda v=v: base_table().assign(t=v)) for k, v in numbered.items()})
    out = []
    for label, make in tables.items():
        out.append(
            Case(
                "data: row_number_columns",
                f"data.row_number_columns, {label}",
                lambda m=make: data.row_number_columns(m()) == _slow_row_numbers(m()),
                names=COLUMN,
                covers=("bnclassify.data.row_number_columns",),
            )
        )
    out.append(
        Case(
            "data sets: bundled files",
            "datasets.capsid_structure_path is a file",
            lambda: bnc.datasets.capsid_structure_path().is_file(),
            covers=("bnclassify.datasets.capsid_structure_path",),
        )
    )
    return out


def cases():
    return (
        _row_number_cases()
        + _information_cases()
        + _log_normal_checks()
        + _parameter_cases()
        + _structure_cases()
        + _spanning_tree_cases()
        + _inference_cases()
        + _explain_cases()
        + _io_cases()
        + _statistics_cases()
    )
