"""The model file: a zip of ``model.json`` plus ``.npy`` arrays; never a pickle.

Layout (format ``bnclassify-model``, version 2)::

    model.json        {"format": "bnclassify-model", "version": 2,
                       "bnclassify_version": "...", "model": <value>}
    arrays/0.npy      numeric, boolean and fixed-width string arrays,
    arrays/1.npy      read with numpy's format reader, ``allow_pickle=False``
    ...

A ``<value>`` is JSON: ``null``, booleans, integers, finite floats (Python
writes the shortest repr, so they come back bit for bit), strings and lists
as themselves; everything else is an object with a type tag ``"t"``:

==========  ============================================================
``tuple``   ``{"t": "tuple", "v": [...]}``
``dict``    ``{"t": "dict", "v": [[key, value], ...]}`` (keys of any kind)
``float``   ``{"t": "float", "v": "nan" | "inf" | "-inf"}``
``scalar``  a numpy scalar: ``{"t": "scalar", "dtype": "<i8", "v": ...}``
``array``   ``{"t": "array", "file": "arrays/0.npy", "dtype": ..., "shape": [...]}``;
            with ``"axes": [...]`` the file holds ``a.transpose(axes)`` (a
            transposed array keeps its memory layout, hence its sums' order)
``objects`` an object array (strings, mixed labels), element by element in
            JSON: ``{"t": "objects", "shape": [...], "v": [...]}``; an element
            that is a date, a duration, a period, an interval, a complex number,
            bytes or a decimal (a column's categories) is ``{"t": "value",
            "type": "timestamp", "v": ...}`` (see ``SCALARS``)
``frame``   a DataFrame of one numeric dtype: index, columns, values
``series``  a Series: ``{"t": "series", "frame": <frame of one column>, "name": ...}``
``graph``   a networkx (Di)Graph: graph attributes, nodes and edges in order,
            with their attributes
``object``  a persisted object (an estimator, a node model, a schema, a fitted
            network): ``{"t": "object", "class": "TAN", "params": {...},
            "state": {...}}``; ``class`` must be in bnclassify's own list
            (:mod:`bnclassify.io.registry`); ``params`` (the constructor's
            parameters, ``get_params(deep=False)``) only for classes that have
            them
==========  ============================================================

``state`` is the object's **declared state**: the dict of fields its class's
``_get_state`` gives (see :mod:`bnclassify.state`; each class documents its
fields next to its table of them); the field names, not the attribute names,
are the format. The object is rebuilt by its class's ``_from_state(state,
params)``, which checks the values (finite tables, rows that sum to one,
positive variances, distinct classes and categories, an acyclic structure,
shapes that agree with the schema) before the model is returned. What only a
later ``partial_fit`` reads (the accumulated statistics) and caches (the pgmpy
network) are not fields: a loaded model predicts exactly but, like an
unpickled one, cannot continue an incremental fit.

The class comes from a dict of bnclassify classes, so nothing named in a file
is imported or called. Any file that does not follow this layout is refused
with :class:`ModelFileError`. Files of version 1 (which stored each object's
attributes as they were named) are read by :mod:`bnclassify.io._v1`.
"""

from __future__ import annotations

import decimal
import io
import json
import math
import os
import re
import zipfile
import zlib
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd

from .._version import __version__
from ..exceptions import ModelFileError
from ..state import StateError
from ..validation import check_int
from . import registry
from ._v1 import FIELDS as V1_FIELDS
from ._v1 import TAGS as V1_TAGS
from ._v1 import fields_of as v1_fields_of

FORMAT_NAME = "bnclassify-model"
FORMAT_VERSION = 2
#: Parameters added with one default and later given another: a file without them was
#: written before they existed, so its model behaves as the earlier default does.
EARLIER_DEFAULTS = {
    "AODE": {"missing_superparents": "marginalize"},
    "WAODE": {"missing_superparents": "marginalize"},
}
#: Versions :func:`load` reads (version 1 through :mod:`bnclassify.io._v1`).
READABLE_VERSIONS = (1, 2)

