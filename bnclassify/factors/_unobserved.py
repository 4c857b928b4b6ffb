"""The node of a column the training rows never observed: it carries no information."""

from __future__ import annotations

import numpy as np

from ..data import UNOBSERVED
from ..state import require
from ._base import Factor
from ._views import TableView

#: The one state of an unobserved column's node in pgmpy and in plots.
UNOBSERVED_STATE = "unobserved"


class Unobserved(Factor):
    """The node of a column with no observed value in the training rows.

    Nothing was learned about such a column, so its node is the constant 1
    (log 0) for every class, whatever the column holds: at prediction its cells
    are read as missing, and summing a missing cell out gives 1 whatever the
    node. It has no parameter, no feature parent and no feature child (it takes
    no part in a structure), and it is not asked for: a fit gives it to such a
    column (see :meth:`bnclassify.data.TableSchema.with_unobserved`), which
    keeps its kind for a later ``partial_fit`` that may observe it. In pgmpy
    it is a node with one state, ``UNOBSERVED_STATE``, of probability 1.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from bnclassify import NaiveBayes
    >>> X = pd.DataFrame({"colour": ["red", "blue", "red"], "TBG": [np.nan] * 3})
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # "TBG" has no observed value: left out
    ...     model = NaiveBayes().fit(X, ["a", "b", "a"])
    >>> model.feature_kinds_, model.distributions_["TBG"].n_parameters_
    (['categorical', 'unobserved'], 0)
    """

    kind = UNOBSERVED
    informative = False

    def fit_family(self, stats, columns, parents, alpha, names):
        self._setup(columns, parents, names, stats.discrete)
        self.n_classes_ = int(stats.n_classes)
        return self

    @classmethod
    def of_column(cls, column, names, n_classes):
        """The node of ``column`` (a position in ``names``) in a model of ``n_classes``."""
        node = cls()
        node._setup((column,), (), names, [])
        node.n_classes_ = int(n_classes)
        return node

    def log_terms(self, codes, values=None) -> np.ndarray:
        return np.zeros((len(codes), self.n_classes_))

    @property
    def n_parameters_(self) -> int:
        return 0

    def describe(self):
        """One state of probability 1 in every class."""
        return TableView(np.ones((self.n_classes_, 1, 1)), [UNOBSERVED_STATE])

    def to_pgmpy(self, class_node, state_names):
        if len(self.columns_) != 1:  # a multinomial group: pgmpy holds no such node
            return super().to_pgmpy(class_node, state_names)
        from pgmpy.factors.discrete import TabularCPD

        (feature,) = self.columns_
        if class_node is None:  # in a general network: a node of its own, no parent
            return TabularCPD(
                feature, 1, np.ones((1, 1)), state_names={feature: [UNOBSERVED_STATE]}
            )
        return TabularCPD(
            feature,
            1,
            np.ones((1, self.n_classes_)),
            evidence=[class_node],
            evidence_card=[self.n_classes_],
            state_names={feature: [UNOBSERVED_STATE], class_node: state_names[class_node]},
        )

    # -- declared state (see Factor._get_state) ------------------------------------------
    _FITTED_FIELDS = {"n_classes_": "n_classes_"}

    def check_fitted(self, n_classes, cards):
        require(
            self.n_classes_ == n_classes and not self.parent_positions,
            f"{self.columns_} n_classes_",
            f"an unobserved column's node has no parent and {n_classes} classes.",
        )
