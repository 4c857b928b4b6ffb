"""The binned node: a numeric column cut into intervals learned from the class, as a table."""

from __future__ import annotations

from ..data.binning import MDL
from ._categorical import Categorical


class Binned(Categorical):
    """A numeric column cut into intervals, each a state of a conditional probability table.

    The cut points are learned once, from the training rows and their classes,
    by Fayyad and Irani's MDL rule (:func:`bnclassify.data.binning.mdl_cut_points`,
    as :class:`~bnclassify.preprocessing.MDLDiscretizer` does, weighted by
    ``sample_weight``); every value then counts in its interval (a value equal
    to a cut in the lower one), and the node is a :class:`Categorical` table
    over the intervals, Dirichlet-smoothed with the estimator's ``alpha``. So
    its probabilities stay bounded whatever a new value is: a value beyond the
    training range falls in an end interval, never in a density's thin tail.
    A column for which no cut pays is one interval, which carries no
    information about the class. The intervals are the column's categories
    (``categories_``: ``"(-inf, 2.45]"``, ``"(2.45, 4.75]"``, ``"(4.75, inf)"``),
    its states in plots, explanations and pgmpy. ``partial_fit`` and a dask fit
    learn the cut points from their first chunk (partition) and keep them.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from bnclassify import NaiveBayes
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> model = NaiveBayes(distributions="binned").fit(X, y)
    >>> model.feature_kinds_[2], model.categories_[2].tolist()
    ('binned', ['(-inf, 2.45]', '(2.45, 4.75]', '(4.75, inf)'])
    >>> model.distributions_["petal length (cm)"].table_.round(2)
    array([[0.96, 0.02, 0.02],
           [0.02, 0.85, 0.13],
           [0.02, 0.04, 0.94]])
    """

    kind = "binned"
    binning = MDL
