"""The ``bnclassify`` command: compare classifiers, regenerate figures, reproduce the study.

Subcommands
-----------
compare     cross-validate NB, TAN, Simpler TAN (and the other structures) on a
            bundled data set or a CSV file; prints the table with each model's
            difference to ``--baseline`` (NB) and its corrected p-value,
            ``--repeats R`` reshuffles the K folds R times, ``--out`` writes
            CSV/JSON and a figure; ``--save-model DIR`` also fits each compared
            model on the whole data and writes it to ``DIR/<model>.bnc`` (a
            :mod:`bnclassify.io` model file)
figures     write the registered figures (``bnclassify.study.figures``) to a folder
predict     ``--model PATH --csv FILE [--out FILE]``: load a model file and write
            each row's predicted class and per-class probabilities as CSV
cost        the cost study: fit time of TAN vs Simpler TAN as features and rows grow
reproduce   everything the README reports: the P450 and lactamase comparisons,
            the cost study, ``docs/results.md``, the README's results blocks and
            ``figures/``

Bad input (a missing file, an unknown column, a contact matrix that does not
fit the data) ends with one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

EXIT_USAGE = 2

#: Exceptions that mean "bad input": reported in one line, no traceback. (Loaders and
#: estimators raise ValueError naming the column and value; others are bugs.)
INPUT_ERRORS = (OSError, ValueError, pd.errors.ParserError)


class InputError(Exception):
    """Bad input found by the command itself (reported in one line)."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line (and exits 2)."""

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# -- compare -------------------------------------------------------------------------------------
def _read_contact_matrix(path, features) -> pd.DataFrame:
    from ..structure import check_weight_matrix

    path = Path(path)
    if not path.is_file():
        raise InputError(f"contact matrix file not found: {path}")
    try:
        matrix = pd.read_csv(path, index_col=0)
    except pd.errors.EmptyDataError:
        raise InputError(f"contact matrix file {path} is empty.") from None
    if matrix.shape[0] != matrix.shape[1]:
        plain = pd.read_csv(path)  # a header row but no label column
        if plain.shape[0] == plain.shape[1]:
            matrix = plain.set_axis(plain.columns, axis=0)
    try:
        return check_weight_matrix(matrix, features, name=f"contact matrix {path}")
    except (ValueError, TypeError) as error:
        raise InputError(str(error)) from None


def _finite_alpha(text) -> float:
    """``--alpha``: a finite number >= 0 (argparse reports anything else, exit 2)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--alpha must be a number, got {text!r}") from None
    if not np.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"--alpha must be a finite number >= 0, got {text!r}")
    return value


def _load(args):
    """(name, X, y, contact matrix or None) from --dataset or --csv."""
    from .. import datasets
    from . import load_study_dataset

    if args.csv is not None:
        path = Path(args.csv)
        if not path.is_file():
            raise InputError(f"data file not found: {path}")
        try:
            bunch = datasets.load_csv(path, target=args.target, kinds=args.kinds)
        except pd.errors.EmptyDataError:
            raise InputError(f"{path} is empty: expected a header row and data rows.") from None
        except UnicodeDecodeError as error:
            raise InputError(
                f"{path} is not UTF-8 text ({error.reason} at byte {error.start}); "
                "re-save it as UTF-8."
            ) from None
        if args.target is not None:
            print(f"target: {bunch.target.name!r} (--target)")
        else:
            print(f"target: {bunch.target.name!r} (the last column; choose another with --target)")
        n_classes, n_rows = bunch.target.nunique(), len(bunch.target)
        if n_classes > 0.5 * n_rows:
            print(
                f"warning: the target {bunch.target.name!r} has {n_classes} classes in {n_rows} "
                "rows: it looks like an ID or a feature, not a class; pass --target."
            )
        name = path.stem
        contact = None
    else:
        if args.target is not None:
            raise InputError("--target only applies to --csv.")
        name = args.dataset
        bunch = load_study_dataset(name)
        contact = bunch.get("contact_matrix")
    if args.contact is not None:
        contact = _read_contact_matrix(args.contact, list(bunch.data.columns))
    return name, bunch.data, bunch.target, contact


def _select(models: dict, wanted) -> dict:
    if not wanted:
        return models
    by_key = {name.lower(): name for name in models}
    chosen = {}
    for item in wanted.split(","):
        key = item.strip().lower()
        if key not in by_key:
            raise InputError(f"unknown model {item.strip()!r}; available: {', '.join(models)}")
        chosen[by_key[key]] = models[by_key[key]]
    return chosen


def _protocol(args) -> str:
    kind = "StratifiedKFold" if args.stratified else "KFold"
    if args.repeats == 1:
        return (
            f"{args.folds}-fold CV ({kind}, shuffle, random_state={args.seed}), "
            f"alpha={args.alpha:g}"
        )
    last = args.seed + args.repeats - 1
    return (
        f"{args.repeats} x {args.folds}-fold CV ({kind}, shuffle, random_state="
        f"{args.seed}..{last}), alpha={args.alpha:g}"
    )


def _baseline(models: dict, wanted):
    """The baseline's display name: ``wanted`` (any case), or NB when selected; else None."""
    by_key = {name.lower(): name for name in models}
    if wanted is None:
        return by_key.get("nb")
    if wanted.strip().lower() not in by_key:
        raise InputError(
            f"--baseline {wanted!r} is not among the compared models: {', '.join(models)}"
        )
    return by_key[wanted.strip().lower()]


