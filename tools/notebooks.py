"""Run the notebooks fresh, compare their outputs with the stored ones, re-store them.

The site renders the notebooks' *stored* outputs (``docs/conf.py`` never runs
them), so an output that a change of the library made stale would ship. This
module is the guard and the cure:

- ``python tools/notebooks.py --check`` runs every notebook in a fresh kernel
  and fails, listing cell and output, where a fresh output differs from the
  stored one (``tests/test_notebooks.py`` does the same per notebook in the
  suite, so CI fails on a stale notebook);
- ``python tools/notebooks.py --store`` runs them and writes the fresh
  outputs into the files (``--keep-timings`` keeps the stored outputs of the
  cells tagged ``timings``, for a run on a loaded machine).

What is *not* compared, and why (everything else must match exactly):

- standard error (progress bars, which draw with carriage returns and
  depend on the terminal and on timing);
- memory addresses (``0x7f...``, new in every process);
- the numbers of a cell tagged ``timings`` or ``sampled`` (cell metadata
  ``"tags"``): every number is replaced by ``#`` (and each run of spaces by
  one, as a table's columns widen with its numbers) and only the words and
  the layout are compared; its figures are compared by size only. A
  ``timings`` cell prints wall-clock measurements. A ``sampled`` cell prints
  the draws of a sampler inside another library that a seed does not fix
  across that library's releases (shap's ``KernelExplainer`` draws its
  coalitions from numpy's global generator and selects features with a
  scikit-learn LARS path: the same seed gives other numbers under another
  shap or scikit-learn); its claim is kept by its own ``assert`` statements,
  bounds that hold over many draws (``tests/test_notebooks.py`` checks that
  every such cell asserts);
- figures are compared as pictures, not bytes: decoded to pixels, equal size,
  and at most ``MAX_DIFFERENT_PIXELS`` of the pixels differing (a moved node,
  a new root, a changed bar moves far more; font hinting on another machine
  moves fewer);
- the pixels of a figure drawn by other releases of the drawing libraries
  (``DRAWING_LIBRARIES``): ``--store`` records their versions in the
  notebook's metadata (``"figures_drawn_with"``), and a run under other
  versions checks that each figure is there but not its pixels. Another
  matplotlib release hints and lays out text differently (matplotlib 3.9
  against 3.11: figures one to six pixels narrower or wider, 1% to 11% of the
  pixels different), so a pixel comparison across releases would fail on
  every figure with text; the printed numbers are still compared.

Draws the notebook makes itself need no exception: it seeds them
(``np.random.default_rng(seed)``, ``random_state=`` of scikit-learn's
splitters), whose streams numpy and scikit-learn keep across releases, so a
fresh run prints the same numbers.
"""

from __future__ import annotations

import argparse
import base64
import copy
import io
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
TIMINGS_TAG = "timings"
SAMPLED_TAG = "sampled"
MAX_DIFFERENT_PIXELS = 0.002  # share of a figure's pixels
#: The libraries whose releases draw the stored figures (``drawn_with``).
DRAWING_LIBRARIES = ("matplotlib", "shap", "networkx")
DRAWN_WITH = "figures_drawn_with"  # the notebook metadata key that records their versions
CELL_TIMEOUT = 900  # seconds; the slowest cell (notebook 01's wide fit) takes about 10
ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
NUMBER = re.compile(r"-?\d+(?:[.,]\d+)*(?:e[-+]?\d+)?")


@dataclass(frozen=True)
class Difference:
    """One output of one code cell that a fresh run does not reproduce."""

    notebook: str
    cell: int  # position among all cells, from 0
    what: str  # "text/plain", "image/png", "stdout", "number of outputs", ...
    stored: str
    fresh: str

    def __str__(self):
        return (
            f"{self.notebook} cell {self.cell} ({self.what}):\n"
            f"  stored: {_clip(self.stored)}\n  fresh:  {_clip(self.fresh)}"
        )


def _clip(text, width=300):
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[:width] + " ..."


