"""Regenerate the repository's study numbers: ``figures/``, ``docs/results.md`` and the README.

Run from a source checkout::

    python tools/regenerate.py            # everything (a few minutes)
    python tools/regenerate.py --quick    # a smaller cost study

It reruns the study through :func:`bnclassify.study.reproduce` (the results
page and every figure), then rewrites the README's blocks between
``<!-- bnclassify:results:start -->`` / ``...:end -->`` and
``<!-- bnclassify:cost:start -->`` / ``...:end -->``, and nothing else of it.
This tooling lives outside the installed package: ``bnclassify reproduce``
writes into a user's folders and never touches a README.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import matplotlib

from bnclassify.study import cost as cost_study
from bnclassify.study.evaluation import comparison_table, format_table, study_runs
from bnclassify.study.notes import tan_flaw_note
from bnclassify.study.report import reproduce

ROOT = Path(__file__).resolve().parent.parent
START = "<!-- bnclassify:{name}:start -->"
END = "<!-- bnclassify:{name}:end -->"


def update_marked_block(path, name, content) -> bool:
    """Replace the text between ``<!-- bnclassify:NAME:start -->`` and ``...:end -->``.

    Returns whether the file changed. Raises ``ValueError`` if the markers
    are missing, so a README without them is never silently rewritten.
    """
    path = Path(path)
    text = path.read_text()
    start, end = START.format(name=name), END.format(name=name)
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), flags=re.DOTALL)
    if not pattern.search(text):
        raise ValueError(f"{path}: no block {start} ... {end} to rewrite.")
    new = pattern.sub(lambda _: f"{start}\n{content.strip()}\n{end}", text, count=1)
    if new != text:
        path.write_text(new)
    return new != text


def readme_results_block(evaluations: dict) -> str:
    """Short tables (accuracy and CLL, ours beside the study's) and the note on TAN."""
    parts = []
    for label, (dataset, evaluation) in evaluations.items():
        table = comparison_table(evaluation.summary, dataset)
        keep = ["accuracy", "study accuracy", "CLL", "study CLL", "F1", "fit ms"]
        parts.append(f"**{label}**\n\n{format_table(table[keep], 'markdown')}")
    flaw = {k: v for k, v in evaluations.items() if not k.startswith("lactamase (553")}
    parts.append("**What the study's TAN tree changes**\n\n" + tan_flaw_note(flaw))
    return "\n\n".join(parts)


def readme_cost_block(cost) -> str:
    """The cost study's headline numbers and the figure."""
    table = cost_study.cost_table(cost)
    wide = table[table.sweep == "features"].sort_values("features").iloc[-1]
    tall = table[table.sweep == "rows"].sort_values("rows").iloc[-1]
    cmi_share = wide["TAN CMI s"] / wide["TAN fit s"]
    return (
        "![Fit time of TAN by stage and of Simpler TAN](figures/cost_study.png)\n\n"
        f"At {int(wide.features):,} features x {int(wide.rows):,} rows TAN fits in "
        f"{wide['TAN fit s']:.2f} s, {cmi_share:.0%} of it in the pairwise counts and CMI; "
        f"Simpler TAN fits in {wide['Simpler TAN fit s']:.3f} s "
        f"({wide['TAN / Simpler TAN']:.0f}x less). At {int(tall.rows):,} rows x "
        f"{int(tall.features)} features: TAN {tall['TAN fit s']:.2f} s, Simpler TAN "
        f"{tall['Simpler TAN fit s']:.2f} s ({tall['TAN / Simpler TAN']:.1f}x). "
        "Full table: [docs/results.md](docs/results.md#cost-study). One run on int64 "
        "arrays: the speed-up's measured statement, per input form, is "
        "[docs/benchmarks.md](docs/benchmarks.md#simpler-tan-at-1024-features)."
    )


def regenerate(
    *,
    readme=ROOT / "README.md",
    results=ROOT / "docs" / "results.md",
    figures_dir=ROOT / "figures",
    quick=False,
    figures=True,
    progress=None,
) -> list:
    """Rerun the study, write the results page and figures, rewrite the README's blocks.

    The README's markers are checked before the (long) run, so a README
    without them fails at once and is left as it was.
    """
    readme = Path(readme)
    for name in ("results", "cost"):
        _current_block(readme, name)
    written = reproduce(
        figures_dir=figures_dir,
        results_path=results,
        quick=quick,
        figures=figures,
        progress=progress,
    )
    cost = cost_study.default_cost_study(quick=quick)  # cached: the run reproduce made
    update_marked_block(readme, "results", readme_results_block(study_runs(progress)))
    update_marked_block(readme, "cost", readme_cost_block(cost))
    return [*written, readme]


def _current_block(path, name) -> str:
    """The text of a marked block as it stands (raises ValueError if the markers are missing)."""
    start, end = START.format(name=name), END.format(name=name)
    match = re.search(re.escape(start) + r"(.*?)" + re.escape(end), Path(path).read_text(), re.S)
    if match is None:
        raise ValueError(f"{path}: no block {start} ... {end} to rewrite.")
    return match.group(1)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tools/regenerate.py",
        description="Regenerate figures/, docs/results.md and the README's study numbers.",
    )
    parser.add_argument("--readme", type=Path, default=ROOT / "README.md")
    parser.add_argument("--results", type=Path, default=ROOT / "docs" / "results.md")
    parser.add_argument("--figures", type=Path, default=ROOT / "figures")
    parser.add_argument("--quick", action="store_true", help="a smaller cost study")
    parser.add_argument("--no-figures", action="store_true", help="tables only")
    parser.add_argument("--no-progress", dest="progress", action="store_false", default=None)
    args = parser.parse_args(argv)
    matplotlib.use("Agg")
    try:
        written = regenerate(
            readme=args.readme,
            results=args.results,
            figures_dir=args.figures,
            quick=args.quick,
            figures=not args.no_figures,
            progress=args.progress,
        )
    except ValueError as error:
        print(f"regenerate: error: {error}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
