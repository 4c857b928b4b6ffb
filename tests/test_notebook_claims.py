"""The numbers the notebooks' text states, checked against their stored outputs.

The notebooks are committed executed and rendered on the site from those
outputs. When a re-run changes a number (a default changed, a bug was fixed),
the text quoting it must change too: these tests read both from the committed
files, so text and output cannot drift apart. They do not run the notebooks
(nbmake does, in CI).
"""

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def _load(stem):
    (path,) = NOTEBOOKS.glob(f"{stem}_*.ipynb")
    return json.loads(path.read_text(encoding="utf-8"))


def _source(cell):
    return "".join(cell["source"])


def _text_outputs(cell):
    parts = []
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            parts.append("".join(output["text"]))
        elif "text/plain" in output.get("data", {}):
            parts.append("".join(output["data"]["text/plain"]))
    return "\n".join(parts)


def markdown(stem):
    """All markdown of a notebook, one string, every run of white space one space."""
    text = " ".join(_source(c) for c in _load(stem)["cells"] if c["cell_type"] == "markdown")
    return re.sub(r"\s+", " ", text)


def output_of(stem, code_fragment):
    """The stored text output of the one code cell whose source holds ``code_fragment``."""
    cells = [
        c for c in _load(stem)["cells"] if c["cell_type"] == "code" and code_fragment in _source(c)
    ]
    assert len(cells) == 1, f"{stem}: {len(cells)} code cells hold {code_fragment!r}"
    text = _text_outputs(cells[0])
    assert text, f"{stem}: the cell with {code_fragment!r} has no stored text output"
    return text


def number_after(text, label):
    """The first number on the line of ``text`` that starts with (or holds) ``label``."""
    for line in text.splitlines():
        if label in line:
            match = re.search(r"-?\d+(?:\.\d+)?", line[line.index(label) + len(label) :])
            if match:
                return float(match.group(0))
    raise AssertionError(f"no number after {label!r} in:\n{text}")


def row_numbers(text, label):
    """All numbers on the line holding ``label``, after it."""
    for line in text.splitlines():
        if label in line:
            rest = line[line.index(label) + len(label) :]
            return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", rest)]
    raise AssertionError(f"no line with {label!r} in:\n{text}")


def test_every_notebook_is_stored_executed():
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        code = [c for c in cells if c["cell_type"] == "code" and _source(c).strip()]
        assert all(c.get("execution_count") for c in code), f"{path.name} is not executed"
        errors = [o for c in code for o in c.get("outputs", []) if o["output_type"] == "error"]
        assert not errors, f"{path.name} stores an error"


def test_every_plotting_cell_stores_its_figure():
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            source = _source(cell)
            if cell["cell_type"] != "code" or not re.search(r"\bplot_\w+\(|plt\.subplots", source):
                continue
            images = [o for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]
            assert images, f"{path.name}: a plotting cell has no stored figure:\n{source[:200]}"


def test_no_display_maths_glued_to_text():
    # MyST renders $$...$$ only as a paragraph of its own (the site then shows stray $).
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            text = _source(cell)
            for match in re.finditer(r"\$\$.*?\$\$", text, re.S):
                before, after = text[: match.start()], text[match.end() :]
                assert before.strip() == "" or before.rstrip(" ").endswith("\n\n"), (
                    path.name,
                    match.group(0)[:60],
                )
                assert after.strip() == "" or re.match(r" *\n *\n", after), (
                    path.name,
                    match.group(0)[:60],
                )


def test_01_study_numbers_and_corrected_tests():
    text = markdown("01")
    summary = output_of("01", "summary.round(3)")
    nb, stan = row_numbers(summary, "naive Bayes"), row_numbers(summary, "Simpler TAN")
    assert "accuracy 0.808 and CLL −60.69 for naive Bayes" in text
    assert nb[0] == 0.808 and round(nb[4], 2) == -60.69
    assert "0.843 and −52.13 for Simpler TAN" in text
    assert stan[0] == 0.843 and abs(stan[4] + 52.13) < 0.0051

    paired = output_of("01", "corrected_resampled_ttest(").strip().splitlines()
    assert paired[0].split()[-3:] == ["corrected", "t", "p"]
    # rows: accuracy TAN, accuracy Simpler TAN, CLL TAN, CLL Simpler TAN
    tan_acc_p, stan_acc_p, *cll_ps = (float(line.split()[-1]) for line in paired[1:5])
    assert "TAN's accuracy gain (p ≈ 0.03)" in text and round(tan_acc_p, 2) == 0.03
    assert "(p ≈ 0.10)" in text and round(stan_acc_p, 1) == 0.1 and stan_acc_p > 0.05
    assert "both tree models' CLL gains are clear (p < 0.05)" in text
    assert max(cll_ps) < 0.05


def _source_of(stem, code_fragment):
    (cell,) = [
        c for c in _load(stem)["cells"] if c["cell_type"] == "code" and code_fragment in _source(c)
    ]
    return _source(cell)


def test_01_timings_match_the_words():
    text = markdown("01")
    p450_ratio = number_after(output_of("01", "best_fit_times(m, X, y)"), "whole fit:")
    assert "whole fits are about equal" in text and 0.5 < p450_ratio < 2
    wide_ratio = number_after(output_of("01", "measure_fit(2000, 256"), "whole fit:")
    assert "more than ten times faster" in text and wide_ratio > 10


