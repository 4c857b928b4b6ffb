"""pgmpy both ways: any discrete network with a class node in, BIF files out and in.

:func:`from_pgmpy` turns a pgmpy ``DiscreteBayesianNetwork`` with CPDs into a
fitted classifier of one of its nodes: a :class:`PgmpyClassifier` when the
class node is a parent of every other node and has no parent itself (naive
Bayes, TAN, forests, kDB: any augmented naive Bayes), else a
:class:`~bnclassify.BayesNetClassifier` (the class an ordinary node), with
the CPDs as its tables, so that it predicts with bnclassify's vectorised
inference (exact, missing cells summed out) and works with
:func:`bnclassify.explain.explain` and :func:`bnclassify.plotting.plot_cpt`.

:func:`to_bif` / :func:`from_bif` write a categorical model to a BIF file with
pgmpy's ``BIFWriter`` and read it back with ``BIFReader``. BIF stores state
names as text; the writer records each variable's state type (``int``,
``float``, ``bool`` or ``str``) as a BIF ``property bnclassify_states = ...``,
and :func:`from_bif` converts the states back, so integer categories stay
integers; ``property bnclassify_column = k`` keeps the column order. A
binned column's intervals, whose text BIF cannot hold, are written as
``le_2.45``, ``gt_2.45_le_4.75``, ``gt_4.75`` (``any``: a column with no cut)
with the state type ``interval``, and read back as intervals, so the model
read back bins numbers as the written one did. Other names BIF cannot hold are
refused at :func:`to_bif` (see :data:`BIF_NAME`, :data:`BIF_STATE`) rather
than silently changed.
"""

from __future__ import annotations

import re
from pathlib import Path

import networkx as nx
import numpy as np

from ..classifiers import AugmentedNaiveBayes, BayesNetClassifier, NetworkClassifier
from ..data import TableSchema
from ..data.binning import bin_labels, cut_points_of_labels
from ..exceptions import ContinuousFeaturesError
from ..factors import Binned, Categorical, ClassTable
from ..network import FittedNetwork, python_values
from ..structure import empty_feature_graph
from . import registry

#: Variable names a BIF file holds unchanged (pgmpy's reader splits on other characters).
BIF_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: State names a BIF file holds unchanged.
BIF_STATE = re.compile(r"^[A-Za-z0-9_.+-]+$")
#: The BIF property recording a variable's state type.
STATE_PROPERTY = "bnclassify_states"
#: The BIF property recording a feature's column position.
POSITION_PROPERTY = "bnclassify_column"
_PARSERS = {
    "int": int,
    "float": float,
    "bool": {"True": True, "False": False}.__getitem__,
    "str": str,
}


class PgmpyClassifier(AugmentedNaiveBayes):
    """A Bayesian network classifier with a given feature DAG (e.g. imported from pgmpy).

    :func:`from_pgmpy` returns one fitted with a network's CPDs; ``fit``
    re-estimates the tables from data, keeping the structure.

    Parameters
    ----------
    arcs : list of (str, str), optional
        The arcs between features (the class is a parent of every feature);
        a feature's parents are in the order of its arcs.
    alpha : float, default=1.0
        Dirichlet pseudo-count when fitting.
    handle_unknown : {"error", "marginalize"}, default="error"

    Attributes
    ----------
    structure_, compiled_, network_, classes_, categories_, fit_times_
        As in :class:`~bnclassify.NaiveBayes`.

    Examples
    --------
    >>> from bnclassify.datasets import load_car
    >>> X, y = load_car(return_X_y=True)
    >>> model = PgmpyClassifier(arcs=[("safety", "persons")]).fit(X, y)
    >>> list(model.structure_.predecessors("persons"))
    ['class', 'safety']
    """

    def __init__(self, arcs=None, alpha=1.0, handle_unknown="error"):
        super().__init__(alpha=alpha, handle_unknown=handle_unknown)
        self.arcs = arcs

    def _feature_dag(self, weights, features, counts):
        return _feature_dag(self.arcs, features)

    @classmethod
    def from_tables(
        cls, class_node, classes, log_prior, features, categories, parents, tables, cut_points=None
    ):
        """A fitted classifier from log CPTs shaped ``(n_classes, *parent cards, n_states)``.

        Parameters
        ----------
        class_node : str
        classes : ndarray of shape (n_classes,)
        log_prior : ndarray of shape (n_classes,)
        features : list of str
        categories : list of ndarray
            The states of each feature, in the order of its tables' last axis.
        parents : list of tuple of int
            Feature parents of each feature (positions in ``features``).
        tables : list of ndarray
            ``log P(x_i | c, parents)`` of each feature.
        cut_points : list of (ndarray or None), optional
            The cut points of each binned feature (a :class:`~bnclassify.factors.Binned`
            node, which reads numbers and its intervals' labels); None for the others
            (the default: every feature categorical).
        """
        arcs = [(features[p], features[i]) for i, ps in enumerate(parents) for p in ps]
        model = cls(arcs=arcs)
        if cut_points is None:
            cut_points = [None] * len(features)
        kinds = [Categorical if cuts is None else Binned for cuts in cut_points]
        factors = [
            kinds[i].from_log_table(table, i, parents[i], features)
            for i, table in enumerate(tables)
        ]
        nodes = [((i,), kinds[i]()) for i in range(len(features))]
        schema = TableSchema(features, nodes, categories, has_names=True, cut_points=cut_points)
        network = FittedNetwork(log_prior, parents, factors)
        dag = _feature_dag(arcs, features)
        model.set_fitted_network(network, schema, classes, dag, class_node=class_node)
        return model


