"""The statistics of `tensorcli show`: shape, dtype, min/max/mean/std over finite values, NaN/Inf counts.

Computed in one pass over blocks of CHUNK elements, so a memory-mapped .npy larger than memory
costs one block at a time (plus what the page cache lends). Precision follows PyTorch:

* float32 / float64 without NaN or Inf: `mean` is torch.mean's, bit for bit: torch's cascade sum
  (core/_sum_order.py, one thread, in bounded blocks) divided by n in the dtype, a second pass.
  With NaN/Inf (the mean of the finite values, which torch has no op for) or where that order is
  not modelled: each block summed in float64, the total rounded and divided in float32 (the
  correctly rounded sum, which torch's cascade sum can miss by an ulp).
* float64: float64 sum / n. Other dtypes (ints, bool, float16, bfloat16): float64 statistics,
  as before (torch.mean refuses integer tensors).
* std: unbiased (correction=1, torch.std's default), from per-block mean and M2 merged with Chan's
  parallel formula in float64, rounded to float32 for float32 tensors.
"""
from __future__ import annotations

import numpy as np

from ..io.npyfile import release

CHUNK = 1 << 22   # elements per block (16 MiB of float32)


def _flat(a):
    """A 1-d view of `a` (a copy only for a non-contiguous in-memory array)."""
    return a.reshape(-1) if a.flags.c_contiguous else a.ravel(order="K")


class _Acc:
    """Running count / sum / mean / M2 / min / max / NaN / Inf over blocks."""

    def __init__(self):
        self.n = 0
        self.sum = 0.0
        self.mean = 0.0
        self.m2 = 0.0
        self.lo = self.hi = None
        self.nan = self.inf = 0

    def add(self, b):
        f = b.astype(np.float64)
        s = float(np.add.reduce(f)) if f.size else 0.0
        if b.dtype.kind == "f" and not np.isfinite(s):
            nan = np.isnan(b)    # slow path only for blocks holding NaN/Inf (a finite float64
            inf = np.isinf(b)    # sum of float32/float16 values means there are none)
            self.nan += int(np.count_nonzero(nan))
            self.inf += int(np.count_nonzero(inf))
            b = b[~(nan | inf)]
            f = b.astype(np.float64)
            s = float(np.add.reduce(f)) if f.size else 0.0
        if b.size == 0:
            return
        lo, hi = b.min(), b.max()
        self.lo = lo if self.lo is None else min(self.lo, lo)
        self.hi = hi if self.hi is None else max(self.hi, hi)
        m = s / f.size
        f -= m
        m2 = float(np.dot(f, f))
        n = self.n + f.size
        delta = m - self.mean
        self.mean += delta * f.size / n
        self.m2 += m2 + delta * delta * self.n * f.size / n
        self.n, self.sum = n, self.sum + s


def _torch_mean(flat):
    """torch.mean of a float32/float64 vector: its cascade sum (core/_sum_order.py, bounded temporaries
    whatever the size) divided by n in the dtype, as ATen; None where that order is not modelled."""
    if flat.dtype not in (np.float32, np.float64) or not flat.flags.c_contiguous or flat.size == 0:
        return None
    from core._sum_order import torch_sum
    s = torch_sum(flat, (0,))
    return None if s is None else float(np.asarray(s, flat.dtype) / flat.dtype.type(flat.size))


def stats(t, *, progress=None) -> dict:
    """min/max/mean/std over finite values (std unbiased, like torch.std), NaN/Inf counts.

    `progress(done, total)` (elements) is called after each block: the render layer hooks a
    progress bar there (tensorcli/render/progress.py)."""
    a = np.asarray(t._data)
    out = {"shape": list(a.shape), "dtype": t.dtype.name, "numel": int(a.size),
           "nan": 0, "inf": 0, "min": None, "max": None, "mean": None, "std": None}
    flat = _flat(a)
    acc = _Acc()
    for i in range(0, flat.size, CHUNK):
        acc.add(flat[i:i + CHUNK])
        release(flat, i * flat.itemsize, min(i + CHUNK, flat.size) * flat.itemsize)   # memory maps only
        if progress is not None:
            progress(min(i + CHUNK, flat.size), flat.size)
    out["nan"], out["inf"] = acc.nan, acc.inf
    if acc.n == 0:
        return out
    if a.dtype == np.bool_:
        out["min"], out["max"] = bool(acc.lo), bool(acc.hi)
    else:
        out["min"], out["max"] = acc.lo.item(), acc.hi.item()
    var = acc.m2 / (acc.n - 1) if acc.n > 1 else float("nan")
    exact = _torch_mean(flat) if acc.nan == acc.inf == 0 else None
    if exact is not None:
        out["mean"] = exact
        out["std"] = float(np.sqrt(var).astype(a.dtype))
    elif a.dtype == np.float32:
        out["mean"] = float(np.float32(acc.sum) / np.float32(acc.n))
        out["std"] = float(np.float32(np.sqrt(var)))
    else:
        out["mean"] = acc.sum / acc.n
        out["std"] = float(np.sqrt(var))
    return out
