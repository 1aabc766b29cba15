"""Shape ops: views (view, reshape, squeeze, transpose, permute, expand, narrow, select,
split, unbind, unfold, as_strided, ...) and copies (repeat, flip, roll, cat, stack).

Views share NumPy memory and the version counter with their base, as PyTorch views do,
and record `_base`. An in-place op on a view of a tensor that is part of a graph rebases
the base onto a `CopySlices` node (see `rebase_view`), so gradients match PyTorch.

Each CLI-worthy op has a `rule(ndim, dim=None, **kwargs)` giving the index formula
(`out[i][j] = input[j][i]`); kwargs are the op's own keyword arguments by name
(e.g. `dims=(2, 0, 1)` for permute). A rule returns None when no formula applies.
"""
from __future__ import annotations

import math
import re
import warnings

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op, _ForwardCtx, _mark_view
from ..autograd.grad_mode import STATE
from ..tensor import Tensor, _wrap_dim
from .registry import register

# View creation metadata (PyTorch's CreationMeta): None, or "multi" for outputs of a
# multi-output view op (split/chunk/unbind), or "nograd" for those created in no_grad mode.
Tensor._view_meta = None

_LETTERS = "ijklmnopqrstuvwxyzabcdefgh"


def _shape_str(shape):
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def _idx(letters):
    return "".join(f"[{c}]" for c in letters)


class ViewOp(Op):
    """Base for ops whose result is a view of input 0 (shares storage and version counter)."""

    is_view = True


_FCTX = _ForwardCtx()   # view forwards only store small metadata on ctx


def _view(cls, input, *args):
    """Apply a single-output view op (no node unless input requires grad), propagating the
    base view's creation metadata."""
    if input._requires_grad and STATE.grad_enabled:
        r = cls.apply(input, *args)
    else:
        r = Tensor._make(cls.forward(_FCTX, input, *args))
        _mark_view(r, input)
        if input._inference:
            r._inference = True     # views of inference tensors are inference tensors
        if input._requires_grad:    # (so grad mode is off) PyTorch's CreationMeta::NO_GRAD_MODE
            r._view_meta = "nograd"
            return r
    if input._view_meta is not None:
        r._view_meta = input._view_meta
    return r


_CHECK_ALLOC = []


def _check_alloc(shape, dtype):
    if not _CHECK_ALLOC:
        from ..creation import check_alloc
        _CHECK_ALLOC.append(check_alloc)
    _CHECK_ALLOC[0](shape, dtype)


def _int(x, what="size"):
    if isinstance(x, Tensor):
        if x._data.ndim != 0 and x._data.size != 1:
            raise TypeError(f"{what} must be int, not Tensor")
        x = x.item()
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        raise TypeError(f"{what} must be int, not {type(x).__name__}")
    return int(x)


def _sizes(args, fname="view", argname="size"):
    """Accept f(2, 3), f((2, 3)), f([2, 3]) and f(torch.Size([2, 3])) -> tuple of ints."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    out = []
    for s in args:
        if type(s) is int:
            out.append(s)
            continue
        if isinstance(s, Tensor) and s._data.size == 1 and s._data.dtype.kind in "iu":
            s = s.item()
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"{fname}(): argument '{argname}' must be tuple of ints, but found element of type "
                            f"{type(s).__name__} at pos {len(out)}")
        out.append(int(s))
    return tuple(out)


def _dimlist(dims, fname="dims"):
    if isinstance(dims, (int, np.integer, Tensor)) and not isinstance(dims, bool):
        return (_int(dims, fname),)
    return tuple(_int(d, fname) for d in dims)


def _infer_size(shape, numel):
    """Resolve a single -1 like PyTorch's infer_size, with its error messages."""
    known = 1
    neg = -1
    for i, s in enumerate(shape):
        if s >= 0:
            known *= s
        elif s == -1:
            if neg >= 0:
                raise RuntimeError("only one dimension can be inferred")
            neg = i
        else:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {_shape_str(shape)}")
    if neg < 0:
        if known != numel:
            raise RuntimeError(f"shape '{_shape_str(shape)}' is invalid for input of size {numel}")
        return shape
    if known == 0:
        if numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {_shape_str(shape)} because the "
                               "unspecified dimension size -1 can be any value and is ambiguous")
        raise RuntimeError(f"shape '{_shape_str(shape)}' is invalid for input of size {numel}")
    if numel % known:
        raise RuntimeError(f"shape '{_shape_str(shape)}' is invalid for input of size {numel}")
    return shape[:neg] + (numel // known,) + shape[neg + 1:]


def _try_view(a, shape):
    """A no-copy reshape of a, or None when the strides do not allow one."""
    if a.flags.c_contiguous:
        return a.reshape(shape)
    v = a.view()
    try:
        v.shape = shape
    except AttributeError:
        return None
    return v


# -- storage geometry -----------------------------------------------------------------------

def _root(a):
    """The ndarray owning a's memory (PyTorch's storage)."""
    b = a
    while True:
        nb = b.base
        if isinstance(nb, np.ndarray):
            b = nb
            continue
        inner = getattr(nb, "base", None) if nb is not None else None
        if isinstance(inner, np.ndarray):   # np.lib.stride_tricks' DummyArray
            b = inner
            continue
        return b


def _ptr(a):
    return a.__array_interface__["data"][0]


def _storage_offset_of(a):
    return (_ptr(a) - _ptr(_root(a))) // a.itemsize


def _geom(a):
    """(shape, strides, storage offset) in elements, like PyTorch's sizes/strides/storage_offset."""
    isz = a.itemsize
    return a.shape, tuple(s // isz for s in a.strides), _storage_offset_of(a)


def _strided(a, shape, strides, offset):
    """A NumPy view over a's storage with the given geometry (elements), like as_strided."""
    root = _root(a)
    isz = a.itemsize
    if root.flags.c_contiguous or root.flags.f_contiguous:
        flat = root.reshape(-1, order="C" if root.flags.c_contiguous else "F").view(np.uint8)
        return np.ndarray(shape, a.dtype, buffer=flat, offset=offset * isz,
                          strides=tuple(s * isz for s in strides))
    delta = offset - _storage_offset_of(a)   # exotic non-contiguous storage: address relative to a
    return np.lib.stride_tricks.as_strided(a.reshape(-1)[delta:] if delta else a, shape,
                                           tuple(s * isz for s in strides))


def _positions(geom):
    shape, strides, off = geom
    pos = np.full((), off, dtype=np.int64)
    for i, (s, st) in enumerate(zip(shape, strides)):
        r = np.arange(s, dtype=np.int64) * st
        pos = pos + r.reshape((s,) + (1,) * (len(shape) - i - 1))
    return np.broadcast_to(pos, shape)


def _hull(*positions):
    lo = min((int(p.min()) for p in positions if p.size), default=0)
    hi = max((int(p.max()) for p in positions if p.size), default=-1)
    return lo, hi - lo + 1


def _gather_geom(g, in_geom, out_geom):
    """Lay g out with in_geom's strides in a fresh buffer; read out_geom's elements."""
    ip, op = _positions(in_geom), _positions(out_geom)
    lo, span = _hull(ip, op)
    buf = np.zeros(span, dtype=g.dtype)
    buf[ip - lo] = g
    return buf[op - lo]


def _scatter_geom(g, in_geom, out_geom):
    """Adjoint of _gather_geom: accumulate g (out_geom's shape) into storage, read in_geom."""
    ip, op = _positions(in_geom), _positions(out_geom)
    lo, span = _hull(ip, op)
    buf = np.bincount((op - lo).ravel(), weights=g.ravel(), minlength=span).astype(g.dtype, copy=False)
    return buf[ip - lo]


def _zero_geom(g, in_geom, out_geom):
    """g laid out with in_geom's strides, with out_geom's elements set to zero."""
    ip, op = _positions(in_geom), _positions(out_geom)
    lo, span = _hull(ip, op)
    buf = np.zeros(span, dtype=g.dtype)
    buf[ip - lo] = g
    buf[op - lo] = 0
    return buf[ip - lo]


def _storage_offset(self):
    """Offset of the first element in the underlying storage, in elements."""
    return _storage_offset_of(self._data)


if not hasattr(Tensor, "storage_offset"):
    Tensor.storage_offset = _storage_offset


# -- view / reshape -------------------------------------------------------------------------

class ViewBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, shape):
        ctx.in_shape = a._data.shape
        v = _try_view(a._data, shape)
        if v is None:
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                               "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
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


def _flat_rule(ndim, dim=None, **kw):
    return "out.flatten()[n] = input.flatten()[n]  (row-major order)"


def _view_dtype(input, dtype):
    dt = _dt.as_dtype(dtype)
    a = input._data
    src = input.dtype
    if dt.itemsize != a.itemsize:
        from ..dtypes import scalar_name as _short
        names = f"{_short(src)} as {_short(dt)}"
        if a.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 to view {names} (different element sizes)")
        if a.strides[-1] != a.itemsize and a.shape[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 to view {names} (different element sizes), but got "
                               f"{a.strides[-1] // a.itemsize}")
        if dt.itemsize > a.itemsize and (a.shape[-1] * a.itemsize) % dt.itemsize:
            raise RuntimeError(f"self.size(-1) must be divisible by {dt.itemsize // a.itemsize} to view {names} "
                               f"(different element sizes), but got {a.shape[-1]}")
    r = Tensor._make(a.view(dt.np))
    r._vc = input._vc
    return r


@register(category="shape", methods=("view",), kind="view", rule=_flat_rule, cli=True)
def view(input, *shape):
    """A view with a new shape (one dim may be -1); fails if the strides do not allow it."""
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer, tuple, list, Tensor)):
        return _view_dtype(input, shape[0])
    shp = _infer_size(_sizes(shape), input._data.size)
    return _view(ViewBackward0, input, shp)


