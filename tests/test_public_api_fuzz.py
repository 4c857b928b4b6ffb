"""Generated frames through the public API: a correct answer or one clear error (issue 27).

Frames mix float columns with NaN and inf, integers (huge ones too), booleans,
strings with empty cells and None, datetimes, nullable and Arrow dtypes. For
each, ``fit`` either refuses with a ``ValueError``/``TypeError`` (never an
``IndexError``, ``KeyError``, ... from deep inside), or the model's
probabilities are finite and sum to 1, do not depend on the column order,
survive ``dump``/``load`` and ``predict`` on the command line, and ``explain``
adds up. Bounded to a few dozen frames so that it runs in seconds in CI.
"""

import os
import warnings

import numpy as np
import pandas as pd
import pytest
from _cli import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bnclassify as bnc
from bnclassify.exceptions import UnseenCategoryWarning
from bnclassify.explain import explain
from bnclassify.io import dump, load

N_ROWS = 24
SETTINGS = settings(
    max_examples=int(os.environ.get("BNC_FUZZ_EXAMPLES", 30)),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
#: What a clear refusal may be: the library's own errors subclass these.
CLEAR = (ValueError, TypeError)


def _floats(draw, rng):
    x = rng.normal(size=N_ROWS) * 10.0 ** draw(st.integers(-6, 6)) + draw(
        st.sampled_from([0.0, 1e6])
    )
    holes = rng.random(N_ROWS) < draw(st.sampled_from([0.0, 0.2]))
    x[holes] = np.nan
    if draw(st.booleans()):
        x[rng.integers(N_ROWS)] = draw(st.sampled_from([np.inf, -np.inf]))
    return pd.Series(x, dtype=draw(st.sampled_from(["float64", "Float64"])))


def _integers(draw, rng):
    low = draw(st.sampled_from([0, -5, 2**40]))
    x = low + rng.integers(0, draw(st.integers(2, 6)), N_ROWS)
    dtype = draw(st.sampled_from(["int64", "uint64", "Int64", "int64[pyarrow]"]))
    if dtype == "uint64" and low < 0:
        dtype = "int64"
    s = pd.Series(x).astype(dtype)
    if dtype in ("Int64", "int64[pyarrow]") and draw(st.booleans()):
        s[rng.random(N_ROWS) < 0.2] = pd.NA
    return s


def _huge_integers(draw, rng):
    return pd.Series([2**70 + int(v) for v in rng.integers(0, 3, N_ROWS)], dtype=object)


def _booleans(draw, rng):
    x = rng.random(N_ROWS) < 0.5
    dtype = draw(st.sampled_from(["bool", "boolean", "bool[pyarrow]"]))
    s = pd.Series(x).astype(dtype)
    if dtype != "bool" and draw(st.booleans()):
        s[rng.random(N_ROWS) < 0.2] = pd.NA
    return s


def _strings(draw, rng):
    values = np.array(["a", "b", "c", "", "é"], dtype=object)[rng.integers(0, 4, N_ROWS)]
    if draw(st.booleans()):
        values[rng.random(N_ROWS) < 0.2] = None
    dtype = draw(st.sampled_from([object, "string", "category"]))
    return pd.Series(values, dtype=dtype)


def _datetimes(draw, rng):
    days = rng.integers(0, 4, N_ROWS)
    return pd.Series(pd.to_datetime("2024-01-01") + pd.to_timedelta(days, unit="D"))


KINDS = [_floats, _integers, _huge_integers, _booleans, _strings, _datetimes]


@st.composite
def frames(draw):
    """A frame of 1-4 generated columns, labels, and a column permutation."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_columns = draw(st.integers(1, 4))
    columns = {}
    for j in range(n_columns):
        kind = draw(st.sampled_from(KINDS))
        columns[f"c{j}_{kind.__name__[1:]}"] = kind(draw, rng)
    X = pd.DataFrame(columns)
    n_classes = draw(st.integers(2, 3))
    y = np.array(["p", "q", "r"][:n_classes])[np.arange(N_ROWS) % n_classes]
    order = list(rng.permutation(X.columns))
    return X, y, order


def _fit(model, X, y):
    """The fitted model, or None when it refused with a clear error."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # e.g. a feature with one value
        warnings.simplefilter("error", RuntimeWarning)  # numpy's must not leak
        try:
            return model.fit(X, y)
        except CLEAR as error:
            assert str(error), f"{type(error).__name__} without a message"
            return None


def _proba(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # numpy's must not leak
        warnings.simplefilter("ignore", UnseenCategoryWarning)
        proba = model.predict_proba(X)
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-9)
    return proba


@pytest.mark.parametrize("make", [bnc.NaiveBayes, bnc.TAN], ids=["nb", "tan"])
@SETTINGS
@given(data=frames())
def test_fit_predict_on_generated_frames(make, data):
    X, y, order = data
    model = _fit(make(), X, y)
    if model is None:
        return
    proba = _proba(model, X)
    # the column order of the training table does not change the model
    reordered = _fit(make(), X[order], y)
    assert reordered is not None, "refused a permutation of a frame it accepted"
    np.testing.assert_allclose(_proba(reordered, X[order]), proba, atol=1e-9)
    # new rows in any column order are read by name
    np.testing.assert_allclose(_proba(model, X[order]), proba, atol=1e-12)


@SETTINGS
@given(data=frames())
def test_partial_fit_equals_fit_on_generated_frames(data):
    X, y, _ = data
    whole = _fit(bnc.NaiveBayes(), X, y)
    if whole is None:
        return
    half = N_ROWS // 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        try:
            # densities: their moments merge across chunks (binned columns need fixed cut points)
            model = bnc.NaiveBayes(distributions="density").partial_fit(
                X.iloc[:half], y[:half], classes=np.unique(y)
            )
            model.partial_fit(X.iloc[half:], y[half:])
        except CLEAR as error:  # e.g. a category or kind the first chunk could not know
            assert str(error)
            return
    # the kinds are read from the first chunk (a column may look log-normal in half the rows)
    same_kinds = dict(zip(X.columns, model.feature_kinds_, strict=True))
    whole = _fit(bnc.NaiveBayes(distributions=same_kinds), X, y)
    # the moments of chunks merge into those of all rows even for a column 1e6 +- 1e-6, whose
    # spread lives in its last 14 bits (probabilities moved by up to 6e-5 when they did not)
    np.testing.assert_allclose(_proba(model, X), _proba(whole, X), atol=1e-9)


@SETTINGS
@given(data=frames())
def test_dump_load_and_explain_on_generated_frames(data, tmp_path_factory):
    X, y, _ = data
    model = _fit(bnc.TAN(), X, y)
    if model is None:
        return
    try:
        path = dump(model, tmp_path_factory.mktemp("fuzz") / "m.bnc")
    except CLEAR as error:  # a value the file format cannot hold (e.g. a Timestamp category)
        assert str(error)
        path = None
    if path is not None:
        np.testing.assert_array_equal(_proba(load(path), X), _proba(model, X))
    rows = X.iloc[:3]  # "conditional": the model sums missing cells out itself
    try:
        explanation = explain(model, rows, method="conditional")
    except CLEAR as error:
        assert str(error)
        return
    log_proba = model.predict_log_proba(rows)
    total = explanation.base_values + explanation.values.sum(axis=1)
    if log_proba.shape[1] == 2:
        np.testing.assert_allclose(total, log_proba[:, 1] - log_proba[:, 0], atol=1e-7)
    assert np.isfinite(explanation.values).all()


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=frames())
def test_cli_predict_reads_rows_as_the_python_api_does(data, tmp_path_factory, capsys):
    X, y, _ = data
    model = _fit(bnc.NaiveBayes(), X, y)
    if model is None:
        return
    folder = tmp_path_factory.mktemp("cli")
    try:
        path = dump(model, folder / "m.bnc")
    except CLEAR:
        return
    X.to_csv(folder / "rows.csv", index=False)
    code, out, err = run_cli(capsys, "predict", "--model", path, "--csv", folder / "rows.csv")
    assert "Traceback" not in err
    if code != 0:  # a CSV cannot carry every dtype (datetimes, huge integers): one clear line
        assert err.strip().startswith("bnclassify: error: "), err
        return
    assert len(out.strip().splitlines()) == N_ROWS + 1
