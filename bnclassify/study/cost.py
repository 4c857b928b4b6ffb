"""The cost study: how the fit time of TAN and Simpler TAN grows with features and rows.

The study argued on paper that Simpler TAN is cheaper to train because it
skips the conditional mutual information (CMI) step. This module measures it
on data from :func:`~bnclassify.datasets.make_tree_classification`: the fit
time of both models as the number of features grows (rows fixed) and as the
number of rows grows (features fixed), TAN's time split into its stages from
``fit_times_``:

- ``encode``: input validation and category codes (the rest of ``fit``);
- ``weights``: for TAN the pairwise class-conditional counts plus the CMI,
  for Simpler TAN only the validation of the contact matrix;
- ``structure``: maximum spanning tree, orientation, class arcs;
- ``parameters``: the CPTs (family counts and smoothing).

Simpler TAN gets the generating tree's adjacency as its contact matrix (a
perfect contact map), so both models fit the same true structure's family.
"""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd

from ..classifiers import TAN, SimplerTAN
from ..datasets import make_tree_classification
from ..metrics import progress_bar
from .figures import figure

__all__ = [
    "DEFAULT_FEATURES",
    "DEFAULT_ROWS",
    "TARGET_RATIO",
    "cost_table",
    "default_cost_study",
    "measure_fit",
    "plot_cost_study",
    "run_cost_study",
    "save_cost_study",
]

#: Feature counts of the "features" sweep (rows fixed).
DEFAULT_FEATURES = (8, 16, 32, 64, 128, 256, 512, 1024)
#: Row counts of the "rows" sweep (features fixed).
DEFAULT_ROWS = (1_000, 10_000, 100_000, 1_000_000)

STAGES = ("encode_s", "weights_s", "structure_s", "parameters_s")
TAN_COLOR, STAN_COLOR = "#0072B2", "#009E73"  # the TAN and Simpler TAN colours of every figure
SHARED_COLOR = "0.6"  # grey: the encoding both models do
_MODELS = ("TAN", "Simpler TAN")


def measure_fit(n_samples, n_features, *, n_categories=4, repeats=1, random_state=0):
    """Fit TAN and Simpler TAN once (or best of ``repeats``) on one synthetic table.

    Parameters
    ----------
    n_samples, n_features : int
        Size of the table drawn from :func:`make_tree_classification`.
    n_categories : int, default=4
    repeats : int, default=1
        Fits per model; the fastest is kept (least disturbed by other load).
    random_state : int, default=0

    Returns
    -------
    list of dict
        One record per model: ``model``, ``n_samples``, ``n_features``,
        ``encode_s``, ``weights_s``, ``structure_s``, ``parameters_s``,
        ``fit_s`` and ``tree_correct`` (whether the learned tree is the
        generating one).

    Examples
    --------
    >>> records = measure_fit(500, 8)
    >>> [r["model"] for r in records]
    ['TAN', 'Simpler TAN']
    >>> all(r["fit_s"] >= r["weights_s"] + r["parameters_s"] for r in records)
    True
    """
    X, y, truth = make_tree_classification(
        n_samples,
        n_features,
        n_categories=n_categories,
        return_network=True,
        random_state=random_state,
    )
    true_edges = set(truth.structure.edges)
    records = []
    for name in _MODELS:
        best = None
        for _ in range(max(1, int(repeats))):
            model = (
                TAN(root=truth.root)
                if name == "TAN"
                else SimplerTAN(truth.adjacency, root=truth.root)
            )
            start = time.perf_counter()
            model.fit(X, y)
            fit_s = time.perf_counter() - start
            if best is None or fit_s < best[0]:
                best = (fit_s, model)
        fit_s, model = best
        stages = model.fit_times_
        records.append(
            {
                "model": name,
                "n_samples": n_samples,
                "n_features": n_features,
                "encode_s": max(fit_s - sum(stages.values()), 0.0),
                "weights_s": stages["weights"],
                "structure_s": stages["structure"],
                "parameters_s": stages["parameters"],
                "fit_s": fit_s,
                "tree_correct": set(model.structure_.edges) == true_edges,
            }
        )
    return records


