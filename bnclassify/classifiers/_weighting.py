"""Feature weighting for naive Bayes, as R bnclassify's ``awnb``, ``manb`` and ``wanbia``.

Each weighting turns a fitted naive Bayes' CPTs ``P(x_i | c)`` into new ones and
reports one number per feature in ``feature_weights_``:

- **AWNB** (Hall 2007): ``w_i = (1/T) sum_t d_ti^-1/2`` over ``T`` unpruned
  decision trees grown on bootstrap samples of half the rows, ``d_ti`` the
  depth (root = 1) at which tree ``t`` first tests feature ``i`` (0 when it
  never does); the CPT becomes ``P(x | c)^w / sum_x' P(x' | c)^w``.
- **MANB** (Dash and Cooper 2002): ``w_i`` is the posterior probability of the
  arc ``C -> X_i`` (Dirichlet(``alpha``) marginal likelihoods of the feature with
  and without the class as parent, prior probability ``prior`` of the arc); the
  CPT becomes ``w P(x | c) + (1 - w) P(x)``, the model average of the two.
- **WANBIA** (Zaidi et al. 2013): ``w`` in ``[0, 1]^m`` maximises the conditional
  log-likelihood of the training rows of the exponentiated, renormalised naive
  Bayes (the AWNB form above), by L-BFGS-B from ``w = 1``.

How each generalises to other structures: AWNB's and WANBIA's weights
exponentiate a feature's CPT, which is defined for any family (each row of a
TAN or KDB table renormalised), but their justification is naive Bayes':
weights stand in for the missing dependences, which a TAN or KDB already
models, so they are offered for naive Bayes only (R does the same). MANB
averages over the presence of the single arc ``C -> X_i`` of a naive Bayes;
for another structure the average would be over every subset of a family's
arcs, which R does not define either. Only categorical features are weighted:
a continuous feature keeps weight 1.
"""

from __future__ import annotations

import inspect
import numbers

import numpy as np
from scipy.optimize import minimize
from scipy.special import gammaln, logsumexp
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import check_random_state

from ..state import StateError
from ._adapter import categorical_tables, replace_table, training_rows

WEIGHTINGS = ("awnb", "manb", "wanbia")


def _log_gamma(x):
    """``log Gamma(x)`` for ``x > 0``, finite below the smallest normal float too (scipy's
    ``gammaln`` overflows there, where ``log Gamma(x) = -log x`` to the last digit)."""
    x = np.asarray(x, dtype=float)
    return np.where(x < np.finfo(float).tiny, -np.log(np.maximum(x, 5e-324)), gammaln(x))


def _weighted(log_table, w):
    """``log (P^w / sum_x P^w)`` of a ``(C, r)`` table."""
    scaled = w * log_table
    return scaled - logsumexp(scaled, axis=-1, keepdims=True)


class _StoredOptions:
    """A weighting's options as model files store them: its parameters, no fitted state."""

    def get_params(self, deep=False) -> dict:
        named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        parameters = inspect.signature(type(self)).parameters.values()
        return {p.name: getattr(self, p.name) for p in parameters if p.kind in named}

    def _get_state(self) -> dict:
        return {}

    @classmethod
    def _from_state(cls, state, params=None):
        if state:
            raise StateError(f"{cls.__name__} has no state, the file gives {sorted(state)}.")
        return cls(**(params or {}))

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


class AWNB(_StoredOptions):
    """Attribute weights from bootstrapped decision trees (R's ``awnb``).

    Parameters
    ----------
    trees : int, default=10
        Bootstrap trees (R's ``awnb_trees``).
    bootstrap : float, default=0.5
        Size of each bootstrap sample, a fraction of the rows (R's ``awnb_bootstrap``).
    random_state : int, RandomState or None, default=None

    Examples
    --------
    >>> from bnclassify import NaiveBayes
    >>> from bnclassify.classifiers import AWNB
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = NaiveBayes(weighting=AWNB(random_state=0)).fit(X, y)
    >>> bool((model.feature_weights_ > 0).all() and (model.feature_weights_ <= 1).all())
    True
    """

    def __init__(self, trees=10, bootstrap=0.5, random_state=None):
        self.trees = trees
        self.bootstrap = bootstrap
        self.random_state = random_state

    def weights(self, codes, y, categorical):
        if isinstance(self.trees, bool) or not isinstance(self.trees, numbers.Integral):
            raise TypeError(f"AWNB trees must be an integer >= 1, got {self.trees!r}.")
        if self.trees < 1:
            raise ValueError(f"AWNB trees must be >= 1, got {self.trees!r}.")
        if not isinstance(self.bootstrap, numbers.Real) or not 0 < self.bootstrap <= 1:
            raise ValueError(f"AWNB bootstrap must be in (0, 1], got {self.bootstrap!r}.")
        rng = check_random_state(self.random_state)
        n, m = codes.shape
        size = max(2, int(round(self.bootstrap * n)))
        total = np.zeros(m)
        for _ in range(int(self.trees)):
            rows = rng.randint(0, n, size)
            tree = DecisionTreeClassifier(random_state=rng.randint(2**31 - 1))
            tree.fit(codes[rows], y[rows])
            depth = _first_test_depths(tree.tree_, m)
            tested = depth > 0
            total[tested] += depth[tested] ** -0.5
        return np.where(categorical, total / int(self.trees), 1.0)

    def apply(self, log_table, w, class_counts, alpha):
        return _weighted(log_table, w)


