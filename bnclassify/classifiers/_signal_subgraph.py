"""The signal-subgraph classifier: a Bayes plug-in classifier for whole networks.

Each sample is a network on the same labelled vertices, given as a 0/1
adjacency matrix; ``X`` stacks them, shape ``(n_networks, n_vertices,
n_vertices)``. The classifier (Vogelstein et al., 2013) models every edge as an
independent Bernoulli variable given the class -- naive Bayes with one binary
feature per possible edge -- but keeps only a *signal subgraph*: the edges
whose presence is most associated with the class. The flow:

1. count, per class, how many networks hold each possible edge;
2. test every edge for association with the class (Fisher's exact test for
   two classes, Pearson's chi-squared for more), vectorised over edges;
3. keep the ``n_edges`` most significant edges (incoherent estimator), or the
   ``n_edges`` most significant edges touching ``n_vertices_signal`` vertices
   chosen by their count of significant edges (coherent estimator);
4. estimate the class priors and the smoothed per-class edge probabilities
   with :func:`bnclassify.parameters.log_conditional`, and classify with
   ``argmax_y log pi_y + sum_{(i,j) in S} a_ij log p_ij^y + (1 - a_ij) log(1 - p_ij^y)``.
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import networkx as nx
import numpy as np
from scipy.stats import chi2, hypergeom
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ..data import encode_target
from ..exceptions import InvalidParameterError
from ..graph_edges import (
    candidate_edges,
    describe_networks,
    n_incident_edges,
    n_possible_edges,
)
from ..parameters import log_conditional
from ..state import collect, distinct_labels, probability_rows, require, restore
from ..state import float_array as check_floats
from ..validation import (
    ALPHA,
    MAX_ALPHA,
    ArrayLike,
    Interval,
    Options,
    float_array,
    validate_parameters,
)
from ._predict import JointPredictor

__all__ = [
    "SignalSubgraphClassifier",
    "check_networks",
    "chi2_log_pvalues",
    "coherent_signal_subgraph",
    "fisher_exact_log_pvalues",
    "incoherent_signal_subgraph",
]

TESTS = ("auto", "fisher", "chi2")

#: Relative tolerance under which two tables count as equally probable in the
#: two-sided Fisher test (R's ``fisher.test`` uses the same 1e-7).
_FISHER_RTOL = 1e-7

#: Hypergeometric log-pmf entries computed at once (bounds memory for many networks).
_FISHER_BLOCK = 1 << 21


# -- input -------------------------------------------------------------------------
def check_networks(X, n_vertices=None, *, directed=True, name="X"):
    """Validate a stack of 0/1 adjacency matrices; return it as a boolean array.

    Parameters
    ----------
    X : array-like of shape (n_networks, n_vertices, n_vertices)
        Adjacency matrices holding only 0 and 1 (bool, integer or float).
    n_vertices : int, optional
        The number of vertices every matrix must have (the fitted one).
    directed : bool, default=True
        With ``False``, warn when the matrices are not symmetric although their
        lower triangle holds edges: only the upper triangle is then read.
    name : str, default="X"
        Name used in error messages.

    Returns
    -------
    ndarray of bool, shape (n_networks, n_vertices, n_vertices)

    Raises
    ------
    TypeError
        For sparse matrices, text, or values that are not numbers.
    ValueError
        For a wrong number of dimensions, non-square matrices, no networks, a
        number of vertices other than ``n_vertices``, or a value other than 0/1
        (the message names the network, the cell and the value).

    Examples
    --------
    >>> check_networks([[[0, 1], [1, 0]]]).shape
    (1, 2, 2)
    >>> check_networks([[[0, 2], [2, 0]]])
    Traceback (most recent call last):
    ...
    ValueError: X must hold 0/1 adjacency matrices, but network 0 has the value 2 at (0, 1) ...
    """
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        raise TypeError(
            f"{name} must be a dense array of shape (n_networks, n_vertices, n_vertices), "
            f"got a sparse {type(X).__name__}; stack dense matrices, e.g. "
            "np.stack([m.toarray() for m in matrices])."
        )
    if isinstance(X, nx.Graph) or (
        isinstance(X, (list, tuple)) and len(X) > 0 and isinstance(X[0], nx.Graph)
    ):
        raise TypeError(
            f"{name} must be an array of adjacency matrices, got networkx graph(s); convert "
            "with np.stack([nx.to_numpy_array(g, nodelist=nodes, weight=None) for g in graphs])."
        )
    try:
        array = np.asarray(X)
    except ValueError as error:  # ragged nesting
        raise ValueError(
            f"{name} must be an array of shape (n_networks, n_vertices, n_vertices); "
            f"its matrices do not all have the same shape ({error})."
        ) from None
    if array.dtype.kind in "USa" or (
        array.dtype.kind == "O" and any(isinstance(v, (str, bytes)) for v in array.flat)
    ):
        raise TypeError(f"{name} must hold the numbers 0 and 1, got text (dtype {array.dtype}).")
    if array.dtype.kind not in "biuf":
        try:
            array = array.astype(float)
        except (TypeError, ValueError):
            raise TypeError(
                f"{name} must hold the numbers 0 and 1, got values of dtype {array.dtype}."
            ) from None
    if array.ndim != 3:
        hint = " For a single network use X[np.newaxis]." if array.ndim == 2 else ""
        raise ValueError(
            f"{name} must be a stack of adjacency matrices of shape (n_networks, n_vertices, "
            f"n_vertices), got an array of {array.ndim} dimension(s), shape {array.shape}.{hint}"
        )
    n_networks, n_rows, n_cols = array.shape
    if n_rows != n_cols:
        raise ValueError(
            f"{name} must hold square adjacency matrices, got matrices of {n_rows} rows and "
            f"{n_cols} columns (shape {array.shape})."
        )
    if n_networks == 0:
        raise ValueError(f"{name} holds 0 networks (shape {array.shape}); at least 1 is needed.")
    if n_rows == 0:
        raise ValueError(f"{name} holds networks with 0 vertices (shape {array.shape}).")
    if n_vertices is not None and n_rows != n_vertices:
        raise ValueError(
            f"{name} has networks on {n_rows} vertices, but the classifier was fitted on "
            f"networks with {n_vertices} vertices."
        )
    if array.dtype.kind == "b":
        present = array
    else:
        present = array == 1
        bad = ~present & (array != 0)
        if bad.any():
            k, i, j = (int(v) for v in np.unravel_index(np.argmax(bad), bad.shape))
            value = array[k, i, j]
            value = value.item() if not float(value).is_integer() else int(value)
            raise ValueError(
                f"{name} must hold 0/1 adjacency matrices, but network {k} has the value "
                f"{value!r} at ({i}, {j}) ({int(bad.sum())} cell(s) are neither 0 nor 1). "
                "Binarise weighted networks first, e.g. (X > threshold).astype(int)."
            )
    if not directed:
        _warn_if_lower_triangle_differs(present, name)
    return present


def _warn_if_lower_triangle_differs(present, name):
    lower = np.tril_indices(present.shape[1], k=-1)
    below = present[:, lower[0], lower[1]]
    if below.any() and (below != present[:, lower[1], lower[0]]).any():
        warnings.warn(
            f"{name} is not symmetric but directed=False: only the upper triangle (i < j) is "
            "read and edges present only below the diagonal are ignored. Pass directed=True "
            "for directed networks, or symmetrise X.",
            UserWarning,
            stacklevel=3,
        )


# -- edge significance -------------------------------------------------------------
def fisher_exact_log_pvalues(present_1, present, n_networks_1, n_networks):
    """Natural-log two-sided p-values of Fisher's exact test, one per 2 x 2 table.

    Table ``e`` is ``[[present_1[e], n_networks_1 - present_1[e]], [present[e] -
    present_1[e], ...]]``: how many of the ``n_networks_1`` networks of one class,
    and of the others, hold edge ``e``. Given the margins, ``present_1`` is
    hypergeometric; the two-sided p-value sums the probabilities of every
    table at most as probable as the observed one (up to a relative 1e-7, as
    in R's ``fisher.test`` and scipy's ``fisher_exact``).

    Vectorised: the hypergeometric log-pmf is computed once per distinct margin
    ``present[e]`` (at most ``n_networks + 1`` of them, whatever the number of
    edges) in array calls over blocks of margins, then looked up for every
    edge. Working in logs
    keeps the p-values of strongly significant edges distinct instead of
    underflowing to 0, so edges rank correctly however strong the signal.

    Parameters
    ----------
    present_1 : array-like of int, shape (n_edges,)
    present : array-like of int, shape (n_edges,)
    n_networks_1, n_networks : int

    Returns
    -------
    ndarray of shape (n_edges,)
        ``log(p)``, at most 0.

    Examples
    --------
    >>> from scipy.stats import fisher_exact
    >>> float(np.exp(fisher_exact_log_pvalues([8], [9], 10, 16))[0])  # doctest: +ELLIPSIS
    0.0349650349...
    >>> float(fisher_exact([[8, 2], [1, 5]]).pvalue)  # doctest: +ELLIPSIS
    0.0349650349...
    """
    present_1 = np.asarray(present_1, dtype=np.int64)
    present = np.asarray(present, dtype=np.int64)
    if 2 * n_networks_1 > n_networks:  # same p-value, seen from the smaller group
        present_1, n_networks_1 = present - present_1, n_networks - n_networks_1
    margins, which = np.unique(present, return_inverse=True)
    support = np.arange(n_networks_1 + 1)
    tolerance = np.log1p(_FISHER_RTOL)
    log_p = np.empty(len(present))
    step = max(1, _FISHER_BLOCK // len(support))
    for start in range(0, len(margins), step):  # blocks of margins bound the memory
        block = margins[start : start + step]
        with np.errstate(divide="ignore", invalid="ignore"):
            log_pmf = hypergeom.logpmf(support[None, :], n_networks, block[:, None], n_networks_1)
        log_pmf[np.isnan(log_pmf)] = -np.inf
        table = np.empty_like(log_pmf)
        for row, values in enumerate(log_pmf):  # one row per distinct margin, vectorised in it
            ascending = np.sort(values)
            cumulative = np.logaddexp.accumulate(ascending)
            last = np.searchsorted(ascending, values + tolerance, side="right") - 1
            table[row] = cumulative[last]
        here = (which >= start) & (which < start + len(block))
        log_p[here] = table[which[here] - start, present_1[here]]
    return np.minimum(log_p, 0.0)


def chi2_log_pvalues(present, class_counts):
    """Natural-log p-values of Pearson's chi-squared test of independence, per edge.

    Edge ``e`` gives a ``n_classes x 2`` table (networks of each class with and
    without the edge); the statistic has ``n_classes - 1`` degrees of freedom.
    No continuity correction. An edge present in all or in none of the
    networks carries no information: statistic 0, p-value 1.

    Parameters
    ----------
    present : array-like of shape (n_classes, n_edges)
        Networks of each class holding each edge.
    class_counts : array-like of shape (n_classes,)
        Networks of each class.

    Returns
    -------
    ndarray of shape (n_edges,)

    Examples
    --------
    >>> from scipy.stats import chi2_contingency
    >>> table = np.array([[3, 7], [6, 4], [9, 1]])  # with / without the edge, per class
    >>> float(np.exp(chi2_log_pvalues(table[:, :1], table.sum(1))[0]))  # doctest: +ELLIPSIS
    0.02351...
    >>> float(chi2_contingency(table).pvalue)  # doctest: +ELLIPSIS
    0.02351...
    """
    present = np.asarray(present, dtype=float)
    class_counts = np.asarray(class_counts, dtype=float)
    total = class_counts.sum()
    edges = present.sum(axis=0)
    expected = class_counts[:, None] * edges[None, :] / total
    informative = (edges > 0) & (edges < total)
    # sum over both columns of (O - E)^2 / E collapses to one sum over classes
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = total**2 / (edges * (total - edges))
        statistic = scale * ((present - expected) ** 2 / class_counts[:, None]).sum(axis=0)
    statistic = np.where(informative, statistic, 0.0)
    return chi2.logsf(statistic, len(class_counts) - 1)


# -- signal subgraph estimators ----------------------------------------------------
def significance_order(log_pvalues):
    """Edge indices from the most to the least significant; ties keep edge order."""
    return np.argsort(np.asarray(log_pvalues), kind="stable")


def incoherent_signal_subgraph(log_pvalues, n_edges):
    """Indices of the ``n_edges`` most significant edges (smallest p-values).

    Ties break by edge order (row-major), so the estimate is deterministic.

    Examples
    --------
    >>> incoherent_signal_subgraph(np.log([0.5, 0.01, 0.2, 0.01]), 3)
    array([1, 3, 2])
    """
    return significance_order(log_pvalues)[:n_edges]


def coherent_signal_subgraph(log_pvalues, rows, cols, n_vertices, n_edges, n_vertices_signal):
    """The coherent signal-subgraph estimator of Vogelstein et al. (2013).

    A threshold moves up through the sorted p-values. At each threshold every
    vertex scores the number of its edges at least that significant, and the
    ``n_vertices_signal`` best-scoring vertices are the candidate signal
    vertices (ties by vertex index). The threshold stops at the first value
    where those vertices' scores add up to at least ``n_edges``; the signal
    subgraph is then the ``n_edges`` most significant edges touching a signal
    vertex. Scores grow with the threshold, so the stopping threshold is
    found by bisection over the distinct p-values.

    Parameters
    ----------
    log_pvalues : ndarray of shape (n_candidates,)
    rows, cols : ndarray of shape (n_candidates,)
        Endpoints of each candidate edge.
    n_vertices, n_edges, n_vertices_signal : int
        ``n_edges`` must not exceed the number of candidate edges touching
        ``n_vertices_signal`` vertices.

    Returns
    -------
    edges : ndarray of shape (n_edges,)
        Candidate-edge indices, most significant first.
    vertices : ndarray
        The signal vertices, sorted.

    Examples
    --------
    A star of significant edges around vertex 2 of a 5-vertex network:

    >>> rows, cols = np.triu_indices(5, k=1)
    >>> p = np.where((rows == 2) | (cols == 2), 0.001, 0.5)
    >>> p[(rows == 0) & (cols == 1)] = 0.0001  # one stronger edge elsewhere
    >>> edges, vertices = coherent_signal_subgraph(np.log(p), rows, cols, 5, 4, 1)
    >>> vertices, [(int(rows[e]), int(cols[e])) for e in edges]
    (array([2]), [(0, 2), (1, 2), (2, 3), (2, 4)])
    """
    order = significance_order(log_pvalues)
    ranked = np.asarray(log_pvalues)[order]
    ends = np.flatnonzero(np.append(ranked[1:] != ranked[:-1], True)) + 1
    by_index = np.arange(n_vertices)

    def signal_vertices(k):
        first = order[:k]
        # a self-loop touches its vertex once
        score = np.bincount(rows[first], minlength=n_vertices) + np.bincount(
            cols[first][cols[first] != rows[first]], minlength=n_vertices
        )
        top = np.lexsort((by_index, -score))[:n_vertices_signal]
        return top, int(score[top].sum())

    lo, hi = 0, len(ends) - 1  # the last threshold always suffices (n_edges <= capacity)
    while lo < hi:
        mid = (lo + hi) // 2
        if signal_vertices(ends[mid])[1] >= n_edges:
            hi = mid
        else:
            lo = mid + 1
    vertices, _ = signal_vertices(ends[lo])
    is_signal = np.zeros(n_vertices, dtype=bool)
    is_signal[vertices] = True
    touching = is_signal[rows[order]] | is_signal[cols[order]]
    return order[touching][:n_edges], np.sort(vertices)


# -- the estimator -----------------------------------------------------------------
class SignalSubgraphClassifier(JointPredictor, ClassifierMixin, BaseEstimator):
    """Classify whole networks with the signal-subgraph Bayes plug-in classifier.

    Every possible edge is a Bernoulli variable, independent of the others
    given the class (naive Bayes over edges). Only the edges of an estimated
    *signal subgraph* ``S`` -- those whose presence is most associated with
    the class -- enter the classifier:

    .. math::

        \\hat y(A) = \\arg\\max_y \\; \\log \\hat\\pi_y + \\sum_{(i, j) \\in S}
            a_{ij} \\log \\hat p^y_{ij} + (1 - a_{ij}) \\log (1 - \\hat p^y_{ij})

    with the class prior ``pi_y = M_y / M`` (``M_y`` of the ``M`` training
    networks are of class ``y``) and the smoothed edge probability

    .. math::

        \\hat p^y_{ij} = \\frac{N^y_{ij} + \\alpha}{M_y + 2 \\alpha}

    where ``N^y_ij`` networks of class ``y`` hold edge ``(i, j)``. This is the
    posterior mean under a Beta(alpha, alpha) prior (``alpha=1``: Laplace's
    rule), computed by :func:`bnclassify.parameters.log_conditional` like every
    CPT of bnclassify. With ``alpha > 0`` an edge seen in all or none of a
    class's networks gets a probability strictly between 0 and 1, so no term
    is ``log(0)``; the sum is evaluated in log space and normalised with
    log-sum-exp, so ``predict_proba`` rows sum to 1 even for large subgraphs.

    Read more in the notebook ``08_signal_subgraph.ipynb``.

    Parameters
    ----------
    n_edges : int, default=10
        Size of the signal subgraph (number of signal edges); at most the
        number of possible edges (``n(n-1)/2`` for undirected networks on
        ``n`` vertices without self-loops, ``n(n-1)`` directed, plus ``n``
        with self-loops). Tune it with cross-validation, e.g. ``GridSearchCV``.
    n_vertices_signal : int, optional
        ``None`` (default): the incoherent estimator -- the ``n_edges`` most
        significant edges, wherever they are. An integer: the coherent
        estimator (Vogelstein et al., 2013) -- the signal edges must touch at
        most this many *signal vertices*, chosen by their number of
        significant edges under a threshold that moves up through the sorted
        p-values until the best ``n_vertices_signal`` vertices' counts add up
        to ``n_edges`` (see :func:`coherent_signal_subgraph`).
    directed : bool, default=False
        Whether ``A[i, j]`` and ``A[j, i]`` are different edges. With
        ``False`` only the upper triangle (``i < j``) of each matrix is read:
        pass symmetric or upper-triangular matrices (a warning says when the
        lower triangle holds edges the upper one lacks).
    loops : bool, default=False
        Whether the diagonal (self-loops) holds edges; if not it is ignored.
    test : {"auto", "fisher", "chi2"}, default="auto"
        The per-edge test of association between edge presence and class:
        Fisher's exact test (two classes only) or Pearson's chi-squared test
        without continuity correction (any number of classes). ``"auto"``
        uses Fisher's test for two classes and chi-squared for more.
    alpha : float, default=1.0
        Pseudo-count of the Beta(alpha, alpha) smoothing of the edge
        probabilities; must be > 0 (and at most 1e300, as every ``alpha``).
    class_prior : array-like of shape (n_classes,), optional
        Prior probabilities of the classes, in the order of ``classes_``;
        ``None`` (default) uses the training proportions ``M_y / M``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    class_count_ : ndarray of shape (n_classes,)
        Training networks per class.
    class_log_prior_ : ndarray of shape (n_classes,)
        Log prior of each class.
    n_vertices_ : int
        Number of vertices of the networks seen in fit.
    test_ : str
        The test used, ``"fisher"`` or ``"chi2"``.
    pvalues_ : ndarray of shape (n_vertices, n_vertices)
        p-value of every possible edge (symmetric when undirected; NaN on the
        diagonal without self-loops). Edges are ranked by the log p-values
        computed internally, which stay distinct where these underflow to 0;
        ties break by row-major edge order.
    edge_prob_ : ndarray of shape (n_classes, n_vertices, n_vertices)
        Smoothed probability of every possible edge in each class (laid out
        like ``pvalues_``); the classifier uses it on the signal edges only.
    signal_edges_ : list of tuple of int
        The signal subgraph: ``(i, j)`` pairs (``i < j`` when undirected),
        most significant first.
    signal_vertices_ : ndarray of int
        The signal vertices of the coherent estimator; for the incoherent one,
        the vertices the signal edges touch. Sorted.
    signal_graph_ : networkx.Graph or networkx.DiGraph
        The signal subgraph: its nodes are the vertices the signal edges
        touch, plus the signal vertices (node attribute ``signal_vertex``
        True for those in ``signal_vertices_``); each edge carries ``rank``
        (1 = most significant), ``pvalue`` and ``probability`` (a dict from
        class label to ``edge_prob_``).
    edge_log_prob_ : ndarray of shape (n_classes, n_edges)
        ``log p^y_ij`` of each signal edge, in the order of ``signal_edges_``.

    See Also
    --------
    bnclassify.datasets.make_signal_subgraph_networks : networks with a known
        signal subgraph.
    sklearn.naive_bayes.BernoulliNB : the same classifier on a given set of
        binary features (with a smoothed class prior).

    References
    ----------
    .. [1] J. T. Vogelstein, W. R. Gray, R. J. Vogelstein and C. E. Priebe,
       "Graph classification using signal-subgraphs: applications in
       statistical connectomics", IEEE TPAMI 35(7), 1539-1551, 2013.

    Examples
    --------
    >>> from bnclassify import SignalSubgraphClassifier
    >>> from bnclassify.datasets import make_signal_subgraph_networks
    >>> X, y, truth = make_signal_subgraph_networks(
    ...     300, 15, n_signal_edges=8, p_signal=(0.1, 0.6), p_background=0.1,
    ...     return_truth=True, random_state=0,
    ... )
    >>> clf = SignalSubgraphClassifier(n_edges=8).fit(X, y)
    >>> sorted(clf.signal_edges_) == truth.signal_edges
    True
    >>> clf.predict_proba(X[:2]).round(3)
    array([[0.987, 0.013],
           [0.004, 0.996]])
    """

    _parameter_constraints = {
        "n_edges": [Interval(Integral, 1, None, closed="left")],
        "n_vertices_signal": [None, Interval(Integral, 1, None, closed="left")],
        "directed": ["boolean"],
        "loops": ["boolean"],
        "test": [Options(TESTS)],
        "alpha": [Interval(Real, 0, MAX_ALPHA, closed="right", why=ALPHA[0].why)],
        "class_prior": [None, ArrayLike("an array-like of probabilities", numbers=True)],
    }

    def __init__(
        self,
        n_edges=10,
        *,
        n_vertices_signal=None,
        directed=False,
        loops=False,
        test="auto",
        alpha=1.0,
        class_prior=None,
    ):
        self.n_edges = n_edges
        self.n_vertices_signal = n_vertices_signal
        self.directed = directed
        self.loops = loops
        self.test = test
        self.alpha = alpha
        self.class_prior = class_prior

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.three_d_array = True
        return tags

    # -- fitting -----------------------------------------------------------------
    def fit(self, X, y):
        """Estimate the signal subgraph, the class priors and the edge probabilities.

        Parameters
        ----------
        X : array-like of shape (n_networks, n_vertices, n_vertices)
            0/1 adjacency matrices (bool, int or float).
        y : array-like of shape (n_networks,)
            Class labels.

        Returns
        -------
        self
        """
        validate_parameters(self)
        present = check_networks(X, directed=self.directed)
        n_networks, n_vertices = present.shape[:2]
        if np.ndim(y) >= 1 and len(y) != n_networks:
            raise ValueError(
                f"X holds {n_networks} networks but y has {len(y)} labels; "
                "they must have the same length."
            )
        self.classes_, y_codes = encode_target(y, n_networks)
        n_classes = len(self.classes_)
        self.test_ = self._resolve_test(n_classes)
        self._check_sizes(n_vertices)
        self.n_vertices_ = n_vertices
        self.class_count_ = np.bincount(y_codes, minlength=n_classes)
        self.class_log_prior_ = self._log_prior(n_networks)
        rows, cols = candidate_edges(n_vertices, self.directed, self.loops)

        edges = present[:, rows, cols]  # (n_networks, n_candidates)
        with_edge = np.stack([edges[y_codes == c].sum(axis=0) for c in range(n_classes)])
        if self.test_ == "fisher":
            log_p = fisher_exact_log_pvalues(
                with_edge[1], with_edge.sum(axis=0), self.class_count_[1], n_networks
            )
        else:
            log_p = chi2_log_pvalues(with_edge, self.class_count_)
        if self.n_vertices_signal is None:
            chosen = incoherent_signal_subgraph(log_p, self.n_edges)
            self.signal_vertices_ = np.unique(np.concatenate([rows[chosen], cols[chosen]]))
        else:
            chosen, self.signal_vertices_ = coherent_signal_subgraph(
                log_p, rows, cols, n_vertices, self.n_edges, self.n_vertices_signal
            )

        # (n_classes, n_candidates, [absent, present]) -> smoothed log P(a_ij | y)
        table = np.stack([self.class_count_[:, None] - with_edge, with_edge], axis=-1)
        log_prob = log_conditional(table, float(self.alpha))
        self._log_present = log_prob[:, chosen, 1]
        self._log_absent = log_prob[:, chosen, 0]
        self.edge_log_prob_ = self._log_present.copy()
        self.pvalues_ = self._as_matrix(np.exp(log_p), rows, cols)
        self.edge_prob_ = np.stack(
            [self._as_matrix(np.exp(log_prob[c, :, 1]), rows, cols) for c in range(n_classes)]
        )
        self._signal_rows, self._signal_cols = rows[chosen], cols[chosen]
        self.signal_edges_ = [
            (int(i), int(j)) for i, j in zip(self._signal_rows, self._signal_cols, strict=True)
        ]
        self.signal_graph_ = self._signal_graph(np.exp(log_p[chosen]))
        return self

    def _resolve_test(self, n_classes):
        if self.test == "auto":
            return "fisher" if n_classes == 2 else "chi2"
        if self.test == "fisher" and n_classes != 2:
            raise InvalidParameterError(
                f"test='fisher' needs exactly 2 classes, y has {n_classes}; "
                "use test='chi2' (or 'auto')."
            )
        return self.test

    def _check_sizes(self, n_vertices):
        directed, loops = self.directed, self.loops
        possible = n_possible_edges(n_vertices, directed, loops)
        what = describe_networks(n_vertices, directed, loops)
        if self.n_edges > possible:
            raise InvalidParameterError(
                f"n_edges={self.n_edges} exceeds the {possible} possible edges of {what}."
            )
        signal = self.n_vertices_signal
        if signal is None:
            return
        if signal > n_vertices:
            raise InvalidParameterError(
                f"n_vertices_signal={signal} exceeds the {n_vertices} vertices of the networks."
            )
        capacity = n_incident_edges(n_vertices, signal, directed, loops)
        if self.n_edges > capacity:
            raise InvalidParameterError(
                f"n_edges={self.n_edges} exceeds the {capacity} possible edges touching "
                f"n_vertices_signal={signal} vertices of {what}."
            )

    def _log_prior(self, n_networks):
        n_classes = len(self.classes_)
        if self.class_prior is None:
            return np.log(self.class_count_ / n_networks)
        prior = float_array(self.class_prior, "class_prior")
        if prior.shape != (n_classes,):
            raise InvalidParameterError(
                f"class_prior must have one entry per class ({n_classes}: "
                f"{self.classes_.tolist()}), got shape {prior.shape}."
            )
        if not np.all(np.isfinite(prior)) or (prior < 0).any() or not np.isclose(prior.sum(), 1):
            raise InvalidParameterError(
                f"class_prior must be non-negative and sum to 1, got {prior.tolist()}."
            )
        with np.errstate(divide="ignore"):
            return np.log(prior)

    def _as_matrix(self, values, rows, cols):
        matrix = np.full((self.n_vertices_, self.n_vertices_), np.nan)
        matrix[rows, cols] = values
        if not self.directed:
            matrix[cols, rows] = values
        return matrix

    def _signal_graph(self, pvalues):
        graph = nx.DiGraph() if self.directed else nx.Graph()
        graph.add_nodes_from(self.signal_vertices_.tolist(), signal_vertex=True)
        labels = self.classes_.tolist()
        for rank, ((i, j), p) in enumerate(zip(self.signal_edges_, pvalues, strict=True), 1):
            probability = dict(zip(labels, self.edge_prob_[:, i, j].tolist(), strict=True))
            graph.add_edge(i, j, rank=rank, pvalue=float(p), probability=probability)
        for _, data in graph.nodes(data=True):
            data.setdefault("signal_vertex", False)
        return graph

    # -- prediction --------------------------------------------------------------
    def _signal_edges_of(self, X):
        check_is_fitted(self, "signal_edges_")
        present = check_networks(X, self.n_vertices_, directed=self.directed)
        return present[:, self._signal_rows, self._signal_cols].astype(float)

    def predict_joint_log_proba(self, X):
        """``log P(y) + log P(signal edges of A | y)`` for every network and class.

        Parameters
        ----------
        X : array-like of shape (n_networks, n_vertices, n_vertices)

        Returns
        -------
        ndarray of shape (n_networks, n_classes)
        """
        a = self._signal_edges_of(X)
        # sum_e a_e log p + (1 - a_e) log(1 - p) as one matrix product
        return (
            self.class_log_prior_
            + a @ (self._log_present - self._log_absent).T
            + self._log_absent.sum(axis=1)
        )

    def _joint_log_likelihood(self, X):
        return self.predict_joint_log_proba(X)

    # -- declared state (the fields of a model file; see bnclassify.state) ---------------
    #: ``signal_rows`` / ``signal_cols``: the signal edges' vertices; ``log_present`` /
    #: ``log_absent``: log P(edge present / absent | class) of each signal edge.
    _FITTED_FIELDS = {
        "classes_": "classes_",
        "test_": "test_",
        "n_vertices_": "n_vertices_",
        "class_count_": "class_count_",
        "class_log_prior_": "class_log_prior_",
        "signal_vertices_": "signal_vertices_",
        "_log_present": "log_present",
        "_log_absent": "log_absent",
        "edge_log_prob_": "edge_log_prob_",
        "pvalues_": "pvalues_",
        "edge_prob_": "edge_prob_",
        "_signal_rows": "signal_rows",
        "_signal_cols": "signal_cols",
        "signal_edges_": "signal_edges_",
        "signal_graph_": "signal_graph_",
    }

    def _get_state(self) -> dict:
        """The fitted state by field (empty when unfitted); the parameters are not in it."""
        return collect(vars(self), self._FITTED_FIELDS)

    @classmethod
    def _from_state(cls, state, params=None):
        """The classifier of ``params`` with :meth:`_get_state`'s fields, checked."""
        model = restore(cls(**(params or {})), cls._FITTED_FIELDS, state, cls.__name__)
        if not state:
            return model
        missing = [f for f in cls._FITTED_FIELDS.values() if f not in state]
        require(not missing, cls.__name__, f"a fitted classifier needs the fields {missing}.")
        distinct_labels(model.classes_, "classes_", at_least=2)
        n_classes, n = len(model.classes_), len(model._signal_rows)
        check_floats(model.class_log_prior_, "class_log_prior_", (n_classes,))
        probability_rows(model.class_log_prior_, "class_log_prior_", log=True)
        check_floats(model._log_present, "log_present", (n_classes, n), allow_minus_inf=True)
        check_floats(model._log_absent, "log_absent", (n_classes, n), allow_minus_inf=True)
        require(
            isinstance(model.n_vertices_, int) and model.n_vertices_ > 0,
            "n_vertices_",
            "must be a positive integer.",
        )
        for field, vertices in (
            ("signal_rows", model._signal_rows),
            ("signal_cols", model._signal_cols),
        ):
            require(
                isinstance(vertices, np.ndarray)
                and vertices.shape == (n,)
                and vertices.dtype.kind in "iu"
                and ((vertices >= 0) & (vertices < model.n_vertices_)).all(),
                field,
                "a signal edge's vertex is out of range.",
            )
        return model
