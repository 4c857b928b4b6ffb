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
