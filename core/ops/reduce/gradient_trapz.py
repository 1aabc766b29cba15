"""torch.gradient (central differences, edge_order 1 or 2, scalar / list / coordinate-tensor spacing),
trapz (trapezoid's old name) and cumulative_trapezoid, composed of core ops exactly as ATen composes them
(so values, dtypes and grad_fn names are torch's). Reduce functions are reached through Tensor methods and
the registry at call time: shape imports this module while the reduce package is still initialising."""
from __future__ import annotations

import numbers

from ...tensor import Tensor, _wrap_dim
from ..pointwise import DivBackward1
from ..registry import FUNCTIONS, register
from ..shape.join import cat


def _sl(t, d, start, end=None):
    """at::slice(t, d, start, end) with Python's negative bounds."""
    n = t.shape[d]
    s = start + n if start < 0 else start
    e = n if end is None else (end + n if end < 0 else end)
    s, e = min(max(s, 0), n), min(max(e, 0), n)
    return t.narrow(d, s, max(e - s, 0))


def _pre_check(self, spacing_size, dims, edge_order):
    if spacing_size is not None and dims is None and spacing_size != self.dim():
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal "
                           f"to 'self.dim() = {self.dim()}', since dim argument was not given, but got a list of "
                           f"length {spacing_size}")
    if spacing_size is not None and dims is not None and spacing_size != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length {spacing_size} "
                           f"and a dim argument of length {len(dims)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    wrapped = [_wrap_dim(d, self.dim()) for d in (dims if dims is not None else range(self.dim()))]
    if dims is not None and len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"dim {wrapped[[i for i, d in enumerate(wrapped) if d in wrapped[:i]][0]]} appears "
                           "multiple times in the list of dims")
    for d in wrapped:
        if self.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")


def _with_edges(center, prepend, append, d):
    return cat([prepend, center, append], d)


def _gradient_scalar(self, dx, d, edge_order):
    """gradient_helper_float: uniform spacing dx along d."""
    center = (_sl(self, d, 2) - _sl(self, d, 0, -2)) / dx
    if edge_order == 1:
        prepend = (_sl(self, d, 1, 2) - _sl(self, d, 0, 1)) / dx
        append = (_sl(self, d, -1) - _sl(self, d, -2, -1)) / dx
    else:
        prepend = (_sl(self, d, 0, 1) * -1.5 + _sl(self, d, 1, 2) * 2 - _sl(self, d, 2, 3) * 0.5) / dx
        append = (_sl(self, d, -3, -2) * 0.5 + _sl(self, d, -2, -1) * -2 + _sl(self, d, -1) * 1.5) / dx
    return _with_edges(center / 2, prepend, append, d)


def _gradient_coords(self, x, d, edge_order):
    """gradient_helper: sample coordinates x (1-D) along d (second-order accurate in the interior)."""
    if x.dim() != 1:
        raise RuntimeError(f"torch.gradient expected each element of spacing to have one dimension, but got an "
                           f"element with {x.dim()} dimensions!")
    shape = [1] * self.dim()
    shape[d] = -1
    h = x.diff(1, 0)
    dx1, dx2 = _sl(h, 0, 0, -1), _sl(h, 0, 1)
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * _sl(self, d, 0, -2) + b * _sl(self, d, 1, -1) + c * _sl(self, d, 2)
    if edge_order == 1:
        prepend = (_sl(self, d, 1, 2) - _sl(self, d, 0, 1)) / h[0]
        append = (_sl(self, d, -1) - _sl(self, d, -2, -1)) / h[-1]
    else:
        a = -(2.0 * h[0] + h[1]) / (h[0] * (h[0] + h[1]))
        b = (h[0] + h[1]) / (h[0] * h[1])
        c = (-h[0]) / (h[1] * (h[0] + h[1]))
        prepend = a * _sl(self, d, 0, 1) + b * _sl(self, d, 1, 2) + c * _sl(self, d, 2, 3)
        a = (h[-1]) / (h[-2] * (h[-1] + h[-2]))
        b = -(h[-1] + h[-2]) / (h[-1] * h[-2])
        c = (2 * h[-1] + h[-2]) / (h[-1] * (h[-1] + h[-2]))
        append = a * _sl(self, d, -3, -2) + b * _sl(self, d, -2, -1) + c * _sl(self, d, -1)
    return _with_edges(center, prepend, append, d)


@register(category="reduction")
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Estimate the derivative of input along each dim (all by default) by central differences, one-sided
    (edge_order 1 or 2) at the edges. spacing: a number (uniform), a list of numbers (one per dim) or of
    1-D coordinate tensors. Returns a tuple with one tensor per dim."""
    if input.dtype.name == "uint8":
        raise RuntimeError("torch.gradient does not support uint8 input.")
    spacing = 1 if spacing is None else spacing
    dims = None if dim is None else ([dim] if isinstance(dim, numbers.Integral) else list(dim))
    axes = dims if dims is not None else list(range(input.dim()))
    if isinstance(spacing, (list, tuple)):
        sp = list(spacing)
        _pre_check(input, len(sp), dims, edge_order)
    else:
        sp = [spacing] * len(axes)
        _pre_check(input, None, dims, edge_order)
    out = []
    for x, d in zip(sp, axes):
        d = _wrap_dim(d, input.dim())
        if isinstance(x, Tensor) and x.dim() != 0:
            out.append(_gradient_coords(input, x, d, edge_order))
        else:
            out.append(_gradient_scalar(input, x.item() if isinstance(x, Tensor) else x, d, edge_order))
    return tuple(out)


@register(category="reduction")
def trapz(y, x=None, *, dx=None, dim=-1):
    """torch.trapz: trapezoid's former name (the same rule and checks)."""
    return FUNCTIONS["trapezoid"](y, x, dx=dx, dim=dim)


@register(category="reduction")
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """Running trapezoidal-rule integral of y along dim (size n - 1), with sample points x or spacing dx."""
    if isinstance(x, Tensor):
        if y.dtype.name == "bool" or x.dtype.name == "bool":
            raise RuntimeError("cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not "
                               "supported")
        d = _wrap_dim(dim, y.dim())
        if x.dim() == 1:
            if x.shape[0] != y.shape[d]:
                raise RuntimeError("cumulative_trapezoid: There must be one `x` value for each sample point")
            shape = [1] * y.dim()
            shape[d] = x.shape[0]
            x = x.view(shape)
        elif x.dim() < y.dim():
            x = x.view([1] * (y.dim() - x.dim()) + list(x.shape))
        step = _sl(x, d, 1) - _sl(x, d, 0, -1)
        return DivBackward1.apply(((_sl(y, d, 0, -1) + _sl(y, d, 1)) * step).cumsum(d), 2.0)  # `/ 2.`: a scalar
    if y.dtype.name == "bool":
        raise RuntimeError("cumulative_trapezoid: received a bool input for `y`, but bool is not supported")
    d = _wrap_dim(dim, y.dim())
    step = 1.0 if dx is None else float(dx)
    return (step / 2. * (_sl(y, d, 0, -1) + _sl(y, d, 1))).cumsum(d)
