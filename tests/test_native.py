"""The compiled kernels (bnclassify/_native/_kernels.c) equal their numpy twins and a reference."""

import math
import os
import threading
import time

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import scipy.special
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bnclassify import TAN, NaiveBayes, SimplerTAN, _native, spanning_trees
from bnclassify.data import encoding
from bnclassify.data.encoding import factorize_column, learn_and_encode_frame
from bnclassify.datasets import make_tree_classification
from bnclassify.spanning_trees import SYMMETRIC_SPREAD

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32"]


@pytest.fixture
def numpy_only(monkeypatch):
    """Run the numpy versions (as on an install without a C compiler)."""
    monkeypatch.setattr(_native.runtime, "COMPILED", False)


def test_the_extension_is_built():
    # the extension is optional (without a C compiler the numpy versions run, slower, same
    # results); a build that must have it (CI's) says so with BNCLASSIFY_EXPECT_COMPILED=1
    if not os.environ.get("BNCLASSIFY_EXPECT_COMPILED"):
        pytest.skip("the extension is optional here (BNCLASSIFY_EXPECT_COMPILED is not set)")
    assert _native.runtime.kernels is not None, (
        "bnclassify._kernels did not build: pip install -e . needs a C compiler"
    )
    assert _native.runtime.kernels.VERSION == _native.KERNELS_VERSION
    assert _native.COMPILED == (not os.environ.get("BNCLASSIFY_NUMPY_KERNELS"))


needs_extension = pytest.mark.skipif(
    _native.runtime.kernels is None, reason="the compiled extension is not built (no C compiler)"
)


def compiled_and_numpy(call):
    """``call()`` with the compiled kernels, then with their numpy twins, whichever the run
    uses elsewhere (a function, not a fixture: hypothesis runs it once per example)."""
    switch = _native.runtime.COMPILED
    try:
        _native.runtime.COMPILED = True
        compiled = call()
        _native.runtime.COMPILED = False
        return compiled, call()
    finally:
        _native.runtime.COMPILED = switch


def layouts(block):
    """The same values C-ordered, Fortran-ordered and as a strided view."""
    padded = np.zeros((block.shape[0] * 2, block.shape[1] * 3), dtype=block.dtype)
    padded[::2, ::3] = block
    return [block, np.asfortranarray(block), padded[::2, ::3]]


@st.composite
def integer_blocks(draw, low=None, high=None):
    dtype = np.dtype(draw(st.sampled_from(INT_DTYPES)))
    info = np.iinfo(dtype)
    low = info.min if low is None else max(low, info.min)
    high = info.max if high is None else min(high, info.max)
    n, m = draw(st.integers(1, 40)), draw(st.integers(1, 12))
    seed = draw(st.integers(0, 2**32 - 1))
    a, b = sorted(draw(st.lists(st.integers(low, high), min_size=2, max_size=2)))
    rng = np.random.default_rng(seed)
    return rng.integers(a, b, size=(n, m), endpoint=True, dtype=dtype)


@settings(max_examples=60, deadline=None)
@given(integer_blocks())
def test_column_ranges(block):
    for view in layouts(block):
        low, high = _native.column_ranges(view)
        np.testing.assert_array_equal(low, block.min(axis=0).astype(np.int64))
        np.testing.assert_array_equal(high, block.max(axis=0).astype(np.int64))
        assert low.dtype == high.dtype == np.int64


@settings(max_examples=60, deadline=None)
@given(integer_blocks(low=0, high=63), st.booleans())
def test_value_bits(block, compiled):
    expected = [sum(1 << int(v) for v in np.unique(column)) for column in block.T]
    for view in layouts(block):
        for high in (None, block.max(axis=0).astype(np.int64)):  # byte columns: by memchr
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(_native.runtime, "COMPILED", compiled and _native.COMPILED)
                bits = _native.value_bits(view, int(block.max()), high)
            assert bits.dtype == np.uint64
            assert bits.tolist() == expected


@pytest.mark.parametrize("compiled", [True, False])
def test_degenerate_shapes_give_the_same_answer_in_both_versions(compiled, monkeypatch):
    # the same class of input as a family without cells: nothing to read
    monkeypatch.setattr(
        _native.runtime, "COMPILED", compiled and _native.runtime.kernels is not None
    )
    for block in (np.zeros((3, 0), np.int64), np.zeros((3, 0), np.int64, order="F")):
        assert _native.value_bits(block, 5).tolist() == []
        assert _native.column_major(block, np.int8).shape == (3, 0)
    assert _native.value_bits(np.zeros((0, 2), np.int8), 5).tolist() == [0, 0]
    assert _native.is_symmetric(np.zeros((0, 0)))
    for matrix in (np.zeros((2, 3)), np.zeros((2, 3), dtype=int)):  # not square: refused
        with pytest.raises(ValueError, match="square matrix"):
            _native.is_symmetric(matrix)


def test_value_bits_ignore_values_outside_0_64():
    block = np.array([[-1, 64], [3, 200], [5, 1]], dtype=np.int64)
    assert _native.value_bits(block, 63).tolist() == [(1 << 3) | (1 << 5), 1 << 1]


@settings(max_examples=60, deadline=None)
@given(integer_blocks(low=0, high=127), st.sampled_from([np.int8, np.int16]))
def test_column_major(block, dtype):
    for view in layouts(block):
        codes = _native.column_major(view, dtype)
        assert codes.flags.f_contiguous and codes.dtype == dtype
        np.testing.assert_array_equal(codes, block.astype(dtype))


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint16"])
def test_row_shares_on_threads_give_the_same_ranges_and_codes(dtype, monkeypatch):
    # a tall block split into row shares on three threads (64-row aligned, a short last one)
    block = np.random.default_rng(5).integers(0, 100, (64 * 7 + 5, 9)).astype(dtype)
    block[200, 3], block[-1, 8] = 0, 127  # extremes in the second and the last share
    monkeypatch.setattr(_native.runtime, "THREAD_CELLS", 1)
    monkeypatch.setattr(_native.runtime, "cpu_count", lambda: 3)
    for view in layouts(block):
        low, high = _native.column_ranges(view)
        np.testing.assert_array_equal(low, block.min(axis=0))
        np.testing.assert_array_equal(high, block.max(axis=0))
        np.testing.assert_array_equal(_native.column_major(view, np.int8), block)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 100), st.sampled_from(["symmetric", "one off", "nan"]), st.booleans())
def test_is_symmetric(m, case, compiled):
    rng = np.random.default_rng(m)
    values = rng.random((m, m))
    values = values + values.T
    if case == "one off" and m > 1:
        values[m - 1, int(rng.integers(0, m - 1))] += 1.0
    elif case == "nan":
        values[0, 0] = np.nan  # not equal to itself, as np.array_equal has it
    padded = np.zeros((2 * m, 2 * m))
    padded[::2, ::2] = values
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_native.runtime, "COMPILED", compiled and _native.COMPILED)
        for view in (values, np.asfortranarray(values), padded[::2, ::2]):
            assert _native.is_symmetric(view) == np.array_equal(values, values.T)


def test_other_byte_orders_are_read_by_their_values():
    block = np.array([[300, 2], [-5, 7]], dtype=">i8")  # big-endian: the numpy versions
    low, high = _native.column_ranges(block)
    assert low.tolist() == [-5, 2] and high.tolist() == [300, 7]
    small = np.array([[1, 0], [2, 3]], dtype=">i4")
    assert _native.value_bits(small, 3).tolist() == [6, 9]
    np.testing.assert_array_equal(_native.column_major(small, np.int8), small)
    assert _native.is_symmetric(np.array([[0.0, 2.0], [2.0, 1.0]], dtype=">f8"))
    if _native.COMPILED:  # the kernels themselves refuse a foreign byte order
        with pytest.raises(TypeError):
            _native.runtime.kernels.column_ranges(
                block, np.empty(2, np.int64), np.empty(2, np.int64)
            )


def slow_family_counts(codes, y, weights, children, parents, cards, n_classes):
    """One dict increment per row and family: obviously right."""
    tables = []
    for child, parent in zip(children, parents, strict=True):
        table = np.zeros((n_classes, cards[parent], cards[child]))
        for r in range(len(y)):
            a, b = codes[r, child], codes[r, parent]
            if a >= 0 and b >= 0:
                table[y[r], b, a] += 1.0 if weights is None else weights[r]
        tables.append(table)
    return tables


def _problem(codes, y, weights, children, parents, cards, n_classes):
    return (
        codes,
        np.asarray(y, dtype=np.int64),
        None if weights is None else np.asarray(weights, dtype=float),
        np.asarray(children),
        np.asarray(parents),
        np.asarray(cards),
        n_classes,
    )


