"""Missing cells summed out by variable elimination, in any DAG (issue 32, item 2).

Against a brute-force enumeration of every completion (hypothesis, random DAGs),
pgmpy's VariableElimination on a wide KDB, a quadrature over a missing Gaussian
value, and the refusal of a structure too wide to sum out.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from _random_networks import completions, networks_and_rows
from hypothesis import given
from pgmpy.inference import VariableElimination
from scipy import integrate
from scipy.special import logsumexp

from bnclassify import KDB, TAN
from bnclassify import network as network_module
from bnclassify.elimination import MAX_TABLE_CELLS, eliminate, elimination_order
from bnclassify.network import FittedNetwork


def enumerated(network, codes):
    """log P(c, x_observed) of each row by summing ``complete_rows`` over every completion."""
    return np.array(
        [logsumexp(network.complete_rows(completions(row, network.cards)), axis=0) for row in codes]
    )


@given(networks_and_rows(max_features=7, max_rows=6))
def test_elimination_equals_enumerating_every_completion(case):
    network, codes = case
    with np.errstate(divide="ignore"):
        expected = enumerated(network, codes)
    got = network.joint_log_likelihood(codes)  # few states: every completion scored
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(network_module, "ENUMERATED_STATES", 0)  # every row planned
        patch.setattr(network_module, "ENUMERATED_GROUP_STATES", 0)  # and every group
        patch.setattr(network_module, "ENUMERATED_GROUP_CELLS", 0)
        planned = network.joint_log_likelihood(codes)
    finite = np.isfinite(expected)
    for result in (got, planned):
        assert (np.isfinite(result) == finite).all()
        np.testing.assert_allclose(result[finite], expected[finite], rtol=1e-10, atol=1e-10)


def test_elimination_order_is_min_weight_and_joins_neighbours():
    # a star around 0 with a heavy centre: the leaves go first, never a table over all
    order, cliques = elimination_order([(0, 1), (0, 2), (0, 3)], [10, 2, 2, 2])
    assert order[:2] == [1, 2] and cliques[0] == (1, 0)
    assert max(len(c) for c in cliques) == 2
    # a chain a - b - c: from an end, never a table over all three
    order, cliques = elimination_order([(0, 1), (1, 2)], [2, 3, 2])
    assert order == [0, 1, 2] and cliques == [(0, 1), (1, 2), (2,)]
    left, right = np.log(np.full((1, 1, 2, 3), 0.5)), np.log(np.full((1, 1, 3, 2), 0.5))
    for order in ([0, 2, 1], [1, 0, 2]):  # any order gives the sum: 12 terms of 1/4
        got = eliminate([((0, 1), left), ((1, 2), right)], order, 1, 1)[0, 0]
        assert got == pytest.approx(np.log(3.0))


def _wide_table(n=400, m=18, states=5, seed=0):
    """A categorical table with dependent columns (each a noisy copy of an earlier one)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    columns = [(rng.integers(0, states, n) + y) % states]
    for j in range(1, m):
        source = columns[rng.integers(0, j)]
        noise = rng.random(n) < 0.3
        columns.append(np.where(noise, rng.integers(0, states, n), (source + j) % states))
    X = pd.DataFrame({f"f{j}": [f"v{v}" for v in c] for j, c in enumerate(columns)})
    return X, pd.Series(np.where(y == 1, "yes", "no"), name="label")


def test_kdb2_sums_out_rows_that_enumeration_refused_and_equals_pgmpy():
    """KDB(k=2) refused a row with 10 missing cells of 4-6 states (colic: 1.38e+06 joint
    states); elimination sums out 14 of 18 missing cells exactly, as pgmpy does."""
    X, y = _wide_table()
    model = KDB(k=2).fit(X, y)
    rows = X.iloc[:6].copy()
    rng = np.random.default_rng(1)
    for k in range(len(rows)):
        hidden = rng.choice(X.columns, 14, replace=False)
        rows.loc[rows.index[k], hidden] = np.nan
    assert 5**14 > 1e9  # what enumerating the missing states would have filled in per row
    inference = VariableElimination(model.network_)
    expected = []
    for _, row in rows.iterrows():
        evidence = {k: v for k, v in row.items() if not pd.isna(v)}
        factor = inference.query(["label"], evidence=evidence, show_progress=False)
        expected.append([factor.get_value(label=c) for c in model.classes_])
    np.testing.assert_allclose(model.predict_proba(rows), expected, rtol=0, atol=1e-10)


