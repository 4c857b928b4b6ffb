"""Score-based search for a DAG over any variables: hill climbing, tabu search and K2.

The searches see variables as positions ``0 .. n - 1`` and a decomposable
score through ``scores(child, parents)`` (a family's score),
``scores.gains(child, parents, candidates)`` (what adding each candidate parent
changes, both families on the same rows) and ``scores.removal_gains(child,
parents)`` (what removing each parent changes), as
:class:`bnclassify.scores.FamilyScores` gives them. A move changes one or two
families, so only those are scored again; every family's score and gain is
cached by the scorer. Ties (equal changes of the score) go to the
move listed first: additions, then removals, then reversals, each by parent
position then child position, so a caller that numbers the variables by name
(:func:`bnclassify.structure.name_order`) gets a search that does not depend
on where a column sits in the table. "Equal" is as computed by default
(``ties="largest"``: gains equal in exact arithmetic may differ in their last
bits, and rounding then decides), and within :data:`RELATIVE_TOLERANCE` of the
graph's score with ``ties="first"``, the rule of :func:`iterated_search`.

That rule is also the compiled search's: with the extension built, the
iterated search (and ``ties="first"``'s climb and walk) runs as one call of a C
kernel (``bnclassify._native.search``) that counts and scores the families
itself, caches every gain by (child, parent set, candidate) and keeps the
graph's reachability as bitsets; the Python search here is its twin (run
without the extension or with ``BNCLASSIFY_NUMPY_KERNELS=1``): the same moves,
the scores equal to rounding.

- :func:`hill_climbing`: from a start graph, apply the best of every legal
  addition, removal and reversal of one arc while it improves the score
  (Heckerman, Geiger and Chickering 1995; Koller and Friedman 2009, section
  18.4.3; pgmpy's ``HillClimbSearch`` and Weka's ``HillClimber``). A tabu list
  of the last ``tabu_length`` moves' inverses keeps it from undoing them.
- :func:`tabu_search`: the same moves, but the best legal move not on the tabu
  list is taken even when it lowers the score, until ``tabu_length`` moves in
  a row have not improved on the best graph met, which is returned (Glover
  1989; Bouckaert 1995; Weka's ``TabuSearch`` makes a fixed number of moves).
  While moves improve it climbs as hill climbing does, so its graph scores at
  least as high as hill climbing's from the same start.
- :func:`iterated_search`: the tabu walk, then restarts from random
  perturbations of the best graph met, each walked again, the best kept
  (iterated local search: a graph that does not rest on one order of ties).
- :func:`k2`: Cooper and Herskovits' (1992) greedy search given an order: each
  node in turn gets the earlier node that most raises its score as a parent,
  while that raises it and it has fewer than ``max_parents`` parents.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ._native import dag_search as dag_search_kernel
from .scores import FamilyScores
from .stats import MAX_FAMILY_CELLS

#: Smallest relative gain a move must bring to be taken by hill climbing and K2 (the
#: scores are sums of many terms; a gain below this is rounding, e.g. a reversal between
#: equivalent graphs).
RELATIVE_TOLERANCE = 1e-10

ADD, REMOVE, REVERSE = 0, 1, 2
MOVES = ("add", "remove", "reverse")


class _Graph:
    """A DAG under search: its parent sets, arcs, reachability and the moves' score changes."""

    def __init__(self, scores, n, parents, max_parents, forbidden, required, tolerant=False):
        self.scores, self.n = scores, n
        # ties: the first move within the tolerance of the best (the iterated search's rule,
        # shared with the compiled search), else np.argmax's (hill climbing's and tabu's)
        self.tolerant = tolerant
        self.parents = [set(p) for p in parents]
        # arcs[u, v]: the arc u -> v; allowed[u, v]: it may exist; required[u, v]: it must
        self.arcs, self.allowed, self.required = _arc_masks(n, self.parents, forbidden, required)
        self.max_parents = n if max_parents is None else int(max_parents)
        self._reach = None  # reach(), when counted since the last removal
        # each node's possible parents, in position order (allowed does not change)
        self._into = [np.flatnonzero(self.allowed[:, v]).tolist() for v in range(n)]
        self.add_gain = np.full((n, n), -np.inf)  # [u, v]: adding u -> v
        self.remove_gain = np.full((n, n), -np.inf)  # [u, v]: removing u -> v
        for v in range(n):
            self._rescore(v)
        # the start's score, then the gains of the moves made (equal to the sum of the
        # families' scores on a complete table)
        self.score = float(sum(scores(v, tuple(self.parents[v])) for v in range(n)))

    def _rescore(self, v):
        """The gains of every move that changes ``v``'s parent set."""
        parents = tuple(sorted(self.parents[v]))
        self.add_gain[:, v] = -np.inf
        self.remove_gain[:, v] = -np.inf
        if len(parents) < self.max_parents:
            candidates = [u for u in self._into[v] if u not in self.parents[v]]
            candidates = _within_cells(self.scores, v, parents, candidates)
            if candidates:
                self.add_gain[candidates, v] = self.scores.gains(v, parents, candidates)
        if parents:
            self.remove_gain[list(parents), v] = self.scores.removal_gains(v, parents)

    def reach(self) -> np.ndarray:
        """``reach[a, b]``: a directed path of at least one arc from ``a`` to ``b``."""
        if self._reach is not None:  # kept up to date by the additions since the last count
            return self._reach
        # paths of up to 2^k arcs after k squarings (log2(n) matrix products, no Python
        # loop over the nodes: what each move costs on a small table); the products in
        # float32, which BLAS multiplies (numpy's integer and bool products do not) and which
        # counts paths of two steps exactly up to 2^24 nodes
        reach = self.arcs.astype(np.float32)
        while True:
            longer = ((reach + reach @ reach) > 0).astype(np.float32)
            if np.array_equal(longer, reach):
                self._reach = reach.astype(bool)
                return self._reach
            reach = longer

    def moves(self, tabu) -> np.ndarray:
        """The gain of every move, ``(3, n, n)``: -inf where the move is illegal or tabu."""
        arcs, reach = self.arcs, self.reach()
        room = np.fromiter(map(len, self.parents), np.int64, self.n) < self.max_parents
        gains = np.full((3, self.n, self.n), -np.inf)
        legal_add = ~(arcs | arcs.T | reach.T) & self.allowed & room[None, :]
        np.copyto(gains[ADD], self.add_gain, where=legal_add)
        legal_remove = arcs & ~self.required
        np.copyto(gains[REMOVE], self.remove_gain, where=legal_remove)
        # u -> v reverses when no other path leads from u to v (an arc u -> w with w reaching
        # v) and v may parent u; asked of the removable arcs only, not of all n^2 pairs
        legal_reverse = legal_remove & self.allowed.T & room[:, None]
        tails, heads = np.nonzero(legal_reverse)
        if len(tails):
            other_path = (arcs[tails] & reach[:, heads].T).any(axis=1)
            legal_reverse[tails[other_path], heads[other_path]] = False
        np.copyto(gains[REVERSE], self.remove_gain + self.add_gain.T, where=legal_reverse)
        for kind, u, v in tabu:
            gains[kind, u, v] = -np.inf
        return gains

    @classmethod
    def starting(cls, scores, n, start, max_parents, forbidden, required):
        """The graph of ``start`` with the ``required`` arcs and without the ``forbidden``."""
        forbidden, required = list(forbidden), list(required)
        parents = _start(n, start, required, forbidden)
        return cls(scores, n, parents, max_parents, forbidden, required)

    def best_move(self, tabu, reversal=True):
        """``(gain, (kind, u, v))`` of the best legal move off the tabu list (-inf when there
        is none).

        Ties: the first move in the order of :meth:`moves`' array among the largest gains;
        a ``tolerant`` graph's among those within :func:`_tolerance` (of the graph's score)
        of the largest. Gains equal in exact arithmetic (``u -> v`` and ``v -> u`` under a
        score-equivalent score) differ by rounding, which decides between them by the
        first rule, and differently in the compiled search (``bnclassify._native.search``),
        which sums in another order: the second rule is what both follow.
        """
        gains = self.moves(tabu)
        if not reversal:
            gains[REVERSE] = -np.inf
        if not self.tolerant:
            best = int(np.argmax(gains))
            kind, u, v = np.unravel_index(best, gains.shape)
            return float(gains.flat[best]), (int(kind), int(u), int(v))
        flat = gains.ravel()
        top = float(flat.max())
        if not np.isfinite(top):
            return top, (0, 0, 0)
        best = int(np.argmax(flat >= top - _tolerance(self.score)))
        kind, u, v = np.unravel_index(best, gains.shape)
        return float(flat[best]), (int(kind), int(u), int(v))

    def make(self, move, tabu, tabu_length, path) -> list:
        """Apply ``move``, add it to ``path``; return the tabu list with its undoing last."""
        undo = self.apply(*move)
        kind, u, v = move
        path.append((MOVES[kind], u, v, self.score))
        return [*tabu, undo][-int(tabu_length) :] if tabu_length else tabu

    def apply(self, kind, u, v):
        """Make the move (``kind`` on the arc ``u -> v``); return the move that undoes it."""
        if kind == ADD:
            self.score += self.add_gain[u, v]
        elif kind == REMOVE:
            self.score += self.remove_gain[u, v]
        else:
            self.score += self.remove_gain[u, v] + self.add_gain[v, u]
        if kind == ADD:
            self.parents[v].add(u)
            self.arcs[u, v] = True
            if self._reach is not None:  # u and what reaches it now reach v and what v reaches
                into, out = self._reach[:, u].copy(), self._reach[v].copy()
                into[u] = out[v] = True
                self._reach |= into[:, None] & out[None, :]
            self._rescore(v)
            return REMOVE, u, v
        self._reach = None
        self.parents[v].discard(u)
        self.arcs[u, v] = False
        self._rescore(v)
        if kind == REMOVE:
            return ADD, u, v
        self.parents[u].add(v)
        self.arcs[v, u] = True
        self._rescore(u)
        return REVERSE, v, u


