"""Validators of user-given parameters and row weights: one wording for every message.

The one home of the checks that estimators, node models, plots, data sets and
metrics share, so the same mistake reads the same wherever it is made. It sits
below every other layer and imports nothing from the package but
:mod:`bnclassify.exceptions`.

**Declared constraints.** Every estimator and node model declares what each of
its parameters may be, once, in a class attribute ``_parameter_constraints``: a
dict from the parameter's name to a list of constraints, any one of which a
valid value satisfies (scikit-learn's convention; a subclass extends its base's
table with ``{**Base._parameter_constraints, ...}``). Rules that tie several
parameters together are functions of the parameters in ``_parameter_rules``.
:func:`validate_parameters` checks both at the start of ``fit``,
``partial_fit`` and the dask fit, before any data is read, and raises one
:class:`~bnclassify.exceptions.InvalidParameterError` naming the owner, the
parameter, what is allowed and the value given. The constraints:

- ``None``: the value ``None``;
- ``"boolean"``: ``True`` or ``False`` (numpy booleans too);
- ``"callable"``: a function (or any callable);
- :class:`Interval`: an integer or a finite real number within bounds (booleans
  are never numbers here);
- :class:`Options`: one of a few values (e.g. ``{"warn", "error", "marginalize"}``);
- :class:`InstanceOf`: an instance of a class;
- :class:`ArrayLike`: a sequence (not a string), optionally of numbers;
- :class:`SquareMatrix`: a DataFrame or a square array of real numbers;
- :class:`FormatSpec`: a format specification of a number (``".2f"``);
- :class:`Satisfies`: any other test, with its description;
- any other :class:`Constraint` subclass (e.g. the ``distributions``
  specification of :mod:`bnclassify.factors`).

Examples
--------
>>> from numbers import Integral, Real
>>> class Smoother:
...     _parameter_constraints = {
...         "alpha": [Interval(Real, 0, None, closed="left")],
...         "mode": [Options({"fast", "exact"})],
...         "k": [None, Interval(Integral, 1, None, closed="left")],
...     }
...
...     def __init__(self, alpha=1.0, mode="fast", k=None):
...         self.alpha, self.mode, self.k = alpha, mode, k
...
...     def get_params(self, deep=False):
...         return {"alpha": self.alpha, "mode": self.mode, "k": self.k}
>>> validate_parameters(Smoother(alpha=0.5, k=3))
>>> validate_parameters(Smoother(k=0))
Traceback (most recent call last):
...
bnclassify.exceptions.InvalidParameterError: Smoother: k must be None or an integer >= 1, got 0.
>>> validate_parameters(Smoother(mode="slow"))
Traceback (most recent call last):
...
bnclassify.exceptions.InvalidParameterError: Smoother: mode must be one of ('exact', 'fast'), \
got 'slow'.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Mapping

import numpy as np
import pandas as pd

from .exceptions import InvalidParameterError


# -- the constraints ------------------------------------------------------------------------------
class Constraint:
    """What a parameter's value may be: a description and a test.

    Subclasses set :attr:`description` (completing "``name`` must be ...") and
    implement :meth:`check`.
    """

    #: Completes "``name`` must be ...", e.g. ``"an integer >= 1"``.
    description = ""

    def check(self, value) -> str | None:
        """``None`` when ``value`` satisfies the constraint; otherwise why not.

        The reason completes the message (``""`` when the description says it
        all), e.g. ``"it is ragged"`` for a matrix whose rows differ in length.
        A constraint on an object with parameters of its own (a node model, a
        member estimator) may instead raise their
        :class:`~bnclassify.exceptions.InvalidParameterError` itself.
        """
        raise NotImplementedError

    def message(self, name, value) -> str | None:
        """A whole message replacing "``name`` must be ...", or ``None`` (the default)."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.description}>"


class _NoneConstraint(Constraint):
    description = "None"

    def check(self, value):
        return None if value is None else ""


class _Boolean(Constraint):
    description = "True or False"

    def check(self, value):
        return None if isinstance(value, bool | np.bool_) else ""


class _Callable(Constraint):
    description = "a callable"

    def check(self, value):
        return None if callable(value) else ""


class InstanceOf(Constraint):
    """An instance of ``cls``, described as ``description``.

    Examples
    --------
    >>> InstanceOf(str, "a name").check(3)
    ''
    """

    def __init__(self, cls, description):
        self.cls = cls
        self.description = description

    def check(self, value):
        return None if isinstance(value, self.cls) else ""


