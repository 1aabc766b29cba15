"""F.affine_grid / torch.affine_grid_generator: the sampling grid of an affine transform, as ATen's
AffineGridGenerator.cpp builds it (a base grid of normalised coordinates [x, y(, z), 1] times theta^T
by bmm; the gradient is base^T @ grad). The companion of grid_sample."""
from __future__ import annotations

import warnings

import numpy as np

from ... import dtypes as _dt
from ...autograd.function import Op
from ...creation import _linspace_np
from ...tensor import Tensor
from ..linalg.products import bmm_np
from ..registry import export, register


def _steps(n, align, dt):
    """linspace_from_neg_one: linspace(-1, 1, n), times (n - 1) / n unless align_corners; 0 for n <= 1."""
    if n <= 1:
        return np.zeros((), dt.np)
    r = _linspace_np(-1, 1, n, dt)
    if not align:
        r = (r * dt.np.type(n - 1)) / dt.np.type(n)
    return r


def _base_grid(dt, size, align):
    """[N, (D,) H, W, nd + 1]: coordinate k along the last axis is the linspace of spatial axis -1 - k, then 1."""
    n, spatial = size[0], tuple(size[2:])
    nd = len(spatial)
    base = np.empty((n, *spatial, nd + 1), dt.np)
    for k in range(nd):
        axis_steps = _steps(spatial[nd - 1 - k], align, dt)
        base[..., k] = axis_steps.reshape(axis_steps.shape + (1,) * k) if axis_steps.ndim else axis_steps
    base[..., nd] = 1
    return base


class AffineGridGeneratorBackward0(Op):
    @staticmethod
    def forward(ctx, theta, size, align):
        t = theta._data
        base = _base_grid(_dt.from_numpy_dtype(t.dtype), size, align)
        n, nd = size[0], len(size) - 2
        ctx.base, ctx.size = Tensor._make(base.reshape(n, -1, nd + 1)), size
        return bmm_np(base.reshape(n, -1, nd + 1), t.transpose(0, 2, 1)).reshape(*size[:1], *size[2:], nd)

    @staticmethod
    def backward(ctx, g):
        n, nd = ctx.size[0], len(ctx.size) - 2
        return ctx.base.transpose(1, 2).bmm(g.reshape(n, -1, nd)).transpose(1, 2)


@export
def affine_grid_generator(theta, size, align_corners):
    """torch.affine_grid_generator(theta, size, align_corners): F.affine_grid without its argument checks."""
    size = tuple(int(s) for s in size)
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    return AffineGridGeneratorBackward0.apply(theta, size, bool(align_corners))


@register(category="nn", function=False)
def affine_grid(theta, size, align_corners=None):
    """The [N, H, W, 2] (or [N, D, H, W, 3]) grid of normalised input coordinates that grid_sample reads for the
    affine transforms theta [N, 2, 3] (or [N, 3, 4]); torch's warnings and errors."""
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(size)
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. "
                             f"Got {theta.shape}.")
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. "
                             f"Got {theta.shape}.")
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return affine_grid_generator(theta, size, align_corners)
