"""Ensemble TAN: Simpler TANs and TANs rooted at every feature, and bootstrap bagging.

Every member is a real fitted estimator with its own ``structure_`` and
``network_``. Members fitted on the same rows share one
:class:`~bnclassify.stats.TrainingCounts`: the data are encoded and counted
once, and members that differ only in their root share one weight matrix and
one undirected tree, which each of them merely orients. Over categorical
features such members are not even kept: the ensemble keeps the tree and its
counts, predicts every rooting at once by belief propagation
(:func:`~bnclassify.network.rooted_forest_joints`) and fits a member only when
it is read (:class:`MemberSequence`).
"""

from __future__ import annotations

import dataclasses
import operator
import time
from collections.abc import Sequence
from numbers import Integral

import networkx as nx
import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..data import HANDLE_UNKNOWN
from ..exceptions import WarningsOnceFromCaller
from ..factors import DISTRIBUTIONS
from ..network import rooted_forest_joints
from ..parameters import SMOOTHING, Laplace, log_class_prior, log_conditional
from ..state import float_array, require
from ..stats import BLOCK_CELLS, ForestCounts, TrainingCounts, training_statistics
from ..structure import name_order, orient_constrained
from ..validation import (
    ALPHA,
    N_JOBS,
    RANDOM_STATE,
    Constraint,
    Interval,
    Options,
    validate_parameters,
)
from ._adapter import table_smoothing
from ._base import AugmentedNaiveBayes, SchemaAttributes
from ._predict import JointPredictor, normalise
from ._tan import CONTACT_MATRIX, TAN, SimplerTAN, TreeAugmented

#: Names accepted by ``EnsembleTAN(members=...)``.
MEMBER_KINDS = ("auto", "stan", "tan", "stan+tan", "all")
#: Largest ``n_estimators``; the reason is in the error message.
MAX_ESTIMATORS = 10_000
#: Largest number of fitted nodes (members x (features + 1)) a bootstrap ensemble keeps.
MAX_MEMBER_NODES = 1_000_000
#: Measured memory of one fitted categorical node of a TAN member (factor and graph).
NODE_BYTES = 1_300


class MemberEnsemble(SchemaAttributes, JointPredictor, ClassifierMixin, BaseEstimator):
    """Shared machinery: encode once, fit members on shared counts, predict from codes.

    Subclasses define ``fit`` (with :meth:`_training_statistics` and
    :meth:`_fit_members`) and ``predict_log_proba_encoded(encoded)`` of ``(codes, values)``.
    """

    #: Passed to the encoding: None models columns by dtype, "categorical" all as categories.
    _column_model = None

    def _training_statistics(self, X, y, sample_weight=None):
        """Validate, encode and count X and y once, for every member.

        Sets the encoding attributes (``schema_``, ``classes_``,
        ``n_features_in_``, ...) on the ensemble and returns the statistics;
        each member is then fitted from them with its ``fit_statistics``
        (:meth:`_fit_args`).
        """
        schema, self.classes_, stats = training_statistics(X, y, self._column_model, sample_weight)
        self._set_schema(schema, y)
        return stats

    def _fit_args(self, stats) -> tuple:
        """The arguments of every member's ``fit_statistics``: the ensemble's own encoding."""
        return (stats, self.schema_, self.classes_)

    def _fit_members(self, jobs):
        """Run ``(member, fit_function, args)`` jobs, in parallel with ``n_jobs``; sum times.

        The members' warnings come once each, pointing at the user's call
        (:class:`~bnclassify.exceptions.WarningsOnceFromCaller`), not once per member from
        a joblib frame.
        """
        n_jobs = getattr(self, "n_jobs", None)
        if n_jobs is not None and n_jobs > 0:
            n_jobs = min(n_jobs, max(len(jobs), 1))  # joblib starts every thread asked for
        with WarningsOnceFromCaller():
            fitted = Parallel(n_jobs=n_jobs, prefer="threads")(
                delayed(function)(member, *args) for member, function, args in jobs
            )
        times = {"weights": 0.0, "structure": 0.0, "parameters": 0.0}
        for member in fitted:
            for stage in times:
                times[stage] += member.fit_times_[stage]
        return list(fitted), times

    @property
    def feature_names_(self) -> list:
        """Names of the features (the DataFrame's columns, else ``x0 .. x{m-1}``)."""
        check_is_fitted(self, "estimators_")
        return list(self.schema_.names)

    def encode(self, X):
        """``(codes, values)`` of X, shared by every member (see
        :meth:`bnclassify.AugmentedNaiveBayes.encode`)."""
        check_is_fitted(self, "estimators_")
        frame = self.schema_.align(X, owner=type(self).__name__)
        return self.schema_.encode(frame, self.handle_unknown)

    def _joint_log_likelihood(self, X) -> np.ndarray:
        """log P(c | x) of the ensemble (normalised scores are joint scores up to a constant)."""
        return self.predict_log_proba_encoded(self.encode(X))

    @staticmethod
    def _member_joint(member, encoded) -> np.ndarray:
        """log P(c, x) of one member from the shared ``(codes, values)``."""
        return member.compiled_.joint_log_likelihood(*encoded)

    # -- declared state (see SchemaAttributes._get_state) --------------------------------
    def _check_members(self, members, field):
        """Every member a fitted classifier (checked as it was read) of the ensemble's
        classes and features; the encoding the members share is rebuilt, not stored."""
        require(isinstance(members, list), field, "must be a list of fitted classifiers.")
        for member in members:
            require(
                isinstance(member, AugmentedNaiveBayes) and "compiled_" in vars(member),
                field,
                "a member is not a fitted classifier.",
            )
            require(
                np.array_equal(member.classes_, self.classes_)
                and member.schema_.n_features == self.schema_.n_features,
                field,
                "a member's classes or features differ from the ensemble's.",
            )


