"""A campaign case, how its outcome is classified, and the checks of a right answer.

A case is one call of the public API on one input. Its outcome is one of

- ``correct``: the call returned and its check against a reference (a peer library, a
  slow obvious computation, an invariance the answer must keep) held;
- ``clear error``: a ``ValueError``/``TypeError`` (every bnclassify exception is one)
  raised by bnclassify whose message names one of the case's ``names`` (the column,
  value or parameter the input is about); also an ``OSError`` or ``ImportError`` naming
  the file or module given (Python's own errors for a missing file or module);
- bad: ``wrong`` (the check failed), ``crash`` (any other exception, or an error raised
  from inside numpy, pandas, scikit-learn, ...), ``unnamed`` (a clear type whose message
  names none of them), ``hang`` (over the time limit), ``warning`` (a numpy/pandas
  RuntimeWarning, a deprecation or another library's warning reached the caller);
- ``broken``: the case itself is wrong, not the library: it called a function with arguments
  it does not take (a ``TypeError`` Python raised at the call in the campaign's own code).
  Such a case tests nothing, and once counted as a clear error.
"""

from __future__ import annotations

import dataclasses
import re
import signal
import time
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

import bnclassify

LIBRARY = str(Path(bnclassify.__file__).parent)
STDLIB = str(Path(traceback.__file__).parent)
CAMPAIGN = str(Path(__file__).parent.parent)
#: Categories a library warns with on purpose for its caller to read.
OWN_CATEGORIES = (UserWarning,)
#: Warnings of peers the test suite lets through too (pyproject's filterwarnings), and
#: scikit-learn's DataConversionWarning for a column-vector y, which its estimator checks
#: require of a classifier.
TOLERATED = (
    ("pgmpy", FutureWarning),
    ("pgmpy", DeprecationWarning),
    ("shap", PendingDeprecationWarning),
)
TOLERATED_CATEGORIES = ("DataConversionWarning",)
#: A peer's errors that are the convention bnclassify follows on purpose: scikit-learn's
#: NotFittedError (a ValueError naming the estimator, from ``check_is_fitted``).
CLEAR_PEER_ERRORS = ("NotFittedError",)
BAD = ("wrong", "crash", "unnamed", "hang", "warning", "broken")
#: What Python says of a call whose arguments do not fit the function's signature.
SIGNATURE_ERRORS = re.compile(
    r"unexpected keyword argument|required (positional|keyword-only) argument|"
    r"positional arguments? but \d+ (was|were) given|object is not callable"
)


@dataclasses.dataclass(frozen=True)
class Case:
    """One call on one input.

    ``call()`` returns True (the answer checked right) or False (wrong); any exception is
    classified. ``names``: a clear error's message holds one of them (empty: any message
    raised by bnclassify). ``covers``: the public names the call exercises. ``fast``: part
    of the subset the test suite runs.
    """

    kind: str
    name: str
    call: Callable[[], bool]
    names: tuple = ()
    covers: tuple = ()
    fast: bool = False
    #: Too slow for the suite's random sample (a run of the command line on a wide table).
    slow: bool = False
    #: The wall-clock limit in multiples of the CPU limit (a case that waits on a child
    #: process spends no CPU of its own; the child has its own CPU limit).
    wall_factor: float = 10


@dataclasses.dataclass(frozen=True)
class Outcome:
    status: str
    detail: str = ""
    where: str = ""
    seconds: float = 0.0

    @property
    def bad(self) -> bool:
        return self.status in BAD


class CaseTimeout(BaseException):
    """Raised in a case that ran over its time limit (a BaseException: no library code
    that catches Exception swallows it)."""


def _on_alarm(signum, frame):
    raise CaseTimeout


def _site(error) -> str:
    """``file:line`` where ``error`` was raised (the innermost frame)."""
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return "?"
    last = frames[-1]
    return f"{_short(last.filename)}:{last.lineno}"


def _short(filename: str) -> str:
    for root, prefix in ((LIBRARY, "bnclassify"), (CAMPAIGN, "tools")):
        if filename.startswith(root):
            return prefix + filename[len(root) :]
    parts = Path(filename).parts
    if "site-packages" in parts:
        return "/".join(parts[parts.index("site-packages") + 1 :])
    return filename


def _raised_inside_a_peer(error) -> bool:
    """Whether the innermost frame is an installed library's (numpy, pandas, ...), and the
    type not bnclassify's: a crash from deep inside, whatever its message."""
    if type(error).__module__.startswith("bnclassify"):
        return False
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return False
    inner = frames[-1].filename
    return "site-packages" in Path(inner).parts or inner.startswith(("<frozen", STDLIB))


