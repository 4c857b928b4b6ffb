"""KDB, SPODE and AODE: by-hand references, pgmpy agreement, exact marginalisation."""

import itertools
import math
from collections import Counter

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from _checks import parametrize_with_checks
from _reference import cpd_as_dict, slow_cmi
from hypothesis import given, settings
from hypothesis import strategies as st
from pgmpy.inference import VariableElimination
from pgmpy.models import DiscreteBayesianNetwork
from pgmpy.parameter_estimator import DiscreteBayesianEstimator

import bnclassify._native.averaging as averaging_module
from bnclassify import AODE, KDB, SPODE, TAN, NaiveBayes, _native
from bnclassify.datasets import load_car, load_lactamase, load_p450, load_vote


def feature_parents(model):
    return {
        f: [p for p in model.structure_.predecessors(f) if p != model.class_node_]
        for f in model.feature_names_
    }


def slow_class_mi(X, y):
    """I(X_i; C) in nats by counting row by row (rows observing X_i)."""
    out = {}
    for name in X.columns:
        rows = [(x, c) for x, c in zip(X[name], y, strict=True) if not pd.isna(x)]
        n = len(rows)
        joint, nx_, nc = Counter(rows), Counter(x for x, _ in rows), Counter(c for _, c in rows)
        out[name] = sum(k / n * math.log(k * n / (nx_[x] * nc[c])) for (x, c), k in joint.items())
    return pd.Series(out)


def slow_kdb_parents(X, y, k):
    """Sahami's rule, written out: rank by I(X;C), take the k strongest earlier features."""
    cmi, mi = slow_cmi(X, y), slow_class_mi(X, y)
    order = sorted(X.columns, key=lambda f: -mi[f])
    parents = {}
    for rank, child in enumerate(order):
        earlier = sorted(order[:rank], key=lambda f: -cmi.loc[child, f])
        parents[child] = earlier[:k]
    return order, parents


# -- KDB ----------------------------------------------------------------------------------
@pytest.mark.parametrize("load", [load_car, load_p450, load_vote])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_kdb_structure_equals_a_slow_reference(load, k):
    X, y = load(return_X_y=True)
    order, parents = slow_kdb_parents(X, y, k)
    model = KDB(k=k).fit(X, y)
    assert model.order_ == order
    assert {f: sorted(p) for f, p in feature_parents(model).items()} == {
        f: sorted(p) for f, p in parents.items()
    }


@settings(max_examples=25, deadline=None)
@given(
    k=st.integers(0, 4),
    m=st.integers(1, 7),
    seed=st.integers(0, 2**16),
)
def test_kdb_gives_each_feature_at_most_k_feature_parents(k, m, seed):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 3, size=(80, m)), columns=[f"f{i}" for i in range(m)])
    y = rng.integers(0, 2, size=80)
    y[:2] = [0, 1]
    model = KDB(k=k).fit(X, y)
    parents = feature_parents(model)
    for rank, feature in enumerate(model.order_):
        assert len(parents[feature]) == min(k, rank)
        assert set(parents[feature]) <= set(model.order_[:rank])
    assert nx.is_directed_acyclic_graph(model.structure_)


@pytest.mark.parametrize("load", [load_car, load_vote])
def test_kdb_with_k_zero_is_naive_bayes(load):
    X, y = load(return_X_y=True)
    kdb, nb = KDB(k=0).fit(X, y), NaiveBayes().fit(X, y)
    assert set(kdb.structure_.edges()) == set(nb.structure_.edges())
    assert kdb.weights_ is None
    np.testing.assert_allclose(kdb.predict_proba(X), nb.predict_proba(X), rtol=0, atol=1e-12)