def test_a_structure_too_wide_to_sum_out_is_refused_up_front_with_its_cost():
    # six missing parents of 20 states, an observed binary child of every pair of them: each
    # table is small (2 x 20 x 20 x 2 cells), but summing out any parent joins all six, a
    # table of 2 x 20^6 cells per row
    states = 20
    pairs = list(itertools.combinations(range(6), 2))
    parents = [()] * 6 + pairs
    cards = [states] * 6 + [2] * len(pairs)
    tables = []
    for i in range(len(parents)):
        shape = (2, *(cards[p] for p in parents[i]), cards[i])
        tables.append(np.log(np.full(shape, 1.0 / cards[i])))
    network = FittedNetwork.from_log_tables(np.log([0.5, 0.5]), parents, tables)
    codes = np.array([[-1] * 6 + [1] * len(pairs), [1] * 6 + [0] * len(pairs)])
    assert 2 * states**6 > MAX_TABLE_CELLS
    with pytest.raises(ValueError, match=r"1 row\(s\) miss 6 cells .* 1\.28e\+08 cells per row"):
        network.joint_log_likelihood(codes)
    # the same row with its children missing too: every cell is barren, nothing to sum
    codes[0, 6:] = -1
    np.testing.assert_allclose(
        network.joint_log_likelihood(codes)[0], np.log([0.5, 0.5]), rtol=1e-12
    )


