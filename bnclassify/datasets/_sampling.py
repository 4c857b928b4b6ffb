"""Rows sampled from a discrete Bayesian network, and the Bayes-optimal posterior of a node."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd

from ..validation import check_int

__all__ = ["bayes_posterior", "sample_network", "write_network_parquet"]


def _read_network(network):
    """A pgmpy ``DiscreteBayesianNetwork`` from itself or from the path of a BIF file."""
    if isinstance(network, (str, Path)):
        path = Path(network)
        if not path.is_file():
            raise ValueError(f"network: no BIF file at {str(path)!r}")
        from pgmpy.readwrite import BIFReader

        return BIFReader(str(path)).get_model()
    if not hasattr(network, "get_cpds"):
        raise TypeError(
            "network must be a pgmpy DiscreteBayesianNetwork or the path of a BIF file, "
            f"not {type(network).__name__}"
        )
    return network


class _Node:
    """One node's table as arrays: ``table[config, state]`` with ``config`` the row-major
    index of the parents' states (in ``parents`` order, the first varying slowest)."""

    def __init__(self, cpd):
        self.name = cpd.variable
        self.parents = list(cpd.variables[1:])
        self.states = [str(s) for s in cpd.state_names[self.name]]
        cards = [len(cpd.state_names[p]) for p in self.parents]
        values = np.asarray(cpd.get_values(), dtype=float)  # (states, configs)
        if values.shape != (len(self.states), int(np.prod(cards, dtype=np.int64))):
            raise ValueError(f"network: the table of {self.name!r} does not match its states")
        self.table = values.T
        self.strides = np.cumprod([1, *cards[::-1]], dtype=np.int64)[:-1][::-1]

    def configs(self, codes: dict) -> np.ndarray:
        """The parents' configuration index of every row, from the columns' state codes."""
        out = np.zeros(len(next(iter(codes.values()))) if codes else 0, dtype=np.int64)
        for parent, stride in zip(self.parents, self.strides, strict=True):
            out += codes[parent] * stride
        return out


def _nodes(network) -> dict:
    return {cpd.variable: _Node(cpd) for cpd in network.get_cpds()}


def _order(network) -> list:
    """The network's nodes in a topological order (parents first), ties in node order."""
    graph = nx.DiGraph()
    graph.add_nodes_from(network.nodes())
    graph.add_edges_from(network.edges())
    rank = {node: k for k, node in enumerate(network.nodes())}
    return list(nx.lexicographical_topological_sort(graph, key=rank.__getitem__))


def _cumulative(node: _Node) -> np.ndarray:
    """Each configuration's cumulative distribution plus its index, flattened: an increasing
    array in which one ``searchsorted`` draws every row's state."""
    table = node.table
    if (table < 0).any() or not np.isfinite(table).all():
        raise ValueError(f"network: the table of {node.name!r} has a negative or non-finite entry")
    totals = table.sum(axis=1, keepdims=True)
    if (totals <= 0).any():
        raise ValueError(f"network: a column of the table of {node.name!r} sums to zero")
    cumulative = np.cumsum(table / totals, axis=1)
    cumulative[:, -1] = 1.0
    return (cumulative + np.arange(len(table))[:, None]).ravel()


def _draw(nodes, order, cumulative, rows, rng) -> pd.DataFrame:
    codes = {}
    for name in order:
        node = nodes[name]
        config = node.configs(codes) if node.parents else np.zeros(rows, dtype=np.int64)
        flat = np.searchsorted(cumulative[name], config + rng.random(rows), side="right")
        codes[name] = (flat - config * len(node.states)).astype(np.int16)
    return pd.DataFrame(
        {
            name: pd.Categorical.from_codes(codes[name], categories=nodes[name].states)
            for name in order
        }
    )


