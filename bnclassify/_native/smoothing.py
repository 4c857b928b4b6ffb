"""Hierarchical smoothing: the HDP sampler (:mod:`bnclassify.parameters.hdp`) and Newton's
method for HLS's ridge-penalised log-linear tables (:mod:`bnclassify.parameters.hierarchy`)."""

from __future__ import annotations

import math

import numpy as np

from . import runtime

# -- hierarchical Dirichlet process sampler ------------------------------------------------------
#: What the sampler returns: its trees are done, or it stopped for a larger Stirling table.
HDP_DONE, HDP_NEEDS_TABLE = 0, 1
_MASK64 = (1 << 64) - 1


def hdp_run(forest, stirling, row_of, columns, settings) -> tuple:
    """Run (or resume) the Gibbs sampler of :mod:`bnclassify.parameters.hdp` on every tree.

    ``forest`` holds the trees' arrays, changed in place (see
    :class:`bnclassify.parameters.hdp.Forest`); ``stirling[row_of[n], t]`` is
    log S(n, t), ``columns[t, n]`` the same for ``n < len(columns[0])`` (the
    dense rows, where every inner node's count lies); ``settings`` is
    ``(n_iter, burn_in, window, sweeps_per_round)`` and ``(prior_shape,
    prior_rate, max_concentration, log_q_floor)``.

    Trees are independent (each has its own concentrations and its own
    xoshiro256** generator, ``forest.rng[tree]``), so they are run one after the
    other, split over threads when the work pays for them (see
    :func:`_on_shares`; the results do not depend on the split). Each tree runs
    its sweeps from ``forest.position[tree]`` (sweep, active cell): each sweep
    draws the table count of every active cell in order from its conditional
    over ``t - window .. t + window`` (:func:`hdp_window`) and, from sweep
    ``burn_in`` on, records the posterior mean of every node whose counts move
    (``forest.record``, parents first); after every ``sweeps_per_round`` sweeps
    (and the last) each other node (``forest.leaves``, parents first) adds its
    means over the round's recorded sweeps (its counts are fixed, so they follow
    from its parent's sums) and, unless the run is over, the tree's
    concentrations are redrawn (:func:`_draw_concentrations`).

    Returns ``(HDP_DONE, None)``, or ``(HDP_NEEDS_TABLE, (row, column))`` when a
    draw needs a number the table lacks (the largest asked for); the trees then
    stand where they stopped (nothing of that draw has happened) and a call with
    a larger table resumes them.

    The compiled kernel and the Python version below perform the same
    floating-point operations in the same order, with the same generators, so
    they give identical results (``tests/test_hdp.py``).
    """
    (n_iter, burn_in, window, per_round), priors = settings
    arrays = (
        forest.active, forest.active_node, forest.parent, forest.start, forest.group,
        forest.N, forest.T, forest.n, forest.t, forest.record, forest.leaves,
        forest.sampled_nodes, row_of, forest.position, forest.tree_active, forest.tree_record,
        forest.tree_leaves, forest.tree_sampled, forest.tree_groups, forest.concentration,
        forest.log_concentration, stirling, columns, forest.p, forest.acc, forest.round_acc,
        forest.rng,
    )  # fmt: skip
    run = runtime.kernels.hdp_run if runtime.COMPILED else _python_hdp_run

    def trees(share):
        need = np.zeros(2, dtype=np.int64)
        status = run(
            *arrays, need, share.start, share.stop, n_iter, burn_in, window, per_round, *priors
        )
        return status, need

    n_trees = len(forest.tree_active) - 1
    work = len(forest.active) * n_iter * (2 * window + 1)
    # the Python version works on lists of the whole arrays and holds the GIL: one share
    results = (
        runtime.on_shares(trees, n_trees, work) if runtime.COMPILED else [trees(slice(0, n_trees))]
    )
    needs = [need for status, need in results if status == HDP_NEEDS_TABLE]
    if not needs:
        return HDP_DONE, None
    return HDP_NEEDS_TABLE, tuple(int(x) for x in np.max(needs, axis=0))


