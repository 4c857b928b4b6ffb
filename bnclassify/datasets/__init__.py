"""Bundled data sets (P450 and lactamase chimeras with contact matrices, UCI car,
nursery and vote) and synthetic data generators."""

from ._loaders import (
    load_car,
    load_csv,
    load_lactamase,
    load_nursery,
    load_p450,
    load_vote,
)

__all__ = [
    "load_car",
    "load_csv",
    "load_lactamase",
    "load_nursery",
    "load_p450",
    "load_vote",
]
