import numpy as np
import pandas as pd
import pytest

from bnclassify.data import as_frame
from bnclassify.data.encoding import (
    MISSING,
    codes_dtype,
    encode_column,
    encode_frame,
    learn_and_encode_frame,
    learn_categories,
    learn_frame_categories,
)


def test_integer_block_path_equals_column_path():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 7, (3000, 5)) * 3  # gaps between values
    X[:, 2] = rng.integers(0, 2, 3000)
    frame, _ = as_frame(X)
    fast = learn_frame_categories(frame)
    slow = [learn_categories(frame[c]) for c in frame.columns]
    for a, b in zip(fast, slow, strict=True):
        np.testing.assert_array_equal(a, b)
    codes = encode_frame(frame, fast)
    assert codes.dtype == np.int8 and codes.flags.f_contiguous
    for j, c in enumerate(frame.columns):
        np.testing.assert_array_equal(codes[:, j], encode_column(frame[c], slow[j]))


@pytest.mark.parametrize("top", [2, 8, 9, 16, 31, 33, 63, 64, 120, 300])
@pytest.mark.parametrize("order", ["C", "F"])
def test_learn_and_encode_integer_block_every_value_range(top, order):
    # bit sets in uint8 .. uint64 below 64, bincount above; codes cast or looked up
    rng = np.random.default_rng(top)
    X = np.asarray(rng.integers(0, top, (500, 6)), order=order)
    X[:, 1] = rng.integers(0, 3, 500)  # 0 .. r-1: the values are the codes
    X[:, 2] = X[:, 2] // 2 * 2  # gaps: looked up
    X[:, 3] = top - 1
    categories, codes = learn_and_encode_frame(pd.DataFrame(X))
    assert codes.flags.f_contiguous and codes.dtype == codes_dtype(categories)
    for j in range(X.shape[1]):
        np.testing.assert_array_equal(categories[j], np.unique(X[:, j]))
        assert categories[j].dtype == X.dtype
        np.testing.assert_array_equal(categories[j][codes[:, j]], X[:, j])


def test_integer_block_unknown_values():
    train, _ = as_frame(np.array([[0, 5], [1, 5], [0, 6]]))
    categories = learn_frame_categories(train)
    test, _ = as_frame(np.array([[0, 5], [2, 6], [0, 9000]]))
    with pytest.raises(ValueError, match=r"Column 'x0' has value\(s\) \[.*2.*\] not seen"):
        encode_frame(test, categories)
    codes = encode_frame(test, categories, handle_unknown="marginalize")
    np.testing.assert_array_equal(codes, [[0, 0], [MISSING, 1], [0, MISSING]])


def test_strings_floats_and_mixed_columns():
    frame = pd.DataFrame(
        {"s": ["b", "a", None], "f": [1.5, np.nan, 1.5], "o": pd.Series([1, "a", 1], dtype=object)}
    )
    categories = [learn_categories(frame[c]) for c in frame.columns]
    assert list(categories[0]) == ["a", "b"] and list(categories[1]) == [1.5]
    assert list(categories[2]) == [1, "a"]  # mixed types sort by type name, then text
    np.testing.assert_array_equal(
        encode_frame(frame, categories), [[1, 0, 0], [0, MISSING, 1], [MISSING, 0, 0]]
    )


def test_codes_dtype_grows_with_the_number_of_categories():
    assert codes_dtype([np.arange(3)]) == np.int8
    assert codes_dtype([np.arange(300)]) == np.int16
    assert codes_dtype([np.arange(70_000)]) == np.int32


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.int32])
def test_small_integer_dtypes_take_the_block_path_correctly(dtype):
    X = np.array([[0, 255 if dtype in (np.uint8, np.uint16, np.int32) else 127], [3, 0]])
    frame, _ = as_frame(X.astype(dtype))
    categories = learn_frame_categories(frame)
    assert [list(c) for c in categories] == [[0, 3], sorted(X[:, 1])]
    np.testing.assert_array_equal(encode_frame(frame, categories), [[0, 1], [1, 0]])


@pytest.mark.parametrize("late", [False, True])
def test_object_columns_factorized_by_identity_equal_the_values(late):
    # shared label objects, an equal value held by another object, None and NaN,
    # and (late) a value first seen after the sampled rows
    labels = np.array(["bb", "aa", None, np.nan], dtype=object)
    values = labels[np.random.default_rng(0).integers(0, 4, 20_000)]
    values[7] = "".join(["a", "a"])  # equal to "aa", another object
    assert values[7] is not labels[1]
    if late:
        values[-3] = "cc"
    frame = pd.DataFrame({"x": values, "z": values[::-1].copy()})
    categories, codes = learn_and_encode_frame(frame)
    expected = ["aa", "bb", "cc"] if late else ["aa", "bb"]
    assert [list(c) for c in categories] == [expected, expected]
    for j, column in enumerate(frame.columns):
        observed = frame[column].notna().to_numpy()
        np.testing.assert_array_equal(codes[~observed, j], MISSING)
        np.testing.assert_array_equal(categories[j][codes[observed, j]], frame[column][observed])
        np.testing.assert_array_equal(encode_frame(frame, categories)[:, j], codes[:, j])


