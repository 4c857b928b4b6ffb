"""How strongly each member of a class's true Markov blanket tells about the class.

Usage::

    python benchmarks/bayesnet_blankets.py                       # the six class nodes
    python benchmarks/bayesnet_blankets.py --cases alarm:TPR --mc-rows 400000

For each class node of ``benchmarks/bayesnet_networks.py`` and each member
``m`` of its true Markov blanket ``B`` (the rest ``R = B - {m}``):

- ``cmi``: the conditional mutual information of ``m`` and the class given every
  other column, ``I(m; C | V - {m})`` (nats), estimated without bias by Monte Carlo
  over ``--mc-rows`` rows sampled from the network (seed 2) as the mean of
  ``KL(P(C | V) || P(C | V - {m}))``, both posteriors exact from the true network
  (``m`` summed out of the whole network with every other column observed,
  :func:`bnclassify.io.from_pgmpy`); ``se`` its standard error. This is ``m``'s
  information beyond all the other columns, not beyond ``R`` only: a member with a
  one-to-one copy outside the blanket (hailfinder's ``CompPlFcst``, copied by
  ``CapChange``; ``AreaMeso_ALS`` by ``CombVerMo``) shows 0 here though the
  blanket without the copy needs it (``bayesnet_blanket_seeds.py``).
- ``df``: the degrees of freedom of the G-test of ``m`` against the class given
  ``R``, ``(r_m - 1)(r_c - 1) q_R``; ``power``: the probability that this test
  at level 0.05 finds the dependence on ``--train`` rows, its statistic a
  noncentral chi-square of noncentrality ``2 n cmi`` (so a member whose
  ``2 n cmi`` is far below ``df`` is found by no test at that size);
  ``power_1df``: the same for a test of one degree of freedom, about the most
  any test can hope for (all the dependence in one parameter): below 0.5 when
  ``2 n cmi < 3.84``.
- with ``--iamb``, the blanket IAMB learns with that G-test at level 0.01.
- ``G``, ``df_adj``, ``p``: the G-test on the ``--train`` rows sampled as the
  benchmark samples them (seed 0), its degrees of freedom counted over the
  joint states of ``R`` that occur (each adds ``(r_m' - 1)(r_c' - 1)`` for
  the states ``r'`` seen in it), and its p-value.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from bayesnet_networks import CASES, load_network, sample
from scipy import stats

from bnclassify.io import from_pgmpy
from bnclassify.structure import markov_blanket


def g_test(frame, member, class_node, rest) -> tuple:
    """``(G, adjusted df, p-value)`` of ``member`` against ``class_node`` given ``rest``."""
    keys = [*rest, member, class_node]
    counts = frame.groupby(keys, observed=True).size().rename("n").reset_index()
    if rest:
        stratum = counts.groupby(rest, observed=True).ngroup().to_numpy()
    else:
        stratum = np.zeros(len(counts), dtype=int)
    n = counts["n"].to_numpy(dtype=float)
    total = np.bincount(stratum, n)
    m_codes = pd.factorize(counts[member])[0]
    c_codes = pd.factorize(counts[class_node])[0]
    m_key = stratum * (m_codes.max() + 1) + m_codes
    c_key = stratum * (c_codes.max() + 1) + c_codes
    n_m = np.bincount(m_key, n)[m_key]
    n_c = np.bincount(c_key, n)[c_key]
    g = 2.0 * float(np.sum(n * np.log(n * total[stratum] / (n_m * n_c))))
    seen_m = np.array([len(np.unique(m_codes[stratum == s])) for s in range(len(total))])
    seen_c = np.array([len(np.unique(c_codes[stratum == s])) for s in range(len(total))])
    df = int(np.sum(np.maximum(seen_m - 1, 0) * np.maximum(seen_c - 1, 0)))
    p = float(stats.chi2.sf(g, df)) if df else 1.0
    return g, df, p


def iamb(frame, class_node, alpha=0.01):
    """Tsamardinos, Aliferis and Statnikov's (2003) IAMB with the G-test above: grow the
    blanket by the variable of the smallest p-value given it while that is below
    ``alpha``, then drop each member independent of the class given the others."""
    blanket, candidates = [], [c for c in frame.columns if c != class_node]
    while candidates:
        tested = [(g_test(frame, v, class_node, blanket)[2], v) for v in candidates]
        p, best = min(tested)
        if p >= alpha:
            break
        blanket.append(best)
        candidates.remove(best)
    for v in list(blanket):
        rest = [u for u in blanket if u != v]
        if g_test(frame, v, class_node, rest)[2] >= alpha:
            blanket = rest
    return sorted(blanket)


def run_case(network_name, class_node, train_rows, mc_rows, with_iamb=False):
    network = load_network(network_name)
    cards = network.get_cardinality()
    truth = from_pgmpy(network, class_node)
    blanket = sorted(markov_blanket(truth.structure_, class_node))
    train = sample(network, train_rows, 0)
    mc = sample(network, mc_rows, 2)
    X = mc[truth.feature_names_in_]
    full = truth.predict_proba(X)
    out = []
    r_c = int(cards[class_node])
    for member in blanket:
        rest = [v for v in blanket if v != member]
        hidden = X.copy()
        hidden[member] = np.nan
        summed = truth.predict_proba(hidden)
        # KL(P(C | B) || P(C | R)) per row: the class summed exactly, lower variance
        seen = full > 0  # a class the row rules out adds nothing
        terms = np.log(np.where(seen, full, 1.0)) - np.log(np.where(seen, summed, 1.0))
        kl = np.sum(np.where(seen, full * terms, 0.0), axis=1)
        cmi, se = float(kl.mean()), float(kl.std(ddof=1) / np.sqrt(len(kl)))
        q = int(np.prod([int(cards[v]) for v in rest]))
        df = (int(cards[member]) - 1) * (r_c - 1) * q
        noncentral = 2.0 * train_rows * max(cmi, 0.0)
        critical = stats.chi2.isf(0.05, df)
        power = float(stats.ncx2.sf(critical, df, noncentral)) if noncentral > 0 else 0.05
        # the most any test could hope for: the whole dependence in one degree of freedom
        power_1 = float(stats.ncx2.sf(stats.chi2.isf(0.05, 1), 1, noncentral))
        g, df_adj, p = g_test(train, member, class_node, rest)
        out.append(
            {
                "member": member,
                "role": (
                    "parent"
                    if member in network.get_parents(class_node)
                    else "child"
                    if member in network.get_children(class_node)
                    else "spouse"
                ),
                "cmi": cmi,
                "se": se,
                "df": df,
                "power": power,
                "lambda": noncentral,
                "power_1df": power_1,
                "G": g,
                "df_adj": df_adj,
                "p": p,
            }
        )
    result = {"network": network_name, "class": class_node, "blanket": blanket, "members": out}
    if with_iamb:
        learnt = iamb(train, class_node)
        result["iamb"] = {
            "blanket": learnt,
            "missing": sorted(set(blanket) - set(learnt)),
            "extra": sorted(set(learnt) - set(blanket)),
        }
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", help="network:class pairs, comma-separated")
    parser.add_argument("--train", type=int, default=100_000)
    parser.add_argument("--mc-rows", type=int, default=200_000)
    parser.add_argument("--iamb", action="store_true", help="also learn the blanket by IAMB")
    parser.add_argument("--results", type=Path)
    args = parser.parse_args(argv)
    cases = CASES
    if args.cases:
        cases = [tuple(c.split(":")) for c in args.cases.split(",")]
    results = []
    for network_name, class_node in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = run_case(network_name, class_node, args.train, args.mc_rows, args.iamb)
        results.append(result)
        print(f"\n{network_name} / {class_node}")
        print(
            f"  {'member':16} {'role':7} {'CMI (nats)':>11} {'se':>9} {'df':>7} "
            f"{'power':>6} {'2nCMI':>8} {'pow1df':>6} {'G':>9} {'df_adj':>6} {'p':>9}"
        )
        for row in result["members"]:
            print(
                f"  {row['member']:16} {row['role']:7} {row['cmi']:11.2e} {row['se']:9.1e} "
                f"{row['df']:7d} {row['power']:6.3f} {row['lambda']:8.1f} {row['power_1df']:6.3f} "
                f"{row['G']:9.1f} {row['df_adj']:6d} "
                f"{row['p']:9.2e}",
                flush=True,
            )
        if "iamb" in result:
            print(f"  IAMB: missing {result['iamb']['missing']}, extra {result['iamb']['extra']}")
        if args.results:
            args.results.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
