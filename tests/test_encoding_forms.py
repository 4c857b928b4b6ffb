"""Every input form of a categorical column encodes like the slow obviously-correct reference.

The reference (``sorted(set(...))`` and a dict lookup in a loop over cells) is
written here only; the package encodes without a Python loop over cells.
"""

import math
import zlib

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bnclassify.data.encoding as encoding
from bnclassify import TAN, NaiveBayes
from bnclassify.data.encoding import (
    MISSING,
    encode_column,
    encode_frame,
    learn_and_encode_frame,
    learn_categories,
    learn_frame_categories,
)
from bnclassify.datasets import make_tree_classification


# -- the reference -------------------------------------------------------------------------------
def is_missing(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def sort_values(values) -> list:
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=lambda v: (type(v).__name__, str(v)))


def reference(cells, declared=None):
    """(categories, codes): sorted distinct observed (or declared) values; codes by dict."""
    categories = sort_values(
        set(declared) if declared is not None else {v for v in cells if not is_missing(v)}
    )
    position = {value: code for code, value in enumerate(categories)}
    codes = [MISSING if is_missing(v) else position[v] for v in cells]
    return categories, codes


def cells_of(column: pd.Series) -> list:
    """The column's cells as Python objects (missing cells as None)."""
    return [None if is_missing(v) else v for v in column.astype(object).tolist()]


# -- the forms ----------------------------------------------------------------------------------
LETTERS = ["b", "a", None, "c", "a", "b", None, "d"]
NUMBERS = [3, 0, 7, 3, 0, 0, 7, 12]


def forms():
    """name -> (column, declared categories or None)."""
    letters_full = [v if v is not None else "a" for v in LETTERS]
    declared = ["a", "b", "c", "d", "zz"]  # "zz" declared, never observed
    return {
        "int8": (pd.Series(np.array(NUMBERS, dtype=np.int8)), None),
        "int64": (pd.Series(np.array(NUMBERS, dtype=np.int64) + 10**12), None),
        "uint8": (pd.Series(np.array(NUMBERS, dtype=np.uint8)), None),
        "negative int": (pd.Series(np.array(NUMBERS) - 5), None),
        "bool": (pd.Series([True, False, True, True]), None),
        "boolean with NA": (pd.Series([True, None, False, True], dtype="boolean"), None),
        "Int64 with NA": (pd.Series([3, None, 0, 3, pd.NA], dtype="Int64"), None),
        "object str": (pd.Series(letters_full, dtype=object), None),
        "object str with None": (pd.Series(LETTERS, dtype=object), None),
        "object str with NaN": (
            pd.Series([np.nan if v is None else v for v in LETTERS], dtype=object),
            None,
        ),
        "object str with pd.NA": (
            pd.Series([pd.NA if v is None else v for v in LETTERS], dtype=object),
            None,
        ),
        "mixed object": (pd.Series([1, "a", 2.5, None, "a", 1, np.nan, "B"], dtype=object), None),
        "category": (pd.Series(pd.Categorical(letters_full, categories=declared)), declared),
        "category with NaN": (
            pd.Series(pd.Categorical(LETTERS, categories=declared[::-1])),
            declared,
        ),
        "int category": (
            pd.Series(pd.Categorical(NUMBERS, categories=[12, 7, 5, 3, 0])),
            [12, 7, 5, 3, 0],
        ),
        "arrow string": (pd.Series(LETTERS, dtype=pd.ArrowDtype(pa.string())), None),
        "arrow large_string": (pd.Series(LETTERS, dtype=pd.ArrowDtype(pa.large_string())), None),
        "arrow int64": (pd.Series(NUMBERS[:3] + [None], dtype=pd.ArrowDtype(pa.int64())), None),
        "pandas str": (pd.Series(LETTERS, dtype="str"), None),
        "string[pyarrow]": (pd.Series(LETTERS, dtype="string[pyarrow]"), None),
        "string[python]": (pd.Series(LETTERS, dtype="string[python]"), None),
        "float with NaN": (pd.Series([1.5, np.nan, -2.0, 1.5]), None),
        "arrow chunks": (
            pd.Series(
                pd.arrays.ArrowExtensionArray(
                    pa.chunked_array([pa.array(["b", None, "a"]), pa.array(["c", "b"])])
                )
            ),
            None,
        ),
        "arrow dictionary chunks": (  # own dictionary per chunk, one value ("q") unused
            pd.Series(
                pd.arrays.ArrowExtensionArray(
                    pa.chunked_array(
                        [
                            pa.DictionaryArray.from_arrays(
                                pa.array([1, None, 0], pa.int32()), pa.array(["b", "a", "q"])
                            ),
                            pa.DictionaryArray.from_arrays(
                                pa.array([0, 0, 1], pa.int32()), pa.array(["c", "a"])
                            ),
                        ]
                    )
                )
            ),
            None,
        ),
    }


