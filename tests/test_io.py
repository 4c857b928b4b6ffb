"""bnclassify.io: model files (dump/load), hostile files, pgmpy and BIF both ways."""

import io
import json
import pickle
import zipfile

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from bnclassify import (
    AODE,
    BMATAN,
    KDB,
    SKDB,
    SPODE,
    TAN,
    WAODE,
    EnsembleTAN,
    MDLDiscretizer,
    NaiveBayes,
    SignalSubgraphClassifier,
    SimplerTAN,
)
from bnclassify.datasets import load_p450, make_signal_subgraph_networks
from bnclassify.distributions import Bernoulli, Gaussian, KernelDensity, Multinomial
from bnclassify.io import ModelFileError, dump, load
from bnclassify.stats import training as counts_module
from bnclassify.study import StudyTAN


# -- data -----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def p450():
    return load_p450()


@pytest.fixture(scope="module")
def p450_missing(p450):
    rng = np.random.default_rng(0)
    return p450.data.mask(rng.random(p450.data.shape) < 0.1)


def _mixed(n=150, seed=1):
    """Categorical (str, int, bool, mixed, pandas Categorical), Gaussian, kde, Bernoulli, counts."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    frame = pd.DataFrame(
        {
            "colour": np.where(rng.random(n) < 0.5 + 0.1 * y, "red", "blue").astype(object),
            "size": (rng.integers(0, 3, n) + y) % 4,
            "flag": rng.random(n) < 0.3 + 0.2 * (y == 1),
            "mixed": np.array([1, "a"], dtype=object)[rng.integers(0, 2, n)],
            "level": pd.Categorical(
                rng.choice(["lo", "mid", "hi"], n), categories=["lo", "mid", "hi"]
            ),
            "height": rng.normal(y, 1.0),
            "weight": rng.normal(2 * y, 1.5) + 0.5 * rng.normal(size=n),
            "spread": rng.gamma(2.0 + y, 1.0),
            "binary": rng.normal(y, 1.0),
            "w1": rng.poisson(1 + y),
            "w2": rng.poisson(3 - y),
            "w3": rng.poisson(2, n),
        }
    )
    return frame, y


def _with_missing(frame, seed=2, rate=0.1, skip=("w1", "w2", "w3")):
    rng = np.random.default_rng(seed)
    out = frame.copy()
    for name in out.columns:
        if name in skip:
            continue
        mask = rng.random(len(out)) < rate
        out[name] = (
            out[name].astype(object).where(~mask, None)
            if out[name].dtype == bool
            else (out[name].mask(mask))
        )
    return out


MIXED_DISTRIBUTIONS = {
    "spread": KernelDensity(),
    "binary": Bernoulli(binarize=0.5),
    ("w1", "w2", "w3"): Multinomial(alpha=0.5),
}


# -- equality of everything public ----------------------------------------------------------------
def _same_value(a, b):
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b)
        return True
    if isinstance(a, np.ndarray):
        return (
            isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and a.shape == b.shape
            and all(type(u) is type(v) for u, v in zip(a.ravel(), b.ravel(), strict=True))
            and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
        )
    if isinstance(a, dict):
        return (
            isinstance(b, dict) and list(a) == list(b) and all(_same_value(a[k], b[k]) for k in a)
        )
    if isinstance(a, list | tuple):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(_same_value(u, v) for u, v in zip(a, b, strict=True))
        )
    if hasattr(a, "get_params"):
        return type(a) is type(b) and _same_value(
            a.get_params(deep=False), b.get_params(deep=False)
        )
    return type(a) is type(b) and (a == b or (a != a and b != b))


def assert_same_model(model, loaded, X):
    assert type(loaded) is type(model)
    assert _same_value(model.get_params(deep=False), loaded.get_params(deep=False))
    assert np.array_equal(model.predict_proba(X), loaded.predict_proba(X))
    assert np.array_equal(model.predict(X), loaded.predict(X))
    for name in (
        "classes_",
        "feature_names_in_",
        "n_features_in_",
        "categories_",
        "feature_kinds_",
        "weights_",
        "class_node_",
        "order_",
        "superparents_",
        "frequencies_",
        "fit_times_",
    ):
        if hasattr(model, name):
            assert _same_value(getattr(model, name), getattr(loaded, name)), name
        else:
            assert not hasattr(loaded, name), name
    for network, again in _networks(model, loaded):
        assert (
            np.array_equal(network.log_prior, again.log_prior) and network.parents == again.parents
        )
        for a, b in zip(network.factors, again.factors, strict=True):
            assert _same_value(vars(a), vars(b)), a.columns_  # every fitted array, exact types
    if hasattr(model, "structure_"):
        assert list(model.structure_.nodes) == list(loaded.structure_.nodes)
        assert list(model.structure_.edges) == list(loaded.structure_.edges)
    for a, b in zip(
        getattr(model, "estimators_", []), getattr(loaded, "estimators_", []), strict=True
    ):
        assert list(a.structure_.edges) == list(b.structure_.edges)
        assert _same_value(a.get_params(deep=False), b.get_params(deep=False))


def _networks(model, loaded):
    pairs = [(model, loaded)]
    members = getattr(model, "estimators_", []), getattr(loaded, "estimators_", [])
    pairs += list(zip(*members, strict=True))
    return [(a.compiled_, b.compiled_) for a, b in pairs if hasattr(a, "compiled_")]


@pytest.fixture
def no_pickle(monkeypatch):
    """Loading must never unpickle: pickle.load and pickle.loads raise."""

    def refuse(*args, **kwargs):
        raise AssertionError("pickle used while loading a model file")

    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "Unpickler", refuse)


def _round_trip(model, tmp_path):
    path = dump(model, tmp_path / "model.bnc")
    return load(path)


# -- round trips ----------------------------------------------------------------------------------
def _categorical_models(contacts):
    return {
        "nb": NaiveBayes(),
        "tan": TAN(),
        "tan-bic-forest": TAN(criterion="bic"),
        "tan-contact-prior-frame": TAN(contact_matrix=contacts, contact_prior=5.0),
        "tan-contact-prior-array": TAN(contact_matrix=contacts.to_numpy(), contact_prior=2.0),
        "stan": SimplerTAN(contacts, root="block3"),
        "kdb": KDB(k=2),
        "spode": SPODE(superparent="block7"),
        "aode": AODE(min_frequency=3),
        "aode-subsumption": AODE(subsumption=5),
        "waode": WAODE(subsumption=True),
        "ensemble-auto": EnsembleTAN(contacts),
        "ensemble-stan": EnsembleTAN(contacts, members="stan"),
        "ensemble-all": EnsembleTAN(contacts, members="all"),
        "ensemble-member": EnsembleTAN(members=TAN(criterion="aic")),
        "ensemble-list": EnsembleTAN(members=[KDB(k=2), NaiveBayes(alpha=0.5)]),
        "bagging": EnsembleTAN(bootstrap=True, n_estimators=4, random_state=3),
        "study-tan": StudyTAN(),
        "ensemble-study-tan": EnsembleTAN(members=StudyTAN()),
        "bagging-kdb": EnsembleTAN(
            members=KDB(k=2), bootstrap=True, n_estimators=3, random_state=0
        ),
        "bmatan": BMATAN(),
        "bmatan-contact-auto": BMATAN(contact_matrix=contacts, contact_prior="auto"),
    }


@pytest.mark.parametrize("name", list(_categorical_models(pd.DataFrame()).keys()))
def test_round_trip_categorical_with_missing_cells(name, p450, p450_missing, tmp_path, no_pickle):
    model = _categorical_models(p450.contact_matrix)[name].fit(p450_missing, p450.target)
    loaded = _round_trip(model, tmp_path)
    assert_same_model(model, loaded, p450_missing)
    assert_same_model(model, loaded, p450.data)
    if hasattr(model, "estimators_samples_") and model.bootstrap:
        assert all(
            np.array_equal(a, b)
            for a, b in zip(model.estimators_samples_, loaded.estimators_samples_, strict=True)
        )


def _mixed_models():
    return {
        "nb": NaiveBayes(distributions=MIXED_DISTRIBUTIONS),
        "nb-all-kde": NaiveBayes(distributions=KernelDensity(bandwidth=0.7)),
        "tan": TAN(distributions=MIXED_DISTRIBUTIONS),
        "tan-bic": TAN(criterion="bic", distributions={"height": Gaussian(var_smoothing=1e-6)}),
        "kdb": KDB(k=2),
        "spode": SPODE(),
        "aode": AODE(),
        "waode-subsumption": WAODE(subsumption=3),
        "ensemble": EnsembleTAN(members=TAN(distributions=MIXED_DISTRIBUTIONS)),
        "bagging": EnsembleTAN(bootstrap=True, n_estimators=3, random_state=0),
    }


@pytest.mark.parametrize("name", list(_mixed_models()))
def test_round_trip_mixed_kinds_with_missing_cells(name, tmp_path, no_pickle):
    X, y = _mixed()
    if name == "nb-all-kde":
        X = X[["height", "weight", "spread"]]
    elif name not in ("nb", "tan", "ensemble"):
        X = X.drop(columns=["w1", "w2", "w3", "binary", "spread"])
    X_missing = _with_missing(X)
    labels = np.array(["low", "mid", "high"], dtype=object)[y]
    model = _mixed_models()[name].fit(X_missing, labels)
    loaded = _round_trip(model, tmp_path)
    assert_same_model(model, loaded, X_missing)
    assert_same_model(model, loaded, X)


def test_category_and_class_types_survive(tmp_path, no_pickle):
    X, y = _mixed()
    X = X[["colour", "size", "flag", "mixed", "level", "height"]]
    for labels in (y, y.astype(float), y == 1, np.array(["a", "b", "c"])[y]):
        model = NaiveBayes().fit(X, labels)
        loaded = _round_trip(model, tmp_path)
        assert loaded.classes_.dtype == model.classes_.dtype
        assert [type(c) for c in loaded.classes_] == [type(c) for c in model.classes_]
        for a, b in zip(model.categories_, loaded.categories_, strict=True):
            assert _same_value(a, b)
    mixed = loaded.categories_[3].tolist()
    assert sorted(map(str, mixed)) == ["1", "a"] and {type(v) for v in mixed} == {int, str}


def test_distribution_kinds_on_arrays_round_trip(tmp_path, no_pickle):
    rng = np.random.default_rng(5)
    counts = rng.poisson(2, size=(60, 4))
    y = rng.integers(0, 2, 60)
    for model, X in [
        (NaiveBayes(distributions="multinomial"), counts),
        (NaiveBayes(distributions="bernoulli"), counts - 2.0),
        (NaiveBayes(distributions="kde"), counts + rng.normal(size=counts.shape)),
        (TAN(), counts + rng.normal(size=counts.shape)),
    ]:
        model.fit(X, y)
        loaded = _round_trip(model, tmp_path)
        assert not hasattr(loaded, "feature_names_in_")
        assert_same_model(model, loaded, X)


def test_gaussian_from_parameters_round_trips(tmp_path):
    model = NaiveBayes.from_parameters([0.3, 0.7], [[0.0, 1.0], [2.0, 3.0]], [[1.0, 1.0], [2, 2]])
    loaded = _round_trip(model, tmp_path)
    X = np.array([[0.5, np.nan], [1.0, 2.0]])
    assert np.array_equal(model.predict_proba(X), loaded.predict_proba(X))


def test_signal_subgraph_and_mdl_round_trip(tmp_path, no_pickle):
    X, y = make_signal_subgraph_networks(
        n_networks=60, n_vertices=8, n_signal_edges=4, random_state=0
    )
    for clf in (
        SignalSubgraphClassifier(n_edges=4),
        SignalSubgraphClassifier(n_edges=4, n_vertices_signal=3),
    ):
        clf.fit(X, y)
        loaded = _round_trip(clf, tmp_path)
        assert np.array_equal(clf.predict_proba(X), loaded.predict_proba(X))
        assert loaded.signal_edges_ == clf.signal_edges_
        assert np.array_equal(loaded.pvalues_, clf.pvalues_, equal_nan=True)
        assert list(loaded.signal_graph_.edges(data=True)) == list(
            clf.signal_graph_.edges(data=True)
        )
    from sklearn.datasets import load_iris

    iris = load_iris(as_frame=True)
    mdl = MDLDiscretizer().fit(iris.data, iris.target)
    loaded = _round_trip(mdl, tmp_path)
    assert np.array_equal(mdl.transform(iris.data), loaded.transform(iris.data))
    assert list(loaded.feature_names_in_) == list(iris.data.columns)


def test_unfitted_estimator_round_trips_its_parameters(p450, tmp_path):
    model = EnsembleTAN(p450.contact_matrix, members=[TAN(criterion="bic"), KDB(k=3)], n_jobs=2)
    loaded = _round_trip(model, tmp_path)
    assert _same_value(model.get_params(deep=False), loaded.get_params(deep=False))
    assert not hasattr(loaded, "estimators_")


def test_network_cache_is_not_stored(p450, tmp_path):
    model = TAN().fit(p450.data, p450.target)
    model.network_  # noqa: B018 -- builds the pgmpy cache
    loaded = _round_trip(model, tmp_path)
    assert loaded._network is None
    assert sorted(loaded.network_.edges) == sorted(model.network_.edges)


def test_what_cannot_be_stored_is_refused_at_dump(p450, tmp_path):
    model = SimplerTAN(contact_matrix=lambda names: p450.contact_matrix.loc[names, names])
    model.fit(p450.data, p450.target)
    with pytest.raises(TypeError, match=r"SimplerTAN.contact_matrix is a callable.*cannot hold"):
        dump(model, tmp_path / "m.bnc")
    with pytest.raises(TypeError, match="random_state as an int"):
        dump(EnsembleTAN(random_state=np.random.RandomState(0)), tmp_path / "m.bnc")
    with pytest.raises(TypeError, match="not a bnclassify estimator"):
        dump({"a": 1}, tmp_path / "m.bnc")


# -- hostile files --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def good_file(tmp_path_factory, p450):
    path = tmp_path_factory.mktemp("good") / "tan.bnc"
    dump(TAN().fit(p450.data, p450.target), path)
    return path


def _members(path):
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _write(path, members):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _edit_json(good_file, tmp_path, edit):
    members = _members(good_file)
    document = json.loads(members["model.json"])
    edit(document)
    members["model.json"] = json.dumps(document)
    return _write(tmp_path / "edited.bnc", members)


def _find(node, predicate):
    if isinstance(node, dict):
        if predicate(node):
            return node
        children = node.values()
    elif isinstance(node, list):
        children = node
    else:
        return None
    for child in children:
        found = _find(child, predicate)
        if found is not None:
            return found
    return None


def _state(document):
    return document["model"]["state"]


def _first_table(document):
    return _find(
        _state(document)["compiled_"], lambda n: n.get("t") == "array" and len(n["shape"]) == 3
    )


HOSTILE = {
    "empty": lambda good, tmp: _bytes(tmp, b""),
    "garbage": lambda good, tmp: _bytes(tmp, b"\x00garbage" * 100),
    "truncated": lambda good, tmp: _bytes(tmp, good.read_bytes()[: len(good.read_bytes()) // 2]),
    "pickle": lambda good, tmp: _bytes(tmp, pickle.dumps({"a": 1})),
    "no-json": lambda good, tmp: _write(tmp / "x.bnc", {"other.txt": b"hi"}),
    "json-not-json": lambda good, tmp: _write(tmp / "x.bnc", {"model.json": b"{not json"}),
    "wrong-format": lambda good, tmp: _edit_json(good, tmp, lambda d: d.update(format="other")),
    "wrong-version": lambda good, tmp: _edit_json(good, tmp, lambda d: d.update(version=3)),
    "class-outside-list": lambda good, tmp: _edit_json(
        good, tmp, lambda d: d["model"].update({"class": "os.system"})
    ),
    "member-class-outside-list": lambda good, tmp: _edit_json(
        good,
        tmp,
        lambda d: _find(d["model"]["state"], lambda n: n.get("class") == "Categorical").update(
            {"class": "subprocess.Popen"}
        ),
    ),
    "dunder-attribute": lambda good, tmp: _edit_json(
        good, tmp, lambda d: _state(d).update({"__class__": {"t": "dict", "v": []}})
    ),
    "method-attribute": lambda good, tmp: _edit_json(
        good, tmp, lambda d: _state(d).update({"predict": 1})
    ),
    "unknown-parameter": lambda good, tmp: _edit_json(
        good, tmp, lambda d: d["model"]["params"].update({"evil": 1})
    ),
    "unknown-tag": lambda good, tmp: _edit_json(
        good, tmp, lambda d: _state(d).update({"classes_": {"t": "pickle", "v": "gASV"}})
    ),
    "object-dtype": lambda good, tmp: _edit_json(
        good, tmp, lambda d: _first_table(d).update(dtype="|O")
    ),
    "shape-contradicts-metadata": lambda good, tmp: _edit_json(
        good, tmp, lambda d: _first_table(d).update(shape=[2, 2, 2])
    ),
    "missing-array": lambda good, tmp: _edit_json(
        good, tmp, lambda d: _first_table(d).update(file="arrays/999.npy")
    ),
    "deep-nesting": lambda good, tmp: _deep(good, tmp),
}


def _deep(good, tmp):
    members = _members(good)
    document = json.loads(members["model.json"])
    _state(document)["deep_"] = "DEEP"
    text = json.dumps(document).replace('"DEEP"', "[" * 100_000 + "]" * 100_000)
    members["model.json"] = text
    return _write(tmp / "deep.bnc", members)


def _bytes(tmp, data):
    path = tmp / "x.bnc"
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_files_are_refused_with_one_error_type(case, good_file, tmp_path, no_pickle):
    path = HOSTILE[case](good_file, tmp_path)
    with pytest.raises(ModelFileError, match="is not a bnclassify model file"):
        load(path)


def test_refusal_messages_say_why(good_file, tmp_path):
    cases = {
        "wrong-version": r"format version 3; this bnclassify reads versions \(1, 2\)",
        "class-outside-list": "'os.system', which is not one of bnclassify's",
        "shape-contradicts-metadata": "but model.json says",
        "object-dtype": "unsupported array dtype",
    }
    for case, message in cases.items():
        with pytest.raises(ModelFileError, match=message):
            load(HOSTILE[case](good_file, tmp_path))


def test_arrays_that_contradict_one_another_are_refused(good_file, tmp_path):
    """A CPT replaced, metadata and all, by one of the wrong shape: the model check refuses it."""
    members = _members(good_file)
    document = json.loads(members["model.json"])
    table = _first_table(document)
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.zeros((2, 5, 3)))
    members[table["file"]] = buffer.getvalue()
    table["shape"] = [2, 5, 3]
    members["model.json"] = json.dumps(document)
    with pytest.raises(ModelFileError, match="log_table_ should be a float array of shape"):
        load(_write(tmp_path / "bad.bnc", members))


def test_aode_keeping_its_rows_round_trips(p450, p450_missing, tmp_path, monkeypatch, no_pickle):
    """Above MAX_PAIRWISE_CELLS (a wide table) AODE keeps the encoded rows, not the pair table."""
    monkeypatch.setattr(counts_module, "MAX_PAIRWISE_CELLS", 0)
    weights = np.random.default_rng(0).integers(1, 4, len(p450.target)).astype(float)
    model = AODE(min_frequency=3).fit(p450_missing, p450.target, sample_weight=weights)
    assert set(model._pair_source) == {"codes", "y", "weights", "classes"}
    loaded = _round_trip(model, tmp_path)
    assert_same_model(model, loaded, p450_missing)


def _kept_state(model, tmp_path, edit):
    """A model file of ``model`` whose state is changed by ``edit(state, members)``."""
    members = _members(dump(model, tmp_path / "good.bnc"))
    document = json.loads(members["model.json"])
    edit(_state(document), members)
    members["model.json"] = json.dumps(document)
    return _write(tmp_path / "bad.bnc", members)


def _replace_array(members, node, array):
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array)
    members[node["file"]] = buffer.getvalue()
    node.update(shape=list(array.shape))
    node.pop("axes", None)


def test_kept_statistics_that_contradict_the_model_are_refused(p450, tmp_path):
    aode = AODE().fit(p450.data, p450.target)

    def shrink_table(state, members):
        table = _find(
            state["pair_source"], lambda n: n.get("t") == "array" and len(n["shape"]) == 3
        )
        _replace_array(members, table, np.zeros((2, 5, 5)))

    with pytest.raises(ModelFileError, match="the pair table should be a float array of shape"):
        load(_kept_state(aode, tmp_path, shrink_table))
    ensemble = EnsembleTAN().fit(p450.data, p450.target)

    def loop_edge(state, members):
        _find(state["groups"], lambda n: n.get("t") == "tuple").update(v=[0, 0])

    with pytest.raises(ModelFileError, match="a group's edge must join two features"):
        load(_kept_state(ensemble, tmp_path, loop_edge))


def test_an_npy_holding_a_pickle_is_refused(good_file, tmp_path, no_pickle):
    members = _members(good_file)
    document = json.loads(members["model.json"])
    table = _first_table(document)
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    members[table["file"]] = buffer.getvalue()
    with pytest.raises(ModelFileError):
        load(_write(tmp_path / "bad.bnc", members))


def test_oversized_files_are_refused_from_the_zip_directory(good_file, tmp_path, monkeypatch):
    size = sum(info.file_size for info in zipfile.ZipFile(good_file).infolist())
    with pytest.raises(ModelFileError, match="more than the limit"):
        load(good_file, max_bytes=size - 1)
    assert load(good_file, max_bytes=size) is not None

    def no_reading(*args, **kwargs):
        raise AssertionError("a member was read before the size check")

    monkeypatch.setattr(zipfile.ZipFile, "read", no_reading)
    monkeypatch.setattr(zipfile.ZipFile, "open", no_reading)
    with pytest.raises(ModelFileError, match="more than the limit"):
        load(good_file, max_bytes=10)


def test_a_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "nothing.bnc")


def test_format_is_documented_json_and_npy(good_file):
    with zipfile.ZipFile(good_file) as archive:
        names = archive.namelist()
        document = json.loads(archive.read("model.json"))
    assert names[0] == "model.json" and all(n.startswith("arrays/") for n in names[1:])
    assert document["format"] == "bnclassify-model" and document["version"] == 2
    assert document["model"]["class"] == "TAN"
    edges = _find(document["model"]["state"], lambda n: n.get("t") == "graph")["edges"]
    assert ["functional", "block1", {"t": "dict", "v": []}] in edges


def test_graph_attributes_and_node_order_survive(p450, tmp_path):
    model = KDB(k=2).fit(p450.data, p450.target)
    loaded = _round_trip(model, tmp_path)
    assert nx.utils.graphs_equal(model.structure_, loaded.structure_)
    assert list(loaded.structure_.nodes) == list(model.structure_.nodes)


# -- pgmpy both ways ------------------------------------------------------------------------------
def _variable_elimination(network, class_node, X):
    """P(class | observed cells) of every row, by pgmpy's exact inference."""
    from pgmpy.inference import VariableElimination

    inference = VariableElimination(network)
    out = []
    for _, row in X.iterrows():
        evidence = {k: v for k, v in row.items() if not pd.isna(v)}
        out.append(inference.query([class_node], evidence=evidence, show_progress=False).values)
    return np.array(out)