def hdp_window(n_k, t_k, n_up, t_up, total_up, log_a, a_up, row, column, window):
    """``(lo, weights)``: a table count's conditional over its window, unnormalised.

    For a cell with count ``n_k`` and table count ``t_k`` whose parent cell has
    ``n_up`` and ``t_up`` (its node's total count ``total_up``, concentration
    ``a_up``), the window is ``lo .. hi``: at least 1 and at least what keeps the
    parent's count above its table count, at most ``n_k``, within ``window`` of
    ``t_k``. The weight of ``v`` is proportional to ``S(n_k, v) a^v S(n_up + v -
    t_k, t_up) / (a_up)_(total_up + v - t_k)`` (``(x)_m`` the rising factorial),
    the factors of the tree's likelihood that change with ``v``: computed as
    ``exp(log S(n_k, v) + v log a + log S(..) - best)`` (``best`` the largest
    exponent) times the rising factorial's factors beyond ``v`` up to ``hi`` (a
    product, neither a logarithm nor a division per value). A weight that
    underflows to 0 is below ``1e-240`` of the largest: the window is short, the
    product at most ``(a_up + total_up + window)^(2 window)``.
    ``row(n)`` gives ``log S(n, .)`` and ``column(t)`` ``log S(., t)`` over the dense
    rows (IndexError ``(row, column)`` where the table lacks one). Empty weights:
    only one value is allowed.
    """
    lo = max(1, t_k - window, t_k + t_up - n_up)
    hi = min(n_k, t_k + window)
    if lo >= hi:
        return lo, []
    own = row(n_k)
    if hi >= len(own) or t_up >= len(own):
        raise IndexError((n_k, max(hi, t_up)))
    above = column(t_up)
    exponents, factors = [], []
    best = -math.inf
    for v in range(lo, hi + 1):
        m = n_up + v - t_k
        if m >= len(above):
            raise IndexError((m, 0))
        factors.append(a_up + (total_up + v - 1 - t_k))
        exponent = own[v] + v * log_a + above[m]
        if exponent > best:
            best = exponent
        exponents.append(exponent)
    weights = [0.0] * len(exponents)
    suffix = 1.0
    for j in range(len(exponents) - 1, -1, -1):
        weights[j] = math.exp(exponents[j] - best) * suffix
        suffix *= factors[j]
    return lo, weights


class _Xoshiro:
    """xoshiro256** (Blackman and Vigna), the sampler's generator, as the kernel runs it."""

    def __init__(self, state):
        self.s = [int(x) for x in state]

    def next(self):
        s0, s1, s2, s3 = self.s
        result = (_rotl((s1 * 5) & _MASK64, 7) * 9) & _MASK64
        t = (s1 << 17) & _MASK64
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = _rotl(s3, 45)
        self.s = [s0, s1, s2, s3]
        return result

    def uniform(self):
        """In [0, 1)."""
        return (self.next() >> 11) * 1.1102230246251565e-16

    def open_uniform(self):
        """In (0, 1)."""
        return ((self.next() >> 11) + 0.5) * 1.1102230246251565e-16

    def normal(self):
        """Marsaglia's polar method (one of the pair)."""
        while True:
            u = 2.0 * self.uniform() - 1.0
            v = 2.0 * self.uniform() - 1.0
            s = u * u + v * v
            if 0.0 < s < 1.0:
                return u * math.sqrt(-2.0 * math.log(s) / s)

    def gamma(self, shape):
        """A Gamma(shape, 1) draw (Marsaglia and Tsang; boosted below shape 1)."""
        if shape < 1.0:
            return self.gamma(shape + 1.0) * self.open_uniform() ** (1.0 / shape)
        d = shape - 1.0 / 3.0
        c = 1.0 / math.sqrt(9.0 * d)
        while True:
            x = self.normal()
            v = 1.0 + c * x
            if v <= 0.0:
                continue
            v = v * v * v
            u = self.open_uniform()
            if math.log(u) < 0.5 * x * x + d - d * v + d * math.log(v):
                return d * v


def _rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & _MASK64


