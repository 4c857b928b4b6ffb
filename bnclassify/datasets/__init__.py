"""Bundled data sets (P450 and lactamase chimeras with contact matrices, UCI car,
nursery and vote), a small protein structure file, synthetic data generators, and
rows sampled from a discrete Bayesian network with its Bayes-optimal posterior."""

from ._loaders import (
    capsid_structure_path,
    load_car,
    load_csv,
    load_lactamase,
    load_nursery,
    load_p450,
    load_vote,
)
from ._mixed import make_census_table, make_clinic_table, make_credit_table
from ._networks import make_signal_subgraph_networks
from ._sampling import bayes_posterior, sample_network, write_network_parquet
from ._synthetic import make_tree_classification

__all__ = [
    "bayes_posterior",
    "capsid_structure_path",
    "load_car",
    "load_csv",
    "load_lactamase",
    "load_nursery",
    "load_p450",
    "load_vote",
    "make_census_table",
    "make_clinic_table",
    "make_credit_table",
    "make_signal_subgraph_networks",
    "make_tree_classification",
    "sample_network",
    "write_network_parquet",
]
