"""Sphinx configuration of the bnclassify documentation.

Build: ``sphinx-build -W -n --keep-going -b html docs docs/_build/html`` (nitpicky: every
cross-reference must resolve). Offline by
default; ``BNCLASSIFY_DOCS_INTERSPHINX=1`` adds links to other projects' docs
(fetching their inventories needs the network).
"""

import os
import shutil
from pathlib import Path

import bnclassify

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent

project = "bnclassify"
author = "bnclassify developers"
copyright = "bnclassify developers"
release = version = bnclassify.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax shipped with the site: formulas render offline
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",
]
exclude_patterns = ["_build", "_templates", "results.md", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]

# The API reference: one page per public name, listed from each module's __all__,
# so names and modules added later appear without editing the docs.
PACKAGE = Path(bnclassify.__file__).parent
SUBMODULES = (  # io, stream: when present
    "datasets distributions factors data stats weights information structure network parameters "
    "inference "
    "metrics explain plotting contacts chimeras preprocessing study io stream exceptions "
    "distributed validation discriminative"
).split()
API_MODULES = ["bnclassify"] + [
    f"bnclassify.{name}"
    for name in SUBMODULES
    if (PACKAGE / name).is_dir() or (PACKAGE / f"{name}.py").is_file()
]
(DOCS / "api.rst").write_text(
    "API reference\n=============\n\n"
    "Generated from the numpydoc docstrings: one page per public name.\n\n"
    ".. autosummary::\n   :toctree: generated\n\n" + "".join(f"   {name}\n" for name in API_MODULES)
)
autosummary_generate = True
autosummary_ignore_module_all = False  # a module's __all__ is its public API
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
# bnclassify.distributions re-exports bnclassify.factors' classes: index them once.
autosummary_context = {"alias_modules": ["bnclassify.distributions"]}
numpydoc_show_class_members = False  # the class template lists the methods
numpydoc_class_members_toctree = False


def skip_member(app, what, name, obj, skip, options):
    """Leave out what scikit-learn adds to every estimator (set_output, *_request, ...)."""
    from_sklearn = (getattr(obj, "__module__", None) or "").startswith("sklearn.")
    return True if from_sklearn or name.endswith("_request") else None


# Offline, other projects' names cannot resolve; private bases ("Bases: ...") and
# helpers have no page by design.
nitpick_ignore_regex = [
    ("py:.*", r"(sklearn|scipy|matplotlib|numpy|pandas|networkx|pgmpy|shap)(\..*)?"),
    ("py:.*", r"(.*\.)?_[A-Za-z].*"),
]
# Named in docstrings, with no page of their own: module constants, helpers of
# modules outside the API list, and bnclassify.classifiers' weighting estimators
# (exported by that package only, not by bnclassify; the lead decides whether
# they get pages).
nitpick_ignore = [
    ("py:data", name)
    for name in (
        "ESS_GRID",
        "CONTACT_PRIOR_GRID",
        "MAX_COMPLETIONS",
        "MAX_ESTIMATORS",
        "MAX_MEMBER_NODES",
    )
] + [
    ("py:class", "bnclassify.state.StateError"),
    ("py:func", "bnclassify.parameters.log_conditional"),
    ("py:func", "codes_dtype"),
    ("py:func", "coherent_signal_subgraph"),
    ("py:obj", "bnclassify.distributions.Distribution"),
    *[
        ("py:class", f"{prefix}{name}")
        for prefix in ("", "bnclassify.classifiers.")
        for name in ("AWNB", "MANB", "WANBIA")
    ],
]


def _reference_candidates(target, kind, node, objects):
    """Documented names a short or re-exported reference can mean, best first."""
    target = target.lstrip("~.")
    if target.startswith("bnclassify.distributions."):  # re-exports of bnclassify.factors
        yield target.replace("bnclassify.distributions.", "bnclassify.factors.", 1)
    module, cls = node.get("py:module") or "", node.get("py:class") or ""
    for scope in (f"{module}.{cls}", module, "bnclassify.factors", "bnclassify"):
        yield f"{scope}.{target}"
    last = target.rsplit(".", 1)[-1]
    ends = sorted((name for name in objects if name.endswith(f".{last}")), key=len)
    if ends and not last.startswith("_"):
        yield ends[0]
    if kind == "mod":  # an undocumented submodule: its documented package
        parts = target.split(".")
        for stop in range(len(parts) - 1, 0, -1):
            yield ".".join(parts[:stop])


