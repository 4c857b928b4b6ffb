"""A slow reference for the wrapper search: every candidate refitted from rows, fold by fold.

Each candidate structure is fitted as a fixed-structure classifier on the training
rows of every inner fold and scored on the fold's rows: the naive way the fast
search (full minus fold counts, cached family terms, per-family deltas) replaces.
"""

import networkx as nx
import numpy as np
from sklearn.utils import check_random_state

from bnclassify import AugmentedNaiveBayes
from bnclassify.classifiers._search import FoldScorer, greedy_search, stratified_folds


class FixedStructure(AugmentedNaiveBayes):
    """A classifier whose feature DAG is given (``arcs`` between column names)."""

    def __init__(self, arcs=(), alpha=1.0):
        super().__init__(alpha=alpha, handle_unknown="marginalize")
        self.arcs = arcs

    def _feature_dag(self, weights, features, counts):
        dag = nx.DiGraph()
        dag.add_nodes_from(features)
        dag.add_edges_from(self.arcs)
        return dag


class RefitScorer:
    """The interface of ``FoldScorer`` (``prior``, ``evaluate``, ``cells``), refitting rows."""

    def __init__(self, X, y, folds, alpha, fast):
        self.X, self.y, self.folds, self.alpha = X, np.asarray(y), folds, alpha
        self.fast = fast  # only for cells() and a dummy base total
        self.n_fits = 0

    def prior(self):
        return self.fast.prior()

    def cells(self, child, parents):
        return self.fast.cells(child, parents)

    def evaluate(self, candidate):
        structure = candidate.structure
        columns = list(self.X.columns)
        kept = [columns[j] for j in sorted(structure)]
        arcs = [(columns[p], columns[c]) for c, ps in structure.items() for p in ps]
        accuracies = []
        for f in range(int(self.folds.max()) + 1):
            train, test = self.folds != f, self.folds == f
            y_train = self.y[train]
            if not kept:  # the class alone: the training folds' majority class
                labels, n = np.unique(y_train, return_counts=True)
                predicted = np.full(test.sum(), labels[np.argmax(n)])
            else:
                model = FixedStructure(arcs, self.alpha)
                model.fit(self.X.loc[train, kept], y_train)
                self.n_fits += 1
                predicted = model.predict(self.X.loc[test, kept])
            accuracies.append(np.mean(predicted == self.y[test]))
        return float(np.mean(accuracies)), candidate.base


def naive_search(model, X, y, epsilon=None):
    """``model``'s search (a wrapper) with every candidate refitted from rows on every fold.

    ``X`` all categorical; ``epsilon`` defaults to the model's. Returns the search result.
    """
    labels, y_codes = np.unique(np.asarray(y), return_inverse=True)
    folds = stratified_folds(y_codes, model.cv, check_random_state(model.random_state))
    codes = np.column_stack([X[c].cat.codes.to_numpy() for c in X.columns])
    cards = np.array([len(X[c].cat.categories) for c in X.columns])
    fast = FoldScorer(codes, y_codes, cards, len(labels), folds, model.alpha)
    slow = RefitScorer(X.reset_index(drop=True), np.asarray(y), folds, model.alpha, fast)
    m = X.shape[1]
    return greedy_search(
        slow,
        model.initial_structure(m),
        model.candidate_moves(m, np.ones(m, bool)),
        model.epsilon if epsilon is None else epsilon,
        list(X.columns),
    )
