"""Synthetic raw mixed tables, shaped like what ``pd.read_csv`` returns for public data.

Each table is sampled from a known generative model (so the features carry
signal) and comes back as one DataFrame holding the class column, not last,
with the column types a CSV reader infers: integer codes, wide integer
columns (counts, amounts, ages), floats, strings and booleans.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

__all__ = ["make_credit_table", "make_census_table", "make_clinic_table"]


def _pick(rng, labels, probs, rows):
    """One label per row; ``probs`` (n_rows, k) or (k,) are the row's probabilities."""
    probs = np.broadcast_to(np.asarray(probs, dtype=float), (rows, len(labels)))
    cum = np.cumsum(probs / probs.sum(axis=1, keepdims=True), axis=1)
    index = (rng.random_sample((rows, 1)) > cum).sum(axis=1)
    return np.asarray(labels, dtype=object)[np.minimum(index, len(labels) - 1)]


def make_credit_table(n_samples=1000, *, random_state=0):
    """A raw table like the German credit data: 20 features and a binary class.

    The class ``credit_risk`` ("good" 70%, "bad" 30%) is the sixth column. The
    features are string codes (``checking_status``, ``purpose`` with ten
    levels, ...), small integer codes (``installment_rate`` 1-4, ...) and three
    wide integer columns: ``duration`` in months, ``amount`` and ``age``. The
    class drives most features; ``amount`` also grows with ``duration`` and
    depends on ``purpose`` (small class x purpose groups), ``age`` on
    ``employment``.

    Parameters
    ----------
    n_samples : int, default=1000
    random_state : int, RandomState or None, default=0

    Returns
    -------
    DataFrame of shape (n_samples, 21)

    Examples
    --------
    >>> table = make_credit_table()
    >>> table.shape, list(table.columns[:6])[-1], str(table["duration"].dtype)
    ((1000, 21), 'credit_risk', 'int64')
    """
    rng = check_random_state(random_state)
    n = n_samples
    bad = rng.random_sample(n) < 0.3
    b = bad[:, None]

    def by_class(good_p, bad_p):
        return np.where(b, bad_p, good_p)

    checking = _pick(
        rng,
        ["A11", "A12", "A13", "A14"],
        by_class([0.2, 0.23, 0.07, 0.5], [0.45, 0.35, 0.05, 0.15]),
        n,
    )
    history = _pick(
        rng,
        ["A30", "A31", "A32", "A33", "A34"],
        by_class([0.02, 0.03, 0.5, 0.08, 0.37], [0.1, 0.1, 0.56, 0.1, 0.14]),
        n,
    )
    purposes = ["A40", "A41", "A42", "A43", "A44", "A45", "A46", "A48", "A49", "A410"]
    purpose = _pick(
        rng,
        purposes,
        by_class(
            [0.21, 0.12, 0.18, 0.31, 0.01, 0.02, 0.04, 0.01, 0.09, 0.01],
            [0.3, 0.06, 0.19, 0.21, 0.01, 0.03, 0.07, 0.01, 0.11, 0.01],
        ),
        n,
    )
    savings = _pick(
        rng,
        ["A61", "A62", "A63", "A64", "A65"],
        by_class([0.55, 0.1, 0.07, 0.06, 0.22], [0.72, 0.11, 0.04, 0.02, 0.11]),
        n,
    )
    employment = _pick(
        rng,
        ["A71", "A72", "A73", "A74", "A75"],
        by_class([0.06, 0.16, 0.33, 0.19, 0.26], [0.08, 0.23, 0.35, 0.13, 0.21]),
        n,
    )
    personal = _pick(
        rng,
        ["A91", "A92", "A93", "A94"],
        by_class([0.04, 0.29, 0.57, 0.1], [0.07, 0.36, 0.49, 0.08]),
        n,
    )
    debtors = _pick(
        rng, ["A101", "A102", "A103"], by_class([0.9, 0.03, 0.07], [0.91, 0.06, 0.03]), n
    )
    property_ = _pick(
        rng,
        ["A121", "A122", "A123", "A124"],
        by_class([0.32, 0.23, 0.33, 0.12], [0.2, 0.24, 0.34, 0.22]),
        n,
    )
    plans = _pick(
        rng, ["A141", "A142", "A143"], by_class([0.12, 0.04, 0.84], [0.19, 0.06, 0.75]), n
    )
    housing = _pick(
        rng, ["A151", "A152", "A153"], by_class([0.16, 0.75, 0.09], [0.23, 0.62, 0.15]), n
    )
    job = _pick(rng, ["A171", "A172", "A173", "A174"], [0.02, 0.2, 0.63, 0.15], n)
    telephone = _pick(rng, ["A191", "A192"], by_class([0.58, 0.42], [0.62, 0.38]), n)
    foreign = _pick(rng, ["A201", "A202"], by_class([0.95, 0.05], [0.99, 0.01]), n)
    installment = _pick(
        rng, [1, 2, 3, 4], by_class([0.15, 0.24, 0.16, 0.45], [0.11, 0.2, 0.15, 0.54]), n
    )
    residence = _pick(rng, [1, 2, 3, 4], [0.13, 0.31, 0.15, 0.41], n)
    credits = _pick(
        rng, [1, 2, 3, 4], by_class([0.62, 0.34, 0.03, 0.01], [0.67, 0.3, 0.02, 0.01]), n
    )
    dependents = _pick(rng, [1, 2], [0.85, 0.15], n)
    duration = np.clip(np.round(rng.gamma(np.where(bad, 3.5, 3.0), np.where(bad, 7.0, 6.0))), 4, 72)
    # amount: log-linear in duration, shifted by purpose (cars and business cost more)
    shift = pd.Series(purposes).map(
        dict(zip(purposes, [0.3, 0.6, 0.0, -0.2, -0.3, 0.1, 0.2, -0.5, 0.5, 0.9], strict=True))
    )
    log_amount = (
        6.4
        + 0.045 * duration
        + shift.to_numpy()[pd.Index(purposes).get_indexer(purpose)]
        + 0.15 * bad
        + rng.normal(0, 0.45, n)
    )
    amount = np.clip(np.round(np.exp(log_amount)), 250, 18500)
    senior = pd.Index(["A71", "A72", "A73", "A74", "A75"]).get_indexer(employment)
    age = np.clip(np.round(22 + 3.0 * senior - 2.5 * bad + rng.gamma(2.0, 4.5, n)), 19, 75)
    return pd.DataFrame(
        {
            "checking_status": checking,
            "duration": duration.astype(np.int64),
            "credit_history": history,
            "purpose": purpose,
            "amount": amount.astype(np.int64),
            "credit_risk": np.where(bad, "bad", "good").astype(object),
            "savings": savings,
            "employment": employment,
            "installment_rate": installment.astype(np.int64),
            "personal_status": personal,
            "other_debtors": debtors,
            "residence_since": residence.astype(np.int64),
            "property": property_,
            "age": age.astype(np.int64),
            "other_plans": plans,
            "housing": housing,
            "existing_credits": credits.astype(np.int64),
            "job": job,
            "dependents": dependents.astype(np.int64),
            "telephone": telephone,
            "foreign_worker": foreign,
        }
    )


