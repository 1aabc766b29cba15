"""torch.softmax / torch.log_softmax and the Tensor methods agree with PyTorch (values, grads, node names)."""
import numpy as np
import pytest

import core
from tests.conftest import assert_same


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_function_and_method_forms_match_torch(torch, name, dim):
    data = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    c = core.tensor(data, requires_grad=True)
    t = torch.tensor(data, requires_grad=True)
    oc, ot = getattr(core, name)(c, dim), getattr(torch, name)(t, dim)
    assert_same(oc, ot)
    assert_same(getattr(c, name)(dim), getattr(t, name)(dim))
    w = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32)
    oc.backward(core.tensor(w))
    ot.backward(torch.tensor(w))
    assert_same(c.grad, t.grad)
    assert oc.grad_fn.name() == ot.grad_fn.name()


def test_softmax_dtype_argument_matches_torch(torch):
    x = [[1, 2], [3, 4]]
    assert_same(core.softmax(core.tensor(x), 1, dtype=core.float64),
                torch.softmax(torch.tensor(x), 1, dtype=torch.float64))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1])
def test_create_graph_first_derivative_is_the_kernels(torch, dtype, name, dim):
    """With create_graph=True the gradient is a (Log)SoftmaxBackwardDataBackward0 node whose value is
    _(log_)softmax_backward_data's kernel, bit for bit; softmax's second derivatives follow derivatives.yaml's
    formula to the bit, log_softmax's through exp (MKL's in torch) within rounding."""
    import numpy as np
    rng = np.random.default_rng(dim)
    x, g, v = (rng.standard_normal((33, 20)).astype(dtype) for _ in range(3))
    res = []
    for L in (core, torch):
        xi, gi = (L.from_numpy(a.copy()).requires_grad_(True) for a in (x, g))
        (gx,) = L.autograd.grad(getattr(L, name)(xi, dim), xi, gi, create_graph=True)
        res.append((gx.grad_fn.name(), gx.detach().numpy(),
                    [t.numpy() for t in L.autograd.grad(gx, (xi, gi), L.from_numpy(v))]))
    (n0, g0, s0), (n1, g1, s1) = res
    assert n0 == n1 and np.array_equal(g0.view(np.uint8), g1.view(np.uint8))
    for a, b in zip(s0, s1):
        if name == "softmax":
            assert np.array_equal(a, b)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-6)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_zero_dim_gradient_is_the_kernels_formula(torch, name):
    """A 0-d (log_)softmax's gradient is _(log_)softmax_backward_data's formula: g - g = +0 for a negative g, nan
    for an infinite one, with create_graph too."""
    res = []
    for m in (torch, core):
        for gv in (-2.0, float("inf")):
            for create_graph in (False, True):
                x = m.tensor(0.5, dtype=m.float64, requires_grad=True)
                (g,) = m.autograd.grad(getattr(m, name)(x, 0), x, m.tensor(gv, dtype=m.float64),
                                       create_graph=create_graph)
                res.append(np.asarray(g.item()))
    assert np.array(res[:4]).tobytes() == np.array(res[4:]).tobytes(), res
