#!/usr/bin/env python
"""Indexing benchmarks: gather, scatter_, scatter_add_ and index_put_(accumulate=True) on a
2000x2000 float32 tensor with int64 indices, along dim 0 and dim 1, core vs torch (single-threaded).

Interface for scripts/bench.py: `cases(torch_mod) -> [(name, core_fn, torch_fn)]`, zero-argument
callables; torch_fn is None when torch_mod is None. Inputs are built once (same data for both
libraries); the in-place cases write into the same tensor on every call.

    python scripts/bench_indexing.py        # prints core ms, torch ms and the ratio per case

index_put_ cases: "dim 0" adds whole rows, indices=(rows[2000],), values [2000, 2000];
"dim 1" addresses the same cells as scatter_add_ along dim 1: indices=(arange(2000)[:, None],
cols[2000, 2000]), values [2000, 2000].
"""
from __future__ import annotations

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import numpy as np  # noqa: E402

import core  # noqa: E402

N = 2000


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N, N)).astype(np.float32)
    src = rng.standard_normal((N, N)).astype(np.float32)
    idx = rng.integers(0, N, (N, N)).astype(np.int64)
    rows = rng.integers(0, N, N).astype(np.int64)
    return x, src, idx, rows


def cases(torch_mod):
    x, src, idx, rows = _data()
    ar = np.arange(N, dtype=np.int64)[:, None]

    def build(lib):
        return dict(x=lib.tensor(x), y=lib.tensor(x.copy()), src=lib.tensor(src), idx=lib.tensor(idx),
                    rows=lib.tensor(rows), ar=lib.tensor(ar))

    c = build(core)
    t = build(torch_mod) if torch_mod is not None else None

    def pair(make):
        return make(core, c), (make(torch_mod, t) if t is not None else None)

    out = []
    for d in (0, 1):
        out.append((f"gather dim {d} [2000x2000]",) + pair(lambda L, v, d=d: lambda: L.gather(v["x"], d, v["idx"])))
        out.append((f"scatter_ dim {d} [2000x2000]",) +
                   pair(lambda L, v, d=d: lambda: v["y"].scatter_(d, v["idx"], v["src"])))
        out.append((f"scatter_add_ dim {d} [2000x2000]",) +
                   pair(lambda L, v, d=d: lambda: v["y"].scatter_add_(d, v["idx"], v["src"])))
    out.append(("index_put_ accumulate dim 0 (rows)",) +
               pair(lambda L, v: lambda: v["y"].index_put_((v["rows"],), v["src"], accumulate=True)))
    out.append(("index_put_ accumulate dim 1 (ar, cols)",) +
               pair(lambda L, v: lambda: v["y"].index_put_((v["ar"], v["idx"]), v["src"], accumulate=True)))
    return out


def _timeit(fn, reps=7):
    fn()
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main():
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        torch = None
    for name, cfn, tfn in cases(torch):
        tc = _timeit(cfn)
        if tfn is None:
            print(f"{name:42} core {tc * 1e3:8.2f} ms")
            continue
        tt = _timeit(tfn)
        print(f"{name:42} core {tc * 1e3:8.2f} ms  torch {tt * 1e3:8.2f} ms  ratio {tc / tt:5.2f}x")


if __name__ == "__main__":
    main()
