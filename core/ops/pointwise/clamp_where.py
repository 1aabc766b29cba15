"""clamp / clamp_min / clamp_max (Number or Tensor bounds; NaN bounds propagate), where (uint8 condition
deprecated; the one-argument form is nonzero(as_tuple=True)) and lerp, with PyTorch's gradients."""
from __future__ import annotations

import functools

import numpy as np

from ... import dtypes as _dt
from ..._warn import warn_aten
from ...autograd.function import Op
from ...tensor import Tensor
from .. import registry
from ..inplace import make_inplace
from ..registry import register
from . import _fma
from ._common import (_broadcast_error, _long, _operand, _out, _tensor_first, _tensors, quietly,
                      zeros_like_t)

class ClampBackward1(Op):
    """clamp with scalar bounds: the gradient passes where min <= input <= max (NaN inputs get 0)."""

    @staticmethod
    def forward(ctx, a, min=None, max=None):
        ctx.save_for_backward(a)
        ctx.lo, ctx.hi = min, max
        dt = _dt.result_type(a, *(v for v in (min, max) if v is not None))
        return _clamp_np(a._data.astype(dt.np, copy=False), min, max, dt)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors      # clamp_backward: where(mask, grad, 0), so a negative grad leaves +0, not -0
        return where(Tensor._make(_clamp_mask(a._data, ctx.lo, ctx.hi)), g, zeros_like_t(g))


class ClampMinBackward0(ClampBackward1):
    pass


class ClampMaxBackward0(ClampBackward1):
    pass


def _bound(v):
    return v._data if isinstance(v, Tensor) else v


def _clamp_np(d, lo, hi, dt):
    return np.asarray(quietly(_clamp_bounds, d, _bound(lo), _bound(hi))).astype(dt.np, copy=False)


def _clamp_bounds(d, lo, hi):
    """ATen's clamp: NaN bounds win, a tie keeps the input (NumPy's maximum/minimum keep their second operand)."""
    if lo is not None:
        d = np.where(np.isnan(lo), lo, np.maximum(lo, d)) if np.asarray(lo).dtype.kind == "f" else np.maximum(lo, d)
    if hi is not None:
        d = np.where(np.isnan(hi), hi, np.minimum(hi, d)) if np.asarray(hi).dtype.kind == "f" else np.minimum(hi, d)
    return d


def _clamp_mask(a, lo, hi):
    lo, hi = _bound(lo), _bound(hi)
    mask = np.ones(a.shape, bool)
    if lo is not None:
        mask = mask & (a >= lo)
    if hi is not None:
        mask = mask & (a <= hi)
    return mask


class ClampBackward0(Op):
    """clamp with tensor bounds: gradients also flow to min (where input < min < max) and
    max (where input > max, or everywhere max < min)."""
    grads_per_arg = True

    @staticmethod
    def forward(ctx, a, lo, hi):
        ctx.save_for_backward(a, lo, hi)
        dt = _dt.result_type(*(v for v in (a, lo, hi) if v is not None))
        shapes = [v._data.shape for v in (a, lo, hi) if v is not None]
        try:
            np.broadcast_shapes(*shapes)
        except ValueError:
            raise _broadcast_error(np.empty(shapes[0]), np.empty(np.broadcast_shapes(*shapes[1:]))
                                   if len(shapes) > 2 else np.empty(shapes[1])) from None
        return _clamp_np(a._data.astype(dt.np, copy=False), lo, hi, dt)

    @staticmethod
    def backward(ctx, g):
        a, lo, hi = ctx.saved_tensors
        d = a._data
        z = zeros_like_t(g)      # clamp_backward_min_max: where(pred, grad, 0) (+0 where masked, whatever grad's sign)

        def pick(mask):
            return where(Tensor._make(np.asarray(mask)), g, z)
        ga = pick(_clamp_mask(d, lo, hi))
        glo = ghi = None
        if lo is not None and hi is not None:
            glo = pick((d < lo._data) & (lo._data < hi._data))
            ghi = pick((d > hi._data) | (hi._data < lo._data))
        elif lo is not None:
            glo = pick(d < lo._data)
        else:
            ghi = pick(d > hi._data)
        return ga, glo, ghi


