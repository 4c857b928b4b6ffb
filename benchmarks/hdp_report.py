"""A smoothing against additive smoothing, set by set, from ``benchmarks/uci.py`` results.

Usage::

    python benchmarks/uci.py --no-peers --results /tmp/hdp.json --models "kdb2;\\
    KDB(k=2, smoothing='hdp', random_state=0);mdl:KDB(k=2);\\
    mdl:KDB(k=2, smoothing='hdp', random_state=0)"
    python benchmarks/hdp_report.py /tmp/hdp.json --markdown /tmp/hdp.md

For each form (``raw``: the CSV as ``pd.read_csv`` gives it; ``mdl``:
``MDLDiscretizer`` first) and each set: the mean over the ten folds of the log
loss, the 0-1 loss and the fit seconds of the base model and of the smoothed
one, and wins/draws/losses of the smoothed model (a draw: equal means to
1e-9). A set without numeric columns has nothing to discretise (the discretiser
refuses it): its ``mdl`` row is its ``raw`` row. A set that either model refuses
is listed and left out of the counts.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

BASE = "kdb2"  # uci.py's short name of KDB(k=2)
MDL_BASE = "mdl:KDB(k=2)"
SMOOTHED = "KDB(k=2, smoothing='hdp', random_state=0)"


def fold_mean(entry, spec, metric):
    scores = entry.get(spec)
    if scores is None:
        return None
    if any("error" in s for s in scores):
        return "refused"
    return float(np.mean([s[metric] for s in scores]))


def _nothing_to_discretise(entry, spec):
    scores = entry.get(spec) or [{}]
    return "no numeric column to discretise" in str(scores[0].get("error", ""))


def comparison(results, base, smoothed, form, mdl_base=MDL_BASE):
    """One row per set: the two models' means and who wins on each loss."""
    rows = []
    for name in sorted(results):
        entry = results[name]
        a, b = base, smoothed
        if form == "mdl":
            a, b = mdl_base, f"mdl:{smoothed}"
            if _nothing_to_discretise(entry, a):
                a, b = base, smoothed
        row = {"set": name}
        for metric in ("log_loss", "zero_one", "fit_s"):
            row[f"{metric} base"] = fold_mean(entry, a, metric)
            row[f"{metric} smoothed"] = fold_mean(entry, b, metric)
        rows.append(row)
    return pd.DataFrame(rows).set_index("set")


def outcome(x, y):
    if not (isinstance(x, float) and isinstance(y, float)):
        return None
    if math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12):
        return "draw"
    return "win" if y < x else "loss"


def summary(table):
    out = {}
    for metric in ("log_loss", "zero_one"):
        results = [
            outcome(x, y)
            for x, y in zip(table[f"{metric} base"], table[f"{metric} smoothed"], strict=True)
        ]
        out[metric] = {k: results.count(k) for k in ("win", "draw", "loss")}
        out[metric]["compared"] = sum(out[metric].values())
    fits = table[["fit_s base", "fit_s smoothed"]].apply(pd.to_numeric, errors="coerce").dropna()
    out["fit s (sum over compared sets)"] = fits.sum().round(2).to_dict()
    return out


def to_markdown(table):
    def cell(v):
        if isinstance(v, float):
            return f"{v:.4g}"
        return "" if v is None else str(v)

    head = ["set", *table.columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, row in table.iterrows():
        lines.append("| " + " | ".join([name, *map(cell, row.tolist())]) + " |")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("results", nargs="+", type=Path, help="uci.py JSON files (merged)")
    parser.add_argument("--base", default=BASE)
    parser.add_argument("--mdl-base", default=MDL_BASE)
    parser.add_argument("--smoothed", default=SMOOTHED)
    parser.add_argument("--markdown", type=Path)
    args = parser.parse_args(argv)
    results = {}
    for path in args.results:
        for name, entry in json.loads(path.read_text()).items():
            results.setdefault(name, {}).update(entry)
    parts = []
    for form in ("raw", "mdl"):
        table = comparison(results, args.base, args.smoothed, form, args.mdl_base)
        stats = summary(table)
        print(f"== {form}: {args.smoothed} against {args.base}")
        with pd.option_context("display.width", 200, "display.max_columns", 10):
            print(table.round(4).to_string())
        print(json.dumps(stats, indent=1))
        parts += [f"### {form}\n", to_markdown(table.round(4)), f"\n{json.dumps(stats)}\n"]
    if args.markdown:
        args.markdown.write_text("\n".join(parts))


if __name__ == "__main__":
    main()
