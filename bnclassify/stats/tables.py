"""Family tables: log-CPTs of the families a structure asks for, counted in batches."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..parameters import log_conditional
from ..parameters.additive import log_ratio


class SmoothedTables:
    """Statistics whose categorical tables come from a smoothing method.

    :meth:`log_family` answers with the tables of ``smoothing`` (a
    :class:`~bnclassify.parameters.Smoothing`), those of ``families`` computed
    together in one call (a sampler then runs once for the whole network);
    everything else (counts, moments, ...) is read from ``stats`` itself.

    Parameters
    ----------
    stats : Statistics
    smoothing : bnclassify.parameters.Smoothing
    families : list of (int, tuple of int)
        ``(child, parents)`` of the tables to smooth, the parents in hierarchy order.
    rng : numpy.random.Generator, optional
        For a method that samples.

    Examples
    --------
    >>> import pandas as pd
    >>> from bnclassify.parameters import Laplace
    >>> from bnclassify.stats import training_statistics
    >>> X = pd.DataFrame({"a": [0, 1, 1], "b": [1, 1, 0]})
    >>> _, _, stats = training_statistics(X, ["u", "v", "v"])
    >>> tables = SmoothedTables(stats, Laplace(0.5), [(1, (0,))])
    >>> bool((tables.log_family(1, (0,), 1.0) == stats.log_family(1, (0,), 0.5)).all())
    True
    """

    def __init__(self, stats, smoothing, families, rng=None):
        self.statistics = stats
        self.smoothing, self.rng = smoothing, rng
        keys = [(child, tuple(parents)) for child, parents in families]
        counts = [stats.family(child, parents) for child, parents in keys]
        if getattr(smoothing, "partial_rows", False):
            # a row whose parent cell is missing still counts at its observed prefix's node
            prefixes = [
                [stats.family(child, parents[:k]) for k in range(len(parents))]
                for child, parents in keys
            ]
            tables = smoothing.log_conditionals(counts, rng, prefixes=prefixes)
        else:
            tables = smoothing.log_conditionals(counts, rng)
        self.tables = dict(zip(keys, tables, strict=True))

    def __getattr__(self, name):
        if name in ("statistics", "smoothing", "rng", "tables"):  # not set yet (copying)
            raise AttributeError(name)
        return getattr(self.statistics, name)

    def log_family(self, child: int, parents, alpha: float) -> np.ndarray:
        """``log P(x_child | c, x_parents)`` of the smoothing method (``alpha`` is not read)."""
        key = (child, tuple(parents))
        if key not in self.tables:
            counts = self.statistics.family(child, parents)
            self.tables[key] = self.smoothing.log_conditional(counts, self.rng)
        return self.tables[key]


class FamilyTables:
    """What a node reads from any statistics object: :meth:`log_family` from ``family``."""

    def log_family(self, child: int, parents, alpha: float) -> np.ndarray:
        """``log P(x_child | c, x_parents)``: :func:`~bnclassify.parameters.log_conditional`
        of ``family(child, parents)`` with pseudo-count ``alpha``."""
        return log_conditional(self.family(child, parents), alpha)


@dataclass
class FamilyBatch:
    """Single-parent families counted together, in one table of shape ``(C, total)``.

    Family ``k`` holds the cells from ``offsets[k]`` up to ``offsets[k + 1]``
    (excluded), as ``(parent state, child state)`` with the child fastest.

    Their log-CPTs are computed together too (:meth:`log_table`): one pass of
    numpy over the whole table instead of a handful of small calls per family,
    which on a 1,000-feature tree costs more than the counting.
    """

    table: np.ndarray
    offsets: np.ndarray
    parent_cards: np.ndarray
    child_cards: np.ndarray
    #: The families' keys ``(child, (parent,))``, in order (when the counter names them).
    families: tuple = ()
    _logs: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        self._shapes = [
            (len(self.table), p, c)
            for p, c in zip(self.parent_cards.tolist(), self.child_cards.tolist(), strict=True)
        ]

    @classmethod
    def of(cls, tables) -> FamilyBatch:
        """The batch of the families ``tables`` (each ``(C, r_parent, r_child)``), in order."""
        flat = [t.reshape(len(t), -1) for t in tables]
        sizes = [f.shape[1] for f in flat]
        return cls(
            np.concatenate(flat, axis=1),
            np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp).tolist(),
            np.array([t.shape[1] for t in tables], dtype=np.intp),
            np.array([t.shape[2] for t in tables], dtype=np.intp),
        )

    def child_totals(self) -> np.ndarray:
        """Each family summed over its parent, N(c, x_child) of every child in order:
        shape ``(C, sum of child cards)`` (one vectorised pass over the batch)."""
        child_cards = np.asarray(self.child_cards, dtype=np.intp)
        cells = np.repeat(child_cards, np.asarray(self.parent_cards, dtype=np.intp))
        starts = np.concatenate([[0], np.cumsum(child_cards)[:-1]])
        # cell -> its child's state, placed after the earlier children's states
        state = np.arange(int(cells.sum())) - np.repeat(np.cumsum(cells) - cells, cells)
        target = state + np.repeat(np.repeat(starts, self.parent_cards), cells)
        width = int(child_cards.sum())
        return np.stack([np.bincount(target, row, minlength=width) for row in self.table])

    def counts(self, k: int) -> np.ndarray:
        """N(c, x_parent, x_child) of family ``k``."""
        return self.table[:, self.offsets[k] : self.offsets[k + 1]].reshape(self._shapes[k])

    def log_table(self, k: int, alpha: float) -> np.ndarray:
        """``log P(x_child | c, x_parent)`` of family ``k`` with pseudo-count ``alpha``."""
        if alpha not in self._logs:
            # one block of child states per (family, parent state): the rows of each CPT
            block_sizes = np.repeat(self.child_cards, self.parent_cards)
            block_starts = np.concatenate([[0], np.cumsum(block_sizes)[:-1]])
            smoothed = self.table + alpha
            totals = np.repeat(np.add.reduceat(smoothed, block_starts, axis=1), block_sizes, axis=1)
            if alpha > 0:
                self._logs[alpha] = log_ratio(smoothed, totals)
            else:  # as log_conditional: a parent state with no data is uniform
                with np.errstate(divide="ignore", invalid="ignore"):
                    uniform = 1.0 / np.repeat(block_sizes, block_sizes)
                    self._logs[alpha] = np.log(np.where(totals > 0, smoothed / totals, uniform))
        logs = self._logs[alpha]
        return logs[:, self.offsets[k] : self.offsets[k + 1]].reshape(self._shapes[k])
