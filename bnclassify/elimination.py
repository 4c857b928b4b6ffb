"""Variable elimination: discrete variables summed out of a product of log potentials.

A *potential* is a pair ``(scope, table)``: ``scope`` a tuple of variables
(column positions) and ``table`` the log values, shape ``(n_rows, n_classes,
*cards of scope)``, so every operation is vectorised over the rows and the
classes, which are never summed out. Eliminating a variable adds the
potentials that mention it (broadcast to the union of their scopes) and takes
a log-sum-exp over its axis; the cost of an order is the size of the largest
table it forms, which grows with the width of the graph, not with the product
of every eliminated variable's states.

The network (:class:`~bnclassify.network.FittedNetwork`) sums the missing
cells of a row out with it; :func:`elimination_order` chooses the order
greedily (min-weight, Kjaerulff 1990: the variable whose table is smallest,
ties by min-fill, then by position) and :func:`eliminate` runs it.
"""

from __future__ import annotations

import math

import numpy as np

from ._native import gathered_sums

#: Most cells (classes x states) of one row's largest table an elimination may form; a
#: row needing more is refused up front, with the cost in the message.
MAX_TABLE_CELLS = 1 << 24

#: Cells of the tables formed at once (the rows are taken in chunks below it).
BLOCK_CELLS = 1 << 22

#: Most joint states of a row's needed missing cells that ``FittedNetwork.marginal`` sums
#: out by scoring every completion of the row (one gather per node for all such rows at
#: once) rather than by a planned elimination (a plan per group of cells). Measured on
#: ESKDB(10)'s members: vote's and hepatitis's inference 4x and 2.3x faster at 16 than
#: with every row planned, anneal's (25 missing cells a row, most of them barren) 1.15x
#: slower; at 64, anneal 1.4x slower.
ENUMERATED_STATES = 16

#: Most joint states of one group of a row's needed missing cells (cells no node joins to
#: the row's others) that ``FittedNetwork.marginal`` sums out by scoring its completions,
#: with every such group of every row in one call, rather than by a plan for the group: a
#: row of many missing cells (above :data:`ENUMERATED_STATES` in all) needs several small
#: groups. Measured on ESKDB(10)'s predict (CPU): anneal 0.152 s with every group planned,
#: 0.139 s at 16, 0.129 s at 64, 0.145 s at 256; vote 0.040, 0.036, 0.033, 0.032 s.
ENUMERATED_GROUP_STATES = 64

#: A group of more joint states is summed over its completions too when its states times
#: the rows holding it are at most this many: a plan's fixed cost (an elimination order, a
#: potential per node and a few dozen numpy calls) is otherwise paid for a handful of rows.
#: anneal's members plan 67 groups of 72-4,032 states in a predict of its two halves, on 1-45
#: rows each. ESKDB(10)'s predict of both halves (CPU, least of 5): anneal 113, 101, 96,
#: 99, 107 ms at 0, 1024, 2048, 4096, 8192 cells; hepatitis 28.6, 23.5, 24.0, 22.3, 22.0;
#: vote 26.6, 23.2, 23.8, 23.8, 23.6.
ENUMERATED_GROUP_CELLS = 2048

#: States from which ``FittedNetwork.marginal`` sums a variable out by
#: :func:`summed_out` (grouping equal states) rather than by one product and a log-sum-exp
#: over all of them: below it the grouping costs more than it can save (arrhythmia's
#: KDB(k=2), whose missing cells have at most a few dozen states, measured 1.7x slower).
GROUPED_STATES = 64


def elimination_order(scopes, cards) -> tuple[list, list]:
    """A greedy order that sums every variable of ``scopes`` out, and the tables it forms.

    Min-weight: at each step the variable whose elimination forms the
    smallest table (its states times its neighbours' states) goes next; ties
    go to the one adding the fewest fill-in edges, then to the lowest
    position. The neighbours are then joined, as eliminating it joins them.

    Parameters
    ----------
    scopes : iterable of tuple of int
        The variables each potential mentions.
    cards : mapping or sequence
        Number of states of each variable.

    Returns
    -------
    order : list of int
    cliques : list of tuple of int
        The scope of the table formed at each step, the eliminated variable first.

    Examples
    --------
    A chain a - b - c eliminated from an end: no table of three variables.

    >>> elimination_order([(0, 1), (1, 2)], [2, 3, 2])
    ([0, 1, 2], [(0, 1), (1, 2), (2,)])
    """
    neighbours: dict = {}
    for scope in scopes:
        for v in scope:
            neighbours.setdefault(v, set()).update(u for u in scope if u != v)
    order, cliques = [], []
    while neighbours:

        def key(v):
            near = neighbours[v]
            weight = math.prod(int(cards[u]) for u in near) * int(cards[v])
            fill = sum(1 for a in near for b in near if a < b and b not in neighbours[a])
            return weight, fill, v

        v = min(neighbours, key=key)
        near = neighbours.pop(v)
        for u in near:
            neighbours[u].discard(v)
            neighbours[u].update(w for w in near if w != u)
        order.append(v)
        cliques.append((v, *sorted(near)))
    return order, cliques