@pytest.mark.parametrize("make", [TAN, lambda: KDB(k=2), lambda: TAN(criterion="bic")])
def test_from_pgmpy_reproduces_the_model_and_variable_elimination(make, p450, p450_missing):
    from bnclassify.io import PgmpyClassifier, from_pgmpy

    model = make().fit(p450.data, p450.target)
    imported = from_pgmpy(model.network_, model.class_node_)
    assert isinstance(imported, PgmpyClassifier)
    for X in (p450.data, p450_missing):
        np.testing.assert_allclose(imported.predict_proba(X), model.predict_proba(X), 0, 1e-12)
    rows = p450_missing.iloc[::40]
    classes = list(model.network_.get_cpds(model.class_node_).state_names[model.class_node_])
    assert classes == list(imported.classes_)
    np.testing.assert_allclose(
        imported.predict_proba(rows),
        _variable_elimination(model.network_, model.class_node_, rows),
        rtol=0,
        atol=1e-12,
    )
    assert sorted(imported.structure_.edges) == sorted(model.structure_.edges)
    assert imported.feature_names_ == model.feature_names_


@pytest.fixture
def hand_built():
    """Class y (states 'no', 'yes'), a with integer states 2, 0, 1 (unsorted), b | y, a."""
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    network = DiscreteBayesianNetwork([("y", "a"), ("y", "b"), ("a", "b")])
    cpd_y = TabularCPD("y", 2, [[0.3], [0.7]], state_names={"y": ["no", "yes"]})
    cpd_a = TabularCPD(
        "a",
        3,
        [[0.2, 0.5], [0.3, 0.25], [0.5, 0.25]],
        evidence=["y"],
        evidence_card=[2],
        state_names={"a": [2, 0, 1], "y": ["no", "yes"]},
    )
    # b's CPD lists its evidence as (a, y): the class is not its first parent
    cpd_b = TabularCPD(
        "b",
        2,
        [
            [0.1, 0.9, 0.4, 0.6, 0.35, 0.8],
            [0.9, 0.1, 0.6, 0.4, 0.65, 0.2],
        ],
        evidence=["a", "y"],
        evidence_card=[3, 2],
        state_names={"b": ["off", "on"], "a": [2, 0, 1], "y": ["no", "yes"]},
    )
    network.add_cpds(cpd_y, cpd_a, cpd_b)
    network.check_model()
    return network


