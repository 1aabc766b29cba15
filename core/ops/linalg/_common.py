"""Shared pieces of the torch.linalg ops: LinAlgError, the input checks ATen's linalg functions run (with
their messages), LAPACK-style singularity diagnosis, named result tuples and small helpers."""
from __future__ import annotations

import numpy as np

from ... import return_types as _rt
from ..._grad_mode import STATE
from ...dtypes import scalar_name as _dtname
from ...autograd.node import SavedTensor
from ...tensor import Tensor


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError (torch._C._LinAlgError): a RuntimeError raised when LAPACK reports a
    numerical failure (singular matrix, not positive-definite...)."""


LinAlgError = _LinAlgError

# torch.return_types of the linalg functions
slogdet_t = _rt._make("slogdet", ("sign", "logabsdet"))
linalg_slogdet = _rt._make("linalg_slogdet", ("sign", "logabsdet"))
linalg_inv_ex = _rt._make("linalg_inv_ex", ("inverse", "info"))
linalg_solve_ex = _rt._make("linalg_solve_ex", ("result", "info"))
linalg_cholesky_ex = _rt._make("linalg_cholesky_ex", ("L", "info"))
linalg_qr = _rt._make("linalg_qr", ("Q", "R"))
qr_t = _rt._make("qr", ("Q", "R"))
linalg_eigh = _rt._make("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_svd = _rt._make("linalg_svd", ("U", "S", "Vh"))
svd_t = _rt._make("svd", ("U", "S", "V"))
linalg_lstsq = _rt._make("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
triangular_solve_t = _rt._make("triangular_solve", ("solution", "cloned_coefficient"))


def check_float(A, fname, low_precision=False):
    """ATen's checkFloatingOrComplex (and, for inverses, its low-precision check)."""
    if not isinstance(A, Tensor):
        raise TypeError(f"{fname}(): argument 'A' must be Tensor, not {type(A).__name__}")
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. Got {_dtname(A.dtype)}")
    if A._data.dtype == np.float16:
        if low_precision:
            raise RuntimeError(f"{fname}: Low precision dtypes not supported. Got {_dtname(A.dtype)}")
        raise NotImplementedError(f"\"{low_precision or 'lu_cpu'}\" not implemented for 'Half'")


def check_matrix(A, fname, name="A"):
    if A._data.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor {name} must have at least 2 dimensions.")


def check_square(A, fname, name="A"):
    check_matrix(A, fname, name)
    m, n = A._data.shape[-2:]
    if m != n:
        raise RuntimeError(f"{fname}: {name} must be batches of square matrices, but they are {m} by {n} matrices")


def batch_prefix(shape, flat_index):
    """"(Batch element i): " as LAPACK errors in batches are reported, "" for a single matrix."""
    return f"(Batch element {flat_index}): " if len(shape) > 2 else ""


def first_zero_pivot(a):
    """1-based index of the first exactly-zero pivot of LU with partial pivoting (LAPACK getrf's info),
    0 when the factorization has none."""
    a = np.array(a, dtype=np.float64)
    n = a.shape[0]
    for k in range(n):
        p = k + int(np.argmax(np.abs(a[k:, k])))
        if a[p, k] == 0:
            return k + 1
        a[[k, p]] = a[[p, k]]
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return 0


def flat(x):
    """A batch of matrices as one (B, m, n) array (also when some size is 0)."""
    return x.reshape((int(np.prod(x.shape[:-2], dtype=np.int64)),) + x.shape[-2:])


def lu_infos(x):
    """getrf info per matrix of a batch (shape x.shape[:-2])."""
    if x.size == 0:
        return np.zeros(x.shape[:-2], np.int32)
    return np.array([first_zero_pivot(m) for m in flat(x)], dtype=np.int32).reshape(x.shape[:-2])


def save_outputs(outs, *idx):
    """Save outputs idx of a recorded multi-output op for its backward, as torch saves results: like
    Op.save_output (which covers output 0 only) they are re-wrapped on unpack with the node as grad_fn,
    so a create_graph backward differentiates through them. Appended after what forward saved."""
    node = next((o.grad_fn for o in outs if isinstance(o, Tensor) and o.grad_fn is not None), None)
    if node is not None:
        node._saved = list(node._saved or []) + [SavedTensor(outs[i], True, i) for i in idx]
    return outs


def graphing():
    """Grad mode is on: a graph is being recorded (inside a backward: create_graph=True)."""
    return STATE.grad_enabled


def make(x):
    return Tensor._make(np.ascontiguousarray(x))


def as_float_info(info):
    return Tensor._make(np.asarray(info, dtype=np.int32))


def bcast_batch(sa, sb):
    """Broadcast two batch shapes, with torch's error message."""
    n = max(len(sa), len(sb))
    pa, pb = (1,) * (n - len(sa)) + tuple(sa), (1,) * (n - len(sb)) + tuple(sb)
    for i in range(n - 1, -1, -1):
        if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
            raise RuntimeError(f"The size of tensor a ({pa[i]}) must match the size of tensor b ({pb[i]}) at "
                               f"non-singleton dimension {i}")
    return tuple(max(x, y) if min(x, y) != 0 else 0 for x, y in zip(pa, pb))
