"""torch-level factories that creation.py does not hold: scalar_tensor, empty_strided, empty_permuted,
Tensor.new_empty_strided, the ATen windows (hann_window, hamming_window, bartlett_window, blackman_window,
kaiser_window), torch.fill (the out-of-place fill_, FillBackward0/1) and the deprecated end-inclusive
torch.range."""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import dtypes as _dt
from .._alloc import _check_alloc, _parse_size
from ..device import check_factory_device
from ..autograd.function import Op
from ..creation import _factory, arange, empty, ones
from ..tensor import Tensor
from . import registry
from .pointwise.fill_copy import fill_
from .registry import export, register

_CPP_DTYPE = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
              "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


@export
def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False):
    """torch.scalar_tensor(s): a 0-d tensor of the default float dtype (or dtype) holding s."""
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    return _factory(((),), dt, dt, requires_grad, lambda shape, npdt: np.full(shape, s, dtype=npdt),
                    "scalar_tensor", device)


def _strided_empty(size, stride, dt):
    """A zero-filled array of shape size whose element strides are stride (PyTorch's storage extent)."""
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
                           f"({len(stride)})")
    extent = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    buf = np.zeros(max(extent, 1), dtype=dt.np)
    isz = buf.itemsize
    return np.lib.stride_tricks.as_strided(buf, tuple(size), tuple(s * isz for s in stride))


@export
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """torch.empty_strided(size, stride): uninitialised (here zero) values with the given strides."""
    size, stride = tuple(_parse_size((size,), "empty_strided")), tuple(int(s) for s in stride)
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    return _factory(((0,),), dt, dt, requires_grad, lambda shape, npdt: _strided_empty(size, stride, dt),
                    "empty_strided", device)


def new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                      pin_memory=False):
    """Tensor.new_empty_strided: empty_strided with self's dtype by default."""
    return empty_strided(size, stride, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


registry.method("new_empty_strided", new_empty_strided)


@export
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """torch.empty_permuted(size, physical_layout): dims laid out in memory in physical_layout's order
    (physical_layout[0] outermost)."""
    size = tuple(_parse_size((size,), "empty_permuted"))
    perm = [int(d) for d in physical_layout]
    if len(perm) != len(size):
        raise RuntimeError("Number of dimensions in size does not match the length of the physical_layout; "
                           f"i.e. len(size) = {len(size)} is not equal to len(physical_layout) = {len(perm)}")
    if sorted(perm) != list(range(len(size))):
        raise RuntimeError("Duplicate dim not allowed")
    stride, acc = [0] * len(size), 1
    for d in reversed(perm):
        stride[d], acc = acc, acc * max(size[d], 1)
    return empty_strided(size, stride, dtype=dtype, device=device, requires_grad=requires_grad)


class FillBackward0(Op):
    @staticmethod
    def forward(ctx, a, value):
        return np.full(a._data.shape, value, dtype=a._data.dtype)

    @staticmethod
    def backward(ctx, g):
        return g.new_zeros(g.shape)


class FillBackward1(Op):
    grads_per_arg = True

    @staticmethod
    def forward(ctx, a, value):
        return np.full(a._data.shape, value._data, dtype=a._data.dtype)

    @staticmethod
    def backward(ctx, g):
        return g.new_zeros(g.shape), g.sum()


@register(category="pointwise")
def fill(input, value):
    """torch.fill(input, value): a new tensor of input's shape and dtype filled with value (no gradient to
    input; a 0-d tensor value gets the sum of the gradient)."""
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value._data.ndim} dimensions.")
        return FillBackward1.apply(input, value)
    fill_(input.new_empty(()), value)     # fill_'s argument checks (type, complex value)
    return FillBackward0.apply(input, value)


# -- the ATen windows (torch.hann_window, ...): arange, then in-place float math as TensorFactories.cpp ----

