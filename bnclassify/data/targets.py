"""The class column: labels coded by hashing, checked on the codes, not the values."""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.multiclass import check_classification_targets

from .encoding import MISSING, factorize_column, object_array, sort_order

#: scikit-learn's warning when a target has more classes than half its rows (its
#: ``check_classification_targets``); judged here on the rows, not on the distinct labels.
CROWDED_WARNING = "The number of unique classes is greater than 50% of the number of samples"


def encode_target(y, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """``(classes, codes)`` of the class column; checks length, missing values, >= 2 classes.

    ``classes`` are the sorted observed labels, except for a pandas Categorical
    target, whose declared categories are kept (as R keeps a factor's levels):
    a class absent from a training fold then still gets a smoothed prior
    instead of probability 0 on the test fold.

    The labels are coded by hashing, as a feature column is (``factorize_column``:
    a Categorical's own codes, pyarrow's dictionary encoding of Arrow-backed
    text, ``pd.factorize`` otherwise); only the distinct labels are sorted and
    checked (mixed types, scikit-learn's target type), and missing labels are
    found in the codes. So string and ``category`` labels cost about what
    integers do.

    Examples
    --------
    >>> classes, codes = encode_target(pd.Series(["yes", "no", "yes"]), 3)
    >>> classes.tolist(), codes.tolist()
    (['no', 'yes'], [1, 0, 1])
    >>> y = pd.Series(["b", "a"], dtype=pd.CategoricalDtype(["c", "b", "a"]))
    >>> [c.tolist() for c in encode_target(y, 2)]
    [['c', 'b', 'a'], [1, 2]]
    """
    if y is None:
        raise ValueError("requires y to be passed, but the target y is None.")
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise ValueError(f"y must be one column, got a DataFrame with {y.shape[1]} columns.")
        y = y.iloc[:, 0]
    if isinstance(y, (pd.Index, pd.api.extensions.ExtensionArray)):
        y = pd.Series(y, copy=False)
    kept_dtype = None  # numpy text (and complex) labels give classes of their own dtype
    if isinstance(y, pd.Series):
        column = y
        if isinstance(y.dtype, np.dtype) and y.dtype.kind == "c":
            kept_dtype = y.dtype
    else:
        values = np.asarray(y)
        if values.ndim == 2 and values.shape[1] == 1:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected; using y.ravel().",
                DataConversionWarning,
                stacklevel=3,
            )
            values = values.ravel()
        if values.ndim != 1:
            raise ValueError(f"y must be 1-D, got shape {values.shape}.")
        if not hasattr(y, "dtype") and values.dtype.kind in "US":
            # a list: numpy turned 1 into "1"; its own objects say whether types are mixed
            _check_one_label_type(pd.unique(object_array(list(y))))
        if values.dtype.kind in "USc":
            kept_dtype, values = values.dtype, values.astype(object)
        column = pd.Series(values, dtype=values.dtype, copy=False)  # no inferred Arrow text
    if len(column) != n_rows:
        raise ValueError(f"X has {n_rows} rows but y has {len(column)}; they must match.")
    try:
        factorized = factorize_column(column)
    except TypeError:
        raise TypeError(
            "y holds unhashable labels (e.g. lists); each label must be one value "
            "(a number or a string)."
        ) from None
    uniques = factorized.uniques
    categorical = isinstance(column.dtype, pd.CategoricalDtype)
    if categorical:  # the declared categories, in their declared order
        lookup = np.arange(len(uniques))
    else:
        lookup = np.empty(len(uniques), dtype=np.intp)
        order = sort_order(uniques)
        lookup[order] = np.arange(len(order))
        uniques = uniques[order]
        if kept_dtype is not None:
            uniques = uniques.astype(kept_dtype)
    codes = factorized.remap(lookup, np.intp)
    missing = codes == MISSING
    if missing.any():
        raise ValueError(
            f"y has {int(missing.sum())} missing value(s) "
            f"(first at row {int(np.argmax(missing))}); the class must be observed in every row."
        )
    if uniques.dtype.kind == "f" and np.isinf(uniques).any():  # the labels, read once
        infinite = np.isinf(uniques)[codes]
        raise ValueError(
            f"y has {int(infinite.sum())} infinite value(s) "
            f"(first at row {int(np.argmax(infinite))}); a class label must be finite."
        )
    observed = uniques
    if categorical:
        observed = uniques[np.bincount(codes, minlength=len(uniques)) > 0]
    if observed.dtype == object:
        _check_one_label_type(observed)
    if observed.dtype.kind not in "iub":  # integer and boolean labels are always classes
        with warnings.catch_warnings():
            # the type is read from the distinct labels, whose number is not the rows'
            warnings.filterwarnings("ignore", message=CROWDED_WARNING)
            _check_classes(observed)
        if crowded(n_rows, len(observed)):
            warnings.warn(
                f"{CROWDED_WARNING}. `y` could represent a regression problem, not a "
                "classification problem.",
                UserWarning,
                stacklevel=3,
            )
    if len(observed) < 2:
        which = f" ({observed[0]!r})" if len(observed) else ""
        raise ValueError(
            f"y has only {len(observed)} class{which} in {n_rows} sample(s); "
            "a classifier needs at least 2 classes."
        )
    if categorical:
        return np.asarray(column.dtype.categories), codes
    return uniques, codes


