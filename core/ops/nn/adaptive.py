"""Adaptive pooling: adaptive_avg_pool1d/2d and adaptive_max_pool1d/2d. Output cell i of an axis of
length L pools input positions [floor(i*L/out), ceil((i+1)*L/out)), as PyTorch's kernels do; the
average is one linear map per axis (out = A_h x A_w^T), so its backward is the transposed map."""
from __future__ import annotations

import numpy as np

from ...autograd.function import Op
from ..registry import export, register
from ._util import _make, _shape, _short, _torch_name
from .pool import MaxPool2DWithIndicesBackwardBackward0

_X = "'[[[[1.0,2,3,4,5],[6,7,8,9,10],[11,12,13,14,15]]]]'"


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


@register(category="nn", function=False, cli=True, cli_params={"output_size": "ints"},
          cli_example=f"tensorcli adaptive-avg-pool2d {_X} --output-size 2,2")
def adaptive_avg_pool2d(input, output_size):
    """Mean over adaptive windows so the output is [*, oh, ow] (AdaptiveAvgPool2DBackward0)."""
    oh, ow = _out_size("adaptive_avg_pool2d", output_size, input._data.shape)
    _check_input(input, "adaptive_avg_pool2d", True)
    return AdaptiveAvgPool2DBackward0.apply(input, oh, ow)


@register(category="nn", cli=True, cli_params={"output_size": "ints"},
          cli_example="tensorcli adaptive-avg-pool1d '[[[1.0,2,3,4,5]]]' --output-size 2")
def adaptive_avg_pool1d(input, output_size):
    """adaptive_avg_pool2d over the last dim of [N, C, L] (or [C, L]) input (SqueezeBackward1, as torch)."""
    _check_1d(input, "adaptive_avg_pool1d")
    size = output_size[0] if isinstance(output_size, (list, tuple)) else output_size
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, int(size))).squeeze(-2)


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
                flat = win.reshape(win.shape[:-2] + (-1,))
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


@register(category="nn", function=False, cli=True, cli_params={"output_size": "ints"},
          cli_example=f"tensorcli adaptive-max-pool2d {_X} --output-size 2,2")
def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max over adaptive windows (AdaptiveMaxPool2DBackward0); indices are flat h*W + w positions."""
    oh, ow = _out_size("adaptive_max_pool2d", output_size, input._data.shape)
    _check_input(input, "adaptive_max_pool2d", False)
    out, idx = AdaptiveMaxPool2DBackward0.apply(input, oh, ow)
    return (out, idx) if return_indices else out


@register(category="nn", function=False, cli=True, cli_params={"output_size": "ints"},
          cli_example="tensorcli adaptive-max-pool1d '[[[1.0,5,3,4,2]]]' --output-size 2")
def adaptive_max_pool1d(input, output_size, return_indices=False):
    """adaptive_max_pool2d over the last dim of [N, C, L] (or [C, L]) input."""
    _check_1d(input, "adaptive_max_pool1d")
    size = output_size[0] if isinstance(output_size, (list, tuple)) else output_size
    out, idx = adaptive_max_pool2d(input.unsqueeze(-2), (1, int(size)), True)
    out, idx = out.squeeze(-2), idx.squeeze(-2)
    return (out, idx) if return_indices else out


@export(name="adaptive_max_pool1d")
@_torch_name
def torch_adaptive_max_pool1d(input, output_size):
    """torch.adaptive_max_pool1d: (values, indices), always."""
    return adaptive_max_pool1d(input, output_size, True)
