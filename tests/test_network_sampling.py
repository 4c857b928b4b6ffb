"""Rows sampled from a discrete Bayesian network and the Bayes-optimal posterior of a node:
the sampler's frequencies against the tables, the posterior against pgmpy's variable
elimination, the parquet data set against the chunks, and a dask fit from it against the
in-memory fit on the same rows."""

import numpy as np
import pandas as pd
import pytest
from pgmpy.factors.discrete import TabularCPD
from pgmpy.inference import VariableElimination
from pgmpy.models import DiscreteBayesianNetwork
from pgmpy.readwrite import BIFWriter
from scipy.stats import chisquare

from bnclassify import KDB, TAN
from bnclassify.datasets import bayes_posterior, sample_network, write_network_parquet

STATES = {
    "a": ["a1", "a0", "a2"],  # not sorted: dask reads a parquet category's order as unknown
    "b": ["no", "yes"],
    "c": ["low", "mid", "high"],
    "d": ["off", "on"],
    "e": ["x", "y"],
}


def _network():
    """a -> b, a -> c, (b, c) -> d, e -> d: the class ``a`` with two children; ``d`` with
    three parents, so its posterior needs a spouse (``e``)."""
    net = DiscreteBayesianNetwork([("a", "b"), ("a", "c"), ("b", "d"), ("c", "d"), ("e", "d")])
    rng = np.random.default_rng(3)

    def table(node, parents):
        configs = int(np.prod([len(STATES[p]) for p in parents])) if parents else 1
        values = rng.dirichlet(np.ones(len(STATES[node])), size=configs).T
        return TabularCPD(
            node,
            len(STATES[node]),
            values,
            evidence=parents or None,
            evidence_card=[len(STATES[p]) for p in parents] or None,
            state_names={n: STATES[n] for n in [node, *parents]},
        )

    net.add_cpds(
        table("a", []),
        table("b", ["a"]),
        table("c", ["a"]),
        table("d", ["b", "c", "e"]),
        table("e", []),
    )
    return net


@pytest.fixture(scope="module")
def network():
    return _network()


@pytest.fixture(scope="module")
def rows(network):
    return pd.concat(
        sample_network(network, 100_000, chunk_rows=30_000, random_state=0), ignore_index=True
    )


def test_frequencies_match_the_tables(network, rows):
    """Every node's counts in every parent configuration against its table: chi-square."""
    p_values = []
    for cpd in network.get_cpds():
        parents = list(cpd.variables[1:])
        values = cpd.get_values()  # (states, configurations), the first parent slowest
        cards = [len(STATES[p]) for p in parents]
        for config in range(values.shape[1]):
            mask = np.ones(len(rows), dtype=bool)
            for parent, index in zip(parents, np.unravel_index(config, cards), strict=True):
                mask &= rows[parent].cat.codes.to_numpy() == index
            observed = np.bincount(
                rows.loc[mask, cpd.variable].cat.codes, minlength=values.shape[0]
            )
            assert observed.sum() > 500
            p_values.append(chisquare(observed, observed.sum() * values[:, config]).pvalue)
    # 1 + 3 + 3 + 12 + 1 configurations: with a true sampler none is far in the tail
    assert len(p_values) == 20
    assert min(p_values) > 1e-4


def test_a_wrong_table_is_detected(network, rows):
    """The check above can fail: d's frequencies against a perturbed table."""
    values = network.get_cpds("a").get_values()[:, 0]
    observed = np.bincount(rows["a"].cat.codes, minlength=3)
    shifted = np.roll(values, 1)
    assert chisquare(observed, observed.sum() * shifted).pvalue < 1e-10


def test_chunks_columns_and_seeds(network):
    chunks = list(sample_network(network, 2_500, chunk_rows=1_000, random_state=5))
    assert [len(c) for c in chunks] == [1_000, 1_000, 500]
    first = chunks[0]
    assert list(first.columns) == list(network.nodes())
    for column in first.columns:
        assert isinstance(first[column].dtype, pd.CategoricalDtype)
        assert list(first[column].cat.categories) == STATES[column]
    again = list(sample_network(network, 2_500, chunk_rows=1_000, random_state=5))
    pd.testing.assert_frame_equal(pd.concat(chunks), pd.concat(again))
    other = next(sample_network(network, 1_000, random_state=6))
    assert not other.equals(first)
    picked = next(sample_network(network, 10, columns=["d", "a"], random_state=5))
    assert list(picked.columns) == ["d", "a"]
    assert list(sample_network(network, 0)) == []


