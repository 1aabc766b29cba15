"""max_pool1d/3d, avg_pool1d/3d and lp_pool1d/2d/3d. 1-D pooling is PyTorch's: its own argument checks, then the 2-D
kernel over a unit height, squeezed (grad_fn SqueezeBackward1). 3-D pooling runs on N-D strided
NumPy windows (MaxPool3DWithIndicesBackward0, AvgPool3DBackward0); max indices are flat d*H*W + h*W + w."""
from __future__ import annotations

import itertools
from collections.abc import Iterable

import numpy as np

from ... import dtypes as _dt
from ...autograd.function import Op
from ..registry import export, register
from ._util import _make, _shape, _torch_name
from .activation import relu
from .pool import _pool_out, avg_pool2d, max_pool2d, max_pool2d_with_indices


# ---------------------------------------------------------------- 1-D (PyTorch: 2-D over a unit height)

_MAX_POOL1D_FORMS = {"stride": "None, an int, list of ints, or tuple of ints", "padding": "an int, list of ints, or "
                     "tuple of ints"}


def _single(name, what, v, allow_empty=False, parser=False):
    """A 1-D pooling size as one int, with torch's error for another length: the argument parser's
    (avg_pool1d, max_pool1d_with_indices: int[1] parameters) or max_pool1d_impl's own."""
    if isinstance(v, (list, tuple)):
        if len(v) == 0 and allow_empty:
            return None
        if len(v) != 1:
            if parser:
                raise RuntimeError(f"{name}() argument '{what}' should contain one int (got {len(v)})")
            forms = _MAX_POOL1D_FORMS.get(what, "an int, list of ints or tuple of ints")
            raise RuntimeError(f"{name}() {what} must be {forms} of size 1 but got size {len(v)}")
        return int(v[0])
    return int(v)


def _check_1d_dims(input, name):
    nd = input._data.ndim
    if nd not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {nd}-dimensional tensor for argument #1 'self' "
                           f"(while checking arguments for {name})")


def _max_pool1d_checks(input, k, s, p, d, ceil_mode):
    """max_pool1d's own checks (PyTorch's max_pool1d_impl, run before any kernel)."""
    shp = input._data.shape
    if len(shp) not in (2, 3) or any(v == 0 for v in shp[-2:]):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{_shape(shp)}")
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={p} and "
                           f"kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    ow = _pool_out(shp[-1], k, p, s, d, ceil_mode)
    if ow <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {ow}")


def _max_pool1d_indices(input, kernel_size, stride, padding, dilation, ceil_mode):
    _check_1d_dims(input, "max_pool1d")
    k = _single("max_pool1d", "kernel_size", kernel_size, parser=True)
    s = _single("max_pool1d", "stride", stride, allow_empty=True, parser=True) if stride is not None else None
    s = k if s is None else s
    p = _single("max_pool1d", "padding", padding, parser=True)
    d = _single("max_pool1d", "dilation", dilation, parser=True)
    out, idx = max_pool2d_with_indices(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode)
    return out.squeeze(-2), idx.squeeze(-2)