class Satisfies(Constraint):
    """A value for which ``test(value)`` is true, described as ``description``.

    Examples
    --------
    >>> Satisfies(lambda v: v != 0, "a non-zero number").check(0)
    ''
    """

    def __init__(self, test, description):
        self.test = test
        self.description = description

    def check(self, value):
        return None if self.test(value) else ""


def _is_integer(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool | np.bool_)


def _is_real(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)


class Interval(Constraint):
    """An integer (``numbers.Integral``) or a finite real number (``numbers.Real``) within bounds.

    Booleans are neither. ``left`` or ``right`` ``None`` is unbounded on that
    side; ``closed`` says which bounds are allowed values. With ``why``, the
    right bound is a resource limit rather than part of the domain: it is left
    out of the description and a larger value is refused as "``name=value`` is
    more than ``right``" followed by ``why``.

    Parameters
    ----------
    kind : {numbers.Integral, numbers.Real}
    left, right : number or None
    closed : {"left", "right", "both", "neither"}, default="left"
    why : str, default=""

    Examples
    --------
    >>> from numbers import Integral, Real
    >>> Interval(Real, 0, None, closed="neither").description
    'a finite number > 0'
    >>> Interval(Integral, 2, 100, closed="both").description
    'an integer between 2 and 100'
    >>> Interval(Real, 0, 1, closed="right").check(0.0)
    ''
    """

    def __init__(self, kind, left, right, *, closed="left", why=""):
        if kind not in (numbers.Integral, numbers.Real):
            raise ValueError(f"kind must be numbers.Integral or numbers.Real, got {kind!r}.")
        if closed not in ("left", "right", "both", "neither"):
            raise ValueError(
                f"closed must be 'left', 'right', 'both' or 'neither', got {closed!r}."
            )
        self.kind, self.left, self.right, self.closed, self.why = kind, left, right, closed, why
        noun = "an integer" if kind is numbers.Integral else "a finite number"
        right = None if why else right
        low = ">=" if closed in ("left", "both") else ">"
        high = "<=" if closed in ("right", "both") else "<"
        if left is not None and right is not None:
            if kind is numbers.Integral and closed == "both":
                self.description = f"{noun} between {left} and {right}"
            else:
                brackets = "[" if low == ">=" else "(", "]" if high == "<=" else ")"
                self.description = f"{noun} in {brackets[0]}{left}, {right}{brackets[1]}"
        elif left is not None:
            self.description = f"{noun} {low} {left}"
        elif right is not None:
            self.description = f"{noun} {high} {right}"
        else:
            self.description = noun

    def _of_kind(self, value) -> bool:
        if self.kind is numbers.Integral:
            return _is_integer(value)
        return _is_real(value) and bool(np.isfinite(float(value)))

    def _above_limit(self, value) -> bool:
        return bool(self.why) and self._of_kind(value) and value > self.right

    def check(self, value):
        if not self._of_kind(value):
            return ""
        if self.kind is numbers.Real:
            value = float(value)  # numpy's float32 would cast a bound of 1e300 to inf
        low_ok = self.left is None or (
            value >= self.left if self.closed in ("left", "both") else value > self.left
        )
        high_ok = self.right is None or (
            value <= self.right if self.closed in ("right", "both") else value < self.right
        )
        return None if low_ok and high_ok else ""

    def message(self, name, value):
        if self._above_limit(value):
            return f"{name}={value!r} is more than {self.right}{self.why}"
        return None


class Options(Constraint):
    """One of a few values (strings, usually); described in sorted order when they are strings.

    Examples
    --------
    >>> Options({"warn", "error", "marginalize"}).description
    "one of ('error', 'marginalize', 'warn')"
    >>> Options(("aic_tree", "loglik")).description  # a tuple keeps its order
    "one of ('aic_tree', 'loglik')"
    """

    def __init__(self, options):
        options = tuple(sorted(options)) if isinstance(options, set | frozenset) else tuple(options)
        self.options = options
        self.description = repr(options[0]) if len(options) == 1 else f"one of {options!r}"

    def check(self, value):
        if not isinstance(value, Hashable) or isinstance(value, bool | np.bool_):
            return ""
        try:
            return None if any(value == option for option in self.options) else ""
        except (TypeError, ValueError):
            return ""


