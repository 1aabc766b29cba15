"""torch.masked reductions: sum, prod, amax, amin, argmax, argmin, mean, median, norm, var, std and
logsumexp, composed as torch/masked/_ops.py composes them (so grad_fn names, dtypes and values are
torch's). Reduce and linalg ops are reached through the registry at call time (ops/shape imports this
package while ops/reduce is still initialising)."""
from __future__ import annotations

from ... import dtypes as _dt
from ..registry import FUNCTIONS, OPS, register
from ._mask import INT_TO_LONG, canonical_dim, combine, input_mask


def _sum_dtype(input, dtype):
    if dtype is None:
        return _dt.int64 if input.dtype.name in INT_TO_LONG else input.dtype
    return dtype


def _reg(name):
    return register(name="masked." + name, category="masked", function=False)


_EX2 = "'[[1.0,2,3],[4,5,7]]' --mask '[[true,false,true],[false,true,true]]' --dim 1 --explain"   # 2 per row


@_reg("sum")
def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Sum of the masked-in elements over dim (0 where none is masked in); integers sum to int64."""
    dtype = _sum_dtype(input, dtype)
    dims = canonical_dim(dim, input.dim())
    return FUNCTIONS["sum"](combine("sum", input, mask), dims, bool(keepdim), dtype=dtype)


@_reg("prod")
def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Product of the masked-in elements over dim (1 where none is masked in); integers to int64."""
    dtype = _sum_dtype(input, dtype)
    dims = canonical_dim(dim, input.dim())
    result = combine("prod", input, mask).to(dtype=dtype)
    for d in reversed(dims):
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def _extreme(op):
    def fn(input, dim=None, *, keepdim=False, dtype=None, mask=None):
        dtype = input.dtype if dtype is None else dtype
        x = combine(op, input, mask)
        return FUNCTIONS[op](x, canonical_dim(dim, x.dim()), bool(keepdim)).to(dtype=dtype)
    fn.__name__ = op
    fn.__doc__ = (f"{'Maximum' if op == 'amax' else 'Minimum'} of the masked-in elements over dim "
                  f"({'-inf' if op == 'amax' else 'inf'} (or the integer limit) where none is masked in).")
    return _reg(op)(fn)


amax = _extreme("amax")
amin = _extreme("amin")


def _arg(op):
    def fn(input, dim=None, *, keepdim=False, dtype=None, mask=None):
        dtype = input.dtype if dtype is None else dtype
        return FUNCTIONS[op](combine(op, input, mask), dim, bool(keepdim)).to(dtype=dtype)
    fn.__name__ = op
    fn.__doc__ = f"Index of the {'largest' if op == 'argmax' else 'smallest'} masked-in element along dim."
    return register(name="masked." + op, category="masked", function=False)(fn)


argmax = _arg("argmax")
argmin = _arg("argmin")


@_reg("mean")
def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Mean of the masked-in elements over dim (NaN where none is masked in); float dtypes only."""
    source = "Optional"
    if dtype is None:
        dtype, source = input.dtype, "Input"
    if not dtype.is_floating_point:
        raise ValueError(f"mean(): Could not infer output dtype. {source} dtype must be either a floating point or "
                         f"complex dtype. Got: {dtype}")
    if mask is None:
        count = sum(FUNCTIONS["ones"](input.shape, dtype=_dt.int64), dim, keepdim=keepdim)
        total = sum(input, dim, keepdim=keepdim, dtype=dtype)
    else:
        inmask = input_mask(input, mask)
        count = inmask.sum(dim=dim, keepdim=bool(keepdim))
        total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask)
    return total / count


@_reg("median")
def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """Median of the masked-in elements along dim (nanmedian with masked-out elements as NaN)."""
    dtype = input.dtype if dtype is None else dtype
    d = canonical_dim(dim, input.dim())[0]
    is_float = input.is_floating_point()
    if not is_float:
        input = input.to(dtype=_dt.float32)
    output = FUNCTIONS["nanmedian"](combine("median", input, mask), d, keepdim).values
    if is_float:
        return output
    if not bool(FUNCTIONS["isnan"](output).any()):
        return output.to(dtype=dtype)
    raise ValueError("masked median expects no fully masked out rows if dtype is not floating point")


@_reg("logsumexp")
def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """log(sum(exp)) of the masked-in elements over dim (-inf where none is masked in)."""
    dtype = input.dtype if dtype is None else dtype
    dims = canonical_dim(dim, input.dim())
    return FUNCTIONS["logsumexp"](combine("logsumexp", input, mask), dims, keepdim=keepdim).to(dtype=dtype)


@_reg("norm")
def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Vector ord-norm of the masked-in elements over dim (linalg.vector_norm, masked-out as 0)."""
    dtype = input.dtype if dtype is None else dtype
    x = combine("norm", input, mask, ord)
    return OPS["linalg.vector_norm"].fn(x, ord, canonical_dim(dim, input.dim()), bool(keepdim), dtype=dtype)


def _std_var(input, dim, unbiased, correction_opt, keepdim, dtype, mask, take_sqrt):
    """torch.masked's _std_var: masked mean, then the masked sum of squared deviations / (count - correction)."""
    if unbiased is not None and correction_opt is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    correction = 1.0 if unbiased is None else (1.0 if unbiased else 0.0)
    if correction_opt is not None:
        correction = float(correction_opt)
    if dtype is None:
        dtype = input.dtype if input.dtype.is_floating_point else _dt.float32
    compute_dtype = dtype if dtype.is_floating_point else _dt.float32
    if mask is None:
        count = sum(FUNCTIONS["ones"](input.shape, dtype=_dt.int64), dim, keepdim=True)
        sample_total = sum(input, dim, keepdim=True, dtype=dtype)
        inmask = None
    else:
        inmask = input_mask(input, mask)
        count = inmask.sum(dim=dim, keepdim=True)
        sample_total = sum(input, dim, keepdim=True, dtype=dtype, mask=inmask)
    x = input - sample_total / count
    total = sum(x * x, dim, keepdim=keepdim, dtype=compute_dtype, mask=inmask)
    if not keepdim:
        count = count.reshape(total.shape)
    if correction != 0:
        count = count.to(compute_dtype) - correction
        count = FUNCTIONS["maximum"](count, count.new_zeros([]))
    output = (total / count).to(dtype=dtype)
    return output.sqrt() if take_sqrt else output


@_reg("var")
def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    """Variance of the masked-in elements over dim (correction 1 by default)."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


@_reg("std")
def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    """Standard deviation of the masked-in elements over dim (correction 1 by default)."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, True)