@st.composite
def family_problems(draw):
    """Families over codes at the edges of their states (0, card - 1, -1), columns with no
    observed state (card 0, every code missing: a chunk of partial_fit), all-missing columns
    with states, classes absent from the rows, no rows at all."""
    n, m = draw(st.integers(0, 60)), draw(st.integers(2, 7))
    n_classes = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    cards = rng.integers(1, draw(st.sampled_from([3, 6, 40])), size=m)
    empty = draw(st.lists(st.integers(0, m - 1), max_size=m, unique=True))
    cards[empty[: len(empty) // 2]] = 0  # no observed state; the others keep theirs
    uniform = (rng.random((n, m)) * np.maximum(cards, 1)).astype(np.int64)
    edges = np.where(rng.random((n, m)) < 0.5, 0, np.maximum(cards - 1, 0))
    codes = np.where(rng.random((n, m)) < draw(st.sampled_from([0.0, 0.5, 1.0])), edges, uniform)
    codes[rng.random((n, m)) < draw(st.sampled_from([0.0, 0.2]))] = -1
    codes[:, empty] = -1
    dtype = draw(st.sampled_from([np.int8, np.int16, np.int32, np.int64]))
    order = draw(st.sampled_from(["C", "F"]))
    codes = np.asarray(codes, dtype=dtype, order=order)
    y = rng.integers(0, n_classes, n)
    if draw(st.booleans()):  # the last class (its block ends the table) has no row
        y = np.minimum(y, max(n_classes - 2, 0))
    weights = rng.random(n) * 3 if draw(st.booleans()) else None
    k = draw(st.integers(1, 2 * m))
    children = rng.integers(0, m, k)
    parents = rng.integers(0, m, k)
    return _problem(codes, y, weights, children, parents, cards, n_classes)


# vote in partial_fit (issue 31): a chunk where the hub of the contact tree, the parent of
# every other feature, has no observed value, so that every family has no cell at all
HUB_MISSING = _problem(
    np.array([[-1, 0, 1], [-1, 1, 0], [-1, -1, 1]], dtype=np.int8),
    [0, 1, 1],
    None,
    [1, 2],
    [0, 0],
    [0, 2, 2],
    2,
)
# codes at the edges of their states, a class with no row, weights, one more family without cells
EDGES = _problem(
    np.array([[0, 2, -1, 0], [1, 0, -1, 3], [1, 2, -1, -1], [-1, 2, -1, 3]], dtype=np.int64),
    [0, 2, 2, 0],
    [0.5, 2.0, 1.0, 3.0],
    [1, 3, 2, 0],
    [0, 1, 3, 2],
    [2, 3, 0, 4],
    3,
)


def _both_versions(problem, threads):
    codes, y, weights, children, parents, cards, n_classes = problem
    sizes = cards[parents] * cards[children]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    results = []
    with pytest.MonkeyPatch.context() as patch:
        if threads:  # every family on its own share of the cores
            patch.setattr(_native.runtime, "THREAD_CELLS", 1)
            patch.setattr(_native.runtime, "cpu_count", lambda: 3)
        for compiled in (True, False):
            patch.setattr(
                _native.runtime, "COMPILED", compiled and _native.runtime.kernels is not None
            )
            flat = _native.count_families(
                codes, y, weights, children, parents, cards[children], offsets, n_classes
            )
            results.append(flat.reshape(n_classes, -1))
    return results, offsets


@settings(max_examples=120, deadline=None)
@given(family_problems(), st.booleans())
@example(HUB_MISSING, False)
@example(HUB_MISSING, True)
@example(EDGES, False)
@example(EDGES, True)
def test_count_families(problem, threads):
    codes, y, weights, children, parents, cards, n_classes = problem
    expected = slow_family_counts(codes, y, weights, children, parents, cards, n_classes)
    (compiled, plain), offsets = _both_versions(problem, threads)
    # the compiled kernel and its numpy twin: the same counts; weighted sums are added in
    # another order (the kernel's four lanes), so they may differ in the last bit
    if weights is None:
        np.testing.assert_array_equal(compiled, plain)
    np.testing.assert_allclose(compiled, plain, rtol=1e-14, atol=0)
    for k, want in enumerate(expected):
        got = compiled[:, offsets[k] : offsets[k + 1]].reshape(want.shape)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("compiled", [True, False])
def test_count_families_refuses_a_code_beyond_its_states(compiled, monkeypatch):
    # both versions check: a child code beyond its states, a parent code beyond its states (a
    # row of class 0, whose cell would otherwise fall in class 1's table), a class beyond
    # n_classes; a code beyond its states next to a missing one is not read
    monkeypatch.setattr(
        _native.runtime, "COMPILED", compiled and _native.runtime.kernels is not None
    )
    codes = np.array([[0, 1], [1, 5]], dtype=np.int8)  # 5 is beyond the child's 2 states
    with pytest.raises(ValueError, match="out of its range"):
        _native.count_families(codes, np.array([0, 1]), None, [1], [0], [2], [0, 4], 2)
    parent_beyond = np.array([[2, 1]], dtype=np.int64)  # the parent has 2 states
    with pytest.raises(ValueError, match="out of its range"):
        _native.count_families(parent_beyond, np.array([0]), None, [1], [0], [2], [0, 4], 2)
    with pytest.raises(ValueError, match="out of its range"):  # a class beyond n_classes
        _native.count_families(codes[:1], np.array([3]), None, [1], [0], [2], [0, 4], 2)
    beside_missing = np.array([[-1, 7]], dtype=np.int16)
    flat = _native.count_families(beside_missing, np.array([1]), None, [1], [0], [2], [0, 4], 2)
    assert not flat.any()


@settings(max_examples=80, deadline=None)
@given(family_problems(), st.integers(3, 12), st.booleans())
def test_count_families_of_many_unweighted_families_in_one_row_pass(problem, k, one_child):
    """Unweighted, three families or more: the kernel's pass over the rows that counts every
    family of a row in turn (a search's candidate parents, all of one child, or any
    families), against the numpy version and the obvious loop."""
    codes, y, _, children, parents, cards, n_classes = problem
    rng = np.random.default_rng(k)
    m = codes.shape[1]
    children, parents = rng.integers(0, m, k), rng.integers(0, m, k)
    if one_child:
        children[:] = children[0]
    problem = (codes, y, None, children, parents, cards, n_classes)
    expected = slow_family_counts(codes, y, None, children, parents, cards, n_classes)
    (compiled, plain), offsets = _both_versions(problem, False)
    np.testing.assert_array_equal(compiled, plain)
    for f, want in enumerate(expected):
        got = compiled[:, offsets[f] : offsets[f + 1]].reshape(want.shape)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("compiled", [True, False])
def test_count_families_in_one_row_pass_refuses_a_code_beyond_its_states(compiled, monkeypatch):
    monkeypatch.setattr(
        _native.runtime, "COMPILED", compiled and _native.runtime.kernels is not None
    )
    three = ([1, 1, 1], [0, 0, 0], [2, 2, 2], [0, 4, 8, 12])  # one child, as in a search

    def count(codes, y):
        return _native.count_families(codes, np.array(y), None, *three, 2)

    with pytest.raises(ValueError, match="out of its range"):  # the child's code
        count(np.array([[0, 1], [1, 5]], dtype=np.int8), [0, 1])
    with pytest.raises(ValueError, match="out of its range"):  # the parent's code
        count(np.array([[2, 1]], dtype=np.int64), [0])
    if compiled:  # a huge parent code: no product overflows into a cell in range
        with pytest.raises(ValueError, match="out of its range"):
            count(np.array([[2**62, 1]], dtype=np.int64), [0])
    with pytest.raises(ValueError, match="out of its range"):  # the class
        count(np.array([[0, 1]], dtype=np.int8), [3])
    assert not count(np.array([[-1, 7], [9, -1]], dtype=np.int16), [1, 0]).any()
    # families of two children: the row pass that reads each family's child
    mixed = ([1, 0, 1], [0, 1, 0], [3, 2, 3], [0, 6, 12, 18])  # x_0: 2 states, x_1: 3

    def count_mixed(row):
        codes = np.array([row], dtype=np.int8)
        return _native.count_families(codes, np.array([0]), None, *mixed, 1)

    with pytest.raises(ValueError, match="out of its range"):
        count_mixed([0, 3])
    with pytest.raises(ValueError, match="out of its range"):
        count_mixed([2, 1])
    assert np.flatnonzero(count_mixed([1, 2])).tolist() == [5, 11, 17]


def test_count_families_of_no_family():
    flat = _native.count_families(
        np.zeros((3, 2), np.int8), np.zeros(3, int), None, [], [], [], [0], 2
    )
    assert flat.shape == (0,)


@needs_extension
@pytest.mark.parametrize("model", ["TAN", "SimplerTAN"])
def test_models_are_identical_with_and_without_the_kernels(model, monkeypatch):
    X, y, truth = make_tree_classification(
        400, 40, n_categories=5, n_classes=3, return_network=True, random_state=3
    )
    X = np.asarray(X, dtype=np.int64)
    rng = np.random.default_rng(0)
    weights = rng.random(len(y)) * 2
    missing = X.astype(float)
    missing[rng.random(X.shape) < 0.05] = np.nan

    def fit(data, sample_weight=None):
        estimator = TAN() if model == "TAN" else SimplerTAN(truth.adjacency)
        return estimator.fit(data, y, sample_weight=sample_weight)

    for data, w in ((X, None), (np.asfortranarray(X), weights), (missing, weights)):
        compiled = fit(data, w)
        monkeypatch.setattr(_native.runtime, "COMPILED", False)
        plain = fit(data, w)
        monkeypatch.setattr(_native.runtime, "COMPILED", True)
        assert sorted(compiled.structure_.edges) == sorted(plain.structure_.edges)
        for a, b in zip(compiled.compiled_.factors, plain.compiled_.factors, strict=True):
            np.testing.assert_allclose(a.log_table_, b.log_table_, rtol=1e-12)
        np.testing.assert_allclose(
            compiled.predict_proba(data), plain.predict_proba(data), rtol=1e-10
        )


def threads_used(monkeypatch, n_items=64):
    """The distinct threads a split pass ran its shares on (each share waits a little)."""
    monkeypatch.setattr(_native.runtime, "THREAD_CELLS", 1)
    monkeypatch.setattr(_native.runtime, "cpu_count", lambda: 3)

    def share(rows):
        time.sleep(0.01)  # long enough for the workers to take shares too
        return threading.get_ident()

    return set(_native.runtime.on_shares(share, n_items, 10**9))


def test_split_passes_follow_the_thread_limit(monkeypatch):
    monkeypatch.setattr(_native.runtime, "_limit", 1)
    assert len(threads_used(monkeypatch)) == 1
    monkeypatch.setattr(_native.runtime, "_limit", 2)
    assert len(threads_used(monkeypatch)) <= 2
    monkeypatch.setattr(
        _native.runtime, "_limit", None
    )  # no limit: every CPU (3 here), not 4 at most
    monkeypatch.setattr(_native.runtime, "cpu_count", lambda: 6)
    assert _native.thread_limit() == 6


@needs_extension
def test_threadpoolctl_limits_bnclassify_threads(monkeypatch):
    from threadpoolctl import threadpool_info, threadpool_limits

    monkeypatch.setattr(
        _native.runtime, "_limit", None
    )  # restored afterwards, whatever is set below
    ours = [i for i in threadpool_info() if i["user_api"] == "bnclassify"]
    assert len(ours) == 1 and ours[0]["num_threads"] == _native.thread_limit()
    with threadpool_limits(limits=1):
        assert _native.thread_limit() == 1
        assert len(threads_used(monkeypatch)) == 1
    with threadpool_limits(limits=2, user_api="bnclassify"):
        assert _native.thread_limit() == 2
    before = _native.thread_limit()
    with threadpool_limits(limits=1, user_api="blas"):  # another library's limit
        assert _native.thread_limit() == before


def test_fit_leaves_the_garbage_collector_alone(monkeypatch):
    # a library must not change interpreter-wide state under a user's other threads
    import gc

    seen = []

    def spy_on(real):
        def spy(self, *args, **kwargs):
            seen.append(gc.isenabled())
            return real(self, *args, **kwargs)

        return spy

    for hook in ("_training_statistics", "fit_statistics"):  # inside fit and partial_fit
        monkeypatch.setattr(TAN, hook, spy_on(getattr(TAN, hook)))
    X, y = make_tree_classification(50, 4, random_state=0)
    TAN().fit(X, y)
    TAN().partial_fit(X, y, classes=np.unique(y))
    assert seen == [True, True, True] and gc.isenabled()


# -- object columns --------------------------------------------------------------------------------
def object_pool():
    """Cells of object columns: pandas' missing values, numbers that compare equal across types,
    tuples, and equal strings held by distinct objects (joined at run time, not interned)."""
    return [
        "a",
        "".join(["a"]),
        "".join(["b", "c"]),
        "".join(["b", "c"]),
        "",
        None,
        np.nan,
        float("nan"),
        pd.NA,
        pd.NaT,
        1,
        1.0,
        True,
        False,
        0,
        2.5,
        np.float64(2.5),
        (1, "a"),
        (1, "a"),
        ("x",),
    ]


def object_values(picks, step):
    """An object array of ``object_pool()`` cells, as a view taking every ``step``-th cell."""
    pool = object_pool()
    values = np.empty(len(picks) * abs(step), dtype=object)
    view = values[::step]  # a negative step reads the buffer backwards
    for k, pick in enumerate(picks):  # one cell at a time: a tuple stays one cell
        view[k] = pool[pick]
    return view


def factorized_alike(got, expected):
    (codes, uniques), (codes_pd, uniques_pd) = got, expected
    assert codes.dtype == codes_pd.dtype and codes.tolist() == codes_pd.tolist()
    assert uniques.dtype == uniques_pd.dtype
    # the same first-appearing objects (1, 1.0 and True are one value: the first one stays)
    assert [type(u) for u in uniques] == [type(u) for u in uniques_pd]
    assert uniques.tolist() == uniques_pd.tolist()


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(0, len(object_pool()) - 1), max_size=60),
    st.sampled_from([1, 2, 3, -1]),
    st.booleans(),
)
def test_factorize_objects_equals_pandas(picks, step, compiled):
    values = object_values(picks, step)
    expected = pd.factorize(values.copy())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_native.runtime, "COMPILED", compiled and _native.COMPILED)
        got = _native.factorize_objects(values)
    factorized_alike(got, expected)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, len(object_pool()) - 1), max_size=60), st.booleans())