def _window_checks(name, length, dtype):
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    if length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={length}")
    if not dt.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype={_CPP_DTYPE[str(dt)[6:]]}"
                           ", device=cpu, layout=Strided (default), requires_grad=false (default), "
                           "pinned_memory=false, memory_format=(nullopt))")
    return dt


def _finish(w, periodic, length, requires_grad):
    w = w[:length] if periodic else w
    w = w.detach().contiguous()
    return w.requires_grad_() if requires_grad else w


def _window(name, length, periodic, dtype, requires_grad, body):
    dt = _window_checks(name, length, dtype)
    if length in (0, 1):
        return (empty if length == 0 else ones)(length, dtype=dt, requires_grad=requires_grad)
    n = length + 1 if periodic else length
    return _finish(body(arange(n, dtype=dt), n), periodic, length, requires_grad)


@export
def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None,
                   device=None, pin_memory=False, requires_grad=False):
    """alpha - beta cos(2 pi n / (N - 1)), N = window_length (+ 1 when periodic, then the last dropped)."""
    return _window("hamming_window", window_length, periodic, dtype, requires_grad,
                   lambda w, n: (w * (math.pi * 2 / (n - 1))).cos() * -beta + alpha)


@export
def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                requires_grad=False):
    """hamming_window with alpha = beta = 0.5."""
    return _window("hann_window", window_length, periodic, dtype, requires_grad,
                   lambda w, n: (w * (math.pi * 2 / (n - 1))).cos() * -0.5 + 0.5)


def _bartlett(w, n):
    w = w * (2.0 / (n - 1))
    half = ((n - 1) >> 1) + 1
    w[half:] = w[half:] * -1 + 2
    return w


@export
def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    """The triangular window 1 - |2n / (N - 1) - 1|."""
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad, _bartlett)


def _blackman(w, n):
    w = w * (math.pi / (n - 1))
    return (w * 4).cos() * 0.08 - (w * 2).cos() * 0.5 + 0.42


@export
def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    """0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))."""
    return _window("blackman_window", window_length, periodic, dtype, requires_grad, _blackman)


@export
def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  pin_memory=False, requires_grad=False):
    """i0(beta sqrt(1 - ((n - alpha) / alpha)^2)) / i0(beta), alpha = (N - 1) / 2."""
    def body(w, n):
        alpha = (n - 1) / 2.0
        x = np.sqrt(1 - ((w._data - alpha) / alpha) ** 2) * beta
        num = registry.FUNCTIONS["i0"](Tensor._make(x.astype(w._data.dtype)))
        den = registry.FUNCTIONS["i0"](Tensor._make(np.array(beta, dtype=w._data.dtype)))
        return num / den
    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, body)


_RANGE_WARNING = ("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).")


@export(name="range")
def range_(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Deprecated torch.range: start, start + step, ... up to and including end, in the default dtype unless
    given one (values start + i * step in double, as ATen's range kernel), with torch's warning."""
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    warnings.warn(_RANGE_WARNING, UserWarning, stacklevel=2)
    dt = _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    cast = float if dt.is_floating_point else (lambda v: float(int(v)))    # ATen's accscalar_t: int64 for ints
    xstart, xend, xstep = (cast(v.item() if isinstance(v, Tensor) else v) for v in (start, end, step))
    if xstep == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(xstart) and math.isfinite(xend)):
        raise RuntimeError(f"unsupported range: {xstart} -> {xend}")
    if not ((xstep > 0 and xend >= xstart) or (xstep < 0 and xend <= xstart)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = int((xend - xstart) / xstep + 1) if dt.is_floating_point else int((xend - xstart) // xstep + 1)
    values = xstart + np.arange(n, dtype=np.float64) * xstep
    check_factory_device(device)
    _check_alloc((n,), dt)
    r = Tensor._make(values.astype(dt.np))
    if out is not None:
        out.resize_(r.shape).copy_(r)
        return out
    return r.requires_grad_(requires_grad) if requires_grad else r