def test_from_pgmpy_on_a_hand_built_network(hand_built, tmp_path):
    from bnclassify.explain import explain
    from bnclassify.io import from_pgmpy
    from bnclassify.plotting import plot_cpt

    model = from_pgmpy(hand_built, "y")
    assert model.categories_[0].tolist() == [0, 1, 2] and model.categories_[0].dtype == np.int64
    assert model.classes_.tolist() == ["no", "yes"]
    X = pd.DataFrame(
        {
            "a": pd.array([0, 1, 2, 2, None, 0], dtype="Int64"),
            "b": ["on", "off", "on", None, "on", None],
        }
    ).astype(object)
    X = X.where(X.notna(), np.nan)
    expected = _variable_elimination(hand_built, "y", X)
    np.testing.assert_allclose(model.predict_proba(X), expected, rtol=0, atol=1e-12)
    complete = X.iloc[[0, 1, 2]].astype({"a": int})
    explanation = explain(model, complete)
    assert explanation.values.shape[:2] == (3, 2)
    assert plot_cpt(model, "b") is not None
    loaded = load(dump(model, tmp_path / "imported.bnc"))
    assert np.array_equal(loaded.predict_proba(complete), model.predict_proba(complete))
    # fit re-estimates the tables on data, keeping the imported structure
    refit = type(model)(**model.get_params()).fit(
        complete.iloc[[0, 1, 2] * 3], ["no", "yes", "no"] * 3
    )
    assert list(refit.structure_.edges)[-1] == ("a", "b") == list(model.structure_.edges)[-1]