def test_an_object_column_factorized_in_two_tables_reads_as_pandas_codes(picks, compiled):
    # the identity numbering and its map to the values are composed only when the codes are made
    values = object_values(picks, 1)
    codes_pd, uniques_pd = pd.factorize(values.copy())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_native.runtime, "COMPILED", compiled and _native.COMPILED)
        factorized = factorize_column(pd.Series(values, dtype=object))
    codes = factorized.remap(np.arange(len(factorized.uniques)), np.int64)
    assert codes.tolist() == codes_pd.tolist()
    assert factorized.uniques.tolist() == uniques_pd.tolist()


@needs_extension
def test_factorize_objects_meets_equal_values_of_distinct_objects(monkeypatch):
    monkeypatch.setattr(_native.runtime, "COMPILED", True)
    a, b = "".join(["s", "1"]), "".join(["s", "1"])
    assert a is not b
    values = np.array([a, None, b, float("nan"), float("nan"), pd.NA, a, "s0"], dtype=object)
    codes, uniques = _native.factorize_objects(values)
    assert codes.tolist() == [0, -1, 0, -1, -1, -1, 0, 1]
    assert uniques.tolist() == ["s1", "s0"]
    empty_codes, empty_uniques = _native.factorize_objects(np.empty(0, dtype=object))
    assert len(empty_codes) == 0 and len(empty_uniques) == 0


@needs_extension
@pytest.mark.parametrize("fresh_share", [0.1, 0.6, 1.0])
def test_factorize_objects_with_many_distinct_objects(fresh_share, monkeypatch):
    # past a few thousand objects, cells mostly holding their own object are left to pandas
    monkeypatch.setattr(_native.runtime, "COMPILED", True)
    rng = np.random.default_rng(2)
    shared = np.array(["s0", "s1", None, "s2"], dtype=object)
    values = shared[rng.integers(0, 4, 20_000)]
    fresh = np.flatnonzero(rng.random(len(values)) < fresh_share)
    values[fresh] = [f"s{k % 5000}" for k in fresh.tolist()]  # new objects, repeated values
    factorized_alike(_native.factorize_objects(values), pd.factorize(values.copy()))


@needs_extension
def test_factorize_objects_keeps_pandas_errors(monkeypatch):
    monkeypatch.setattr(_native.runtime, "COMPILED", True)
    with pytest.raises(TypeError, match="unhashable type: 'list'"):
        _native.factorize_objects(np.array(["a", [1], "b"], dtype=object))
    column = pd.Series(["a", [1], {"k": 2}], dtype=object, name="bad")
    with pytest.raises(TypeError, match="Column 'bad' holds list cells"):
        factorize_column(column)
    with pytest.raises(TypeError, match="1-D object array"):
        _native.runtime.kernels.factorize_objects(np.zeros(3), np.empty(3, dtype=np.int64))


@needs_extension
@pytest.mark.parametrize("model", [TAN, NaiveBayes])
def test_object_string_models_are_identical_with_and_without_the_kernels(model, monkeypatch):
    X, y = make_tree_classification(500, 8, n_categories=4, n_classes=3, random_state=5)
    rng = np.random.default_rng(1)
    # fancy indexing shares four string objects over the column; f-strings make one per cell
    labels = np.array(["s0", "s1", "s2", "s3"], dtype=object)
    columns = {f"x{i}": labels[np.asarray(X)[:, i]] for i in range(4)}
    columns.update({f"x{i}": [f"s{v}" for v in np.asarray(X)[:, i]] for i in range(4, 8)})
    frame = pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in columns.items()})
    frame = frame.mask(rng.random(frame.shape) < 0.05, None)
    compiled = model().fit(frame, y)
    monkeypatch.setattr(_native.runtime, "COMPILED", False)
    plain = model().fit(frame, y)
    assert [list(c) for c in compiled.categories_] == [list(c) for c in plain.categories_]
    np.testing.assert_array_equal(compiled.predict_proba(frame), plain.predict_proba(frame))


# -- object columns of strings, all at once --------------------------------------------------------
def object_columns_reference(column):
    """What factorize_object_columns gives a column: (sorted strings, codes), or None."""
    cells = column.tolist()
    missing = [v is None or (type(v) is float and v != v) for v in cells]
    texts = sorted({v for v in cells if type(v) is str})
    if not texts or len(texts) > _native.TEXT_MAX_CODES:
        return None
    if not all(m or type(v) is str for v, m in zip(cells, missing, strict=True)):
        return None
    return texts, [-1 if m else texts.index(v) for v, m in zip(cells, missing, strict=True)]


@st.composite
def object_blocks(draw):
    """A 2-D object array of object_pool() cells (or strings only) in C, F or strided layout."""
    n, k = draw(st.integers(0, 30)), draw(st.integers(1, 5))
    pool = object_pool()
    columns = []
    for _ in range(k):
        texts_only = draw(st.booleans())
        picks = (
            st.sampled_from([0, 1, 2, 3, 4, 5, 6, 7])
            if texts_only
            else st.integers(0, len(pool) - 1)
        )
        columns.append(draw(st.lists(picks, min_size=n, max_size=n)))
    block = np.empty((n, k), dtype=object)
    for j, picks in enumerate(columns):
        for i, pick in enumerate(picks):  # one cell at a time: a tuple stays one cell
            block[i, j] = pool[pick]
    layout = draw(st.sampled_from(["C", "F", "strided"]))
    if layout == "F":
        return np.asfortranarray(block)
    if layout == "strided":
        padded = np.empty((2 * n, 2 * k), dtype=object)
        padded[::2, ::2] = block
        return padded[::2, ::2]
    return block


@settings(max_examples=150, deadline=None)
@given(object_blocks(), st.booleans())
def test_factorize_object_columns_equals_the_reference(block, compiled):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_native.runtime, "COMPILED", compiled and _native.COMPILED)
        codes, categories = _native.factorize_object_columns(block)
    assert codes.dtype == np.int8 and codes.flags.f_contiguous and codes.shape == block.shape
    for j in range(block.shape[1]):
        expected = object_columns_reference(block[:, j])
        if expected is None:
            assert categories[j] is None
            continue
        assert categories[j].dtype == object
        assert [(type(v), v) for v in categories[j].tolist()] == [(str, v) for v in expected[0]]
        assert codes[:, j].tolist() == expected[1]


@pytest.mark.parametrize("compiled", [False, True])
def test_factorize_object_columns_gives_up_a_column_of_many_values(compiled, monkeypatch):
    if compiled and _native.runtime.kernels is None:
        pytest.skip("the compiled extension is not built")
    monkeypatch.setattr(_native.runtime, "COMPILED", compiled)
    block = np.empty((128, 2), dtype=object)
    block[:, 0] = [f"v{k}" for k in range(128)]
    block[:, 1] = ["b", "a"] * 64
    codes, categories = _native.factorize_object_columns(block)
    assert categories[0] is None
    assert categories[1].tolist() == ["a", "b"] and codes[:4, 1].tolist() == [1, 0, 1, 0]