def _start(n, start, required, forbidden) -> list:
    parents = [set() for _ in range(n)] if start is None else [set(p) for p in start]
    if len(parents) != n:
        raise ValueError(f"start must give the parents of each of the {n} variables.")
    for u, v in required:
        parents[v].add(u)
    for u, v in forbidden:
        parents[v].discard(u)
    topological_order(parents)  # a cycle is a ValueError
    return parents


def _arc_masks(n, parents, forbidden, required) -> tuple:
    """``(arcs, allowed, required)``, each ``(n, n)`` bool indexed ``[u, v]`` for the arc
    ``u -> v``: in the graph of ``parents``, allowed (not a loop, not ``forbidden``), required."""
    arcs = np.zeros((n, n), dtype=bool)
    for v, ps in enumerate(parents):
        arcs[list(ps), v] = True
    allowed = ~np.eye(n, dtype=bool)
    for u, v in forbidden:
        allowed[u, v] = False
    needed = np.zeros((n, n), dtype=bool)
    for u, v in required:
        needed[u, v] = True
    return arcs, allowed, needed


def _within_cells(scores, child, parents, candidates) -> list:
    """The ``candidates`` whose arc to ``child`` keeps its table within
    :data:`~bnclassify.stats.MAX_FAMILY_CELLS` cells (the fitted network would refuse a
    larger one), when ``scores`` says the variables' numbers of states (``cards``). A
    family without the class (``scores.class_variable``, when it names one) is kept once
    per class by the fitted network, so its cells count once per class."""
    cards = getattr(scores, "cards", None)
    if cards is None:
        return candidates
    cls = getattr(scores, "class_variable", None)
    family = int(cards[child]) * math.prod(int(cards[p]) for p in parents)
    rooted = cls is None or child == cls or cls in parents
    return [
        u
        for u in candidates
        if family * int(cards[u]) * (1 if rooted or u == cls else int(cards[cls]))
        <= MAX_FAMILY_CELLS
    ]


def _tolerance(score) -> float:
    return RELATIVE_TOLERANCE * max(1.0, abs(score))


def hill_climbing(
    scores,
    n,
    start=None,
    *,
    max_parents=None,
    forbidden=(),
    required=(),
    tabu_length=0,
    reversal=True,
    max_iter=None,
    ties="largest",
):
    """Greedy hill climbing over DAGs by adding, removing and reversing one arc at a time.

    Parameters
    ----------
    scores : callable
        ``scores(child, parents) -> float``,
        ``scores.gains(child, parents, candidates) -> ndarray`` and
        ``scores.removal_gains(child, parents) -> ndarray``
        (:class:`bnclassify.scores.FamilyScores`).
    n : int
        Number of variables.
    start : list of iterable of int, optional
        The parents of each variable to start from (default: no arc).
    max_parents : int, optional
        Most parents of any variable (default: no limit).
    forbidden, required : iterable of (int, int)
        Arcs ``(parent, child)`` that may never be in the graph, or must always
        be (added to the start, never removed nor reversed).
    tabu_length : int, default=0
        How many of the last moves may not be undone (pgmpy's ``tabu_length``).
    reversal : bool, default=True
        Whether reversing an arc is a move (Weka's ``HillClimber`` leaves it out by
        default).
    max_iter : int, optional
        Most moves (default: until no move improves the score).
    ties : {"largest", "first"}, default="largest"
        Which of several best moves is taken. ``"largest"``: the largest gain as
        computed, the first listed among exactly equal ones (gains equal in exact
        arithmetic, e.g. ``u -> v`` and ``v -> u`` under BIC or BDeu, often differ in
        their last bits, which then decide). ``"first"``: the first listed (additions,
        then removals, then reversals, each by parent then child) among the gains within
        the tolerance of the largest (``RELATIVE_TOLERANCE`` of the graph's score), so
        rounding never decides; this rule runs compiled when the extension is built
        (:func:`iterated_search`'s walks, with which it then agrees).

    Returns
    -------
    parents : list of tuple of int
        Each variable's parents, sorted.
    path : list of (str, int, int, float)
        The moves made, each ``(move, parent, child, score after it)`` (the start's
        score plus the gains so far).

    Examples
    --------
    >>> from bnclassify.scores import FamilyScores
    >>> from bnclassify.stats import VariableCounts
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 500)
    >>> b = a ^ (rng.random(500) < 0.1)
    >>> scores = FamilyScores(VariableCounts.from_rows(a[:, None], b, [2], 2), "bic")
    >>> parents, path = hill_climbing(scores, 2)
    >>> parents, [move for move, *_ in path]  # one arc between the two (here 1 -> 0)
    ([(1,), ()], ['add'])
    """
    options = {"max_parents": max_parents, "forbidden": forbidden, "required": required}
    return _one_walk(
        "hill_climbing", ties, scores, n, start, tabu_length, reversal, max_iter, options
    )


def _one_walk(walk, ties, scores, n, start, tabu_length, reversal, max_iter, options) -> tuple:
    """One climb (``walk="hill_climbing"``) or tabu walk from ``start``: by ``ties="first"``'s
    rule, the iterated search's without restarts (compiled where it can be)."""
    if ties not in ("largest", "first"):
        raise ValueError(f"ties must be 'largest' or 'first', got {ties!r}.")
    if ties == "first":
        return iterated_search(
            scores,
            n,
            start,
            restarts=0,
            walk=walk,
            tabu_length=tabu_length,
            reversal=reversal,
            max_iter=max_iter,
            **options,
        )
    graph = _Graph.starting(scores, n, start, **options)
    step = _climb if walk == "hill_climbing" else _tabu_walk
    return step(graph, tabu_length, reversal, max_iter)


def _climb(graph, tabu_length, reversal, max_iter, tabu=()) -> tuple:
    """:func:`hill_climbing` from ``graph`` (changed in place), the moves ``tabu`` barred
    at first: ``(parents, path)``."""
    tabu, path = list(tabu), []
    seen = {_arcs(graph)}
    limit = np.inf if max_iter is None else max_iter
    while len(path) < limit:
        gain, move = graph.best_move(tabu, reversal)
        if not gain > _tolerance(graph.score):
            break
        tabu = graph.make(move, tabu, tabu_length, path)
        # each gain is counted on the rows that observe its larger family: with missing
        # cells a cycle of moves can each gain and come back to a graph already met
        # (anneal: a cycle of six, forever); a climb stops there
        arcs = _arcs(graph)
        if arcs in seen:
            break
        seen.add(arcs)
    return [tuple(sorted(p)) for p in graph.parents], path


def _arcs(graph) -> tuple:
    """The graph as a hashable value: each variable's parents."""
    return tuple(frozenset(p) for p in graph.parents)


def tabu_search(
    scores,
    n,
    start=None,
    *,
    max_parents=None,
    forbidden=(),
    required=(),
    tabu_length=10,
    reversal=True,
    max_iter=None,
    ties="largest",
):
    """Tabu search: the best legal move off the tabu list, improving or not; the best graph met.

    Each move is the best addition, removal or reversal whose undoing is not
    among the last ``tabu_length`` moves, even when it lowers the score, so the
    search walks out of a local maximum. It stops when ``tabu_length``
    moves in a row (at least one) have not raised the best score met, when
    ``max_iter`` moves are made, or when no legal move is left, and returns the
    graph with the highest score met. Parameters as :func:`hill_climbing` (``ties`` too).

    Returns
    -------
    parents : list of tuple of int
    path : list of (str, int, int, float)
    """
    options = {"max_parents": max_parents, "forbidden": forbidden, "required": required}
    return _one_walk("tabu", ties, scores, n, start, tabu_length, reversal, max_iter, options)