def test_reads_a_bif_file(network, tmp_path):
    path = tmp_path / "net.bif"
    BIFWriter(network).write(str(path))
    from_file = next(sample_network(path, 200, random_state=1))
    from_model = next(sample_network(network, 200, random_state=1))
    pd.testing.assert_frame_equal(from_file, from_model)


@pytest.mark.parametrize("node", ["a", "c", "d", "e"])
def test_posterior_equals_variable_elimination(network, rows, node):
    inference = VariableElimination(network)
    sample = rows.iloc[:6]
    ours = bayes_posterior(network, node, sample)
    assert list(ours.columns) == STATES[node]
    for k in range(len(sample)):
        evidence = {c: str(sample[c].iloc[k]) for c in sample.columns if c != node}
        theirs = inference.query([node], evidence=evidence, show_progress=False)
        expected = [theirs.get_value(**{node: s}) for s in STATES[node]]
        np.testing.assert_allclose(ours.iloc[k].to_numpy(), expected, rtol=1e-10, atol=1e-12)


def test_posterior_reads_strings_and_ignores_other_columns(network, rows):
    sample = rows.iloc[:50]
    as_strings = sample.astype(str).assign(extra=1)[["extra", *sample.columns[::-1]]]
    pd.testing.assert_frame_equal(
        bayes_posterior(network, "c", sample), bayes_posterior(network, "c", as_strings)
    )


def test_posterior_refusals(network, rows):
    sample = rows.iloc[:5].astype(str)
    with pytest.raises(ValueError, match="column 'b' holds 'maybe'"):
        bayes_posterior(network, "a", sample.assign(b="maybe"))
    with pytest.raises(ValueError, match=r"needs columns \['c'\]"):
        bayes_posterior(network, "a", sample.drop(columns="c"))
    with pytest.raises(ValueError, match="'z' is not a node"):
        bayes_posterior(network, "z", sample)
    with pytest.raises(TypeError, match="pgmpy DiscreteBayesianNetwork"):
        next(sample_network({"a": 1}, 10))
    with pytest.raises(ValueError, match="not nodes of the network"):
        next(sample_network(network, 10, columns=["a", "q"]))


def test_parquet_files_hold_the_chunks(network, tmp_path):
    paths = write_network_parquet(network, tmp_path, 2_500, rows_per_file=1_000, random_state=2)
    assert [p.name for p in paths] == [f"part-0000{k}.parquet" for k in range(3)]
    chunks = pd.concat(sample_network(network, 2_500, chunk_rows=1_000, random_state=2))
    back = pd.read_parquet(tmp_path)
    pd.testing.assert_frame_equal(back, chunks.reset_index(drop=True))
    with pytest.raises(ValueError, match="already holds"):
        write_network_parquet(network, tmp_path, 10)


# dask's parquet reader calls reset_index(inplace=True), which pandas 3.1 deprecates
@pytest.mark.filterwarnings("ignore:The inplace keyword:pandas.errors.Pandas4Warning")
@pytest.mark.parametrize("make", [TAN, lambda: KDB(k=2)], ids=["TAN", "KDB2"])
def test_dask_fit_from_parquet_equals_the_in_memory_fit(network, tmp_path, make):
    dd = pytest.importorskip("dask.dataframe")
    import dask

    write_network_parquet(network, tmp_path, 10_000, rows_per_file=1_250, random_state=4)
    frame = dd.read_parquet(tmp_path)
    assert frame.npartitions == 8
    X, y = frame.drop(columns="a"), frame["a"]
    with dask.config.set(scheduler="synchronous"):
        on_dask = make().fit(X, y)
    table = pd.read_parquet(tmp_path)
    in_memory = make().fit(table.drop(columns="a"), table["a"])
    test = next(sample_network(network, 500, random_state=9)).drop(columns="a")
    # the parquet category's order is unknown to dask: the first partition's declared order
    # is kept, as fit keeps the in-memory Categorical's (not sorted: a1, a0, a2)
    assert list(in_memory.classes_) == STATES["a"]
    assert list(on_dask.classes_) == STATES["a"]
    np.testing.assert_allclose(
        on_dask.predict_proba(test), in_memory.predict_proba(test), rtol=0, atol=1e-9
    )