def execute(path, *, timeout=CELL_TIMEOUT):
    """The notebook at ``path`` run top to bottom in a fresh kernel (the file is not written).

    The kernel starts in the notebook's folder, as Jupyter starts it, and draws
    figures inline whatever ``MPLBACKEND`` the caller set (CI sets ``Agg``, which
    would store no figure).
    """
    import os

    import nbformat
    from nbclient import NotebookClient

    path = Path(path)
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    env = {**os.environ, "MPLBACKEND": "module://matplotlib_inline.backend_inline"}
    client.execute(env=env)
    return notebook


def _tags(cell) -> list:
    return cell.get("metadata", {}).get("tags", [])


def _is_timed(cell) -> bool:
    return TIMINGS_TAG in _tags(cell)


def _numbers_vary(cell) -> bool:
    """Whether a fresh run may print other numbers: a timed or a sampled cell."""
    return bool({TIMINGS_TAG, SAMPLED_TAG} & set(_tags(cell)))


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _normal_text(text, vary) -> str:
    text = ADDRESS.sub("0x#", text)
    # a table's columns widen with its numbers: the layout is compared up to the widths
    return re.sub(r"[ \t]+", " ", NUMBER.sub("#", text)) if vary else text


def _comparable_outputs(cell, vary):
    """(what, value) pairs of a code cell's outputs, standard error left out."""
    pairs = []
    for output in cell.get("outputs", []):
        kind = output["output_type"]
        if kind == "stream":
            if output.get("name") == "stdout":
                pairs.append(("stdout", _normal_text(_text(output["text"]), vary)))
        elif kind == "error":
            pairs.append(("error", f"{output['ename']}: {output['evalue']}"))
        else:
            data = output.get("data", {})
            for mime in sorted(data):
                if mime.startswith("image/"):
                    pairs.append((mime, data[mime]))
                elif mime in ("text/plain", "text/html", "text/markdown", "text/latex"):
                    pairs.append((mime, _normal_text(_text(data[mime]), vary)))
    # Consecutive stdout pieces are one stream however the kernel flushed them.
    merged = []
    for what, value in pairs:
        if merged and what == "stdout" and merged[-1][0] == "stdout":
            merged[-1] = ("stdout", merged[-1][1] + value)
        else:
            merged.append((what, value))
    return merged


def _pixels(png_base64):
    import matplotlib.image

    return matplotlib.image.imread(io.BytesIO(base64.b64decode(_text(png_base64))), format="png")


def images_differ(stored, fresh, *, size_only=False) -> str | None:
    """Why two base64 PNGs are not the same picture, or ``None`` when they are."""
    import numpy as np

    if _text(stored) == _text(fresh):
        return None
    a, b = _pixels(stored), _pixels(fresh)
    if a.shape != b.shape:
        return f"size {a.shape[1]}x{a.shape[0]} -> {b.shape[1]}x{b.shape[0]} px"
    if size_only:
        return None
    share = float(np.any(np.abs(a - b) > 1 / 64, axis=-1).mean()) if a.ndim == 3 else 0.0
    if share > MAX_DIFFERENT_PIXELS:
        return f"{share:.2%} of the pixels differ"
    return None


def drawn_with() -> dict:
    """The versions of the drawing libraries installed here, as ``--store`` records them."""
    from importlib.metadata import version

    return {name: version(name) for name in DRAWING_LIBRARIES}