def _is_sequence(value) -> bool:
    return np.iterable(value) and not isinstance(value, str | bytes | Mapping)


class ArrayLike(Constraint):
    """A sequence (list, tuple, array, Series; not a string or a dict), 1-D.

    With ``numbers=True`` every entry must be a real number.

    Examples
    --------
    >>> ArrayLike("probabilities", numbers=True).check([0.5, "x"])
    'it holds values that are not numbers'
    """

    def __init__(self, description="an array-like", *, numbers=False):
        self.description = description
        self.numbers = numbers

    def check(self, value):
        if not _is_sequence(value) or isinstance(value, set | frozenset):
            return ""
        if not self.numbers:
            return None
        try:
            array = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            return "it holds values that are not numbers"
        if array.ndim != 1:
            return f"it has shape {array.shape}, not one dimension"
        return None


class SquareMatrix(Constraint):
    """A DataFrame, or an array, that is a square matrix of real numbers.

    What can be checked without the data: the type, the shape (square, not
    ragged), the element type (real numbers, not complex) and, for a
    DataFrame, that its index and columns hold the same labels. The values
    (finite, non-negative, symmetric) and the size against the number of
    features are checked once the features are known.

    Examples
    --------
    >>> SquareMatrix().check([[0, 1], [1]])
    'it is ragged (rows of different lengths)'
    >>> SquareMatrix().check(np.ones((2, 3)))
    'its shape is (2, 3), not square'
    """

    description = "a square matrix of real numbers (a DataFrame or an array)"

    def check(self, value):
        if isinstance(value, pd.DataFrame):
            if len(value.index) != len(value.columns):
                return f"its shape is {value.shape}, not square"
            # labels are matched to the features as strings; the same labels in the same
            # order (the usual case) need no look at each one
            if not value.index.equals(value.columns) and set(map(str, value.index)) != set(
                map(str, value.columns)
            ):
                return "its index and its columns hold different labels"
            for dtype in dict.fromkeys(value.dtypes.tolist()):  # numpy or pandas: both have a kind
                reason = _real_dtype_refusal(dtype)
                if reason:
                    return reason
            return None
        if not _is_sequence(value):
            return ""
        try:
            array = np.asarray(value)
        except ValueError:
            return "it is ragged (rows of different lengths)"
        if array.dtype == object and array.ndim == 1 and len(array) and _is_sequence(array[0]):
            return "it is ragged (rows of different lengths)"
        if array.ndim != 2 or array.shape[0] != array.shape[1]:
            return f"its shape is {array.shape}, not square"
        if array.dtype == object:
            try:
                array = array.astype(float)
            except (TypeError, ValueError):
                return "it holds values that are not numbers"
        return _real_dtype_refusal(array.dtype)


class FormatSpec(Constraint):
    """A format specification of a number, as built-in ``format`` takes it (``".2f"``, ``".3g"``).

    Checked by formatting a number with it, so a spec that only some numbers take (``"d"``,
    integers only) or that is not a spec at all (``"{:.2f}"``, ``"%.2f"``) is refused up
    front, not when the first label is written.

    Examples
    --------
    >>> FormatSpec().check(".2f") is None, FormatSpec().check("%.2f")
    (True, "it is not a format spec of a number (Invalid format specifier '%.2f' for \
object of type 'float')")
    """

    description = 'a format spec of a number such as ".2f" or ".3g"'

    def check(self, value):
        if not isinstance(value, str):
            return ""
        try:
            format(0.125, value)
        except (TypeError, ValueError) as error:
            return f"it is not a format spec of a number ({error})"
        return None


def _real_dtype_refusal(dtype) -> str | None:
    kind = getattr(dtype, "kind", "O")
    if kind == "c":
        return f"it holds complex numbers ({dtype})"
    if kind not in "biuf":
        return f"it holds values that are not numbers ({dtype})"
    return None


_NAMED = {None: _NoneConstraint(), "boolean": _Boolean(), "callable": _Callable()}


def as_constraint(constraint) -> Constraint:
    """A :class:`Constraint` from a table entry (``None``, ``"boolean"``, ``"callable"`` or one)."""
    if isinstance(constraint, Constraint):
        return constraint
    if isinstance(constraint, Hashable) and constraint in _NAMED:
        return _NAMED[constraint]
    raise ValueError(f"Unknown parameter constraint {constraint!r}.")


