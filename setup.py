"""The optional compiled kernels (``bnclassify/_native/_kernels.c``); the rest: pyproject.toml.

Optional: without a C compiler the install still succeeds and bnclassify uses
the numpy versions of the kernels (the package ``bnclassify/_native``), with the same
results, only slower on wide tables.
"""

import os
import shlex
import sys

from setuptools import Extension, setup

# -O3, unless the builder chose an optimisation level in CFLAGS (which setuptools puts before
# these flags, so -O3 would override it): e.g. CFLAGS=-O0 for a build whose speed does not
# matter (tests/test_packaging.py's wheel, 2 s against 20 s)
chosen = any(f.startswith("-O") for f in shlex.split(os.environ.get("CFLAGS", "")))
flags = [] if sys.platform == "win32" or chosen else ["-O3"]
setup(
    ext_modules=[
        Extension(
            "bnclassify._native._kernels",
            sources=["bnclassify/_native/_kernels.c"],
            optional=True,
            extra_compile_args=flags,
        )
    ]
)