def test_from_pgmpy_of_other_shapes_is_a_general_network(hand_built):
    """A class with parents, or a node that is not its child: a BayesNetClassifier, whose
    predictions are pgmpy's exact inference too."""
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    from bnclassify import BayesNetClassifier
    from bnclassify.io import PgmpyClassifier, from_pgmpy

    X = pd.DataFrame({"y": ["no", "yes", None, "yes"], "a": [0, 2, 1, None]}, dtype=object)
    X = X.where(X.notna(), np.nan)
    model = from_pgmpy(hand_built, "b")  # b's parents are y and a
    assert isinstance(model, BayesNetClassifier)
    assert sorted(model.structure_.predecessors("b")) == ["a", "y"]
    np.testing.assert_allclose(
        model.predict_proba(X), _variable_elimination(hand_built, "b", X), rtol=0, atol=1e-12
    )
    with pytest.raises(ValueError, match="not in the network"):
        from_pgmpy(hand_built, "z")
    orphan = DiscreteBayesianNetwork([("y", "a")])
    orphan.add_node("c")
    orphan.add_cpds(
        TabularCPD("y", 2, [[0.5], [0.5]]),
        TabularCPD("a", 2, [[0.5, 0.5], [0.5, 0.5]], evidence=["y"], evidence_card=[2]),
        TabularCPD("c", 2, [[0.2], [0.8]]),
    )
    general = from_pgmpy(orphan, "y")
    assert isinstance(general, BayesNetClassifier) and general.markov_blanket_ == ["a"]
    with pytest.raises(TypeError, match="DiscreteBayesianNetwork"):
        from_pgmpy(nx.DiGraph(), "y")
    cyclic = hand_built.copy()
    nx.DiGraph.add_edge(cyclic, "b", "a")  # pgmpy's own add_edge refuses cycles
    with pytest.raises(ValueError, match="The network has a cycle"):
        from_pgmpy(cyclic, "y")
    with pytest.raises(ValueError, match="cycle"):
        PgmpyClassifier(arcs=[("x0", "x1"), ("x1", "x0")]).fit([[0, 1], [1, 0]], [0, 1])