class MemberSequence(Sequence):
    """An ensemble's members, each fitted from the ensemble's kept statistics when read.

    An ensemble over a wide table has a member per feature, each a network
    over every feature: ``m^2`` fitted nodes if all were kept (gigabytes at
    ``m = 2000``). Such ensembles keep what the members share and predict
    from it directly; ``estimators_[k]`` fits member ``k`` from it, as ``fit``
    would have. Members are not cached: reading one twice gives equal objects.
    """

    def __init__(self, build, n):
        self._build = build
        self._n = int(n)

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._build(k) for k in range(self._n)[index]]
        if isinstance(index, bool):
            raise TypeError("member positions are integers, not booleans.")
        k = operator.index(index)
        if not -self._n <= k < self._n:
            raise IndexError(f"member {k} of {self._n}")
        return self._build(k % self._n)

    def __repr__(self) -> str:
        return f"<{self._n} members, each fitted when read>"


def fit_member(member, stats, schema, classes, class_node, tree=None):
    """``member`` fitted from the ensemble's statistics (a shared ``tree``: only oriented)."""
    if tree is None:
        return member.fit_statistics(stats, schema, classes, class_node=class_node)
    return member.fit_statistics(stats, schema, classes, class_node=class_node, tree=tree)


def _fit_on_sample(member, stats, rows, schema, classes, class_node):
    return fit_member(member, _resample_counts(stats, rows), schema, classes, class_node)


def _resample_counts(counts: TrainingCounts, rows) -> TrainingCounts:
    """The same kind of counts over ``rows`` of the training table, with empty caches.

    Every per-row array field (codes, class codes, and e.g. the continuous
    values of hybrid counts) is indexed; per-feature fields are kept, caches
    start empty, so the full data's categories and classes carry over.
    """
    changes = {"codes": counts.codes[rows], "y": counts.y[rows]}
    if counts.values is not None:
        changes["values"] = counts.values[rows]
    for field in dataclasses.fields(counts):
        if field.init and isinstance(getattr(counts, field.name), dict):
            changes[field.name] = {}  # caches start empty
    return dataclasses.replace(counts, **changes)


def _bootstrap_rows(seed, n_rows):
    return np.random.RandomState(seed).randint(0, n_rows, n_rows)


class Members(Constraint):
    """``EnsembleTAN(members=...)``: a name, a member estimator, or a non-empty list of them.

    Each member estimator's own parameters are checked against its table.

    Examples
    --------
    >>> from bnclassify import KDB
    >>> Members().check([KDB(k=2), "tan"])
    "its entry 1 is 'tan', not an estimator"
    """

    description = (
        f"one of {MEMBER_KINDS}, a bnclassify Bayesian network classifier or a non-empty list "
        "of bnclassify Bayesian network classifiers (TAN, SimplerTAN, KDB, ...)"
    )

    def check(self, value):
        if isinstance(value, str):
            return None if value in MEMBER_KINDS else ""
        if isinstance(value, BaseEstimator):
            return self._member(value, "members")
        if isinstance(value, list | tuple) and value:
            for k, member in enumerate(value):
                if not isinstance(member, BaseEstimator):
                    return f"its entry {k} is {member!r}, not an estimator"
                reason = self._member(member, f"members[{k}]")
                if reason:
                    return reason
            return None
        return ""

    @staticmethod
    def _member(member, where):
        if not isinstance(member, AugmentedNaiveBayes):
            return f"{where} is a {type(member).__name__}"
        validate_parameters(member, owner=f"{type(member).__name__} ({where})")
        return None


