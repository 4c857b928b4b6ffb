"""The study's models and data: what it reports, its accidental TAN, and its data sets.

The "Simpler TAN and Ensemble TAN" study cross-validated naive Bayes, TAN,
Simpler TAN and three bagged ensembles on the P450 and beta-lactamase chimera
libraries. :data:`STUDY_RESULTS` holds what it reports; :func:`study_models`
builds its models (and the structures beyond it) by display name.

Its TAN attached features in column order because its Prim step ranked
candidate edges by ``int(weight)`` (every CMI is below 1 nat, so every rank
was 0). :class:`StudyTAN` rebuilds that accidental tree on purpose, so the
study's TAN figures can be reproduced and shown, clearly labelled, beside a
correct TAN's.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pandas as pd

from .. import datasets
from ..classifiers import AODE, BMATAN, KDB, TAN, EnsembleTAN, NaiveBayes, SimplerTAN
from ..data import resolve_column

__all__ = [
    "STUDY_COLUMN",
    "STUDY_DATASETS",
    "STUDY_RESULTS",
    "StudyTAN",
    "load_study_data",
    "load_study_dataset",
    "study_models",
]

#: Accuracy and CLL (log2, sum per fold, mean over 10 folds) as the study reports them.
STUDY_RESULTS = pd.DataFrame(
    [
        ("p450", "NB", 0.808, -60.69),
        ("p450", "TAN", 0.843, -53.21),
        ("p450", "Simpler TAN", 0.843, -52.13),
        ("p450", "STAN bagging", 0.842, -52.14),
        ("p450", "TAN bagging", 0.849, -52.31),
        ("p450", "STAN+TAN bagging", 0.850, -51.71),
        ("lactamase", "NB", 0.840, -29.18),
        ("lactamase", "TAN", 0.887, -22.44),
        ("lactamase", "Simpler TAN", 0.891, -20.61),
        ("lactamase", "STAN bagging", 0.893, -20.57),
        ("lactamase", "TAN bagging", 0.895, -21.47),
        ("lactamase", "STAN+TAN bagging", 0.902, -21.12),
    ],
    columns=["dataset", "model", "accuracy", "cll"],
)

#: Name of our row -> the study column it reproduces. The study's "TAN"
#: figures are those of its accidental tree, i.e. of :class:`StudyTAN`.
STUDY_COLUMN = {
    "NB": "NB",
    "TAN (study's tree)": "TAN",
    "Simpler TAN": "Simpler TAN",
    "STAN bagging": "STAN bagging",
    "TAN bagging (study's trees)": "TAN bagging",
    "STAN+TAN bagging (study's trees)": "STAN+TAN bagging",
}

STUDY_DATASETS = ("p450", "lactamase")


class StudyTAN(TAN):
    """TAN with the study's tree: its Prim step ranking edges by ``int(weight)``.

    For reproduction only. Weights are the conditional mutual information,
    as in :class:`~bnclassify.TAN`, but the tree is grown the way the study's
    code did it: from the root, at each step every tree node proposes the
    outside feature with the largest *truncated* weight (ties: lowest
    column), and the proposal with the largest true weight is attached. With
    every weight below 1 the proposals are all "the next column", so features
    join in column order, each under the tree node it shares most
    information with. Use :class:`~bnclassify.TAN` for the maximum spanning
    tree.

    Parameters
    ----------
    alpha : float, default=1.0
    root : str or int, optional
        The study's ``starting_node`` (default: the first feature).
    handle_unknown : {"warn", "error", "marginalize"}, default="warn"

    Examples
    --------
    >>> from bnclassify.datasets import load_p450
    >>> from bnclassify.study import StudyTAN
    >>> X, y = load_p450(return_X_y=True)
    >>> tree = StudyTAN().fit(X, y).structure_
    >>> sorted(tree.successors("block1"))  # the near-star SOURCES.md describes
    ['block2', 'block3', 'block4', 'block5', 'block6', 'block7']
    """

    #: its DAG is grown by the study's own rule, not by orienting the spanning tree
    orients_spanning_tree = False
    _parameter_constraints = {
        name: TAN._parameter_constraints[name] for name in ("alpha", "root", "handle_unknown")
    }
    _parameter_rules = ()

    def __init__(self, alpha=1.0, root=None, handle_unknown="warn"):
        # the study ranked edges by int(CMI): the plain-information weights, not AIC gains
        super().__init__(alpha=alpha, root=root, criterion="loglik", handle_unknown=handle_unknown)

    def _feature_dag(self, weights, features, counts):
        values = np.asarray(weights, dtype=float).copy()
        np.fill_diagonal(values, 0.0)
        truncated = np.trunc(values)
        root = 0 if self.root is None else resolve_column(self.root, features, what="root")
        in_tree = np.zeros(len(features), dtype=bool)
        in_tree[root] = True
        order = [root]
        dag = nx.DiGraph()
        dag.add_nodes_from(features)
        while len(order) < len(features):
            # each tree node's best outside feature by int(weight), lowest column on ties
            proposals = [int(np.argmax(np.where(in_tree, -np.inf, truncated[:, v]))) for v in order]
            gains = [values[k, v] for k, v in zip(proposals, order, strict=True)]
            best = int(np.argmax(gains))  # first tree node on ties, as the study's stable sort
            child = proposals[best]
            dag.add_edge(features[order[best]], features[child])
            order.append(child)
            in_tree[child] = True
        return dag


def study_models(contact_matrix=None, *, alpha=1.0, study_tan=True, extra=True) -> dict:
    """The models of the comparison, by display name, in table order.

    Parameters
    ----------
    contact_matrix : DataFrame, optional
        Enables Simpler TAN and the ensembles built on it; labelled by feature
        (its columns name the features the study-tree ensembles are rooted at).
    alpha : float, default=1.0
        Dirichlet smoothing of every model (the study: 1).
    study_tan : bool, default=True
        Add the rows built on the study's accidental tree, each labelled
        "(study's tree)" / "(study's trees)": :class:`StudyTAN`, and its
        TAN bagging and STAN+TAN bagging (8 StudyTANs rooted at each feature,
        which the study's int(weight) step makes 8 *different* trees).
    extra : bool, default=True
        Add the ensembles (Ensemble TAN) and the structures beyond the study
        (k-dependence Bayes, AODE, TAN with a BIC-penalised forest, and the
        Bayesian average over all TAN trees, :class:`~bnclassify.BMATAN`,
        at the BDeu equivalent sample size the training evidence prefers (its
        default), with a uniform tree prior and, given contacts, with the
        contact prior whose strength maximises the training evidence, and
        that one again at BDeu's customary ``s = 1`` for comparison).
        BMATAN's smoothing is not ``alpha``: the two are on different scales.

    Examples
    --------
    >>> from bnclassify.datasets import load_p450
    >>> from bnclassify.study import study_models
    >>> list(study_models(load_p450().contact_matrix, extra=False))
    ['NB', 'TAN', "TAN (study's tree)", 'Simpler TAN']
    """
    models = {"NB": NaiveBayes(alpha=alpha), "TAN": TAN(alpha=alpha)}
    if study_tan:
        models["TAN (study's tree)"] = StudyTAN(alpha=alpha)
    if contact_matrix is not None:
        models["Simpler TAN"] = SimplerTAN(contact_matrix, alpha=alpha)
    if not extra:
        return models
    if contact_matrix is not None:
        models["STAN bagging"] = EnsembleTAN(contact_matrix, members="stan", alpha=alpha)
    models["TAN bagging"] = EnsembleTAN(members="tan", alpha=alpha)
    if study_tan:
        models["TAN bagging (study's trees)"] = EnsembleTAN(members=StudyTAN(alpha=alpha))
    if contact_matrix is not None:
        models["STAN+TAN bagging"] = EnsembleTAN(contact_matrix, members="stan+tan", alpha=alpha)
        if study_tan:
            features = [str(f) for f in getattr(contact_matrix, "columns", [])]
            if features:
                members = [StudyTAN(alpha=alpha, root=f) for f in features]
                members.append(SimplerTAN(contact_matrix, alpha=alpha))
                models["STAN+TAN bagging (study's trees)"] = EnsembleTAN(members=members)
    models["KDB (k=2)"] = KDB(k=2, alpha=alpha)
    models["AODE"] = AODE(alpha=alpha)
    models["TAN (BIC forest)"] = TAN(alpha=alpha, criterion="bic")
    models["BMA TAN"] = BMATAN()
    if contact_matrix is not None:
        models["BMA TAN (contact prior)"] = BMATAN(
            contact_matrix=contact_matrix, contact_prior="auto"
        )
        models["BMA TAN (s = 1, contact prior)"] = BMATAN(
            equivalent_sample_size=1.0, contact_matrix=contact_matrix, contact_prior="auto"
        )
    return models


def load_study_dataset(name):
    """A bundled data set by name (p450, lactamase, car, nursery, vote).

    Examples
    --------
    >>> load_study_dataset("p450").data.shape
    (955, 8)
    """
    loaders = {
        "p450": datasets.load_p450,
        "lactamase": datasets.load_lactamase,
        "car": datasets.load_car,
        "nursery": datasets.load_nursery,
        "vote": datasets.load_vote,
    }
    if name not in loaders:
        raise ValueError(f"unknown data set {name!r}; choose from {sorted(loaders)}.")
    return loaders[name]()


def load_study_data(dataset, *, as_study_loaded=False):
    """A bundled data set; ``as_study_loaded=True`` drops lactamase's first row, as the study did.

    The study's lactamase loader skipped the file's first line, so it used
    552 of the 553 chimeras (and different folds); with that row dropped its
    figures are reproduced exactly.

    Examples
    --------
    >>> load_study_data("lactamase", as_study_loaded=True).data.shape
    (552, 8)
    """
    bunch = load_study_dataset(dataset)
    if as_study_loaded and dataset == "lactamase":
        for key in ("data", "target", "frame"):
            bunch[key] = bunch[key].iloc[1:].reset_index(drop=True)
    return bunch