def _python_hdp_run(
    active, active_node, parent, start, group, node_n, node_t, cell_n, cell_t, record, leaves,
    sampled, row_of, position, tree_active, tree_record, tree_leaves, tree_sampled, tree_groups,
    concentration, log_concentration, stirling, columns, p, acc, round_acc, rng_states, need,
    tree_lo,
    tree_hi, n_iter, burn_in, window, per_round, prior_shape, prior_rate, max_concentration,
    log_q_floor,
) -> int:  # fmt: skip
    N, T, n, t = node_n.tolist(), node_t.tolist(), cell_n.tolist(), cell_t.tolist()
    up, first, own_group = parent.tolist(), start.tolist(), group.tolist()
    a, log_a = concentration.tolist(), log_concentration.tolist()
    rows = row_of.tolist()
    cells, nodes = active.tolist(), active_node.tolist()
    mean, total, this_round = p.tolist(), acc.tolist(), round_acc.tolist()
    cache, column_cache = {}, {}

    def row(m):
        if m >= len(rows) or rows[m] < 0:
            raise IndexError((m, 0))
        if m not in cache:
            cache[m] = stirling[rows[m]].tolist()
        return cache[m]

    def column(t_up):
        if t_up not in column_cache:
            column_cache[t_up] = columns[t_up].tolist()
        return column_cache[t_up]

    status = HDP_DONE
    for tree in range(tree_lo, tree_hi):
        rng = _Xoshiro(rng_states[4 * tree : 4 * tree + 4])
        inner = record[tree_record[tree] : tree_record[tree + 1]].tolist()
        outer = leaves[tree_leaves[tree] : tree_leaves[tree + 1]].tolist()
        drawn = sampled[tree_sampled[tree] : tree_sampled[tree + 1]].tolist()
        groups = range(tree_groups[tree], tree_groups[tree + 1])
        begin, end = int(tree_active[tree]), int(tree_active[tree + 1])
        sweep, resume = int(position[2 * tree]), int(position[2 * tree + 1])
        while sweep < n_iter:
            for k in range(begin + resume, end):
                cell, node = cells[k], nodes[k]
                n_k = n[cell]
                if n_k < 2:
                    continue
                node_up = up[node]
                cell_up = first[node_up] + (cell - first[node])
                t_k = t[cell]
                try:
                    lo, weights = hdp_window(
                        n_k, t_k, n[cell_up], t[cell_up], N[node_up], log_a[own_group[node]],
                        a[own_group[node_up]], row, column, window,
                    )  # fmt: skip
                except IndexError as missing:
                    need[:] = missing.args[0]
                    position[2 * tree : 2 * tree + 2] = sweep, k - begin
                    status = HDP_NEEDS_TABLE
                    break
                if not weights:
                    continue
                mass = 0.0
                for w in weights:
                    mass += w
                target = rng.uniform() * mass
                chosen = lo + len(weights) - 1
                cumulative = 0.0
                for j in range(len(weights)):
                    cumulative += weights[j]
                    if target < cumulative:
                        chosen = lo + j
                        break
                step = chosen - t_k
                if step:
                    t[cell] = chosen
                    T[node] += step
                    n[cell_up] += step
                    N[node_up] += step
            if status != HDP_DONE:
                break
            resume = 0
            if sweep >= burn_in:
                for node in inner:
                    _record_node(node, up, first, own_group, a, N, n, mean, total, this_round)
            if (sweep + 1) % per_round == 0 or sweep + 1 == n_iter:
                recorded = sweep + 1 - max(sweep - sweep % per_round, burn_in)
                if recorded > 0:
                    _still_means(outer, up, first, own_group, a, N, n, total, this_round, recorded)
                    for node in inner:
                        for cell in range(first[node], first[node + 1]):
                            this_round[cell] = 0.0
                if sweep + 1 < n_iter:
                    _draw_concentrations(
                        drawn, groups, own_group, N, T, a, log_a, rng, prior_shape, prior_rate,
                        max_concentration, log_q_floor,
                    )  # fmt: skip
            sweep += 1
        rng_states[4 * tree : 4 * tree + 4] = rng.s
        if status != HDP_DONE:
            break
        position[2 * tree : 2 * tree + 2] = n_iter, 0
    node_n[:], node_t[:], cell_n[:], cell_t[:] = N, T, n, t
    concentration[:], log_concentration[:] = a, log_a
    p[:], acc[:], round_acc[:] = mean, total, this_round
    return status


def _record_node(node, up, first, own_group, a, N, n, mean, total, this_round):
    conc = a[own_group[node]]
    begin, node_up = first[node], up[node]
    size = first[node + 1] - begin
    denominator = N[node] + conc
    for j in range(size):
        cell = begin + j
        above = 1.0 / size if node_up < 0 else mean[first[node_up] + j]
        value = (n[cell] + conc * above) / denominator
        mean[cell] = value
        total[cell] += value
        this_round[cell] += value


