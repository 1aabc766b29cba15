"""Adaptive pooling: adaptive_avg_pool1d/2d/3d and adaptive_max_pool1d/2d/3d. Output cell i of an axis of
length L pools input positions [floor(i*L/out), ceil((i+1)*L/out)), as PyTorch's kernels do; the
average is one linear map per axis (out = A_h x A_w^T), so its backward is the transposed map."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ..registry import export, register
from ._util import _make, _shape, _short, _torch_name
from .pool import MaxPool2DWithIndicesBackwardBackward0
from .pool_nd import MaxPool3DWithIndicesBackwardBackward0


def _bounds(size, out):
    i = np.arange(out)
    return (i * size) // out, -((-(i + 1) * size) // out)


def _avg_matrix(size, out, dtype):
    """[out, size] matrix whose row i averages the window of output cell i."""
    a = np.zeros((out, size), dtype=dtype)
    for i, (s, e) in enumerate(zip(*_bounds(size, out))):
        a[i, s:e] = 1.0 / (e - s)
    return a


def _out_size(name, output_size, shape):
    """Expand output_size (int, or a pair whose None entries keep the input's size) to (oh, ow)."""
    if not isinstance(output_size, (list, tuple)):
        return (int(output_size), int(output_size))
    if len(shape) <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    if len(output_size) != 2:
        raise RuntimeError(f"{name}: output_size must be 2")
    return tuple(shape[-2 + i] if v is None else int(v) for i, v in enumerate(output_size))


def _check_input(input, name, spatial_only):
    """PyTorch's checks: 3-D or 4-D, non-empty non-batch dims (avg pool tolerates empty channels), float."""
    shp = input._data.shape
    if len(shp) not in (3, 4):
        colon = ":" if name == "adaptive_max_pool2d" else ""
        raise RuntimeError(f"{name}(): Expected 3D or 4D tensor, but got{colon} {_shape(shp)}")
    for i in range(len(shp) - 2 if spatial_only else len(shp) - 3, len(shp)):
        if shp[i] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {_shape(shp)} with dimension {i} being empty")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{name}\" not implemented for '{_short(input.dtype)}'")


def _size_1d(name, output_size):
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != 1:
            raise RuntimeError(f"{name}() argument 'output_size' should contain one int (got {len(output_size)})")
        return int(output_size[0])
    return int(output_size)


def _check_negative(name, shape, out):
    """adaptive_avg_pool2d's own check, or the allocation error adaptive_max_pool2d meets."""
    if min(out) >= 0:
        return
    if name == "adaptive_avg_pool2d":
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{', '.join(map(str, out))}}}")
    raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: "
                       f"{_shape(tuple(shape[:-2]) + tuple(out))}")


def _check_1d(input, name):
    nd = input._data.ndim
    if nd not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {nd}-dimensional tensor for argument #1 'self' "
                           f"(while checking arguments for {name})")


class AdaptiveAvgPool2DBackward0(Op):
    @staticmethod
    def forward(ctx, input, oh, ow):
        x = input._data
        ah = _avg_matrix(x.shape[-2], oh, x.dtype)
        aw = _avg_matrix(x.shape[-1], ow, x.dtype)
        ctx.mats = (ah, aw)
        return np.ascontiguousarray(ah @ x @ aw.T)

    @staticmethod
    def backward(ctx, g):
        ah, aw = ctx.mats
        return _make(ah.T.copy()).matmul(g).matmul(_make(aw))


@register(category="nn", function=False)
def adaptive_avg_pool2d(input, output_size):
    """Mean over adaptive windows so the output is [*, oh, ow] (AdaptiveAvgPool2DBackward0)."""
    oh, ow = _out_size("adaptive_avg_pool2d", output_size, input._data.shape)
    _check_negative("adaptive_avg_pool2d", input._data.shape, (oh, ow))
    _check_input(input, "adaptive_avg_pool2d", True)
    return AdaptiveAvgPool2DBackward0.apply(input, oh, ow)