registry.register(PgmpyClassifier)


def _feature_dag(arcs, features):
    dag = empty_feature_graph(features)
    for arc in arcs or []:
        if not (isinstance(arc, tuple | list) and len(arc) == 2):
            raise ValueError(f"arcs must be (parent, child) pairs of features, got {arc!r}.")
        for end in arc:
            if end not in features:
                raise ValueError(f"arcs name {end!r}, which is not a feature: {features}.")
        dag.add_edge(*arc)
    if not nx.is_directed_acyclic_graph(dag):
        raise ValueError(f"arcs have a cycle: {nx.find_cycle(dag)}.")
    return dag


def _as_categories(states) -> np.ndarray:
    """States as an array of their own type: ints stay ints, floats floats, bools bools."""
    values = python_values(states)
    if all(isinstance(v, bool) for v in values):
        return np.array(values, dtype=bool)
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return np.array(values, dtype=np.int64)
    if all(isinstance(v, float) for v in values):
        return np.array(values, dtype=float)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def from_pgmpy(network, class_node, *, features=None, state_types=None):
    """A fitted bnclassify classifier of ``class_node`` from a discrete pgmpy network.

    Parameters
    ----------
    network : pgmpy.models.DiscreteBayesianNetwork
        With CPDs. Any DAG: when the class has no parents and is a parent of
        every other node (naive Bayes, TAN, forests, kDB, ...) the result is a
        :class:`PgmpyClassifier`; otherwise a
        :class:`~bnclassify.BayesNetClassifier`, the class an ordinary node.
    class_node : hashable
        The class node.
    features : list, optional
        The feature (column) order; default: the network's node order.
    state_types : dict, optional
        A function per node converting its state names (used by
        :func:`from_bif`, whose states are read as text).

    Returns
    -------
    PgmpyClassifier or BayesNetClassifier
        Fitted: ``classes_`` are the class node's state names, ``categories_``
        each feature's (numeric states sorted, the tables permuted to match),
        ``compiled_`` holds the CPDs. A feature whose states are a binned
        column's intervals as bnclassify writes them (``"(-inf, 2.45]"``, ...,
        see ``bnclassify.data.binning.cut_points_of_labels``) is a
        :class:`~bnclassify.factors.Binned` node again: it reads numbers.
        Predictions equal pgmpy's exact inference (``VariableElimination``),
        missing features summed out.

    Raises
    ------
    ValueError
        When the network has a cycle, or its CPDs are missing or inconsistent;
        the message says which node.

    Examples
    --------
    >>> import numpy as np
    >>> from bnclassify import TAN
    >>> from bnclassify.datasets import load_p450
    >>> from bnclassify.io import from_pgmpy
    >>> X, y = load_p450(return_X_y=True)
    >>> tan = TAN().fit(X, y)
    >>> imported = from_pgmpy(tan.network_, tan.class_node_)
    >>> bool(np.allclose(imported.predict_proba(X), tan.predict_proba(X), rtol=0, atol=1e-12))
    True

    Any node of a network may be the class: here ``block1`` of the same network,
    whose parent is the class node (``"functional"``) and whose children are other
    blocks.

    >>> block = from_pgmpy(tan.network_, "block1")
    >>> type(block).__name__, block.markov_blanket_
    ('BayesNetClassifier', ['functional', 'block4', 'block7'])
    """
    from pgmpy.models import DiscreteBayesianNetwork

    if not isinstance(network, DiscreteBayesianNetwork):
        raise TypeError(
            f"from_pgmpy takes a pgmpy DiscreteBayesianNetwork, got {type(network).__name__}."
        )
    if class_node not in network.nodes:
        raise ValueError(f"The class node {class_node!r} is not in the network {list(network)}.")
    graph = nx.DiGraph()
    graph.add_nodes_from(network.nodes)
    graph.add_edges_from(network.edges)
    if not nx.is_directed_acyclic_graph(graph):
        raise ValueError(f"The network has a cycle: {nx.find_cycle(graph)}.")
    nodes = [n for n in graph.nodes if n != class_node]
    if features is None:
        features = nodes
    elif sorted(map(repr, features)) != sorted(map(repr, nodes)):
        raise ValueError(f"features {features} are not the network's features {nodes}.")
    features = list(features)
    if not features:
        raise ValueError("The network has no feature: only the class node.")
    augmented = not list(graph.predecessors(class_node)) and all(
        graph.has_edge(class_node, f) for f in features
    )
    bad_names = [f for f in [class_node, *features] if not isinstance(f, str)]
    if bad_names:
        raise ValueError(f"Node names must be strings; got {bad_names}.")
    if state_types is not None and not isinstance(state_types, dict):
        raise TypeError(
            "state_types must be a dict {node: callable turning a state name into a value}, "
            f"got {type(state_types).__name__}."
        )
    state_types = state_types or {}
    cpds = {}
    for node in [class_node, *features]:
        cpd = network.get_cpds(node)
        if cpd is None:
            raise ValueError(f"The network has no CPD for {node!r}.")
        if sorted(cpd.variables[1:]) != sorted(graph.predecessors(node)):
            raise ValueError(
                f"The CPD of {node!r} is conditioned on {cpd.variables[1:]}, but its parents "
                f"in the network are {list(graph.predecessors(node))}."
            )
        cpds[node] = cpd

    def states(node):
        convert = state_types.get(node)
        names = cpds[node].state_names[node]
        return [convert(s) for s in names] if convert else list(names)

    canonical, cut_points = {}, {}
    for node in [class_node, *features]:
        values = _as_categories(states(node))
        if node != class_node and values.dtype.kind in "biuf":
            values = np.sort(values)
        elif node != class_node and (cuts := cut_points_of_labels(list(values))) is not None:
            cut_points[node], values = cuts, bin_labels(cuts)
        canonical[node] = values
    position = {f: i for i, f in enumerate(features)}
    if not augmented:
        return _general(graph, cpds, class_node, features, canonical, cut_points, state_types)
    log_prior = _log(_table(cpds[class_node], class_node, [], canonical, state_types))
    parents, tables = [], []
    for feature in features:
        evidence = [v for v in cpds[feature].variables[1:] if v != class_node]
        parents.append(tuple(position[p] for p in evidence))
        table = _table(cpds[feature], feature, [class_node, *evidence], canonical, state_types)
        tables.append(_log(table))
    return PgmpyClassifier.from_tables(
        class_node,
        canonical[class_node],
        log_prior,
        features,
        [canonical[f] for f in features],
        parents,
        tables,
        cut_points=[cut_points.get(f) for f in features],
    )


