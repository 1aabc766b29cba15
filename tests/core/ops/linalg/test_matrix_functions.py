"""torch.vander: Vandermonde matrices, decreasing powers unless `increasing`, compared with torch."""
from __future__ import annotations


import numpy as np
import pytest

import core
from agreement import out_agrees


def _pair(torch, values, dtype):
    return core.tensor(values, dtype=getattr(core, dtype)), torch.tensor(values, dtype=getattr(torch, dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int32", "int64", "bool"])
@pytest.mark.parametrize("kwargs", [{}, {"N": 0}, {"N": 1}, {"N": 2}, {"N": 5}, {"increasing": True},
                                    {"N": 4, "increasing": True}])
def test_values_and_dtype_equal_torch(torch, dtype, kwargs):
    values = [1, 0, 1] if dtype == "bool" else [1, -2, 3, 0]
    x, tx = _pair(torch, values, dtype)
    got, want = core.vander(x, **kwargs), torch.vander(tx, **kwargs)
    assert str(got.dtype) == str(want.dtype) and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_empty_input_equals_torch(torch):
    got, want = core.vander(core.tensor([])), torch.vander(torch.tensor([]))
    assert tuple(got.shape) == tuple(want.shape) == (0, 0)


@pytest.mark.parametrize("case", ["2-d", "0-d", "negative N"])
def test_errors_equal_torch(torch, case):
    def call(lib):
        if case == "2-d":
            return lib.vander(lib.ones(2, 2))
        if case == "0-d":
            return lib.vander(lib.tensor(1.0))
        return lib.vander(lib.ones(2), N=-1)
    with pytest.raises(RuntimeError) as want:
        call(torch)
    with pytest.raises(RuntimeError) as got:
        call(core)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("kwargs", [{}, {"increasing": True}, {"N": 2}])
def test_grad_fn_is_torchs(torch, kwargs):
    x, tx = core.tensor([1.0, 2.0, 3.0], requires_grad=True), torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    assert core.vander(x, **kwargs).grad_fn.name() == torch.vander(tx, **kwargs).grad_fn.name()


def test_backward_raises_torchs_in_place_error(torch):
    """ATen writes the powers into the result in place after cumprod saved them: torch's own backward fails."""
    x, tx = core.tensor([1.0, 2.0, 3.0], requires_grad=True), torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError) as want:
        torch.vander(tx).sum().backward()
    with pytest.raises(RuntimeError) as got:
        core.vander(x).sum().backward()
    assert "modified by an inplace operation" in str(want.value)
    assert "modified by an inplace operation" in str(got.value)


_A = [[4.0, 1.0], [1.0, 3.0]]


LINALG_OUT = {
    "cond": lambda m, o: m.linalg.cond(m.tensor(_A), out=o),
    "tensorinv": lambda m, o: m.linalg.tensorinv(m.tensor(_A), ind=1, out=o),
    "tensorsolve": lambda m, o: m.linalg.tensorsolve(m.tensor(_A), m.ones(2), out=o),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("name", sorted(LINALG_OUT))
def test_linalg_out(torch, name, dtype):
    """linalg ops write into out= (core ignored it) with each op's dtype rule: exact or castable."""
    out_agrees(torch, LINALG_OUT[name], dtype)
