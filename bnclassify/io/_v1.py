"""The reader of model files of format version 1: their attribute layout as declared fields.

Version 1 stored each object's attributes under their names at the time
(private ones included), a schema under the tag ``"schema"`` and a fitted
network under ``"network"``. Version 2 stores each class's declared state
(:mod:`bnclassify.state`), whose fields were chosen so that this one fixed
translation reads every version-1 file:

- a version-1 attribute ``_name`` is the field ``name``, a public attribute
  keeps its name, except for the few in :data:`RENAMED`;
- the attributes in :data:`DROPPED` (a cache, and what a class now rebuilds
  from its other fields) are not read;
- a ``"schema"`` / ``"network"`` node holds the fields of a
  :class:`~bnclassify.data.TableSchema` / :class:`~bnclassify.network.FittedNetwork`.

The tables below are fixed: they describe files already written, so they never
follow a later renaming of an attribute.

Examples
--------
>>> fields_of("AODE", {"_hubs": [1], "classes_": [0, 1], "_encoding": {}})
{'hubs': [1], 'classes_': [0, 1]}
"""

from __future__ import annotations

from ..data import TableSchema
from ..network import FittedNetwork

#: (class, version-1 attribute) -> field, where the field is not the attribute's name
#: without its leading underscore.
RENAMED = {
    ("BMATAN", "_params"): "posterior_means",
    ("MDLDiscretizer", "_frame"): "frame_output",
}
#: Version-1 attributes that are not fields: the pgmpy network cache (stored as
#: ``None``) and an ensemble's copy of its own encoding attributes.
DROPPED = frozenset({"_network", "_encoding"})
#: The version-1 value tags of the two classes stored without a state, and their fields.
TAGS = {"schema": TableSchema, "network": FittedNetwork}
FIELDS = {
    "schema": ("names", "nodes", "categories", "has_names"),
    "network": ("log_prior", "parents", "factors"),
}


def fields_of(class_name: str, attributes: dict) -> dict:
    """A version-1 object's stored attributes as the fields of its declared state."""
    out = {}
    for attribute, value in attributes.items():
        if attribute in DROPPED:
            continue
        field = RENAMED.get((class_name, attribute))
        if field is None:
            field = attribute[1:] if attribute.startswith("_") else attribute
        out[field] = value
    return out