@needs_extension
def test_object_shares_on_threads_give_the_same_codes(monkeypatch):
    rng = np.random.default_rng(4)
    words = np.array(["yes", "no", "maybe", None, "não", float("nan")], dtype=object)
    block = words[rng.integers(0, 6, (300, 7))]
    serial = _native.factorize_object_columns(block)
    monkeypatch.setattr(_native.runtime, "THREAD_CELLS", 1)
    monkeypatch.setattr(_native.runtime, "cpu_count", lambda: 3)
    threaded = _native.factorize_object_columns(block)
    np.testing.assert_array_equal(serial[0], threaded[0])
    assert [c.tolist() for c in serial[1]] == [c.tolist() for c in threaded[1]]


@needs_extension
def test_object_kernels_refuse_what_they_cannot_read():
    values = np.array([["a"], ["b"]], dtype=object)
    with pytest.raises(TypeError, match="object array"):
        _native.runtime.kernels.factorize_object_columns(
            np.zeros((2, 1)), np.empty((2, 1), np.int8)
        )
    with pytest.raises(ValueError, match="out must be int8"):
        _native.runtime.kernels.factorize_object_columns(values, np.empty((2, 1), np.int16))
    with pytest.raises(ValueError, match="out must be int8"):
        _native.runtime.kernels.factorize_object_columns(values, np.empty((3, 1), np.int8))
    with pytest.raises(ValueError, match="128 per column"):
        _native.runtime.kernels.remap_codes(np.zeros((2, 1), np.int8), np.zeros((1, 64), np.int8))


@settings(max_examples=60, deadline=None)
@given(object_blocks())
def test_object_frames_learned_together_equal_columns_learned_alone(block):
    frame = pd.DataFrame(block, columns=[f"c{j}" for j in range(block.shape[1])], dtype=object)
    alone = []
    for _, column in frame.items():
        try:
            alone.append(encoding._learn_and_encode_column(column))
        except TypeError:  # an unhashable cell: the frame names it too
            with pytest.raises(TypeError, match="holds"):
                learn_and_encode_frame(frame)
            return
    categories, codes = learn_and_encode_frame(frame)
    for j, (expected, expected_codes) in enumerate(alone):
        assert categories[j].dtype == expected.dtype
        assert [(type(v), v) for v in categories[j].tolist()] == [
            (type(v), v) for v in expected.tolist()
        ]
        np.testing.assert_array_equal(codes[:, j], expected_codes)


# -- Arrow text columns ----------------------------------------------------------------------------
# short, long (past the 8 bytes compared as one word), sharing prefixes, empty, beyond the BMP
text_values = st.one_of(
    st.sampled_from(["a", "b", "ab", "", "a\x00", "é", "ü", "z" * 9, "z" * 9 + "a", "\U0001f600"]),
    st.text(max_size=12),
    st.none(),
)


@st.composite
def text_columns(draw):
    """A text column as Arrow chunks: string or large_string, maybe sliced (an offset)."""
    cells = draw(st.lists(text_values, min_size=1, max_size=50))
    kind = draw(st.sampled_from([pa.string(), pa.large_string()]))
    cut = draw(st.integers(0, len(cells)))
    lead = draw(st.lists(text_values, max_size=3))  # cells before a sliced chunk's offset
    first = pa.array(lead + cells[:cut], type=kind).slice(len(lead))
    return cells, pa.chunked_array([first, pa.array(cells[cut:], type=kind)], type=kind)


def text_reference(cells):
    categories = sorted({v for v in cells if v is not None})
    position = {v: k for k, v in enumerate(categories)}
    return categories, [-1 if v is None else position[v] for v in cells]


@settings(max_examples=150, deadline=None)
@given(text_columns(), st.booleans())
def test_factorize_texts_equals_the_reference(column, compiled):
    cells, array = column
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_native.runtime, "COMPILED", compiled and _native.COMPILED)
        codes, categories = _native.factorize_texts([array], len(cells))
    expected_categories, expected_codes = text_reference(cells)
    assert codes.dtype == np.int8 and codes.flags.f_contiguous
    assert categories[0].dtype == object and categories[0].tolist() == expected_categories
    assert codes[:, 0].tolist() == expected_codes


@pytest.mark.parametrize("compiled", [False, True])
def test_factorize_texts_gives_up_a_column_of_many_values(compiled, monkeypatch):
    if compiled and _native.runtime.kernels is None:
        pytest.skip("the compiled extension is not built")
    monkeypatch.setattr(_native.runtime, "COMPILED", compiled)
    many = pa.chunked_array([[f"v{k}" for k in range(_native.TEXT_MAX_CODES + 1)]])
    few = pa.chunked_array([["b", "a"] * 64])
    codes, categories = _native.factorize_texts([many, few], 128)
    assert categories[0] is None
    assert categories[1].tolist() == ["a", "b"] and codes[:4, 1].tolist() == [1, 0, 1, 0]


@needs_extension
def test_text_shares_on_threads_give_the_same_codes(monkeypatch):
    rng = np.random.default_rng(3)
    words = np.array(["yes", "no", "maybe", None, "não"], dtype=object)
    arrays = [pa.chunked_array([words[rng.integers(0, 5, 300)].tolist()]) for _ in range(7)]
    serial = _native.factorize_texts(arrays, 300)
    monkeypatch.setattr(_native.runtime, "THREAD_CELLS", 1)
    monkeypatch.setattr(_native.runtime, "cpu_count", lambda: 3)
    threaded = _native.factorize_texts(arrays, 300)
    np.testing.assert_array_equal(serial[0], threaded[0])
    assert [c.tolist() for c in serial[1]] == [c.tolist() for c in threaded[1]]


@needs_extension
def test_factorize_texts_refuses_what_it_cannot_read(monkeypatch):
    monkeypatch.setattr(_native.runtime, "COMPILED", True)
    chunk = pa.array(["a", "b"])
    spec = (*chunk.buffers(), 0, 2, False)
    out = np.empty((2, 1), dtype=np.int8, order="F")
    with pytest.raises(ValueError, match="out must be int8"):
        _native.runtime.kernels.factorize_texts([(spec,)], out.astype(np.int16), 0)
    with pytest.raises(ValueError, match="length differs"):
        _native.runtime.kernels.factorize_texts([(spec,)], np.empty((3, 1), np.int8), 0)
    with pytest.raises(ValueError, match="too short"):
        _native.runtime.kernels.factorize_texts([((*chunk.buffers(), 1, 2, False),)], out, 0)
    # offsets beyond the data, and bytes that are not UTF-8: the column is given up
    bad_offsets = pa.py_buffer(np.array([0, 1, 99], dtype=np.int32).tobytes())
    latin = pa.py_buffer("aé".encode("latin-1"))
    offsets = pa.py_buffer(np.array([0, 1, 2], dtype=np.int32).tobytes())
    found = _native.runtime.kernels.factorize_texts(
        [
            ((None, bad_offsets, chunk.buffers()[2], 0, 2, False),),
            ((None, offsets, latin, 0, 2, False),),
        ],
        np.empty((2, 2), dtype=np.int8, order="F"),
        0,
    )
    assert found == [None, None]


@needs_extension
@settings(max_examples=30, deadline=None)
@given(
    batch=st.integers(1, 4),
    m=st.integers(2, 12),
    spread=st.sampled_from([1.0, 50.0, 800.0]),
    absent=st.floats(0.0, 0.6),
    seed=st.integers(0, 2**32 - 1),
)
@example(batch=1, m=2, spread=1.0, absent=0.0, seed=0)
def test_tree_pivots_equal_the_numpy_version(batch, m, spread, absent, seed):
    # the column-scaled weights log_tree_sum eliminates: peaked (pivots that underflow below
    # the threshold, which divide as 1 in both versions) and with absent edges (zeros)
    rng = np.random.default_rng(seed)
    log_w = rng.normal(scale=spread, size=(batch, m, m))
    log_w = (log_w + np.swapaxes(log_w, 1, 2)) / 2
    log_w[rng.random(log_w.shape) < absent] = -np.inf
    log_w[:, np.arange(m), np.arange(m)] = -np.inf
    top = log_w.max(axis=1, keepdims=True)
    scaled = np.exp(log_w - np.where(np.isfinite(top), top, 0.0))
    before = scaled.copy()
    compiled = _native.tree_pivots(scaled, 1e-200)
    expected = _native.trees._numpy_tree_pivots(scaled.copy(), 1e-200, np.empty((batch, m - 1)))
    np.testing.assert_array_equal(scaled, before)  # the input is left as it was
    np.testing.assert_allclose(compiled, expected, rtol=1e-12, atol=0)


def test_tree_pivots_give_the_matrix_tree_count():
    # K_m has m^(m-2) spanning trees: the product of the pivots of its unit weights
    for m in (2, 3, 5, 9):
        pivots = _native.tree_pivots((np.ones((m, m)) - np.eye(m))[None], 1e-200)
        assert np.prod(pivots) == pytest.approx(m ** (m - 2), rel=1e-12)


@st.composite
def attribute_tables(draw):
    """Codes by column (some missing, some columns with 0 or 1 state) and attributes with
    their parents, -1 padded."""
    k, n, D = draw(st.integers(1, 5)), draw(st.integers(1, 30)), draw(st.integers(1, 4))
    cards = draw(st.lists(st.integers(0, 4), min_size=k, max_size=k))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    codes = np.array([rng.integers(-1, max(r, 1), n) if r else np.full(n, -1) for r in cards])
    attributes = np.full((draw(st.integers(1, 4)), D), -1)
    for u in range(len(attributes)):
        columns = draw(st.permutations(range(k)))[: draw(st.integers(1, D))]
        attributes[u, : len(columns)] = columns
    return codes, np.array(cards), attributes