@pytest.mark.parametrize("load", [load_p450, load_lactamase, load_car, load_vote])
def test_kdb_with_k_one_is_a_tree_no_heavier_than_tans(load):
    X, y = load(return_X_y=True)
    kdb, tan = KDB(k=1).fit(X, y), TAN(criterion="loglik").fit(X, y)
    tree = nx.Graph(kdb.structure_.subgraph(kdb.feature_names_).to_undirected())
    assert nx.is_tree(tree) and tree.number_of_edges() == X.shape[1] - 1
    root = [f for f, p in feature_parents(kdb).items() if not p]
    assert root == [kdb.order_[0]] == [slow_class_mi(X, y).idxmax()]
    cmi = tan.weights_

    def weight(model):
        return sum(cmi.loc[a, b] for a, b in model.structure_.subgraph(model.feature_names_).edges)

    assert weight(kdb) <= weight(tan) + 1e-12


def test_kdb_with_the_columns_order_is_the_studys_tan_tree():
    # SOURCES.md: the study's TAN on P450 is block1 -> block2..block7, block7 -> block8
    X, y = load_p450(return_X_y=True)
    model = KDB(k=1, order=list(X.columns)).fit(X, y)
    arcs = {(p, f) for f, ps in feature_parents(model).items() for p in ps}
    assert arcs == {("block1", f"block{i}") for i in range(2, 8)} | {("block7", "block8")}
    by_position = KDB(k=1, order=list(range(8))).fit(X, y)
    assert set(by_position.structure_.edges()) == set(model.structure_.edges())


def _pgmpy_data(X, y, class_node):
    data = pd.concat([X, pd.Series(y, index=X.index, name=class_node)], axis=1).astype(object)
    return data.where(data.notna(), np.nan)


def _pgmpy_network(model, X, y, alpha=1.0):
    reference = DiscreteBayesianNetwork(model.structure_.edges())
    estimator = DiscreteBayesianEstimator(prior_type="dirichlet", pseudo_counts=alpha)
    reference.add_cpds(*estimator.fit(reference, _pgmpy_data(X, y, model.class_node_)).parameters_)
    return reference


def _assert_same_cpds(ours, reference):
    for cpd in reference.get_cpds():
        expected, got = cpd_as_dict(cpd), cpd_as_dict(ours.get_cpds(cpd.variable))
        assert got.keys() == expected.keys()
        np.testing.assert_allclose([got[k] for k in expected], list(expected.values()), atol=1e-12)


def _ve(network, rows, class_node, classes):
    inference = VariableElimination(network)
    out = []
    for _, row in rows.iterrows():
        evidence = {k: v for k, v in row.items() if not pd.isna(v)}
        factor = inference.query([class_node], evidence=evidence, show_progress=False)
        out.append([factor.get_value(**{class_node: c}) for c in classes])
    return np.array(out)


@pytest.mark.parametrize("model", [KDB(k=2), KDB(k=3), SPODE(superparent="el_salvador_aid")])
def test_single_networks_equal_pgmpy_with_missing_values(model):
    X, y = load_vote(return_X_y=True)
    model.fit(X, y)
    reference = _pgmpy_network(model, X, y)
    _assert_same_cpds(model.network_, reference)
    rows = X[X.isna().any(axis=1)].iloc[:25]
    assert rows.isna().sum(axis=1).max() >= 3
    expected = _ve(reference, rows, model.class_node_, model.classes_.tolist())
    np.testing.assert_allclose(model.predict_proba(rows), expected, rtol=0, atol=1e-10)


def test_spode_structure():
    X, y = load_car(return_X_y=True)
    model = SPODE(superparent=-1).fit(X, y)
    hub = X.columns[-1]
    assert feature_parents(model) == {f: ([] if f == hub else [hub]) for f in X.columns}


# -- AODE ---------------------------------------------------------------------------------
def _small_table():
    rng = np.random.default_rng(5)
    n = 70
    X = pd.DataFrame(
        {
            "a": rng.choice(["a0", "a1", "a2"], n, p=[0.5, 0.45, 0.05]),
            "b": rng.choice(["b0", "b1"], n),
            "c": rng.choice(["c0", "c1", "c2"], n, p=[0.6, 0.35, 0.05]),
            "d": rng.choice(["d0", "d1"], n, p=[0.93, 0.07]),
        }
    )
    y = np.where(rng.random(n) < 0.4, "pos", "neg")
    X = X.astype(object)
    X.iloc[3, 1] = np.nan  # training cells missing too
    X.iloc[8, 2] = np.nan
    return X, pd.Series(y, name="label")


