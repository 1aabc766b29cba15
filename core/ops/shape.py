"""Shape ops. Views (view, unsqueeze, squeeze, transpose, permute, expand, ...) share
NumPy memory and the version counter with their base, as PyTorch views do."""
from __future__ import annotations

import numpy as np

from ..autograd.function import Op
from ..tensor import Size, Tensor, _wrap_dim
from .registry import register


class ViewOp(Op):
    """Base for ops whose result is a view of input 0 (shares storage and version counter)."""

    is_view = True


def _sizes(args):
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        args = tuple(args[0])
    out = []
    for s in args:
        if isinstance(s, Tensor):
            s = int(s.item())
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"view(): argument 'size' must be tuple of ints, but found element of type "
                            f"{type(s).__name__} at pos {len(out)}")
        out.append(int(s))
    return tuple(out)


def _infer_size(shape, numel):
    """Resolve a single -1 like PyTorch's infer_size, with its error messages."""
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for s in shape:
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s}")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if neg:
        if known == 0 or numel % known != 0:
            if known == 0:
                raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        shape = list(shape)
        shape[neg[0]] = numel // known
        return tuple(shape)
    if known != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return tuple(shape)


class ViewBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, shape):
        ctx.in_shape = a._data.shape
        v = a._data.view()
        try:
            v.shape = shape
        except AttributeError:
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                               "dimension spans across two contiguous subspaces). Use .reshape(...) instead.") from None
        return v

    @staticmethod
    def backward(ctx, g):
        return g.reshape(ctx.in_shape)

    @staticmethod
    def backward_np(ctx, g):
        return g.reshape(ctx.in_shape)


class UnsafeViewBackward0(Op):
    @staticmethod
    def forward(ctx, a, shape):
        ctx.in_shape = a._data.shape
        return a._data.reshape(shape)

    @staticmethod
    def backward(ctx, g):
        return g.reshape(ctx.in_shape)

    @staticmethod
    def backward_np(ctx, g):
        return g.reshape(ctx.in_shape)


@register(category="shape", methods=("view",), kind="view")
def view(input, *shape):
    """A view with a new shape (one dim may be -1); fails if the strides do not allow it."""
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer, tuple, list, Size, Tensor)):
        from .. import dtypes
        return input._data.view(dtypes.as_dtype(shape[0]).np)
    shp = _infer_size(_sizes(shape), input._data.size)
    return ViewBackward0.apply(input, shp)


@register(category="shape", methods=("reshape",), kind="view")
def reshape(input, *shape):
    """Like view, but copies when the strides do not allow a view."""
    shp = _infer_size(_sizes(shape), input._data.size)
    v = input._data.view()
    try:
        v.shape = shp
    except AttributeError:
        return UnsafeViewBackward0.apply(input, shp)
    return ViewBackward0.apply(input, shp)


@register(category="shape", methods=("view_as",))
def view_as(input, other):
    return view(input, other._data.shape)


@register(category="shape", methods=("reshape_as",))
def reshape_as(input, other):
    return reshape(input, other._data.shape)


class UnsqueezeBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        return np.expand_dims(a._data, dim)

    @staticmethod
    def backward(ctx, g):
        return g.squeeze(ctx.dim)

    @staticmethod
    def backward_np(ctx, g):
        return np.squeeze(g, ctx.dim)


@register(category="shape", methods=("unsqueeze",), kind="view")
def unsqueeze(input, dim):
    """Insert a size-1 dim at `dim` (negative dims count from ndim + 1)."""
    d = _wrap_dim(dim, input._data.ndim + 1)
    return UnsqueezeBackward0.apply(input, d)


class SqueezeBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, dims):
        ctx.in_shape = a._data.shape
        return np.squeeze(a._data, axis=dims) if dims else a._data.view()

    @staticmethod
    def backward(ctx, g):
        return g.reshape(ctx.in_shape)

    @staticmethod
    def backward_np(ctx, g):
        return g.reshape(ctx.in_shape)


class SqueezeBackward1(SqueezeBackward0):
    pass


@register(category="shape", methods=("squeeze",), kind="view")
def squeeze(input, dim=None):
    """Remove size-1 dims (all, or only those in dim; a non-1 dim is left alone)."""
    nd = input._data.ndim
    if dim is None:
        dims = tuple(i for i, s in enumerate(input._data.shape) if s == 1)
        return SqueezeBackward0.apply(input, dims)
    ds = dim if isinstance(dim, (tuple, list)) else (dim,)
    dims = tuple(sorted({_wrap_dim(d, nd) for d in ds}))
    dims = tuple(d for d in dims if nd and input._data.shape[d] == 1)
    return SqueezeBackward1.apply(input, dims)


class TransposeBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, d0, d1):
        ctx.d0, ctx.d1 = d0, d1
        return np.swapaxes(a._data, d0, d1) if a._data.ndim else a._data.view()

    @staticmethod
    def backward(ctx, g):
        return g.transpose(ctx.d0, ctx.d1)

    @staticmethod
    def backward_np(ctx, g):
        return np.swapaxes(g, ctx.d0, ctx.d1) if g.ndim else g


