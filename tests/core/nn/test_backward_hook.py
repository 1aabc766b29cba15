"""Module.register_full_backward_hook / register_full_backward_pre_hook against torch: when hooks fire, what
they receive, replacement gradients, removal and the no-input-grad warning."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core


def _run(L, x_requires_grad):
    L.manual_seed(0)
    net = L.nn.Sequential(L.nn.Linear(3, 4), L.nn.Tanh(), L.nn.Linear(4, 2))
    log = []
    net[0].register_full_backward_hook(
        lambda m, gi, go: log.append(("hook0", [None if g is None else g.numpy().copy() for g in gi],
                                      [g.numpy().copy() for g in go])))
    net[2].register_full_backward_hook(lambda m, gi, go: (gi[0] * 2,))
    net[2].register_full_backward_pre_hook(lambda m, go: log.append(("pre2", go[0].numpy().copy())))
    x = L.tensor(np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3), requires_grad=x_requires_grad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = net(x)
        (out * L.tensor([[1.0, -2.0]])).sum().backward()
    return log, net[0].weight.grad.numpy(), (x.grad.numpy() if x_requires_grad else None), out.grad_fn.name()


def _same(a, b):
    if isinstance(a, np.ndarray):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            _same(u, v)
    else:
        assert a == b


@pytest.mark.parametrize("x_requires_grad", [False, True])
def test_hooks_see_and_replace_torchs_gradients(torch, x_requires_grad):
    got, want = _run(core, x_requires_grad), _run(torch, x_requires_grad)
    _same(got, want)


def test_hook_on_a_module_whose_inputs_need_no_grad_warns_as_torch(torch):
    for L in (core, torch):
        m = L.nn.Linear(2, 2)
        m.register_full_backward_hook(lambda mod, gi, go: None)
        with pytest.warns(UserWarning, match="Full backward hook is firing when gradients are computed with respect"):
            m(L.ones(1, 2)).sum().backward()


def test_removed_and_late_hooks_do_not_fire(torch):
    for L in (core, torch):
        m = L.nn.Linear(2, 2)
        fired = []
        h = m.register_full_backward_hook(lambda mod, gi, go: fired.append(1))
        h.remove()
        x = L.ones(1, 2, requires_grad=True)
        out = m(x)
        m.register_full_backward_hook(lambda mod, gi, go: fired.append(2))   # after the forward: not this call
        out.sum().backward()
        assert fired == []
