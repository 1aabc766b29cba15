"""cosine_similarity and pairwise_distance, composed of core ops exactly as ATen composes them
(so values, gradients and grad_fn names match: SumBackward1, NormBackward1)."""
from __future__ import annotations

from ... import dtypes as _dt
from ...autograd.grad_mode import no_grad
from ..registry import register


@register(category="nn")
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1/||x1|| * x2/||x2||) along dim, each norm clamped to at least eps (SumBackward1)."""
    common = _dt.result_type(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {_dt.scalar_name(common)}")
    x1, x2 = x1.to(common), x2.to(common)
    shape = _broadcast_shape(x1, x2)
    x1, x2 = x1.expand(shape), x2.expand(shape)
    n1 = x1.norm(2, dim, keepdim=True).clone()
    n2 = x2.norm(2, dim, keepdim=True).clone()
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def _broadcast_shape(a, b):
    sa, sb = tuple(a.shape), tuple(b.shape)
    n = max(len(sa), len(sb))
    sa, sb = (1,) * (n - len(sa)) + sa, (1,) * (n - len(sb)) + sb
    out = []
    for i, (p, q) in enumerate(zip(sa, sb)):
        if p != q and p != 1 and q != 1:
            raise RuntimeError(f"The size of tensor a ({p}) must match the size of tensor b ({q}) at non-singleton "
                               f"dimension {i}")
        out.append(q if p == 1 else p)
    return tuple(out)


@register(category="nn")
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p over the last dim (NormBackward1)."""
    dim = max(x1.dim(), x2.dim()) - 1
    return (x1 - x2 + eps).norm(p, dim, keepdim)
