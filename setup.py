"""The optional compiled kernels (``bnclassify/_native/_kernels.c``); the rest: pyproject.toml.

Optional: without a C compiler the install still succeeds and bnclassify uses
the numpy versions of the kernels (the package ``bnclassify/_native``), with the same
results, only slower on wide tables.
"""

import sys

from setuptools import Extension, setup

flags = [] if sys.platform == "win32" else ["-O3"]
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
