"""AnDE: n=1 is AODE; n=2 (A2DE) against a slow reference written from the paper."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bnclassify import AODE, AnDE
from bnclassify.datasets import load_car
from bnclassify.io import dump, load


def small_table(seed, n_rows=50, n_features=4, missing=0.1):
    """Categorical strings with missing cells (None), tied to the class on odd columns."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n_rows)
    columns = {}
    for j in range(n_features):
        card = 2 + j % 3
        codes = (rng.integers(0, card, size=n_rows) + y * (j % 2)) % card
        cells = np.array([f"c{v}" for v in codes], dtype=object)
        cells[rng.random(n_rows) < missing] = None
        columns[f"x{j}"] = cells
    return pd.DataFrame(columns), np.array(["p", "q", "r"])[y]


def deleted_by_subsumption(X, row, min_count):
    """The features whose value in ``row`` subsumption resolution deletes, by its definition:
    x_i goes when some other x_j of the row has N(x_j) > min_count and N(x_i, x_j) = N(x_j),
    unless N(x_i) = N(x_j) and i comes first."""
    features = list(X.columns)
    gone = set()
    for fi, fj in itertools.permutations(features, 2):
        xi, xj = row[fi], row[fj]
        if xi is None or xj is None:
            continue
        n_j = int((X[fj] == xj).sum())
        n_ij = int(((X[fi] == xi) & (X[fj] == xj)).sum())
        n_i = int((X[fi] == xi).sum())
        mutual = n_i == n_j and features.index(fi) < features.index(fj)
        if n_j > min_count and n_ij == n_j and not mutual:
            gone.add(fi)
    return gone


def slow_a2de(X, y, rows, alpha=1.0, min_frequency=1, subsumption=False):
    """A2DE from Webb et al. (2012), loops over rows, pairs of parents and their states.

    Laplace estimates on the rows observing each family; a missing parent summed over its
    values; a row with no pair passing the frequency limit backs off to AODE.
    """
    X = X.astype(object).where(X.notna(), None)
    rows = rows.astype(object).where(rows.notna(), None)
    features = list(X.columns)
    data = [dict(zip(features, r, strict=True)) for r in X.itertuples(index=False)]
    classes = sorted(set(y))
    values = {f: sorted({d[f] for d in data if d[f] is not None}) for f in features}
    back_off = AODE(alpha=alpha, min_frequency=min_frequency, subsumption=subsumption).fit(X, y)

    def count(c=None, **fixed):
        return sum(
            1
            for d, label in zip(data, y, strict=True)
            if (c is None or label == c) and all(d[f] == v for f, v in fixed.items())
        )

    def observing(c, *names):
        return sum(
            1
            for d, label in zip(data, y, strict=True)
            if (c is None or label == c) and all(d[f] is not None for f in names)
        )

    out = []
    back_proba = back_off.predict_proba(rows)
    for r, row in enumerate(rows.itertuples(index=False)):
        row = dict(zip(features, row, strict=True))
        row = {f: v if v in values[f] else None for f, v in row.items()}  # unseen: missing
        gone = set() if subsumption is False else deleted_by_subsumption(X, row, subsumption)
        row = {f: None if f in gone else v for f, v in row.items()}
        sums, n_pairs = np.zeros(len(classes)), 0
        for fi, fj in itertools.combinations(features, 2):
            if fi in gone or fj in gone:
                continue
            xi, xj = row[fi], row[fj]
            if xi is not None and xj is not None:
                frequency = count(**{fi: xi, fj: xj})
            elif xi is not None:
                frequency = count(**{fi: xi})
            elif xj is not None:
                frequency = count(**{fj: xj})
            else:
                frequency = np.inf
            if frequency < min_frequency:
                continue
            n_pairs += 1
            size = len(classes) * len(values[fi]) * len(values[fj])
            n_ij = observing(None, fi, fj)
            for k, c in enumerate(classes):
                for a in [xi] if xi is not None else values[fi]:
                    for b in [xj] if xj is not None else values[fj]:
                        p = (count(c, **{fi: a, fj: b}) + alpha) / (n_ij + alpha * size)
                        for fk in features:
                            if fk in (fi, fj) or row[fk] is None:
                                continue
                            parents = {fi: a, fj: b}
                            seen = sum(
                                1
                                for d, label in zip(data, y, strict=True)
                                if label == c and d[fi] == a and d[fj] == b and d[fk] is not None
                            )
                            p *= (count(c, **parents, **{fk: row[fk]}) + alpha) / (
                                seen + alpha * len(values[fk])
                            )
                        sums[k] += p
        if n_pairs == 0:
            out.append(back_proba[r])
        else:
            out.append(sums / sums.sum())
    return np.array(out)


