"""F.grid_sample / torch.grid_sampler_2d / grid_sampler_3d: read input at the (x, y[, z]) locations of
a grid in [-1, 1] (ATen's GridSampler: unnormalize, zeros / border / reflection padding, bilinear or
trilinear corners, nearest with round-half-even, bicubic with A=-0.75 taps padded one by one).
Every mode is a sum over taps of weight(grid) * input[tap]; the input gradient scatters the weights,
the grid gradient sums d weight / d coordinate * input[tap] over channels (times the coordinate's
derivative through unnormalize and padding), as ATen's backward kernels."""
from __future__ import annotations

import itertools
import warnings

import numpy as np

from ... import dtypes as _dt
from ...autograd.function import Op
from ..registry import export, register
from ._util import _shape

_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDINGS = {"zeros": 0, "border": 1, "reflection": 2}
_A = -0.75


def _unnormalize(c, size, align, ft):
    """grid_sampler_unnormalize_set_grad: (coordinate, d coordinate / d grid)."""
    if align:
        return (c + 1) * ft((size - 1) / 2), ft((size - 1) / 2)
    if ft is np.float32:   # ATen's kernels compute (c + 1) * size/2 - 0.5 as one fused multiply-add
        return ((c + 1).astype(np.float64) * (size / 2) - 0.5).astype(ft), ft(size / 2)
    return ((c + 1) * ft(size) - 1) / ft(2), ft(size / 2)


def _clip(c, size, ft):
    hi = ft(size - 1)
    grad = ((c > 0) & (c < hi)).astype(ft)
    return np.minimum(hi, np.maximum(c, ft(0))), grad


def _reflect(c, twice_low, twice_high, ft):
    if twice_low == twice_high:
        return np.zeros_like(c), np.zeros_like(c)
    lo, span = ft(twice_low / 2), ft((twice_high - twice_low) / 2)
    c = c - lo
    sign = np.where(c < 0, ft(-1), ft(1))
    c = np.abs(c)
    extra = np.fmod(c, span)
    flips = np.floor(c / span)
    even = np.fmod(flips, 2) == 0
    return np.where(even, extra + lo, span - extra + lo), np.where(even, sign, -sign)


def _pad_coordinate(c, size, padding, align, ft):
    """compute_coordinates (+ its gradient): border clips, reflection reflects then clips; NaN/inf -> -100."""
    grad = np.ones_like(c)
    if padding == 1:
        c, grad = _clip(c, size, ft)
    elif padding == 2:
        c, grad = _reflect(c, 0, 2 * (size - 1), ft) if align else _reflect(c, -1, 2 * size - 1, ft)
        c, g2 = _clip(c, size, ft)
        grad = grad * g2
    bad = ~np.isfinite(c) | (c > 2 ** 31) | (c < -2 ** 31)
    return np.where(bad, ft(-100), c), grad