@register(category="shape", methods=("reshape",), kind="view", rule=_flat_rule, cli=True)
def reshape(input, *shape):
    """Like view, but copies (clone + view) when the strides do not allow a view."""
    shp = _infer_size(_sizes(shape, "reshape", "shape"), input._data.size)
    return _reshape(input, shp)


def _reshape(input, shp):
    a = input._data
    if a.flags.c_contiguous or _try_view(a, shp) is not None:
        return _view(ViewBackward0, input, shp)
    from .pointwise import clone
    return UnsafeViewBackward0.apply(clone(input), shp)


@register(category="shape", methods=("view_as",))
def view_as(input, other):
    """view to other's shape."""
    return view(input, other._data.shape)


@register(category="shape", methods=("reshape_as",))
def reshape_as(input, other):
    """reshape to other's shape."""
    return reshape(input, other._data.shape)


@register(category="shape", methods=("ravel",))
def ravel(input):
    """A 1-D view when contiguous, else a contiguous 1-D copy."""
    return view(contiguous(input), -1)


@register(category="shape", methods=("flatten",), kind="view", rule=_flat_rule, cli=True)
def flatten(input, start_dim=0, end_dim=-1):
    """Merge dims start_dim..end_dim into one (a view when possible)."""
    nd = input._data.ndim
    if nd == 0:
        return _reshape(input, (1,))
    s, e = _wrap_dim(start_dim, nd), _wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shp = input._data.shape
    n = 1
    for d in shp[s:e + 1]:
        n *= d
    return _reshape(input, shp[:s] + (n,) + shp[e + 1:])


@register(category="shape", methods=("unflatten",), kind="view", rule=_flat_rule, cli=True)
def unflatten(input, dim, sizes):
    """Split dim into the given sizes (one may be -1) as a view."""
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, nd)
    sizes = _sizes((sizes,), "unflatten", "sizes")
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    size = input._data.shape[d]
    if -1 in sizes:
        sizes = _infer_size(sizes, size)
    elif math.prod(sizes) != size:
        raise RuntimeError(f"unflatten: Provided sizes {_shape_str(sizes)} don't multiply up to the size of dim "
                           f"{dim} ({size}) in the input tensor")
    shp = input._data.shape
    return view(input, shp[:d] + tuple(sizes) + shp[d + 1:])


# -- unsqueeze / squeeze --------------------------------------------------------------------

class UnsqueezeBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        shp = a._data.shape
        return a._data.reshape(shp[:dim] + (1,) + shp[dim:])

    @staticmethod
    def backward(ctx, g):
        return g.squeeze(ctx.dim)

    @staticmethod
    def backward_np(ctx, g):
        return g.squeeze(ctx.dim)


def _unsqueeze_rule(ndim, dim=None, **kw):
    d = 0 if dim is None else (dim + ndim + 1 if dim < 0 else dim)
    ins = _LETTERS[:ndim]
    outs = ins[:d] + "0" + ins[d:]
    return f"out{_idx(outs)} = input{_idx(ins)}"


@register(category="shape", methods=("unsqueeze",), kind="view", rule=_unsqueeze_rule, cli=True)
def unsqueeze(input, dim):
    """Insert a size-1 dim at `dim` (negative dims count from ndim + 1)."""
    return _view(UnsqueezeBackward0, input, _wrap_dim(dim, input._data.ndim + 1))


class SqueezeBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, dims):
        ctx.dims = dims
        ctx.in_shape = a._data.shape
        return a._data.squeeze(axis=dims) if dims else a._data.view()

    @staticmethod
    def backward(ctx, g):
        for d in ctx.dims:
            g = g.unsqueeze(d)
        return g

    @staticmethod
    def backward_np(ctx, g):
        return g.reshape(ctx.in_shape)


class SqueezeBackward1(SqueezeBackward0):
    pass


class SqueezeBackward2(SqueezeBackward0):
    pass


def _squeeze_dims(input, dim):
    nd = input._data.ndim
    shp = input._data.shape
    if dim is None:
        return tuple(i for i, s in enumerate(shp) if s == 1)
    ds = _dimlist(dim, "dim")
    return tuple(d for d in sorted({_wrap_dim(d, nd) for d in ds}) if nd and shp[d] == 1)


def _squeeze_rule(ndim, dim=None, **kw):
    ins = list(_LETTERS[:ndim])
    if dim is None:
        return f"out[...] = input[...] with every size-1 dim dropped (index 0)"
    d = dim + ndim if dim < 0 else dim
    outs = ins[:d] + ins[d + 1:]
    ins[d] = "0"
    return f"out{_idx(outs)} = input{_idx(ins)}  (when size(dim) == 1)"


@register(category="shape", methods=("squeeze",), kind="view", rule=_squeeze_rule, cli=True)
def squeeze(input, dim=None):
    """Remove size-1 dims (all, or only those in dim; a non-1 dim is left alone)."""
    dims = _squeeze_dims(input, dim)
    cls = SqueezeBackward0 if dim is None else (
        SqueezeBackward1 if isinstance(dim, (int, np.integer, Tensor)) else SqueezeBackward2)
    return _view(cls, input, dims)


# -- transpose / permute / movedim ----------------------------------------------------------

class TransposeBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, d0, d1):
        ctx.d0, ctx.d1 = d0, d1
        return a._data.swapaxes(d0, d1) if a._data.ndim else a._data.view()

    @staticmethod
    def backward(ctx, g):
        return g.transpose(ctx.d0, ctx.d1)

    @staticmethod
    def backward_np(ctx, g):
        return g.swapaxes(ctx.d0, ctx.d1) if g.ndim else g


