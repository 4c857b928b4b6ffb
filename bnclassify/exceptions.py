"""Warnings and errors raised by bnclassify.

Examples
--------
>>> import warnings
>>> import pandas as pd
>>> from bnclassify import NaiveBayes
>>> from bnclassify.exceptions import UnseenCategoryWarning
>>> X = pd.DataFrame({"colour": ["red", "blue", "red", "blue"]})
>>> model = NaiveBayes().fit(X, [0, 1, 0, 1])
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     proba = model.predict_proba(pd.DataFrame({"colour": ["green"]}))
>>> caught[0].category is UnseenCategoryWarning, caught[0].message.counts
(True, {'colour': 1})
"""

from __future__ import annotations


class UnseenCategoryWarning(UserWarning):
    """Some cells held a category not seen in training (or a number outside its node's
    support, e.g. a log-normal column's 0) and were summed out as missing.

    Raised once per call by ``handle_unknown="warn"`` (the default). The
    warning's ``counts`` maps each affected column to its number of such cells.
    """

    def __init__(self, message, counts=None):
        super().__init__(message)
        self.counts = dict(counts or {})


__all__ = ["UnseenCategoryWarning"]
