"""The statistics of `tensorcli show`: shape, dtype, min/max/mean/std over finite values, NaN/Inf counts."""
from __future__ import annotations

import numpy as np


def stats(t) -> dict:
    """min/max/mean/std over finite values (std unbiased, like torch.std), NaN/Inf counts."""
    a = np.asarray(t._data)
    out = {"shape": list(a.shape), "dtype": t.dtype.name, "numel": int(a.size),
           "nan": 0, "inf": 0, "min": None, "max": None, "mean": None, "std": None}
    if a.dtype.kind == "f":
        nan = np.isnan(a)
        inf = np.isinf(a)
        out["nan"], out["inf"] = int(nan.sum()), int(inf.sum())
        a = a[~(nan | inf)]
    if a.size == 0:
        return out
    if a.dtype == np.bool_:
        out["min"], out["max"] = bool(a.min()), bool(a.max())
    else:
        out["min"], out["max"] = a.min().item(), a.max().item()
    f = a.astype(np.float64)
    out["mean"] = float(f.mean())
    out["std"] = float(f.std(ddof=1)) if f.size > 1 else float("nan")
    return out
