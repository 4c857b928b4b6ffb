"""Naive Bayes, TAN and Simpler TAN: the class plus no tree, a CMI tree, or a contact tree."""

from __future__ import annotations

import pandas as pd

from ..information import cmi_from_counts
from ..structure import _empty_feature_graph, check_weight_matrix, orient_tree, tree_from_weights
from ._base import BayesNetClassifier


class NaiveBayes(BayesNetClassifier):
    """Categorical naive Bayes: every feature depends on the class alone.

    Parameters
    ----------
    alpha : float, default=1.0
        Dirichlet pseudo-count added to every cell of every CPT and of the
        class prior (1 = Laplace smoothing).
    handle_unknown : {"error", "marginalize"}, default="error"
        What to do with a category not seen in fit: raise, or treat the cell
        as missing (sum it out).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    categories_ : list of ndarray
        Categories of each feature, in code order.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X was a DataFrame with string column names.
    structure_ : networkx.DiGraph
        Class node plus feature nodes named by the columns.
    weights_ : None
        Naive Bayes learns no edge weights.
    compiled_ : CompiledNetwork
        Log-probability tables used for prediction.
    network_ : pgmpy.models.DiscreteBayesianNetwork
    fit_times_ : dict
        Seconds spent on ``weights``, ``structure`` and ``parameters``.

    Examples
    --------
    >>> from bnclassify import NaiveBayes
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = NaiveBayes().fit(X, y)
    >>> model.predict(X.iloc[:2]).tolist()
    ['unacc', 'unacc']
    """

    def _feature_dag(self, weights, features, counts):
        return _empty_feature_graph(features)


class _TreeAugmented(BayesNetClassifier):
    """A maximum spanning tree of ``weights_`` over the features, rooted at ``root``."""

    def __init__(self, alpha=1.0, root=None, handle_unknown="error"):
        super().__init__(alpha=alpha, handle_unknown=handle_unknown)
        self.root = root

    def _feature_dag(self, weights, features, counts):
        return orient_tree(tree_from_weights(weights), _resolve_root(self.root, features))


def _resolve_root(root, features):
    """A feature name from ``root`` given as None (first feature), a name or a position."""
    if root is None:
        return features[0]
    if root in features:
        return root
    if (
        isinstance(root, int)
        and not isinstance(root, bool)
        and -len(features) <= root < len(features)
    ):
        return features[root]
    raise ValueError(
        f"root={root!r} is neither a feature name nor a position; features: {features}."
    )


class TAN(_TreeAugmented):
    """Tree-augmented naive Bayes (Friedman, Geiger and Goldszmidt 1997).

    The feature tree is the maximum spanning tree (``nx.maximum_spanning_tree``)
    of the conditional mutual information I(X_i; X_j | C), computed from
    counts (Chow-Liu conditioned on the class), oriented away from ``root``.

    Parameters
    ----------
    alpha : float, default=1.0
        Dirichlet pseudo-count for every CPT cell and the class prior.
    root : str or int, optional
        Root of the tree: a feature name or position (default: the first feature).
    handle_unknown : {"error", "marginalize"}, default="error"

    Attributes
    ----------
    weights_ : DataFrame of shape (n_features, n_features)
        I(X_i; X_j | C) in nats.
    structure_, compiled_, network_, classes_, categories_, fit_times_
        As in :class:`NaiveBayes`.

    Examples
    --------
    >>> from bnclassify import TAN
    >>> from bnclassify.datasets import load_p450
    >>> X, y = load_p450(return_X_y=True)
    >>> model = TAN().fit(X, y)
    >>> sorted(model.structure_.successors("block7"))
    ['block2', 'block5', 'block6', 'block8']
    """

    def _edge_weights(self, counts, features):
        return pd.DataFrame(cmi_from_counts(counts.pairwise), index=features, columns=features)


class SimplerTAN(_TreeAugmented):
    """Simpler TAN: the tree is the maximum spanning tree of a contact matrix.

    Skips the conditional mutual information step of :class:`TAN`: the
    structure comes from side information (e.g. which protein blocks touch),
    so fitting costs one pass of family counts.

    Parameters
    ----------
    contact_matrix : DataFrame, array of shape (n_features, n_features) or callable
        Symmetric, non-negative edge weights. A DataFrame is matched to the
        columns by its labels; an array must be in column order. A callable
        is called at fit time with the list of feature names and must return
        such a matrix (useful when the columns are chosen inside a pipeline).
    alpha : float, default=1.0
    root : str or int, optional
        Root of the tree (default: the first feature).
    handle_unknown : {"error", "marginalize"}, default="error"

    Attributes
    ----------
    weights_ : DataFrame
        The contact matrix, labelled and ordered like the columns.

    Examples
    --------
    >>> from bnclassify import SimplerTAN
    >>> from bnclassify.datasets import load_p450
    >>> p450 = load_p450()
    >>> model = SimplerTAN(p450.contact_matrix).fit(p450.data, p450.target)
    >>> sorted(model.structure_.successors("block1"))
    ['block7']
    """

    def __init__(self, contact_matrix=None, alpha=1.0, root=None, handle_unknown="error"):
        super().__init__(alpha=alpha, root=root, handle_unknown=handle_unknown)
        self.contact_matrix = contact_matrix

    def _edge_weights(self, counts, features):
        if self.contact_matrix is None:
            raise ValueError("SimplerTAN needs a contact_matrix (n_features x n_features).")
        matrix = self.contact_matrix
        if callable(matrix):
            matrix = matrix(list(features))
        return check_weight_matrix(matrix, features, name="contact_matrix")
