import pandas as pd
import pytest

from bnclassify.datasets import (
    load_car,
    load_csv,
    load_lactamase,
    load_nursery,
    load_p450,
    load_vote,
)

SHAPES = {
    load_p450: (955, 8, "functional", 2),
    load_lactamase: (553, 8, "functional", 2),
    load_car: (1728, 6, "class", 4),
    load_nursery: (12960, 8, "class", 5),
    load_vote: (435, 16, "Class", 2),
}


@pytest.mark.parametrize("loader", list(SHAPES))
def test_bunch_layout(loader):
    rows, features, target, n_classes = SHAPES[loader]
    bunch = loader()
    assert bunch.data.shape == (rows, features)
    assert bunch.target.name == target and len(bunch.target_names) == n_classes
    assert bunch.feature_names == list(bunch.data.columns)
    assert list(bunch.frame.columns) == [*bunch.feature_names, target]
    assert all(isinstance(t, pd.CategoricalDtype) for t in bunch.frame.dtypes)
    assert bunch.DESCR.strip()
    X, y = loader(return_X_y=True)
    pd.testing.assert_frame_equal(X, bunch.data)


@pytest.mark.parametrize("loader", [load_p450, load_lactamase])
def test_contact_matrix_is_labelled_symmetric_nonnegative(loader):
    bunch = loader()
    contacts = bunch.contact_matrix
    assert list(contacts.index) == list(contacts.columns) == bunch.feature_names
    assert (contacts.to_numpy() == contacts.to_numpy().T).all()
    assert (contacts.to_numpy() >= 0).all()


def test_vote_keeps_its_missing_votes():
    X, _ = load_vote(return_X_y=True)
    assert X.isna().sum().sum() == 392
    assert X.isna().any(axis=1).sum() == 203
    assert set(X.stack().dropna().unique()) == {"y", "n"}


def test_load_csv_errors_name_the_problem(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,x\n2,y\n")
    with pytest.raises(ValueError, match="no column named 'zz'"):
        load_csv(path, target="zz")
    assert load_csv(path, target="a").target.name == "a"
