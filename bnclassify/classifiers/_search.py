"""Greedy wrapper search scored by inner cross-validated accuracy (R bnclassify's semantics).

R bnclassify's ``greedy_search`` (``R/learn-hc.R``): score the candidate structures
by the mean over ``cv`` fixed stratified folds of the fold's accuracy; stop when
the best candidate's score minus ``epsilon`` is below the current score, or when
the current score is 1; otherwise accept the best candidate and generate the next
candidates from it. The candidate moves are those of ``R/learn-hc-operators.R``.

What makes it fast: every fold's training counts are the full counts minus the
fold's own (each row is counted once, into its fold), a family's term for every
row is computed once and cached, and a candidate, which changes one or a few
families, is scored from its parent state's total by adding and removing those
families' terms; no candidate refits anything from rows.

A structure is a dict ``{feature: tuple of feature parents}`` over the included
features (positions). A joined (Cartesian-product) node is, as in R, a clique of
features: each feature of the supernode has the earlier ones as parents, which is
the same model of ``P(x_S | c)`` up to smoothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: Largest family table (folds x classes x cells) a candidate may need; bigger ones are skipped.
MAX_SEARCH_CELLS = 1 << 24


def stratified_folds(y, n_folds, rng) -> np.ndarray:
    """The fold of every row: each class's rows shuffled and dealt over the folds in turn.

    R's ``make_stratified_folds``: every fold gets each class in near-equal parts,
    whatever the class sizes (a class smaller than ``n_folds`` is in fewer folds).

    Examples
    --------
    >>> import numpy as np
    >>> folds = stratified_folds(np.array([0] * 6 + [1] * 4), 2, np.random.default_rng(0))
    >>> np.bincount(folds[:6]).tolist(), np.bincount(folds[6:]).tolist()
    ([3, 3], [2, 2])
    """
    y = np.asarray(y)
    if n_folds > len(y):
        raise ValueError(f"cv={n_folds} inner folds need at least {n_folds} rows, got {len(y)}.")
    folds = np.empty(len(y), dtype=np.intp)
    start = 0
    for c in np.unique(y):
        rows = np.flatnonzero(y == c)
        rows = rows[rng.permutation(len(rows))]
        # continue dealing where the previous class stopped, so small classes fill all folds
        folds[rows] = (start + np.arange(len(rows))) % n_folds
        start = (start + len(rows)) % n_folds
    return folds


class FoldScorer:
    """Inner-CV terms of families, from per-fold counts (full minus fold), cached.

    Parameters
    ----------
    codes : ndarray of shape (n_rows, n_features)
        Category codes, -1 where missing (continuous columns ignored).
    y : ndarray of shape (n_rows,)
        Class codes.
    cards : ndarray of shape (n_features,)
    n_classes : int
    folds : ndarray of shape (n_rows,)
        The inner fold of every row.
    alpha : float
        Dirichlet pseudo-count of the inner models.
    values : ndarray of shape (n_rows, n_features), optional
        The continuous columns (NaN where missing).
    continuous : ndarray of bool, optional
        Which columns are continuous (class-only Gaussian terms).
    """

    def __init__(self, codes, y, cards, n_classes, folds, alpha, values=None, continuous=None):
        self.codes = np.asarray(codes)
        self.y = np.asarray(y, dtype=np.intp)
        self.cards = np.asarray(cards, dtype=np.int64)
        self.n_classes = int(n_classes)
        self.folds = np.asarray(folds, dtype=np.intp)
        self.n_folds = int(self.folds.max()) + 1
        self.alpha = float(alpha)
        self.values = values
        m = self.codes.shape[1]
        self.continuous = np.zeros(m, bool) if continuous is None else np.asarray(continuous)
        self._cache = {}
        self.n_family_counts = 0  # families counted from rows (each at most once)

    # -- terms -------------------------------------------------------------------
    def prior(self) -> np.ndarray:
        """log P(c) of every row's training folds, shape ``(n_rows, C)``."""
        if "prior" not in self._cache:
            per_fold = np.bincount(
                self.folds * self.n_classes + self.y, minlength=self.n_folds * self.n_classes
            ).reshape(self.n_folds, self.n_classes)
            train = per_fold.sum(axis=0) - per_fold + self.alpha
            log_prior = np.log(train) - np.log(train.sum(axis=1, keepdims=True))
            self._cache["prior"] = log_prior[self.folds]
        return self._cache["prior"]

    def term(self, child, parents=()) -> np.ndarray:
        """log P(x_child | c, x_parents) of every row under its training folds, ``(n, C)``.

        0 where the child is missing (summed out); where a parent is missing the
        class-only term of the child stands in.
        """
        key = (int(child), tuple(sorted(int(p) for p in parents)))
        if key not in self._cache:
            if self.continuous[child]:
                self._cache[key] = self._gaussian_term(child)
            else:
                self._cache[key] = self._categorical_term(*key)
        return self._cache[key]

    def cells(self, child, parents) -> int:
        """Cells of the family's per-fold table."""
        family = [*parents, child]
        return self.n_folds * self.n_classes * int(np.prod(self.cards[family]))

    def _categorical_term(self, child, parents):
        self.n_family_counts += 1
        family = [*parents, child]
        shape = tuple(int(r) for r in self.cards[family])
        block = self.codes[:, family]
        child_seen = block[:, -1] >= 0
        seen = (block >= 0).all(axis=1)
        cfg = np.ravel_multi_index(tuple(np.where(seen[:, None], block, 0).T), shape)
        n_cells = int(np.prod(shape))
        index = (self.folds * self.n_classes + self.y) * n_cells + cfg
        per_fold = np.bincount(
            index[seen], minlength=self.n_folds * self.n_classes * n_cells
        ).reshape(self.n_folds, self.n_classes, -1, shape[-1])
        train = per_fold.sum(axis=0) - per_fold + self.alpha
        log_cpt = np.log(train) - np.log(train.sum(axis=-1, keepdims=True))
        # (fold, parent config, child state, class): one gather per row
        log_cpt = log_cpt.transpose(0, 2, 3, 1)
        parent_cfg, state = np.divmod(cfg, shape[-1])
        out = np.zeros((len(cfg), self.n_classes))
        out[seen] = log_cpt[self.folds[seen], parent_cfg[seen], state[seen]]
        partial = child_seen & ~seen
        if partial.any():
            out[partial] = self.term(child, ())[partial]
        return out

    def _gaussian_term(self, child):
        self.n_family_counts += 1
        x = self.values[:, child]
        seen = ~np.isnan(x)
        group = self.folds * self.n_classes + self.y
        size = self.n_folds * self.n_classes

        def per_train(w):
            s = np.bincount(group[seen], w, minlength=size).reshape(self.n_folds, -1)
            return s.sum(axis=0) - s

        n, s1, s2 = per_train(None), per_train(x[seen]), per_train(x[seen] ** 2)
        mean = s1 / np.maximum(n, 1)
        var = np.maximum(s2 / np.maximum(n, 1) - mean**2, 0.0)
        # a floor relative to the column's spread keeps a constant class finite
        var += 1e-9 * max(float(np.nanvar(x)), 1e-300) + 1e-300
        out = np.zeros((len(x), self.n_classes))
        f = self.folds[seen]
        diff = x[seen, None] - mean[f]
        out[seen] = -0.5 * (np.log(2 * np.pi * var[f]) + diff**2 / var[f])
        return out

    # -- scores --------------------------------------------------------------------
    def total(self, structure) -> np.ndarray:
        """log P(c, x) of every row under its training folds, from scratch."""
        out = self.prior().copy()
        for child, parents in structure.items():
            out += self.term(child, parents)
        return out

    def accuracy(self, total) -> float:
        """Mean over the folds of the fold's accuracy (R's ``colMeans`` of per-fold ones)."""
        hit = np.argmax(total, axis=1) == self.y
        right = np.bincount(self.folds, hit, minlength=self.n_folds)
        size = np.bincount(self.folds, minlength=self.n_folds)
        return float(np.mean(right[size > 0] / size[size > 0]))

    def evaluate(self, candidate: Candidate) -> tuple:
        """``(score, total)`` of a candidate, from its base total and its changed families."""
        total = candidate.base.copy()
        for child, old, new in candidate.changes:
            if old is not None:
                total -= self.term(child, old)
            if new is not None:
                total += self.term(child, new)
        return self.accuracy(total), total


