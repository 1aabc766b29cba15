"""F.bilinear: y[..., o] = x1[..., i] W[o, i, j] x2[..., j] + b[o], composed as ATen's bilinear
(flatten, contract, reshape: ViewBackward0, AddBackward0 with a bias)."""
from __future__ import annotations

from ..registry import register


def _check(input1, input2, weight, bias):
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got {input1.shape[i]} and "
                               f"{input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but expected "
                           f"{weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but expected "
                           f"{weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but expected "
                           f"{weight.shape[0]}")


@register(category="nn")
def bilinear(input1, input2, weight, bias=None):
    """x1^T W[o] x2 (+ bias[o]) over the last dims of input1 [*, I] and input2 [*, J], weight [O, I, J]."""
    _check(input1, input2, weight, bias)
    o, i, j = weight.shape
    out_shape = tuple(input1.shape[:-1]) + (o,)
    x1 = input1.reshape(-1, i)
    x2 = input2.reshape(-1, j)
    t = x1.matmul(weight.permute(1, 0, 2).reshape(i, o * j)).reshape(-1, o, j)
    out = (t * x2.unsqueeze(1)).sum(-1).reshape(out_shape)
    return out + bias if bias is not None else out
