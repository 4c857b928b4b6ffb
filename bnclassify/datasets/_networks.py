"""Synthetic labelled networks drawn around a known signal subgraph."""

from __future__ import annotations

import numpy as np
from scipy.stats import binom
from sklearn.utils import Bunch, check_random_state

from ..graph_edges import candidate_edges, describe_networks, n_incident_edges
from ..validation import check_int

__all__ = ["make_signal_subgraph_networks"]


def make_signal_subgraph_networks(
    n_networks=100,
    n_vertices=20,
    *,
    n_signal_edges=10,
    n_signal_vertices=None,
    p_signal=(0.2, 0.5),
    p_background=0.2,
    weights=None,
    directed=False,
    loops=False,
    return_truth=False,
    random_state=None,
):
    """Sample labelled networks whose classes differ only on a known signal subgraph.

    An independent-edge model (the homogeneous "kidney-egg" model of
    Vogelstein et al., 2013): each network's class ``y`` is drawn from
    ``weights``; then every possible edge is present independently, with
    probability ``p_signal[y]`` on the ``n_signal_edges`` signal edges and
    ``p_background`` (the same for every class) on all the others. Only the
    signal edges carry information about the class.

    The signal edges are drawn at random among all possible edges
    (incoherent signal), or, when ``n_signal_vertices`` is given, among the
    edges incident to that many randomly drawn signal vertices (coherent
    signal; every signal vertex then carries at least one signal edge).

    Parameters
    ----------
    n_networks : int, default=100
        Number of networks (samples).
    n_vertices : int, default=20
        Number of vertices of every network.
    n_signal_edges : int, default=10
        Size of the signal subgraph.
    n_signal_vertices : int, optional
        Number of signal vertices every signal edge touches (coherent
        signal). ``None`` (default) draws the signal edges anywhere.
    p_signal : array-like of shape (n_classes,), default=(0.2, 0.5)
        Probability of each signal edge in each class; its length sets the
        number of classes (at least 2).
    p_background : float, default=0.2
        Probability of every other edge, in every class.
    weights : array-like of shape (n_classes,), optional
        Class proportions, normalised to sum to 1 (default: balanced).
    directed : bool, default=False
        Draw directed networks (``A[i, j]`` and ``A[j, i]`` independent);
        otherwise the matrices are symmetric.
    loops : bool, default=False
        Let the diagonal (self-loops) hold edges too; otherwise it is 0.
    return_truth : bool, default=False
        Also return the generating model.
    random_state : int, RandomState instance or None

    Returns
    -------
    X : ndarray of shape (n_networks, n_vertices, n_vertices), dtype uint8
        0/1 adjacency matrices (cast to a wider type before arithmetic that
        could exceed 255, such as ``X @ X``).
    y : ndarray of shape (n_networks,)
        Class codes ``0 .. n_classes - 1``.
    truth : Bunch, only when ``return_truth=True``
        ``signal_edges`` (sorted list of ``(i, j)``, ``i < j`` when
        undirected), ``signal_vertices`` (sorted array; for an incoherent
        signal, the vertices the signal edges touch), ``probabilities``
        (array of shape (n_classes, n_vertices, n_vertices): the true
        ``P(A[i, j] = 1 | y)``), ``class_prior`` and ``bayes_accuracy``, the
        accuracy of the Bayes-optimal classifier, computed exactly: with the
        same probability on every signal edge, the number of signal edges
        present is a sufficient statistic, binomial in each class, so the
        Bayes accuracy is ``sum_t max_y prior_y Binomial(t; n_signal_edges,
        p_signal[y])``.

    References
    ----------
    .. [1] J. T. Vogelstein, W. R. Gray, R. J. Vogelstein and C. E. Priebe,
       "Graph classification using signal-subgraphs: applications in
       statistical connectomics", IEEE TPAMI 35(7), 2013.

    Examples
    --------
    >>> from bnclassify.datasets import make_signal_subgraph_networks
    >>> X, y, truth = make_signal_subgraph_networks(
    ...     200, 12, n_signal_edges=6, n_signal_vertices=2, return_truth=True, random_state=0
    ... )
    >>> X.shape, X.dtype, bool((X == X.transpose(0, 2, 1)).all())
    ((200, 12, 12), dtype('uint8'), True)
    >>> len(truth.signal_edges), truth.signal_vertices.size
    (6, 2)
    >>> all(i in truth.signal_vertices or j in truth.signal_vertices
    ...     for i, j in truth.signal_edges)
    True
    >>> round(truth.bayes_accuracy, 3)
    0.779
    """
    rng = check_random_state(random_state)
    n_networks = check_int(n_networks, "n_networks", minimum=1)
    n_vertices = check_int(n_vertices, "n_vertices", minimum=1)
    directed, loops = bool(directed), bool(loops)
    rows, cols = candidate_edges(n_vertices, directed, loops)
    n_possible = len(rows)
    if n_possible == 0:
        raise ValueError(
            f"A network on {n_vertices} vertex without self-loops has no possible edge; "
            "use more vertices or loops=True."
        )
    n_signal_edges = check_int(n_signal_edges, "n_signal_edges", minimum=1)
    if n_signal_edges > n_possible:
        raise ValueError(
            f"n_signal_edges={n_signal_edges} exceeds the {n_possible} possible edges of "
            f"{describe_networks(n_vertices, directed, loops)}."
        )
    p_signal = np.asarray(p_signal, dtype=float)
    if p_signal.ndim != 1 or len(p_signal) < 2:
        raise ValueError(
            f"p_signal must hold one probability per class (at least 2), got {p_signal!r}."
        )
    _check_probability(p_signal, "p_signal")
    _check_probability(np.asarray(p_background, dtype=float), "p_background")
    if np.ndim(p_background) != 0:
        raise ValueError(f"p_background must be a single number, got {p_background!r}.")
    n_classes = len(p_signal)
    prior = _check_weights(weights, n_classes)

    if n_signal_vertices is None:
        chosen = rng.choice(n_possible, size=n_signal_edges, replace=False)
        signal_vertices = None
    else:
        n_signal_vertices = check_int(n_signal_vertices, "n_signal_vertices", minimum=1)
        chosen, signal_vertices = _coherent_edges(
            rows, cols, n_vertices, n_signal_edges, n_signal_vertices, directed, loops, rng
        )
    chosen = np.sort(chosen)
    signal_edges = [(int(i), int(j)) for i, j in zip(rows[chosen], cols[chosen], strict=True)]

    edge_p = np.full((n_classes, n_possible), float(p_background))
    edge_p[:, chosen] = p_signal[:, None]
    y = rng.choice(n_classes, size=n_networks, p=prior).astype(np.intp)
    X = np.zeros((n_networks, n_vertices, n_vertices), dtype=np.uint8)
    X[:, rows, cols] = rng.random_sample((n_networks, n_possible)) < edge_p[y]
    if not directed:
        X[:, cols, rows] = X[:, rows, cols]
    if not return_truth:
        return X, y

    probabilities = np.zeros((n_classes, n_vertices, n_vertices))
    probabilities[:, rows, cols] = edge_p
    if not directed:
        probabilities[:, cols, rows] = edge_p
    if signal_vertices is None:
        signal_vertices = np.unique(np.concatenate([rows[chosen], cols[chosen]]))
    counts = np.arange(n_signal_edges + 1)
    likelihood = binom.pmf(counts[:, None], n_signal_edges, p_signal[None, :])
    truth = Bunch(
        signal_edges=signal_edges,
        signal_vertices=signal_vertices,
        probabilities=probabilities,
        class_prior=prior,
        bayes_accuracy=float((likelihood * prior).max(axis=1).sum()),
        directed=directed,
        loops=loops,
    )
    return X, y, truth