def _still_means(still, up, first, own_group, a, N, n, total, this_round, recorded):
    for node in still:
        begin, node_up = first[node], up[node]
        size = first[node + 1] - begin
        conc = a[own_group[node]]
        denominator = N[node] + conc
        for j in range(size):
            cell = begin + j
            above = recorded / size if node_up < 0 else this_round[first[node_up] + j]
            value = (recorded * n[cell] + conc * above) / denominator
            this_round[cell] = value
            total[cell] += value


def _draw_concentrations(
    drawn, groups, own_group, N, T, a, log_a, rng, prior_shape, prior_rate, max_concentration,
    log_q_floor,
):  # fmt: skip
    """A tree's tied concentrations by the auxiliary-variable step: ``log q_j`` of ``q_j ~
    Beta(a, N_j)`` (as ``X / (X + Y)`` of two Gamma draws) for each of its nodes, then ``a ~
    Gamma(shape + sum T_j, rate + sum log(1 / q_j))``, at most ``max_concentration``."""
    rate = {g: prior_rate for g in groups}
    shape = {g: prior_shape for g in groups}
    for node in drawn:
        g = own_group[node]
        x = rng.gamma(a[g])
        y = rng.gamma(float(N[node]))
        log_q = log_q_floor
        if x > 0.0:
            log_q = math.log(x) - math.log(x + y)
            if log_q < log_q_floor:
                log_q = log_q_floor
        rate[g] -= log_q
        shape[g] += T[node]
    for g in groups:
        value = rng.gamma(shape[g]) / rate[g]
        if value > max_concentration:
            value = max_concentration
        if value < 1e-300:
            value = 1e-300
        a[g] = value
        log_a[g] = math.log(value)


# -- ridge-penalised log-linear tables over trees ------------------------------------------------


def row_sums(values: np.ndarray) -> np.ndarray:
    """The sum of each row of a 2-D array, left to right.

    numpy's sum over short rows costs ~10x a loop over the columns; a matrix
    product would call BLAS, whose threads only wait on a busy machine.

    Examples
    --------
    >>> row_sums(np.array([[1.0, 2.0], [3.0, 4.0]]))
    array([3., 7.])
    """
    if values.shape[1] > 8:
        return np.einsum("ij->i", values)
    total = values[:, 0].copy()
    for j in range(1, values.shape[1]):
        total += values[:, j]
    return total


#: A predicted decrease below this share of the objective is a step near the optimum, taken whole.
HLS_LOCAL = 1e-10


def hls_fit(forest, beta, tolerance: float, max_steps: int) -> list:
    """Newton's method for the coefficients of :mod:`bnclassify.parameters.hierarchy`'s forest.

    ``forest`` is a :class:`bnclassify.parameters.hierarchy.Forest`, ``beta`` its
    starting coefficients (one ``(nodes, states)`` array per level). Each step
    takes the exact gradient and the direction of the approximate Hessian
    (a diagonal minus a rank-one block per node, children's rank-one parts
    merged; see that module), then halves it until the penalised
    negative log-likelihood falls enough (Armijo), except near the optimum
    (a predicted decrease below ``HLS_LOCAL`` of the objective, which rounding
    would hide), where the whole step is taken; the iteration stops when no
    coefficient moved more than ``tolerance`` or after ``max_steps`` steps.

    The compiled kernel visits the nodes one by one, the numpy version below a
    level at a time; both do the same arithmetic on each node but add some
    sums in another order, so they agree to the tolerance (``tests/test_hls.py``
    checks 1e-9), not bit for bit.

    Returns
    -------
    beta : list of ndarray
        The coefficients per level.
    log_p : list of ndarray
        ``log softmax`` of the nodes' predictors, per level.
    """
    if not runtime.COMPILED:
        return _numpy_hls_fit(forest, beta, tolerance, max_steps)
    parent, child_start, child_stop = forest.flat_structure()
    counts, totals = forest.flat_counts()
    flat = np.ascontiguousarray(np.concatenate(beta), dtype=float).ravel()
    log_p = np.empty(counts.shape)
    r = forest.n_states
    runtime.kernels.hls_fit(
        parent, child_start, child_stop, forest.flat_ridge(), counts, totals, flat, log_p, r,
        tolerance, max_steps, HLS_LOCAL,
    )  # fmt: skip
    bounds = np.cumsum(forest.sizes)[:-1]
    return np.split(flat.reshape(-1, r), bounds), np.split(log_p.reshape(-1, r), bounds)


