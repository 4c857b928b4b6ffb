"""Exact Bayesian model averaging over every TAN tree (Meila and Jaakkola 2006;
Cerquides and Lopez de Mantaras 2005).

The class is a parent of every feature and the features form a spanning
tree. With a BDeu parameter prior and an edge-factored structure prior, the
marginal likelihood of a tree is a product of per-edge factors, so sums over
all ``m^(m-2)`` trees are determinants of weighted Laplacians (the
matrix-tree theorem): the evidence, the posterior probability of every edge
and the posterior predictive of every (row, class) each cost one determinant
or one inverse of an ``(m-1) x (m-1)`` matrix.
"""

from __future__ import annotations

import warnings
from numbers import Real

import networkx as nx
import numpy as np
import pandas as pd
from scipy.special import gammaln, logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ..data import HANDLE_UNKNOWN, MISSING
from ..elimination import equal_rows
from ..factors import TABLE_DISTRIBUTIONS, Categorical, Unobserved
from ..network import FittedNetwork
from ..spanning_trees import (
    edge_marginals,
    eliminate_nodes,
    log_tree_sum,
    log_tree_sums_by_states,
)
from ..state import cut_points as check_cut_points
from ..state import float_array, probability_rows, require
from ..stats import MAX_PAIRWISE_CELLS, TrainingCounts
from ..structure import add_class_arcs, check_weight_matrix, orient_tree, tree_from_weights
from ..validation import Interval, Options, validate_parameters
from ._base import SchemaAttributes
from ._bins import apply_cuts, continuous_columns, learn_cuts
from ._predict import JointPredictor
from ._skdb import binned_statistics, cuts_by_column
from ._tan import CONTACT_MATRIX

__all__ = [
    "BMATAN",
    "CONTACT_PRIOR_GRID",
    "ESS_GRID",
    "MAX_CONTACT_PRIOR",
    "MAX_EXACT_WORK",
    "SLOW_PREDICT_WORK",
    "log_tree_sum",
    "edge_marginals",
]

#: The contact-prior strengths ``contact_prior="auto"`` chooses from (nats per full contact).
CONTACT_PRIOR_GRID = (0.0, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0)

#: The largest ``equivalent_sample_size`` accepted: the BDeu score's log-gamma differences
#: lose a digit per decade of it and are NaN at 1e308.
MAX_EQUIVALENT_SAMPLE_SIZE = 1e9

#: The largest ``contact_prior`` accepted (nats per full contact): far past the point where
#: the contacts alone decide every tree, and the log edge weights, whose data terms it
#: would round away, stay within what the spanning-tree sums take.
MAX_CONTACT_PRIOR = 1e9

#: The BDeu equivalent sample sizes ``equivalent_sample_size="auto"`` chooses from.
ESS_GRID = (1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)

#: Cells of the (rows, classes, kept columns) states passed to the tree sums at once: bounds
#: their copies (about 2,500 of arrhythmia's rows; the ratio table is exponentiated once per
#: block, 2% of a block's determinants there).
_BLOCK_CELLS = 1 << 22

#: Most work (the joint states of a row's missing cells times the features cubed: one
#: determinant per state, row and class) prediction spends to sum a row's missing cells out
#: exactly; a row needing more has its missing features summed out as leaves of every tree
#: (see :class:`BMATAN`, Notes), with a warning. With 16 features, up to 64 joint states.
MAX_EXACT_WORK = 1 << 18

#: Multiply-adds of a prediction's determinants (about ``m^3 / 3`` each, one per row and class
#: and per joint state of an exactly summed-out row's missing cells) past which ``predict``
#: warns up front with the cost: about a minute on one core (the compiled kernel measured
#: 3.9-5.2e9 per second on one AVX2 core, arrhythmia's 130 x 130 matrices), about half a
#: minute where only one triangle of the symmetric matrices is eliminated (``m^3 / 6``).
SLOW_PREDICT_WORK = 2.4e11


def _contact_prior_needs_matrix(params):
    prior = params["contact_prior"]
    if prior != 0 and params["contact_matrix"] is None:
        return f"contact_prior={prior!r} needs a contact_matrix (n_features x n_features)."
    return None


