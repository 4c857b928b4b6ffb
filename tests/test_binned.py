"""Binned numeric columns (issue 32 item 3): the default for continuous columns.

With the kinds rule's ``numbers="binned"`` (:data:`bnclassify.data.NUMERIC_KIND`, the
default), a column the rule reads as numbers is cut into MDL intervals learned from the
training rows and their classes, and modelled as a table over the intervals: the same
model as ``MDLDiscretizer`` in front of a categorical model, inside the estimator.
``distributions="density"`` keeps the rule but models such columns as densities
(Gaussian or log-normal), the default before.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_iris
from sklearn.pipeline import make_pipeline

from bnclassify import AODE, KDB, TAN, MDLDiscretizer, NaiveBayes
from bnclassify.data import TableSchema, default_kind, kinds_rule
from bnclassify.data.binning import bin_labels, mdl_cut_points
from bnclassify.distributions import Binned
from bnclassify.exceptions import (
    InvalidParameterError,
    OutOfCoreError,
    UnobservedColumnWarning,
    UnseenCategoryWarning,
)
from bnclassify.io import ModelFileError, dump, load


def test_the_library_default_bins_numbers():
    assert kinds_rule.NUMERIC_KIND == "binned"


@pytest.fixture(scope="module")
def table():
    """Iris as a CSV gives it (floats), a string column, missing cells, string labels."""
    X, y = load_iris(return_X_y=True, as_frame=True)
    X = X.copy()
    X["site"] = np.where(np.arange(150) % 3 == 0, "north", "south")
    X.iloc[[3, 70, 140], 0] = np.nan
    return X, y.map({0: "setosa", 1: "versicolor", 2: "virginica"})


NUMERIC = ["sepal length (cm)", "sepal width (cm)", "petal length (cm)", "petal width (cm)"]


def _discretised(X, y):
    """The same model built outside: MDLDiscretizer's bins, declared categorical."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a column may get no cut: said by MDLDiscretizer
        return MDLDiscretizer(columns=NUMERIC).fit(X, y)


@pytest.mark.parametrize("make", [NaiveBayes, TAN, lambda: KDB(k=2), AODE])
def test_the_default_bins_numbers_as_an_mdl_discretiser_would(make, table):
    X, y = table
    model = make().fit(X, y)
    assert model.feature_kinds_ == ["binned"] * 4 + ["categorical"]
    mdl = _discretised(X, y)
    for j in range(4):
        np.testing.assert_array_equal(model.schema_.cut_points[j], mdl.cut_points_[j])
        assert model.categories_[j].tolist() == bin_labels(mdl.cut_points_[j]).tolist()
    peer = make()
    if hasattr(peer, "distributions"):
        peer.set_params(distributions={c: "categorical" for c in NUMERIC})
    piped = make_pipeline(mdl, peer).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), piped.predict_proba(X), rtol=0, atol=1e-12)


def test_bins_are_learned_from_the_training_rows_only(table):
    X, y = table
    train = np.arange(150) % 2 == 0
    model = NaiveBayes().fit(X[train], y[train])
    for j, name in enumerate(NUMERIC):
        x = X.loc[train, name]
        seen = x.notna().to_numpy()
        expected = mdl_cut_points(x[seen], y[train][seen])
        np.testing.assert_array_equal(model.schema_.cut_points[j], expected)
    # a value beyond the training range falls in an end interval: bounded probabilities
    far = X.iloc[:2].copy()
    far[NUMERIC] = [[1e6, -1e6, 1e6, -1e6], [-1e6, 1e6, -1e6, 1e6]]
    proba = model.predict_proba(far)
    assert np.isfinite(proba).all() and proba.min() > 1e-6
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnseenCategoryWarning)  # numbers are never unseen
        model.predict_proba(X[~train])


def test_weights_count_as_repeated_rows(table):
    X, y = table
    weights = np.resize([1, 2, 3], len(X))
    weighted = TAN().fit(X, y, sample_weight=weights)
    rows = np.repeat(np.arange(len(X)), weights)
    repeated = TAN().fit(X.iloc[rows], y.iloc[rows])
    for a, b in zip(weighted.schema_.cut_points, repeated.schema_.cut_points, strict=True):
        assert (a is None and b is None) or np.array_equal(a, b)
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), atol=1e-12)