def slow_family_cells(codes, attributes):
    """Per (attribute, depth): the tuples (parents' values) and (them, the child's), numbered by
    first appearance after the earlier (attribute, depth)s' -- a dictionary per depth."""
    m, D = attributes.shape
    n = codes.shape[1]
    family, parent = np.full((m, D, n), -1), np.full((m, D, n), -1)
    starts = [0, 0]
    for u in range(m):
        child, ranked = attributes[u, 0], [p for p in attributes[u, 1:] if p >= 0]
        for d in range(len(ranked) + 1):
            numbers = [{}, {}]
            for t in range(n):
                prefix = tuple(codes[p, t] for p in ranked[:d])
                if codes[child, t] < 0 or min(prefix, default=0) < 0:
                    continue
                for out, key, seen in ((family, (*prefix, codes[child, t]), numbers[0]),
                                       (parent, prefix, numbers[1])):  # fmt: skip
                    out[u, d, t] = seen.setdefault(key, len(seen)) + starts[out is parent]
            starts = [starts[0] + len(numbers[0]), starts[1] + len(numbers[1])]
    return family, parent


@given(attribute_tables(), st.booleans())
@settings(max_examples=50, deadline=None)
def test_family_cells(table, compiled):
    codes, cards, attributes = table
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_native.runtime, "COMPILED", compiled and _native.runtime.kernels is not None)
        family, parent, sizes = _native.family_cells(codes, cards, attributes)
    expected_family, expected_parent = slow_family_cells(codes, attributes)
    np.testing.assert_array_equal(family, expected_family)
    np.testing.assert_array_equal(parent, expected_parent)
    # sizes: the number of configurations of each (attribute, depth), consistent with the cells
    assert sizes[0].sum() == family.max(initial=-1) + 1
    assert sizes[1].sum() == parent.max(initial=-1) + 1


@given(attribute_tables(), st.booleans(), st.integers(1, 3))
@settings(max_examples=50, deadline=None)
def test_lone_families_and_cell_counts(table, compiled, n_classes):
    codes, cards, attributes = table
    n = codes.shape[1]
    rng = np.random.default_rng(n)
    weights = rng.choice([0.5, 1.0, 2.0], n)
    y = rng.integers(0, n_classes, n)
    family, parent, sizes = _native.family_cells(codes, cards, attributes)
    before_family, before_parent = family.copy(), parent.copy()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_native.runtime, "COMPILED", compiled and _native.runtime.kernels is not None)
        n_families, n_parents = _native.lone_families(
            family, parent, weights, sizes[0].sum(), sizes[1].sum()
        )
        counts = _native.cell_counts(family, y, weights, n_families, n_classes)
        parent_counts = _native.cell_counts(parent, y, weights, n_parents, n_classes)
    # the slow way: a family below depth 0 is dropped when it is one row's, of weight <= 1
    rows = {}
    for f in before_family[before_family >= 0]:
        rows[f] = rows.get(f, 0) + 1
    m, D, _ = family.shape
    for u, d, i in np.ndindex(m, D, n):
        f = before_family[u, d, i]
        dropped = f >= 0 and d > 0 and rows[f] == 1 and weights[i] <= 1.0
        assert (family[u, d, i] < 0) == (f < 0 or dropped)
    # the numbering keeps the order and is onto; equal old numbers give equal new ones
    for new, old, size in ((family, before_family, n_families), (parent, before_parent, n_parents)):
        kept = new >= 0
        assert sorted(set(new[kept].tolist())) == list(range(size))
        pairs = sorted(set(zip(old[kept].tolist(), new[kept].tolist(), strict=True)))
        assert [b for _, b in pairs] == list(range(size))
    # every kept family keeps its parent configuration; the counts are bincounts of the cells
    assert (parent[family >= 0] >= 0).all()
    for cells, got, size in ((family, counts, n_families), (parent, parent_counts, n_parents)):
        expected = np.zeros((size, n_classes))
        for u, d, i in np.ndindex(m, D, n):
            if cells[u, d, i] >= 0:
                expected[cells[u, d, i], y[i]] += weights[i]
        np.testing.assert_array_equal(got, expected)


def slow_pair_information(rows, y, weights, i, j):
    """The plug-in I(X_i; X_j | C) on the rows observing both, cell by cell, and their weight."""
    joint = {}
    for t in range(len(y)):
        if rows[t, i] >= 0 and rows[t, j] >= 0:
            key = (y[t], rows[t, i], rows[t, j])
            joint[key] = joint.get(key, 0.0) + weights[t]
    total = sum(joint.values())

    def margin(pick):
        out = {}
        for key, v in joint.items():
            out[pick(key)] = out.get(pick(key), 0.0) + v
        return out

    n_c, n_ca = margin(lambda k: k[0]), margin(lambda k: k[:2])
    n_cb = margin(lambda k: (k[0], k[2]))
    value = sum(
        v / total * math.log(v * n_c[c] / (n_ca[c, a] * n_cb[c, b]))
        for (c, a, b), v in joint.items()
    )
    return max(value, 0.0) if total else 0.0, total


@given(attribute_tables(), st.integers(1, 3), st.booleans(), st.booleans())
@settings(max_examples=50, deadline=None)
def test_pair_information(table, n_classes, weighted, compiled):
    codes, cards, _ = table
    rows = codes.T
    rng = np.random.default_rng(len(rows))
    y = rng.integers(0, n_classes, len(rows))
    weights = rng.uniform(0.5, 3.0, len(rows)) if weighted else None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_native.runtime, "COMPILED", compiled and _native.runtime.kernels is not None)
        cmi, both = _native.pair_information(rows, y, weights, cards, n_classes)
    assert np.array_equal(cmi, cmi.T) and np.array_equal(both, both.T)
    w = np.ones(len(y)) if weights is None else weights
    for i in range(len(cards)):
        for j in range(len(cards)):
            expected, observed = slow_pair_information(rows, y, w, i, j)
            assert both[i, j] == pytest.approx(observed, rel=1e-12)
            if i != j:
                assert cmi[i, j] == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert (cmi[:, cards <= 1] == 0).all()  # a column with one state tells nothing, exactly


@given(attribute_tables(), st.integers(1, 3), st.booleans(), st.booleans(), st.data())
@settings(max_examples=30, deadline=None)
def test_pair_information_known_pairs(table, n_classes, weighted, compiled, data):
    """Pairs among ``known`` columns are copied, not computed; the others are those of the
    whole computation, to the last bit (ESKDB's members share their categorical pairs)."""
    codes, cards, _ = table
    rows = codes.T
    m = len(cards)
    rng = np.random.default_rng(len(rows))
    y = rng.integers(0, n_classes, len(rows))
    weights = rng.uniform(0.5, 3.0, len(rows)) if weighted else None
    known = sorted(data.draw(st.sets(st.integers(0, m - 1), max_size=m)))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_native.runtime, "COMPILED", compiled and _native.runtime.kernels is not None)
        cmi, both = _native.pair_information(rows, y, weights, cards, n_classes)
        sub_cmi, sub_rows = _native.pair_information(
            rows[:, known], y, weights, cards[known], n_classes
        )
        again = _native.pair_information(
            rows, y, weights, cards, n_classes, known=(known, sub_cmi, sub_rows)
        )
        # sentinels in place of the known pairs come back as they were: not computed
        marked = _native.pair_information(
            rows, y, weights, cards, n_classes,
            known=(known, np.full((len(known),) * 2, -7.0), np.full((len(known),) * 2, -7.0)),
        )  # fmt: skip
    np.testing.assert_array_equal(again[0], cmi)
    np.testing.assert_array_equal(again[1], both)
    off = ~np.eye(len(known), dtype=bool)
    assert (marked[0][np.ix_(known, known)][off] == -7.0).all()
    others = np.setdiff1d(np.arange(m), known)
    np.testing.assert_array_equal(marked[0][others], cmi[others])


@given(
    n=st.integers(1, 3),
    n_classes=st.integers(1, 3),
    m=st.integers(2, 11),
    spread=st.sampled_from([1.0, 50.0, 800.0]),
    absent=st.floats(0.0, 0.6),
    seed=st.integers(0, 2**32 - 1),
)
@example(n=1, n_classes=1, m=2, spread=1.0, absent=0.0, seed=0)
def test_tree_log_sums_equal_the_numpy_version(n, n_classes, m, spread, absent, seed):
    # the fused build and two-pivot elimination against numpy's stack and one-pivot steps:
    # odd and even m (the last pass eliminates one pivot or two), peaked weights whose pivots
    # underflow (flagged in both), absent edges, a fill
    rng = np.random.default_rng(seed)
    log_w = rng.normal(scale=spread, size=(m, m))
    log_w = (log_w + log_w.T) / 2
    log_w[rng.random(log_w.shape) < absent] = -np.inf
    np.fill_diagonal(log_w, -np.inf)
    top = log_w.max(axis=0, keepdims=True)
    base = np.exp(log_w - np.where(np.isfinite(top), top, 0.0))
    fill = np.triu(rng.random((m, m)) * (rng.random((m, m)) < 0.5), 1)
    fill = fill + fill.T
    n_states = 4
    ratio = np.exp(rng.normal(size=(n_classes, n_states, n_states)))
    ratio = (ratio + np.swapaxes(ratio, 1, 2)) / 2
    cells = rng.integers(0, n_states, size=(n, n_classes, m))
    compiled = _native.tree_log_sums(cells, ratio, base, fill, 1e-200)
    expected = _numpy_tree_log_sums(cells, ratio, base, fill)
    np.testing.assert_array_equal(compiled[1], expected[1])
    ok = ~expected[1]  # a flagged matrix's sum is redone by the caller
    np.testing.assert_allclose(compiled[0][ok], expected[0][ok], rtol=1e-12, atol=1e-12)


def _numpy_tree_log_sums(cells, ratio, base, fill, **how):
    """The numpy twin of ``_native.tree_log_sums`` (smallest pivot 1e-200)."""
    n, n_classes = len(cells), len(ratio)
    out, low = np.empty((n, n_classes)), np.zeros((n, n_classes), "u1")
    return _native.trees._numpy_tree_log_sums(cells, ratio, base, fill, 1e-200, out, low, **how)


