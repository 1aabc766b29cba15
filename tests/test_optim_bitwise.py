"""Optimizer arithmetic bit for bit against torch: the same gradients (torch's own, from a small model) are fed
to core and torch optimizers for 50+ steps and parameters and state are compared with ==.

torch 2.13's CPU sqrt (this MKL build's vectorised kernel) is not correctly rounded (NumPy's is; about 1 float32
element in 6 differs by one ulp). The `mkl_sqrt` fixture routes core's optimizer sqrt kernel through torch so that
every other operation is checked exactly; the tests without it bound the difference that sqrt alone makes."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core.optim import _kernels

STEPS = 50
CONFIGS = {
    "SGD": ("SGD", dict(lr=0.1)),
    "SGD-momentum": ("SGD", dict(lr=0.1, momentum=0.9)),
    "SGD-nesterov-wd": ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.05)),
    "SGD-dampening-maximize": ("SGD", dict(lr=0.05, momentum=0.8, dampening=0.3, maximize=True)),
    "Adam": ("Adam", dict(lr=0.01)),
    "Adam-amsgrad-wd": ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
    "Adam-maximize-betas": ("Adam", dict(lr=0.01, betas=(0.5, 0.8), eps=1e-6, maximize=True)),
    "AdamW": ("AdamW", dict(lr=0.01)),
    "AdamW-amsgrad": ("AdamW", dict(lr=0.01, amsgrad=True, weight_decay=0.3)),
    "RMSprop": ("RMSprop", dict(lr=0.01)),
    "RMSprop-centered-momentum": ("RMSprop", dict(lr=0.01, centered=True, momentum=0.9, weight_decay=0.1)),
    "RMSprop-momentum-maximize": ("RMSprop", dict(lr=0.01, momentum=0.5, alpha=0.7, maximize=True)),
    "Adagrad": ("Adagrad", dict(lr=0.1)),
    "Adagrad-decay": ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.2,
                                      maximize=True)),
    "Adadelta": ("Adadelta", dict()),
    "Adadelta-wd": ("Adadelta", dict(lr=0.5, rho=0.6, weight_decay=0.1, maximize=True)),
    "Adamax": ("Adamax", dict(lr=0.01)),
    "Adamax-wd": ("Adamax", dict(lr=0.01, betas=(0.5, 0.8), weight_decay=0.2, maximize=True)),
    "NAdam": ("NAdam", dict(lr=0.01)),
    "NAdam-wd": ("NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01, maximize=True)),
    "NAdam-decoupled": ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    "RAdam": ("RAdam", dict(lr=0.01)),
    "RAdam-wd": ("RAdam", dict(lr=0.01, betas=(0.5, 0.8), weight_decay=0.1, maximize=True)),
    "RAdam-decoupled": ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
}
# foreach=True picks torch's multi-tensor implementation even on CPU; its rounding differs for NAdam and RAdam.
CONFIGS.update({f"{name}-foreach": (cls, dict(kwargs, foreach=True)) for name, (cls, kwargs) in list(CONFIGS.items())
                if name in ("SGD-nesterov-wd", "Adam-amsgrad-wd", "AdamW", "RMSprop-centered-momentum",
                            "Adagrad-decay", "Adadelta-wd", "Adamax-wd", "NAdam-wd", "NAdam-decoupled", "RAdam-wd",
                            "RAdam-decoupled")})
NO_SQRT = {"SGD", "Adamax"}   # optimizers whose update never takes a square root


@pytest.fixture
def mkl_sqrt(torch, monkeypatch):
    """Make core's optimizer sqrt kernel torch's for the duration of a test."""
    def sqrt(x, out=None):
        r = torch.from_numpy(np.ascontiguousarray(x)).sqrt().numpy()
        if out is None:
            return r
        np.copyto(out, r)
        return out
    monkeypatch.setattr(_kernels, "sqrt", sqrt)


class Pair:
    """A torch model (Linear 6-40-3, plus a 300x257 parameter so kernels cross their chunk boundary) and core
    parameters holding the same values; step() feeds torch's gradients to both optimizers."""

    def __init__(self, torch, cls, kwargs, dtype="float32"):
        self.torch = torch
        torch.manual_seed(0)
        self.model = torch.nn.Sequential(torch.nn.Linear(6, 40), torch.nn.Tanh(), torch.nn.Linear(40, 3))
        self.big = torch.nn.Parameter(torch.randn(300, 257) * 0.1)
        tparams = [*self.model.parameters(), self.big]
        if dtype == "float64":
            for p in tparams:
                p.data = p.data.double()
            self.model.double()
        self.tparams = tparams
        self.cparams = [core.tensor(p.detach().numpy().copy(), requires_grad=True) for p in tparams]
        self.v0 = [(pc._version, pt._version) for pc, pt in zip(self.cparams, tparams)]
        self.topt = getattr(torch.optim, cls)(tparams, **kwargs)
        self.copt = getattr(core.optim, cls)(self.cparams, **kwargs)
        rng = np.random.default_rng(3)
        self.x = torch.tensor(rng.standard_normal((32, 6)), dtype=tparams[0].dtype)
        self.y = torch.tensor(rng.standard_normal((32, 3)), dtype=tparams[0].dtype)

    def step(self):
        torch = self.torch
        self.topt.zero_grad()
        loss = ((self.model(self.x) - self.y) ** 2).mean() + (self.big.sin() * self.x.mean()).sum()
        loss.backward()
        for pc, pt in zip(self.cparams, self.tparams):
            pc.grad = core.tensor(pt.grad.numpy().copy())
        with torch.no_grad():
            self.topt.step()
        self.copt.step()

    def mismatches(self):
        return [int((pc.detach().numpy() != pt.detach().numpy()).sum()) for pc, pt in zip(self.cparams, self.tparams)]