def test_partial_fit_refuses_cut_points_it_would_learn_from_one_chunk(table):
    X, y = table
    order = np.random.default_rng(3).permutation(len(X))
    chunks = np.array_split(order, 3)
    model = NaiveBayes()
    with pytest.raises(OutOfCoreError, match="cut points of the binned column") as refused:
        model.partial_fit(X.iloc[chunks[0]], y.iloc[chunks[0]], classes=sorted(set(y)))
    assert refused.value.columns == NUMERIC
    assert "MDLDiscretizer(columns=" in str(refused.value)
    assert not hasattr(model, "classes_")
    # the first pass the message proposes gives the cut points of fit, and the model of fit
    mdl = MDLDiscretizer(columns=NUMERIC)
    for rows in chunks:
        mdl.partial_fit(X.iloc[rows], y.iloc[rows])
    model = NaiveBayes(distributions=mdl.to_distributions())
    for rows in chunks:
        model.partial_fit(X.iloc[rows], y.iloc[rows], classes=sorted(set(y)))
    expected = NaiveBayes().fit(X, y)
    for a, b in zip(model.schema_.cut_points, expected.schema_.cut_points, strict=True):
        assert (a is None and b is None) or np.array_equal(a, b)
    np.testing.assert_allclose(model.predict_proba(X), expected.predict_proba(X), atol=1e-12)
    # after fit, whose cut points came from its own rows, more rows are refused too
    with pytest.raises(OutOfCoreError, match="learned the cut points of its binned column"):
        expected.partial_fit(X.iloc[:10], y.iloc[:10])
    np.testing.assert_array_equal(
        expected.predict_proba(X), NaiveBayes().fit(X, y).predict_proba(X)
    )


def test_given_cut_points_are_the_columns_bins(table):
    X, y = table
    fixed = {"petal length (cm)": Binned(cut_points=[2.0, 5.0])}
    model = NaiveBayes(distributions=fixed).fit(X, y)
    assert model.schema_.cut_points[2].tolist() == [2.0, 5.0]
    assert model.categories_[2].tolist() == ["(-inf, 2.0]", "(2.0, 5.0]", "(5.0, inf)"]
    chunked = NaiveBayes(distributions={**fixed, **{c: "categorical" for c in NUMERIC[:2]}})
    chunked.set_params(distributions={**chunked.distributions, NUMERIC[3]: "gaussian"})
    for rows in np.array_split(np.arange(len(X)), 4):
        chunked.partial_fit(X.iloc[rows], y.iloc[rows], classes=sorted(set(y)))
    whole = NaiveBayes(distributions=chunked.distributions).fit(X, y)
    np.testing.assert_allclose(chunked.predict_proba(X), whole.predict_proba(X), atol=1e-12)
    with pytest.raises(InvalidParameterError, match="ascending, distinct, finite"):
        NaiveBayes(distributions={"petal length (cm)": Binned(cut_points=[5, 2])}).fit(X, y)
    with pytest.raises(InvalidParameterError, match="cut_points"):
        NaiveBayes(distributions={"petal length (cm)": Binned(cut_points="2, 5")}).fit(X, y)


def test_model_files_pgmpy_and_describe_carry_the_intervals(table, tmp_path):
    pytest.importorskip("pgmpy")
    from pgmpy.inference import VariableElimination

    X, y = table
    model = TAN().fit(X, y)
    loaded = load(dump(model, tmp_path / "tan.bnc"))
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    for a, b in zip(loaded.schema_.cut_points, model.schema_.cut_points, strict=True):
        assert (a is None and b is None) or np.array_equal(a, b)
    described = model.describe().set_index("column")
    assert described.loc["petal length (cm)", "kind"] == "binned"
    assert described.loc["petal length (cm)", "categories"] == list(model.categories_[2])
    # pgmpy: the intervals are the states; its posterior is the model's
    row = X.iloc[[60]]
    codes, _ = model.encode(row)
    evidence = {
        name: model.categories_[j][codes[0, j]]
        for j, name in enumerate(X.columns)
        if codes[0, j] >= 0
    }
    query = VariableElimination(model.network_).query([model.class_node_], evidence=evidence)
    np.testing.assert_allclose(query.values, model.predict_proba(row)[0], atol=1e-10)


