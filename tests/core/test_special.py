"""torch.special and the top-level polygamma / mvlgamma / nextafter / frexp against torch: values over
each function's interesting ranges (tails, poles, +-inf, NaN), dtypes, grad_fn names, gradients (plain and
create_graph) and error classes, through tests/harness.compare_call."""
from __future__ import annotations

import numpy as np
import pytest

import core
from harness import compare_call

EDGES = [0.0, -0.0, 1e-30, -1e-30, 14.99, 15.01, 16.5, -16.5, 25.0, 26.5, 40.0, -40.0, 700.0, -800.0,
         float("inf"), float("-inf"), float("nan")]


def _grid(torch, dtype, low, high, extra=(), requires_grad=False):
    vals = np.concatenate([np.linspace(low, high, 97), np.asarray(extra, dtype=np.float64)])
    t = torch.tensor(vals, dtype=dtype)
    return t.requires_grad_(True) if requires_grad else t


def _agree(torch, core_fn, torch_fn, *args, **kw):
    d = compare_call(core_fn, torch_fn, args, {}, torch, **kw)
    assert not d, "; ".join(map(str, d))


UNARY = {   # name: (low, high, differentiable)
    "erfcx": (-8, 30, True), "i0e": (-40, 40, True), "i1": (-40, 40, True), "i1e": (-40, 40, True),
    "ndtr": (-10, 10, True), "log_ndtr": (-40, 10, True), "entr": (-1, 5, True),
    "bessel_j0": (-60, 60, False), "bessel_j1": (-60, 60, False),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_values_and_grads(torch, name, dtype):
    low, high, diff = UNARY[name]
    x = _grid(torch, getattr(torch, dtype), low, high, EDGES)
    _agree(torch, getattr(core.special, name), getattr(torch.special, name), x, grads=False)
    if diff:   # gradients away from the non-finite edges (and, in float32, from log_ndtr's cancelling tail)
        low = max(low, -10) if dtype == "float32" else low
        g = _grid(torch, getattr(torch, dtype), low, high, [0.0, 0.5, -0.5], requires_grad=True)
        _agree(torch, getattr(core.special, name), getattr(torch.special, name), g)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_ndtri(torch, dtype):
    p = torch.tensor([0.0, 1e-300, 1e-30, 1e-10, 1e-3, 0.01, 0.2, 0.5, 0.7, 0.999, 1 - 1e-12, 1.0, -0.1, 1.1,
                      float("nan")], dtype=getattr(torch, dtype))
    _agree(torch, core.special.ndtri, torch.special.ndtri, p)
    g = torch.linspace(0.01, 0.99, 41, dtype=getattr(torch, dtype)).requires_grad_(True)
    _agree(torch, core.special.ndtri, torch.special.ndtri, g)


@pytest.mark.parametrize("name", sorted(UNARY) + ["ndtri"])
def test_integer_and_bool_inputs_compute_in_default_dtype(torch, name):
    _agree(torch, getattr(core.special, name), getattr(torch.special, name), torch.tensor([-2, 0, 1, 3]))
    _agree(torch, getattr(core.special, name), getattr(torch.special, name), torch.tensor([True, False]))


ALIASES = ["erf", "erfc", "erfinv", "expit", "logit", "exp2", "expm1", "log1p", "sinc", "round", "gammaln",
           "digamma", "psi", "i0"]


@pytest.mark.parametrize("name", ALIASES)
def test_aliases_of_core_ops(torch, name):
    x = torch.linspace(-0.9, 0.9, 13, dtype=torch.float64).requires_grad_(True)
    _agree(torch, getattr(core.special, name), getattr(torch.special, name), x)


def test_softmax_family(torch):
    x = torch.randn(3, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(0)).requires_grad_(True)
    for name in ("softmax", "log_softmax"):
        _agree(torch, getattr(core.special, name), getattr(torch.special, name), x, 1)
        _agree(torch, lambda t: getattr(core.special, name)(t, 0, dtype=core.float32),
               lambda t: getattr(torch.special, name)(t, 0, dtype=torch.float32), x)
    _agree(torch, core.special.logsumexp, torch.special.logsumexp, x, 1)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5])
def test_polygamma(torch, n):
    x = _grid(torch, torch.float64, -4.75, 12, [0.0, -0.0, -1.0, -2.0, 1e-8, 30.0], requires_grad=True)
    _agree(torch, lambda t: core.polygamma(n, t), lambda t: torch.polygamma(n, t), x, grads=False)
    g = torch.linspace(0.3, 8, 23, dtype=torch.float64).requires_grad_(True)
    _agree(torch, lambda t: core.special.polygamma(n, t), lambda t: torch.special.polygamma(n, t), g)
    _agree(torch, lambda t: t.polygamma(n), lambda t: t.polygamma(n), g.float())
    _agree(torch, lambda t: t.clone().polygamma_(n), lambda t: t.clone().polygamma_(n), g.detach())