def _with_differences(table, folds, baseline):
    """The table plus each model's difference to the baseline and its corrected p-value."""
    from . import baseline_differences

    diffs = baseline_differences(folds, baseline, ("accuracy", "cll"))
    table = table.copy()
    table["acc diff"] = diffs[("accuracy", "diff")]
    table["p (acc)"] = diffs[("accuracy", "p")]
    table["CLL diff"] = diffs[("cll", "diff")]
    table["p (CLL)"] = diffs[("cll", "p")]
    return table


def compare(args) -> int:
    from . import STUDY_DATASETS, comparison_table, format_table, repeated_evaluation, study_models

    if args.folds < 2:
        raise InputError(f"--folds must be at least 2, got {args.folds}.")
    if args.repeats < 1:
        raise InputError(f"--repeats must be at least 1, got {args.repeats}.")
    name, X, y, contact = _load(args)
    study_tan = args.study_tan if args.study_tan is not None else name in STUDY_DATASETS
    models = study_models(contact, alpha=args.alpha, study_tan=study_tan)
    if args.r_family:
        from .r_family import r_family_models

        models.update(r_family_models(alpha=args.alpha))
    models = _select(models, args.models)
    if args.csv is not None:
        from ..data import TableSchema

        # kinds only (no encoding pass), decided as every fold's fit decides them
        kinds = TableSchema.learn(X, categories=False, y=y)[0].kinds
        print("columns: " + ", ".join(f"{c} ({k})" for c, k in zip(X.columns, kinds, strict=True)))
        continuous = [c for c, k in zip(X.columns, kinds, strict=True) if k != "categorical"]
        models = _categorical_inputs_for_bma(models, continuous)
    baseline = _baseline(models, args.baseline)
    folds, summary = repeated_evaluation(
        models,
        X,
        y,
        folds=args.folds,
        repeats=args.repeats,
        seed=args.seed,
        stratified=args.stratified,
        progress=args.progress,
        n_jobs=args.jobs,
    )
    table = comparison_table(summary, name if args.csv is None else None)
    if baseline is not None and len(models) > 1:
        table = _with_differences(table, folds, baseline)
    n_classes = y.nunique()
    n_folds = args.folds * args.repeats
    print(f"{name}: {len(X)} rows, {X.shape[1]} features, {n_classes} classes; {_protocol(args)}")
    print(
        "accuracy, precision/recall/F1 (macro) and CLL = sum over a fold's rows of "
        f"log2 P(true class | x): mean over the {n_folds} folds; sd = standard deviation "
        "over folds"
    )
    if "acc diff" in table.columns:
        print(
            f"diff = model minus {baseline}, mean over the same folds; p = two-sided corrected "
            f"resampled t test (Nadeau & Bengio 2003) with k = {n_folds} folds "
            f"(repeats x folds, {n_folds - 1} df): p < 0.05 suggests a real difference, "
            "a larger p that the folds cannot tell the models apart"
        )
    print(format_table(table))
    if "TAN (study's tree)" in table.index:
        print(
            "(study's tree/trees): the study's accidental TAN trees (int(weight) in its Prim "
            "step); its TAN, TAN bagging and STAN+TAN bagging figures are these rows'."
        )
    first = folds[folds.model == folds.model.iloc[0]]
    print(
        f"unseen values: {int(first['n_unseen_values'].sum())} test cell(s) over the "
        f"{n_folds} folds held a category absent from their training fold and were summed "
        "out as missing."
    )
    unseen = int(first["n_unseen_class"].sum())
    if unseen:
        print(
            f"note: {unseen} test row(s) have a class missing from their training fold; "
            "the models give them probability 0, so CLL is -inf. Try --stratified."
        )
    if args.out is not None:
        for path in _write_outputs(Path(args.out), name, folds, summary, table, args):
            print(f"wrote {path}")
    if args.save_model is not None:
        for path in _save_models(Path(args.save_model), models, X, y):
            print(f"wrote {path}")
    return 0


