"""benchmarks/bayesnet_blanket_seeds.py's exact judgement: is a learnt blanket a Markov
boundary of the class in the network's distribution?"""

import pandas as pd
import pytest
from _benchmark_scripts import load_script

pgmpy_models = pytest.importorskip("pgmpy.models")
from pgmpy.factors.discrete import TabularCPD  # noqa: E402

from bnclassify.datasets import sample_network  # noqa: E402
from bnclassify.io import from_pgmpy  # noqa: E402


def _cpd(variable, table, parents=()):
    """A table whose states are named ``"no"`` and ``"yes"`` (as text, read as the
    benchmark reads sampled rows)."""
    names = {v: ["no", "yes"] for v in (variable, *parents)}
    return TabularCPD(
        variable,
        2,
        table,
        evidence=list(parents) or None,
        evidence_card=[2] * len(parents) or None,
        state_names=names,
    )


def _network():
    """``c -> x <- s``, ``x -> w`` (a descendant, no member), ``x -> k`` (``x`` renamed:
    a one-to-one copy) and ``c -> v`` whose table is the same for both states of ``c``
    (a vacuous child: in the graph's blanket, carrying nothing)."""
    network = pgmpy_models.DiscreteBayesianNetwork(
        [("c", "x"), ("s", "x"), ("x", "w"), ("x", "k"), ("c", "v")]
    )
    network.add_cpds(
        _cpd("c", [[0.6], [0.4]]),
        _cpd("s", [[0.5], [0.5]]),
        _cpd("x", [[0.9, 0.3, 0.2, 0.7], [0.1, 0.7, 0.8, 0.3]], ("c", "s")),
        _cpd("w", [[0.8, 0.25], [0.2, 0.75]], ("x",)),
        _cpd("k", [[0.0, 1.0], [1.0, 0.0]], ("x",)),
        _cpd("v", [[0.3, 0.3], [0.7, 0.7]], ("c",)),
    )
    return network


def test_a_boundary_is_sufficient_and_minimal_copies_stand_in_and_vacuous_members_are_needless():
    seeds = load_script("bayesnet_blanket_seeds")
    network = _network()
    rows = pd.concat(sample_network(network, 2000, random_state=0), ignore_index=True)
    truth = from_pgmpy(network, "c")
    X_test = rows.drop(columns="c").astype(object)
    bayes = truth.predict_proba(X_test[truth.feature_names_in_])

    def check(members):
        return seeds.boundary_check(truth, X_test, bayes, members)

    boundary = check(["s", "x"])
    assert boundary["M"] and boundary["gap"] < 1e-12
    assert check(["k", "s"])["M"]  # the copy in x's place: the same posterior everywhere
    graph_blanket = check(["s", "v", "x"])  # sufficient, but v carries nothing
    assert graph_blanket["sufficient"] and graph_blanket["needless"] == ["v"]
    assert not graph_blanket["M"]
    short = check(["x"])  # the spouse missing: the posterior moves on some rows
    assert not short["sufficient"] and short["gap"] > 0.05 and not short["M"]
    extra = check(["s", "w", "x"])
    assert extra["needless"] == ["w"] and not extra["M"]
    assert seeds.judge(["k", "s"], ["s", "v", "x"], ["s", "x"], seeds.copy_groups(network)) == "B~"
    assert not check([])["sufficient"]
