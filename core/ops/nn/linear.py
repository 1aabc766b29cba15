"""F.linear (one addmm for 2-D input with bias, like PyTorch) and F.normalize."""
from __future__ import annotations

import numpy as np

from ..inplace import _view
from ..linalg import AddmmBackward0
from ..shape.permute import TBackward0
from ..pointwise import div
from ..registry import register
from ._util import _shape, _short


@register(category="nn", function=False)
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p along dim, eps), as torch.nn.functional.normalize computes it."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is not None:
        return div(input, denom, out=out)
    return input / denom


@register(category="nn", function=False)
def linear(input, weight, bias=None):
    """input @ weight.T + bias. 2-D input with bias is one addmm (AddmmBackward0), like PyTorch."""
    if input._data.ndim == 0 or weight._data.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {input._data.ndim}D "
                           f"and {weight._data.ndim}D")
    if bias is None or weight._data.ndim != 2:
        r = input.matmul(weight.t())
        return r if bias is None else r + bias
    k = input._data.shape[-1]
    if k != weight._data.shape[1]:
        rows = int(np.prod(input._data.shape[:-1])) if input._data.ndim > 1 else 1
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and "
                           f"{weight._data.shape[1]}x{weight._data.shape[0]})")
    if bias._data.dtype != weight._data.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_short(bias.dtype)} and "
                           f"{_short(weight.dtype)}")
    if input._data.dtype != weight._data.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_short(input.dtype)} and "
                           f"{_short(weight.dtype)}")
    out_f = weight._data.shape[0]
    if input._data.ndim == 2:
        if bias._data.shape != (out_f,):
            _check_bias_broadcast(bias, (input._data.shape[0], out_f))
        # weight.t() without the method's dispatch and dim checks (weight is 2-D): the same TBackward0 view
        return AddmmBackward0.apply(bias, input, _view(TBackward0, weight, 0, 1), 1, 1)
    lead = input._data.shape[:-1]
    flat = input._data.view()
    try:
        flat.shape = (-1, k)
    except AttributeError:   # not viewable: matmul + add, as PyTorch does for non-contiguous input
        return input.matmul(weight.t()) + bias
    _check_bias_broadcast(bias, (flat.shape[0], out_f))
    r = AddmmBackward0.apply(bias, input.reshape(-1, k), weight.t(), 1, 1)
    return r.view(lead + (out_f,))


def _check_bias_broadcast(bias, target):
    bs = bias._data.shape
    if len(bs) > 2:
        raise RuntimeError(f"expand(torch.{_short(bias.dtype)}Tensor{{{_shape(bs)}}}, size={_shape(target)}): the "
                           f"number of sizes provided ({len(target)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({len(bs)})")
    pb = (1,) * (2 - len(bs)) + tuple(bs)
    for i in (1, 0):
        if pb[i] != 1 and pb[i] != target[i]:
            raise RuntimeError(f"The expanded size of the tensor ({target[i]}) must match the existing size ({pb[i]}) "
                               f"at non-singleton dimension {i}.  Target sizes: {_shape(target)}.  Tensor sizes: "
                               f"{_shape(bs)}")
