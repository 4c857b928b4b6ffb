"""AODE's subsumption resolution and WAODE: slow references written from Weka's AODEsr and
the papers, the mean of the SPODEs by hand, invariants, scikit-learn's checks."""

import copy

import numpy as np
import pandas as pd
import pytest
from _checks import parametrize_with_checks
from hypothesis import given, settings
from hypothesis import strategies as st

from bnclassify import AODE, WAODE, NaiveBayes, _native
from bnclassify.classifiers import SUBSUMPTION_MIN_COUNT, subsumed, value_pair_counts
from bnclassify.stats import training_statistics


def _weka_subsumed(codes, cards, rows, min_count):
    """Weka 3.6 AODEsr's specialisation-generalisation loop, one row at a time, with the
    pair counts recounted from the training ``rows`` (missing: -1)."""
    n, m = codes.shape
    out = np.zeros((n, m), dtype=bool)

    def count(i, a, j, b):
        return sum(1 for r in rows if r[i] == a and r[j] == b)

    for r in range(n):
        x = codes[r]
        general = [-1] * m
        for i in range(m):
            if x[i] < 0 or x[i] >= cards[i]:
                continue
            for j in range(m):
                if x[j] < 0 or x[j] >= cards[j] or i == j or general[j] == i:
                    continue
                freq_j = count(j, x[j], j, x[j])
                if freq_j > min_count and freq_j == count(i, x[i], j, x[j]):
                    if freq_j == count(i, x[i], i, x[i]) and i < j:
                        continue
                    general[i] = j
                    break
        out[r] = np.array(general) != -1
    return out


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    m=st.integers(2, 5),
    n=st.integers(5, 40),
    min_count=st.integers(0, 6),
)
def test_subsumed_is_wekas_loop(seed, m, n, min_count):
    rng = np.random.default_rng(seed)
    cards = rng.integers(1, 4, m)
    train = rng.integers(0, cards, (n, m))
    # copies and functions of other columns make subsumption common
    for j in range(1, m):
        if rng.random() < 0.4:
            source = rng.integers(0, j)
            train[:, j] = np.minimum(train[:, source], cards[j] - 1)
    train[rng.random((n, m)) < 0.1] = -1
    offsets = np.concatenate([[0], np.cumsum(cards)])[:-1]
    onehot = np.zeros((n, int(cards.sum())))
    for j in range(m):
        seen = train[:, j] >= 0
        onehot[np.flatnonzero(seen), offsets[j] + train[seen, j]] = 1.0
    pairs = onehot.T @ onehot
    test = np.vstack([train[:10], rng.integers(-1, cards + 1, (10, m))])  # unseen codes too
    expected = _weka_subsumed(test, cards, train.tolist(), min_count)
    np.testing.assert_array_equal(subsumed(test, cards, pairs, min_count), expected)


def _implied_table(n=160, seed=0):
    """Columns where one value implies another (``city`` -> ``region``), a near-constant
    column, a duplicate, noise; missing cells in the training rows."""
    rng = np.random.default_rng(seed)
    city = rng.choice(["c0", "c1", "c2", "c3", "c4"], n, p=[0.4, 0.3, 0.15, 0.1, 0.05])
    region = np.where(np.isin(city, ["c0", "c1"]), "north", "south").astype(object)
    region[rng.random(n) < 0.1] = rng.choice(["north", "south"], 1)[0]  # a few exceptions
    y = np.where(
        (city == "c0") ^ (rng.random(n) < 0.2), "yes", np.where(rng.random(n) < 0.5, "no", "maybe")
    )
    X = pd.DataFrame(
        {
            "city": city.astype(object),
            "region": region,
            "noise": rng.choice(["a", "b", "c"], n).astype(object),
            "flag": np.where(rng.random(n) < 0.97, "on", "off").astype(object),
            "twin": city.astype(object),
        }
    )
    X.iloc[5, 1] = None
    X.iloc[9, 2] = None
    return X, y


def _by_hand(model, rows, weights=None, skip=False):
    """log P(c, x) as the (weighted) mean of the SPODEs, each on its own; a deleted cell is
    missing for every SPODE, and a deleted super-parent's SPODE takes no part."""
    codes = model.encode(rows)[0]
    dropped = model._subsumed(codes)
    masked = rows.copy().astype(object)
    masked[pd.DataFrame(dropped, index=rows.index, columns=rows.columns)] = None
    weights = np.ones(len(model._hubs)) if weights is None else weights
    joint = np.stack([np.exp(m._joint_log_likelihood(masked)) for m in model.estimators_], axis=1)
    hub_codes = codes[:, model._hubs]
    frequent = np.stack(
        [model.frequencies_[k][np.maximum(hub_codes[:, k], 0)] >= 1 for k in range(len(weights))],
        axis=1,
    )
    eligible = np.where(hub_codes < 0, not skip, frequent)
    eligible &= ~dropped[:, model._hubs] & (weights > 0)
    w = eligible * weights
    return np.log((joint * w[:, :, None]).sum(axis=1) / w.sum(axis=1)[:, None]), dropped


