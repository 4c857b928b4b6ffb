"""Declared state: what a persisted object writes to a model file and reads back.

Every class a model file may hold (the estimators, the node models, the
schema, the fitted network) declares its state with a pair of methods that
only the class itself reads and writes:

- ``_get_state(self) -> dict``: its fitted state, by **field name**, as plain
  values (``None``, booleans, numbers, strings, numpy arrays and scalars,
  lists, tuples, dicts, DataFrames, Series, networkx graphs) and other
  persisted objects;
- ``_from_state(cls, state, params=None)`` (a classmethod): the object
  rebuilt from such a dict (``params``: the constructor's parameters, for
  classes that have them), after checking the values, not only the shapes;
  a state that is not valid raises :class:`StateError` naming the field.

The field names are part of the model file format (:mod:`bnclassify.io`), and
each class maps them to its attributes in one table, so renaming an attribute
changes that table, never the files. This module holds what those methods
share: the mapping (:func:`collect`, :func:`restore`) and the checks of
values (finite tables, rows that sum to one, positive variances, distinct
labels, acyclic structures).

Examples
--------
>>> import numpy as np
>>> from bnclassify.state import StateError, probability_rows
>>> probability_rows(np.log([[0.25, 0.75]]), "log_table_", log=True)
>>> try:
...     probability_rows(np.log([[0.5, 0.75]]), "log_table_", log=True)
... except StateError as error:
...     print(error)
log_table_: its rows must sum to 1 (the largest error is 0.25).
"""

from __future__ import annotations

from contextlib import contextmanager

import networkx as nx
import numpy as np

#: Largest departure from 1 of a stored row of probabilities.
SUM_TOLERANCE = 1e-6


class StateError(ValueError):
    """A declared state that is not valid; the message names the field."""


def collect(attributes: dict, fields: dict) -> dict:
    """The declared fields present in ``attributes`` (an object's own ``vars``).

    ``fields`` maps each attribute name to its field name in the file, in the
    order the attributes are set when the object is rebuilt.

    Examples
    --------
    >>> collect({"_hubs": [1], "cache": None}, {"_hubs": "hubs", "classes_": "classes_"})
    {'hubs': [1]}
    """
    return {field: attributes[name] for name, field in fields.items() if name in attributes}


def restore(obj, fields: dict, state: dict, owner: str):
    """Set on ``obj`` (the object being rebuilt by its own class) each field of ``state``.

    Raises :class:`StateError` for a field the class does not declare.

    Examples
    --------
    >>> class Box:
    ...     pass
    >>> restore(Box(), {"_size": "size"}, {"size": 3}, "Box")._size
    3
    """
    require(isinstance(state, dict), owner, "the state must be a dict of fields.")
    unknown = [field for field in state if field not in fields.values()]
    if unknown:
        raise StateError(
            f"{owner} has no field {unknown[0]!r:.80}; its fields are {sorted(fields.values())}."
        )
    for name, field in fields.items():
        if field in state:
            setattr(obj, name, state[field])
    return obj


def require(condition, field: str, message: str):
    """Raise :class:`StateError` ``"{field}: {message}"`` unless ``condition``.

    Examples
    --------
    >>> require(True, "classes_", "never shown")
    """
    if not condition:
        raise StateError(f"{field}: {message}")


def float_array(value, field, shape=None, *, positive=False, allow_minus_inf=False):
    """Check a float array: its shape (when given) and values (finite, or > 0 with ``positive``).

    ``allow_minus_inf`` admits ``-inf`` (a log-probability of zero).

    Examples
    --------
    >>> float_array(np.ones(2), "var", (2,), positive=True)
    """
    if not (isinstance(value, np.ndarray) and value.dtype.kind == "f"):
        raise StateError(
            f"{field} should be a float array"
            + ("" if shape is None else f" of shape {tuple(shape)}")
            + f", got {getattr(value, 'shape', type(value).__name__)}."
        )
    if shape is not None and value.shape != tuple(shape):
        raise StateError(
            f"{field} should be a float array of shape {tuple(shape)}, got {value.shape}."
        )
    bad = np.isnan(value) | (value == np.inf)
    if not allow_minus_inf:
        bad |= value == -np.inf
    require(not bad.any(), field, "holds NaN or infinite values.")
    if positive:
        require(bool((value > 0).all()), field, "must be positive.")


