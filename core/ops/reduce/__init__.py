"""Reductions (sum, mean, prod, max/min, argmax, var/std, norms, cumulative ops, ...) with dim/keepdim like
PyTorch, plus diff / trapezoid / logcumsumexp (`cumulative`) and bincount / histc / cov / corrcoef
(`statistics`). Re-exports what other op families import."""
from __future__ import annotations

from . import cumulative, reductions, statistics
from .cumulative import diff, logcumsumexp, trapezoid
from .reductions import (_expand_back, all, amax, amin, any, argmax, argmin, count_nonzero, cumprod, cumsum, dist,
                         logsumexp, max, mean, min, nanmean, nansum, norm, prod, std, std_mean, sum, var, var_mean)
from .statistics import bincount, corrcoef, cov, histc