@pytest.mark.parametrize("skip", [False, True])
@pytest.mark.parametrize("numeric", [False, True])  # the streamed path and the SPODEs' path
@pytest.mark.parametrize("cls", [AODE, WAODE])
def test_the_model_is_the_weighted_mean_of_its_spodes_after_deletion(cls, numeric, skip):
    X, y = _implied_table()
    params = {"subsumption": 10, "missing_superparents": "skip" if skip else "marginalize"}
    if numeric:
        X["size"] = np.random.default_rng(1).normal(size=len(X))
        params["distributions"] = "density"
    model = cls(**params).fit(X, y)
    assert ("_members" in vars(model)) == numeric
    rows = X.iloc[:60].copy()
    rows.iloc[::4, 0] = None  # a missing super-parent
    rows.iloc[1::5, 1] = None
    weights = getattr(model, "superparent_weights_", None)
    expected, dropped = _by_hand(model, rows, weights, skip)
    # region is implied by city; of the twins city and twin, the lower column survives
    assert dropped[:, 1].any() and dropped[:, 4].any() and not dropped[:, 0].any()
    np.testing.assert_allclose(model._joint_log_likelihood(rows), expected, rtol=1e-10)


def test_subsumption_changes_only_rows_with_a_deleted_value():
    X, y = _implied_table()
    plain = AODE().fit(X, y)
    resolved = AODE(subsumption=True).fit(X, y)
    dropped = resolved._subsumed(resolved.encode(X)[0])
    assert 0.2 < dropped.any(axis=1).mean() < 0.8  # values seen over 50 times subsume
    same = ~dropped.any(axis=1)
    np.testing.assert_allclose(
        resolved.predict_proba(X)[same], plain.predict_proba(X)[same], rtol=1e-12
    )
    # True is Weka's minimum count; a count above every value's frequency deletes nothing
    weka_default = AODE(subsumption=SUBSUMPTION_MIN_COUNT).fit(X, y)
    assert np.array_equal(resolved.predict_proba(X), weka_default.predict_proba(X))
    np.testing.assert_allclose(
        AODE(subsumption=len(X)).fit(X, y).predict_proba(X), plain.predict_proba(X), rtol=1e-12
    )


def test_subsumption_over_the_memory_budget_is_refused_naming_its_cost(monkeypatch):
    import bnclassify.classifiers._aode as aode_module

    X, y = _implied_table()
    monkeypatch.setattr(aode_module, "MAX_PAIRWISE_CELLS", 100)
    with pytest.raises(ValueError, match=r"17 categories .* 0 MB, over the budget of 100 cells"):
        AODE(subsumption=True).fit(X, y)
    AODE().fit(X, y)  # without the option, nothing is kept


def test_value_pair_counts_reads_any_statistics():
    X, y = _implied_table()
    schema, _, counts = training_statistics(X, y)
    pairs = value_pair_counts(counts, schema.cards, range(X.shape[1]), 3)
    codes = schema.encode(X, "error")[0]
    offsets = np.concatenate([[0], np.cumsum(schema.cards)])[:-1]
    onehot = np.zeros((len(X), pairs.shape[0]))
    for j in range(X.shape[1]):
        seen = codes[:, j] >= 0
        onehot[np.flatnonzero(seen), offsets[j] + codes[seen, j]] = 1.0
    np.testing.assert_array_equal(pairs, onehot.T @ onehot)


