"""Warnings and errors raised by bnclassify: one exception type per kind of mistake.

======================================  ===============================================
mistake                                 raised as
======================================  ===============================================
a hyper-parameter of an estimator or    :class:`InvalidParameterError` (a ``ValueError``
a node model (its type, its range, a    and a ``TypeError``), at the very start of
combination of parameters), or an       ``fit``, ``partial_fit`` and the dask fit,
argument of a plot, data set or metric  before any data is read
a parameter valid in itself that the    :class:`InvalidParameterError`, once the data
data contradict (a KDB ``order``        are read; but a ``root``, ``superparent`` or
without every feature, more signal      ``distributions`` key that names no column is
edges than the networks have)           still the data layer's ``ValueError``
a category not seen in fit, with        :class:`UnseenCategoryError` (a ``ValueError``)
``handle_unknown="error"``
such a category with ``"warn"``         :class:`UnseenCategoryWarning`
columns a discretiser found no cut      :class:`NoCutPointWarning`
point for (one bin each)
a training column with no observed      :class:`UnobservedColumnWarning` (the column is
value (every cell missing)              left out of the model)
a continuous column constant within a   :class:`ZeroVarianceWarning`
class (its spread is borrowed)
Shapley values estimated by sampling    :class:`SampledShapleyWarning` (with their
feature orders, not computed exactly    Monte Carlo standard error)
pgmpy's network (``network_``, a BIF    :class:`ContinuousFeaturesError` (a
file) of a model with continuous        ``ValueError`` and an ``AttributeError``:
features                                ``hasattr(model, "network_")`` is ``False``)
a model file that is not a valid        :class:`ModelFileError` (a ``ValueError``),
bnclassify model file                   also importable from :mod:`bnclassify.io`
an out-of-core fit (``partial_fit``,    :class:`OutOfCoreError` (a ``ValueError``),
a dask fit) that cannot give the model  naming the columns and the remedies; a failed
``fit`` gives on the same rows (cut      ``partial_fit`` leaves the model as it was
points or a kind learned from all of
them, a column of too many values)
a bad table ``X`` or bad labels ``y``   ``ValueError`` (a wrong value, shape, size or
                                        column), ``TypeError`` (a wrong type: list
                                        cells, dates, text where numbers are needed)
======================================  ===============================================

Every message names the estimator or node model, the parameter or column, what is
allowed and the value given. Because :class:`InvalidParameterError` is both a
``ValueError`` and a ``TypeError`` (as scikit-learn's is), code that caught either
for a bad parameter keeps working.

Examples
--------
>>> import warnings
>>> import pandas as pd
>>> from bnclassify import NaiveBayes
>>> from bnclassify.exceptions import InvalidParameterError, UnseenCategoryWarning
>>> X = pd.DataFrame({"colour": ["red", "blue", "red", "blue"]})
>>> model = NaiveBayes().fit(X, [0, 1, 0, 1])
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     proba = model.predict_proba(pd.DataFrame({"colour": ["green"]}))
>>> caught[0].category is UnseenCategoryWarning, caught[0].message.counts
(True, {'colour': 1})
>>> try:
...     NaiveBayes(alpha=-1).fit(None, None)  # the parameter is refused before X is read
... except InvalidParameterError as error:
...     print(error)
NaiveBayes: alpha must be a finite number >= 0, got -1.
"""

from __future__ import annotations

import inspect
import os
import warnings

#: The package's directory: frames whose file is under it are bnclassify's own.
_PACKAGE = os.path.dirname(os.path.abspath(__file__))


class InvalidParameterError(ValueError, TypeError):
    """A parameter's value is not one its owner accepts.

    Raised by :func:`bnclassify.validation.validate_parameters` at the start of
    every fit, and by the package's other parameter validators. A subclass of
    both ``ValueError`` and ``TypeError``, like scikit-learn's own
    ``InvalidParameterError``.
    """


class UnseenCategoryError(ValueError):
    """A cell holds a category not seen in training, with ``handle_unknown="error"``."""


class ContinuousFeaturesError(ValueError, AttributeError):
    """pgmpy's discrete network (``network_``, a BIF file) asked of a model whose features
    include continuous ones, which such a network cannot hold; the message names them.

    An ``AttributeError`` too, so ``hasattr(model, "network_")`` answers ``False`` for such
    a model, as for an attribute it does not have.
    """


class ModelFileError(ValueError):
    """A file that is not a valid bnclassify model file (or is too large to read)."""


class OutOfCoreError(ValueError):
    """An out-of-core fit (``partial_fit``, a dask fit) cannot give the model ``fit`` gives
    on the same rows: what ``fit`` learns from all the rows at once (a binned column's cut
    points, the kind the kinds rule reads from a column's values) must be fixed first, or
    a column holds too many distinct values to learn its cut points exactly.

    The message names the columns and the remedies; ``columns`` lists them. Nothing is
    fitted: a ``partial_fit`` that raises it leaves the model as it was.
    """

    def __init__(self, message, columns=None):
        super().__init__(message)
        self.columns = list(columns or [])

    def __reduce__(self):  # the columns too, from a worker process (dask)
        return type(self), (str(self), self.columns)