def _cubic(t, ft):
    a, one = ft(_A), ft(1)

    def c1(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def c2(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return [c2(t + one), c1(t), c1(one - t), c2(ft(2) - t)]


def _cubic_grad(t, ft):
    """d coefficient / d t (ATen's get_cubic_coefficients_grad gives their negatives and subtracts)."""
    a = ft(_A)
    x0, x1, x2, x3 = -1 - t, -t, 1 - t, 2 - t
    return [-((-3 * a * x0 - 10 * a) * x0 - 8 * a), -((-3 * (a + 2) * x1 - 2 * (a + 3)) * x1),
            -((3 * (a + 2) * x2 - 2 * (a + 3)) * x2), -((3 * a * x3 - 10 * a) * x3 + 8 * a)]


def _axis_taps(c, size, mode, padding, align, ft):
    """Per spatial axis: [(int index, in-bounds, weight, d weight / d coordinate)] and d coordinate / d grid."""
    c, mult = _unnormalize(c, size, align, ft)
    if mode == 2:   # bicubic: unnormalized coordinate, each tap padded on its own
        base = np.floor(c)
        t = c - base
        taps = []
        for j, (w, dw) in enumerate(zip(_cubic(t, ft), _cubic_grad(t, ft))):
            pos, _ = _pad_coordinate(base - 1 + j, size, padding, align, ft)
            idx = pos.astype(np.int64)
            taps.append((idx, (idx >= 0) & (idx < size), w, dw))
        return taps, np.full_like(c, mult)
    c, g = _pad_coordinate(c, size, padding, align, ft)
    mult = g * mult
    if mode == 1:
        idx = np.rint(c).astype(np.int64)
        return [(idx, (idx >= 0) & (idx < size), np.ones_like(c), np.zeros_like(c))], mult
    base = np.floor(c)
    idx = base.astype(np.int64)
    hi = base + 1
    return [(idx, (idx >= 0) & (idx < size), hi - c, -np.ones_like(c)),
            (idx + 1, (idx + 1 >= 0) & (idx + 1 < size), c - base, np.ones_like(c))], mult


def _plan(shape, grid, mode, padding, align):
    """Taps of the whole grid: list of (flat index [N, P], weight [N, P], d weight / d coord per axis), mults."""
    nsp = grid.shape[-1]
    size = shape[2:]
    ft = grid.dtype.type
    n = grid.shape[0]
    g = grid.reshape(n, -1, nsp)
    axes, mults = [], []
    for d in range(nsp):   # grid component nsp-1-d addresses spatial dim d (x is the last dim)
        taps, mult = _axis_taps(g[..., nsp - 1 - d], size[d], mode, padding, align, ft)
        axes.append(taps)
        mults.append(mult)
    plan = []
    for combo in itertools.product(*axes):
        flat = np.zeros(g.shape[:2], dtype=np.int64)
        ok = np.ones(g.shape[:2], dtype=bool)
        w = np.ones(g.shape[:2], dtype=ft)
        for d, (idx, inb, wt, _) in enumerate(combo):
            flat = flat * size[d] + np.clip(idx, 0, size[d] - 1)
            ok &= inb
            w = w * wt
        dws = []
        for d in range(nsp):
            dw = combo[d][3]
            for e in range(nsp):
                if e != d:
                    dw = dw * combo[e][2]
            dws.append(np.where(ok, dw, 0))
        plan.append((flat, np.where(ok, w, 0).astype(ft), dws))
    return plan, mults


def _gather(x, flat):
    n, c = x.shape[:2]
    xf = x.reshape(n, c, -1)
    return np.take_along_axis(xf, np.broadcast_to(flat[:, None, :], (n, c, flat.shape[1])), 2)


def _grid_forward(x, grid, mode, padding, align):
    plan, _ = _plan(x.shape, grid, mode, padding, align)
    n, c = x.shape[:2]
    out = np.zeros((n, c, grid.shape[1] * int(np.prod(grid.shape[2:-1]))), dtype=x.dtype)
    for flat, w, _ in plan:
        out += w[:, None, :] * _gather(x, flat)
    return out.reshape((n, c) + grid.shape[1:-1])


def _grid_backward(g, x, grid, mode, padding, align, need):
    plan, mults = _plan(x.shape, grid, mode, padding, align)
    n, c = x.shape[:2]
    nsp = grid.shape[-1]
    gf = g.reshape(n, c, -1)
    gi = np.zeros((n, c, int(np.prod(x.shape[2:]))), dtype=x.dtype) if need[0] else None
    gg = np.zeros(grid.reshape(n, -1, nsp).shape, dtype=grid.dtype) if need[1] else None
    lead = (np.arange(n)[:, None, None], np.arange(c)[None, :, None])
    for flat, w, dws in plan:
        if gi is not None:
            np.add.at(gi, lead + (np.broadcast_to(flat[:, None, :], gf.shape),), gf * w[:, None, :])
        if gg is not None:
            s = (gf * _gather(x, flat)).sum(1)
            for d in range(nsp):
                gg[..., nsp - 1 - d] += s * dws[d]
    if gg is not None:
        for d in range(nsp):
            gg[..., nsp - 1 - d] *= mults[d]
        gg = gg.reshape(grid.shape)
    return (None if gi is None else gi.reshape(x.shape)), gg


def _sampler_pair(nd):
    def forward(ctx, input, grid, mode, padding, align):
        ctx.save_for_backward(input, grid)
        ctx.meta = (mode, padding, align)
        return _grid_forward(input._data, grid._data, mode, padding, align)

    def backward(ctx, g):
        input, grid = ctx.saved_tensors
        return bwd.apply(g, input, grid, *ctx.meta, tuple(ctx.needs_input_grad[:2]))

    def b_forward(ctx, g, input, grid, mode, padding, align, need):
        gi, gg = _grid_backward(g._data, input._data, grid._data, mode, padding, align, need)
        return (np.zeros_like(input._data) if gi is None else gi), (np.zeros_like(grid._data) if gg is None else gg)

    def b_backward(ctx, *grads):
        raise NotImplementedError(f"core: the double backward of grid_sampler_{nd}d is not implemented")

    name = f"GridSampler{nd}D"
    bwd = type(name + "BackwardBackward0", (Op,), {"forward": staticmethod(b_forward),
                                                   "backward": staticmethod(b_backward)})
    return type(name + "Backward0", (Op,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})


GridSampler2DBackward0, GridSampler3DBackward0 = _sampler_pair(2), _sampler_pair(3)


def _checks(input, grid, mode, nd):
    """check_grid_sampler_common and check_grid_sampler_{2,3}d, in ATen's order."""
    xs, gs = input._data.shape, grid._data.shape
    if len(xs) and len(gs) and xs[0] != gs[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {_shape(xs)} and grid with sizes {_shape(gs)}")
    if gs[-1] != len(xs) - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {len(xs) - 2} in last dimension, but got grid "
                           f"with sizes {_shape(gs)}")
    for i in range(2, len(xs)):
        if xs[i] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {_shape(xs)} with dimension {i} being empty")
    if len(xs) != nd + 2 or len(gs) != len(xs):
        raise RuntimeError(f"grid_sampler(): expected {nd + 2}D input and grid with same number of dimensions, but "
                           f"got input with sizes {_shape(xs)} and grid with sizes {_shape(gs)}")
    if nd == 3 and mode == 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"grid_sampler_{nd}d_cpu_kernel_impl\" not implemented for "
                                  f"'{_dt.scalar_name(input.dtype)}'")
    if input._data.dtype != grid._data.dtype:   # the kernel reads grid as input's scalar type
        raise RuntimeError(f"expected scalar type {_dt.scalar_name(input.dtype)} but found "
                           f"{_dt.scalar_name(grid.dtype)}")


def _parse(name, interpolation_mode, padding_mode, align_corners):
    """torch's argument parser: int modes (not bool or float), a bool align_corners."""
    for pos, arg, v in ((3, "interpolation_mode", interpolation_mode), (4, "padding_mode", padding_mode)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be int, not {type(v).__name__}")
    if not isinstance(align_corners, (bool, np.bool_)):
        raise TypeError(f"{name}(): argument 'align_corners' (position 5) must be bool, not "
                        f"{type(align_corners).__name__}")


# no commands yet: the CLI's own --grid option (draw as grids) takes the name of torch's `grid` parameter


@register(category="nn")
def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """Sample [N, C, H, W] at the locations of grid [N, Ho, Wo, 2] (torch.grid_sampler_2d, integer modes).

    interpolation_mode 0 bilinear, 1 nearest, 2 bicubic; padding_mode 0 zeros, 1 border, 2 reflection
    (GridSampler2DBackward0)."""
    _parse("grid_sampler_2d", interpolation_mode, padding_mode, align_corners)
    _checks(input, grid, int(interpolation_mode), 2)
    return GridSampler2DBackward0.apply(input, grid, int(interpolation_mode), int(padding_mode), bool(align_corners))


@register(category="nn")
def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """Sample [N, C, D, H, W] at the locations of grid [N, Do, Ho, Wo, 3] (torch.grid_sampler_3d, integer modes).

    interpolation_mode 0 trilinear, 1 nearest; padding_mode 0 zeros, 1 border, 2 reflection
    (GridSampler3DBackward0)."""
    _parse("grid_sampler_3d", interpolation_mode, padding_mode, align_corners)
    _checks(input, grid, int(interpolation_mode), 3)
    return GridSampler3DBackward0.apply(input, grid, int(interpolation_mode), int(padding_mode), bool(align_corners))


@export
def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """torch.grid_sampler: grid_sampler_2d for 4-D input, grid_sampler_3d otherwise."""
    _parse("grid_sampler", interpolation_mode, padding_mode, align_corners)
    fn = grid_sampler_2d if input._data.ndim == 4 else grid_sampler_3d
    return fn(input, grid, interpolation_mode, padding_mode, align_corners)


@register(category="nn", function=False)
def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample input [N, C, H, W] (or [N, C, D, H, W]) at the normalised locations of grid [N, Ho, Wo, 2]
    ([N, Do, Ho, Wo, 3]): bilinear, nearest or bicubic; zeros, border or reflection padding."""
    if mode not in _MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=2)
        align_corners = False
    return grid_sampler(input, grid, _MODES[mode], _PADDINGS[padding_mode], align_corners)
