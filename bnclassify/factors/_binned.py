"""The binned node: a numeric column cut into intervals learned from the class, as a table."""

from __future__ import annotations

from ..data.binning import MDL, checked_cut_points
from ..validation import ArrayLike
from ._categorical import Categorical


def _ascending_cut_points(params) -> str | None:
    """Why ``cut_points`` are not ascending, distinct, finite numbers (``None``: they are)."""
    if params.get("cut_points") is None:
        return None
    try:
        checked_cut_points(params["cut_points"])
    except ValueError as error:
        return str(error).rstrip(".")
    return None


class Binned(Categorical):
    """A numeric column cut into intervals, each a state of a conditional probability table.

    The cut points are learned once, from the training rows and their classes,
    by Fayyad and Irani's MDL rule (:func:`bnclassify.data.binning.mdl_cut_points`,
    as :class:`~bnclassify.preprocessing.MDLDiscretizer` does, weighted by
    ``sample_weight``), or given (``cut_points``); every value then counts in
    its interval (a value equal to a cut in the lower one), and the node is a
    :class:`Categorical` table over the intervals, Dirichlet-smoothed with the
    estimator's ``alpha``. So its probabilities stay bounded whatever a new
    value is: a value beyond the training range falls in an end interval,
    never in a density's thin tail. A column for which no cut pays is one
    interval, which carries no information about the class. The intervals are
    the column's categories (``categories_``: ``"(-inf, 2.45]"``,
    ``"(2.45, 4.75]"``, ``"(4.75, inf)"``), its states in plots, explanations
    and pgmpy.

    A dask fit learns the cut points ``fit`` learns, from the column's value
    counts summed over the partitions. ``partial_fit``, which sees one chunk at
    a time, needs them fixed before its first call: given here, e.g. from
    :meth:`MDLDiscretizer.partial_fit <bnclassify.preprocessing.MDLDiscretizer.partial_fit>`
    over the chunks (``MDLDiscretizer.to_distributions()``), which learns
    exactly those of ``fit``.

    Parameters
    ----------
    cut_points : array-like of float, optional
        Ascending, distinct, finite cut points, fixed: the rows are counted in
        their intervals and nothing is learned. Default: learned by MDL.

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
    >>> fixed = NaiveBayes(distributions={"petal length (cm)": Binned(cut_points=[2.5, 5])})
    >>> fixed.fit(X, y).categories_[2].tolist()
    ['(-inf, 2.5]', '(2.5, 5.0]', '(5.0, inf)']
    """

    kind = "binned"
    binning = MDL
    _parameter_constraints = {
        "cut_points": [ArrayLike("ascending finite cut points", numbers=True), None]
    }
    _parameter_rules = (_ascending_cut_points,)

    def __init__(self, cut_points=None):
        self.cut_points = cut_points
