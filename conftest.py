"""Test-session settings for the whole repository (tests, doctests, notebooks)."""

import matplotlib

matplotlib.use("Agg")  # never open windows; doctests in bnclassify/ draw too