def _transpose_rule(ndim, dim=None, dim0=0, dim1=1, **kw):
    if ndim == 0:
        return "out = input"
    outs = list(_LETTERS[:ndim])
    ins = list(outs)
    a, b = dim0 % ndim, dim1 % ndim
    ins[a], ins[b] = ins[b], ins[a]
    return f"out{_idx(outs)} = input{_idx(ins)}"


@register(category="shape", methods=("transpose", "swapaxes", "swapdims"), kind="view", rule=_transpose_rule,
          cli=True)
def transpose(input, dim0, dim1):
    """Swap two dims (a view)."""
    nd = input._data.ndim
    return _view(TransposeBackward0, input, _wrap_dim(dim0, nd), _wrap_dim(dim1, nd))


@register(category="shape")
def swapaxes(input, axis0, axis1):
    """Alias of transpose."""
    return transpose(input, axis0, axis1)


@register(category="shape")
def swapdims(input, dim0, dim1):
    """Alias of transpose."""
    return transpose(input, dim0, dim1)


class TBackward0(TransposeBackward0):
    pass


def _t_rule(ndim, dim=None, **kw):
    return "out[i][j] = input[j][i]" if ndim == 2 else "out = input"


@register(category="shape", methods=("t",), kind="view", rule=_t_rule, cli=True)
def t(input):
    """Transpose a tensor of at most 2 dims (0-D and 1-D are returned as is)."""
    nd = input._data.ndim
    if nd > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {nd}D")
    return _view(TBackward0, input, 0, 1 if nd == 2 else 0)


class PermuteBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, dims):
        ctx.dims = dims
        return a._data.transpose(dims)

    @staticmethod
    def backward(ctx, g):
        inv = [0] * len(ctx.dims)
        for i, d in enumerate(ctx.dims):
            inv[d] = i
        return g.permute(inv)

    @staticmethod
    def backward_np(ctx, g):
        return g.transpose(np.argsort(ctx.dims)) if ctx.dims else g


def _permute_rule(ndim, dim=None, dims=None, **kw):
    if dims is None:
        return None
    dims = [d % ndim for d in dims] if ndim else []
    outs = _LETTERS[:ndim]
    ins = [""] * ndim
    for i, d in enumerate(dims):
        ins[d] = outs[i]
    return f"out{_idx(outs)} = input{_idx(ins)}"


def _permute_dims(input, dims):
    nd = input._data.ndim
    if len(dims) == nd and sorted(dims) == list(range(nd)):
        return tuple(dims)
    if len(dims) != nd:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal to "
                           f"len(dims) = {len(dims)}")
    w = tuple(_wrap_dim(d, nd) for d in dims)
    if len(set(w)) != len(w):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return w


@register(category="shape", methods=("permute",), kind="view", rule=_permute_rule, cli=True)
def permute(input, *dims):
    """Reorder dims: out's dim i is input's dim dims[i] (a view)."""
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    return _view(PermuteBackward0, input, _permute_dims(input, _sizes(dims, "permute", "dims")))


def _movedim_perm(input, source, destination):
    nd = input._data.ndim
    src, dst = _dimlist(source, "source"), _dimlist(destination, "destination")
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should contain "
                           f"the same number of dims as destination ({list(dst)} dims)")
    ws = [_wrap_dim(d, nd) for d in src]
    wd = [_wrap_dim(d, nd) for d in dst]
    if len(set(ws)) != len(ws):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(src)})")
    if len(set(wd)) != len(wd):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(dst)})")
    perm = [-1] * nd
    for s, d in zip(ws, wd):
        perm[d] = s
    rest = iter(i for i in range(nd) if i not in set(ws))
    for i in range(nd):
        if perm[i] == -1:
            perm[i] = next(rest)
    return tuple(perm)


def _movedim_rule(ndim, dim=None, source=None, destination=None, **kw):
    if source is None or destination is None:
        return None
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    src, dst = [s % ndim for s in src], [d % ndim for d in dst]
    perm = [-1] * ndim
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(i for i in range(ndim) if i not in src)
    perm = [p if p != -1 else next(rest) for p in perm]
    return _permute_rule(ndim, dims=perm)


@register(category="shape", methods=("movedim", "moveaxis"), kind="view", rule=_movedim_rule, cli=True)
def movedim(input, source, destination):
    """Move dims at source to positions destination, keeping the others in order (a permute view)."""
    return _view(PermuteBackward0, input, _movedim_perm(input, source, destination))


@register(category="shape")
def moveaxis(input, source, destination):
    """Alias of movedim."""
    return movedim(input, source, destination)


# -- expand / broadcast_to ------------------------------------------------------------------

class ExpandBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, shape):
        ctx.in_shape = a._data.shape
        return _expand_np(a._data, shape)

    @staticmethod
    def backward(ctx, g):
        from ..autograd.function import sum_to_shape
        return sum_to_shape(g, ctx.in_shape)

    @staticmethod
    def backward_np(ctx, g):
        return g       # the engine reduces a broadcast gradient to the input's shape


def _expand_np(a, shape):
    if a.shape == shape:
        return a.view()
    lead = len(shape) - a.ndim
    if all(s == 1 for s in shape[:lead]) and a.shape == shape[lead:]:
        return a.reshape(shape)          # only size-1 dims added: writable, not overlapping
    if a.flags.c_contiguous and a.size:
        strides = (0,) * lead + tuple(0 if o == 1 and s != 1 else st
                                      for o, s, st in zip(a.shape, shape[lead:], a.strides))
        r = np.ndarray(shape, a.dtype, buffer=a, strides=strides)
        r.flags.writeable = False        # overlapping: in-place writes raise like PyTorch
        return r
    return np.broadcast_to(a, shape)     # read-only as well


def _expand_sizes(input, sizes):
    shp = input._data.shape
    if len(sizes) < len(shp):
        raise RuntimeError(f"expand({input.type()}{{{_shape_str(shp)}}}, size={_shape_str(sizes)}): the number "
                           f"of sizes provided ({len(sizes)}) must be greater or equal to the number of dimensions "
                           f"in the tensor ({len(shp)})")
    lead = len(sizes) - len(shp)
    out = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            out.append(s)
            continue
        cur = shp[i - lead]
        if s == -1:
            out.append(cur)
        elif cur == s or (cur == 1 and s >= 0):
            out.append(s)
        else:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                               f"non-singleton dimension {i}.  Target sizes: {_shape_str(sizes)}.  "
                               f"Tensor sizes: {_shape_str(shp)}")
    return tuple(out)


def _expand_rule(ndim, dim=None, shape=None, **kw):
    return "out[...][i][...] = input[...][0][...] along each expanded size-1 dim; other indices unchanged"


@register(category="shape", methods=("expand",), kind="view", rule=_expand_rule, cli=True)
def expand(input, *sizes):
    """Broadcast size-1 dims to larger sizes without copying (-1 keeps a dim)."""
    return _view(ExpandBackward0, input, _expand_sizes(input, _sizes(sizes, "expand")))


@register(category="shape", methods=("expand_as",))
def expand_as(input, other):
    """expand to other's shape."""
    return expand(input, other._data.shape)


@register(category="shape", methods=("broadcast_to",), kind="view", rule=_expand_rule, cli=True)
def broadcast_to(input, size):
    """Broadcast to a shape (same as expand)."""
    return expand(input, size)


@register(category="shape", methods=("contiguous",))
def contiguous(input, memory_format=None):
    """self if already contiguous, else a contiguous copy."""
    if input._data.flags.c_contiguous:
        return input
    from .pointwise import clone
    r = clone(input)
    if not r._data.flags.c_contiguous:
        r._data = np.ascontiguousarray(r._data)
    return r


# -- narrow / select / split / chunk / unbind -----------------------------------------------

class SliceBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, dim, start, end):
        ctx.dim, ctx.start, ctx.end, ctx.in_shape = dim, start, end, a._data.shape
        return a._data[(slice(None),) * dim + (slice(start, end),)]

    @staticmethod
    def backward(ctx, g):
        return SliceBackwardBackward0.apply(g, ctx.in_shape, ctx.dim, ctx.start, ctx.end)

    @staticmethod
    def backward_np(ctx, g):
        out = np.zeros(ctx.in_shape, dtype=g.dtype)
        out[(slice(None),) * ctx.dim + (slice(ctx.start, ctx.end),)] = g
        return out


class SliceBackwardBackward0(Op):
    @staticmethod
    def forward(ctx, g, shape, dim, start, end):
        ctx.dim, ctx.start, ctx.end = dim, start, end
        out = np.zeros(shape, dtype=g._data.dtype)
        out[(slice(None),) * dim + (slice(start, end),)] = g._data
        return out

    @staticmethod
    def backward(ctx, gg):
        return _view(SliceBackward0, gg, ctx.dim, ctx.start, ctx.end)


def _narrow_rule(ndim, dim=0, start=0, length=None, **kw):
    ins = list(_LETTERS[:ndim])
    outs = list(ins)
    d = (dim or 0) % max(ndim, 1)
    ins[d] = f"{ins[d]} + {start}"
    return f"out{_idx(outs)} = input{_idx(ins)}"


@register(category="shape", methods=("narrow",), kind="view", rule=_narrow_rule, cli=True)
def narrow(input, dim, start, length):
    """Elements start..start+length-1 along dim (a view)."""
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    start, length = _int(start, "start"), _int(length, "length")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = _wrap_dim(dim, nd)
    size = input._data.shape[d]
    if start < -size or start > size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _view(SliceBackward0, input, d, start, start + length)


class SelectBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, dim, index):
        ctx.dim, ctx.index, ctx.in_shape = dim, index, a._data.shape
        return a._data[(slice(None),) * dim + (index,)]

    @staticmethod
    def backward(ctx, g):
        return SelectBackwardBackward0.apply(g, ctx.in_shape, ctx.dim, ctx.index)

    @staticmethod
    def backward_np(ctx, g):
        out = np.zeros(ctx.in_shape, dtype=g.dtype)
        out[(slice(None),) * ctx.dim + (ctx.index,)] = g
        return out


class SelectBackwardBackward0(Op):
    @staticmethod
    def forward(ctx, g, shape, dim, index):
        ctx.dim, ctx.index = dim, index
        out = np.zeros(shape, dtype=g._data.dtype)
        out[(slice(None),) * dim + (index,)] = g._data
        return out

    @staticmethod
    def backward(ctx, gg):
        return _view(SelectBackward0, gg, ctx.dim, ctx.index)


def _select_rule(ndim, dim=0, index=0, **kw):
    ins = list(_LETTERS[:ndim])
    d = (dim or 0) % max(ndim, 1)
    outs = ins[:d] + ins[d + 1:]
    ins[d] = str(index)
    return f"out{_idx(outs)} = input{_idx(ins)}"


@register(category="shape", methods=("select",), kind="view", rule=_select_rule, cli=True)
def select(input, dim, index):
    """The slice at `index` along dim, with that dim removed (a view)."""
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, nd)
    index = _int(index, "index")
    size = input._data.shape[d]
    if index < -size or index >= size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{_shape_str(input._data.shape)} at dimension {dim}")
    if index < 0:
        index += size
    return _view(SelectBackward0, input, d, index)


def _mark_multi(outs, input):
    """Outputs of a multi-output view op: views of input's base, not modifiable in place under grad."""
    base = input if input._base is None else input._base
    meta = "multi" if STATE.grad_enabled else "nograd"
    for r in outs:
        r._base = base
        r._vc = input._vc
        r._view_meta = meta
        if input._inference:
            r._inference = True
    return outs


class SplitBackward0(Op):
    @staticmethod
    def forward(ctx, a, dim, bounds):
        ctx.dim = dim
        arr = a._data
        pre = (slice(None),) * dim
        return tuple(arr[pre + (slice(s, e),)] for s, e in bounds)

    @staticmethod
    def backward(ctx, *grads):
        return cat(list(grads), ctx.dim)

    @staticmethod
    def backward_np(ctx, *grads):
        return np.concatenate(grads, axis=ctx.dim)


class SplitWithSizesBackward0(SplitBackward0):
    pass


class UnbindBackward0(Op):
    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        arr = a._data
        pre = (slice(None),) * dim
        return tuple(arr[pre + (i,)] for i in range(arr.shape[dim]))

    @staticmethod
    def backward(ctx, *grads):
        return stack(list(grads), ctx.dim)

    @staticmethod
    def backward_np(ctx, *grads):
        return np.stack(grads, axis=ctx.dim)


def _split_bounds(sizes):
    out, s = [], 0
    for n in sizes:
        out.append((s, s + n))
        s += n
    return out


def _split_rule(ndim, dim=0, **kw):
    ins = list(_LETTERS[:ndim])
    d = (dim or 0) % max(ndim, 1)
    outs = list(ins)
    ins[d] = f"start_c + {ins[d]}"
    return f"outputs[c]{_idx(outs)} = input{_idx(ins)}  (start_c = sum of the sizes of chunks before c)"


def _do_split(input, d, sizes, cls):
    outs = cls.apply(input, d, _split_bounds(sizes))
    return _mark_multi(outs, input)


def _split_size(input, split_size, dim):
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, nd)
    size = input._data.shape[d]
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0 and size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    n = max((size + split_size - 1) // split_size, 1) if split_size else 1
    sizes = [split_size] * n
    sizes[-1] = size - split_size * (n - 1)
    return _do_split(input, d, sizes, SplitBackward0)


@register(category="shape", methods=("split_with_sizes",), kind="view", rule=_split_rule)
def split_with_sizes(input, split_sizes, dim=0):
    """Split along dim into pieces of the given sizes (views); the sizes must sum to size(dim)."""
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, nd)
    sizes = [_int(s, "split_sizes") for s in split_sizes]
    size = input._data.shape[d]
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                           f"split_sizes={_shape_str(sizes)}")
    if sum(sizes) != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at "
                           f"dimension {d}), but got split_sizes={_shape_str(sizes)}")
    return _do_split(input, d, sizes, SplitWithSizesBackward0)


@register(category="shape", methods=("split",), kind="view", rule=_split_rule, cli=True)
def split(tensor, split_size_or_sections, dim=0):
    """Split along dim into chunks of split_size (the last may be smaller) or of the listed sizes (views)."""
    if isinstance(split_size_or_sections, (list, tuple)):
        return split_with_sizes(tensor, split_size_or_sections, dim)
    return _split_size(tensor, _int(split_size_or_sections, "split_size"), dim)


@register(category="shape", methods=("chunk",), kind="view", rule=_split_rule, cli=True)
def chunk(input, chunks, dim=0):
    """Split into `chunks` pieces of ceil(size/chunks) along dim (fewer when it does not divide)."""
    chunks = _int(chunks, "chunks")
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _wrap_dim(dim, nd)
    size = input._data.shape[d]
    split_size = (size + chunks - 1) // chunks
    if split_size == 0 and size == 0:
        return _do_split(input, d, [0] * chunks, SplitWithSizesBackward0)
    return _split_size(input, split_size, d)


def _unbind_rule(ndim, dim=0, **kw):
    ins = list(_LETTERS[:ndim])
    d = (dim or 0) % max(ndim, 1)
    outs = ins[:d] + ins[d + 1:]
    ins[d] = "c"
    return f"outputs[c]{_idx(outs)} = input{_idx(ins)}"


