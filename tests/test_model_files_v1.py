"""Model files written by format version 1 (bnclassify at 7221d37) still load and predict alike.

The files in ``tests/data/model_files_v1/`` were written once, by
``python tests/test_model_files_v1.py --write`` on the version-1 code; next to
them, ``expected.npz`` holds the probabilities (or, for the discretiser, the
transformed table) that each model gave on the rows below when it was saved.
Regenerating them with a later format would defeat the test: they are fixtures.
"""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bnclassify import (
    AODE,
    BMATAN,
    KDB,
    SPODE,
    TAN,
    EnsembleTAN,
    MDLDiscretizer,
    NaiveBayes,
    SignalSubgraphClassifier,
    SimplerTAN,
)
from bnclassify.datasets import make_signal_subgraph_networks
from bnclassify.distributions import Bernoulli, KernelDensity, Multinomial
from bnclassify.io import ModelFileError, load

HERE = Path(__file__).parent / "data" / "model_files_v1"


def categorical(n=120, seed=0):
    """Strings, integers, a pandas Categorical and missing cells; labels 'no' / 'yes'."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = pd.DataFrame(
        {
            "a": np.where(rng.random(n) < 0.3 + 0.4 * y, "up", "down").astype(object),
            "b": (rng.integers(0, 3, n) + y) % 3,
            "c": pd.Categorical(rng.choice(["lo", "mid", "hi"], n), categories=["lo", "mid", "hi"]),
            "d": np.where(rng.random(n) < 0.5, "x", np.where(y == 1, "y", "z")).astype(object),
            "e": rng.integers(0, 2, n) ^ (rng.random(n) < 0.2 * (1 + y)),
        }
    )
    X["a"] = X["a"].mask(rng.random(n) < 0.08)
    return X, np.array(["no", "yes"], dtype=object)[y]


def contacts(names):
    """A symmetric contact matrix over the features: neighbours in column order."""
    m = len(names)
    values = np.zeros((m, m))
    for j in range(m - 1):
        values[j, j + 1] = values[j + 1, j] = 1.0 + j
    return pd.DataFrame(values, index=list(names), columns=list(names))


def mixed(n=150, seed=1):
    """Categorical, Gaussian, kde, Bernoulli and multinomial columns; three integer classes."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = pd.DataFrame(
        {
            "colour": np.where(rng.random(n) < 0.5 + 0.1 * y, "red", "blue").astype(object),
            "size": (rng.integers(0, 3, n) + y) % 4,
            "height": rng.normal(y, 1.0),
            "weight": rng.normal(2 * y, 1.5) + 0.5 * rng.normal(size=n),
            "spread": rng.gamma(2.0 + y, 1.0),
            "binary": rng.normal(y, 1.0),
            "w1": rng.poisson(1 + y),
            "w2": rng.poisson(3 - y),
            "w3": rng.poisson(2, n),
        }
    )
    X["height"] = X["height"].mask(rng.random(n) < 0.05)
    return X, y


def arrays(seed=5):
    """Counts, and their continuous and positive transforms, as plain arrays (no column names)."""
    rng = np.random.default_rng(seed)
    counts = rng.poisson(2, size=(80, 4))
    y = rng.integers(0, 2, 80)
    return counts, y, rng.normal(size=counts.shape)


MIXED_KINDS = {
    "spread": KernelDensity(),
    "binary": Bernoulli(binarize=0.5),
    ("w1", "w2", "w3"): Multinomial(alpha=0.5),
}