def _slow_aode_joint(X, y, row, alpha, min_frequency):
    """AODE joint P(c, x) for one complete row, counted from the rows one at a time."""
    names = list(X.columns)
    records = [dict(zip(names, values, strict=True)) for values in X.itertuples(index=False)]
    labels = list(y)
    classes = sorted(set(labels))
    categories = {f: sorted({r[f] for r in records if not pd.isna(r[f])}) for f in names}

    def observed(r, *features):
        return all(not pd.isna(r[f]) for f in features)

    def prior(c):
        return (labels.count(c) + alpha) / (len(labels) + alpha * len(classes))

    def given_class(f, v, c):
        rows = [r for r, lab in zip(records, labels, strict=True) if lab == c and observed(r, f)]
        hits = sum(r[f] == v for r in rows)
        return (hits + alpha) / (len(rows) + alpha * len(categories[f]))

    def given_class_and(f, v, c, p, pv):
        rows = [
            r
            for r, lab in zip(records, labels, strict=True)
            if lab == c and observed(r, f, p) and r[p] == pv
        ]
        hits = sum(r[f] == v for r in rows)
        return (hits + alpha) / (len(rows) + alpha * len(categories[f]))

    frequency = {f: Counter(r[f] for r in records if observed(r, f)) for f in names}
    eligible = [sp for sp in names if frequency[sp][row[sp]] >= min_frequency]
    out = {}
    for c in classes:
        if eligible:
            total = 0.0
            for sp in eligible:
                term = prior(c) * given_class(sp, row[sp], c)
                for f in names:
                    if f != sp:
                        term *= given_class_and(f, row[f], c, sp, row[sp])
                total += term
            out[c] = total / len(eligible)
        else:  # no frequent super-parent value: naive Bayes
            out[c] = prior(c) * math.prod(given_class(f, row[f], c) for f in names)
    return out


@pytest.mark.parametrize(
    ("min_frequency", "partial", "fallback"),
    [(1, 0, 0), (4, 20, 0), (40, 24, 12)],  # rows of the grid with some / no super-parent
)
@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_aode_equals_a_slow_reference(min_frequency, partial, fallback, alpha):
    X, y = _small_table()
    model = AODE(alpha=alpha, min_frequency=min_frequency).fit(X, y)
    grid = pd.DataFrame(
        list(itertools.product(*[sorted(X[f].dropna().unique()) for f in X.columns])),
        columns=X.columns,
    )
    expected = []
    for _, row in grid.iterrows():
        joint = _slow_aode_joint(X, y, row, alpha, min_frequency)
        expected.append([joint[c] for c in model.classes_])
    expected = np.array(expected)
    np.testing.assert_allclose(
        np.exp(model._joint_log_likelihood(grid)), expected, rtol=1e-12, atol=0
    )
    np.testing.assert_allclose(
        model.predict_proba(grid), expected / expected.sum(axis=1, keepdims=True), atol=1e-12
    )
    # the frequency rule is exercised: some rows lose super-parents, some fall back to NB
    codes = model.encode(grid)[0]
    eligible = np.stack(
        [model.frequencies_[i][codes[:, i]] >= min_frequency for i in range(X.shape[1])], axis=1
    ).sum(axis=1)
    assert ((eligible > 0) & (eligible < X.shape[1])).sum() == partial
    assert (eligible == 0).sum() == fallback


