"""Raw tables as users have them: every bundled data set written to CSV and read back
with plain ``pd.read_csv``, and synthetic public-style mixed tables, cross-validate
with the default models (no crash, no NaN score). The full 10-fold table is in
docs/kinds.md (``benchmarks/kinds.py``)."""

import io
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import log_loss, make_scorer
from sklearn.model_selection import StratifiedKFold, cross_validate

from bnclassify import AODE, KDB, TAN, EnsembleTAN, NaiveBayes
from bnclassify import datasets as bn

MODELS = {
    "NaiveBayes": NaiveBayes,
    "TAN": TAN,
    "KDB2": lambda: KDB(k=2),
    "AODE": AODE,
    "EnsembleTAN": lambda: EnsembleTAN(n_estimators=5),
}


def _round_trip(frame):
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    buffer.seek(0)
    return pd.read_csv(buffer)


def _table(name):
    if name in ("credit", "census", "clinic"):
        frame = _round_trip(getattr(bn, f"make_{name}_table")())
        target = {"credit": "credit_risk", "census": "income", "clinic": "diagnosis"}[name]
        return frame.drop(columns=target), frame[target]
    X, y = getattr(bn, f"load_{name}")(return_X_y=True)
    frame = _round_trip(X.assign(target=np.asarray(y)))
    if name == "nursery":  # keep the test quick: every 6th row
        frame = frame.iloc[::6].reset_index(drop=True)
        # "recommend" has 2 rows in all: a declared class keeps a smoothed prior in a
        # training fold without it, as R keeps a factor's levels
        return frame.drop(columns="target"), frame["target"].astype("category")
    return frame.drop(columns="target"), frame["target"]


TABLES = ["car", "nursery", "vote", "p450", "lactamase", "credit", "census", "clinic"]


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("model", list(MODELS))
def test_raw_tables_cross_validate_with_default_models(table, model):
    X, y = _table(table)
    cv = StratifiedKFold(10, shuffle=True, random_state=0)
    loss = make_scorer(
        log_loss, response_method="predict_proba", greater_is_better=False, labels=np.unique(y)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unseen categories in a test fold are summed out
        scores = cross_validate(
            MODELS[model](),
            X,
            y,
            cv=cv,
            scoring={"loss": loss, "accuracy": "accuracy"},
            error_score="raise",
        )
    assert np.isfinite(scores["test_loss"]).all() and np.isfinite(scores["test_accuracy"]).all()
    assert scores["test_accuracy"].mean() > 0.5


def test_inferred_kinds_of_a_credit_like_table():
    X, y = _table("credit")
    wide = {"duration", "amount", "age"}  # integers of many values: continuous
    model = NaiveBayes().fit(X, y)
    kinds = dict(zip(X.columns, model.feature_kinds_, strict=True))
    assert {c for c, k in kinds.items() if k != "categorical"} == wide
    assert {kinds[c] for c in wide} == {"binned"}  # the default
    assert kinds["installment_rate"] == "categorical" and kinds["purpose"] == "categorical"
    density = NaiveBayes(distributions="density").fit(X, y)
    kinds = dict(zip(X.columns, density.feature_kinds_, strict=True))
    assert {c for c, k in kinds.items() if k == "lognormal"} == wide
    assert {c for c, k in kinds.items() if k == "categorical"} == set(X.columns) - wide
    table = TAN(distributions="density").fit(X, y).describe().set_index("column")
    assert table.loc["age", "kind"] == "lognormal" and table.loc["age", "n_categories"] == 0
    table = TAN().fit(X, y).describe().set_index("column")
    assert list(table.columns) == ["kind", "n_categories", "categories", "parents"]
    assert table.loc["age", "kind"] == "binned" and table.loc["age", "n_categories"] >= 2
    assert table.loc["purpose", "categories"] == sorted(X["purpose"].unique())
    assert sum(len(p) for p in table["parents"]) == X.shape[1] - 1  # a tree


# some columns are constant within a class: the ZeroVarianceWarning is right, not the subject
@pytest.mark.filterwarnings("ignore::bnclassify.exceptions.ZeroVarianceWarning")
def test_digits_pixels_are_binned_as_floats_categorical_as_integers():
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True, as_frame=True)
    assert set(NaiveBayes().fit(X.astype(int), y).feature_kinds_) == {"categorical"}
    # sklearn hands them over as floats with no missing cell: measurements, binned
    assert set(NaiveBayes().fit(X, y).feature_kinds_) == {"binned"}
    assert set(NaiveBayes(distributions="gaussian").fit(X, y).feature_kinds_) == {"gaussian"}