def describe(constraints) -> str:
    """What the constraints allow, in words: "A", "A or B", "A, B or C"."""
    words = [as_constraint(c).description for c in constraints]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def _shown(value) -> str:
    """The value given, as a message shows it: its repr, or its type and shape for a table.

    Examples
    --------
    >>> _shown(np.ones((2, 3)))
    'an array of shape (2, 3)'
    """
    if isinstance(value, np.ndarray) and value.ndim > 1:
        return f"an array of shape {value.shape}"
    if hasattr(value, "columns") and hasattr(value, "shape"):
        return f"a {type(value).__name__} of shape {tuple(value.shape)}"
    text = " ".join(repr(value).split())
    return text if len(text) <= 80 else f"{text[:77]}..."


# -- checking ----------------------------------------------------------------------------------
def check_parameter(value, name, constraints, owner=None):
    """``value`` if it satisfies one of ``constraints``; else an ``InvalidParameterError``.

    Parameters
    ----------
    value : object
    name : str
        The parameter's name, for the message.
    constraints : list
        Table entries (see the module docstring); any one suffices.
    owner : str, optional
        Who owns the parameter (a class name), put first in the message.

    Returns
    -------
    object
        ``value``, unchanged.

    Examples
    --------
    >>> from numbers import Real
    >>> check_parameter(0.5, "alpha", [Interval(Real, 0, None)])
    0.5
    >>> check_parameter("1", "alpha", [Interval(Real, 0, None)], owner="TAN")
    Traceback (most recent call last):
    ...
    bnclassify.exceptions.InvalidParameterError: TAN: alpha must be a finite number >= 0, got '1'.
    """
    prefix = f"{owner}: " if owner else ""
    constraints = [as_constraint(c) for c in constraints]
    reasons = []
    for constraint in constraints:
        try:
            reason = constraint.check(value)
        except InvalidParameterError as nested:  # a parameter of a node model or member
            raise InvalidParameterError(f"{prefix}{nested}") from None
        if reason is None:
            return value
        reasons.append(reason)
    for constraint in constraints:
        message = constraint.message(name, value)
        if message:
            raise InvalidParameterError(f"{prefix}{message}")
    why = next((r for r in reasons if r), "")
    raise InvalidParameterError(
        f"{prefix}{name} must be {describe(constraints)}, got {_shown(value)}"
        + (f": {why}." if why else ".")
    )


def validate_parameters(obj, owner=None) -> None:
    """Check ``obj``'s parameters against its class's ``_parameter_constraints`` and rules.

    Called first thing by every ``fit``, ``partial_fit`` and dask fit, so a bad
    parameter is refused before any data is read. Parameters are left as
    given (scikit-learn's rule: ``fit`` never changes them).

    Parameters
    ----------
    obj : estimator or node model
        Anything with ``get_params(deep=False)`` whose class declares
        ``_parameter_constraints`` (and, optionally, ``_parameter_rules``:
        functions of the parameters dict returning a message, or ``None`` when
        the combination is fine).
    owner : str, optional
        How messages name ``obj`` (default: its class name).

    Raises
    ------
    InvalidParameterError
        Naming the owner, the parameter, what is allowed and the value given.

    Examples
    --------
    >>> from bnclassify import TAN
    >>> validate_parameters(TAN(criterion="bic"))
    >>> validate_parameters(TAN(criterion="BIC"))
    Traceback (most recent call last):
    ...
    bnclassify.exceptions.InvalidParameterError: TAN: criterion must be one of \
('aic_tree', 'loglik', 'aic', 'bic'), got 'BIC'.
    """
    cls = type(obj)
    owner = owner or cls.__name__
    params = obj.get_params(deep=False)
    for name, constraints in getattr(cls, "_parameter_constraints", {}).items():
        if name in params:
            check_parameter(params[name], name, constraints, owner)
    for rule in getattr(cls, "_parameter_rules", ()):
        problem = rule(params)
        if problem:
            raise InvalidParameterError(f"{owner}: {problem}")


