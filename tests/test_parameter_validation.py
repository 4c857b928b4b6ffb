"""Parameters are checked up front, from one declared table per class (issue 24, item 3).

Every estimator and node model declares ``_parameter_constraints``; ``fit``,
``partial_fit`` and the dask fit check it before any data is read (so ``X=None``
still gets the parameter's error), with one exception type naming the class,
the parameter, what is allowed and the value given.
"""

from fractions import Fraction
from numbers import Integral, Real

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bnclassify import (
    AODE,
    BMATAN,
    ESKDB,
    KDB,
    SKDB,
    SPODE,
    TAN,
    EnsembleTAN,
    NaiveBayes,
    SignalSubgraphClassifier,
    SimplerTAN,
)
from bnclassify.distributed import fit_dask
from bnclassify.distributions import (
    Bernoulli,
    Categorical,
    Gaussian,
    KernelDensity,
    LogNormal,
    Multinomial,
)
from bnclassify.exceptions import InvalidParameterError, ModelFileError, UnseenCategoryError
from bnclassify.preprocessing import MDLDiscretizer
from bnclassify.study import StudyTAN
from bnclassify.validation import (
    ArrayLike,
    Interval,
    Options,
    SquareMatrix,
    check_parameter,
    validate_parameters,
)


def chain(features):
    m = len(features)
    return np.eye(m, k=1) + np.eye(m, k=-1)


class Unhashable:
    """A value no constraint accepts: not None, a number, a string, a sequence or callable."""

    __hash__ = None


#: Estimator class -> the parameters every case starts from (the others at their defaults).
BASE = {
    NaiveBayes: {},
    TAN: {},
    SimplerTAN: {"contact_matrix": chain},
    StudyTAN: {},
    KDB: {},
    SPODE: {},
    AODE: {},
    EnsembleTAN: {},
    BMATAN: {},
    SKDB: {},
    ESKDB: {},
    SignalSubgraphClassifier: {},
    MDLDiscretizer: {},
}

ALPHA = [-1, -0.5, "1", np.nan, np.inf, True, None, [1.0]]
HANDLE_UNKNOWN = ["ignore", None, "WARN", 1]
DISTRIBUTIONS = ["poisson", 3, {"a": 3}, {(): "gaussian"}, {"a": "multinomial"}, [Gaussian()]]
#: ``distributions`` of a model whose nodes are all tables: densities too are refused.
TABLE_DISTRIBUTIONS = [*DISTRIBUTIONS, "density", "gaussian", {"a": "lognormal"}, Gaussian()]
CONTACT_MATRIX = [np.ones((2, 3)), [[1, 2], [3]], np.ones((2, 2)) * 1j, "chain", 5, np.ones(3)]

