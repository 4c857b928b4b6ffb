"""Test-session settings for the whole repository (tests, doctests, notebooks)."""

import matplotlib

matplotlib.use("Agg")  # never open windows; doctests in bnclassify/ draw too

import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    """Close every figure a test opened, passed or failed: no test reads another's figure."""
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def numbers_as_densities():
    """The kinds rule models continuous columns as densities (Gaussian or log-normal), the
    default before issue 32 item 3 made them binned, for every test of the module that asks
    (``pytestmark = pytest.mark.usefixtures("numbers_as_densities")``): tests of those nodes
    as the rule chooses them, in every estimator at its default ``distributions``.
    Module-scoped, so hypothesis tests may use it.
    """
    from bnclassify.data import kinds_rule

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kinds_rule, "NUMERIC_KIND", "density")
        yield


@pytest.fixture
def densities(monkeypatch):
    """:func:`numbers_as_densities` for one test (a module-scoped fixture asked for by one
    test would stay set for the rest of its module)."""
    from bnclassify.data import kinds_rule

    monkeypatch.setattr(kinds_rule, "NUMERIC_KIND", "density")
