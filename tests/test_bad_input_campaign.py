"""The bad-input campaign (tools/bad_input_campaign.py): its fast subset and a seeded random
sample of the rest find no bad outcome, and it classifies outcomes as its documentation says.

The whole campaign (about 8,000 inputs, 2 hours on 2 cores) runs by command; this runs the
first fast case of each of its ~200 kinds of input, and one case each of 30 other kinds
drawn with a fixed seed (``--sample 30 --seed 42`` on the command line; another seed draws
another sample).
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


@pytest.fixture(scope="module")
def every_case():
    return campaign.all_cases()


@pytest.mark.slow
def test_the_fast_campaign_finds_no_bad_outcome(every_case):
    cases = campaign.select(every_case, fast=True)
    assert len({c.kind for c in cases}) == len(cases) > 100
    results = campaign.run(cases, stream=io.StringIO())
    bad = [f"{c.name}: {o.status} {o.detail[:120]} @ {o.where}" for c, o in results if o.bad]
    assert not bad, "\n".join(bad)


#: The suite's sample: as many cases, drawn with this seed (each from another kind).
SAMPLE, SEED = 30, 42


def test_a_seeded_sample_of_the_rest_finds_no_bad_outcome(every_case):
    cases = campaign.select(every_case, sample=SAMPLE, seed=SEED)
    fast = {id(c) for c in campaign.select(every_case, fast=True)}
    assert len(cases) == SAMPLE == len({c.kind for c in cases})
    assert not any(id(c) in fast or c.slow for c in cases)
    results = campaign.run(cases, stream=io.StringIO())
    bad = [f"{c.name}: {o.status} {o.detail[:120]} @ {o.where}" for c, o in results if o.bad]
    assert not bad, "\n".join(bad)


def test_the_widened_sections_are_in_the_fast_subset(every_case):
    kinds = {c.kind for c in campaign.select(every_case, fast=True)}
    for family in ("plots:", "metrics:", "preprocessing:", "alpha:", "superparent:",
                   "column kinds at 300 rows:", "command line:"):  # fmt: skip
        assert any(k.startswith(family) for k in kinds), family


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


def _takes_one(a):
    return bool(a)


def _calls_with_a_wrong_keyword():
    return _takes_one(b=1)  # the case's own mistake: it tests nothing of the library


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
        (_calls_with_a_wrong_keyword, (), "broken"),
    ],
    ids=["true", "false", "numpy true", "numpy warning", "our warning", "IndexError",
         "named", "unnamed", "int('x')", "json", "spins", "a wrong keyword"],
)  # fmt: skip
def test_outcomes_are_classified(call, names, status):
    assert _outcome(call, names).status == status


def test_every_public_callable_is_counted_once_and_most_are_exercised(every_case):
    hit, missed = campaign.coverage(every_case)
    assert not set(hit) & set(missed)
    assert "bnclassify.TAN" in hit and "bnclassify.explain.explain" in hit
    assert len(hit) > 0.6 * (len(hit) + len(missed))


@pytest.mark.parametrize(
    "code, err, wall, status",
    [
        (0, "", 1.0, "correct"),
        (-24, "fold 2/10 TAN:  20%| 2/10 [03:52<15:30, 116.26s/fit]", 300.0, "correct"),
        (-24, "fold 2/10 TAN:  20%| 2/10 [00:52<00:30, 26.26s/fit]", 300.0, "hang"),
        (-24, "fold 1/10 TAN:   0%| 0/10 [00:00<?, ?fit/s]", 300.0, "hang"),
        (2, "bnclassify: error: wide.csv: no column 'x'", 1.0, "clear error"),
        (1, "Traceback (most recent call last):\nKeyError: 'x'", 1.0, "crash"),
    ],
    ids=["done", "an estimate not yet outlived", "an outlived estimate", "no estimate",
         "a one-line error", "a traceback"],
)  # fmt: skip
def test_a_command_is_judged_by_what_it_showed(code, err, wall, status):
    from bad_input import command_line

    out = "model  accuracy" if code == 0 else ""
    outcome = _outcome(lambda: command_line.judge(code, out, err, wall), names=("wide.csv",))
    assert outcome.status == status
