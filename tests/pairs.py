"""A core tensor and a torch tensor made from the same data, and their gradients compared: the side-by-side
helpers of the op tests that check values, grad_fn names and gradients of one call on both."""
from __future__ import annotations

import numpy as np

import core
from conftest import assert_same

DATA = [[1.0, -2.0, 0.0], [4.0, 5.5, -6.0]]


def pair(torch, data=DATA, dtype="float64", grad=True):
    c = core.tensor(data, dtype=getattr(core, dtype), requires_grad=grad)
    t = torch.tensor(data, dtype=getattr(torch, dtype), requires_grad=grad)
    return c, t


def grads(c_out, t_out, c_in, t_in, torch):
    """Gradients of sum(out * w) for a fixed w, core vs torch."""
    w = np.linspace(-1, 2, int(np.prod(t_out.shape))).reshape(tuple(t_out.shape))
    gc = core.autograd.grad(c_out, c_in, core.tensor(w, dtype=c_out.dtype), allow_unused=True)
    gt = torch.autograd.grad(t_out, t_in, torch.tensor(w, dtype=t_out.dtype), allow_unused=True)
    for a, b in zip(gc, gt):
        assert (a is None) == (b is None)
        if a is not None:
            assert_same(a, b)