#: Largest total uncompressed size of a model file's members that :func:`load` reads (2 GiB).
MAX_UNCOMPRESSED_BYTES = 2 * 1024**3
#: Largest number of members in a model file.
MAX_MEMBERS = 100_000

_ARRAY_KINDS = "biufU"  # bool, ints, unsigned, floats, fixed-width unicode
_FIELD = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_ARRAY_FILE = re.compile(r"^arrays/[0-9]+\.npy$")


def _read_interval(v):
    left, right, closed = v
    return pd.Interval(left, right, closed=closed)


#: Scalars an object array may hold besides plain values (a column's categories from
#: ``read_csv(parse_dates=...)``, durations, periods, intervals, complex numbers, bytes,
#: decimals): name -> (type, to a JSON-able value, back).
SCALARS = {
    "timestamp": (
        pd.Timestamp,
        lambda t: (int(t.as_unit("ns").value), None if t.tz is None else str(t.tz), t.unit),
        lambda v: pd.Timestamp(v[0], unit="ns", tz=v[1]).as_unit(v[2]),
    ),
    "timedelta": (
        pd.Timedelta,
        lambda t: (int(t.as_unit("ns").value), t.unit),
        lambda v: pd.Timedelta(v[0], unit="ns").as_unit(v[1]),
    ),
    "period": (pd.Period, lambda p: (str(p), p.freqstr), lambda v: pd.Period(v[0], freq=v[1])),
    "interval": (pd.Interval, lambda i: (i.left, i.right, i.closed), _read_interval),
    "complex": (complex, lambda c: (c.real, c.imag), lambda v: complex(v[0], v[1])),
    "bytes": (bytes, lambda b: b.hex(), bytes.fromhex),
    "decimal": (decimal.Decimal, str, decimal.Decimal),
}


