"""Model files hold each class's declared state: labels kept, invalid values refused.

Issue 24 item 2 (declared state, io generic) and issue 27 items 14b (integer and
tuple column labels survive ``dump``/``load``) and 14d (``load`` validates values,
not only shapes).
"""

import io
import json
import re
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from bnclassify import KDB, TAN, EnsembleTAN, NaiveBayes
from bnclassify.exceptions import UnseenCategoryWarning
from bnclassify.io import ModelFileError, dump, load


def _table(n=200, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = pd.DataFrame(
        {
            "a": (rng.integers(0, 3, n) + y) % 3,
            "b": rng.normal(2.0 * y, 1.0),
            "d": rng.normal(-y, 2.0),
            "c": (rng.random(n) < 0.2 + 0.6 * y).astype(int),
        }
    )
    return X, y


# -- 14b: integer and tuple column labels ---------------------------------------------------------
LABELS = {
    "integers": [0, 1, 2, 3],
    "shuffled-integers": [3, 0, 2, 1],
    "tuples": [("a", 1), ("b", 2), ("c", 3), ("d", 4)],
    "numpy-integers": list(np.arange(10, 14)),
}


@pytest.mark.parametrize("labels", list(LABELS))
@pytest.mark.parametrize("make", [NaiveBayes, TAN, lambda: KDB(k=2)], ids=["nb", "tan", "kdb"])
def test_loaded_model_reads_reordered_columns_by_their_labels(labels, make, tmp_path):
    X, y = _table()
    X.columns = LABELS[labels]
    model = make().fit(X, y)
    loaded = load(dump(model, tmp_path / "m.bnc"))
    reordered = X[X.columns[::-1]]
    expected = model.predict_proba(X)
    by_position = reordered.set_axis(X.columns, axis=1)  # what reading by position would see
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnseenCategoryWarning)  # values of another column
        assert not np.allclose(model.predict_proba(by_position), expected)
    np.testing.assert_array_equal(loaded.predict_proba(reordered), expected)
    np.testing.assert_array_equal(model.predict_proba(reordered), expected)


@settings(max_examples=15, deadline=None)
@given(order=st.permutations(range(4)), seed=st.integers(0, 50))
def test_any_column_order_reads_the_same_after_loading(order, seed, tmp_path_factory):
    X, y = _table(seed=seed)
    X.columns = [10, 11, 12, 13]
    model = NaiveBayes().fit(X, y)
    loaded = load(dump(model, tmp_path_factory.mktemp("m") / "m.bnc"))
    permuted = X[[X.columns[k] for k in order]]
    np.testing.assert_array_equal(loaded.predict_proba(permuted), model.predict_proba(X))


# -- the file holds declared fields, not attributes -----------------------------------------------
def _document(path):
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read("model.json")), {
            n: archive.read(n) for n in archive.namelist()
        }


def _states(node):
    """Every (class, state) of a document, depth first."""
    if isinstance(node, dict):
        if node.get("t") == "object":
            yield node["class"], node["state"]
        for value in node.values():
            yield from _states(value)
    elif isinstance(node, list):
        for value in node:
            yield from _states(value)


@pytest.mark.parametrize(
    "model",
    [TAN(), EnsembleTAN(), EnsembleTAN(members=[KDB(k=2), NaiveBayes()])],
    ids=["tan", "ensemble", "ensemble-members"],
)
def test_no_field_of_a_model_file_is_a_private_attribute_name(model, tmp_path):
    X, y = _table()
    document, _ = _document(dump(model.fit(X, y), tmp_path / "m.bnc"))
    states = list(_states(document["model"]))
    classes = {name for name, _ in states}
    assert {"TableSchema", "FittedNetwork"} & classes or "EnsembleTAN" in classes
    for name, state in states:
        assert not [f for f in state if f.startswith("_")], name


def test_io_reads_no_private_attribute_and_branches_on_no_class():
    """io is generic: it calls the declared-state pair, nothing else of another object's."""
    root = Path(__file__).parents[1] / "bnclassify" / "io"
    for module in ("_format.py", "registry.py", "_v1.py"):
        source = (root / module).read_text()
        code = "\n".join(line.split("#")[0] for line in source.splitlines())
        private = {
            m.group(1)
            for m in re.finditer(r"\b(?!self\b|cls\b)[A-Za-z_]\w*\.(_\w+)", code)
            if not m.group(0).startswith(("bnclassify.io.", "io._"))
            and not re.fullmatch(r"__\w+__", m.group(1))
        }
        assert private <= {"_get_state", "_from_state"}, (module, private)
        assert not re.search(r"isinstance\([^)]*(Factor|Schema|Network|Classifier|TAN)", code)


# -- 14d: invalid values are refused --------------------------------------------------------------
def _write(path, members):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _array(members, node):
    return np.load(io.BytesIO(members[node["file"]]), allow_pickle=False)


def _put(members, node, array):
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.ascontiguousarray(array))
    members[node["file"]] = buffer.getvalue()
    node.update(shape=list(array.shape), dtype=array.dtype.str)
    node.pop("axes", None)