def _first_test_depths(tree, m) -> np.ndarray:
    """Per feature the depth (root = 1) of the shallowest node testing it, 0 if none."""
    depth = np.zeros(tree.node_count, dtype=np.int64)
    depth[0] = 1
    first = np.zeros(m, dtype=np.int64)
    for node in range(tree.node_count):  # nodes are numbered parents first
        left, right = tree.children_left[node], tree.children_right[node]
        if left < 0:
            continue
        depth[left] = depth[right] = depth[node] + 1
        f = tree.feature[node]
        if first[f] == 0 or depth[node] < first[f]:
            first[f] = depth[node]
    return first


class MANB(_StoredOptions):
    """Model-averaged naive Bayes (R's ``manb_prior``).

    Parameters
    ----------
    prior : float, default=0.5
        Prior probability of each arc ``C -> X_i``.

    Examples
    --------
    >>> from bnclassify import NaiveBayes
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = NaiveBayes(weighting="manb").fit(X, y)
    >>> model.feature_weights_.round(3).tolist()  # doors barely depends on the class
    [1.0, 1.0, 0.0, 1.0, 1.0, 1.0]
    """

    def __init__(self, prior=0.5):
        self.prior = prior

    def arc_posteriors(self, counts_by_feature, alpha):
        prior = self.prior
        if isinstance(prior, bool) or not isinstance(prior, numbers.Real) or not 0 < prior < 1:
            raise ValueError(f"MANB prior must be a number in (0, 1), got {prior!r}.")
        if alpha <= 0:
            raise ValueError("MANB needs alpha > 0 (its marginal likelihoods are Dirichlet).")
        out = []
        for n_cx in counts_by_feature:  # (C, r)
            r = n_cx.shape[1]
            with_arc = np.sum(
                _log_gamma(r * alpha) - _log_gamma(r * alpha + n_cx.sum(axis=1))
            ) + np.sum(_log_gamma(alpha + n_cx) - _log_gamma(alpha))
            n_x = n_cx.sum(axis=0)
            without = (
                _log_gamma(r * alpha)
                - _log_gamma(r * alpha + n_x.sum())
                + np.sum(_log_gamma(alpha + n_x) - _log_gamma(alpha))
            )
            a, b = with_arc + np.log(prior), without + np.log1p(-prior)
            out.append(float(np.exp(a - np.logaddexp(a, b))))
        return np.array(out)

    def apply(self, log_table, w, class_counts, alpha):
        marginal = class_counts.sum(axis=0) + alpha  # R's normalize(rowSums(nijk) + smooth)
        marginal = marginal / marginal.sum()
        return np.log(w * np.exp(log_table) + (1 - w) * marginal)