# -- the package's shared parameters -------------------------------------------------------
#: The largest Dirichlet pseudo-count. A table's row sums ``r * alpha`` plus its counts
#: (at most :data:`MAX_TOTAL_WEIGHT`), which must stay below the float maximum for up to a
#: million categories; and beyond it every table is uniform to the last digit anyway (a count
#: of 1e6 moves a cell by 1e-294).
MAX_ALPHA = 1e300
#: Constraints of a Dirichlet pseudo-count (``alpha``): a finite number in [0, MAX_ALPHA].
ALPHA = [
    Interval(
        numbers.Real,
        0,
        MAX_ALPHA,
        closed="both",
        why=": a pseudo-count that large makes every table uniform, and its row sums would "
        "overflow the float range",
    )
]
#: Constraints of a number format (``weight_format=``, ``fmt=``): None (the default) or a spec.
FORMAT = [None, FormatSpec()]
#: Constraints of ``n_jobs``: joblib's convention (``-1`` is every CPU, 0 means nothing).
N_JOBS = [None, Satisfies(lambda v: _is_integer(v) and v != 0, "a non-zero integer")]
#: Constraints of ``random_state``: what ``sklearn.utils.check_random_state`` accepts.
RANDOM_STATE = [
    None,
    Interval(numbers.Integral, 0, 2**32 - 1, closed="both"),
    InstanceOf(np.random.RandomState, "a numpy RandomState"),
]


#: The largest total of sample weights: two orders of magnitude below the float maximum, the
#: headroom of the weighted statistics (counts times logs, times squares in scaled units).
MAX_TOTAL_WEIGHT = 1e306