#: Estimator class -> parameter -> values refused before any data is read.
BAD = {
    NaiveBayes: {"alpha": ALPHA, "handle_unknown": HANDLE_UNKNOWN, "distributions": DISTRIBUTIONS},
    TAN: {
        "alpha": ALPHA,
        "root": [[0], {"a": 1}],
        "criterion": ["BIC", "likelihood", None],
        "contact_matrix": CONTACT_MATRIX,
        "contact_prior": [-1.0, np.nan, "10", True],
        "handle_unknown": HANDLE_UNKNOWN,
        "distributions": DISTRIBUTIONS,
    },
    SimplerTAN: {
        "contact_matrix": [None, *CONTACT_MATRIX],
        "alpha": ALPHA,
        "root": [[0]],
        "handle_unknown": HANDLE_UNKNOWN,
        "distributions": DISTRIBUTIONS,
    },
    StudyTAN: {"alpha": ALPHA, "root": [[0]], "handle_unknown": HANDLE_UNKNOWN},
    KDB: {
        "k": [-1, 1.5, True, "2", None],
        "alpha": ALPHA,
        "order": [5, "block1", {"a": 1}],
        "handle_unknown": HANDLE_UNKNOWN,
        "distributions": DISTRIBUTIONS,
    },
    SPODE: {
        "superparent": [[0], {"a"}],
        "alpha": ALPHA,
        "handle_unknown": HANDLE_UNKNOWN,
        "distributions": DISTRIBUTIONS,
    },
    AODE: {
        "alpha": ALPHA,
        "min_frequency": [-1, 1.5, True, None],
        "handle_unknown": HANDLE_UNKNOWN,
        "distributions": DISTRIBUTIONS,
    },
    EnsembleTAN: {
        "contact_matrix": CONTACT_MATRIX,
        "members": ["bagging", [], [TAN(), "tan"], NaiveBayes(alpha=-1), [TAN(criterion="x")], 3],
        "bootstrap": ["yes", 1, None],
        "n_estimators": [0, 2.5, True, 10**7],
        "alpha": ALPHA,
        "random_state": ["x", -1, 1.5, 2**40],
        "n_jobs": [0, 1.5, "2", True],
        "handle_unknown": HANDLE_UNKNOWN,
        "distributions": DISTRIBUTIONS,
    },
    BMATAN: {
        "equivalent_sample_size": [0, -2.0, "1", np.nan, True, None],
        "contact_matrix": CONTACT_MATRIX,
        "contact_prior": [-1, "max", np.inf, None],
        "handle_unknown": HANDLE_UNKNOWN,
        "distributions": TABLE_DISTRIBUTIONS,
    },
    SKDB: {"k": [-1, 1.5], "criterion": ["mse"], "distributions": TABLE_DISTRIBUTIONS},
    ESKDB: {"n_estimators": [0], "discretization": ["x"], "distributions": TABLE_DISTRIBUTIONS},
    SignalSubgraphClassifier: {
        "n_edges": [0, 2.5, True, None],
        "n_vertices_signal": [0, 1.5, "2"],
        "directed": ["yes", 1, None],
        "loops": ["no", 0],
        "test": ["t", None],
        "alpha": [0, *ALPHA],
        "class_prior": ["ab", [0.5, "x"], 0.5, [[0.5, 0.5]]],
    },
    MDLDiscretizer: {"columns": ["a", 3, {"a": 1}]},
}

#: The node models and values of their parameters refused when an estimator is fitted.
FACTOR_BAD = {
    Gaussian: {"var_smoothing": [-1, np.nan, "1e-9", True], "prior_strength": [-1, np.inf, "5"]},
    LogNormal: {"var_smoothing": [-1e-9], "prior_strength": [None]},
    KernelDensity: {"bandwidth": ["wide", 0, -1.0, np.nan, True], "var_smoothing": [-1, None]},
    Bernoulli: {"binarize": [np.nan, "a", True], "alpha": [-1, np.inf, "1"]},
    Multinomial: {"alpha": [-1, "1", np.nan]},
}


def _cases(table):
    return [
        pytest.param(owner, name, value, id=f"{owner.__name__}-{name}-{k}")
        for owner, parameters in table.items()
        for name, values in parameters.items()
        for k, value in enumerate(values)
    ]


def _partial(estimator):
    return hasattr(estimator, "partial_fit")


# -- every estimator declares every parameter once ------------------------------------------------
@pytest.mark.parametrize("cls", [*BASE, *FACTOR_BAD, Categorical], ids=lambda c: c.__name__)
def test_every_parameter_is_declared(cls):
    declared = set(cls._parameter_constraints)
    assert declared == set(cls(**BASE.get(cls, {})).get_params(deep=False))


@pytest.mark.parametrize("cls", list(BASE), ids=lambda c: c.__name__)
def test_defaults_pass(cls):
    validate_parameters(cls(**BASE[cls]))


@pytest.mark.parametrize("cls", list(BASE), ids=lambda c: c.__name__)
def test_every_parameter_refuses_a_value_of_no_kind(cls):
    for name in cls._parameter_constraints:
        estimator = cls(**BASE[cls]).set_params(**{name: Unhashable()})
        with pytest.raises(InvalidParameterError, match=rf"^{cls.__name__}: .*{name}"):
            estimator.fit(None, None)


