"""F.interpolate / F.upsample / F.upsample_nearest / F.upsample_bilinear. Every mode is separable: one
[out, in] map per spatial axis, built with ATen's index and weight arithmetic (nearest in float32 as
upsample_nearest*, linear/cubic in the input's opmath type, cubic with A=-0.75 and clamped taps,
antialias with ATen's triangle / Keys(a=-0.5) filters renormalised at the edges). Nearest gathers
(exact for integer dtypes); the others apply the maps; the backward applies the transposed maps.
grad_fn names are ATen's (UpsampleNearest2DBackward0, UpsampleBilinear2DBackward0, ...); 'area' is
adaptive average pooling, as in torch."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ... import dtypes as _dt
from ...autograd.function import Op
from ...tensor import Tensor
from ..registry import register
from ._util import _alloc, _shape
from .adaptive import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_KERNEL = {("nearest", 1): "UpsampleNearest1D", ("nearest", 2): "UpsampleNearest2D",
           ("nearest", 3): "UpsampleNearest3D", ("nearest-exact", 1): "UpsampleNearestExact1D",
           ("nearest-exact", 2): "UpsampleNearestExact2D", ("nearest-exact", 3): "UpsampleNearestExact3D",
           ("linear", 1): "UpsampleLinear1D", ("bilinear", 2): "UpsampleBilinear2D",
           ("bicubic", 2): "UpsampleBicubic2D", ("trilinear", 3): "UpsampleTrilinear3D",
           ("bilinear-aa", 2): "UpsampleBilinear2DAa", ("bicubic-aa", 2): "UpsampleBicubic2DAa"}


# ---------------------------------------------------------------- per-axis maps (ATen's arithmetic)

def _scale_value(scale, in_size, out_size, ft):
    """compute_scales_value<T>: 1/scale when a positive scale is given, else in/out (in T)."""
    if scale is not None and scale > 0:
        return ft(1.0 / scale)
    return ft(in_size) / ft(out_size)


def _area_scale(in_size, out_size, align_corners, scale, ft):
    """area_pixel_compute_scale<T>."""
    if align_corners:
        return ft(in_size - 1) / ft(out_size - 1) if out_size > 1 else ft(0)
    return _scale_value(scale, in_size, out_size, ft)


def _nearest_index(in_size, out_size, scale, exact):
    """upsample_nearest's source index per output position (float32 arithmetic, as ATen)."""
    dst = np.arange(out_size)
    if not exact and out_size == in_size:
        return dst
    if not exact and out_size == 2 * in_size:
        return dst >> 1
    sc = _scale_value(scale, in_size, out_size, np.float32)
    if exact:
        src = np.floor(((dst + 0.5) * np.float64(sc)).astype(np.float32))
    else:
        src = np.floor(dst.astype(np.float32) * sc)
    return np.minimum(src.astype(np.int64), in_size - 1)


def _source_index(in_size, out_size, align_corners, scale, ft, cubic):
    """area_pixel_compute_source_index<T> then guard_index_and_lambda: (floor index, lambda)."""
    sc = _area_scale(in_size, out_size, align_corners, scale, ft)
    dst = np.arange(out_size).astype(ft)
    if align_corners:
        real = sc * dst
    elif ft is np.float32:   # ATen's build contracts scale * (dst + 0.5) - 0.5 into one fused multiply-add
        real = (np.float64(sc) * (dst + ft(0.5)).astype(np.float64) - 0.5).astype(ft)
    else:
        real = sc * (dst + ft(0.5)) - ft(0.5)
    if not align_corners:
        if not cubic:
            real = np.maximum(real, ft(0))
    idx = np.minimum(np.floor(real).astype(np.int64), in_size - 1)
    lam = np.minimum(np.maximum(real - idx.astype(ft), ft(0)), ft(1))
    return idx, lam


def _linear_map(in_size, out_size, align_corners, scale, ft):
    idx, lam = _source_index(in_size, out_size, align_corners, scale, ft, False)
    m = np.zeros((out_size, in_size), dtype=ft)
    rows = np.arange(out_size)
    np.add.at(m, (rows, idx), ft(1) - lam)
    np.add.at(m, (rows, idx + (idx < in_size - 1)), lam)
    return m