def model_file_name(name) -> str:
    """A model's display name as a file name: ``"Simpler TAN"`` -> ``"simpler-tan.bnc"``."""
    return "-".join(re.findall(r"[a-z0-9]+", name.lower())) + ".bnc"


def _categorical_inputs_for_bma(models: dict, continuous: list) -> dict:
    """BMA TAN behind an MDL discretiser of the ``continuous`` columns (it averages
    categorical trees only); the other models unchanged."""
    from sklearn.pipeline import make_pipeline

    from ..classifiers import BMATAN
    from ..preprocessing import MDLDiscretizer

    if not continuous:
        return models
    out = {}
    for name, model in models.items():
        if isinstance(model, BMATAN):
            print(f"{name}: averages categorical trees: MDL-discretises {continuous} first")
            model = make_pipeline(MDLDiscretizer(columns=continuous), model)
        out[name] = model
    return out


def _save_models(out: Path, models, X, y) -> list:
    """Fit each model on the whole data and write it as a model file (a pipeline, which
    model files cannot hold, is named and skipped)."""
    from sklearn.base import clone
    from sklearn.pipeline import Pipeline

    from ..io import dump

    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, model in models.items():
        if isinstance(model, Pipeline):
            print(f"not saved: {name} (a discretiser + model pipeline; model files hold one model)")
            continue
        written.append(dump(clone(model).fit(X, y), out / model_file_name(name)))
    return written


# -- predict -------------------------------------------------------------------------------------
def _read_for_model(path: Path, model) -> pd.DataFrame:
    """The CSV's model columns, each cell as the model's own category (or a number).

    Cells are read as text; a categorical column's text is matched to the
    category of the same text (so integer, boolean and float categories work),
    a continuous column's parsed as a number. Other columns (e.g. the class)
    are ignored when the model knows its columns' names.
    """
    if not path.is_file():
        raise InputError(f"data file not found: {path}")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
    except pd.errors.EmptyDataError:
        raise InputError(f"{path} is empty: expected a header row and data rows.") from None
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        missing = [n for n in names if n not in frame.columns]
        if missing:
            raise InputError(f"{path} lacks the model's columns {missing}.")
        frame = frame[list(names)]
    elif frame.shape[1] != model.n_features_in_:
        raise InputError(
            f"{path} has {frame.shape[1]} columns; the model (fitted without column names) "
            f"takes {model.n_features_in_}."
        )
    columns = {}
    for name, categories in zip(frame.columns, model.categories_, strict=True):
        column = frame[name]
        if categories is None:
            columns[name] = pd.to_numeric(column)
        else:
            by_text = {str(c): c for c in categories}
            columns[name] = column.map(lambda v, by_text=by_text: by_text.get(v, v)).astype(object)
    return pd.DataFrame(columns)


def predict(args) -> int:
    from ..io import load

    model = load(args.model)
    if not hasattr(model, "predict_proba") or not hasattr(model, "categories_"):
        raise InputError(
            f"{args.model} holds a {type(model).__name__}; predict takes a classifier of tables."
        )
    X = _read_for_model(Path(args.csv), model)
    proba = model.predict_proba(X)
    labels = model.classes_
    out = pd.DataFrame(proba, columns=[f"P({label})" for label in labels], index=X.index)
    out.insert(0, "prediction", labels[proba.argmax(axis=1)])
    if args.out is None:
        out.to_csv(sys.stdout, index=False)
    else:
        out.to_csv(args.out, index=False)
        print(f"wrote {args.out} ({len(out)} rows)")
    return 0


