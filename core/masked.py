"""torch.masked: its functions on strided tensors (the ops of core/ops/masked/, registered as masked.*)."""
from __future__ import annotations

from .ops.masked import normalizations as _n, reductions as _r

amax, amin, argmax, argmin, mean, median = _r.amax, _r.amin, _r.argmax, _r.argmin, _r.mean, _r.median
norm, prod, std, sum, var, logsumexp = _r.norm, _r.prod, _r.std, _r.sum, _r.var, _r.logsumexp
cumsum, cumprod, softmax, log_softmax, softmin = _n.cumsum, _n.cumprod, _n.softmax, _n.log_softmax, _n.softmin
normalize, logaddexp = _n.normalize, _n.logaddexp

__all__ = ["amax", "amin", "argmax", "argmin", "cumprod", "cumsum", "log_softmax", "logaddexp", "logsumexp",
           "mean", "median", "norm", "normalize", "prod", "softmax", "softmin", "std", "sum", "var"]
