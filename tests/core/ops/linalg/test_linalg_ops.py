"""torch.linalg and the top-level linear-algebra functions, core vs torch through the one harness
(values, dtype, shape, grad_fn name, gradients by autograd.grad with and without create_graph), and their
errors (class and message). Ops whose results are unique (det, inv, solve, cholesky, eigvalsh, svdvals,
pinv, lstsq, norms...) are compared directly; see test_gauge.py for eigenvectors/singular vectors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
from conftest import assert_same
from harness import assert_agree

warnings.filterwarnings("ignore", message=".*deprecated.*")


def _rand(torch, *shape, seed=0, dtype="float64", grad=True):
    g = np.random.default_rng(seed)
    t = torch.from_numpy(g.standard_normal(shape)).to(getattr(torch, dtype))
    return t.requires_grad_(grad)


def _spd(torch, *shape, seed=0, dtype="float64"):
    a = np.random.default_rng(seed).standard_normal(shape)
    n = shape[-1]
    s = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
    return torch.from_numpy(s).to(getattr(torch, dtype)).requires_grad_(True)


def _tri(torch, *shape, seed=0, upper=True):
    a = np.random.default_rng(seed).standard_normal(shape)
    n = shape[-1]
    a = np.triu(a) if upper else np.tril(a)
    a = a + 3 * np.eye(n) * np.sign(np.diagonal(a, 0, -2, -1))[..., None]
    return torch.from_numpy(a).requires_grad_(True)


def _agree(torch, path, *args, grad_fn=True, **kwargs):
    """Call torch.<path> and core.<path> (e.g. 'linalg.det') on the same arguments."""
    def get(mod):
        obj = mod
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj
    assert_agree(get(core), get(torch), args, kwargs, torch, grad_fn=grad_fn)


SQUARE = [(3, 3), (2, 4, 4), (1, 1), (0, 0), (2, 0, 0)]


@pytest.mark.parametrize("shape", SQUARE)
@pytest.mark.parametrize("path", ["linalg.det", "det", "linalg.slogdet", "slogdet", "linalg.inv", "inverse",
                                  "linalg.inv_ex", "linalg.matrix_rank", "linalg.pinv", "pinverse"])
def test_square_functions(torch, path, shape):
    _agree(torch, path, _rand(torch, *shape))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float32_and_logdet(torch, dtype):
    a = _rand(torch, 3, 3, seed=1, dtype=dtype)
    for path in ("linalg.det", "linalg.inv", "linalg.slogdet", "linalg.svdvals", "linalg.pinv"):
        _agree(torch, path, a)
    _agree(torch, "logdet", _spd(torch, 3, 3, dtype=dtype))
    _agree(torch, "logdet", _rand(torch, 2, 3, 3, seed=3, dtype=dtype))    # negative determinants give NaN


def test_det_of_singular_matrices(torch):
    """det's gradient where det == 0: torch 2.13 gives zeros in a plain backward but the SVD formula (the
    cofactor matrix) when create_graph=True; core does the same (so the harness, which compares both modes
    with torch's plain gradient, is not used for exactly singular input)."""
    a = np.random.default_rng(0).standard_normal((3, 3))
    a[2] = a[0] + a[1]          # singular in exact arithmetic, not in floating point
    _agree(torch, "linalg.det", torch.tensor(a, requires_grad=True))
    for m in ([[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 0.0]], [[[1.0, 0, 0], [0, 0, 0], [0, 0, 0]]],
              np.concatenate([np.zeros((1, 3, 3)), a[None]]).tolist()):
        for create_graph in (False, True):
            grads = []
            for mod in (core, torch):
                x = mod.tensor(m, dtype=mod.float64, requires_grad=True)
                (g,) = mod.autograd.grad(mod.linalg.det(x).sum(), x, create_graph=create_graph)
                grads.append(g)
            assert_same(grads[0], grads[1], atol=1e-10)


def test_inv_ex_info(torch):
    """info is LAPACK's getrf info (the first zero pivot), per batch element; the inverse of a singular matrix
    is LAPACK's partial result, not compared."""
    a = np.random.default_rng(0).standard_normal((3, 3, 3))
    a[0] = 0
    a[2, :, 1] = 0
    for mod in (core, torch):
        r = mod.linalg.inv_ex(mod.tensor(a))
        assert r.info.tolist() == [1, 0, 2] and r.info.dtype == mod.int32 and r.inverse.shape == (3, 3, 3)


@pytest.mark.parametrize("ashape,bshape,left", [((3, 3), (3, 2), True), ((3, 3), (3,), True),
                                                ((2, 3, 3), (3, 4), True), ((3, 3), (2, 3, 1), True),
                                                ((2, 3, 3), (2, 3), True), ((3, 3), (2, 3), False),
                                                ((2, 3, 3), (1, 4, 3), False), ((0, 0), (0, 2), True)])
@pytest.mark.parametrize("path", ["linalg.solve", "linalg.solve_ex"])
def test_solve(torch, path, ashape, bshape, left):
    _agree(torch, path, _rand(torch, *ashape), _rand(torch, *bshape, seed=1), left=left)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 0)])
