"""Shapley values (SHAP) of Bayesian network classifiers, exact where it matters.

A Bayesian network classifier's log-odds is a sum of small table look-ups::

    f(x) = [log P(c1) - log P(c0)] + sum_i g_i(x_i, x_pa(i)),
    g_i = log P(x_i | c1, x_pa(i)) - log P(x_i | c0, x_pa(i)),

one term per feature family (the feature and its feature parents). Shapley
values are linear in the explained function, so each term can be explained on
its own and the results added up. A term that reads a family ``F`` of ``k``
features is a game on ``k`` players only, and its interventional value of a
coalition ``S`` is ``E_b[g(x_S, b_F\\S)]``: a contraction of the term's table
with the background's empirical joint distribution over ``F \\ S`` followed by
one look-up per row. Naive Bayes terms (``k = 1``) give each feature
``g_i(x_i) - mean_b g_i(b_i)``; a tree edge (``k = 2``) is shared between its
two endpoints by the two-player Shapley formula. This is exact for any number
of features and costs a few table operations per family, whatever the sizes of
``X`` and the background.

Continuous and mixed models are explained by the same family-by-family
closed form: a factor that is not a table (a Gaussian, possibly conditional on
categorical and Gaussian parents, a kernel density, ...) evaluates its own
``log_terms`` on hybrid rows holding ``x`` on ``S`` and each distinct
background row's cells elsewhere in the family, which costs about
``n_rows * distinct background rows`` terms per subset of the family.

Other combinations have no closed form and use the coalition game directly:

* ``method="conditional"``: the value of a coalition ``S`` is the model's own
  prediction from ``x_S`` alone, the other features marginalised exactly by the
  network (:meth:`~bnclassify.network.FittedNetwork.joint_log_likelihood`
  with missing cells). No background data is involved.
* ``output="probability"`` (either method) and models without a single
  compiled network (:class:`~bnclassify.EnsembleTAN` and
  :class:`~bnclassify.AODE`, which average their members' probabilities: their
  log-odds is not a sum of terms).

These are exact by enumerating all ``2**m`` coalitions for up to
``max_exact_features`` features (12 by default), vectorised over rows and
coalitions, with every distinct input evaluated once. Beyond that, Shapley
values are estimated by antithetic permutation sampling: each sampled feature
order contributes the telescoping differences along its prefixes, so the
estimate is unbiased and still adds up exactly to ``f(x) - base value``; the
Monte Carlo standard error is returned as ``Explanation.error_std``.

Output scales. Binary models have one output, for ``classes_[1]``:

* ``"log_odds"``: ``log P(c1 | x) - log P(c0 | x)``;
* ``"probability"``: ``P(c1 | x)``; interventional value of ``S`` is
  ``E_b[P(c1 | x_S, b_rest)]`` (the same game shap's ``ExactExplainer`` or
  ``KernelExplainer`` play on ``predict_proba``), conditional value
  ``P(c1 | x_S)``.

Models with more than two classes get one output per class (``values`` of shape
``(n_rows, n_features, n_classes)``):

* ``"log_odds"``: centred class scores ``log P(c, x) - mean_c' log P(c', x)``,
  the multinomial generalisation of the log-odds: additive like ``log P(c, x)``,
  free of the ``log P(x)`` part every class shares, and
  ``softmax(scores) = predict_proba``; differences between two classes' scores
  are their pairwise log-odds;
* ``"probability"``: ``P(c | x)`` for every class.
"""

from __future__ import annotations

import warnings
from math import prod

import numpy as np
import pandas as pd
import shap
from scipy.special import softmax
from sklearn.utils.validation import check_is_fitted

from ._shap_families import additive_interventional, contrast, shapley_weight
from .data import MISSING
from .data.binning import bin_representatives
from .exceptions import SampledShapleyWarning, caller_stacklevel
from .validation import check_int

__all__ = ["explain", "METHODS", "OUTPUTS"]

