"""When evaluate's progress bar shows: terminals and Jupyter kernels; never in CI or when told."""

import io
import sys
import types
from pathlib import Path

import pytest

from bnclassify import NaiveBayes, metrics
from bnclassify.datasets import make_tree_classification
from bnclassify.metrics import _in_jupyter_kernel, _show_progress, evaluate

ROOT = Path(__file__).resolve().parents[1]


class _Stream(io.StringIO):
    def __init__(self, tty):
        super().__init__()
        self._tty = tty

    def isatty(self):
        return self._tty


@pytest.mark.parametrize("tty", [False, True])
@pytest.mark.parametrize("kernel", [False, True])
@pytest.mark.parametrize("ci", [None, "true", "1", "", "0", "false"])
def test_default_shows_where_someone_watches_and_never_in_ci(tty, kernel, ci):
    environ = {} if ci is None else {"CI": ci}
    ci_on = ci not in (None, "", "0", "false")
    expected = (tty or kernel) and not ci_on
    shown = _show_progress(None, environ=environ, stream=_Stream(tty), in_kernel=kernel)
    assert shown is expected


@pytest.mark.parametrize(
    "progress, expected", [(False, False), (0, False), (True, True), (1, True)]
)
def test_explicit_progress_is_obeyed(progress, expected):
    for environ in ({}, {"CI": "true"}):
        for tty in (False, True):
            shown = _show_progress(progress, environ=environ, stream=_Stream(tty), in_kernel=True)
            assert shown is expected


def test_stream_without_isatty_or_closed_is_not_a_terminal():
    assert _show_progress(None, environ={}, stream=object(), in_kernel=False) is False
    closed = io.StringIO()
    closed.close()
    assert _show_progress(None, environ={}, stream=closed, in_kernel=False) is False


def _fake_ipython(monkeypatch, shell):
    module = types.ModuleType("IPython")
    module.get_ipython = lambda: shell
    monkeypatch.setitem(sys.modules, "IPython", module)


def test_kernel_detection(monkeypatch):
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    assert _in_jupyter_kernel() is False
    _fake_ipython(monkeypatch, None)  # IPython imported, no shell running
    assert _in_jupyter_kernel() is False
    _fake_ipython(monkeypatch, types.SimpleNamespace(config={}))  # terminal IPython
    assert _in_jupyter_kernel() is False
    _fake_ipython(monkeypatch, types.SimpleNamespace(config={"IPKernelApp": {}}))
    assert _in_jupyter_kernel() is True


def test_evaluate_default_bar_in_kernel_unless_ci(monkeypatch, capsys):
    X, y = make_tree_classification(100, 3, random_state=0)
    monkeypatch.setattr(metrics, "_in_jupyter_kernel", lambda: True)
    monkeypatch.delenv("CI", raising=False)
    evaluate({"NB": NaiveBayes()}, X, y, cv=2)
    assert "NB fold" in capsys.readouterr().err
    monkeypatch.setenv("CI", "true")
    evaluate({"NB": NaiveBayes()}, X, y, cv=2)
    assert capsys.readouterr().err == ""


def test_real_jupyter_kernel_is_detected(monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    code = (
        "from bnclassify.metrics import _show_progress\n"
        "print(_show_progress(None), _show_progress(False))"
    )
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    assert nb.cells[0].outputs[0]["text"].strip() == "True False"
