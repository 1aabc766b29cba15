"""LU (lu_factor, lu_factor_ex, lu, lu_solve, torch.lu/lu_unpack/lu_solve), matrix_exp, cond, vander,
tensorinv and tensorsolve: core vs torch through the harness (values, dtype, shape, grad_fn, gradients
plain and with create_graph), and their errors. LAPACK's pivots are deterministic, so P, L, U and the
packed LU are compared directly."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
from agreement import agree, tuple_out_agrees
from harness import assert_agree

warnings.filterwarnings("ignore", message=".*deprecated.*")


def _rand(torch, *shape, seed=0, grad=True):
    t = torch.from_numpy(np.random.default_rng(seed).standard_normal(shape))
    return t.requires_grad_(grad)


def _get(mod, path):
    for part in path.split("."):
        mod = getattr(mod, part)
    return mod


def _agree(torch, path, *args, grad_fn=True, **kwargs):
    assert_agree(_get(core, path), _get(torch, path), args, kwargs, torch, grad_fn=grad_fn)


SHAPES = [(3, 3), (2, 4, 4), (3, 5), (5, 3), (2, 2, 3), (0, 0), (1, 1)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("path", ["linalg.lu_factor", "linalg.lu_factor_ex", "linalg.lu", "lu"])
def test_lu_factorizations(torch, path, shape):
    _agree(torch, path, _rand(torch, *shape))


def test_lu_with_infos_and_zero_pivots(torch):
    a = np.random.default_rng(0).standard_normal((3, 3, 3))
    a[1, :, 0] = 0            # zero first column: info 1, no row swap
    a[2] = 0
    _agree(torch, "linalg.lu_factor_ex", torch.tensor(a))
    _agree(torch, "lu", torch.tensor(a), get_infos=True)


@pytest.mark.parametrize("shape", [(3, 3), (3, 5), (5, 3), (2, 4, 4)])
def test_lu_unpack(torch, shape):
    LU, piv = torch.linalg.lu_factor(_rand(torch, *shape, grad=False))
    _agree(torch, "lu_unpack", LU.requires_grad_(True), piv)


@pytest.mark.parametrize("left,adjoint", [(True, False), (True, True), (False, False), (False, True)])
@pytest.mark.parametrize("bshape", [(3, 2), (2, 3, 3), (4, 3, 3)])
def test_lu_solve(torch, left, adjoint, bshape):
    LU, piv = torch.linalg.lu_factor(_rand(torch, 4, 3, 3, seed=1, grad=False)[:bshape[0] if len(bshape) == 3
                                                                                  else 1])
    LU = LU.requires_grad_(True)
    B = _rand(torch, *bshape, seed=2)
    if not left:
        B = B.mT.detach().requires_grad_(True)
    _agree(torch, "linalg.lu_solve", LU, piv, B, left=left, adjoint=adjoint)
    if left and not adjoint:
        _agree(torch, "lu_solve", B, LU, piv)


@pytest.mark.parametrize("scale", [0.1, 1.0, 6.0])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1), (0, 0)])
def test_matrix_exp(torch, scale, shape):
    a = (_rand(torch, *shape, grad=False) * scale).requires_grad_(True)
    _agree(torch, "linalg.matrix_exp", a)
    _agree(torch, "matrix_exp", a)


@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, float("inf"), -float("inf"), "fro", "nuc"])
def test_cond(torch, p):
    _agree(torch, "linalg.cond", _rand(torch, 2, 3, 3), p, grad_fn=False)
    if p in (None, 2, -2):
        _agree(torch, "linalg.cond", _rand(torch, 3, 5), p, grad_fn=False)


def test_cond_singular(torch):
    for p in (None, 1, "fro"):
        _agree(torch, "linalg.cond", torch.zeros(3, 3, dtype=torch.float64), p, grad_fn=False)


@pytest.mark.parametrize("shape,N", [((3,), None), ((2, 3), 4), ((), 2), ((4,), 2)])
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_vander(torch, shape, N, dtype):
    x = _rand(torch, *shape, grad=False).to(getattr(torch, dtype))
    if dtype == "float64":
        x.requires_grad_(True)
    _agree(torch, "linalg.vander", x, N=N, grad_fn=False)


def test_tensorinv_tensorsolve(torch):
    _agree(torch, "linalg.tensorinv", _rand(torch, 4, 6, 8, 3), ind=2, grad_fn=False)
    _agree(torch, "linalg.tensorinv", _rand(torch, 6, 2, 3), ind=1, grad_fn=False)
    _agree(torch, "linalg.tensorsolve", _rand(torch, 2, 3, 6), _rand(torch, 2, 3, seed=1), grad_fn=False)
    _agree(torch, "linalg.tensorsolve", _rand(torch, 6, 2, 3), _rand(torch, 2, 3, seed=1), dims=(0,),
           grad_fn=False)


ERRORS = [
    ("linalg.lu_factor", lambda t: (t.zeros(3, 3),), {}),
    ("linalg.lu_factor", lambda t: (t.zeros(2, 3, 3),), {}),
    ("linalg.lu_factor", lambda t: (t.randn(3, 3),), {"pivot": False}),
    ("linalg.lu_factor", lambda t: (t.ones(3, 3, dtype=t.long),), {}),
    ("linalg.lu_factor", lambda t: (t.randn(3),), {}),
    ("linalg.lu", lambda t: (t.randn(3, 3),), {"pivot": False}),
    ("linalg.lu_solve", lambda t: (t.randn(3, 3), t.ones(3, dtype=t.int32), t.randn(4, 2)), {}),
    ("linalg.matrix_exp", lambda t: (t.randn(2, 3),), {}),
    ("linalg.matrix_exp", lambda t: (t.ones(2, 2, dtype=t.long),), {}),
    ("linalg.cond", lambda t: (t.randn(2, 3), 1), {}),
    ("linalg.vander", lambda t: (t.randn(3),), {"N": 1}),
    ("linalg.vander", lambda t: (t.tensor(3.0),), {}),
    ("linalg.tensorinv", lambda t: (t.randn(2, 3, 4),), {"ind": 1}),
    ("linalg.tensorinv", lambda t: (t.randn(2, 3),), {"ind": 0}),
    ("ormqr", lambda t: (t.randn(2, 4, 3), t.randn(3, 3), t.randn(2, 4, 2)), {}),
    ("ormqr", lambda t: (t.randn(2, 4, 3), t.randn(2, 3), t.randn(3, 4, 2)), {}),
    ("ormqr", lambda t: (t.randn(4, 3), t.randn(2, 3), t.randn(4, 2)), {}),
    ("ormqr", lambda t: (t.randn(4, 3), t.randn(4), t.randn(4, 2)), {}),
    ("ormqr", lambda t: (t.randn(2, 4, 3), t.randn(2, 3), t.randn(4, 2)), {}),
    ("linalg.householder_product", lambda t: (t.randn(2, 4, 3), t.randn(3, 3)), {}),
    ("linalg.householder_product", lambda t: (t.randn(3, 4), t.randn(3)), {}),
    ("linalg.householder_product", lambda t: (t.randn(4, 3), t.randn(2, dtype=t.float64)), {}),
    ("geqrf", lambda t: (t.randn(3),), {}),
    ("geqrf", lambda t: (t.ones(3, 3, dtype=t.long),), {}),
]


@pytest.mark.parametrize("path,make,kw", ERRORS, ids=[f"{p}-{i}" for i, (p, _, _) in enumerate(ERRORS)])
def test_errors(torch, path, make, kw):
    errs = []
    for mod in (core, torch):
        with pytest.raises(Exception) as info:
            _get(mod, path)(*make(mod), **kw)
        errs.append(info.value)
    assert type(errs[0]).__name__ == type(errs[1]).__name__, errs
    assert str(errs[0]) == str(errs[1])


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 5, 2), (3, 5)])
def test_geqrf_householder_ormqr(torch, shape):
    """geqrf is LAPACK's packed QR (no derivative in torch, nor in core); householder_product and ormqr
    rebuild / apply Q from it, differentiably (grad_fn names differ: core composes core ops)."""
    A = _rand(torch, *shape, grad=False)
    _agree(torch, "geqrf", A)
    if shape[-2] < shape[-1]:
        return
    h, tau = torch.geqrf(A)
    h, tau = h.requires_grad_(True), tau.requires_grad_(True)
    _agree(torch, "linalg.householder_product", h, tau, grad_fn=False)
    _agree(torch, "orgqr", h, tau, grad_fn=False)
    m = shape[-2]
    for left in (True, False):
        for transpose in (False, True):
            b = shape[:-2]
            other = _rand(torch, *b, m, 2, seed=3) if left else _rand(torch, *b, 2, m, seed=3)
            _agree(torch, "ormqr", h, tau, other, left, transpose, grad_fn=False)


def test_geqrf_has_no_derivative(torch):
    errs = []
    for mod in (core, torch):
        a, tau = mod.geqrf(mod.from_numpy(np.eye(3) + 1.0).requires_grad_(True))
        with pytest.raises(RuntimeError) as info:
            a.sum().backward()
        errs.append(str(info.value))
    assert errs[0] == errs[1]


_A = [[4.0, 1.0], [1.0, 3.0]]


LINALG_TUPLE_OUT = {
    "lu_factor": (lambda m, o: m.linalg.lu_factor(m.tensor(_A), out=o), [("float32", "int32"), ("float32", "int64")]),
    "lu": (lambda m, o: m.linalg.lu(m.tensor(_A), out=o), [("float32",) * 3, ("float64", "float32", "float32")]),
}


@pytest.mark.parametrize("which", [0, 1])
@pytest.mark.parametrize("name", sorted(LINALG_TUPLE_OUT))
def test_linalg_tuple_out(torch, name, which):
    fn, dts = LINALG_TUPLE_OUT[name]
    tuple_out_agrees(torch, name, fn, dts[which])