@dataclass
class Candidate:
    """A structure, the move that made it, and what changed from the state it came from."""

    structure: dict
    move: str
    base: np.ndarray
    changes: list = field(default_factory=list)  # (child, old parents | None, new | None)


def moved(state: dict, base, move, new_parents: dict, removed=()) -> Candidate:
    """The candidate ``state`` with ``new_parents`` set and ``removed`` features taken out."""
    structure = dict(state)
    changes = []
    for child in removed:
        changes.append((child, structure.pop(child), None))
    for child, parents in new_parents.items():
        changes.append((child, structure.get(child), tuple(parents)))
        structure[child] = tuple(parents)
    return Candidate(structure, move, base, changes)


@dataclass
class SearchResult:
    """The accepted structure and every accepted move with its score."""

    structure: dict
    path: list  # (step, move, score)
    n_evaluated: int


def greedy_search(scorer, init: dict, step, epsilon, names) -> SearchResult:
    """R bnclassify's ``greedy_search`` with deterministic tie-breaks (first best candidate).

    ``step(structure, total, scorer, names)`` returns the next candidates.
    """
    candidates = [Candidate(dict(init), "start", scorer.prior(), list(_all_families(init)))]
    current, current_total, current_score = None, None, -np.inf
    path, n_evaluated = [], 0
    while candidates:
        if np.isclose(current_score, 1.0):
            break
        results = [scorer.evaluate(c) for c in candidates]
        n_evaluated += len(results)
        scores = np.array([s for s, _ in results])
        best = int(np.argmax(scores))  # the first of equal scores: candidate order decides
        if not scores[best] - epsilon >= current_score:
            break
        current = candidates[best].structure
        current_score = float(scores[best])
        current_total = results[best][1]
        path.append((len(path), candidates[best].move, current_score))
        candidates = step(current, current_total, scorer, names)
    return SearchResult(current, path, n_evaluated)