def declared_classes(classes, y=None) -> np.ndarray:
    """The class labels of an incremental fit, in the order ``fit`` gives them.

    ``classes`` are every label (``partial_fit``'s argument), sorted as
    :func:`encode_target` sorts them; when ``y`` (the first chunk's labels) is a
    pandas Categorical, its declared categories in their declared order, which
    ``fit`` on the chunks keeps, and ``classes`` must hold the same labels.

    Examples
    --------
    >>> declared_classes(["b", "a", "b"]).tolist()
    ['a', 'b']
    >>> y = pd.Series(["hi"], dtype=pd.CategoricalDtype(["lo", "hi"]))
    >>> declared_classes(["hi", "lo"], y).tolist()
    ['lo', 'hi']
    """
    given = pd.unique(np.asarray(classes, dtype=object).ravel())
    dtype = getattr(y, "dtype", None)
    if isinstance(dtype, pd.CategoricalDtype):
        categories = np.asarray(dtype.categories)
        if set(given.tolist()) != set(categories.tolist()):
            raise ValueError(
                f"classes={sorted(map(str, given))} differs from the categories of y, "
                f"{categories.tolist()}: fit on these rows takes a Categorical y's categories "
                "as the classes, in their order. Pass classes=y.cat.categories."
            )
        return categories
    given = np.asarray(pd.unique(np.asarray(classes).ravel()))
    return given[sort_order(given)]


def _check_classes(labels) -> None:
    """scikit-learn's target check of the distinct labels, its refusal naming y and a label.

    Its test of float labels casts them to integers, which overflows for labels such as
    1e300 (the answer, "continuous", stands: the cast's warning says nothing more).
    """
    try:
        with np.errstate(invalid="ignore", over="ignore"):
            check_classification_targets(labels)
    except ValueError as error:
        first = labels[0]
        if isinstance(first, np.number):
            first = first.item()
        raise ValueError(f"y cannot be class labels (e.g. {first!r}): {error}") from None


def crowded(n_rows: int, n_classes: int) -> bool:
    """Whether scikit-learn warns that ``n_classes`` labels in ``n_rows`` rows look like a
    regression target: more classes than half the rows, from 21 rows on (its own rule).

    Examples
    --------
    >>> crowded(20_000, 26), crowded(44, 25)
    (False, True)
    """
    return n_rows > 20 and n_classes > round(0.5 * n_rows)


def _check_one_label_type(labels) -> None:
    """TypeError if the distinct labels mix strings and numbers."""
    kinds = {type(v).__name__ for v in labels if isinstance(v, str)} | {
        "number" for v in labels if isinstance(v, numbers.Number)
    }
    if len(kinds) > 1:
        raise TypeError(
            "y mixes strings and numbers (e.g. 'a' and 1); give every label one type, "
            "e.g. y.astype(str)."
        )
