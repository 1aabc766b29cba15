"""AccumulateGrad, the node of a leaf: accumulates into `.grad` (stealing an unshared gradient, as PyTorch
does), and the per-leaf accumulator that every graph using the leaf shares."""
from __future__ import annotations

import sys
import weakref

import numpy as np

from .. import _methods
from ..tensor import Tensor
from .graph_node import Node, _meta1, sum_to_shape


class AccumulateGrad(Node):
    """Leaf node: runs the leaf's hooks, then accumulates into `variable.grad`."""

    def name(self):
        return "torch::autograd::AccumulateGrad"

    _materialize = False

    def __init__(self, variable):
        self.variable = variable
        self._seq = 2 ** 62  # run leaves after everything else that is ready
        self._output_meta = _meta1(variable._data)

    def _accumulate(self, g, create_graph):
        v = self.variable
        if g is None:
            return
        if type(g) is np.ndarray and v._grad is None and not create_graph:
            vd = v._data
            if g.shape == vd.shape and g.dtype == vd.dtype:
                # the first gradient of a step, as the engine passes it: taken over or copied, nothing else
                v._grad = Tensor._make(g if _unshared(g, vd) else _clone_obey_contract(g, vd))
                return
        stolen = None
        if type(g) is np.ndarray:
            if _unshared(g, v._data):
                stolen = g
            g = Tensor._make(g)
        if g._data.shape != v._data.shape:
            g = sum_to_shape(g, v._data.shape, self)
            stolen = None
        if g._data.dtype != v._data.dtype:
            g = g.to(v.dtype)
            stolen = None
        if v._grad is None:
            if create_graph:
                v._grad = g
            elif stolen is not None:
                v._grad = Tensor._make(stolen)
            else:
                v._grad = Tensor._make(_clone_obey_contract(g._data, v._data))
        elif create_graph or v._grad._requires_grad:
            v._grad = v._grad + g
        else:
            v._grad._data += g._data
            v._grad._vc[0] += 1


# References to a gradient array that only the engine holds when it reaches AccumulateGrad: the
# ready list, the `g` parameter, and getrefcount's own argument.
_ENGINE_REFS = 3


def _unshared(g, like):
    """PyTorch's AccumulateGrad steals a gradient nobody else references (use_count check) when its
    layout matches the variable's; otherwise it copies. Same rule here, by reference count."""
    if not (g.flags.writeable and g.strides == like.strides and g.dtype == like.dtype
            and sys.getrefcount(g) <= _ENGINE_REFS + 1):
        return False
    b = g.base      # a reshape of a fresh result is as good as the result, if nothing else holds it
    return b is None or (type(b) is np.ndarray and b.base is None and b.nbytes == g.nbytes
                         and sys.getrefcount(b) <= 3)   # g.base, `b`, the argument


def _clone_obey_contract(g, like):
    """PyTorch's clone_obey_contract: a copied gradient gets the variable's strides when the variable is
    non-overlapping and dense (e.g. a column-major weight keeps column-major .grad), else C order."""
    if like.flags.c_contiguous:
        return np.array(g, order="C")
    out = np.empty_like(like, order="K") if _dense(like) else np.empty(like.shape, like.dtype)
    np.copyto(out, g)
    return out


def _dense(a):
    """Non-overlapping and dense: sorted by stride, each stride is the product of the smaller sizes."""
    expected = a.itemsize
    for st, sz in sorted((st, sz) for st, sz in zip(a.strides, a.shape) if sz != 1):
        if st != expected:
            return False
        expected *= sz
    return True


@_methods.method("_get_accumulator")
def get_accumulator(t):
    """The leaf's AccumulateGrad node, shared while anything holds it (PyTorch's grad accumulator)."""
    acc = t._accum() if t._accum is not None else None
    if acc is None:
        if (t._view_meta == "nograd" or t._view_meta == "inference") and t._base is not None:
            return None     # a view made with grad mode off (_mark_view): no accumulator, as torch's
        acc = AccumulateGrad(t)
        t._accum = weakref.ref(acc)
    return acc