def _write_outputs(out: Path, name, folds, summary, table, args) -> list:
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{name}_folds.csv", out / f"{name}_summary.csv", out / f"{name}_results.json"]
    folds.to_csv(paths[0], index=False)
    flat = summary.copy()
    flat.columns = [f"{metric}_{stat}" for metric, stat in flat.columns]
    flat.to_csv(paths[1])
    payload = {
        "dataset": name,
        "protocol": _protocol(args),
        "cll": folds.attrs.get("cll", ""),
        "summary": json.loads(table.to_json(orient="index")),
        "folds": json.loads(folds.to_json(orient="records")),
    }
    paths[2].write_text(json.dumps(payload, indent=2) + "\n")
    figure = _cv_figure(folds, out / f"{name}_cv_results.png", title=name)
    if figure is not None:
        paths.append(figure)
    return paths


def _cv_figure(folds, path, title=None):
    try:
        from ..plotting import plot_cv_results
    except ImportError:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plot_cv_results(folds, ("accuracy", "f1_macro", "cll"), title=title)
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


# -- figures, cost, reproduce ------------------------------------------------------------------
def figures(args) -> int:
    written = _make_figures(Path(args.out), args.only or None)
    for path in written:
        print(f"wrote {path}")
    return 0


def _make_figures(out: Path, names=None) -> list:
    import matplotlib

    matplotlib.use("Agg")
    try:
        from .figures import make_figures
    except ImportError:
        raise InputError(
            "bnclassify.study.figures is not available in this installation."
        ) from None
    from . import cost  # noqa: F401  (they register their figures)

    return list(make_figures(out, names=names))