@register(category="shape", methods=("unbind",), kind="view", rule=_unbind_rule, cli=True)
def unbind(input, dim=0):
    """Tuple of all slices along dim, that dim removed (views)."""
    nd = input._data.ndim
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, nd)
    return _mark_multi(UnbindBackward0.apply(input, d), input)


def _clamp_slice(start, end, size):
    """PyTorch's slice bounds: negative wrap, clamp to [0, size], end >= start."""
    start = min(max(start + size if start < 0 else start, 0), size)
    end = min(max(end + size if end < 0 else end, 0), size)
    return start, max(start, end)


@register(category="shape", methods=("tensor_split",), kind="view", rule=_split_rule)
def tensor_split(input, indices_or_sections, dim=0):
    """Split into n near-equal parts (the first size % n get one more) or at the given indices (views)."""
    nd = input._data.ndim
    if nd == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = _wrap_dim(dim, nd)
    size = input._data.shape[d]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if ios._data.dtype.kind not in "iu":
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have integer dtype, but got "
                               f"{ios.dtype}")
        if ios._data.ndim > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {ios._data.ndim} dims")
        ios = int(ios.item()) if ios._data.ndim == 0 else [int(v) for v in ios._data.tolist()]
    if isinstance(ios, (list, tuple)):
        bounds, s = [], 0
        for i in [_int(i, "indices") for i in ios]:
            bounds.append(_clamp_slice(s, i, size))
            s = i
        bounds.append(_clamp_slice(s, size, size))
    else:
        n = _int(ios, "sections")
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        q, r = divmod(size, n)
        bounds, s = [], 0
        for k in range(n):
            e = s + q + (1 if k < r else 0)
            bounds.append((s, e))
            s = e
    return tuple(_view(SliceBackward0, input, d, s, e) for s, e in bounds)


# -- in-place view ops ----------------------------------------------------------------------

class UnsqueezeBackward1(UnsqueezeBackward0):
    pass


class SqueezeBackward3(SqueezeBackward0):
    pass


class SqueezeBackward4(SqueezeBackward0):
    pass


class SqueezeBackward5(SqueezeBackward0):
    pass


class TBackward1(TransposeBackward0):
    pass


class TransposeBackward1(TransposeBackward0):
    pass


def _inplace_view(self, cls, *args):
    """Apply view op cls to self and make self that view (metadata change in place)."""
    from . import inplace as registry
    if self._data.flags.writeable:
        registry.check_inplace(self)
    else:       # read-only (expanded) data: only the autograd checks apply to a metadata change
        if self._inference and not STATE.inference:
            raise RuntimeError(registry.INFERENCE_INPLACE_MSG)
        b = self._base
        if STATE.grad_enabled:
            if self._requires_grad and self.grad_fn is None:
                raise RuntimeError(registry.LEAF_INPLACE_MSG)
            if b is not None and b._requires_grad:
                if not self._requires_grad:
                    raise RuntimeError(NOGRAD_VIEW_MSG)
                if b.grad_fn is None:
                    raise RuntimeError(registry.VIEW_LEAF_INPLACE_MSG)
    if STATE.grad_enabled and self._requires_grad:
        alias = Tensor._make(self._data, True, self.grad_fn, self._output_nr)
        alias._vc = self._vc
        r = cls.apply(alias, *args)
        self._data = r._data
        self.grad_fn = r.grad_fn
        self._output_nr = 0
    else:
        from ..autograd.function import _ForwardCtx
        self._data = cls.forward(_ForwardCtx(), self, *args)
    if not self._inference:
        self._vc[0] += 1
    return self


def unsqueeze_(self, dim):
    """In-place unsqueeze: self's shape gains a size-1 dim."""
    return _inplace_view(self, UnsqueezeBackward1, _wrap_dim(dim, self._data.ndim + 1))


def squeeze_(self, dim=None):
    """In-place squeeze: self's size-1 dims (or those in dim) are removed."""
    dims = _squeeze_dims(self, dim)
    cls = SqueezeBackward3 if dim is None else (
        SqueezeBackward4 if isinstance(dim, (int, np.integer, Tensor)) else SqueezeBackward5)
    return _inplace_view(self, cls, dims)


def t_(self):
    """In-place t()."""
    nd = self._data.ndim
    if nd > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {nd}D")
    return _inplace_view(self, TBackward1, 0, 1 if nd == 2 else 0)


def transpose_(self, dim0, dim1):
    """In-place transpose."""
    nd = self._data.ndim
    return _inplace_view(self, TransposeBackward1, _wrap_dim(dim0, nd), _wrap_dim(dim1, nd))


Tensor.unsqueeze_ = unsqueeze_
Tensor.squeeze_ = squeeze_
Tensor.t_ = t_
Tensor.transpose_ = transpose_
Tensor.swapaxes_ = transpose_
Tensor.swapdims_ = transpose_


# -- unfold / as_strided --------------------------------------------------------------------

class UnfoldBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, dim, size, step):
        arr = a._data
        ctx.dim, ctx.size, ctx.step, ctx.in_shape = dim, size, step, arr.shape
        if arr.ndim == 0:
            return arr.reshape(1)
        shape, strides, off = _geom(arr)
        n = (shape[dim] - size) // step + 1
        new_shape = shape[:dim] + (n,) + shape[dim + 1:] + (size,)
        new_strides = strides[:dim] + (strides[dim] * step,) + strides[dim + 1:] + (strides[dim],)
        return _strided(arr, new_shape, new_strides, off)

    @staticmethod
    def backward(ctx, g):
        return UnfoldBackwardBackward0.apply(g, ctx.in_shape, ctx.dim, ctx.size, ctx.step)


class UnfoldBackwardBackward0(Op):
    @staticmethod
    def forward(ctx, g, shape, dim, size, step):
        ctx.dim, ctx.size, ctx.step = dim, size, step
        ga = g._data
        if not shape:
            return ga.reshape(())
        out = np.zeros(shape, dtype=ga.dtype)
        n = ga.shape[dim]
        pre = (slice(None),) * dim
        for k in range(size):   # window offset k covers positions k, k+step, ... along dim
            out[pre + (slice(k, k + step * (n - 1) + 1, step),)] += ga[..., k]
        return out

    @staticmethod
    def backward(ctx, gg):
        return _view(UnfoldBackward0, gg, ctx.dim, ctx.size, ctx.step)


def _unfold_rule(ndim, dim=None, dimension=0, size=None, step=1, **kw):
    ins = list(_LETTERS[:ndim])
    d = dimension % max(ndim, 1)
    w = _LETTERS[ndim]
    outs = ins + [w]
    ins[d] = f"{ins[d]} * {step} + {w}"
    return f"out{_idx(outs)} = input{_idx(ins)}"


@register(category="shape", methods=("unfold",), function=False, kind="view", rule=_unfold_rule, cli=True)
def unfold(input, dimension, size, step):
    """All windows of `size` elements with stride `step` along dimension, as a new last dim (a view)."""
    nd = input._data.ndim
    d = _wrap_dim(dimension, nd)
    size, step = _int(size, "size"), _int(step, "step")
    dsize = input._data.shape[d] if nd else 1
    if size > dsize:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {dsize} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    return _view(UnfoldBackward0, input, d, size, step)


class AsStridedBackward0(ViewOp):
    @staticmethod
    def forward(ctx, a, size, stride, offset):
        arr = a._data
        ctx.in_geom = _geom(arr)
        ctx.out_geom = (size, stride, offset)
        r = _strided(arr, size, stride, offset)
        if any(st == 0 and s > 1 for s, st in zip(size, stride)):
            r.flags.writeable = False    # overlapping: in-place writes raise like PyTorch
        return r

    @staticmethod
    def backward(ctx, g):
        return AsStridedScatterBackward0.apply(g, ctx.out_geom, ctx.in_geom)


class AsStridedBackward1(AsStridedBackward0):
    pass


