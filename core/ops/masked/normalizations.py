"""torch.masked's cumulative and normalizing functions: cumsum, cumprod, softmax, log_softmax, softmin,
normalize, and the binary logaddexp, composed as torch/masked/_ops.py composes them. nn and reduce ops are
reached through the registry at call time (ops/shape imports this package before they are loaded)."""
from __future__ import annotations

from ..registry import FUNCTIONS, OPS, register
from ._mask import canonical_dim, combine
from .reductions import norm as _norm


def _reg(name):
    return register(name="masked." + name, category="masked", function=False)


@_reg("cumsum")
def cumsum(input, dim, *, dtype=None, mask=None):
    """Running sum along dim with masked-out elements counted as 0."""
    dtype = input.dtype if dtype is None else dtype
    d = canonical_dim(dim, input.dim())[0]
    return FUNCTIONS["cumsum"](combine("sum", input, mask), d, dtype=dtype).to(dtype=dtype)


@_reg("cumprod")
def cumprod(input, dim, *, dtype=None, mask=None):
    """Running product along dim with masked-out elements counted as 1."""
    dtype = input.dtype if dtype is None else dtype
    d = canonical_dim(dim, input.dim())[0]
    return FUNCTIONS["cumprod"](combine("prod", input, mask), d, dtype=dtype).to(dtype=dtype)


@_reg("softmax")
def softmax(input, dim, *, dtype=None, mask=None):
    """softmax along dim with masked-out elements as -inf (they get 0; an all-masked row gives NaN)."""
    dtype = input.dtype if dtype is None else dtype
    d = canonical_dim(dim, input.dim())[0]
    return OPS["softmax"].fn(combine("amax", input, mask), d, dtype=dtype)


# masked-out outputs are -inf, where --explain's perturbation check has no finite difference: all masked in
@_reg("log_softmax")
def log_softmax(input, dim, *, dtype=None, mask=None):
    """log_softmax along dim with masked-out elements as -inf."""
    dtype = input.dtype if dtype is None else dtype
    d = canonical_dim(dim, input.dim())[0]
    return OPS["log_softmax"].fn(combine("amax", input, mask), d, dtype=dtype)


@_reg("softmin")
def softmin(input, dim, *, dtype=None, mask=None):
    """softmin along dim (softmax of -input) with masked-out elements as +inf."""
    dtype = input.dtype if dtype is None else dtype
    d = canonical_dim(dim, input.dim())[0]
    return OPS["softmax"].fn(-combine("amin", input, mask), d, dtype=dtype)


@_reg("normalize")
def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """input (masked-out as 0) divided by its masked ord-norm along dim, at least eps."""
    dtype = input.dtype if dtype is None else dtype
    x = combine("sum", input, mask)
    nrm = _norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return x / FUNCTIONS["maximum"](nrm, nrm.new_full([], eps))


@_reg("logaddexp")
def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """log(exp(input) + exp(other)) with each side's masked-out elements as -inf."""
    dtype = input.dtype if dtype is None else dtype
    a = combine("logaddexp", input, input_mask)
    b = combine("logaddexp", other, other_mask)
    return FUNCTIONS["logaddexp"](a, b).to(dtype=dtype)
