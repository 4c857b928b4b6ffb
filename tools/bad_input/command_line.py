"""``bnclassify compare`` on very wide and malformed CSV files, run as a user runs it: a
separate process, standard output piped, standard error read back.

A run either ends (exit 0 with the table; exit 2 with one ``bnclassify: error:`` line naming
the file, column or option) or, when it outlasts the case's CPU budget, must have said on
standard error what it is doing and how long it will take: a progress line with an estimate
of the time left that the run had not yet outlived. A run stopped having said neither is a
hang; a traceback is a crash.
"""

from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from .core import Case, CaseTimeout

TMP = Path(tempfile.mkdtemp(prefix="bnc-campaign-cli-"))
#: CPU seconds a command gets (the campaign's time limit for one case).
CPU_BUDGET = 60
#: The wall-clock limit in CPU budgets: the child's CPU limit ends it; on a machine shared by
#: many jobs its wall time is many times that.
WALL_FACTOR = 60
#: tqdm's bar once it can estimate the time left: ``[00:25<03:48, ...`` (elapsed < left).
ESTIMATE = re.compile(r"\[((?:\d+:)?\d+:\d+)<((?:\d+:)?\d+:\d+)")


def run_command(*argv, cpu_budget=None) -> tuple:
    """``(exit code, stdout, stderr, wall seconds)`` of ``bnclassify ARGV`` in a child
    process with a CPU budget (killed by SIGXCPU past it: exit code ``-SIGXCPU``)."""
    budget = CPU_BUDGET if cpu_budget is None else cpu_budget

    def limit():
        resource.setrlimit(resource.RLIMIT_CPU, (budget, budget + 5))

    environ = {**os.environ, "PYTHONWARNINGS": "default", "COLUMNS": "100"}
    environ.pop("CI", None)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "bnclassify.study.cli", *map(str, argv)],
        capture_output=True,
        text=True,
        env=environ,
        preexec_fn=limit,
        timeout=(WALL_FACTOR - 1) * budget,  # a wait that spends no CPU (a lock) ends too
        check=False,
    )
    return done.returncode, done.stdout, done.stderr, time.perf_counter() - start


def _seconds(text) -> int:
    seconds = 0
    for part in text.split(":"):
        seconds = 60 * seconds + int(part)
    return seconds


def judge(code, out, err, wall=None) -> bool:
    """The case's answer from what the command did (see the module docstring). A run
    stopped at its CPU budget passes when its last estimate of the whole run (time spent
    plus time left, on the wall clock) is longer than the run had lasted when stopped: an
    estimate it had already outlived told the user nothing."""
    if "Traceback" in err:
        raise RuntimeError(err.strip().splitlines()[-1])
    if code == 0:
        return "accuracy" in out
    if code == -signal.SIGXCPU:
        estimates = ESTIMATE.findall(err)
        if estimates:
            spent, left = estimates[-1]
            if wall is None or _seconds(spent) + _seconds(left) >= wall:
                return True  # a long run that showed its progress and the time left
        raise CaseTimeout
    lines = err.strip().splitlines()
    if code == 2 and len(lines) == 1 and lines[0].startswith("bnclassify: error: "):
        raise ValueError(lines[0])  # classified as a clear error if it names the input
    raise RuntimeError(f"exit {code}: {err.strip()[-200:]}")


def _wide_csv(n_rows, n_columns, kind="integers", seed=0) -> Path:
    """The path of a wide CSV file, written when a case first runs on it."""
    return TMP / f"wide_{kind}_{n_rows}x{n_columns}_{seed}.csv"


def _written(path: Path) -> Path:
    if path.exists():
        return path
    kind, shape, seed = path.stem.split("_")[1:]
    n_rows, n_columns = map(int, shape.split("x"))
    rng = np.random.default_rng(int(seed))
    names = [f"f{j}" for j in range(n_columns)]
    if kind == "integers":
        values = rng.integers(0, 3, (n_rows, n_columns))
    elif kind == "strings":
        values = rng.choice(np.array(["x", "y", "z"]), (n_rows, n_columns))
    else:  # floats
        values = rng.normal(size=(n_rows, n_columns)).round(4)
    frame = pd.DataFrame(values, columns=names)
    frame["class"] = np.resize(np.array(["a", "b"]), n_rows)
    frame.to_csv(path, index=False)
    return path


def _write(name, text, mode="w") -> Path:
    path = TMP / name
    if mode == "wb":
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _malformed() -> dict:
    header = ",".join(f"f{j}" for j in range(5000)) + ",class\n"
    one_row = ",".join("1" for _ in range(5000)) + ",a\n"
    return {
        "5,000 columns, one row": _write("one_row.csv", header + one_row),
        "5,000 columns, header only": _write("header_only.csv", header),
        "5,000 columns, a ragged row": _write(
            "ragged_wide.csv", header + one_row + ",".join("1" for _ in range(4000)) + ",b\n"
        ),
        "5,000 columns, one class": _write("one_class.csv", header + one_row * 20),
        "binary garbage": _write("garbage.csv", bytes(range(256)) * 4, mode="wb"),
        "NUL bytes": _write("nul.csv", "a,class\n1\x00,p\n2,q\n" * 5),
        "an unclosed quote": _write("quote.csv", 'a,class\n"1,p\n2,q\n' * 5),
        "duplicate header names": _write("dup.csv", "a,a,class\n1,2,p\n3,4,q\n" * 10),
        "a 1 MB field": _write("big_field.csv", "a,class\n" + "x" * 1_000_000 + ",p\n1,q\n"),
        "semicolons": _write("semicolons.csv", "a;b;class\n1;2;p\n3;4;q\n" * 10),
        "every class distinct": _write(
            "ids.csv", "a,class\n" + "".join(f"{k % 3},c{k}\n" for k in range(40))
        ),
        "an empty class column": _write("empty_class.csv", "a,class\n1,\n2,\n" * 10),
        "a header of numbers": _write(
            "number_header.csv",
            "1,2,3\n" + "".join(f"{k % 3},{k % 2},p{k % 2}\n" for k in range(40)),
        ),
    }


def cases():
    out = []
    wide = {
        "integers": _wide_csv(100, 5000, "integers"),
        "strings": _wide_csv(100, 5000, "strings"),
        "floats": _wide_csv(100, 5000, "floats"),
    }
    runs = {
        "default models": (),
        "--models nb": ("--models", "nb"),
        "--models tan": ("--models", "tan"),
    }
    for kind, path in wide.items():
        for label, extra in runs.items():
            if kind != "integers" and label != "default models":
                continue  # the other tables' options run as the integers' do
            out.append(
                Case(
                    f"command line: 5,000-column CSV of {kind}",
                    f"bnclassify compare --csv <100 x 5,000 {kind}> {label}",
                    lambda p=path, e=extra: judge(
                        *run_command("compare", "--csv", _written(p), *e)
                    ),
                    names=(path.name,),
                    covers=("bnclassify.study.cli.main",),
                    slow=True,
                    wall_factor=WALL_FACTOR,
                )
            )
    for label, path in _malformed().items():
        out.append(
            Case(
                "command line: malformed CSV files",
                f"bnclassify compare --csv <{label}> --models nb",
                lambda p=path: judge(*run_command("compare", "--csv", p, "--models", "nb")),
                names=(path.name, "class", "--target", "--sep", "column"),
                covers=("bnclassify.study.cli.main",),
                fast=label == "5,000 columns, one row",
                wall_factor=WALL_FACTOR,
            )
        )
    return out