def make_census_table(n_samples=1500, *, random_state=0):
    """A raw table like the adult census data; the class ``income`` is the third column.

    Wide integer columns (``age``, ``hours_per_week``, ``capital_gain``, mostly
    0), a small integer code (``education_num`` 1-16), strings with missing
    cells (``workclass``, ``occupation``), a boolean and a float.

    Examples
    --------
    >>> table = make_census_table(200)
    >>> table.shape, table.columns[2]
    ((200, 10), 'income')
    """
    rng = check_random_state(random_state)
    n = n_samples
    rich = rng.random_sample(n) < 0.25
    r = rich[:, None]
    education = np.clip(np.round(rng.normal(np.where(rich, 11.5, 9.5), 2.3)), 1, 16).astype(
        np.int64
    )
    age = np.clip(np.round(rng.normal(np.where(rich, 44, 37), 11)), 17, 90).astype(np.int64)
    hours = np.clip(np.round(rng.normal(np.where(rich, 45, 39), 10)), 1, 99).astype(np.int64)
    gain = np.where(
        rng.random_sample(n) < np.where(rich, 0.2, 0.04), np.round(rng.lognormal(8.5, 1.0, n)), 0
    ).astype(np.int64)
    workclass = _pick(
        rng,
        ["Private", "Self-emp", "Gov", "Never-worked"],
        np.where(r, [0.6, 0.2, 0.19, 0.01], [0.75, 0.1, 0.12, 0.03]),
        n,
    )
    workclass[rng.random_sample(n) < 0.05] = None
    occupation = _pick(
        rng,
        ["Exec", "Prof", "Craft", "Sales", "Clerical", "Service", "Transport"],
        np.where(
            r, [0.3, 0.3, 0.1, 0.15, 0.08, 0.03, 0.04], [0.08, 0.1, 0.16, 0.11, 0.16, 0.22, 0.17]
        ),
        n,
    )
    occupation[rng.random_sample(n) < 0.05] = None
    married = rng.random_sample(n) < np.where(rich, 0.85, 0.4)
    sex = _pick(rng, ["Male", "Female"], np.where(r, [0.85, 0.15], [0.62, 0.38]), n)
    weight = np.round(rng.lognormal(12, 0.5, n), 1)
    return pd.DataFrame(
        {
            "age": age,
            "workclass": workclass,
            "income": np.where(rich, ">50K", "<=50K").astype(object),
            "education_num": education,
            "occupation": occupation,
            "married": married,
            "sex": sex,
            "capital_gain": gain,
            "hours_per_week": hours,
            "fnlwgt": weight,
        }
    )


def make_clinic_table(n_samples=600, *, random_state=0):
    """A raw clinical-style table with three classes; the class ``diagnosis`` is first.

    Floats (lab values at very different scales), integer counts (``visits``),
    a Likert score 1-5, a boolean flag and string categories.

    Examples
    --------
    >>> table = make_clinic_table(100)
    >>> table.columns[0], sorted(table["diagnosis"].unique())
    ('diagnosis', ['A', 'B', 'C'])
    """
    rng = check_random_state(random_state)
    n = n_samples
    k = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
    glucose = rng.normal(np.array([90.0, 120.0, 105.0])[k], 15)
    crp = rng.lognormal(np.array([0.0, 1.0, 2.0])[k], 0.8) * 1e-3
    visits = rng.poisson(np.array([3.0, 8.0, 15.0])[k]).astype(np.int64)
    pain = np.clip(np.round(rng.normal(np.array([2.0, 3.0, 4.0])[k], 1)), 1, 5).astype(np.int64)
    smoker = rng.random_sample(n) < np.array([0.2, 0.35, 0.5])[k]
    ward = _pick(
        rng,
        ["north", "south", "east"],
        np.array([[0.5, 0.3, 0.2], [0.2, 0.5, 0.3], [0.3, 0.2, 0.5]])[k],
        n,
    )
    glucose[rng.random_sample(n) < 0.05] = np.nan
    return pd.DataFrame(
        {
            "diagnosis": np.array(["A", "B", "C"], dtype=object)[k],
            "glucose": np.round(glucose, 1),
            "crp": crp,
            "visits": visits,
            "pain": pain,
            "smoker": smoker,
            "ward": ward,
        }
    )