# -- BIF ------------------------------------------------------------------------------------------
def test_bif_round_trip_of_every_categorical_model(p450, tmp_path):
    """P450 here; car's KDB in to_bif's doctest (pgmpy's BIFReader takes ~2 s a file)."""
    from bnclassify.io import from_bif, to_bif

    X, y = p450.data, p450.target
    models = [NaiveBayes(), TAN(), TAN(criterion="bic"), KDB(k=2), SimplerTAN(p450.contact_matrix)]
    for model in models:
        model.fit(X, y)
        path = tmp_path / "model.bif"
        to_bif(model, path)
        again = from_bif(path, model.class_node_)
        np.testing.assert_allclose(again.predict_proba(X), model.predict_proba(X), 0, 1e-12)
        assert sorted(again.structure_.edges) == sorted(model.structure_.edges)
        assert again.feature_names_ == model.feature_names_
        assert again.classes_.tolist() == model.classes_.tolist()


def test_bif_keeps_integer_float_and_bool_states(tmp_path):
    from bnclassify.io import from_bif, to_bif

    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 200)
    X = pd.DataFrame(
        {
            "count": (rng.integers(0, 3, 200) + y) * 10 - 5,
            "flag": rng.random(200) < 0.3 + 0.3 * y,
            "dose": rng.choice([0.5, 1.5, 2.25], 200),
        }
    )
    model = TAN(distributions={"dose": "categorical"}).fit(X, y)
    to_bif(model, tmp_path / "typed.bif")
    again = from_bif(tmp_path / "typed.bif", model.class_node_)
    for a, b in zip(model.categories_, again.categories_, strict=True):
        assert a.dtype == b.dtype and a.tolist() == b.tolist()
    assert again.classes_.dtype == model.classes_.dtype
    np.testing.assert_allclose(again.predict_proba(X), model.predict_proba(X), 0, 1e-12)
    assert "property bnclassify_states = int" in (tmp_path / "typed.bif").read_text()