def test_aode_sums_missing_values_out_exactly():
    # the exact marginal of the average: a missing super-parent's SPODE kept, summed out
    X, y = _small_table()
    model = AODE(missing_superparents="marginalize").fit(X, y)
    row = pd.DataFrame([{"a": "a1", "b": np.nan, "c": np.nan, "d": "d0"}], dtype=object)
    completions = pd.DataFrame(
        [{"a": "a1", "b": b, "c": c, "d": "d0"} for b in ["b0", "b1"] for c in ["c0", "c1", "c2"]]
    )
    joint = np.exp(model._joint_log_likelihood(completions)).sum(axis=0)
    np.testing.assert_allclose(np.exp(model._joint_log_likelihood(row))[0], joint, rtol=1e-12)
    np.testing.assert_allclose(model.predict_proba(row)[0], joint / joint.sum(), atol=1e-12)
    # an unseen category is the same as a missing cell under handle_unknown="marginalize"
    lenient = AODE(handle_unknown="marginalize", missing_superparents="marginalize").fit(X, y)
    unseen = row.fillna({"b": "b9", "c": "c9"})
    np.testing.assert_allclose(lenient.predict_proba(unseen), model.predict_proba(row), atol=1e-12)


@pytest.mark.parametrize("missing", ["skip", "marginalize"])
def test_aode_on_data_with_missing_values_is_the_mean_of_its_spodes(missing):
    """``"marginalize"``: the mean of every SPODE; ``"skip"`` (the default): of the SPODEs
    whose super-parent the row observes."""
    X, y = load_vote(return_X_y=True)
    model = AODE(missing_superparents=missing).fit(X, y)
    rows = X[X.isna().any(axis=1) & X.notna().any(axis=1)]  # an empty row: naive Bayes
    joints = np.stack([np.exp(m._joint_log_likelihood(rows)) for m in model.estimators_], axis=1)
    taking_part = np.ones(joints.shape[:2], dtype=bool)
    if missing == "skip":
        taking_part = rows[model.superparents_].notna().to_numpy()
    joint = (joints * taking_part[:, :, None]).sum(axis=1) / taking_part.sum(axis=1)[:, None]
    np.testing.assert_allclose(
        model.predict_proba(rows), joint / joint.sum(axis=1, keepdims=True), atol=1e-12
    )
    assert missing == "marginalize" or AODE().missing_superparents == missing


def test_aode_members_are_real_spodes_sharing_one_pair_table():
    X, y = load_car(return_X_y=True)
    model = AODE().fit(X, y)
    assert [m.superparent for m in model.estimators_] == list(X.columns)
    for member in model.estimators_:
        alone = SPODE(superparent=member.superparent).fit(X, y)
        np.testing.assert_allclose(member.predict_proba(X), alone.predict_proba(X), atol=1e-12)
        assert member.network_.check_model()
    assert isinstance(model.naive_bayes_, NaiveBayes)
    np.testing.assert_array_equal(model.frequencies_[0], X["buying"].value_counts().sort_index())


@pytest.mark.parametrize(
    ("model", "message"),
    [
        (KDB(k=-1), "k must be an integer >= 0"),
        (KDB(k=1.5), "k must be an integer >= 0"),
        (KDB(k=True), "k must be an integer >= 0"),
        (KDB(order=["block1", "block2"]), "order must list every feature exactly once"),
        (KDB(order=["block1"] * 8), "order must list every feature exactly once"),
        (KDB(order=["nope", *[f"block{i}" for i in range(2, 9)]]), "'nope', which is not"),
        (KDB(order=list(range(20, 28))), "position 20"),
        (SPODE(superparent="nope"), "superparent='nope'"),
        (AODE(min_frequency=-1), "min_frequency must be an integer >= 0"),
        (AODE(alpha=-1), "alpha"),
    ],
)
def test_bad_parameters_raise_clear_errors(model, message):
    X, y = load_p450(return_X_y=True)
    with pytest.raises(ValueError, match=message):
        model.fit(X, y)


def test_prediction_errors_name_aode():
    X, y = load_p450(return_X_y=True)
    model = AODE().fit(X, y)
    with pytest.raises(ValueError, match="X has 2 features, but AODE is expecting 8"):
        model.predict(X.to_numpy()[:, :2])