#: The most feature orders sampled per row: each costs ``n_features + 1`` model evaluations, and
#: a larger request is a slip (``10**9`` once took 7.7 GB), not a precision the estimate needs.
MAX_PERMUTATIONS = 100_000
METHODS = ("interventional", "conditional")
OUTPUTS = ("log_odds", "probability")

#: The most model evaluations (hybrid rows) a coalition game may take, refused up front beyond:
#: with continuous features a hybrid row costs about 15-60 us (rows deduplicated, then the
#: network's inference with missing cells), so 2**20 is under a minute; with categorical
#: ones a row is an integer key whose outputs are cached, about 0.5-9 us, so 2**23.
MAX_GAME_ROWS = 1 << 20
MAX_KEYED_GAME_ROWS = 1 << 23
#: The most terms of an exact categorical game over a background (rows x, per coalition, the
#: background's distinct rows outside it), about 30 ns each (P450's EnsembleTAN: 3.3e7 in 0.9 s).
MAX_GROUPED_GAME_TERMS = 1 << 31

#: Hybrid rows built at once by the coalition engine (bounds temporary memory).
_CHUNK_CELLS = 1 << 22
#: Largest input domain (product of cards + 1) whose model outputs are cached in a dense table.
_DENSE_CACHE = 1 << 22
#: Largest input domain whose rows are keyed by one integer (else rows are deduplicated as rows).
_MAX_KEYED = 1 << 62