def _general(graph, cpds, class_node, features, canonical, cut_points, state_types):
    """A fitted :class:`~bnclassify.BayesNetClassifier` of a network whose class is an
    ordinary node: each feature's CPD given its parents (the class first when it is one),
    the class's given its own parents."""
    position = {f: i for i, f in enumerate(features)}
    n_classes = len(canonical[class_node])
    factors, parents, free = [], [], []
    for i, feature in enumerate(features):
        evidence = [v for v in cpds[feature].variables[1:] if v != class_node]
        rooted = class_node in cpds[feature].variables[1:]
        axes = [class_node, *evidence] if rooted else evidence
        table = _log(_table(cpds[feature], feature, axes, canonical, state_types))
        if not rooted:
            table = np.broadcast_to(table, (n_classes, *table.shape)).copy()
            free.append(i)
        own = tuple(position[p] for p in evidence)
        parents.append(own)
        kind = Categorical if cut_points.get(feature) is None else Binned
        factors.append(kind.from_log_table(table, i, own, features))
    class_parents = list(cpds[class_node].variables[1:])
    class_factor = None
    log_prior = _log(_table(cpds[class_node], class_node, class_parents, canonical, state_types))
    if class_parents:
        table = np.moveaxis(log_prior, -1, 0)
        class_factor = ClassTable.from_log_table(
            table, tuple(position[p] for p in class_parents), features
        )
        log_prior = np.zeros(n_classes)
    kinds = [Categorical if cut_points.get(f) is None else Binned for f in features]
    schema = TableSchema(
        features,
        [((i,), kinds[i]()) for i in range(len(features))],
        [canonical[f] for f in features],
        has_names=True,
        cut_points=[cut_points.get(f) for f in features],
    )
    network = FittedNetwork(log_prior, parents, factors, class_factor, free)
    return BayesNetClassifier().set_fitted_network(
        network, schema, canonical[class_node], graph, class_node=class_node
    )


