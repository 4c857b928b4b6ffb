"""The class column is coded by hashing; the codes equal the slow reference (np.unique)."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bnclassify.data import encode_target

FORMS = ["int", "bool", "float", "object", "arrow", "str", "category", "mixed", "list"]


def reference(labels, form, categories=None):
    """``(classes, codes)`` the obvious way: np.unique on the values, or the declared categories."""
    if form == "category":
        return np.array(categories, dtype=object), np.array([categories.index(v) for v in labels])
    values = np.empty(len(labels), dtype=object)
    values[:] = labels
    if form not in ("object", "arrow", "str"):
        values = np.asarray(labels)
    return np.unique(values, return_inverse=True)


@st.composite
def targets(draw):
    form = draw(st.sampled_from(FORMS))
    pool = {
        "int": st.integers(-5, 300),
        "bool": st.booleans(),
        "float": st.integers(-3, 3).map(float),
        "mixed": st.one_of(st.integers(0, 3), st.sampled_from(["a", "b"])),
        "list": st.sampled_from(["a", "b", "zz", "é"]),
    }.get(form, st.text(min_size=0, max_size=3))
    distinct = draw(st.lists(pool, min_size=2, max_size=6, unique=True))
    if form == "mixed":  # the first two (always picked below) are a number and a string
        distinct = [0, "a"] + [v for v in distinct if v not in (0, "a")]
    picks = draw(st.lists(st.integers(0, len(distinct) - 1), min_size=2, max_size=60))
    picks[:2] = [0, 1]  # at least 2 classes
    labels = [distinct[k] for k in picks]
    categories = None
    if form == "int":
        y = np.array(labels, dtype=draw(st.sampled_from([np.int64, np.int16])))
    elif form in ("bool", "float"):
        y = np.array(labels)
    elif form in ("object", "mixed"):
        y = pd.Series(labels, dtype=object)
    elif form == "arrow":
        y = pd.Series(labels, dtype="string[pyarrow]")
    elif form == "str":
        y = pd.Series(labels, dtype=pd.ArrowDtype(pa.string()))
    elif form == "list":
        y = labels
    else:  # a category target with its declared order and an unused category
        unused = draw(st.text(min_size=4, max_size=5))  # longer than any label: never used
        categories = draw(st.permutations(distinct + [unused]))
        y = pd.Series(pd.Categorical(labels, categories=categories))
    return form, y, labels, categories


@settings(max_examples=200, deadline=None)
@given(targets())
def test_codes_and_classes_equal_the_slow_reference(case):
    form, y, labels, categories = case
    if form == "mixed":
        with pytest.raises(TypeError, match="y mixes strings and numbers"):
            encode_target(y, len(labels))
        return
    classes, codes = encode_target(y, len(labels))
    want_classes, want_codes = reference(labels, form, categories)
    assert classes.tolist() == want_classes.tolist()
    assert codes.tolist() == want_codes.tolist()
    assert codes.dtype == np.intp
    assert [classes[k] for k in codes] == labels  # every row gets its own label back


@pytest.mark.parametrize(
    "y",
    [
        pd.Series(["a", None, "b"], dtype="string[pyarrow]"),
        pd.Series(pd.Categorical(["a", None, "b"])),
        np.array([1.0, np.nan, 2.0]),
        pd.Series(["a", None, "b"], dtype=object),
    ],
)
def test_a_missing_label_is_found_in_the_codes(y):
    with pytest.raises(ValueError, match=r"1 missing value\(s\) \(first at row 1\)"):
        encode_target(y, 3)


def test_a_category_target_keeps_declared_classes_but_needs_two_observed():
    y = pd.Series(pd.Categorical(["a", "a"], categories=["b", "a"]))
    with pytest.raises(ValueError, match=r"only 1 class \('a'\)"):
        encode_target(y, 2)


def test_unhashable_labels_are_a_clear_type_error():
    with pytest.raises(TypeError, match="y holds unhashable labels"):
        encode_target(pd.Series([[1], [2]]), 2)


@pytest.mark.parametrize("form", ["object", "float", "category", "arrow"])
def test_many_classes_warn_only_when_they_outnumber_half_the_rows(form):
    """Issue 32, item 6: 26 classes in 20,000 rows (letter) raised scikit-learn's "more
    than 50% of the number of samples" warning on every fit, because the check ran on
    the 26 distinct labels; it is judged on the rows, as scikit-learn's own rule."""
    import warnings

    from bnclassify import NaiveBayes

    rng = np.random.default_rng(0)
    letters = np.array(list("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))

    def labels(n):
        picked = letters[np.arange(n) % 26]
        return {
            "object": pd.Series(picked, dtype=object),
            "float": pd.Series(np.arange(n) % 26, dtype=float),
            "category": pd.Series(picked, dtype="category"),
            "arrow": pd.Series(picked, dtype=pd.ArrowDtype(pa.string())),
        }[form]

    X = rng.integers(0, 3, (2_000, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        NaiveBayes().fit(X, labels(2_000))
    with pytest.warns(UserWarning, match="greater than 50% of the number of samples") as caught:
        NaiveBayes().fit(X[:44], labels(44))  # 26 classes > 22
    assert len([w for w in caught if "50%" in str(w.message)]) == 1