def resolve_reference(app, env, node, contnode):
    """Resolve short names (``Gaussian``, ``model_values``) and re-exported paths."""
    if node.get("refdomain") != "py":
        return None
    from sphinx.util.nodes import make_refnode

    objects = env.get_domain("py").objects
    for name in _reference_candidates(node["reftarget"], node["reftype"], node, objects):
        entry = objects.get(name)
        if entry is not None:
            return make_refnode(
                app.builder, node["refdoc"], entry.docname, entry.node_id, contnode, name
            )
    return None


def stray_dollars(html):
    """Text of a rendered page where a ``$`` is left outside maths, code and outputs.

    MyST renders ``$$...$$`` only as a paragraph of its own; glued to the text
    around it, the dollars come out literally.
    """
    import html as html_module
    import re

    body = re.search(r"<article.*?</article>", html, re.S)
    html = body.group(0) if body else html
    for pattern in (
        r"<(pre|code|script|style)\b.*?</\1>",
        r'<div class="math[^"]*".*?</div>',
        r'<span class="math[^"]*".*?</span>',
        r'<div class="cell_output.*?</div>\s*</div>',
    ):
        html = re.sub(pattern, "", html, flags=re.S)
    text = html_module.unescape(re.sub(r"<[^>]+>", "", html))
    return [text[max(0, m.start() - 50) : m.end() + 30] for m in re.finditer(r"\$", text)]


def check_notebook_maths(app, exception):
    """Warn (an error under ``-W``) on each stray ``$`` of a built notebook page."""
    if exception is not None or app.builder.format != "html":
        return
    from sphinx.util import logging

    logger = logging.getLogger(__name__)
    for page in sorted(Path(app.outdir, "examples", "notebooks").glob("*.html")):
        for context in stray_dollars(page.read_text(encoding="utf-8")):
            logger.warning("stray $ (maths not rendered) in %s: %r", page.name, context)


def setup(app):
    app.connect("autodoc-skip-member", skip_member)
    app.connect("missing-reference", resolve_reference)
    app.connect("build-finished", check_notebook_maths)


# The notebooks live in ../notebooks, committed executed: copy them into the
# source tree at build time and render their stored outputs, never run them.
shutil.rmtree(DOCS / "examples" / "notebooks", ignore_errors=True)
shutil.copytree(
    ROOT / "notebooks",
    DOCS / "examples" / "notebooks",
    ignore=shutil.ignore_patterns(".ipynb_checkpoints"),
)
nb_execution_mode = "off"
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3

if os.environ.get("BNCLASSIFY_DOCS_INTERSPHINX") == "1":
    extensions.append("sphinx.ext.intersphinx")
    intersphinx_mapping = {
        "python": ("https://docs.python.org/3", None),
        "numpy": ("https://numpy.org/doc/stable", None),
        "pandas": ("https://pandas.pydata.org/docs", None),
        "networkx": ("https://networkx.org/documentation/stable", None),
        "pgmpy": ("https://pgmpy.org", None),
        "sklearn": ("https://scikit-learn.org/stable", None),
        "shap": ("https://shap.readthedocs.io/en/latest", None),
    }

html_theme = "pydata_sphinx_theme"
html_title = f"bnclassify {version}"
html_theme_options = {
    "github_url": "https://github.com/bnclassify/bnclassify",
    "navigation_with_keys": False,
    # the sidebar shows the current page's branch only: with every API page listed, each
    # of the ~400 pages rendered the whole tree (a third of the build's time)
    "collapse_navigation": True,
    # The notebooks' and the study's figures are 1,600-2,100 px wide: their pages give the
    # page TOC's column to the article (the notebooks keep their list on the left).
    "secondary_sidebar_items": {
        "**": ["page-toc", "edit-this-page", "sourcelink"],
        "study": [],
        # pages whose figures are wider than a column: the article takes the page TOC's width
        "user_guide/contact_matrices": [],
        "user_guide/explanations": [],
        # by name: a second wildcard pattern would match these pages twice (a warning)
        **{f"examples/notebooks/{nb.stem}": [] for nb in (ROOT / "notebooks").glob("*.ipynb")},
    },
}
html_static_path = ["_static"]
html_css_files = ["bnclassify.css"]
html_js_files = ["zoom.js"]  # figures shown smaller than their pixels open at full size
# Pages of wide figures and tables with no section navigation of their own: the article
# takes the left column too (the study's 2,080-px tree comparison was shown at ~620 px).
html_sidebars = {name: [] for name in ("study", "benchmarks", "architecture", "changelog")}