# -- writing --------------------------------------------------------------------------------------
class _Writer:
    def __init__(self):
        self.arrays = []

    def fail(self, where, value, hint=""):
        kind = "a callable" if callable(value) else f"a {type(value).__name__}"
        raise TypeError(
            f"{where} is {kind} ({value!r:.80}), which a bnclassify model file cannot hold."
            + (f" {hint}" if hint else "")
        )

    def array(self, value, where):
        value = np.asarray(value)
        if value.dtype.kind == "O":
            flat = [self.element(v, f"{where}[...]") for v in value.ravel(order="C")]
            return {"t": "objects", "shape": list(value.shape), "v": flat}
        if value.dtype.kind not in _ARRAY_KINDS or value.dtype.fields is not None:
            self.fail(where, value, f"(arrays of dtype {value.dtype} are not supported)")
        name = f"arrays/{len(self.arrays)}.npy"
        node = {"t": "array", "file": name, "dtype": value.dtype.str, "shape": list(value.shape)}
        # keep the memory layout of a transposed array (e.g. a CPT made from a swapped count
        # table): numpy's reductions may sum in another order on another layout
        axes = [int(k) for k in np.argsort([-s for s in value.strides], kind="stable")]
        stored = value.transpose(axes)
        if axes != sorted(axes) and stored.flags.c_contiguous and not value.flags.c_contiguous:
            node["axes"] = axes
        else:
            stored = np.ascontiguousarray(value)
        self.arrays.append((name, stored))
        return node

    def element(self, value, where):
        """One element of an object array: a plain value, a numpy scalar, a tuple of them,
        or one of the :data:`SCALARS` (dates, durations, ... as a column's categories)."""
        if value is None or isinstance(value, bool | int | str | float | np.generic | tuple):
            return self.encode(value, where)
        for name, (kind, write, _) in SCALARS.items():
            if isinstance(value, kind):
                return {"t": "value", "type": name, "v": self.encode(write(value), where)}
        self.fail(where, value)

    def encode(self, value, where):
        if isinstance(value, np.generic):  # first: np.float64 and np.str_ are float and str too
            if value.dtype.kind not in _ARRAY_KINDS:
                self.fail(where, value)
            item = value.item()
            if isinstance(item, float) and not math.isfinite(item):
                item = repr(item)
            return {"t": "scalar", "dtype": value.dtype.str, "v": item}
        if value is None or isinstance(value, bool | str):
            return value
        if isinstance(value, int):
            return int(value)
        if isinstance(value, float):
            return value if math.isfinite(value) else {"t": "float", "v": repr(float(value))}
        if isinstance(value, np.ndarray):
            return self.array(value, where)
        if isinstance(value, list):
            return [self.encode(v, f"{where}[{k}]") for k, v in enumerate(value)]
        if isinstance(value, tuple):
            items = [self.encode(v, f"{where}[{k}]") for k, v in enumerate(value)]
            return {"t": "tuple", "v": items}
        if isinstance(value, dict):
            return {
                "t": "dict",
                "v": [
                    [self.encode(k, f"{where} key"), self.encode(v, f"{where}[{k!r}]")]
                    for k, v in value.items()
                ],
            }
        if isinstance(value, pd.DataFrame):
            return self.frame(value, where)
        if isinstance(value, pd.Series):
            return {
                "t": "series",
                "frame": self.frame(value.to_frame(), where),
                "name": self.encode(value.name, f"{where}.name"),
            }
        if isinstance(value, nx.Graph):
            return self.graph(value, where)
        name = registry.name_of(value)
        if name is not None:
            return self.persisted(value, name, where)
        hint = ""
        if callable(value):
            hint = "Give the value itself (e.g. a contact matrix as a DataFrame or an array)."
        elif isinstance(value, np.random.RandomState):
            hint = "Give random_state as an int or None."
        self.fail(where, value, hint)

    def frame(self, frame, where):
        dtypes = set(frame.dtypes)
        if len(dtypes) > 1 or not all(
            isinstance(d, np.dtype) and d.kind in _ARRAY_KINDS for d in dtypes
        ):
            self.fail(where, frame, "(only DataFrames of one numeric dtype are supported)")
        return {
            "t": "frame",
            "index": self.array(frame.index.to_numpy(), f"{where}.index"),
            "columns": self.array(frame.columns.to_numpy(), f"{where}.columns"),
            "index_name": self.encode(frame.index.name, f"{where}.index.name"),
            "columns_name": self.encode(frame.columns.name, f"{where}.columns.name"),
            "values": self.array(frame.to_numpy(), f"{where}.values"),
        }

    def graph(self, graph, where):
        if type(graph) not in (nx.Graph, nx.DiGraph):
            self.fail(where, graph)
        return {
            "t": "graph",
            "directed": graph.is_directed(),
            "graph": self.encode(dict(graph.graph), f"{where}.graph"),
            "nodes": [
                [self.encode(n, where), self.encode(dict(d), f"{where}.nodes[{n!r}]")]
                for n, d in graph.nodes(data=True)
            ],
            "edges": [
                [
                    self.encode(u, where),
                    self.encode(v, where),
                    self.encode(dict(d), f"{where}.edges[{u!r}, {v!r}]"),
                ]
                for u, v, d in graph.edges(data=True)
            ],
        }

    def persisted(self, obj, name, where):
        """An object of a registered class: its parameters and its declared state."""
        node = {"t": "object", "class": name}
        if hasattr(obj, "get_params"):
            params = obj.get_params(deep=False)
            node["params"] = {k: self.encode(v, f"{where}.{k}") for k, v in params.items()}
        node["state"] = {k: self.encode(v, f"{where}.{k}") for k, v in obj._get_state().items()}
        return node