def test_polygamma_negative_n_and_ints(torch):
    _agree(torch, lambda t: core.polygamma(-1, t), lambda t: torch.polygamma(-1, t), torch.tensor([1.0]))
    _agree(torch, lambda t: core.polygamma(1, t), lambda t: torch.polygamma(1, t), torch.tensor([1, 2, 3]))


@pytest.mark.parametrize("p", [1, 2, 3, 5])
def test_mvlgamma(torch, p):
    x = torch.linspace(2.6, 9, 17, dtype=torch.float64).requires_grad_(True)
    _agree(torch, lambda t: core.mvlgamma(t, p), lambda t: torch.mvlgamma(t, p), x)
    _agree(torch, lambda t: core.special.multigammaln(t, p), lambda t: torch.special.multigammaln(t, p), x.float())
    _agree(torch, lambda t: t.mvlgamma(p), lambda t: t.mvlgamma(p), torch.tensor([3, 4, 7]))
    _agree(torch, lambda t: t.clone().mvlgamma_(p), lambda t: t.clone().mvlgamma_(p), x.detach())


def test_mvlgamma_bad_p(torch):
    _agree(torch, lambda t: core.mvlgamma(t, 0), lambda t: torch.mvlgamma(t, 0), torch.tensor([2.0]))


def test_zeta(torch):
    x = torch.tensor([1.0, 1.5, 2.0, 3.0, 4.5, 7.0, 0.5, float("nan")], dtype=torch.float64)[:, None]
    q = torch.tensor([0.5, 1.0, 2.0, 10.0, 100.0, -1.5, -2.0, 0.0, 1e-3], dtype=torch.float64)
    _agree(torch, core.special.zeta, torch.special.zeta, x, q)
    _agree(torch, core.special.zeta, torch.special.zeta, 2.0, q)
    _agree(torch, core.special.zeta, torch.special.zeta, x, 3.0)
    _agree(torch, core.special.zeta, torch.special.zeta, torch.tensor([2, 3]), torch.tensor([1, 2]))
    qg = torch.tensor([0.5, 2.0, 10.0], dtype=torch.float64, requires_grad=True)
    _agree(torch, core.special.zeta, torch.special.zeta, torch.tensor([2.0, 3.0, 4.0], dtype=torch.float64), qg)
    xg = torch.tensor([2.0, 3.0], dtype=torch.float64, requires_grad=True)   # NotImplementedError on backward
    _agree(torch, core.special.zeta, torch.special.zeta, xg, torch.tensor([1.0, 2.0], dtype=torch.float64))


def test_xlog1py(torch):
    x = torch.tensor([0.0, 0.0, 1.5, -2.0, 3.0, 0.0], dtype=torch.float64, requires_grad=True)
    y = torch.tensor([-1.0, float("nan"), 0.5, 2.0, -0.5, -3.0], dtype=torch.float64, requires_grad=True)
    _agree(torch, core.special.xlog1py, torch.special.xlog1py, x, y)
    _agree(torch, core.special.xlog1py, torch.special.xlog1py, 2.0, y)
    _agree(torch, core.special.xlog1py, torch.special.xlog1py, x, 2)
    _agree(torch, core.special.xlog1py, torch.special.xlog1py, torch.tensor([1, 2]), torch.tensor([3, 0]))
    _agree(torch, core.special.xlog1py, torch.special.xlog1py, 1, 2)


def test_nextafter(torch):
    a = torch.tensor([1.0, 0.0, -1.0, float("inf"), 1.0], dtype=torch.float32)
    b = torch.tensor([2.0, -1.0, -1.0, 0.0, float("nan")], dtype=torch.float32)
    _agree(torch, core.nextafter, torch.nextafter, a, b)
    _agree(torch, core.nextafter, torch.nextafter, a.double(), b)
    _agree(torch, lambda s, o: s.nextafter(o), lambda s, o: s.nextafter(o), a, b)
    _agree(torch, lambda s, o: s.clone().nextafter_(o), lambda s, o: s.clone().nextafter_(o), a, b)
    _agree(torch, core.nextafter, torch.nextafter, torch.tensor([1, 2]), torch.tensor([2, 3]))
    _agree(torch, core.nextafter, torch.nextafter, a.requires_grad_(True), b)


def test_frexp(torch):
    x = torch.tensor([1.5, -8.0, 0.0, 3e-39, 1e30, float("inf"), float("nan")], requires_grad=True)
    _agree(torch, core.frexp, torch.frexp, x)
    _agree(torch, lambda t: t.frexp(), lambda t: t.frexp(), x.double())
    _agree(torch, core.frexp, torch.frexp, torch.tensor([1, 2]))
    assert repr(core.frexp(core.tensor([1.5]))) == repr(torch.frexp(torch.tensor([1.5])))