def _table(cpd, node, axes, canonical, state_types):
    """P(node | axes) with axes in the given order, states in canonical order; node last."""
    variables = list(cpd.variables)
    values = np.asarray(cpd.get_values(), dtype=float).reshape(cpd.cardinality)
    order = [variables.index(v) for v in [*axes, node]]
    values = np.transpose(values, order)
    for axis, variable in enumerate([*axes, node]):
        convert = state_types.get(variable)
        own = python_values([convert(s) if convert else s for s in cpd.state_names[variable]])
        wanted = python_values(canonical[variable])
        if sorted(map(repr, own)) != sorted(map(repr, wanted)):
            raise ValueError(
                f"The CPD of {node!r} names the states {own} of {variable!r}, which has "
                f"the states {wanted}."
            )
        lookup = {repr(s): k for k, s in enumerate(own)}
        values = np.take(values, [lookup[repr(s)] for s in wanted], axis=axis)
    sums = values.sum(axis=-1)
    if not np.allclose(sums, 1.0, rtol=0, atol=1e-6) or (values < 0).any():
        raise ValueError(f"The CPD of {node!r} is not a probability table (rows must sum to 1).")
    return values


def _log(table):
    with np.errstate(divide="ignore"):
        return np.log(table)


# -- BIF ------------------------------------------------------------------------------------------
def _interval_state(label) -> str:
    """A bin's BIF state name: ``"(2.45, 4.75]"`` -> ``"gt_2.45_le_4.75"``."""
    low, high = label[1:-1].split(", ")
    bounds = ([] if low == "-inf" else [f"gt_{low}"]) + ([] if high == "inf" else [f"le_{high}"])
    return "_".join(bounds) or "any"


def _interval_label(name) -> str:
    """The bin a BIF state name of :func:`_interval_state` stands for."""
    bounds = {"gt": "-inf", "le": "inf"}
    words = [] if name == "any" else name.split("_")
    if len(words) % 2 or not set(words[::2]) <= set(bounds):
        raise ValueError(f"{name!r} is not a binned state (le_a, gt_a_le_b, gt_b or any).")
    bounds.update(zip(words[::2], words[1::2], strict=True))
    return f"({bounds['gt']}, {bounds['le']}{')' if bounds['le'] == 'inf' else ']'}"


_PARSERS["interval"] = _interval_label


def _state_type(node, values) -> str:
    values = python_values(values)
    for name, kind in (("bool", bool), ("int", int), ("float", float), ("str", str)):
        if all(type(v) is kind for v in values):
            return name
    types = sorted({type(v).__name__ for v in values})
    raise ValueError(
        f"The states {values} of {node!r} mix types ({types}); "
        "a BIF file records one state type per variable."
    )