class BMATAN(SchemaAttributes, JointPredictor, ClassifierMixin, BaseEstimator):
    """Bayesian model averaging over all TAN trees, exact, by the matrix-tree theorem.

    Every spanning tree of the features (the class a parent of every feature)
    is a model; predictions average all ``m^(m-2)`` of them, each weighted by
    its posterior probability, in ``O(m^3)`` per row and class instead of
    enumerating them (Meila and Jaakkola 2006; Cerquides and Lopez de
    Mantaras 2005).

    **Parameter prior.** BDeu with equivalent sample size ``s``: the class
    prior is Dirichlet(``s / C``), a feature ``i`` with only the class as
    parent gets Dirichlet(``s / (C r_i)``) per class, and with feature parent
    ``j`` Dirichlet(``s / (C r_j r_i)``) per (class, parent value). Then the
    marginal likelihood of a tree factorises,
    ``P(D | T) = P(D_C) prod_i f_i prod_{(i, j) in T} w_ij``, with ``f_i`` the
    marginal likelihood of feature ``i`` given the class and
    ``w_ij = ML(i | C, j) / ML(i | C)``, which BDeu's likelihood equivalence
    makes symmetric.

    **Structure prior.** Edge-factored: ``log P(T) = lambda sum_{(u, v) in T}
    M_uv / max M + const``, ``M`` the contact matrix and ``lambda`` =
    ``contact_prior`` (0: uniform over trees).

    Parameters
    ----------
    equivalent_sample_size : float or "auto", default="auto"
        ``s`` of BDeu, in (0, 1e9]: the prior's weight in imaginary rows. ``"auto"``
        (the default) picks the value of :data:`ESS_GRID` (1, 2, 5, 10, 20,
        50, 100) with the largest training evidence (jointly with
        ``contact_prior="auto"``), an empirical-Bayes choice that never sees
        held-out rows: on P450 and lactamase it is 20, whose log evidence
        beats that of ``s = 1`` by 153 and 136 nats. A number fixes ``s``: 1 is the
        customary choice (Heckerman, Geiger and Chickering 1995); larger
        values smooth more and spread the tree posterior.
    contact_matrix : DataFrame, array of shape (n_features, n_features) or callable, optional
        Symmetric, non-negative; a DataFrame is matched to the columns by its
        labels, a callable gets the feature names at fit time. Needed when
        ``contact_prior`` is not 0.
    contact_prior : float or "auto", default=0.0
        ``lambda`` above, in nats per edge of maximal contact. ``"auto"``
        picks the value of :data:`CONTACT_PRIOR_GRID` (0, 0.5, 1, 2, 5, 10,
        20, 50) with the largest ``log_evidence_`` (first on ties): an
        empirical-Bayes choice made on the training data only.
        At most ``MAX_CONTACT_PRIOR`` (1e9).
    handle_unknown : {"warn", "error", "marginalize"}, default="warn"
        A category unseen in fit is treated as missing (summed out), with one
        warning per call naming the columns (``"warn"``, as every other
        estimator), silently (``"marginalize"``), or raises (``"error"``).
    distributions : None, "categorical", "binned" or dict, default=None
        Which columns are cut into MDL bins and which are categories, as in
        :class:`SKDB`: ``None``, the kinds rule (continuous columns binned);
        ``"categorical"`` or ``"binned"`` for every column, or a dict mapping
        columns to those. The tree average is over categorical families, so
        ``"density"`` and the density kinds are refused
        (:data:`~bnclassify.factors.TABLE_DISTRIBUTIONS`).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    categories_ : list of ndarray
        A binned column's categories are its bin numbers 0, 1, ...
    cut_points_ : list of (ndarray or None)
        The MDL cut points of each column read as continuous (``None`` for
        the others); bin ``b`` holds the values in ``(cuts[b-1], cuts[b]]``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X was a DataFrame with string column names.
    class_node_ : str
    contact_prior_ : float
        The ``lambda`` used (the chosen one for ``"auto"``).
    equivalent_sample_size_ : float
        The ``s`` used (the chosen one for ``"auto"``).
    log_evidence_by_ess_ : Series
        The log evidence of each ``s`` tried (at its best ``lambda`` for
        ``contact_prior="auto"``).
    log_evidence_ : float
        ``log P(D)``, natural log, summed over all trees under the normalised
        prior. Exact with complete training data; with missing cells every
        count uses the rows observing its variables (an approximation).
    log_evidence_grid_ : Series
        ``log_evidence_`` for each ``lambda`` of the grid (``"auto"``) or for
        0 and ``lambda``, at ``equivalent_sample_size_``.
    log_bayes_factor_ : float
        ``log_evidence_`` minus that of the uniform prior (``lambda = 0``).
    edge_posterior_ : DataFrame of shape (n_features, n_features)
        Exact posterior probability that each edge is in the tree.
    log_edge_weights_ : DataFrame of shape (n_features, n_features)
        ``log(beta_ij w_ij)``: prior plus data log-weight of each edge, nats.
    structure_ : networkx.DiGraph
        The maximum a posteriori tree (maximum spanning tree of
        ``log_edge_weights_``), rooted at the first feature, plus the class arcs.
    network_ : pgmpy.models.DiscreteBayesianNetwork
        The MAP tree with its BDeu posterior-mean CPTs.

    Notes
    -----
    Prediction: ``P(c, x | D) = sum_T P(T | D) P(c, x | T, D)``. The
    posterior-mean parameters make ``P(c, x | T, D) = theta_c prod_i
    theta_i(x_i | c) prod_{(i, j) in T} u_ij`` with ``u_ij = theta(x_i, x_j |
    c) / (theta(x_i | c) theta(x_j | c))``, so the average is
    ``theta_c prod_i theta_i(x_i | c) det L(beta w u) / det L(beta w)``: one
    determinant per (row, class): about ``m^3 / 3`` multiply-adds each, so
    ``n C m^3 / 3`` for ``n`` rows. A column of one category (a binned column
    without a cut) has every ratio ``u = 1``, so its edges are the same in
    every row's Laplacian: such columns are eliminated once per model (a Schur
    complement, ``bnclassify.spanning_trees.eliminate_nodes``, exact) and
    ``m`` above counts only the others (arrhythmia, binned: 130 of 279
    columns, 13 classes). Each row's and class's matrix is built and eliminated
    in turn by a compiled kernel
    (``bnclassify.spanning_trees.log_tree_sums_by_states``; no
    ``(n, C, m, m)`` stack), which eliminates only one triangle of the
    symmetric matrix: arrhythmia's 2,938 determinants of 130 x 130 per fold
    (every float column binned), about 1.1e9 multiply-adds, take 0.21-0.28 s
    of one core. On thousands of rows the edge weights ``log w`` spread by
    thousands of nats (letter, 10,000 rows: 9,000), past the float range of
    one scale per column; each matrix entry is then scaled by the widest-path
    bottleneck of its two nodes (the smallest weight on their path in the
    maximum spanning tree), which keeps every entry and pivot near 1 at any
    spread: letter's 260,000 determinants of 16 x 16 take about 0.3 s of one
    core (its whole prediction 0.4 s; 19 s when they went to the log-space
    elimination). Past
    ``SLOW_PREDICT_WORK`` multiply-adds (about a minute) ``predict`` says so up
    front with a :class:`UserWarning` that states the cost.

    **Continuous columns.** The tree average is over categorical families, so
    a column the kinds rule reads as continuous (:func:`bnclassify.data.default_kind`:
    a float column, or an integer one of more than 20 values; the same rule
    that gives the other estimators a Gaussian node) is cut into bins by
    Fayyad and Irani's MDL criterion (:func:`bnclassify.preprocessing.mdl_cut_points`)
    on the training rows, as ``make_pipeline(MDLDiscretizer(), BMATAN())``
    would; a column with no accepted cut becomes one bin (it carries no
    information). Before, each distinct float was a category of its own
    (iris: 1.0 on the training rows, 0.707 in 10-fold CV).

    **Missing cells** (and categories unseen in fit). Within one tree a
    missing feature is summed out exactly, but the sum does not factor over
    edges, so the average over trees has no determinant formula: at an inner
    node its neighbours' ratios do not sum out. A row is summed out exactly
    when its missing cells' joint states times ``m^3`` (one ``m x m``
    determinant per joint state, row and class) are at most
    ``MAX_EXACT_WORK`` (``2^18``: 64 joint states with 16 features, so a
    vote row missing up to six votes, 1,213 with 6 features). A row needing
    more (a column of many categories unseen in fit, many missing cells) would
    cost a number of determinants that grows without bound; its missing features are
    instead summed out *as leaves*: their ratios ``u`` are set to 1, which is
    the exact sum in every tree where each missing feature is a leaf and
    drops, in the other trees, the dependence an inner missing feature
    carries between its neighbours. One determinant per row and class, and a
    :class:`UserWarning` naming the rows, the columns and the exact cost.

    Examples
    --------
    >>> from bnclassify import BMATAN
    >>> from bnclassify.datasets import load_p450
    >>> p450 = load_p450()
    >>> model = BMATAN(contact_matrix=p450.contact_matrix, contact_prior="auto")
    >>> model = model.fit(p450.data, p450.target)
    >>> model.equivalent_sample_size_, model.contact_prior_  # chosen by the evidence
    (20.0, 2.0)
    >>> model.predict_proba(p450.data.iloc[:2]).round(3)
    array([[0.227, 0.773],
           [0.07 , 0.93 ]])
    >>> bool(model.log_bayes_factor_ >= 0)
    True
    >>> round(float(model.edge_posterior_.to_numpy().sum() / 2), 9)  # m - 1 edges per tree
    7.0
    """

    _parameter_constraints = {
        # beyond 1e9 the BDeu terms log Gamma(a + n) - log Gamma(a) keep no digit (1e308: NaN)
        "equivalent_sample_size": [
            Interval(Real, 0, MAX_EQUIVALENT_SAMPLE_SIZE, closed="right"),
            Options({"auto"}),
        ],
        "contact_matrix": [None, *CONTACT_MATRIX],
        "contact_prior": [
            Interval(Real, 0, MAX_CONTACT_PRIOR, closed="both"),
            Options({"auto"}),
        ],
        "handle_unknown": [Options(HANDLE_UNKNOWN)],
        "distributions": [TABLE_DISTRIBUTIONS],
    }
    _parameter_rules = (_contact_prior_needs_matrix,)

    def __init__(
        self,
        equivalent_sample_size="auto",
        contact_matrix=None,
        contact_prior=0.0,
        handle_unknown="warn",
        distributions=None,
    ):
        self.equivalent_sample_size = equivalent_sample_size
        self.contact_matrix = contact_matrix
        self.contact_prior = contact_prior
        self.handle_unknown = handle_unknown
        self.distributions = distributions

    # -- fitting -----------------------------------------------------------------
    def fit(self, X, y):
        """Compute the edge weights, the evidence, the edge posterior and the MAP tree.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Every column is modelled as categorical (the tree average is over
            categorical families): a column the kinds rule reads as continuous
            (or ``distributions`` calls binned) is first cut into MDL bins
            (``cut_points_``; see the Notes);
            NaN/None cells are missing.
        y : array-like of shape (n_samples,)

        Returns
        -------
        self

        Raises
        ------
        ValueError
            The pair tables (classes times the squared number of categories of
            all columns)
            would exceed :data:`~bnclassify.stats.MAX_PAIRWISE_CELLS` cells.
        """
        validate_parameters(self)
        ess, prior = self.equivalent_sample_size, self.contact_prior
        ess = ess if isinstance(ess, str) else float(ess)  # "auto" or a number
        prior = prior if isinstance(prior, str) else float(prior)
        # every column is a category here: the tree average is over categorical families,
        # so the columns the kinds rule reads as continuous are cut into MDL bins first
        columns = continuous_columns(X, y, None, self.distributions)
        cuts = learn_cuts(X, y, columns)
        counts, schema, classes, _ = binned_statistics(X, y, columns, cuts)
        _check_pair_cells(schema, len(classes))
        self.classes_ = classes
        self._set_schema(schema, y)
        self._cut_points = cuts_by_column(schema.n_features, columns, cuts)
        # the trees are over the observed columns: one never observed is left out
        observed = self._observed_columns()
        if not observed:
            raise ValueError(
                "BMATAN: no column of X has an observed value, so there is no tree to average; "
                "every other model predicts the class prior from such a table."
            )
        features = self._features = [schema.names[j] for j in observed]
        if len(features) < schema.n_features:
            counts = counts.of_columns(observed)
        contacts = self._contact_terms(schema.names)[np.ix_(observed, observed)]
        grid = CONTACT_PRIOR_GRID if prior == "auto" else sorted({0.0, float(prior)})
        candidates = {}  # s -> (scores, evidence over the lambda grid)
        for s in ESS_GRID if ess == "auto" else (ess,):
            scores = _bdeu_scores(counts, s)
            evidence = pd.Series(
                _log_evidence(scores, np.multiply.outer(np.asarray(grid), contacts)),
                index=pd.Index(grid, name="contact_prior"),
                name="log_evidence",
            )
            candidates[s] = (scores, evidence)
        best = {
            s: ev.max() if prior == "auto" else ev[float(prior)]
            for s, (_, ev) in candidates.items()
        }
        ess = max(best, key=best.get)  # first of the grid on ties
        scores, evidence = candidates[ess]
        self.equivalent_sample_size_ = ess
        self.log_evidence_by_ess_ = pd.Series(best, name="log_evidence").rename_axis(
            "equivalent_sample_size"
        )
        self._params = _posterior_means(counts, ess)
        lam = float(evidence.idxmax()) if prior == "auto" else float(prior)
        self.contact_prior_ = lam
        self.log_evidence_grid_ = evidence
        self.log_evidence_ = float(evidence[lam])
        self.log_bayes_factor_ = float(evidence[lam] - evidence[0.0])
        log_weights = scores["log_w"] + lam * contacts
        self._log_weights = log_weights
        self._log_norm = float(log_tree_sum(log_weights))
        self.log_edge_weights_ = pd.DataFrame(log_weights, index=features, columns=features)
        self.edge_posterior_ = pd.DataFrame(
            edge_marginals(log_weights), index=features, columns=features
        )
        tree = tree_from_weights(log_weights, features)
        dag = orient_tree(tree, features[0], order=features) if features else nx.DiGraph()
        dag.add_nodes_from(schema.names)  # the columns never observed: the class's only
        self.structure_ = add_class_arcs(dag, self.class_node_)
        self._network = None
        self._reduction = self._reduced_trees()
        self._lumps = {}
        return self

    def _observed_columns(self) -> list:
        """Positions of the columns the trees are over: those observed in training."""
        return [j for j in range(self.schema_.n_features) if j not in self.schema_.unobserved]

    def _contact_terms(self, features):
        if self.contact_matrix is None:
            return np.zeros((len(features), len(features)))
        matrix = self.contact_matrix
        if callable(matrix):
            matrix = matrix(list(features))
        values = check_weight_matrix(matrix, features, name="contact_matrix").to_numpy().copy()
        np.fill_diagonal(values, 0.0)
        top = values.max()
        return values / top if top > 0 else values

    # -- the MAP tree as a network -----------------------------------------------
    @property
    def network_(self):
        """The MAP tree as a pgmpy ``DiscreteBayesianNetwork`` with BDeu posterior-mean CPTs."""
        check_is_fitted(self, "structure_")
        if self._network is None:
            self._network = self._map_network().to_pgmpy(
                self.structure_,
                self.class_node_,
                self.schema_.names,
                self.categories_,
                self.classes_,
            )
        return self._network

    def _map_network(self) -> FittedNetwork:
        params, names = self._params, self.schema_.names
        position = {f: k for k, f in enumerate(self._features)}  # among the observed columns
        column = {f: k for k, f in enumerate(names)}  # among all columns
        parents = [()] * len(names)
        factors = [Unobserved.of_column(j, names, len(self.classes_)) for j in range(len(names))]
        for i, feature in enumerate(self._features):
            pa = [p for p in self.structure_.predecessors(feature) if p != self.class_node_]
            if pa:
                j = position[pa[0]]
                joint = params["log_pair"][:, _block(params, j), _block(params, i)]
                table = joint - logsumexp(joint, axis=2, keepdims=True)
            else:
                table = params["log_single"][:, _block(params, i)]
            parents[column[feature]] = tuple(column[p] for p in pa)
            factors[column[feature]] = Categorical.from_log_table(
                table, column[feature], parents[column[feature]], names
            )
        return FittedNetwork(params["log_class"], parents, factors)

    # -- prediction --------------------------------------------------------------
    def encode(self, X) -> np.ndarray:
        """Category codes of X (-1 where missing or unseen), in the training column order."""
        check_is_fitted(self, "structure_")
        frame = self.schema_.align(X, owner=type(self).__name__)
        columns = [j for j, c in enumerate(self._cut_points or ()) if c is not None]
        if columns:
            frame = apply_cuts(frame, columns, [self._cut_points[j] for j in columns])
        return self.schema_.encode(frame, self.handle_unknown)[0].astype(np.intp)

    @property
    def cut_points_(self) -> list:
        """The MDL cut points of each column read as continuous (``None`` for the others)."""
        check_is_fitted(self, "structure_")
        cuts = self._cut_points
        return [None] * self.n_features_in_ if cuts is None else list(cuts)

    def _joint_log_likelihood(self, X) -> np.ndarray:
        """log P(c, x | D) up to a constant, averaged over all trees; shape (n_rows, n_classes)."""
        codes = self.encode(X)
        if self.schema_.unobserved:  # the trees are over the observed columns
            codes = codes[:, self._observed_columns()]
        # a column of one category is that category when missing: the same terms (log 1)
        codes[:, self._tree_reduction()[0]] = 0
        missing = codes == MISSING
        out = np.empty((len(codes), len(self.classes_)))
        incomplete = missing.any(axis=1)
        log_cards = np.log(np.diff(self._params["offsets"]).astype(float))  # observed columns'
        log_states = missing @ log_cards  # log of each row's joint missing states
        log_budget = np.log(MAX_EXACT_WORK) - 3 * np.log(codes.shape[1])
        exact = incomplete & (log_states <= log_budget + 1e-9)
        leaves = incomplete & ~exact
        # up front: one determinant per class for each row, and per joint state of an exact one
        n_determinants = (~exact).sum() + np.exp(log_states[exact]).sum()
        _warn_if_slow(len(self._tree_reduction()[1]), len(self.classes_), n_determinants)
        # the complete rows and those summed out as leaves: one pass (no cell a leaf in the first)
        if (~exact).any():
            out[~exact] = self._complete_joint(
                codes[~exact], leaves=missing[~exact] & leaves[~exact, None]
            )
        if exact.any():
            out[exact] = self._summed_out_joint(codes[exact])
        if leaves.any():
            widest = int(np.argmax(np.where(leaves, log_states, -np.inf)))
            columns = [self._features[j] for j in np.flatnonzero(missing[leaves].any(axis=0))]
            warnings.warn(
                f"BMATAN summed out the missing (or unseen) cells of {int(leaves.sum())} "
                f"row(s) as leaves of every tree (columns {columns[:10]}"
                f"{' ...' if len(columns) > 10 else ''}): exactly, row {widest} alone would "
                f"take {np.exp(log_states[widest]):.3g} determinants of {codes.shape[1]} x "
                f"{codes.shape[1]} per class, more than MAX_EXACT_WORK = {MAX_EXACT_WORK:,} "
                "over the features cubed. Exact in every tree where each missing feature "
                "is a leaf; see the BMATAN notes.",
                UserWarning,
                stacklevel=4,
            )
        return out

    def _complete_joint(self, codes, leaves=None, classes=None) -> np.ndarray:
        """log P(c, x | D) of rows with every cell observed, or with the cells ``leaves``
        summed out as leaves of every tree (their terms and ratios left out): ``(n, C)``
        for the rows ``codes`` ``(n, m)``, or only for the positions ``classes``."""
        params = self._params
        n, m = codes.shape
        picked = slice(None) if classes is None else np.asarray(classes)
        log_class, log_single = params["log_class"][picked], params["log_single"][picked]
        cells = codes + params["offsets"][:-1]
        if leaves is not None and not leaves.any():
            leaves = None
        if leaves is not None:
            cells = np.where(leaves, 0, cells)
        single = np.zeros((len(log_class), n))  # a column at a time: no (n, C, m) stack
        for j in range(m):
            terms = log_single[:, cells[:, j]]
            single += terms if leaves is None else np.where(leaves[:, j], 0.0, terms)
        out = log_class + single.T  # (n, C)
        if m == 1:
            return out
        _, kept, log_factor, fill = self._tree_reduction()
        states = cells[:, None, kept]  # the same for every class: (n, 1, m)
        if leaves is not None:  # a leaf's edges keep the prior's weights: state -1
            states = np.where(leaves[:, None, kept], -1, states)
        weights = self._log_weights[np.ix_(kept, kept)]
        log_ratio = params["log_ratio"][picked]
        step = max(1, _BLOCK_CELLS // (len(log_class) * len(kept)))  # bounds the copies
        for start in range(0, n, step):
            block = states[start : start + step]
            sums = log_tree_sums_by_states(weights, log_ratio, block, fill)
            out[start : start + step] += log_factor + sums - self._log_norm
        return out

    def _tree_reduction(self) -> tuple:
        """``(constant, kept, log_factor, fill)``: the columns of one category (their every
        ratio is 1: each row's tree weights on their edges are the prior's) summed out of
        every tree once (:func:`~bnclassify.spanning_trees.eliminate_nodes`), so a row's
        determinant is over the ``kept`` columns only, with weights ``logaddexp(w + log u,
        fill)``, times ``exp(log_factor)``. Exact; ``fill`` is None when no column is
        eliminated. Computed once per fitted model, at fit or load (arrhythmia: 149 of 279
        binned columns have no cut, so each determinant is about ten times cheaper)."""
        return self._reduced_trees() if self._reduction is None else self._reduction

    def _reduced_trees(self) -> tuple:
        """What :meth:`_tree_reduction` returns, computed."""
        params, m = self._params, len(self._features)
        offsets = params["offsets"]
        single = np.flatnonzero(np.diff(offsets) == 1)
        if m > 1:  # by construction their ratios are log 1 = 0; check, never assume
            ratio = params["log_ratio"]
            single = [
                j
                for j in single
                if not (ratio[:, offsets[j]].any() or ratio[:, :, offsets[j]].any())
            ]
        constant = np.asarray(single, dtype=np.intp)
        gone = constant[1:] if len(constant) == m else constant  # one column is left as root
        kept = np.setdiff1d(np.arange(m), gone)
        if len(gone) == 0:
            return constant, kept, 0.0, None
        log_factor, fill = eliminate_nodes(self._log_weights, gone)
        return constant, kept, log_factor, fill

    def _summed_out_joint(self, codes) -> np.ndarray:
        """Exact: log-sum-exp over every completion of each row's missing cells, a class at
        a time (all rows' completions for that class scored in one batch). For each class,
        the states of a missing column whose terms are equal (``log_single`` and every
        ``log_ratio``: e.g. the values of an identifier never seen with that class) give
        equal completions: one of them is scored, weighted by their number (zoo's animal
        names: ~8 of 50 per class)."""
        patterns, inverse = np.unique(codes == MISSING, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        groups = [(np.flatnonzero(inverse == k), np.flatnonzero(p)) for k, p in enumerate(patterns)]
        out = np.empty((len(codes), len(self.classes_)))
        for c in range(len(self.classes_)):
            filled, owner, log_counts = [], [], []
            for rows, missing in groups:
                states, log_count = self._completions(missing, c)
                block = np.repeat(codes[rows], len(states), axis=0)
                block[:, missing] = np.tile(states, (len(rows), 1))
                filled.append(block)
                owner.append(np.repeat(rows, len(states)))
                log_counts.append(np.tile(log_count, len(rows)))
            owner = np.concatenate(owner)
            order = np.argsort(owner, kind="stable")
            joint = self._complete_joint(np.concatenate(filled)[order], classes=[c])[:, 0]
            joint = joint + np.concatenate(log_counts)[order]
            starts = np.flatnonzero(np.r_[True, owner[order][1:] != owner[order][:-1]])
            top = np.maximum.reduceat(joint, starts)
            safe = np.where(np.isfinite(top), top, 0.0)
            with np.errstate(divide="ignore"):
                spread = np.exp(joint - np.repeat(safe, np.diff(np.r_[starts, len(joint)])))
                out[:, c] = safe + np.log(np.add.reduceat(spread, starts))
        return out

    def _completions(self, missing, c) -> tuple:
        """``(states, log_count)``: one completion of the columns ``missing`` per class of
        equal terms for class ``c`` (a state's ``log_single`` and its every ``log_ratio``),
        and the log of how many completions each stands for."""
        if self._lumps is None:  # a model pickled before the cache: filled from here on
            self._lumps = {}
        representatives, log_sizes = [], []
        for v in missing:
            if (v, c) not in self._lumps:  # computed once per model
                params = self._params
                block = _block(params, v)
                terms = [params["log_single"][c, block, None]]
                if "log_ratio" in params:
                    terms.append(params["log_ratio"][c, block])
                first, sizes = equal_rows(np.concatenate(terms, axis=1))
                self._lumps[v, c] = first, np.log(sizes)
            first, log_size = self._lumps[v, c]
            representatives.append(first)
            log_sizes.append(log_size)
        grid = np.indices([len(r) for r in representatives]).reshape(len(missing), -1).T
        states = np.stack([r[grid[:, i]] for i, r in enumerate(representatives)], axis=1)
        log_count = sum(sizes[grid[:, i]] for i, sizes in enumerate(log_sizes))
        return states, np.asarray(log_count, dtype=float)

    # -- declared state (see SchemaAttributes._get_state) --------------------------------
    #: ``posterior_means``: the BDeu posterior-mean log parameters (``offsets``,
    #: ``log_class``, ``log_single`` and, with two features or more, ``log_pair`` and
    #: ``log_ratio``); ``log_weights`` / ``log_norm``: the tree prior's edge weights and
    #: log normaliser.
    _FITTED_FIELDS = {
        "_features": "features",
        "equivalent_sample_size_": "equivalent_sample_size_",
        "log_evidence_by_ess_": "log_evidence_by_ess_",
        "_params": "posterior_means",
        "contact_prior_": "contact_prior_",
        "log_evidence_grid_": "log_evidence_grid_",
        "log_evidence_": "log_evidence_",
        "log_bayes_factor_": "log_bayes_factor_",
        "_log_weights": "log_weights",
        "_log_norm": "log_norm",
        "log_edge_weights_": "log_edge_weights_",
        "edge_posterior_": "edge_posterior_",
        "structure_": "structure_",
        "_cut_points": "cut_points",
    }
    #: A model file written before the binning holds no cut points: no column is binned.
    _cut_points = None
    #: The single-category columns summed out of every tree (see ``_tree_reduction``): a
    #: cache computed from the declared state, not part of it.
    _reduction = None
    #: Each (column, class)'s states of equal terms (see ``_completions``): a cache (emptied
    #: at fit and load, filled in place by the predictions that sum missing cells out), not
    #: part of the declared state.
    _lumps = None

    def _check_state(self):
        own = vars(self)
        missing = [a for a in self._FITTED_FIELDS if a not in own and a != "_cut_points"]
        require(not missing, "BMATAN", f"a fitted BMATAN needs the fields {missing}.")
        cuts = self._cut_points
        if cuts is not None:
            check_cut_points(cuts, "cut_points", self.schema_.n_features)
        schema, n_classes = self.schema_, len(self.classes_)
        observed = self._observed_columns()
        names, cards = list(schema.names), schema.cards[observed]
        m, n_states = len(observed), int(np.sum(cards))
        require(
            self._features == [names[j] for j in observed],
            "features",
            "must be the schema's names of the observed columns.",
        )
        require(schema.discrete.all(), "schema_", "BMATAN models categorical features only.")
        params = self._params
        keys = {"offsets", "log_class", "log_single"} | (
            {"log_pair", "log_ratio"} if m > 1 else set()
        )
        require(
            isinstance(params, dict) and set(params) == keys,
            "posterior_means",
            f"needs {sorted(keys)}.",
        )
        offsets = params["offsets"]
        require(
            isinstance(offsets, np.ndarray)
            and np.array_equal(offsets, np.concatenate([[0], np.cumsum(cards)])),
            "posterior_means offsets",
            "do not match the categories.",
        )
        float_array(params["log_class"], "posterior_means log_class", (n_classes,))
        probability_rows(params["log_class"], "posterior_means log_class", log=True)
        float_array(params["log_single"], "posterior_means log_single", (n_classes, n_states))
        for key in ("log_pair", "log_ratio"):
            if key in params:
                float_array(params[key], f"posterior_means {key}", (n_classes, n_states, n_states))
        float_array(self._log_weights, "log_weights", (m, m), allow_minus_inf=True)
        require(
            isinstance(self._log_norm, float) and np.isfinite(self._log_norm),
            "log_norm",
            "must be a finite float.",
        )
        structure = self.structure_
        require(
            isinstance(structure, nx.DiGraph)
            and set(structure.nodes) == {self.class_node_, *names}
            and nx.is_directed_acyclic_graph(structure),
            "structure_",
            "must be an acyclic DiGraph over the class and the features.",
        )
        self._network = None
        self._reduction = self._reduced_trees()
        self._lumps = {}


def _warn_if_slow(m, n_classes, n_determinants_per_class):
    """A :class:`UserWarning` with the cost, before a prediction past ``SLOW_PREDICT_WORK``."""
    work = float(n_determinants_per_class) * n_classes * m**3 / 3
    if m > 1 and work > SLOW_PREDICT_WORK:
        warnings.warn(
            f"BMATAN's prediction takes {float(n_determinants_per_class) * n_classes:.3g} "
            f"determinants of {m} x {m} (one per row and class, and per joint state of a row's "
            f"summed-out missing cells): about {work:.2g} multiply-adds, a minute or more on "
            "one core (the exact average over all trees costs m^3 per row and class). Predict "
            "fewer rows at a time, or use TAN or AODE, whose cost grows with m, not m^3.",
            UserWarning,
            stacklevel=5,
        )


def _check_pair_cells(schema, n_classes):
    """The tree average holds its statistics as ``C x R x R`` pair tables: refuse up front
    (not a MemoryError deep in numpy) when they would not fit."""
    cards = np.asarray(schema.cards)
    cells = n_classes * int(cards.sum()) ** 2
    if cells > MAX_PAIRWISE_CELLS:
        widest = np.argsort(-cards, kind="stable")[:3]
        listed = ", ".join(f"{schema.names[j]!r} ({int(cards[j])})" for j in widest)
        raise ValueError(
            f"BMATAN holds its pair statistics as {n_classes} x {int(cards.sum())} x "
            f"{int(cards.sum())} tables ({cells:.3g} cells: the classes times the squared "
            f"number of categories of all columns), more than MAX_PAIRWISE_CELLS = "
            f"{MAX_PAIRWISE_CELLS:,}. The columns with the most categories: {listed}. Drop "
            "or group them (an identifier has one category per row)."
        )


# -- the scores ------------------------------------------------------------------------------
def _block(params, i):
    offsets = params["offsets"]
    return slice(offsets[i], offsets[i + 1])


def _dirichlet_log_ml(counts, prior, axis):
    """Sum over cells of ``lgamma(prior + N) - lgamma(prior)`` minus the total's term."""
    total_prior = np.sum(np.broadcast_to(prior, counts.shape), axis=axis)
    cells = gammaln(counts + prior) - gammaln(prior)
    return (
        cells.sum(axis=axis) + gammaln(total_prior) - gammaln(total_prior + counts.sum(axis=axis))
    )


def _bdeu_scores(counts: TrainingCounts, ess: float) -> dict:
    """log ML of the class, ``log f_i`` and the symmetric ``log w_ij`` (natural logs).

    ``log w_ij`` = log ML of the pair (i, j) given C minus the log ML of i and
    of j given C, all on the rows observing both (every row for complete
    data, where it equals ``log ML(i | C, j) - log ML(i | C)``). Vectorised
    over the whole ``(C, R, R)`` table of pair counts.
    """
    n_classes, cards = counts.n_classes, counts.cards
    m = len(cards)
    log_class = _dirichlet_log_ml(counts.classes, ess / n_classes, axis=0)
    log_f = np.array(
        [
            _dirichlet_log_ml(counts.family(i), ess / (n_classes * cards[i]), axis=1).sum()
            for i in range(m)
        ]
    )
    if m == 1:
        return {"log_class": log_class, "log_f": log_f, "log_w": np.zeros((1, 1))}
    table = counts.pairwise.table
    offsets = np.concatenate([[0], np.cumsum(cards)])
    r = np.repeat(cards, cards).astype(float)
    cell_prior = ess / (n_classes * np.outer(r, r))
    starts = offsets[:-1]
    pair_cells = (gammaln(table + cell_prior) - gammaln(cell_prior)).sum(axis=0)
    pair_cells = np.add.reduceat(np.add.reduceat(pair_cells, starts, axis=0), starts, axis=1)
    rows_of = np.add.reduceat(table, starts, axis=2)  # N(c, x_i) on rows observing j: (C, R, m)
    single_prior = (ess / (n_classes * r))[None, :, None]
    single = (gammaln(rows_of + single_prior) - gammaln(single_prior)).sum(axis=0)
    single = np.add.reduceat(single, starts, axis=0)  # (m, m): feature i, on rows observing j
    n_pair = np.add.reduceat(rows_of, starts, axis=1)  # (C, m, m)
    class_term = (gammaln(ess / n_classes) - gammaln(ess / n_classes + n_pair)).sum(axis=0)
    log_w = pair_cells - single - single.T - class_term
    log_w = (log_w + log_w.T) / 2.0  # exact symmetry: the two sums differ in the last bits
    np.fill_diagonal(log_w, 0.0)
    return {"log_class": log_class, "log_f": log_f, "log_w": log_w}


def _log_evidence(scores, log_prior_weights) -> np.ndarray:
    """log P(D) = log ML(C) + sum log f_i + log Z(beta w) - log Z(beta).

    Batched over a stack of prior log-weights (one per ``lambda``): the normaliser
    ``Z(beta)`` differs per ``lambda``, the data terms do not.
    """
    stack = np.stack([log_prior_weights + scores["log_w"], log_prior_weights])
    with_data, prior_only = log_tree_sum(stack)
    return scores["log_class"] + scores["log_f"].sum() + with_data - prior_only


def _posterior_means(counts: TrainingCounts, ess: float) -> dict:
    """Log posterior-mean (BDeu) parameters: class, single features, pair ratios ``log u``."""
    n_classes, cards = counts.n_classes, counts.cards
    offsets = np.concatenate([[0], np.cumsum(cards)])
    r = np.repeat(cards, cards).astype(float)
    class_counts = counts.classes
    log_class = np.log(class_counts + ess / n_classes) - np.log(class_counts.sum() + ess)
    tables = [counts.family(i) for i in range(len(cards))]
    single = np.concatenate(
        [
            np.log(t + ess / (n_classes * r_i))
            - np.log(t.sum(axis=1, keepdims=True) + ess / n_classes)
            for t, r_i in zip(tables, cards, strict=True)
        ],
        axis=1,
    )  # (C, R)
    params = {"offsets": offsets, "log_class": log_class, "log_single": single}
    if len(cards) == 1:
        return params
    table = counts.pairwise.table
    starts = offsets[:-1]
    cell_prior = ess / (n_classes * np.outer(r, r))
    rows_of = np.repeat(np.add.reduceat(table, starts, axis=2), cards, axis=2)  # N_ij(c, x_i)
    cols_of = np.repeat(np.add.reduceat(table, starts, axis=1), cards, axis=1)  # N_ij(c, x_j)
    n_pair = np.repeat(np.add.reduceat(rows_of, starts, axis=1), cards, axis=1)  # N_ij(c)
    log_total = np.log(n_pair + ess / n_classes)
    log_pair = np.log(table + cell_prior) - log_total
    log_ratio = (
        log_pair
        - (np.log(rows_of + ess / (n_classes * r[None, :, None])) - log_total)
        - (np.log(cols_of + ess / (n_classes * r[None, None, :])) - log_total)
    )
    owner = np.repeat(np.arange(len(cards)), cards)
    log_ratio[:, owner[:, None] == owner[None, :]] = 0.0
    # symmetric in the two cells, exactly (computed, (a, b) and (b, a) differed by rounding
    # in some fits, up to 2e-15): the per-row tree sums then eliminate one triangle
    # (spanning_trees.log_tree_sums_by_states)
    upper = np.triu(np.ones(log_ratio.shape[1:], dtype=bool), 1)
    log_ratio = np.where(upper, log_ratio, np.swapaxes(log_ratio, 1, 2))
    params["log_pair"] = log_pair
    params["log_ratio"] = log_ratio
    return params
