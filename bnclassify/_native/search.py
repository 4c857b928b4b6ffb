"""The DAG search's moves, compiled: hill climbing, the tabu walk and the iterated search.

:func:`dag_search` runs ``bnclassify.dag_search``'s search (its Python version there is
the numpy twin, run when the extension is missing or ``BNCLASSIFY_NUMPY_KERNELS=1``) in
one call of the C kernel, which counts and scores every family itself over the
table's distinct rows. Both take the same moves (ties within the tolerance go to the
first move; the perturbations are drawn from the same uniforms); the scores differ by
rounding only (the C sums add in another order).
"""

from __future__ import annotations

import numpy as np

from . import runtime

#: The scores in the kernel's numbering (``bnclassify.scores.SCORES``' names).
SCORE_KINDS = ("bdeu", "bd", "k2", "bic", "aic", "loglik", "bds")
#: The walks in the kernel's numbering.
WALKS = ("hill_climbing", "tabu")
#: Most states of a variable the kernel reads (16-bit codes); a table with more runs the twin.
CODE_STATES = (1 << 15) - 1


def dag_search(
    codes,
    weights,
    cards,
    start,
    allowed,
    required,
    uniforms,
    *,
    score,
    prior_weight,
    n_rows,
    max_cells,
    relative_tolerance,
    max_parents,
    walk,
    tabu_length,
    reversal,
    max_iter,
    restarts,
    perturbation,
    class_variable=None,
):
    """The iterated search (``restarts=0``: its first walk alone) by the compiled kernel.

    Parameters
    ----------
    codes : ndarray of shape (k, n)
        The distinct rows' codes (negative: missing).
    weights : ndarray of shape (k,)
    cards : array of int, shape (n,)
    start, allowed, required : ndarray of bool, shape (n, n)
        ``[u, v]``: the arc ``u -> v`` starts in the graph, may be in it, must be.
    uniforms : ndarray of shape (restarts, perturbation)
        Uniforms in [0, 1): perturbing move ``p`` of restart ``t`` is legal move
        ``floor(uniforms[t, p] * count)`` in the order of the moves.
    score, prior_weight, n_rows
        As in :func:`bnclassify.scores.family_scores`.
    max_cells : int
        Largest family table a move may make.
    relative_tolerance : float
    max_parents : int or None
    walk : {"hill_climbing", "tabu"}
    tabu_length, reversal, max_iter, restarts, perturbation
        As in ``bnclassify.dag_search.iterated_search``.
    class_variable : int, optional
        The class's variable: a family without it counts once per class against
        ``max_cells`` (a fitted network keeps it so).

    Returns
    -------
    (ndarray of bool, shape (n, n), list of (int, int, int, float)) or None
        The best graph's arcs and the path's moves ``(kind, parent, child, score after)``;
        None when the kernels do not run compiled, a variable has more than
        :data:`CODE_STATES` states or the score is not one of :data:`SCORE_KINDS`.

    Examples
    --------
    >>> codes = np.array([[0, 0], [1, 1], [1, 1], [0, 1]])
    >>> found = dag_search(codes, np.ones(4), [2, 2], np.zeros((2, 2), bool),
    ...     ~np.eye(2, dtype=bool), np.zeros((2, 2), bool), np.zeros((0, 0)), score="loglik",
    ...     prior_weight=1.0, n_rows=4.0, max_cells=1 << 25, relative_tolerance=1e-10,
    ...     max_parents=None, walk="hill_climbing", tabu_length=0, reversal=True,
    ...     max_iter=None, restarts=0, perturbation=0)
    >>> found is None or (found[0].tolist(), [move[:3] for move in found[1]]) == (
    ...     [[False, True], [False, False]], [(0, 0, 1)])  # one arc, the first of the tie
    True
    """
    if not runtime.COMPILED or np.max(cards, initial=0) > CODE_STATES or score not in SCORE_KINDS:
        return None
    n = len(cards)
    flags = [np.ascontiguousarray(a, dtype=np.uint8) for a in (start, allowed, required)]
    arcs, path = runtime.kernels.dag_search(
        np.ascontiguousarray(np.asarray(codes).T, dtype=np.int16),
        np.ascontiguousarray(weights, dtype=np.float64),
        np.ascontiguousarray(cards, dtype=np.int64),
        *flags,
        np.ascontiguousarray(uniforms, dtype=np.float64).ravel(),
        SCORE_KINDS.index(score),
        float(prior_weight),
        float(n_rows),
        float(max_cells),
        float(relative_tolerance),
        -1 if max_parents is None else int(max_parents),
        WALKS.index(walk),
        int(tabu_length),
        int(bool(reversal)),
        -1 if max_iter is None else int(max_iter),
        int(restarts),
        int(perturbation),
        -1 if class_variable is None else int(class_variable),
    )
    return np.frombuffer(arcs, dtype=np.uint8).reshape(n, n).astype(bool), path
