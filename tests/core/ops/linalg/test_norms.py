"""core/ops/linalg/norms.py side by side with torch: norm, vector_norm, matrix_norm, multi_dot and vecdot
write into out= with each op's dtype rule."""
from __future__ import annotations


import pytest

from agreement import out_agrees


_A = [[4.0, 1.0], [1.0, 3.0]]


LINALG_OUT = {
    "norm": lambda m, o: m.linalg.norm(m.tensor(_A), out=o),
    "vector_norm": lambda m, o: m.linalg.vector_norm(m.tensor(_A), out=o),
    "matrix_norm": lambda m, o: m.linalg.matrix_norm(m.tensor(_A), out=o),
    "multi_dot": lambda m, o: m.linalg.multi_dot([m.tensor(_A), m.tensor(_A)], out=o),
    "vecdot": lambda m, o: m.linalg.vecdot(m.tensor(_A), m.tensor(_A), out=o),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("name", sorted(LINALG_OUT))
def test_linalg_out(torch, name, dtype):
    """linalg ops write into out= (core ignored it) with each op's dtype rule: exact or castable."""
    out_agrees(torch, LINALG_OUT[name], dtype)
