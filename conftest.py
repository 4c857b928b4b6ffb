"""Test-session settings for the whole repository (tests, doctests, notebooks)."""

import inspect
import re
import sys
import types

import matplotlib

matplotlib.use("Agg")  # never open windows; doctests in bnclassify/ draw too

import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    """Close every figure a test opened, passed or failed: no test reads another's figure."""
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def client():
    """A real dask cluster of two worker processes (one thread each) and its client, per module
    that asks for it: dask fits tested as they run on a cluster (pickled tasks, other processes).
    """
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    with distributed.Client(cluster) as dask_client:
        yield dask_client
    cluster.close()


@pytest.fixture(scope="module")
def numbers_as_densities():
    """The kinds rule models continuous columns as densities (Gaussian or log-normal), the
    default before issue 32 item 3 made them binned, for every test of the module that asks
    (``pytestmark = pytest.mark.usefixtures("numbers_as_densities")``): tests of those nodes
    as the rule chooses them, in every estimator at its default ``distributions``.
    Module-scoped, so hypothesis tests may use it.
    """
    from bnclassify.data import kinds_rule

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(kinds_rule, "NUMERIC_KIND", "density")
        yield


@pytest.fixture
def densities(monkeypatch):
    """:func:`numbers_as_densities` for one test (a module-scoped fixture asked for by one
    test would stay set for the rest of its module)."""
    from bnclassify.data import kinds_rule

    monkeypatch.setattr(kinds_rule, "NUMERIC_KIND", "density")


# -- the numpy-kernel pass of .ci/run: the tests that drive the kernel layer -----------------
KERNEL_LAYER = "bnclassify._native"  # the compiled kernels' wrappers and their numpy twins


def _in_kernel_layer(name) -> bool:
    return isinstance(name, str) and (name == KERNEL_LAYER or name.startswith(KERNEL_LAYER + "."))


def _home(value):
    """The module a module-level name refers to: itself if a module, else where it was defined."""
    if isinstance(value, types.ModuleType):
        return value.__name__
    try:
        return getattr(value, "__module__", None)
    except Exception:  # an object whose attribute lookup fails names no module
        return None


def _imports_kernel_layer(module) -> bool:
    """Whether a module holds the kernel layer, one of its modules or a name defined there."""
    return any(_in_kernel_layer(_home(value)) for value in list(vars(module).values()))


# what a test module reads on the kernel layer only to choose compiled or numpy kernels itself
SWITCH = {"runtime", "COMPILED"}


def _drives_kernel_layer(module) -> bool:
    """Whether a test module calls the kernel layer (a kernel's wrapper or numpy twin), not
    only switches it: a module that only sets ``runtime.COMPILED`` runs both kernels in the
    first pass itself, so the numpy pass would repeat those runs."""
    bound = {
        name: value for name, value in list(vars(module).items()) if _in_kernel_layer(_home(value))
    }
    if any(not isinstance(value, types.ModuleType) for value in bound.values()):
        return True  # a kernel's function or constant imported by name
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):
        return bool(bound)
    for name, value in bound.items():
        if value.__name__.endswith(".runtime"):
            continue  # the switch itself (and the compiled kernels, absent on the numpy pass)
        if set(re.findall(rf"\b{re.escape(name)}\.(\w+)", source)) - SWITCH:
            return True
    return False


def pytest_collection_modifyitems(config, items):
    """Mark ``kernels`` the tests that drive the kernel layer (``bnclassify._native``).

    A test module that calls the kernel layer (a name defined there, or a module of
    it used for more than the ``runtime.COMPILED`` switch), and the docstring
    examples of the kernel layer and of the library's modules that import it.
    Decided from the imports and the module's text at collection, so a new kernel,
    a new caller or a new test of one is picked up with no list to keep;
    ``BNCLASSIFY_NUMPY_KERNELS=1 pytest -m kernels`` is .ci/run's numpy-kernel pass
    (docs/development.md says why it proves the numpy path).
    """
    callers = {
        name
        for name, module in list(sys.modules.items())
        if name.startswith("bnclassify") and module is not None and _imports_kernel_layer(module)
    }
    for item in items:
        doctest = getattr(item, "dtest", None)  # a docstring example: the module it is in
        if doctest is not None:
            name = doctest.globs.get("__name__")
            reached = _in_kernel_layer(name) or name in callers
        else:
            module = getattr(item, "module", None)
            reached = module is not None and _drives_kernel_layer(module)
        if reached:
            item.add_marker("kernels")
    _slow_modules_first(items)


def _slow_modules_first(items):
    """Put the modules that hold a test marked ``slow`` first, each module's tests in order.

    pytest-xdist hands the tests out in this order, so the longest ones start while the
    short ones can still fill the other workers, instead of one of them running alone
    at the end. Whole modules move, so a module-scoped fixture is set up no more often.
    """
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow)  # a stable sort: in order otherwise