def _mixed_kdb_table(n=300, seed=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    site = rng.integers(0, 3, n)
    a = rng.normal(size=n) + y + 0.5 * site
    b = 0.8 * a + rng.normal(scale=0.5, size=n) + 0.3 * y
    c = -0.6 * b + rng.normal(scale=0.4, size=n)
    X = pd.DataFrame({"site": [f"s{v}" for v in site], "a": a, "b": b, "c": c})
    return X, pd.Series(y, name="label")


def test_a_missing_gaussian_between_observed_nodes_is_integrated_exactly(densities):
    """KDB(k=2) on a mixed table: a missing Gaussian with a Gaussian child and a missing
    categorical parent, against a quadrature of the complete rows over its value."""
    X, y = _mixed_kdb_table()
    model = KDB(k=2).fit(X, y)
    compiled = model.compiled_
    gaussian_children = {
        j: [k for k, f in enumerate(compiled.factors) if j in f.continuous_parent_positions]
        for j in (1, 2, 3)
    }
    hidden = next(j for j, kids in gaussian_children.items() if kids)  # has a Gaussian child
    row = X.iloc[[7]].copy()
    row.iloc[0, hidden] = np.nan
    codes, values = model.encode(row)
    got = compiled.joint_log_likelihood(codes, values)[0]

    def density(t, c):
        filled = values.copy()
        filled[0, hidden] = t
        return np.exp(compiled.complete_rows(codes, filled)[0, c])

    centre = X.iloc[:, hidden].mean()
    spread = 12 * X.iloc[:, hidden].std()
    expected = [
        np.log(integrate.quad(density, centre - spread, centre + spread, args=(c,), limit=200)[0])
        for c in range(2)
    ]
    np.testing.assert_allclose(got, expected, rtol=1e-8)
    # and with the categorical column missing as well: the sum over its three states
    both = row.copy()
    both.iloc[0, 0] = np.nan
    filled = pd.concat([row] * 3, ignore_index=True)
    filled["site"] = ["s0", "s1", "s2"]
    np.testing.assert_allclose(
        model._joint_log_likelihood(both)[0],
        logsumexp(model._joint_log_likelihood(filled), axis=0),
        rtol=1e-12,
    )


def test_an_unseen_hub_of_many_observed_children_costs_one_product():
    """TAN on a table whose identifier-like column (every value new in the test rows)
    is the parent of the others: the summed children equal the gathered ones."""
    X, y = _wide_table(n=300, m=8)
    X["id"] = [f"r{k // 2}" for k in range(len(X))]  # 100 values in training, all new after
    model = TAN().fit(X.iloc[:200], y.iloc[:200])
    test = X.iloc[200:]
    with pytest.warns(UserWarning, match="id"):
        got = model.predict_proba(test)
    hidden = test.assign(id=np.nan)
    np.testing.assert_allclose(got, model.predict_proba(hidden), rtol=0, atol=1e-14)
    codes, _ = model.encode(hidden)
    expected = enumerated(model.compiled_, codes[:5])
    np.testing.assert_allclose(
        model.compiled_.joint_log_likelihood(codes[:5]), expected, rtol=1e-12
    )


@pytest.mark.parametrize(
    "rows_per_table, n_rows", [(3, 50), (40, 50), (40, 8)]
)  # the dense product, the sparse one, the picked rows added
def test_summed_rows_equals_the_picked_rows_added_with_impossible_cells(rows_per_table, n_rows):
    from bnclassify.elimination import summed_rows

    rng = np.random.default_rng(rows_per_table)
    tables = [rng.normal(size=(rows_per_table, 6)) for _ in range(5)]
    tables[2][1, 3] = -np.inf
    indices = [rng.integers(0, rows_per_table, n_rows) for _ in tables]
    indices[2][:5] = 1
    expected = sum(t[i] for t, i in zip(tables, indices, strict=True))
    got = summed_rows(indices, tables)
    assert np.isneginf(got[:5, 3]).all() and not np.isnan(got).any()
    np.testing.assert_allclose(got, expected, rtol=1e-13)


def recorded_plans(monkeypatch) -> list:
    """The sets of missing nodes the network plans an elimination for, in order, from now
    (every row planned: none summed out by scoring its completions)."""
    monkeypatch.setattr(network_module, "ENUMERATED_STATES", 0)
    monkeypatch.setattr(network_module, "ENUMERATED_GROUP_STATES", 0)
    monkeypatch.setattr(network_module, "ENUMERATED_GROUP_CELLS", 0)
    plans = []
    planned = FittedNetwork._elimination_plan
    monkeypatch.setattr(
        FittedNetwork,
        "_elimination_plan",
        lambda self, missing: plans.append(missing) or planned(self, missing),
    )
    return plans


def test_rows_differing_in_cells_that_sum_to_one_share_a_plan(monkeypatch):
    """anneal: AODE's members planned every pattern of its sparse columns apart (2,929
    plans, 29 s a fold). A missing hub with five children, observed or missing in all 32
    ways: one plan (the hub's), the rows whose children are all missing need none, and
    every row equals the enumeration."""
    rng = np.random.default_rng(3)
    parents = [(), (0,), (0,), (0,), (0,), (0,)]
    tables = [np.log(rng.dirichlet(np.ones(3), size=(2, *(3 for _ in pa)))) for pa in parents]
    network = FittedNetwork.from_log_tables(np.log([0.4, 0.6]), parents, tables)
    masks = np.array(list(itertools.product([False, True], repeat=5)))
    codes = rng.integers(0, 3, (len(masks), 6))
    codes[:, 0] = -1
    codes[:, 1:][masks] = -1
    plans = recorded_plans(monkeypatch)
    got = network.joint_log_likelihood(codes)
    assert plans == [{0}]
    np.testing.assert_allclose(got, enumerated(network, codes), rtol=1e-10, atol=1e-12)


def test_missing_cells_no_node_joins_are_planned_apart(monkeypatch):
    """arrhythmia's KDB(k=2): nearly every row held its own pattern of a few missing cells,
    each planned and summed whole (58 plans touching 3,540 node tables a fold). Two chains
    0 -> 1 -> 2 and 3 -> 4 -> 5, with 1 and 4 missing alone or together: one plan each,
    shared by the rows missing both; 0 and 1 missing together are joined (1's node holds
    both): one plan for the pair. Every row equals the enumeration."""
    rng = np.random.default_rng(5)
    parents = [(), (0,), (1,), (), (3,), (4,)]
    tables = [np.log(rng.dirichlet(np.ones(3), size=(2, *(3 for _ in pa)))) for pa in parents]
    network = FittedNetwork.from_log_tables(np.log([0.3, 0.7]), parents, tables)
    codes = rng.integers(0, 3, (8, 6))
    codes[[0, 2], 1] = -1
    codes[[1, 2], 4] = -1
    codes[[3, 4], 0] = -1
    codes[[3, 4], 1] = -1
    codes[4, 4] = -1
    plans = recorded_plans(monkeypatch)
    got = network.joint_log_likelihood(codes)
    assert sorted(map(sorted, plans)) == [[0, 1], [1], [4]]
    np.testing.assert_allclose(got, enumerated(network, codes), rtol=1e-10, atol=1e-12)


def test_a_missing_cell_of_one_state_is_read_as_that_state():
    """A column of one category (a binned column without a cut) missing in a row is that
    category: no elimination plan, and the same joint as enumerating every completion."""
    rng = np.random.default_rng(3)
    n = 300
    y = rng.integers(0, 2, n)
    X = pd.DataFrame({f"f{j}": (rng.integers(0, 3, n) + y * j) % 3 for j in range(5)})
    X.insert(2, "flat", "v")  # a parent of others in a KDB: summing it out touches them
    model = KDB(k=2).fit(X, y)
    network = model.compiled_
    codes = model.encode(X.iloc[:40])[0].copy()
    codes[::2, 2] = -1
    codes[::3, 4] = -1
    assert network._one_state_columns == [2]
    got = network.joint_log_likelihood(codes)
    np.testing.assert_allclose(got, enumerated(network, codes), rtol=1e-12)
    np.testing.assert_allclose(got, network.marginal(codes), rtol=1e-12)


def test_summed_out_groups_equal_states_and_equals_the_plain_sum():
    from bnclassify.elimination import equal_rows, summed_out

    rng = np.random.default_rng(3)
    n_classes, states = 3, 40
    tables = [rng.normal(size=(k, n_classes, states)) for k in (1, 4, 6)]
    for t in tables:  # states 10.. alike for class 0 (an identifier unseen with it)
        t[:, 0, 10:] = t[:, 0, 10:11]
    tables[1][2, 1, 5] = -np.inf  # an impossible state for class 1 in some rows
    indices = [rng.integers(0, len(t), 30) for t in tables]
    summed = sum(t[i] for t, i in zip(tables, indices, strict=True))  # (n, C, states)
    got = summed_out(indices, tables, n_classes)
    np.testing.assert_allclose(got, logsumexp(summed, axis=2), rtol=1e-13)
    keys = np.concatenate([t[:, 0, :] for t in tables]).T
    first, sizes = equal_rows(keys)
    assert sorted(sizes.tolist()) == [1] * 10 + [30] and first[sizes == 30] == [10]
    # every state of a class impossible: -inf, without a warning
    tables[0][:, 2, :] = -np.inf
    assert np.isneginf(summed_out(indices, tables, n_classes)[:, 2]).all()


def test_equal_columns_groups_as_the_bytes_do(monkeypatch):
    from bnclassify import elimination
    from bnclassify.elimination import equal_columns, equal_rows

    rng = np.random.default_rng(5)
    n_classes, states = 3, 50

    def by_bytes(blocks):
        classes = np.repeat(np.arange(n_classes), states)[None, :].astype(float)
        first, sizes = equal_rows(np.concatenate([classes, *blocks]).T)
        order = np.argsort(first)
        return first[order].tolist(), sizes[order].tolist()

    blocks = [rng.normal(size=(k, n_classes * states)) for k in (1, 3, 5)]
    for b in blocks:  # class 0's states 10.. alike, class 2's 0-4 alike; class 1 all distinct
        b[:, 10:states] = b[:, 10:11]
        b[:, 2 * states : 2 * states + 5] = b[:, 2 * states : 2 * states + 1]
        b[:, states : 2 * states] = b[:, 0:states]  # class 1 equal to class 0: never joined
    first, sizes = equal_columns(blocks, n_classes)
    assert (first.tolist(), sizes.tolist()) == by_bytes(blocks)
    assert sizes[:11].tolist() == [1] * 10 + [40] and len(first) == 11 + 11 + 46
    # columns whose projections are equal but whose cells differ (a difference below the
    # projection's rounding): told apart by the comparison, as the bytes do
    near = [b.copy() for b in blocks]
    near[0][0, 10:states] = 1e20
    near[1][0, 12] += 1.0
    fallbacks = []
    monkeypatch.setattr(elimination, "equal_rows", lambda k: fallbacks.append(1) or equal_rows(k))
    assert [a.tolist() for a in equal_columns(near, n_classes)] == list(by_bytes(near))
    assert fallbacks == [1]
    # -inf cells (no projection): grouped by their bytes
    blocks[2][1, 20:30] = -np.inf
    got = equal_columns(blocks, n_classes)
    assert [a.tolist() for a in got] == list(by_bytes(blocks)) and fallbacks == [1, 1]


@pytest.mark.parametrize("model", [KDB(k=2), TAN()])
def test_an_identifier_parent_of_every_column_is_summed_out_exactly(model):
    """splice: an identifier unseen in every test row (missing) and a parent of every
    other column: its states never seen with a class are one term, counted (issue 32)."""
    X, y = _wide_table(n=240, m=6)
    X["id"] = [f"r{k // 2}" for k in range(len(X))]
    model.fit(X.iloc[:160], y.iloc[:160])
    codes, _ = model.encode(X.iloc[160:].assign(id=np.nan))
    codes[::4, 0] = -1  # another missing cell in some rows
    expected = enumerated(model.compiled_, codes[:8])
    np.testing.assert_allclose(
        model.compiled_.joint_log_likelihood(codes[:8]), expected, rtol=1e-12
    )


def test_rows_of_few_completions_are_scored_in_blocks_beside_planned_rows(monkeypatch):
    """Rows whose needed cells have at most ENUMERATED_STATES joint states are summed by
    scoring every completion, a block of rows at a time; the others are planned. Both kinds
    in one call, blocks of a few rows, a barren missing cell: each row equals the enumeration."""
    rng = np.random.default_rng(11)
    parents = [(), (0,), (0, 1), (1,), (2, 3), (4,)]
    tables = [np.log(rng.dirichlet(np.ones(3), size=(2, *(3 for _ in pa)))) for pa in parents]
    network = FittedNetwork.from_log_tables(np.log([0.4, 0.6]), parents, tables)
    codes = rng.integers(0, 3, (30, 6))
    codes[rng.random(codes.shape) < 0.35] = -1
    codes[:3] = [[-1, -1, -1, 0, 1, 2], [1, -1, 0, -1, -1, -1], [0, 1, 2, 0, 1, -1]]
    monkeypatch.setattr(network_module, "ENUMERATED_STATES", 9)  # two cells of 3 states
    monkeypatch.setattr(network_module, "ENUMERATED_GROUP_STATES", 0)  # every group planned
    monkeypatch.setattr(network_module, "ENUMERATED_GROUP_CELLS", 0)
    monkeypatch.setattr(network_module, "BLOCK_CELLS", 100)  # a few rows a block
    plans = []
    planned = FittedNetwork._elimination_plan
    monkeypatch.setattr(
        FittedNetwork, "_elimination_plan", lambda self, m: plans.append(m) or planned(self, m)
    )
    completed = []
    blocks = FittedNetwork._completions
    monkeypatch.setattr(
        FittedNetwork,
        "_completions",
        lambda self, *args: completed.append(len(args[0])) or blocks(self, *args),
    )
    got = network.joint_log_likelihood(codes)
    assert plans and len(completed) > 1 and min(completed) >= 1
    np.testing.assert_allclose(got, enumerated(network, codes), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("rows_per_table, n_rows", [(3, 2), (3, 40), (12, 40)])
def test_a_state_sum_prepared_once_equals_the_plain_sum_for_any_rows(rows_per_table, n_rows):
    """StateSum: the distinct terms and stacked tables prepared once, then summed for blocks
    of rows by each of its products (a few rows' picked rows; dense; sparse), impossible
    states included."""
    from bnclassify.elimination import StateSum, summed_out

    rng = np.random.default_rng(5)
    n_classes, states = 3, 70
    tables = [rng.normal(size=(rows_per_table, n_classes, states)) for _ in range(4)]
    for t in tables:  # states 20.. alike for class 1 (an identifier unseen with it)
        t[:, 1, 20:] = t[:, 1, 20:21]
    tables[2][1, 0, 3] = -np.inf
    prepared = StateSum(tables, n_classes)
    assert prepared.n_terms == 2 * states + 21
    for _ in range(2):
        indices = [rng.integers(0, rows_per_table, n_rows) for _ in tables]
        summed = sum(t[i] for t, i in zip(tables, indices, strict=True))  # (n, C, states)
        np.testing.assert_allclose(prepared(indices), logsumexp(summed, axis=2), rtol=1e-13)
        indices[1][::2] = -1  # no term of the second table in these rows
        summed = sum(
            np.where((i < 0)[:, None, None], 0.0, t[np.maximum(i, 0)])
            for t, i in zip(tables, indices, strict=True)
        )
        got = prepared(indices)
        np.testing.assert_allclose(got, logsumexp(summed, axis=2), rtol=1e-13)
        assert np.array_equal(got, summed_out(indices, tables, n_classes))


def test_the_prepared_sums_follow_the_tables_and_are_not_pickled():
    """A network keeps its identifier's prepared sum between blocks of rows and predictions
    (rows whose child's own cell is missing read no term of it), by the tables' identity: a
    table replaced is summed anew, and a pickle holds none."""
    import pickle

    X, y = _wide_table(n=240, m=6)
    X["id"] = [f"r{k // 2}" for k in range(len(X))]
    model = KDB(k=1).fit(X.iloc[:160], y.iloc[:160])
    network = model.compiled_
    codes, _ = model.encode(X.iloc[160:].assign(id=np.nan))
    codes[::4, 0] = -1  # a child's own cell missing in some rows: padded tables
    first = network.joint_log_likelihood(codes)
    np.testing.assert_allclose(first[:8], enumerated(network, codes[:8]), rtol=1e-12)
    assert len(network.__dict__.get("_sum_cache")) == 1  # every block, one prepared sum
    assert np.array_equal(network.joint_log_likelihood(codes), first)
    state = pickle.loads(pickle.dumps(network)).__dict__
    assert not {"_sum_cache", "_gather_cache"} & set(state)
    identifier = X.columns.get_loc("id")
    child = next(f for f in network.factors if identifier in f.parent_positions)
    child.log_table_ = child.log_table_[..., ::-1].copy()  # another table, another sum
    changed = network.joint_log_likelihood(codes[:8])
    assert not np.allclose(changed, first[:8])
    np.testing.assert_allclose(changed, enumerated(network, codes[:8]), rtol=1e-12)


def test_an_ensembles_prediction_with_an_identifier_missing_and_unseen_cells_is_exact():
    """ESKDB(k=1) on a table with an identifier (unseen at prediction, so summed out), other
    missing cells and an unseen category: its probabilities are the mean of its members'
    full networks summed over every completion of each row."""
    from bnclassify import ESKDB

    X, y = _wide_table(n=120, m=5)
    pairs = np.repeat(np.arange(120), 2)  # each row twice, one identifier: selected
    X, y = X.iloc[pairs].reset_index(drop=True), y.iloc[pairs].reset_index(drop=True)
    X["id"] = [f"r{k // 2}" for k in range(len(X))]
    X = X[["f0", "id", "f1", "f2", "f3", "f4"]]
    model = ESKDB(n_estimators=3, k=1, random_state=0, handle_unknown="marginalize")
    model.fit(X.iloc[:160], y.iloc[:160])
    for member in model.estimators_:  # 80 states, every other column's parent
        assert set(member.structure_.successors("id")) >= {"f0", "f1", "f3", "f4"}
    rows = X.iloc[160:172].copy()
    rows.iloc[::3, 2] = None
    rows.iloc[1, 3] = "never seen"
    expected = 0.0
    for member in model.estimators_:
        codes, _ = member.encode(rows)
        joint = enumerated(member.compiled_, codes)
        expected = expected + np.exp(joint - logsumexp(joint, axis=1, keepdims=True))
    np.testing.assert_allclose(model.predict_proba(rows), expected / 3, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("model", [KDB(k=2), KDB(k=1)])
def test_an_identifier_summed_out_with_other_missing_cells_in_every_pattern(model):
    """The identifier (80 states, unseen) missing with other cells at random: a child of it
    missing with an observed child of its own (a potential over both), a barren child (no
    term), or both in one row: each row equals the enumeration of its completions."""
    X, y = _wide_table(n=240, m=6)
    X.insert(0, "id", [f"r{k // 2}" for k in range(len(X))])
    model.fit(X.iloc[:160], y.iloc[:160])
    codes, _ = model.encode(X.iloc[160:].assign(id=np.nan))
    rng = np.random.default_rng(7)
    holes = rng.random(codes.shape) < 0.3
    holes[:, 0] = False
    codes[holes] = -1
    network = model.compiled_
    assert sum(0 in f.parent_positions for f in network.factors) >= 3
    rows = codes[:16]
    np.testing.assert_allclose(
        network.joint_log_likelihood(rows), enumerated(network, rows), rtol=1e-11
    )


@given(networks_and_rows(max_features=7, max_rows=6))
def test_groups_of_few_states_enumerated_equal_every_completion(case):
    """A row above ENUMERATED_STATES in all: its groups of missing cells that no node joins
    (each of few states) scored by their completions, all groups of all rows in one call,
    add up to the brute-force sum; the same with the groups planned."""
    network, codes = case
    with np.errstate(divide="ignore"):
        expected = enumerated(network, codes)
    finite = np.isfinite(expected)
    # every group planned; every group enumerated by its states, or by its states times its
    # rows (ENUMERATED_GROUP_CELLS); groups of few states or few cells enumerated, others not
    for states, cells in ((0, 0), (1 << 30, 0), (0, 1 << 30), (4, 12)):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(network_module, "ENUMERATED_STATES", 0)  # no row enumerated whole
            patch.setattr(network_module, "ENUMERATED_GROUP_STATES", states)
            patch.setattr(network_module, "ENUMERATED_GROUP_CELLS", cells)
            got = network.joint_log_likelihood(codes)
        assert (np.isfinite(got) == finite).all()
        np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-10, atol=1e-10)


def test_a_row_of_several_groups_adds_their_enumerated_sums(monkeypatch):
    """Two groups no node joins in one row (a naive Bayes: every missing cell its own
    group), and a chain joining two cells in another: each row equals the brute force,
    and the groups were enumerated (no plan)."""
    rng = np.random.default_rng(3)
    parents = [(), (), (1,), (), (3,)]
    tables = [np.log(rng.dirichlet(np.ones(3), size=(2, *(3 for _ in pa)))) for pa in parents]
    network = FittedNetwork.from_log_tables(np.log([0.3, 0.7]), parents, tables)
    codes = np.array([[-1, -1, 0, -1, 2], [0, -1, -1, 1, -1], [-1, 0, 1, -1, -1], [2, 2, 2, 2, 2]])
    monkeypatch.setattr(network_module, "ENUMERATED_STATES", 2)  # no row enumerated whole
    plans = []
    planned = FittedNetwork._elimination_plan
    monkeypatch.setattr(
        FittedNetwork, "_elimination_plan", lambda self, m: plans.append(m) or planned(self, m)
    )
    got = network.joint_log_likelihood(codes)
    assert not plans
    np.testing.assert_allclose(got, enumerated(network, codes), rtol=1e-12, atol=1e-12)


def test_log_states_is_the_potential_transposed_for_every_member_of_a_family():
    """``Categorical.log_states(codes, v)``: each row's index and the table by ``v``'s states'
    rows, equal to ``log_potential(codes, (v,))`` transposed, whichever axis of the family ``v``
    is (the first parent: a reshape in place; another parent or the node's own: a copy), and
    for a table not in C order (a loaded model's)."""
    X, y = _wide_table(n=200, m=8)
    model = KDB(k=2).fit(X, y)
    codes, _ = model.encode(X.iloc[:30])
    seen_axes = set()
    for factor in model.compiled_.factors:
        family = factor._family
        for tables in (factor.log_table_, np.asfortranarray(factor.log_table_)):
            factor.log_table_ = tables
            for axis, v in enumerate(family):
                seen_axes.add(min(axis, 1) if axis < len(family) - 1 else 2)
                index, table = factor.log_potential(codes, (v,))
                index_t, columns = factor.log_states(codes, v)
                assert np.array_equal(index, index_t)
                assert columns.flags.c_contiguous
                assert np.array_equal(table.reshape(len(table), -1).T, columns)
    assert seen_axes == {0, 1, 2}  # the first parent, a later one, the node's own


def test_equal_states_groups_as_the_bytes_do_wherever_the_equal_rows_are():
    """``equal_states`` (the tables by their states' rows) groups exactly the rows equal in
    every table, wherever they lie (a BLAS product may add the last rows' terms in another
    order and split a group), as ``equal_columns`` does for the transposes; and a StateSum
    built from them sums to the same bits as one built from the tables."""
    from bnclassify.elimination import StateSum, equal_columns, equal_rows, equal_states

    rng = np.random.default_rng(8)
    n_classes, states = 3, 1021  # an odd count: equal rows at the end of every block of rows
    tables = [rng.normal(size=(k, n_classes, states)) for k in (1, 4, 7, 64)]
    for t in tables:  # an identifier's states unseen with a class: every third, and the last
        t[:, 0, ::3] = t[:, 0, :1]
        t[:, 1, -17:] = t[:, 1, -1:]
        t[:, 2, 500:] = t[:, 2, 500:501]
    columns = [t.reshape(len(t), -1).T for t in tables]
    classes = np.repeat(np.arange(n_classes), states)[:, None].astype(float)
    first, sizes = equal_rows(np.concatenate([classes, *columns], axis=1))
    order = np.argsort(first)
    expected = first[order].tolist(), sizes[order].tolist()
    contiguous = [np.ascontiguousarray(c) for c in columns]
    assert [a.tolist() for a in equal_states(contiguous, n_classes)] == list(expected)
    blocks = [t.reshape(len(t), -1) for t in tables]
    assert [a.tolist() for a in equal_columns(blocks, n_classes)] == list(expected)
    assert len(expected[0]) == (states - (states + 2) // 3 + 1) + (states - 16) + 501
    indices = [rng.integers(0, len(t), 50) for t in tables]
    indices[2][::3] = -1
    got = StateSum.from_states(contiguous, n_classes)(indices)
    assert np.array_equal(got, StateSum(tables, n_classes)(indices))


@pytest.mark.parametrize("model", [KDB(k=2), KDB(k=3)])
def test_an_identifier_summed_alone_and_joined_to_other_missing_cells(model, monkeypatch):
    """An identifier unseen in every row is summed out by its StateSum where it is the rows'
    only missing cell near it, and with the others' cells where one of its children is missing
    too (the children's tables picked by its states' rows): each row equals the enumeration."""
    X, y = _wide_table(n=240, m=6)
    X["id"] = [f"r{k // 2}" for k in range(len(X))]
    model.fit(X.iloc[:160], y.iloc[:160])
    codes, _ = model.encode(X.iloc[160:].assign(id=np.nan))
    codes[1::3, :3] = -1  # the first columns missing too in some rows
    calls = {"alone": 0, "joined": 0}
    from_states = network_module.StateSum.from_states
    picked = network_module._picked_states

    def alone(*args):
        calls["alone"] += 1
        return from_states(*args)

    def joined(items):
        calls["joined"] += 1
        return picked(items)

    monkeypatch.setattr(network_module.StateSum, "from_states", alone)
    monkeypatch.setattr(network_module, "_picked_states", joined)
    monkeypatch.setattr(network_module, "ENUMERATED_GROUP_CELLS", 0)  # every group planned
    rows = codes[:12]
    got = model.compiled_.joint_log_likelihood(rows)
    assert calls["alone"] and calls["joined"]
    np.testing.assert_allclose(got, enumerated(model.compiled_, rows), rtol=1e-12)