class AsStridedScatterBackward0(Op):
    """Adjoint of as_strided: accumulate g at out_geom's storage positions, read in_geom's."""

    @staticmethod
    def forward(ctx, g, out_geom, in_geom):
        ctx.out_geom, ctx.in_geom = out_geom, in_geom
        return _scatter_geom(g._data, in_geom, out_geom)

    @staticmethod
    def backward(ctx, gg):
        return AsStridedGather.apply(gg, ctx.in_geom, ctx.out_geom)


class AsStridedGather(Op):
    """g laid out with in_geom's strides, read at out_geom (as_strided of a re-strided copy)."""

    @staticmethod
    def forward(ctx, g, in_geom, out_geom):
        ctx.out_geom, ctx.in_geom = out_geom, in_geom
        return _gather_geom(g._data, in_geom, out_geom)

    @staticmethod
    def backward(ctx, gg):
        return AsStridedScatterBackward0.apply(gg, ctx.out_geom, ctx.in_geom)


AsStridedGather.__name__ = AsStridedGather.__qualname__ = "AsStridedBackward0"


def _as_strided_args(input, size, stride, storage_offset):
    size = _sizes((size,), "as_strided", "size")
    stride = _sizes((stride,), "as_strided", "stride")
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{_shape_str(stride)}")
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {_shape_str(size)}")
    arr = input._data
    off = _storage_offset_of(arr) if storage_offset is None else _int(storage_offset, "storage_offset")
    if off < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {off}")
    isz = arr.itemsize
    need = 0 if 0 in size else (off + sum((s - 1) * st for s, st in zip(size, stride)) + 1) * isz
    have = _root(arr).nbytes
    if need > have:
        raise RuntimeError(f"setStorage: sizes {_shape_str(size)}, strides {_shape_str(stride)}, storage offset "
                           f"{off}, and itemsize {isz} requiring a storage size of {need} are out of bounds for "
                           f"storage of size {have}")
    return size, stride, off


def _as_strided_rule(ndim, dim=None, size=None, stride=None, storage_offset=0, **kw):
    if stride is None:
        return None
    outs = _LETTERS[:len(stride)]
    terms = ([str(storage_offset)] if storage_offset else []) + [f"{c}*{s}" for c, s in zip(outs, stride)]
    return f"out{_idx(outs)} = storage[{' + '.join(terms) or '0'}]"


@register(category="shape", methods=("as_strided",), kind="view", rule=_as_strided_rule, cli=True)
def as_strided(input, size, stride, storage_offset=None):
    """A view of input's storage with the given sizes, strides and offset (in elements)."""
    size, stride, off = _as_strided_args(input, size, stride, storage_offset)
    return _view(AsStridedBackward0, input, size, stride, off)


def as_strided_(self, size, stride, storage_offset=None):
    """In-place as_strided: self becomes the strided view of its storage."""
    size, stride, off = _as_strided_args(self, size, stride, storage_offset)
    return _inplace_view(self, AsStridedBackward1, size, stride, off)


Tensor.as_strided_ = as_strided_


# -- copies: repeat / tile / flip / roll ----------------------------------------------------

class RepeatBackward0(Op):
    @staticmethod
    def forward(ctx, a, reps):
        ctx.in_shape, ctx.reps = a._data.shape, reps
        return np.tile(a._data, reps)

    @staticmethod
    def backward(ctx, g):
        reps = ctx.reps
        shp = (1,) * (len(reps) - len(ctx.in_shape)) + tuple(ctx.in_shape)
        inter, dims = [], []
        for i, (r, s) in enumerate(zip(reps, shp)):
            inter += [r, s]
            dims.append(2 * i)
        g = g.reshape(inter).sum(dims)
        return g.reshape(ctx.in_shape)


def _repeat_rule(ndim, dim=None, sizes=None, dims=None, **kw):
    reps = sizes if sizes is not None else dims
    extra = max(len(reps) - ndim, 0) if isinstance(reps, (tuple, list)) else 0
    outs = _LETTERS[:extra + ndim]
    return f"out{_idx(outs)} = input" + "".join(f"[{c} % size({k})]" for k, c in enumerate(outs[extra:]))


@register(category="shape", methods=("repeat",), function=False, kind="view", rule=_repeat_rule, cli=True)
def repeat(input, *sizes):
    """Tile the data: out has size(d) * sizes[d] along each dim (leading sizes add new dims); a copy."""
    reps = _sizes(sizes, "repeat", "repeats")
    nd = input._data.ndim
    if len(reps) < nd:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    shp = (1,) * (len(reps) - nd) + input._data.shape
    _check_alloc(tuple(s * r for s, r in zip(shp, reps)), input.dtype)
    return RepeatBackward0.apply(input, reps)


@register(category="shape", methods=("tile",), kind="view", rule=_repeat_rule, cli=True)
def tile(input, dims):
    """repeat, with dims padded by leading 1s when shorter than input.ndim."""
    reps = _sizes((dims,), "tile", "dims")
    nd = input._data.ndim
    if len(reps) < nd:
        reps = (1,) * (nd - len(reps)) + reps
    return repeat(input, reps)


class FlipBackward0(Op):
    contiguous_output = False   # like an elementwise op, flip keeps a dense input's layout

    @staticmethod
    def forward(ctx, a, dims):
        ctx.dims = dims
        return np.flip(a._data, dims).copy(order="K") if dims else a._data.copy(order="K")

    @staticmethod
    def backward(ctx, g):
        return g.flip(ctx.dims)

    @staticmethod
    def backward_np(ctx, g):
        return np.flip(g, ctx.dims) if ctx.dims else g


def _flip_rule(ndim, dim=None, dims=None, **kw):
    if dims is None:
        return None
    ds = {d % max(ndim, 1) for d in ([dims] if isinstance(dims, int) else dims)}
    outs = _LETTERS[:ndim]
    ins = [f"size({k}) - 1 - {c}" if k in ds else c for k, c in enumerate(outs)]
    return f"out{_idx(outs)} = input{_idx(ins)}"


def _flip(input, dims):
    nd = input._data.ndim
    w = []
    for d in dims:
        wd = _wrap_dim(d, nd)
        if wd in w:
            raise RuntimeError(f"dim {wd} appears multiple times in the list of dims")
        w.append(wd)
    if nd == 0:
        w = []
    return FlipBackward0.apply(input, tuple(w))


