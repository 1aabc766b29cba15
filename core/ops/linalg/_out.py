"""`out=` of the linalg ops, as ATen checks it: most demand out's dtype be exactly the result's (each op
with its own message), some only that the result can be cast into it; named-tuple results write each
field into its tensor and return torch.return_types.<name>_out."""
from __future__ import annotations

from ... import dtypes as _dt
from ...tensor import Tensor
from ..pointwise import _out
from ..pointwise._out_checks import EXPECTED_DTYPE, check_out_dtype, out_tuple

# ops whose out must have exactly the result's dtype, with ATen's message
_EXACT = {
    "linalg.det": EXPECTED_DTYPE, "linalg.inv": EXPECTED_DTYPE, "inverse": EXPECTED_DTYPE,
    "linalg.solve": EXPECTED_DTYPE, "linalg.cholesky": EXPECTED_DTYPE, "linalg.svdvals": EXPECTED_DTYPE,
    "linalg.eigvalsh": EXPECTED_DTYPE, "linalg.vector_norm": EXPECTED_DTYPE, "linalg.lu_solve": EXPECTED_DTYPE,
    "linalg.matrix_power": EXPECTED_DTYPE,
    "linalg.norm": "linalg.norm expected out tensor dtype {W} but got: {G}",
    "linalg.matrix_norm": "linalg.matrix_norm expected out tensor dtype {W} but got: {G}",
    "linalg.multi_dot": "multi_dot(): expected out tensor to have dtype {want} but got {got}",
    "linalg.vecdot": "linalg.vecdot: Expected out of dtype{W} but found {G}",
    "linalg.solve_triangular": "expected scalar type {W} but found {G}",
}
# ops whose result need only be castable into out (the name their message starts with)
_CASTABLE = {
    "linalg.matrix_power": "matrix_power", "linalg.pinv": "linalg.pinv", "linalg.cond": "linalg.cond",
    "linalg.householder_product": "torch.linalg.householder_product", "linalg.tensorinv": "tensorinv",
    "linalg.tensorsolve": "tensorsolve", "cholesky_solve": "cholesky_solve", "cholesky_inverse": "cholesky_inverse",
    "cholesky": "cholesky",
}
# named-tuple results that accept other dtypes
_TUPLE_ANY_DTYPE = ("linalg_lstsq", "geqrf")


def linalg_out(res, out, name):
    """Write `res` (a Tensor or a torch.return_types tuple) into `out` with the op's checks; `res` itself
    when out is None."""
    if out is None:
        return res
    if isinstance(res, tuple):
        tname = type(res).__name__
        msgs = () if tname in _TUPLE_ANY_DTYPE else (EXPECTED_DTYPE,) * len(res)
        return out_tuple(res, out, tname, _out, msgs)
    if isinstance(out, Tensor):
        cast = _CASTABLE.get(name)
        if cast and not _dt.can_cast(res.dtype, out.dtype):
            raise RuntimeError(f"{cast}: Expected result to be safely castable from {_dt.scalar_name(res.dtype)} "
                               f"dtype, but got result with dtype {_dt.scalar_name(out.dtype)}")
        if name in _EXACT:
            check_out_dtype(out, res._data.dtype, _EXACT[name])
    return _out(res, out)