def dump(model, path) -> Path:
    """Write a fitted (or unfitted) bnclassify estimator to a model file.

    Parameters
    ----------
    model : estimator
        Any estimator in :mod:`bnclassify.io`'s list (every bnclassify
        classifier and :class:`~bnclassify.MDLDiscretizer`).
    path : str or Path
        The file to write (conventionally ``*.bnc``); overwritten if it exists.

    Returns
    -------
    Path

    Raises
    ------
    TypeError
        When the model holds something the format cannot store, e.g. a
        callable ``contact_matrix`` or a ``RandomState`` instance; the message
        names the attribute.

    Examples
    --------
    >>> import tempfile, os
    >>> import numpy as np
    >>> from bnclassify import TAN
    >>> from bnclassify.datasets import load_p450
    >>> from bnclassify.io import dump, load
    >>> X, y = load_p450(return_X_y=True)
    >>> model = TAN().fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "tan.bnc")
    >>> _ = dump(model, path)
    >>> bool(np.array_equal(load(path).predict_proba(X), model.predict_proba(X)))
    True
    """
    name = registry.name_of(model)
    if name is None or not registry.is_estimator(name):
        raise TypeError(
            f"{type(model).__name__} is not a bnclassify estimator that model files can hold; "
            f"known: {registry.known()}."
        )
    writer = _Writer()
    document = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "bnclassify_version": __version__,
        "model": writer.persisted(model, name, name),
    }
    text = json.dumps(document, allow_nan=False, separators=(",", ":"))
    path = Path(path)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("model.json", text)
        for member, array in writer.arrays:
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, array, allow_pickle=False)
            archive.writestr(member, buffer.getvalue())
    return path


