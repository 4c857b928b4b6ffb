"""The categorical node: a conditional probability table."""

from __future__ import annotations

import numpy as np

from ..state import float_array, probability_rows
from ._base import Factor
from ._views import TableView


class Categorical(Factor):
    """A conditional probability table, Dirichlet-smoothed with the estimator's ``alpha``.

    ``P(x | c, x_parents) = (N + alpha) / (N_parents + r alpha)``. The default
    for integer, boolean, string and pandas Categorical columns; name it
    explicitly to treat a float column (e.g. integer codes with NaN) as
    categorical. Its parents are the class and categorical features.

    Attributes
    ----------
    log_table_ : ndarray of shape ``(n_classes, *parent cards, n_states)``
        ``log P(x | c, x_parents)``.

    Examples
    --------
    >>> from bnclassify import NaiveBayes
    >>> from bnclassify.distributions import Categorical
    >>> model = NaiveBayes(distributions=Categorical()).fit([[1.0], [2.0]], ["a", "b"])
    >>> model.feature_kinds_, model.categories_[0].tolist()
    (['categorical'], [1.0, 2.0])
    >>> model.distributions_["x0"].table_.round(3)
    array([[0.667, 0.333],
           [0.333, 0.667]])
    """

    kind = "categorical"
    structural = True
    discrete = True

    def fit_family(self, stats, columns, parents, alpha, names):
        (child,) = columns
        self._setup(columns, parents, names, stats.discrete)
        if self._continuous_parents:
            raise ValueError(
                f"The structure makes the continuous {names[self._continuous_parents[0]]!r} a "
                f"parent of the categorical {names[child]!r}; a categorical feature can only "
                "have categorical feature parents."
            )
        self.log_table_ = stats.log_family(child, parents, alpha)
        return self

    @classmethod
    def from_log_table(cls, log_table, column, parents, names):
        """A fitted node from a given log table (used by ensembles and synthetic data)."""
        node = cls()
        node._setup((column,), parents, names, [True] * len(names))
        node.log_table_ = np.asarray(log_table, dtype=float)
        return node

    @property
    def table_(self) -> np.ndarray:
        """``P(x | c, x_parents)``, shape ``(n_classes, *parent cards, n_states)``."""
        return np.exp(self.log_table_)

    @property
    def n_states(self) -> int:
        return self.log_table_.shape[-1]

    @property
    def n_parameters_(self) -> int:
        """``C q (r - 1)``: every row of the table sums to 1."""
        r = self.log_table_.shape[-1]
        return int(self.log_table_.size // r * (r - 1))

    def _layout(self, key, make):
        """``make(log_table_)``, kept for the next call with the same ``key`` while the table
        is the same object: prediction reads the table in a few fixed layouts, once per row
        pattern and ensemble member, and copying a wide parent grid each time cost more than
        the look-ups. The copies are not part of the node's state (nor of a pickle)."""
        table = self.log_table_
        cache = self.__dict__.get("_layouts")
        if cache is None or cache[0] is not table:
            cache = self._layouts = (table, {})
        if key not in cache[1]:
            layout = make(table)
            layout.flags.writeable = False  # shared by every later call: never written to
            cache[1][key] = layout
        return cache[1][key]

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_layouts", None)
        return state

    @property
    def _family(self) -> list:
        """The columns its table's axes after the class index, in order."""
        return [*self._discrete_parents, *self._columns]

    def log_terms(self, codes, values=None):
        family = self._family
        # np.take on a small contiguous (cells, C) table: ~10x faster than fancy indexing
        cells = self._layout("cells", lambda t: np.ascontiguousarray(t.reshape(t.shape[0], -1).T))
        flat = np.ravel_multi_index(tuple(codes[:, v] for v in family), self.log_table_.shape[1:])
        return np.take(cells, flat, axis=0)

    def log_potential(self, codes, free):
        """``log P(x | c, x_parents)`` as a table over the family's variables ``free``.

        The other members of the family are observed in every row of ``codes``;
        the table is indexed by their joint state, so rows that share it share
        a slice and nothing is copied per row.

        Parameters
        ----------
        codes : ndarray of shape (n, m)
        free : tuple of int
            Columns of the family (the node's own, its parents) missing in every row.

        Returns
        -------
        index : ndarray of shape (n,)
            Each row's slice of ``table``.
        table : ndarray of shape ``(k, n_classes, *states of free)``
            One slice per joint state of the observed rest of the family.

        Examples
        --------
        >>> from bnclassify import TAN
        >>> from bnclassify.datasets import load_car
        >>> X, y = load_car(return_X_y=True)
        >>> node = TAN().fit(X, y).compiled_.factors[0]  # buying, a parent of maint
        >>> index, table = node.log_potential(np.array([[-1, 0, 0, 0, 0, 0]]), (0,))
        >>> table.shape, bool(np.allclose(np.exp(table).sum(axis=2), 1))
        ((1, 4, 4), True)
        """
        family = self._family
        free_axes = [family.index(v) for v in free]
        seen_axes = [a for a in range(len(family)) if a not in free_axes]
        order = [1 + a for a in seen_axes] + [0] + [1 + a for a in free_axes]
        seen_cards = tuple(self.log_table_.shape[a] for a in order[: len(seen_axes)])

        def layout(table):
            table = table.transpose(order)
            # C order whatever the table's layout (a loaded model's may differ): sums read it
            return np.ascontiguousarray(table.reshape(-1, *table.shape[len(seen_axes) :]))

        table = self._layout(tuple(order), layout)
        if not seen_axes:
            return np.zeros(len(codes), dtype=np.intp), table
        index = np.ravel_multi_index(
            tuple(codes[:, family[a]].astype(np.intp) for a in seen_axes), seen_cards
        )
        return index, table

    def log_states(self, codes, free):
        """:meth:`log_potential` over one member ``free`` of the family, transposed: ``(index,
        columns)`` with ``columns`` of shape ``(n_classes * states of free, k)``, equal to
        ``table.reshape(k, -1).T`` of ``log_potential(codes, (free,))``.

        Row ``c * states + s`` holds the table's cells of class ``c`` and state ``s`` for
        every joint state of the rest of the family, contiguous: a reshape of the table when
        ``free`` is its first axis after the class (an identifier first in its children's
        parents), one copy kept otherwise. Summing ``free`` out
        (``bnclassify.elimination.StateSum.from_states``) reads it row by row.

        Examples
        --------
        >>> from bnclassify import TAN
        >>> from bnclassify.datasets import load_car
        >>> X, y = load_car(return_X_y=True)
        >>> node = TAN().fit(X, y).compiled_.factors[1]  # maint, child of buying
        >>> codes = np.array([[-1, 2, 0, 0, 0, 0]])
        >>> index, table = node.log_potential(codes, (0,))
        >>> index_t, columns = node.log_states(codes, 0)
        >>> bool((index == index_t).all() and (table.reshape(len(table), -1).T == columns).all())
        True
        """
        family = self._family
        axis = family.index(free)
        seen = [v for v in family if v != free]

        def layout(table):
            moved = np.moveaxis(table, 1 + axis, 1)  # (C, states of free, rest in order)
            return np.ascontiguousarray(moved).reshape(moved.shape[0] * moved.shape[1], -1)

        columns = self._layout(("states", axis), layout)
        if not seen:
            return np.zeros(len(codes), dtype=np.intp), columns
        seen_cards = tuple(self.log_table_.shape[1 + family.index(v)] for v in seen)
        index = np.ravel_multi_index(tuple(codes[:, v].astype(np.intp) for v in seen), seen_cards)
        return index, columns

    def describe(self):
        """The table, one row per categorical-parent configuration, states as categories."""
        table = self.table_
        return TableView(table.reshape(table.shape[0], -1, table.shape[-1]))

    def to_pgmpy(self, class_node, state_names):
        """The node as a pgmpy ``TabularCPD``, evidence ``[class_node, *parents_]``.

        ``class_node=None``: the node does not depend on the class (a general
        network's node whose table repeats one table for every class), exported
        as that one table given its feature parents.
        """
        from pgmpy.factors.discrete import TabularCPD

        (feature,) = self.columns_
        table = self.table_
        evidence = [class_node, *self.parents_]
        if class_node is None:
            table, evidence = table[0], list(self.parents_)
        return TabularCPD(
            feature,
            table.shape[-1],
            table.reshape(-1, table.shape[-1]).T,
            evidence=evidence,
            evidence_card=list(table.shape[:-1]),
            state_names={v: state_names[v] for v in [feature, *evidence]},
        )

    # -- declared state (see Factor._get_state) ------------------------------------------
    _FITTED_FIELDS = {"log_table_": "log_table_"}

    def check_fitted(self, n_classes, cards):
        where = f"{self.columns_} log_table_"
        shape = (*self._family_shape(n_classes, cards), int(cards[self._columns[0]]))
        float_array(self.log_table_, where, shape, allow_minus_inf=True)
        probability_rows(self.log_table_, where, log=True)
