"""Interventional Shapley values of one network's log-odds, in closed form, family by family.

The log-odds of a Bayesian network classifier is a sum of one term per factor,
and a term reads only its family (the factor's columns and parents). So each
term is a game on its family's players alone: its value of a coalition ``S``
is ``E_b[g(x_S, b_rest)]`` over the background rows ``b``. A table factor
contracts its table with the background's joint frequencies over the absent
family members; any other factor evaluates its own ``log_terms`` on hybrid
rows (``x`` on ``S``, each distinct background row elsewhere). Used by
:func:`bnclassify.explain.explain`.
"""

from __future__ import annotations

from itertools import combinations
from math import factorial, prod

import numpy as np

__all__ = ["additive_interventional", "contrast", "shapley_weight"]

#: The log of the smallest positive float: where an explained score's -inf is floored.
LOG_TINY = float(np.log(np.finfo(float).tiny))

#: Hybrid rows' cells built at once (bounds temporary memory).
CHUNK_CELLS = 1 << 22


def contrast(scores):
    """Class scores (leading axis: class) -> explained outputs (leading axis: output).

    Two classes: the log-odds of class 1 (one output). More: centred scores. A score of
    ``-inf`` (a probability that underflowed to 0, e.g. an ensemble's mean of tiny
    probabilities) counts as the log of the smallest positive float, so that differences
    stay defined (``-inf - -inf`` is NaN).
    """
    scores = np.maximum(scores, LOG_TINY)
    if scores.shape[0] == 2:
        return (scores[1] - scores[0])[None]
    return scores - scores.mean(axis=0)


def shapley_weight(size, players):
    """Weight of a coalition of ``size`` other players in a game of ``players``."""
    return factorial(size) * factorial(players - size - 1) / factorial(players)


def additive_interventional(compiled, rows, background):
    """Exact interventional Shapley values of the (centred) log-odds, family by family.

    ``rows`` and ``background`` are ``(codes, values)``. Returns ``values``
    (n, m, n_outputs) and ``base`` (n, n_outputs).
    """
    n, m = rows[0].shape
    base = contrast(compiled.log_prior).astype(float)
    values = np.zeros((n, m, base.shape[0]))
    for factor in compiled.nodes:  # the class's own table too, when it has parents
        family = [*factor.parent_positions, *factor.column_positions]
        k = len(family)
        if factor.discrete:  # a table: contract it with the background's joint frequencies
            expected = _table_expectations(factor, family, rows[0], background[0], compiled.cards)
        else:
            expected = _hybrid_expectations(factor, family, rows, background)
        base = base + expected[frozenset()]
        everything = frozenset(range(k))
        for p, j in enumerate(family):
            others = everything - {p}
            for size in range(k):
                weight = shapley_weight(size, k)
                for present in combinations(sorted(others), size):
                    s = frozenset(present)
                    values[:, j] += weight * (expected[s | {p}] - expected[s])
    return values, np.broadcast_to(base, (n, base.shape[0])).copy()


def _coalitions_of(k):
    for size in range(k + 1):
        yield from combinations(range(k), size)


def _table_expectations(factor, family, codes, background, cards):
    """``E_b[g(x_S, b_rest)]`` for every subset ``S`` of a discrete factor's family.

    Keyed by the frozenset of present family positions; (n, outputs) arrays,
    or (outputs,) for the empty set.
    """
    k = len(family)
    term = contrast(factor.log_table_)  # (outputs, *cards of family)
    expected = {}
    for present in _coalitions_of(k):
        absent = [p for p in range(k) if p not in present]
        table = term
        if absent:
            joint = _empirical_joint(background, [family[p] for p in absent], cards)
            table = np.tensordot(
                term, joint, axes=([1 + p for p in absent], list(range(len(absent))))
            )
        if present:
            index = tuple(codes[:, family[p]] for p in present)
            expected[frozenset(present)] = table[(slice(None), *index)].T
        else:
            expected[frozenset()] = table
    return expected


def _hybrid_expectations(factor, family, rows, background):
    """As :func:`_table_expectations` for any factor, from its ``log_terms`` on hybrid rows.

    A hybrid row holds x's cells on ``S`` and one background row's elsewhere;
    background rows that agree off ``S`` (within the family) are one term
    weighted by their count.
    """
    (codes, values), (b_codes, b_values) = rows, background
    n, m = codes.shape
    k = len(family)
    # no numbers at all when every modelled column is a table (binned ones included) and
    # this factor's column is left out of the model (never observed): every cell missing
    if values is None or b_values is None:
        values, b_values = np.full(codes.shape, np.nan), np.full(b_codes.shape, np.nan)
    b_numbers = np.nan_to_num(b_values)
    expected = {}
    for present in _coalitions_of(k):
        absent = [family[p] for p in range(k) if p not in present]
        if not absent:
            expected[frozenset(present)] = contrast(factor.log_terms(codes, values).T).T
            continue
        key = np.concatenate([b_codes[:, absent], b_numbers[:, absent]], axis=1)
        _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
        weight = np.bincount(inverse.ravel(), minlength=len(first)) / len(key)
        if not present:
            terms = contrast(factor.log_terms(b_codes[first], b_values[first]).T).T
            expected[frozenset()] = weight @ terms
            continue
        step = max(1, CHUNK_CELLS // (len(first) * m))
        parts = []
        for start in range(0, n, step):
            x_codes, x_values = codes[start : start + step], values[start : start + step]
            hybrid_codes = np.repeat(x_codes, len(first), axis=0)
            hybrid_values = np.repeat(x_values, len(first), axis=0)
            hybrid_codes[:, absent] = np.tile(b_codes[first][:, absent], (len(x_codes), 1))
            hybrid_values[:, absent] = np.tile(b_values[first][:, absent], (len(x_codes), 1))
            terms = contrast(factor.log_terms(hybrid_codes, hybrid_values).T).T
            terms = terms.reshape(len(x_codes), len(first), -1)
            parts.append(np.einsum("nbo,b->no", terms, weight))
        expected[frozenset(present)] = np.concatenate(parts)
    return expected


def _empirical_joint(codes, columns, cards):
    """The background's joint relative frequencies over ``columns``, shape ``cards[columns]``."""
    shape = [cards[c] for c in columns]
    flat = np.ravel_multi_index(tuple(codes[:, c] for c in columns), shape)
    return (np.bincount(flat, minlength=prod(shape)) / len(codes)).reshape(shape)
