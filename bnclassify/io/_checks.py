"""Consistency checks of a loaded model: its arrays must agree with one another.

A model file whose arrays are each well formed may still contradict itself
(a CPT with the wrong number of rows for its parent's categories, fewer prior
entries than classes); :func:`check_model` refuses those with
:class:`~bnclassify.io.ModelFileError` before the model is used.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd

from ..classifiers import AODE, BayesNetClassifier, EnsembleTAN, SignalSubgraphClassifier
from ..data import TableSchema
from ..factors import Bernoulli, Categorical, Gaussian, KernelDensity, Multinomial
from ..network import FittedNetwork
from ..preprocessing import MDLDiscretizer


class _Bad(Exception):
    pass


def _require(condition, message):
    if not condition:
        raise _Bad(message)


def _shape(value, shape, what):
    _require(
        isinstance(value, np.ndarray) and value.shape == tuple(shape) and value.dtype.kind == "f",
        f"{what} should be a float array of shape {tuple(shape)}, got "
        f"{getattr(value, 'shape', type(value).__name__)}.",
    )


def check_model(model):
    """Raise :class:`~bnclassify.io.ModelFileError` when a loaded model contradicts itself."""
    from ._format import ModelFileError

    try:
        _check(model)
    except _Bad as error:
        raise ModelFileError(f"{type(model).__name__}: {error}") from None


def _fitted(model, attribute):
    return attribute in vars(model)


def _check(model):
    if isinstance(model, BayesNetClassifier) and _fitted(model, "compiled_"):
        _check_network_model(model)
    elif isinstance(model, AODE) and _fitted(model, "naive_bayes_"):
        _check_aode(model)
    elif isinstance(model, EnsembleTAN) and _fitted(model, "_groups"):
        _require(
            isinstance(model._groups, list) and model._groups, "_groups must be a non-empty list."
        )
        for group in model._groups:
            _require(isinstance(group, dict), "an ensemble group must be a dict.")
            if set(group) == {"members"}:
                _check_members(model, group["members"])
            else:
                _check_forest_group(model, group)
    elif isinstance(model, SignalSubgraphClassifier) and _fitted(model, "signal_edges_"):
        n_classes = len(model.classes_)
        n = len(model._signal_rows)
        _shape(model.class_log_prior_, (n_classes,), "class_log_prior_")
        _shape(model._log_present, (n_classes, n), "the signal edges' log-probabilities")
        _shape(model._log_absent, (n_classes, n), "the signal edges' log-probabilities")
        _require(
            len(model._signal_cols) == n and isinstance(model.n_vertices_, int),
            "signal edges and vertices do not agree.",
        )
        for rows in (model._signal_rows, model._signal_cols):
            _require(
                isinstance(rows, np.ndarray)
                and rows.dtype.kind in "iu"
                and ((rows >= 0) & (rows < model.n_vertices_)).all(),
                "a signal edge's vertex is out of range.",
            )
    elif isinstance(model, MDLDiscretizer) and _fitted(model, "cut_points_"):
        _require(
            isinstance(model.cut_points_, list)
            and len(model.cut_points_) == model.n_features_in_
            and all(isinstance(c, np.ndarray) and c.ndim == 1 for c in model.cut_points_),
            "cut_points_ must hold one 1-D array per feature.",
        )


def _check_members(model, members):
    _require(isinstance(members, list), "an ensemble's members must be a list.")
    for member in members:
        _require(isinstance(member, BayesNetClassifier), "a member is not a classifier.")
        _check_network_model(member)
        _require(
            np.array_equal(member.classes_, model.classes_)
            and member.schema_.n_features == model.schema_.n_features,
            "a member's classes or features differ from the ensemble's.",
        )


def _check_aode(model):
    _check_members(model, [model.naive_bayes_])
    schema, n_classes = model.schema_, len(model.classes_)
    cards = schema.cards
    hubs, frequencies = model._hubs, model.frequencies_
    _require(
        isinstance(hubs, list)
        and isinstance(frequencies, list)
        and isinstance(model.superparents_, list)
        and len(hubs) == len(frequencies) == len(model.superparents_),
        "AODE's super-parents, frequencies and members differ in number.",
    )
    for hub, frequency, name in zip(hubs, frequencies, model.superparents_, strict=True):
        _require(isinstance(hub, int) and 0 <= hub < len(cards), "bad super-parent position.")
        _require(name == schema.names[hub], "a super-parent's name and position differ.")
        _require(
            isinstance(frequency, np.ndarray) and frequency.shape == (cards[hub],),
            "a super-parent's frequencies do not match its categories.",
        )
    members, source = "_members" in vars(model), "_pair_source" in vars(model)
    _require(members != source, "an AODE keeps either its SPODEs or their statistics.")
    if members:
        _check_members(model, model._members)
        _require(len(model._members) == len(hubs), "AODE has a SPODE per super-parent.")
        return
    source = model._pair_source
    _require(
        schema.discrete.all() and isinstance(source, dict),
        "an AODE keeps statistics only over categorical features.",
    )
    _shape(source.get("classes"), (n_classes,), "the class counts")
    n_total = int(np.sum(cards))
    if set(source) == {"classes", "table"}:
        _shape(source["table"], (n_classes, n_total, n_total), "the pair table")
        return
    _require(set(source) == {"classes", "codes", "y", "weights"}, "bad AODE statistics.")
    codes, y, weights = source["codes"], source["y"], source["weights"]
    _require(
        isinstance(codes, np.ndarray)
        and codes.ndim == 2
        and codes.shape[1] == len(cards)
        and codes.dtype.kind == "i"
        and ((codes >= -1) & (codes < np.asarray(cards))).all(),
        "the kept rows' codes do not match the categories.",
    )
    _require(
        isinstance(y, np.ndarray)
        and y.shape == (len(codes),)
        and y.dtype.kind == "i"
        and ((y >= 0) & (y < n_classes)).all(),
        "the kept rows' classes do not match the classes.",
    )
    if weights is not None:
        _shape(weights, (len(codes),), "the kept rows' weights")


def _check_forest_group(model, group):
    keys = {"template", "roots", "weights", "alpha", "classes", "single", "edges", "pairs"}
    _require(set(group) == keys, "bad shared-tree group.")
    schema, n_classes = model.schema_, len(model.classes_)
    names, cards, m = list(schema.names), schema.cards, schema.n_features
    _require(schema.discrete.all(), "a shared-tree group needs categorical features.")
    template = group["template"]
    _require(
        isinstance(template, BayesNetClassifier) and "root" in template.get_params(),
        "a shared-tree group's template must be a rooted classifier.",
    )
    roots = group["roots"]
    _require(
        isinstance(roots, list) and roots and all(r in names for r in roots),
        "a shared-tree group's roots must be features.",
    )
    weights = group["weights"]
    _require(
        isinstance(weights, pd.DataFrame)
        and weights.shape == (m, m)
        and list(weights.index) == names
        and list(weights.columns) == names,
        "a shared-tree group's weights must be a feature-by-feature DataFrame.",
    )
    alpha = group["alpha"]
    _require(
        isinstance(alpha, float) and np.isfinite(alpha) and alpha >= 0, "bad alpha of a group."
    )
    _shape(group["classes"], (n_classes,), "a group's class counts")
    single, edges, pairs = group["single"], group["edges"], group["pairs"]
    _require(isinstance(single, list) and len(single) == m, "a group needs N(c, x_j) per feature.")
    for j, table in enumerate(single):
        _shape(table, (n_classes, cards[j]), f"N(c, x_j) of feature {j}")
    _require(
        isinstance(edges, list)
        and isinstance(pairs, list)
        and len(edges) == len(pairs) < max(m, 1),
        "a group's edges and pair counts differ in number.",
    )
    forest = nx.Graph()
    forest.add_nodes_from(range(m))
    for edge, table in zip(edges, pairs, strict=True):
        _require(
            isinstance(edge, tuple)
            and len(edge) == 2
            and all(isinstance(v, int) and 0 <= v < m for v in edge)
            and edge[0] != edge[1],
            "a group's edge must join two features.",
        )
        forest.add_edge(*edge)
        _shape(table, (n_classes, cards[edge[0]], cards[edge[1]]), f"the counts of edge {edge}")
    _require(
        forest.number_of_edges() == len(edges) and nx.is_forest(forest),
        "a group's edges must form a forest.",
    )


def _check_network_model(model):
    schema, network = model.schema_, model.compiled_
    _require(isinstance(schema, TableSchema), "schema_ is not a TableSchema.")
    _require(isinstance(network, FittedNetwork), "compiled_ is not a FittedNetwork.")
    _require(isinstance(model.structure_, nx.DiGraph), "structure_ is not a DiGraph.")
    classes = model.classes_
    _require(
        isinstance(classes, np.ndarray) and classes.ndim == 1 and len(classes) >= 2,
        "classes_ must be a 1-D array of at least 2 labels.",
    )
    n_classes = len(classes)
    _shape(network.log_prior, (n_classes,), "the class prior")
    m = schema.n_features
    _require(network.n_features == m, f"the network has {network.n_features} features, not {m}.")
    _require(
        model.n_features_in_ == m
        and set(model.structure_.nodes) == {model.class_node_, *schema.names},
        "structure_, n_features_in_ and the schema name different features.",
    )
    cards = schema.cards
    for factor in network.factors:
        columns, discrete_parents = factor.column_positions, factor.discrete_parent_positions
        parents = (*discrete_parents, *factor.continuous_parent_positions)
        _require(
            sorted(parents) == sorted(network.parents[columns[0]]) or len(columns) > 1,
            f"{factor.columns_}: the factor's parents differ from the network's.",
        )
        _require(
            all(schema.discrete[p] for p in discrete_parents)
            and not any(schema.discrete[p] for p in factor.continuous_parent_positions),
            f"{factor.columns_}: parents of the wrong kind.",
        )
        shape = (n_classes, *(cards[p] for p in discrete_parents))
        where = f"{factor.columns_}"
        if isinstance(factor, Categorical):
            _require(schema.discrete[columns[0]], f"{where} is categorical in the network only.")
            _shape(factor.log_table_, (*shape, cards[columns[0]]), f"{where} log_table_")
        elif isinstance(factor, Gaussian):
            _shape(factor.intercept_, shape, f"{where} intercept_")
            _shape(factor.var_, shape, f"{where} var_")
            _shape(
                factor.coef_, (*shape, len(factor.continuous_parent_positions)), f"{where} coef_"
            )
        elif isinstance(factor, KernelDensity):
            _shape(factor.bandwidth_, (n_classes,), f"{where} bandwidth_")
            _require(
                isinstance(factor.values_, list)
                and len(factor.values_) == n_classes
                and all(
                    isinstance(v, np.ndarray) and v.ndim == 1 and len(v) for v in factor.values_
                ),
                f"{where} values_ must hold one non-empty 1-D array per class.",
            )
        elif isinstance(factor, Bernoulli):
            _shape(factor.prob_, (n_classes,), f"{where} prob_")
        elif isinstance(factor, Multinomial):
            _shape(factor.prob_, (n_classes, len(columns)), f"{where} prob_")