def _symmetric_scaled_graphs(rng, m, spread, absent, bridge):
    """Column-scaled symmetric weights (base, fill) and their scale ratios t_k / t_j: log
    weights clipped to the spread the symmetric elimination accepts; ``bridge``: the two
    halves of the nodes joined only by edges e^-60 times the rest (a near-singular Laplacian)."""
    half = SYMMETRIC_SPREAD / 2
    log_w = np.clip(rng.normal(scale=spread, size=(m, m)), -half, half)
    log_w = (log_w + log_w.T) / 2
    log_w[np.triu(rng.random((m, m)) < absent, 1)] = -np.inf
    log_w = np.minimum(log_w, log_w.T)  # absent on both sides
    if bridge:
        side = np.arange(m) < m // 2
        log_w[side[:, None] != side[None, :]] -= 60.0
    np.fill_diagonal(log_w, -np.inf)
    top = log_w.max(axis=0)
    top = np.where(np.isfinite(top), top, 0.0)
    fill = np.triu(rng.random((m, m)) * (rng.random((m, m)) < 0.5), 1)
    fill = (fill + fill.T) * np.exp(-top)[None, :]
    return np.exp(log_w - top), fill, np.exp(top[:, None] - top[None, :])


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 3),
    n_classes=st.integers(1, 3),
    m=st.integers(2, 13),
    spread=st.sampled_from([1.0, 30.0, 300.0]),
    absent=st.floats(0.0, 0.6),
    bridge=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
@example(n=1, n_classes=1, m=2, spread=1.0, absent=0.0, bridge=False, seed=0)
@example(n=2, n_classes=2, m=13, spread=300.0, absent=0.0, bridge=True, seed=1)
def test_symmetric_tree_log_sums_equal_the_full_elimination(
    n, n_classes, m, spread, absent, bridge, seed
):
    # one triangle eliminated (row k rebuilt from column k) against the elimination of the
    # whole matrix, and against its own numpy twin: m around the panels of four (2 .. 13),
    # tiny weights (e^-200 next to 1), absent edges, a near-singular bridge, a fill
    rng = np.random.default_rng(seed)
    base, fill, scale = _symmetric_scaled_graphs(rng, m, spread, absent, bridge)
    n_states = 4
    ratio = np.exp(rng.normal(size=(n_classes, n_states, n_states)))
    ratio = (ratio + np.swapaxes(ratio, 1, 2)) / 2
    cells = rng.integers(0, n_states, size=(n, n_classes, m))
    got = _native.tree_log_sums(cells, ratio, base, fill, 1e-200, scale=scale)
    full = _native.tree_log_sums(cells, ratio, base, fill, 1e-200)
    twin = _numpy_tree_log_sums(cells, ratio, base, fill, scale=scale)
    for expected in (full, twin):
        np.testing.assert_array_equal(got[1], expected[1])
        ok = ~expected[1]
        np.testing.assert_allclose(got[0][ok], expected[0][ok], rtol=1e-12, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 3),
    n_classes=st.integers(1, 3),
    shared=st.booleans(),
    m=st.integers(2, 13),
    spread=st.sampled_from([1.0, 300.0, 3e3, 3e4]),
    absent=st.floats(0.0, 0.4),
    seed=st.integers(0, 2**32 - 1),
)
@example(n=1, n_classes=1, shared=False, m=2, spread=1.0, absent=0.0, seed=0)
@example(n=2, n_classes=3, shared=True, m=13, spread=3e4, absent=0.0, seed=1)
def test_pair_scaled_tree_log_sums_equal_the_numpy_version(
    n, n_classes, shared, m, spread, absent, seed
):
    # the compiled one-triangle elimination scaled by pairs (panels of four) against its numpy
    # twin (whole matrices, one step at a time): m around the panels, weights spread far past
    # the float range, absent edges, a fill, cells shared by every class ((n, 1, m))
    rng = np.random.default_rng(seed)
    log_w = np.triu(rng.normal(scale=spread, size=(m, m)), 1)
    log_w[np.triu(rng.random((m, m)) < absent, 1)] = -np.inf
    log_w[np.arange(m - 1), np.arange(1, m)] = rng.normal(scale=spread, size=m - 1)  # a path
    log_w = log_w + log_w.T
    np.fill_diagonal(log_w, -np.inf)
    beta, mu, factors, _ = spanning_trees._pair_factors(log_w)
    base = np.exp(log_w - np.where(np.isfinite(beta), beta, 0.0))
    np.fill_diagonal(base, 0.0)
    fill = np.triu(rng.random((m, m)) * (rng.random((m, m)) < 0.5), 1)
    fill = fill + fill.T
    n_states = 4
    ratio = np.exp(rng.normal(size=(n_classes, n_states, n_states)))
    ratio = (ratio + np.swapaxes(ratio, 1, 2)) / 2
    cells = rng.integers(0, n_states, size=(n, 1 if shared else n_classes, m))
    got = _native.tree_log_sums(cells, ratio, base, fill, 1e-200, pairs=(mu, factors))
    twin = _numpy_tree_log_sums(cells, ratio, base, fill, pairs=(mu, factors))
    assert not got[1].any() and not twin[1].any()  # no pivot underflows at any spread
    np.testing.assert_allclose(got[0], twin[0], rtol=1e-12, atol=1e-12)


def test_tree_log_sums_refuse_scale_and_pairs_together():
    m = 3
    with pytest.raises(ValueError, match="scale or pairs"):
        _native.tree_log_sums(
            np.zeros((1, 1, m), np.int64),
            np.ones((1, 1, 1)),
            np.ones((m, m)),
            np.zeros((m, m)),
            1e-200,
            scale=np.ones((m, m)),
            pairs=(np.ones((m, m)), np.ones((m, m, m))),
        )


@pytest.mark.parametrize("scaling", ["columns", "pairs"])
def test_symmetric_tree_log_sums_count_the_trees_of_complete_graphs(scaling):
    # K_m has m^(m-2) spanning trees; every pivot of the one-triangle elimination positive
    # (scaled by pairs: every pair's bottleneck and every factor is 1)
    for m in (2, 3, 4, 5, 8, 9, 14):
        k = np.ones((m, m)) - np.eye(m)
        if scaling == "columns":
            how = {"scale": np.ones((m, m))}
        else:
            how = {"pairs": spanning_trees._pair_factors(np.where(k > 0, 0.0, -np.inf))[1:3]}
        sums, low = _native.tree_log_sums(
            np.zeros((1, 1, m), np.int64), np.ones((1, 1, 1)), k, np.zeros((m, m)), 1e-200, **how
        )
        assert not low.any()
        assert np.exp(sums[0, 0]) == pytest.approx(m ** (m - 2), rel=1e-12)


def test_tree_log_sums_leave_subnormal_numbers_to_the_caller():
    # the compiled loop reads and writes subnormals as 0 (speed); the calling thread's
    # floating-point mode must be as it was afterwards: numpy still computes them
    m = 5
    _native.tree_log_sums(
        np.zeros((2, 1, m), np.int64),
        np.ones((1, 1, 1)),
        np.ones((m, m)) - np.eye(m),
        np.zeros((m, m)),
        1e-200,
    )
    tiny = np.array([5e-324, 2.0])
    assert tiny[0] > 0 and (tiny * 1.0)[0] == 5e-324
    assert np.float64(1e-300) * np.float64(1e-10) > 0


def _slow_kruskal(rows, columns, parent, limit):
    """Union-find over the edges in order, on sets: the edges taken, the nodes' components."""
    components = {v: {v} for v in range(len(parent))}
    taken = []
    for e, (i, j) in enumerate(zip(rows, columns, strict=True)):
        if len(taken) == limit:
            break
        if components[i] is not components[j]:
            joined = components[i] | components[j]
            for v in joined:
                components[v] = joined
            taken.append(e)
    return taken, components


@settings(max_examples=80, deadline=None)
@given(
    m=st.integers(1, 30),
    n_edges=st.integers(0, 120),
    limit=st.integers(0, 40),
    blocks=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
)
def test_spanning_edges_is_kruskals_union_find(m, n_edges, limit, blocks, seed):
    # handed over a block at a time, as tree_from_weights does: the same edges as one pass of a
    # set-based union-find, compiled and numpy alike, and the forest joins the same nodes
    rng = np.random.default_rng(seed)
    rows, columns = rng.integers(0, m, n_edges), rng.integers(0, m, n_edges)
    expected, components = _slow_kruskal(rows.tolist(), columns.tolist(), np.arange(m), limit)
    cuts = np.sort(rng.integers(0, n_edges + 1, blocks - 1))
    for compiled in (True, False):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(_native.runtime, "COMPILED", compiled and _native.COMPILED)
            parent, taken, left = np.arange(m, dtype=np.int64), [], limit
            for part in np.split(np.arange(n_edges), cuts):
                got = _native.spanning_edges(rows[part], columns[part], parent, left)
                taken += part[got].tolist()
                left -= len(got)
            assert taken == expected
            root = [int(v) for v in parent]
            for v in range(m):
                while root[v] != parent[root[v]]:
                    root[v] = int(parent[root[v]])
            assert all(
                (root[a] == root[b]) == (components[a] is components[b])
                for a in range(m)
                for b in range(m)
            )


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_open_pairs_are_the_open_upper_pairs_above_the_threshold(compiled, layout):
    rng = np.random.default_rng(5)
    values = rng.integers(0, 4, (9, 9)).astype(float)
    root = rng.integers(0, 3, 9)
    expected = [
        i * 9 + j
        for i in range(9)
        for j in range(i + 1, 9)
        if values[i, j] > 1.0 and root[i] != root[j]
    ]
    view = {"C": values, "F": np.asfortranarray(values), "strided": np.repeat(values, 2, 1)[:, ::2]}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_native.runtime, "COMPILED", compiled and _native.COMPILED)
        assert _native.open_pairs(view[layout], 1.0, root).tolist() == expected
        every = _native.open_pairs(view[layout], -np.inf, np.arange(9))
        assert every.tolist() == [i * 9 + j for i in range(9) for j in range(i + 1, 9)]


