"""The inputs a user can hand over: odd columns, odd dtypes, odd shapes, odd labels.

Every generator is deterministic (seeded): a bad outcome reproduces from its name.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

N = 40
Y = np.array(["p", "q"] * (N // 2))


def base_table(n=N, seed=0) -> pd.DataFrame:
    """A categorical column ``s`` and a Gaussian column ``g`` that carry the class."""
    rng = np.random.default_rng(seed)
    y = np.resize(np.array([0, 1]), n)
    return pd.DataFrame(
        {
            "s": np.where(rng.random(n) < 0.7, np.array(["a", "b"])[y], "c"),
            "g": rng.normal(size=n) + y,
        }
    )


def _z(n=N, seed=1):
    return np.random.default_rng(seed).normal(size=n)


def _every(n, values):
    return np.resize(np.asarray(values, dtype=object), n)


#: Odd columns, each placed beside the base table as column ``t``: name -> column(n).
COLUMNS = {
    # degenerate
    "constant float": lambda n: np.full(n, 2.5),
    "constant 0": lambda n: np.zeros(n),
    "constant int": lambda n: np.full(n, 7),
    "constant string": lambda n: np.array(["k"] * n, dtype=object),
    "all missing float": lambda n: np.full(n, np.nan),
    "all missing object": lambda n: np.array([None] * n, dtype=object),
    "one observed value": lambda n: np.r_[3.0, np.full(n - 1, np.nan)],
    "two observed values": lambda n: np.r_[3.0, 4.5, np.full(n - 2, np.nan)],
    "one value and missing": lambda n: np.where(np.arange(n) % 3 == 0, np.nan, 1.25),
    "two values": lambda n: np.where(np.arange(n) % 2, 1.5, 7.25),
    "two values, one row each": lambda n: np.r_[1.5, 7.25, np.full(n - 2, 4.0)],
    "1,000 values": lambda n: np.arange(n) * 1.001 + 0.5,
    "integers 1,000 values": lambda n: (np.arange(n) * 37) % 1000,
    # extreme magnitudes
    "huge 1e300 spread": lambda n: _z(n) * 1e300,
    "1e300 constant-ish": lambda n: np.full(n, 1e300) * (1 + (np.arange(n) % 2)),
    "near max float": lambda n: np.where(np.arange(n) % 2, 1.7e308, -1.7e308),
    "tiny 1e-300 spread": lambda n: _z(n) * 1e-300,
    "subnormals": lambda n: _z(n) * 5e-324 * 64,
    "subnormal constant": lambda n: np.full(n, 5e-324),
    "inf": lambda n: np.r_[np.inf, _z(n)[1:]],
    "-inf": lambda n: np.r_[-np.inf, _z(n)[1:]],
    "-0.0 and 0.0": lambda n: np.where(np.arange(n) % 2, -0.0, 0.0),
    "mixed signs at the ends": lambda n: np.where(np.arange(n) % 2, 1e300, -1e-300),
    "mixed magnitudes": lambda n: _z(n) * 10.0 ** (np.arange(n) % 7 * 100 - 300),
    "shift 1e6": lambda n: _z(n) + 1e6,
    "shift 1e12": lambda n: _z(n) + 1e12,
    "shift 1e12, spread 1e-4": lambda n: _z(n) * 1e-4 + 1e12,
    "shift -1e12": lambda n: _z(n) - 1e12,
    "log-normal": lambda n: np.exp(_z(n)),
    "log-normal, shift 1e6": lambda n: np.exp(_z(n)) + 1e6,
    "positive, 1e300": lambda n: np.exp(_z(n)) * 1e300,
    "positive, 1e-300": lambda n: np.exp(_z(n)) * 1e-300,
    "int64 extremes": lambda n: np.resize(
        np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min, 0], dtype=np.int64), n
    ),
    "int64 huge range": lambda n: (np.arange(n, dtype=np.int64) - n // 2) * 10**17,
    "uint64 beyond int64": lambda n: (np.arange(n) % 3).astype(np.uint64) + np.uint64(2**63),
    "uint64 many beyond int64": lambda n: np.arange(n).astype(np.uint64) * np.uint64(2**58),
    "negative integers": lambda n: -(np.arange(n) * 7),
    "integers past 2**53": lambda n: np.arange(n, dtype=np.int64) + 2**53,
    "int8": lambda n: (np.arange(n) % 5).astype(np.int8),
    "int8 extremes": lambda n: np.resize(np.array([-128, 127], dtype=np.int8), n),
    "float16": lambda n: _z(n).astype(np.float16),
    "float32": lambda n: _z(n).astype(np.float32),
    "float32 1e38": lambda n: (_z(n) * 1e38).astype(np.float32),
    # odd dtypes
    "Int64 with NA": lambda n: pd.array(_every(n, [1, 2, None, 3]), dtype="Int64"),
    "Int64 many values": lambda n: pd.array(list(range(n - 1)) + [None], dtype="Int64"),
    "Float64 with NA": lambda n: pd.array(_every(n, [1.5, 2.5, None, 3.5]), dtype="Float64"),
    "Float64 continuous": lambda n: pd.array(list(_z(n)[:-1]) + [None], dtype="Float64"),
    "Float64 all NA": lambda n: pd.array([None] * n, dtype="Float64"),
    "boolean with NA": lambda n: pd.array(_every(n, [True, False, None, True]), dtype="boolean"),
    "bool": lambda n: np.arange(n) % 3 == 0,
    "int64[pyarrow]": lambda n: pd.array(list(range(n)), dtype="int64[pyarrow]"),
    "int64[pyarrow] with NA": lambda n: pd.array(_every(n, [1, None, 3]), dtype="int64[pyarrow]"),
    "double[pyarrow]": lambda n: pd.array(list(_z(n)), dtype="double[pyarrow]"),
    "double[pyarrow] with NA": lambda n: pd.array(
        list(_z(n)[:-1]) + [None], dtype="double[pyarrow]"
    ),
    "string[pyarrow]": lambda n: pd.array(
        _every(n, ["x", "y", None, "z"]), dtype="string[pyarrow]"
    ),
    "string[python]": lambda n: pd.array(_every(n, ["x", "y", None]), dtype="string"),
    "large_string[pyarrow]": lambda n: pd.Series(_every(n, ["x", "y"])).astype(
        "large_string[pyarrow]"
    ),
    "category, unused categories": lambda n: pd.Categorical(
        _every(n, ["x", "y"]), categories=["x", "y", "z", "w"]
    ),
    "category of numbers": lambda n: pd.Categorical(_every(n, [1.5, 2.5, np.nan])),
    "ordered category": lambda n: pd.Categorical(
        _every(n, ["lo", "hi", "mid"]), categories=["lo", "mid", "hi"], ordered=True
    ),
    "object mixing types": lambda n: _every(n, [1, "a", 2.5, None, True]),
    "object numbers": lambda n: _every(n, [1.5, 2.5, 3.5, None]),
    "object ints and strings": lambda n: _every(n, [1, "1", 2, "2"]),
    "object of lists": lambda n: _every(n, [[1], [2]]),
    "object of dicts": lambda n: np.array([{"a": i % 2} for i in range(n)], dtype=object),
    "object of bytes": lambda n: _every(n, [b"x", b"y"]),
    "datetime": lambda n: pd.date_range("2020-01-01", periods=n),
    "datetime with tz": lambda n: pd.date_range("2020-01-01", periods=n, tz="UTC"),
    "datetime with NaT": lambda n: pd.Series(pd.date_range("2020-01-01", periods=n)).where(
        np.arange(n) % 4 > 0
    ),
    "timedelta": lambda n: pd.to_timedelta(np.arange(n) % 3, unit="D"),
    "period": lambda n: pd.period_range("2020-01", periods=n, freq="M"),
    "interval": lambda n: pd.arrays.IntervalArray.from_breaks(np.arange(n + 1.0)),
    "complex": lambda n: _z(n) + 1j,
    "complex, real values": lambda n: _z(n) + 0j,
    "sparse float": lambda n: pd.arrays.SparseArray(np.where(np.arange(n) % 5, 0.0, _z(n))),
    "decimal objects": lambda n: _every(n, [__import__("decimal").Decimal("1.5"), None]),
    "strings of numbers": lambda n: np.array([f"{v:.3f}" for v in _z(n)], dtype=object),
    "empty strings": lambda n: _every(n, ["", "a", ""]),
    "unicode and surrogates": lambda n: pd.Series(_every(n, ["é", "\ud800", "日本"]), dtype=object),
}

#: A few of the columns (one per family) for the slower operations and the fast subset.
FAST_COLUMNS = (
    "constant float",
    "one observed value",
    "huge 1e300 spread",
    "subnormals",
    "shift 1e12, spread 1e-4",
    "Int64 with NA",
    "double[pyarrow] with NA",
    "category, unused categories",
    "object mixing types",
    "datetime",
    "integers 1,000 values",
)


def with_column(name, n=N, seed=0) -> pd.DataFrame:
    """The base table with the odd column ``name`` as ``t``."""
    return base_table(n, seed).assign(t=COLUMNS[name](n))


def only_column(name, n=N) -> pd.DataFrame:
    """The odd column ``name`` alone."""
    return pd.DataFrame({"t": COLUMNS[name](n)})


def _labels(n):
    return np.resize(np.array(["p", "q"]), n)


#: Odd label vectors for the base table: name -> y(n).
LABELS = {
    "one class": lambda n: np.array(["p"] * n),
    "every row its own class": lambda n: np.array([f"k{i}" for i in range(n)]),
    "many classes": lambda n: np.array([f"k{i % 13}" for i in range(n)]),
    "a class of one row": lambda n: np.r_[_labels(n - 1), ["r"]],
    "Series, non-range index": lambda n: pd.Series(_labels(n), index=np.arange(n)[::-1] * 3 + 7),
    "Series, string index": lambda n: pd.Series(_labels(n), index=[f"r{i}" for i in range(n)]),
    "bool": lambda n: np.arange(n) % 2 == 0,
    "float": lambda n: np.resize(np.array([0.5, 1.5]), n),
    "float with NaN": lambda n: np.r_[np.resize(np.array([0.0, 1.0]), n - 1), [np.nan]],
    "object with None": lambda n: np.r_[_labels(n - 1).astype(object), [None]],
    "int": lambda n: np.resize(np.array([3, 8]), n),
    "negative int": lambda n: np.resize(np.array([-1, 1]), n),
    "uint64 large": lambda n: np.resize(np.array([2**64 - 1, 0], dtype=np.uint64), n),
    "mixed int and str": lambda n: np.resize(np.array([1, "1"], dtype=object), n),
    "category": lambda n: pd.Categorical(_labels(n), categories=["p", "q", "unused"]),
    "string[pyarrow]": lambda n: pd.array(_labels(n), dtype="string[pyarrow]"),
    "Int64": lambda n: pd.array(np.resize([1, 2], n), dtype="Int64"),
    "boolean with NA": lambda n: pd.array(
        list(np.resize([True, False], n - 1)) + [None], dtype="boolean"
    ),
    "column vector": lambda n: _labels(n).reshape(-1, 1),
    "two columns": lambda n: np.c_[_labels(n), _labels(n)],
    "datetime": lambda n: np.resize(pd.to_datetime(["2020-01-01", "2021-01-01"]).to_numpy(), n),
    "tuples": lambda n: np.array([("a", i % 2) for i in range(n)], dtype=object),
    "too short": lambda n: _labels(n - 1),
    "empty strings": lambda n: np.resize(np.array(["", "q"]), n),
    "1e300 floats": lambda n: np.resize(np.array([1e300, -1e300]), n),
    "inf floats": lambda n: np.resize(np.array([np.inf, 0.0]), n),
    "complex": lambda n: np.resize(np.array([1j, 2j]), n),
}

FAST_LABELS = ("Series, non-range index", "one class", "float with NaN", "many classes")
