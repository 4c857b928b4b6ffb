"""``predict``, ``predict_proba`` and ``predict_log_proba``, written once.

Every bnclassify classifier says how to score a table, ``_joint_log_likelihood(X)``:
``log P(c, x)`` up to a per-row constant, shape ``(n_rows, n_classes)``; the three
scikit-learn prediction methods derive from it here, as in scikit-learn's naive Bayes.
"""

from __future__ import annotations

import functools

import numpy as np

from ..distributed import fit_dask, is_dask_collection, predict_dask


def routes_dask(method):
    """Send a dask ``X`` to :mod:`bnclassify.distributed`, any other ``X`` to ``method``.

    The one place where an estimator's ``fit`` and prediction methods meet dask:
    ``fit`` becomes :func:`~bnclassify.distributed.fit_dask` (statistics summed
    on the cluster), ``predict*`` a lazy dask array computed partition by
    partition (:func:`~bnclassify.distributed.predict_dask`).
    """
    name = method.__name__

    @functools.wraps(method)
    def route(self, X, *args, **kwargs):
        if not is_dask_collection(X):
            return method(self, X, *args, **kwargs)
        if name == "fit":
            return fit_dask(self, X, *args, **kwargs)
        return predict_dask(self, X, name)

    return route


class JointPredictor:
    """Mixin: the prediction methods of a classifier with a ``_joint_log_likelihood``."""

    def _joint_log_likelihood(self, X) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    @routes_dask
    def predict_log_proba(self, X) -> np.ndarray:
        """log P(c | x), columns in the order of ``classes_``.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            A lazy dask array, computed partition by partition, for a dask ``X``.
        """
        return normalise(self._joint_log_likelihood(X))

    @routes_dask
    def predict_proba(self, X) -> np.ndarray:
        """P(c | x), columns in the order of ``classes_``; rows sum to 1.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            A DataFrame's columns are matched by name: every training column must
            be there, in any order, and the others (a class or key column) are
            left out, as ``bnclassify predict`` reads a file. Without column names,
            the columns are taken in the training order.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            A lazy dask array, computed partition by partition, for a dask ``X``.

        Examples
        --------
        >>> from bnclassify import NaiveBayes
        >>> from bnclassify.datasets import load_car
        >>> car = load_car()
        >>> model = NaiveBayes().fit(car.data, car.target)
        >>> bool((model.predict_proba(car.frame) == model.predict_proba(car.data)).all())
        True
        """
        return np.exp(self.predict_log_proba(X))

    @routes_dask
    def predict(self, X) -> np.ndarray:
        """The most probable class of each row (ties go to the first class in ``classes_``).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            A lazy dask array, computed partition by partition, for a dask ``X``.
        """
        joint = self._joint_log_likelihood(X)  # checks fitted before classes_ is read
        return self.classes_[np.argmax(joint, axis=1)]


def normalise(joint) -> np.ndarray:
    """log P(c | x) from log P(c, x); rows impossible under every class raise a ValueError."""
    # log-sum-exp in plain numpy: scipy's costs as much as the rest of a NB predict
    top = joint.max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):  # all -inf rows -> NaN, raised
        # shift first, then subtract the log-sum: ``joint - (top + log sum)`` loses the log-sum
        # entirely when ``|top|`` dwarfs it (a far value of a near-constant Gaussian column)
        shifted = joint - top
        log_sum = np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    impossible = ~np.isfinite(top[:, 0] + log_sum[:, 0])
    if impossible.any():
        # every class gives the row probability 0: a CPT cell left at 0 by alpha=0, or a
        # value whose density underflows in every class (values and weights near the ends
        # of the float range)
        raise ValueError(
            f"{int(impossible.sum())} row(s) (first: {int(np.argmax(impossible))}) have "
            "probability 0 under every class: with alpha=0 a category unseen in every class "
            "has probability 0 (use alpha > 0); otherwise a value lies so far out of every "
            "class's density that it underflows (values or sample weights near the ends of "
            "the float range: rescale them)."
        )
    return shifted - log_sum
