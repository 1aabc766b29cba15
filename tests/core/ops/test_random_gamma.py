"""core/ops/random_gamma.py against ATen: torch._standard_gamma, _sample_dirichlet, _standard_gamma_grad and
_dirichlet_grad give torch's values bit for bit from the same seed and leave the generator (and its cached
Box-Muller normal) where torch leaves it."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core.ops import random_gamma as rg

DTYPES = ("float32", "float64")


def _c(t):
    """A core tensor with t's values, dtype and (transposed or contiguous) layout."""
    if t.dim() == 2 and not t.is_contiguous():
        return core.tensor(t.detach().t().contiguous().numpy()).t()
    return core.tensor(t.detach().numpy())


def _exact(c, t):
    assert str(c.dtype) == str(t.dtype) and tuple(c.shape) == tuple(t.shape)
    np.testing.assert_array_equal(c.detach().numpy(), t.detach().numpy())


def _alphas(torch, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    scale = (0.05, 1.0, 5.0, 40.0)[seed % 4]
    return torch.rand(6, 5, generator=g, dtype=getattr(torch, dtype)) * scale + 1e-3


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seed", range(6))
def test_standard_gamma_values_and_stream(torch, dtype, seed):
    a = _alphas(torch, dtype, seed)
    for alpha in (a, a.t()):              # the output is contiguous: both walk it in C order
        torch.manual_seed(seed)
        core.manual_seed(seed)
        _exact(rg._standard_gamma(_c(alpha)), torch._standard_gamma(alpha))
        _exact(core.randn(3, dtype=core.float64), torch.randn(3, dtype=torch.float64))   # cached normal, stream


@pytest.mark.parametrize("dtype", DTYPES)
def test_standard_gamma_edge_alphas(torch, dtype):
    alpha = torch.tensor([0.0, 1e-30, 1e-3, 0.999, 1.0, 1e4, -1.0, float("nan")], dtype=getattr(torch, dtype))
    torch.manual_seed(7)
    core.manual_seed(7)
    _exact(rg._standard_gamma(_c(alpha)), torch._standard_gamma(alpha))
    _exact(core.rand(4), torch.rand(4))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seed", range(6))
def test_sample_dirichlet_values(torch, dtype, seed):
    alpha = _alphas(torch, dtype, seed)
    torch.manual_seed(seed)
    core.manual_seed(seed)
    _exact(rg._sample_dirichlet(_c(alpha)), torch._sample_dirichlet(alpha))
    _exact(core.randn(5, dtype=core.float64), torch.randn(5, dtype=torch.float64))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seed", range(4))
def test_standard_gamma_grad_values(torch, dtype, seed):
    alpha = _alphas(torch, dtype, seed)
    x = torch._standard_gamma(alpha)
    _exact(rg._standard_gamma_grad(_c(alpha), _c(x)), torch._standard_gamma_grad(alpha, x))
    special = torch.tensor([1.0, 0.0, 2.0, 9.0, 9.0, 0.5], dtype=alpha.dtype)
    at = torch.tensor([0.0, 1.0, float("inf"), 9.0, 0.0, 1e-30], dtype=alpha.dtype)
    _exact(rg._standard_gamma_grad(_c(special), _c(at)), torch._standard_gamma_grad(special, at))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("seed", range(8))
def test_dirichlet_grad_values(torch, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    conc = torch.rand(40, 3, generator=g, dtype=getattr(torch, dtype)) * (0.5, 5.0, 20.0, 0.05)[seed % 4] + 0.01
    x = torch._sample_dirichlet(conc, generator=g)
    total = conc.sum(-1, True).expand_as(conc).contiguous()
    _exact(rg._dirichlet_grad(_c(x), _c(conc), _c(total)), torch._dirichlet_grad(x, conc, total))


@pytest.mark.parametrize("dtype", DTYPES)
def test_standard_gamma_backward(torch, dtype):
    alpha_t = torch.tensor([0.3, 1.5, 12.0], dtype=getattr(torch, dtype), requires_grad=True)
    alpha_c = core.tensor(alpha_t.detach().numpy(), requires_grad=True)
    torch.manual_seed(0)
    core.manual_seed(0)
    st, sc = torch._standard_gamma(alpha_t), rg._standard_gamma(alpha_c)
    assert type(sc.grad_fn).__name__ == st.grad_fn.name() == "StandardGammaBackward0"
    (st * torch.tensor([1.0, 2.0, 3.0], dtype=alpha_t.dtype)).sum().backward()
    (sc * core.tensor([1.0, 2.0, 3.0], dtype=alpha_c.dtype)).sum().backward()
    _exact(alpha_c.grad, alpha_t.grad)


def test_sample_dirichlet_has_no_derivative(torch):
    alpha_t = torch.tensor([0.5, 2.0], requires_grad=True)
    alpha_c = core.tensor([0.5, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError) as et:
        torch._sample_dirichlet(alpha_t).sum().backward()
    with pytest.raises(RuntimeError) as ec:
        rg._sample_dirichlet(alpha_c).sum().backward()
    assert str(ec.value) == str(et.value)


@pytest.mark.parametrize("make", ["int64", "float16"])
@pytest.mark.parametrize("op", ["_standard_gamma", "_sample_dirichlet"])
def test_kernel_dtype_errors(torch, make, op):
    with pytest.raises(NotImplementedError) as et:
        getattr(torch, op)(torch.tensor([1, 2]).to(getattr(torch, make)))
    with pytest.raises(NotImplementedError) as ec:
        getattr(rg, op)(core.tensor([1, 2]).to(getattr(core, make)))
    assert str(ec.value) == str(et.value)


def test_explicit_generator(torch):
    gt, gc = torch.Generator().manual_seed(11), core.Generator().manual_seed(11)
    alpha = torch.tensor([[0.4, 2.0, 3.0]], dtype=torch.float64)
    _exact(rg._standard_gamma(_c(alpha), generator=gc), torch._standard_gamma(alpha, generator=gt))
    _exact(rg._sample_dirichlet(_c(alpha), generator=gc), torch._sample_dirichlet(alpha, generator=gt))


@pytest.mark.parametrize("seed", range(3))
def test_gamma_uses_a_cached_normal_left_by_randn(torch, seed):
    torch.manual_seed(seed)
    core.manual_seed(seed)
    _exact(core.randn(3, dtype=core.float64), torch.randn(3, dtype=torch.float64))   # odd count: one cached
    alpha = torch.tensor([2.0, 3.0, 0.5])
    _exact(rg._standard_gamma(_c(alpha)), torch._standard_gamma(alpha))
    _exact(core.randn(3, dtype=core.float64), torch.randn(3, dtype=torch.float64))
