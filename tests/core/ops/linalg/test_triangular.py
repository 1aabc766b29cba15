"""solve_triangular, cholesky_solve and cholesky_inverse (core/ops/linalg/triangular.py) side by side with
torch: out= with each op's dtype rule."""
from __future__ import annotations


import pytest

from agreement import out_agrees


_A = [[4.0, 1.0], [1.0, 3.0]]


LINALG_OUT = {
    "solve_triangular": lambda m, o: m.linalg.solve_triangular(m.tensor(_A), m.tensor(_A), upper=True, out=o),
    "cholesky_solve": lambda m, o: m.cholesky_solve(m.tensor(_A), m.tensor(_A), out=o),
    "cholesky_inverse": lambda m, o: m.cholesky_inverse(m.tensor(_A), out=o),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("name", sorted(LINALG_OUT))
def test_linalg_out(torch, name, dtype):
    """linalg ops write into out= (core ignored it) with each op's dtype rule: exact or castable."""
    out_agrees(torch, LINALG_OUT[name], dtype)
