"""benchmarks/scale.py at CI size: parquet -> dask and partial_fit fits agree with fit."""

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "scale.py"


def _scale_module():
    spec = importlib.util.spec_from_file_location("bnclassify_scale_benchmark", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_scale_benchmark_runs_and_the_out_of_core_fits_agree(tmp_path):
    results = _scale_module().main(
        [
            "--rows",
            "20000",
            "--columns",
            "6",
            "--partitions",
            "3",
            "--row-group",
            "4000",
            "--out",
            str(tmp_path / "data"),
            "--json",
            str(tmp_path / "results.json"),
        ]
    )
    assert results["partitions"] == 3
    assert results["dask_vs_partial_fit_max_abs_proba_gap"] <= 1e-12
    assert results["dask_vs_in_memory_max_abs_proba_gap"] <= 1e-12
    assert results["same_tree_dask_partial_fit"]
    assert results["tree_edges_shared_with_in_memory_sample"] == results["tree_edges"] == 5
    assert results["dask"]["rows_per_second"] > 0 and results["partial_fit"]["peak_mib"]
    assert (tmp_path / "results.json").exists()
