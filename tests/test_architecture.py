"""The layers of docs/architecture.md, checked on the source and on a traced fit.

- imports point down the layers only (module-level and function-level alike), with
  no cycle;
- no function-level import of the package's own modules below the study (a lazy
  import there only keeps the command line quick to start);
- no read of another object's ``_private`` attribute outside the module (or
  subpackage) that defines the name;
- following ``X`` through ``TAN.fit``, each layer calls only into its own layer or
  below, except the estimator that orchestrates the fit.
"""

from __future__ import annotations

import ast
import functools
import pathlib
import sys

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import bnclassify
from bnclassify import TAN, NaiveBayes

PACKAGE = pathlib.Path(bnclassify.__file__).parent

#: Layers from the bottom up; a module belongs to the first prefix it starts with.
LAYERS = [
    (
        "foundation",
        (
            "_version",
            "validation",
            "exceptions",
            "state",
            "_native",
            "_kernels",
            "_collector",
            "parameters",
        ),
    ),
    ("data", ("data",)),
    ("stats", ("stats",)),
    ("factors", ("factors", "distributions")),
    (
        "weights and structure",
        (
            "information",
            "weights",
            "structure",
            "spanning_trees",
            "scores",
            "dag_search",
            "graph_edges",
        ),
    ),
    ("network", ("network", "elimination", "discriminative")),
    ("classifiers", ("classifiers", "distributed", "preprocessing")),
    (
        "use",
        (
            "explain",
            "_shap_families",
            "plotting",
            "_plot*",
            "io",
            "metrics",
            "datasets",
            "contacts",
            "chimeras",
            "inference",
        ),
    ),
    ("study", ("study",)),
]


def _matches(name: str, prefix: str) -> bool:
    """``prefix`` names a module or subpackage; one ending in ``*`` any name it starts."""
    if prefix.endswith("*"):
        return name.startswith(prefix[:-1])
    return name == prefix or name.startswith(prefix + ".")


def layer_of(module: str) -> int:
    """The layer index of ``bnclassify.<module>`` (the package itself sits on top)."""
    name = module.removeprefix("bnclassify").removeprefix(".")
    if not name:
        return len(LAYERS)
    for index, (_, prefixes) in enumerate(LAYERS):
        if any(_matches(name, p) for p in prefixes):
            return index
    raise AssertionError(f"bnclassify.{name} is in no layer of LAYERS: place it in one.")


def _modules() -> dict:
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    return modules


MODULES = _modules()


def _imports(name: str, path: pathlib.Path):
    """``(target module, line, inside a function)`` of every import of the package."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    functions = [
        node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    inside = {id(n) for f in functions for n in ast.walk(f) if n is not f}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("bnclassify"):
                continue
            for alias in node.names:
                full = f"{target}.{alias.name}"
                # "from . import _kernels" names a module (a compiled one is not in MODULES)
                submodule = full in MODULES or (node.module is None and alias.name != "*")
                yield (full if submodule else target), node.lineno, id(node) in inside
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("bnclassify"):
                    yield alias.name, node.lineno, id(node) in inside


@functools.cache
def imports_of_every_module() -> dict:
    """Each module's imports of the package, parsed once, by the first test that asks (not at
    collection, which every test process of the suite does)."""
    return {name: list(_imports(name, path)) for name, path in MODULES.items()}


def test_every_module_has_a_layer():
    for name in MODULES:
        layer_of(name)


def test_imports_point_down_the_layers():
    upward = [
        f"{name}:{line} imports {target} ({LAYERS[layer_of(target)][0]} above "
        f"{LAYERS[layer_of(name)][0]})"
        for name, imports in imports_of_every_module().items()
        for target, line, _ in imports
        if name != "bnclassify" and layer_of(target) > layer_of(name)
    ]
    assert upward == []


def test_no_import_cycle():
    graph = nx.DiGraph()
    for name, imports in imports_of_every_module().items():
        for target, _, _ in imports:
            # a subpackage's __init__ re-exports its own modules; that is not a cycle
            if target != name and not target.startswith(name + "."):
                graph.add_edge(name, target)
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert cycles == []


def test_no_function_level_import_of_the_package_below_the_study():
    lazy = [
        f"{name}:{line} imports {target} inside a function"
        for name, imports in imports_of_every_module().items()
        for target, line, in_function in imports
        if in_function and layer_of(name) < layer_of("bnclassify.study")
    ]
    assert lazy == []


def _unit(name: str) -> str:
    """The module, or the subpackage, whose private names a module may read."""
    parts = name.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 or MODULES[name].name == "__init__.py" else name


def _private_names(path: pathlib.Path) -> set:
    """Underscore names a module defines: functions, classes, attributes it assigns."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


#: The one pair of methods each persisted class declares and only io calls (see bnclassify.io).
PERSISTENCE_PROTOCOL = {"_get_state", "_from_state"}


def test_no_private_attribute_read_outside_its_module():
    defined = {}
    for name, path in MODULES.items():
        defined.setdefault(_unit(name), set()).update(_private_names(path))
    reads = []
    for name, path in MODULES.items():
        own = defined[_unit(name)]
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Attribute):
                continue
            attr = node.attr
            if not attr.startswith("_") or attr.startswith("__"):
                continue
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            if isinstance(owner, ast.Call) and getattr(owner.func, "id", None) == "super":
                continue
            if attr in own or attr in PERSISTENCE_PROTOCOL:
                continue
            reads.append(f"{name}:{node.lineno} reads {ast.unparse(owner)}.{attr}")
    assert reads == []


# -- the traced fit ----------------------------------------------------------------------
ORCHESTRATOR = "bnclassify.classifiers"
#: Modules that run what each class declares for them (a constraint's check, defined next
#: to the class it constrains): calls from them are the declaring layer's own.
DECLARATION_RUNNERS = ("bnclassify.validation",)


def _traced_calls(function):
    """``(caller module, callee module)`` of every call between two package modules."""
    calls = []

    def profile(frame, event, arg):
        if event != "call":
            return
        callee = frame.f_globals.get("__name__", "")
        caller_frame = frame.f_back
        caller = caller_frame.f_globals.get("__name__", "") if caller_frame else ""
        if callee.startswith("bnclassify") and caller.startswith("bnclassify"):
            if callee != caller:
                calls.append((caller, callee))

    sys.setprofile(profile)
    try:
        function()
    finally:
        sys.setprofile(None)
    return calls


def _mixed_table(n=400, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(["no", "yes"], n)
    X = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n),
            "size": np.where(y == "yes", 1.0, 0.0) + rng.normal(size=n),
            "site": rng.choice([1, 2, 3, 4], n),
            "dose": rng.lognormal(size=n),
        }
    )
    X.loc[::17, "colour"] = None
    return X, pd.Series(y, name="outcome")


@pytest.mark.parametrize(
    "model", [TAN(), TAN(criterion="aic"), NaiveBayes()], ids=["TAN", "TAN-aic", "NaiveBayes"]
)
def test_a_fit_calls_down_the_layers_only(model):
    X, y = _mixed_table()
    calls = _traced_calls(lambda: model.fit(X, y))
    assert calls, "the profile saw no call between the package's modules"
    climbs = sorted(
        {
            f"{caller} -> {callee}"
            for caller, callee in calls
            if layer_of(callee) > layer_of(caller)
            and not caller.startswith(ORCHESTRATOR)
            and caller not in DECLARATION_RUNNERS
        }
    )
    assert climbs == []
    # and the fit does reach every layer from the data to the network
    reached = {LAYERS[layer_of(callee)][0] for _, callee in calls}
    assert {"data", "stats", "factors", "weights and structure", "network"} <= reached
