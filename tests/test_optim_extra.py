"""ASGD, Rprop, Adafactor, SparseAdam and torch.optim.swa_utils against torch: parameters and state bit for bit
after many steps on the same gradients (float32; float64 within a rounding), errors, defaults, repr, state_dict
round trips (also between core and torch), and the averaging utilities."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import core
from test_optim_bitwise import Pair, assert_state_bitwise, mkl_sqrt  # noqa: F401  (mkl_sqrt is a fixture)

CONFIGS = {
    "ASGD": ("ASGD", dict()),
    "ASGD-t0-wd": ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.6, t0=5, weight_decay=0.1)),
    "ASGD-maximize": ("ASGD", dict(lr=0.02, t0=0, maximize=True)),
    "Rprop": ("Rprop", dict()),
    "Rprop-etas": ("Rprop", dict(lr=0.003, etas=(0.3, 1.7), step_sizes=(1e-4, 0.02))),
    "Rprop-maximize": ("Rprop", dict(lr=0.001, maximize=True)),
    "Adafactor": ("Adafactor", dict()),
    "Adafactor-wd": ("Adafactor", dict(lr=0.05, beta2_decay=-0.5, eps=(1e-20, 1e-2), d=1.5, weight_decay=0.1)),
    "Adafactor-maximize": ("Adafactor", dict(lr=0.001, eps=(1e-4, 1e-3), maximize=True)),
}
STEPS = 40


@pytest.mark.parametrize("name", list(CONFIGS))
def test_update_is_bitwise_equal_to_torch(torch, mkl_sqrt, name):
    cls, kwargs = CONFIGS[name]
    pair = Pair(torch, cls, kwargs)
    for step in range(STEPS):
        pair.step()
        assert pair.mismatches() == [0] * len(pair.cparams), f"step {step}"
    for pc, pt, (vc, vt) in zip(pair.cparams, pair.tparams, pair.v0):
        assert pc._version - vc == pt._version - vt
        assert_state_bitwise(pair.copt.state[pc], pair.topt.state[pt])


@pytest.mark.parametrize("name", ["ASGD-t0-wd", "Rprop-etas", "Adafactor-wd"])
def test_float64_parameters_keep_dtype_and_agree(torch, mkl_sqrt, name):
    cls, kwargs = CONFIGS[name]
    pair = Pair(torch, cls, kwargs, dtype="float64")
    for _ in range(10):
        pair.step()
    for pc, pt in zip(pair.cparams, pair.tparams):
        assert pc.dtype == core.float64
        np.testing.assert_allclose(pc.detach().numpy(), pt.detach().numpy(), rtol=1e-12, atol=1e-14)
    for pc, pt in zip(pair.cparams, pair.tparams):
        for key, tv in pair.topt.state[pt].items():
            assert str(pair.copt.state[pc][key].dtype) == str(tv.dtype), key
