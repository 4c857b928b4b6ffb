"""Issue 27's bad-input kinds (items 14-17): one call each, with the parameter, column or
file a clear error must name; the command line's kinds run it in-process."""

from __future__ import annotations

import contextlib
import io
import tempfile
import zipfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd

import bnclassify as bnc
from bnclassify.distributions import Gaussian
from bnclassify.explain import explain
from bnclassify.io import dump, load
from bnclassify.metrics import corrected_resampled_ttest, evaluate, summarize
from bnclassify.preprocessing import MDLDiscretizer
from bnclassify.study.cli import main as cli

from .core import Case

Y20 = np.array(["p", "q"] * 10)
TMP = Path(tempfile.mkdtemp(prefix="bnc-campaign-"))
CASES = []


def _proba_ok(proba):
    proba = np.asarray(proba, dtype=float)
    return bool(np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1.0))


def kind(name, names=()):
    """Register ``name``: the call returns True (correct), False (wrong) or raises; a clear
    error's message must hold one of ``names`` (the parameter, column or file)."""

    def register(call):
        CASES.append(Case(f"issue 27: {name.split(' ')[0]}", name, call, names=tuple(names)))
        return call

    return register


def _cli(*argv, names=()):
    """Run the CLI: exit 0 is correct, exit 2 with a one-line error naming one of ``names``
    is a clear error, anything else bad."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli([str(a) for a in argv])
        except SystemExit as stop:
            code = stop.code
    text = err.getvalue()
    if code == 0:
        return True
    if code == 2 and text.count("\n") <= 1 and "Traceback" not in text:
        if not names or any(n in text for n in names):
            raise ValueError(text)
    raise RuntimeError(f"exit {code}: {text[:120]}")


# -- 14: wrong answers ------------------------------------------------------------------------
@kind("14a zero-variance Gaussian column, far value")
def _():
    X = pd.DataFrame({"s": list("uvw") * 10, "g": 2.5})
    model = bnc.NaiveBayes().fit(X, ["p", "q"] * 15)
    return _proba_ok(model.predict_proba(pd.DataFrame({"s": ["u"], "g": [12345.0]})))


@kind("14b dump/load keeps integer and tuple column labels")
def _():
    rng = np.random.default_rng(0)
    ok = True
    for labels in ([3, 1, 2], [("a", 1), ("b", 2), ("c", 3)]):
        X = pd.DataFrame(rng.choice(list("xyz"), (40, 3)), columns=labels)
        y = rng.choice(["p", "q"], 40)
        model = bnc.TAN().fit(X, y)
        loaded = load(dump(model, TMP / "labels.bnc"))
        order = list(reversed(labels))
        ok &= np.allclose(loaded.predict_proba(X[order]), model.predict_proba(X))
    return ok


@kind("14c column order: every exported estimator")
def _():
    rng = np.random.default_rng(1)
    X = pd.DataFrame({c: rng.choice(list("xyz"), 60) for c in "zakwv"})
    y = rng.choice(["p", "q"], 60)
    order = ["w", "k", "z", "v", "a"]
    cm = pd.DataFrame(np.ones((5, 5)), index=list(X.columns), columns=list(X.columns))
    makers = [
        bnc.NaiveBayes, bnc.TAN, lambda: bnc.SimplerTAN(cm), bnc.KDB, bnc.SPODE, bnc.AODE,
        bnc.BMATAN, bnc.EnsembleTAN, lambda: bnc.EnsembleTAN(cm),
        lambda: bnc.TANHC(random_state=0), lambda: bnc.KDBHC(random_state=0),
        lambda: bnc.BSEJ(random_state=0), lambda: bnc.FSSJ(random_state=0),
        lambda: bnc.TANHCSP(random_state=0),
    ]  # fmt: skip
    return all(
        np.allclose(m().fit(X, y).predict_proba(X), m().fit(X[order], y).predict_proba(X[order]))
        for m in makers
    )


def _model_file_with(field_edit):
    X = pd.DataFrame({"a": list("xyz") * 6 + ["x", "y"], "g": np.arange(20.0)})
    path = dump(bnc.NaiveBayes().fit(X, Y20), TMP / "m.bnc")
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    field_edit(members)
    bad = TMP / "edited.bnc"
    with zipfile.ZipFile(bad, "w") as z:
        for n, data in members.items():
            z.writestr(n, data)
    return bad


@kind("14d load refuses a corrupted (truncated) model file", names=("edited.bnc", "m.bnc"))
def _():
    path = dump(bnc.NaiveBayes().fit(pd.DataFrame({"a": list("xy") * 10}), Y20), TMP / "m.bnc")
    data = path.read_bytes()
    (TMP / "edited.bnc").write_bytes(data[: len(data) // 2])
    load(TMP / "edited.bnc")
    return False


@kind("14e TAN's probabilities under 1e8 shifts and changes of units")
def _():
    rng = np.random.default_rng(0)
    a = rng.normal(size=80)
    X = pd.DataFrame({"c": rng.choice(list("xy"), 80), "a": a, "b": a + 0.3 * rng.normal(size=80)})
    y = np.where(a + rng.normal(size=80) > 0, "p", "q")
    ok = True
    # the default floor (GaussianNB's: the largest variance) is free of shifts and of one change
    # of units for every column; floor_scale="column" of any per-column affine map too. A shift
    # costs the inputs about shift * eps of their spread, so shifts go with spreads >= 1
    for floor_scale, maps in (
        ("largest", [(1e3, 1e3, 1e8), (-1e-3, -1e-3, 0.0), (1.0, 1.0, 1e8)]),
        ("column", [(1e3, -1e-3, 0.0), (1e3, 1.0, 1e8), (-1e-3, 1e3, 0.0)]),
    ):
        spec = dict.fromkeys(["a", "b"], Gaussian(floor_scale=floor_scale))
        before = bnc.TAN(distributions=spec).fit(X, y).predict_proba(X)
        for scale_a, scale_b, shift in maps:
            moved = X.assign(a=X["a"] * scale_a + shift, b=X["b"] * scale_b - shift)
            after = bnc.TAN(distributions=spec).fit(moved, y).predict_proba(moved)
            ok &= np.allclose(after, before, atol=1e-6)
    return ok


@kind("14f kde naive Bayes at 1e-300 and 1e300")
def _():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"f": rng.normal(size=40), "g": rng.normal(size=40)})
    y = np.where(X["f"] > 0, "p", "q")
    before = bnc.NaiveBayes(distributions="kde").fit(X, y).predict_proba(X)
    return all(
        np.allclose(
            bnc.NaiveBayes(distributions="kde").fit(X * s, y).predict_proba(X * s),
            before,
            atol=1e-7,
        )
        for s in (1e-300, 1e300)
    )


# -- 15: crashes from deep inside -------------------------------------------------------------
@kind("15 nullable Float64 with few values")
def _():
    X = pd.DataFrame(
        {"f": pd.array([1.0, 2.0, None, 1.0] * 5, dtype="Float64"), "s": list("ab") * 10}
    )
    return _proba_ok(bnc.TAN().fit(X, Y20).predict_proba(X))


@kind("15 explain() on BMATAN")
def _():
    X = pd.DataFrame({"a": list("xyz") * 6 + ["x", "y"], "b": list("uv") * 10})
    model = bnc.BMATAN().fit(X, Y20)
    return np.isfinite(np.asarray(explain(model, X.iloc[:3]).values)).all()


@kind("15 all-uint64 table, values >= 2**63")
def _():
    X = pd.DataFrame({"a": (np.arange(20) % 3).astype(np.uint64) + np.uint64(2**63)})
    return _proba_ok(bnc.NaiveBayes().fit(X, Y20).predict_proba(X))


@kind("15 ArrowDtype(bool) with nulls")
def _():
    X = pd.DataFrame({"b": pd.array([True, False, None, True] * 5, dtype="bool[pyarrow]")})
    return _proba_ok(bnc.NaiveBayes().fit(X, Y20).predict_proba(X))


@kind("15 a lone surrogate string")
def _():
    X = pd.DataFrame({"s": pd.Series(["\ud800", "a"] * 10, dtype=object)})
    model = bnc.NaiveBayes().fit(X, Y20)
    return _proba_ok(model.predict_proba(X)) and load(dump(model, TMP / "s.bnc")) is not None


@kind("15 corrupted zip stream in load()", names=("bad.bnc",))
def _():
    path = dump(bnc.NaiveBayes().fit(pd.DataFrame({"a": list("xy") * 10}), Y20), TMP / "z.bnc")
    data = bytearray(path.read_bytes())
    for k in range(60, min(len(data), 400)):
        data[k] ^= 0x5A
    (TMP / "bad.bnc").write_bytes(bytes(data))
    load(TMP / "bad.bnc")
    return False


@kind("15 non-UTF-8 BIF", names=("bif", "BIF", "UTF-8", "utf-8"))
def _():
    from bnclassify.io import from_bif

    path = TMP / "net.bif"
    path.write_bytes(
        "network n { }\nvariable \xe9 { type discrete [ 2 ] { a, b }; }\n".encode("latin-1")
    )
    from_bif(path, "\xe9")
    return False


@kind("15 an empty dask partition")
def _():
    import dask.dataframe as dd

    X = pd.DataFrame({"a": list("uvw") * 10, "g": np.arange(30.0)})
    frame = dd.from_pandas(X.assign(label=["p", "q"] * 15), npartitions=3)
    first = frame.divisions[1]
    empty = frame.map_partitions(lambda p: p[p.index >= first])
    model = bnc.TAN().fit(empty.drop(columns="label"), empty["label"])
    return _proba_ok(model.predict_proba(X))


@kind("15 a dask Array")
def _():
    import dask.array as da

    values = np.random.default_rng(0).normal(size=(30, 2))
    y = np.array(["p", "q"] * 15)
    model = bnc.NaiveBayes().fit(da.from_array(values, chunks=10), da.from_array(y, chunks=10))
    return _proba_ok(model.predict_proba(da.from_array(values, chunks=10)).compute())


@kind("15 BMATAN contact_prior=1e308", names=("contact_prior",))
def _():
    X = pd.DataFrame({"a": list("xyz") * 6 + ["x", "y"], "b": list("uv") * 10})
    cm = pd.DataFrame(np.ones((2, 2)), index=["a", "b"], columns=["a", "b"])
    return _proba_ok(
        bnc.BMATAN(contact_matrix=cm, contact_prior=1e308).fit(X, Y20).predict_proba(X)
    )


@kind("15 BMATAN equivalent_sample_size=Fraction(1, 2)", names=("equivalent_sample_size",))
def _():
    X = pd.DataFrame({"a": list("xyz") * 6 + ["x", "y"], "b": list("uv") * 10})
    return _proba_ok(bnc.BMATAN(equivalent_sample_size=Fraction(1, 2)).fit(X, Y20).predict_proba(X))


@kind("15 BMATAN equivalent_sample_size=1e308", names=("equivalent_sample_size",))
def _():
    X = pd.DataFrame({"a": list("xyz") * 6 + ["x", "y"], "b": list("uv") * 10})
    return _proba_ok(bnc.BMATAN(equivalent_sample_size=1e308).fit(X, Y20).predict_proba(X))


@kind("15 explain(random_state='x')", names=("random_state",))
def _():
    X = pd.DataFrame({"a": list("xyz") * 6 + ["x", "y"]})
    explain(bnc.NaiveBayes().fit(X, Y20), X, random_state="x")
    return False


def _plot(call, names):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    try:
        call()
    finally:
        plt.close("all")
    return True


def _plot_kind(label, names, call):
    kind(f"15 plotting {label}", names=names)(lambda: _plot(call, names))


def _tan():
    X = pd.DataFrame(
        {"a": list("xyz") * 6 + ["x", "y"], "b": list("uv") * 10, "c": list("rst") * 6 + ["r", "s"]}
    )
    return bnc.TAN().fit(X, Y20), X


def _register_plots():
    from bnclassify import plotting as p

    model, X = _tan()
    w = model.weights_
    numeric = pd.DataFrame({"f": np.arange(20.0), "g": np.arange(20.0) ** 1.5})
    nb = bnc.NaiveBayes().fit(numeric, Y20)
    _plot_kind("gamma=0", ("gamma",), lambda: p.plot_weights(w, gamma=0))
    _plot_kind(
        "edge_colors='red'", ("edge_colors",), lambda: p.plot_structure(model, edge_colors="red")
    )
    _plot_kind(
        "labels=['one']", ("labels",), lambda: p.plot_tree_comparison(model, model, labels=["one"])
    )
    _plot_kind(
        "wrong-size matrix",
        ("matrix", "contact"),
        lambda: p.plot_tree_comparison(model, model, np.ones((2, 2))),
    )
    _plot_kind(
        "margin=nan",
        ("margin",),
        lambda: p.plot_decision_boundary(nb, numeric, Y20, margin=float("nan")),
    )
    _plot_kind(
        "resolution=0",
        ("resolution",),
        lambda: p.plot_decision_boundary(nb, numeric, Y20, resolution=0),
    )
    _plot_kind("vmax_scale=-1", ("vmax_scale",), lambda: p.plot_weights(w, vmax_scale=-1))
    _plot_kind("fontsize='big'", ("fontsize",), lambda: p.plot_structure(model, fontsize="big"))
    _plot_kind("plot_cpt unknown feature", ("feature", "nope"), lambda: p.plot_cpt(model, "nope"))
    _plot_kind("n_points=10**9", ("n_points",), lambda: p.plot_cpt(nb, "f", n_points=10**9))
    _plot_kind("max_per_row=0", ("max_per_row",), lambda: p.plot_inference(model, max_per_row=0))
    _plot_kind("member=99", ("member",), lambda: p.plot_structure(model, member=99))
    _plot_kind("weights ragged", ("weights", "matrix"), lambda: p.plot_weights([[1, 2], [3]]))


_register_plots()


# metrics kinds
@kind("15 metrics summarize(pd.DataFrame())", names=("folds", "summarize", "column", "empty"))
def _():
    summarize(pd.DataFrame())
    return False


@kind("15 metrics evaluate(None, ...)", names=("models",))
def _():
    evaluate(None, pd.DataFrame({"a": list("xy") * 10}), Y20, progress=False)
    return False


@kind("15 metrics out-of-range CV indices", names=("cv", "fold", "row"))
def _():
    X = pd.DataFrame({"a": list("xy") * 10})
    evaluate(
        {"nb": bnc.NaiveBayes()}, X, Y20, cv=[(np.arange(10), np.arange(15, 25))], progress=False
    )
    return False


@kind("15 metrics strings in corrected_resampled_ttest", names=("a", "b", "score"))
def _():
    corrected_resampled_ttest(["x", "y"], [0.1, 0.2], n_train=9, n_test=1)
    return False


@kind("15 metrics ragged probabilities in evaluate's CLL", names=("proba", "probabilit"))
def _():
    from bnclassify.metrics import conditional_log_likelihood

    conditional_log_likelihood(["p", "q"], [[0.5, 0.5], [1.0]], classes=["p", "q"])
    return False


@kind("15 MDLDiscretizer string in a numeric column", names=("'f'", "column"))
def _():
    X = pd.DataFrame({"f": [0.1, 0.2, "x", 0.4] * 5})
    MDLDiscretizer().fit(X, Y20)
    return False


@kind("15 from_pgmpy(state_types='x')", names=("state_types",))
def _():
    from bnclassify.io import from_pgmpy, to_bif  # noqa: F401

    model, _ = _tan()
    from_pgmpy(model.network_, model.class_node_, state_types="x")
    return False


# -- 16: hangs and memory -----------------------------------------------------------------------
@kind("16 explain(n_permutations=10**9)", names=("n_permutations",))
def _():
    X = pd.DataFrame({"a": list("xyz") * 6 + ["x", "y"]})
    explain(bnc.NaiveBayes().fit(X, Y20), X, n_permutations=10**9)
    return False


@kind("16 EnsembleTAN n_estimators=10**9 bootstrap", names=("n_estimators",))
def _():
    X = pd.DataFrame({"a": list("xyz") * 6 + ["x", "y"]})
    bnc.EnsembleTAN(n_estimators=10**9, bootstrap=True).fit(X, Y20)
    return False


@kind("16 compare --csv on a wide table (costed, cubic models left out)")
def _():
    rng = np.random.default_rng(0)
    m = 260
    table = pd.DataFrame(rng.choice(list("abc"), (24, m)), columns=[f"f{j}" for j in range(m)])
    table.assign(label=rng.choice(["p", "q"], 24)).to_csv(TMP / "wide.csv", index=False)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = cli(
            [
                "compare",
                "--csv",
                str(TMP / "wide.csv"),
                "--folds",
                "2",
                "--no-progress",
                "--models",
                "nb",
            ]
        )
    from bnclassify.study import cli as module

    args = module.build_parser().parse_args(["compare", "--csv", str(TMP / "wide.csv")])
    kept, _ = module._wide_table_plan({"NB": 0, "BMA TAN": 0}, table, args)
    return code == 0 and "cost:" in out.getvalue() and list(kept) == ["NB"]


# -- 17: poor messages and silent acceptance ----------------------------------------------------
def _model_file():
    X = pd.DataFrame({"a": list("xyz") * 6 + ["x", "y"]})
    return dump(bnc.NaiveBayes().fit(X, Y20), TMP / "cli.bnc")


@kind("17 non-UTF-8 predict --csv", names=("rows.csv",))
def _():
    (TMP / "rows.csv").write_bytes("a\n\xe9\nx\n".encode("latin-1"))
    return _cli("predict", "--model", _model_file(), "--csv", TMP / "rows.csv", names=("rows.csv",))


@kind("17 non-UTF-8 --contact", names=("contact.csv",))
def _():
    (TMP / "contact.csv").write_bytes(",a\n\xe9,1\n".encode("latin-1"))
    (TMP / "t.csv").write_text(
        "a,label\n" + "".join(f"{v},{c}\n" for v, c in zip("xyz" * 8, "pq" * 12, strict=True))
    )
    return _cli(
        "compare",
        "--csv",
        TMP / "t.csv",
        "--contact",
        TMP / "contact.csv",
        "--no-progress",
        names=("contact.csv",),
    )


@kind("17 ragged predict --csv", names=("ragged.csv",))
def _():
    (TMP / "ragged.csv").write_text("a,b\nx,1\ny,2,3\n")
    return _cli(
        "predict", "--model", _model_file(), "--csv", TMP / "ragged.csv", names=("ragged.csv",)
    )


@kind("17 ragged compare --csv", names=("ragged2.csv",))
def _():
    (TMP / "ragged2.csv").write_text("a,label\nx,p\ny,q,3\n" + "x,p\n" * 10)
    return _cli("compare", "--csv", TMP / "ragged2.csv", "--no-progress", names=("ragged2.csv",))


@kind("17 load(max_bytes='x')", names=("max_bytes",))
def _():
    load(_model_file(), max_bytes="x")
    return False


for _value, _label in ((None, "None"), (5, "5"), (io.BytesIO(b"x"), "BytesIO")):
    kind(f"17 load({_label})", names=("path",))(lambda v=_value: load(v) and False)


@kind("17 a directory to --csv", names=("is a directory",))
def _():
    return _cli("compare", "--csv", TMP, "--no-progress", names=("is a directory",))


for _weights, _label in (
    (np.full(20, 1 + 1j), "complex"),
    (np.array(["1"] * 20), "string"),
    (np.full(20, np.nan), "NaN"),
    (-np.ones(20), "negative"),
    (np.ones(19), "wrong length"),
):
    kind(f"17 {_label} sample_weight", names=("sample_weight",))(
        lambda w=_weights: (
            bnc.NaiveBayes().fit(pd.DataFrame({"a": list("xy") * 10}), Y20, sample_weight=w)
            and False
        )
    )


@kind("17 a string contact matrix", names=("contact",))
def _():
    X = pd.DataFrame({"a": list("xy") * 10, "b": list("uvw") * 6 + ["u", "v"]})
    bnc.SimplerTAN(np.array([["a", "b"], ["c", "d"]])).fit(X, Y20)
    return False


@kind("17 numpy RuntimeWarnings at extreme values (warnings as errors)")
def _():
    X = pd.DataFrame({"c": list("ab") * 5, "g": [1e308, -1e308, 5e-324, 0.0, 1e-300] * 2})
    y = np.array(["p", "q"] * 5)
    w = np.array([1e300, 5e-324] * 5)
    ok = True
    for model in (bnc.NaiveBayes(), bnc.TAN(), bnc.AODE(), bnc.KDB(k=2)):
        proba = model.fit(X, y, sample_weight=w).predict_proba(X)
        ok &= _proba_ok(proba)
        explain(model, X.iloc[:2], n_permutations=8, random_state=0)
    return ok


@kind("17 compare prints the 'unique classes > 50%' warning once, in its own words")
def _():
    rng = np.random.default_rng(0)
    table = pd.DataFrame({c: rng.choice(list("xyz"), 44) for c in "abc"})
    table["label"] = [f"k{i % 25}" for i in range(44)]
    table.to_csv(TMP / "crowded.csv", index=False)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli(
            [
                "compare",
                "--csv",
                str(TMP / "crowded.csv"),
                "--folds",
                "2",
                "--no-progress",
                "--jobs",
                "2",
            ]
        )
    text = out.getvalue() + err.getvalue()
    return code == 0 and "unique classes" not in text and text.count("more classes than half") == 1


def cases():
    return list(CASES)