def _stan_members_need_matrix(params):
    kind = params["members"]
    if isinstance(kind, str) and kind in ("stan", "stan+tan", "all"):
        if params["contact_matrix"] is None:
            return f"members={kind!r} includes Simpler TANs and needs a contact_matrix."
    return None


def _template_needs_root_or_bootstrap(params):
    template = params["members"]
    if isinstance(template, BaseEstimator) and "root" not in template.get_params():
        if not params["bootstrap"]:
            return (
                f"members={template!r} has no root, so rooting it at every feature gives one "
                "model; use bootstrap=True or pass a list of estimators."
            )
    return None


def _members_take_distributions(params):
    members = params["members"]
    if params["distributions"] is None or isinstance(members, str):
        return None
    given = [members] if isinstance(members, BaseEstimator) else members
    lacking = [type(m).__name__ for m in given if "distributions" not in m.get_params()]
    if lacking:
        return (
            f"distributions={params['distributions']!r} is set on every member, but "
            f"{', '.join(sorted(set(lacking)))} takes no distributions; leave it None."
        )
    return None


class EnsembleTAN(MemberEnsemble):
    """Ensemble TAN: the average of the class probabilities of several TANs.

    The Simpler TAN study's ensembles (Zhang et al.) average tree-augmented
    naive Bayes models that differ in their root, or in where their tree comes
    from (the data or a contact matrix):

    - ``members="stan"``: Simpler TANs rooted at every feature ("STAN bagging");
    - ``members="tan"``: TANs rooted at every feature ("TAN bagging");
    - ``members="stan+tan"``: the TANs rooted at every feature plus one Simpler
      TAN rooted at the first feature in name order, ``n_features + 1`` members ("STAN + TAN
      bagging" exactly as the study's code built it);
    - ``members="all"``: Simpler TANs and TANs rooted at every feature
      (``2 n_features`` members);
    - ``members=<estimator>``: that estimator (e.g. ``TAN(criterion="bic")``,
      ``TAN(contact_matrix=..., contact_prior=10)``) rooted at every feature;
    - ``members=[<estimator>, ...]``: those estimators, as given.

    The members are fitted on the same data and the ensemble's probabilities
    are the mean of theirs. They share one set of counts, and members that
    differ only in their root share one weight matrix and one undirected tree
    (the conditional mutual information is computed once, the tree is built
    once and only oriented per member). Rooting changes the model only
    through the smoothing of the CPTs: with ``alpha=0`` every rooting of one
    tree gives the same distribution.

    With ``bootstrap=True`` the ensemble is real bagging (Breiman 1996):
    ``n_estimators`` members, member ``k`` being the ``k``-th of the members
    above (cycling through them) fitted on its own bootstrap sample of the
    rows. Every member keeps the full data's categories and classes, so a
    category or class absent from a sample is smoothed, not lost (with
    continuous features, whose densities need rows, an absent class raises).

    Parameters
    ----------
    contact_matrix : DataFrame, array of shape (n_features, n_features) or callable, optional
        The contact matrix of the Simpler TAN members (see :class:`SimplerTAN`).
    members : {"auto", "stan", "tan", "stan+tan", "all"}, estimator or list of estimators, \
default="auto"
        Which models to average. ``"auto"`` is ``"stan+tan"`` (the study's
        best) when a contact matrix is given, ``"tan"`` otherwise.
    bootstrap : bool, default=False
        Fit each member on a bootstrap sample of the rows.
    n_estimators : int, default=10
        Number of members with ``bootstrap=True`` (ignored otherwise). At most
        :data:`MAX_ESTIMATORS` (10,000), and at most
        :data:`MAX_MEMBER_NODES` / (n_features + 1) on a given table: each
        bootstrap member is a fitted network kept in memory. Larger values
        are refused before any member is fitted.
    alpha : float, default=1.0
        Dirichlet pseudo-count of the members built from a name; members
        given as estimators keep their own ``alpha``.
    random_state : int, RandomState instance or None, default=None
        Seeds the bootstrap samples (``bootstrap=True`` only) and, for the
        members built from a name, a smoothing that samples (each member gets
        its own seed drawn from it).
    smoothing : {"laplace", "hdp", "hls"} or Smoothing, default="laplace"
        How the categorical tables of the members built from a name are
        estimated (see :class:`TAN`: the hierarchy of a table is the class,
        then the feature's tree parent, so the rootings of one tree differ in
        their hierarchies); members given as estimators keep their own. With a
        smoothing other than additive, every member is fitted and kept: the
        shortcut that predicts every rooting of a tree from its edge counts
        smooths cell by cell.
        ``"hls"``: the same hierarchy written as a log-linear model, one coefficient per
        node, fitted by ridge-penalised multinomial logistic regression
        (:class:`~bnclassify.parameters.HLS`), its ridge chosen by cross-validation on
        the training rows.
    n_jobs : int, optional
        Members fitted in parallel by joblib (threads by default; the members
        share the counts). ``None`` is 1, ``-1`` all processors; never more
        threads than members to fit.
    handle_unknown : {"warn", "error", "marginalize"}, default="warn"
        Set on every member: a category unseen in fit raises, or is treated
        as missing and summed out.
    distributions : None, str, Distribution or dict, default=None
        How each column is modelled, as in :class:`NaiveBayes` (default:
        continuous columns binned; ``"density"``: Gaussian or log-normal, and
        then a member is rooted only at a categorical feature). Set on every
        member, as the ensemble encodes the table once for all of them;
        ``None`` leaves members given as estimators their own, when they agree.

    Attributes
    ----------
    estimators_ : sequence of AugmentedNaiveBayes
        The fitted members, each with its ``structure_``, ``weights_`` and
        ``network_``. Members over categorical features that share a tree
        and differ only in their root (``"tan"``, ``"stan"``, a TAN or
        Simpler TAN template) are fitted when read, from the kept tree and
        counts: an ensemble over ``m`` features keeps ``O(m)`` tables, not
        ``m`` networks of ``m`` nodes (reading a member twice gives two equal
        objects).
    estimators_samples_ : list of ndarray
        With ``bootstrap=True``, the rows (with repeats) each member was fitted on.
    classes_, categories_, n_features_in_, feature_names_in_, class_node_
        As in :class:`NaiveBayes`.
    fit_times_ : dict
        Seconds on ``weights`` (the shared ones counted once), ``structure``
        and ``parameters``, summed over members.

    Examples
    --------
    >>> from bnclassify import EnsembleTAN
    >>> from bnclassify.datasets import load_p450
    >>> p450 = load_p450()
    >>> model = EnsembleTAN(p450.contact_matrix).fit(p450.data, p450.target)
    >>> [type(m).__name__ for m in model.estimators_].count("TAN"), len(model.estimators_)
    (8, 9)
    >>> [m.root for m in model.estimators_[:3]]
    ['block1', 'block2', 'block3']
    >>> import numpy as np
    >>> mean = np.mean([m.predict_proba(p450.data) for m in model.estimators_], axis=0)
    >>> bool(np.allclose(model.predict_proba(p450.data), mean))
    True
    """

    _parameter_constraints = {
        "contact_matrix": [None, *CONTACT_MATRIX],
        "members": [Members()],
        "bootstrap": ["boolean"],
        "n_estimators": [
            Interval(
                Integral,
                1,
                MAX_ESTIMATORS,
                closed="both",
                why=": every bootstrap member is a fitted network kept in memory and evaluated "
                "at every prediction, and the average of B members differs from that of "
                "infinitely many by about 1/sqrt(B) of the members' spread (1% at 10,000).",
            )
        ],
        "alpha": ALPHA,
        "random_state": RANDOM_STATE,
        "n_jobs": N_JOBS,
        "handle_unknown": [Options(HANDLE_UNKNOWN)],
        "distributions": [DISTRIBUTIONS],
        "smoothing": SMOOTHING,
    }
    _parameter_rules = (
        _stan_members_need_matrix,
        _template_needs_root_or_bootstrap,
        _members_take_distributions,
    )

    def __init__(
        self,
        contact_matrix=None,
        members="auto",
        bootstrap=False,
        n_estimators=10,
        alpha=1.0,
        random_state=None,
        n_jobs=None,
        handle_unknown="warn",
        distributions=None,
        smoothing="laplace",
    ):
        self.contact_matrix = contact_matrix
        self.members = members
        self.bootstrap = bootstrap
        self.n_estimators = n_estimators
        self.alpha = alpha
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.handle_unknown = handle_unknown
        self.distributions = distributions
        self.smoothing = smoothing

    def fit(self, X, y):
        """Fit every member on the same counts (or on its own bootstrap sample).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Categorical features; NaN/None cells are missing.
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        validate_parameters(self)
        self._column_model = (
            _common_column_model(self.members) if self.distributions is None else self.distributions
        )
        counts = self._training_statistics(X, y)
        features = list(self.schema_.names)
        self._check_kept_members(len(features))
        groups = self._member_groups(self._root_candidates(features))
        self._seed_named_members(groups)
        if self.bootstrap:
            jobs, shared_time = self._bootstrap_jobs(groups, counts, features)
            kept = [len(jobs)]
        else:
            kept, jobs, shared_time = self._shared_jobs(groups, counts, features)
        fitted, self.fit_times_ = self._fit_members(jobs)
        for stage, seconds in shared_time.items():
            self.fit_times_[stage] += seconds
        self._groups = []
        for group in kept:  # fitted members back in their groups' places
            if isinstance(group, int):
                self._groups.append({"members": fitted[:group]})
                fitted = fitted[group:]
            else:
                self._groups.append(group)
        return self

    @property
    def estimators_(self):
        """The members in order: kept ones, and shared-tree rootings fitted when read."""
        if "_groups" not in self.__dict__:
            raise AttributeError("estimators_ exists once the EnsembleTAN is fitted.")
        if all("members" in group for group in self._groups):
            return [m for group in self._groups for m in group["members"]]
        sizes = [len(g["members"] if "members" in g else g["roots"]) for g in self._groups]
        return MemberSequence(self._member_at, sum(sizes))

    def _member_at(self, k):
        for group in self._groups:
            size = len(group["members"] if "members" in group else group["roots"])
            if k < size:
                return group["members"][k] if "members" in group else self._rooted_member(group, k)
            k -= size
        raise IndexError(k)

    def _rooted_member(self, group, k):
        """Member ``k`` of a shared-tree group, fitted from the group's tree and counts."""
        member = clone(group["template"]).set_params(root=group["roots"][k])
        counts = ForestCounts(group["classes"], group["single"], group["edges"], group["pairs"])
        features = list(self.schema_.names)
        tree = nx.Graph()  # rebuilt the same way before and after saving (same BFS order)
        tree.add_nodes_from(features)
        tree.add_edges_from((features[u], features[v]) for u, v in group["edges"])
        return fit_member(
            member, *self._fit_args(counts), self.class_node_, (group["weights"], tree)
        )

    # -- parameters and members --------------------------------------------------
    def _root_candidates(self, features) -> list:
        """Features a member may be rooted at: those no continuous feature may parent.

        A categorical feature never gets a continuous parent, so a tree over
        mixed features is rooted at a categorical one; with none, at any
        feature that takes part in trees.
        """
        discrete, structural = self.schema_.discrete, self.schema_.structural
        candidates = [f for f, d, s in zip(features, discrete, structural, strict=True) if d and s]
        usable = [f for f, s in zip(features, structural, strict=True) if s]
        return candidates or usable or list(features[:1])

    def _check_kept_members(self, n_features):
        """Refuse bootstrap ensembles whose fitted members would not fit in memory."""
        nodes = self.n_estimators * (n_features + 1)
        if self.bootstrap and nodes > MAX_MEMBER_NODES:
            raise ValueError(
                f"n_estimators={self.n_estimators} bootstrap members over {n_features} features "
                f"would keep {nodes:,} fitted nodes (about {nodes * NODE_BYTES / 1e9:.1f} GB); "
                f"at most MAX_MEMBER_NODES = {MAX_MEMBER_NODES:,} are kept. Use at most "
                f"{MAX_MEMBER_NODES // (n_features + 1)} members on this table."
            )

    def _kind(self):
        kind = self.members
        if kind == "auto":
            return "stan+tan" if self.contact_matrix is not None else "tan"
        return kind

    def _member_groups(self, features) -> list:
        """Unfitted members in groups; the members of one group differ only in their root."""
        members = self.members
        if isinstance(members, str):
            kind = self._kind()
            common = {
                "alpha": self.alpha,
                "handle_unknown": self.handle_unknown,
                "distributions": self.distributions,
                "smoothing": self.smoothing,
            }
            tan = TAN(**common)
            stan = SimplerTAN(self.contact_matrix, **common)
            if kind == "tan":
                return [_rooted(tan, features)]
            if kind == "stan":
                return [_rooted(stan, features)]
            if kind == "stan+tan":
                # "the first feature" by name (the study's tables list theirs in name
                # order): where a column sits in the table decides nothing
                first = [features[name_order(features)[0]]]
                return [_rooted(tan, features), _rooted(stan, first)]
            return [_rooted(stan, features), _rooted(tan, features)]
        if isinstance(members, BaseEstimator):
            template = self._set_shared(clone(members))
            if "root" in template.get_params():
                return [_rooted(template, features)]
            return [[template]]  # bootstrap samples of one model (see the parameter rules)
        return [[self._set_shared(clone(m))] for m in members]

    def _set_shared(self, member):
        """``member`` with the ensemble's ``handle_unknown`` and, when given, ``distributions``
        (every member takes it: :func:`_members_take_distributions`)."""
        member.set_params(handle_unknown=self.handle_unknown)
        if self.distributions is not None:
            member.set_params(distributions=self.distributions)
        return member

    def _seed_named_members(self, groups):
        """Give each member built from a name its own seed, when its smoothing samples."""
        if not isinstance(self.members, str):
            return
        smoothing, rng = table_smoothing(self)
        if rng is None:
            return
        members = [m for group in groups for m in group]
        for member, seed in zip(members, rng.integers(2**32, size=len(members)), strict=True):
            member.set_params(random_state=int(seed))

    def _shared_jobs(self, groups, counts, features):
        """Fit jobs on the shared counts; one weight matrix and tree per rooted group.

        Returns ``(kept, jobs, seconds)``: per group either the number of its
        jobs or, for a group of rootings of one tree over categorical features,
        the record its members are predicted and fitted from (:meth:`_forest_group`).
        """
        times = {"weights": 0.0, "structure": 0.0, "parameters": 0.0}
        start = time.perf_counter()
        if counts.keeps_pairwise and any(isinstance(m, TAN) for g in groups for m in g):
            # one pair table serves every TAN's weights and every member's tree CPTs; made
            # here, before any member counts a tree the slow way or members run in parallel
            counts.pairwise  # noqa: B018
        times["weights"] += time.perf_counter() - start
        kept, jobs = [], []
        for group in groups:
            first, before = group[0], len(jobs)
            args = (*self._fit_args(counts), self.class_node_)
            # a shared tree serves only members whose tree is the spanning tree, oriented
            if len(group) > 1 and isinstance(first, TreeAugmented) and first.orients_spanning_tree:
                alpha = _alpha(first)
                start = time.perf_counter()
                weights = first.tree_weights(counts, self.schema_)
                after_weights = time.perf_counter()
                tree = first.spanning_tree(weights, self.schema_)
                times["weights"] += after_weights - start
                times["structure"] += time.perf_counter() - after_weights
                if self.schema_.discrete.all() and _additive(first):
                    start = time.perf_counter()
                    kept.append(_forest_group(group, counts, features, alpha, weights, tree))
                    times["parameters"] += time.perf_counter() - start
                    continue
                jobs += [(m, fit_member, (*args, (weights, tree))) for m in group]
            else:
                jobs += [(m, fit_member, args) for m in group]
            kept.append(len(jobs) - before)
        return kept, jobs, times

    def _bootstrap_jobs(self, groups, counts, features):
        flat = [member for group in groups for member in group]
        random_state = check_random_state(self.random_state)
        self._seeds = random_state.randint(np.iinfo(np.int32).max, size=self.n_estimators)
        self._n_rows = len(counts.y)
        jobs = []
        for seed in self._seeds:
            member = clone(flat[len(jobs) % len(flat)])
            # a class a sample lacks keeps a smoothed prior; its CPTs are smoothed and its
            # densities borrow the fit over all classes, as an empty group does in any fit
            rows = _bootstrap_rows(seed, self._n_rows)
            args = (counts, rows, self.schema_, self.classes_, self.class_node_)
            jobs.append((member, _fit_on_sample, args))
        return jobs, {}

    @property
    def estimators_samples_(self) -> list:
        """The rows (with repeats) each bootstrap member was fitted on."""
        check_is_fitted(self, "estimators_")
        if not self.bootstrap:
            raise AttributeError("estimators_samples_ exists only with bootstrap=True.")
        return [_bootstrap_rows(seed, self._n_rows) for seed in self._seeds]

    # -- prediction --------------------------------------------------------------
    def predict_log_proba_encoded(self, encoded):
        """``predict_log_proba`` of rows already encoded by :meth:`encode`."""
        total, n_members = 0.0, 0
        for group in self._groups:
            if "members" in group:
                for member in group["members"]:
                    total = total + np.exp(normalise(self._member_joint(member, encoded)))
                n_members += len(group["members"])
            else:
                total = total + _forest_group_proba(group, encoded[0], self.schema_.names)
                n_members += len(group["roots"])
        with np.errstate(divide="ignore"):
            return np.log(total / n_members)

    # -- declared state (see SchemaAttributes._get_state) --------------------------------
    #: ``groups``: a list of ``{"members": [classifier, ...]}`` or, for members that
    #: share one tree over categorical features, ``{"template", "roots", "weights",
    #: "alpha", "classes", "single", "edges", "pairs"}`` (the tree and its counts).
    _FITTED_FIELDS = {
        "_column_model": "column_model",
        "_seeds": "seeds",
        "_n_rows": "n_rows",
        "fit_times_": "fit_times_",
        "_groups": "groups",
    }

    def _check_state(self):
        require("_groups" in vars(self), "EnsembleTAN", "a fitted ensemble needs its groups.")
        groups = self._groups
        require(isinstance(groups, list) and groups, "groups", "must be a non-empty list.")
        for group in groups:
            require(isinstance(group, dict), "groups", "an ensemble group must be a dict.")
            if set(group) == {"members"}:
                self._check_members(group["members"], "groups")
            else:
                _check_forest_group(group, self.schema_, len(self.classes_))
        if self.bootstrap:
            n = sum(len(g.get("members", g.get("roots", []))) for g in groups)
            require(
                isinstance(self._seeds, np.ndarray)
                and self._seeds.shape == (n,)
                and self._seeds.dtype.kind in "iu"
                and isinstance(self._n_rows, int)
                and self._n_rows > 0,
                "seeds",
                "a bootstrap ensemble needs one seed per member and its number of rows.",
            )