def table_cells(clique, cards, n_classes) -> int:
    """Cells per row of a table over ``clique`` and the classes."""
    return n_classes * math.prod(int(cards[v]) for v in clique)


def eliminate(potentials, order, n_rows, n_classes) -> np.ndarray:
    """``log sum over the variables of order of exp(sum of the potentials)``, per row and class.

    Parameters
    ----------
    potentials : list of (tuple of int, ndarray)
        Each scope and its log table of shape ``(n_rows, n_classes, *cards)``.
    order : list of int
        Every variable of the scopes, in the order to sum them out.
    n_rows, n_classes : int

    Returns
    -------
    ndarray of shape (n_rows, n_classes)

    Examples
    --------
    ``log sum_a sum_b P(a) P(b | a) = 0``:

    >>> p_a = (0,), np.log([[[0.3, 0.7]]])
    >>> p_b = (0, 1), np.log([[[[0.9, 0.1], [0.2, 0.8]]]])
    >>> eliminate([p_a, p_b], [1, 0], 1, 1).round(12)
    array([[0.]])
    """
    pending = list(potentials)
    for v in order:
        involved = [p for p in pending if v in p[0]]
        pending = [p for p in pending if v not in p[0]]
        union = [v]
        for scope, _ in involved:
            union += [u for u in scope if u not in union]
        total = None
        for scope, table in involved:
            aligned = _aligned(scope, table, union)
            total = aligned if total is None else total + aligned
        pending.append((tuple(union[1:]), log_sum_exp(total, axis=2)))
    out = np.zeros((n_rows, n_classes))
    for scope, table in pending:
        if scope:
            raise ValueError(f"the order leaves the variables {list(scope)} in a potential.")
        out = out + table
    return out


def _aligned(scope, table, union):
    """``table`` with its variable axes in ``union``'s order, size-1 axes for the others."""
    position = {u: k for k, u in enumerate(union)}
    perm = sorted(range(len(scope)), key=lambda a: position[scope[a]])
    moved = np.transpose(table, (0, 1, *(2 + a for a in perm)))
    present = {scope[a]: table.shape[2 + a] for a in range(len(scope))}
    return moved.reshape(table.shape[:2] + tuple(present.get(u, 1) for u in union))


def log_sum_exp(table, axis) -> np.ndarray:
    """``log sum exp`` along ``axis``; ``-inf`` where every term is ``-inf``."""
    top = table.max(axis=axis, keepdims=True)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(table - safe).sum(axis=axis)) + np.squeeze(safe, axis)


def summed_rows(indices, tables) -> np.ndarray:
    """``sum_f tables[f][indices[f]]``, one row per index.

    Each ``tables[f]`` is 2-D ``(k_f, w)`` (the same ``w`` for all) and
    ``indices[f]`` picks one of its rows for every output row. Fewer output rows than
    the tables have rows: the picked rows added in turn; otherwise the tables stacked
    and each row's picked rows added by :func:`bnclassify._native.gathered_sums`. A
    ``-inf`` cell (a probability 0) makes the sums that read it ``-inf``.

    Examples
    --------
    >>> tables = [np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[10.0, 20.0]])]
    >>> summed_rows([np.array([1, 0]), np.array([0, 0])], tables)
    array([[13., 24.],
           [11., 22.]])
    """
    sizes = np.array([len(t) for t in tables])
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    n = len(indices[0])
    if n * len(tables) <= offsets[-1]:
        # fewer picked rows than the tables hold (a missing cell of a few rows, with many
        # children): adding the picked rows reads less than stacking the tables would
        out = tables[0][np.asarray(indices[0], dtype=np.intp)]
        for index, table in zip(indices[1:], tables[1:], strict=True):
            out += table[np.asarray(index, dtype=np.intp)]
        return out
    picks = np.column_stack([np.asarray(i, dtype=np.intp) for i in indices]) + offsets[:-1]
    return gathered_sums(np.concatenate(tables, axis=0), picks)


