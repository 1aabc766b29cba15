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
