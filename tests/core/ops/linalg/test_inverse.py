"""core/ops/linalg/inverse.py side by side with torch: det, inv, inverse, matrix_power, solve, slogdet,
inv_ex, solve_ex write into out= with each op's dtype rule."""
from __future__ import annotations


import pytest

from agreement import out_agrees, tuple_out_agrees


_A = [[4.0, 1.0], [1.0, 3.0]]


LINALG_OUT = {
    "det": lambda m, o: m.linalg.det(m.tensor(_A), out=o),
    "inv": lambda m, o: m.linalg.inv(m.tensor(_A), out=o),
    "inverse": lambda m, o: m.inverse(m.tensor(_A), out=o),
    "matrix_power": lambda m, o: m.linalg.matrix_power(m.tensor(_A), 2, out=o),
    "solve": lambda m, o: m.linalg.solve(m.tensor(_A), m.tensor(_A), out=o),
}


LINALG_TUPLE_OUT = {
    "slogdet": (lambda m, o: m.linalg.slogdet(m.tensor(_A), out=o), [("float32",) * 2, ("float64", "float32")]),
    "inv_ex": (lambda m, o: m.linalg.inv_ex(m.tensor(_A), out=o), [("float32", "int32"), ("float32", "int64")]),
    "solve_ex": (lambda m, o: m.linalg.solve_ex(m.tensor(_A), m.tensor(_A), out=o),
                 [("float32", "int32"), ("float64", "int32")]),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("name", sorted(LINALG_OUT))
def test_linalg_out(torch, name, dtype):
    """linalg ops write into out= (core ignored it) with each op's dtype rule: exact or castable."""
    out_agrees(torch, LINALG_OUT[name], dtype)


@pytest.mark.parametrize("which", [0, 1])
@pytest.mark.parametrize("name", sorted(LINALG_TUPLE_OUT))
def test_linalg_tuple_out(torch, name, which):
    fn, dts = LINALG_TUPLE_OUT[name]
    tuple_out_agrees(torch, name, fn, dts[which])