def _tabu_walk(graph, tabu_length, reversal, max_iter, tabu=()) -> tuple:
    """:func:`tabu_search` from ``graph`` (changed in place), the moves ``tabu`` barred at
    first: ``(parents, path)``."""
    best_parents, best_score = [set(p) for p in graph.parents], graph.score
    tabu, path, stale = list(tabu), [], 0
    seen = {_arcs(graph)}
    limit = np.inf if max_iter is None else max_iter
    while len(path) < limit and stale < max(1, int(tabu_length)):
        gain, move = graph.best_move(tabu, reversal)
        if not np.isfinite(gain):
            break
        tabu = graph.make(move, tabu, tabu_length, path)
        arcs = _arcs(graph)
        # a graph met before is no progress, whatever its summed gains say (missing cells
        # make them path-dependent: see hill_climbing)
        if arcs not in seen and graph.score > best_score + _tolerance(best_score):
            best_parents, best_score, stale = [set(p) for p in graph.parents], graph.score, 0
        else:
            stale += 1
        seen.add(arcs)
    return [tuple(sorted(p)) for p in best_parents], path


def iterated_search(
    scores,
    n,
    start=None,
    *,
    restarts=10,
    perturbation=2,
    walk="tabu",
    random_state=0,
    max_parents=None,
    forbidden=(),
    required=(),
    tabu_length=10,
    reversal=True,
    max_iter=None,
):
    """Iterated local search: a tabu walk, then ``restarts`` perturbations of the best graph.

    A greedy climb's local maximum depends on how ties between equal moves are
    broken (under a score-equivalent score, such as BIC and BDeu, adding ``u -> v``
    ties with adding ``v -> u``): pgmpy breaks them by Python's set order, which
    moves with the process's hash seed, and so lands in different maxima from one
    run to the next. This search does not rest on one tie order: after the walk of
    :func:`tabu_search` (or the climb of :func:`hill_climbing`, ``walk=
    "hill_climbing"``) from ``start``, each restart makes ``perturbation`` legal
    moves drawn uniformly at random (additions, removals and reversals alike) on the
    best graph met, walks again with those moves' undoings on the tabu list, and
    keeps the result when it scores higher (Lourenço, Martin and Stützle 2003,
    "Iterated local search"; Weka's ``RepeatedHillClimber`` restarts from random
    graphs instead): higher by ``scores.network_change``, which scores each changed
    family and its old one on the same rows where cells are missing. On a complete
    table it scores at least as high as the first walk, which is
    :func:`tabu_search`'s (or :func:`hill_climbing`'s) from the same start with
    ``ties="first"``: every walk takes the first of the moves within the tolerance
    of the best, so that the compiled search (run when the extension is built and
    ``scores`` is a :class:`~bnclassify.scores.FamilyScores`) and this Python one
    take the same moves. The perturbations' uniforms are drawn from
    ``random_state`` at once, ``restarts`` by ``perturbation``, and move ``p`` of
    restart ``t`` is legal move ``floor(u[t, p] * count)`` in the order of the
    moves. Every gain is cached, so a restart costs its moves only (about as much as
    the first walk: its climb back and ``tabu_length`` moves past).

    Parameters
    ----------
    scores : callable
        As in :func:`hill_climbing`, with ``scores.network(parents_of)`` and
        ``scores.network_change(before, after)``
        (:meth:`~bnclassify.scores.FamilyScores.network_change`), by which a restart's
        graph is compared with the best.
    n : int
        Number of variables.
    start : list of iterable of int, optional
        The parents of each variable to start from (default: no arc).
    restarts : int, default=10
        Perturbations of the best graph, each followed by a walk (40 reach pgmpy's
        best of seven runs on more tables: docs/benchmarks.md).
    perturbation : int, default=2
        Random moves of each perturbation: reversals of arcs, drawn uniformly among
        the legal ones (any legal move when no reversal is).
    walk : {"tabu", "hill_climbing"}, default="tabu"
        The local search after each start: :func:`tabu_search` or :func:`hill_climbing`.
    random_state : int or numpy.random.Generator, default=0
        Seed of the perturbations (the only random step; the same seed, the same graph).
    max_parents, forbidden, required, tabu_length, reversal, max_iter
        As in :func:`hill_climbing`, for every walk (``max_iter`` bounds each walk's
        moves); the perturbations respect the constraints too.

    Returns
    -------
    parents : list of tuple of int
        Each variable's parents in the best graph met, sorted.
    path : list of (str, int, int, float)
        The first walk's moves, then, for each restart that found a better graph,
        its perturbing moves and its walk's, each ``(move, parent, child, score after
        it)``.

    Examples
    --------
    >>> from bnclassify.scores import FamilyScores
    >>> from bnclassify.stats import VariableCounts
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, (400, 4))
    >>> a[:, 1] ^= a[:, 0] & (rng.random(400) < 0.8)
    >>> a[:, 2] ^= (a[:, 0] | a[:, 1]) & (rng.random(400) < 0.7)
    >>> scores = FamilyScores(VariableCounts.from_rows(a[:, :3], a[:, 3], [2] * 3, 2), "bic")
    >>> network = lambda ps: scores.network(dict(enumerate(ps)))
    >>> walked, _ = tabu_search(scores, 4)
    >>> found, _ = iterated_search(scores, 4, restarts=5, random_state=0)
    >>> bool(network(found) >= network(walked))
    True
    """
    if walk not in ("tabu", "hill_climbing"):
        raise ValueError(f"walk must be 'tabu' or 'hill_climbing', got {walk!r}.")
    forbidden, required = list(forbidden), list(required)
    restarts, perturbation = int(restarts), int(perturbation)
    # every uniform drawn at once, the same for the compiled search and this one
    uniforms = np.random.default_rng(random_state).random((max(restarts, 0), max(perturbation, 0)))
    parents = _start(n, start, required, forbidden)
    compiled = _compiled_search(
        scores,
        n,
        parents,
        max_parents,
        forbidden,
        required,
        uniforms,
        walk=walk,
        tabu_length=tabu_length,
        reversal=reversal,
        max_iter=max_iter,
    )
    if compiled is not None:
        return compiled
    graph = _Graph(scores, n, parents, max_parents, forbidden, required, tolerant=True)
    search = _tabu_walk if walk == "tabu" else _climb
    best, path = search(graph, tabu_length, reversal, max_iter)
    # the scale of the tolerance; graphs are compared by network_change, whose families
    # are scored on the same rows (network() rewards families seen on fewer rows)
    best_score = scores.network(dict(enumerate(best)))
    tried = set()
    for t in range(restarts):
        graph = _Graph(scores, n, best, max_parents, forbidden, required, tolerant=True)
        moves, undo = [], []
        for p in range(perturbation):
            gains = graph.moves(())
            # a reversal first: it undoes a choice of direction, the choice a tie decides
            kinds = [REVERSE] if np.isfinite(gains[REVERSE]).any() else [ADD, REMOVE, REVERSE]
            legal = np.flatnonzero(np.isfinite(gains[kinds]))
            if not legal.size:
                break
            pick = int(legal[min(int(uniforms[t, p] * legal.size), legal.size - 1)])
            k, u, v = (int(x) for x in np.unravel_index(pick, gains[kinds].shape))
            undo.append(graph.apply(kinds[k], u, v))
            moves.append((MOVES[kinds[k]], u, v, graph.score))
        perturbed = _arcs(graph)
        if perturbed in tried:  # the same walk again (a small graph has few perturbations)
            continue
        tried.add(perturbed)
        # the perturbation's undoings barred at first, so the walk leaves by another way
        found, walked = search(graph, tabu_length, reversal, max_iter, undo)
        if scores.network_change(best, found) > _tolerance(best_score):
            best, path = found, [*path, *moves, *walked]
            best_score = scores.network(dict(enumerate(best)))
    return [tuple(sorted(p)) for p in best], path


def _compiled_search(scores, n, parents, max_parents, forbidden, required, uniforms, **options):
    """:func:`iterated_search` by the compiled kernel from ``parents`` (the start, required
    arcs in): ``(parents, path)``, or None where it does not run (no extension, a score
    other than :class:`~bnclassify.scores.FamilyScores`, whose counts it reads)."""
    if type(scores) is not FamilyScores:
        return None
    counts = scores.counts
    arcs, allowed, barred = _arc_masks(n, parents, forbidden, required)
    found = dag_search_kernel(
        counts.codes,
        counts.weights,
        counts.cards,
        arcs,
        allowed,
        barred,
        uniforms,
        score=scores.score,
        prior_weight=scores.prior_weight,
        n_rows=scores.n_rows,
        max_cells=MAX_FAMILY_CELLS,
        relative_tolerance=RELATIVE_TOLERANCE,
        max_parents=max_parents,
        restarts=uniforms.shape[0],
        perturbation=uniforms.shape[1],
        class_variable=scores.class_variable,
        **options,
    )
    if found is None:
        return None
    arcs, moves = found
    parents = [tuple(int(u) for u in np.flatnonzero(arcs[:, v])) for v in range(n)]
    return parents, [(MOVES[kind], u, v, score) for kind, u, v, score in moves]