def test_bif_refuses_what_it_cannot_hold(tmp_path):
    from bnclassify.io import to_bif

    y = [0, 1, 0, 1]
    spaced = NaiveBayes().fit(pd.DataFrame({"my feature": ["a", "b", "a", "b"]}), y)
    with pytest.raises(ValueError, match="'my feature' cannot be written to BIF"):
        to_bif(spaced, tmp_path / "x.bif")
    states = NaiveBayes().fit(pd.DataFrame({"f": ["a b", "c", "a b", "c"]}), y)
    with pytest.raises(ValueError, match=r"states \['a b'\] of 'f'"):
        to_bif(states, tmp_path / "x.bif")
    mixed = NaiveBayes().fit(pd.DataFrame({"t": pd.Series([2.5, 1, "a", 1], dtype=object)}), y)
    with pytest.raises(ValueError, match=r"of 't' mix types"):  # named (the campaign)
        to_bif(mixed, tmp_path / "x.bif")
    g = pd.DataFrame({"g": [0.1, 0.5, 0.2, 0.9]})
    gaussian = NaiveBayes(distributions="density").fit(g, y)
    with pytest.raises(ValueError, match=r"features \['g'\] are continuous"):
        to_bif(gaussian, tmp_path / "x.bif")


@pytest.mark.parametrize("make", [NaiveBayes, lambda: KDB(k=2), SKDB], ids=["NB", "KDB", "SKDB"])
def test_binned_columns_go_through_pgmpy_and_bif_and_still_read_numbers(make, tmp_path):
    """A binned column (the default for numbers) is a table over intervals, whose text BIF
    cannot hold: written as le_/gt_ names, read back as intervals; pgmpy keeps the labels.
    Either way the model read back bins numbers as the fitted one does (the campaign found
    every BIF export of a model with a numeric column refused)."""
    from bnclassify.io import from_bif, from_pgmpy, to_bif

    rng = np.random.default_rng(3)
    X = pd.DataFrame(
        {
            "g": rng.normal(size=80),
            "tiny": rng.normal(size=80) * 1e-5,
            "s": rng.choice(["a", "b"], 80),
            "flat": np.full(80, 2.5),  # no cut: one interval, "(-inf, inf)", written "any"
        }
    )
    y = np.where(X["g"] + 1e5 * X["tiny"] > 0, "p", "q")
    model = make().fit(X, y)
    assert model.feature_kinds_ == ["binned", "binned", "categorical", "binned"]
    assert to_bif(model, tmp_path / "binned.bif") == tmp_path / "binned.bif"
    text = (tmp_path / "binned.bif").read_text()
    assert "{ any }" in text and "property bnclassify_states = interval" in text
    for again in (
        from_pgmpy(model.network_, model.class_node_),
        from_bif(tmp_path / "binned.bif", "class"),
    ):
        assert again.feature_kinds_ == model.feature_kinds_
        assert [c.tolist() for c in again.categories_] == [c.tolist() for c in model.categories_]
        np.testing.assert_allclose(again.predict_proba(X), model.predict_proba(X), 0, 1e-12)