@register(category="nn")
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max over windows of the last dim of [N, C, L] (or [C, L]); stride defaults to kernel_size
    (the 2-D kernel over a unit height, as PyTorch: grad_fn SqueezeBackward1)."""
    if return_indices:
        return _max_pool1d_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    k = _single("max_pool1d", "kernel_size", kernel_size)
    s = _single("max_pool1d", "stride", stride, allow_empty=True) if stride is not None else None
    s = k if s is None else s
    p, d = _single("max_pool1d", "padding", padding), _single("max_pool1d", "dilation", dilation)
    _max_pool1d_checks(input, k, s, p, d, ceil_mode)
    if input._data.dtype.kind not in "f":
        raise NotImplementedError(f"\"max_pool1d_impl\" not implemented for '{_dt.scalar_name(input.dtype)}'")
    return _max_pool1d_indices(input, k, s, p, d, ceil_mode)[0]


@register(category="nn", function=False)
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """Max over windows of the last dim plus the position of each maximum (F.max_pool1d_with_indices)."""
    return _max_pool1d_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


@export(name="max_pool1d_with_indices")
@_torch_name
def torch_max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """torch.max_pool1d_with_indices: (values, indices)."""
    return _max_pool1d_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


@register(category="nn")
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """Mean over windows of the last dim of [N, C, L] (or [C, L]): avg_pool2d over a unit height, as PyTorch
    (grad_fn SqueezeBackward1)."""
    _check_1d_dims(input, "avg_pool1d")
    k = _single("avg_pool1d", "kernel_size", kernel_size, parser=True)
    s = _single("avg_pool1d", "stride", stride, allow_empty=True, parser=True) if stride is not None else None
    s = k if s is None else s
    p = _single("avg_pool1d", "padding", padding, parser=True)
    return avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad).squeeze(-2)


# ---------------------------------------------------------------- N-D windows (3-D pooling)

def _triple(name, what, v, verb):
    if isinstance(v, (list, tuple)):
        if len(v) not in (1, 3):
            raise RuntimeError(f"{name}: {what} must {verb} a single int, or a tuple of three ints")
        return tuple(int(x) for x in v) * (3 if len(v) == 1 else 1)
    return (int(v),) * 3


def _pool3d_args(name, kernel_size, stride, padding, dilation):
    either = "either be" if name == "max_pool3d" else "be"
    k = _triple(name, "kernel_size", kernel_size, either)
    if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0):
        s = k
    else:
        omit = "either be omitted," if name == "max_pool3d" else "be omitted,"
        if isinstance(stride, (list, tuple)) and len(stride) not in (1, 3):
            raise RuntimeError(f"{name}: stride must {omit} a single int, or a tuple of three ints")
        s = _triple(name, "stride", stride, either)
    p = _triple(name, "padding", padding, either)
    d = _triple(name, "dilation", dilation, "be either" if name == "max_pool3d" else "be")
    return k, s, p, d


def _output_shape(shp, k, s, p, d, ceil_mode):
    """PyTorch's pooling_output_shape per spatial dim, with its checks (stride, pad)."""
    out = []
    for i in range(len(k)):
        if s[i] == 0:
            raise RuntimeError("stride should not be zero")
        if p[i] < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p[i]}")
        if p[i] > ((k[i] - 1) * d[i] + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p[i]}, "
                               f"kernel_size={k[i]} and dilation={d[i]}")
        out.append(_pool_out(shp[len(shp) - len(k) + i], k[i], p[i], s[i], d[i], ceil_mode))
    return tuple(out)


def _pool3d_shape_check(input, k, s, p, d, out, fn_name, check_input_size):
    """PyTorch's pool3d_shape_check."""
    if min(k) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {k[0]} kH: {k[1]} kW: {k[2]}")
    if min(s) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dT: {s[0]} dH: {s[1]} dW: {s[2]}")
    if min(d) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {d[0]} dilationH: {d[1]} "
                           f"dilationW: {d[2]}")
    shp = input._data.shape
    for i, v in enumerate(shp):
        if not (len(shp) == 5 and i == 0) and v == 0:
            raise RuntimeError(f"{fn_name}: Expected input's non-batch dimensions to have positive length, but input "
                               f"has a shape of {_shape(shp)} and non-batch dimension 0 has length zero!")
    t, h, w = shp[-3:]
    if check_input_size and (t < k[0] or h < k[1] or w < k[2]):
        raise RuntimeError(f"input image (T: {t} H: {h} W: {w}) smaller than kernel size (kT: {k[0]} kH: {k[1]} "
                           f"kW: {k[2]})")
    if min(out) < 1:
        raise RuntimeError(f"Given input size: ({shp[-4]}x{t}x{h}x{w}). Calculated output size: ({shp[-4]}x{out[0]}x"
                           f"{out[1]}x{out[2]}). Output size is too small")


