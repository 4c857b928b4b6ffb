"""scikit-learn's estimator checks on the core estimators, the selective KDBs, HNB, A2DE and
the general Bayesian network classifier."""

import numpy as np
from _checks import parametrize_with_checks

from bnclassify import ESKDB, HNB, SKDB, TAN, AnDE, BayesNetClassifier, NaiveBayes, SimplerTAN


def sequence_neighbours(features):
    """Contacts between neighbouring features only: a chain, whatever the data's width."""
    m = len(features)
    return np.eye(m, k=1) + np.eye(m, k=-1)


ESTIMATORS = [
    NaiveBayes(),
    TAN(),
    SimplerTAN(contact_matrix=sequence_neighbours),
    SKDB(),
    ESKDB(n_estimators=3, random_state=0),
    BayesNetClassifier(),
    HNB(),
    AnDE(n=2),
]


# Every check applies and passes: no expected failures. (The three array-API checks
# are skipped by scikit-learn itself unless SCIPY_ARRAY_API is set.)
@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