def k2(scores, order, start=None, *, max_parents=None, forbidden=(), required=()):
    """Cooper and Herskovits' K2: each node's parents chosen greedily among the nodes before it.

    Parameters
    ----------
    scores : callable
        As in :func:`hill_climbing`.
    order : sequence of int
        Every variable, each allowed parents only among those before it.
    start : list of iterable of int, optional
        Parents each variable starts with (e.g. the class, for Weka's naive Bayes
        start); they must come before it in ``order``.
    max_parents : int, optional
        Most parents of any variable, those of ``start`` included (Weka's ``-P``).
    forbidden, required : iterable of (int, int)
        Arcs never added, or always present (they must follow ``order``).

    Returns
    -------
    parents : list of tuple of int
    path : list of (str, int, int, float)
        The arcs added, each with the score of its child's family after it (the
        family's start score plus the gains).

    Examples
    --------
    >>> from bnclassify.scores import FamilyScores
    >>> from bnclassify.stats import VariableCounts
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 500)
    >>> b = a ^ (rng.random(500) < 0.1)
    >>> scores = FamilyScores(VariableCounts.from_rows(a[:, None], b, [2], 2), "k2")
    >>> k2(scores, [1, 0])[0]
    [(1,), ()]
    """
    order = [int(v) for v in order]
    n = len(order)
    if sorted(order) != list(range(n)):
        raise ValueError(f"order must hold each of the {n} variables once, got {order}.")
    rank = {v: k for k, v in enumerate(order)}
    parents = _start(n, start, list(required), list(forbidden))
    for v, ps in enumerate(parents):
        late = [u for u in ps if rank[u] > rank[v]]
        if late:
            raise ValueError(
                f"variable {v} starts with the parents {late}, which come after it in the order."
            )
    blocked = set(map(tuple, forbidden))
    limit = n if max_parents is None else int(max_parents)
    path = []
    for v in order:
        current = scores(v, tuple(sorted(parents[v])))
        while len(parents[v]) < limit:
            candidates = [
                u for u in order[: rank[v]] if u not in parents[v] and (u, v) not in blocked
            ]
            candidates = _within_cells(scores, v, tuple(parents[v]), candidates)
            if not candidates:
                break
            gains = scores.gains(v, tuple(sorted(parents[v])), candidates)
            best = int(np.argmax(gains))
            if not gains[best] > _tolerance(current):
                break
            parents[v].add(candidates[best])
            current += float(gains[best])
            path.append(("add", candidates[best], v, current))
    return [tuple(sorted(p)) for p in parents], path


def topological_order(parents) -> list:
    """The variables with every parent before its children (Kahn; ties by position).

    Raises a ``ValueError`` when the parent sets have a cycle.

    Examples
    --------
    >>> topological_order([(1,), (), (0, 1)])
    [1, 0, 2]
    """
    n = len(parents)
    children = [[] for _ in range(n)]
    waiting = [0] * n
    for v, ps in enumerate(parents):
        for u in ps:
            children[u].append(v)
            waiting[v] += 1
    ready = [v for v in range(n) if not waiting[v]]
    order = []
    while ready:
        v = ready.pop(0)
        order.append(v)
        for c in sorted(children[v]):
            waiting[c] -= 1
            if not waiting[c]:
                ready.append(c)
        ready.sort()
    if len(order) < n:
        raise ValueError("the parent sets have a cycle.")
    return order


def blanket_perturbation(
    scores,
    n,
    parents,
    target,
    *,
    max_parents=None,
    forbidden=(),
    required=(),
    reversal=True,
    max_rounds=None,
):
    """Iterated local search around ``target``'s Markov blanket, from a climbed DAG.

    Hill climbing stops at a local maximum, and the families around the class
    are where a wrong orientation costs a classifier most (on rows of alarm,
    the search turns ``SAO2 -> CATECHOL`` round and leaves a member out while
    the true graph scores higher). Each round tries, for every arc with an end
    in the blanket or the target (in position order), its removal and then its
    reversal (when legal): the arc is forbidden in that orientation while hill
    climbing restarts from the changed graph, then lifted for a last climb; the
    first result that scores higher than the current graph replaces it and a new
    round begins. It stops when no arc of a round leads higher (a local maximum
    of this larger neighbourhood) or after ``max_rounds`` rounds. Each round
    costs up to two climbs per arc near the target, each short (it starts next
    to a maximum).

    Parameters
    ----------
    scores : callable
        As in :func:`iterated_search` (``network_change`` compares a round's graph with
        the current one).
    n : int
    parents : list of iterable of int
        The climbed DAG.
    target : int
    max_parents, forbidden, required, reversal
        As in :func:`hill_climbing` (required arcs are never perturbed).
    max_rounds : int, optional
        Most rounds (default: until none improves).

    Returns
    -------
    parents : list of tuple of int
    path : list of (str, int, int, float)
        For each improvement, the perturbing move and the two climbs' moves, each
        with the network's score after it.

    Examples
    --------
    >>> from bnclassify.scores import FamilyScores
    >>> from bnclassify.stats import VariableCounts
    >>> rng = np.random.default_rng(1)
    >>> c = rng.integers(0, 2, 3000)
    >>> a = c ^ (rng.random(3000) < 0.2)
    >>> b = (a & c) ^ (rng.random(3000) < 0.1)
    >>> scores = FamilyScores(VariableCounts.from_rows(np.column_stack([a, b]), c, [2, 2], 2))
    >>> climbed, _ = hill_climbing(scores, 3)
    >>> perturbed, path = blanket_perturbation(scores, 3, climbed, 2)
    >>> network = lambda ps: scores.network(dict(enumerate(ps)))
    >>> bool(network(perturbed) >= network(climbed))
    True
    """
    current = [tuple(sorted(p)) for p in parents]
    options = {"max_parents": max_parents, "reversal": reversal}
    banned = [(int(u), int(v)) for u, v in forbidden]
    needed = [(int(u), int(v)) for u, v in required]
    kept = set(needed)
    best = scores.network(dict(enumerate(current)))
    # with missing cells network_change is not transitive (each comparison on its own
    # rows), so rounds could go round a cycle of graphs: one met before is no improvement
    met = {tuple(frozenset(p) for p in current)}
    path, rounds = [], 0
    limit = np.inf if max_rounds is None else max_rounds
    while rounds < limit:
        rounds += 1
        children = [v for v in range(n) if target in current[v]]
        region = {target, *current[target], *children}
        region |= {u for c in children for u in current[c]}
        arcs = sorted((u, v) for v in range(n) for u in current[v] if (u in region or v in region))
        moved = None
        for u, v in arcs:
            if (u, v) in kept:
                continue
            for kind in (REMOVE, REVERSE):
                start = [set(p) for p in current]
                start[v].discard(u)
                if kind == REVERSE:
                    if not reversal or (v, u) in set(banned):
                        continue
                    start[u].add(v)
                    if max_parents is not None and len(start[u]) > max_parents:
                        continue
                    try:
                        topological_order(start)
                    except ValueError:
                        continue
                first, first_path = hill_climbing(
                    scores, n, start, forbidden=[*banned, (u, v)], required=needed, **options
                )
                found, last_path = hill_climbing(
                    scores, n, first, forbidden=banned, required=needed, **options
                )
                key = tuple(frozenset(p) for p in found)
                if key not in met and scores.network_change(current, found) > _tolerance(best):
                    met.add(key)
                    perturbed = scores.network({k: tuple(sorted(p)) for k, p in enumerate(start)})
                    score = scores.network(dict(enumerate(found)))
                    moved = found, score, [(MOVES[kind], u, v, perturbed), *first_path, *last_path]
                    break
            if moved is not None:
                break
        if moved is None:
            break
        current, best, steps = moved
        path += steps
    return current, path