# scikit-learn's checks fit continuous data, where SPODE and AODE rightly warn that they are
# naive Bayes
@pytest.mark.filterwarnings("ignore:SPODE found no categorical feature:UserWarning")
@pytest.mark.filterwarnings("ignore:AODE found no categorical feature:UserWarning")
@parametrize_with_checks(
    [
        KDB(k=2),
        KDB(k=2, distributions="density"),
        SPODE(),
        AODE(),
        AODE(min_frequency=3),
        AODE(distributions="density"),
    ]
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("missing", ["skip", "marginalize"])
@pytest.mark.parametrize("alpha", [1.0, 0.0])
@pytest.mark.parametrize("min_frequency", [1, 30])
def test_aode_with_one_category_columns_is_the_mean_of_its_spodes(min_frequency, alpha, missing):
    # one-category columns (binned columns with no cut): always observed (one SPODE
    # standing for three), missing in some training rows (a SPODE of its own), seen fewer
    # times than min_frequency=30 (never grouped); missing cells in the rows predicted
    X, y = _small_table()
    n = len(X)
    for name in ("k1", "k2", "k3"):
        X[name] = "only"
    X["gappy"] = np.where(np.arange(n) % 7 == 0, None, "only")
    X["rare"] = np.where(np.arange(n) < 20, "only", None)
    model = AODE(alpha=alpha, min_frequency=min_frequency, missing_superparents=missing)
    model.fit(X, y)
    assert "_pair_source" in vars(model)  # the streamed path
    rows = X.iloc[:30].copy()
    rows.iloc[::3, 0] = np.nan  # a missing multi-category super-parent
    rows.iloc[1::4, 4] = np.nan  # a missing grouped one-category super-parent
    rows.iloc[2::5, 7] = np.nan
    joint = np.stack([np.exp(m._joint_log_likelihood(rows)) for m in model.estimators_], axis=1)
    codes = model.encode(rows)[0]
    eligible = np.stack(
        [
            np.where(
                codes[:, i] < 0,
                missing == "marginalize",
                model.frequencies_[k][np.maximum(codes[:, i], 0)] >= min_frequency,
            )
            for k, i in enumerate(model._hubs)
        ],
        axis=1,
    )
    # "rare" drops out when observed at 30; with "skip" a missing super-parent does too
    assert eligible.all() == (min_frequency == 1 and missing == "marginalize")
    expected = (joint * eligible[:, :, None]).sum(axis=1) / eligible.sum(axis=1)[:, None]
    np.testing.assert_allclose(
        np.exp(model._joint_log_likelihood(rows)), expected, rtol=1e-12, atol=0
    )


@pytest.mark.parametrize(
    "full_product_states, compiled", [(0, False), (3, False), (16, False), (16, True)]
)
@pytest.mark.parametrize("alpha", [1.0, 0.0])
def test_aode_scores_every_way_as_the_mean_of_its_spodes(
    monkeypatch, full_product_states, compiled, alpha
):
    # the mean of every SPODE, missing super-parents summed out ("marginalize"): the compiled
    # kernel, and the numpy one with super-parents scored at all their
    # categories (at most full_product_states of them) and at each row's own only, in one
    # block and in chunks of rows; a 20-category column and missing cells (super-parents and
    # children) in the rows predicted
    if compiled and _native.runtime.kernels is None:
        pytest.skip("the compiled extension is not built")
    X, y = _small_table()
    X["many"] = [f"m{i % 20}" for i in range(len(X))]
    monkeypatch.setattr(_native.runtime, "COMPILED", compiled)
    monkeypatch.setattr(averaging_module, "FULL_PRODUCT_STATES", full_product_states)
    monkeypatch.setattr(averaging_module, "CHUNK_ROWS", 7)
    model = AODE(alpha=alpha, missing_superparents="marginalize").fit(X, y)
    assert "_pair_source" in vars(model)  # the streamed path
    rows = X.iloc[:40].copy()
    rows.iloc[::3, 0] = np.nan
    rows.iloc[1::4, 4] = np.nan
    rows.iloc[2::5, 2] = np.nan
    joint = np.mean([np.exp(m._joint_log_likelihood(rows)) for m in model.estimators_], axis=0)
    np.testing.assert_allclose(np.exp(model._joint_log_likelihood(rows)), joint, rtol=1e-12)