# -- bad values fail first, naming the class and the parameter --------------------------------
@pytest.mark.parametrize(("cls", "name", "value"), _cases(BAD))
def test_bad_parameter_fails_before_the_data_is_read(cls, name, value):
    estimator = cls(**BASE[cls]).set_params(**{name: value})
    before = dict(vars(estimator))
    expected = rf"^{cls.__name__}: .*{name}"  # a member's or node's parameter: "(members[0])"
    with pytest.raises(InvalidParameterError, match=expected):
        estimator.fit(None, None)
    assert vars(estimator).keys() == before.keys()  # nothing fitted, nothing set
    if _partial(estimator):
        with pytest.raises(InvalidParameterError, match=expected):
            estimator.partial_fit(None, None)
        assert vars(estimator).keys() == before.keys()


@pytest.mark.parametrize(("cls", "name", "value"), _cases(FACTOR_BAD))
def test_bad_node_parameter_fails_when_the_estimator_starts(cls, name, value):
    spec = cls(**{name: value})
    for distributions in (spec, {("a", "b") if cls.joint else "a": spec}):
        model = NaiveBayes(distributions=distributions)
        with pytest.raises(InvalidParameterError, match=rf"^NaiveBayes: {cls.__name__} .*{name}"):
            model.fit(None, None)
        with pytest.raises(InvalidParameterError, match=rf"{cls.__name__} .*{name}"):
            TAN(distributions=distributions).partial_fit(None, None)


def test_dask_fit_checks_parameters_first():
    with pytest.raises(InvalidParameterError, match="^TAN: criterion must be one of"):
        fit_dask(TAN(criterion="x"), None, None)
    with pytest.raises(InvalidParameterError, match="^AODE: min_frequency must be"):
        fit_dask(AODE(min_frequency=-1), None, None)


def test_message_names_allowed_values_and_value_given():
    with pytest.raises(InvalidParameterError) as error:
        TAN(handle_unknown="ignore").fit(None, None)
    assert str(error.value) == (
        "TAN: handle_unknown must be one of ('warn', 'error', 'marginalize'), got 'ignore'."
    )
    with pytest.raises(InvalidParameterError) as error:
        SimplerTAN(np.ones((8, 7))).fit(None, None)
    assert "got an array of shape (8, 7): its shape is (8, 7), not square" in str(error.value)


# -- combinations of parameters ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("estimator", "match"),
    [
        (TAN(contact_prior=1.0), "^TAN: contact_prior > 0 needs a contact_matrix"),
        (BMATAN(contact_prior="auto"), "^BMATAN: contact_prior='auto' needs a contact_matrix"),
        (EnsembleTAN(members="all"), "^EnsembleTAN: members='all' includes Simpler TANs"),
        (EnsembleTAN(members=KDB()), "^EnsembleTAN: members=KDB.. has no root"),
        (
            EnsembleTAN(members=[TAN(), StudyTAN()], distributions="density"),
            "^EnsembleTAN: distributions='density' is set on every member, but "
            "StudyTAN takes no distributions",
        ),
    ],
)
def test_rules_between_parameters_fail_up_front(estimator, match):
    with pytest.raises(InvalidParameterError, match=match):
        estimator.fit(None, None)


def test_rules_accept_the_valid_combinations():
    validate_parameters(TAN(contact_prior=1.0, contact_matrix=chain))
    validate_parameters(BMATAN(contact_prior=0))
    validate_parameters(EnsembleTAN(members="all", contact_matrix=chain))
    validate_parameters(EnsembleTAN(members=KDB(), bootstrap=True))
    validate_parameters(EnsembleTAN(members=[TAN(), KDB()], distributions="density"))


# -- what is allowed is accepted as given -----------------------------------------------------
@pytest.mark.parametrize(
    "estimator",
    [
        NaiveBayes(alpha=Fraction(1, 2)),
        NaiveBayes(alpha=np.float32(0.5), distributions={"block1": Categorical()}),
        TAN(root=np.int64(2), contact_prior=np.float64(0.5), contact_matrix=chain),
        KDB(k=np.int64(2), order=np.array([f"block{i}" for i in range(8, 0, -1)])),
        EnsembleTAN(bootstrap=np.bool_(True), n_estimators=np.int64(3), random_state=0),
        EnsembleTAN(members=[TAN(criterion="bic"), KDB(k=2)], n_jobs=-1),
    ],
)
def test_accepted_forms_fit(estimator):
    from bnclassify.datasets import load_p450

    X, y = load_p450(return_X_y=True)
    params = estimator.get_params(deep=False)
    assert estimator.fit(X, y).predict(X.iloc[:3]).shape == (3,)
    assert all(estimator.get_params(deep=False)[k] is v for k, v in params.items())


