"""Decomposable network scores: one family's score from its counts, cached per family.

The score of a Bayesian network over discrete variables is a sum of one term
per family (a node and its parents), each a function of the family's counts
``N_jk`` (rows with the parents in their joint state ``j`` and the node in
state ``k``), ``N_j = sum_k N_jk``, the node's ``r`` states and the ``q``
joint states of its parents. With ``Gamma`` the gamma function and ``n`` the
number of rows:

- ``"loglik"``: the maximised log-likelihood ``sum_jk N_jk log(N_jk / N_j)``;
- ``"bic"``: ``loglik - log(n) / 2 * q (r - 1)`` (Schwarz 1978; the MDL score);
- ``"aic"``: ``loglik - q (r - 1)`` (Akaike 1974);
- ``"bd"``: the Bayesian Dirichlet marginal likelihood with the pseudo-count ``a``
  in every cell, ``sum_j [log Gamma(r a) - log Gamma(N_j + r a)] +
  sum_jk [log Gamma(N_jk + a) - log Gamma(a)]`` (Weka's ``BAYES`` score, whose
  ``a`` is its estimator's alpha);
- ``"k2"``: ``"bd"`` with ``a = 1``, Cooper and Herskovits' (1992) score;
- ``"bdeu"``: ``"bd"`` with ``a = ess / (q r)`` in every cell (so ``ess / q`` per
  parent state), Heckerman, Geiger and Chickering's (1995) likelihood-equivalent
  score with the equivalent sample size ``ess``;
- ``"bds"``: Scutari's (2016) sparse BDeu, ``"bd"`` with ``a = ess / (q~ r)`` in the
  cells of the ``q~`` parent states that occur (and none elsewhere), so the
  equivalent sample size is not spread over parent states no row has. BDeu's
  ``ess / q`` per parent state shrinks with every parent added, which on a small
  table rewards families of many parents whose few occurring states each hold one
  class (Suzuki 2017; anneal: families of 14 and 16 parents on 449 rows, against
  at most 6 with BDs).

Logarithms are natural. A parent state that never occurs adds nothing to any
of them (its terms are 0), and ``q`` counts every joint state of the parents,
occurring or not. Counts come from :class:`~bnclassify.stats.VariableCounts`,
a family's on the rows that observe all of its variables; ``n`` is every row.
These are the definitions of pgmpy's ``structure_score`` (``"bdeu"``,
``"bic-d"``, ``"aic-d"``, ``"ll-d"``) to rounding; pgmpy's ``"k2"`` adds
``log Gamma(r)`` for every parent state that never occurs, which
Cooper and Herskovits' product (each such state's factor is ``(r-1)! / (r-1)! = 1``)
does not.

**Missing cells.** With missing cells two families of one node may be counted
on different rows, and their scores are then not comparable (a parent
observed in two rows leaves a family of two rows, whose score beats that of
any family of all the rows). A search therefore compares families by the
gain of one parent, :meth:`FamilyScores.gains`: the family with the parent
and the one without it, both on the rows that observe the larger one. On a
complete table a gain is the difference of the two families' scores; with
missing cells the missingness of a column never counts for or against it
(prediction sums a missing cell out, so a structure that read missingness
would be wrong there).

pgmpy's ``BDs`` (1.1.2) is not Scutari's score: it takes ``ess / q~`` per
occurring parent state but ``ess / (q r)`` per cell, so its Dirichlet's total
is not its cells' sum; ``"bds"`` here follows the paper.
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np
from scipy.special import gammaln

from .stats import VariableCounts

#: The scores :class:`FamilyScores` computes.
SCORES = ("bdeu", "bd", "k2", "bic", "aic", "loglik", "bds")
#: The most cells (an upper bound: every joint parent state that may occur) of the family
#: tables counted and scored at once; more candidates are taken in blocks (64 MB of floats).
FAMILY_CELLS = 1 << 23


def family_scores(tables, q_totals, score="bdeu", prior_weight=1.0, n_rows=None) -> np.ndarray:
    """The score of each family from its counts (all of one node, the same number of states).

    Parameters
    ----------
    tables : list of ndarray of shape (q_k, r)
        Counts ``N_jk``, one row per parent state (rows of zeros allowed).
    q_totals : array of float
        Each family's number of joint parent states ``q``, occurring or not.
    score : {"bdeu", "bd", "k2", "bic", "aic", "loglik", "bds"}, default="bdeu"
    prior_weight : float, default=1.0
        ``"bdeu"`` and ``"bds"``: the equivalent sample size; ``"bd"``: the pseudo-count
        of each cell.
    n_rows : float, optional
        The number of rows (``"bic"``'s penalty); default: the first table's total.

    Returns
    -------
    ndarray of shape (len(tables),)

    Examples
    --------
    One binary node without parents seen 3 and 1 times: K2 is
    ``log(1! 3! 1! / 5!)``.

    >>> counts = np.array([[3.0, 1.0]])
    >>> bool(np.isclose(family_scores([counts], [1], "k2")[0], np.log(6 / 120)))
    True
    >>> loglik = family_scores([counts], [1], "loglik")[0]
    >>> bool(np.isclose(loglik, 3 * np.log(3 / 4) + np.log(1 / 4)))
    True
    """
    if score not in SCORES:
        raise ValueError(f"score must be one of {SCORES}, got {score!r}.")
    if not len(tables):
        return np.zeros(0)
    r = tables[0].shape[1]
    rows = np.array([len(t) for t in tables])
    stacked = np.concatenate([np.asarray(t, dtype=float).reshape(-1, r) for t in tables])
    segment = np.repeat(np.arange(len(tables)), rows)
    return segment_scores(stacked, segment, q_totals, score, prior_weight, n_rows)


def segment_scores(stacked, segment, q_totals, score="bdeu", prior_weight=1.0, n_rows=None):
    """:func:`family_scores` of tables given as rows: ``stacked[i]`` is a row of counts of
    family ``segment[i]``, the rows of a family in order (others' rows may come between).

    Each family's terms are summed in the order of its rows, so the tables of
    :func:`family_scores` laid out this way, interleaved or not, score the same
    to the last bit.

    Parameters
    ----------
    stacked : ndarray of shape (k, r)
    segment : ndarray of int, shape (k,)
        Each row's family, ``0 .. len(q_totals) - 1``.
    q_totals, score, prior_weight, n_rows
        As in :func:`family_scores`.

    Returns
    -------
    ndarray of shape (len(q_totals),)

    Examples
    --------
    Two families of a binary node, their rows interleaved:

    >>> stacked = np.array([[3.0, 1.0], [2.0, 0.0], [0.0, 4.0], [1.0, 1.0]])
    >>> scores = segment_scores(stacked, np.array([0, 1, 0, 1]), [2, 2], "bic")
    >>> expected = family_scores([stacked[[0, 2]], stacked[[1, 3]]], [2, 2], "bic", n_rows=12)
    >>> bool(np.array_equal(scores, expected))
    True
    """
    if score not in SCORES:
        raise ValueError(f"score must be one of {SCORES}, got {score!r}.")
    r = stacked.shape[1]
    q = np.asarray(q_totals, dtype=float)
    families = len(q)
    totals = stacked.sum(axis=1)
    # only the occurring cells and parent states: every other one adds exactly 0
    flat = np.flatnonzero(stacked)  # row by row, as np.nonzero, without the columns
    cells = stacked.ravel()[flat]
    row = flat // r if r else flat
    cell_segment = segment[row]
    seen = totals > 0
    if score in ("loglik", "bic", "aic"):
        terms = cells * np.log(cells / totals[row])
        out = np.bincount(cell_segment, terms, minlength=families)
        if score == "bic":
            n = float(totals.sum()) if n_rows is None else float(n_rows)
            out = out - 0.5 * math.log(n) * q * (r - 1) if n > 0 else out
        elif score == "aic":
            out = out - q * (r - 1)
        return out
    if score == "bdeu":
        cell_prior = float(prior_weight) / (q * r)
    elif score == "bds":  # over the parent states that occur (a family of none: any value)
        occurring = np.bincount(segment[seen], minlength=families)
        cell_prior = float(prior_weight) / (np.maximum(occurring, 1) * r)
    else:
        cell_prior = np.full(families, 1.0 if score == "k2" else float(prior_weight))
    # the priors' log-gammas once per family (the same numbers as per cell and per row)
    row_prior = cell_prior * r
    seen_segment = segment[seen]
    a = cell_prior[cell_segment]
    cell_terms = gammaln(cells + a) - gammaln(cell_prior)[cell_segment]
    out = np.bincount(cell_segment, cell_terms, minlength=families)
    row_terms = gammaln(row_prior)[seen_segment] - gammaln(totals[seen] + row_prior[seen_segment])
    out += np.bincount(seen_segment, row_terms, minlength=families)
    return out


class FamilyScores:
    """The score of any family of a table's variables, each computed once and cached.

    Parameters
    ----------
    counts : bnclassify.stats.VariableCounts
    score : {"bdeu", "bd", "k2", "bic", "aic", "loglik", "bds"}, default="bdeu"
    prior_weight : float, default=1.0
        As in :func:`family_scores`.
    class_variable : int, optional
        The class's variable, when the variables include a class whose fitted network
        keeps every family without it once per class (the searches then count such a
        family's cells once per class); default: none.

    Examples
    --------
    >>> from bnclassify.stats import VariableCounts
    >>> codes = np.array([[0, 0], [1, 1], [1, 1], [0, 1]])
    >>> scores = FamilyScores(VariableCounts.from_rows(codes, [0, 1, 1, 0], [2, 2], 2), "bic")
    >>> scores(2, ()) < scores(2, (0,))  # the class follows x_0
    True
    >>> float(scores.gains(2, (), [0])[0]) > 0
    True
    >>> total = scores.network({0: (), 1: (0,), 2: (0,)})
    >>> total == scores(0, ()) + scores(1, (0,)) + scores(2, (0,))
    True
    """

    def __init__(self, counts: VariableCounts, score="bdeu", prior_weight=1.0, class_variable=None):
        if score not in SCORES:
            raise ValueError(f"score must be one of {SCORES}, got {score!r}.")
        self.counts = counts
        self.class_variable = None if class_variable is None else int(class_variable)
        self.score = score
        self.prior_weight = float(prior_weight)
        self.n_rows = counts.n_rows
        self.cache: dict = {}
        self.gain_cache: dict = {}
        # _side_by_side's: the segments of each layout of its counts, and each family's table
        self._layouts: dict = {}
        self._tables: dict = {}

    def _scored(self, child, tables, parent_sets) -> list:
        cards = self.counts.cards
        q = [math.prod(int(cards[p]) for p in parents) for parents in parent_sets]
        values = family_scores(tables, q, self.score, self.prior_weight, self.n_rows)
        for parents, value in zip(parent_sets, values, strict=True):
            self.cache[(child, frozenset(parents))] = float(value)
        return [float(v) for v in values]

    def __call__(self, child, parents=()) -> float:
        """The score of ``child`` given ``parents`` (any order: the set is what counts), on
        the rows that observe the family."""
        key = (child, frozenset(parents))
        if key not in self.cache:
            parents = sorted(parents)
            self._scored(child, [self.counts.family_counts(child, parents)], [parents])
        return self.cache[key]

    @property
    def cards(self) -> np.ndarray:
        """Each variable's number of states (the class last)."""
        return self.counts.cards

    def gains(self, child, parents, candidates) -> np.ndarray:
        """What adding each one of ``candidates`` to ``parents`` changes in ``child``'s score.

        Both families are scored on the same rows, those observing the larger one
        (``parents``, the candidate and the child): on a complete table the
        difference of the two families' scores. The gains not cached yet are
        counted together (:meth:`~bnclassify.stats.VariableCounts.extended_counts`),
        in blocks of at most :data:`FAMILY_CELLS` cells; removing ``u`` from a
        family gains ``-gains(child, family - {u}, [u])``.

        Examples
        --------
        >>> from bnclassify.stats import VariableCounts
        >>> codes = np.array([[0, 0], [1, 1], [1, 1], [0, 1]])
        >>> counts = VariableCounts.from_rows(codes, [0, 1, 1, 0], [2, 2], 2)
        >>> scores = FamilyScores(counts, "bic")
        >>> bool(np.isclose(scores.gains(2, (), [0])[0], scores(2, (0,)) - scores(2, ())))
        True
        """
        parents = sorted(parents)
        base = frozenset(parents)
        todo = [u for u in candidates if (child, base, u) not in self.gain_cache]
        if not todo or self._side_by_side(child, parents, todo):
            return np.array([self.gain_cache[(child, base, u)] for u in candidates])
        cards = self.counts.cards
        q = math.prod(int(cards[p]) for p in parents)
        r = int(cards[child])
        for block in self._blocks(child, parents, todo):
            tables = self.counts.extended_counts(child, parents, block)
            # the families with and without each candidate, scored in one call
            both = family_scores(
                [t.reshape(-1, r) for t in tables] + [t.sum(axis=1) for t in tables],
                [q * int(cards[u]) for u in block] + [q] * len(block),
                self.score,
                self.prior_weight,
                self.n_rows,
            )
            with_u, without = both[: len(block)], both[len(block) :]
            for u, a, b in zip(block, with_u, without, strict=True):
                self.gain_cache[(child, base, u)] = float(a - b)
        return np.array([self.gain_cache[(child, base, u)] for u in candidates])

    @cached_property
    def _exact_sums(self) -> bool:
        """Whether every sum of the rows' weights is exact (integer weights, a total below
        2^53): then a family's counts are the same numbers however they are added up."""
        weights = self.counts.weights
        return bool(np.all(weights == np.floor(weights)) and weights.sum() < 2.0**53)

    def _side_by_side(self, child, parents, candidates) -> bool:
        """The gains of ``candidates`` from one array of their counts
        (:meth:`~bnclassify.stats.VariableCounts.side_by_side`) and one call of
        :func:`segment_scores`, cached; False (nothing done) when that array is not
        counted.

        With no missing cell, the family without a candidate is the same for every
        candidate (``parents`` and the child on every row), and with exact sums its
        counts are the same numbers as the candidate's table summed over its states:
        it is scored once, and kept as the family's score (what :meth:`__call__`
        would count and score again). Each family's terms are summed in the order of
        :meth:`gains`' tables, so the gains are the same to the last bit.
        """
        if not self._exact_sums or (not parents and self.counts.pairs is not None):
            return False
        cards = self._cards
        r = cards[child]
        states = tuple(cards[u] for u in candidates)
        k = len(candidates)
        # one block of _blocks (its rows of counts are at most the rows of the table)
        per_state = min(math.prod(cards[p] for p in parents), len(self.counts.codes)) * r
        if k > 1 and per_state * sum(states) > FAMILY_CELLS:
            return False
        flat = self.counts.side_by_side(child, parents, candidates)
        if flat is None:
            return False
        q = len(flat)
        without = flat[:, : states[0] * r].reshape(q, states[0], r).sum(axis=1)
        # a parent state no row is in adds nothing to any family (its rows of counts are 0 in
        # every table): left out, the other terms are the same, summed in the same order
        occurring = without.any(axis=1)
        seen = int(np.count_nonzero(occurring))
        if seen < q:
            stacked = np.concatenate([flat[occurring].reshape(-1, r), without[occurring]])
        else:
            stacked = np.concatenate([flat.reshape(-1, r), without])
        segment = self._layouts.get((seen, states))
        if segment is None:
            # the rows of flat: parent state by parent state, each candidate's states in turn
            segment = np.repeat(np.arange(k), states)
            segment = np.concatenate([np.tile(segment, seen), np.full(seen, k)])
            self._layouts[(seen, states)] = segment
        q_totals = [*(q * s for s in states), q]
        both = segment_scores(
            stacked, segment, q_totals, self.score, self.prior_weight, self.n_rows
        )
        base = frozenset(parents)
        for u, a in zip(candidates, both[:k], strict=True):
            self.gain_cache[(child, base, u)] = float(a - both[k])
        # the family without a candidate is the family itself, on every row
        self.cache.setdefault((child, base), float(both[k]))
        self._tables[(child, base)] = without
        return True

    @cached_property
    def _cards(self) -> list:
        return [int(c) for c in self.counts.cards]

    def _blocks(self, child, parents, candidates) -> list:
        """``candidates`` in consecutive blocks whose tables hold at most :data:`FAMILY_CELLS`
        cells together (a candidate larger than that alone), so that memory stays bounded
        where a node has many states (an identifier) or many joint parent states."""
        cards = self.counts.cards
        q = min(math.prod(int(cards[p]) for p in parents), len(self.counts.codes))
        per_state = q * int(self.counts.cards[child])
        blocks, block, cells = [], [], 0
        for u in candidates:
            size = per_state * int(cards[u])
            if block and cells + size > FAMILY_CELLS:
                blocks.append(block)
                block, cells = [], 0
            block.append(u)
            cells += size
        return [*blocks, block] if block else blocks

    def removal_gains(self, child, parents) -> np.ndarray:
        """What removing each one of ``parents`` changes in ``child``'s score:
        ``-gains(child, parents - {u}, [u])`` for each ``u``, in the order given.

        Every one of these pairs of families is counted on the same rows, those
        observing ``parents`` and the child, so the family's table, counted once,
        gives them all (each smaller family by summing out one parent) when it has at
        most :data:`FAMILY_CELLS` cells.

        Examples
        --------
        >>> from bnclassify.stats import VariableCounts
        >>> codes = np.array([[0, 0], [1, 1], [1, 1], [0, 1]])
        >>> scores = FamilyScores(VariableCounts.from_rows(codes, [0, 1, 1, 0], [2, 2], 2))
        >>> bool(np.allclose(scores.removal_gains(2, (0, 1)), [
        ...     -scores.gains(2, (1,), [0])[0], -scores.gains(2, (0,), [1])[0]]))
        True
        """
        parents = list(parents)
        keys = [(child, frozenset(parents) - {u}, u) for u in parents]
        todo = [k for k, key in enumerate(keys) if key not in self.gain_cache]
        cards = self.counts.cards
        family = [*parents, child]
        if len(todo) > 1 and math.prod(int(cards[v]) for v in family) <= FAMILY_CELLS:
            table = self._tables.get((child, frozenset(parents)))
            if table is not None and parents == sorted(parents):  # the same counts, laid out
                table = table.reshape([int(cards[v]) for v in family])  # as table() lays them
            else:
                table = self.counts.table(family)
            r, q = int(cards[child]), math.prod(int(cards[p]) for p in parents)
            smaller = [table.sum(axis=k).reshape(-1, r) for k in todo]
            both = family_scores(
                [table.reshape(-1, r), *smaller],
                [q] + [q // int(cards[parents[k]]) for k in todo],
                self.score,
                self.prior_weight,
                self.n_rows,
            )
            for k, without in zip(todo, both[1:], strict=True):
                self.gain_cache[keys[k]] = float(both[0] - without)
        out = []
        for key in keys:
            gain = self.gain_cache.get(key)
            out.append(-(self.gains(child, sorted(key[1]), [key[2]])[0] if gain is None else gain))
        return np.array(out)

    def network(self, parents_of) -> float:
        """The score of a whole network, ``{node: parents}`` over every variable."""
        return float(sum(self(child, parents) for child, parents in parents_of.items()))

    def change(self, child, before, after) -> float:
        """What changing ``child``'s parents from ``before`` to ``after`` changes in its
        score, both families on the rows that observe the child and both parent sets.

        :meth:`gains` generalised to any two parent sets: on a complete table (or when
        none of these variables misses a cell) the difference of the two families'
        scores; otherwise neither family is scored on rows the other cannot see.

        Examples
        --------
        ``x_1`` is seen in two rows only, where it tells the class as well as ``x_0``
        does; its family's score on those two rows is higher all the same:

        >>> from bnclassify.stats import VariableCounts
        >>> codes = np.array([[0, 0], [1, 1], [1, -1], [0, -1], [1, -1]])
        >>> counts = VariableCounts.from_rows(codes, [0, 1, 0, 0, 1], [2, 2], 2)
        >>> scores = FamilyScores(counts, "loglik")
        >>> scores.change(2, (0,), (1,)), round(scores(2, (1,)) - scores(2, (0,)), 2)
        (0.0, 1.91)
        >>> bool(np.isclose(scores.change(2, (1,), (0, 1)), scores.gains(2, (1,), [0])[0]))
        True
        """
        before, after = sorted(before), sorted(after)
        if before == after:
            return 0.0
        family = sorted({child, *before, *after})
        if not self.counts.has_missing[family].any():
            return self(child, after) - self(child, before)
        rows = self.counts.observed(family)
        cards = self.counts.cards
        tables = [self.counts.family_counts(child, ps, rows=rows) for ps in (after, before)]
        q = [math.prod(int(cards[p]) for p in ps) for ps in (after, before)]
        both = family_scores(tables, q, self.score, self.prior_weight, self.n_rows)
        return float(both[0] - both[1])

    def network_change(self, before, after) -> float:
        """What replacing the network ``before`` by ``after`` (each a list of every node's
        parents) changes in its score: the sum of :meth:`change` over the nodes whose
        parents differ. On a complete table ``network(after) - network(before)``; with
        missing cells the comparison of two graphs a search can trust, where the
        difference of their :meth:`network` scores rewards families seen on fewer rows.

        Examples
        --------
        >>> from bnclassify.stats import VariableCounts
        >>> codes = np.array([[0, 0], [1, 1], [1, 1], [0, 1]])
        >>> scores = FamilyScores(VariableCounts.from_rows(codes, [0, 1, 1, 0], [2, 2], 2), "bic")
        >>> empty, arc = [(), (), ()], [(), (), (0,)]
        >>> change = scores.network_change(empty, arc)
        >>> bool(np.isclose(change, scores.network(dict(enumerate(arc)))
        ...     - scores.network(dict(enumerate(empty)))))
        True
        """
        pairs = enumerate(zip(before, after, strict=True))
        return float(sum(self.change(v, b, a) for v, (b, a) in pairs))
