"""The study's reproduction models: the study's own tree, also inside its ensembles."""

from bnclassify import TAN, EnsembleTAN
from bnclassify.datasets import load_p450
from bnclassify.study.models import StudyTAN


def _feature_edges(model):
    return sorted(model.structure_.subgraph(model.feature_names_).edges)


def test_study_tan_bagging_members_grow_the_study_tree_from_each_root():
    X, y = load_p450(return_X_y=True)
    ensemble = EnsembleTAN(members=StudyTAN()).fit(X, y)
    members = list(ensemble.estimators_)
    assert [m.root for m in members] == list(X.columns)
    for member in members:  # as if fitted alone: an ensemble's shared tree is not used
        alone = StudyTAN(root=member.root).fit(X, y)
        assert _feature_edges(member) == _feature_edges(alone)
    # the study's int(weight) step makes the rootings different trees, unlike TAN's
    undirected = {frozenset(frozenset(e) for e in _feature_edges(m)) for m in members}
    assert len(undirected) > 1
    tan_tree = frozenset(frozenset(e) for e in _feature_edges(TAN().fit(X, y)))
    assert undirected != {tan_tree}
