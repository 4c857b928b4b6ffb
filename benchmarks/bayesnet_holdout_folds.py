"""How much the held-out blanket refinement depends on its folds.

Usage::

    python benchmarks/bayesnet_holdout_folds.py                     # the six class nodes
    python benchmarks/bayesnet_holdout_folds.py --level 0.01 --seeds 5 --cases water:CNOD_12_15

``BayesNetClassifier(perturb_blanket=True, blanket_level=0.001, blanket_holdout=LEVEL)``
on the training rows of ``benchmarks/bayesnet_networks.py`` (10^5 rows, seed 0), once per
seed of the held-out folds (the classifier's ``random_state``, 0 by default). Prints the
learnt blanket against the graph's and the kinds of held-out moves made.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

from bayesnet_networks import CASES, from_pgmpy, load_network, make_model, markov_blanket, sample
from threadpoolctl import threadpool_limits


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", help="network:class pairs, comma-separated")
    parser.add_argument("--level", type=float, default=0.001)
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args(argv)
    cases = CASES if not args.cases else [tuple(c.split(":")) for c in args.cases.split(",")]
    spec = (
        "BayesNetClassifier(perturb_blanket=True, blanket_level=0.001, "
        f"blanket_holdout={args.level})"
    )
    print(spec)
    for network_name, class_node in cases:
        network = load_network(network_name)
        train = sample(network, 100_000, 0)
        X, y = train.drop(columns=class_node), train[class_node].astype(str)
        truth = set(markov_blanket(from_pgmpy(network, class_node).structure_, class_node))
        for seed in range(args.seeds):
            with threadpool_limits(1), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cpu = time.process_time()
                model = make_model(spec).set_params(random_state=seed).fit(X, y)
                cpu = time.process_time() - cpu
            learnt = set(model.markov_blanket_)
            moves = sorted({t[0] for t in model.blanket_tests_ if t[0].startswith("cv_")})
            print(
                f"{network_name} / {class_node}, folds seed {seed}: fit CPU {cpu:.1f} s, "
                f"missing {sorted(truth - learnt)}, extra {sorted(learnt - truth)}, moves {moves}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
