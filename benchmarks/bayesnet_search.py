"""Hill climbing over DAGs: bnclassify's search against pgmpy's ``HillClimbSearch``.

Usage::

    python benchmarks/bayesnet_search.py                       # every table, BIC and BDeu
    python benchmarks/bayesnet_search.py --sets car,vote --scores bic
    python benchmarks/bayesnet_search.py --networks            # 10^5 rows of each BIF network too
    python benchmarks/bayesnet_search.py --results /tmp/s.json --timeout 1800
    python benchmarks/bayesnet_search.py --hash-seeds 0,1,2,3,4,5 --results /tmp/s.json

Tables: the bundled data sets (``bnclassify.datasets``), the shared CSVs
(``shared/data/*.csv``) and the 22 UCI sets (``shared/data/uci``); with
``--networks``, ``--rows`` rows sampled from each network of
``shared/data/networks`` (pgmpy's forward sampler, seed 0). Each table is
encoded once as bnclassify fits it (numeric columns cut into MDL bins learnt
with the class, categories kept), the class as one more column; a missing
cell becomes a state of its own, so both libraries search the same complete
discrete table (pgmpy gets it as pandas ``category`` columns).

Both searches start from the empty graph, with the same tabu length
(``--tabu-length``, default 10) and maximum in-degree (``--max-parents``,
default none), and
the same score: ``bic`` (pgmpy ``"bic-d"``) and ``bdeu`` (pgmpy ``"bdeu"``,
equivalent sample size 10, pgmpy's default). Each learnt DAG is scored by
pgmpy's own score class (``pgmpy.structure_score``), so the comparison of
scores does not rest on bnclassify's. bnclassify runs twice: hill climbing
(``search="hill_climbing"``, greedy like pgmpy's; ties between equal moves,
which pgmpy breaks by its set iteration order, can lead either to a different
local maximum), tabu search (``search="tabu"``: the same climb, then up to
``tabu_length`` moves past the local maximum) and the iterated search
(``search="iterated"``, :func:`~bnclassify.dag_search.iterated_search`: the tabu
walk, then ``--restarts`` restarts from two random reversals of the best graph's
arcs, seed 0). Since pgmpy's result moves with the order of its sets of
strings, ``--hash-seeds`` runs pgmpy's search again (once each, untimed) under
each ``PYTHONHASHSEED`` given, one subprocess per seed (its scores kept in
``RESULTS.hashSEED.json``, so a second run reuses them), and the summary counts
our scores against pgmpy's best and worst over the seeds and this run. Times: bnclassify's from the
encoded table to the DAG (distinct rows, counts, search); pgmpy's ``estimate``.
Both on one thread, interleaved per table and score, so a busy machine slows
both alike; the ratio is what to read. Each search is repeated while its runs
have taken less than 0.2 s in all (at most 7 runs; ``best_of``), ours and
pgmpy's alike, and its least time kept, as ``timeit`` does: a search of a
millisecond is otherwise measured by one run's noise. Each is timed by the wall clock and by
the process's CPU time (``time.process_time``, every thread of the process):
on a shared machine a search of a tenth of a second is slowed more, relative
to its length, by waiting for a core than one of ten seconds, so the CPU-time
ratio is the steadier one there. A pgmpy search over ``--timeout``
seconds is stopped and reported as such (the ratio is then a lower bound).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from _timing import best_of
from threadpoolctl import threadpool_limits

from bnclassify.dag_search import hill_climbing, iterated_search, tabu_search
from bnclassify.data import MISSING
from bnclassify.datasets import load_car, load_lactamase, load_nursery, load_p450, load_vote
from bnclassify.scores import FamilyScores
from bnclassify.stats import VariableCounts, training_statistics
from bnclassify.structure import name_order

HERE = Path(__file__).resolve().parent
SHARED = next(
    (p / "shared" / "data" for p in HERE.parents if (p / "shared" / "data").is_dir()),
    HERE.parent.parent / "shared" / "data",
)
ESS = 10.0


def bundled() -> list:
    loaders = {
        "car": load_car,
        "nursery": load_nursery,
        "vote": load_vote,
        "p450": load_p450,
        "lactamase": load_lactamase,
    }
    return [(f"bundled/{name}", *load(return_X_y=True)) for name, load in loaders.items()]


def shared_csvs() -> list:
    out = []
    for path in sorted(SHARED.glob("*.csv")):
        if "contacts" in path.stem:
            continue
        frame = pd.read_csv(path)
        target = "class" if "class" in frame.columns else frame.columns[-1]
        out.append((f"shared/{path.stem}", frame.drop(columns=target), frame[target]))
    return out


def uci_sets(names=None) -> list:
    folder = SHARED / "uci"
    manifest = pd.read_csv(folder / "MANIFEST.csv")
    out = []
    for row in manifest.itertuples(index=False):
        if names and row.name not in names:
            continue
        frame = pd.read_csv(folder / f"{row.name}.csv")
        y = frame.pop(row.target).astype(str)
        out.append((f"uci/{row.name}", frame, y))
    return out


def network_sets(rows) -> list:
    from pgmpy.readwrite import BIFReader
    from pgmpy.sampling import BayesianModelSampling

    out = []
    for path in sorted((SHARED / "networks").glob("*.bif")):
        network = BIFReader(str(path)).get_model()
        sample = BayesianModelSampling(network).forward_sample(
            size=rows, seed=0, show_progress=False
        )
        target = sample.columns[-1]
        out.append((f"network/{path.stem}", sample.drop(columns=target), sample[target]))
    return out


def encoded(X, y) -> tuple[list, np.ndarray, np.ndarray]:
    """``(names, codes, cards)`` of the table as bnclassify encodes it, the class last; a
    missing cell a state of its own."""
    schema, classes, stats = training_statistics(X, y, warn=False)
    codes = np.column_stack([stats.codes, stats.y]).astype(np.int64)
    cards = np.append(stats.cards, len(classes)).astype(np.int64)
    for j in range(codes.shape[1]):
        missing = codes[:, j] == MISSING
        if missing.any():
            codes[missing, j] = cards[j]
            cards[j] += 1
    # each column's states renumbered to those the rows show: pgmpy counts a variable's
    # states from the data, a declared category no row has would give the two libraries
    # different scores (anneal's 'm', 's' and 'p', missing in every row)
    for j in range(codes.shape[1]):
        seen, codes[:, j] = np.unique(codes[:, j], return_inverse=True)
        cards[j] = len(seen)
    keep = cards > 1  # a column of one state (an unobserved or uncut one) takes no part
    names = [str(n) for n in [*schema.names, "__class__"]]
    return [n for n, k in zip(names, keep, strict=True) if k], codes[:, keep], cards[keep]


def ours(names, codes, cards, score, max_parents, tabu_length, search, restarts=10):
    """bnclassify's search on the encoded table: ``(parents by name, seconds, CPU seconds)``;
    ``search="iterated"``: :func:`~bnclassify.dag_search.iterated_search` with ``restarts``
    (seed 0)."""
    start, cpu = time.perf_counter(), time.process_time()
    ranked = name_order(names)
    counts = VariableCounts.merged(codes[:, ranked], None, cards[ranked])
    scores = FamilyScores(counts, score, ESS)
    options = {"tabu_length": tabu_length, "max_parents": max_parents}
    if search == "iterated":
        parents, _ = iterated_search(scores, len(names), restarts=restarts, **options)
    else:
        climb = tabu_search if search == "tabu" else hill_climbing
        parents, _ = climb(scores, len(names), **options)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    found = {names[ranked[v]]: [names[ranked[p]] for p in ps] for v, ps in enumerate(parents)}
    return found, seconds, cpu


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout


def pgmpy_search(frame, score, max_parents, tabu_length, timeout):
    """pgmpy's ``HillClimbSearch``: ``(parents by name or None, seconds, CPU seconds)``."""
    from pgmpy.estimators import BIC, BDeu, HillClimbSearch

    scoring = BDeu(frame, equivalent_sample_size=ESS) if score == "bdeu" else BIC(frame)
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(int(timeout))
    start, cpu = time.perf_counter(), time.process_time()
    try:
        dag = HillClimbSearch(frame).estimate(
            scoring_method=scoring,
            tabu_length=tabu_length,
            max_indegree=max_parents,
            show_progress=False,
        )
    except _Timeout:
        return None, time.perf_counter() - start, time.process_time() - cpu
    finally:
        signal.alarm(0)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {v: list(dag.predecessors(v)) for v in frame.columns}, seconds, cpu