def _check_forest_group(group, schema, n_classes):
    """Check a shared-tree group of a loaded ensemble (its tree and counts)."""
    keys = {"template", "roots", "weights", "alpha", "classes", "single", "edges", "pairs"}
    require(set(group) == keys, "groups", "bad shared-tree group.")
    names, cards, m = list(schema.names), schema.cards, schema.n_features
    require(schema.discrete.all(), "groups", "a shared-tree group needs categorical features.")
    template = group["template"]
    require(
        isinstance(template, AugmentedNaiveBayes) and "root" in template.get_params(),
        "groups",
        "a shared-tree group's template must be a rooted classifier.",
    )
    roots = group["roots"]
    require(
        isinstance(roots, list) and roots and all(r in names for r in roots),
        "groups",
        "a shared-tree group's roots must be features.",
    )
    weights = group["weights"]
    require(
        isinstance(weights, pd.DataFrame)
        and weights.shape == (m, m)
        and list(weights.index) == names
        and list(weights.columns) == names,
        "groups",
        "a shared-tree group's weights must be a feature-by-feature DataFrame.",
    )
    alpha = group["alpha"]
    require(isinstance(alpha, float) and np.isfinite(alpha) and alpha >= 0, "groups", "bad alpha.")
    _counts(group["classes"], (n_classes,), "a group's class counts")
    single, edges, pairs = group["single"], group["edges"], group["pairs"]
    require(isinstance(single, list) and len(single) == m, "groups", "needs N(c, x_j) per feature.")
    for j, table in enumerate(single):
        _counts(table, (n_classes, cards[j]), f"N(c, x_j) of feature {j}")
    require(
        isinstance(edges, list)
        and isinstance(pairs, list)
        and len(edges) == len(pairs) < max(m, 1),
        "groups",
        "a group's edges and pair counts differ in number.",
    )
    forest = nx.Graph()
    forest.add_nodes_from(range(m))
    for edge, table in zip(edges, pairs, strict=True):
        require(
            isinstance(edge, tuple)
            and len(edge) == 2
            and all(isinstance(v, int) and 0 <= v < m for v in edge)
            and edge[0] != edge[1],
            "groups",
            "a group's edge must join two features.",
        )
        forest.add_edge(*edge)
        _counts(table, (n_classes, cards[edge[0]], cards[edge[1]]), f"the counts of edge {edge}")
    require(
        forest.number_of_edges() == len(edges) and nx.is_forest(forest),
        "groups",
        "a group's edges must form a forest.",
    )