def test_waode_weights_are_the_mutual_information_with_the_class():
    X, y = _implied_table()
    model = WAODE().fit(X, y)
    for k, name in enumerate(model.superparents_):
        seen = X[name].notna()
        joint = pd.crosstab(X[name][seen], y[seen.to_numpy()]).to_numpy() / seen.sum()
        independent = joint.sum(axis=1, keepdims=True) * joint.sum(axis=0, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            mi = np.where(joint > 0, joint * np.log(joint / independent), 0.0).sum()
        assert model.superparent_weights_[k] == pytest.approx(mi, rel=1e-12)
    # equal weights are AODE
    flat = WAODE().fit(X, y)
    flat.superparent_weights_ = np.full(len(flat._hubs), 0.3)
    np.testing.assert_allclose(flat.predict_proba(X), AODE().fit(X, y).predict_proba(X), rtol=1e-12)


def test_waode_without_informative_superparents_is_naive_bayes():
    X = pd.DataFrame({"a": ["k"] * 40, "b": ["u"] * 39 + [None]})  # constant columns
    y = np.tile(["p", "q"], 20)
    model = WAODE().fit(X, y)
    assert (model.superparent_weights_ == 0).all()
    from bnclassify import NaiveBayes

    np.testing.assert_allclose(
        model.predict_proba(X), NaiveBayes().fit(X, y).predict_proba(X), rtol=1e-12
    )


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), cell=st.integers(0, 4))
def test_waode_invariants(seed, cell):
    """Probabilities sum to 1, a column order changes nothing, a missing cell is the sum
    over its categories (with ``missing_superparents="marginalize"``, whose SPODEs do not
    depend on which cells a row observes; the default leaves a missing super-parent's out)."""
    X, y = _implied_table(n=60, seed=seed % 1000)
    model = WAODE(missing_superparents="marginalize").fit(X, y)
    proba = model.predict_proba(X.iloc[:8])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    order = list(np.random.default_rng(seed).permutation(X.columns))
    reordered = WAODE(missing_superparents="marginalize").fit(X[order], y)
    np.testing.assert_allclose(reordered.predict_proba(X.iloc[:8][order]), proba, rtol=1e-10)
    row = X.iloc[[0]].copy()
    column = X.columns[cell]
    row.iloc[0, cell] = None
    total = 0.0
    for value in model.categories_[cell]:
        filled = row.copy()
        filled.iloc[0, cell] = value
        total = total + np.exp(model._joint_log_likelihood(filled))
    assert column in X.columns
    np.testing.assert_allclose(np.exp(model._joint_log_likelihood(row)), total, rtol=1e-10)


@pytest.mark.filterwarnings("ignore:AODE found no categorical feature:UserWarning")
@parametrize_with_checks([WAODE(), AODE(subsumption=True)])
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("make", [lambda: AODE(subsumption=10), lambda: WAODE()])
def test_partial_fit_and_exact_shap(make):
    """Chunks add up to the fit (the weights and pair counts from the summed statistics);
    exact Shapley values (2^5 coalitions, each the model's prediction with the rest
    missing) add up to the explained log-odds."""
    from bnclassify.explain import explain

    X, y = _implied_table()
    whole = make().fit(X, y)
    chunks = make().partial_fit(X[:70], y[:70], classes=np.unique(y)).partial_fit(X[70:], y[70:])
    np.testing.assert_allclose(chunks.predict_proba(X), whole.predict_proba(X), rtol=1e-10)
    rows = X.iloc[:6]
    shap = explain(whole, rows, method="conditional")
    log_proba = whole.predict_log_proba(rows)
    target = log_proba - log_proba.mean(axis=1, keepdims=True)
    total = shap.base_values + shap.values.sum(axis=1)
    np.testing.assert_allclose(total, target, atol=1e-9)


def _through_members(model):
    """The same fitted model predicting through its SPODEs, each fitted on its own (the slow
    path), instead of the compiled kernel over the kept pair table."""
    slow = copy.copy(model)
    slow.__dict__["_members"] = [model.estimators_[k] for k in range(len(model.superparents_))]
    del slow.__dict__["_pair_source"]
    return slow


