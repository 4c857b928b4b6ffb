"""k-dependence Bayesian classifier: each feature takes up to k feature parents."""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..discriminative import L2
from ..exceptions import InvalidParameterError
from ..factors import DISTRIBUTIONS
from ..stats import MAX_FAMILY_CELLS, StatisticsPlan
from ..structure import kdb_feature_dag
from ..validation import ArrayLike, Interval, Options
from ..weights import class_information, edge_weights
from ._base import AugmentedNaiveBayes


class KDB(AugmentedNaiveBayes):
    """k-dependence Bayesian classifier (Sahami 1996).

    Features are ranked by their mutual information with the class,
    I(X_i; C) (ties by column order); each feature, in that order, takes as
    parents the class and the ``k`` earlier features with the highest
    I(X_i; X_j | C) (fewer when fewer precede it). ``k=0`` is naive Bayes and
    ``k=1`` a tree rooted at the most informative feature; unlike
    :class:`TAN`'s, that tree need not be the maximum spanning tree, because
    each feature may only choose among the features ranked above it. Sahami's
    optional threshold on I(X_i; X_j | C) is not applied (as in R bnclassify
    and Weka).

    Columns are modelled by kind as in :class:`NaiveBayes` (float columns
    binned by default, tables like the categorical ones; Gaussian or log-normal
    nodes with ``distributions="density"``). The weights are those of
    :class:`TAN` for any pair of kinds, and the kind rule holds: a categorical
    feature takes only categorical parents, a Gaussian one at most one Gaussian
    parent (its other parents categorical), so that its missing values can always be integrated out;
    kernel density, Bernoulli and multinomial features depend on the class
    only. Rows with missing cells are marginalised exactly (by enumerating the
    missing categorical cells' values when a feature has two or more feature
    parents).

    Parameters
    ----------
    k : int, default=1
        Maximum number of feature parents per feature.
    alpha : float, default=1.0
        Dirichlet pseudo-count for every CPT cell and the class prior.
    order : list of str or int, optional
        The feature order, all features by name or position, instead of the
        ranking by I(X_i; C). ``k=1`` with the columns' own order,
        ``order=list(X.columns)``, attaches features in column order, each
        under the earlier feature it shares most information with: the tree
        the Simpler TAN study's TAN code built by accident (see
        ``bnclassify.study.StudyTAN``).
    handle_unknown : {"warn", "error", "marginalize"}, default="warn"
    distributions : None, str, Distribution or dict, default=None
        How each column is modelled, as in :class:`NaiveBayes` (default:
        continuous columns binned, the others categorical; ``"density"``:
        continuous columns Gaussian or log-normal); continuous features follow
        the kind rule above.
    objective : {"joint", "conditional"}, default="joint"
        As in :class:`NaiveBayes`; with ``k >= 2`` each CPT row is refined as the
        softmax of its weights, a non-concave problem started from the joint fit
        (see :mod:`bnclassify.discriminative`).
    l2 : float >= 0 or "cv", default="cv"
        As in :class:`NaiveBayes`.
    smoothing : {"laplace", "hdp", "hls"} or Smoothing, default="laplace"
        How each categorical table is estimated from its counts (see
        :mod:`bnclassify.parameters` and the user guide's smoothing page). ``"laplace"``:
        ``alpha`` added to every cell. ``"hdp"``: each table backs off to the tables of
        fewer parents by a hierarchical Dirichlet process
        (:class:`~bnclassify.parameters.HDP`, a Gibbs sampler seeded by ``random_state``),
        the hierarchy being the class, then the feature's parents in the order KDB adds
        them, by decreasing I(X_i; X_j | C) (``distributions_[name].parents_`` lists them so). An
        instance sets a method's options (``smoothing=HDP(n_iter=1000)``). The class prior
        keeps ``alpha``.
        ``"hls"``: the same hierarchy written as a log-linear model, one coefficient per
        node, fitted by ridge-penalised multinomial logistic regression
        (:class:`~bnclassify.parameters.HLS`), its ridge chosen by cross-validation on
        the training rows.
    random_state : int, RandomState instance or None, default=None
        Seeds a smoothing that samples (``"hdp"``); unused otherwise.

    Attributes
    ----------
    weights_ : DataFrame of shape (n_features, n_features) or None
        I(X_i; X_j | C) in nats (None when ``k=0``).
    order_ : list of str
        The order the features were added in.
    structure_, compiled_, network_, classes_, categories_, fit_times_
        As in :class:`NaiveBayes`.

    Examples
    --------
    >>> from bnclassify import KDB
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = KDB(k=2).fit(X, y)
    >>> model.order_[:3]
    ['safety', 'persons', 'buying']
    >>> list(model.structure_.predecessors("buying"))
    ['class', 'persons', 'safety']
    >>> model.distributions_["buying"].parents_  # as added: strongest I(X_i; X_j | C) first
    ('safety', 'persons')
    """

    _parameter_constraints = {
        **AugmentedNaiveBayes._parameter_constraints,
        "k": [Interval(numbers.Integral, 0, None, closed="left")],
        "order": [ArrayLike("a list of feature names or positions"), None],
        "distributions": [DISTRIBUTIONS],
        "objective": [Options({"joint", "conditional"})],
        "l2": L2,
    }

    def __init__(
        self,
        k=1,
        alpha=1.0,
        order=None,
        handle_unknown="warn",
        distributions=None,
        objective="joint",
        l2="cv",
        smoothing="laplace",
        random_state=None,
    ):
        super().__init__(
            alpha=alpha,
            handle_unknown=handle_unknown,
            smoothing=smoothing,
            random_state=random_state,
        )
        self.k = k
        self.order = order
        self.distributions = distributions
        self.objective = objective
        self.l2 = l2

    def statistics_plan(self, schema=None) -> StatisticsPlan:
        """What an out-of-core fit keeps: the pair table (the CMI of every pair); with
        ``k >= 2`` a dask fit counts the families once the structure is known
        (``family_pass`` of :class:`~bnclassify.stats.StatisticsPlan`), and
        ``partial_fit`` keeps the triple table for ``k = 2`` (and refuses ``k >= 3``)."""
        k = int(self.k)
        two = k >= 2
        return StatisticsPlan(
            pairwise=True,
            triples=k == 2,
            structural_moments=True,
            two_parent_moments=two,
            family_pass=two,
        )

    def _edge_weights(self, counts, features):
        k = int(self.k)
        self._resolve_order(features)  # fail before the counting work
        schema = self.schema_
        cards = schema.cards[schema.discrete & schema.structural]
        # the last categorical feature in any order takes min(k, others) of the others as
        # parents: its table has at least the smallest cards' product, refused here before
        # any CMI is computed
        smallest = sorted(int(r) for r in cards)[: min(k, len(cards) - 1) + 1]
        _check_cells(counts.n_classes * math.prod(smallest), k, "the last feature in the order")
        if k == 0:
            return None
        return edge_weights(counts, schema)

    def _feature_dag(self, weights, features, counts):
        order = self._resolve_order(features)
        cmi = np.zeros((len(features),) * 2) if weights is None else weights  # k=0: no arcs
        class_mi = class_information(counts, self.schema_) if order is None else None
        schema = self.schema_
        dag = kdb_feature_dag(
            cmi, class_mi, int(self.k), features, order, schema.discrete, schema.structural
        )
        cards = dict(zip(features, schema.cards.tolist(), strict=True))
        discrete = dict(zip(features, schema.discrete.tolist(), strict=True))
        for child in features:
            family = [p for p in dag.predecessors(child) if discrete[p]] + [child]
            cells = counts.n_classes * math.prod(cards[v] for v in family)
            _check_cells(cells, self.k, f"feature {child!r}")
        self.order_ = dag.graph["order"]
        return dag

    def _resolve_order(self, features):
        if self.order is None:
            return None
        order = list(self.order)
        resolved = []
        for item in order:
            if isinstance(item, str) and item in features:
                resolved.append(item)
            elif isinstance(item, numbers.Integral) and not isinstance(item, bool):
                if not -len(features) <= item < len(features):
                    raise InvalidParameterError(
                        f"order has position {item}, but there are only {len(features)} features."
                    )
                resolved.append(features[item])
            else:
                raise InvalidParameterError(
                    f"order has {item!r}, which is not a feature; features: {features}."
                )
        if sorted(resolved) != sorted(features):
            raise InvalidParameterError(
                f"order must list every feature exactly once; got {order} for {features}."
            )
        return resolved


def _check_cells(cells, k, where):
    """Refuse a family table of more than MAX_FAMILY_CELLS cells before it is counted."""
    if cells > MAX_FAMILY_CELLS:
        raise InvalidParameterError(
            f"k={k} gives {where} so many parents that its table N(c, x_parents, x) would "
            f"have about 10^{math.log10(cells):.1f} cells, more than MAX_FAMILY_CELLS = "
            f"{MAX_FAMILY_CELLS:,} (256 MB); use a smaller k."
        )