@register(category="shape", methods=("transpose", "swapaxes", "swapdims"), kind="view")
def transpose(input, dim0, dim1):
    """Swap two dims (a view)."""
    nd = input._data.ndim
    return TransposeBackward0.apply(input, _wrap_dim(dim0, nd), _wrap_dim(dim1, nd))


swapaxes = swapdims = transpose


class TBackward0(TransposeBackward0):
    pass


@register(category="shape", methods=("t",), kind="view")
def t(input):
    """Transpose a tensor of at most 2 dims."""
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D")
    if input._data.ndim < 2:
        return TBackward0.apply(input, 0, 0)
    return TBackward0.apply(input, 0, 1)


class PermuteBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, dims):
        ctx.dims = dims
        return np.transpose(a._data, dims)

    @staticmethod
    def backward(ctx, g):
        return g.permute(tuple(np.argsort(ctx.dims)))


@register(category="shape", methods=("permute",), kind="view")
def permute(input, *dims):
    """Reorder dims: out has dims[i] of input as its dim i (a view)."""
    dims = _sizes(dims)
    nd = input._data.ndim
    if len(dims) != nd:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal to "
                           f"len(dims) = {len(dims)}")
    w = tuple(_wrap_dim(d, nd) for d in dims)
    if len(set(w)) != len(w):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return PermuteBackward0.apply(input, w)


class ExpandBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, shape):
        ctx.in_shape = a._data.shape
        return np.broadcast_to(a._data, shape)

    @staticmethod
    def backward(ctx, g):
        from ..autograd.function import sum_to_shape
        return sum_to_shape(g, ctx.in_shape)

    @staticmethod
    def backward_np(ctx, g):
        from ..autograd.function import np_sum_to_shape
        return np_sum_to_shape(g, ctx.in_shape)


@register(category="shape", methods=("expand",), kind="view")
def expand(input, *sizes):
    """Broadcast size-1 dims to larger sizes without copying (-1 keeps a dim)."""
    sizes = _sizes(sizes)
    shp = input._data.shape
    if len(sizes) < len(shp):
        raise RuntimeError(f"expand({input.type()}{{{list(shp)}}}, size=[{', '.join(map(str, sizes))}]): the number "
                           f"of sizes provided ({len(sizes)}) must be greater or equal to the number of dimensions "
                           f"in the tensor ({len(shp)})")
    lead = len(sizes) - len(shp)
    out = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, "
                                   "non-existing dimension 0")
            out.append(s)
            continue
        cur = shp[i - lead]
        if s == -1:
            out.append(cur)
        elif cur == 1 or cur == s:
            out.append(s)
        else:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                               f"non-singleton dimension {i}.  Target sizes: [{', '.join(map(str, sizes))}].  "
                               f"Tensor sizes: [{', '.join(map(str, shp))}]")
    return ExpandBackward0.apply(input, tuple(out))


@register(category="shape", methods=("expand_as",))
def expand_as(input, other):
    """expand to other's shape."""
    return expand(input, other._data.shape)


@register(category="shape", methods=("contiguous",))
def contiguous(input, memory_format=None):
    """self if already contiguous, else a contiguous copy."""
    if input._data.flags.c_contiguous:
        return input
    from .pointwise import clone
    r = clone(input)
    r._data = np.ascontiguousarray(r._data)
    return r


@register(category="shape", methods=("flatten",), kind="view")
def flatten(input, start_dim=0, end_dim=-1):
    """Merge dims start_dim..end_dim into one."""
    nd = input._data.ndim
    if nd == 0:
        return reshape(input, (1,))
    s, e = _wrap_dim(start_dim, nd), _wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shp = input._data.shape
    n = 1
    for d in shp[s:e + 1]:
        n *= d
    return reshape(input, shp[:s] + (n,) + shp[e + 1:])


class FlipBackward0(Op):
    @staticmethod
    def forward(ctx, a, dims):
        ctx.dims = dims
        return np.flip(a._data, dims).copy() if dims else a._data.copy()

    @staticmethod
    def backward(ctx, g):
        return g.flip(ctx.dims)


@register(category="shape", methods=("flip",), kind="view")
def flip(input, *dims):
    """Reverse the order of elements along dims (a copy)."""
    dims = _sizes(dims)
    nd = input._data.ndim
    w = tuple(_wrap_dim(d, nd) for d in dims)
    if len(set(w)) != len(w):
        raise RuntimeError("dims has duplicates, original flip dims size=" + str(len(w)) + ", but unique flip dims size=" + str(len(set(w))))
    return FlipBackward0.apply(input, w)


def _mT(self):
    if self._data.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {self._data.ndim}-D tensor.")
    return transpose(self, -2, -1)


def _T(self):
    nd = self._data.ndim
    if nd == 2:
        return t(self)
    if nd < 2:
        return self
    import warnings
    warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
                  "and it will throw an error in a future release.", UserWarning, stacklevel=2)
    return permute(self, tuple(range(nd - 1, -1, -1)))


Tensor.mT = property(_mT)
Tensor.T = property(_T)
Tensor.mH = property(_mT)
Tensor.H = property(lambda self: t(self))