def probability_rows(table, field, *, log=False, axis=-1):
    """Check that ``table`` holds probabilities (``log`` ones) whose rows along ``axis`` sum to 1.

    Examples
    --------
    >>> probability_rows(np.array([[0.5, 0.5], [1.0, 0.0]]), "prob_")
    """
    float_array(table, field, allow_minus_inf=log)
    if not log:
        require(bool(((table >= 0) & (table <= 1)).all()), field, "must lie in [0, 1].")
    if table.size == 0:
        return
    with np.errstate(over="ignore", under="ignore"):
        sums = np.exp(table).sum(axis=axis) if log else table.sum(axis=axis)
    error = float(np.max(np.abs(sums - 1.0)))
    require(
        error <= SUM_TOLERANCE, field, f"its rows must sum to 1 (the largest error is {error})."
    )


def distinct_labels(values, field, *, at_least=1):
    """Check a 1-D array of at least ``at_least`` distinct labels (classes, categories).

    Examples
    --------
    >>> distinct_labels(np.array(["no", "yes"], dtype=object), "classes_", at_least=2)
    """
    require(
        isinstance(values, np.ndarray) and values.ndim == 1 and len(values) >= at_least,
        field,
        f"must be a 1-D array of at least {at_least} label(s).",
    )
    seen = set()
    for value in values.tolist():
        key = (type(value).__name__, value) if not isinstance(value, float) else value
        require(key not in seen, field, f"the label {value!r:.40} appears twice.")
        seen.add(key)


def positions(value, field, n):
    """Check a tuple of distinct column positions in ``range(n)``.

    Examples
    --------
    >>> positions((0, 2), "columns", 3)
    """
    require(
        isinstance(value, tuple)
        and all(isinstance(p, int) and not isinstance(p, bool) and 0 <= p < n for p in value)
        and len(set(value)) == len(value),
        field,
        f"must be a tuple of distinct column positions below {n}, got {value!r:.60}.",
    )


def acyclic(parents, field):
    """Check that ``parents`` (each node's parent positions) draws a directed acyclic graph.

    Examples
    --------
    >>> acyclic([(), (0,), (1,)], "parents")
    """
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(parents)))
    graph.add_edges_from((p, j) for j, family in enumerate(parents) for p in family)
    require(nx.is_directed_acyclic_graph(graph), field, "the structure has a cycle.")


def cut_points(value, field, n):
    """Check per-column cut points: a list of ``n`` entries, each None (a column not cut) or
    an increasing 1-D array of finite numbers.

    Examples
    --------
    >>> import numpy as np
    >>> cut_points([None, np.array([0.5, 2.0])], "cut_points", 2)
    """
    require(
        isinstance(value, list)
        and len(value) == n
        and all(
            c is None
            or (
                isinstance(c, np.ndarray)
                and c.ndim == 1
                and np.isfinite(c).all()
                and (np.diff(c) > 0).all()
            )
            for c in value
        ),
        field,
        f"must hold {n} entries, each None or an increasing 1-D array of finite cut points.",
    )


@contextmanager
def unchanged_on_error(obj):
    """Leave ``obj``'s attributes as they were when the block raises: a failed ``fit`` step
    that would continue an earlier one (``partial_fit``) changes nothing.

    The block must not change the attributes' objects in place; it replaces them.

    Examples
    --------
    >>> class Box:
    ...     pass
    >>> box = Box()
    >>> box.n = 1
    >>> try:
    ...     with unchanged_on_error(box):
    ...         box.n, box.m = 2, 3
    ...         raise ValueError("bad chunk")
    ... except ValueError:
    ...     pass
    >>> vars(box)
    {'n': 1}
    """
    saved = dict(obj.__dict__)
    try:
        yield obj
    except BaseException:
        obj.__dict__.clear()
        obj.__dict__.update(saved)
        raise
