"""Why a search misses members of the class's Markov blanket: score, search or penalty.

Usage::

    python benchmarks/bayesnet_blanket_diagnosis.py                  # the six class nodes
    python benchmarks/bayesnet_blanket_diagnosis.py --cases alarm:TPR --models bnc

For each class node of ``benchmarks/bayesnet_networks.py`` (10^5 training rows,
seed 0, as there) and each model, the learnt DAG and the true one are scored by
the same decomposable score on the same rows (``FamilyScores`` over the
network's states); then, for each member of the true blanket the learnt one
misses, the family through which it belongs to the blanket (the class's own
family when it is a parent of the class, its own when it is a child, the
common child's when it is a spouse) is examined in the learnt DAG:

- ``arc``: the score's change when the one arc the true graph has there
  is added to the learnt DAG (``illegal`` when it makes a cycle);
- ``family``: the change when that family's parents in the learnt DAG are replaced by
  its true parents (a move of several arcs that hill climbing cannot make in one
  step; ``illegal`` on a cycle);
- ``2dLL``, ``df``, ``p``: twice the log-likelihood gain of the one arc (the G
  statistic of the member against that family's node given its learnt
  parents), its degrees of freedom and the chi-square p-value.

Read: a family change above 0 while the arc's is below it is a local optimum of
the search (the score prefers the true family, one arc at a time does not
reach it); both below 0 with a small p is the score's parameter penalty
outweighing a real dependence; a large p is a member the rows do not show.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
from bayesnet_networks import CASES, load_network, make_model, sample
from scipy import stats
from threadpoolctl import threadpool_limits

from bnclassify import BayesNetClassifier
from bnclassify.scores import FamilyScores
from bnclassify.stats import VariableCounts
from bnclassify.structure import markov_blanket


def encode(train, network, names):
    cards, codes = [], []
    for name in names:
        states = [str(s) for s in network.states[name]]
        codes.append(pd.Categorical(train[name].astype(str), categories=states).codes)
        cards.append(len(states))
    codes = np.column_stack(codes)
    return VariableCounts.merged(codes, None, cards)


def parents_of(dag, names):
    index = {n: k for k, n in enumerate(names)}
    return {index[v]: tuple(sorted(index[u] for u in dag.predecessors(v))) for v in names}


def diagnose_case(network_name, class_node, specs, score_types):
    network = load_network(network_name)
    train = sample(network, 100_000, 0)
    names = [c for c in train.columns if c != class_node] + [class_node]
    counts = encode(train, network, names)
    true_dag = nx.DiGraph(network.edges())
    true_dag.add_nodes_from(names)
    true_blanket = set(markov_blanket(true_dag, class_node))
    X, y = train.drop(columns=class_node), train[class_node].astype(str)
    out = []
    for spec in specs:
        with threadpool_limits(1), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = make_model(spec).fit(X, y)
        learnt = model.structure_.copy()
        learnt = nx.relabel_nodes(learnt, {model.class_node_: class_node})
        missing = sorted(true_blanket - set(model.markov_blanket_))
        for score_type, weight in score_types:
            scores = FamilyScores(counts, score_type, weight)
            loglik = FamilyScores(counts, "loglik")
            index = {n: k for k, n in enumerate(names)}
            learnt_parents = parents_of(learnt, names)
            row = {
                "case": f"{network_name} / {class_node}",
                "model": spec,
                "score": f"{score_type}({weight:g})" if score_type == "bdeu" else score_type,
                "learnt": scores.network(learnt_parents),
                "true": scores.network(parents_of(true_dag, names)),
                "members": [],
            }
            # hill climbing from the true DAG with this score: does the score keep the blanket?
            kind = {"score_type": score_type, "prior_weight": weight}
            with threadpool_limits(1), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                from_truth = BayesNetClassifier(start=list(true_dag.edges()), **kind).fit(X, y)
            kept = set(from_truth.markov_blanket_)
            row["from_true"] = scores.network(
                parents_of(nx.relabel_nodes(from_truth.structure_, {}), names)
            )
            row["from_true_missing"] = sorted(true_blanket - kept)
            row["from_true_extra"] = sorted(kept - true_blanket)
            for m in missing:
                if true_dag.has_edge(m, class_node):
                    z, arc = class_node, (m, class_node)
                elif true_dag.has_edge(class_node, m):
                    z, arc = m, (class_node, m)
                else:
                    z = sorted(set(true_dag.successors(m)) & set(true_dag.successors(class_node)))[
                        0
                    ]
                    arc = (m, z)
                zi = index[z]
                current = learnt_parents[zi]
                with_arc = learnt.copy()
                with_arc.add_edge(*arc)
                arc_gain = (
                    scores(zi, tuple(sorted({*current, index[arc[0]]}))) - scores(zi, current)
                    if nx.is_directed_acyclic_graph(with_arc)
                    else None
                )
                true_family = tuple(sorted(index[u] for u in true_dag.predecessors(z)))
                u = index[arc[0]]
                without = tuple(p for p in true_family if p != u)
                # in the true DAG: what dropping the member's arc changes (> 0: the score
                # prefers the graph without it), and the arc's G statistic there
                removal = scores(zi, without) - scores(zi, true_family)
                d_ll = loglik(zi, true_family) - loglik(zi, without)
                q = int(np.prod([counts.cards[p] for p in without]))
                df = q * (counts.cards[u] - 1) * (counts.cards[zi] - 1)
                row["members"].append(
                    {
                        "member": m,
                        "via": z,
                        "arc": arc_gain,
                        "removal_in_true": removal,
                        "learnt_parents_of_via": sorted(learnt.predecessors(z)),
                        "true_parents_of_via": sorted(true_dag.predecessors(z)),
                        "2dLL": 2 * d_ll,
                        "df": int(df),
                        "p": float(stats.chi2.sf(2 * d_ll, df)) if df else None,
                    }
                )
            out.append(row)
    return out


def fmt(x):
    return "illegal" if x is None else f"{x:+.1f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases")
    parser.add_argument("--models", default="bnc")
    parser.add_argument("--scores", default="bdeu:1,bdeu:10,bic:1")
    parser.add_argument("--results", type=Path)
    args = parser.parse_args(argv)
    cases = CASES if not args.cases else [tuple(c.split(":")) for c in args.cases.split(",")]
    specs = [s.strip() for s in args.models.split(";" if ";" in args.models else ",")]
    score_types = [(s.split(":")[0], float(s.split(":")[1])) for s in args.scores.split(",")]
    results = []
    for network_name, class_node in cases:
        for row in diagnose_case(network_name, class_node, specs, score_types):
            results.append(row)
            print(
                f"\n{row['case']} [{row['model']}] {row['score']}: learnt {row['learnt']:.1f}, "
                f"true {row['true']:.1f} (true - learnt {row['true'] - row['learnt']:+.1f}); "
                f"climbing from the true DAG: {row['from_true'] - row['learnt']:+.1f} over the "
                f"learnt, missing {row['from_true_missing']}, extra {row['from_true_extra']}"
            )
            for m in row["members"]:
                print(
                    f"  {m['member']:16} via {m['via']:14} arc {fmt(m['arc']):>9} drop in true "
                    f"{fmt(m['removal_in_true']):>9}  2dLL {m['2dLL']:7.1f} df {m['df']:4d} "
                    f"p {m['p'] if m['p'] is None else format(m['p'], '.2g')}  "
                    f"learnt parents {m['learnt_parents_of_via']} true {m['true_parents_of_via']}",
                    flush=True,
                )
    if args.results:
        args.results.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
