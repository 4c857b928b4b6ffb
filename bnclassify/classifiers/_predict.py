"""``predict``, ``predict_proba`` and ``predict_log_proba``, written once.

Every bnclassify classifier says how to score a table, ``_joint_log_likelihood(X)``:
``log P(c, x)`` up to a per-row constant, shape ``(n_rows, n_classes)``; the three
scikit-learn prediction methods derive from it here, as in scikit-learn's naive Bayes.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pandas as pd

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

        Raises
        ------
        ValueError
            For a row with probability 0 under every class, naming the cell that
            makes it so where one does.
        """
        try:
            return normalise(self._joint_log_likelihood(X))
        except ImpossibleRowsError as error:
            raise error.with_cause(self._impossible_cells(X, error.first)) from None

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
        return self._proba(X)

    def _proba(self, X) -> np.ndarray:
        """:meth:`predict_proba`'s numbers: the ``exp`` of :meth:`predict_log_proba` unless a
        model has a way to them that skips the logs."""
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
        try:
            joint = self._joint_log_likelihood(X)  # checks fitted before classes_ is read
            check_possible(joint)
        except ImpossibleRowsError as error:
            raise error.with_cause(self._impossible_cells(X, error.first)) from None
        return self.classes_[np.argmax(joint, axis=1)]

    def _impossible_cells(self, X, row):
        """Why row ``row`` of ``X`` is impossible: the cells that alone make it so (the row left
        without one of them, as a missing cell, is possible), in words; None if no one does.

        Read only when a prediction already failed: one more evaluation per column of one row.
        """
        if isinstance(X, pd.DataFrame):
            one, labels = X.iloc[[row]].astype(object), list(X.columns)
        else:
            try:
                one = np.array(X, dtype=object)[[row]]
            except (TypeError, ValueError, IndexError):
                return None
            if one.ndim != 2:
                return None
            labels = list(getattr(self, "feature_names_in_", range(one.shape[1])))

        def possible(cells):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # the failed call warned already
                    return bool(np.isfinite(np.max(self._joint_log_likelihood(cells))))
            except ValueError:
                return None  # refused for another reason: says nothing of this cell

        def cell(frame, j, value=None):
            if isinstance(frame, pd.DataFrame):
                frame.iloc[0, j] = value
            else:
                frame[0, j] = value
            return frame

        observed = []
        for j, label in enumerate(labels):
            value = one.iloc[0, j] if isinstance(one, pd.DataFrame) else one[0, j]
            if not (value is None or (isinstance(value, float) and np.isnan(value))):
                shown = value.item() if isinstance(value, np.generic) else value
                observed.append((j, f"column {label!r} ({shown!r})", value))
        causes = [name for j, name, _ in observed if possible(cell(one.copy(), j)) is True]
        if causes:
            return (
                f"in row {row}, {' and '.join(causes)} alone has probability 0 (or a density "
                "that underflows to 0) under every class: a category with alpha=0 unseen in "
                "every class, or a value too far out of every class's density; the row without "
                "it, as a missing cell, is possible."
            )
        # no single cell: name those impossible on their own (every other cell missing)
        blank = one.copy()
        for j, _, _ in observed:
            cell(blank, j)
        alone = [n for j, n, value in observed if possible(cell(blank.copy(), j, value)) is False]
        if not alone:
            return None
        return (
            f"in row {row}, {', '.join(alone)} each have probability 0 (or a density that "
            "underflows to 0) under every class even as the row's only observed cell: values "
            "too far out of every class's density, or categories with alpha=0 unseen in every "
            "class."
        )


class ImpossibleRowsError(ValueError):
    """Rows with probability 0 under every class (``count`` of them, the first ``first``)."""

    def __init__(self, count, first, cause=None):
        self.count, self.first, self.cause = count, first, cause
        text = f"{count} row(s) (first: {first}) have probability 0 under every class"
        if cause:
            text += f": {cause}"
        else:
            text += (
                ": with alpha=0 a category unseen in every class has probability 0 (use alpha > "
                "0); otherwise a value lies so far out of every class's density that it "
                "underflows (values or sample weights near the ends of the float range: "
                "rescale them)."
            )
        super().__init__(text)

    def with_cause(self, cause) -> ImpossibleRowsError:
        return ImpossibleRowsError(self.count, self.first, cause or self.cause)


def check_possible(joint, start=0) -> None:
    """An :class:`ImpossibleRowsError` for rows of ``joint`` that are -inf (or NaN) in every
    class; ``start``: the first row's position in the table (a chunk's offset)."""
    with np.errstate(invalid="ignore"):
        impossible = ~np.isfinite(joint.max(axis=1))
    if impossible.any():
        raise ImpossibleRowsError(int(impossible.sum()), start + int(np.argmax(impossible)))


def normalise(joint, start=0) -> np.ndarray:
    """log P(c | x) from log P(c, x); rows impossible under every class raise an
    :class:`ImpossibleRowsError` (``start``: the first row's position in the table)."""
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
        raise ImpossibleRowsError(int(impossible.sum()), start + int(np.argmax(impossible)))
    return shifted - log_sum
