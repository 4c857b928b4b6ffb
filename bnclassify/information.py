"""Mutual information between features given the class, computed from counts."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .counts import PairwiseCounts, TrainingCounts


def cmi_from_counts(pairwise: PairwiseCounts) -> np.ndarray:
    """Conditional mutual information I(X_i; X_j | C) in nats for every pair of features.

    Each pair uses the rows observing both features (pairwise-complete), with
    its own marginals N(c, x_i), N(c, x_j) taken from the pair table, so it is
    the exact plug-in estimate on those rows:
    ``sum N(c,a,b)/N log(N(c,a,b) N(c) / (N(c,a) N(c,b)))``.

    Returns
    -------
    ndarray of shape (m, m)
        Symmetric, zero diagonal.
    """
    starts = pairwise.offsets[:-1]
    feature_totals = np.add.reduceat(
        np.diagonal(pairwise.table, axis1=1, axis2=2), starts, axis=1
    )  # (C, m): rows of class c observing feature i
    if (feature_totals == feature_totals[:, :1]).all():
        cmi = _cmi_complete(pairwise, starts, feature_totals[:, 0])
    else:
        cmi = _cmi_pairwise_complete(pairwise, starts)
    # Mirror one triangle: (i, j) and (j, i) sum in different orders and could
    # differ in the last bit; rounding can leave -1e-17 where the true value is 0.
    upper = np.maximum(np.triu(cmi, k=1), 0.0)
    return upper + upper.T


def _xlogx(values):
    return values * np.log(np.where(values > 0, values, 1.0))


def _cmi_complete(pairwise, starts, class_totals):
    """Every row observes every feature, so the marginals do not depend on the pair:

    N I(i;j|C) = sum_c [sum_ab xlogx N(c,a,b) + xlogx N(c)
                        - sum_a xlogx N(c,a) - sum_b xlogx N(c,b)]

    needs one logarithm pass over the pair tables instead of a dozen array passes.
    """
    m = len(starts)
    pair_terms = np.zeros((m, m))
    for table in pairwise.table:
        pair_terms += np.add.reduceat(
            np.add.reduceat(_xlogx(table), starts, axis=0), starts, axis=1
        )
    diagonal = np.diagonal(pairwise.table, axis1=1, axis2=2)  # N(c, a) for every category
    feature_terms = np.add.reduceat(_xlogx(diagonal), starts, axis=1).sum(axis=0)  # (m,)
    n = class_totals.sum()
    total = pair_terms + _xlogx(class_totals).sum() - feature_terms[:, None] - feature_terms
    cmi = total / n
    np.fill_diagonal(cmi, 0.0)
    return cmi


def _cmi_pairwise_complete(pairwise, starts):
    """The general plug-in estimate, each pair on the rows observing both features."""
    cards = pairwise.cards
    owner = np.repeat(np.arange(len(cards)), cards)  # category -> feature
    m = len(cards)
    total = np.zeros((m, m))
    weighted = np.zeros((m, m))
    for table in pairwise.table:  # one class at a time keeps memory at one R x R array
        row = np.add.reduceat(table, starts, axis=1)  # N(c, a, j): (R, m)
        col = np.add.reduceat(table, starts, axis=0)  # N(c, i, b): (m, R)
        pair = np.add.reduceat(row, starts, axis=0)  # N(c) on the rows observing (i, j)
        total += pair
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = table * pair[owner][:, owner] / (row[:, owner] * col[owner, :])
            terms = np.where(table > 0, table * np.log(ratio), 0.0)
        weighted += np.add.reduceat(np.add.reduceat(terms, starts, axis=0), starts, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total > 0, weighted / total, 0.0)


def class_mi_from_counts(counts: TrainingCounts) -> np.ndarray:
    """Mutual information I(X_i; C) in nats of every feature with the class."""
    out = np.empty(counts.n_features)
    for i in range(counts.n_features):
        joint = counts.family(i)
        n = joint.sum()
        pc = joint.sum(axis=1, keepdims=True)
        px = joint.sum(axis=0, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(joint > 0, joint * np.log(joint * n / (pc * px)), 0.0)
        out[i] = max(terms.sum() / n, 0.0)
    return out


def _training_counts(X, y):
    from ._encoding import as_frame, encode_target, learn_and_encode_frame

    frame, _ = as_frame(X)
    categories, codes = learn_and_encode_frame(frame)  # every column categorical, as documented
    classes, y_codes = encode_target(y, len(frame))
    cards = np.array([len(c) for c in categories])
    return frame.columns, TrainingCounts(codes, y_codes, cards, len(classes))


def conditional_mutual_information(X, y) -> pd.DataFrame:
    """Conditional mutual information I(X_i; X_j | C) of every pair of features, in nats.

    Parameters
    ----------
    X : DataFrame or array of shape (n_rows, n_features)
        Categorical features; NaN is missing (each pair uses the rows observing both).
    y : array-like of shape (n_rows,)
        Class labels.

    Returns
    -------
    DataFrame of shape (n_features, n_features)
        Symmetric, zero diagonal, labelled by feature name.

    Examples
    --------
    >>> from bnclassify.datasets import load_p450
    >>> X, y = load_p450(return_X_y=True)
    >>> cmi = conditional_mutual_information(X, y)
    >>> round(float(cmi.loc["block1", "block4"]), 4)
    0.0101
    """
    names, counts = _training_counts(X, y)
    return pd.DataFrame(cmi_from_counts(counts.pairwise), index=names, columns=names)


def mutual_information_with_class(X, y) -> pd.Series:
    """Mutual information I(X_i; C) of every feature with the class, in nats.

    Examples
    --------
    >>> from bnclassify.datasets import load_p450
    >>> X, y = load_p450(return_X_y=True)
    >>> mutual_information_with_class(X, y).idxmax()
    'block5'
    """
    names, counts = _training_counts(X, y)
    return pd.Series(class_mi_from_counts(counts), index=names, name="mutual_information")