# -- the constraint vocabulary ---------------------------------------------------------------
finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@given(
    value=st.one_of(finite, st.integers(-(10**6), 10**6)),
    left=st.one_of(st.none(), finite),
    width=st.one_of(st.none(), st.floats(0, 1e6)),
    closed=st.sampled_from(["left", "right", "both", "neither"]),
)
def test_real_interval_accepts_exactly_its_bounds(value, left, width, closed):
    right = None if width is None or left is None else left + width
    inside = (left is None or (value >= left if closed in ("left", "both") else value > left)) and (
        right is None or (value <= right if closed in ("right", "both") else value < right)
    )
    assert (Interval(Real, left, right, closed=closed).check(value) is None) == inside


@given(st.one_of(st.booleans(), st.sampled_from([np.True_, np.nan, np.inf, -np.inf, "1", None])))
def test_intervals_refuse_booleans_and_non_finite_numbers(value):
    for kind in (Integral, Real):
        assert Interval(kind, None, None).check(value) is not None


@given(st.integers(-(2**62), 2**62), st.integers(0, 5))
def test_integer_interval_refuses_floats_and_names_the_bound(value, low):
    constraint = Interval(Integral, low, None)
    assert constraint.check(float(value)) is not None
    if value < low:
        with pytest.raises(InvalidParameterError, match=rf"^k must be an integer >= {low}, got"):
            check_parameter(value, "k", [constraint])
    else:
        assert check_parameter(np.int64(value), "k", [constraint]) == value


@given(st.text(max_size=8))
def test_options_accept_only_their_values(value):
    options = Options({"warn", "error", "marginalize"})
    assert (options.check(value) is None) == (value in {"warn", "error", "marginalize"})


def test_options_refuse_unhashable_and_array_values_without_comparing():
    options = Options(("a", "b"))
    assert options.check(np.array(["a", "b"])) == ""
    assert options.check(["a"]) == ""


@pytest.mark.parametrize(
    ("value", "accepted"),
    [
        (pd.DataFrame(np.eye(2), index=["a", "b"], columns=["b", "a"]), True),
        (pd.DataFrame(np.eye(2), index=["a", "c"], columns=["a", "b"]), False),
        (pd.DataFrame({"a": ["x", "y"], "b": ["y", "x"]}, index=["a", "b"]), False),
        (np.eye(3, dtype=np.int8), True),
        ([[0, 1], [1, 0]], True),
        (np.array([[0, "x"], ["x", 0]], dtype=object), False),
        (np.ones((2, 2, 2)), False),
    ],
)
def test_square_matrix(value, accepted):
    assert (SquareMatrix().check(value) is None) == accepted


def test_array_like_refuses_strings_mappings_and_sets():
    constraint = ArrayLike("a list of names")
    assert [constraint.check(v) is None for v in ("ab", {"a": 1}, {"a"}, ["a"], ("a",))] == [
        False,
        False,
        False,
        True,
        True,
    ]


# -- one exception type per kind of mistake ----------------------------------------------------
def test_invalid_parameter_error_is_a_value_and_a_type_error():
    assert issubclass(InvalidParameterError, ValueError)
    assert issubclass(InvalidParameterError, TypeError)


def test_unseen_category_error():
    X = pd.DataFrame({"a": ["x", "y", "x", "y"]})
    model = NaiveBayes(handle_unknown="error").fit(X, [0, 1, 0, 1])
    with pytest.raises(UnseenCategoryError, match=r"Column 'a' has value\(s\) \['z'\] not seen"):
        model.predict(pd.DataFrame({"a": ["z"]}))


def test_model_file_error_is_one_class():
    import bnclassify.io

    assert bnclassify.io.ModelFileError is ModelFileError