def _counts(table, shape, field):
    float_array(table, field, shape)
    require(bool((table >= 0).all()), field, "counts must be >= 0.")


def _common_column_model(members):
    """How the members model columns (their ``distributions``), when they all agree.

    Members such as KDB model every column as categorical, TAN by dtype by
    default; the ensemble encodes the data once, the way its members do.
    """
    if isinstance(members, BaseEstimator):
        members = [members]
    if not isinstance(members, list | tuple) or not members:
        return None
    models = [getattr(m, "distributions", None) for m in members]
    same = all(type(m) is type(models[0]) and m == models[0] for m in models)
    return models[0] if same else None


def _rooted(template, features) -> list:
    return [clone(template).set_params(root=feature) for feature in features]


def _alpha(member):
    return float(member.alpha)


def _additive(member) -> bool:
    """Whether ``member``'s tables are additive with its ``alpha`` (then every rooting of a
    tree is predicted from the tree's counts)."""
    smoothing, _ = table_smoothing(member)
    return isinstance(smoothing, Laplace) and float(smoothing.alpha) == _alpha(member)


def _forest_group(group, counts, features, alpha, weights, tree) -> dict:
    """What every rooting of one categorical tree is fitted and predicted from.

    The template (the first member, unfitted), the roots, the shared weights,
    the tree's edges, the class counts, N(c, x_j) of every feature and
    N(c, x_u, x_v) of every edge: ``O(m)`` tables, from which any member is
    fitted exactly as ``fit`` fits it. The edges are counted in one pass over
    the rows (oriented from the first feature; the other orientation is the
    transpose).
    """
    position = {name: i for i, name in enumerate(features)}
    discrete = [True] * len(features)
    dag = orient_constrained(tree, features, discrete, features[0])
    parents_of = [tuple(position[p] for p in dag.predecessors(f)) for f in features]
    tables = counts.families(parents_of)
    edges = [(parents[0], child) for child, parents in enumerate(parents_of) if parents]
    template = clone(group[0])
    return {
        "template": template,
        "roots": [m.root for m in group],
        "weights": weights,
        "alpha": alpha,
        "classes": counts.classes,
        "single": _single_tables(counts, parents_of, tables),
        "edges": edges,
        "pairs": [tables[child] for _, child in edges],
    }


