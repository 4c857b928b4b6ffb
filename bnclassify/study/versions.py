"""What ``bnclassify info`` and ``--version`` report: the version, the dependencies' versions
and whether the compiled kernels run.

Examples
--------
>>> from bnclassify.study.versions import version_of
>>> version_of("numpy") != "not installed"
True
"""

from __future__ import annotations

import importlib.metadata
import platform
import sys

from .._version import __version__

#: The distribution's name on the package index ("bnclassify" there is another project).
DISTRIBUTION = "pybnclassify"
#: What ``info`` reports the version of: the dependencies, then the optional extras'.
DEPENDENCIES = (
    "numpy",
    "scipy",
    "pandas",
    "pyarrow",
    "networkx",
    "pgmpy",
    "scikit-learn",
    "matplotlib",
    "shap",
    "joblib",
    "threadpoolctl",
    "tqdm",
)
OPTIONAL = ("dask", "distributed", "gemmi", "pyagrum")


def compiled_kernels_active() -> bool:
    """Whether the compiled C kernels run (else the slower numpy versions of the same passes)."""
    from .._native import COMPILED  # read when asked: tests and users may switch it

    return bool(COMPILED)


def kernels_line() -> str:
    if compiled_kernels_active():
        return "compiled kernels: active"
    return (
        "compiled kernels: NOT active: the numpy fallback runs (same results, slower on wide "
        "tables); reinstall with a C compiler present (pip install -e .), and unset "
        "BNCLASSIFY_NUMPY_KERNELS if set"
    )


def version_of(name) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def info(args) -> int:
    """Print the version, Python, the dependencies' versions and the kernels in use."""
    print(f"bnclassify {__version__} (distribution {DISTRIBUTION})")
    print(f"python {platform.python_version()} ({sys.executable}, {platform.platform()})")
    print(kernels_line())
    print("dependencies:")
    for name in DEPENDENCIES:
        print(f"  {name} {version_of(name)}")
    print("optional:")
    for name in OPTIONAL:
        print(f"  {name} {version_of(name)}")
    return 0