def g_tests(counts, child, parents, candidates, *, rows_per_cell=0.0) -> tuple:
    """The G-test of each candidate against ``child`` given ``parents``, strata counted as seen.

    ``G = 2 sum N log(N N_j / (N_ju N_jc))`` over the joint states ``j`` of
    ``parents`` (twice the log-likelihood gain of the candidate as one more
    parent of ``child``), on the rows that observe the family and the candidate.
    Its degrees of freedom are adjusted for empty cells: each parent state that
    occurs adds ``(r_u' - 1)(r_c' - 1)``, ``r'`` the states of the candidate and
    of the child seen in it (so a sparse stratum, which cannot show a
    dependence, does not count as if it could; bnlearn's ``"mi-adf"``). A
    candidate with no degree of freedom left gets ``p = 1``.

    Parameters
    ----------
    counts : bnclassify.stats.VariableCounts
    child : int
    parents : sequence of int
    candidates : sequence of int
    rows_per_cell : float, default=0.0
        A test whose rows are fewer than this many per cell of its table (the
        parent states that occur, times the candidate's and the child's states) is
        not made: its p-value is 1 (Tsamardinos, Brown and Aliferis' 2006 rule of
        five rows per cell; a G-test on sparser tables rejects too often).

    Returns
    -------
    statistic, df, log_p : ndarray of shape (len(candidates),)
        The G statistics, their degrees of freedom and the natural logarithms of the
        chi-square p-values (a log, so that very small p-values still rank).

    Examples
    --------
    >>> from bnclassify.stats import VariableCounts
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 2000)
    >>> b = a ^ (rng.random(2000) < 0.2)
    >>> noise = rng.integers(0, 3, 2000)
    >>> counts = VariableCounts.from_rows(np.column_stack([a, noise]), b, [2, 3], 2)
    >>> statistic, df, log_p = g_tests(counts, 2, [], [0, 1])
    >>> df.tolist(), bool(log_p[0] < np.log(1e-6)), bool(log_p[1] > np.log(0.01))
    ([1, 2], True, True)
    """
    from scipy.stats import chi2

    candidates = [int(u) for u in candidates]
    tables = counts.extended_counts(child, sorted(int(p) for p in parents), candidates)
    statistic = np.zeros(len(candidates))
    df = np.zeros(len(candidates), dtype=np.int64)
    for k, table in enumerate(tables):  # one table per candidate, shape (q, r_u, r_child)
        table = np.asarray(table, dtype=float)
        n_j = table.sum(axis=(1, 2))
        n_ju, n_jc = table.sum(axis=2), table.sum(axis=1)
        j, a, c = np.nonzero(table)
        cells = table[j, a, c]
        statistic[k] = 2.0 * float(
            np.sum(cells * np.log(cells * n_j[j] / (n_ju[j, a] * n_jc[j, c])))
        )
        seen_u = np.maximum((n_ju > 0).sum(axis=1) - 1, 0)
        seen_c = np.maximum((n_jc > 0).sum(axis=1) - 1, 0)
        df[k] = int(np.sum(seen_u * seen_c))
        if n_j.sum() < rows_per_cell * np.count_nonzero(n_j) * table.shape[1] * table.shape[2]:
            df[k] = 0
    statistic = np.maximum(statistic, 0.0)
    log_p = np.where(df > 0, chi2.logsf(statistic, np.maximum(df, 1)), 0.0)
    return statistic, df, log_p


