"""The figure registry and ``python -m bnclassify.study.figures``."""

import matplotlib

matplotlib.use("Agg")

import subprocess  # noqa: E402
import sys  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from bnclassify.study import figures  # noqa: E402

OWN = [
    "car_inference",
    "p450_tree_comparison",
    "p450_structures",
    "p450_weights",
    "lactamase_tree_comparison",
    "lactamase_structures",
    "lactamase_weights",
    "p450_cpt",
]
PNG = b"\x89PNG\r\n\x1a\n"


def test_make_figures_writes_pngs_into_a_fresh_directory(tmp_path):
    # one figure of each kind (the others differ only by data set)
    names = ["p450_tree_comparison", "lactamase_structures", "p450_weights", "p450_cpt"]
    out = tmp_path / "new" / "figures"
    paths = figures.make_figures(out, names=names)
    assert [p.name for p in paths] == [
        "p450_tree_comparison.png",
        "lactamase_naive_bayes_structure.png",
        "lactamase_tan_structure.png",
        "lactamase_simpler_tan_structure.png",
        "p450_weights.png",
        "p450_cpt_block7.png",
    ]
    assert sorted(out.iterdir()) == sorted(paths)
    for path in paths:
        assert path.read_bytes()[:8] == PNG
        assert plt.imread(path).shape[0] > 300
    assert not plt.get_fignums()  # every figure closed after saving


def test_registry_is_complete_and_names_are_checked():
    loaded = figures.load_figure_modules()
    assert set(OWN) <= set(figures.FIGURES)
    expected_elsewhere = {
        "bnclassify.study.shap_figures": "shap",
        "bnclassify.study": "cv_results",
        "bnclassify.study.cost": "cost_study",
    }
    for module, name in expected_elsewhere.items():
        assert (module in loaded) == (name in figures.FIGURES)
    with pytest.raises(ValueError, match=r"Unknown figure\(s\) \['nope'\]"):
        figures.make_figures("unused", names=["nope"])


def test_a_name_cannot_be_taken_twice():
    @figures.figure("test_only_figure")
    def first(out_dir):
        return []

    try:
        figures.figure("test_only_figure")(first)  # the same function again: fine
        with pytest.raises(ValueError, match="already registered"):

            @figures.figure("test_only_figure")
            def second(out_dir):
                return []
    finally:
        del figures.FIGURES["test_only_figure"]


def test_missing_modules_are_skipped_broken_ones_raise(tmp_path, monkeypatch):
    (tmp_path / "bnc_broken_figs.py").write_text("import bnc_no_such_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert figures.load_figure_modules(["bnc_no_such_module"]) == []
    with pytest.raises(ModuleNotFoundError, match="bnc_no_such_dependency"):
        figures.load_figure_modules(["bnc_broken_figs"])


def test_command_line(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "bnclassify.study.figures", "--list"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert set(OWN) <= set(done.stdout.split())
    assert figures.main(["p450_cpt", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "p450_cpt_block7.png").read_bytes()[:8] == PNG


def test_cost_study_figure_labels_both_axes_and_marks_the_shared_encoding():
    from bnclassify.study.cost import plot_cost_study, run_cost_study

    results = run_cost_study(
        features=(4, 8), rows=(200, 400), rows_for_features=200, features_for_rows=4, progress=False
    )
    fig = plot_cost_study(results)
    sweeps = (("features", "n_features"), ("rows", "n_samples"))
    for ax, (sweep, x) in zip(fig.axes[:2], sweeps, strict=True):
        assert ax.get_ylabel() == "fit time (seconds)"
        (band,) = [
            line for line in ax.lines if getattr(line, "bnclassify_role", None) == "shared encoding"
        ]
        expected = results[results.sweep == sweep].groupby(x)["encode_s"].mean().clip(lower=1e-5)
        assert list(band.get_ydata()) == pytest.approx(list(expected))
        assert "shared" in band.get_label()
    plt.close(fig)