def _numpy_hls_fit(forest, beta, tolerance, max_steps):
    log_p = forest.node_log_probabilities(beta)
    value = forest.objective(beta, log_p)
    for _ in range(max_steps):
        p = [np.exp(lp) for lp in log_p]
        residual = [
            n[:, None] * q - c for n, q, c in zip(forest.totals, p, forest.counts, strict=True)
        ]
        sums = forest.gather_up(residual)
        gradient = [s + ridge * b for s, ridge, b in zip(sums, forest.ridge, beta, strict=True)]
        step = _hls_direction(forest, _hls_blocks(forest, p), gradient)
        decrease = -sum(float((g * s).sum()) for g, s in zip(gradient, step, strict=True))
        size = max(float(np.abs(s).max(initial=0.0)) for s in step)
        if size <= tolerance or decrease <= 0:
            break
        # near the optimum the objective's rounding hides the decrease: take the whole step
        local = decrease <= HLS_LOCAL * (1.0 + abs(value))
        t = 1.0
        while t >= 1e-8:
            trial = [b + t * s for b, s in zip(beta, step, strict=True)]
            trial_log_p = forest.node_log_probabilities(trial)
            trial_value = forest.objective(trial, trial_log_p)
            if local or trial_value <= value - 1e-4 * t * decrease:
                break
            t /= 2
        else:  # no decrease along the step
            break
        beta, log_p, value = trial, trial_log_p, trial_value
        if size * t <= tolerance:
            break
    return beta, log_p


def _hls_blocks(forest, p_nodes):
    """Per level, ``(scale, z, gain)``: each node's block of the approximate Hessian inverted,
    ``diag(1 / scale) + gain z z^T`` (see :mod:`bnclassify.parameters.hierarchy`)."""
    blocks = [None] * forest.depth
    d_below = u_below = None
    for level in range(forest.depth - 1, -1, -1):
        ridge, inner = forest.ridge[level], forest.inner[level]
        n = forest.totals[level][:, None]
        p = p_nodes[level]
        d, u = n * p, np.sqrt(n) * p  # the node's own rows: n (diag p - p p^T)
        leaf = np.ones(len(d), dtype=bool)
        if d_below is not None:
            children = forest.children[level + 1]
            leaf[:inner] = np.diff(children.indptr) == 0
            # the own rows' and the children's rank-one parts merged into one:
            # sum_c |u_c| u_c / sqrt(sum |u_c|^2), the own rows one of the parts
            size = np.sqrt(row_sums(u_below**2))
            own = row_sums(u[:inner] ** 2)
            norm = np.sqrt(children @ size**2 + own)
            merged = children @ (size[:, None] * u_below) + np.sqrt(own)[:, None] * u[:inner]
            d[:inner] += children @ d_below
            u[:inner] = np.where(
                leaf[:inner, None], u[:inner], merged / np.where(norm > 0, norm, 1.0)[:, None]
            )
        scale = d + ridge
        z = u / scale
        # 1 - u^T z, at a leaf without cancellation: sum_x p_x ridge / (n p_x + ridge)
        deficit = np.where(leaf, row_sums(p * ridge / scale), 1.0 - row_sums(u * z))
        gain = 1.0 / np.maximum(deficit, 1e-300)
        blocks[level] = (scale, z, gain)
        d_below = ridge * d / scale
        u_below = (ridge[:, 0] * np.sqrt(gain))[:, None] * z
    return blocks


def _hls_inverse(block, values):
    scale, z, gain = block
    return values / scale + (gain * row_sums(z * values))[:, None] * z


def _hls_direction(forest, blocks, gradient):
    """``-P^{-1} gradient`` for the approximate Hessian ``P`` (an up and a down pass)."""
    linear = [None] * forest.depth  # each node's linear term in its predictor's change
    linear[-1] = gradient[-1]
    for level in range(forest.depth - 2, -1, -1):
        below = forest.ridge[level + 1] * _hls_inverse(blocks[level + 1], linear[level + 1])
        passed = forest.children[level + 1] @ (below - gradient[level + 1])
        linear[level] = gradient[level].copy()
        linear[level][: forest.inner[level]] += passed
    change = _hls_inverse(blocks[0], -linear[0])
    step = [change]
    for level in range(1, forest.depth):
        above = np.take(change, forest.parent[level], axis=0)
        change = _hls_inverse(blocks[level], forest.ridge[level] * above - linear[level])
        step.append(change - above)
    return step
