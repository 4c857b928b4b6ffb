"""The fitted network: compiled log-probability tables, exact inference, pgmpy export.

:class:`CompiledNetwork` is the fast path. The class is a parent of every
feature; each feature may have further feature parents. ``log P(c, x)`` of a
complete row is a sum of table look-ups gathered with integer codes (no loop
over rows). A row with missing cells is marginalised exactly: with at most one
feature parent per feature (naive Bayes, TAN, forests) by upward message
passing through the tree, vectorised over rows; with more parents (e.g. KDB)
by enumerating the missing cells' values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from ._encoding import MISSING


@dataclass
class CompiledNetwork:
    """Log-probability tables of a Bayesian network classifier over integer codes.

    Attributes
    ----------
    log_prior : ndarray of shape (n_classes,)
        log P(c).
    parents : list of tuple of int
        Feature parents of each feature (column indices), the class excluded.
    log_cpts : list of ndarray
        ``log_cpts[i]`` has shape ``(n_classes, *cards[parents[i]], cards[i])``:
        log P(x_i | c, x_parents).
    """

    log_prior: np.ndarray
    parents: list
    log_cpts: list

    @property
    def n_classes(self) -> int:
        return len(self.log_prior)

    @property
    def cards(self) -> list:
        return [t.shape[-1] for t in self.log_cpts]

    @property
    def n_features(self) -> int:
        return len(self.log_cpts)

    @property
    def is_forest(self) -> bool:
        """True when every feature has at most one feature parent."""
        return all(len(p) <= 1 for p in self.parents)

    def joint_log_likelihood(self, codes: np.ndarray) -> np.ndarray:
        """log P(c, x_observed) for every row and class, shape ``(n_rows, n_classes)``."""
        codes = np.asarray(codes)
        out = np.empty((len(codes), self.n_classes))
        incomplete = (codes == MISSING).any(axis=1)
        complete = ~incomplete
        if complete.any():
            out[complete] = self._complete_rows(codes[complete])
        if incomplete.any():
            rows = codes[incomplete]
            out[incomplete] = (
                self._tree_marginal(rows) if self.is_forest else self._enumerated_marginal(rows)
            )
        return out

    def feature_terms(self, codes: np.ndarray, feature: int) -> np.ndarray:
        """log P(x_i | c, x_parents) for complete rows, shape ``(n_rows, n_classes)``."""
        table = self.log_cpts[feature]
        family = [*self.parents[feature], feature]
        flat = np.ravel_multi_index(tuple(codes[:, v] for v in family), table.shape[1:])
        # np.take on a small contiguous (cells, C) table: ~10x faster than fancy indexing
        return np.take(np.ascontiguousarray(table.reshape(self.n_classes, -1).T), flat, axis=0)

    def _complete_rows(self, codes):
        out = np.broadcast_to(self.log_prior, (len(codes), self.n_classes)).copy()
        for i in range(self.n_features):
            out += self.feature_terms(codes, i)
        return out

    def _tree_marginal(self, codes):
        """Sum the missing cells out, leaves first; messages rescaled per (row, class)."""
        n_rows = len(codes)
        children = [[] for _ in range(self.n_features)]
        roots = []
        for i, parents in enumerate(self.parents):
            (children[parents[0]] if parents else roots).append(i)
        out = np.broadcast_to(self.log_prior, (n_rows, self.n_classes)).copy()
        incoming = [np.ones((n_rows, self.n_classes, r)) for r in self.cards]
        for v in _post_order(children, roots):
            belief = incoming[v] * _evidence(codes[:, v], self.cards[v])[:, None, :]
            scale = belief.max(axis=2)
            with np.errstate(divide="ignore"):
                out += np.log(scale)
            belief /= np.where(scale > 0, scale, 1.0)[:, :, None]
            cpt = np.exp(self.log_cpts[v])
            if self.parents[v]:
                incoming[self.parents[v][0]] *= np.einsum("cpv,ncv->ncp", cpt, belief)
            else:
                with np.errstate(divide="ignore"):
                    out += np.log(np.einsum("cv,ncv->nc", cpt, belief))
        return out

    def _enumerated_marginal(self, codes):
        """Exact marginal for general DAGs: log-sum-exp over the missing cells' values."""
        out = np.empty((len(codes), self.n_classes))
        patterns, inverse = np.unique(codes == MISSING, axis=0, return_inverse=True)
        for k, pattern in enumerate(patterns):
            rows = np.flatnonzero(inverse.ravel() == k)
            missing = np.flatnonzero(pattern)
            grid = np.indices([self.cards[v] for v in missing]).reshape(len(missing), -1).T
            filled = np.repeat(codes[rows], len(grid), axis=0)
            filled[:, missing] = np.tile(grid, (len(rows), 1))
            joint = self._complete_rows(filled).reshape(len(rows), len(grid), self.n_classes)
            out[rows] = logsumexp(joint, axis=1)
        return out


def _evidence(column, card):
    """One-hot rows for observed cells, all-ones rows for missing ones."""
    indicator = np.zeros((len(column), card))
    observed = column != MISSING
    indicator[observed, column[observed]] = 1.0
    indicator[~observed] = 1.0
    return indicator


def _post_order(children, roots):
    order, stack = [], list(roots)
    while stack:
        v = stack.pop()
        order.append(v)
        stack.extend(children[v])
    return order[::-1]


def to_pgmpy(compiled: CompiledNetwork, structure, class_node, features, categories, classes):
    """A pgmpy ``DiscreteBayesianNetwork`` with the same CPTs, states named by category values.

    The class CPD has no parents; feature ``i``'s CPD has evidence
    ``[class_node, *parents]`` in that order.
    """
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    network = DiscreteBayesianNetwork()
    network.add_nodes_from(structure.nodes)
    network.add_edges_from(structure.edges)
    state_names = {class_node: _python_values(classes)}
    state_names.update({f: _python_values(c) for f, c in zip(features, categories, strict=True)})
    cpds = [
        TabularCPD(
            class_node,
            compiled.n_classes,
            np.exp(compiled.log_prior).reshape(-1, 1),
            state_names={class_node: state_names[class_node]},
        )
    ]
    for i, feature in enumerate(features):
        table = np.exp(compiled.log_cpts[i])
        evidence = [class_node, *(features[p] for p in compiled.parents[i])]
        cpds.append(
            TabularCPD(
                feature,
                table.shape[-1],
                table.reshape(-1, table.shape[-1]).T,
                evidence=evidence,
                evidence_card=list(table.shape[:-1]),
                state_names={v: state_names[v] for v in [feature, *evidence]},
            )
        )
    network.add_cpds(*cpds)
    return network


def _python_values(values):
    return [v.item() if isinstance(v, np.generic) else v for v in values]
