"""The passes over a whole integer table, compiled when the extension is built, numpy otherwise.

Passes that read every cell of a wide integer table: its per-column ranges and
value sets (the kinds rule and the categories), its cast to column-major codes,
and the counts of a tree's families; the symmetry check of a weight matrix; the
factorization of an object column (:func:`factorize_objects`); and selective
KDB's leave-one-out pass (:func:`loo_pass`: :func:`loo_tables` and :func:`loo_rows` over
dense tables, chunks of rows with every attribute per chunk, or the rows' distinct prefixes
in :func:`loo_order`'s order; :func:`loo_scores`
over looked-up cells where the tables would be too large), a few table look-ups and
products per row and attribute that numpy can only do through temporaries
of every candidate's scores; and the pivots of the cancellation-free elimination
of many small weight matrices (:func:`tree_pivots`, the sums over spanning trees
of BMATAN's predictions), one numpy call per pivot over the whole batch
otherwise; and AODE's joint (:func:`aode_block`: each row's super-parents' sums of
their children's table rows, where numpy multiplies one-hot rows with the whole table); and the
state sums of a variable summed out (:func:`gathered_sums`: each row's picked rows of a matrix
added, where numpy multiplies one-hot rows with it) and a network's table terms
(:func:`table_sums`: each row's cell of every node computed as it is added). numpy needs
several full-size temporaries for each integer pass; the C kernels in
``_kernels.c`` (in this package) read each cell once and release the GIL, so the ranges, the cast
and the counts are split over the cores (the object pass holds the GIL: its
cells are Python objects). Both versions give identical results, the floating-point sums of
:func:`aode_block` and :func:`gathered_sums` to rounding (numpy's product adds in another order)
(``tests/test_native.py``); ``runtime.COMPILED`` says which one runs. The extension is
optional at install time: without a C compiler only speed differs.

Threads. A pass over at least ``THREAD_CELLS`` cells is split over
:func:`cpu_count` threads (the calling one included), and so is the column
encoder of ``bnclassify.data.encoding``, capped only by the user's limit: threadpoolctl sees
the compiled extension as a library with ``user_api="bnclassify"``, so
``threadpool_limits(1)`` (or ``threadpool_limits(2, user_api="bnclassify")``)
bounds both, as it bounds BLAS and OpenMP. An install without the extension
has no library for threadpoolctl to find; there :func:`thread_limit` is the
CPU count. The worker threads are kept for the process and grow to the limit
in force when a pass asks for them.

One module per job, each function with its numpy twin beside it:
:mod:`~bnclassify._native.encoding` (ranges, value sets, the cast to codes, object
and text columns), :mod:`~bnclassify._native.counting` (family counts, pair
information), :mod:`~bnclassify._native.trees` (the symmetry check, the maximum
spanning tree's candidate pairs and union-find, BMATAN's elimination pivots and log
sums), :mod:`~bnclassify._native.smoothing` (the HDP sampler, HLS's Newton steps),
:mod:`~bnclassify._native.selection` (selective KDB's leave-one-out pass),
:mod:`~bnclassify._native.averaging` (AODE's joint),
:mod:`~bnclassify._native.gathering` (the picked rows' sums) and
:mod:`~bnclassify._native.runtime` (the extension, the ``COMPILED`` switch and the
threads). The compiled extension is private to this
package; the rest of bnclassify imports the names below from ``bnclassify._native``.

>>> from threadpoolctl import threadpool_limits
>>> with threadpool_limits(limits=1):
...     thread_limit() == 1 or not runtime.COMPILED
True
"""

from __future__ import annotations

from . import runtime
from .averaging import aode_block, aode_proba
from .counting import OUT_OF_RANGE, count_families, pair_information
from .encoding import (
    TEXT_MAX_CODES,
    column_major,
    column_ranges,
    factorize_object_columns,
    factorize_objects,
    factorize_objects_in_two,
    factorize_texts,
    value_bits,
)
from .gathering import gathered_sums, table_sums
from .runtime import (
    BLOCK_CELLS,
    KERNELS_VERSION,
    SHARES_PER_THREAD,
    THREAD_CELLS,
    cpu_count,
    thread_limit,
)
from .search import dag_search
from .selection import (
    LOO_CRITERIA,
    LOO_SEEN,
    cell_counts,
    column_codes,
    dense_families,
    family_cells,
    lone_families,
    loo_attribute,
    loo_depth_counts,
    loo_family_counts,
    loo_layout,
    loo_order,
    loo_parent_counts,
    loo_pass,
    loo_rows,
    loo_scores,
    loo_start,
    loo_tables,
    prefix_order,
)
from .smoothing import HDP_DONE, HDP_NEEDS_TABLE, HLS_LOCAL, hdp_run, hdp_window, hls_fit, row_sums
from .trees import is_symmetric, open_pairs, spanning_edges, tree_log_sums, tree_pivots


def __getattr__(name):
    # read at call time: the switch lives in ``runtime`` (where tests and benchmarks set it)
    if name == "COMPILED":
        return runtime.COMPILED
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BLOCK_CELLS",
    "COMPILED",
    "HDP_DONE",
    "HDP_NEEDS_TABLE",
    "HLS_LOCAL",
    "KERNELS_VERSION",
    "LOO_CRITERIA",
    "LOO_SEEN",
    "OUT_OF_RANGE",
    "SHARES_PER_THREAD",
    "TEXT_MAX_CODES",
    "THREAD_CELLS",
    "aode_block",
    "aode_proba",
    "cell_counts",
    "dense_families",
    "column_major",
    "column_ranges",
    "count_families",
    "dag_search",
    "cpu_count",
    "factorize_object_columns",
    "factorize_objects",
    "factorize_objects_in_two",
    "factorize_texts",
    "gathered_sums",
    "family_cells",
    "hdp_run",
    "hdp_window",
    "hls_fit",
    "is_symmetric",
    "lone_families",
    "loo_attribute",
    "loo_order",
    "loo_rows",
    "loo_tables",
    "column_codes",
    "loo_family_counts",
    "loo_depth_counts",
    "loo_layout",
    "loo_parent_counts",
    "loo_pass",
    "prefix_order",
    "loo_scores",
    "loo_start",
    "open_pairs",
    "pair_information",
    "row_sums",
    "runtime",
    "spanning_edges",
    "table_sums",
    "thread_limit",
    "tree_log_sums",
    "tree_pivots",
    "value_bits",
]