def _all_families(structure):
    return [(child, None, parents) for child, parents in structure.items()]


# -- graph helpers ------------------------------------------------------------------
def ancestors(structure, node) -> set:
    """The feature ancestors of ``node``."""
    seen, todo = set(), list(structure.get(node, ()))
    while todo:
        p = todo.pop()
        if p not in seen:
            seen.add(p)
            todo.extend(structure.get(p, ()))
    return seen


def supernodes(structure) -> list:
    """The connected components of the feature graph, each sorted, in order of their first."""
    parent = {v: v for v in structure}

    def find(v):
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for child, parents in structure.items():
        for p in parents:
            parent[find(p)] = find(child)
    groups = {}
    for v in sorted(structure):
        groups.setdefault(find(v), []).append(v)
    return sorted(groups.values(), key=lambda g: g[0])


# -- the operators (R/learn-hc-operators.R) ----------------------------------------------
def _arc(a, b, names):
    return f"arc {names[a]} -> {names[b]}"


def _fits(scorer, child, parents) -> bool:
    return scorer.cells(child, parents) <= MAX_SEARCH_CELLS


def ode_arcs(structure, categorical):
    """``augment_ode_arcs``: arcs into orphans that keep a one-dependence, acyclic DAG.

    From every non-orphan to every orphan, and between two orphans only the arc
    from the later one (column order) to the earlier, the one R's ``discard_reversed``
    keeps; none that closes a cycle. The two directions are Markov equivalent, but
    with smoothing (``alpha > 0``) they are different models with different scores.

    Examples
    --------
    >>> import numpy as np
    >>> ode_arcs({0: (), 1: (), 2: ()}, np.ones(3, bool))
    [(1, 0), (2, 0), (2, 1)]
    """
    features = sorted(f for f in structure if categorical[f])
    orphans = [f for f in features if not structure[f]]
    if len(orphans) < 2:
        return []
    arcs = []
    for to in orphans:
        for frm in features:
            if frm == to or (frm in orphans and frm < to):
                continue  # R keeps the later orphan's arc to the earlier one
            if to not in ancestors(structure, frm):
                arcs.append((frm, to))
    return sorted(arcs)