def one_to_one_copies(counts, variables) -> dict:
    """The variables that are one-to-one relabels of an earlier one on the rows.

    ``v`` is a copy of ``u`` when, on the rows (of positive weight) that observe
    both, every state of ``u`` goes with a single state of ``v`` and every state of
    ``v`` with a single state of ``u`` (a bijection between the states they show),
    and each shows the same states as on all the rows that observe it. Such a pair
    carries the same information in every row, so no score, test or held-out
    likelihood can tell a network over one from the same network over the other:
    an expert network's deterministic relabel (hailfinder's ``CapChange`` is
    ``CompPlFcst`` renamed) makes the class's Markov blanket not unique (the
    intersection property fails; Statnikov, Lytkin, Lemeire and Aliferis 2013,
    "Algorithms for discovery of multiple Markov boundaries", JMLR 14).

    Parameters
    ----------
    counts : bnclassify.stats.VariableCounts
    variables : sequence of int
        The candidates, in the order that picks the representative (the first of
        each group).

    Returns
    -------
    dict
        Each copy's representative, ``{copy: first}``; a variable that shows one
        state only, or none, is nobody's copy.

    Examples
    --------
    >>> from bnclassify.stats import VariableCounts
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 3, 500)
    >>> b = np.array([2, 0, 1])[a]  # a relabelled
    >>> c = rng.integers(0, 3, 500)
    >>> counts = VariableCounts.from_rows(np.column_stack([a, b, c]), a % 2, [3, 3, 3], 2)
    >>> one_to_one_copies(counts, [0, 1, 2])
    {1: 0}
    """
    codes = np.asarray(counts.codes)
    live = np.asarray(counts.weights) > 0
    seen = {}
    for v in variables:
        column = codes[live, v]
        states = np.unique(column[column >= 0])
        if len(states) > 1:
            seen[int(v)] = len(states)
    out = {}
    kept = [v for v in variables if int(v) in seen]
    for k, v in enumerate(kept):
        v = int(v)
        if v in out:
            continue
        for w in kept[k + 1 :]:
            w = int(w)
            if w in out or seen[w] != seen[v]:
                continue
            both = live & (codes[:, v] >= 0) & (codes[:, w] >= 0)
            pair = np.unique(
                codes[both, v].astype(np.int64) * int(counts.cards[w]) + codes[both, w]
            )
            if len(pair) == seen[v] and len(np.unique(pair // int(counts.cards[w]))) == seen[v]:
                if len(np.unique(pair % int(counts.cards[w]))) == seen[w]:
                    out[w] = v
    return out


def _blanket_setup(parents, level, max_parents, forbidden, required) -> tuple:
    """What both blanket refinements start from: ``(n, parents as sets, the in-degree
    limit, the forbidden arcs, the required arcs)``, the level checked."""
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}.")
    n = len(parents)
    limit = n if max_parents is None else int(max_parents)
    return (
        n,
        [set(int(u) for u in p) for p in parents],
        limit,
        {(int(u), int(v)) for u, v in forbidden},
        {(int(u), int(v)) for u, v in required},
    )


def _ancestors(parents, v) -> set:
    """Every ancestor of ``v`` in the graph of parent sets ``parents``."""
    seen, todo = set(), [v]
    while todo:
        for p in parents[todo.pop()]:
            if p not in seen:
                seen.add(p)
                todo.append(p)
    return seen


def refine_blanket(
    counts,
    parents,
    target,
    level,
    *,
    rows_per_cell=5.0,
    max_parents=None,
    forbidden=(),
    required=(),
) -> tuple:
    """Grow, then shrink, the Markov blanket of ``target`` in a DAG by conditional tests.

    A class-focused pass after a score-based search, for members a
    decomposable score leaves out because the family that would hold them is
    large (its parameter penalty outweighs a real dependence) rather than
    because the rows do not show them. The blanket is made of three kinds of
    families: the target's own (a parent ``u -> target``), a child's
    (``target -> u``) and a child's with another parent (``u -> child``). Each
    test is :func:`g_tests`' of the arc's parent against its child given the
    child's other parents in the current graph.

    - Grow: among the arcs that would bring a node outside the blanket in (legal:
      no cycle, not forbidden, ``max_parents`` kept), the one of smallest p-value
      is added while that p-value is below ``level`` divided by the number of
      arcs tested in the step (Bonferroni: a step adds a false member with
      probability at most ``level``).
    - Shrink: among the arcs of those families (not required), the one of largest
      p-value is removed while it is above ``level``.

    Both are repeated while either changes the graph. A test with fewer than
    ``rows_per_cell`` rows per cell of its table is not made
    (:func:`g_tests`): such an arc is never added, and never removed.

    Parameters
    ----------
    counts : bnclassify.stats.VariableCounts
    parents : list of iterable of int
        Each variable's parents (the searched DAG).
    target : int
        The variable whose blanket is refined (the class).
    level : float
        The tests' level, in (0, 1).
    rows_per_cell : float, default=5.0
        As in :func:`g_tests`.
    max_parents : int, optional
    forbidden, required : iterable of (int, int)

    Returns
    -------
    parents : list of tuple of int
    tests : list of (str, int, int, float, int, float)
        The arcs added and removed, in order: ``(move, parent, child, G, df, p)``.

    Examples
    --------
    A spouse whose common child has two parents already: ``x_2`` and the class
    both drive ``x_0``; a search that left ``x_2`` out gets it back.

    >>> from bnclassify.stats import VariableCounts
    >>> rng = np.random.default_rng(0)
    >>> c = rng.integers(0, 2, 4000)
    >>> x1, x2 = rng.integers(0, 2, 4000), rng.integers(0, 2, 4000)
    >>> x0 = (c ^ x1 ^ (x2 & (rng.random(4000) < 0.3))) ^ (rng.random(4000) < 0.1)
    >>> counts = VariableCounts.from_rows(np.column_stack([x0, x1, x2]), c, [2, 2, 2], 2)
    >>> refined, tests = refine_blanket(counts, [(1, 3), (), (), ()], 3, 0.01)
    >>> refined[0], [move for move, *_ in tests]
    ((1, 2, 3), ['add'])
    """
    n, parents, limit, banned, kept = _blanket_setup(
        parents, level, max_parents, forbidden, required
    )
    tests = []

    def blanket():
        children = [v for v in range(n) if target in parents[v]]
        out = set(parents[target]) | set(children)
        for v in children:
            out |= parents[v]
        out.discard(target)
        return out, children

    def arcs_to_add():
        members, children = blanket()
        outside = [u for u in range(n) if u != target and u not in members]
        above = {u: _ancestors(parents, u) for u in [target, *outside]}
        arcs = []  # (child, parent): u -> v is legal when v is not an ancestor of u
        for v in [target, *children]:
            if len(parents[v]) < limit:
                arcs += [(v, u) for u in outside if (u, v) not in banned and v not in above[u]]
        arcs += [
            (u, target)
            for u in outside
            if u not in above[target] and (target, u) not in banned and len(parents[u]) < limit
        ]
        return arcs

    def tested(arcs, drop=False):
        rows = []
        by_child = {}
        for v, u in arcs:
            by_child.setdefault(v, []).append(u)
        for v in sorted(by_child):
            us = by_child[v]
            if drop:
                for u in us:
                    statistic, df, log_p = g_tests(counts, v, sorted(parents[v] - {u}), [u])
                    if df[0] > 0:  # an arc whose test cannot be made stays
                        rows.append((float(log_p[0]), u, v, float(statistic[0]), int(df[0])))
            else:
                statistic, df, log_p = g_tests(
                    counts, v, sorted(parents[v]), us, rows_per_cell=rows_per_cell
                )
                rows += [
                    (float(lp), u, v, float(s), int(d))
                    for u, s, d, lp in zip(us, statistic, df, log_p, strict=True)
                ]
        return rows

    log_level = np.log(level)
    for _ in range(n):
        before = len(tests)
        for _ in range(n * n):
            rows = tested(arcs_to_add())
            if not rows:
                break
            threshold = log_level - np.log(len(rows))
            log_p, u, v, statistic, df = min(rows, key=lambda r: (r[0], -r[3], r[2], r[1]))
            if not log_p < threshold:
                break
            parents[v].add(u)
            tests.append(("add", u, v, statistic, df, float(np.exp(log_p))))
        for _ in range(n * n):
            _, children = blanket()
            arcs = [(target, u) for u in parents[target]]
            arcs += [(v, target) for v in children]
            arcs += [(v, u) for v in children for u in parents[v] if u != target]
            arcs = [(v, u) for v, u in arcs if (u, v) not in kept]
            rows = tested(arcs, drop=True)
            if not rows:
                break
            log_p, u, v, statistic, df = max(rows, key=lambda r: (r[0], -r[3], -r[2], -r[1]))
            if not log_p > log_level:
                break
            parents[v].discard(u)
            tests.append(("remove", u, v, statistic, df, float(np.exp(log_p))))
        if len(tests) == before:
            break
    return [tuple(sorted(p)) for p in parents], tests


#: Largest family table (cells) that :func:`refine_blanket_holdout` fits per fold; arcs
#: into larger families are neither added nor tested for removal.
HOLDOUT_MAX_CELLS = 1 << 20


class _HeldOutCLL:
    """The class's conditional log likelihood on held-out rows, family by family.

    The distinct rows' weights are split into ``folds`` parts (multinomially when they
    are whole numbers, else whole rows to a fold); each part is a test fold whose rows
    are predicted by tables fitted on the other parts. A test row is a pair (distinct
    row, fold) with its weight there; a family that holds the target gives each pair a
    log factor per target state. A cell missing in a family drops that factor from the
    row (its factor is 1, as a missing child's is).
    """

    def __init__(self, counts, target, alpha, folds, random_state):
        self.codes = np.asarray(counts.codes)
        self.cards = np.asarray(counts.cards, dtype=np.int64)
        self.target, self.alpha = int(target), float(alpha)
        weights = np.asarray(counts.weights, dtype=float)
        labelled = self.codes[:, self.target] >= 0
        weights = np.where(labelled, weights, 0.0)
        rng = np.random.default_rng(random_state)
        if np.all(weights == np.round(weights)):
            split = rng.multinomial(weights.astype(np.int64), np.full(folds, 1.0 / folds))
            split = split.astype(float)
        else:
            split = np.zeros((len(weights), folds))
            split[np.arange(len(weights)), rng.integers(0, folds, len(weights))] = weights
        self.train = weights[None, :] - split.T  # (folds, rows): each fold's training weights
        row, fold = np.nonzero(split)
        self.row, self.fold, self.weight = row, fold, split[row, fold]
        self.y = self.codes[row, self.target].astype(np.int64)
        self.folds = folds
        self.total = float(self.weight.sum())

    def cells(self, child, parents):
        return int(self.cards[child]) * math.prod(int(self.cards[p]) for p in parents)

    def factor(self, child, parents) -> np.ndarray:
        """Each test row's log factor of the family per target state, shape (rows, r)."""
        r = int(self.cards[self.target])
        family = [*sorted(int(p) for p in parents), int(child)]
        if self.target not in family:
            return np.zeros((len(self.row), r))
        strides = np.ones(len(family), dtype=np.int64)
        for k in range(len(family) - 2, -1, -1):
            strides[k] = strides[k + 1] * self.cards[family[k + 1]]
        block = self.codes[:, family].astype(np.int64)
        seen = np.all(block >= 0, axis=1)
        index = np.where(seen, np.maximum(block, 0) @ strides, 0)
        cells, r_child = int(np.prod(self.cards[family])), int(self.cards[child])
        counts = np.zeros((self.folds, cells))
        for f in range(self.folds):
            counts[f] = np.bincount(index, weights=self.train[f] * seen, minlength=cells)
        counts = counts.reshape(self.folds, cells // r_child, r_child)
        log_theta = np.log(counts + self.alpha) - np.log(
            counts.sum(axis=2, keepdims=True) + r_child * self.alpha
        )
        log_theta = log_theta.reshape(self.folds, cells)
        t = family.index(self.target)
        base = index[self.row] - np.maximum(block[self.row, t], 0) * strides[t]
        out = log_theta[self.fold[:, None], base[:, None] + np.arange(r) * strides[t]]
        observed = np.all(np.delete(block[self.row], t, axis=1) >= 0, axis=1)
        return np.where(observed[:, None], out, 0.0)

    def row_cll(self, total) -> np.ndarray:
        """Each test row's ``log P(y | x)`` from the summed log factors ``total``."""
        top = total.max(axis=1, keepdims=True)
        norm = top[:, 0] + np.log(np.exp(total - top).sum(axis=1))
        return total[np.arange(len(self.y)), self.y] - norm

    def gain(self, before, after) -> tuple:
        """The held-out gain of ``after`` over ``before`` (rows' log likelihoods): its sum
        (nats) and its z statistic over the test rows."""
        d = after - before
        g = float(np.dot(self.weight, d))
        spread = float(np.dot(self.weight, (d - g / self.total) ** 2))
        z = g / np.sqrt(spread) if spread > 0 else (np.inf if g > 0 else 0.0)
        return g, z


def holdout_gain(counts, before, after, target, *, alpha=1.0, folds=5, random_state=0) -> tuple:
    """What a change of DAG does to the held-out conditional log likelihood of ``target``.

    Only the families that hold ``target`` (its own and its children's) enter the
    class's posterior; each is fitted on four folds of the rows and evaluated on the
    fifth (the folds as in :func:`refine_blanket_holdout`).

    Parameters
    ----------
    counts : bnclassify.stats.VariableCounts
    before, after : list of iterable of int
        Each variable's parents in the two DAGs.
    target : int
    alpha : float, default=1.0
    folds : int, default=5
    random_state : int, default=0

    Returns
    -------
    gain : float
        ``after``'s held-out conditional log likelihood minus ``before``'s (nats,
        summed over the rows).
    z : float
        The gain over its standard error across the rows.

    Examples
    --------
    >>> from bnclassify.stats import VariableCounts
    >>> rng = np.random.default_rng(0)
    >>> c = rng.integers(0, 2, 3000)
    >>> a, noise = c ^ (rng.random(3000) < 0.2), rng.integers(0, 2, 3000)
    >>> counts = VariableCounts.from_rows(np.column_stack([a, noise]), c, [2, 2], 2)
    >>> gain, z = holdout_gain(counts, [(), (), ()], [(2,), (), ()], 2)
    >>> bool(gain > 0 and z > 5)
    True
    """
    held = _HeldOutCLL(counts, target, alpha, folds, random_state)
    target, r = int(target), int(held.cards[target])

    def cll(parents):
        total = np.zeros((len(held.row), r))
        for v, ps in enumerate(parents):
            if v == target or target in ps:
                total += held.factor(v, ps)
        return held.row_cll(total)

    return held.gain(cll(before), cll(after))


def refine_blanket_holdout(
    counts,
    parents,
    target,
    level,
    *,
    alpha=1.0,
    folds=5,
    max_parents=None,
    forbidden=(),
    required=(),
    random_state=0,
) -> tuple:
    """Refine the Markov blanket of ``target`` by its conditional log likelihood on held-out rows.

    A class-focused pass after a score-based search that accepts an arc by what it
    does to the prediction of ``target`` on rows it was not fitted on (cross-validated
    conditional log likelihood), instead of by a decomposable score's penalty, which
    charges a spouse with the whole parameter count of a large family. The arcs
    considered are those that make or hold a blanket member: ``u -> target``,
    ``target -> u`` and ``u -> child`` for a child of ``target``.

    - Prune: the arc of those families whose removal raises the held-out
      conditional log likelihood most is removed while that gain is above 0.
    - Grow: the legal arc (no cycle, not forbidden, ``max_parents`` kept, its family
      at most :data:`HOLDOUT_MAX_CELLS` cells) that brings a node outside the
      blanket in with the largest z statistic of its held-out gain over the test
      rows is added when that z exceeds the normal quantile of ``level`` over the
      number of arcs tried (Bonferroni); then the pruning again. A move of the
      same kind turns a parent ``u`` of ``target`` into a child (``target -> u``),
      with the other parents of ``target`` below ``u`` (which would close a
      cycle), each turned node's family then completed greedily by held-out gain:
      an orientation of the class's family that a climb leaves wrong when each
      single reversal is a cycle (a new child's parents become spouses at once).

    Both are repeated while either changes the graph. The folds are fixed by
    ``random_state``; each fold's tables are ``(N + alpha) / (N_parents + r alpha)``
    on the other folds' rows.

    Parameters
    ----------
    counts : bnclassify.stats.VariableCounts
    parents : list of iterable of int
        Each variable's parents (the searched DAG).
    target : int
        The variable whose blanket is refined (the class).
    level : float
        The growing step's level, in (0, 1).
    alpha : float, default=1.0
        The tables' pseudo-count.
    folds : int, default=5
    max_parents : int, optional
    forbidden, required : iterable of (int, int)
        Arcs never added; arcs never removed.
    random_state : int, default=0
        The folds' seed.

    Returns
    -------
    parents : list of tuple of int
    moves : list of (str, int, int, float, float)
        In order, ``(move, parent, child, gain, z)``: ``move`` ``"add"`` or
        ``"remove"``, ``gain`` the held-out conditional log likelihood it brought
        (nats, summed over the rows) and ``z`` its statistic (a turn of parents into
        children is its removals then its additions, each with the whole move's
        gain).

    Examples
    --------
    ``x_2`` and the class both drive ``x_0``, whose family has a parent already; the
    searched graph left ``x_2`` out, and its held-out gain brings it in.

    >>> from bnclassify.stats import VariableCounts
    >>> rng = np.random.default_rng(0)
    >>> c = rng.integers(0, 2, 4000)
    >>> x1, x2 = rng.integers(0, 2, 4000), rng.integers(0, 2, 4000)
    >>> x0 = (c ^ x1 ^ (x2 & (rng.random(4000) < 0.3))) ^ (rng.random(4000) < 0.1)
    >>> counts = VariableCounts.from_rows(np.column_stack([x0, x1, x2]), c, [2, 2, 2], 2)
    >>> refined, moves = refine_blanket_holdout(counts, [(1, 3), (), (), ()], 3, 0.01)
    >>> refined[0], [move[:3] for move in moves]
    ((1, 2, 3), [('add', 2, 0)])
    """
    from scipy.stats import norm

    n, parents, limit, banned, kept = _blanket_setup(
        parents, level, max_parents, forbidden, required
    )
    target = int(target)
    held = _HeldOutCLL(counts, target, alpha, folds, random_state)
    moves = []

    def legal(u, v):
        return (
            u != v
            and u not in parents[v]
            and (u, v) not in banned
            and len(parents[v]) < limit
            and v not in _ancestors(parents, u)
            and held.cells(v, [*parents[v], u]) <= HOLDOUT_MAX_CELLS
        )

    def turn_of(u):
        """The parents of ``target`` that turning ``u`` into a child turns with it (those
        below ``u``, or a cycle), or None when one of them cannot turn."""
        below = {w for w in parents[target] if w == u or u in _ancestors(parents, w)}
        for w in below:
            if (
                (target, w) in banned
                or (w, target) in kept
                or len(parents[w]) >= limit
                or held.cells(w, [*parents[w], target]) > HOLDOUT_MAX_CELLS
            ):
                return None
        return below

    def turn_gain(total, current, turned):
        """The held-out gain of turning ``turned`` into children of ``target``, each of
        their families then completed greedily (the parent of largest held-out gain
        while one gains), its z and the arcs it adds."""
        saved = [set(p) for p in parents]
        for w in turned:
            parents[target].discard(w)
            parents[w].add(target)
        own = {w: held.factor(w, parents[w]) for w in [target, *sorted(turned)]}
        after = total - sum(factors.get(w, 0.0) for w in own) + sum(own.values())
        rows = held.row_cll(after)
        added = [(target, w) for w in sorted(turned)]
        for _ in range(n * len(turned)):
            found = None
            for w in sorted(turned):
                for v in range(n):
                    if v == target or not legal(v, w):
                        continue
                    factor = held.factor(w, parents[w] | {v})
                    tried = held.row_cll(after - own[w] + factor)
                    g = float(np.dot(held.weight, tried - rows))
                    if g > 0 and (found is None or g > found[0]):
                        found = (g, v, w, factor, tried)
            if found is None:
                break
            _, v, w, factor, rows = found
            parents[w].add(v)
            after = after - own[w] + factor
            own[w] = factor
            added.append((v, w))
        parents[:] = saved
        g, z = held.gain(current, rows)
        return g, z, added

    factors = {}

    def refresh():
        factors.clear()
        for v in range(n):
            if v == target or target in parents[v]:
                if held.cells(v, parents[v]) <= HOLDOUT_MAX_CELLS:
                    factors[v] = held.factor(v, parents[v])
        total = sum(factors.values(), np.zeros((len(held.row), int(held.cards[target]))))
        return total, held.row_cll(total)

    def changed(total, v, new_parents):
        old = factors.get(v, 0.0)
        return held.row_cll(total - old + held.factor(v, new_parents))

    total, current = refresh()
    for _ in range(n * n):
        # prune
        children = [v for v in range(n) if target in parents[v]]
        arcs = [(u, target) for u in parents[target]]
        arcs += [(target, v) for v in children]
        arcs += [(u, v) for v in children for u in parents[v] if u != target]
        best = None
        for u, v in sorted(arcs):
            if (u, v) in kept or v not in factors:
                continue
            g, z = held.gain(current, changed(total, v, parents[v] - {u}))
            if g > 0 and (best is None or g > best[0]):
                best = (g, z, u, v)
        if best is not None:
            g, z, u, v = best
            parents[v].discard(u)
            moves.append(("remove", u, v, g, z))
            total, current = refresh()
            continue
        # grow
        members = set(parents[target]) | set(children)
        for v in children:
            members |= parents[v]
        members.discard(target)
        outside = [u for u in range(n) if u != target and u not in members]
        candidates = [(u, v) for v in [target, *children] for u in outside]
        candidates += [(target, u) for u in outside]
        candidates = [(u, v) for u, v in candidates if legal(u, v)]
        turns = [s for s in (turn_of(u) for u in sorted(parents[target])) if s is not None]
        if not candidates and not turns:
            break
        # arcs and turns are two families of tests, each at ``level`` (Bonferroni within)
        best = None
        if candidates:
            threshold = float(norm.isf(level / len(candidates)))
            for u, v in candidates:
                g, z = held.gain(current, changed(total, v, parents[v] | {u}))
                if g > 0 and z > threshold and (best is None or z > best[1]):
                    best = (g, z, [(u, v)], [])
        if turns:
            threshold = float(norm.isf(level / len(turns)))
            for turned in turns:
                g, z, added = turn_gain(total, current, turned)
                if g > 0 and z > threshold and (best is None or z > best[1]):
                    best = (g, z, added, [(w, target) for w in sorted(turned)])
        if best is None:
            break
        g, z, added, removed = best
        for u, v in removed:
            parents[v].discard(u)
            moves.append(("remove", u, v, g, z))
        for u, v in added:
            parents[v].add(u)
            moves.append(("add", u, v, g, z))
        total, current = refresh()
    return [tuple(sorted(p)) for p in parents], moves


def scored_moves(scores, parents, moves) -> list:
    """The path of ``moves`` that ended in ``parents``, each with the network's score after it.

    Parameters
    ----------
    scores : callable
        As in :func:`hill_climbing` (its ``network`` scores a whole DAG).
    parents : list of iterable of int
        The DAG the moves ended in.
    moves : list of tuple
        ``(move, parent, child, ...)`` in the order made, ``move`` ``"add"`` or
        ``"remove"`` (the refinements' steps, e.g. :func:`refine_blanket`'s tests).

    Returns
    -------
    list of (str, int, int, float)
        Each move with the score of the graph after it (rebuilt backwards from
        ``parents``).

    Examples
    --------
    >>> from bnclassify.scores import FamilyScores
    >>> from bnclassify.stats import VariableCounts
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 500)
    >>> y = a ^ (rng.random(500) < 0.1)
    >>> scores = FamilyScores(VariableCounts.from_rows(np.column_stack([a]), y, [2], 2))
    >>> (move, u, v, after), = scored_moves(scores, [(), (0,)], [("add", 0, 1)])
    >>> (move, u, v), after == scores.network({0: (), 1: (0,)})
    (('add', 0, 1), True)
    """
    done = [set(ps) for ps in parents]
    rebuilt = []
    for move, u, v, *_ in reversed(moves):
        rebuilt.append(
            (move, u, v, scores.network({k: tuple(sorted(p)) for k, p in enumerate(done)}))
        )
        (done[v].discard if move == "add" else done[v].add)(u)
    return rebuilt[::-1]


def _without_cycles(parents, arcs, kept) -> bool:
    """Make ``parents`` acyclic around the new ``arcs`` in place: for each ``u -> v`` of
    them that closes a cycle (``u`` below ``v``), the arcs into ``u`` from ``v`` or from
    below it are removed (the climb then places those nodes again). False when one of
    them is in ``kept``."""
    for u, v in arcs:
        while v in _ancestors(parents, u):
            closing = {w for w in parents[u] if w == v or v in _ancestors(parents, w)}
            closing = {w for w in closing if (w, u) not in arcs}
            if not closing or any((w, u) in kept for w in closing):
                return False
            parents[u] -= closing
    return True


def reorient_blanket(
    scores,
    counts,
    parents,
    target,
    level,
    *,
    alpha=1.0,
    folds=5,
    max_parents=None,
    forbidden=(),
    required=(),
    reversal=True,
    random_state=0,
    max_rounds=None,
    refine=None,
) -> tuple:
    """Turn arcs around ``target`` by re-climbs judged on held-out rows: several arcs per move.

    A score-based climb can orient the class's family wrong in a way no single move
    undoes: the class's true children learnt as its parents (their other parents are
    then no spouses), or an arc between a child of the class and a true spouse turned
    round (the spouse hangs below the child). Each candidate orientation is one arc
    made required and its reverse forbidden:

    - ``target -> p`` for each parent ``p`` of ``target``, each pair of them, and all of
      them at once;
    - ``s -> x`` for each child ``x`` of ``target`` and each child ``s`` of ``x`` not
      adjacent to ``target`` (it would become a spouse);
    - ``y -> x`` for each child ``x`` of ``target`` and each child ``y`` of ``x`` that is
      also a child of ``target``, and all of them at once (a collider between two children
      learnt turned round: ``x`` then a false member, child's ``ChestXray``).

    The candidate is the current graph with those arcs turned (the arcs that then close a
    cycle, into the new arc's parent from below its child, removed) climbed again by the
    score (:func:`hill_climbing`) with the arcs held: the climb moves every other arc it
    prefers with them, so a move is as many arcs as the score needs to follow the turn;
    then ``refine``, when given, is applied to it (the class-focused refinements that
    followed the search, so that the candidate is judged as the graph it would become).
    The candidates are judged by what they do to the held-out conditional log likelihood
    of ``target`` against the current graph (the folds of :func:`holdout_gain`); the one
    with the largest z statistic is taken when it passes the normal quantile of
    ``level`` over the number of candidates (Bonferroni), its arcs then kept, and a new
    round starts from it, until no candidate passes (or ``max_rounds``).

    Parameters
    ----------
    scores : callable
        As in :func:`hill_climbing` (the search's score).
    counts : bnclassify.stats.VariableCounts
        The rows, for the held-out likelihood.
    parents : list of iterable of int
        The searched DAG.
    target : int
    level : float
        The level of each round's test, in (0, 1).
    alpha : float, default=1.0
        The held-out tables' pseudo-count.
    folds : int, default=5
    max_parents : int, optional
    forbidden, required : iterable of (int, int)
        As in :func:`hill_climbing` (never turned, never added).
    reversal : bool, default=True
        Whether the climbs reverse arcs.
    random_state : int, default=0
        The folds' seed.
    max_rounds : int, optional
        Most candidates taken (default: until none passes).
    refine : callable, optional
        ``refine(parents, required, forbidden) -> (parents, steps)``: what each climbed
        candidate goes through before it is judged (``parents`` a list of sets, the
        candidate's arcs among ``required``); ``steps`` start with ``(move, parent,
        child)``, ``move`` ``"add"`` or ``"remove"`` (as the tests of
        :func:`refine_blanket`, which ``BayesNetClassifier`` passes). Default: none, the
        climbed graph.

    Returns
    -------
    parents : list of tuple of int
    path : list of (str, int, int, float)
        For each candidate taken, its turned arcs (``"reverse"``, with the network's score
        of the turned graph), the arcs removed to break cycles (``"remove"``) and the
        climb's moves, as in :func:`blanket_perturbation`, then ``refine``'s moves.
    steps : list
        ``refine``'s ``steps`` of each candidate taken, in order.
    tried : list of (int, tuple of (int, int), float, float, float, bool)
        Every candidate judged: ``(round, arcs, gain, z, threshold, taken)``, ``gain`` the
        held-out conditional log likelihood over the current graph's (nats, summed over
        the rows).

    Examples
    --------
    The class ``c`` and ``s`` both drive ``x``, and ``x`` drives ``w``; a climb that
    learnt ``x -> c`` (the child as a parent) is turned back, and ``s`` becomes a spouse.

    >>> from bnclassify.scores import FamilyScores
    >>> from bnclassify.stats import VariableCounts
    >>> rng = np.random.default_rng(0)
    >>> c, s = rng.integers(0, 2, 20000), rng.integers(0, 2, 20000)
    >>> x = (c ^ s) ^ (rng.random(20000) < 0.1)
    >>> counts = VariableCounts.from_rows(np.column_stack([x, s]), c, [2, 2], 2)
    >>> scores = FamilyScores(counts)
    >>> learnt = [(1,), (), (0,)]  # s -> x -> c: s is no member of c's blanket
    >>> turned, path, _, tried = reorient_blanket(scores, counts, learnt, 2, 0.01)
    >>> turned, [(arcs, taken) for _, arcs, _, _, _, taken in tried]
    ([(1, 2), (), ()], [(((2, 0),), True)])
    """
    from scipy.stats import norm

    n, current, limit, banned, kept = _blanket_setup(
        parents, level, max_parents, forbidden, required
    )
    target = int(target)
    held = _HeldOutCLL(counts, target, alpha, folds, random_state)
    r = int(held.cards[target])
    cache = {}

    def cll(graph):
        total = np.zeros((len(held.row), r))
        for v, ps in enumerate(graph):
            if v == target or target in ps:
                key = (v, frozenset(ps))
                if key not in cache:
                    cache[key] = held.factor(v, ps)
                total += cache[key]
        return held.row_cll(total)

    def candidates():
        out = []
        turnable = [
            p
            for p in sorted(current[target])
            if (target, p) not in banned and (p, target) not in kept
        ]
        out += [((target, p),) for p in turnable]
        # two true children learnt as parents: one turned alone leaves the other
        # holding its spouses' arcs (water), so pairs are candidates too
        out += [((target, p), (target, q)) for p, q in itertools.combinations(turnable, 2)]
        if len(turnable) > 2:
            out.append(tuple((target, p) for p in turnable))
        children = [v for v in range(n) if target in current[v]]
        adjacent = set(current[target]) | set(children)
        for x in children:
            for s in range(n):
                if (
                    x in current[s]
                    and s != target
                    and s not in adjacent
                    and (s, x) not in banned
                    and (x, s) not in kept
                ):
                    out.append(((s, x),))
        # a collider between two children learnt turned round: x -> y with both children
        # of the target, y made x's parent (one, or all of x's such children at once)
        for x in children:
            below = [
                y
                for y in children
                if x in current[y] and (x, y) not in kept and (y, x) not in banned
            ]
            out += [((y, x),) for y in below]
            if len(below) > 1:
                out.append(tuple((y, x) for y in below))
        return out

    path, refined, tried = [], [], []
    limit_rounds = np.inf if max_rounds is None else max_rounds
    rounds = 0
    while rounds < limit_rounds:
        options = candidates()
        if not options:
            break
        cache.clear()  # a round's factors only: each is (test rows, states)
        base = cll(current)
        threshold = float(norm.isf(level / len(options)))
        best = None
        for arcs in options:
            start = [set(p) for p in current]
            for u, v in arcs:
                start[u].discard(v)
                start[v].add(u)
            if any(len(start[v]) > limit for _, v in arcs):
                continue
            if not _without_cycles(start, arcs, kept):
                continue
            turned = scores.network({k: tuple(sorted(p)) for k, p in enumerate(start)})
            removed = [
                (u, v)
                for v in range(n)
                for u in sorted(current[v] - start[v])
                if (v, u) not in arcs
            ]
            found, climb = hill_climbing(
                scores,
                n,
                start,
                max_parents=max_parents,
                forbidden=[*banned, *((v, u) for u, v in arcs)],
                required=[*kept, *arcs],
                reversal=reversal,
            )
            moves = []
            if refine is not None:
                found = [set(p) for p in found]
                found, moves = refine(found, [*kept, *arcs], [*banned, *((v, u) for u, v in arcs)])
                climb = [*climb, *scored_moves(scores, found, moves)]
            g, z = held.gain(base, cll(found))
            tried.append([rounds, tuple(arcs), g, z, threshold, False])
            if g > 0 and z > threshold and (best is None or z > best[1]):
                steps = [("reverse", v, u, turned) for u, v in arcs]
                steps += [("remove", u, v, turned) for u, v in removed]
                best = (g, z, arcs, found, [*steps, *climb], len(tried) - 1, moves)
        if best is None:
            break
        _, _, arcs, found, steps, k, moves = best
        tried[k][5] = True
        current = [set(p) for p in found]
        kept |= set(arcs)
        banned |= {(v, u) for u, v in arcs}
        path += steps
        refined.append(moves)
        rounds += 1
    tried = [(k, arcs, float(g), float(z), t, taken) for k, arcs, g, z, t, taken in tried]
    return [tuple(sorted(p)) for p in current], path, refined, tried