@pytest.mark.filterwarnings("ignore::UserWarning")
@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    category=st.booleans(),
    weighted=st.booleans(),
    params=st.fixed_dictionaries(
        {
            "min_frequency": st.sampled_from([1, 4]),
            "missing_superparents": st.sampled_from(["marginalize", "skip"]),
            "subsumption": st.sampled_from([False, 5]),
            "alpha": st.sampled_from([1.0, 0.5]),
        }
    ),
    cls=st.sampled_from([AODE, WAODE]),
)
def test_the_compiled_joint_equals_the_numpy_one_and_the_spodes(
    seed, category, weighted, params, cls
):
    # object strings or categoricals, string labels, a numeric column (binned: a super-parent
    # too), missing cells in training and predicted rows, unseen values, sample weights
    rng = np.random.default_rng(seed)
    n, m = 120, 4
    X = pd.DataFrame(
        {f"x{j}": rng.choice(["a", "b", "c", "d"][: 2 + j % 3], n).astype(object) for j in range(m)}
    )
    X["size"] = rng.normal(size=n) + (X["x0"] == "a") * 2.0
    y = np.where((X["x0"] == "a") ^ (rng.random(n) < 0.2), "yes", "no").astype(object)
    y[rng.random(n) < 0.2] = "maybe"
    X = X.mask(rng.random(X.shape) < 0.08)
    rows = X.iloc[:50].copy()
    rows.iloc[::7, 1] = "unseen"
    rows = rows.mask(rng.random(rows.shape) < 0.1)
    if category:
        for j in range(m):
            X[f"x{j}"] = X[f"x{j}"].astype("category")
            rows[f"x{j}"] = pd.Categorical(
                rows[f"x{j}"].where(rows[f"x{j}"].isin(X[f"x{j}"].cat.categories)),
                categories=X[f"x{j}"].cat.categories,
            )
    weights = rng.random(n) + 0.5 if weighted else None
    model = cls(handle_unknown="marginalize", **params).fit(X, y, sample_weight=weights)
    assert "_pair_source" in vars(model)  # the kernel's path
    compiled = model.predict_proba(rows)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_native.runtime, "COMPILED", False)
        numpy = model.predict_proba(rows)
    spodes = _through_members(model).predict_proba(rows)
    np.testing.assert_allclose(compiled, numpy, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(compiled, spodes, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize(
    ("cls", "params"),
    [
        (AODE, {}),
        (AODE, {"missing_superparents": "marginalize"}),
        (AODE, {"min_frequency": 30}),
        (WAODE, {}),
        (AODE, {"alpha": 0.0}),  # not the symmetric form: blocks of the CPT
    ],
)
def test_predict_proba_is_the_exp_of_predict_log_proba(cls, params):
    # the streamed joint's probabilities come from the kernel's running log-sum-exp directly
    # (aode_proba); rows with no eligible super-parent (every cell missing) and impossible rows
    # go through the normalised joint, as predict_log_proba does
    rng = np.random.default_rng(3)
    n, m = 400, 6
    X = pd.DataFrame({f"x{j}": rng.choice(list("abcde")[: 2 + j % 4], n) for j in range(m)})
    y = np.where((X["x0"] == "a") ^ (rng.random(n) < 0.2), "yes", "no").astype(object)
    y[rng.random(n) < 0.3] = "maybe"
    rows = X.iloc[:60].mask(rng.random((60, m)) < 0.15)
    rows.iloc[::9, 2] = "unseen"
    model = cls(handle_unknown="marginalize", **params).fit(X, y)
    for some in (rows, rows.iloc[1:]):
        proba = model.predict_proba(some)
        np.testing.assert_allclose(proba, np.exp(model.predict_log_proba(some)), rtol=1e-13)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-14)
    rows.iloc[0] = np.nan  # no super-parent eligible (unless summed out): naive Bayes's joint
    proba = model.predict_proba(rows)
    np.testing.assert_allclose(proba, np.exp(model.predict_log_proba(rows)), rtol=1e-13)
    if model.missing_superparents != "marginalize":  # normalised alone, as before
        np.testing.assert_array_equal(proba[0], np.exp(model.predict_log_proba(rows))[0])
    naive_bayes = NaiveBayes(alpha=model.alpha, handle_unknown="marginalize").fit(X, y)
    np.testing.assert_allclose(proba[0], naive_bayes.predict_proba(rows.iloc[:1])[0], rtol=1e-12)


def test_the_prepared_tables_follow_alpha_refits_and_pickles():
    # the symmetric form's tables are prepared on the first prediction and kept: after a
    # changed alpha, a refit or a pickle the predictions are those of a model without them, to
    # the last bit
    import pickle

    rng = np.random.default_rng(0)
    n, m = 300, 5
    X = pd.DataFrame({f"x{j}": rng.choice(list("abcd")[: 2 + j % 3], n) for j in range(m)})
    y = np.where((X["x0"] == "a") ^ (rng.random(n) < 0.2), "yes", "no")
    rows = X.iloc[:40].mask(rng.random((40, m)) < 0.1)
    model = AODE().fit(X, y)
    first = model.predict_proba(rows)
    assert "_symmetric_cache" in vars(model)  # the symmetric form's path
    np.testing.assert_array_equal(model.predict_proba(rows), first)
    model.set_params(alpha=0.5)  # as a model whose tables were never prepared reads it
    np.testing.assert_array_equal(
        model.predict_proba(rows), AODE().fit(X, y).set_params(alpha=0.5).predict_proba(rows)
    )
    copied = pickle.loads(pickle.dumps(model))
    assert "_symmetric_cache" not in vars(copied)
    np.testing.assert_array_equal(copied.predict_proba(rows), model.predict_proba(rows))
    other = X.sample(frac=1.0, replace=True, random_state=1)
    model.fit(other, y)
    np.testing.assert_array_equal(
        model.predict_proba(rows), AODE(alpha=0.5).fit(other, y).predict_proba(rows)
    )
    assert not (first == model.predict_proba(rows)).all()
