"""pinv and matrix_rank (core/ops/linalg/pinv.py) side by side with torch: out= with each op's dtype rule."""
from __future__ import annotations


import pytest

from agreement import out_agrees


_A = [[4.0, 1.0], [1.0, 3.0]]


LINALG_OUT = {
    "pinv": lambda m, o: m.linalg.pinv(m.tensor(_A), out=o),
    "matrix_rank": lambda m, o: m.linalg.matrix_rank(m.tensor(_A), out=o),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("name", sorted(LINALG_OUT))
def test_linalg_out(torch, name, dtype):
    """linalg ops write into out= (core ignored it) with each op's dtype rule: exact or castable."""
    out_agrees(torch, LINALG_OUT[name], dtype)