def to_bif(model, path):
    """Write a fitted categorical bnclassify classifier to a BIF file (via pgmpy's BIFWriter).

    Parameters
    ----------
    model : AugmentedNaiveBayes or BayesNetClassifier
        Fitted, every feature categorical or binned (its ``network_``).
    path : str or Path

    Returns
    -------
    Path
        The file written (as :func:`bnclassify.io.dump` returns its file).

    Raises
    ------
    ValueError
        An ensemble (its members' averaged probabilities are no single network:
        write one of its ``estimators_``), a node or state name BIF cannot hold
        unchanged (node names must match
        ``[A-Za-z_][A-Za-z0-9_]*``, states ``[A-Za-z0-9_.+-]+``), states of
        mixed types, or a continuous feature (BIF and pgmpy's discrete networks
        hold categorical nodes only); the message names the node.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> from bnclassify import KDB
    >>> from bnclassify.datasets import load_car
    >>> from bnclassify.io import from_bif, to_bif
    >>> X, y = load_car(return_X_y=True)
    >>> model = KDB(k=2).fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "car.bif")
    >>> again = from_bif(to_bif(model, path), "class")
    >>> bool(np.allclose(again.predict_proba(X), model.predict_proba(X), rtol=0, atol=1e-12))
    True
    """
    from pgmpy.readwrite import BIFWriter

    if hasattr(model, "estimators_") and not hasattr(model, "compiled_"):
        raise ValueError(
            f"This {type(model).__name__} averages the probabilities of its members' networks, "
            "which is not itself a Bayesian network, so one BIF file cannot hold it: write "
            "a member (to_bif(model.estimators_[i], path)), or keep the whole ensemble in a "
            "bnclassify model file (bnclassify.io.dump)."
        )
    if not isinstance(model, NetworkClassifier) or not hasattr(model, "compiled_"):
        raise ValueError(f"to_bif takes a fitted Bayesian network classifier, got {model!r}.")
    continuous = [n for f in model.compiled_.factors if not f.discrete for n in f.columns_]
    if continuous:
        raise ContinuousFeaturesError(
            f"The features {continuous} are continuous; a BIF file (and pgmpy's discrete "
            "networks) holds categorical nodes only. Discretise them (e.g. with "
            "bnclassify.MDLDiscretizer) or keep the model in a bnclassify model file (dump)."
        )
    values = {model.class_node_: model.classes_}
    values.update(zip(model.feature_names_, model.categories_, strict=True))
    intervals = {
        node: np.array([_interval_state(s) for s in states], dtype=object)
        for node, states in values.items()
        if node != model.class_node_ and cut_points_of_labels(list(states)) is not None
    }
    values.update(intervals)
    for node, states in values.items():
        if not BIF_NAME.match(str(node)):
            raise ValueError(
                f"The node name {node!r} cannot be written to BIF unchanged; BIF names "
                "must match [A-Za-z_][A-Za-z0-9_]* here. Rename the column."
            )
        bad = [s for s in python_values(states) if not BIF_STATE.match(str(s))]
        if bad:
            raise ValueError(
                f"The states {bad} of {node!r} cannot be written to BIF unchanged; states "
                "must match [A-Za-z0-9_.+-]+ here."
            )
    network = model.compiled_.to_pgmpy(
        model.structure_,
        model.class_node_,
        model.feature_names_,
        [values[f] for f in model.feature_names_],
        model.classes_,
    )
    for node, states in values.items():
        network.nodes[node][STATE_PROPERTY] = (
            "interval" if node in intervals else _state_type(node, states)
        )
    for k, feature in enumerate(model.feature_names_):
        network.nodes[feature][POSITION_PROPERTY] = k
    BIFWriter(network).write(str(path))
    return Path(path)


def from_bif(path, class_node):
    """Read a BIF file (via pgmpy's BIFReader) into a fitted :class:`PgmpyClassifier`.

    State names are converted back to the types :func:`to_bif` recorded
    (files from elsewhere keep text states).

    Parameters
    ----------
    path : str or Path
    class_node : str

    Returns
    -------
    PgmpyClassifier or BayesNetClassifier
        See :func:`from_pgmpy`.
    """
    from pgmpy.readwrite import BIFReader

    try:  # pgmpy reads UTF-8 and would fail deep in its parser without the file's name
        Path(path).read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(
            f"{path}: a BIF file must be UTF-8 text; byte {error.start} is not "
            f"({error.object[error.start : error.start + 1]!r}). Re-save it as UTF-8."
        ) from None
    reader = BIFReader(str(path), include_properties=True)
    network = reader.get_model()
    types = {}
    for node in network.nodes:
        kind = network.nodes[node].get(STATE_PROPERTY, "str")
        if kind not in _PARSERS:
            raise ValueError(f"{path}: unknown state type {kind!r} for {node!r}.")
        types[node] = _PARSERS[kind]
    positions = {
        node: network.nodes[node].get(POSITION_PROPERTY)
        for node in network.nodes
        if node != class_node
    }
    features = None
    if all(isinstance(p, str) and p.isdigit() for p in positions.values()):
        features = sorted(positions, key=lambda node: int(positions[node]))
    return from_pgmpy(network, class_node, features=features, state_types=types)
