"""Matrix products and friends: matmul/mm/bmm/mv/dot/inner/outer/addmm (`products`), addmv/addr/addbmm/
baddbmm/vdot/trace/kron (`blas_products`) and cdist; the torch.linalg ops: `inverse` (det, inv, solve...),
`decompositions` (cholesky, qr, eigh, svd), `triangular`, `norms`, `pinv` (pinv, matrix_rank, lstsq).
Re-exports what other modules import."""
from __future__ import annotations

from . import blas_products, products
from . import triangular, decompositions, inverse, norms, pinv, lu, matrix_functions, householder  # noqa: F401  (torch.linalg ops register here)
from . import legacy  # noqa: F401  (chain_matmul, frobenius_norm, ..., the removed solve/eig/...)
from .cdist import cdist
from .blas_products import addbmm, addmv, addr, baddbmm, kron, trace, vdot
from .products import _CPP, AddmmBackward0, addmm, bmm, dot, inner, matmul, mm, mv, outer


def _export_flat_namespace(*modules):
    """Every name of the former single-file linalg.py stays importable from the package (other modules and
    branches import its helpers)."""
    g = globals()
    for mod in modules:
        for k, v in vars(mod).items():
            if not k.startswith("__"):
                g.setdefault(k, v)


_export_flat_namespace(products)