@needs_extension
def test_the_tree_kernels_refuse_what_they_cannot_read():
    kernels, out = _native.runtime.kernels, np.empty(3, np.int64)
    with pytest.raises(ValueError, match="out of its range"):
        kernels.spanning_edges(np.array([0, 5]), np.array([1, 0]), np.arange(3), out, 2)
    with pytest.raises(TypeError, match="int64"):
        kernels.spanning_edges(np.array([0.0]), np.array([1]), np.arange(3), out, 1)
    with pytest.raises(TypeError, match="square float64"):
        kernels.open_pairs(np.ones((3, 3), np.float32), 0.0, np.arange(3), np.empty(3, np.int64))
    with pytest.raises(ValueError, match="root out of its range"):
        kernels.open_pairs(np.ones((3, 3)), 0.0, np.array([0, 1, 7]), np.empty(3, np.int64))


@needs_extension
@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 70),
    cards=st.lists(st.integers(1, 20), min_size=1, max_size=6),
    n_classes=st.integers(1, 6),
    missing=st.sampled_from([0.0, 0.3]),
    left_out=st.sampled_from([0.0, 0.2]),
    min_frequency=st.sampled_from([0, 1, 5]),
    marginalize=st.booleans(),
    impossible=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_aode_block_equals_the_numpy_version(
    n, cards, n_classes, missing, left_out, min_frequency, marginalize, impossible, seed
):
    # AODE's kernel against its numpy twin (the one-hot product): missing super-parents summed
    # out or left out, cells left out, rare categories, super-parents of weight 0, categories
    # that are no child, -inf cells (alpha=0), super-parents of more categories than the numpy
    # version's full product, 1-6 classes (padded to 4 or 8), a running sum already started
    rng = np.random.default_rng(seed)
    cards = np.array(cards)
    m = len(cards)
    offsets = np.concatenate([[0], np.cumsum(cards)])
    codes = rng.integers(0, cards, size=(n, m))
    codes[rng.random((n, m)) < missing] = -1
    codes[rng.random((n, m)) < left_out] = -2
    informative = np.repeat(cards > 1, cards)
    used = np.flatnonzero(informative & (rng.random(offsets[-1]) < 0.9))
    child_of = np.full(offsets[-1], -1)
    child_of[used] = np.arange(len(used))
    sp_column = rng.permutation(m)[: rng.integers(1, m + 1)]
    sp_weight = rng.random(len(sp_column)) * (rng.random(len(sp_column)) > 0.2)
    frequency = rng.integers(0, 10, offsets[-1]).astype(float)
    n_states = int(cards[sp_column].sum())
    table = rng.normal(size=(n_states, len(used), n_classes))
    if impossible:
        table[rng.random(table.shape) < 0.05] = -np.inf
    sp_table = rng.normal(size=(n_states, n_classes)) - 3.0
    top = np.where(rng.random((n, n_classes)) < 0.5, rng.normal(size=(n, n_classes)), -np.inf)
    total = np.where(np.isfinite(top), rng.random((n, n_classes)) + 0.5, 0.0)
    n_eligible = rng.random(n)
    args = (offsets, child_of, sp_column, sp_weight, frequency, min_frequency, marginalize)
    args = (*args, table, sp_table)
    got = [top.copy(), total.copy(), n_eligible.copy()]
    column_major = np.asfortranarray(codes.astype(np.int8))  # as the encoder gives them
    _native.aode_block(column_major, *args, *got)
    twin = [top.copy(), total.copy(), n_eligible.copy()]
    _native.averaging._numpy_aode_block(codes, *args, *twin)
    with np.errstate(divide="ignore"):
        joint, expected = (t + np.log(s) for t, s, _ in (got, twin))
    np.testing.assert_array_equal(np.isneginf(joint), np.isneginf(expected))
    np.testing.assert_allclose(joint, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got[2], twin[2], rtol=1e-14)


@needs_extension
@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 150),
    cards=st.lists(st.integers(2, 9), min_size=1, max_size=11),
    n_classes=st.integers(1, 6),
    missing=st.sampled_from([0.0, 0.3]),
    left_out=st.sampled_from([0.0, 0.2]),
    min_frequency=st.sampled_from([0, 5]),
    marginalize=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_aode_block_in_its_symmetric_form_equals_the_numpy_version(
    n, cards, n_classes, missing, left_out, min_frequency, marginalize, seed
):
    # every column a child and a super-parent: the kernel reads each pair of a row's categories
    # once from the symmetric pair table (in fixed point: integer sums) and adds the totals of
    # the children the row holds; the numpy twin reads the CPT built from the same parts (1 to
    # 11 columns: groups of four columns and those left over, missing and left-out cells, a
    # missing super-parent summed out from the pair table too)
    rng = np.random.default_rng(seed)
    cards = np.array(cards)
    m, R = len(cards), int(cards.sum())
    offsets = np.concatenate([[0], np.cumsum(cards)])
    column = np.repeat(np.arange(m), cards)
    codes = rng.integers(0, cards, size=(n, m))
    codes[rng.random((n, m)) < missing] = -1
    codes[rng.random((n, m)) < left_out] = -2
    pair = rng.normal(size=(R, R, n_classes)) - 2.0
    pair = pair + pair.transpose(1, 0, 2)  # symmetric
    pair, unscale = _native.averaging.fixed_point(pair, m)
    log_totals = rng.normal(size=(R, m, n_classes)) + 3.0
    log_totals[np.arange(R), column] = 0.0  # a super-parent is not its own child
    table = pair * unscale - log_totals[:, column]
    table[column[:, None] == column[None, :]] = 0.0
    sp_table = rng.normal(size=(R, n_classes)) - 3.0
    sp_weight = rng.random(m) * (rng.random(m) > 0.2)
    frequency = rng.integers(0, 10, R).astype(float)
    args = (offsets, np.arange(R), np.arange(m), sp_weight, frequency, min_frequency, marginalize)
    top, total = np.full((n, n_classes), -np.inf), np.zeros((n, n_classes))
    got = [top.copy(), total.copy(), np.zeros(n)]
    column_major = np.asfortranarray(codes.astype(np.int8))
    symmetric = {"pair": pair, "log_totals": log_totals, "unscale": unscale}
    _native.aode_block(column_major, *args, None, sp_table, *got, **symmetric)
    twin = [top.copy(), total.copy(), np.zeros(n)]
    _native.averaging._numpy_aode_block(codes, *args, table, sp_table, *twin)
    # and the wrapper's own numpy path, which builds the CPT from the same parts
    wrapper = [top.copy(), total.copy(), np.zeros(n)]
    compiled_and_numpy(
        lambda: (
            _native.aode_block(codes, *args, None, sp_table, *wrapper, **symmetric)
            if not _native.runtime.COMPILED
            else None
        )
    )
    for a, b in zip(wrapper, twin, strict=True):
        np.testing.assert_array_equal(a, b)
    with np.errstate(divide="ignore"):
        joint, expected = (t + np.log(s) for t, s, _ in (got, twin))
    np.testing.assert_array_equal(np.isneginf(joint), np.isneginf(expected))
    np.testing.assert_allclose(joint, expected, rtol=1e-12, atol=1e-11)
    np.testing.assert_allclose(got[2], twin[2], rtol=1e-14)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(0, 40),
    n_classes=st.integers(1, 9),
    spread=st.sampled_from([1.0, 50.0, 800.0]),
    seed=st.integers(0, 2**32 - 1),
)
def test_aode_proba_equals_the_numpy_version_and_the_normalised_joint(n, n_classes, spread, seed):
    # P(c | x) from aode_block's running log-sum-exp: compiled (four classes a vector, padded),
    # the numpy twin, and exp of the log-sum-exp normalised joint top + log total agree; classes
    # whose top is -inf or far below the row's (their exp 0), rows with no possible class NaN
    rng = np.random.default_rng(seed)
    top = rng.normal(size=(n, n_classes)) * spread - 60.0
    top[rng.random((n, n_classes)) < 0.2] = -np.inf
    total = np.where(np.isfinite(top), rng.random((n, n_classes)) * 30.0 + 0.5, 0.0)
    top[::5] = -np.inf  # no super-parent eligible: every class's total 0
    total[::5] = 0.0
    got, twin = compiled_and_numpy(lambda: _native.aode_proba(top, total))
    with np.errstate(divide="ignore"):
        joint = top + np.log(total)
    bad = np.isneginf(joint).all(axis=1)
    assert got[1] == twin[1] == int(bad.sum())
    for proba, _ in (got, twin):
        np.testing.assert_array_equal(np.isnan(proba).all(axis=1), bad)
        assert not np.isnan(proba[~bad]).any()
        with np.errstate(invalid="ignore"):
            expected = np.exp(joint[~bad] - scipy.special.logsumexp(joint[~bad], axis=1)[:, None])
        # the normalised joint's own rounding grows with the joint's size (2^-52 of it)
        size = np.abs(joint[np.isfinite(joint)]).max(initial=1.0)
        np.testing.assert_allclose(proba[~bad], expected, rtol=1e-15 * size + 1e-14, atol=1e-15)
    np.testing.assert_allclose(got[0], twin[0], rtol=1e-14, atol=1e-16)


@needs_extension
def test_aode_proba_refuses_inconsistent_arguments():
    kernel = _native.runtime.kernels.aode_proba
    with pytest.raises(ValueError, match="aode_proba"):
        kernel(np.zeros((3, 2)), np.zeros((3, 3)), np.zeros((3, 2)))
    with pytest.raises(TypeError, match="aode_proba"):
        kernel(np.zeros((3, 2), np.float32), np.zeros((3, 2)), np.zeros((3, 2)))


