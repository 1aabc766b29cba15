"""torch.linalg.vector_norm/matrix_norm/norm/vecdot/diagonal/multi_dot, composed of core ops the way ATen
composes them (so grad_fn names agree: matrix 2-norms end in amax/amin, the nuclear norm in sum)."""
from __future__ import annotations

from ...dtypes import CPP_NAMES as _CPP
from ...tensor import _wrap_dim
from ..reduce.reductions import _vector_norm
from ..registry import register
from . import _common as C
from .decompositions import linalg_svdvals
from .products import matmul
from ._out import linalg_out


@register("linalg.vector_norm", category="linalg", function=False)
def linalg_vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """Vector ord-norm over dim (all elements by default) (torch.linalg.vector_norm)."""
    if not x.dtype.is_floating_point:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{C._dtname(x.dtype)}")
    return linalg_out(_vector_norm(x, ord, dim, keepdim, dtype), out, "linalg.vector_norm")


def _matrix_dims(A, dim):
    dim = tuple(dim) if isinstance(dim, (list, tuple)) else (dim,)
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    d0, d1 = (_wrap_dim(d, A._data.ndim) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    return d0, d1


def _max_min(s, dim, keepdim, largest):
    """amax/amin as ATen's matrix_norm uses them; a positive order of an empty matrix is 0 (not an error)."""
    if largest and s.shape[dim] == 0:
        return s.sum(dim, keepdim)
    return s.amax(dim, keepdim) if largest else s.amin(dim, keepdim)


def _svd_norm(A, d0, d1, keepdim, largest):
    nd = A._data.ndim
    rest = [d for d in range(nd) if d not in (d0, d1)]
    S = linalg_svdvals(A.permute(*rest, d0, d1))
    r = S.sum(-1) if largest is None else _max_min(S, -1, False, largest)
    if keepdim:
        r = r.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
    return r


@register("linalg.matrix_norm", category="linalg", function=False)
def linalg_matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """Matrix norm over the two dims: 'fro', 'nuc', ±1, ±2, ±inf (torch.linalg.matrix_norm)."""
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as input. Got "
                           f"{C._dtname(A.dtype)}")
    C.check_matrix(A, "linalg.matrix_norm")
    d0, d1 = _matrix_dims(A, dim)
    if dtype is not None:
        A = A.to(dtype)
    if isinstance(ord, str):
        if ord == "fro":
            return linalg_out(_vector_norm(A, 2, (d0, d1), keepdim, None), out, "linalg.matrix_norm")
        if ord == "nuc":
            return linalg_out(_svd_norm(A, d0, d1, keepdim, None), out, "linalg.matrix_norm")
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    a = abs(ord)
    if a not in (1, 2, float("inf")):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord:g} not supported.")
    if a == 2:
        return linalg_out(_svd_norm(A, d0, d1, keepdim, ord > 0), out, "linalg.matrix_norm")
    if a == float("inf"):
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    s = _vector_norm(A, 1, d0, keepdim, None)
    return linalg_out(_max_min(s, d1, keepdim, ord > 0), out, "linalg.matrix_norm")


@register("linalg.norm", category="linalg", function=False)
def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    """Vector or matrix norm depending on dim / A's dims (torch.linalg.norm)."""
    if dim is not None:
        dims = tuple(dim) if isinstance(dim, (list, tuple)) else (dim,)
        if len(dims) == 1:
            return linalg_out(linalg_vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype), out,
                              "linalg.norm")
        return linalg_out(linalg_matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype), out,
                          "linalg.norm")
    if ord is not None:
        nd = A._data.ndim
        if nd == 2:
            return linalg_out(linalg_matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype), out, "linalg.norm")
        if nd == 1:
            return linalg_out(linalg_vector_norm(A, ord, None, keepdim, dtype=dtype), out, "linalg.norm")
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {nd}D.")
    return linalg_out(linalg_vector_norm(A, 2, None, keepdim, dtype=dtype), out, "linalg.norm")


@register("linalg.vecdot", category="linalg", function=False)
def linalg_vecdot(x, y, *, dim=-1, out=None):
    """sum(x * y, dim) for real tensors, broadcasting (torch.linalg.vecdot)."""
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{C._dtname(x.dtype)} and y of type {C._dtname(y.dtype)} instead")
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. Got "
                           f"{C._dtname(x.dtype)}")
    return linalg_out((x * y).sum(dim), out, "linalg.vecdot")


@register("linalg.diagonal", category="linalg", function=False)
def linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """torch.diagonal with matrix-friendly defaults (dim1=-2, dim2=-1) (torch.linalg.diagonal)."""
    return A.diagonal(offset, dim1, dim2)


def _chain_order(shapes):
    """Optimal parenthesization (matrix-chain DP, as ATen's multi_dot): split[i][j]."""
    n = len(shapes)
    p = [shapes[0][0]] + [s[1] for s in shapes]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _chain(ms, split, i, j):
    if i == j:
        return ms[i]
    k = split[i][j]
    return matmul(_chain(ms, split, i, k), _chain(ms, split, k + 1, j))


@register("linalg.multi_dot", category="linalg", function=False)
def linalg_multi_dot(tensors, *, out=None):
    """Product of a chain of matrices in the cheapest order; the first/last may be vectors
    (torch.linalg.multi_dot)."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    for t, which in ((first, "first"), (last, "last")):
        if t._data.ndim not in (1, 2):
            raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got {t._data.ndim}D")
    for i, t in enumerate(tensors[1:-1], 1):
        if t._data.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t._data.ndim}D")
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype != first.dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{_CPP[first.dtype.name]} and tensor {i} {_CPP[t.dtype.name]}")
    ms = list(tensors)
    if first._data.ndim == 1:
        ms[0] = first.unsqueeze(0)
    if last._data.ndim == 1:
        ms[-1] = last.unsqueeze(-1)
    for i in range(n - 1):
        a, b = ms[i]._data.shape, ms[i + 1]._data.shape
        if a[1] != b[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {list(tensors[i].shape)} and "
                               f"{list(tensors[i + 1].shape)} cannot be multiplied")
    r = _chain(ms, _chain_order([m._data.shape for m in ms]), 0, n - 1)
    shape = [s for s, keep in ((r.shape[0], first._data.ndim == 2), (r.shape[1], last._data.ndim == 2)) if keep]
    return linalg_out(r.view(*shape) if shape else r.view(()), out, "linalg.multi_dot")