@register(category="nn")
def adaptive_avg_pool1d(input, output_size):
    """adaptive_avg_pool2d over the last dim of [N, C, L] (or [C, L]) input (SqueezeBackward1, as torch)."""
    _check_1d(input, "adaptive_avg_pool1d")
    size = _size_1d("adaptive_avg_pool1d", output_size)
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


class AdaptiveMaxPool2DBackward0(Op):
    @staticmethod
    def forward(ctx, input, oh, ow):
        x = input._data
        h, w = x.shape[-2:]
        hs, he = _bounds(h, oh)
        ws, we = _bounds(w, ow)
        out = np.empty(x.shape[:-2] + (oh, ow), dtype=x.dtype)
        idx = np.empty(x.shape[:-2] + (oh, ow), dtype=np.int64)
        for i in range(oh):
            for j in range(ow):
                win = x[..., hs[i]:he[i], ws[j]:we[j]]
                flat = win.reshape(win.shape[:-2] + (int(np.prod(win.shape[-2:])),))
                if x.dtype.kind == "f":   # NaN wins, like torch's kernel
                    arg = np.where(np.isnan(flat).any(-1), np.isnan(flat).argmax(-1), flat.argmax(-1))
                else:
                    arg = flat.argmax(-1)
                kw = we[j] - ws[j]
                out[..., i, j] = np.take_along_axis(flat, arg[..., None], -1)[..., 0]
                idx[..., i, j] = (hs[i] + arg // kw) * w + ws[j] + arg % kw
        ctx.save_for_backward(_make(idx))
        ctx.shape = x.shape
        return out, idx

    @staticmethod
    def backward(ctx, g, g_idx=None):
        (idx,) = ctx.saved_tensors
        return MaxPool2DWithIndicesBackwardBackward0.apply(g, idx, ctx.shape, False)


@register(category="nn", function=False)
def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max over adaptive windows (AdaptiveMaxPool2DBackward0); indices are flat h*W + w positions."""
    oh, ow = _out_size("adaptive_max_pool2d", output_size, input._data.shape)
    _check_input(input, "adaptive_max_pool2d", False)
    _check_negative("adaptive_max_pool2d", input._data.shape, (oh, ow))
    out, idx = AdaptiveMaxPool2DBackward0.apply(input, oh, ow)
    return (out, idx) if return_indices else out


@register(category="nn", function=False)
def adaptive_max_pool1d(input, output_size, return_indices=False):
    """adaptive_max_pool2d over the last dim of [N, C, L] (or [C, L]) input."""
    _check_1d(input, "adaptive_max_pool1d")
    size = _size_1d("adaptive_max_pool1d", output_size)
    out, idx = adaptive_max_pool2d(input.unsqueeze(-2), (1, size), True)
    out, idx = out.squeeze(-2), idx.squeeze(-2)
    return (out, idx) if return_indices else out


@export(name="adaptive_max_pool1d")
@_torch_name
def torch_adaptive_max_pool1d(input, output_size):
    """torch.adaptive_max_pool1d: (values, indices), always."""
    return adaptive_max_pool1d(input, output_size, True)


# ---------------------------------------------------------------- 3-D

def _out_size3(name, output_size, shape):
    """Expand output_size (int, or a triple whose None entries keep the input's size) to (od, oh, ow)."""
    if not isinstance(output_size, (list, tuple)):
        return (int(output_size),) * 3
    if len(shape) <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    if len(output_size) != 3:
        raise RuntimeError(f"{name}: output_size must be 3" if name == "adaptive_avg_pool3d" else
                           f"{name}(): internal error: output_size.size() must be 3")
    return tuple(shape[-3 + i] if v is None else int(v) for i, v in enumerate(output_size))


def _check_input3(input, name, out):
    shp = input._data.shape
    if name == "adaptive_avg_pool3d" and min(out) < 0:
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{', '.join(map(str, out[:2]))},{out[2]}}}")
    if len(shp) not in (4, 5):
        colon = ":" if name == "adaptive_max_pool3d" else ""
        raise RuntimeError(f"{name}(): Expected 4D or 5D tensor, but got{colon} {_shape(shp)}")
    for i in range(len(shp) - 4, len(shp)):
        if shp[i] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {_shape(shp)} with dimension {i} being empty")
    if min(out) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: "
                           f"{_shape(shp[:-3] + tuple(out))}")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_short(input.dtype)}'")


