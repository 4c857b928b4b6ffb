"""How the kernels run: the compiled extension (when built and current), and their threads.

``kernels`` is the extension module, or None when it is not built or is older
than this package (``KERNELS_VERSION``); ``COMPILED`` says whether the kernels
run compiled (``BNCLASSIFY_NUMPY_KERNELS=1`` turns them off; tests switch it
here). A pass over at least ``THREAD_CELLS`` cells is split over the cores by
:func:`on_shares`, capped by :func:`thread_limit`.
"""

from __future__ import annotations

import itertools
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import threadpoolctl

#: The kernels' interface this module calls (``KERNELS_VERSION`` in ``_kernels.c``).
KERNELS_VERSION = 40

try:
    from . import _kernels as kernels
except ImportError:  # installed without a C compiler: the numpy versions below
    kernels = None
if getattr(kernels, "VERSION", None) != KERNELS_VERSION:
    # a build older than this module (a failed rebuild keeps the old library): not used
    kernels = None

#: Whether the compiled kernels are in use (``BNCLASSIFY_NUMPY_KERNELS=1`` turns them off).
COMPILED = kernels is not None and not os.environ.get("BNCLASSIFY_NUMPY_KERNELS")

#: Cells per block of the numpy versions: blocks of index arrays that stay in cache.
BLOCK_CELLS = 1 << 18
#: Cells (rows x columns, or rows x families) above which a kernel's work is split over the
#: cores.
THREAD_CELLS = 1 << 21
#: Shares of a split pass per thread (see ``on_shares``): small enough that a late thread
#: leaves little to wait for, large enough that the calls' overhead stays negligible.
SHARES_PER_THREAD = 2
_KERNEL_DTYPES = frozenset("bhilqBHI")


def cpu_count() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


_limit = None  # threads allowed by threadpoolctl; None: no limit set


def thread_limit() -> int:
    """Most threads a split pass (or the column encoder, ``bnclassify.data.encoding``) may use.

    The limit set through threadpoolctl, else :func:`cpu_count`.

    Examples
    --------
    >>> thread_limit() >= 1
    True
    """
    return cpu_count() if _limit is None else _limit


class _ThreadLimit(threadpoolctl.LibController):
    """threadpoolctl's handle on bnclassify's threads, found as the loaded ``_kernels`` library.

    Its ``dynlib`` (the extension loaded again by ctypes) is never called: the
    limit is this module's own variable.
    """

    user_api = "bnclassify"
    internal_api = "bnclassify"
    filename_prefixes = ("_kernels",)
    check_symbols = ("PyInit__kernels",)  # only bnclassify's extension module exports it

    def get_num_threads(self):
        return thread_limit()

    def set_num_threads(self, num_threads):
        global _limit
        _limit = max(1, int(num_threads))

    def get_version(self):
        return str(KERNELS_VERSION)


if kernels is not None:
    threadpoolctl.register(_ThreadLimit)

_pool = None
_pool_size = 0
_pool_pid = None
_pool_lock = threading.Lock()


def _workers(n: int) -> ThreadPoolExecutor:
    """A pool of at least ``n`` worker threads, kept for the process (not for a forked child,
    which has none of the parent's threads)."""
    global _pool, _pool_size, _pool_pid
    with _pool_lock:
        if _pool is None or _pool_pid != os.getpid() or _pool_size < n:
            # a smaller pool is dropped, not shut down: another thread may still be submitting
            # to it, and its idle workers end once it is collected
            _pool = ThreadPoolExecutor(n, thread_name_prefix="bnclassify")
            _pool_size, _pool_pid = n, os.getpid()
        return _pool


def on_shares(function, n_items: int, n_cells: int, align: int = 1) -> list:
    """``function(share)`` for consecutive slices ``share`` of ``range(n_items)``, on every
    core when ``n_cells`` is large enough to pay for it. Returns the results in order.

    The calling thread works too, and every thread takes the next share left
    until none is: when a worker is slow to be scheduled (the other core busy,
    e.g. with a BLAS library's spinning threads), this thread does its shares
    instead of waiting for it. Share bounds are multiples of ``align`` (e.g. 64
    rows: no two threads write one cache line of a column).
    """
    units = max(1, n_items // align)  # the most shares the alignment allows
    threads = min(cpu_count(), thread_limit(), units)
    if threads < 2 or n_cells < THREAD_CELLS:
        return [function(slice(0, n_items))]
    n_shares = min(SHARES_PER_THREAD * threads, units)
    bounds = [-(-n_items * k // n_shares) // align * align for k in range(n_shares)] + [n_items]
    shares = [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]
    results = [None] * len(shares)
    claims = itertools.count()  # next() on it is atomic under the GIL

    def work():
        for k in iter(claims.__next__, None):
            if k >= len(shares):
                return
            results[k] = function(shares[k])

    others = [_workers(threads - 1).submit(work) for _ in range(threads - 1)]
    work()
    for other in others:
        other.result()
    return results


def kernel_reads(block: np.ndarray) -> bool:
    return (
        COMPILED and block.ndim == 2 and block.dtype.char in _KERNEL_DTYPES and block.dtype.isnative
    )
