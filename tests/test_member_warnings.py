"""An ensemble's members warn once, from the user's call (issue 32's bad-input campaign).

Before: a member's warning (fitted in a joblib worker, or by joblib in the caller's
thread) pointed at ``joblib/parallel.py`` and came once per member.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import bnclassify as bnc
from bnclassify.exceptions import (
    UnobservedColumnWarning,
    WarningsOnceFromCaller,
    ZeroVarianceWarning,
)

N = 40
Y = np.repeat(["p", "q"], N // 2)


def _table():
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "a": rng.choice(list("xy"), N),
            "b": rng.choice(list("uv"), N),
            "c": np.r_[np.ones(N // 2), rng.normal(size=N // 2)],  # constant in class p
            "d": np.nan,  # no observed value
        }
    )


ENSEMBLES = [
    pytest.param(lambda: bnc.AODE(), id="AODE"),
    pytest.param(lambda: bnc.EnsembleTAN(n_estimators=3), id="EnsembleTAN"),
    pytest.param(lambda: bnc.EnsembleTAN(n_estimators=3, n_jobs=2), id="EnsembleTAN-threads"),
    pytest.param(
        lambda: bnc.EnsembleTAN(n_estimators=3, bootstrap=True, n_jobs=2, random_state=0),
        id="EnsembleTAN-bootstrap",
    ),
    pytest.param(lambda: bnc.ESKDB(n_estimators=3, n_jobs=2, random_state=0), id="ESKDB"),
    pytest.param(lambda: bnc.TANHC(random_state=0), id="TANHC"),
]


@pytest.mark.parametrize("make", ENSEMBLES)
def test_every_member_warning_comes_once_from_the_callers_line(make):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make().fit(_table(), Y)
    categories = [w.category for w in caught]
    assert categories.count(UnobservedColumnWarning) == 1
    assert categories.count(ZeroVarianceWarning) <= 1  # ESKDB bins c: no variance to warn of
    assert all(w.filename == __file__ for w in caught), [w.filename for w in caught]


@pytest.mark.usefixtures("densities")  # a ZeroVarianceWarning: Gaussian members
def test_a_member_warning_raises_at_the_callers_line_under_an_error_filter():
    with warnings.catch_warnings():
        warnings.simplefilter("error", ZeroVarianceWarning)
        warnings.simplefilter("ignore", UnobservedColumnWarning)
        with pytest.raises(ZeroVarianceWarning) as raised:
            bnc.EnsembleTAN(n_estimators=3, n_jobs=2).fit(_table(), Y)
    assert raised.traceback[-1].path.name == "exceptions.py"  # re-issued, not from joblib


def test_distinct_warnings_are_each_kept_and_an_error_passes_through():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with WarningsOnceFromCaller():
            for text in ["one", "two", "one"]:
                warnings.warn(text, UserWarning, stacklevel=1)
    assert [str(w.message) for w in caught] == ["one", "two"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(KeyError), WarningsOnceFromCaller():
            warnings.warn("lost with the error", UserWarning, stacklevel=1)
            raise KeyError("the error the caller reads")
    assert caught == []
