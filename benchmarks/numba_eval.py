"""Would numba kernels pay for Simpler TAN's two passes over a wide table? (not adopted)

Usage::

    pip install numba
    python benchmarks/numba_eval.py             # steady state, in one process, round-robin
    python benchmarks/numba_eval.py --first-fit  # a fresh process per fit: import + JIT cost

The two passes of ``SimplerTAN(contact).fit`` that read the whole table are the
integer block's learn + encode (``_encoding``) and the tree's family counts
(``counts.TrainingCounts``). Below are one-pass numba versions of both, patched
into the fit here and compared with bnclassify's numpy code on the issue's
case, 10^4 rows x 1,024 features (int64, 4 states). docs/benchmarks.md has the
figures and why bnclassify does not use them: about 2x faster in steady state,
but a process pays numba's import and the loading of the cached kernels on its
first fit (seconds when the cache is cold) and grows by about 120 MB.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

try:
    from numba import njit
except ImportError:  # pragma: no cover - an evaluation script, numba is not a dependency
    sys.exit("numba_eval.py needs numba: pip install numba")

sys.path.insert(0, str(Path(__file__).resolve().parent))


#: Values below this bound are encoded by :func:`small_int_codes`: at most 127
#: categories, so the codes are int8 as :func:`~bnclassify.data.encoding.codes_dtype` has them.
SMALL_INT_BOUND = 127

_TILE = 64  # rows x columns per tile of the transposing write: a tile stays in cache


@njit(cache=True, nogil=True)
def _small_int_pass(block, bound):
    n, m = block.shape
    raw = np.empty((m, n), dtype=np.int8)  # transposed: each row is one column's codes
    present = np.zeros((m, bound), dtype=np.bool_)
    for r0 in range(0, n, _TILE):
        r1 = min(r0 + _TILE, n)
        inside = True
        for j0 in range(0, m, _TILE):
            for j in range(j0, min(j0 + _TILE, m)):
                for r in range(r0, r1):
                    v = block[r, j]
                    inside &= (v >= 0) & (v < bound)
                    raw[j, r] = v
        if not inside:
            return raw, present, False
    for j in range(m):
        seen = present[j]
        column = raw[j]
        for r in range(n):
            seen[column[r]] = True
    return raw, present, True


@njit(cache=True, nogil=True)
def _remap(raw, lookup):
    m, n = raw.shape
    codes = np.empty((m, n), dtype=np.int8)
    for j in range(m):
        table = lookup[j]
        for r in range(n):
            codes[j, r] = table[raw[j, r]]
    return codes


def small_int_codes(block):
    """``(categories, codes)`` of an integer block whose values are all in ``[0, 127)``.

    Parameters
    ----------
    block : ndarray of shape (n_rows, n_features)
        Integers, any layout.

    Returns
    -------
    tuple or None
        ``categories``: per column, the sorted values that occur (in the block's
        dtype); ``codes``: int8, column-major, each value's position in its
        column's categories. None when a value is negative or >= 127.

    Examples
    --------
    >>> categories, codes = small_int_codes(np.array([[3, 0], [5, 1], [3, 0]]))
    >>> [c.tolist() for c in categories], codes.tolist()
    ([[3, 5], [0, 1]], [[0, 0], [1, 1], [0, 0]])
    """
    raw, present, inside = _small_int_pass(block, SMALL_INT_BOUND)
    if not inside:
        return None
    columns, values = np.nonzero(present)
    sizes = present.sum(axis=1)
    ends = np.cumsum(sizes)
    categories = np.split(values.astype(block.dtype), ends[:-1])
    within = np.arange(len(values)) - np.repeat(ends - sizes, sizes)  # position in its column
    if (values == within).all():  # the usual case, 0 .. r-1: the raw values are the codes
        return categories, raw.T
    lookup = np.zeros(present.shape, dtype=np.int8)
    lookup[columns, values] = within
    return categories, _remap(raw, lookup).T


@njit(cache=True, nogil=True)
def _family_pass(codes, y, children, parents, child_cards, starts, total, n_classes, weights):
    weighted = len(weights) > 0
    flat = np.zeros(n_classes * total)
    for k in range(len(children)):
        child, parent = codes[:, children[k]], codes[:, parents[k]]
        base, width = starts[k], child_cards[k]
        for r in range(len(y)):
            a, b = parent[r], child[r]
            if a >= 0 and b >= 0:  # a missing cell (-1) is not counted
                flat[y[r] * total + base + a * width + b] += weights[r] if weighted else 1.0
    return flat


def tree_family_counts(codes, y, children, parents, cards, n_classes, weights=None):
    """N(c, x_parent, x_child) of many single-parent families, one pass over two columns each.

    Parameters
    ----------
    codes : ndarray of shape (n_rows, n_features)
        Category codes (-1: missing), column-major for speed.
    y : ndarray of shape (n_rows,)
        Class codes.
    children, parents : sequence of int
        The families: ``children[k]`` with the single parent ``parents[k]``.
    cards : ndarray of int
        Categories of every feature.
    n_classes : int
    weights : ndarray of shape (n_rows,), optional

    Returns
    -------
    list of ndarray
        ``(n_classes, cards[parents[k]], cards[children[k]])`` counts per family.

    Examples
    --------
    >>> codes = np.array([[0, 1], [1, 1], [1, -1]], dtype=np.int8)
    >>> tree_family_counts(codes, np.array([0, 0, 1]), [1], [0], np.array([2, 2]), 2)[0][0]
    array([[0., 1.],
           [0., 1.]])
    """
    children = np.asarray(children, dtype=np.intp)
    parents = np.asarray(parents, dtype=np.intp)
    sizes = cards[parents] * cards[children]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
    total = int(offsets[-1])
    w = np.zeros(0) if weights is None else np.asarray(weights, dtype=float)
    child_cards = cards[children].astype(np.intp)
    y = np.asarray(y, dtype=np.intp)
    flat = _family_pass(codes, y, children, parents, child_cards, offsets, total, n_classes, w)
    table = flat.reshape(n_classes, total)
    return [
        table[:, offsets[k] : offsets[k + 1]].reshape(n_classes, cards[p], cards[i])
        for k, (i, p) in enumerate(zip(children.tolist(), parents.tolist(), strict=True))
    ]


# -- the comparison ----------------------------------------------------------------------------
def _patch(kind):
    """Make SimplerTAN's fit use the numba kernels ("numba") or bnclassify's numpy ("numpy")."""
    import bnclassify.data as data
    import bnclassify.stats.counting as counts

    if not hasattr(_patch, "numpy"):
        _patch.numpy = (
            data.learn_and_encode_frame,
            counts.TrainingCounts._count_single_parent_families,
        )
    learn, count = _patch.numpy
    if kind == "numpy":
        data.learn_and_encode_frame, counts.TrainingCounts._count_single_parent_families = (
            learn,
            count,
        )
        return

    def numba_learn(frame, kinds=None):
        block = frame.to_numpy()
        learned = small_int_codes(block) if block.dtype.kind in "iu" else None
        return learned if learned is not None else learn(frame, kinds)

    def numba_count(self, children, parents):
        tables = tree_family_counts(
            self.codes, self.y, children, parents, self.cards, self.n_classes, self.weights
        )
        for i, p, table in zip(children, parents, tables, strict=True):
            self._families[(i, (p,))] = table

    data.learn_and_encode_frame = numba_learn
    counts.TrainingCounts._count_single_parent_families = numba_count


def steady_state(repeats):
    import run

    from bnclassify import TAN, SimplerTAN

    X, y, contact = run.synthetic(10_000, 1024)
    fits = {}
    for kind in ("numba", "numpy"):
        _patch(kind)
        fits[kind] = SimplerTAN(contact).fit(X, y)  # first fit: imports, JIT or cache load
    same = all(
        np.array_equal(a.log_table_, b.log_table_)
        for a, b in zip(
            fits["numba"].compiled_.factors, fits["numpy"].compiled_.factors, strict=True
        )
    )
    best = dict.fromkeys(("Simpler TAN numpy", "Simpler TAN numba", "TAN"), np.inf)
    for _ in range(repeats):
        for kind in ("numpy", "numba"):
            _patch(kind)
            start = time.perf_counter()
            SimplerTAN(contact).fit(X, y)
            best[f"Simpler TAN {kind}"] = min(
                best[f"Simpler TAN {kind}"], time.perf_counter() - start
            )
        _patch("numpy")
        start = time.perf_counter()
        TAN().fit(X, y)
        best["TAN"] = min(best["TAN"], time.perf_counter() - start)
    print(f"identical CPTs: {same}; load average {os.getloadavg()[0]:.1f}")
    for name, seconds in best.items():
        print(f"  {name:<18} {seconds:7.3f} s   TAN / this {best['TAN'] / seconds:5.1f}x")


def _child(kind):
    import run

    from bnclassify import SimplerTAN

    X, y, contact = run.synthetic(10_000, 1024)
    before = _rss_mb()
    _patch(kind)
    start = time.perf_counter()
    SimplerTAN(contact).fit(X, y)
    first = time.perf_counter() - start
    start = time.perf_counter()
    SimplerTAN(contact).fit(X, y)
    print(f"{first:.3f} {time.perf_counter() - start:.3f} {_rss_mb() - before:.0f}")


def _rss_mb():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def first_fit():
    """Each case in a fresh process: its first fit, its second, and its RSS growth."""
    cache = tempfile.mkdtemp(prefix="bnc-numba-cache-")
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    print(f"load average {os.getloadavg()[0]:.1f}")
    for label, kind in (
        ("numpy", "numpy"),
        ("numba, cold cache", "numba"),
        ("numba, warm cache", "numba"),
    ):
        command = [sys.executable, __file__, "--child", kind]
        out = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        first, second, grown = out.stdout.split()
        print(
            f"  {label:<18} first fit {float(first):6.3f} s, second {float(second):6.3f} s, "
            f"RSS +{grown} MB"
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first-fit", action="store_true")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return _child(args.child)
    return first_fit() if args.first_fit else steady_state(args.repeats)


if __name__ == "__main__":
    sys.exit(main())
