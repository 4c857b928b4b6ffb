"""Every table node's log terms in one gather: the same numbers as the nodes read one by one.

``FittedNetwork._add_table_terms`` adds the terms of all the table nodes of a network (complete
rows, the observed families of incomplete rows, enumerated completions) in one take; returning
False sends the caller back to the nodes one by one, the path before it. Each test compares
the two paths, and ESKDB's predictions, on small tables.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _random_networks import completions, networks_and_rows
from hypothesis import given, settings
from scipy.special import logsumexp

from bnclassify import ESKDB, KDB, TAN
from bnclassify import network as network_module
from bnclassify.network import FittedNetwork


def enumerated(network, codes):
    """log P(c, x_observed) of each row: its completions' joints, each a sum of the nodes'
    terms read one by one, summed."""
    out = []
    for row in codes:
        filled = completions(row, network.cards)
        joint = np.broadcast_to(network.log_prior, (len(filled), network.n_classes)).copy()
        for factor in network.nodes:
            joint += factor.log_terms(filled, None)
        out.append(logsumexp(joint, axis=0))
    return np.array(out)


def _wide_table(n=120, m=5, states=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    columns = [(rng.integers(0, states, n) + y) % states]
    for j in range(1, m):
        noise = rng.random(n) < 0.3
        columns.append(np.where(noise, rng.integers(0, states, n), (columns[j - 1] + j) % states))
    X = pd.DataFrame({f"f{j}": [f"v{v}" for v in c] for j, c in enumerate(columns)})
    return X, np.where(y == 1, "yes", "no")


def _one_by_one(monkeypatch):
    monkeypatch.setattr(FittedNetwork, "_add_table_terms", lambda self, *args, **kw: False)


@settings(max_examples=25, deadline=None)
@given(networks_and_rows(max_features=6, max_rows=8))
def test_one_gather_equals_the_nodes_one_by_one(case):
    network, codes = case
    filled = np.maximum(codes, 0)
    with np.errstate(divide="ignore"):
        gathered = network.complete_rows(filled), network.joint_log_likelihood(codes)
        with pytest.MonkeyPatch.context() as patch:
            _one_by_one(patch)
            expected = network.complete_rows(filled), network.joint_log_likelihood(codes)
            enumeration = enumerated(network, codes)
    for got, want in zip(gathered, expected, strict=True):
        assert (np.isfinite(got) == np.isfinite(want)).all()
        finite = np.isfinite(want)
        np.testing.assert_allclose(got[finite], want[finite], rtol=1e-12, atol=1e-12)
    finite = np.isfinite(enumeration)
    np.testing.assert_allclose(gathered[1][finite], enumeration[finite], rtol=1e-10, atol=1e-10)


def test_rows_are_gathered_in_blocks(monkeypatch):
    rng = np.random.default_rng(5)
    parents = [(), (0,), (0, 1), (1,), (2, 3)]
    tables = [np.log(rng.dirichlet(np.ones(3), size=(2, *(3 for _ in pa)))) for pa in parents]
    network = FittedNetwork.from_log_tables(np.log([0.3, 0.7]), parents, tables)
    codes = rng.integers(0, 3, (50, 5))
    codes[rng.random(codes.shape) < 0.2] = -1
    whole = network.complete_rows(np.maximum(codes, 0)), network.joint_log_likelihood(codes)
    monkeypatch.setattr(network_module, "BLOCK_CELLS", 25)  # a few rows a block
    blocks = network.complete_rows(np.maximum(codes, 0)), network.joint_log_likelihood(codes)
    _one_by_one(monkeypatch)
    nodes = network.complete_rows(np.maximum(codes, 0)), network.joint_log_likelihood(codes)
    for got, want in zip([*whole, *blocks], [*nodes, *nodes], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_a_code_outside_its_table_raises_as_before():
    rng = np.random.default_rng(1)
    parents = [(), (0,)]
    tables = [np.log(rng.dirichlet(np.ones(3), size=(2, *(3 for _ in pa)))) for pa in parents]
    network = FittedNetwork.from_log_tables(np.log([0.5, 0.5]), parents, tables)
    with pytest.raises(ValueError, match="invalid entry"):
        network.complete_rows(np.array([[0, 1], [3, 0]]))


def test_a_replaced_table_is_gathered_again():
    X, y = _wide_table(n=120, m=5)
    network = TAN().fit(X, y).compiled_
    codes = np.zeros((3, 5), dtype=int)
    before = network.complete_rows(codes)
    factor = network.factors[2]
    factor.log_table_ = np.log(np.full(factor.log_table_.shape, 1 / factor.log_table_.shape[-1]))
    after = network.complete_rows(codes)
    assert not np.allclose(before, after)
    assert network._table_gather()["cells"].shape[0] > 1


def _mixed_table(n=160, seed=0):
    """String, category and numeric columns, missing cells, an identifier column, labels as
    strings."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = pd.DataFrame(
        {
            "a": np.array(["p", "q", "r"], dtype=object)[(y + rng.integers(0, 2, n)) % 3],
            "b": pd.Categorical(np.array(["s", "t"])[(y + (rng.random(n) < 0.3)) % 2]),
            "x": rng.normal(y, 1.0),
            "z": rng.normal(-y, 2.0),
            "id": [f"r{k}" for k in range(n)],
        }
    )
    X.loc[rng.random(n) < 0.15, "a"] = None
    X.loc[rng.random(n) < 0.15, "x"] = np.nan
    return X, np.array(["lo", "mid", "hi"], dtype=object)[y]


@pytest.mark.parametrize("model", [ESKDB(n_estimators=3, k=2, random_state=0), KDB(k=2)])
def test_predictions_equal_the_nodes_one_by_one(model, monkeypatch):
    """Missing cells, unseen values (the identifier of the test half), numeric columns,
    string and category columns, string labels: the same probabilities either way."""
    X, y = _mixed_table()
    with pytest.warns(UserWarning):  # the identifier's values are unseen in the test half
        model.fit(X.iloc[:100], y[:100]).predict_proba(X.iloc[100:])
    rows = X.iloc[100:]
    with np.errstate(divide="ignore"):
        got = model.set_params(handle_unknown="marginalize").predict_proba(rows)
        _one_by_one(monkeypatch)
        for member in getattr(model, "estimators_", [model]):  # gathers built before
            member.compiled_.__dict__.pop("_posteriors", None)
        want = model.predict_proba(rows)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)
