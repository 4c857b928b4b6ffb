"""Hidden naive Bayes: a slow reference from the paper, invariants, persistence, explanations."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bnclassify import HNB
from bnclassify.datasets import load_car
from bnclassify.explain import explain
from bnclassify.io import dump, load


def random_table(seed, n_rows=40, n_features=4, missing=0.1):
    """Small categorical table of strings with missing cells, and string labels."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], size=n_rows)
    columns = {}
    for j in range(n_features):
        card = int(rng.integers(2, 5))
        # tied to the class a little, so the weights differ
        codes = (rng.integers(0, card, size=n_rows) + (y == "a") * (j % 2)) % card
        cells = np.array([f"v{c}" for c in codes], dtype=object)
        cells[rng.random(n_rows) < missing] = None
        columns[f"f{j}"] = cells
    return pd.DataFrame(columns), y


def slow_hnb(X, y, rows, m=1.0):
    """HNB straight from the paper (Jiang, Zhang and Cai 2009), loops over rows and pairs.

    Each pair of features is counted on the rows observing both; a missing cell of a row
    to classify leaves the product and the other features' mixtures.
    """
    X = X.astype(object).where(X.notna(), None)
    features = list(X.columns)
    classes = sorted(set(y))
    values = {f: sorted({v for v in X[f] if v is not None}) for f in features}
    pair, single, class_count = {}, {}, {c: 0.0 for c in classes}
    for r in range(len(X)):
        c = y[r]
        class_count[c] += 1
        for fi in features:
            a = X[fi].iloc[r]
            if a is None:
                continue
            single[c, fi, a] = single.get((c, fi, a), 0) + 1
            for fj in features:
                b = X[fj].iloc[r]
                if fj != fi and b is not None:
                    pair[c, fi, a, fj, b] = pair.get((c, fi, a, fj, b), 0) + 1

    def cmi(fi, fj):
        cells = {
            (c, a, b): pair.get((c, fi, a, fj, b), 0)
            for c in classes
            for a in values[fi]
            for b in values[fj]
        }
        n = sum(cells.values())
        total = 0.0
        for (c, a, b), count in cells.items():
            if count:
                n_c = sum(cells[c, a2, b2] for a2 in values[fi] for b2 in values[fj])
                n_ca = sum(cells[c, a, b2] for b2 in values[fj])
                n_cb = sum(cells[c, a2, b] for a2 in values[fi])
                total += count / n * np.log(count * n_c / (n_ca * n_cb))
        return total

    weights = {(fi, fj): cmi(fi, fj) for fi in features for fj in features if fi != fj}
    n = sum(class_count.values())
    out = []
    for r in rows.itertuples(index=False):
        row = dict(zip(features, r, strict=True))
        seen = [f for f in features if row[f] is not None and row[f] in values[f]]
        scores = []
        for c in classes:
            p = (class_count[c] + m / len(classes)) / (n + m)
            for fi in seen:
                a, k = row[fi], len(values[fi])
                total_w = sum(weights[fi, fj] for fj in seen if fj != fi)
                if total_w > 0:
                    mixture = 0.0
                    for fj in seen:
                        if fj == fi:
                            continue
                        b = row[fj]
                        n_cb = sum(pair.get((c, fi, a2, fj, b), 0) for a2 in values[fi])
                        estimate = (pair.get((c, fi, a, fj, b), 0) + m / k) / (n_cb + m)
                        mixture += weights[fi, fj] * estimate
                    p *= mixture / total_w
                else:
                    n_c = sum(single.get((c, fi, a2), 0) for a2 in values[fi])
                    p *= (single.get((c, fi, a), 0) + m / k) / (n_c + m)
            scores.append(p)
        scores = np.array(scores)
        out.append(scores / scores.sum())
    return np.array(out)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("m", [1.0, 0.5])
def test_equals_the_slow_reference(seed, m):
    X, y = random_table(seed)
    test, _ = random_table(seed + 100, n_rows=15, missing=0.3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unseen categories of the test rows read as missing
        got = HNB(m=m, handle_unknown="marginalize").fit(X, y).predict_proba(test)
    np.testing.assert_allclose(got, slow_hnb(X, y, test, m), rtol=0, atol=1e-12)


def test_weights_are_normalised_conditional_mutual_information():
    X, y = random_table(3, missing=0.0)
    model = HNB().fit(X, y)
    cmi = model.conditional_mutual_information_
    assert np.allclose(cmi, cmi.T) and not np.diagonal(cmi).any()
    assert np.allclose(model.weights_, cmi / cmi.sum(axis=1, keepdims=True))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), drop=st.integers(0, 3), order=st.permutations(range(4)))
