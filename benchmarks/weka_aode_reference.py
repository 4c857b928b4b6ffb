"""Weka 3.6's AODE and AODEsr estimates, transliterated, on bnclassify's encoded folds.

Explains where ``benchmarks/weka.py`` finds bnclassify's ``AODE`` and Weka's apart: this
slow reference reads the rows as bnclassify encodes them (its MDL bins, its categories)
but estimates as Weka's ``AODE`` (``-F 1``) and ``AODEsr -L`` (Laplace, ``-C 50``) do::

    P(y, x_p)        = (N(y, x_p) + 1) / (N_p + C K_p)        # joint, rows observing x_p
    P(x_j | y, x_p)  = (N(y, x_p, x_j) + 1) / (N(y, x_p, x_j observed) + K_j)

averaging over the super-parents the row observes (seen at least once, not deleted by
:func:`bnclassify.classifiers.subsumed`); a row with none is Weka's Laplace naive Bayes.
bnclassify's ``AODE`` instead estimates ``P(y) P(x_p | y)`` (as R bnclassify does) and,
by default, sums a missing super-parent out. Where this reference equals Weka's stored
fold, the two differ only by those estimates; what remains is Weka's own discretisation
and the classes and values its ARFF header declares from the whole table.

Usage::

    python benchmarks/weka_aode_reference.py --results benchmarks/results_weka.json car anneal
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import uci  # noqa: E402

from bnclassify import AODE  # noqa: E402
from bnclassify.classifiers import SUBSUMPTION_MIN_COUNT, subsumed  # noqa: E402


def weka_aode_proba(codes_train, y_train, codes_test, cards, n_classes, subsumption=None):
    """Class probabilities of Weka's AODE (or AODEsr -L when ``subsumption`` is a count)."""
    n, m = codes_train.shape
    offsets = np.concatenate([[0], np.cumsum(cards)])
    onehot = np.zeros((n, offsets[-1]))
    for j in range(m):
        seen = codes_train[:, j] >= 0
        onehot[np.flatnonzero(seen), offsets[j] + codes_train[seen, j]] = 1.0
    table = np.stack([onehot[y_train == c].T @ onehot[y_train == c] for c in range(n_classes)])
    pairs = table.sum(axis=0)
    dropped = np.zeros(codes_test.shape, dtype=bool)
    if subsumption is not None:
        dropped = subsumed(codes_test, cards, pairs, subsumption)
    observed_rows = onehot.sum(axis=0)  # N(x): per category
    out = np.full((len(codes_test), n_classes), np.nan)
    for r, x in enumerate(codes_test):
        values = [j for j in range(m) if 0 <= x[j] < cards[j] and not dropped[r, j]]
        at = {j: offsets[j] + x[j] for j in values}
        parents = [p for p in values if pairs[at[p], at[p]] >= 1]
        if not parents:  # Weka's naive Bayes, every observed value
            seen = [j for j in range(m) if 0 <= x[j] < cards[j]]
            probs = (np.bincount(y_train, minlength=n_classes) + 1.0) / (n + n_classes)
            for j in seen:
                cell = offsets[j] + x[j]
                total = table[:, offsets[j] : offsets[j + 1], offsets[j] : offsets[j + 1]]
                total = np.trace(total, axis1=1, axis2=2)
                probs = probs * (table[:, cell, cell] + 1) / (total + cards[j])
            out[r] = probs / probs.sum()
            continue
        probs = np.zeros(n_classes)
        for p in parents:
            n_p = observed_rows[offsets[p] : offsets[p + 1]].sum()
            for c in range(n_classes):
                value = (table[c, at[p], at[p]] + 1) / (n_p + n_classes * cards[p])
                for j in values:
                    if j != p:
                        total = table[c, at[p], offsets[j] : offsets[j + 1]].sum()
                        value *= (table[c, at[p], at[j]] + 1) / (total + cards[j])
                probs[c] += value
        out[r] = probs / probs.sum()
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sets", nargs="+")
    parser.add_argument("--data", type=Path, default=uci.DEFAULT_DATA)
    parser.add_argument("--results", type=Path, help="benchmarks/weka.py's JSON (Weka's folds)")
    parser.add_argument("--fold", type=int, default=0)
    args = parser.parse_args(argv)
    stored = json.loads(args.results.read_text()) if args.results else {}
    manifest = {name: (target, path) for name, target, path in uci.read_collection(args.data)}
    for name in args.sets:
        X, y = uci.load_set(manifest[name][1], manifest[name][0])
        classes = np.unique(y)
        train, test = uci.cv_folds(X, y)[args.fold]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = AODE().fit(X.iloc[train], y[train])
            codes_train, codes_test = (model.encode(X.iloc[rows])[0] for rows in (train, test))
        y_train = np.searchsorted(classes, y[train])  # a class absent from the fold too
        cards = np.asarray(model.schema_.cards)
        for label, weka_key, count, ours in (
            ("AODE", "weka:AODE", None, "aode"),
            ("AODEsr -L", "weka:AODEsr -C 50 -F 1 -L", SUBSUMPTION_MIN_COUNT, None),
        ):
            proba = weka_aode_proba(codes_train, y_train, codes_test, cards, len(classes), count)
            scores = uci.probability_scores(proba, y[test], classes)
            line = f"{name:14s} {label:10s} reference 0-1 {scores['zero_one']:.6f} log loss "
            line += f"{scores['log_loss']:.6f}"
            for key in (weka_key, ours):
                fold = stored.get(name, {}).get(key, [None] * (args.fold + 1))[args.fold]
                if fold and "error" not in fold:
                    line += f" | {key}: {fold['zero_one']:.6f} {fold['log_loss']:.6f}"
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
