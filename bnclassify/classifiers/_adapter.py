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

from ..discriminative import (
    DEFAULT_L2,
    L2_FOLDS,
    L2_SEED,
    check_objective,
    conditional_network,
    cross_validated_l2,
)
from ..factors import Categorical
from ..network import fit_network
from ..parameters import generator, smoothing_method
from ..stats import TrainingCounts, training_statistics
from ._search import stratified_folds

#: Kinds a wrapper search can score: categorical nodes, and continuous ones by class only.
SEARCHABLE_KINDS = ("categorical", "binned", "gaussian", "lognormal")


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
    Bernoulli, multinomial groups) are refused with an error naming them; the
    columns with no observed value (``schema.unobserved``) are not searched over.
    """
    bad = [
        (name, kind)
        for j, (name, kind) in enumerate(zip(schema.names, schema.kinds, strict=True))
        if kind not in SEARCHABLE_KINDS and j not in schema.unobserved
    ]
    if bad:
        listed = ", ".join(f"{n!r} ({k})" for n, k in bad)
        raise ValueError(
            f"The wrapper search scores categorical, binned, Gaussian and log-normal columns "
            "only; "
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
        if not factor.informative:  # a column never observed: its node is already constant
            continue
        if factor.discrete:
            marginal = counts.family(j, ()).sum(axis=0) + alpha
            log_row = np.log(marginal) - np.log(marginal.sum())
            table = np.broadcast_to(log_row, (network.n_classes, len(log_row))).copy()
            network.factors[k] = Categorical.from_log_table(table, j, (), names)
        else:
            if one_class is None:
                one_class = counts.recoded(y=np.zeros_like(counts.y), n_classes=1)
            fresh = copy.deepcopy(factor)
            network.factors[k] = fresh.fit_family(one_class, (j,), (), alpha, names)


def table_smoothing(model) -> tuple:
    """``(smoothing, rng)`` of ``model``'s categorical tables: the method its ``smoothing``
    names (additive with its ``alpha`` by default) and, for one that samples, the
    generator of its ``random_state``.

    Examples
    --------
    >>> from bnclassify import KDB
    >>> table_smoothing(KDB(alpha=0.5))
    (Laplace(alpha=0.5), None)
    """
    smoothing = smoothing_method(getattr(model, "smoothing", "laplace"), float(model.alpha))
    rng = generator(getattr(model, "random_state", None)) if smoothing.samples else None
    return smoothing, rng


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

    Reads ``model.objective`` (absent: ``"joint"``, nothing to do) and ``model.l2``
    (absent: :data:`~bnclassify.discriminative.DEFAULT_L2`; ``"cv"``: chosen by
    inner CV on the training rows, each inner fold's network refitted on the same
    structure); sets ``model.l2_``, the strength used.
    """
    model.__dict__.pop("l2_", None)  # a refit's, not an earlier fit's
    if check_objective(getattr(model, "objective", "joint")) == "joint":
        return
    codes, y, weights = training_rows(counts, 'objective="conditional"')
    values = counts.values
    if values is not None:  # the counts hold them divided by 2**exponents; factors read data
        values = np.ldexp(values, counts.exponents)
    l2 = getattr(model, "l2", DEFAULT_L2)
    if l2 == "cv":
        l2 = _inner_cv_l2(model, counts, codes, values, y, weights)
    model.l2_ = float(l2)
    model.compiled_ = conditional_network(
        model.compiled_, codes, values, y, weights, l2=l2, names=model.schema_.names
    )


def _inner_cv_l2(model, counts, codes, values, y, weights):
    """``l2`` by :func:`~bnclassify.discriminative.cross_validated_l2` on the training rows."""
    n_folds = min(L2_FOLDS, len(y))
    if n_folds < 2:  # one row: nothing to hold out
        return DEFAULT_L2
    folds = stratified_folds(y, n_folds, np.random.default_rng(L2_SEED))
    parents, schema, alpha = model.compiled_.parents, model.schema_, float(model.alpha)
    smoothing, rng = table_smoothing(model)

    def fit_fold(rows):
        fold = TrainingCounts(
            counts.codes[rows],
            counts.y[rows],
            counts.cards,
            counts.n_classes,
            values=None if counts.values is None else counts.values[rows],
            discrete=counts.discrete,
            log_variance_scale=counts.log_variance_scale,
            weights=None if counts.weights is None else counts.weights[rows],
            exponents=counts.exponents,
        )
        return fit_network(fold, schema, parents, alpha, smoothing, rng)

    l2, _ = cross_validated_l2(codes, values, y, folds, fit_fold, sample_weight=weights)
    return l2
