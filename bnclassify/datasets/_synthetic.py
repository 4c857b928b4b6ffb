"""Synthetic data sampled from a known tree-augmented naive Bayes network."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd
from sklearn.utils import Bunch, check_random_state

from ..network import FittedNetwork
from ..validation import check_int

__all__ = ["make_tree_classification"]


def make_tree_classification(
    n_samples=1000,
    n_features=8,
    *,
    n_categories=4,
    n_classes=2,
    concentration=1.0,
    weights=None,
    as_frame=False,
    return_network=False,
    random_state=None,
):
    """Sample categorical data from a random tree-augmented naive Bayes network.

    The generating network has a class node with an arc to every feature and
    a random tree over the features (a random recursive tree on a random
    order of the features, so its root is random too). Every conditional
    distribution P(x_i | c, x_parent) is drawn from a symmetric Dirichlet;
    rows are then sampled ancestrally, one feature at a time over all rows
    (no loop over rows), so 10^6 x 100 takes seconds.

    Parameters
    ----------
    n_samples : int, default=1000
    n_features : int, default=8
    n_categories : int or array-like of shape (n_features,), default=4
        Number of states of every feature (at most 256).
    n_classes : int, default=2
    concentration : float, default=1.0
        Dirichlet parameter of the CPT rows. Small values give peaked rows,
        i.e. strong dependencies on the class and the parent; large values
        give near-uniform rows, i.e. weak dependencies.
    weights : array-like of shape (n_classes,), optional
        Class proportions (default: balanced).
    as_frame : bool, default=False
        Return X as a DataFrame with columns ``x0 .. x{m-1}`` and y as a
        Series named ``"class"``.
    return_network : bool, default=False
        Also return the generating network.
    random_state : int, RandomState instance or None

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), dtype uint8, or DataFrame
        Category codes ``0 .. r_i - 1``.
    y : ndarray of shape (n_samples,) or Series
        Class codes ``0 .. n_classes - 1``.
    network : Bunch, only when ``return_network=True``
        ``structure`` (nx.DiGraph: class node ``"class"`` plus the feature
        tree, nodes named like the columns), ``root`` (name of the tree's
        root), ``parents`` (feature parent index of each feature, -1 for the
        root), ``adjacency`` (symmetric 0/1 matrix of the feature tree: a
        perfect "contact matrix" for :class:`~bnclassify.SimplerTAN`) and
        ``compiled`` (the true model as a
        :class:`~bnclassify.network.FittedNetwork`, whose
        ``joint_log_likelihood`` gives the Bayes-optimal posterior).

    Examples
    --------
    >>> from bnclassify import TAN
    >>> from bnclassify.datasets import make_tree_classification
    >>> X, y, truth = make_tree_classification(
    ...     5000, 6, concentration=0.3, return_network=True, random_state=0
    ... )
    >>> X.shape, X.dtype
    ((5000, 6), dtype('uint8'))
    >>> learned = TAN(root=truth.root).fit(X, y).structure_
    >>> sorted(learned.edges) == sorted(truth.structure.edges)
    True
    """
    rng = check_random_state(random_state)
    n_samples = check_int(n_samples, "n_samples", minimum=0)
    n_features = check_int(n_features, "n_features", minimum=1)
    n_classes = check_int(n_classes, "n_classes", minimum=2)
    cards = np.broadcast_to(np.asarray(n_categories), (n_features,)).astype(np.intp)
    if (cards < 1).any() or (cards > 256).any():
        raise ValueError(f"n_categories must be between 1 and 256, got {n_categories!r}.")
    if not np.isfinite(concentration) or concentration <= 0:
        raise ValueError(f"concentration must be a positive number, got {concentration!r}.")
    if weights is None:
        prior = np.full(n_classes, 1.0 / n_classes)
    else:
        prior = np.asarray(weights, dtype=float)
        if prior.shape != (n_classes,) or (prior < 0).any() or prior.sum() <= 0:
            raise ValueError(
                f"weights must be {n_classes} non-negative numbers with a positive sum, "
                f"got {weights!r}."
            )
        prior = prior / prior.sum()

    # A random recursive tree over a random order: the k-th feature of the
    # order hangs from one of the k before it.
    order = rng.permutation(n_features)
    parents = np.full(n_features, -1, dtype=np.intp)
    if n_features > 1:
        picks = (rng.random(n_features - 1) * np.arange(1, n_features)).astype(np.intp)
        parents[order[1:]] = order[picks]

    cpts = []
    for i in range(n_features):
        parent_states = (cards[parents[i]],) if parents[i] >= 0 else ()
        size = (n_classes, *parent_states)
        cpts.append(rng.dirichlet(np.full(cards[i], concentration), size=size))

    y = rng.choice(n_classes, size=n_samples, p=prior).astype(np.intp)
    X = np.empty((n_samples, n_features), dtype=np.uint8)
    for i in order:  # parents come before children in ``order``
        table = np.cumsum(cpts[i], axis=-1)
        rows = table[y, X[:, parents[i]]] if parents[i] >= 0 else table[y]
        u = rng.random(n_samples)[:, None]
        # Inverse CDF; min() guards against a last cumulative value of 1 - 1e-16.
        X[:, i] = np.minimum((rows[:, :-1] <= u).sum(axis=1), cards[i] - 1)

    names = [f"x{i}" for i in range(n_features)]
    if as_frame:
        X = pd.DataFrame(X, columns=names)
        y = pd.Series(y, name="class")
    if not return_network:
        return X, y

    structure = nx.DiGraph()
    structure.add_node("class")
    structure.add_nodes_from(names)
    structure.add_edges_from(("class", name) for name in names)
    structure.add_edges_from(
        (names[parents[i]], names[i]) for i in range(n_features) if parents[i] >= 0
    )
    adjacency = np.zeros((n_features, n_features))
    child = np.flatnonzero(parents >= 0)
    adjacency[child, parents[child]] = adjacency[parents[child], child] = 1.0
    with np.errstate(divide="ignore"):
        compiled = FittedNetwork.from_log_tables(
            np.log(prior),
            [(int(p),) if p >= 0 else () for p in parents],
            [np.log(t) for t in cpts],
            names,
        )
    network = Bunch(
        structure=structure,
        root=names[order[0]],
        parents=parents,
        adjacency=adjacency,
        compiled=compiled,
        feature_names=names,
    )
    return X, y, network
