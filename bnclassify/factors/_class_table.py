"""The class node's own table when it has feature parents: ``log P(c | x_parents)``."""

from __future__ import annotations

import numpy as np

from ..state import float_array, probability_rows, require
from ._categorical import Categorical
from ._views import TableView


class ClassTable(Categorical):
    """The class's conditional probability table given its feature parents.

    In a general Bayesian network the class is an ordinary node and may have
    parents of its own; its term of ``log P(c, x)`` is then
    ``log P(c | x_parents)`` instead of ``log P(c)``. The table reads only its
    parents' columns (it models no column of its own) and is indexed like a
    feature's, the class first: ``log_table_[c, *parent states]``. Each column
    of the table (a parent state) sums to 1 over the classes.

    Attributes
    ----------
    log_table_ : ndarray of shape ``(n_classes, *parent cards)``

    Examples
    --------
    >>> import numpy as np
    >>> table = np.log([[0.9, 0.2], [0.1, 0.8]])  # P(c | x_0)
    >>> node = ClassTable.from_log_table(table, (0,), ["x0"])
    >>> np.exp(node.log_terms(np.array([[1], [0]]))).round(2).tolist()
    [[0.2, 0.8], [0.9, 0.1]]
    """

    kind = "class"

    @classmethod
    def from_log_table(cls, log_table, parents, names):
        """A fitted class table from ``log P(c | x_parents)``, shape ``(C, *parent cards)``."""
        node = cls()
        node._setup((), parents, names, [True] * len(names))
        node.log_table_ = np.asarray(log_table, dtype=float)
        return node

    @property
    def n_states(self) -> int:
        """The number of classes."""
        return self.log_table_.shape[0]

    @property
    def n_parameters_(self) -> int:
        """``q (C - 1)``: each parent state's probabilities sum to 1."""
        n_classes = self.log_table_.shape[0]
        return int(self.log_table_.size // n_classes * (n_classes - 1))

    def log_terms(self, codes, values=None):
        if not self._family:
            return np.broadcast_to(self.log_table_, (len(codes), len(self.log_table_))).copy()
        return super().log_terms(codes, values)

    def describe(self):
        """The table, one row per parent state and one column per class."""
        table = self.table_
        return TableView(table.reshape(1, table.shape[0], -1).transpose(0, 2, 1))

    def to_pgmpy(self, class_node, state_names):
        """The class's ``TabularCPD`` given its feature parents (in the order of ``parents_``)."""
        from pgmpy.factors.discrete import TabularCPD

        table = self.table_
        evidence = list(self.parents_)
        return TabularCPD(
            class_node,
            table.shape[0],
            table.reshape(table.shape[0], -1),
            evidence=evidence,
            evidence_card=list(table.shape[1:]),
            state_names={v: state_names[v] for v in [class_node, *evidence]},
        )

    @classmethod
    def _from_state(cls, state, params=None):
        require(isinstance(state, dict), cls.__name__, "the state must be a dict of fields.")
        # the only node without a column of its own: the base's checks ask for one
        filled = {**state, "columns": (-1,), "columns_": ("",)} if state else state
        node = super()._from_state(filled, params)
        if state:
            require(
                state.get("columns") == () and state.get("columns_") == (),
                f"{cls.__name__}.columns",
                "the class table models no column.",
            )
            node._columns, node.columns_ = (), ()
        return node

    def check_fitted(self, n_classes, cards):
        where = "the class table's log_table_"
        shape = self._family_shape(n_classes, cards)
        float_array(self.log_table_, where, shape, allow_minus_inf=True)
        probability_rows(np.moveaxis(self.log_table_, 0, -1), where, log=True)
