"""torch's CPU floating product order (prod_kernel_impl: binary_kernel_reduce_vec with a * b, one thread).

TensorIterator's dims as for a sum (_sum_order._layout: reduced dims first by input stride, coalesced), the
output filled with 1, then per 2-d chunk:
- reduced dim 0 contiguous (vectorized_inner_reduction): 4 vectors of lanes (32 floats / 16 doubles) multiplied
  row by row over the whole chunks (reduction128), combined (a0 * a1) * (a2 * a3), the vector's lanes folded
  in order, out *= that; then the tail elements one by one (out *= x);
- kept dim 0 contiguous, reduced dim 1 (vectorized_outer_reduction): each column folded down the rows from its
  first element, out *= that;
- otherwise (basic_loop): out *= x for every element in iteration order.
Outer loops (further dims) repeat the call, multiplying into the same outputs. Returns None where the order is
not modelled (a zero or negative stride, other dtypes or CPUs).
"""
from __future__ import annotations

import numpy as np

from ... import _sum_order


def _fold(a, axis=-1):
    """Left fold (((a0 * a1) * a2) ...) along axis: NumPy's reduce multiplies whole rows in order when another
    axis is its inner loop; along the inner loop, a cumulative product."""
    axis %= a.ndim
    if a.shape[axis] == 1:
        return a.take(0, axis)
    if _sum_order._outer_axis(a, axis):
        return np.multiply.reduce(a, axis)
    return np.multiply.accumulate(a, axis).take(-1, axis)


def _inner(v, vec):
    """vectorized_inner_reduction over the last axis of v (..., n): returns (...)."""
    n = v.shape[-1]
    w = 4 * vec
    count = n // w
    lead = v.shape[:-1]
    out = np.ones(lead, v.dtype)
    if count:
        acc = v[..., :count * w].reshape(lead + (count, w))
        acc = _fold(acc, -2) if count > 1 else acc[..., 0, :]
        acc = acc.reshape(lead + (4, vec))
        acc = (acc[..., 0, :] * acc[..., 1, :]) * (acc[..., 2, :] * acc[..., 3, :])
        out = out * _fold(acc)
    if count * w < n:
        out = _fold(np.concatenate((out[..., None], v[..., count * w:]), -1))
    return out


def torch_prod(d, reduced):
    """The product of ndarray d (float32/float64) over the dims in `reduced`, multiplied in torch's order, as a
    C-ordered array of the kept sizes (the caller reshapes), or None where the order is not modelled."""
    if not _sum_order.MODELLED or d.dtype not in (np.float32, np.float64) or not d.size:
        return None
    lay = _sum_order._layout(d.shape, d.strides, reduced)
    if lay is None:
        return None
    if not lay or not any(r for _, _, r in lay):
        return d * d.dtype.type(1)
    view = np.lib.stride_tricks.as_strided(d, tuple(s for s, _, _ in reversed(lay)),
                                           tuple(st for _, st, _ in reversed(lay)), writeable=False)
    nd = len(lay)
    isz = d.itemsize
    vec = 32 // isz
    # the first kernel call's reduction, then the remaining reduced dims folded into the outputs in order
    if lay[0][2] and lay[0][1] == isz:
        part, rest = _inner(view, vec), lay[1:]
    elif nd > 1 and not lay[0][2] and lay[1][2] and lay[0][1] == isz:
        part = _fold(view, nd - 2)        # each column down its rows; axes: lay[nd - 1] .. lay[2], lay[0]
        rest = lay[2:]
    else:
        return _fold_axes(view, [a for a, (_, _, r) in enumerate(reversed(lay)) if r])
    return _fold_axes(part, [a for a, (_, _, r) in enumerate(reversed(rest)) if r])


def _fold_axes(a, red):
    """Fold a over the axes `red` (element order: those axes in C order, outermost first), keeping the others
    in order (out = 1 * first is exact: starting from the first element is the same)."""
    if not red:
        return a
    kept = [k for k in range(a.ndim) if k not in red]
    t = np.transpose(a, kept + red)
    t = t.reshape(t.shape[:len(kept)] + (-1,))
    return _fold(t)
