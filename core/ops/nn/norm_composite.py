"""rms_norm and local_response_norm: compositions of core ops in ATen's / torch.nn.functional's order
(MulBackward0 and DivBackward0 at the top, as torch)."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ..registry import register
from ..shape import cat
from ._util import _shape


def _normalized(normalized_shape):
    """torch.rms_norm's int[] argument: a plain int is a TypeError, as torch's argument parser's."""
    if isinstance(normalized_shape, (int, np.integer)):
        raise TypeError("rms_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int")
    return tuple(int(v) for v in normalized_shape)


def _check_rms(input, ns, weight):
    if len(ns) < 1:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {_shape(ns)}")
    if weight is not None and tuple(weight.shape) != ns:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{_shape(weight.shape)} and normalized_shape = {_shape(ns)}")
    shp = input._data.shape
    if len(shp) < len(ns) or tuple(shp[len(shp) - len(ns):]) != ns:
        raise RuntimeError(f"Given normalized_shape={_shape(ns)}, expected input with shape [*"
                           f"{', '.join(map(str, ns))}], but got input of size{_shape(shp)}")


@register(category="nn")
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x**2 over the trailing normalized_shape dims) + eps) (* weight); eps defaults to
    the dtype's machine epsilon (a composite: MulBackward0)."""
    ns = _normalized(normalized_shape)
    _check_rms(input, ns, weight)
    if input._data.dtype.kind != "f":
        raise NotImplementedError(f"\"rms_norm\" not implemented for '{_dt.scalar_name(input.dtype)}'")
    up = input.float() if input.dtype == _dt.float16 else input
    if eps is None:
        eps = float(np.finfo(up._data.dtype).eps)
    dims = tuple(range(input.dim() - len(ns), input.dim()))
    r = (up.pow(2).mean(dims, keepdim=True) + eps).rsqrt()
    result = up.mul(r).type_as(input)
    if weight is not None:
        result = result.mul(weight).type_as(result)
    return result


@register(category="nn", function=False)
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha * mean of x**2 over `size` neighbouring channels)**beta, the window zero-padded
    (size // 2 before, (size - 1) // 2 after) as torch's avg-pool formulation (DivBackward0)."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    sizes = tuple(input.shape)
    div = input.mul(input).reshape(sizes[0], sizes[1], -1)
    before, after = size // 2, (size - 1) // 2
    parts = [div.new_zeros((sizes[0], before, div.shape[2]))] if before else []
    parts.append(div)
    if after:
        parts.append(div.new_zeros((sizes[0], after, div.shape[2])))
    padded = cat(parts, 1) if len(parts) > 1 else div
    c = sizes[1]
    total = padded.narrow(1, 0, c)
    for s in range(1, size):
        total = total + padded.narrow(1, s, c)
    # avg_pool's mean: integer inputs divide as integers (torch pools the int64 squares)
    mean = total.div(size, rounding_mode="trunc") if not input.is_floating_point() else total / size
    div = mean.reshape(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div
