"""The statistics of `tensorcli show`: shape, dtype, min/max/mean/std over finite values, NaN/Inf counts.

Computed in one pass over blocks of CHUNK elements, so a memory-mapped .npy larger than memory
costs one block at a time (plus what the page cache lends). Precision follows PyTorch:

* float32: `mean` equals `torch.mean` (measured on 50M and 1M float32 values: torch returns
  float32(float32(sum) / n), and its cascade sum equals the correctly rounded sum to the last bit
  in those cases; NumPy's float32 pairwise sum does not, e.g. 1428.0229 vs torch's 1428.0208).
  We sum each block in float64 (exact enough that rounding the total to float32 gives the
  correctly rounded sum), then divide in float32 as torch does. When torch's own cascade sum is
  off by an ulp from the exact value (it happens, e.g. 1,000,003 normal values) the mean can
  differ from torch's by that ulp; reproducing ATen's cascade order exactly would depend on the
  CPU's vector width.
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
        if b.dtype.kind == "f" and not np.isfinite(np.add.reduce(b, dtype=np.float64)):
            nan = np.isnan(b)    # slow path only for blocks holding NaN/Inf (a finite float64
            inf = np.isinf(b)    # sum of float32/float16 values means there are none)
            self.nan += int(np.count_nonzero(nan))
            self.inf += int(np.count_nonzero(inf))
            b = b[~(nan | inf)]
        if b.size == 0:
            return
        lo, hi = b.min(), b.max()
        self.lo = lo if self.lo is None else min(self.lo, lo)
        self.hi = hi if self.hi is None else max(self.hi, hi)
        f = b.astype(np.float64)
        s = float(np.add.reduce(f))
        m = s / f.size
        f -= m
        m2 = float(np.dot(f, f))
        n = self.n + f.size
        delta = m - self.mean
        self.mean += delta * f.size / n
        self.m2 += m2 + delta * delta * self.n * f.size / n
        self.n, self.sum = n, self.sum + s


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
    if a.dtype == np.float32:
        out["mean"] = float(np.float32(acc.sum) / np.float32(acc.n))
        out["std"] = float(np.float32(np.sqrt(var)))
    else:
        out["mean"] = acc.sum / acc.n
        out["std"] = float(np.sqrt(var))
    return out
