"""Every notebook, run fresh, prints and draws what it stores (tools/notebooks.py).

The site renders the stored outputs, so a notebook whose outputs a change of
the library made stale fails here, naming the cell; ``python tools/notebooks.py
--store NAME`` re-stores it. What the comparison leaves aside (standard error,
memory addresses, the numbers of cells tagged ``timings`` or ``sampled``, figures
within a few pixels, the pixels of figures drawn by other matplotlib, shap or
networkx releases) is listed in that module's docstring.
"""

import base64
import importlib.util
import io
import sys
from pathlib import Path

import matplotlib.pyplot as plt
import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool():
    """``tools/notebooks.py`` of the checkout, imported by path (it is not installed)."""
    spec = importlib.util.spec_from_file_location(
        "bnclassify_notebooks_tool", ROOT / "tools" / "notebooks.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


notebooks = _tool()


@pytest.mark.slow
@pytest.mark.parametrize("path", notebooks.notebook_paths(), ids=lambda p: p.stem)
def test_a_fresh_run_reproduces_the_stored_outputs(path):
    found = notebooks.check(path)
    assert not found, (
        "\n".join(str(d) for d in found)
        + f"\nstale outputs: python tools/notebooks.py --store {path.name[:2]}"
    )


# -- the comparison itself, on notebooks built here -----------------------------------------
def _notebook(*cells):
    return nbformat.v4.new_notebook(cells=list(cells))


def _cell(source, outputs, tags=()):
    cell = nbformat.v4.new_code_cell(source, outputs=outputs)
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


def _stdout(text):
    return nbformat.v4.new_output("stream", name="stdout", text=text)


def _png(color, size=(2, 2)):
    figure = plt.figure(figsize=size, dpi=20)
    figure.patch.set_facecolor(color)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", facecolor=color)
    plt.close(figure)
    return nbformat.v4.new_output(
        "display_data", data={"image/png": base64.b64encode(buffer.getvalue()).decode()}
    )


def test_a_changed_number_is_stale_unless_the_cell_is_timed():
    stored = _notebook(_cell("x", [_stdout("TAN answer 0.4 in 1.2 s\n")]))
    fresh = _notebook(_cell("x", [_stdout("TAN answer 0.377 in 3.4 s\n")]))
    (difference,) = notebooks.differences(stored, fresh, "nb")
    assert difference.cell == 0 and difference.what == "stdout"
    assert "0.377" in str(difference)
    stored.cells[0].metadata["tags"] = ["timings"]
    assert notebooks.differences(stored, fresh, "nb") == []


def test_a_sampled_cell_is_compared_by_its_words():
    # a sampler inside another library draws other numbers under another release
    fresh = _notebook(_cell("x", [_stdout("Kendall tau 0.929\n")]))
    assert notebooks.differences(_notebook(_cell("x", [_stdout("Kendall tau 1.000\n")])), fresh)
    stored = _notebook(_cell("x", [_stdout("Kendall tau 1.000\n")], tags=["sampled"]))
    assert notebooks.differences(stored, fresh) == []
    (reworded,) = notebooks.differences(stored, _notebook(_cell("x", [_stdout("tau 1.0\n")])))
    assert reworded.what == "stdout"


def test_every_sampled_cell_asserts_its_claim():
    # its numbers are not compared: the bounds it states must be checked where it runs
    for path in notebooks.notebook_paths():
        for index, cell in enumerate(nbformat.read(path, as_version=4).cells):
            if notebooks.SAMPLED_TAG in cell.get("metadata", {}).get("tags", []):
                assert cell.cell_type == "code" and "\nassert " in "\n" + cell.source, (
                    f"{path.name} cell {index} is tagged sampled and asserts nothing"
                )


def test_figures_of_other_drawing_releases_are_compared_by_presence():
    stored = _notebook(_cell("plot", [_png("white")]))
    stored.metadata[notebooks.DRAWN_WITH] = {"matplotlib": "3.9.4", "shap": "0.47.2"}
    same = {"matplotlib": "3.9.4", "shap": "0.47.2"}
    black = _notebook(_cell("plot", [_png("black")]))
    assert notebooks.differences(stored, black, drawing=same)  # the releases that drew it
    assert not notebooks.differences(stored, black, drawing={**same, "matplotlib": "3.11.2"})
    (gone,) = notebooks.differences(
        stored, _notebook(_cell("plot", [])), drawing={**same, "matplotlib": "3.11.2"}
    )
    assert gone.what == "outputs"
    assert set(notebooks.drawn_with()) == set(notebooks.DRAWING_LIBRARIES)


def test_addresses_and_standard_error_are_not_compared():
    stored = _notebook(
        _cell(
            "x",
            [
                _stdout("<Graph at 0x7f3a2b1c9d00>\n"),
                nbformat.v4.new_output("stream", name="stderr", text="10%"),
            ],
        )
    )
    fresh = _notebook(_cell("x", [_stdout("<Graph at 0x7f00aa11bb22>\n")]))
    assert notebooks.differences(stored, fresh) == []


def test_a_missing_or_different_figure_is_stale():
    stored = _notebook(_cell("plot", [_png("white")]))
    assert notebooks.differences(stored, _notebook(_cell("plot", [_png("white")]))) == []
    (changed,) = notebooks.differences(stored, _notebook(_cell("plot", [_png("black")])))
    assert changed.what == "image/png" and "pixels differ" in changed.fresh
    (resized,) = notebooks.differences(stored, _notebook(_cell("plot", [_png("white", (3, 2))])))
    assert "size" in resized.fresh
    (gone,) = notebooks.differences(stored, _notebook(_cell("plot", [])))
    assert gone.what == "outputs" and gone.fresh == "none"


def test_a_stale_notebook_fails_the_check_when_run(tmp_path):
    path = tmp_path / "stale.ipynb"
    timed = _cell('print("took", 1.5, "s")', [_stdout("took 0.1 s\n")], tags=["timings"])
    nbformat.write(_notebook(_cell("print(1 + 1)", [_stdout("3\n")]), timed), path)
    (difference,) = notebooks.check(path)  # the timed cell's number is not compared
    assert (difference.cell, difference.stored, difference.fresh) == (0, "3\n", "2\n")
    notebooks.store(path, keep_timings=True)
    assert notebooks.check(path) == []
    stored = nbformat.read(path, as_version=4)
    assert stored.metadata[notebooks.DRAWN_WITH] == notebooks.drawn_with()
    assert stored.cells[1].outputs[0]["text"] == "took 0.1 s\n"  # kept
    notebooks.store(path)
    assert nbformat.read(path, as_version=4).cells[1].outputs[0]["text"] == "took 1.5 s\n"