@pytest.mark.parametrize(
    ("seed", "alpha", "min_frequency", "subsumption"),
    [(0, 1.0, 1, False), (1, 0.5, 3, False), (2, 1.0, 8, False), (6, 1.0, 1, 5)],
)
def test_a2de_equals_the_slow_reference(seed, alpha, min_frequency, subsumption):
    X, y = small_table(seed)
    if subsumption:  # x0 = "c0" implies x1 = "c0": a generalisation to delete
        X.loc[X["x0"] == "c0", "x1"] = "c0"
    test, _ = small_table(seed + 50, n_rows=12, missing=0.3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an unseen category reads as missing
        model = AnDE(
            n=2,
            alpha=alpha,
            min_frequency=min_frequency,
            subsumption=subsumption,
            handle_unknown="marginalize",
        )
        got = model.fit(X, y).predict_proba(test)
        want = slow_a2de(X, y, test, alpha, min_frequency, subsumption)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


def test_ande1_is_aode():
    X, y = small_table(3, missing=0.2)
    for data in ((X, y), load_car(return_X_y=True)):
        one = AnDE(n=1).fit(*data).predict_proba(data[0])
        np.testing.assert_allclose(one, AODE().fit(*data).predict_proba(data[0]), atol=1e-12)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10**6), order=st.permutations(range(4)))
def test_a2de_sums_to_one_whatever_the_column_order(seed, order):
    X, y = small_table(seed)
    proba = AnDE(n=2).fit(X, y).predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    shuffled = AnDE(n=2).fit(X.iloc[:, list(order)], y).predict_proba(X)
    np.testing.assert_allclose(shuffled, proba, atol=1e-12)


def test_a_missing_cell_is_the_sum_over_its_values():
    """With one pair only (two features) and no frequency limit, the missing parent's
    probability is the sum of the complete rows' joints over its values."""
    X, y = small_table(4, n_features=2, missing=0.0)
    model = AnDE(n=2, min_frequency=0).fit(X, y)
    row = X.iloc[:1].copy()
    completed = pd.concat([row.assign(x0=v) for v in model.categories_[0]])
    joint = np.exp(model._joint_log_likelihood(completed)).sum(axis=0)
    row.iloc[0, 0] = None
    np.testing.assert_allclose(model.predict_proba(row)[0], joint / joint.sum(), atol=1e-12)


def test_partial_fit_equals_fit_and_model_files(tmp_path):
    X, y = small_table(5)
    whole = AnDE(n=2).fit(X, y)
    chunks = AnDE(n=2).partial_fit(X[:20], y[:20], classes=["p", "q", "r"])
    chunks.partial_fit(X[20:], y[20:])
    np.testing.assert_allclose(chunks.predict_proba(X), whole.predict_proba(X), atol=1e-12)
    dump(whole, tmp_path / "a2de.bnc")
    np.testing.assert_array_equal(
        load(tmp_path / "a2de.bnc").predict_proba(X), whole.predict_proba(X)
    )


def test_a_table_over_the_budget_is_refused_with_its_size():
    X, y = load_car(return_X_y=True)
    need = AnDE(n=2).fit(X, y).table_bytes()
    assert need == 8 * 4 * 183 * 21  # 4 classes, sum over pairs of |A_i||A_j|, 21 categories
    with pytest.raises(ValueError, match=r"AnDE\(n=2\) would keep 0 MB .* max_bytes=1,000"):
        AnDE(n=2, max_bytes=1000).fit(X, y)


def test_a2de_members_are_its_sp2des():
    """``estimators_`` of ``n=2``: one network per pair, the class and the pair parents of
    every other feature, whose joints averaged give the model's posterior (missing cells,
    a column never observed and a binned one included); ``n=1``: AODE's SPODEs."""
    X, y = small_table(7, missing=0.2)
    X = X.assign(num=np.linspace(0.0, 1.0, len(X)), empty=np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the column with no observed value
        model = AnDE(n=2).fit(X, y)
        members = model.estimators_
        pairs = [tuple(model.schema_.names[p] for p in pair) for pair in model.member_pairs_]
        assert len(members) == len(pairs) == len(list(itertools.combinations(range(5), 2)))
        i, j = pairs[2]
        graph = members[2].structure_
        assert sorted(graph.predecessors(j)) == sorted([model.class_node_, i])
        for child in set(X.columns) - {i, j, "empty"}:
            assert sorted(graph.predecessors(child)) == sorted([model.class_node_, i, j])
        encoded = model.encode(X)
        joints = np.stack([m.compiled_.joint_log_likelihood(*encoded) for m in members])
        average = np.exp(joints).sum(axis=0)
        np.testing.assert_allclose(
            model.predict_proba(X), average / average.sum(axis=1, keepdims=True), atol=1e-12
        )
        one = AnDE(n=1).fit(X, y)
    assert [m.superparent for m in one.estimators_] == one.aode_.superparents_