# -- reading --------------------------------------------------------------------------------------
class _Reader:
    def __init__(self, archive, members: dict, version: int):
        self.archive = archive
        self.members = members
        self.used = set()
        self.version = version

    @staticmethod
    def fail(message):
        raise ModelFileError(message)

    def array(self, node):
        name, dtype, shape = node.get("file"), node.get("dtype"), node.get("shape")
        if not isinstance(name, str) or not _ARRAY_FILE.match(name) or name not in self.members:
            self.fail(f"an array refers to {name!r}, which is not in the file.")
        if name in self.used:
            self.fail(f"{name} is referred to twice.")
        self.used.add(name)
        expected = _safe_dtype(dtype)
        if not isinstance(shape, list) or not all(
            isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape
        ):
            self.fail(f"{name}: bad shape {shape!r}.")
        axes = node.get("axes", list(range(len(shape))))
        if not isinstance(axes, list) or sorted(axes) != list(range(len(shape))):
            self.fail(f"{name}: bad axes {axes!r:.60}.")
        stored = [shape[k] for k in axes]
        # the header first: its dtype and shape must be the metadata's, and its data must
        # fit in the member, before numpy allocates anything
        with self.archive.open(name) as handle:
            try:
                version = np.lib.format.read_magic(handle)
                header = (
                    np.lib.format.read_array_header_1_0(handle)
                    if version == (1, 0)
                    else np.lib.format.read_array_header_2_0(handle)
                )
            except (ValueError, OSError, EOFError) as error:
                self.fail(f"{name} is not a .npy array: {error}")
            header_shape, _, header_dtype = header
            if header_dtype != expected or list(header_shape) != stored:
                self.fail(
                    f"{name} holds a {header_dtype.str} array of shape {list(header_shape)}, "
                    f"but model.json says {expected.str} of shape {shape}."
                )
            if math.prod(stored) * expected.itemsize > self.members[name]:
                self.fail(f"{name} is shorter than its header says.")
        with self.archive.open(name) as handle:
            try:
                array = np.load(handle, allow_pickle=False)
            except (ValueError, OSError, EOFError) as error:
                self.fail(f"{name} is not a readable .npy array without pickle: {error}")
        if array.dtype != expected or list(array.shape) != stored:
            self.fail(f"{name} changed between two reads.")
        return array.transpose(np.argsort(axes)) if "axes" in node else array

    def objects(self, node):
        shape, values = node.get("shape"), node.get("v")
        if (
            not isinstance(shape, list)
            or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape)
            or not isinstance(values, list)
            or math.prod(shape) != len(values)
        ):
            self.fail(f"an object array's shape {shape!r} does not fit its values.")
        out = np.empty(len(values), dtype=object)
        for k, value in enumerate(values):
            if isinstance(value, dict) and value.get("t") == "value":
                out[k] = self.scalar(value)
                continue
            element = self.decode(value)
            if not (
                element is None
                or isinstance(element, bool | int | float | str | np.generic | tuple)
            ):
                self.fail(f"an object array holds a {type(element).__name__}.")
            out[k] = element
        return out.reshape(shape)

    def scalar(self, node):
        """One of the :data:`SCALARS` (an element of an object array)."""
        entry = SCALARS.get(node.get("type"))
        if entry is None:
            self.fail(f"unknown scalar type {node.get('type')!r:.40}.")
        try:
            return entry[2](self.decode(node.get("v")))
        except (TypeError, ValueError, OverflowError, ArithmeticError) as error:
            self.fail(f"bad {node.get('type')} value: {error}")

    def decode(self, node):
        if node is None or isinstance(node, bool | int | float | str):
            return node
        if isinstance(node, list):
            return [self.decode(v) for v in node]
        if not isinstance(node, dict):
            self.fail(f"unexpected JSON value {node!r:.60}.")
        tag = node.get("t")
        if tag == "tuple":
            return tuple(self.decode(v) for v in self._list(node, "v"))
        if tag == "dict":
            out = {}
            for pair in self._list(node, "v"):
                if not isinstance(pair, list) or len(pair) != 2:
                    self.fail("a dict entry is not a [key, value] pair.")
                key = self.decode(pair[0])
                try:
                    out[key] = self.decode(pair[1])
                except TypeError:
                    self.fail(f"a dict key of type {type(key).__name__} is not hashable.")
            return out
        if tag == "float":
            if node.get("v") not in ("nan", "inf", "-inf"):
                self.fail(f"bad float {node.get('v')!r}.")
            return float(node["v"])
        if tag == "scalar":
            dtype = _safe_dtype(node.get("dtype"))
            value = node.get("v")
            if isinstance(value, str) and dtype.kind == "f":
                value = float(value)
            if not isinstance(value, bool | int | float | str):
                self.fail("bad numpy scalar.")
            try:
                return np.array(value, dtype=dtype)[()]
            except (ValueError, TypeError, OverflowError):
                self.fail(f"{value!r} is not a {dtype}.")
        if tag == "array":
            return self.array(node)
        if tag == "objects":
            return self.objects(node)
        if tag == "series":
            frame = node.get("frame")
            frame = self.decode(frame) if isinstance(frame, dict) else frame
            if not isinstance(frame, pd.DataFrame) or frame.shape[1] != 1:
                self.fail("a series is stored as a frame of one column.")
            series = frame.iloc[:, 0]
            series.name = self.decode(node.get("name"))
            return series
        if tag == "frame":
            return self.frame(node)
        if tag == "graph":
            return self.graph(node)
        if tag in V1_TAGS and self.version == 1:
            return self.build(V1_TAGS[tag], None, self._v1_fields(node, tag))
        if tag == "object":
            return self.persisted(node)
        self.fail(f"unknown value type {tag!r}.")

    def _list(self, node, key):
        value = node.get(key)
        if not isinstance(value, list):
            self.fail(f"{node.get('t')!r}: {key!r} must be a list.")
        return value

    def frame(self, node):
        values = self._typed(node.get("values"), np.ndarray, "a frame's values")
        index = self._typed(node.get("index"), np.ndarray, "a frame's index")
        columns = self._typed(node.get("columns"), np.ndarray, "a frame's columns")
        if values.ndim != 2 or values.shape != (len(index), len(columns)):
            self.fail(
                f"a frame's values have shape {values.shape}, its index {len(index)} "
                f"and its columns {len(columns)} labels."
            )
        frame = pd.DataFrame(values, index=index, columns=columns)
        frame.index.name = self.decode(node.get("index_name"))
        frame.columns.name = self.decode(node.get("columns_name"))
        return frame

    def graph(self, node):
        graph = nx.DiGraph() if node.get("directed") is True else nx.Graph()
        attributes = self._typed(node.get("graph"), dict, "a graph's attributes")
        graph.graph.update(attributes)
        try:
            for item in self._list(node, "nodes"):
                name, data = self._pair(item, 2)
                graph.add_node(self.decode(name), **self._typed(data, dict, "a node's attributes"))
            for item in self._list(node, "edges"):
                u, v, data = self._pair(item, 3)
                graph.add_edge(
                    self.decode(u),
                    self.decode(v),
                    **self._typed(data, dict, "an edge's attributes"),
                )
        except TypeError as error:
            self.fail(f"bad graph: {error}")
        return graph

    def _pair(self, item, n):
        if not isinstance(item, list) or len(item) != n:
            self.fail(f"expected a list of {n} items, got {item!r:.60}.")
        return item

    def _typed(self, node, kind, what):
        value = self.decode(node)
        if not isinstance(value, kind):
            self.fail(f"{what} must be a {kind.__name__}, got {type(value).__name__}.")
        return value

    def _v1_fields(self, node, tag):
        """The fields of a version-1 schema or network node (stored without a state)."""
        return {k: self.decode(v) for k, v in node.items() if k != "t" and k in V1_FIELDS[tag]}

    def persisted(self, node):
        name = node.get("class")
        cls = registry.lookup(name)
        if cls is None:
            self.fail(
                f"the file names the class {name!r:.80}, which is not one of bnclassify's "
                f"estimators or factors ({registry.known()})."
            )
        params, state = node.get("params"), node.get("state")
        if not isinstance(state, dict) or not isinstance(params, dict | None):
            self.fail(f"{name}: params and state must be JSON objects.")
        if hasattr(cls, "get_params"):
            accepted = set(cls().get_params(deep=False))
            # a parameter added after the file was written takes its default
            if params is None or not set(params) <= accepted:
                self.fail(
                    f"{name} takes the parameters {sorted(accepted)}, the file gives "
                    f"{sorted(params or ())}."
                )
            params = {k: self.decode(v) for k, v in params.items()}
            # a parameter whose default changed since: the file's model had the earlier one
            for key, value in EARLIER_DEFAULTS.get(name, {}).items():
                params.setdefault(key, value)
        elif params is not None:
            self.fail(f"{name} takes no parameters.")
        if self.version == 1:
            state = v1_fields_of(name, state)
        for field in state:
            if not _FIELD.match(field):
                self.fail(f"{name} cannot have the field {field!r:.80}.")
        return self.build(cls, params, {k: self.decode(v) for k, v in state.items()})

    def build(self, cls, params, state):
        """``cls`` rebuilt by its own ``_from_state``, which checks the values."""
        try:
            return cls._from_state(state, params)
        except StateError as error:
            self.fail(f"{cls.__name__}: {error}")


