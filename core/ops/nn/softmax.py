"""softmax / log_softmax: torch.softmax (+ Tensor.softmax) and F.softmax's legacy implicit dim."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ..._warn import warn_python
from ...autograd.function import Op
from ...autograd.grad_mode import STATE
from ...tensor import Tensor, _wrap_dim
from ..pointwise._common import _ERRSTATE, _IGNORE, quietly
from ..registry import register
from ._util import _short, _torch_name
from . import _softmax_order as _order


# ndarray.max / .sum run these ufunc reductions behind a Python wrapper; called directly (same results). The
# ufuncs as module globals: no `np.` lookup a call.
_max, _sum, _maxat = np.maximum.reduce, np.add.reduce, np.maximum.reduceat
_sub, _exp, _div, _log = np.subtract, np.exp, np.divide, np.log
_WHOLE = np.zeros(1, np.intp)     # reduceat's one segment: the whole axis
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)

# NumPy buffers a broadcast operation whose rows are shorter than its buffer (8192 elements), which halves its speed
# (x - max over 1024x1024: 190 us); with buffers shorter than a row it runs row by row unbuffered (100 us). Rows of
# 256 elements or fewer are faster buffered. Arithmetic is exact either way: the same bits. _ROWWISE is
# pointwise/_common's _IGNORE (errors ignored) with 16-element buffers.
try:
    from numpy._core._ufunc_config import _make_extobj
    _ROWWISE = _make_extobj(all="ignore", bufsize=16) if _ERRSTATE is not None else None
except ImportError:  # pragma: no cover - other NumPy layouts
    _ROWWISE = None
_LONG_ROW = 256


def _rowwise(fn, a, b, out):
    """fn(a, b, out) under _ROWWISE's buffers (and ignored floating-point errors, as its callers)."""
    token = _ERRSTATE.set(_ROWWISE)
    try:
        return fn(a, b, out)
    finally:
        _ERRSTATE.reset(token)


def _shifted(x, dim):
    """(x - max over dim as a new array, whether dim's rows are long enough for _ROWWISE's buffers). Over the last
    axis of a C-contiguous array the max is reduceat of one segment: the same maximum (exact in any order, NaN
    propagating) for ~60-70% of the cost."""
    long = dim == x.ndim - 1 and x.shape[dim] > _LONG_ROW and _ROWWISE is not None
    if not x.size:
        return _sub(x, x), long
    m = _maxat(x, _WHOLE, dim) if dim == x.ndim - 1 and x.flags.c_contiguous else _max(x, dim, None, None, True)
    return (_rowwise(_sub, x, m, None) if long else _sub(x, m)), long


def _softmax_np(x, dim):
    if x.dtype == np.float16:   # PyTorch computes half softmax in float32
        return _softmax_np(x.astype(np.float32), dim).astype(np.float16)
    return quietly(_softmax_kernel, x, dim)


def _softmax_kernel(x, dim):
    """ATen's softmax kernel (float32 / float64: _softmax_order, torch's bits); other dtypes: exp(x - max) / sum."""
    if (x.dtype is _F32 or x.dtype is _F64) and x.size:
        return _order.softmax(x, dim)
    e, long = _shifted(x, dim)
    _exp(e, e)     # out= by position: ~30 ns less a call than the keyword
    s = _sum(e, dim, None, None, True)
    return _rowwise(_div, e, s, e) if long else _div(e, s, e)


def _log_softmax_np(x, dim):
    if x.dtype == np.float16:
        return _log_softmax_np(x.astype(np.float32), dim).astype(np.float16)
    return quietly(_log_softmax_kernel, x, dim)


def _log_softmax_kernel(x, dim):
    """ATen's log_softmax kernel (float32 / float64: _softmax_order); other dtypes: x - max - log(sum(exp(x - max)))."""
    if (x.dtype is _F32 or x.dtype is _F64) and x.size:
        return _order.log_softmax(x, dim)
    s, long = _shifted(x, dim)
    lse = _sum(_exp(s), dim, None, None, True)
    _log(lse, lse)
    return _rowwise(_sub, s, lse, s) if long else _sub(s, lse, s)


def _log_softmax_at(x, rows, cols):
    """_log_softmax_kernel(x, 1)[rows, cols] for a 2-D x with a column per row (float32 / float64: ATen's kernel
    in full, then the picked entries; others: the last step on the picked entries only)."""
    if (x.dtype is _F32 or x.dtype is _F64) and x.size:
        return _order.log_softmax(x, 1)[rows, cols]
    s = _shifted(x, 1)[0]
    sp = s[rows, cols]
    _exp(s, s)
    lse = _sum(s, 1)
    _log(lse, lse)
    return _sub(sp, lse, sp)


def _fast(kernel, input, dim):
    """kernel's result as a Tensor with no node, checks or ctx, or None when the general path must run: a plain
    float32/float64 C-contiguous non-empty Tensor, an in-range int dim, no graph to record (the general path then
    gives the same bits: the same kernel, a C-contiguous result needing no copy)."""
    if type(input) is not Tensor or type(dim) is not int or (input._requires_grad and STATE.grad_enabled):
        return None
    x = input._data
    dt, nd = x.dtype, x.ndim
    if ((dt is not _F32 and dt is not _F64) or not -nd <= dim < nd or not x.size or not x.flags.c_contiguous
            or _ERRSTATE is None):
        return None
    token = _ERRSTATE.set(_IGNORE)
    try:
        return Tensor._make(kernel(x, dim + nd if dim < 0 else dim))
    finally:
        _ERRSTATE.reset(token)


class SoftmaxBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, input, dim):
        ctx.dim = dim
        x = input._data
        return _softmax_np(x, dim) if x.ndim else np.ones_like(x)

    @staticmethod
    def backward(ctx, g):
        return SoftmaxBackwardDataBackward0.apply(g, ctx.saved_tensors[0], ctx.dim)

    @staticmethod
    def backward_np(ctx, g):
        return _softmax_grad_np(g, ctx.saved_tensors[0]._data, ctx.dim)


class LogSoftmaxBackward0(Op):
    save_output = True

    @staticmethod
    def forward(ctx, input, dim):
        ctx.dim = dim
        x = input._data
        return _log_softmax_np(x, dim) if x.ndim else np.zeros_like(x)

    @staticmethod
    def backward(ctx, g):
        return LogSoftmaxBackwardDataBackward0.apply(g, ctx.saved_tensors[0], ctx.dim)

    @staticmethod
    def backward_np(ctx, g):
        return _log_softmax_grad_np(g, ctx.saved_tensors[0]._data, ctx.dim)


def _exact(g, o):
    return o.dtype == g.dtype and (o.dtype is _F32 or o.dtype is _F64) and o.size


def _softmax_grad_np(g, o, dim):
    """_softmax_backward_data(g, o, dim): the kernel's bits for float32 / float64, its formula otherwise (a 0-d
    softmax's is o * (g - g * o): +0, as torch's)."""
    if o.ndim == 0:
        return o * (g - g * o)
    if _exact(g, o):
        return _order.softmax_backward(g, o, dim)
    return o * (g - (g * o).sum(dim, keepdims=True))


def _log_softmax_grad_np(g, o, dim):
    """_log_softmax_backward_data(g, o, dim), likewise (0-d: g - exp(o) * g)."""
    if o.ndim == 0:
        return g - np.exp(o) * g
    if _exact(g, o):
        return _order.log_softmax_backward(g, o, dim)
    return g - np.exp(o) * g.sum(dim, keepdims=True)


class SoftmaxBackwardDataBackward0(Op):
    """_softmax_backward_data(grad_output, output, dim): the first derivative as a node of its own when a graph of
    it is recorded (create_graph=True): the same kernel (and bits) as without a graph; its derivatives are
    derivatives.yaml's: grad_output: _softmax_backward_data(grad, output, dim), output:
    softmax_double_backward = grad_output * grad - (output * grad_output).sum(dim) * grad
    - grad_output * (output * grad).sum(dim)."""

    @staticmethod
    def forward(ctx, grad_output, output, dim):
        ctx.save_for_backward(grad_output, output)
        ctx.dim = dim
        return quietly(_softmax_grad_np, grad_output._data, output._data, dim)

    @staticmethod
    def backward(ctx, gg):
        go, out = ctx.saved_tensors
        need = ctx.needs_input_grad
        d = ctx.dim
        ggo = SoftmaxBackwardDataBackward0.apply(gg, out, d) if need[0] else None
        gout = None
        if len(need) > 1 and need[1]:
            gout = go * gg - (out * go).sum(d, keepdim=True) * gg - go * (out * gg).sum(d, keepdim=True)
        return ggo, gout


class LogSoftmaxBackwardDataBackward0(Op):
    """_log_softmax_backward_data(grad_output, output, dim) as a node (create_graph=True): the kernel's bits; its
    derivatives (derivatives.yaml): grad_output: grad - (grad * output.exp()).sum(dim), output:
    -grad_output.sum(dim) * output.exp() * grad."""

    @staticmethod
    def forward(ctx, grad_output, output, dim):
        ctx.save_for_backward(grad_output, output)
        ctx.dim = dim
        return quietly(_log_softmax_grad_np, grad_output._data, output._data, dim)

    @staticmethod
    def backward(ctx, gg):
        go, out = ctx.saved_tensors
        need = ctx.needs_input_grad
        d = ctx.dim
        ggo = gg - (gg * out.exp()).sum(d, keepdim=True) if need[0] else None
        gout = -go.sum(d, keepdim=True) * out.exp() * gg if len(need) > 1 and need[1] else None
        return ggo, gout


def _get_softmax_dim(name, ndim, stacklevel):
    warn_python(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as "
                "an argument.", UserWarning, stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_common(cls, name, input, dim, dtype, stacklevel):
    if dim is None:
        dim = _get_softmax_dim(name, input.dim(), stacklevel + 1)
    d = _wrap_dim(dim, input._data.ndim)
    if dtype is not None:
        input = input.to(_dt.as_dtype(dtype))
    if input._data.dtype.kind != "f":
        last = d == max(input._data.ndim - 1, 0)
        kernel = f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_short(input.dtype)}'")
    return cls.apply(input, d)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along dim (SoftmaxBackward0); dim=None picks PyTorch's legacy default with a warning."""
    if dtype is None:
        r = _fast(_softmax_kernel, input, dim)
        if r is not None:
            return r
    return _softmax_common(SoftmaxBackward0, "softmax", input, dim, dtype, _stacklevel)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """x - logsumexp(x) along dim, computed stably (LogSoftmaxBackward0)."""
    if dtype is None:
        r = _fast(_log_softmax_kernel, input, dim)
        if r is not None:
            return r
    return _softmax_common(LogSoftmaxBackward0, "log_softmax", input, dim, dtype, _stacklevel)


@register(name="softmax", category="nn", methods=("softmax",))
@_torch_name
def torch_softmax(input, dim, dtype=None):
    """exp(x) / sum(exp(x)) along dim (torch.softmax, Tensor.softmax)."""
    return softmax(input, dim, dtype=dtype)


@register(name="log_softmax", category="nn", methods=("log_softmax",))
@_torch_name
def torch_log_softmax(input, dim, dtype=None):
    """x - logsumexp(x) along dim, computed stably (torch.log_softmax, Tensor.log_softmax)."""
    return log_softmax(input, dim, dtype=dtype)