def pgmpy_score_of(parents, frame, score):
    """The DAG's score by pgmpy's own score class (``pgmpy.structure_score``)."""
    from pgmpy.structure_score import BIC, BDeu

    scoring = BDeu(frame, equivalent_sample_size=ESS) if score == "bdeu" else BIC(frame)
    return float(sum(scoring.local_score(v, tuple(ps)) for v, ps in parents.items()))


def cpu_ratio(row, search) -> str:
    """pgmpy's CPU time over ours (process time: what a busy machine's waits leave out)."""
    if "pgmpy_cpu" not in row:
        return "-"
    mark = " " if row["pgmpy_finished"] else ">"
    return f"{mark}{row['pgmpy_cpu'] / row[f'{search}_cpu']:.1f}"


def pgmpy_scores_only(tables, args) -> None:
    """Each table's and score's pgmpy search once, its DAG's score kept in ``args.pgmpy_only``
    (a JSON file, ``{key: score}``): what a run under another hash seed adds."""
    out = args.pgmpy_only
    done = json.loads(out.read_text()) if out.exists() else {}
    for name, X, y in tables:
        frame = _frame(X, y)
        for score in args.scores.split(","):
            key = f"{name}|{score}|{args.max_parents}|{args.tabu_length}"
            if key in done:
                continue
            with threadpool_limits(1), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                theirs, _, _ = pgmpy_search(
                    frame, score, args.max_parents, args.tabu_length, args.timeout
                )
                done[key] = None if theirs is None else pgmpy_score_of(theirs, frame, score)
            out.write_text(json.dumps(done, indent=1))


