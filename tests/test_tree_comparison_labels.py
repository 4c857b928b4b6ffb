"""plot_tree_comparison's edge tables: contacts and support of the learned tree's edges, the
learned weight of the contact tree's edges, the overlap's p-value, the note on directions."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.table import Table  # noqa: E402

from bnclassify import TAN, SimplerTAN  # noqa: E402
from bnclassify.datasets import load_lactamase, load_p450  # noqa: E402
from bnclassify.plotting import plot_tree_comparison  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.fixture(scope="module", params=[load_p450, load_lactamase])
def fitted(request):
    bunch = request.param()
    tan = TAN().fit(bunch.data, bunch.target)
    stan = SimplerTAN(bunch.contact_matrix).fit(bunch.data, bunch.target)
    return bunch.contact_matrix, tan, stan


def feature_edges(model):
    return sorted(f"{u} → {v}" for u, v in model.structure_.edges if model.class_node_ != u)


def drawn_cells(fig, key):
    """The text of the table drawn under tree ``key``, row by row (header first)."""
    (table,) = [
        t
        for ax in fig.axes
        for t in ax.get_children()
        if isinstance(t, Table) and t.bnclassify_role == f"edge-table-{key}"
    ]
    cells = table.get_celld()
    n_rows = 1 + max(r for r, _ in cells)
    n_cols = 1 + max(c for _, c in cells)
    return [[cells[r, c].get_text().get_text() for c in range(n_cols)] for r in range(n_rows)]


def test_learned_edges_carry_their_contact_count(fitted):
    contacts, tan, stan = fitted
    fig = plot_tree_comparison(tan, stan, contacts)
    table = fig.edge_tables["a"]
    assert sorted(table["edge"]) == feature_edges(tan)
    assert list(table.columns) == ["edge", "CMI", "contacts"]
    for _, row in table.iterrows():
        u, v = row["edge"].split(" → ")
        assert row["contacts"] == contacts.loc[u, v]
        assert row["CMI"] == pytest.approx(tan.weights_.loc[u, v])
    assert table["CMI"].is_monotonic_decreasing
    drawn = drawn_cells(fig, "a")
    assert drawn[0] == ["edge", "CMI", "contacts"]
    assert [r[0] for r in drawn[1:]] == list(table["edge"])
    assert [r[2] for r in drawn[1:]] == [str(int(c)) for c in table["contacts"]]


def test_contact_edges_carry_the_learned_weight(fitted):
    contacts, tan, stan = fitted
    table = plot_tree_comparison(tan, stan, contacts).edge_tables["b"]
    assert sorted(table["edge"]) == feature_edges(stan)
    for _, row in table.iterrows():
        u, v = row["edge"].split(" → ")
        assert row["CMI"] == pytest.approx(tan.weights_.loc[u, v])
        assert row["contacts"] == contacts.loc[u, v]


def test_support_is_listed_for_the_learned_tree(fitted):
    contacts, tan, stan = fitted
    names = list(contacts.index)
    rng = np.random.default_rng(0)
    support = rng.random((len(names), len(names)))
    support = pd.DataFrame((support + support.T) / 2, index=names, columns=names)
    fig = plot_tree_comparison(tan, stan, contacts, edge_support=support, support_name="posterior")
    table = fig.edge_tables["a"]
    for _, row in table.iterrows():
        u, v = row["edge"].split(" → ")
        assert row["posterior"] == support.loc[u, v]
    assert [r[3] for r in drawn_cells(fig, "a")[1:]] == [f"{p:.2f}" for p in table["posterior"]]
    assert "posterior" not in fig.edge_tables["b"].columns


def test_pvalue_in_the_title_and_the_direction_note(fitted):
    contacts, tan, stan = fitted
    fig = plot_tree_comparison(tan, stan, contacts, pvalue=0.2134, title="data")
    assert fig._suptitle.get_text().endswith("; overlap permutation p = 0.21")
    without = plot_tree_comparison(tan, stan, contacts)
    assert "p =" not in without._suptitle.get_text()
    (legend,) = fig.legends
    assert "not their directions" in legend.get_title().get_text()