def _single_tables(counts, parents_of, tables) -> list:
    """N(c, x_j) of every feature: from the tree's pair tables when no cell is missing
    (a pair table's margin is then the feature's table), else counted."""
    if not isinstance(counts, TrainingCounts) or counts.has_missing:
        return [counts.family(j) for j in range(len(parents_of))]
    child_of = {parents[0]: child for child, parents in enumerate(parents_of) if parents}
    single = []
    for j, parents in enumerate(parents_of):
        if parents:  # N(c, x_parent, x_j) summed over the parent
            single.append(tables[j].sum(axis=1))
        elif j in child_of:  # a root: N(c, x_j, x_child) summed over its child
            single.append(tables[child_of[j]].sum(axis=2))
        else:  # a feature without edges
            single.append(counts.family(j))
    return single


def _forest_group_proba(group, codes, features) -> np.ndarray:
    """The sum over a shared-tree group's members of P(c | x), a block of rows at a time."""
    alpha = group["alpha"]
    position = {name: i for i, name in enumerate(features)}
    roots = [position[r] for r in group["roots"]]
    log_single = [log_conditional(t, alpha) for t in group["single"]]
    log_pairs = {}
    for (u, v), table in zip(group["edges"], group["pairs"], strict=True):
        log_pairs[(u, v)] = log_conditional(table, alpha)
        log_pairs[(v, u)] = log_conditional(table.swapaxes(1, 2), alpha)
    log_prior = log_class_prior(group["classes"], alpha)
    n_classes, widest = len(log_prior), max(t.shape[-1] for t in log_single)
    per_row = len(features) * n_classes * (3 * widest + 1)  # messages, beliefs and results
    chunk = max(1, BLOCK_CELLS // per_row)
    total = np.zeros((len(codes), n_classes))
    for start in range(0, len(codes), chunk):
        joints = rooted_forest_joints(
            codes[start : start + chunk],
            log_prior,
            log_single,
            log_pairs,
            group["edges"],
            roots,
            root_order=name_order(features),  # the members root further components by name
        )
        for k in range(len(roots)):
            total[start : start + chunk] += np.exp(normalise(joints[:, k], start))
    return total