def sample_network(network, n_rows, *, chunk_rows=100_000, columns=None, random_state=None):
    """Sample rows from a discrete Bayesian network by forward (ancestral) sampling, in chunks.

    Every node is drawn after its parents, for all the rows of a chunk at
    once, from its conditional probability table: one vectorised draw per
    node. Only one chunk sits in memory at a time, so ``n_rows`` may be far
    larger than memory allows.

    Parameters
    ----------
    network : pgmpy DiscreteBayesianNetwork or path-like
        The network, or the path of a BIF file (read with pgmpy's ``BIFReader``).
    n_rows : int
        How many rows to sample in all.
    chunk_rows : int, default=100_000
        Rows per yielded DataFrame (the last may be shorter).
    columns : list of str, optional
        The columns to return and their order; by default every node, in the
        network's node order.
    random_state : int, numpy Generator or None
        Seed of the draws. The same seed and ``chunk_rows`` give the same rows;
        each chunk draws from its own child generator
        (:meth:`numpy.random.Generator.spawn`), so chunks are independent.

    Yields
    ------
    pandas.DataFrame
        ``chunk_rows`` rows, one pandas ``category`` column per node whose
        categories are the node's state names (as strings, in the network's
        order).

    See Also
    --------
    write_network_parquet : The rows written to a parquet data set, one file per chunk.
    bayes_posterior : The exact posterior of a node given the others.

    Examples
    --------
    >>> from pgmpy.models import DiscreteBayesianNetwork
    >>> from pgmpy.factors.discrete import TabularCPD
    >>> from bnclassify.datasets import sample_network
    >>> net = DiscreteBayesianNetwork([("rain", "wet")])
    >>> net.add_cpds(
    ...     TabularCPD("rain", 2, [[0.8], [0.2]], state_names={"rain": ["no", "yes"]}),
    ...     TabularCPD("wet", 2, [[0.9, 0.1], [0.1, 0.9]], evidence=["rain"], evidence_card=[2],
    ...                state_names={"wet": ["no", "yes"], "rain": ["no", "yes"]}),
    ... )
    >>> chunks = list(sample_network(net, 10_000, chunk_rows=4_000, random_state=0))
    >>> [len(c) for c in chunks]
    [4000, 4000, 2000]
    >>> chunks[0].dtypes.tolist()
    [CategoricalDtype(categories=['no', 'yes'], ordered=False, categories_dtype=str), \
CategoricalDtype(categories=['no', 'yes'], ordered=False, categories_dtype=str)]
    """
    n_rows = check_int(n_rows, "n_rows", 0)
    chunk_rows = check_int(chunk_rows, "chunk_rows", 1)
    network = _read_network(network)
    nodes = _nodes(network)
    order = _order(network)
    if columns is None:
        columns = [n for n in network.nodes() if n in nodes]
    missing = [c for c in columns if c not in nodes]
    if missing:
        raise ValueError(f"columns: {missing} are not nodes of the network")
    without = [n for n in network.nodes() if n not in nodes]
    if without:
        raise ValueError(f"network: nodes {without} have no probability table")
    cumulative = {name: _cumulative(nodes[name]) for name in order}
    rng = np.random.default_rng(random_state)
    n_chunks = -(-n_rows // chunk_rows)
    return _chunks(nodes, order, cumulative, columns, n_rows, chunk_rows, rng.spawn(n_chunks))


def _chunks(nodes, order, cumulative, columns, n_rows, chunk_rows, generators):
    for k, rng in enumerate(generators):
        rows = min(chunk_rows, n_rows - k * chunk_rows)
        yield _draw(nodes, order, cumulative, rows, rng)[list(columns)]


def write_network_parquet(
    network, directory, n_rows, *, rows_per_file=1_000_000, columns=None, random_state=None
):
    """Write rows sampled from a discrete Bayesian network as a parquet data set of many files.

    The rows are those of :func:`sample_network` with ``chunk_rows=rows_per_file``,
    one chunk per file (``part-00000.parquet``, ``part-00001.parquet``, ...), so
    only one file's rows are ever in memory. Read the data set back with
    ``dask.dataframe.read_parquet(directory)`` (one partition per file) or
    ``pandas.read_parquet(directory)``; the columns keep their categories.

    Parameters
    ----------
    network : pgmpy DiscreteBayesianNetwork or path-like
        The network, or the path of a BIF file.
    directory : path-like
        Where to write the files; created if missing, and it must hold no
        ``part-*.parquet`` file yet.
    n_rows : int
        How many rows in all.
    rows_per_file : int, default=1_000_000
        Rows per file (the last may be shorter).
    columns : list of str, optional
        The columns to write (by default every node).
    random_state : int, numpy Generator or None
        As in :func:`sample_network`.

    Returns
    -------
    list of pathlib.Path
        The files written, in order.

    Examples
    --------
    >>> import tempfile
    >>> import pandas as pd
    >>> from pgmpy.models import DiscreteBayesianNetwork
    >>> from pgmpy.factors.discrete import TabularCPD
    >>> from bnclassify.datasets import write_network_parquet
    >>> net = DiscreteBayesianNetwork([("rain", "wet")])
    >>> net.add_cpds(
    ...     TabularCPD("rain", 2, [[0.8], [0.2]], state_names={"rain": ["no", "yes"]}),
    ...     TabularCPD("wet", 2, [[0.9, 0.1], [0.1, 0.9]], evidence=["rain"], evidence_card=[2],
    ...                state_names={"wet": ["no", "yes"], "rain": ["no", "yes"]}),
    ... )
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     paths = write_network_parquet(net, tmp, 1000, rows_per_file=400, random_state=0)
    ...     [p.name for p in paths], len(pd.read_parquet(tmp))
    (['part-00000.parquet', 'part-00001.parquet', 'part-00002.parquet'], 1000)
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    if any(directory.glob("part-*.parquet")):
        raise ValueError(f"directory: {str(directory)!r} already holds part-*.parquet files")
    chunks = sample_network(
        network, n_rows, chunk_rows=rows_per_file, columns=columns, random_state=random_state
    )
    paths = []
    for k, chunk in enumerate(chunks):
        path = directory / f"part-{k:05d}.parquet"
        chunk.to_parquet(path, index=False)
        paths.append(path)
    return paths


def _codes(X, column, states) -> np.ndarray:
    values = X[column]
    if isinstance(values.dtype, pd.CategoricalDtype) and list(values.cat.categories) == states:
        codes = values.cat.codes.to_numpy()
    else:
        text = values.astype(object).map(str, na_action="ignore")
        codes = pd.Index(states).get_indexer(text.to_numpy(dtype=object))
    bad = codes < 0
    if bad.any():
        raise ValueError(
            f"X: column {column!r} holds {values[bad].iloc[0]!r}, not one of its states {states}"
        )
    return codes.astype(np.int64)


def bayes_posterior(network, node, X) -> pd.DataFrame:
    """The exact posterior of ``node`` given every other node, row by row.

    Given all the other nodes, a node depends only on its Markov blanket:
    ``P(c | x) ∝ P(c | parents(c)) · ∏ P(child | parents(child))`` over the
    children of ``c``. This is the Bayes-optimal prediction of ``node`` from
    the other columns: its log loss and 0-1 loss on rows sampled from the
    network are the lowest any classifier can reach (the Bayes limit).

    Parameters
    ----------
    network : pgmpy DiscreteBayesianNetwork or path-like
        The network, or the path of a BIF file.
    node : str
        The node (class) whose posterior to compute.
    X : pandas.DataFrame
        The rows; it must hold the columns of ``node``'s Markov blanket (others
        are ignored), as the network's state names (strings or ``category``).

    Returns
    -------
    pandas.DataFrame
        One row per row of ``X`` (same index), one column per state of ``node``
        in the network's order; rows sum to one.

    Raises
    ------
    ValueError
        If a column of the Markov blanket is missing or holds a value that is
        not one of its node's states, or a row has probability zero under the
        network for every state of ``node``.

    Examples
    --------
    >>> from pgmpy.models import DiscreteBayesianNetwork
    >>> from pgmpy.factors.discrete import TabularCPD
    >>> import pandas as pd
    >>> from bnclassify.datasets import bayes_posterior
    >>> net = DiscreteBayesianNetwork([("rain", "wet")])
    >>> net.add_cpds(
    ...     TabularCPD("rain", 2, [[0.8], [0.2]], state_names={"rain": ["no", "yes"]}),
    ...     TabularCPD("wet", 2, [[0.9, 0.1], [0.1, 0.9]], evidence=["rain"], evidence_card=[2],
    ...                state_names={"wet": ["no", "yes"], "rain": ["no", "yes"]}),
    ... )
    >>> bayes_posterior(net, "rain", pd.DataFrame({"wet": ["yes", "no"]})).round(4)
           no     yes
    0  0.3077  0.6923
    1  0.9730  0.0270
    """
    network = _read_network(network)
    nodes = _nodes(network)
    if node not in nodes:
        raise ValueError(f"node: {node!r} is not a node of the network")
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"X must be a pandas DataFrame, not {type(X).__name__}")
    target = nodes[node]
    children = [nodes[c] for c in network.successors(node)]
    blanket = list(
        dict.fromkeys([*target.parents, *(p for c in children for p in (c.name, *c.parents))])
    )
    blanket = [b for b in blanket if b != node]
    missing = [b for b in blanket if b not in X.columns]
    if missing:
        raise ValueError(f"X: the Markov blanket of {node!r} needs columns {missing}")
    codes = {b: _codes(X, b, nodes[b].states) for b in blanket}
    n = len(X)
    with np.errstate(divide="ignore"):
        log_joint = np.log(
            target.table[target.configs(codes) if target.parents else np.zeros(n, int)]
        )
        for child in children:
            for k in range(len(target.states)):
                codes[node] = np.full(n, k, dtype=np.int64)
                log_joint[:, k] += np.log(child.table[child.configs(codes), codes[child.name]])
    top = log_joint.max(axis=1, keepdims=True)
    impossible = ~np.isfinite(top[:, 0])
    if impossible.any():
        raise ValueError(
            f"X: row {X.index[np.argmax(impossible)]!r} has probability zero under the network "
            f"for every state of {node!r}"
        )
    proba = np.exp(log_joint - top)
    proba /= proba.sum(axis=1, keepdims=True)
    return pd.DataFrame(proba, index=X.index, columns=target.states)