def test_aode_block_refuses_inconsistent_arguments():
    if _native.runtime.kernels is None or not hasattr(_native.runtime.kernels, "aode_block"):
        pytest.skip("the compiled kernel is not built")
    codes = np.array([[0, 1]])
    args = [np.array([0, 2, 4]), np.arange(4), np.array([0, 1]), np.ones(2), np.ones(4), 1.0, 1]
    table, sp_table = np.zeros((4, 4, 4)), np.zeros((4, 4))
    out = [np.zeros((1, 1)), np.zeros((1, 1)), np.zeros(1)]
    none = [np.zeros((0, 0, 4), dtype=np.int64), np.zeros((0, 0, 4)), 1.0]
    kernel = _native.runtime.kernels.aode_block
    kernel(codes, *args, table, sp_table, *out, *none)
    empty = np.zeros((0, 0, 4))  # the symmetric form reads no CPT
    pair = np.zeros((4, 4, 4), dtype=np.int64)
    symmetric = [pair, np.zeros((4, 2, 4)), 2.0**-50]
    kernel(codes, *args, empty, sp_table, *out, *symmetric)
    with pytest.raises(ValueError, match="aode_block"):  # a code beyond column 1's categories
        kernel(np.array([[0, 2]]), *args, table, sp_table, *out, *none)
    with pytest.raises(ValueError, match="aode_block"):  # the classes not padded to 4
        kernel(codes, *args, np.zeros((4, 4, 1)), sp_table, *out, *none)
    with pytest.raises(TypeError, match="aode_block"):  # codes of floats
        kernel(codes * 1.0, *args, table, sp_table, *out, *none)
    shuffled = [*args[:2], np.array([1, 0]), *args[3:]]  # the symmetric form: columns in order
    with pytest.raises(ValueError, match="aode_block"):
        kernel(codes, *shuffled, empty, sp_table, *out, *symmetric)
    with pytest.raises(ValueError, match="aode_block"):  # log_totals of the wrong shape
        kernel(codes, *args, empty, sp_table, *out, pair, np.zeros((4, 3, 4)), 1.0)
    with pytest.raises(ValueError, match="aode_block"):  # a CPT with the symmetric form
        kernel(codes, *args, table, sp_table, *out, *symmetric)
    with pytest.raises(TypeError, match="aode_block"):  # a pair table of floats
        kernel(codes, *args, empty, sp_table, *out, pair * 1.0, *symmetric[1:])
    too_large = pair.copy()
    too_large[0, 2, 0] = -(2**62) - 1  # above 2^62 / (m - 1) in size: sums unchecked
    with pytest.raises(ValueError, match="aode_block"):
        kernel(codes, *args, empty, sp_table, *out, too_large, *symmetric[1:])


@settings(max_examples=60, deadline=None)
@given(
    n_columns=st.integers(1, 5000),
    scale=st.sampled_from([0.0, 1e-300, 1e-3, 1.0, 14.0, 700.0]),
    seed=st.integers(0, 2**32 - 1),
)
def test_fixed_point_sums_stay_within_64_bits_and_near_the_floats(n_columns, scale, seed):
    # the pair table's fixed point: each number within half a unit, the largest sum of
    # n_columns - 1 of them (the largest number every time) below 2^62, and the table aligned
    rng = np.random.default_rng(seed)
    pair = rng.normal(size=(5, 5, 3)) * scale
    ints, unscale = _native.averaging.fixed_point(pair, n_columns, 4)
    assert ints.dtype == np.int64 and ints.shape == (5, 5, 4) and ints.ctypes.data % 64 == 0
    assert (ints[..., 3] == 0).all()
    assert np.abs(ints[..., :3] * unscale - pair).max() <= unscale / 2
    assert int(np.abs(ints).max()) * max(1, n_columns - 1) < 2**62
    assert unscale == 2.0 ** np.round(np.log2(unscale))


@needs_extension
@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(0, 60),
    n_rows=st.integers(1, 400),
    width=st.integers(1, 200),
    n_picks=st.integers(1, 9),
    impossible=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_gathered_sums_adds_the_picked_rows_in_turn(n, n_rows, width, n_picks, impossible, seed):
    # the kernel against the picked rows added in turn (the same additions: equal to the last
    # bit) and against its numpy twin (a one-hot product: equal to rounding); widths around
    # the register strip (16) and the cache tile, a row picked twice, -inf cells
    rng = np.random.default_rng(seed)
    matrix = rng.normal(size=(n_rows, width)) * 10.0 ** rng.integers(-3, 4, size=(n_rows, 1))
    if impossible:
        matrix[rng.random(matrix.shape) < 0.05] = -np.inf
    picks = rng.integers(0, n_rows, size=(n, n_picks))
    if n:
        picks[0, -1] = picks[0, 0]
    got, twin = compiled_and_numpy(lambda: _native.gathered_sums(matrix, picks))
    assert got.shape == (n, width)
    expected = matrix[picks[:, 0]] if n else np.zeros((0, width))
    for f in range(1, n_picks):
        expected = expected + matrix[picks[:, f]]
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(np.isneginf(twin), np.isneginf(expected))
    np.testing.assert_allclose(twin, expected, rtol=1e-12, atol=1e-9)
    # segments' peaks taken off (each segment's largest sum, 0 where none is finite)
    cuts = np.unique(rng.integers(1, width, size=rng.integers(0, 4))) if width > 1 else []
    bounds = np.array([0, *cuts, width])
    (shifted, peak), (twin_shifted, twin_peak) = compiled_and_numpy(
        lambda: _native.gathered_sums(matrix, picks, bounds)
    )
    top = np.stack(
        [
            expected[:, a:b].max(axis=1, initial=-np.inf)
            for a, b in zip(bounds[:-1], bounds[1:], strict=True)
        ],
        axis=1,
    )
    top[~np.isfinite(top)] = 0.0
    np.testing.assert_array_equal(peak, top)
    np.testing.assert_array_equal(shifted, expected - np.repeat(top, np.diff(bounds), axis=1))
    np.testing.assert_allclose(twin_peak, top, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(twin_shifted, shifted, rtol=1e-12, atol=1e-9)


@needs_extension
@pytest.mark.parametrize("width", [300, 256, 37])
def test_gathered_sums_over_several_cache_tiles(width):
    # a matrix of 3,000 rows is summed in tiles of about 40 columns: read in place (300 columns)
    # or copied first where its rows lie a multiple of 1 KB apart (256 columns), and a width
    # within one tile (37); every row of out equal to the picked rows added in turn
    rng = np.random.default_rng(width)
    matrix = rng.normal(size=(3000, width))
    matrix[rng.random(matrix.shape) < 0.01] = -np.inf
    picks = rng.integers(0, len(matrix), size=(50, 7))
    bounds = np.array([0, width // 3, width])
    shifted, peak = _native.gathered_sums(matrix, picks, bounds)
    expected = matrix[picks[:, 0]]
    for f in range(1, picks.shape[1]):
        expected = expected + matrix[picks[:, f]]
    top = np.stack(
        [expected[:, a:b].max(axis=1) for a, b in zip(bounds[:-1], bounds[1:], strict=True)], axis=1
    )
    top[~np.isfinite(top)] = 0.0
    np.testing.assert_array_equal(peak, top)
    np.testing.assert_array_equal(shifted, expected - np.repeat(top, np.diff(bounds), axis=1))


def test_gathered_sums_refuses_picks_outside_the_matrix():
    matrix = np.ones((3, 4))
    for picks in (np.array([[0, 3]]), np.array([[-1, 0]]), np.zeros((2, 0), dtype=int)):
        with pytest.raises(ValueError, match="picks"):
            _native.gathered_sums(matrix, picks)
    for bounds in ([0, 4, 4], [1, 4], [0, 3], [0]):
        with pytest.raises(ValueError, match="bounds"):
            _native.gathered_sums(matrix, np.array([[0]]), np.array(bounds))


@needs_extension
@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(0, 300),
    cards=st.lists(st.integers(1, 5), min_size=1, max_size=6),
    n_nodes=st.integers(1, 8),
    n_classes=st.integers(1, 20),
    dtype=st.sampled_from(["int8", "int16", "int32", "int64", "uint8"]),
    fortran=st.booleans(),
    left=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_table_sums_equals_the_numpy_version(
    n, cards, n_nodes, n_classes, dtype, fortran, left, seed
):
    # a network's table terms computed as they are added, against the cells computed first
    # (numpy) and against a plain loop over nodes: families of 1-3 columns padded with stride
    # 0, codes of any integer type and layout, nodes left out in some rows (their codes 0)
    rng = np.random.default_rng(seed)
    cards = np.array(cards)
    m = len(cards)
    codes = rng.integers(0, cards, size=(n, m)).astype(dtype)
    codes = np.asfortranarray(codes) if fortran else codes
    width = 3
    family = np.zeros((n_nodes, width), dtype=np.int64)
    strides = np.zeros((n_nodes, width), dtype=np.int64)
    offsets = np.zeros(n_nodes, dtype=np.int64)
    start = 0
    for k in range(n_nodes):
        own = rng.choice(m, size=rng.integers(1, min(width, m) + 1), replace=False)
        shape = cards[own]
        family[k, : len(own)] = own
        strides[k, : len(own)] = np.cumprod((*shape[1:], 1)[::-1])[::-1]
        offsets[k] = start
        start += int(np.prod(shape))
    cells = np.vstack([rng.normal(size=(start, n_classes)), np.zeros((1, n_classes))])
    left_out = rng.random((n, n_nodes)) < 0.3 if left else None
    got, twin = compiled_and_numpy(
        lambda: _native.table_sums(codes, cells, family, strides, offsets, left_out)
    )
    expected = np.zeros((n, n_classes))
    for r in range(n):
        for k in range(n_nodes):
            cell = offsets[k] + int((codes[r, family[k]].astype(np.int64) * strides[k]).sum())
            term = cells[-1] if left and left_out[r, k] else cells[cell]
            expected[r] = term if k == 0 else expected[r] + term
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_allclose(twin, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("compiled", [True, False])
def test_table_sums_refuses_a_code_outside_its_states(compiled, monkeypatch):
    if compiled and _native.runtime.kernels is None:
        pytest.skip("the compiled extension is not built")
    monkeypatch.setattr(_native.runtime, "COMPILED", compiled)
    cells = np.array([[1.0], [2.0], [0.0]])
    family, strides, offsets = np.array([[0]]), np.array([[1]]), np.array([0])
    with pytest.raises(ValueError, match="outside"):
        _native.table_sums(np.array([[3]]), cells, family, strides, offsets)
    with pytest.raises(ValueError, match="outside"):
        _native.table_sums(np.array([[-1]]), cells, family, strides, offsets)