def run_cost_study(
    features=DEFAULT_FEATURES,
    rows=DEFAULT_ROWS,
    *,
    rows_for_features=10_000,
    features_for_rows=20,
    n_categories=4,
    repeats=1,
    random_state=0,
    progress=None,
):
    """Fit time of TAN and Simpler TAN over a features sweep and a rows sweep.

    Parameters
    ----------
    features : sequence of int
        Numbers of features, each with ``rows_for_features`` rows.
    rows : sequence of int
        Numbers of rows, each with ``features_for_rows`` features.
    rows_for_features : int, default=10_000
    features_for_rows : int, default=20
    n_categories : int, default=4
    repeats : int, default=1
    random_state : int, default=0
    progress : bool, optional
        Progress bar on stderr (default: when stderr is a terminal).

    Returns
    -------
    DataFrame
        The records of :func:`measure_fit` with a ``sweep`` column
        (``"features"`` or ``"rows"``).

    Examples
    --------
    >>> results = run_cost_study(features=(4, 8), rows=(200, 400), rows_for_features=200,
    ...                          features_for_rows=4, progress=False)
    >>> results.groupby("sweep").size().to_dict()
    {'features': 4, 'rows': 4}
    """
    plan = [("features", rows_for_features, m) for m in features]
    plan += [("rows", n, features_for_rows) for n in rows]
    records = []
    measure_fit(200, 4, n_categories=n_categories)  # warm-up: imports, BLAS threads, caches
    with progress_bar(len(plan), progress) as bar:
        for sweep, n, m in plan:
            bar.set_description(f"cost study {n} x {m}")
            for record in measure_fit(
                n, m, n_categories=n_categories, repeats=repeats, random_state=random_state
            ):
                records.append({"sweep": sweep, **record})
            bar.update(1)
    return pd.DataFrame(records)


def _check_results(results):
    needed = ("sweep", "model", "n_samples", "n_features")
    missing = [c for c in needed if c not in getattr(results, "columns", ())]
    if missing:
        raise ValueError(
            f"results must be the table of run_cost_study; it lacks the column(s) {missing}."
        )


def cost_table(results: pd.DataFrame) -> pd.DataFrame:
    """One row per table size: TAN's stages, Simpler TAN's fit, and the ratio of fits.

    Examples
    --------
    >>> results = run_cost_study(features=(4,), rows=(), rows_for_features=200, progress=False)
    >>> list(cost_table(results).columns)  # doctest: +NORMALIZE_WHITESPACE
    ['sweep', 'rows', 'features', 'TAN encode s', 'TAN CMI s', 'TAN tree s', 'TAN CPTs s',
     'TAN fit s', 'Simpler TAN fit s', 'TAN / Simpler TAN']
    """
    _check_results(results)
    tan = results[results.model == "TAN"].set_index(["sweep", "n_samples", "n_features"])
    stan = results[results.model == "Simpler TAN"].set_index(["sweep", "n_samples", "n_features"])
    table = pd.DataFrame(
        {
            "TAN encode s": tan["encode_s"],
            "TAN CMI s": tan["weights_s"],
            "TAN tree s": tan["structure_s"],
            "TAN CPTs s": tan["parameters_s"],
            "TAN fit s": tan["fit_s"],
            "Simpler TAN fit s": stan["fit_s"],
        }
    )
    table["TAN / Simpler TAN"] = table["TAN fit s"] / table["Simpler TAN fit s"]
    table.index = table.index.set_names(["sweep", "rows", "features"])
    return table.reset_index()


#: The ratio asked of Simpler TAN at 1,024 features (drawn on the ratio panel).
TARGET_RATIO = 50


def plot_cost_study(results: pd.DataFrame, axes=None):
    """Fit time against features and against rows, log-log; TAN split into stages.

    The encoding both models do before their structure step (validation and
    category codes, ``encode_s``, the mean of the two models) is the broad
    grey line in each panel: the part of the fit Simpler TAN cannot save.
    Below each panel, the ratio of the two fits (TAN / Simpler TAN) against
    the same axis, with the target of :data:`TARGET_RATIO` on the features
    sweep.

    Parameters
    ----------
    results : DataFrame
        From :func:`run_cost_study`.
    axes : 2 x 2 array of matplotlib Axes, optional
        Times in the first row, ratios in the second; a pair of Axes draws the
        times alone.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> results = run_cost_study(features=(4, 8), rows=(200, 400), rows_for_features=200,
    ...                          features_for_rows=4, progress=False)
    >>> fig = plot_cost_study(results)
    >>> [ax.get_ylabel() for ax in fig.axes]
    ['fit time (seconds)', 'fit time (seconds)', 'TAN / Simpler TAN', 'TAN / Simpler TAN']
    >>> [ax.get_xlabel() for ax in fig.axes[2:]]
    ['features (rows fixed)', 'rows (features fixed)']
    """
    _check_results(results)
    import matplotlib.pyplot as plt
    import numpy as np

    ratio_axes = None
    if axes is None:
        fig, grid = plt.subplots(
            2,
            2,
            figsize=(11, 6.8),
            layout="constrained",
            sharex="col",
            height_ratios=(3, 1.4),
        )
        axes, ratio_axes = grid[0], grid[1]
    else:
        flat = np.ravel(axes)
        axes, ratio_axes = (flat[:2], flat[2:]) if len(flat) == 4 else (flat, None)
        fig = axes[0].figure
    lines = [
        ("TAN", "fit_s", "TAN: whole fit", dict(color=TAN_COLOR, lw=2.2, marker="o")),
        ("TAN", "weights_s", "TAN: counts + CMI", dict(color=TAN_COLOR, ls="--", marker=".")),
        ("TAN", "structure_s", "TAN: spanning tree", dict(color=TAN_COLOR, ls=":", marker=".")),
        ("TAN", "parameters_s", "TAN: CPTs", dict(color=TAN_COLOR, ls="-.", marker=".")),
        (
            "Simpler TAN",
            "fit_s",
            "Simpler TAN: whole fit",
            dict(color=STAN_COLOR, lw=2.2, marker="s"),
        ),
    ]
    sweeps = (
        ("features", "n_features", "features (rows fixed)"),
        ("rows", "n_samples", "rows (features fixed)"),
    )
    for ax, (sweep, x, label) in zip(axes, sweeps, strict=True):
        part = results[results.sweep == sweep]
        # What both models pay before their structure step: validation and category
        # codes, the mean of the two models' measurements, as a broad grey line.
        shared = part.groupby(x)["encode_s"].mean().clip(lower=1e-5)
        if len(shared):
            (band,) = ax.plot(
                shared.index,
                shared.to_numpy(),
                color=SHARED_COLOR,
                lw=7,
                alpha=0.5,
                solid_capstyle="round",
                label="both models: encoding, before the structure step (shared)",
                zorder=0,
            )
            band.bnclassify_role = "shared encoding"
        for model, column, text, style in lines:
            data = part[part.model == model].sort_values(x)
            values = data[column].clip(lower=1e-5)  # log axis: show ~0 stages at the floor
            ax.plot(data[x], values, label=text, **style)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylabel("fit time (seconds)")
        ax.grid(True, which="major", alpha=0.3)
        fixed = part["n_samples" if sweep == "features" else "n_features"]
        if len(fixed):
            what = "rows" if sweep == "features" else "features"
            ax.set_title(f"{what} = {int(fixed.iloc[0]):,}")
        if ratio_axes is None:
            ax.set_xlabel(label)
    if ratio_axes is not None:
        _plot_ratios(ratio_axes, results, sweeps)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=8.5, frameon=False)
    fig.suptitle("Fit time: TAN (by stage) vs Simpler TAN, synthetic tree data, 4 states")
    return fig