def test_cholesky(torch, shape, upper):
    a = _spd(torch, *shape)
    _agree(torch, "linalg.cholesky", a, upper=upper)
    _agree(torch, "linalg.cholesky_ex", a, upper=upper)
    _agree(torch, "cholesky", a, upper)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve_inverse(torch, upper):
    L = torch.linalg.cholesky(_spd(torch, 2, 3, 3), upper=upper).detach().requires_grad_(True)
    _agree(torch, "cholesky_solve", _rand(torch, 2, 3, 2, seed=4), L, upper)
    _agree(torch, "cholesky_inverse", L, upper)


@pytest.mark.parametrize("upper,left,unit", [(True, True, False), (False, True, False), (True, False, False),
                                             (False, False, True), (True, True, True)])
def test_solve_triangular(torch, upper, left, unit):
    A = _tri(torch, 2, 3, 3, upper=upper)
    B = _rand(torch, 3, 2, seed=2) if left else _rand(torch, 2, 3, seed=2)
    _agree(torch, "linalg.solve_triangular", A, B, upper=upper, left=left, unitriangular=unit)
    if left:
        _agree(torch, "triangular_solve", B, A, upper, False, unit)
        _agree(torch, "triangular_solve", B, A, upper, True, unit)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 3)])
@pytest.mark.parametrize("path,kw", [("linalg.svdvals", {}), ("linalg.pinv", {}), ("linalg.pinv", {"rtol": 0.3}),
                                     ("linalg.pinv", {"atol": 0.5}), ("linalg.matrix_rank", {"atol": 0.9}),
                                     ("linalg.matrix_rank", {"rtol": 0.5, "atol": 0.1}),
                                     ("linalg.qr", {}), ("linalg.qr", {"mode": "r"})])
def test_rectangular(torch, path, kw, shape):
    _agree(torch, path, _rand(torch, *shape, seed=5), **kw)


def test_qr_complete_and_legacy(torch):
    _agree(torch, "linalg.qr", _rand(torch, 3, 3), mode="complete")
    _agree(torch, "linalg.qr", _rand(torch, 4, 2), mode="complete")   # forward; backward raises in both
    _agree(torch, "qr", _rand(torch, 4, 3), False)
    _agree(torch, "qr", _rand(torch, 4, 3))


def test_hermitian_variants(torch):
    s = _spd(torch, 2, 3, 3)
    _agree(torch, "linalg.eigvalsh", s)
    _agree(torch, "linalg.eigvalsh", s, UPLO="U")
    _agree(torch, "linalg.pinv", s, hermitian=True)
    _agree(torch, "linalg.matrix_rank", s, hermitian=True)


@pytest.mark.parametrize("n", [-3, -2, -1, 0, 1, 2, 3, 5])
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
def test_matrix_power(torch, n, shape):
    _agree(torch, "linalg.matrix_power", _rand(torch, *shape), n)
    _agree(torch, "matrix_power", _rand(torch, *shape), n)