def cost(args) -> int:
    import matplotlib

    matplotlib.use("Agg")
    from .cost import cost_table, default_cost_study, save_cost_study

    results = default_cost_study(quick=args.quick)
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(cost_table(results).to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    if args.out is not None:
        for path in save_cost_study(args.out, results):
            print(f"wrote {path}")
    return 0


def reproduce(args) -> int:
    from . import reproduce as run

    for path in run(
        figures_dir=Path(args.figures),
        results_path=Path(args.results),
        readme_path=None if args.no_readme else Path(args.readme),
        quick=args.quick,
        figures=not args.no_figures,
        progress=args.progress,
    ):
        print(f"wrote {path}")
    return 0


# -- the parser ----------------------------------------------------------------------------------
def _progress_flags(parser):
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help="show a progress bar (default: when stderr is a terminal)",
    )
    group.add_argument("--no-progress", dest="progress", action="store_false")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="bnclassify",
        description="Bayesian network classifiers: compare, figures, cost study, reproduce.",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser(
        "compare",
        help="cross-validate NB, TAN, Simpler TAN and the other structures on a data set",
        description="Cross-validate the classifiers on the same folds and print the table. "
        "Default protocol: the study's (KFold(10, shuffle=True, random_state=42), alpha=1).",
    )
    source = p.add_mutually_exclusive_group()
    source.add_argument(
        "--dataset",
        choices=["p450", "lactamase", "car", "nursery", "vote"],
        default="p450",
        help="bundled data set (default: p450)",
    )
    source.add_argument("--csv", metavar="PATH", help="a CSV file instead")
    p.add_argument(
        "--kinds",
        choices=["auto", "categorical"],
        default="auto",
        help="how --csv columns are modelled: 'auto' (default) reads them as pandas does and "
        "applies the library's kinds rule (wide integers and floats continuous, "
        "log-normal when skewed); 'categorical' treats every column as categories",
    )
    p.add_argument("--target", metavar="COL", help="class column of --csv (default: the last)")
    p.add_argument(
        "--contact",
        metavar="PATH",
        help="contact matrix CSV (header row + label column) for Simpler TAN",
    )
    p.add_argument("--folds", type=int, default=10, help="number of folds (default: 10)")
    p.add_argument("--seed", type=int, default=42, help="shuffling seed (default: 42)")
    p.add_argument("--stratified", action="store_true", help="StratifiedKFold instead of KFold")
    p.add_argument(
        "--alpha", type=_finite_alpha, default=1.0, help="Dirichlet smoothing (default: 1)"
    )
    p.add_argument("--models", metavar="NAMES", help="comma-separated subset, e.g. 'NB,TAN'")
    p.add_argument(
        "--r-family",
        action="store_true",
        help="add R bnclassify's wrappers (tan_hc, tan_hcsp, fssj, bsej, kdb (hc)), "
        "nb awnb/manb/wanbia and NB/TAN with conditional-likelihood parameters",
    )
    p.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="repeat the K-fold CV R times, reshuffled with seeds seed, seed+1, ... (default: 1)",
    )
    p.add_argument(
        "--baseline",
        metavar="NAME",
        help="model every other is tested against (default: NB, when compared)",
    )
    p.add_argument(
        "--jobs", type=int, default=None, help="fit folds in parallel (joblib n_jobs; -1: all CPUs)"
    )
    study_tan = p.add_mutually_exclusive_group()
    study_tan.add_argument(
        "--study-tan",
        dest="study_tan",
        action="store_true",
        default=None,
        help="add the study's accidental TAN tree as a labelled row "
        "(default: on for p450 and lactamase)",
    )
    study_tan.add_argument("--no-study-tan", dest="study_tan", action="store_false")
    p.add_argument("--out", metavar="DIR", help="write per-fold CSV, summary CSV/JSON, figure")
    p.add_argument(
        "--save-model",
        metavar="DIR",
        help="also fit each compared model on all the data and write DIR/<model>.bnc "
        "(e.g. --models TAN --save-model models/ writes models/tan.bnc)",
    )
    _progress_flags(p)
    p.set_defaults(func=compare)

    p = sub.add_parser(
        "predict",
        help="predict a CSV file with a saved model (see compare --save-model)",
        description="Load a model file (bnclassify.io.dump, compare --save-model) and write "
        "each row's predicted class and the probability of every class as CSV.",
    )
    p.add_argument("--model", metavar="PATH", required=True, help="a .bnc model file")
    p.add_argument(
        "--csv",
        metavar="FILE",
        required=True,
        help="rows to predict, with a header; columns named like the training columns "
        "(others, e.g. the class, are ignored); empty cells are missing",
    )
    p.add_argument("--out", metavar="FILE", help="output CSV (default: standard output)")
    p.set_defaults(func=predict)

    p = sub.add_parser("figures", help="write the registered figures to a folder")
    p.add_argument("--out", metavar="DIR", default="figures", help="(default: figures)")
    p.add_argument("--only", metavar="NAME", nargs="+", help="only these figures")
    p.set_defaults(func=figures)

    p = sub.add_parser("cost", help="fit time of TAN vs Simpler TAN as features and rows grow")
    p.add_argument("--out", metavar="DIR", help="write cost_study.png/.csv and cost_table.csv")
    p.add_argument("--quick", action="store_true", help="up to 256 features and 10^5 rows")
    p.set_defaults(func=cost)

    p = sub.add_parser(
        "reproduce",
        help="rerun everything the README reports (tables, cost study, figures)",
    )
    p.add_argument("--figures", metavar="DIR", default="figures", help="(default: figures)")
    p.add_argument("--results", metavar="PATH", default="docs/results.md")
    p.add_argument("--readme", metavar="PATH", default="README.md")
    p.add_argument("--no-readme", action="store_true", help="leave the README alone")
    p.add_argument("--no-figures", action="store_true", help="tables only")
    p.add_argument("--quick", action="store_true", help="a smaller cost study")
    _progress_flags(p)
    p.set_defaults(func=reproduce)
    return parser


def main(argv=None) -> int:
    """Entry point of the ``bnclassify`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except InputError as error:
        return _fail(str(error))
    except FileNotFoundError as error:
        return _fail(f"file not found: {error.filename or error}")
    except INPUT_ERRORS as error:
        return _fail(str(error))


def _fail(message) -> int:
    first = " ".join(str(message).split())  # one line, whatever the message
    print(f"bnclassify: error: {first}", file=sys.stderr)
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