@register(category="shape", methods=("flip",), kind="view", rule=_flip_rule, cli=True)
def flip(input, *dims):
    """Reverse the order of elements along dims (a copy)."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    return _flip(input, _dimlist(dims, "dims"))


@register(category="shape", methods=("fliplr",))
def fliplr(input):
    """Flip dim 1 (left/right); input must be at least 2-D."""
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _flip(input, (1,))


@register(category="shape", methods=("flipud",))
def flipud(input):
    """Flip dim 0 (up/down); input must be at least 1-D."""
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _flip(input, (0,))


class RollBackward0(Op):
    @staticmethod
    def forward(ctx, a, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        if dims is None:
            return np.roll(a._data.reshape(-1), shifts[0]).reshape(a._data.shape)
        return np.roll(a._data, shifts, dims)

    @staticmethod
    def backward(ctx, g):
        return RollBackward0.apply(g, tuple(-s for s in ctx.shifts), ctx.dims)


def _roll_rule(ndim, dim=None, shifts=None, dims=None, **kw):
    if shifts is None:
        return None
    sh = [shifts] if isinstance(shifts, int) else list(shifts)
    if dims is None:
        return f"out.flatten()[n] = input.flatten()[(n - {sh[0]}) % numel]"
    ds = [dims] if isinstance(dims, int) else list(dims)
    outs = _LETTERS[:ndim]
    ins = list(outs)
    for s, d in zip(sh, ds):
        k = d % ndim
        ins[k] = f"({ins[k]} - {s}) % size({k})"
    return f"out{_idx(outs)} = input{_idx(ins)}"


@register(category="shape", methods=("roll",), kind="view", rule=_roll_rule, cli=True)
def roll(input, shifts, dims=None):
    """Shift elements cyclically along dims (flattened when dims is None); a copy."""
    sh = _dimlist(shifts, "shifts")
    if not sh:
        raise RuntimeError("`shifts` required")
    nd = input._data.ndim
    if dims is None:
        if len(sh) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:0")
        return RollBackward0.apply(input, sh, None)
    ds = _dimlist(dims, "dims")
    if len(sh) != len(ds):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:{len(ds)}")
    if nd == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return RollBackward0.apply(input, sh, tuple(_wrap_dim(d, nd) for d in ds))


# -- cat / stack ----------------------------------------------------------------------------

class CatBackward0(Op):
    @staticmethod
    def forward(ctx, tensors, dim, bounds, dtype):
        ctx.dim, ctx.bounds = dim, bounds
        arrays = [t._data for t, b in zip(tensors, bounds) if b is not None]
        if not arrays:
            return np.zeros((0,), dtype=dtype)
        if all(a.dtype == dtype for a in arrays):
            r = np.concatenate(arrays, axis=dim)
        else:
            r = np.concatenate(arrays, axis=dim, dtype=dtype, casting="unsafe")
        return r if r.flags.c_contiguous else r.copy(order="C")   # torch.cat's result is contiguous

    @staticmethod
    def backward(ctx, g):
        out = []
        for b in ctx.bounds:
            if b is None:
                out.append(Tensor._make(np.zeros((0,), dtype=g._data.dtype)))
            else:
                out.append(_view(SliceBackward0, g, ctx.dim, b[0], b[1]))
        return tuple(out)

    @staticmethod
    def backward_np(ctx, g):
        pre = (slice(None),) * ctx.dim
        return tuple(np.zeros((0,), dtype=g.dtype) if b is None else g[pre + (slice(b[0], b[1]),)]
                     for b in ctx.bounds)


def _tensor_list(tensors, fname):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{fname}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    for i, t_ in enumerate(tensors):
        if not isinstance(t_, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t_).__name__}")
    return list(tensors)


def _cat_rule(ndim, dim=0, **kw):
    ins = list(_LETTERS[:ndim])
    d = (dim or 0) % max(ndim, 1)
    outs = list(ins)
    ins[d] = f"{ins[d]} - offset_t"
    return f"out{_idx(outs)} = tensors[t]{_idx(ins)}  (t is the input covering {outs[d]} along dim {d})"


@register(category="shape", kind="view", rule=_cat_rule, cli=True)
def cat(tensors, dim=0, *, out=None):
    """Concatenate along an existing dim; sizes must match elsewhere (legacy empty 1-D inputs are skipped)."""
    if type(tensors) is not list and type(tensors) is not tuple:
        tensors = _tensor_list(tensors, "cat")
    try:
        arrays = [x._data for x in tensors]
    except AttributeError:
        _tensor_list(tensors, "cat")
        raise
    if not arrays:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    if type(dim) is not int and (isinstance(dim, bool) or not isinstance(dim, (int, np.integer))):
        raise TypeError(f"cat(): argument 'dim' must be int, not {type(dim).__name__}")
    a0 = arrays[0]
    npdt = a0.dtype
    ref = None
    grad = False
    for i, a in enumerate(arrays):
        if a.dtype != npdt:
            npdt = None
        sh = a.shape
        if not sh:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        if ref is None and sh != (0,):
            ref = sh
    for x in tensors:
        if x._requires_grad:
            grad = STATE.grad_enabled
            break
    if npdt is None:
        dtype = tensors[0].dtype
        for x in tensors[1:]:
            dtype = _dt.promote_types(dtype, x.dtype)
        npdt = dtype.np
    if ref is None:
        d = _wrap_dim(dim, 1)
        bounds = [None] * len(arrays)
        shape = (0,)
    else:
        nd = len(ref)
        d = dim if type(dim) is int and 0 <= dim < nd else _wrap_dim(dim, nd)
        pre, post = ref[:d], ref[d + 1:]
        bounds, pos = [], 0
        for i, a in enumerate(arrays):
            sh = a.shape
            if sh == (0,):
                bounds.append(None)
                continue
            if sh[:d] != pre or sh[d + 1:] != post:
                if len(sh) != nd:
                    raise RuntimeError(f"Tensors must have same number of dimensions: got {nd} and {len(sh)}")
                k = next(k for k in range(nd) if k != d and sh[k] != ref[k])
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                   f"{ref[k]} but got size {sh[k]} for tensor number {i} in the list.")
            n = sh[d]
            bounds.append((pos, pos + n))
            pos += n
        shape = pre + (pos,) + post
    _check_alloc(shape, npdt)
    if grad:
        r = CatBackward0.apply(list(tensors), d, bounds, npdt)
    else:
        r = Tensor._make(CatBackward0.forward(_FCTX, tensors, d, bounds, npdt))
    if out is not None:
        from .pointwise import _out
        return _out(r, out)
    return r


@register(category="shape")
def concat(tensors, dim=0, *, out=None):
    """Alias of cat."""
    return cat(tensors, dim, out=out)


@register(category="shape")
def concatenate(tensors, axis=0, out=None):
    """Alias of cat."""
    return cat(tensors, axis, out=out)


class StackBackward0(Op):
    @staticmethod
    def forward(ctx, tensors, dim, dtype):
        ctx.dim = dim
        arrays = [t._data for t in tensors]
        if all(a.dtype == dtype for a in arrays):
            shp = arrays[0].shape
            return np.concatenate([a.reshape(shp[:dim] + (1,) + shp[dim:]) for a in arrays], axis=dim)
        return np.stack(arrays, axis=dim, dtype=dtype, casting="unsafe")

    @staticmethod
    def backward(ctx, g):
        return tuple(select(g, ctx.dim, i) for i in range(g._data.shape[ctx.dim]))

    @staticmethod
    def backward_np(ctx, g):
        pre = (slice(None),) * ctx.dim
        return tuple(g[pre + (i,)] for i in range(g.shape[ctx.dim]))


def _stack_rule(ndim, dim=0, **kw):
    ins = _LETTERS[:ndim]
    d = (dim or 0) % (ndim + 1)
    outs = ins[:d] + "t" + ins[d:]
    return f"out{_idx(outs)} = tensors[t]{_idx(ins)}"


@register(category="shape", kind="view", rule=_stack_rule, cli=True)
def stack(tensors, dim=0, *, out=None):
    """Stack equal-shaped tensors along a new dim."""
    ts = _tensor_list(tensors, "stack")
    if not ts:
        raise RuntimeError("stack expects a non-empty TensorList")
    arrays = [x._data for x in ts]
    s0 = arrays[0].shape
    for i, a in enumerate(arrays):
        if a.shape != s0:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {_shape_str(s0)} at entry 0 "
                               f"and {_shape_str(a.shape)} at entry {i}")
    d = dim if type(dim) is int and 0 <= dim <= len(s0) else _wrap_dim(dim, len(s0) + 1)
    npdt = arrays[0].dtype
    if any(a.dtype != npdt for a in arrays):
        dtype = ts[0].dtype
        for x in ts[1:]:
            dtype = _dt.promote_types(dtype, x.dtype)
        npdt = dtype.np
    _check_alloc(s0[:d] + (len(ts),) + s0[d:], npdt)
    if STATE.grad_enabled and any(x._requires_grad for x in ts):
        r = StackBackward0.apply(ts, d, npdt)
    else:
        r = Tensor._make(StackBackward0.forward(_FCTX, ts, d, npdt))
    if out is not None:
        from .pointwise import _out
        return _out(r, out)
    return r


@register(category="shape")
def atleast_1d(*tensors):
    """0-D tensors become 1-D views; others are returned as is."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(atleast_1d(x) for x in tensors[0])
    if len(tensors) > 1:
        return tuple(atleast_1d(x) for x in tensors)
    x = tensors[0]
    return reshape(x, (1,)) if x._data.ndim == 0 else x