def _frame(X, y) -> pd.DataFrame:
    """The encoded table as pandas ``category`` columns (what pgmpy searches)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        names, codes, cards = encoded(X, y)
    return pd.DataFrame(
        {n: pd.Categorical(codes[:, j], categories=range(cards[j])) for j, n in enumerate(names)}
    )


def hash_seed_runs(tables, args, done) -> None:
    """pgmpy's score under each of ``args.hash_seeds`` (``PYTHONHASHSEED``, which orders the
    sets its ties are broken by), one subprocess per seed, kept in each row's
    ``pgmpy_seed_scores``."""
    seeds = [s for s in args.hash_seeds.split(",") if s]
    names = ",".join(name for name, *_ in tables)
    for seed in seeds:
        wanted = [k for k, r in done.items() if seed not in r.setdefault("pgmpy_seed_scores", {})]
        if not wanted:
            continue
        out = Path(f"{args.results or 'bayesnet_search'}.hash{seed}.json")
        command = [
            sys.executable,
            __file__,
            "--sets",
            names,
            "--scores",
            args.scores,
            "--tabu-length",
            str(args.tabu_length),
            "--timeout",
            str(args.timeout),
            "--pgmpy-only",
            str(out),
        ]
        if args.max_parents is not None:
            command += ["--max-parents", str(args.max_parents)]
        subprocess.run(command, check=True, env={**os.environ, "PYTHONHASHSEED": seed})
        scored = json.loads(out.read_text())
        for key in wanted:
            if key in scored:
                done[key]["pgmpy_seed_scores"][seed] = scored[key]
        if args.results:
            args.results.write_text(json.dumps(done, indent=1))


SEARCHES = {"hc": "hill_climbing", "tabu": "tabu", "ils": "iterated"}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", help="comma-separated table names (e.g. car,vote,uci/zoo)")
    parser.add_argument("--scores", default="bic,bdeu")
    parser.add_argument("--max-parents", type=int, default=None)
    parser.add_argument("--tabu-length", type=int, default=10)
    parser.add_argument("--restarts", type=int, default=10, help="the iterated search's")
    parser.add_argument(
        "--hash-seeds",
        default="",
        help="comma-separated PYTHONHASHSEED values to run pgmpy's search under too (e.g. 0,1,2)",
    )
    parser.add_argument("--pgmpy-only", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--networks", action="store_true", help="add the BIF networks' samples")
    parser.add_argument("--only-networks", action="store_true")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--timeout", type=float, default=3600.0)
    parser.add_argument("--results", type=Path, help="JSON file to keep the rows in")
    args = parser.parse_args(argv)
    wanted = set(args.sets.split(",")) if args.sets else None
    tables = [] if args.only_networks else bundled() + shared_csvs() + uci_sets()
    if args.networks or args.only_networks:
        tables += network_sets(args.rows)
    if wanted:
        tables = [t for t in tables if t[0] in wanted or t[0].split("/")[-1] in wanted]
    if args.pgmpy_only:
        pgmpy_scores_only(tables, args)
        return 0
    done = json.loads(args.results.read_text()) if args.results and args.results.exists() else {}
    header = (
        f"{'table':26} {'score':5} {'rows':>7} {'vars':>4} {'hc s':>7} {'tabu s':>7} "
        f"{'ils s':>7} {'pgmpy s':>8} {'hc cpu x':>8} {'tabu cpu x':>10} {'ils cpu x':>9} "
        f"{'hc - pgmpy':>11} {'tabu - pgmpy':>12} {'ils - pgmpy':>11}"
    )
    print(header)
    for name, X, y in tables:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            names, codes, cards = encoded(X, y)
        frame = _frame(X, y)
        for score in args.scores.split(","):
            key = f"{name}|{score}|{args.max_parents}|{args.tabu_length}"
            if key not in done:
                options = (score, args.max_parents, args.tabu_length)
                row = {"table": name, "score": score, "rows": len(frame)}
                row["variables"] = len(names)
                found = {}
                with threadpool_limits(1), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for short, search in SEARCHES.items():
                        found[short], row[f"{short}_s"], row[f"{short}_cpu"], _ = best_of(
                            ours, names, codes, cards, *options, search, args.restarts
                        )
                    theirs, row["pgmpy_s"], row["pgmpy_cpu"], _ = best_of(
                        pgmpy_search, frame, *options, args.timeout
                    )
                    row["pgmpy_finished"] = theirs is not None
                    for short in SEARCHES:
                        row[f"{short}_score"] = pgmpy_score_of(found[short], frame, score)
                    row["pgmpy_score"] = (
                        None if theirs is None else pgmpy_score_of(theirs, frame, score)
                    )
                row["restarts"] = args.restarts
                done[key] = row
                if args.results:
                    args.results.write_text(json.dumps(done, indent=1))
            r = done[key]
            finished = r["pgmpy_score"] is not None
            gaps = [
                f"{r[f'{k}_score'] - r['pgmpy_score']:.4f}" if finished else "-" for k in SEARCHES
            ]
            print(
                f"{name:26} {score:5} {r['rows']:7d} {r['variables']:4d} {r['hc_s']:7.3f} "
                f"{r['tabu_s']:7.3f} {r['ils_s']:7.3f} {r['pgmpy_s']:8.2f} "
                f"{cpu_ratio(r, 'hc'):>8} {cpu_ratio(r, 'tabu'):>10} {cpu_ratio(r, 'ils'):>9} "
                f"{gaps[0]:>11} {gaps[1]:>12} {gaps[2]:>11}",
                flush=True,
            )
    if args.hash_seeds:
        hash_seed_runs(tables, args, done)
    summary(done)
    return 0


def summary(done) -> None:
    """Per search: the CPU-time ratios, and how often its score is at least pgmpy's (this run's,
    and the best and worst over the hash seeds' runs)."""
    rows = [r for r in done.values() if r["pgmpy_finished"]]
    if not rows:
        return
    seeded = any(r.get("pgmpy_seed_scores") for r in rows)
    if seeded:
        print(
            f"\n{'table':26} {'score':5} {'pgmpy best':>11} {'worst':>11} {'distinct':>8} "
            f"{'hc - best':>10} {'tabu - best':>11} {'ils - best':>10} {'ils - worst':>11}"
        )
    for r in rows:
        theirs = [r["pgmpy_score"], *(s for s in r.get("pgmpy_seed_scores", {}).values() if s)]
        r["_best"], r["_worst"] = max(theirs), min(theirs)
        distinct = len({round(s, 6) for s in theirs})
        if seeded:
            print(
                f"{r['table']:26} {r['score']:5} {r['_best']:11.2f} {r['_worst']:11.2f} "
                f"{distinct:8d} {r['hc_score'] - r['_best']:10.2f} "
                f"{r['tabu_score'] - r['_best']:11.2f} {r['ils_score'] - r['_best']:10.2f} "
                f"{r['ils_score'] - r['_worst']:11.2f}"
            )
    for short in SEARCHES:
        cpu = np.array([r["pgmpy_cpu"] / r[f"{short}_cpu"] for r in rows])
        tolerance = [1e-9 * abs(r["pgmpy_score"]) for r in rows]
        counts = [
            sum(r[f"{short}_score"] >= r[k] - t for r, t in zip(rows, tolerance, strict=True))
            for k in ("pgmpy_score", "_best", "_worst")
        ]
        print(
            f"{short:5}: {len(rows)} searches; CPU time pgmpy/ours min {cpu.min():.1f}, median "
            f"{np.median(cpu):.1f}, max {cpu.max():.1f}, at least 20x on {int((cpu >= 20).sum())}; "
            f"score >= pgmpy's (1e-9 relative): this run's {counts[0]}, best over hash seeds "
            f"{counts[1]}, worst {counts[2]} of {len(rows)}"
        )


if __name__ == "__main__":
    sys.exit(main())
