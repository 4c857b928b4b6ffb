"""Helpers of the tests of benchmarks/ scripts: import one, write a toy collection."""

import importlib.util
import stat
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parents[1] / "benchmarks"


def load_script(name):
    """The module ``benchmarks/<name>.py`` (the scripts import uci.py and arff.py beside
    them)."""
    sys.path.insert(0, str(HERE))
    try:
        spec = importlib.util.spec_from_file_location(
            f"bnclassify_{name}_benchmark", HERE / f"{name}.py"
        )
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(HERE))
    return module


def toy_collection(folder: Path, code=True) -> None:
    """A one-set collection: a categorical column with ARFF-hostile values and a missing
    cell, a numeric one with a missing cell, and (``code``) integer codes."""
    rng = np.random.default_rng(0)
    n = 60
    colour = rng.choice(["red", "green {light}", "blue, dark"], n).astype(object)
    colour[3] = None
    size = rng.normal(size=n)
    size[5] = np.nan
    label = np.where((colour == "red") ^ (size > 0.5), "yes", "no")
    table = {"label": label, "colour": colour, "size": size}
    if code:
        table["code"] = rng.integers(0, 3, n)
    pd.DataFrame(table).to_csv(folder / "toy.csv", index=False)
    pd.DataFrame({"name": ["toy"], "target": ["label"]}).to_csv(
        folder / "MANIFEST.csv", index=False
    )


def prior_driver(path: Path, times: str) -> Path:
    """A stand-in fold driver at ``path`` (an executable used as ``java``): for every
    argument that is a fold directory, the class frequencies of its ``train.arff`` (labels
    ``no``, ``yes``) as each test row's probabilities, and ``times`` as its ``time.txt``."""
    path.write_text(
        f"#!/bin/sh\nexec {sys.executable} -c '"
        "import sys, pathlib\n"
        "for d in [pathlib.Path(a) for a in sys.argv[1:] if a and pathlib.Path(a).is_dir()]:\n"
        '    rows = lambda f: [l.rsplit(",", 1)[1].strip("\\x27") for l in (d / f).read_text()'
        '.split("@data\\n")[1].splitlines()]\n'
        '    train, test = rows("train.arff"), rows("test.arff")\n'
        '    p = [train.count(c) / len(train) for c in ("no", "yes")]\n'
        '    (d / "proba.csv").write_text("".join(f"{p[0]},{p[1]}\\n" for _ in test))\n'
        f'    (d / "time.txt").write_text("{times}\\n")\n'
        '\' "$@"\n'
    )
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path