def _field(document, class_name, field):
    for name, state in _states(document["model"]):
        if name == class_name and field in state:
            return state
    raise AssertionError(f"no {class_name}.{field}")


def _edited(model, tmp_path, edit):
    document, members = _document(dump(model, tmp_path / "good.bnc"))
    edit(document, members)
    members["model.json"] = json.dumps(document).encode()
    return _write(tmp_path / "bad.bnc", members)


def _scale_array(class_name, field, change):
    def edit(document, members):
        node = _field(document, class_name, field)[field]
        _put(members, node, change(_array(members, node)))

    return edit


def _nan_first(a):
    a = a.copy()
    a.flat[0] = np.nan
    return a


def _duplicate_first(a):
    a = a.copy()
    a[1] = a[0]
    return a


def _cyclic(document, members):
    state = _field(document, "FittedNetwork", "parents")
    parents = state["parents"]
    # feature 0 gets feature 1 as a parent while 1 descends from 0 in the tree: a cycle
    child = next(k for k, p in enumerate(parents) if p["v"] == [0])
    parents[0] = {"t": "tuple", "v": [child]}


CORRUPTIONS = {
    "nan-in-a-table": (_scale_array("Categorical", "log_table_", _nan_first), "NaN or infinite"),
    "unnormalised-rows": (
        _scale_array("Categorical", "log_table_", lambda a: a + np.log(2.0)),
        "rows must sum to 1",
    ),
    "unnormalised-prior": (
        _scale_array("FittedNetwork", "log_prior", lambda a: a - 1.0),
        "log_prior: its rows must sum to 1",
    ),
    "zero-variance": (_scale_array("Gaussian", "var", lambda a: a * 0.0), "var_: must be positive"),
    "negative-variance": (_scale_array("Gaussian", "var", lambda a: -a), "var_: must be positive"),
    "infinite-mean": (
        _scale_array("Gaussian", "intercept", lambda a: a + np.inf),
        "intercept_: holds NaN or infinite",
    ),
    "duplicate-classes": (
        _scale_array("TAN", "classes_", _duplicate_first),
        "classes_: the label .* appears twice",
    ),
    "cyclic-structure": (_cyclic, "parents: the structure has a cycle"),
}


@pytest.mark.parametrize("case", list(CORRUPTIONS))
def test_a_file_with_invalid_values_is_refused_naming_the_field(case, tmp_path):
    X, y = _table()
    X["a"] = X["a"].astype(str)
    model = TAN(distributions="density").fit(X, np.array([5, 7])[y])  # Gaussian nodes too
    edit, message = CORRUPTIONS[case]
    with pytest.raises(ModelFileError, match=message):
        load(_edited(model, tmp_path, edit))


def test_duplicate_categories_are_refused(tmp_path):
    X, y = _table()
    model = NaiveBayes().fit(X[["c"]].astype(str), y)

    def edit(document, members):
        node = _field(document, "TableSchema", "categories")["categories"][0]
        node["v"] = [node["v"][0], node["v"][0]]

    with pytest.raises(ModelFileError, match="appears twice"):
        load(_edited(model, tmp_path, edit))


def test_an_unknown_field_is_refused_naming_the_class(tmp_path):
    X, y = _table()

    def edit(document, members):
        document["model"]["state"]["evil"] = 1

    with pytest.raises(ModelFileError, match="NaiveBayes: NaiveBayes has no field 'evil'"):
        load(_edited(NaiveBayes().fit(X, y), tmp_path, edit))


# -- invariant: whatever fits, loads and predicts alike ------------------------------------------
@st.composite
def _frames(draw):
    n = draw(st.integers(12, 40))
    columns = {}
    labels = draw(
        st.lists(
            st.one_of(st.text("abc", min_size=1, max_size=3), st.integers(0, 99)),
            min_size=2,
            max_size=5,
            unique_by=str,
        )
    )
    for label in labels:
        kind = draw(st.sampled_from(["int", "str", "float"]))
        if kind == "int":
            values = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
        elif kind == "str":
            values = draw(st.lists(st.sampled_from(["u", "v", "w"]), min_size=n, max_size=n))
        else:
            values = draw(
                st.lists(st.floats(-100, 100, allow_nan=False, width=32), min_size=n, max_size=n)
            )
        columns[label] = values
    y = draw(st.lists(st.sampled_from(["p", "q", "r"]), min_size=n, max_size=n))
    return pd.DataFrame(columns), np.array(y, dtype=object)


@settings(max_examples=20, deadline=None)
@given(data=_frames(), make=st.sampled_from([NaiveBayes, TAN, lambda: KDB(k=2)]))
def test_whatever_fits_loads_and_predicts_alike(data, make, tmp_path_factory):
    X, y = data
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = make().fit(X, y)
    except ValueError:  # e.g. one class only, or a constant Gaussian column
        event("refused at fit")
        return
    event("fitted")
    loaded = load(dump(model, tmp_path_factory.mktemp("m") / "m.bnc"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
        reordered = X[X.columns[::-1]]
        np.testing.assert_array_equal(loaded.predict_proba(reordered), model.predict_proba(X))
