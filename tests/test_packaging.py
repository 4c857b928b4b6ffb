"""What a user installs: one version, the licence, the type marker and the data in the wheel."""

import importlib.metadata
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import bnclassify

ROOT = Path(__file__).resolve().parents[1]
SETUPTOOLS_MIN = 77  # pyproject.toml [build-system]: SPDX license and license-files


def test_version_is_the_installed_metadata():
    # the distribution is pybnclassify; an install made before the rename is still "bnclassify"
    names = importlib.metadata.packages_distributions().get("bnclassify", [])
    assert names
    assert all(importlib.metadata.version(n) == bnclassify.__version__ for n in names)


def test_the_distribution_name_is_this_projects():
    # "bnclassify" on the package index is an unrelated project (1.0.1, built on bnlearn)
    text = (ROOT / "pyproject.toml").read_text()
    assert '\nname = "pybnclassify"' in text
    assert '"bnclassify[' not in text
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), ROOT / "bnclassify"]:
        files = sorted(doc.rglob("*.py")) if doc.is_dir() else [doc]
        for path in files:
            body = path.read_text()
            assert "install bnclassify" not in body, path
            assert '"bnclassify[' not in body and " bnclassify[" not in body, path


def test_license_and_type_marker_in_source_tree():
    license_text = (ROOT / "LICENSE").read_text()
    assert license_text.startswith("MIT License")
    assert "bnclassify developers" in license_text
    assert (ROOT / "bnclassify" / "py.typed").is_file()


def _build_backend_or_skip():
    try:
        version = importlib.metadata.version("setuptools")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("build backend missing: setuptools is not installed (pip install -e .[dev])")
    if int(version.split(".")[0]) < SETUPTOOLS_MIN:
        pytest.skip(
            f"build backend too old: setuptools {version} is installed, pyproject.toml needs "
            f">={SETUPTOOLS_MIN} (pip install 'setuptools>={SETUPTOOLS_MIN}')"
        )


def _source_copy(tmp_path):
    """The files a release is built from, copied: a stale build/ directory or a compiled
    extension in the work tree cannot leak into what is built."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(
        ROOT / "bnclassify",
        src / "bnclassify",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "*.pyd"),
    )
    return src


def _wheel(src, out, env=None):
    """The wheel pip builds from ``src`` (docs/development.md's ``pip wheel`` step)."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
        + ["--quiet", "-w", str(out), str(src)],
        check=True,
        capture_output=True,
        env=env,
    )
    (wheel,) = out.glob("pybnclassify-*.whl")
    return wheel


@pytest.mark.slow
def test_wheel_contents(tmp_path):
    _build_backend_or_skip()
    # the wheel's contents do not depend on how fast its kernels are: compiled at -O0 (setup.py
    # then leaves out its -O3), 2 s against 20 s
    env = {**os.environ, "CFLAGS": f"{os.environ.get('CFLAGS', '')} -O0".strip()}
    wheel = _wheel(_source_copy(tmp_path), tmp_path / "dist", env)
    # the compiled kernels make it a wheel for this Python and platform; they are optional
    # (no C compiler: a pure wheel), required where BNCLASSIFY_EXPECT_COMPILED=1 says so (CI)
    expect_compiled = bool(os.environ.get("BNCLASSIFY_EXPECT_COMPILED"))
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    if expect_compiled:
        assert wheel.name.startswith(f"pybnclassify-{bnclassify.__version__}-{tag}-{tag}-")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        dist_info = f"pybnclassify-{bnclassify.__version__}.dist-info"
        metadata = zf.read(f"{dist_info}/METADATA").decode()
    compiled = any(
        n.startswith("bnclassify/_native/_kernels.") and n.endswith((".so", ".pyd")) for n in names
    )
    assert compiled or not expect_compiled
    assert "bnclassify/py.typed" in names
    csvs = sorted(p.name for p in (ROOT / "bnclassify" / "datasets" / "data").glob("*.csv"))
    assert csvs
    for csv in csvs:
        assert f"bnclassify/datasets/data/{csv}" in names
    assert f"{dist_info}/licenses/LICENSE" in names
    assert "License-Expression: MIT" in metadata
    # "bnclassify" on the index is another project: this one is published as pybnclassify
    assert "\nName: pybnclassify\n" in metadata
    assert "License-File: LICENSE" in metadata
    assert f"Version: {bnclassify.__version__}" in metadata


@pytest.mark.slow
def test_without_a_c_compiler_the_wheel_is_pure_and_runs_the_numpy_kernels(tmp_path):
    # the compiled kernels are optional (setup.py: optional=True): on a machine without a C
    # compiler the build succeeds, the wheel holds no compiled file (setuptools still tags it
    # for this platform: the project declares an extension), and bnclassify runs the numpy
    # kernels
    _build_backend_or_skip()
    env = {**os.environ, "CC": "false", "LDSHARED": "false"}  # every compile fails
    wheel = _wheel(_source_copy(tmp_path), tmp_path / "dist", env)
    with zipfile.ZipFile(wheel) as zf:
        assert not any(
            n.startswith("bnclassify/_native/_kernels.") and n.endswith(".so")
            for n in zf.namelist()
        )
        zf.extractall(tmp_path / "site")
    check = (
        # an editable install's finder maps bnclassify._native._kernels to the checkout's compiled
        # file whatever the path says: leave it out, so only the unpacked wheel is imported
        "import sys; sys.meta_path[:] = [f for f in sys.meta_path"
        " if not getattr(f, '__module__', '').startswith('__editable__')];"
        "import bnclassify._native as n; from bnclassify import TAN;"
        "from bnclassify.datasets import load_car; X, y = load_car(return_X_y=True);"
        "print(n.COMPILED, n.__file__, round(TAN().fit(X, y).score(X, y), 3))"
    )
    environment = {**os.environ, "PYTHONPATH": str(tmp_path / "site")}
    environment.pop("BNCLASSIFY_NUMPY_KERNELS", None)
    done = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, env=environment, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    compiled, path, score = done.stdout.split()
    assert compiled == "False" and path.startswith(str(tmp_path / "site"))
    assert float(score) > 0.9


def test_the_source_distribution_carries_the_c_source_and_the_data(tmp_path):
    # what pip builds from on a platform without a wheel: the kernels' C source (compiled
    # there, or skipped without a compiler), the data and the licence
    _build_backend_or_skip()
    src = _source_copy(tmp_path)
    built = subprocess.run(
        [
            sys.executable,
            "-c",
            "from setuptools import build_meta as b; print(b.build_sdist('dist'))",
        ],
        cwd=src,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    sdist = src / "dist" / built.stdout.split()[-1]
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for name in (
        "bnclassify/_native/_kernels.c",
        "setup.py",
        "pyproject.toml",
        "LICENSE",
        "README.md",
    ):
        assert name in names, name
    assert "bnclassify/datasets/data/car.csv" in names


def test_the_release_steps_are_documented():
    page = (ROOT / "docs" / "development.md").read_text()
    for step in ("python -m build", "pip wheel", "no compiled file", "_kernels.c", "twine check"):
        assert step in page, step
    readme = (ROOT / "README.md").read_text()
    # not on the package index yet: no install command from it is presented as working
    assert "pip install pybnclassify" not in readme.replace("\n", " ")
    assert "not on the package index yet" in " ".join(readme.split())