def _pads(size, k, s, p, d, out):
    """(lo, hi) per spatial dim so every window of the output lies inside the padded array."""
    return [(p[i], max(p[i], (out[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1 - size[i] - p[i])) for i in range(len(k))]


def _padded_nd(x, pads, fill):
    if not any(lo or hi for lo, hi in pads):
        return x
    lead = x.ndim - len(pads)
    out = np.full(x.shape[:lead] + tuple(x.shape[lead + i] + lo + hi for i, (lo, hi) in enumerate(pads)), fill,
                  dtype=x.dtype)
    out[(Ellipsis,) + tuple(slice(lo, lo + x.shape[lead + i]) for i, (lo, _) in enumerate(pads))] = x
    return out


def _taps(k, d, s, out):
    """(kernel offset, slices of the padded array that read that tap for every output position)."""
    for off in itertools.product(*(range(v) for v in k)):
        yield off, (Ellipsis,) + tuple(slice(off[i] * d[i], off[i] * d[i] + s[i] * (out[i] - 1) + 1, s[i])
                                       for i in range(len(k)))


def _flat_positions(size, k, s, p, d, out, off):
    """Flat input index (over the spatial dims) that tap `off` reads for each output position."""
    flat = np.zeros((), dtype=np.int64)
    for i in range(len(k)):
        flat = flat[..., None] * size[i] + (np.arange(out[i]) * s[i] - p[i] + off[i] * d[i])
    return flat


def _first_valid(size, k, s, p, d, out):
    """PyTorch's initial arg-max: the first in-bounds position of each window."""
    flat = np.zeros((), dtype=np.int64)
    for i in range(len(k)):
        start = np.arange(out[i]) * s[i] - p[i]
        flat = flat[..., None] * size[i] + np.where(start < 0, start + (-start + d[i] - 1) // d[i] * d[i], start)
    return flat


def _max_pool_nd_np(x, k, s, p, d, out):
    """(values, flat indices) of N-D max pooling over the trailing len(k) dims (NaN wins, first max on ties)."""
    nsp = len(k)
    size = x.shape[-nsp:]
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    xp = _padded_nd(x, _pads(size, k, s, p, d, out), low)
    lead = x.shape[:-nsp]
    best = np.full(lead + tuple(out), low, dtype=x.dtype)
    idx = np.broadcast_to(_first_valid(size, k, s, p, d, out), best.shape).copy()
    for off, sl in _taps(k, d, s, out):
        v = xp[sl]
        take = v > best
        if x.dtype.kind == "f":
            take |= np.isnan(v)   # PyTorch: (val > max) || isnan(val)
        np.copyto(best, v, where=take)
        np.copyto(idx, _flat_positions(size, k, s, p, d, out, off), where=take)
    return best, idx


def _scatter_np(g, idx, in_shape, nsp):
    """Add each pooled gradient into the flat spatial position idx points at."""
    sp = int(np.prod(in_shape[-nsp:]))
    nc = int(np.prod(in_shape[:-nsp]))
    flat = (np.arange(nc).reshape((nc, 1)) * sp + idx.reshape(nc, int(np.prod(idx.shape[-nsp:])))).ravel()
    out = np.bincount(flat, weights=g.ravel(), minlength=nc * sp).astype(g.dtype, copy=False)
    return out.reshape(in_shape)


class MaxPool3DWithIndicesBackward0(Op):
    @staticmethod
    def forward(ctx, input, k, s, p, d, out):
        best, idx = _max_pool_nd_np(input._data, k, s, p, d, out)
        ctx.save_for_backward(_make(idx))
        ctx.shape = input._data.shape
        return best, idx

    @staticmethod
    def backward(ctx, g, g_idx=None):
        (idx,) = ctx.saved_tensors
        return MaxPool3DWithIndicesBackwardBackward0.apply(g, idx, ctx.shape)


class MaxPool3DWithIndicesBackwardBackward0(Op):
    """Scatter pooled gradients to the arg-max positions (3-D max-pool's backward); its adjoint gathers."""

    @staticmethod
    def forward(ctx, g, idx, in_shape):
        ctx.save_for_backward(idx)
        return _scatter_np(g._data, idx._data, in_shape, 3)

    @staticmethod
    def backward(ctx, gg):
        (idx,) = ctx.saved_tensors
        return MaxPool3DGatherBackward0.apply(gg, idx), None


class MaxPool3DGatherBackward0(Op):
    """out = input's spatial dims flattened, read at indices (3-D max-pool's double backward)."""

    @staticmethod
    def forward(ctx, input, idx):
        ctx.save_for_backward(idx)
        ctx.shape = input._data.shape
        x = input._data
        lead = idx._data.shape[:-3]
        flat = x.reshape(lead + (int(np.prod(x.shape[-3:])),))
        picks = idx._data.reshape(lead + (int(np.prod(idx._data.shape[-3:])),))
        return np.take_along_axis(flat, picks, -1).reshape(idx._data.shape)

    @staticmethod
    def backward(ctx, g):
        (idx,) = ctx.saved_tensors
        return MaxPool3DWithIndicesBackwardBackward0.apply(g, idx, ctx.shape), None


def _max_pool3d_indices(input, kernel_size, stride, padding, dilation, ceil_mode):
    k, s, p, d = _pool3d_args("max_pool3d", kernel_size, stride, padding, dilation)
    if input._data.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    out = _output_shape(input._data.shape, k, s, p, d, ceil_mode)
    _pool3d_shape_check(input, k, s, p, d, out, "max_pool3d_with_indices_out_cpu_template()", False)
    return MaxPool3DWithIndicesBackward0.apply(input, k, s, p, d, out)


@register(category="nn")
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max over kt x kh x kw windows of [N, C, D, H, W] (or [C, D, H, W]) (MaxPool3DWithIndicesBackward0);
    stride defaults to kernel_size; indices are flat d*H*W + h*W + w."""
    out, idx = _max_pool3d_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


@register(category="nn", function=False)
def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """Max over 3-D windows plus the flat (d*H*W + h*W + w) index of each maximum (F.max_pool3d_with_indices)."""
    return _max_pool3d_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def _avg_divisor_nd(size, k, s, p, out, count_include_pad, divisor_override):
    """PyTorch's divisor per output position: window size clipped to input+padding (or to the input)."""
    if divisor_override:
        return np.full(out, divisor_override, dtype=np.int64)
    div = 1
    for i in range(len(k)):
        start = np.arange(out[i]) * s[i] - p[i]
        end = np.minimum(start + k[i], size[i] + p[i])
        n = end - start if count_include_pad else np.minimum(end, size[i]) - np.maximum(start, 0)
        div = np.multiply.outer(div, n) if i else n
    return np.maximum(div, 1) if not count_include_pad else div


def _avg_pool_nd_np(x, k, s, p, out, divisor):
    nsp = len(k)
    size = x.shape[-nsp:]
    xp = _padded_nd(x, _pads(size, k, s, p, (1,) * nsp, out), 0)
    acc = np.zeros(x.shape[:-nsp] + tuple(out), dtype=x.dtype if x.dtype.kind == "f" else np.float64)
    for _, sl in _taps(k, (1,) * nsp, s, out):
        acc += xp[sl]
    if x.dtype.kind == "f":
        return acc / divisor.astype(x.dtype)
    return np.trunc(acc / divisor).astype(x.dtype)


def _avg_spread_np(g, in_shape, k, s, p, divisor):
    """Adjoint of _avg_pool_nd_np: each pooled gradient / divisor spread over its window."""
    nsp = len(k)
    size, out = in_shape[-nsp:], g.shape[-nsp:]
    pads = _pads(size, k, s, p, (1,) * nsp, out)
    acc = np.zeros(tuple(in_shape[:-nsp]) + tuple(size[i] + lo + hi for i, (lo, hi) in enumerate(pads)),
                   dtype=g.dtype)
    share = g / divisor.astype(g.dtype)
    for _, sl in _taps(k, (1,) * nsp, s, out):
        acc[sl] += share
    return np.ascontiguousarray(acc[(Ellipsis,) + tuple(slice(lo, lo + size[i]) for i, (lo, _) in enumerate(pads))])


class AvgPool3DBackward0(Op):
    @staticmethod
    def forward(ctx, input, k, s, p, out, divisor):
        ctx.meta = (input._data.shape, k, s, p, divisor)
        return _avg_pool_nd_np(input._data, k, s, p, out, divisor)

    @staticmethod
    def backward(ctx, g):
        return AvgPool3DBackwardBackward0.apply(g, *ctx.meta)

    @staticmethod
    def backward_np(ctx, g):
        return _avg_spread_np(g, *ctx.meta)


class AvgPool3DBackwardBackward0(Op):
    """Spread pooled gradients over their windows (3-D avg-pool's backward); its adjoint is avg-pool."""

    @staticmethod
    def forward(ctx, g, in_shape, k, s, p, divisor):
        ctx.meta = (k, s, p, tuple(g._data.shape[-3:]), divisor)
        return _avg_spread_np(g._data, in_shape, k, s, p, divisor)

    @staticmethod
    def backward(ctx, gg):
        return AvgPool3DBackward0.apply(gg, *ctx.meta)


@register(category="nn", function=False)
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Mean over kt x kh x kw windows (AvgPool3DBackward0); padding counts in the divisor unless
    count_include_pad=False; divisor_override replaces the divisor."""
    k, s, p, d = _pool3d_args("avg_pool3d", kernel_size, stride, padding, 1)
    if input._data.ndim not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    out = _output_shape(input._data.shape, k, s, p, d, ceil_mode)
    _pool3d_shape_check(input, k, s, p, d, out, "avg_pool3d()", True)
    divisor = _avg_divisor_nd(input._data.shape[-3:], k, s, p, out, count_include_pad, divisor_override)
    return AvgPool3DBackward0.apply(input, k, s, p, out, divisor)


# ---------------------------------------------------------------- power-average pooling (torch's Python composition)

def _ntuple(x, n):
    """torch.nn.modules.utils._pair / _triple: an iterable as a tuple (unpacking it checks the length, with
    Python's ValueError), anything else repeated n times."""
    return tuple(x) if isinstance(x, Iterable) else (x,) * n


@register(category="nn", function=False)
def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over windows of the last dim: (sum of x**p over each window)**(1/p).

    As torch composes it: avg_pool1d of x**p times the window size, to the power 1/p; p=inf is max_pool1d of
    |x|."""
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return max_pool1d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool1d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(kernel_size).pow(1.0 / norm_type)


@register(category="nn", function=False)
def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over kh x kw windows: (sum of x**p over each window)**(1/p).

    As torch composes it: avg_pool2d of x**p times kh*kw, to the power 1/p; p=inf is max_pool2d of |x|."""
    kw, kh = _ntuple(kernel_size, 2)
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return max_pool2d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool2d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(kw * kh).pow(1.0 / norm_type)


@register(category="nn", function=False)
def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over kd x kh x kw windows: (sum of x**p over each window)**(1/p).

    As torch composes it: avg_pool3d of x**p times kd*kh*kw, to the power 1/p; p=inf is max_pool3d of |x|."""
    kd, kw, kh = _ntuple(kernel_size, 3)
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return max_pool3d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool3d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool3d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (out.sign() * relu(out.abs())).mul(kd * kw * kh).pow(1.0 / norm_type)