class UnseenCategoryWarning(UserWarning):
    """Some cells held a category not seen in training (or a number outside its node's
    support, e.g. a log-normal column's 0) and were summed out as missing.

    Raised once per call by ``handle_unknown="warn"`` (the default). The
    warning's ``counts`` maps each affected column to its number of such cells.
    """

    def __init__(self, message, counts=None):
        super().__init__(message)
        self.counts = dict(counts or {})


class NoCutPointWarning(UserWarning):
    """A supervised discretiser found no cut point for some columns: each became one bin,
    which carries no information about the class (only the class prior remains).

    Raised once per fit of :class:`~bnclassify.preprocessing.MDLDiscretizer`; the
    warning's ``columns`` lists the columns.
    """

    def __init__(self, message, columns=()):
        super().__init__(message)
        self.columns = list(columns)


class UnobservedColumnWarning(UserWarning):
    """Some columns had no observed value in the training rows (every cell missing): the
    model leaves them out, and at prediction reads whatever they hold as missing.

    Raised once per fit (once per newly empty column by ``partial_fit``). The
    warning's ``columns`` lists the columns' names.
    """

    def __init__(self, message, columns=None):
        super().__init__(message)
        self.columns = list(columns or [])

    def __reduce__(self):  # the columns too, from a worker process (joblib)
        return type(self), (str(self), self.columns)


class ZeroVarianceWarning(UserWarning):
    """A continuous column showed no spread within some classes (a single row, or equal
    values), so its node gave those classes the column's pooled within-class variance
    instead of a spike (see :class:`bnclassify.distributions.Gaussian`).

    Raised once per fit; the warning's ``classes`` maps each column to those classes.
    """

    def __init__(self, message, classes=None):
        super().__init__(message)
        self.classes = dict(classes or {})


class SampledShapleyWarning(UserWarning):
    """Shapley values were estimated by sampling feature orders, not computed exactly
    (a coalition game over more features than ``max_exact_features``, or one asked to
    be sampled): the message gives their Monte Carlo standard error.

    Raised once per call of :func:`bnclassify.explain.explain`; the warning's
    ``max_error`` and ``mean_error`` are the largest and the mean standard error of
    the values (``Explanation.error_std`` holds each one's).
    """

    def __init__(self, message, max_error=0.0, mean_error=0.0):
        super().__init__(message)
        self.max_error = float(max_error)
        self.mean_error = float(mean_error)

    def __reduce__(self):
        return type(self), (str(self), self.max_error, self.mean_error)


__all__ = [
    "ContinuousFeaturesError",
    "InvalidParameterError",
    "ModelFileError",
    "NoCutPointWarning",
    "OutOfCoreError",
    "SampledShapleyWarning",
    "UnobservedColumnWarning",
    "UnseenCategoryError",
    "UnseenCategoryWarning",
    "ZeroVarianceWarning",
]


def caller_stacklevel() -> int:
    """The ``stacklevel`` that points a warning issued by the function calling this one at
    the first caller outside bnclassify (the user's line).

    Examples
    --------
    >>> import warnings
    >>> def warn_here():  # not a bnclassify frame: the warning points at it
    ...     warnings.warn("note", stacklevel=caller_stacklevel())
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_here()
    >>> caught[0].filename.endswith("exceptions.py")
    False
    """
    return _stacklevel_outside(inspect.currentframe().f_back)


def _stacklevel_outside(frame) -> int:
    """The ``stacklevel`` (``frame`` is level 1, the one calling ``warnings.warn``) of the
    first frame outside the package."""
    stacklevel = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, stacklevel = frame.f_back, stacklevel + 1
    return stacklevel


class WarningsOnceFromCaller:
    """Collect the warnings raised inside the block and issue each distinct one once, from
    the first caller outside bnclassify.

    An ensemble fits its members in joblib's worker threads: a member's warning (a
    :class:`ZeroVarianceWarning`, an :class:`UnobservedColumnWarning`, ...) would point at
    a joblib frame, not at the user's call, and come once per member. Inside this block
    they are recorded (from every thread: Python's warning filters are process-wide);
    when the block ends without error, each distinct ``(category, message)`` is issued
    again, once, pointing at the user's line, where the user's own filters apply.

    Examples
    --------
    >>> import warnings
    >>> from concurrent.futures import ThreadPoolExecutor
    >>> def member(i):
    ...     warnings.warn(ZeroVarianceWarning("column 'a' has no spread"))
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     with WarningsOnceFromCaller():
    ...         with ThreadPoolExecutor(2) as pool:
    ...             _ = list(pool.map(member, range(4)))
    >>> len(caught), caught[0].category.__name__
    (1, 'ZeroVarianceWarning')
    """

    def __enter__(self):
        self._recording = warnings.catch_warnings(record=True)
        self._caught = self._recording.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, kind, error, traceback):
        self._recording.__exit__(kind, error, traceback)
        if kind is not None:  # the error is what the caller reads
            return False
        stacklevel = _stacklevel_outside(inspect.currentframe())
        seen = set()
        for record in self._caught:
            key = (record.category, str(record.message))
            if key not in seen:
                seen.add(key)
                warnings.warn(record.message, record.category, stacklevel=stacklevel)
        return False
