"""torch's legacy linear-algebra entry points, as torch 2.13 still answers them: the deprecated
chain_matmul / frobenius_norm / nuclear_norm (results of their torch.linalg successors, torch's
warn-once deprecation text), norm_except_dim (weight norm's helper, composed as ATen composes it), and
the removed solve / lstsq / eig / symeig / matrix_rank, which raise torch's RuntimeError."""
from __future__ import annotations

from ..._warn import warn_aten
from ...tensor import Tensor
from ..registry import export, method, register
from .norms import linalg_matrix_norm, linalg_multi_dot, linalg_vector_norm

_ATEN = "aten/src/ATen/native/LinearAlgebra.cpp:{}"   # their TORCH_WARN_ONCE sites


def _renamed(t, name):
    """t with its node renamed to ATen's (same backward): at::norm's NormBackward0/1 where core composes
    linalg.vector_norm."""
    node = t.grad_fn
    if node is not None and type(node).__name__ != name:
        node.__class__ = type(name, (type(node),), {"__module__": __name__})
    return t


@register(category="linalg")
def chain_matmul(*matrices, out=None):
    """Deprecated torch.chain_matmul: linalg.multi_dot of the matrices (one matrix: a clone), with torch's
    warn-once deprecation."""
    warn_aten("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
              "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
              "parameters.", _ATEN.format(1102), once=True, from_python=True)
    for m in matrices:
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        return matrices[0].clone()
    return linalg_multi_dot(list(matrices), out=out)


@register(category="linalg")
def frobenius_norm(input, dim=None, keepdim=False, *, out=None):
    """Deprecated torch.frobenius_norm: the 2-norm over dim (NormBackward1), with torch's warn-once
    deprecation."""
    if dim is None:
        raise TypeError('frobenius_norm() missing 1 required positional arguments: "dim"')
    warn_aten("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed in a "
              "future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead",
              _ATEN.format(3175), once=True)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead.")
    return _renamed(linalg_vector_norm(input, 2, dims, keepdim, out=out), "NormBackward1")


@register(category="linalg")
def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    """Deprecated torch.nuclear_norm: the sum of singular values over the two dims (default: a 2-D input's),
    with torch's warn-once deprecation."""
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    if dim is None:
        dim = (-2, -1)
    warn_aten("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in a "
              "future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead",
              _ATEN.format(3229), once=True)
    return linalg_matrix_norm(input, "nuc", tuple(dim), keepdim, out=out)


@register(category="linalg")
def norm_except_dim(v, pow=2, dim=0):
    """The pow-norm of v over every dim but `dim`, kept as size-1 dims (dim=-1: the whole tensor's norm),
    as ATen composes it (contiguous().view().norm().view())."""
    nd = v.dim()
    if dim == -1:
        return _renamed(linalg_vector_norm(v, pow), "NormBackward0")
    if dim == 0 or dim == nd - 1:
        size = [1] * nd
        size[dim] = v.shape[dim]
        flat = v.contiguous().view(v.shape[0], -1) if dim == 0 else v.contiguous().view(-1, v.shape[dim])
        return _renamed(linalg_vector_norm(flat, pow, 1 if dim == 0 else 0), "NormBackward1").view(size)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


# -- removed: the name remains and raises ------------------------------------------------------------

_REMOVED = "This function was deprecated since version 1.9 and is now removed. "
_SOLVE = (_REMOVED + "`torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its "
          "arguments reversed and does not return the LU factorization.\n\nTo get the LU factorization see "
          "`torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution "
          "should be replaced with:\nX = torch.linalg.solve(A, B)")
_LSTSQ = (_REMOVED + "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n`torch.linalg.lstsq` has "
          "reversed arguments and does not return the QR decomposition in the returned tuple (although it returns "
          "other information about the problem).\n\nTo get the QR decomposition consider using `torch.linalg.qr`."
          "\n\nThe returned solution in `torch.lstsq` stored the residuals of the solution in the last m - n "
          "columns of the returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the field "
          "'residuals' of the returned named tuple.\n\nThe unpacking of the solution, as in\nX, _ = "
          "torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced with:\nX = torch.linalg.lstsq(A, B).solution")
_EIG = (_REMOVED + "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real "
        "tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\nL_complex = "
        "torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced with:\n"
        "L_complex, V_complex = torch.linalg.eig(A)")
_SYMEIG = (_REMOVED + "The default behavior has changed from using the upper triangular portion of the matrix by "
           "default to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be "
           "replaced with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = "
           "torch.symeig(A, eigenvectors=True) should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' "
           "if upper else 'L')")
_MATRIX_RANK = ("This function was deprecated since version 1.9 and is now removed.\nPlease use the "
                "`torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed in "
                "`torch.linalg.matrix_rank()` to 'hermitian'.")


@export
def solve(input: Tensor, A: Tensor, *, out=None):
    """Removed in torch 1.9: raises torch's RuntimeError."""
    raise RuntimeError(_SOLVE)


@export
def lstsq(input: Tensor, A: Tensor, *, out=None):
    """Removed in torch 1.9: raises torch's RuntimeError."""
    raise RuntimeError(_LSTSQ)


@export
def eig(self: Tensor, eigenvectors=False, *, e=None, v=None):
    """Removed in torch 1.9: raises torch's RuntimeError."""
    raise RuntimeError(_EIG)


@export
def symeig(input, eigenvectors=False, upper=True, *, out=None):
    """Removed in torch 1.9: raises torch's RuntimeError."""
    raise RuntimeError(_SYMEIG)


@export
def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    """Removed in torch 1.9: raises torch's RuntimeError."""
    raise RuntimeError(_MATRIX_RANK)


for _name, _fn in (("solve", solve), ("lstsq", lstsq), ("eig", eig), ("symeig", symeig)):
    method(_name, _fn)
