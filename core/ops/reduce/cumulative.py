"""Ops along one dim composed the way ATen composes them, so values and grad_fn names match PyTorch's:
diff (n-th forward difference, optional prepend/append), trapezoid, and logcumsumexp; Tensor.cumprod_."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ...autograd.function import Op
from ...creation import zeros_like
from ...tensor import Tensor, _wrap_dim
from .. import registry
from ..inplace import make_inplace
from ..pointwise import DivBackward1, MulBackward1, _long, _out, quietly, where
from ..registry import register

def _cat(tensors, dim):
    # shape's cat, looked up at call time: shape builds on the reductions, not the reverse
    return registry.FUNCTIONS["cat"](tensors, dim)


def _diff_once(t, dim):
    n = t.shape[dim]
    hi, lo = t.narrow(dim, 1, max(n - 1, 0)), t.narrow(dim, 0, max(n - 1, 0))
    return hi.logical_xor(lo) if t.dtype.name == "bool" else hi - lo


@register(category="reduction", methods=("diff",))
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """n-th forward difference along dim (xor for bool), after concatenating prepend/append."""
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, input.dim())
    for extra in (prepend, append):
        if isinstance(extra, Tensor) and extra.dim() != input.dim():
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    if n == 0:   # PyTorch returns a copy of input, prepend/append ignored
        r = zeros_like(input)
        return r.copy_(input)
    if prepend is not None or append is not None:
        input = _cat([t for t in (prepend, input, append) if t is not None], d)
    for _ in range(min(n, input.shape[d])):
        input = _diff_once(input, d)
    return input


def _zeros_except(y, dim):
    shape = list(y.shape)
    del shape[dim]
    return Tensor._make(np.zeros(shape, dtype=y._data.dtype if y._data.dtype.kind == "f"
                                 else np.dtype(np.float32)))


@register(category="reduction", methods=())
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """Trapezoidal rule along dim, with sample points x or a constant spacing dx (default 1)."""
    if y.dtype.name == "bool":
        raise RuntimeError("trapezoid: received a bool input for `y`, but bool is not supported")
    d = _wrap_dim(dim, y.dim())
    n = y.shape[d]
    if n == 0:
        return _zeros_except(y, d)
    if isinstance(x, Tensor):
        if x.dim() == 1:
            if x.shape[0] != n:
                raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
            view = [1] * y.dim()
            view[d] = n
            x = x.view(view)
        spacing = x.diff(dim=d)
        total = (spacing * (y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1))).sum(d)
        return DivBackward1.apply(total, 2.0)
    step = 1 if dx is None else dx
    return MulBackward1.apply(y.sum(d) - (y.select(d, 0) + y.select(d, -1)) * 0.5, step)


_LOOP_STEPS, _LOOP_SLICES = 64, 64


def _logcumsumexp(d, dim):
    """ATen's logcumsumexp_cpu_kernel: one accumulator of at::acc_type (double for float and double, float for
    half) per slice, `acc = _log_add_exp_helper(x[i], acc)` = log1p(exp(min - max)) + max, or x[i] when both
    are the same infinity; each step rounded to the result dtype on store. All slices advance together."""
    acc_t = np.float32 if d.dtype == np.float16 else np.float64
    x = np.moveaxis(d, dim, 0)
    if x.shape[0] > _LOOP_STEPS and x[0].size < _LOOP_SLICES:
        # few long slices: a step per element costs more than the whole ufunc. logaddexp.accumulate in the
        # accumulator type differs from ATen's accumulator in its last bits only, so after rounding a float32
        # result is torch's but in rare midpoint cases; a double one may differ by an ulp.
        return np.moveaxis(np.logaddexp.accumulate(x, 0, dtype=acc_t).astype(d.dtype, copy=False), 0, dim)
    out = np.empty(x.shape, d.dtype)
    acc = np.full(x.shape[1:], -np.inf, acc_t)
    lo, hi = np.empty_like(acc), np.empty_like(acc)
    for i in range(x.shape[0]):
        xi = x[i].astype(acc_t)
        np.minimum(xi, acc, out=lo)
        np.maximum(xi, acc, out=hi)
        same_inf = (lo == hi) & np.isinf(lo)
        np.subtract(lo, hi, out=acc)
        np.exp(acc, out=acc)
        np.log1p(acc, out=acc)
        np.add(acc, hi, out=acc)
        if same_inf.any():
            acc[same_inf] = xi[same_inf]
        out[i] = acc
    return np.moveaxis(out, 0, dim)


class LogcumsumexpBackward0(Op):
    """log(cumsum(exp(x))) along dim, computed stably; PyTorch's logcumsumexp_backward (positive and
    negative parts of the gradient through reversed logcumsumexps)."""
    save_output = True

    @staticmethod
    def forward(ctx, a, dim):
        ctx.save_for_backward(a)
        ctx.dim = dim
        d = a._data
        if d.ndim == 0:
            return d.copy()
        return quietly(_logcumsumexp, d, dim)

    @staticmethod
    def backward(ctx, g):
        a, out = ctx.saved_tensors
        dim = ctx.dim
        if g.numel() == 0 or a.dim() == 0:
            return g

        def reverse(x):
            return logcumsumexp(x.flip(dim), dim).flip(dim)
        log_abs = g.abs().log()
        lowest = float(np.finfo(g._data.dtype).min)     # numeric_limits<scalar_t>::lowest()
        pos = where(g > 0, log_abs, lowest)
        neg = where(g < 0, log_abs, lowest)
        return (reverse(pos - out) + a).exp() - (reverse(neg - out) + a).exp()


@register(category="reduction", methods=("logcumsumexp",))
def logcumsumexp(input, dim, *, out=None):
    """log(cumsum(exp(input))) along dim, without overflow (floating dtypes only)."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{_long(input.dtype)}'")
    d = _wrap_dim(dim, max(input.dim(), 1))
    return _out(LogcumsumexpBackward0.apply(input, d), out)


def cumprod_(self, dim, *, dtype=None):
    """Tensor.cumprod_: cumprod written into self; a dtype other than self's raises torch's error."""
    if dtype is not None and _dt.as_dtype(dtype) is not self.dtype:
        raise RuntimeError(f"Bad in-place call: input tensor dtype {_dt.CPP_NAMES[self.dtype.name]} and output "
                           f"tensor dtype {_dt.CPP_NAMES[_dt.as_dtype(dtype).name]} should match")
    return _CUMPROD_INPLACE(self, dim)


def _cumprod(input, dim):
    # reductions' cumprod, looked up at call time: this module is imported before reductions
    return registry.FUNCTIONS["cumprod"](input, dim)


_CUMPROD_INPLACE = make_inplace(_cumprod, "cumprod_")
registry.method("cumprod_", cumprod_)