@pytest.mark.parametrize("storage", ["str", "string[pyarrow]", "large_string", "chunked"])
@pytest.mark.parametrize("handle_unknown", ["marginalize", "error"])
def test_arrow_text_columns_coded_together_as_column_by_column(storage, handle_unknown):
    # encode_texts (one compiled pass over every text column) against encode_column, the
    # per-column path: missing cells, unseen values, non-ASCII text, categories that are
    # not all texts, a column of more than TEXT_MAX_CODES values, several chunks
    import pyarrow as pa

    from bnclassify.data.encoding import encode_texts

    rng = np.random.default_rng(len(storage))
    words = np.array(["a", "b", "é", "ü√", "", "a b", "zz", "1"], dtype=object)
    n = 400
    raw = {
        "seen": words[rng.integers(0, 5, n)],
        "unseen": words[rng.integers(0, 8, n)],
        "wide": np.array([f"v{i}" for i in rng.integers(0, 300, n)], dtype=object),
        "ints": np.array([str(i) for i in rng.integers(0, 3, n)], dtype=object),
    }
    for column in raw.values():
        column[rng.random(n) < 0.1] = None
    categories = [
        np.array(sorted(set(words[:5]) - {""}), dtype=object),
        np.array(sorted(words[:6]), dtype=object),
        np.array(sorted(f"v{i}" for i in range(290)), dtype=object),
        np.array([0, 1, 2]),  # an integer column seen in fit: texts never equal its values
    ]
    if handle_unknown == "error":
        raw = {"seen": raw["seen"]}
        raw["seen"][raw["seen"] == ""] = "a"
        categories = categories[:1]

    def as_storage(values):
        if storage == "large_string":
            return pd.Series(values, dtype=pd.ArrowDtype(pa.large_string()))
        if storage == "chunked":
            half = len(values) // 2
            data = pa.chunked_array([pa.array(values[:half]), pa.array(values[half:])])
            return pd.Series(pd.arrays.ArrowExtensionArray(data))
        return pd.Series(values, dtype=storage)

    frame = pd.DataFrame({name: as_storage(values) for name, values in raw.items()})
    columns = list(enumerate(column for _, column in frame.items()))
    together = encode_texts(columns, categories, handle_unknown)
    assert set(together) == ({0} if handle_unknown == "error" else {0, 1, 3})  # not "wide"
    for j, codes in together.items():
        expected = encode_column(frame.iloc[:, j], categories[j], handle_unknown)
        np.testing.assert_array_equal(codes, expected)
    if handle_unknown == "marginalize":
        np.testing.assert_array_equal(
            encode_frame(frame, categories, handle_unknown),
            np.column_stack([encode_column(frame[c], k, handle_unknown) for c, k in
                             zip(frame.columns, categories, strict=True)]),
        )  # fmt: skip
    unseen = frame.copy()
    unseen.iloc[0, 0] = "never"
    with pytest.raises(ValueError, match="not seen during fit"):
        encode_frame(unseen.iloc[:, :1], categories[:1], "error")


@pytest.mark.parametrize("binned", [False, True])
def test_integer_block_with_negative_or_huge_categories_equals_the_column_path(binned):
    # categories learned from training rows may hold a negative integer or a huge one while
    # the new rows hold small non-negative ones: the block's look-up slots of one column
    # must not be written by another's categories (a -1 once coded a neighbour's value)
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({name: rng.integers(0, 4, 50) for name in "abcd"})
    categories = [np.arange(4), np.array([-1, 0, 1, 2]), np.array([0, 2, 10**9]), np.arange(3)]
    if binned:  # a column the caller codes (a binned one): the others through the block
        frame["v"] = rng.random(50)
        categories.append(None)
    codes = encode_frame(frame, categories, "marginalize", unset=[4] if binned else ())
    for j, cats in enumerate(categories[:4]):
        expected = encode_column(frame.iloc[:, j], cats, "marginalize")
        np.testing.assert_array_equal(codes[:, j], expected)
    one = [np.arange(4), np.arange(4), np.array([0, 1, 2]), np.arange(3)]  # all small
    codes = encode_frame(frame.iloc[:, :4], one, "marginalize")
    for j, cats in enumerate(one):
        expected = encode_column(frame.iloc[:, j], cats, "marginalize")
        np.testing.assert_array_equal(codes[:, j], expected)
    with pytest.raises(ValueError, match="not seen during fit"):
        encode_frame(frame, [np.arange(3)] + categories[1:], "error", unset=[4] if binned else ())