def _apply_mats(x, mats):
    """Apply one [out, in] matrix along each of the trailing len(mats) axes."""
    n = len(mats)
    for i, a in enumerate(mats):
        ax = x.ndim - n + i
        x = np.moveaxis(np.tensordot(a, x, axes=([1], [ax])), 0, ax)
    return np.ascontiguousarray(x)


class AdaptiveAvgPool3DBackward0(Op):
    @staticmethod
    def forward(ctx, input, out):
        x = input._data
        ctx.mats = tuple(_avg_matrix(x.shape[-3 + i], out[i], x.dtype) for i in range(3))
        return _apply_mats(x, ctx.mats)

    @staticmethod
    def backward(ctx, g):
        return AdaptiveAvgPool3DBackwardBackward0.apply(g, tuple(m.T for m in ctx.mats))


class AdaptiveAvgPool3DBackwardBackward0(Op):
    """Spread pooled gradients over their windows (the transposed averaging maps); its adjoint pools."""

    @staticmethod
    def forward(ctx, g, mats):
        ctx.mats = mats
        return _apply_mats(g._data, mats)

    @staticmethod
    def backward(ctx, gg):
        return AdaptiveAvgPool3DBackwardBackward0.apply(gg, tuple(m.T for m in ctx.mats))


@register(category="nn", function=False)
def adaptive_avg_pool3d(input, output_size):
    """Mean over adaptive windows so the output is [*, od, oh, ow] (AdaptiveAvgPool3DBackward0)."""
    out = _out_size3("adaptive_avg_pool3d", output_size, input._data.shape)
    _check_input3(input, "adaptive_avg_pool3d", out)
    return AdaptiveAvgPool3DBackward0.apply(input, out)


class AdaptiveMaxPool3DBackward0(Op):
    @staticmethod
    def forward(ctx, input, out):
        x = input._data
        size = x.shape[-3:]
        b = [_bounds(size[i], out[i]) for i in range(3)]
        vals = np.empty(x.shape[:-3] + tuple(out), dtype=x.dtype)
        idx = np.empty(x.shape[:-3] + tuple(out), dtype=np.int64)
        for i, j, l in np.ndindex(*out):
            s0, s1, s2 = b[0][0][i], b[1][0][j], b[2][0][l]
            win = x[..., s0:b[0][1][i], s1:b[1][1][j], s2:b[2][1][l]]
            kh, kw = win.shape[-2:]
            flat = win.reshape(win.shape[:-3] + (int(np.prod(win.shape[-3:])),))
            nan = np.isnan(flat)
            arg = np.where(nan.any(-1), nan.argmax(-1), flat.argmax(-1))   # NaN wins, like torch's kernel
            vals[..., i, j, l] = np.take_along_axis(flat, arg[..., None], -1)[..., 0]
            idx[..., i, j, l] = ((s0 + arg // (kh * kw)) * size[1] + s1 + arg // kw % kh) * size[2] + s2 + arg % kw
        ctx.save_for_backward(_make(idx))
        ctx.shape = x.shape
        return vals, idx

    @staticmethod
    def backward(ctx, g, g_idx=None):
        (idx,) = ctx.saved_tensors
        return MaxPool3DWithIndicesBackwardBackward0.apply(g, idx, ctx.shape)


@register(category="nn", function=False)
def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max over adaptive windows (AdaptiveMaxPool3DBackward0); indices are flat d*H*W + h*W + w positions."""
    out = _out_size3("adaptive_max_pool3d", output_size, input._data.shape)
    _check_input3(input, "adaptive_max_pool3d", out)
    vals, idx = AdaptiveMaxPool3DBackward0.apply(input, out)
    return (vals, idx) if return_indices else vals


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """F.adaptive_max_pool3d_with_indices: adaptive_max_pool3d's (values, indices)."""
    return adaptive_max_pool3d(input, output_size, True)