def _cubic_coeffs(t, ft, a):
    def c1(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def c2(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    a = ft(a)
    one = ft(1)
    return [c2(t + one), c1(t), c1(one - t), c2(one - t + one)]


def _cubic_map(in_size, out_size, align_corners, scale, ft):
    idx, lam = _source_index(in_size, out_size, align_corners, scale, ft, True)
    m = np.zeros((out_size, in_size), dtype=ft)
    rows = np.arange(out_size)
    for j, w in enumerate(_cubic_coeffs(lam, ft, -0.75)):
        np.add.at(m, (rows, np.clip(idx - 1 + j, 0, in_size - 1)), w)
    return m


def _aa_filter(kind, x):
    x = np.abs(x)
    if kind == "bilinear":
        return np.where(x < 1, 1 - x, 0)
    a = -0.5   # Keys' cubic, as PIL
    return np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                    np.where(x < 2, ((a * x - 5 * a) * x + 8 * a) * x - 4 * a, 0))


def _aa_map(kind, in_size, out_size, align_corners, scale, ft):
    """_compute_index_ranges_weights with antialias: a filter widened by the downscale factor."""
    interp = 2 if kind == "bilinear" else 4
    sc = _area_scale(in_size, out_size, align_corners, scale, ft)
    support = ft(interp * 0.5) * sc if sc >= 1.0 else ft(interp * 0.5)
    max_interp = int(math.ceil(support)) * 2 + 1
    invscale = ft(1.0) / sc if sc >= 1.0 else ft(1.0)
    m = np.zeros((out_size, in_size), dtype=ft)
    for i in range(out_size):
        center = sc * ft(i + 0.5)
        xmin = max(int(center - support + ft(0.5)), 0)
        xsize = min(max(min(int(center + support + ft(0.5)), in_size) - xmin, 0), max_interp)
        j = np.arange(xsize)
        w = _aa_filter(kind, (j + xmin - center + ft(0.5)).astype(ft) * invscale).astype(ft)
        total = w.sum(dtype=ft)
        if total != 0:
            w = w / total
        m[i, xmin:xmin + xsize] = w
    return m


# ---------------------------------------------------------------- the Ops (one pair per kernel name)

def _apply_maps(x, maps):
    n = len(maps)
    for i, a in enumerate(maps):
        ax = x.ndim - n + i
        x = np.moveaxis(np.tensordot(a, x, axes=([1], [ax])), 0, ax)
    return np.ascontiguousarray(x)


def _gather(x, idxs):
    n = len(idxs)
    for i, idx in enumerate(idxs):
        x = np.take(x, idx, axis=x.ndim - n + i)
    return np.ascontiguousarray(x)


def _one_hot(idx, in_size, dtype):
    m = np.zeros((len(idx), in_size), dtype=dtype)
    m[np.arange(len(idx)), idx] = 1
    return m


def _resample_pair(name):
    def forward(ctx, input, maps, idxs):
        x = input._data
        if idxs is not None:
            ctx.maps = tuple(_one_hot(i, x.shape[x.ndim - len(idxs) + k], x.dtype) for k, i in enumerate(idxs))
            return _gather(x, idxs)
        ctx.maps = maps
        return _apply_maps(x, maps)

    def backward(ctx, g):
        return bwd.apply(g, tuple(np.ascontiguousarray(m.T) for m in ctx.maps))

    def b_forward(ctx, g, maps):
        ctx.maps = maps
        return _apply_maps(g._data, maps)

    def b_backward(ctx, gg):
        return fwd.apply(gg, tuple(np.ascontiguousarray(m.T) for m in ctx.maps), None)

    fwd = type(name + "Backward0", (Op,), {"forward": staticmethod(forward), "backward": staticmethod(backward),
                                           "__doc__": f"{name}: one map per spatial axis (nearest gathers)."})
    bwd = type(name + "BackwardBackward0", (Op,), {"forward": staticmethod(b_forward),
                                                   "backward": staticmethod(b_backward),
                                                   "__doc__": f"{name}'s backward: the transposed maps."})
    return fwd


_OPS = {key: _resample_pair(name) for key, name in _KERNEL.items()}


def _check_sizes(shape, out):
    """upsample_{1,2,3}d_common_check."""
    nsp = len(out)
    ins = shape[2:]
    if min(ins) > 0 and min(out) > 0:
        return
    names = ("W",) if nsp == 1 else ("H", "W") if nsp == 2 else ("D", "H", "W")
    i = ", ".join(f"{n}: {v}" for n, v in zip(names, ins))
    o = ", ".join(f"{n}: {v}" for n, v in zip(names, out))
    sep = " and output" if nsp == 1 else " output"
    raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({i}){sep} ({o})")


def _resample(input, mode, out, scales, align_corners, antialias):
    nsp = len(out)
    shape = input._data.shape
    _check_sizes(shape, out)
    if shape[1] == 0 and nsp == 2 and mode == "nearest":
        raise RuntimeError(f"Non-empty 4D data tensor expected but got a tensor with sizes {_shape(shape)}")
    dt = input._data.dtype
    if dt.kind != "f" and not (mode.startswith("nearest") and dt == np.uint8):
        kernel = {"nearest": "upsample_nearest", "nearest-exact": "_upsample_nearest_exact"}.get(mode,
                                                                                              "upsample_" + mode)
        suffix = "_channels_last" if nsp == 2 and not antialias else ""
        raise NotImplementedError(f"\"{kernel}{nsp}d{suffix}\" not implemented for '{_dt.scalar_name(input.dtype)}'")
    _alloc(shape[:2] + tuple(out), input.dtype)
    ins = shape[2:]
    if mode in ("nearest", "nearest-exact"):
        idxs = tuple(_nearest_index(ins[i], out[i], scales[i], mode == "nearest-exact") for i in range(nsp))
        return _OPS[(mode, nsp)].apply(input, None, idxs)
    ft = dt.type
    if antialias:
        maps = tuple(_aa_map(mode, ins[i], out[i], align_corners, scales[i], ft) for i in range(nsp))
        return _OPS[(mode + "-aa", nsp)].apply(input, maps, None)
    build = _cubic_map if mode == "bicubic" else _linear_map
    maps = tuple(build(ins[i], out[i], align_corners, scales[i], ft) for i in range(nsp))
    return _OPS[(mode, nsp)].apply(input, maps, None)


# ---------------------------------------------------------------- F.interpolate (torch's Python logic)

def _is_integer(x):
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return True
    return isinstance(x, Tensor) and x._data.dtype.kind in "iu"


def _output_and_scales(input, size, scale_factor, recompute_scale_factor, mode):
    dim = input._data.ndim - 2
    spatial = list(input._data.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scales = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError("Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {spatial} and output size of {size}. Please provide "
                                 "input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                                 "format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
                                f"int], but got size with types {[type(x) for x in size]}")
            out = [int(x) for x in size]
        else:
            if not _is_integer(size):
                raise TypeError(f"upsample: output_size must be ints, not {type(size).__name__}")
            out = [int(size)] * dim
    elif scale_factor is not None:
        out = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {spatial} and scale_factor of shape "
                                 f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 "scale_factor in (s1, s2, ...,sK) format.")
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and out is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        out, scales = [int(math.floor(spatial[i] * scales[i])) for i in range(dim)], None
    if out is None:   # upsample_compute_output_size: truncation of size * scale
        out = [int(spatial[i] * scales[i]) for i in range(dim)]
    return out, (scales or [None] * dim)


_WRONG_RANK = {(3, "bilinear"): "Got 3D input, but bilinear mode needs 4D input",
               (3, "trilinear"): "Got 3D input, but trilinear mode needs 5D input",
               (4, "linear"): "Got 4D input, but linear mode needs 3D input",
               (4, "trilinear"): "Got 4D input, but trilinear mode needs 5D input",
               (5, "linear"): "Got 5D input, but linear mode needs 3D input",
               (5, "bilinear"): "Got 5D input, but bilinear mode needs 4D input"}
_RANK = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


@register(category="nn", function=False)
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resample the spatial dims of [N, C, *spatial] input to `size` (or spatial * scale_factor): nearest,
    nearest-exact, (bi/tri)linear, bicubic (align_corners, antialias as torch), area (adaptive average)."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                             "bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    nd = input._data.ndim
    out, scales = _output_and_scales(input, size, scale_factor, recompute_scale_factor, mode)
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and nd == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    if nd in (3, 4, 5) and mode in ("nearest", "nearest-exact"):
        return _resample(input, mode, out, scales, None, False)
    if nd in (3, 4, 5) and mode == "area":
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[nd - 3](input, out)
    if _RANK.get(mode) == nd:
        return _resample(input, mode, out, scales, bool(align_corners), bool(antialias))
    if nd == 4 and mode == "lanczos":
        raise NotImplementedError("interpolate: mode 'lanczos' is not implemented by core")
    if (nd, mode) in _WRONG_RANK:
        raise NotImplementedError(_WRONG_RANK[(nd, mode)])
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {nd}D) for the modes: "
                              f"{_MODES} (got {mode})")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """F.upsample: deprecated spelling of interpolate (with torch's warning)."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


@register(category="nn", function=False)
def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated F.upsample_nearest: interpolate(..., mode='nearest') with torch's warning."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


@register(category="nn", function=False)
def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated F.upsample_bilinear: interpolate(..., mode='bilinear', align_corners=True) with torch's warning."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