class ClampMinBackward1(ClampBackward0):
    pass


class ClampMaxBackward1(ClampBackward0):
    pass


def _check_bound(v, fn, pos, name):
    if v is not None and not isinstance(v, (Tensor, int, float, bool, np.number, np.bool_)):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Number, not {type(v).__name__}")


@register(category="pointwise", methods=("clamp", "clip"))
def clamp(input, min=None, max=None, *, out=None):
    """Clamp into [min, max]; gradient passes where min <= input <= max."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    _check_bound(min, "clamp", 2, "min")
    _check_bound(max, "clamp", 3, "max")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        if (min is not None and not isinstance(min, Tensor)) or (max is not None and not isinstance(max, Tensor)):
            raise TypeError("clamp() received an invalid combination of arguments - got (Tensor, "
                            f"{type(min).__name__}, {type(max).__name__}), but expected one of:\n"
                            " * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None)\n"
                            " * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")
        return _out(ClampBackward0.apply(input, min, max), out)
    return _out(ClampBackward1.apply(input, min, max), out)


@register(category="pointwise", methods=("clamp_min",))
def clamp_min(input, min, *, out=None):
    """max(input, min) elementwise."""
    _tensor_first("clamp_min", input, min)
    if isinstance(min, Tensor):
        return _out(ClampMinBackward1.apply(input, min, None), out)
    _check_bound(min, "clamp_min", 2, "min")
    return _out(ClampMinBackward0.apply(input, min, None), out)


@register(category="pointwise", methods=("clamp_max",))
def clamp_max(input, max, *, out=None):
    """min(input, max) elementwise."""
    _tensor_first("clamp_max", input, max)
    if isinstance(max, Tensor):
        return _out(ClampMaxBackward1.apply(input, None, max), out)
    _check_bound(max, "clamp_max", 2, "max")
    return _out(ClampMaxBackward0.apply(input, None, max), out)


def _scalar_clamp_inplace(method):
    """clamp with Number bounds names the in-place cast's target in C++ type names ("long int"), unlike other ops."""

    @functools.wraps(method)
    def clamp_inplace(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except RuntimeError as e:
            msg = str(e)
            if "can't be cast to the desired output type" in msg and \
                    not any(isinstance(v, Tensor) for v in (*args, *kwargs.values())):
                raise RuntimeError(msg.rsplit(" ", 1)[0] + " " + _dt.cpp_name(self.dtype)) from None
            raise
    return clamp_inplace


for _op in (clamp, clamp_min, clamp_max):
    _ip = _op.__name__ + "_"
    registry.add_inplace(_op.__name__, _ip, _scalar_clamp_inplace(make_inplace(_op, _ip)))


class WhereBackward0(Op):
    grads_per_arg = True

    @staticmethod
    def forward(ctx, cond, a, b):
        c = cond._data
        if c.dtype != np.bool_:
            if c.dtype == np.uint8:
                warn_aten("where received a uint8 condition tensor. This behavior is deprecated and will be removed "
                          "in a future version of PyTorch. Use a boolean condition instead.",
                          "aten/src/ATen/native/TensorCompare.cpp:621", once=True)
                c = c.astype(bool)
            else:
                raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                                   f"{_long(cond.dtype)}")
        ctx.cond = c
        dt = _dt.result_type(a, b)
        x, y = _operand(a, dt.np), _operand(b, dt.np)
        try:
            np.broadcast_shapes(c.shape, np.shape(x), np.shape(y))
        except ValueError:
            shp = [np.shape(x), np.shape(y)]
            raise _broadcast_error(c, x if np.broadcast_shapes(*shp) is None else np.empty(np.broadcast_shapes(*shp))) from None
        return np.asarray(np.where(c, x, y), dtype=dt.np)

    @staticmethod
    def backward(ctx, g):
        c = Tensor._make(ctx.cond)
        z = zeros_like_t(g)
        return None, where(c, g, z), where(c, z, g)