def test_an_npy_header_claiming_more_data_than_the_file_holds_is_refused(good_file, tmp_path):
    members = _members(good_file)
    document = json.loads(members["model.json"])
    table = _first_table(document)
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": (2, 10**6, 10**4)}
    )
    members[table["file"]] = header.getvalue() + b"\\0" * 64
    table["shape"] = [2, 10**6, 10**4]
    members["model.json"] = json.dumps(document)
    with pytest.raises(ModelFileError, match="shorter than its header says"):
        load(_write(tmp_path / "huge.bnc", members))


def test_nothing_named_in_a_file_is_imported(good_file, tmp_path, monkeypatch):
    import builtins
    import importlib

    real_import = builtins.__import__
    imported = []

    def watch(name, *args, **kwargs):
        imported.append(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", watch)
    monkeypatch.setattr(importlib, "import_module", lambda *a, **k: pytest.fail("import_module"))
    with pytest.raises(ModelFileError, match="os.system"):
        load(HOSTILE["class-outside-list"](good_file, tmp_path))
    with pytest.raises(ModelFileError, match="subprocess.Popen"):
        load(HOSTILE["member-class-outside-list"](good_file, tmp_path))
    assert not {"os.system", "subprocess", "os"} & set(imported)


def test_a_refused_dump_writes_no_file(p450, tmp_path):
    model = TAN(contact_matrix=lambda names: None)
    with pytest.raises(TypeError, match="callable"):
        dump(model, tmp_path / "never.bnc")
    assert not (tmp_path / "never.bnc").exists()