def check_sample_weight(sample_weight, n_rows: int):
    """Row weights as a float array, or None; a ``ValueError`` names ``sample_weight``.

    Weights must be one finite, non-negative number per row, summing to at most
    :data:`MAX_TOTAL_WEIGHT`.

    Examples
    --------
    >>> check_sample_weight([1, 2], 2)
    array([1., 2.])
    """
    if sample_weight is None:
        return None
    raw = np.asarray(sample_weight)
    # float() would take "1" and drop an imaginary part with only a warning: real numbers only
    if raw.dtype.kind not in "biuf" and (
        raw.dtype.kind != "O"
        or pd.api.types.infer_dtype(raw.ravel(), skipna=False)
        not in ("integer", "floating", "mixed-integer-float", "boolean", "decimal")
    ):
        raise ValueError(
            f"sample_weight must be real numbers, one per row; got values of type "
            f"{type(raw.ravel()[0]).__name__ if raw.size else raw.dtype}."
        )
    try:
        weights = np.asarray(sample_weight, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("sample_weight must be numbers, one per row.") from None
    if weights.ndim != 1 or len(weights) != n_rows:
        raise ValueError(
            f"sample_weight has shape {weights.shape}, but X has {n_rows} rows; "
            "give one weight per row."
        )
    if not np.isfinite(weights).all():
        raise ValueError("sample_weight has NaN or infinite values; weights must be finite.")
    if (weights < 0).any():
        raise ValueError(
            f"sample_weight must be >= 0; got {weights[weights < 0][0]} "
            f"(row {int(np.argmax(weights < 0))})."
        )
    top = weights.max() if len(weights) else 0.0
    # the total as top * (sum of weights / top): no sum overflows; below 1 none can
    if top > 1 and (weights / top).sum() > MAX_TOTAL_WEIGHT / top:
        raise ValueError(
            f"sample_weight sums to more than {MAX_TOTAL_WEIGHT:.0e} (largest weight {top:.3g}): "
            "the statistics multiply the weighted counts by logs and scaled squares, which "
            "the float range holds only below that; rescale the weights (e.g. divide them "
            "by their mean, which keeps their proportions)."
        )
    return weights


def check_n_jobs(n_jobs):
    """``n_jobs``: None or a non-zero integer (joblib's convention; -1 is every CPU).

    Examples
    --------
    >>> check_n_jobs(-1)
    -1
    """
    return check_parameter(n_jobs, "n_jobs", N_JOBS)


#: The largest magnitude of a score (a fold's accuracy or CLL) that is averaged: the sum of
#: ten thousand of them stays within the float range.
LARGEST_SCORE = 1e300


def float_array(values, name, largest=None) -> np.ndarray:
    """``values`` as a float array, or an ``InvalidParameterError`` naming the parameter.

    Real numbers only: a complex number is refused rather than cast (numpy would drop its
    imaginary part with a warning), and so is text, even text that reads as a number. With
    ``largest``, a finite value beyond it is refused too (e.g. scores to be averaged).

    Examples
    --------
    >>> float_array([1, 2.5], "weights")
    array([1. , 2.5])
    >>> float_array([1, 2 + 1j], "weights")
    Traceback (most recent call last):
    ...
    bnclassify.exceptions.InvalidParameterError: weights must hold real numbers, got complex \
values (e.g. (2+1j)).
    """
    array = _real_array(values, name)
    if largest is not None:
        finite = np.abs(array[np.isfinite(array)])
        if finite.size and finite.max() > largest:
            raise InvalidParameterError(
                f"{name} holds {finite.max():.3g}, beyond {largest:g} in magnitude: a sum of "
                "such values overflows the float range."
            )
    return array


def _real_array(values, name) -> np.ndarray:
    if isinstance(values, pd.DataFrame | pd.Series):
        dtypes = values.dtypes.tolist() if isinstance(values, pd.DataFrame) else [values.dtype]
        if all(getattr(d, "kind", "O") in "biuf" for d in dtypes):
            return values.to_numpy(dtype=float, na_value=np.nan)
        values = values.to_numpy(dtype=object)
    try:
        raw = np.asarray(values)
    except ValueError:  # ragged
        raise InvalidParameterError(f"{name} must hold numbers, got {_shown(values)}.") from None
    refused = _first_non_real(raw)
    if refused is not None:
        refused = refused.item() if isinstance(refused, np.generic) else refused
        what = "complex values" if isinstance(refused, complex) else "values"
        raise InvalidParameterError(
            f"{name} must hold real numbers, got {what} (e.g. {refused!r})."
        )
    if raw.dtype.kind == "O":
        raw = np.where(pd.isna(raw), np.nan, raw)  # None, pd.NA: missing
    try:
        return raw.astype(float)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{name} must hold numbers, got {_shown(values)}.") from None


def _first_non_real(raw: np.ndarray):
    """The first entry of ``raw`` that is not a real number or a missing value (None: none)."""
    kind = raw.dtype.kind
    if kind in "biuf":
        return None
    if kind == "c":
        imaginary = raw.ravel()[raw.ravel().imag != 0]
        return (imaginary[0] if len(imaginary) else raw.ravel()[0]) if raw.size else None
    if kind != "O":
        return raw.ravel()[0] if raw.size else None  # text, dates, bytes
    for value in raw.ravel():
        if value is None or value is pd.NA or value is pd.NaT:
            continue
        if isinstance(value, complex | np.complexfloating):
            return value
        if not isinstance(value, numbers.Real) and not (
            isinstance(value, np.generic) and value.dtype.kind in "biuf"
        ):
            if not (hasattr(value, "is_nan") and isinstance(value, numbers.Number)):
                return value  # Decimal is a Number with is_nan: taken as real
    return None


def check_range(limits, name):
    """``(low, high)``: two finite numbers with ``low < high``."""
    try:
        low, high = (float(v) for v in limits)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"{name} must be a pair of numbers (low, high), got {limits!r}."
        ) from None
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise InvalidParameterError(f"{name} must be finite with low < high, got {limits!r}.")
    return low, high


def check_int(value, name, minimum=0, maximum=None, why=""):
    """An integer parameter: Python and numpy integers pass, bools and floats do not.

    The integer validator of the functions' parameters (plots, data sets,
    explanations): an :class:`Interval` of integers, so every such message
    reads as the estimators' do.

    Parameters
    ----------
    value : object
    name : str
        The parameter's name, for the message.
    minimum : int, default=0
    maximum : int, optional
        The largest value allowed: "between minimum and maximum" in the message;
        with ``why``, a larger value is refused as "more than maximum" + ``why``
        (a resource limit rather than a domain).
    why : str, default=""

    Returns
    -------
    int

    Examples
    --------
    >>> check_int(np.int64(3), "k")
    3
    >>> check_int(True, "k")
    Traceback (most recent call last):
    ...
    bnclassify.exceptions.InvalidParameterError: k must be an integer >= 0, got True.
    >>> check_int(1, "n_points", minimum=2, maximum=100)
    Traceback (most recent call last):
    ...
    bnclassify.exceptions.InvalidParameterError: n_points must be an integer between 2 and 100,
    got 1.
    """
    closed = "left" if maximum is None else "both"
    check_parameter(
        value, name, [Interval(numbers.Integral, minimum, maximum, closed=closed, why=why)]
    )
    return int(value)
