"""Dim reorderings, all views: transpose (swapaxes, swapdims), t, permute, movedim (moveaxis),
adjoint, the T / mT / H / mH properties, and the in-place t_ / transpose_."""
from __future__ import annotations

import numpy as np

from ..._warn import warn_aten
from ...tensor import _wrap_dim
from ..inplace import ViewOp, _inplace_view, _view
from ..registry import add_inplace, method, register
from ._util import _dimlist, _sizes

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


@register(category="shape", methods=("transpose", "swapaxes", "swapdims"), kind="view")
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


@register(category="shape", methods=("t",), kind="view")
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


@register(category="shape", methods=("permute",), kind="view")
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


@register(category="shape", methods=("movedim", "moveaxis"), kind="view")
def movedim(input, source, destination):
    """Move dims at source to positions destination, keeping the others in order (a permute view)."""
    return _view(PermuteBackward0, input, _movedim_perm(input, source, destination))


@register(category="shape")
def moveaxis(input, source, destination):
    """Alias of movedim."""
    return movedim(input, source, destination)


class TBackward1(TransposeBackward0):
    pass


class TransposeBackward1(TransposeBackward0):
    pass


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


add_inplace("t", "t_", t_)
add_inplace("transpose", "transpose_", transpose_)
add_inplace("swapaxes", "swapaxes_", transpose_)
add_inplace("swapdims", "swapdims_", transpose_)


# -- T / mT / H / mH ----------------------------------------------------------------------

_T_WARNED = [False]


def _T(self):
    nd = self._data.ndim
    if nd != 2:
        warn_aten("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it "
                  "will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
                  "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.",
                  "aten/src/ATen/native/TensorShape.cpp:4314", once=_T_WARNED)
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

method("T", property(_T))
method("mT", property(_mT))
method("mH", property(_mH))
method("H", property(_H))