def assert_state_bitwise(cs, ts):
    assert list(cs) == list(ts)
    for key, tv in ts.items():
        cv = cs[key]
        if hasattr(tv, "shape"):
            assert str(cv.dtype) == str(tv.dtype) and tuple(cv.shape) == tuple(tv.shape), key
            np.testing.assert_array_equal(cv.numpy(), tv.numpy(), err_msg=key)
            assert cv._version == tv._version, key
        else:
            assert cv == tv, key


@pytest.mark.parametrize("name", list(CONFIGS))
def test_update_is_bitwise_equal_to_torch_for_50_steps(torch, mkl_sqrt, name):
    cls, kwargs = CONFIGS[name]
    pair = Pair(torch, cls, kwargs)
    for step in range(STEPS):
        pair.step()
        assert pair.mismatches() == [0] * len(pair.cparams), f"step {step}"
    for pc, pt, (vc, vt) in zip(pair.cparams, pair.tparams, pair.v0):
        assert pc._version - vc == pt._version - vt     # in-place updates counted as torch counts them
        assert_state_bitwise(pair.copt.state[pc], pair.topt.state[pt])


@pytest.mark.parametrize("name", list(CONFIGS))
def test_update_with_numpy_sqrt_stays_within_rounding_of_torch(torch, name):
    cls, kwargs = CONFIGS[name]
    pair = Pair(torch, cls, kwargs)
    for _ in range(STEPS):
        pair.step()
    if cls in NO_SQRT:
        assert pair.mismatches() == [0] * len(pair.cparams)
    for pc, pt in zip(pair.cparams, pair.tparams):
        np.testing.assert_allclose(pc.detach().numpy(), pt.detach().numpy(), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("name", ["SGD-nesterov-wd", "Adam-amsgrad-wd", "RMSprop-centered-momentum", "Adadelta",
                                  "NAdam-wd", "RAdam"])
def test_float64_parameters_keep_dtype_and_agree(torch, mkl_sqrt, name):
    cls, kwargs = CONFIGS[name]
    pair = Pair(torch, cls, kwargs, dtype="float64")
    for _ in range(10):
        pair.step()
    for pc, pt in zip(pair.cparams, pair.tparams):
        assert pc.dtype == core.float64
        np.testing.assert_allclose(pc.detach().numpy(), pt.detach().numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ["SGD-momentum", "Adam-amsgrad-wd", "RMSprop-centered-momentum", "Adagrad-decay",
                                  "Adadelta", "Adamax", "NAdam", "RAdam"])
def test_state_dict_round_trip_then_50_more_bitwise_steps(torch, mkl_sqrt, name):
    cls, kwargs = CONFIGS[name]
    pair = Pair(torch, cls, kwargs)
    for _ in range(3):
        pair.step()
    sc, st = pair.copt.state_dict(), pair.topt.state_dict()
    assert sc["param_groups"] == st["param_groups"]
    assert list(sc["state"]) == list(st["state"])
    for k in st["state"]:
        assert_state_bitwise(sc["state"][k], st["state"][k])
    fresh = getattr(core.optim, cls)(pair.cparams, lr=123.0)
    fresh.load_state_dict(sc)
    assert fresh.param_groups[0]["lr"] == st["param_groups"][0]["lr"]
    pair.copt = fresh
    for step in range(STEPS):
        pair.step()
        assert pair.mismatches() == [0] * len(pair.cparams), f"step {step}"


def test_kernels_handle_non_contiguous_and_chunk_edges(torch):
    rng = np.random.default_rng(5)
    for n in (1, 7, _kernels.CHUNK - 1, _kernels.CHUNK, _kernels.CHUNK + 3):
        a, b, c = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
        for alpha in (-0.0123, 1, -1, 0.0):
            x = a.copy()
            _kernels.add_(x, b, alpha)
            np.testing.assert_array_equal(x, torch.tensor(a).add_(torch.tensor(b), alpha=alpha).numpy())
        for w in (0.1, 0.7):
            x = a.copy()
            _kernels.lerp_(x, b, w)
            np.testing.assert_array_equal(x, torch.tensor(a).lerp_(torch.tensor(b), w).numpy())
        x = a.copy()
        _kernels.addcmul_(x, b, c, 0.3)
        np.testing.assert_array_equal(x, torch.tensor(a).addcmul_(torch.tensor(b), torch.tensor(c), value=0.3).numpy())
    m = rng.standard_normal((64, 33)).astype(np.float32)
    g = rng.standard_normal((33, 64)).astype(np.float32).T          # a transposed (non-contiguous) operand
    x = m.copy()
    _kernels.add_(x, g, 0.37)
    np.testing.assert_array_equal(x, torch.tensor(m).add_(torch.tensor(g), alpha=0.37).numpy())
    x = m.copy()
    _kernels.lerp_(x, g, 0.9)
    np.testing.assert_array_equal(x, torch.tensor(m).lerp_(torch.tensor(g), 0.9).numpy())


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("shape", [(1,), (7,), (_kernels.CHUNK + 5,), (256, 784), (33, 64)])
def test_adam_update_whole_array_path_is_bitwise_torch(torch, mkl_sqrt, seed, shape):
    """adam_update_ (float32 ufuncs over whole arrays) against torch's denom / addcdiv_ sequence, with values
    spanning many exponents, zeros, and a transposed exp_avg."""
    rng = np.random.default_rng(seed)
    scale = np.exp2(rng.integers(-30, 30, shape)).astype(np.float32)
    p, m = (rng.standard_normal(shape).astype(np.float32) * scale for _ in range(2))
    v = (rng.standard_normal(shape).astype(np.float32) * scale) ** 2
    v.reshape(-1)[:: 11] = 0
    if len(shape) == 2:
        m = np.ascontiguousarray(m.T).T                     # Fortran-ordered operand
    bc2, eps, step = float(rng.uniform(0.01, 1)), float(10.0 ** rng.integers(-10, -4)), float(rng.uniform(1e-4, 0.1))
    tp, tm, tv = torch.tensor(p), torch.tensor(m), torch.tensor(v)
    tp.addcdiv_(tm, (tv.sqrt() / bc2).add_(eps), value=-step)
    x = p.copy()
    _kernels.adam_update_(x, m, v, bc2, eps, step)
    np.testing.assert_array_equal(x, tp.numpy())