def differences(stored, fresh, name="notebook", *, drawing=None) -> list[Difference]:
    """The code-cell outputs of ``stored`` that ``fresh`` (the same notebook, run) differs in.

    ``drawing`` is :func:`drawn_with` of the run (by default this process's): the
    pixels of the figures are compared only when the stored notebook records the
    same versions (or records none).
    """
    recorded = stored.metadata.get(DRAWN_WITH)
    same_drawing = recorded is None or recorded == (drawn_with() if drawing is None else drawing)
    found = []
    if len(stored.cells) != len(fresh.cells):
        raise ValueError(f"{name}: {len(stored.cells)} cells stored, {len(fresh.cells)} run")
    for index, (old, new) in enumerate(zip(stored.cells, fresh.cells, strict=True)):
        if old.cell_type != "code":
            continue
        vary = _numbers_vary(old)  # the stored cell's tags: the run's copy has the same
        before, after = _comparable_outputs(old, vary), _comparable_outputs(new, vary)
        if [what for what, _ in before] != [what for what, _ in after]:
            found.append(
                Difference(
                    name,
                    index,
                    "outputs",
                    ", ".join(what for what, _ in before) or "none",
                    ", ".join(what for what, _ in after) or "none",
                )
            )
            continue
        for (what, value), (_, fresh_value) in zip(before, after, strict=True):
            if what.startswith("image/"):
                if not same_drawing:
                    continue  # there is a figure; its pixels belong to other releases
                why = images_differ(value, fresh_value, size_only=vary)
                if why:
                    found.append(Difference(name, index, what, "stored figure", why))
            elif value != fresh_value:
                found.append(Difference(name, index, what, value, fresh_value))
    return found


def check(path) -> list[Difference]:
    """Run the notebook at ``path`` and list where its stored outputs are stale."""
    import nbformat

    stored = nbformat.read(path, as_version=4)
    return differences(stored, execute(path), Path(path).name)


def store(path, *, keep_timings=False) -> None:
    """Run the notebook at ``path`` and write it back with the fresh outputs.

    With ``keep_timings``, a cell tagged ``timings`` whose source is unchanged
    keeps its stored outputs: wall-clock numbers measured on a quiet machine
    are not replaced by a loaded machine's (the check compares only their words).
    """
    import nbformat

    stored = nbformat.read(path, as_version=4)
    fresh = execute(path)
    if keep_timings:
        before = {c.source: c for c in stored.cells if c.cell_type == "code" and _is_timed(c)}
        for cell in fresh.cells:
            if cell.cell_type == "code" and _is_timed(cell) and cell.source in before:
                cell.outputs = before[cell.source].outputs
    # The run's own bookkeeping (per-cell execution timestamps) would change every file.
    for cell in fresh.cells:
        cell.get("metadata", {}).pop("execution", None)
    fresh.metadata[DRAWN_WITH] = drawn_with()
    nbformat.write(copy.deepcopy(fresh), path)


def notebook_paths(names=()) -> list[Path]:
    """The notebooks named (by file name or number prefix), or every notebook."""
    paths = sorted(NOTEBOOKS.glob("*.ipynb"))
    if not names:
        return paths
    chosen = [p for p in paths if any(p.name == n or p.name.startswith(f"{n}_") for n in names)]
    unknown = [
        n for n in names if not any(p.name == n or p.name.startswith(f"{n}_") for p in paths)
    ]
    if unknown:
        raise ValueError(f"no notebook named {', '.join(unknown)} in {NOTEBOOKS}")
    return chosen


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tools/notebooks.py",
        description="Run the notebooks and compare (--check) or re-store (--store) their outputs.",
    )
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--check", action="store_true", help="fail where an output is stale")
    action.add_argument("--store", action="store_true", help="write the fresh outputs")
    parser.add_argument(
        "--keep-timings",
        action="store_true",
        help="with --store: cells tagged timings keep their stored outputs (a loaded machine)",
    )
    parser.add_argument("names", nargs="*", help="notebooks by file name or number (01 ... 10)")
    args = parser.parse_args(argv)
    try:
        paths = notebook_paths(args.names)
    except ValueError as error:
        print(f"notebooks: error: {error}", file=sys.stderr)
        return 2
    stale = 0
    for path in paths:
        if args.store:
            store(path, keep_timings=args.keep_timings)
            print(f"stored {path.relative_to(ROOT)}")
            continue
        found = check(path)
        stale += bool(found)
        print(f"{path.name}: {'stale' if found else 'up to date'}")
        for difference in found:
            print(f"  {difference}")
    if stale:
        print(f"{stale} stale notebook(s): python tools/notebooks.py --store re-stores them")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
