"""Consistency checks of a loaded model: its arrays must agree with one another.

A model file whose arrays are each well formed may still contradict itself
(a CPT with the wrong number of rows for its parent's categories, fewer prior
entries than classes); :func:`check_model` refuses those with
:class:`~bnclassify.io.ModelFileError` before the model is used.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

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
    elif isinstance(model, EnsembleTAN | AODE) and _fitted(model, "estimators_"):
        _require(isinstance(model.estimators_, list), "estimators_ must be a list.")
        extra = [model.naive_bayes_] if isinstance(model, AODE) else []
        for member in [*model.estimators_, *extra]:
            _require(isinstance(member, BayesNetClassifier), "a member is not a classifier.")
            _check_network_model(member)
            _require(
                np.array_equal(member.classes_, model.classes_)
                and member.schema_.n_features == model.schema_.n_features,
                "a member's classes or features differ from the ensemble's.",
            )
        if isinstance(model, AODE):
            _require(
                len(model._hubs) == len(model.frequencies_) == len(model.estimators_),
                "AODE's super-parents, frequencies and members differ in number.",
            )
            cards = model.schema_.cards
            for hub, frequency in zip(model._hubs, model.frequencies_, strict=True):
                _require(
                    isinstance(hub, int) and 0 <= hub < len(cards), "bad super-parent position."
                )
                _require(
                    isinstance(frequency, np.ndarray) and frequency.shape == (cards[hub],),
                    "a super-parent's frequencies do not match its categories.",
                )
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
        columns, discrete_parents = factor._columns, factor._discrete_parents
        parents = (*discrete_parents, *factor._continuous_parents)
        _require(
            sorted(parents) == sorted(network.parents[columns[0]]) or len(columns) > 1,
            f"{factor.columns_}: the factor's parents differ from the network's.",
        )
        _require(
            all(schema.discrete[p] for p in discrete_parents)
            and not any(schema.discrete[p] for p in factor._continuous_parents),
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
            _shape(factor.coef_, (*shape, len(factor._continuous_parents)), f"{where} coef_")
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