FORMS = forms()


@pytest.mark.parametrize("name", list(FORMS))
def test_each_form_encodes_like_the_reference(name):
    column, declared = FORMS[name]
    column = column.rename("col")
    categories, codes = reference(cells_of(column), declared)
    learned = learn_categories(column)
    assert list(learned) == categories
    np.testing.assert_array_equal(encode_column(column, learned), codes)
    fused_categories, fused_codes = learn_and_encode_frame(column.to_frame())
    assert list(fused_categories[0]) == categories
    np.testing.assert_array_equal(fused_codes[:, 0], codes)
    assert fused_codes.dtype == np.int8 and fused_codes.flags.f_contiguous
    separate = encode_frame(column.to_frame(), learn_frame_categories(column.to_frame()))
    np.testing.assert_array_equal(separate, fused_codes)
    assert separate.dtype == np.int8 and separate.flags.f_contiguous


def test_a_frame_of_every_form_at_once():
    columns = {name: column for name, (column, _) in FORMS.items() if len(column) == 8}
    frame = pd.DataFrame(columns)
    categories, codes = learn_and_encode_frame(frame)
    assert codes.shape == frame.shape and codes.flags.f_contiguous
    for j, (name, (column, declared)) in enumerate((n, FORMS[n]) for n in frame.columns):
        expected_categories, expected_codes = reference(cells_of(column), declared)
        assert list(categories[j]) == expected_categories, name
        np.testing.assert_array_equal(codes[:, j], expected_codes, err_msg=name)
    np.testing.assert_array_equal(encode_frame(frame, categories), codes)


def test_codes_widen_past_127_categories():
    frame = pd.DataFrame(
        {"few": ["a", "b"] * 150, "many": pd.Series([f"v{i:03d}" for i in range(300)], dtype="str")}
    )
    categories, codes = learn_and_encode_frame(frame)
    assert codes.dtype == np.int16 and codes.flags.f_contiguous
    np.testing.assert_array_equal(codes[:, 1], np.arange(300))
    np.testing.assert_array_equal(codes[:, 0], [0, 1] * 150)
    assert encode_frame(frame, categories).dtype == np.int16


def test_non_categorical_kinds_get_a_dummy_code():
    frame = pd.DataFrame({"s": ["b", "a", "b"], "f": [0.5, np.nan, 1.0]})
    categories, codes = learn_and_encode_frame(frame, ["categorical", "gaussian"])
    assert categories[1] is None and list(categories[0]) == ["a", "b"]
    np.testing.assert_array_equal(codes, [[1, 0], [0, MISSING], [1, 0]])
    np.testing.assert_array_equal(
        learn_frame_categories(frame, ["categorical", "gaussian"])[0], ["a", "b"]
    )


def test_a_column_with_no_observed_value_has_no_category():
    # the schema leaves such a column out of the model (tests/test_unobserved_columns.py)
    for column in (
        pd.Series([None, None], dtype=object, name="empty"),
        pd.Series([None, None], dtype="str", name="empty"),
        pd.Series([np.nan, np.nan], name="empty"),
    ):
        categories, codes = learn_and_encode_frame(column.to_frame())
        assert len(categories[0]) == 0 and (codes == MISSING).all()
        assert len(learn_categories(column)) == 0