def test_namespace_matches_torch_special(torch):
    """Every name core.special exports exists in torch.special, and `torch.special` resolves lazily."""
    assert set(core.special.__all__) <= set(dir(torch.special))
    assert all(callable(getattr(core.special, n)) for n in core.special.__all__)
    assert core.special.expit is core.sigmoid and core.special.multigammaln is core.mvlgamma


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma(torch, name):
    rng = np.random.default_rng(0)
    a = np.concatenate([rng.uniform(0, 20, 60), 10 ** rng.uniform(-3, 4, 30), [0, 0, 1, -1, 1, np.inf, np.inf, 2,
                                                                               np.nan, 1, 0.5]])
    x = np.concatenate([rng.uniform(0, 30, 60), a[60:90] * rng.uniform(0.8, 1.2, 30), [0, 1, 0, 1, -1, 1, np.inf,
                                                                                       np.inf, 1, np.nan, 0]])
    ta, tx = torch.tensor(a), torch.tensor(x)
    _agree(torch, getattr(core, name), getattr(torch, name), ta, tx)
    _agree(torch, getattr(core, name), getattr(torch, name), ta.float(), tx.float())
    special = {"igamma": "gammainc", "igammac": "gammaincc"}[name]
    _agree(torch, getattr(core.special, special), getattr(torch.special, special), ta, tx)
    _agree(torch, lambda s, o: getattr(s, name)(o), lambda s, o: getattr(s, name)(o), ta, tx)
    _agree(torch, getattr(core, name), getattr(torch, name), torch.tensor([1, 2]), torch.tensor([1, 2]))
    xg = torch.tensor([0.5, 2.0, 7.0], dtype=torch.float64, requires_grad=True)
    _agree(torch, getattr(core, name), getattr(torch, name), torch.tensor([1.5, 2.0, 3.0], dtype=torch.float64), xg)
    ag = torch.tensor([1.5, 2.0], dtype=torch.float64, requires_grad=True)   # NotImplementedError on backward
    _agree(torch, getattr(core, name), getattr(torch, name), ag, torch.tensor([1.0, 2.0], dtype=torch.float64))


POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
               "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
               "laguerre_polynomial_l", "legendre_polynomial_p"]


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials(torch, name):
    """Degrees truncated to integers, n < 0 -> 0, closed forms at +-1, trigonometric forms for large n,
    overflow to NaN as PyTorch's recurrences; no gradient; (number, number) is a TypeError."""
    x = torch.tensor(np.concatenate([np.linspace(-2, 2, 21), [-1.0, 1.0, 0.0, 0.5]]))[:, None]
    n = torch.tensor([-1.0, 0, 1, 2, 3, 5, 7.9, 9, 12, 20])
    _agree(torch, getattr(core.special, name), getattr(torch.special, name), x.requires_grad_(True), n)
    _agree(torch, getattr(core.special, name), getattr(torch.special, name), x.float(), n.float())
    _agree(torch, getattr(core.special, name), getattr(torch.special, name), 0.5, n)
    _agree(torch, getattr(core.special, name), getattr(torch.special, name), x, 3)
    _agree(torch, getattr(core.special, name), getattr(torch.special, name), torch.tensor([1, 2]), torch.tensor([2, 3]))
    _agree(torch, getattr(core.special, name), getattr(torch.special, name), 0.5, 3)
    if "chebyshev" in name:   # large degrees take the trigonometric form inside the domain
        _agree(torch, getattr(core.special, name), getattr(torch.special, name),
               torch.tensor([-1.0, -0.3, 0.2, 0.7, 1.0], dtype=torch.float64)[:, None],
               torch.tensor([600.0, 3000.0], dtype=torch.float64))


@pytest.mark.parametrize("name", ["modified_bessel_i0", "modified_bessel_i1", "spherical_bessel_j0"])
def test_bessel_without_gradient(torch, name):
    for dtype in (torch.float32, torch.float64):
        x = _grid(torch, dtype, -30, 30, EDGES[:-4] + [float("inf"), float("-inf"), float("nan")], requires_grad=True)
        _agree(torch, getattr(core.special, name), getattr(torch.special, name), x)
    _agree(torch, getattr(core.special, name), getattr(torch.special, name), torch.tensor([0, 1, 3]))


def test_aliases_are_the_loaded_ops_whatever_the_import_order():
    """special.multigammaln is torch.mvlgamma even when torch.special is imported before mvlgamma's module
    has loaded (it held the lazy stand-in, so `is` failed depending on which test ran first)."""
    import subprocess
    import sys
    code = ("import core.special as s, core\n"
            "core.mvlgamma(core.tensor([2.0]), 1), core.sigmoid(core.tensor([0.0])), core.igamma\n"
            "assert s.multigammaln is core.mvlgamma and s.expit is core.sigmoid and s.gammainc is core.igamma\n"
            "assert 'psi' in dir(s)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