def equal_rows(keys) -> tuple[np.ndarray, np.ndarray]:
    """The first of each group of equal rows of ``keys``, and each group's size.

    States whose terms are equal everywhere can be summed once and weighted by their
    number: an identifier's values never seen with a class give the same Laplace-uniform
    row of every table they index.

    Examples
    --------
    >>> equal_rows(np.array([[1.0, 2.0], [0.0, 1.0], [1.0, 2.0]]))
    (array([1, 0]), array([1, 2]))
    """
    keys = np.asarray(keys).reshape(len(keys), -1)
    # a fingerprint of each row's bits (wrapping integer arithmetic: equal rows, equal
    # fingerprints), grouped, then checked cell by cell against each group's first row
    keys = keys.astype(np.float64, copy=False)
    bits = keys.view(np.uint64)
    weights = np.random.default_rng(0).integers(1, 2**63, size=keys.shape[1], dtype=np.uint64)
    fingerprint = (bits * (weights | np.uint64(1))).sum(axis=1)
    _, first, inverse, counts = np.unique(
        fingerprint, return_index=True, return_inverse=True, return_counts=True
    )
    if (keys == keys[first[inverse.ravel()]]).all():
        return first, counts
    # two different rows with one fingerprint: group by the rows' bytes themselves
    keys = np.ascontiguousarray(keys)
    rows = keys.view(np.dtype((np.void, keys.dtype.itemsize * keys.shape[1]))).ravel()
    _, first, counts = np.unique(rows, return_index=True, return_counts=True)
    return first, counts


def equal_columns(blocks, n_classes) -> tuple[np.ndarray, np.ndarray]:
    """The first column of each group of columns equal in every block, and each group's size.

    ``blocks`` are arrays of one width ``n_classes * states``, column ``c * states + s``
    the class ``c`` and state ``s`` of every block; a group never joins two classes. The
    groups come in the order of their first columns (by class, then state). The blocks'
    transposes given to :func:`equal_states`.

    Examples
    --------
    >>> block = np.array([[1.0, 2.0, 1.0, 1.0, 5.0, 5.0], [0.0, 3.0, 0.0, 7.0, 7.0, 7.0]])
    >>> equal_columns([block], 2)  # class 0: columns 0 and 2 alike; class 1: 4 and 5
    (array([0, 1, 3, 4]), array([2, 1, 1, 2]))
    """
    return equal_states([block.T for block in blocks], n_classes)


def equal_states(columns, n_classes) -> tuple[np.ndarray, np.ndarray]:
    """:func:`equal_columns` of blocks given by their transposes: ``columns[f]`` of shape
    ``(n_classes * states, k_f)``, row ``c * states + s`` the class ``c`` and state ``s``
    (a table's rows for one state of the variable summed out, as a table laid out with
    that variable's axis first holds them, contiguous). Returns the first row of each group
    of rows equal in every array, and each group's size.

    Candidates come from one random projection of each row (equal rows project equally:
    each row's products summed in one order, the same for every row), and every row is then
    compared with its group's first in every array; when a candidate group holds different
    rows, or a row holds ``-inf`` (its projection says nothing), the rows are grouped by
    their bytes (:func:`equal_rows` of the arrays side by side).

    Examples
    --------
    >>> rows = np.array([[1.0, 0.0], [2.0, 3.0], [1.0, 0.0], [1.0, 7.0], [5.0, 7.0], [5.0, 7.0]])
    >>> equal_states([rows], 2)  # class 0: rows 0 and 2 alike; class 1: 4 and 5
    (array([0, 1, 3, 4]), array([2, 1, 1, 2]))
    """
    width = columns[0].shape[0]
    states = width // n_classes
    rng = np.random.default_rng(0)
    projection = np.zeros(width)
    term = np.empty(width)
    for rows in columns:
        weights = rng.random(rows.shape[1])
        # column by column: every row's products added in the same order (a BLAS product
        # may add a few rows' in another, and split equal states), few columns a table
        part = rows[:, 0] * weights[0]
        for j in range(1, rows.shape[1]):
            part += np.multiply(rows[:, j], weights[j], out=term)
        projection += part
    classes = np.repeat(np.arange(n_classes), states)
    if np.isfinite(projection).all():
        order = np.lexsort((projection, classes))  # stable: a group's first row first
        ordered, ordered_classes = projection[order], classes[order]
        starts = np.ones(width, dtype=bool)
        starts[1:] = (ordered[1:] != ordered[:-1]) | (ordered_classes[1:] != ordered_classes[:-1])
        first = order[starts]
        counts = np.diff(np.append(np.flatnonzero(starts), width))
        kept = first[np.cumsum(starts) - 1]  # each row's group's first
        others = kept != order  # every row but its group's first
        row, kept = order[others], kept[others]
        # contiguous rows compared (a table's columns would each be a strided read)
        if all(np.array_equal(rows[row], rows[kept]) for rows in columns):
            position = np.argsort(first)
            return first[position], counts[position]
    whole = np.concatenate([classes[:, None].astype(np.float64), *columns], axis=1)
    first, counts = equal_rows(whole)
    position = np.argsort(first)
    return first[position], counts[position]


