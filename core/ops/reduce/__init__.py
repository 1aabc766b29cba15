"""Reductions (sum, mean, prod, max/min, argmax, var/std, norms, cumulative ops, ...) with dim/keepdim like
PyTorch, plus diff / trapezoid / logcumsumexp (`cumulative`) and bincount / histc / cov / corrcoef
(`statistics`). Re-exports what other op families import. A lazy family (core/ops/families.py):
`import core` imports no reduce module."""
from __future__ import annotations

def _export_flat_namespace(*modules):
    """Every name of the former single-file reduce.py stays importable from the package (other modules and
    branches import its helpers)."""
    g = globals()
    for mod in modules:
        for k, v in vars(mod).items():
            if not k.startswith("__"):
                g.setdefault(k, v)


# import every submodule, in this order (= registration order)
from . import cumulative, reductions, statistics, variance
from .cumulative import cumprod, cumsum, diff, logcumsumexp, trapezoid
from .reductions import (_expand_back, all, amax, amin, any, argmax, argmin, count_nonzero, dist, logsumexp, max,
                         mean, min, nanmean, nansum, norm, prod, sum)
from .variance import std, std_mean, var, var_mean
from .statistics import bincount, corrcoef, cov, histc
from . import gradient_trapz, histogram, native_norms, renorm  # noqa: F401  (register on import)
_export_flat_namespace(reductions, variance, cumulative)