def augment_ode(structure, total, scorer, names, categorical):
    """TAN-HC's candidates: one arc from :func:`ode_arcs`."""
    return [
        moved(structure, total, _arc(a, b, names), {b: (a,)})
        for a, b in ode_arcs(structure, categorical)
    ]


def superparent_children(structure, categorical) -> dict:
    """``superparent_children``: each feature's acceptable children among the orphans."""
    features = sorted(f for f in structure if categorical[f])
    orphans = [f for f in features if not structure[f]]
    if len(orphans) < 2:
        return {}
    out = {}
    for f in features:
        banned = ancestors(structure, f) | {f}
        children = [o for o in orphans if o not in banned]
        if children:
            out[f] = children
    return out


def augment_ode_sp(structure, total, scorer, names, categorical):
    """TAN-HCSP's candidates: the best super-parent's arcs, one at a time.

    The super-parent is the feature whose arcs to all its acceptable children
    give the best inner-CV accuracy (first of equals); the candidates add one of
    those arcs each.
    """
    sp = superparent_children(structure, categorical)
    if not sp:
        return []
    trials = [
        moved(structure, total, "", {c: (f,) for c in children}) for f, children in sp.items()
    ]
    scores = [scorer.evaluate(t)[0] for t in trials]
    parent = list(sp)[int(np.argmax(scores))]
    return [moved(structure, total, _arc(parent, c, names), {c: (parent,)}) for c in sp[parent]]


def augment_kdb(k):
    """``augment_kdb(k)``: arcs into features with fewer than ``k`` parents, acyclic, new."""

    def step(structure, total, scorer, names, categorical):
        features = sorted(f for f in structure if categorical[f])
        open_ = [f for f in features if len(structure[f]) < k]
        out = []
        for to in open_:
            for frm in features:
                if frm == to or frm in structure[to] or to in ancestors(structure, frm):
                    continue
                parents = tuple(sorted((*structure[to], frm)))
                if _fits(scorer, to, parents):
                    out.append((frm, to, parents))
        return [
            moved(structure, total, _arc(a, b, names), {b: parents})
            for a, b, parents in sorted(out)
        ]

    return step


def fssj_step(structure, total, scorer, names, categorical, features):
    """FSSJ's candidates: add a feature on its own, or joined to a supernode."""
    out = []
    to_include = [f for f in features if f not in structure]
    for f in to_include:
        out.append(moved(structure, total, f"add {names[f]}", {f: ()}))
    groups = supernodes(structure)
    for f in to_include:
        if not categorical[f]:
            continue
        for group in groups:
            if all(categorical[g] for g in group) and _fits(scorer, f, group):
                label = ", ".join(names[g] for g in group)
                out.append(moved(structure, total, f"join {names[f]} to {{{label}}}", {f: group}))
    return out


def bsej_step(structure, total, scorer, names, categorical):
    """BSEJ's candidates: remove a feature, or merge two supernodes."""
    out = []
    for f in sorted(structure):
        changed = {c: tuple(p for p in ps if p != f) for c, ps in structure.items() if f in ps}
        out.append(moved(structure, total, f"remove {names[f]}", changed, removed=(f,)))
    groups = supernodes(structure)
    for i, child in enumerate(groups):
        for parent in groups[i + 1 :]:
            if not all(categorical[g] for g in (*child, *parent)):
                continue
            new = {c: tuple(sorted((*structure[c], *parent))) for c in child}
            if all(_fits(scorer, c, ps) for c, ps in new.items()):
                label = ", ".join(names[g] for g in child)
                other = ", ".join(names[g] for g in parent)
                out.append(moved(structure, total, f"merge {{{label}}} with {{{other}}}", new))
    return out
