"""Models that travel: model files, and pgmpy networks both ways.

- :func:`dump` / :func:`load`: a fitted estimator to a documented, versioned
  file (a zip of ``model.json`` and ``.npy`` arrays, see
  :mod:`bnclassify.io._format`) and back, bit for bit, without pickle;
- :func:`from_pgmpy`: a pgmpy ``DiscreteBayesianNetwork`` shaped like an
  augmented naive Bayes to a fitted bnclassify classifier;
- :func:`to_bif` / :func:`from_bif`: a categorical model to a BIF file and back,
  through pgmpy's reader and writer.

A model file names classes only from :data:`ESTIMATORS` (and the factors,
schemas and fitted networks inside them) and stores each object's declared
state (:mod:`bnclassify.state`), not its attributes; a new bnclassify
estimator becomes storable with one line in ``bnclassify/io/registry.py`` and
its ``_get_state`` / ``_from_state`` pair, as long as its fields are of the
kinds the format holds (numbers, strings, arrays, lists, tuples, dicts,
DataFrames, networkx graphs, other persisted objects).

Examples
--------
>>> import os, tempfile
>>> import numpy as np
>>> from bnclassify import KDB
>>> from bnclassify.datasets import load_car
>>> from bnclassify.io import dump, load
>>> X, y = load_car(return_X_y=True)
>>> model = KDB(k=2).fit(X, y)
>>> path = dump(model, os.path.join(tempfile.mkdtemp(), "kdb.bnc"))
>>> again = load(path)
>>> again.order_ == model.order_
True
>>> bool(np.array_equal(again.predict_proba(X), model.predict_proba(X)))
True
"""

from ._format import FORMAT_VERSION, MAX_UNCOMPRESSED_BYTES, ModelFileError, dump, load
from ._pgmpy import PgmpyClassifier, from_bif, from_pgmpy, to_bif
from .registry import ESTIMATORS

__all__ = [
    "ESTIMATORS",
    "PgmpyClassifier",
    "from_bif",
    "from_pgmpy",
    "to_bif",
    "FORMAT_VERSION",
    "MAX_UNCOMPRESSED_BYTES",
    "ModelFileError",
    "dump",
    "load",
]