@register(category="pointwise")
def where(condition, input=None, other=None, *, out=None):
    """where(cond, x, y) picks x where cond else y; where(cond) is nonzero(cond, as_tuple=True)."""
    if input is None and other is None:
        # indexing's nonzero, looked up at call time: indexing builds on pointwise, not the reverse
        return registry.FUNCTIONS["nonzero"](condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where() received an invalid combination of arguments - got (Tensor, "
                        f"{type(input if other is None else other).__name__}), but expected one of:\n"
                        " * (Tensor condition)\n * (Tensor condition, Tensor input, Tensor other, *, Tensor out)\n"
                        " * (Tensor condition, Tensor input, Number other)\n"
                        " * (Tensor condition, Number input, Tensor other)\n"
                        " * (Tensor condition, Number input, Number other)\n")
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        input = Tensor._make(np.asarray(input, dtype=_dt.scalar_dtype(input).np))
    return _out(WhereBackward0.apply(condition, input, other), out)


def _lerp_np(x, y, wv):
    """ATen's lerp (Lerp.h lerp / lerp_vec), from whichever end is nearer: |w| < 0.5 ? fma(w, end - self, self)
    : fma(w - 1, end - self, end), each rounded once (float32/float64; half: the plain formulas)."""
    dt = x.dtype
    if dt not in (np.float32, np.float64):
        return np.where(np.abs(wv) < 0.5, x + wv * (y - x), y - (y - x) * (1 - wv))
    d = np.subtract(y, x)
    if np.ndim(wv) == 0:
        return _fma.fma(wv, d, x, dt) if abs(wv) < 0.5 else _fma.fma(wv - dt.type(1), d, y, dt)
    small = np.abs(wv) < 0.5
    return _fma.fma(np.where(small, wv, wv - dt.type(1)), d, np.where(small, x, y), dt)


class LerpBackward0(Op):
    """lerp with a scalar weight."""
    grads_per_arg = True

    @staticmethod
    def forward(ctx, a, b, w):
        ctx.save_for_backward(*_tensors(a, b, w))
        ctx.w = None if isinstance(w, Tensor) else w
        if a._data.dtype.kind != "f":
            raise NotImplementedError(f"\"lerp_kernel_{'tensor' if isinstance(w, Tensor) else 'scalar'}\" "
                                      f"not implemented for '{_long(a.dtype)}'")
        for name, t in (("end", b), ("weight", w)):
            if isinstance(t, Tensor) and t._data.dtype != a._data.dtype:
                raise RuntimeError(f"expected dtype {_dt.cpp_name(a.dtype)} for `{name}` but got dtype "
                                   f"{_dt.cpp_name(t.dtype)}")
        x, y = a._data, b._data
        wv = w._data if isinstance(w, Tensor) else x.dtype.type(w)
        try:
            np.broadcast_shapes(x.shape, y.shape, np.shape(wv))
        except ValueError:
            other = y if np.shape(wv) == () else np.empty(np.broadcast_shapes(y.shape, np.shape(wv)))
            raise _broadcast_error(x, other) from None
        return np.asarray(quietly(_lerp_np, x, y, wv), dtype=x.dtype)

    @staticmethod
    def backward(ctx, g):
        saved = ctx.saved_tensors
        if ctx.w is not None:
            w = ctx.w
            return g * (1 - w), g * w, None
        a, b, w = saved
        return g * (1 - w), g * w, g * (b - a)


class LerpBackward1(LerpBackward0):
    """lerp with a tensor weight (the weight gets a gradient too)."""


@register(category="pointwise", methods=("lerp",), inplace="lerp_")
def lerp(input, end, weight, *, out=None):
    """input + weight * (end - input)."""
    if not isinstance(weight, (Tensor, int, float, np.number)) or isinstance(weight, bool):
        raise TypeError(f"lerp(): argument 'weight' must be Tensor or Number, not {type(weight).__name__}")
    for name, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t._data.dtype != input._data.dtype:
            raise RuntimeError(f"expected dtype {_dt.cpp_name(input.dtype)} for `{name}` but got dtype "
                               f"{_dt.cpp_name(t.dtype)}")
    if isinstance(weight, Tensor):
        return _out(LerpBackward1.apply(input, end, weight), out)
    return _out(LerpBackward0.apply(input, end, weight), out)