def test_a_tampered_cut_point_list_is_refused(table, tmp_path):
    import json
    import zipfile

    X, y = table
    path = dump(NaiveBayes().fit(X, y), tmp_path / "nb.bnc")
    with zipfile.ZipFile(path) as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    meta = json.loads(members["model.json"])

    def drop_cut_points(value):
        if isinstance(value, dict):
            value.pop("cut_points", None)
            for v in value.values():
                drop_cut_points(v)
        elif isinstance(value, list):
            for v in value:
                drop_cut_points(v)

    drop_cut_points(meta)
    members["model.json"] = json.dumps(meta).encode()
    bad = tmp_path / "bad.bnc"
    with zipfile.ZipFile(bad, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    with pytest.raises(ModelFileError, match="cut_points"):
        load(bad)


def test_odd_columns_get_one_interval_or_a_clear_error():
    y = np.array(["p", "q"] * 10)
    X = pd.DataFrame(
        {
            "noise": np.arange(20.0) % 7 + 0.5,  # no cut pays
            "empty": np.nan,  # nothing observed: left out of the model (issue 32 item 1)
            "signal": np.r_[np.arange(10.0), np.arange(10.0) + 50][np.argsort(y, kind="stable")],
        }
    )
    with pytest.warns(UnobservedColumnWarning, match="'empty'"):
        model = NaiveBayes(distributions="binned").fit(X, y)
    assert model.categories_[0].tolist() == ["(-inf, inf)"]
    assert model.feature_kinds_[1] == "unobserved"
    proba = model.predict_proba(X)
    assert np.isfinite(proba).all()
    bad = X.astype(object)
    bad.iloc[0, 2] = "tall"
    with pytest.raises(ValueError, match="Column 'signal' is modelled as binned and needs numbers"):
        model.predict(bad)
    with pytest.raises(ValueError, match="'signal' has infinite value"):
        model.predict(X.assign(signal=np.inf))
    with pytest.raises(ValueError, match="'signal' is binned: its cut points are learned from"):
        TableSchema.learn(X, distributions={"signal": "binned"})


def test_the_rule_bins_numbers_only_when_it_knows_the_classes():
    x = pd.Series(np.linspace(0.5, 3.0, 30))
    classes = np.repeat([0, 1], 15)
    assert default_kind(x, classes=classes) == "binned"
    assert NaiveBayes().fit(x.to_frame("x"), classes).feature_kinds_ == ["binned"]
    with pytest.raises(ValueError, match="numbers must be 'binned' or 'density'"):
        default_kind(x, classes=classes, numbers="bins")
    assert default_kind(x) == "gaussian"  # TableSchema.learn(X) alone: no class to bin by
    assert TableSchema.learn(x.to_frame("x"))[0].kinds == ["gaussian"]
    assert default_kind(x, classes=classes, numbers="density") == "gaussian"
    # asked for by name, a density stays a density
    model = NaiveBayes(distributions="gaussian").fit(x.to_frame("x"), classes)
    assert model.feature_kinds_ == ["gaussian"]


@pytest.mark.parametrize("make", [NaiveBayes, TAN])
def test_density_restores_the_rules_densities(make):
    """``distributions="density"``: the kinds rule with numbers as Gaussian or log-normal
    (as before the switch), the other columns as the rule says."""
    rng = np.random.default_rng(0)
    classes = np.repeat(["a", "b"], 100)
    X = pd.DataFrame(
        {
            "normal": rng.normal(np.where(classes == "a", 0.0, 1.0), 1.0),
            "amount": np.exp(rng.normal(np.where(classes == "a", 6.0, 7.0), 1.0)).round(),
            "code": rng.integers(0, 4, 200),
            "site": rng.choice(["x", "y"], 200),
        }
    )
    density = make(distributions="density").fit(X, classes)
    assert density.feature_kinds_ == ["gaussian", "lognormal", "categorical", "categorical"]
    assert make().fit(X, classes).feature_kinds_ == ["binned"] * 2 + ["categorical"] * 2
    # the same model as the nodes named one by one
    named = make(distributions={"normal": "gaussian", "amount": "lognormal"}).fit(X, classes)
    np.testing.assert_allclose(density.predict_proba(X), named.predict_proba(X), atol=1e-12)
    # a word for the whole table: one column takes a node's name
    with pytest.raises(InvalidParameterError, match="'density' is for the whole table"):
        make(distributions={"normal": "density"}).fit(X, classes)


def test_a_dask_fit_learns_the_cut_points_of_fit(table):
    dd = pytest.importorskip("dask.dataframe")
    X, y = table
    frame = X.assign(target=y.to_numpy()).sample(frac=1.0, random_state=0)
    parts = dd.from_pandas(frame, npartitions=3, sort=False)
    model = NaiveBayes().fit(parts.drop(columns="target"), parts["target"])
    X_all, y_all = frame.drop(columns="target"), frame["target"]
    expected = NaiveBayes().fit(X_all, y_all)
    assert model.feature_kinds_ == expected.feature_kinds_ == ["binned"] * 4 + ["categorical"]
    for a, b in zip(model.schema_.cut_points, expected.schema_.cut_points, strict=True):
        assert (a is None and b is None) or np.array_equal(a, b)
    np.testing.assert_allclose(model.predict_proba(X), expected.predict_proba(X), atol=1e-12)
    # numbers as densities: the dask fit decides each column on the whole column, as fit
    density = NaiveBayes(distributions="density")
    dask_density = density.fit(parts.drop(columns="target"), parts["target"]).feature_kinds_
    assert dask_density == NaiveBayes(distributions="density").fit(X_all, y_all).feature_kinds_
    assert "binned" not in dask_density and "gaussian" in dask_density


def test_a_decision_boundary_is_drawn_over_two_binned_columns(table):
    from bnclassify.plotting import plot_decision_boundary

    X, y = table
    X2 = X[["petal length (cm)", "petal width (cm)"]]
    model = NaiveBayes().fit(X2, y)
    assert model.feature_kinds_ == ["binned", "binned"]
    ax = plot_decision_boundary(model, X2, y, resolution=20)
    assert ax.get_xlabel() == "petal length (cm)"
    with pytest.raises(ValueError, match="'site' is modelled as 'categorical'"):
        plot_decision_boundary(NaiveBayes().fit(X[["petal length (cm)", "site"]], y), X, y)


def test_a_binned_column_reads_its_interval_labels_as_well_as_numbers():
    # the states plots, explanations and posteriors show are the intervals: evidence and
    # tables may name them (plot_inference varied them and was refused: "needs numbers")
    from sklearn.datasets import load_iris

    from bnclassify.inference import posteriors

    X, y = load_iris(return_X_y=True, as_frame=True)
    model = NaiveBayes().fit(X, y)
    name = "petal length (cm)"
    assert model.categories_[2].tolist() == ["(-inf, 2.45]", "(2.45, 4.75]", "(4.75, inf)"]
    by_label = posteriors(model, {name: "(2.45, 4.75]"}).classes
    by_number = posteriors(model, {name: 3.0}).classes
    pd.testing.assert_series_equal(by_label, by_number)
    labelled = X.head(3).astype({name: object})
    labelled[name] = ["(-inf, 2.45]", 1.4, "(4.75, inf)"]
    numbers = X.head(3).assign(**{name: [1.0, 1.4, 6.0]})
    np.testing.assert_array_equal(model.predict_proba(labelled), model.predict_proba(numbers))
    with pytest.raises(ValueError, match=r"'\(9, 10\]' is not a category"):
        posteriors(model, {name: "(9, 10]"})
    with pytest.raises(ValueError, match="needs numbers"):
        model.predict_proba(labelled.assign(**{name: ["(9, 10]", 1.4, 6.0]}))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from([-2.0, -0.5, 0.0, 0.5, 1.0, 3.0, np.inf]), max_size=5),
        min_size=1,
        max_size=6,
    ),
    st.integers(0, 12),
    st.integers(0, 2**31 - 1),
)
def test_block_bin_codes_matches_bin_codes_column_by_column(cuts, n_rows, seed):
    """Every column of a block binned at once as bin_codes bins it alone (ties, NaN, inf,
    columns without cuts), also with the columns of many cuts binned alone."""
    from bnclassify.data import binning

    cuts = [sorted(set(c)) for c in cuts]
    rng = np.random.default_rng(seed)
    pool = np.array([-3.0, -2.0, -0.5, 0.0, 0.25, 0.5, 1.0, 3.0, 4.0, np.inf, -np.inf, np.nan])
    values = rng.choice(pool, size=(n_rows, len(cuts)))
    expected = np.column_stack(
        [binning.bin_codes(c, values[:, j]) for j, c in enumerate(cuts)]
    ).reshape(n_rows, len(cuts))
    assert np.array_equal(binning.block_bin_codes(cuts, values), expected)
    cut = binning.BLOCK_CUTS
    try:
        binning.BLOCK_CUTS = 2  # columns of more cuts binned alone
        assert np.array_equal(binning.block_bin_codes(cuts, values), expected)
    finally:
        binning.BLOCK_CUTS = cut