@pytest.mark.parametrize("shapes", [[(2, 3), (3, 4)], [(3,), (3, 4), (4, 5)], [(2, 3), (3, 4), (4,)],
                                    [(3,), (3,)], [(5, 2), (2, 6), (6, 3), (3, 4)], [(4,), (4, 1), (1, 2), (2,)]])
def test_multi_dot(torch, shapes):
    _agree(torch, "linalg.multi_dot", [_rand(torch, *s, seed=i) for i, s in enumerate(shapes)])


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("ashape,bshape", [((5, 3), (5, 2)), ((3, 3), (3, 1)), ((2, 5, 3), (2, 5, 2)),
                                           ((5, 3), (5,))])
def test_lstsq(torch, driver, ashape, bshape):
    _agree(torch, "linalg.lstsq", _rand(torch, *ashape), _rand(torch, *bshape, seed=1), driver=driver)


def test_lstsq_underdetermined_and_rank_deficient(torch):
    _agree(torch, "linalg.lstsq", _rand(torch, 2, 4), _rand(torch, 2, 3, seed=1), driver="gelsd")
    a = np.random.default_rng(0).standard_normal((5, 3))
    a[:, 2] = a[:, 0]
    _agree(torch, "linalg.lstsq", torch.tensor(a), torch.ones(5, 2, dtype=torch.float64), driver="gelsd")


@pytest.mark.parametrize("kw", [{}, {"ord": 1}, {"ord": float("inf")}, {"ord": 0}, {"ord": -1.5}, {"dim": 1},
                                {"dim": (0, 2), "keepdim": True}, {"ord": 3, "dim": -1}])
def test_vector_norm(torch, kw):
    _agree(torch, "linalg.vector_norm", _rand(torch, 2, 3, 4), **kw)


@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, float("inf"), -float("inf")])
@pytest.mark.parametrize("dim,keepdim", [((-2, -1), False), ((0, 2), True), ((2, 0), False)])
def test_matrix_norm(torch, ord, dim, keepdim):
    _agree(torch, "linalg.matrix_norm", _rand(torch, 3, 2, 4), ord, dim, keepdim, grad_fn=False)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (2, 0, 0)])
@pytest.mark.parametrize("ord", ["fro", "nuc", 1, 2, float("inf")])
def test_matrix_norm_empty(torch, shape, ord):
    _agree(torch, "linalg.matrix_norm", _rand(torch, *shape), ord, grad_fn=False)


@pytest.mark.parametrize("args,kw", [((), {}), ((2,), {}), (("fro",), {}), (("nuc",), {}), ((None, 1), {}),
                                     ((3, (0,)), {}), ((1, (0, 1)), {"keepdim": True})])
def test_norm(torch, args, kw):
    _agree(torch, "linalg.norm", _rand(torch, 3, 4), *args, grad_fn=False, **kw)


def test_vecdot_diagonal(torch):
    _agree(torch, "linalg.vecdot", _rand(torch, 2, 3), _rand(torch, 3, seed=1))
    _agree(torch, "linalg.vecdot", _rand(torch, 2, 3), _rand(torch, 2, 3, seed=1), dim=0)
    _agree(torch, "linalg.diagonal", _rand(torch, 2, 3, 4))
    _agree(torch, "linalg.diagonal", _rand(torch, 2, 3, 4), offset=1, dim1=0, dim2=2)


def test_namespace(torch):
    """core.linalg mirrors torch.linalg: LinAlgError is a RuntimeError; cross comes from the shape family."""
    assert issubclass(core.linalg.LinAlgError, RuntimeError)
    assert type(core.linalg.LinAlgError("x")).__name__ == type(torch.linalg.LinAlgError("x")).__name__
    for name in ("cross", "det", "inv", "solve", "svd", "eigh", "lstsq", "norm", "multi_dot", "vecdot"):
        assert callable(getattr(core.linalg, name)) and callable(getattr(torch.linalg, name))
    r = core.linalg.slogdet(core.eye(2))
    assert type(r).__name__ == "linalg_slogdet" and r._fields == ("sign", "logabsdet")