def _safe_dtype(text) -> np.dtype:
    """A numpy dtype from its ``.str``: booleans, numbers and fixed-width strings only."""
    if not isinstance(text, str) or not re.match(r"^[<>|=]?[biufU][0-9]{1,6}$", text):
        raise ModelFileError(f"unsupported array dtype {text!r:.40}.")
    try:
        dtype = np.dtype(text)
    except TypeError:
        raise ModelFileError(f"unsupported array dtype {text!r:.40}.") from None
    if dtype.kind not in _ARRAY_KINDS or dtype.hasobject:
        raise ModelFileError(f"unsupported array dtype {text!r:.40}.")
    return dtype


def load(path, *, max_bytes=MAX_UNCOMPRESSED_BYTES):
    """Read an estimator from a model file written by :func:`dump`.

    Nothing is unpickled: the file's arrays are read with numpy's ``.npy``
    reader (``allow_pickle=False``), its classes are looked up in
    bnclassify's own list, and nothing named in the file is imported or
    called. Each object's class checks its values (finite tables, rows that
    sum to one, positive variances, distinct classes and categories, an
    acyclic structure) and its arrays against one another before the model
    is returned. Files of format version 1 load too.

    Parameters
    ----------
    path : str or Path
    max_bytes : int, default=MAX_UNCOMPRESSED_BYTES (2 GiB)
        Files whose members add up to more bytes, uncompressed (as the zip
        directory says, before anything is read), are refused.

    Returns
    -------
    estimator
        Of the class that was dumped, with the same parameters and fitted
        attributes; its predictions are bit for bit those of the original.

    Raises
    ------
    TypeError, InvalidParameterError
        When ``path`` is not a file name or ``max_bytes`` not a positive integer.
    ModelFileError
        For anything that is not a valid model file: empty, truncated or
        garbage files, a wrong format or version, too large a file, arrays
        that contradict the metadata or one another, a class outside
        bnclassify's list.
    FileNotFoundError
        When ``path`` does not exist.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bnclassify.io import ModelFileError, load
    >>> path = Path(tempfile.mkdtemp()) / "not-a-model.bnc"
    >>> _ = path.write_text("hello")
    >>> try:
    ...     load(path)
    ... except ModelFileError as error:
    ...     print(error)
    not-a-model.bnc is not a bnclassify model file: not a zip archive.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(
            f"path must be a file name (str or os.PathLike), got {type(path).__name__}."
        )
    check_int(max_bytes, "max_bytes", minimum=1)
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"model file {str(path)!r} is a directory, not a file.")
    if not path.is_file():
        raise FileNotFoundError(f"model file not found: {path}")
    try:
        return _load(path, max_bytes)
    except ModelFileError as error:
        raise ModelFileError(f"{path.name} is not a bnclassify model file: {error}") from None
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        zlib.error,  # a corrupted deflate stream
        ValueError,
        TypeError,
        KeyError,
        IndexError,
        AttributeError,
        RecursionError,
        EOFError,
        OSError,
        NotImplementedError,
        OverflowError,
        MemoryError,
    ) as error:
        kind = (
            "corrupted compressed data" if isinstance(error, zlib.error) else type(error).__name__
        )
        raise ModelFileError(
            f"{path.name} is not a bnclassify model file: {kind}: {error}"
        ) from None


def _load(path, max_bytes):
    if not zipfile.is_zipfile(path):
        raise ModelFileError("not a zip archive.")
    with zipfile.ZipFile(path) as archive:
        infos = archive.infolist()
        if len(infos) > MAX_MEMBERS:
            raise ModelFileError(f"{len(infos)} members (at most {MAX_MEMBERS}).")
        total = sum(info.file_size for info in infos)
        if total > max_bytes:
            raise ModelFileError(
                f"its members add up to {total} bytes uncompressed, more than the limit of "
                f"{max_bytes} (bnclassify.io.load(..., max_bytes=...))."
            )
        members = {info.filename: info.file_size for info in infos}
        if "model.json" not in members:
            raise ModelFileError("no model.json.")
        try:
            document = json.loads(archive.read("model.json").decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ModelFileError(f"model.json is not JSON: {error}") from None
        if not isinstance(document, dict) or document.get("format") != FORMAT_NAME:
            raise ModelFileError(f"model.json does not declare the format {FORMAT_NAME!r}.")
        version = document.get("version")
        if version not in READABLE_VERSIONS or isinstance(version, bool):
            raise ModelFileError(
                f"format version {version!r:.20}; this bnclassify reads versions "
                f"{READABLE_VERSIONS} (a newer file needs a newer bnclassify)."
            )
        node = document.get("model")
        if not isinstance(node, dict) or node.get("t") != "object":
            raise ModelFileError("model.json holds no estimator.")
        reader = _Reader(archive, members, version)
        model = reader.decode(node)
        if registry.ESTIMATORS.get(node.get("class")) is not type(model):
            raise ModelFileError("the top-level object is not an estimator.")
    return model