def test_missing_cell_is_the_model_without_the_column(seed, drop, order):
    """A missing cell equals the HNB fitted on the other columns; the column order does not
    matter; every row sums to 1."""
    X, y = random_table(seed, missing=0.05)
    model = HNB().fit(X, y)
    rows = X.iloc[:6].copy()
    rows.iloc[:, drop] = None
    proba = model.predict_proba(rows)
    alone = HNB().fit(X.drop(columns=X.columns[drop]), y)
    np.testing.assert_allclose(proba, alone.predict_proba(rows), rtol=0, atol=1e-12)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    shuffled = HNB().fit(X.iloc[:, list(order)], y)
    np.testing.assert_allclose(
        shuffled.predict_proba(X), model.predict_proba(X), rtol=0, atol=1e-12
    )


def test_partial_fit_and_sample_weight_equal_fit():
    X, y = random_table(4)
    whole = HNB().fit(X, y)
    chunks = HNB().partial_fit(X[:20], y[:20], classes=["a", "b", "c"])
    chunks.partial_fit(X[20:], y[20:])
    np.testing.assert_allclose(chunks.predict_proba(X), whole.predict_proba(X), atol=1e-12)
    doubled = HNB().fit(pd.concat([X, X[:10]]), np.r_[y, y[:10]])
    weighted = HNB().fit(X, y, sample_weight=np.r_[np.full(10, 2.0), np.ones(30)])
    np.testing.assert_allclose(weighted.predict_proba(X), doubled.predict_proba(X), atol=1e-12)


def test_model_file_and_pickle_round_trip(tmp_path):
    import pickle

    X, y = load_car(return_X_y=True)
    model = HNB(m=0.5).fit(X, y)
    dump(model, tmp_path / "hnb.bnc")
    for again in (load(tmp_path / "hnb.bnc"), pickle.loads(pickle.dumps(model))):
        assert again.get_params() == model.get_params()
        np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))


def test_exact_shap_adds_up():
    X, y = random_table(5, missing=0.0)
    y = np.where(y == "a", "a", "b")
    model = HNB().fit(X, y)
    explanation = explain(model, X[:5], X[:30])
    proba = model.predict_proba(X[:5])
    total = explanation.base_values + explanation.values.sum(axis=1)
    np.testing.assert_allclose(total, np.log(proba[:, 1] / proba[:, 0]), atol=1e-9)


def test_continuous_columns_are_binned_and_unknowns_refused_when_asked():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.normal(size=200), "k": rng.choice(["p", "q"], 200)})
    y = np.where(X["x"] + rng.normal(scale=0.5, size=200) > 0, "hi", "lo")
    model = HNB(handle_unknown="error").fit(X, y)
    assert model.feature_kinds_ == ["binned", "categorical"]
    assert model.score(X, y) > 0.7
    with pytest.raises(ValueError, match="'r'"):
        model.predict(pd.DataFrame({"x": [0.0], "k": ["r"]}))


def test_a_pair_table_too_large_is_refused_naming_its_size():
    # 2 classes x (1500 + 1500)^2 categories: 18e6 cells, each value twice (not a key)
    codes = np.arange(3000) // 2
    X = pd.DataFrame({"a": [f"a{i}" for i in codes], "b": [f"b{i}" for i in codes[::-1]]})
    with pytest.raises(ValueError, match=r"HNB keeps the pair table: .* 144 MB"):
        HNB().fit(X, np.arange(3000) % 2)


@pytest.mark.parametrize("m", [0, -1.0, np.inf, "1"])
def test_bad_m_is_refused(m):
    X, y = random_table(0)
    with pytest.raises((ValueError, TypeError), match="m"):
        HNB(m=m).fit(X, y)


def test_a_column_of_one_category_changes_nothing():
    X, y = random_table(7)
    with_constant = X.assign(k="same")
    np.testing.assert_allclose(
        HNB().fit(with_constant, y).predict_proba(with_constant),
        HNB().fit(X, y).predict_proba(X),
        rtol=0,
        atol=1e-12,
    )