@pytest.mark.parametrize("many", [20, 126, 127, 300])
def test_block_bin_codes_of_columns_of_many_cuts(many):
    """Bins counted in bytes where every column has fewer than 127 cuts, in a wider type
    from 127: a column of ``many`` cuts beside columns of few, as bin_codes bins each."""
    from bnclassify.data import binning

    rng = np.random.default_rng(many)
    cuts = [np.sort(rng.normal(size=many)), np.array([0.0]), np.array([-1.0, 1.0]), np.array([])]
    values = rng.normal(size=(500, len(cuts))) * 2
    values[rng.random(values.shape) < 0.1] = np.nan
    got = binning.block_bin_codes(cuts, values)
    expected = np.column_stack([binning.bin_codes(c, values[:, j]) for j, c in enumerate(cuts)])
    np.testing.assert_array_equal(got, expected)
    assert got[:, 0].max() >= min(many, 100)  # the many-cut column reaches its high bins
    assert got.dtype == (np.int8 if many < 127 else np.intp)


@pytest.mark.parametrize("text", [False, True])
def test_numbers_of_an_all_numeric_table_read_in_one_conversion(text):
    """TableSchema.numbers of a table of numeric columns only (read as one block) and of one
    with a text column (its numeric columns taken first) equal each column read alone:
    integers, floats with NaN, booleans; the columns not asked for are NaN; inf refused."""
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "i": rng.integers(-5, 5, 40),
            "f": np.where(rng.random(40) < 0.2, np.nan, rng.normal(size=40)),
            "b": rng.random(40) < 0.5,
            "u": rng.integers(0, 9, 40).astype(np.uint8),
        }
    )
    if text:
        frame["t"] = pd.Series(rng.choice(["x", "y"], 40), dtype="str")
    schema, _ = TableSchema.learn(frame)
    for columns in ([0, 1, 2, 3], [1], [3, 0]):
        got = schema.numbers(frame, columns)
        for j in range(frame.shape[1]):
            if j in columns:
                expected = frame.iloc[:, j].to_numpy(dtype=float)
                np.testing.assert_array_equal(got[:, j], expected)
            else:
                assert np.isnan(got[:, j]).all()
    frame.loc[3, "f"] = np.inf
    with pytest.raises(ValueError, match="infinite"):
        schema.numbers(frame, [1])


def test_prediction_leaves_a_frame_named_as_in_training_as_it_was():
    # a table whose columns are named as in training is read as it is (not relabelled, which
    # copied every block): nothing a prediction does, interval labels read, bins, unseen
    # values, may write into it
    from bnclassify import ESKDB, SKDB

    X, y = load_iris(return_X_y=True, as_frame=True)
    X["site"] = pd.Series(np.where(np.arange(150) % 3, "a", "b"), dtype="str")
    name = "petal length (cm)"
    plain = X.iloc[::7].copy()
    plain.iloc[1, 4] = "never seen"
    labelled = plain.astype({name: object})
    labelled.iloc[0, 2] = "(2.45, 4.75]"  # read by the models whose schema bins the column
    models = (NaiveBayes(), SKDB(), ESKDB(n_estimators=3, random_state=0))
    for model, rows in zip(models, (labelled, plain, plain), strict=True):
        before = rows.copy()
        model.set_params(handle_unknown="marginalize").fit(X, y)
        model.predict_proba(rows)
        pd.testing.assert_frame_equal(rows, before)