def explain(
    model,
    X,
    background=None,
    method="interventional",
    output="log_odds",
    *,
    max_exact_features=12,
    n_permutations=128,
    random_state=None,
):
    """Shapley values of a fitted Bayesian network classifier as a ``shap.Explanation``.

    Parameters
    ----------
    model : fitted bnclassify classifier
        :class:`~bnclassify.NaiveBayes`, :class:`~bnclassify.TAN`,
        :class:`~bnclassify.SimplerTAN`, :class:`~bnclassify.KDB` or any other
        model with a compiled network (``compiled_``) is explained from its
        tables; ensembles (:class:`~bnclassify.EnsembleTAN`,
        :class:`~bnclassify.AODE`) from their members' tables, and any other
        bnclassify-like model through ``predict_log_proba``.
    X : DataFrame or array-like of shape (n_rows, n_features)
        Rows to explain, in the model's columns and categories.
    background : DataFrame or array-like, optional
        Reference rows for ``method="interventional"`` (complete rows only).
        Default: ``X`` itself. The closed form (interventional log-odds of a
        single network) reads only the background's family frequencies, so its
        cost does not depend on the background's size; enumerated games cost
        about ``n_rows * 2**n_features * distinct background rows`` look-ups,
        so keep the background to a few hundred rows there. Not used, and not
        accepted, by ``method="conditional"``, where the network marginalises
        absent features itself.
    method : {"interventional", "conditional"}, default="interventional"
        ``"interventional"``: an absent feature takes the background's values,
        ``v(S) = E_b[f(x_S, b_rest)]``. ``"conditional"``: an absent feature is
        summed out by the model, ``v(S) = f(x_S)``; cells missing in ``X`` are
        then simply absent (their Shapley value is 0).
    output : {"log_odds", "probability"}, default="log_odds"
        Scale of the explained output; see the module docstring for the
        multiclass definitions. Interventional log-odds of a single network are
        computed in closed form for any number of features.
    max_exact_features : int, default=12
        Coalition games with at most this many features are solved exactly by
        enumerating the ``2**n_features`` coalitions; larger ones are estimated
        by permutation sampling, with a
        :class:`~bnclassify.exceptions.SampledShapleyWarning` that gives the
        estimates' standard error. A game is refused up front, with its cost,
        when it would evaluate the model on more than ``MAX_GAME_ROWS``
        rows (``MAX_KEYED_GAME_ROWS`` when every feature is categorical):
        ``n_rows x coalitions x background rows``, about a minute.
    n_permutations : int, default=128
        Feature orders sampled per row (rounded up to an even number: each order
        is paired with its reverse) when the game is estimated by sampling; at
        most ``MAX_PERMUTATIONS`` (100,000).
    random_state : int, numpy Generator or None, default=None
        Seed of the permutation sampling.

    Returns
    -------
    shap.Explanation
        ``values`` of shape ``(n_rows, n_features)`` for two classes, else
        ``(n_rows, n_features, n_classes)``; ``base_values`` (the value of the
        empty coalition), ``data`` (numeric category values where the
        categories are numbers, else the category codes, and a continuous
        feature's own values; NaN when missing), ``display_data`` (the
        category values and continuous values), ``feature_names``, and
        ``error_std`` (zeros when exact). ``base_values + values.sum(axis=1)``
        equals the explained output of every row up to rounding.

    Raises
    ------
    ValueError
        For an unknown ``method`` or ``output``, a background given with
        ``method="conditional"``, or missing cells in ``X`` or in the background
        with ``method="interventional"``. ``method="conditional"`` also raises
        the model's own ``ValueError`` where it cannot sum a feature out (a
        column of a multinomial group).

    Examples
    --------
    >>> import numpy as np
    >>> from bnclassify import TAN
    >>> from bnclassify.datasets import load_p450
    >>> from bnclassify.explain import explain
    >>> X, y = load_p450(return_X_y=True)
    >>> model = TAN().fit(X, y)
    >>> explanation = explain(model, X.iloc[:5], background=X)
    >>> explanation.values.shape
    (5, 8)
    >>> log_proba = model.predict_log_proba(X.iloc[:5])
    >>> log_odds = log_proba[:, 1] - log_proba[:, 0]
    >>> total = explanation.base_values + explanation.values.sum(axis=1)
    >>> bool(np.allclose(total, log_odds, rtol=0, atol=1e-10))
    True

    The plots of shap take the explanation directly, e.g.
    ``shap.plots.beeswarm(explain(model, X))``.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}.")
    if output not in OUTPUTS:
        raise ValueError(f"output must be one of {OUTPUTS}, got {output!r}.")
    check_int(max_exact_features, "max_exact_features")
    check_int(
        n_permutations,
        "n_permutations",
        minimum=1,
        maximum=MAX_PERMUTATIONS,
        why=": each order costs n_features + 1 model evaluations per row",
    )
    _check_random_state(random_state)
    _check_model(model)
    _check_rows(X, "X")
    if background is not None:
        _check_rows(background, "background")
    rows = _encoded(model, X)
    codes = rows[0]
    names = _feature_names(model, codes.shape[1])
    n_classes = len(model.classes_)

    if method == "conditional":
        if background is not None:
            raise ValueError(
                "method='conditional' uses no background data: the model marginalises the "
                "absent features itself. Pass background=None, or use method='interventional'."
            )
        reference = None
    else:
        # a column no training row observed is read by no node: always missing, never summed
        unread = getattr(getattr(model, "schema_", None), "unobserved", ())
        _check_complete(codes, names, "X", unread)
        reference = rows if background is None else _encoded(model, background)
        _check_complete(reference[0], names, "background", unread)

    if method == "interventional" and output == "log_odds" and hasattr(model, "compiled_"):
        values, base = additive_interventional(model.compiled_, rows, reference)
        error = np.zeros_like(values)
    else:
        evaluate = _ModelOutput(model, output, n_classes, mixed=rows[1] is not None)
        background_rows = None if reference is None else evaluate.layout(*reference)
        game = _Game(evaluate, evaluate.layout(*rows), background_rows)
        _check_cost(game, max_exact_features, n_permutations)
        if codes.shape[1] <= max_exact_features:
            values, base = game.exact()
            error = np.zeros_like(values)
        else:
            values, base, error = game.sampled(n_permutations, np.random.default_rng(random_state))
            _warn_sampled(model, codes.shape[1], max_exact_features, n_permutations, error)

    data, display = _data_arrays(model.categories_, codes, _given_numbers(model, X, rows[1]))
    if n_classes == 2:
        values, base, error = values[..., 0], base[..., 0], error[..., 0]
        output_names = None
    else:
        output_names = [str(c) for c in model.classes_]
    return shap.Explanation(
        values=values,
        base_values=base,
        data=data,
        display_data=display,
        feature_names=names,
        output_names=output_names,
        error_std=error,
    )


def _warn_sampled(model, m, max_exact_features, n_permutations, error):
    """Say that the values are estimates, how far off they may be and how to do better."""
    orders = 2 * -(-n_permutations // 2)
    largest, mean = float(np.max(error, initial=0.0)), float(np.mean(error)) if error.size else 0.0
    warnings.warn(
        SampledShapleyWarning(
            f"The Shapley values of this {type(model).__name__} are estimated from {orders} "
            f"sampled feature orders per row, not computed exactly ({m} features, "
            f"max_exact_features={max_exact_features}): their Monte Carlo standard error is "
            f"up to {largest:.3g} (mean {mean:.3g}; Explanation.error_std holds each one's). "
            "More orders (n_permutations) shrink it as 1/sqrt(orders); "
            f"max_exact_features={m} computes them exactly (2**{m} coalitions per row).",
            largest,
            mean,
        ),
        stacklevel=caller_stacklevel(),
    )


# -- checks and bookkeeping ---------------------------------------------------------------------
def _check_model(model):
    for attribute in ("encode", "predict_log_proba"):
        if not hasattr(model, attribute):
            raise TypeError(
                f"explain needs a bnclassify classifier; {type(model).__name__} has no "
                f"{attribute!r}."
            )
    check_is_fitted(model)
    for attribute in ("classes_", "categories_"):
        if not hasattr(model, attribute):
            raise TypeError(
                f"explain needs a fitted bnclassify classifier; {type(model).__name__} has no "
                f"{attribute!r}."
            )


def _check_cost(game, max_exact_features, n_permutations):
    """Refuse up front a coalition game over ``MAX_GAME_ROWS`` model evaluations (or
    ``MAX_KEYED_GAME_ROWS`` when every feature is categorical), saying what it costs."""
    n, m = len(game.rows), game.n_features
    exact = m <= max_exact_features
    per_row = 2**m if exact else (2 * -(-n_permutations // 2)) * (m + 1)
    width = 1 if game.background is None else len(game.background)
    cost = n * per_row * width
    limit = MAX_KEYED_GAME_ROWS if game.output.keyed else MAX_GAME_ROWS
    if exact and game.output.keyed and game.background is not None and cost > limit:
        # background rows that agree outside a coalition are one term of what exact() sums
        # (each distinct row's output is computed once): count those terms instead
        cost = n * len(game._background_groups(_all_coalitions(m))[0])
        limit = MAX_GROUPED_GAME_TERMS
    if cost <= limit:
        return
    how = f"{n} row(s) x {per_row:,} coalitions" + (
        f" x {width} background rows" if width > 1 else ""
    )
    if exact:
        advice = (
            f"max_exact_features={max_exact_features} asks for all 2**{m} coalitions of "
            f"{m} features: lower it below {m} to estimate the values by sampling "
            "(n_permutations orders per row)"
        )
    else:
        advice = f"lower n_permutations (now {n_permutations})"
    raise ValueError(
        f"explain would evaluate the model on about {cost:,} rows ({how}), more than the "
        f"{limit:,} it evaluates in about a minute; {advice}, explain fewer rows at a time, "
        "or pass a smaller background (e.g. background=X.sample(50))."
    )


def _check_rows(table, name):
    if hasattr(table, "shape") and len(table.shape) and table.shape[0] == 0:
        raise ValueError(f"{name} has no rows; give at least one.")


def _check_random_state(random_state):
    seeds = (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)
    if random_state is None or isinstance(random_state, seeds):
        return
    check_int(random_state, "random_state")


def _feature_names(model, m):
    names = getattr(model, "feature_names_in_", None)
    if names is None:
        try:
            names = model.feature_names_
        except AttributeError:
            names = [f"x{i}" for i in range(m)]
    return [str(n) for n in names]


def _check_complete(codes, names, what, unread=()):
    missing = codes == MISSING
    missing[:, list(unread)] = False
    if missing.any():
        row, column = np.argwhere(missing)[0]
        raise ValueError(
            f"{what} has missing cells (first: row {row}, column {names[column]!r}); "
            "interventional Shapley values need complete rows. Use method='conditional', "
            "which marginalises missing cells exactly."
        )


def _encoded(model, X):
    """``(codes, values)`` of ``X``: integer codes (-1 missing), continuous values or None."""
    encoded = model.encode(X)
    # a model without continuous nodes (BMATAN) encodes to the codes alone
    codes, values = encoded if isinstance(encoded, tuple) else (encoded, None)
    return np.asarray(codes, dtype=np.intp), values


def _given_numbers(model, X, values):
    """The continuous columns of ``X`` as given (a log-normal column's x, not log x)."""
    schema = getattr(model, "schema_", None)
    return values if schema is None else schema.numbers(schema.align(X))


def _data_units(model, values):
    """Encoded continuous values in the data's own units (e.g. a log-normal column's x)."""
    schema = getattr(model, "schema_", None)
    return values if schema is None else schema.data_values(values)


def _data_arrays(categories, codes, values):
    """Numeric values for colouring shap plots, and the values for display.

    A continuous column (no categories) shows its own values in both.
    """
    data = np.empty(codes.shape, dtype=float)
    display = np.empty(codes.shape, dtype=object)
    for j, cats in enumerate(categories):
        if cats is None:
            data[:, j] = values[:, j]
            display[:, j] = values[:, j]
            continue
        if not len(cats):  # a column no training row observed: every cell reads as missing
            data[:, j], display[:, j] = np.nan, None
            continue
        column = codes[:, j]
        missing = column == MISSING
        safe = np.where(missing, 0, column)
        numbers = pd.to_numeric(pd.Series(cats), errors="coerce").to_numpy(dtype=float)
        if np.isnan(numbers).any():
            numbers = np.arange(len(cats), dtype=float)
        data[:, j] = np.where(missing, np.nan, numbers[safe])
        display[:, j] = np.where(missing, None, np.asarray(cats, dtype=object)[safe])
    return data, display


# -- coalition games -----------------------------------------------------------------------------
class _ModelOutput:
    """The explained output of complete or partial rows, each distinct row computed once.

    Partial rows (missing cells: code ``MISSING``, value NaN) are marginalised
    by the model. When every feature is discrete a row is its codes, keyed in
    a mixed radix (cards + 1, the extra digit for missing), and outputs of keys
    already seen are cached. Otherwise (``mixed``) a row is its codes followed
    by its values, ``2 m`` floats, deduplicated as rows.
    """

    def __init__(self, model, output, n_classes, mixed=False):
        self.model = model
        self.output = output
        self.n_outputs = 1 if n_classes == 2 else n_classes
        self.mixed = mixed
        self.keyed = self.dense = False
        if mixed:
            return
        self.radix = np.array([len(c) + 1 for c in model.categories_], dtype=np.int64)
        domain = prod(int(r) for r in self.radix)
        self.keyed = domain <= _MAX_KEYED
        if self.keyed:
            self.strides = np.cumprod(np.r_[1, self.radix[::-1][:-1]])[::-1].astype(np.int64)
        self.dense = domain * self.n_outputs <= _DENSE_CACHE
        if self.dense:
            self.cache = np.empty((domain, self.n_outputs))
            self.filled = np.zeros(domain, dtype=bool)

    # -- the row layout --------------------------------------------------------------
    def layout(self, codes, values):
        """Encoded rows as the game's rows: codes, or codes then values when ``mixed``."""
        if not self.mixed:
            return codes
        return np.concatenate([codes.astype(float), values], axis=1)

    def split(self, rows):
        """Game rows back to ``(codes, values)``."""
        if not self.mixed:
            return rows, None
        m = rows.shape[-1] // 2
        return rows[:, :m].astype(np.intp), rows[:, m:]

    def cells(self, masks):
        """Feature masks (..., m) as masks over the row layout's cells."""
        return np.concatenate([masks, masks], axis=-1) if self.mixed else masks

    @property
    def absent(self):
        """The fill of an absent cell (conditional game), broadcast over a row."""
        if not self.mixed:
            return MISSING
        m = len(self.model.categories_)
        return np.r_[np.full(m, float(MISSING)), np.full(m, np.nan)]

    # -- evaluation ------------------------------------------------------------------
    def scores(self, rows):
        """Class scores equal to log P(c | x) up to a per-row constant, shape (rows, classes)."""
        encoded = self.split(rows)
        compiled = getattr(self.model, "compiled_", None)
        if compiled is not None:
            return compiled.joint_log_likelihood(*encoded)
        if hasattr(
            self.model, "predict_log_proba_encoded"
        ):  # bnclassify ensembles (EnsembleTAN, AODE)
            return self.model.predict_log_proba_encoded(encoded)
        return self.model.predict_log_proba(_decode(self.model, *encoded))

    def transform(self, scores):
        if self.output == "log_odds":
            return contrast(scores.T).T
        proba = softmax(scores, axis=1)
        return proba[:, 1:] if scores.shape[1] == 2 else proba

    def evaluate(self, rows):
        return self.transform(self.scores(rows))

    def __call__(self, rows):
        """Outputs of ``rows`` (..., width) -> (..., n_outputs)."""
        if self.keyed:
            return self.of_keys(self.digits(rows).sum(axis=-1))
        shape = rows.shape[:-1]
        rows = rows.reshape(-1, rows.shape[-1])
        if self.mixed:  # NaN never equals itself: a sentinel lets missing cells deduplicate
            rows = np.where(np.isnan(rows), -np.inf, rows)
        unique, inverse = np.unique(rows, axis=0, return_inverse=True)
        if self.mixed:
            unique = np.where(np.isneginf(unique), np.nan, unique)
        return self.evaluate(unique)[inverse.ravel()].reshape(*shape, self.n_outputs)

    def digits(self, codes):
        """Each cell's share of its row's key (0 for a missing cell); keys are row sums."""
        return (codes + 1) * self.strides

    def of_keys(self, keys):
        """Outputs of the rows with these keys, shape ``(*keys.shape, n_outputs)``."""
        shape = keys.shape
        keys = keys.ravel()
        if self.dense:
            new = np.unique(keys[~self.filled[keys]])
            if len(new):
                self.cache[new] = self.evaluate(self._codes(new))
                self.filled[new] = True
            return self.cache[keys].reshape(*shape, self.n_outputs)
        unique, inverse = np.unique(keys, return_inverse=True)
        return self.evaluate(self._codes(unique))[inverse].reshape(*shape, self.n_outputs)

    def _codes(self, keys):
        return np.stack(np.unravel_index(keys, tuple(self.radix)), axis=1) - 1


def _decode(model, codes, values=None):
    """Encoded rows back to a table (None/NaN where missing) that the model accepts."""
    values = _data_units(model, values)
    schema = getattr(model, "schema_", None)
    binned = np.zeros(len(model.categories_), dtype=bool) if schema is None else schema.binned
    columns = {}
    for j, cats in enumerate(model.categories_):
        column = codes[:, j]
        if cats is None:
            columns[j] = values[:, j]
            continue
        if not len(cats):  # a column no training row observed: every cell missing
            columns[j] = np.full(len(column), None, dtype=object)
            continue
        states = cats
        if binned[j]:  # a number in each interval: a model that bins its own way reads it
            states = bin_representatives(schema.cut_points[j])
        cells = np.asarray(states, dtype=object)[np.where(column == MISSING, 0, column)]
        cells[column == MISSING] = None
        columns[j] = cells
    names = getattr(model, "feature_names_in_", None)
    frame = pd.DataFrame(columns)
    if names is not None:
        frame.columns = list(names)
    else:
        frame = frame.to_numpy()
    return frame


class _Game:
    """Coalition values of every explained row: ``v(S) = output(x_S, rest)``.

    Rows are in the output's layout (:meth:`_ModelOutput.layout`). The rest is
    missing (conditional: the model marginalises it) or each
    background row in turn (interventional: outputs averaged over the
    background).
    """

    def __init__(self, output, rows, background):
        self.output = output
        self.rows = rows
        self.background = background
        self.n_features = len(output.model.categories_)

    def values(self, rows, masks):
        """Coalition values for ``rows`` (n, m) and masks (n or 1, q, m) -> (n, q, outputs)."""
        if self.output.keyed:
            return self._keyed_values(rows, masks)
        x = rows[:, None, :]
        masks = self.output.cells(masks)
        if self.background is None:
            return self.output(np.where(masks, x, self.output.absent))
        out = np.zeros((len(rows), masks.shape[1], self.output.n_outputs))
        b_chunk = max(1, _CHUNK_CELLS // (len(rows) * masks.shape[1] * masks.shape[2]))
        for start in range(0, len(self.background), b_chunk):
            b = self.background[start : start + b_chunk]
            hybrid = np.where(masks[:, :, None, :], x[:, :, None, :], b[None, None, :, :])
            out += self.output(hybrid).sum(axis=2)
        return out / len(self.background)

    def _keyed_values(self, rows, masks):
        """As :meth:`values`, with hybrid rows' keys summed from the two sides' digits.

        The key of "x on S, the rest from b" is the sum of x's digits on S and
        b's digits off S (a missing cell's digit is 0), so no hybrid row is built.
        """
        masks = masks.astype(np.int64)
        shared = masks.shape[0] == 1  # one set of coalitions for every row, or one per row
        present = np.einsum(
            "nj,qj->nq" if shared else "nj,nqj->nq",
            self.output.digits(rows),
            masks[0] if shared else masks,
        )
        if self.background is None:
            return self.output.of_keys(present)
        out = np.zeros((len(rows), masks.shape[1], self.output.n_outputs))
        b_chunk = max(1, _CHUNK_CELLS // (len(rows) * masks.shape[1]))
        for start in range(0, len(self.background), b_chunk):
            digits = self.output.digits(self.background[start : start + b_chunk])
            absent = np.einsum("bj,aqj->aqb", digits, 1 - masks)  # (n or 1, q, b)
            out += self.output.of_keys(present[:, :, None] + absent).sum(axis=2)
        return out / len(self.background)

    def _row_chunk(self, per_row):
        width = 1 if self.background is None else len(self.background)
        return max(1, _CHUNK_CELLS // max(1, per_row * width))

    def exact(self):
        """Exact Shapley values by enumerating all coalitions."""
        n, m = len(self.rows), self.n_features
        masks = _all_coalitions(m)
        weights = _shapley_matrix(masks)
        values = np.empty((n, m, self.output.n_outputs))
        base = np.empty((n, self.output.n_outputs))
        if self.output.keyed and self.background is not None:
            groups = self._background_groups(masks)
            step = max(1, _CHUNK_CELLS // len(groups[0]))
        elif self.output.keyed:
            step = max(1, _CHUNK_CELLS // len(masks))
        else:
            step = self._row_chunk(masks.size)
        for start in range(0, n, step):
            rows = self.rows[start : start + step]
            if self.output.keyed and self.background is not None:
                v = self._grouped_values(rows, masks, *groups)
            else:
                v = self.values(rows, masks[None])
            values[start : start + step] = np.einsum("nko,km->nmo", v, weights)
            base[start : start + step] = v[:, 0]
        return values, base

    def _background_groups(self, masks):
        """Per coalition, the distinct keys of the background's absent part and their weights.

        A coalition's value averages over the background, but only the cells
        outside the coalition matter: background rows that agree there are
        one term, weighted by their count. Returns flat arrays ``(coalition,
        key, weight)`` sorted by coalition, and where each coalition starts.
        """
        digits = self.output.digits(self.background)
        absent = np.sort(np.einsum("bj,qj->qb", digits, 1 - masks.astype(np.int64)), axis=1)
        first = np.ones(absent.shape, dtype=bool)
        first[:, 1:] = absent[:, 1:] != absent[:, :-1]
        coalition, position = np.nonzero(first)
        flat = coalition * absent.shape[1] + position
        counts = np.diff(np.r_[flat, absent.size])
        starts = np.flatnonzero(np.r_[True, coalition[1:] != coalition[:-1]])
        return coalition, absent[coalition, position], counts / absent.shape[1], starts

    def _grouped_values(self, rows, masks, coalition, keys, weight, starts):
        present = self.output.digits(rows) @ masks.T.astype(np.int64)  # (n, q)
        outputs = self.output.of_keys(present[:, coalition] + keys) * weight[:, None]
        return np.add.reduceat(outputs, starts, axis=1)

    def sampled(self, n_permutations, rng):
        """Antithetic permutation-sampling estimate, its standard error, exact additivity."""
        n, m = len(self.rows), self.n_features
        half = -(-n_permutations // 2)
        values = np.empty((n, m, self.output.n_outputs))
        error = np.empty_like(values)
        base = np.empty((n, self.output.n_outputs))
        step = self._row_chunk(2 * half * (m + 1) * m)
        for start in range(0, n, step):
            rows = self.rows[start : start + step]
            orders = np.argsort(rng.random((len(rows), half, m)), axis=2)
            orders = np.concatenate([orders, orders[:, :, ::-1]], axis=1)
            rank = np.argsort(orders, axis=2)  # position of each feature in its order
            masks = rank[:, :, None, :] < np.arange(m + 1)[None, None, :, None]
            v = self.values(rows, masks.reshape(len(rows), -1, m))
            v = v.reshape(len(rows), 2 * half, m + 1, -1)
            steps = np.diff(v, axis=2)  # steps[..., t, :]: gain of the t-th feature of the order
            gains = np.take_along_axis(steps, rank[..., None], axis=2)  # (rows, orders, m, out)
            pairs = 0.5 * (gains[:, :half] + gains[:, half:])  # antithetic pairs are independent
            values[start : start + step] = pairs.mean(axis=1)
            spread = pairs.std(axis=1, ddof=1) if half > 1 else np.zeros_like(pairs[:, 0])
            error[start : start + step] = spread / np.sqrt(half)
            base[start : start + step] = v[:, 0, 0]
        return values, base, error


def _all_coalitions(m):
    """All 2**m coalitions as boolean masks, coalition k holding the features of k's bits."""
    return (np.arange(2**m)[:, None] >> np.arange(m)[None, :]) & 1 == 1


def _shapley_matrix(masks):
    """W with ``phi = V @ W``: +w(|S|-1) where i is in S, -w(|S|) where it is not."""
    m = masks.shape[1]
    size = masks.sum(axis=1)
    weight = np.array([shapley_weight(s, m) for s in range(m)] + [0.0])
    return np.where(masks, weight[np.maximum(size - 1, 0)][:, None], -weight[size][:, None])