def test_01_next_list_links_every_notebook():
    text = markdown("01").split("## Next")[1]
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        if not path.name.startswith("01_"):
            assert f"]({path.name})" in text, f"01's Next list does not link {path.name}"


def test_02_overlap_support_and_thin_evidence():
    text = markdown("02")
    chance = output_of("02", "p450_chance.round(3)")
    assert number_after(chance, "shared edges") == 3 and "Sharing 3 of 7 edges" in text
    assert round(number_after(chance, "P(chance shares as many)"), 1) == 0.2
    assert "one time in five" in text
    captured = number_after(chance, "CMI captured by the contact tree")
    assert "about 70% of the best attainable total CMI" in text and abs(captured - 0.7) < 0.05
    assert 0.05 < number_after(chance, "P(chance captures as much)") < 0.15  # "one in ten"

    lactamase = output_of("02", "lactamase_chance.round(3)")
    assert "one random tree in eighteen" in text
    assert round(1 / number_after(lactamase, "P(chance captures as much)")) == 18

    differences = output_of("02", "differences.round(3)")
    assert "ttest_rel(" not in _source_of("02", "differences = []")
    assert "difference is not significant" in text
    p_block = differences.strip().split("\n\n")[-1]  # pandas wraps the p column below
    cll_ps = [float(line.split()[-1]) for line in p_block.splitlines() if " cll " in line]
    assert p_block.split()[0] == "p" and len(cll_ps) == 2 and min(cll_ps) > 0.05

    support = output_of("02", "support.round(2)")
    assert "block 4's parent over the 955 chimeras: {'1': 421, '2': 8, '3': 526}" in support
    assert "**8 of the 955 chimeras**" in text
    learned = [row_numbers(line, "True")[0] for line in support.splitlines() if " True " in line]
    assert len(learned) == 7 and min(learned) > 0.3
    assert "every learned edge keeps a posterior above 0.3" in text
    hub = [row_numbers(support, name) for name in ("block2–block4", "block3–block4")]
    assert all(chosen < 0.25 and s1 > 0.85 for chosen, s1 in hub)
    assert "design" in text and "selection" in text  # the library, not only contacts


def test_05_rank_agreement():
    text = markdown("05")
    taus = output_of("05", "agreement(p450_table)")
    assert number_after(taus, "NB vs TAN") == 0.86 and "Kendall τ = 0.86" in text
    # The KernelExplainer comparison is one draw (a cell tagged sampled): the text states
    # ranges over draws, and the stored draw lies within them.
    comparison = output_of("05", "Kendall tau of the blocks' mean |SHAP|\": kendalltau(")
    assert round(number_after(comparison, "Kendall tau of the blocks' mean |SHAP|"), 2) in (
        1.0,
        0.93,
    )
    assert "Kendall τ = 1.00 on most draws, 0.93 on the others: one pair out of 28" in text
    assert 0.16 <= number_after(comparison, "largest |difference| / largest |exact value|") <= 1
    assert "off by 16% to 100% of the largest exact value" in text
    assert 0.004 <= number_after(comparison, "share of values off by more than 0.25") <= 0.015
    assert "0.4% to 1.5% of the values are off by more than 0.25" in text
    assert number_after(comparison, "with the opposite sign") <= 0.016
    assert "at most 1.6% of the clear values change sign" in text


def test_07_spreads_and_gaps():
    text = markdown("07")
    results = output_of("07", "results.round(4)")
    nb, gauss = row_numbers(results, "NB"), row_numbers(results, "Gaussian TAN")
    disc = row_numbers(results, "discretised TAN")
    assert "worth about five points of accuracy" in text and 0.04 < gauss[0] - nb[0] < 0.06
    assert f"({disc[2]:.3f} against {nb[2]:.3f}-{gauss[2]:.3f})" in text
    spreads = output_of("07", "iris_sd = results")
    low, high = row_numbers(spreads, "iris fold sd:")
    assert "standard deviation is 0.04 to 0.07" in text and 0.035 < low and high < 0.075
    assert "write-up handed to this project" not in text
    splits = output_of("07", "splits.round(4)")
    low, high = row_numbers(splits, "NB over 5 seeds:")
    assert "between about 0.82 and 0.86" in text and 0.815 < low and high < 0.87


def test_09_evidence_is_weak_and_both_priors_shown():
    text = markdown("09")
    evidence = output_of("09", "informed.log_evidence_grid_")
    log_bf = number_after(evidence, "log Bayes factor vs uniform =")
    assert "log Bayes factor of about 1 nat" in text and 0.5 < log_bf < 1.5
    assert 'under about 3 is "barely worth mentioning"' in text
    held = output_of("09", "contact_edges = [")
    values = [float(v) for v in re.findall(r": (\d+\.\d+)", held)]
    assert len(values) == 2 and values[0] < values[1]  # the prior adds to the contact edges
    assert "uniform prior over trees ($\\lambda = 0$)" in text
    assert "8 of 955 chimeras" in text


@pytest.mark.parametrize("stem", ["01", "02", "07", "09"])
def test_corrected_test_not_plain_ttest(stem):
    code = "\n".join(_source(c) for c in _load(stem)["cells"] if c["cell_type"] == "code")
    assert "ttest_rel(" not in code