I3 = [[1, 2, 3], [4, 5, 6], [7, 8, 10]]
ERRORS = [
    ("linalg.det", lambda t: (t.randn(2, 3),)),
    ("linalg.det", lambda t: (t.ones(3, 3, dtype=t.long),)),
    ("linalg.det", lambda t: (t.randn(3),)),
    ("linalg.inv", lambda t: (t.zeros(3, 3),)),
    ("linalg.inv", lambda t: (t.zeros(2, 3, 3),)),
    ("linalg.inv", lambda t: (t.zeros(3, 3, dtype=t.float16),)),
    ("linalg.inv", lambda t: (t.tensor(I3),)),
    ("inverse", lambda t: (t.randn(2, 3),)),
    ("linalg.slogdet", lambda t: (t.ones(3, 3, dtype=t.long),)),
    ("logdet", lambda t: (t.ones(3, 3, dtype=t.long),)),
    ("linalg.solve", lambda t: (t.zeros(3, 3), t.ones(3))),
    ("linalg.solve", lambda t: (t.zeros(2, 3, 3), t.ones(3))),
    ("linalg.solve", lambda t: (t.eye(3), t.ones(4))),
    ("linalg.solve", lambda t: (t.eye(3), t.ones(3, dtype=t.float64))),
    ("linalg.solve", lambda t: (t.randn(2, 3, 3), t.randn(4, 3, 1))),
    ("linalg.cholesky", lambda t: (-t.eye(3),)),
    ("linalg.cholesky", lambda t: (t.diag(t.tensor([1.0, -1.0])).expand(2, 2, 2),)),
    ("linalg.cholesky", lambda t: (t.randn(2, 3),)),
    ("linalg.cholesky", lambda t: (t.eye(3, dtype=t.long),)),
    ("linalg.qr", lambda t: (t.eye(3, dtype=t.long),)),
    ("linalg.eigh", lambda t: (t.randn(2, 3),)),
    ("linalg.eigh", lambda t: (t.eye(3, dtype=t.long),)),
    ("linalg.svd", lambda t: (t.eye(3, dtype=t.long),)),
    ("linalg.svd", lambda t: (t.randn(3),)),
    ("linalg.pinv", lambda t: (t.eye(3, dtype=t.long),)),
    ("linalg.pinv", lambda t: (t.randn(3),)),
    ("linalg.matrix_rank", lambda t: (t.eye(3, dtype=t.long),)),
    ("linalg.matrix_power", lambda t: (t.randn(2, 3), 2)),
    ("linalg.matrix_power", lambda t: (t.eye(3, dtype=t.long), -1)),
    ("linalg.multi_dot", lambda t: ([t.randn(2, 3)],)),
    ("linalg.multi_dot", lambda t: ([t.randn(2, 3), t.randn(2, 3)],)),
    ("linalg.multi_dot", lambda t: ([t.randn(2, 2, 2), t.randn(2, 2)],)),
    ("linalg.multi_dot", lambda t: ([t.randn(2, 2), t.randn(2, 2, dtype=t.float64)],)),
    ("linalg.lstsq", lambda t: (t.randn(4, 3), t.randn(3))),
    ("linalg.lstsq", lambda t: (t.randn(4, 3), t.randn(4, 3, dtype=t.float64))),
    ("linalg.vector_norm", lambda t: (t.ones(3, dtype=t.long),)),
    ("linalg.matrix_norm", lambda t: (t.randn(3),)),
    ("linalg.matrix_norm", lambda t: (t.randn(3, 3), 3)),
    ("linalg.matrix_norm", lambda t: (t.randn(3, 3), "fro", (0,))),
    ("linalg.norm", lambda t: (t.randn(2, 2, 2), 2)),
    ("linalg.vecdot", lambda t: (t.randn(3), t.randn(3, dtype=t.float64))),
    ("linalg.solve_triangular", lambda t: (t.randn(2, 3), t.randn(2, 3))),
    ("cholesky_inverse", lambda t: (t.randn(3),)),
]