def _coherent_edges(rows, cols, n_vertices, n_edges, n_signal_vertices, directed, loops, rng):
    """``n_edges`` random edges (indices) touching ``n_signal_vertices`` random vertices.

    Returns the edge indices and the sorted signal vertices.
    """
    if n_signal_vertices > n_vertices:
        raise ValueError(f"n_signal_vertices={n_signal_vertices} exceeds n_vertices={n_vertices}.")
    capacity = n_incident_edges(n_vertices, n_signal_vertices, directed, loops)
    if n_edges > capacity:
        raise ValueError(
            f"n_signal_edges={n_edges} exceeds the {capacity} possible edges touching "
            f"{n_signal_vertices} vertices of {describe_networks(n_vertices, directed, loops)}."
        )
    if n_edges < n_signal_vertices:
        raise ValueError(
            f"n_signal_edges={n_edges} is smaller than n_signal_vertices={n_signal_vertices}; "
            "every signal vertex needs at least one signal edge."
        )
    vertices = np.sort(rng.choice(n_vertices, size=n_signal_vertices, replace=False))
    is_signal = np.zeros(n_vertices, dtype=bool)
    is_signal[vertices] = True
    incident = np.flatnonzero(is_signal[rows] | is_signal[cols])
    chosen = []
    taken = np.zeros(len(rows), dtype=bool)
    for v in rng.permutation(vertices):  # one edge per signal vertex first
        if chosen and np.isin(v, np.concatenate([rows[chosen], cols[chosen]])):
            continue
        own = incident[((rows[incident] == v) | (cols[incident] == v)) & ~taken[incident]]
        pick = int(rng.choice(own))
        chosen.append(pick)
        taken[pick] = True
    rest = incident[~taken[incident]]
    chosen.extend(rng.choice(rest, size=n_edges - len(chosen), replace=False).tolist())
    return np.asarray(chosen, dtype=np.intp), vertices


def _check_probability(values, name):
    if not np.all(np.isfinite(values)) or np.any(values < 0) or np.any(values > 1):
        raise ValueError(f"{name} must hold probabilities in [0, 1], got {values.tolist()!r}.")


def _check_weights(weights, n_classes):
    if weights is None:
        return np.full(n_classes, 1.0 / n_classes)
    prior = np.asarray(weights, dtype=float)
    if (
        prior.shape != (n_classes,)
        or not np.all(np.isfinite(prior))
        or (prior < 0).any()
        or prior.sum() <= 0
    ):
        raise ValueError(
            f"weights must be {n_classes} non-negative numbers (one per entry of p_signal) "
            f"with a positive sum, got {weights!r}."
        )
    return prior / prior.sum()