@register(category="shape")
def atleast_2d(*tensors):
    """0-D and 1-D tensors become 2-D views (1-D gains a leading dim)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(atleast_2d(x) for x in tensors[0])
    if len(tensors) > 1:
        return tuple(atleast_2d(x) for x in tensors)
    x = tensors[0]
    nd = x._data.ndim
    if nd == 0:
        return reshape(x, (1, 1))
    return unsqueeze(x, 0) if nd == 1 else x


@register(category="shape")
def atleast_3d(*tensors):
    """0-D -> (1,1,1), 1-D (n) -> (1,n,1), 2-D (m,n) -> (m,n,1); others as is."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(atleast_3d(x) for x in tensors[0])
    if len(tensors) > 1:
        return tuple(atleast_3d(x) for x in tensors)
    x = tensors[0]
    nd = x._data.ndim
    if nd == 0:
        return reshape(x, (1, 1, 1))
    if nd == 1:
        return unsqueeze(unsqueeze(x, 0), -1)
    return unsqueeze(x, -1) if nd == 2 else x


def _nonempty(tensors, fname):
    ts = _tensor_list(tensors, fname)
    if not ts:
        raise RuntimeError(f"{fname} expects a non-empty TensorList")
    return ts


@register(category="shape")
def hstack(tensors, *, out=None):
    """Concatenate column-wise (dim 1; dim 0 for 1-D inputs)."""
    ts = [atleast_1d(x) for x in _nonempty(tensors, "hstack")]
    return cat(ts, 0 if ts[0]._data.ndim == 1 else 1, out=out)


@register(category="shape")
def vstack(tensors, *, out=None):
    """Concatenate row-wise after making inputs at least 2-D."""
    return cat([atleast_2d(x) for x in _nonempty(tensors, "vstack")], 0, out=out)


@register(category="shape")
def row_stack(tensors, *, out=None):
    """Alias of vstack."""
    return vstack(tensors, out=out)


@register(category="shape")
def dstack(tensors, *, out=None):
    """Concatenate depth-wise (dim 2) after making inputs at least 3-D."""
    return cat([atleast_3d(x) for x in _nonempty(tensors, "dstack")], 2, out=out)


@register(category="shape")
def column_stack(tensors, *, out=None):
    """Stack 0-D/1-D inputs as columns (n -> n x 1) and concatenate along dim 1."""
    ts = _nonempty(tensors, "column_stack")
    ts = [reshape(x, (x._data.size, 1)) if x._data.ndim <= 1 else x for x in ts]
    return cat(ts, 1, out=out)


# -- T / mT / H / mH ----------------------------------------------------------------------

_T_WARNED = [False]


def _T(self):
    nd = self._data.ndim
    if nd != 2 and not _T_WARNED[0]:
        _T_WARNED[0] = True
        warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
                      "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
                      "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
                      "tensor.", UserWarning, stacklevel=2)
    return _view(PermuteBackward0, self, tuple(range(nd - 1, -1, -1)))


def _mT(self):
    if self._data.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got "
                           f"{self._data.ndim}-D tensor.")
    return transpose(self, -2, -1)


def _mH(self):
    if self._data.ndim < 2:
        raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got "
                           f"{self._data.ndim}-D tensor.")
    return transpose(self, -2, -1)


def _H(self):
    nd = self._data.ndim
    if nd != 2:
        extra = " For batches of matrices, consider using tensor.mH" if nd > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {nd}-D tensor.{extra}")
    return transpose(self, 0, 1)


def adjoint(input):
    """Conjugate transpose of the last two dims (plain transpose for real tensors)."""
    return _mH(input)


register(category="shape", methods=("adjoint",))(adjoint)

Tensor.T = property(_T)
Tensor.mT = property(_mT)
Tensor.mH = property(_mH)
Tensor.H = property(_H)


# -- in-place on views: CopySlices --------------------------------------------------------

_MULTI_MSG = (" This view is the output of a function that returns multiple views. Such functions do not allow the "
              "output views to be modified inplace. You should replace the inplace operation by an out-of-place one.")
_NOGRAD_TAIL = (" Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
                "moving both the view and the inplace either both inside the no_grad block (if you don't want the "
                "inplace to be tracked) or both outside (if you want the inplace to be tracked).")
NOGRAD_VIEW_MSG = ("A view was created in no_grad mode and is being modified inplace with grad mode enabled."
                   + _NOGRAD_TAIL)


def refresh_view(t):
    """Give view t the grad_fn PyTorch regenerates from its base: as_strided of the base's current
    history (used before an in-place op on t, when the base may have been rebased since t was made)."""
    base = t._base
    if not (base._requires_grad and STATE.grad_enabled) or base._data.dtype != t._data.dtype:
        return
    g = _geom(t._data)
    v = AsStridedBackward0.apply(base, g[0], g[1], g[2])
    t.grad_fn = v.grad_fn
    t._output_nr = 0
    t._requires_grad = True


def check_view_inplace(t):
    """Before recording an in-place op on view t: PyTorch's errors for views that cannot be
    rebased; otherwise t's history is recomputed from its base's current one."""
    meta = t._view_meta
    if meta is None:
        refresh_view(t)
        return
    fn = t.grad_fn
    head = (f"Output {t._output_nr} of {re.sub(r'Backward[0-9]*$', '', fn.name())} is a view and is being "
            "modified inplace." if fn is not None else
            "A view was created in no_grad mode and is being modified inplace with grad mode enabled.")
    raise RuntimeError(head + (_MULTI_MSG if meta == "multi" else _NOGRAD_TAIL))


class CopySlices(Op):
    """The base's node after an in-place op on one of its views: the view region of the
    gradient flows to the op's result, the rest to the base's previous history."""

    def name(self):
        return "torch::autograd::CopySlices"

    @staticmethod
    def backward(ctx, g):
        n = ctx.needs_input_grad
        gb = CopySlicesZero.apply(g, ctx.base_geom, ctx.view_geom) if n[0] else None
        gv = AsStridedGather.apply(g, ctx.base_geom, ctx.view_geom) if n[1] else None
        return gb, gv


class CopySlicesZero(Op):
    """g with the view region zeroed (self-adjoint)."""

    @staticmethod
    def forward(ctx, g, base_geom, view_geom):
        ctx.base_geom, ctx.view_geom = base_geom, view_geom
        return _zero_geom(g._data, base_geom, view_geom)

    @staticmethod
    def backward(ctx, gg):
        return CopySlicesZero.apply(gg, ctx.base_geom, ctx.view_geom)


def rebase_view(t, result):
    """After an in-place op wrote `result` into view t: the base's grad_fn becomes CopySlices
    and t's grad_fn becomes AsStridedBackward0 of the new base (PyTorch's behaviour)."""
    base = t._base
    if base._data.dtype != t._data.dtype or result.grad_fn is None:
        return
    bg, vg = _geom(base._data), _geom(t._data)
    node = CopySlices.__new__(CopySlices)
    node._init_node((base, result), (base, result))
    node.base_geom, node.view_geom = bg, vg
    node._output_meta = ((base._data.shape, base._data.dtype),)
    base.grad_fn = node
    base._output_nr = 0
    base._requires_grad = True
    v = AsStridedBackward0.apply(base, vg[0], vg[1], vg[2])
    t.grad_fn = v.grad_fn
    t._output_nr = 0
    t._requires_grad = True
