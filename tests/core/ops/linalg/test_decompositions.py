"""core/ops/linalg/decompositions.py side by side with torch: cholesky, svdvals, eigvalsh, eigh, qr,
cholesky_ex and svd write into out= with each op's dtype rule."""
from __future__ import annotations


import pytest

from agreement import out_agrees, tuple_out_agrees


_A = [[4.0, 1.0], [1.0, 3.0]]


LINALG_OUT = {
    "cholesky": lambda m, o: m.linalg.cholesky(m.tensor(_A), out=o),
    "svdvals": lambda m, o: m.linalg.svdvals(m.tensor(_A), out=o),
    "eigvalsh": lambda m, o: m.linalg.eigvalsh(m.tensor(_A), out=o),
    "torch.cholesky": lambda m, o: m.cholesky(m.tensor(_A), out=o),
}


LINALG_TUPLE_OUT = {
    "eigh": (lambda m, o: m.linalg.eigh(m.tensor(_A), out=o), [("float32",) * 2, ("float32", "float64")]),
    "qr": (lambda m, o: m.linalg.qr(m.tensor(_A), out=o), [("float32",) * 2, ("float64", "float32")]),
    "cholesky_ex": (lambda m, o: m.linalg.cholesky_ex(m.tensor(_A), out=o), [("float32", "int32"), ("float32", "int64")]),
    "svd": (lambda m, o: m.linalg.svd(m.tensor(_A), out=o), [("float32",) * 3, ("float32", "float64", "float32")]),
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
