"""scikit-learn's estimator checks under test ids that are the same in every run.

scikit-learn names each case by the estimator's repr, and a callable parameter (a
contact-matrix function, a weighting object) prints its memory address there: the ids then
change from run to run and pytest-xdist's workers, which must collect the same ids, refuse
them. Here the address is replaced by the callable's name.
"""

from __future__ import annotations

import re
from functools import partial

import pytest
from sklearn import clone, config_context
from sklearn.utils.estimator_checks import estimator_checks_generator

from bnclassify.exceptions import InvalidParameterError
from bnclassify.validation import validate_parameters

# "<function chain at 0x7f...>" or "<package.module.AWNB object at 0x7f...>"
_ADDRESS = re.compile(r"<(?:function |bound method )?([\w.]+?)(?: object)? at 0x[0-9a-fA-F]+>")


def stable_id(obj) -> str:
    """A readable test id of an estimator or a check, with no memory address in it."""
    if hasattr(obj, "get_params"):
        with config_context(print_changed_only=True):
            text = str(obj)
    elif isinstance(obj, partial):
        keywords = ",".join(f"{k}={v!r}" for k, v in obj.keywords.items())
        text = f"{obj.func.__name__}({keywords})" if keywords else obj.func.__name__
    else:
        text = getattr(obj, "__name__", repr(obj))
    text = _ADDRESS.sub(lambda m: m.group(1).rsplit(".", 1)[-1], text)
    return re.sub(r"\s", "", text)


# scikit-learn's checks with categorical-tagged estimators round their tables to small
# integers: rounded iris has petal width constant over the 50 setosa rows, and the 0/1
# tables of the sample-weight checks leave columns constant within a class. A Gaussian
# node then borrows the pooled spread and says so in a ZeroVarianceWarning: right there,
# but the suite runs with warnings as errors. The rounded floats are measurements to the kinds
# rule (a float column is continuous), so the checks below, whose 20-30 rows hold values 0-3
# split over several classes, fit such columns as densities too when a density is asked for.
ZERO_SPREAD_CHECKS = (
    "check_positive_only_tag_during_fit",
    "check_sample_weight_equivalence",
    "check_dont_overwrite_parameters",
    "check_sample_weights_not_overwritten",
    "check_f_contiguous_array_estimator",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_fit2d_predict1d",
)
_ZERO_SPREAD = pytest.mark.filterwarnings("ignore::bnclassify.exceptions.ZeroVarianceWarning")


# partial_fit refuses what it cannot learn chunk by chunk as fit learns it from all the rows
# (a binned column's cut points, the kinds rule's log-normal-or-Gaussian choice: an
# OutOfCoreError naming the columns), and these checks fit scikit-learn's float tables with
# partial_fit: they run on the estimator with its numbers named Gaussian, whose statistics
# add up over chunks (tests/test_out_of_core_bins.py tests the refusals and the remedies).
INCREMENTAL_CHECKS = (
    "check_fit_score_takes_y",
    "check_n_features_in_after_fitting",
    "check_estimators_partial_fit_n_features",
)


def _with_named_numbers(estimator):
    """``estimator`` with every column Gaussian (a model of tables only: categorical) when
    it has a ``partial_fit`` and a ``distributions`` parameter (else itself)."""
    if callable(getattr(estimator, "partial_fit", None)) and (
        "distributions" in estimator.get_params()
    ):
        gaussian = clone(estimator).set_params(distributions="gaussian")
        try:
            validate_parameters(gaussian)
        except InvalidParameterError:  # a model of tables only: each number its own category
            return clone(estimator).set_params(distributions="categorical")
        return gaussian
    return estimator


def parametrize_with_checks(estimators, expected_failed_checks=None):
    """``sklearn.utils.estimator_checks.parametrize_with_checks`` with stable ids (and the
    checks of :data:`ZERO_SPREAD_CHECKS` not failing on the warning they rightly cause).
    ``expected_failed_checks``: as scikit-learn's, ``estimator -> {check name: reason}``."""
    params = []
    for estimator in estimators:
        expected = None if expected_failed_checks is None else expected_failed_checks(estimator)
        for case in estimator_checks_generator(
            estimator, legacy=True, mark="xfail", expected_failed_checks=expected
        ):
            values, marks = (case.values, case.marks) if hasattr(case, "marks") else (case, ())
            if stable_id(values[1]).startswith(INCREMENTAL_CHECKS):
                values = (_with_named_numbers(values[0]), *values[1:])
            ident = f"{stable_id(values[0])}-{stable_id(values[1])}"
            if stable_id(values[1]).startswith(ZERO_SPREAD_CHECKS):
                marks = [*marks, _ZERO_SPREAD]
            params.append(pytest.param(*values, marks=marks, id=ident))
    return pytest.mark.parametrize("estimator, check", params)
