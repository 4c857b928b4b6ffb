"""Posterior marginals of every node of a fitted network given evidence, computed exactly.

:func:`posteriors` answers what pgmpy's ``VariableElimination.query`` answers
one variable at a time: ``P(C | e)`` and, for every unobserved feature,
``P(X_i | e)``. It also answers it for continuous nodes, where the posterior
is a density: a mixture over the classes (and over the states of the
discrete nodes it depends on) of the node's densities, each weighted by its
posterior probability given ``e`` and reshaped by the evidence on its
neighbours.

The answers come from the fitted network's exact marginal likelihood: for a
state ``s`` of ``X_i``, ``P(X_i = s | e) = P(X_i = s, e) / P(e)``, where both
are sums over the classes of ``P(c, x_observed)`` with every unobserved cell
summed (or integrated) out exactly, as ``predict_proba`` does for rows with
missing cells. Every query (each state, each point of a density's grid, the
evidence with one item left out) is one row of a single table, scored at once.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.special import logsumexp

from .validation import check_int

__all__ = ["Posteriors", "posteriors"]


@dataclass
class Posteriors:
    """What :func:`posteriors` returns.

    Attributes
    ----------
    evidence : dict
        The evidence, ``{feature: value}``.
    classes : pandas.Series
        ``P(C = c | evidence)``, indexed by class label.
    features : dict of str to pandas.Series
        For every feature not in the evidence: ``P(X_i = s | evidence)``
        indexed by the feature's categories, or, for a continuous feature,
        the posterior density ``p(x_i | evidence)`` on a grid of values (the
        Series' index; its name is ``"density"``).
    evidence_effect : pandas.DataFrame
        One row per evidence item, in the order given: ``without``, the
        probability of the most probable class (``top_class``) given the
        evidence without that item; ``shift``, how much the item moves it
        (``P(top | e) - P(top | e without the item)``); and
        ``total_variation``, half the summed absolute change of the whole
        class posterior when the item is left out.
    top_class : object
        The most probable class given the evidence.
    log_evidence : float
        ``log P(evidence)`` (natural log; a log density when continuous
        features are observed).
    """

    evidence: dict
    classes: pd.Series
    features: dict
    evidence_effect: pd.DataFrame
    top_class: object
    log_evidence: float
    continuous: list = field(default_factory=list)

    @property
    def most_influential(self):
        """The evidence item whose removal changes the class posterior most, or None."""
        if self.evidence_effect.empty:
            return None
        return self.evidence_effect["total_variation"].idxmax()


def posteriors(model, evidence=None, *, n_points=200, grid=None) -> Posteriors:
    """Exact posterior marginals of the class and every unobserved feature given evidence.

    Parameters
    ----------
    model : fitted single-network bnclassify classifier
        Naive Bayes, TAN, Simpler TAN, forests, KDB, SPODE, ... (anything with
        one fitted network, ``compiled_``). For an ensemble, pass one of its
        members (``model.estimators_[k]``).
    evidence : dict, optional
        ``{feature name: observed value}``: a category of a discrete feature
        (as in the training data), a number for a continuous one. None or
        ``{}`` gives the prior marginals.
    n_points : int, default=200
        Points of the grid on which a continuous feature's posterior density
        is evaluated (exactly, point by point); the grid spans where the
        node's fitted densities have their mass.
    grid : dict of str to array-like, optional
        The values at which to evaluate a continuous feature's density, by
        feature name, instead of the default grid.

    Returns
    -------
    Posteriors

    Raises
    ------
    TypeError
        ``model`` is not a fitted single-network classifier.
    ValueError
        ``evidence`` names an unknown feature, a category the feature does
        not have, or a value outside a continuous feature's support.

    Examples
    --------
    >>> from bnclassify import TAN
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = TAN(criterion="loglik").fit(X, y)  # the textbook CMI tree
    >>> result = posteriors(model, {"safety": "high", "buying": "low"})
    >>> result.top_class, result.classes.round(2).to_dict()
    ('unacc', {'acc': 0.23, 'good': 0.14, 'unacc': 0.37, 'vgood': 0.26})
    >>> result.features["maint"].round(2).to_dict()
    {'high': 0.26, 'low': 0.27, 'med': 0.27, 'vhigh': 0.21}
    >>> result.evidence_effect["shift"].round(2).to_dict()  # safety=high lowers P(unacc) most
    {'safety': -0.23, 'buying': -0.12}
    """
    check_model(model)
    n_points = check_int(n_points, "n_points", minimum=2, maximum=100_000)
    names = list(model.feature_names_)
    evidence = check_evidence(model, evidence)
    continuous = [i for i, c in enumerate(model.categories_) if c is None]
    grid = _check_grid(grid, names, continuous)

    rows, spans = [dict(evidence)], {}
    unobserved = set(model.schema_.unobserved)  # no training value: nothing to vary
    for i, name in enumerate(names):
        if name in evidence or i in unobserved:
            continue
        if name in grid:
            states = grid[name]
        elif i in continuous:
            low, high = model.distributions_[name].describe().value_range
            states = np.linspace(low, high, n_points)
        else:
            states = list(model.categories_[i])
        spans[name] = (len(rows), len(rows) + len(states), states)
        rows.extend({**evidence, name: s} for s in states)
    without_start = len(rows)
    for name in evidence:
        rows.append({k: v for k, v in evidence.items() if k != name})

    joint = _joint(model, rows, evidence)  # (n_rows, n_classes)
    marginal = logsumexp(joint, axis=1)  # log P(row's evidence)
    log_evidence = float(marginal[0])
    if not np.isfinite(log_evidence):
        raise ValueError(f"The evidence {evidence} has probability 0 under this model (alpha=0?).")
    class_post = np.exp(joint[0] - log_evidence)
    classes = pd.Series(class_post, index=list(model.classes_), name=model.class_node_)
    top = int(np.argmax(class_post))

    features = {}
    for name, (start, stop, states) in spans.items():
        log_p = marginal[start:stop] - log_evidence
        if names.index(name) in continuous:
            features[name] = pd.Series(
                np.exp(log_p), index=pd.Index(states, name=name), name="density"
            )
        else:
            p = np.exp(log_p)
            features[name] = pd.Series(p / p.sum(), index=pd.Index(states, name=name), name=name)

    without = np.exp(joint[without_start:] - marginal[without_start:, None])
    effect = pd.DataFrame(
        {
            "without": without[:, top],
            "shift": class_post[top] - without[:, top],
            "total_variation": 0.5 * np.abs(without - class_post).sum(axis=1),
        },
        index=pd.Index(list(evidence), name="evidence"),
    )
    return Posteriors(
        evidence=dict(evidence),
        classes=classes,
        features=features,
        evidence_effect=effect,
        top_class=model.classes_[top],
        log_evidence=log_evidence,
        continuous=[names[i] for i in continuous],
    )


def check_model(model):
    """A fitted classifier with one network; a ``TypeError`` otherwise."""
    if hasattr(model, "compiled_") and hasattr(model, "encode"):
        return model
    if hasattr(model, "estimators_"):
        raise TypeError(
            f"A {type(model).__name__} averages several networks; pass one of them, "
            "e.g. model.estimators_[0]."
        )
    if hasattr(model, "fit") and not hasattr(model, "classes_"):
        raise TypeError(f"This {type(model).__name__} is not fitted yet; call fit first.")
    raise TypeError(
        f"Expected a fitted single-network bnclassify classifier, got {type(model).__name__}."
    )


def check_evidence(model, evidence) -> dict:
    """``evidence`` as a dict of known features to values of their kind."""
    if evidence is None:
        return {}
    if not isinstance(evidence, dict):
        raise ValueError(f"evidence must be a dict {{feature: value}}, got {evidence!r}.")
    names = list(model.feature_names_)
    checked = {}
    for name, value in evidence.items():
        if name not in names:
            raise ValueError(f"evidence names {name!r}, which is not a feature: {names}.")
        j = names.index(name)
        categories = model.categories_[j]
        # a binned column reads numbers as well as its intervals' labels
        if categories is None or (model.schema_.binned[j] and _is_number(value)):
            if not _is_number(value):
                raise ValueError(
                    f"evidence[{name!r}] must be a number ({name} is continuous), got {value!r}."
                )
            if not np.isfinite(value):
                raise ValueError(f"evidence[{name!r}] must be finite, got {value!r}.")
            checked[name] = float(value)
        else:
            known = [c.item() if isinstance(c, np.generic) else c for c in categories]
            # 1 == True in Python: a flag's categories match booleans only
            if not any(
                value == c and isinstance(value, bool) == isinstance(c, bool) for c in known
            ):
                raise ValueError(
                    f"evidence[{name!r}] = {value!r} is not a category of {name!r}: {known}."
                )
            checked[name] = value
    return checked


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _check_grid(grid, names, continuous) -> dict:
    if grid is None:
        return {}
    if not isinstance(grid, dict):
        raise ValueError(f"grid must be a dict {{feature: values}}, got {grid!r}.")
    checked = {}
    for name, values in grid.items():
        if name not in names or names.index(name) not in continuous:
            raise ValueError(
                f"grid names {name!r}, which is not a continuous feature: "
                f"{[names[i] for i in continuous]}."
            )
        try:
            values = np.asarray(values, dtype=float).ravel()
        except (TypeError, ValueError):
            raise ValueError(f"grid[{name!r}] must hold finite numbers, got {values!r}.") from None
        if values.size == 0 or not np.isfinite(values).all():
            raise ValueError(f"grid[{name!r}] must hold finite numbers, got {values!r}.")
        checked[name] = values
    return checked


def _joint(model, rows, evidence):
    """log P(c, row's evidence) of every row, one encode and one inference call."""
    names = list(model.feature_names_)
    columns = {}
    for i, name in enumerate(names):
        cells = [row.get(name) for row in rows]
        if model.categories_[i] is None:
            columns[name] = pd.Series([np.nan if v is None else v for v in cells], dtype=float)
        else:
            columns[name] = pd.Series(cells, dtype=object)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a value the encoder drops is refused just below
        codes, values = model.encode(pd.DataFrame(columns))
    for name, value in evidence.items():
        i = names.index(name)
        dropped = np.isnan(values[0, i]) if model.categories_[i] is None else codes[0, i] < 0
        if dropped:
            raise ValueError(
                f"evidence[{name!r}] = {value!r} lies outside the support of {name!r} "
                "as the model reads it."
            )
    return model.compiled_.joint_log_likelihood(codes, values)
