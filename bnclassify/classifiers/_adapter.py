"""The one place the wrappers, the NB weightings and objective="conditional" touch the core.

Each function here is a small adapter over the fit protocol (the statistics of
:func:`bnclassify.stats.training_statistics`, the fields of
:class:`~bnclassify.stats.TrainingCounts`, ``fit_statistics`` with a given
structure, the factors of :class:`~bnclassify.network.FittedNetwork`), so that
when the core's names change only this module follows.
"""

from __future__ import annotations

import copy

import numpy as np

from ..discriminative import check_objective, conditional_network
from ..factors import Categorical
from ..stats import TrainingCounts, training_statistics

#: Kinds a wrapper search can score: categorical nodes, and continuous ones by class only.
SEARCHABLE_KINDS = ("categorical", "gaussian", "lognormal")


def encode_training(model, X, y):
    """``(stats, schema, classes)`` of ``(X, y)`` as ``model`` models its columns."""
    schema, classes, stats = training_statistics(X, y, getattr(model, "distributions", None))
    return stats, schema, classes


def fit_structure(model, stats, schema, classes, class_node, feature_dag):
    """Fit ``model``'s nodes from ``stats`` on the feature DAG a search found."""
    model.fit_statistics(
        stats, schema, classes, class_node=class_node, structure=(None, feature_dag)
    )


def search_table(counts, schema):
    """``(codes, y, cards, n_classes, values, continuous)`` a search scores rows from.

    Nodes of kinds other than :data:`SEARCHABLE_KINDS` (kernel densities,
    Bernoulli, multinomial groups) are refused with an error naming them.
    """
    bad = [
        (name, kind)
        for name, kind in zip(schema.names, schema.kinds, strict=True)
        if kind not in SEARCHABLE_KINDS
    ]
    if bad:
        listed = ", ".join(f"{n!r} ({k})" for n, k in bad)
        raise ValueError(
            f"The wrapper search scores categorical, Gaussian and log-normal columns only; "
            f"{listed} cannot be searched over. Model them as categorical or Gaussian "
            "(distributions=...), or drop them."
        )
    continuous = ~np.asarray(counts.discrete, dtype=bool)
    return counts.codes, counts.y, counts.cards, counts.n_classes, counts.values, continuous


def make_class_independent(model, counts, columns, alpha):
    """Refit the nodes of ``columns`` as independent of the class (a feature left out).

    A categorical column gets ``P(x) = (N(x) + alpha) / (N + r alpha)`` in every class
    row; a continuous one is refitted on all rows as one class. Either way its term
    is the same for every class, so it does not change any prediction, and the
    model stays a proper joint distribution.
    """
    network = model.compiled_
    names = model.schema_.names
    one_class = None
    for j in columns:
        k = network.node_of[j]
        factor = network.factors[k]
        if factor.discrete:
            marginal = counts.family(j, ()).sum(axis=0) + alpha
            log_row = np.log(marginal) - np.log(marginal.sum())
            table = np.broadcast_to(log_row, (network.n_classes, len(log_row))).copy()
            network.factors[k] = Categorical.from_log_table(table, j, (), names)
        else:
            if one_class is None:
                one_class = TrainingCounts(
                    counts.codes,
                    np.zeros_like(counts.y),
                    counts.cards,
                    1,
                    values=counts.values,
                    discrete=counts.discrete,
                    log_variance_scale=counts.log_variance_scale,
                    weights=counts.weights,
                    exponents=counts.exponents,
                )
            fresh = copy.deepcopy(factor)
            network.factors[k] = fresh.fit_family(one_class, (j,), (), alpha, names)


def training_rows(counts, who):
    """``(codes, y, sample_weight)`` of the training rows; refused for summed statistics."""
    codes = getattr(counts, "codes", None)
    if codes is None:
        raise ValueError(
            f"{who} reads the training rows, which partial_fit's accumulated statistics do "
            "not keep; use fit."
        )
    return codes, counts.y, counts.weights


def categorical_tables(model) -> dict:
    """``{column: log table}`` of the fitted categorical nodes of ``model``."""
    network = model.compiled_
    return {
        factor.column_positions[0]: factor.log_table_
        for factor in network.factors
        if factor.kind == "categorical"
    }


def replace_table(model, column, log_table):
    """Give ``column``'s categorical node the log table ``log_table`` (same shape)."""
    network = model.compiled_
    names = model.schema_.names
    k = network.node_of[column]
    parents = network.parents[column]
    network.factors[k] = Categorical.from_log_table(log_table, column, parents, names)
    model._network = None  # the pgmpy view is rebuilt from the new tables


def apply_objective(model, counts):
    """Refine ``model.compiled_`` for the conditional likelihood when it asks for it.

    Reads ``model.objective`` (absent: ``"joint"``, nothing to do).
    """
    if check_objective(getattr(model, "objective", "joint")) == "joint":
        return
    codes, y, weights = training_rows(counts, 'objective="conditional"')
    values = counts.values
    if values is not None:  # the counts hold them divided by 2**exponents; factors read data
        values = np.ldexp(values, counts.exponents)
    model.compiled_ = conditional_network(
        model.compiled_, codes, values, y, weights, names=model.schema_.names
    )
