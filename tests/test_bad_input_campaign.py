"""The bad-input campaign (tools/bad_input_campaign.py): its fast subset finds no bad
outcome, and it classifies outcomes as its documentation says.

The whole campaign (about 5,900 inputs) runs by command; this runs the first fast case of
each of its ~150 kinds of input.
"""

import io
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import bad_input_campaign as campaign  # noqa: E402
from bad_input import core  # noqa: E402


def test_the_fast_campaign_finds_no_bad_outcome():
    cases = campaign.all_cases(fast=True)
    assert len({c.kind for c in cases}) == len(cases) > 100
    results = campaign.run(cases, stream=io.StringIO())
    bad = [f"{c.name}: {o.status} {o.detail[:120]} @ {o.where}" for c, o in results if o.bad]
    assert not bad, "\n".join(bad)


def _outcome(call, names=()):
    return core.run_case(core.Case("test", "test", call, names=names), time_limit=0.5)


def _warns():
    np.log(np.zeros(1))  # numpy's RuntimeWarning: divide by zero
    return True


def _deep():
    return bool(np.zeros(2)[5])


def _spins():
    while True:
        pass


@pytest.mark.parametrize(
    "call, names, status",
    [
        (lambda: True, (), "correct"),
        (lambda: False, (), "wrong"),
        (lambda: np.True_, (), "correct"),
        (_warns, (), "warning"),
        (lambda: warnings.warn("ours", UserWarning, stacklevel=1) or True, (), "correct"),
        (_deep, (), "crash"),
        (lambda: (_ for _ in ()).throw(ValueError("Column 't' is bad")), ("'t'",), "clear error"),
        (lambda: (_ for _ in ()).throw(ValueError("something is bad")), ("'t'",), "unnamed"),
        (lambda: int("x"), (), "clear error"),  # raised by a builtin called from here
        (lambda: __import__("json").loads("{"), (), "crash"),  # raised inside the stdlib
        (_spins, (), "hang"),
    ],
    ids=["true", "false", "numpy true", "numpy warning", "our warning", "IndexError",
         "named", "unnamed", "int('x')", "json", "spins"],
)  # fmt: skip
def test_outcomes_are_classified(call, names, status):
    assert _outcome(call, names).status == status


def test_every_public_callable_is_counted_once_and_most_are_exercised():
    hit, missed = campaign.coverage(campaign.all_cases())
    assert not set(hit) & set(missed)
    assert "bnclassify.TAN" in hit and "bnclassify.explain.explain" in hit
    assert len(hit) > 0.6 * (len(hit) + len(missed))