def _plot_ratios(axes, results, sweeps):
    """TAN fit / Simpler TAN fit against each sweep's axis, each point labelled."""
    table = cost_table(results)
    for ax, (sweep, _, label) in zip(axes, sweeps, strict=True):
        part = table[table.sweep == sweep]
        x = part["features" if sweep == "features" else "rows"]
        ratio = part["TAN / Simpler TAN"]
        ax.plot(x, ratio, color="0.2", marker="D", ms=4, lw=1.6)
        for xi, ri in zip(x, ratio, strict=True):
            ax.annotate(
                f"{ri:.0f}x" if ri >= 10 else f"{ri:.1f}x",
                (xi, ri),
                textcoords="offset points",
                xytext=(0, 5),
                ha="center",
                fontsize=7.5,
            )
        if sweep == "features":
            ax.axhline(TARGET_RATIO, color=STAN_COLOR, ls="--", lw=1)
            ax.annotate(
                f"target {TARGET_RATIO}x",
                (0.01, TARGET_RATIO),
                xycoords=("axes fraction", "data"),
                textcoords="offset points",
                xytext=(0, 3),
                fontsize=7.5,
                color=STAN_COLOR,
            )
        top = max([TARGET_RATIO if sweep == "features" else 0, *ratio.tolist(), 1.0])
        ax.set_ylim(0, top * 1.3)
        ax.set_xscale("log")
        ax.set_xlabel(label)
        ax.set_ylabel("TAN / Simpler TAN")
        ax.grid(True, which="major", alpha=0.3)


_RUNS: dict = {}


def default_cost_study(quick=False) -> pd.DataFrame:
    """The study's sweep (8..1024 features at 10^4 rows; 10^3..10^6 rows at 20 features).

    Cached, so the figure and the results page share one run (the figure
    uses the latest run, quick or not). ``quick=True`` stops at 256
    features and 10^5 rows.
    """
    if quick not in _RUNS:
        if quick:
            _RUNS[quick] = run_cost_study(
                features=tuple(f for f in DEFAULT_FEATURES if f <= 256),
                rows=tuple(n for n in DEFAULT_ROWS if n <= 100_000),
            )
        else:
            _RUNS[quick] = run_cost_study(repeats=3)
    _RUNS["latest"] = _RUNS[quick]
    return _RUNS[quick]


def save_cost_study(out_dir, results=None, *, tables=True) -> list:
    """Write ``cost_study.png`` and (``tables=True``) ``cost_study.csv`` and ``cost_table.csv``."""
    import matplotlib.pyplot as plt

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if results is None:
        results = _RUNS["latest"] if "latest" in _RUNS else default_cost_study()
    paths = [out / "cost_study.png"]
    fig = plot_cost_study(results)
    fig.savefig(paths[0], dpi=130)
    plt.close(fig)
    if tables:
        paths += [out / "cost_study.csv", out / "cost_table.csv"]
        results.to_csv(paths[1], index=False)
        cost_table(results).to_csv(paths[2], index=False)
    return paths


@figure("cost_study")
def _cost_study_figure(out_dir):
    return save_cost_study(out_dir, tables=False)