def _bad_warning(record) -> bool:
    category = record.category
    module = category.__module__.split(".")[0]
    if category.__name__ in TOLERATED_CATEGORIES:
        return False
    source = _short(record.filename or "").split("/")[0]
    if any(source == peer and issubclass(category, kind) for peer, kind in TOLERATED):
        return False
    if issubclass(category, (RuntimeWarning, DeprecationWarning, FutureWarning)):
        return True
    if module not in ("builtins", "bnclassify"):
        return True  # a peer's own category (pandas' PerformanceWarning, sklearn's ...)
    # a plain UserWarning: ours unless another library's file issued it
    filename = record.filename or ""
    return "site-packages" in filename and not filename.startswith(LIBRARY)


def run_case(case: Case, time_limit: float = 60.0) -> Outcome:
    """Call ``case`` once and classify what happened.

    The time limit is on the process's CPU time (``ITIMER_PROF``), not the wall clock: on
    a machine shared by many jobs a case's wall time says more about the load than about
    the case; on a quiet machine the two agree for the single-threaded work here.
    """
    start = time.perf_counter()
    previous = signal.signal(signal.SIGPROF, _on_alarm), signal.signal(signal.SIGALRM, _on_alarm)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        signal.setitimer(signal.ITIMER_PROF, time_limit)
        signal.setitimer(signal.ITIMER_REAL, case.wall_factor * time_limit)  # a wait: no CPU
        try:
            result = case.call()
            _draw_figures()  # a figure costs most when drawn: inside the time limit too
            outcome = _returned(result)
        except CaseTimeout:
            outcome = Outcome("hang", f"over {time_limit:g} s of CPU time")
        except (ValueError, TypeError, OSError, ImportError) as error:
            outcome = _refused(case, error)
        except Exception as error:  # noqa: BLE001 - what the campaign looks for
            outcome = Outcome("crash", f"{type(error).__name__}: {error}", _site(error))
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGPROF, previous[0])
            signal.signal(signal.SIGALRM, previous[1])
            _close_figures()
    seconds = time.perf_counter() - start
    leaked = [w for w in caught if _bad_warning(w)]
    if leaked and outcome.status != "hang":
        first = leaked[0]
        outcome = Outcome(
            "warning",
            f"{first.category.__name__}: {first.message}",
            f"{_short(first.filename)}:{first.lineno}",
        )
    return dataclasses.replace(outcome, seconds=seconds)


def _returned(result) -> Outcome:
    if result is True or result is np.True_:
        return Outcome("correct")
    if result is False or result is np.False_:
        return Outcome("wrong", "the check against the reference failed")
    raise AssertionError(f"a case returned {result!r}, not True or False")


def _raised_by_the_case(error) -> bool:
    """Whether Python refused a call in the case's own code (not the library's, not a
    peer's) for its arguments."""
    frames = traceback.extract_tb(error.__traceback__)
    return (
        isinstance(error, TypeError)
        and bool(frames)
        and not frames[-1].filename.startswith(LIBRARY)
        and not _raised_inside_a_peer(error)
        and SIGNATURE_ERRORS.search(str(error)) is not None
    )


def _refused(case: Case, error) -> Outcome:
    text = f"{type(error).__name__}: {error}"
    if _raised_by_the_case(error):
        return Outcome("broken", text, _site(error))
    system = isinstance(error, OSError | ImportError)  # named by the file or module given
    if (
        _raised_inside_a_peer(error)
        and not system
        and type(error).__name__ not in CLEAR_PEER_ERRORS
    ):
        return Outcome("crash", text, _site(error))
    message = str(error).lower()
    if not message.strip():
        return Outcome("unnamed", text, _site(error))
    if case.names and not any(str(n).lower() in message for n in case.names):
        return Outcome("unnamed", text, _site(error))
    return Outcome("clear error", text, _site(error))


def _draw_figures():
    import matplotlib.pyplot as plt

    for number in plt.get_fignums():
        plt.figure(number).canvas.draw()


def _close_figures():
    import matplotlib.pyplot as plt

    plt.close("all")


# -- checks of a right answer -------------------------------------------------------------


def proba_ok(proba, n_rows=None, n_classes=None) -> bool:
    """Probabilities finite, in [0, 1], rows summing to 1, of the expected shape."""
    proba = np.asarray(proba, dtype=float)
    if proba.ndim != 2:
        return False
    if n_rows is not None and proba.shape[0] != n_rows:
        return False
    if n_classes is not None and proba.shape[1] != n_classes:
        return False
    return bool(
        np.isfinite(proba).all()
        and (proba >= 0).all()
        and (proba <= 1 + 1e-12).all()
        and np.allclose(proba.sum(axis=1), 1.0)
    )


def same(a, b, atol=1e-9) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.allclose(a, b, atol=atol, rtol=0))