def test_threaded_encoding_equals_serial(monkeypatch):
    rng = np.random.default_rng(1)
    letters = np.array(["w", "x", "y", "z"], dtype=object)[rng.integers(0, 4, (500, 4))]
    letters[rng.random(letters.shape) < 0.1] = None
    frame = pd.DataFrame(letters, columns=list("abcd")).astype(
        {"a": "str", "b": pd.ArrowDtype(pa.string()), "c": "category", "d": object}
    )
    serial = learn_and_encode_frame(frame)
    monkeypatch.setattr(encoding, "_THREAD_ROWS", 1)
    monkeypatch.setattr(encoding, "cpu_count", lambda: 2)
    threaded = learn_and_encode_frame(frame)
    for a, b in zip(serial[0], threaded[0], strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(serial[1], threaded[1])
    np.testing.assert_array_equal(encode_frame(frame, serial[0]), serial[1])
    bad = frame.copy()
    bad.loc[7, "b"] = "new"
    with pytest.raises(ValueError, match=r"Column 'b' has value\(s\) \['new'\]"):
        encode_frame(bad, serial[0])


# -- the classifiers give the same probabilities from every form --------------------------------
def as_form(X: pd.DataFrame, form: str) -> pd.DataFrame:
    """The integer table ``X`` (values 0..3) in another form, same order of states."""
    if form == "int8":
        return X.astype(np.int8)
    if form == "int64":
        return X.astype(np.int64)
    if form == "Int64":
        return X.astype("Int64")
    if form == "int category":
        return X.astype("category")
    labels = np.array(["s0", "s1", "s2", "s3"], dtype=object)  # sorts like 0 < 1 < 2 < 3
    strings = pd.DataFrame({c: pd.Series(labels[X[c].to_numpy()], dtype=object) for c in X.columns})
    return {
        "object": strings,
        "category": strings.astype("category"),
        "arrow string": strings.astype(pd.ArrowDtype(pa.string())),
        "pandas str": strings.astype("str"),
        "string[pyarrow]": strings.astype("string[pyarrow]"),
    }[form]


PREDICT_FORMS = [
    "int8",
    "int64",
    "Int64",
    "int category",
    "object",
    "category",
    "arrow string",
    "pandas str",
    "string[pyarrow]",
]


@pytest.fixture(scope="module")
def tree_data():
    X, y = make_tree_classification(600, 6, random_state=3)
    X = pd.DataFrame(np.asarray(X), columns=[f"f{i}" for i in range(6)])
    return X, np.asarray(y)


@pytest.mark.parametrize("Model", [TAN, NaiveBayes])
@pytest.mark.parametrize("form", PREDICT_FORMS)
def test_every_form_predicts_like_integer_codes(tree_data, Model, form):
    X, y = tree_data
    expected = Model().fit(X.astype(np.int64), y).predict_proba(X.astype(np.int64))
    data = as_form(X, form)
    model = Model().fit(data, y)
    np.testing.assert_allclose(model.predict_proba(data), expected, rtol=1e-12, atol=1e-15)
    if form not in ("int8", "int64", "Int64", "int category"):  # strings: any other text form
        for other in ("object", "category", "arrow string", "pandas str"):
            np.testing.assert_allclose(
                model.predict_proba(as_form(X, other)), expected, rtol=1e-12, atol=1e-15
            )


@pytest.mark.parametrize("form", ["object", "category", "arrow string", "pandas str", "Int64"])
def test_missing_cells_predict_alike_in_every_form(tree_data, form):
    X, y = tree_data
    holes = np.random.default_rng(0).random(X.shape) < 0.1
    reference_frame = as_form(X, "object").mask(holes)
    data = as_form(X, form).mask(holes)
    expected = TAN().fit(reference_frame, y).predict_proba(reference_frame)
    np.testing.assert_allclose(TAN().fit(data, y).predict_proba(data), expected, rtol=1e-12)


@pytest.mark.parametrize(
    "form", ["object", "category", "arrow string", "pandas str", "string[pyarrow]"]
)
def test_unknown_values_name_the_column(tree_data, form):
    X, y = tree_data
    model = NaiveBayes(handle_unknown="error").fit(as_form(X, form), y)
    test = as_form(X, "object").iloc[:5].copy()
    test.loc[2, "f4"] = "s9"
    test = (
        test.astype(as_form(X, form).dtypes.to_dict())
        if form != "category"
        else test.astype("category")
    )
    with pytest.raises(ValueError, match=r"Column 'f4' has value\(s\) \['s9'\] not seen"):
        model.predict_proba(test)
    marginal = model.set_params(handle_unknown="marginalize").predict_proba(test)
    holed = test.astype(object)
    holed.loc[2, "f4"] = None
    np.testing.assert_allclose(marginal, model.predict_proba(holed), rtol=1e-12)


def test_unused_declared_category_at_predict_is_not_unknown(tree_data):
    X, y = tree_data
    model = NaiveBayes().fit(as_form(X, "object"), y)
    test = (
        as_form(X, "object").iloc[:5].astype(pd.CategoricalDtype(["s0", "s1", "s2", "s3", "never"]))
    )
    np.testing.assert_allclose(
        model.predict_proba(test), model.predict_proba(as_form(X, "object").iloc[:5]), rtol=1e-12
    )


# -- one invariant over arbitrary small columns ------------------------------------------------
small_values = st.one_of(
    st.sampled_from(["a", "b", "ab", "", "Z", "é"]),
    st.integers(-3, 300),
    st.none(),
    st.just(float("nan")),
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(small_values, min_size=1, max_size=40),
    st.sampled_from(["object", "str", "arrow", "category", "int"]),
)
def test_any_small_column_encodes_like_the_reference(cells, form):
    observed = [v for v in cells if not is_missing(v)]
    if form in ("str", "arrow"):
        cells = [None if is_missing(v) else str(v) for v in cells]
    if form == "int":
        # crc32, not hash(): str hashes change with PYTHONHASHSEED, and so would the cases
        cells = [v if is_missing(v) else zlib.crc32(repr(v).encode()) % 50 for v in cells]
    observed = [v for v in cells if not is_missing(v)]
    dtype = {
        "object": object,
        "str": "str",
        "arrow": pd.ArrowDtype(pa.string()),
        "category": "category",
        "int": "Int64" if len(observed) < len(cells) else np.int64,
    }[form]
    if form == "category" and len({type(v) for v in observed}) > 1:
        dtype = object  # pandas cannot build categories of mixed text and numbers reliably
    column = pd.Series(cells, dtype=dtype, name="c")
    if not observed:  # no category: every code missing
        categories, codes = learn_and_encode_frame(column.to_frame())
        assert len(categories[0]) == 0 and (codes == MISSING).all()
        return
    expected_categories, expected_codes = reference(cells_of(column))
    categories, codes = learn_and_encode_frame(column.to_frame())
    assert list(categories[0]) == expected_categories
    np.testing.assert_array_equal(codes[:, 0], expected_codes)
    np.testing.assert_array_equal(encode_column(column, categories[0]), expected_codes)


# -- columns learned together equal columns learned one at a time -------------------------------
@st.composite
def frames_of_one_form(draw):
    """A frame of 2-5 Categorical or Arrow-text columns (the forms learned together), with a
    plain column among them at times; Categoricals may share, reorder or lack categories."""
    n = draw(st.integers(1, 30))
    words = ["b", "a", "ab", "", "é", "z" * 10]
    pool = draw(st.sampled_from([words, [3, 0, 12, -1], [2.5, -0.0, 1.0], [True, False]]))
    columns = {}
    for k in range(draw(st.integers(2, 5))):
        form = draw(st.sampled_from(["category", "category", "str", "arrow", "object"]))
        if form != "category":
            pool = words
        cells = draw(st.lists(st.sampled_from([*pool, None]), min_size=n, max_size=n))
        if form == "category":
            declared = draw(st.permutations(pool))  # shared or another order: sorted once each
            columns[f"c{k}"] = pd.Series(pd.Categorical(cells, categories=declared))
        else:
            if all(v is None for v in cells):
                cells[0] = pool[0]
            dtype = {"str": "str", "arrow": pd.ArrowDtype(pa.large_string()), "object": object}
            columns[f"c{k}"] = pd.Series(cells, dtype=dtype[form])
    return pd.DataFrame(columns)


@settings(max_examples=100, deadline=None)
@given(frames_of_one_form())
def test_columns_learned_together_equal_columns_learned_alone(frame):
    categories, codes = learn_and_encode_frame(frame)
    assert codes.flags.f_contiguous
    alone = [encoding._learn_and_encode_column(column) for _, column in frame.items()]
    assert codes.dtype == encoding.codes_dtype([c for c, _ in alone])
    for j, (expected, expected_codes) in enumerate(alone):
        assert categories[j].dtype == expected.dtype
        assert [(type(v), v) for v in categories[j].tolist()] == [
            (type(v), v) for v in expected.tolist()
        ]
        np.testing.assert_array_equal(codes[:, j], expected_codes)
