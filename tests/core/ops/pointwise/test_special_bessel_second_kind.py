"""torch.special airy_ai, bessel_y0/y1, modified_bessel_k0/k1, scaled_modified_bessel_k0/k1 against torch
(float32 and float64, the branch points, special values, integer inputs, no gradient). The ops are the
registry's special.* entries (core.special lists them once core/special.py re-exports them)."""
from __future__ import annotations

import numpy as np
import pytest

import core
from conftest import assert_same
from core.ops.registry import OPS

NAMES = ["airy_ai", "bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1",
         "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"]
XS = np.concatenate([np.linspace(-30, 30, 1201), [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, 1e-5, 2.0, 5.0,
                                                  2.09, -2.09, 8.3203353, 103.9, 700.0]])


def fn(name):
    return getattr(core.special, name, None) or OPS["special." + name].fn


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_match_torch(torch, name, dtype):
    c = fn(name)(core.tensor(XS, dtype=getattr(core, dtype)))
    t = getattr(torch.special, name)(torch.tensor(XS, dtype=getattr(torch, dtype)))
    # float32: torch.testing's tolerances (torch evaluates in float32, core in float64 then rounds)
    tol = dict(rtol=1.3e-6, atol=1e-5) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
    assert_same(c, t, **tol)


@pytest.mark.parametrize("name", NAMES)
def test_integer_input_and_no_gradient(torch, name):
    assert_same(fn(name)(core.tensor([1, 2, 7])), getattr(torch.special, name)(torch.tensor([1, 2, 7])))
    c = fn(name)(core.tensor([0.5, 3.0], requires_grad=True))
    t = getattr(torch.special, name)(torch.tensor([0.5, 3.0], requires_grad=True))
    assert c.requires_grad == t.requires_grad
