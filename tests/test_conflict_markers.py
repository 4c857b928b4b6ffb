"""No tracked text file keeps a merge's conflict markers (ruff sees Python files only)."""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(rb"^(<<<<<<< |>>>>>>> )", re.MULTILINE)


def _tracked():
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout (an sdist or a wheel): nothing tracked to read")
    return [ROOT / name for name in out.decode().split("\0") if name]


def test_no_tracked_file_holds_conflict_markers():
    found = []
    for path in _tracked():
        if path.suffix in {".png", ".json", ".parquet", ".so"} or not path.is_file():
            continue
        if MARKER.search(path.read_bytes()):
            found.append(str(path.relative_to(ROOT)))
    assert not found, f"conflict markers left in {found}"
