"""The deprecated entry points of core/ops/linalg/legacy.py (chain_matmul, frobenius_norm, nuclear_norm,
norm_except_dim) against torch: values, grad_fn names, errors, gradients, warnings once per process."""
from __future__ import annotations

import warnings

import pytest

import core
from conftest import assert_same, same_error


def _run(lib, expr, **names):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = eval(expr, {"lib": lib, **names})
    return r, [str(x.message) for x in w]


def _compare(torch, expr, make=lambda lib: {}):
    ec, et = same_error(lambda: _run(core, expr, **make(core)), lambda: _run(torch, expr, **make(torch)))
    if ec is not None:
        assert str(ec) == str(et)
        return None
    (c, wc), (t, wt) = _run(core, expr, **make(core)), _run(torch, expr, **make(torch))
    if hasattr(t, "shape"):
        assert_same(c, t)
        assert (c.grad_fn.name() if c.grad_fn else None) == (t.grad_fn.name() if t.grad_fn else None)
    else:
        assert c == t
    return wc, wt


def test_deprecation_warnings_are_once_per_process(torch):
    """TORCH_WARN_ONCE: the deprecated norms and chain_matmul warn on their first call only (in torch this
    process may have warned already, so only core's second call is checked)."""
    a = core.ones(2, 2)
    for call in (lambda: core.chain_matmul(a, a), lambda: core.frobenius_norm(a, (0, 1)),
                 lambda: core.nuclear_norm(a)):
        call()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            call()
        assert not w


@pytest.mark.parametrize("expr", [
    "lib.chain_matmul(A, A, B.t().expand(2, 2))", "lib.chain_matmul(A)", "lib.chain_matmul()",
    "lib.chain_matmul(lib.ones(3))", "lib.frobenius_norm(a)", "lib.frobenius_norm(a, (0, 1))",
    "lib.frobenius_norm(a, (1,), True)", "lib.frobenius_norm(a, dim=1)", "lib.frobenius_norm(a, (0, 1, 1))",
    "lib.nuclear_norm(A)", "lib.nuclear_norm(A, keepdim=True)", "lib.nuclear_norm(lib.ones(2, 3, 3), (1, 2))",
    "lib.nuclear_norm(lib.ones(3))", "lib.nuclear_norm(A, True)", "lib.norm_except_dim(a)",
    "lib.norm_except_dim(a, 2, 1)", "lib.norm_except_dim(a, 3, -1)", "lib.norm_except_dim(a, 1, 0)",
    "lib.norm_except_dim(a, 2, 5)", "lib.norm_except_dim(c, 2, 1)", "lib.norm_except_dim(c, 2, 2)"])
def test_legacy_norms_and_chain_matmul(torch, expr):
    def make(lib):
        return {"a": lib.arange(6.0).reshape(2, 3).requires_grad_(), "A": lib.tensor([[2.0, 1], [1, 3]]),
                "B": lib.tensor([[1.0], [2]]), "c": lib.arange(24.0).reshape(2, 3, 4).requires_grad_()}
    _compare(torch, expr, make)


@pytest.mark.parametrize("expr", ["lib.frobenius_norm(a, (0, 1))", "lib.norm_except_dim(a, 2, 1)",
                                  "lib.norm_except_dim(a, 3, -1)", "lib.nuclear_norm(a[:, :2])",
                                  "lib.chain_matmul(a, a.t(), a)", "lib.norm_except_dim(a, 2, 0)"])
def test_legacy_gradients(torch, expr):
    def grad(lib):
        a = lib.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], dtype=lib.float64, requires_grad=True)
        eval(expr, {"lib": lib, "a": a}).sum().backward()
        return a.grad
    assert_same(grad(core), grad(torch))



@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_norm_except_dim_bits(torch, dtype):
    """norm_except_dim bit for bit (values and gradients): its norms run torch's vector-norm kernel."""
    import numpy as np
    torch.set_num_threads(1)
    a = np.random.default_rng(17).standard_normal((6, 13, 9)).astype(dtype)
    for args in ((), (2, 1), (2, -1), (1, 0), (3, 2)):
        res = []
        for lib in (core, torch):
            x = lib.from_numpy(a.copy()).requires_grad_(True)
            out = lib.norm_except_dim(x, *args)
            g = lib.from_numpy(np.linspace(-1, 1, out.numel()).astype(dtype).reshape(tuple(out.shape)))
            res.append((out.detach().numpy(), lib.autograd.grad(out, x, g)[0].numpy()))
        for o, r in zip(*res):
            assert np.array_equal(np.atleast_1d(o).view(np.uint8), np.atleast_1d(r).view(np.uint8))