def summed_out(indices, tables, n_classes) -> np.ndarray:
    """``log sum_s exp(sum_f tables[f][indices[f], c, s])`` per row and class: one variable
    summed out of the potentials that alone mention it, shape ``(n_rows, n_classes)``.

    Each ``tables[f]`` has shape ``(k_f, n_classes, states)`` and ``indices[f]`` picks one
    slice per row. For each class, the states whose terms are equal in every table
    (:func:`equal_rows`) are summed once and weighted by their number, so the cost grows with
    the number of distinct terms, not with the states (an identifier unseen in the row).
    ``StateSum(tables, n_classes)(indices)``: a caller summing the same tables out of
    several blocks of rows prepares the :class:`StateSum` once.

    Examples
    --------
    Three states, two of them alike: ``log(1 + 2 e) = 1.862``.

    >>> table = np.array([[[0.0, 1.0, 1.0]]])
    >>> summed_out([np.array([0])], [table], 1).round(3)
    array([[1.862]])
    """
    return StateSum(tables, n_classes)(indices)


class StateSum:
    """:func:`summed_out` of fixed ``tables``, prepared once for any rows' ``indices``.

    What does not depend on the rows is done here: the distinct terms of each class
    (:func:`equal_rows`), the tables' columns of those terms stacked into one matrix, and
    the log of each term's number of states as one more row of it (added by the same
    product as the tables' terms, not by a pass over the ``(rows, terms)`` table).

    Parameters
    ----------
    tables : list of ndarray
        Each of shape ``(k_f, n_classes, states)`` (the same states for all).
    n_classes : int

    Calling it with ``indices`` (one array per table) sums the rows; an index of -1 reads
    no term of that table in that row (a node whose own cell sums to 1 there).

    Examples
    --------
    >>> table = np.array([[[0.0, 1.0, 1.0]], [[2.0, 0.0, 0.0]]])
    >>> prepared = StateSum([table], 1)
    >>> prepared.n_terms, prepared([np.array([0, 1])]).round(3).tolist()  # log(1+2e), log(e^2+2)
    (2, [[1.862], [2.24]])
    """

    def __init__(self, tables, n_classes):
        # each table's rows, one column per (class, state), given as their transposes
        self._prepare([t.reshape(len(t), -1).T for t in tables], n_classes)

    @classmethod
    def from_states(cls, columns, n_classes) -> StateSum:
        """The :class:`StateSum` of tables given by their transposes: ``columns[f]`` of
        shape ``(n_classes * states, k_f)`` is ``tables[f].reshape(k_f, -1).T`` (as a table
        laid out with the summed variable's axis after the class holds it: no copy).

        Examples
        --------
        >>> table = np.array([[[0.0, 1.0, 1.0]], [[2.0, 0.0, 0.0]]])
        >>> StateSum.from_states([table.reshape(2, -1).T], 1)([np.array([0, 1])]).round(3)
        array([[1.862],
               [2.24 ]])
        """
        made = cls.__new__(cls)
        made._prepare(columns, n_classes)
        return made

    def _prepare(self, columns, n_classes):
        states = columns[0].shape[0] // n_classes
        sizes = [rows.shape[1] for rows in columns]
        # the rows equal in every table (within a class: classes never mix) are grouped,
        # each group's first row kept
        first, counts = equal_states(columns, n_classes)
        self.n_classes = n_classes
        self.bounds = np.searchsorted(first, np.arange(n_classes + 1) * states)
        # the log of each term's number of states a row read by every row, and a row of zeros
        # (an index of -1)
        self.stacked = np.zeros((sum(sizes) + 2, len(first)))
        at = 0
        for rows, size in zip(columns, sizes, strict=True):
            self.stacked[at : at + size] = np.take(rows, first, axis=0).T
            at += size
        self.stacked[-2] = np.log(counts)
        self.offsets = np.concatenate([[0], np.cumsum([*sizes, 1])])

    @property
    def n_terms(self) -> int:
        """Distinct terms of all classes: the columns of the ``(rows, terms)`` table."""
        return self.stacked.shape[1]

    def __call__(self, indices) -> np.ndarray:
        """The sum for rows picking ``indices[f]`` of each table: ``(n_rows, n_classes)``."""
        n = len(indices[0])
        picks = np.empty((n, len(indices) + 1), dtype=np.intp)
        for f, index in enumerate(indices):
            picks[:, f] = index
        picks[:, -1] = 0
        none = picks < 0
        picks += self.offsets[:-1]
        picks[none] = len(self.stacked) - 1  # the row of zeros
        # each class's terms less their peak (a log-sum-exp per class): one exp over all
        terms, peak = gathered_sums(self.stacked, picks, self.bounds)  # new arrays
        np.exp(terms, out=terms)
        with np.errstate(divide="ignore"):
            out = peak + np.log(np.add.reduceat(terms, self.bounds[:-1], axis=1))
        return out