class WANBIA(_StoredOptions):
    """Weights that maximise the conditional log-likelihood (R's ``wanbia``).

    Examples
    --------
    >>> from bnclassify import NaiveBayes
    >>> from bnclassify.datasets import load_vote
    >>> X, y = load_vote(return_X_y=True)
    >>> weighted = NaiveBayes(weighting="wanbia").fit(X, y)
    >>> plain = NaiveBayes().fit(X, y)
    >>> bool(weighted.conditional_log_likelihood(X, y) > plain.conditional_log_likelihood(X, y))
    True
    >>> int((weighted.feature_weights_ == 0).sum())  # features WANBIA switches off
    8
    """

    def weights(self, log_prior, tables, codes, y, sample_weight):
        if not tables:
            return np.ones(0)
        n = len(y)
        C = len(log_prior)
        target = np.zeros((n, C))
        target[np.arange(n), y] = 1.0
        row_w = np.ones(n) if sample_weight is None else sample_weight
        seen = [codes[:, j] >= 0 for j in range(len(tables))]
        safe = [np.where(s, codes[:, j], 0) for j, s in enumerate(seen)]

        def objective(w):
            score = np.broadcast_to(log_prior, (n, C)).copy()
            grads = []
            for j, table in enumerate(tables):
                weighted = _weighted(table, w[j])
                score += np.where(seen[j][:, None], weighted[:, safe[j]].T, 0.0)
                # d/dw log(P^w / sum P^w) = log P - E_{P^w}[log P]
                grads.append(table - (np.exp(weighted) * table).sum(axis=1, keepdims=True))
            log_post = score - logsumexp(score, axis=1, keepdims=True)
            residual = (target - np.exp(log_post)) * row_w[:, None]
            cll = float((row_w * log_post[np.arange(n), y]).sum())
            gradient = np.array(
                [
                    (residual * np.where(seen[j][:, None], g[:, safe[j]].T, 0.0)).sum()
                    for j, g in enumerate(grads)
                ]
            )
            return -cll, -gradient

        start = np.ones(len(tables))
        result = minimize(
            objective, start, jac=True, method="L-BFGS-B", bounds=[(0.0, 1.0)] * len(tables)
        )
        return np.clip(result.x, 0.0, 1.0)

    def apply(self, log_table, w, class_counts, alpha):
        return _weighted(log_table, w)


def resolve(weighting):
    """The weighting object for ``weighting`` (a name, an instance, or None)."""
    if weighting is None:
        return None
    if isinstance(weighting, str):
        if weighting not in WEIGHTINGS:
            raise ValueError(f"weighting must be one of {WEIGHTINGS} or None, got {weighting!r}.")
        return {"awnb": AWNB, "manb": MANB, "wanbia": WANBIA}[weighting]()
    if isinstance(weighting, (AWNB, MANB, WANBIA)):
        return weighting
    raise ValueError(
        f"weighting must be one of {WEIGHTINGS}, an AWNB, MANB or WANBIA instance, or None; "
        f"got {weighting!r}."
    )


def reads_rows(weighting) -> bool:
    """Whether ``weighting`` needs the training rows (AWNB, WANBIA), not only counts."""
    return isinstance(weighting, (AWNB, WANBIA)) or weighting in ("awnb", "wanbia")


def weighting_needs_positive_alpha(params):
    """A rule of the estimators' parameters: MANB and WANBIA need ``alpha > 0``."""
    weighting = params.get("weighting")
    name = weighting if isinstance(weighting, str) else type(weighting).__name__.lower()
    if name in ("manb", "wanbia") and params.get("alpha") == 0:
        return f"weighting={weighting!r} needs alpha > 0: " + (
            "its marginal likelihoods are Dirichlet."
            if name == "manb"
            else "a probability of 0 has no logarithm to weight."
        )
    return None


def apply_weighting(model, counts, alpha):
    """Weigh the fitted naive Bayes ``model``'s categorical CPTs; sets ``feature_weights_``."""
    scheme = resolve(model.weighting)
    if scheme is None:
        model.__dict__.pop("feature_weights_", None)
        return
    tables = categorical_tables(model)  # {column: (C, r) log table}
    m = model.n_features_in_
    categorical = np.array([j in tables for j in range(m)])
    class_counts = {j: counts.family(j, ()) for j in tables}
    if isinstance(scheme, MANB):
        posteriors = scheme.arc_posteriors([class_counts[j] for j in tables], alpha)
        w = np.ones(m)
        w[list(tables)] = posteriors
    else:
        codes, y, sample_weight = training_rows(counts, type(scheme).__name__)
        if isinstance(scheme, AWNB):
            w = scheme.weights(codes, y, categorical)
        else:
            fitted = scheme.weights(
                model.compiled_.log_prior,
                [tables[j] for j in tables],
                codes[:, list(tables)],
                y,
                sample_weight,
            )
            w = np.ones(m)
            w[list(tables)] = fitted
    for j, table in tables.items():
        replace_table(model, j, scheme.apply(table, w[j], class_counts[j], alpha))
    model.feature_weights_ = w