@pytest.mark.parametrize("path,make", ERRORS, ids=[f"{p}-{i}" for i, (p, _) in enumerate(ERRORS)])
def test_errors(torch, path, make):
    """Same exception class (LinAlgError for numerical failures) and the same message as torch."""
    errs = []
    for mod in (core, torch):
        fn = mod
        for part in path.split("."):
            fn = getattr(fn, part)
        kw = {"upper": True} if path == "linalg.solve_triangular" else {}
        with pytest.raises(Exception) as info:
            fn(*make(mod), **kw)
        errs.append(info.value)
    ec, et = errs
    assert type(ec).__name__ == type(et).__name__, (ec, et)
    assert str(ec) == str(et)


_A = np.random.default_rng(0).standard_normal((3, 3))
_S = _A @ _A.T + 3 * np.eye(3)
_R = np.random.default_rng(1).standard_normal((4, 3))
_B = np.random.default_rng(2).standard_normal((3, 2))
SECOND_ORDER = {
    "det": (lambda m, x: m.linalg.det(x), _A), "inv": (lambda m, x: m.linalg.inv(x), _A),
    "slogdet": (lambda m, x: m.linalg.slogdet(x)[1], _A),
    "solve": (lambda m, x: m.linalg.solve(x, m.from_numpy(_B)), _A),
    "cholesky": (lambda m, x: m.linalg.cholesky(x), _S), "qr": (lambda m, x: m.linalg.qr(x)[1], _R),
    "eigvalsh": (lambda m, x: m.linalg.eigvalsh(x), _S), "svdvals": (lambda m, x: m.linalg.svdvals(x), _R),
    "pinv": (lambda m, x: m.linalg.pinv(x), _R),
    "lstsq": (lambda m, x: m.linalg.lstsq(x, m.from_numpy(_R[:, :2].copy()))[0], _R),
    "solve_triangular": (lambda m, x: m.linalg.solve_triangular(x.triu(), m.from_numpy(_B), upper=True), _S),
    "matrix_exp": (lambda m, x: m.linalg.matrix_exp(x), _A), "lu": (lambda m, x: m.linalg.lu(x)[2], _A),
    "lu_factor": (lambda m, x: m.linalg.lu_factor(x)[0], _A),
    "cholesky_inverse": (lambda m, x: m.cholesky_inverse(x.tril()), _S),
    "eigh": (lambda m, x: (lambda L, V: (V * V).sum(-1) * L)(*m.linalg.eigh(x)), _S),
    "svd": (lambda m, x: (lambda U, s, Vh: (U * U).sum(0) * s)(*m.linalg.svd(x, full_matrices=False)), _R),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_order_gradients(torch, name):
    """Backward formulas are written in core ops and saved results stay attached to the graph, so the
    gradient of a create_graph gradient agrees with torch's (eigh/svd through gauge-invariant functions)."""
    f, a = SECOND_ORDER[name]
    res = []
    for mod in (core, torch):
        x = mod.from_numpy(a.copy()).requires_grad_(True)
        y = f(mod, x)
        w = mod.from_numpy(np.random.default_rng(5).standard_normal(tuple(y.shape)))
        (g,) = mod.autograd.grad((y * w).sum(), x, create_graph=True)
        (gg,) = mod.autograd.grad((g * g).sum(), x)
        res.append(gg)
    assert_same(res[0], res[1], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("mkn", [(1, 1, 1), (12, 3, 2), (5, 7, 4), (1, 399, 1), (7, 7, 8), (3, 0, 2), (2, 3, 0)])
def test_small_bmm_sums_in_atens_order_bit_for_bit(torch, dtype, mkn):
    """Below 400 multiply-adds per matrix, ATen's baddbmm_cpu_kernel adds the products over k in order from
    0 (float32 for half types): the same bits as torch, which BLAS's blocked sums do not give."""
    m, k, n = mkn
    rng = np.random.default_rng(sum(mkn))
    a, b = rng.standard_normal((3, m, k)).astype(dtype), rng.standard_normal((3, k, n)).astype(dtype)
    a[0] = -0.0   # products that are all -0.0 sum to torch's +0.0
    got, want = core.bmm(core.tensor(a), core.tensor(b)), torch.bmm(torch.tensor(a), torch.tensor(b))
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert np.array_equal(np.signbit(got.numpy()), np.signbit(want.numpy()))