def cases():
    """name -> (unfitted model, X, y, rows to predict); rows are the first few of X."""
    Xc, yc = categorical()
    Xm, ym = mixed()
    counts, ya, noise = arrays()
    Xg, yg = make_signal_subgraph_networks(
        n_networks=40, n_vertices=6, n_signal_edges=3, random_state=0
    )
    discrete_mixed = Xm[["colour", "size", "height", "weight"]]
    out = {
        "nb": (NaiveBayes(), Xc, yc),
        "tan_mixed": (TAN(distributions=MIXED_KINDS), Xm, ym),
        "tan_gaussian": (TAN(), discrete_mixed, ym),
        "simpler_tan": (SimplerTAN(contacts(Xc.columns), root="b"), Xc, yc),
        "kdb": (KDB(k=2), discrete_mixed, ym),
        "spode": (SPODE(superparent="b"), Xc, yc),
        "aode": (AODE(), Xc, yc),
        "aode_mixed": (AODE(), discrete_mixed, ym),
        "ensemble_tan": (EnsembleTAN(contacts(Xc.columns)), Xc, yc),
        "ensemble_members": (EnsembleTAN(members=[KDB(k=2), NaiveBayes(alpha=0.5)]), Xc, yc),
        "bagging": (EnsembleTAN(bootstrap=True, n_estimators=3, random_state=0), Xc, yc),
        "bmatan": (BMATAN(), Xc, yc),
        "signal_subgraph": (SignalSubgraphClassifier(n_edges=3), Xg, yg),
        "nb_kde": (NaiveBayes(distributions="kde"), counts + noise, ya),
        "nb_bernoulli": (NaiveBayes(distributions="bernoulli"), counts - 2.0, ya),
        "nb_multinomial": (NaiveBayes(distributions="multinomial"), counts, ya),
        "nb_lognormal": (NaiveBayes(distributions="lognormal"), np.exp(noise), ya),
        "mdl": (MDLDiscretizer(), Xm[["height", "weight", "spread"]].fillna(0.0), ym),
    }
    return out


def _rows(X):
    return X.iloc[:6] if isinstance(X, pd.DataFrame) else X[:6]


def _output(model, X):
    rows = _rows(X)
    if isinstance(model, MDLDiscretizer):
        return np.asarray(model.transform(rows), dtype=float)
    return model.predict_proba(rows)


def write(directory=HERE):
    """Fit every case and write its model file and expected output (run on format version 1)."""
    from bnclassify.io import FORMAT_VERSION, dump

    if FORMAT_VERSION != 1:
        sys.exit(f"these fixtures are version-1 files; this bnclassify writes {FORMAT_VERSION}.")

    directory.mkdir(parents=True, exist_ok=True)
    expected = {}
    for name, (model, X, y) in cases().items():
        model.fit(X, y)
        dump(model, directory / f"{name}.bnc")
        expected[name] = _output(model, X)
    np.savez(directory / "expected.npz", **expected)


@pytest.fixture(scope="module")
def expected():
    with np.load(HERE / "expected.npz", allow_pickle=False) as stored:
        return dict(stored)


@pytest.mark.parametrize("name", list(cases()))
def test_a_version_1_file_loads_and_predicts_as_when_saved(name, expected):
    model, X, _ = cases()[name]
    loaded = load(HERE / f"{name}.bnc")
    assert type(loaded) is type(model)
    assert loaded.get_params(deep=False).keys() == model.get_params(deep=False).keys()
    np.testing.assert_allclose(_output(loaded, X), expected[name], rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", ["tan_mixed", "aode", "ensemble_tan", "bmatan", "nb_kde"])
def test_a_version_1_model_re_saved_is_a_version_2_file_that_predicts_alike(
    name, expected, tmp_path
):
    import json
    import zipfile

    from bnclassify.io import dump

    _, X, _ = cases()[name]
    path = dump(load(HERE / f"{name}.bnc"), tmp_path / "again.bnc")
    with zipfile.ZipFile(path) as archive:
        assert json.loads(archive.read("model.json"))["version"] == 2
    np.testing.assert_allclose(_output(load(path), X), expected[name], rtol=1e-12, atol=0)


def test_every_fixture_is_tested():
    assert {p.stem for p in HERE.glob("*.bnc")} == set(cases())


def test_a_version_1_file_with_a_bad_table_is_refused(tmp_path):
    import json
    import zipfile

    with zipfile.ZipFile(HERE / "nb.bnc") as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    document = json.loads(members["model.json"])
    document["model"]["state"]["classes_"] = {"t": "objects", "shape": [1], "v": ["no"]}
    members["model.json"] = json.dumps(document).encode()
    with zipfile.ZipFile(tmp_path / "bad.bnc", "w") as archive:
        for n, data in members.items():
            archive.writestr(n, data)
    with pytest.raises(ModelFileError, match="is not a bnclassify model file"):
        load(tmp_path / "bad.bnc")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_model_files_v1.py --write")
    write()
