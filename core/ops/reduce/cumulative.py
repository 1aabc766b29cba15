"""Ops along one dim: cumsum and cumprod (ATen's cpu_cum_base_kernel, one sequential accumulator per slice), and
composed the way ATen composes them, so values and grad_fn names match PyTorch's: diff (n-th forward difference,
optional prepend/append), trapezoid, and logcumsumexp; Tensor.cumprod_."""
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
from .reductions import _sum_dtype

def _cat(tensors, dim):
    # shape's cat, looked up at call time: shape builds on the reductions, not the reverse
    return registry.FUNCTIONS["cat"](tensors, dim)


_CPU_ACC = {np.dtype(np.float32): np.float64, np.dtype(np.float16): np.float32}


def _cumulate(ufunc, d, dim, dt):
    """ATen's cpu_cum_base_kernel: input cast to the result dtype, then one sequential accumulator per slice
    (`acc += x[i]; out[i] = (T)acc`) of at::acc_type. NumPy's accumulate is the same left fold."""
    x = d.astype(dt, copy=False)
    acc = _CPU_ACC.get(x.dtype)
    if acc is None:
        return ufunc.accumulate(x, axis=dim, dtype=dt)
    return ufunc.accumulate(x, axis=dim, dtype=acc).astype(dt, copy=False)


class CumsumBackward0(Op):
    @staticmethod
    def forward(ctx, a, dim, dt):
        ctx.dim = dim
        if a._data.ndim == 0:
            return a._data.astype(dt.np)
        r = _cumulate(np.add, a._data, dim, dt.np)
        if r.dtype.kind in "fc":
            r += 0      # ATen's accumulator starts at +0: a running sum is never -0 (-0 + 0 is +0)
        return r

    @staticmethod
    def backward(ctx, g):
        if g.ndim == 0:
            return g
        return g.flip(ctx.dim).cumsum(ctx.dim).flip(ctx.dim)


@register(category="reduction", methods=("cumsum",), inplace="cumsum_")
def cumsum(input, dim, *, dtype=None):
    """Cumulative sum along dim; int inputs accumulate in int64.

    float32 accumulates in double, as ATen's at::acc_type (so cancellations keep torch's digits)."""
    d = _wrap_dim(dim, input._data.ndim)
    return CumsumBackward0.apply(input, d, _sum_dtype(input, dtype))


class CumprodBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, a, dim, dt):
        ctx.save_for_backward(a)
        ctx.dim = dim
        if a._data.ndim == 0:
            return a._data.astype(dt.np)
        return quietly(_cumulate, np.multiply, a._data, dim, dt.np)

    @staticmethod
    def backward(ctx, g):
        a, out = ctx.saved_tensors
        if g.ndim == 0:
            return g
        d = ctx.dim
        if not (a._data == 0).any():
            return (g * out).flip(d).cumsum(d).flip(d) / a
        return Tensor._make(_cumprod_grad_with_zeros(a._data, out._data, g._data, d))


def _cumprod_grad_with_zeros(x, out, g, dim):
    """Exact cumprod gradient when x has zeros: before the first zero of a slice the usual
    reversed-cumsum formula holds, at the first zero it is prod(x[:z]) * sum_j g[j] prod(x[z+1..j]),
    after it everything is 0."""
    x, out, g = (np.moveaxis(v, dim, -1) for v in (x, out, g))
    n = x.shape[-1]
    idx = np.arange(n)
    zero = x == 0
    z = np.where(zero.any(-1), np.argmax(zero, -1), n)[..., None]          # first zero per slice
    with np.errstate(all="ignore"):   # backward of a rare case (zeros in cumprod's input): not a hot path
        rev = np.flip(np.cumsum(np.flip(g * out, -1), -1), -1)
        before = np.where(idx < z, rev / np.where(zero, 1, x), 0)
        prefix = np.take_along_axis(np.concatenate([np.ones_like(x[..., :1]), out], -1), np.minimum(z, n), -1)
        tail = np.cumprod(np.where(idx <= z, 1, x), -1)
        at_zero = prefix * np.sum(np.where(idx >= z, g * tail, 0), -1, keepdims=True)
    res = np.where(idx == z, at_zero, before).astype(x.dtype)
    return np.moveaxis(res, -1, dim)


@register(category="reduction", methods=("cumprod",))
def cumprod(input, dim, *, dtype=None):
    """Cumulative product along dim."""
    d = _wrap_dim(dim, input._data.ndim)
    return CumprodBackward0.apply(input, d, _sum_dtype(input, dtype))


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