def _credit_cv(model):
    X, y = _table("credit")
    scores = cross_validate(
        model,
        X,
        y,
        cv=StratifiedKFold(10, shuffle=True, random_state=0),
        scoring=["accuracy", "neg_log_loss"],
        error_score="raise",
    )
    return scores["test_accuracy"].mean(), -scores["test_neg_log_loss"].mean()


def test_aic_tree_pays_for_many_valued_parents_on_the_credit_table():
    # the plain-information tree makes the 10-level purpose the parent of 14 of
    # the 16 other categorical features; the AIC-penalised spanning tree does not
    X, y = _table("credit")
    parents = TAN(criterion="aic_tree").fit(X, y).describe().set_index("column")["parents"]
    plain = TAN(criterion="loglik").fit(X, y).describe().set_index("column")["parents"]
    assert sum(p == ["purpose"] for p in plain) >= 12
    assert sum(p == ["purpose"] for p in parents) <= 3
    # measured with the three wide integers as densities (binned, the default: 0.509 against
    # 0.555, a gap of 0.046)
    accuracy, loss = _credit_cv(TAN(criterion="aic_tree", distributions="density"))
    plain_accuracy, plain_loss = _credit_cv(TAN(criterion="loglik", distributions="density"))
    assert accuracy >= 0.72 and loss <= plain_loss - 0.05, (accuracy, loss, plain_loss)


def test_default_tan_reaches_the_issue_14_target_on_the_credit_table():
    # duration, amount and age binned (the default: 0.757 and 0.555 in docs/kinds.md)
    accuracy, loss = _credit_cv(TAN())
    assert accuracy >= 0.72 and loss <= 0.60, (accuracy, loss)
    # as densities they are log-normal (0.526): as Gaussians (0.656) their thin right
    # tails made the wider-spread class take every large amount with near-certainty
    accuracy, loss = _credit_cv(TAN(distributions="density"))
    assert accuracy >= 0.72 and loss <= 0.60, (accuracy, loss)
    gaussian = TAN(distributions=dict.fromkeys(["duration", "amount", "age"], "gaussian"))
    assert loss <= _credit_cv(gaussian)[1] - 0.1


def test_integer_codes_read_as_floats_and_point_masses_are_categorical():
    from bnclassify.data import POINT_MASS_MIN_SHARE, default_kind

    X, y = _table("credit")
    X = X.astype({"installment_rate": float})
    X.loc[::50, "installment_rate"] = np.nan  # read_csv: integer codes with a gap -> float64
    model = NaiveBayes().fit(X, y)
    kinds = dict(zip(X.columns, model.feature_kinds_, strict=True))
    assert kinds["installment_rate"] == "categorical"
    assert model.categories_[list(X.columns).index("installment_rate")].tolist() == [1, 2, 3, 4]
    assert kinds["amount"] == "binned"  # integers with many values, none dominating
    X, y = _table("census")
    assert (X["capital_gain"] == 0).mean() >= POINT_MASS_MIN_SHARE
    assert NaiveBayes().fit(X, y).describe().set_index("column").loc["capital_gain", "kind"] == (
        "categorical"
    )
    # the share is of weighted rows: weights count as repeated rows
    values = pd.Series([0] * 10 + list(range(1, 31)))
    weights = np.r_[np.full(10, 2.0), np.ones(30)]  # 20 of 50 weighted rows are 0
    repeated = pd.Series([0] * 20 + list(range(1, 31)))
    assert default_kind(values, weights=weights) == default_kind(repeated) == "gaussian"
    assert default_kind(values, weights=np.r_[np.full(10, 3.0), np.ones(30)]) == "categorical"
