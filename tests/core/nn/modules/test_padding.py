"""nn padding layers, BatchNorm3d, InstanceNorm1d/3d and Softmax2d against torch: reprs, values, gradients,
errors."""
from __future__ import annotations

import numpy as np
import pytest

import core

CASES = [("ConstantPad1d", (2, 3.5), (1, 2, 4)), ("ConstantPad2d", ((1, 0, 2, 1), 0.0), (1, 2, 3, 3)),
         ("ConstantPad3d", (1, 1.0), (1, 1, 2, 2, 2)), ("ZeroPad1d", ((1, 2),), (2, 3)), ("ZeroPad2d", (1,), (1, 2, 3)),
         ("ZeroPad3d", (1,), (1, 1, 2, 2, 2)), ("ReflectionPad1d", (1,), (1, 2, 4)),
         ("ReflectionPad2d", ((1, 1, 0, 2),), (1, 1, 3, 4)), ("ReflectionPad3d", (1,), (1, 1, 3, 3, 3)),
         ("ReplicationPad1d", (2,), (2, 4)), ("ReplicationPad2d", (1,), (1, 1, 2, 3)),
         ("ReplicationPad3d", (1,), (1, 1, 2, 2, 2)), ("CircularPad1d", (1,), (1, 2, 4)),
         ("CircularPad2d", (1,), (1, 1, 3, 3)), ("CircularPad2d", ((1, 0, 1, 2),), (2, 3, 3)),
         ("CircularPad3d", (1,), (1, 1, 2, 2, 2)), ("Softmax2d", (), (2, 3, 2, 2)), ("Softmax2d", (), (3, 2, 2)),
         ("BatchNorm3d", (2,), (2, 2, 2, 2, 2)), ("InstanceNorm1d", (3,), (2, 3, 5)), ("InstanceNorm1d", (3,), (3, 5)),
         ("InstanceNorm1d", (3, 1e-5, 0.1, True), (2, 3, 5)), ("InstanceNorm3d", (2,), (2, 2, 3, 3, 3)),
         ("InstanceNorm3d", (2,), (2, 3, 3, 3))]


@pytest.mark.parametrize("name, args, shape", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_layer_matches_torch(torch, name, args, shape):
    data = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
    res = []
    for L in (core, torch):
        m = getattr(L.nn, name)(*args)
        x = L.tensor(data, requires_grad=True)
        y = m(x)
        (y * L.tensor(np.linspace(-1, 1, y.numel(), dtype=np.float32).reshape(tuple(y.shape)))).sum().backward()
        res.append((repr(m), y.detach().numpy(), x.grad.numpy()))
    assert res[0][0] == res[1][0]
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res[0][2], res[1][2], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name, args, shape", [("CircularPad1d", (1,), (4,)), ("CircularPad3d", (1,), (2, 2)),
                                               ("Softmax2d", (), (4,)), ("BatchNorm3d", (2,), (2, 2, 2)),
                                               ("InstanceNorm1d", (3,), (3,)), ("InstanceNorm3d", (2,), (2, 2, 2))])
def test_wrong_rank_is_torchs_error(torch, name, args, shape):
    msgs = []
    for L in (core, torch):
        with pytest.raises(Exception) as e:
            getattr(L.nn, name)(*args)(L.ones(*shape))
        msgs.append((type(e.value).__name__, str(e.value)))
    assert msgs[0] == msgs[1]
