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
CHUNK = 1 << 12     # the kernels' chunk size in this module's tests: chunk edges at sizes that stay fast


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch):
    """Run the kernels with CHUNK-element chunks (production chunks are 2**18: one chunk for most parameters),
    so that the chunk loops and their edges are exercised on small arrays."""
    monkeypatch.setattr(_kernels, "CHUNK", CHUNK)
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
        r = torch.from_numpy(np.array(x)).sqrt().numpy()     # a copy: contiguous, and 0-dim stays 0-dim
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
def test_float64_parameters_keep_dtype_and_are_bitwise(torch, mkl_sqrt, name):
    cls, kwargs = CONFIGS[name]
    pair = Pair(torch, cls, kwargs, dtype="float64")
    for _ in range(10):
        pair.step()
    for pc, pt in zip(pair.cparams, pair.tparams):
        assert pc.dtype == core.float64
        np.testing.assert_array_equal(pc.detach().numpy(), pt.detach().numpy())


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
    for n in (1, 7, CHUNK - 1, CHUNK, CHUNK + 3):
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
@pytest.mark.parametrize("shape", [(1,), (7,), (CHUNK + 5,), (256, 784), (33, 64)])
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


def _midpoint_pairs(count=64):
    """Float32 significands G (even) and B with G * B = 2**46 + k, 0 < k < 2**16: (G * 2**-23) * (B * 2**-47)
    is 2**-24 just above a half, so 1 + that product is within half a float64 ulp of the float32 midpoint
    1 + 2**-24: float64 rounds onto the midpoint, float32's single FMA rounding goes up."""
    G = np.arange(2 ** 23, 2 ** 23 + 2 ** 21, 2, dtype=np.int64)
    B = -(-(2 ** 46) // G)
    k = G * B - 2 ** 46
    ok = (B < 2 ** 24) & (k > 0) & (k < 2 ** 16)
    return G[ok][:count], B[ok][:count]


@pytest.mark.parametrize("seed", range(3))
def test_fma_kernels_break_float64_double_rounding_ties_like_torch(torch, seed):
    """add_ / lerp_ / addcmul_ on inputs whose float64 sum lands exactly on a float32 midpoint (scaled by powers
    of two, both signs, scattered in random data across chunk edges) agree with torch's single rounding."""
    rng = np.random.default_rng(seed)
    G, B = _midpoint_pairs()
    n = CHUNK + 4099
    where = rng.choice(n, G.size, replace=False)
    scale = np.exp2(rng.integers(-60, 60, G.size)) * rng.choice([-1.0, 1.0], G.size)
    c = rng.standard_normal(n).astype(np.float32)
    a = rng.standard_normal(n).astype(np.float32)
    c[where] = scale
    a[where] = G * 2.0 ** -23                                # even G: 1 + a is a float32, so end - out == a
    bvals = (B * 2.0 ** -47).astype(np.float32)
    for b in bvals[:4]:
        x = c.copy()
        _kernels.add_(x, a, float(b))
        np.testing.assert_array_equal(x, torch.tensor(c).add_(torch.tensor(a), alpha=float(b)).numpy())
    bt = rng.standard_normal(n).astype(np.float32)
    bt[where] = bvals
    x = c.copy()
    _kernels.addcmul_(x, a, bt, 1.0)
    np.testing.assert_array_equal(x, torch.tensor(c).addcmul_(torch.tensor(a), torch.tensor(bt), value=1.0).numpy())
    base = np.ones(n, np.float32) * np.float32(scale[0])
    end = (base + a * np.float32(scale[0])).astype(np.float32)
    for w in bvals[:4]:
        x = base.copy()
        _kernels.lerp_(x, end, float(w))
        np.testing.assert_array_equal(x, torch.tensor(base).lerp_(torch.tensor(end), float(w)).numpy())


def test_old_float64_rounding_really_misses_those_ties(torch):
    """The constructed inputs do separate double rounding from torch (so the test above can fail)."""
    G, B = _midpoint_pairs(8)
    a, b = (G * 2.0 ** -23).astype(np.float32), (B * 2.0 ** -47).astype(np.float32)
    double = (np.float64(1.0) + a.astype(np.float64) * b.astype(np.float64)).astype(np.float32)
    single = torch.ones(8).addcmul_(torch.tensor(a), torch.tensor(b)).numpy()
    assert (double != single).all()


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("shape", [(5,), (CHUNK + 17,), (300, 257), (40, 6)])
def test_fma_kernels_bitwise_over_extreme_exponents_zeros_and_specials(torch, seed, shape):
    """add_ (alpha), lerp_ (both branches of ATen's lerp) and addcmul_ against torch on values spanning
    float32's exponent range, subnormals, signed zeros, inf and nan."""
    rng = np.random.default_rng(seed)

    def arr():
        x = (rng.standard_normal(shape) * np.exp2(rng.integers(-140, 120, shape))).astype(np.float32)
        flat = x.reshape(-1)
        k = max(1, flat.size // 50)
        flat[rng.choice(flat.size, k)] = 0.0
        flat[rng.choice(flat.size, k)] = -0.0
        flat[rng.choice(flat.size, k)] = rng.choice([np.inf, -np.inf, np.nan], k)
        return x

    c, a, t2 = arr(), arr(), arr()
    with np.errstate(all="ignore"):
        for alpha in (-0.01, 3.5, 1e-30):
            x = c.copy()
            _kernels.add_(x, a, alpha)
            np.testing.assert_array_equal(x, torch.tensor(c).add_(torch.tensor(a), alpha=alpha).numpy())
        for w in (0.1, 0.4999, 0.5, 0.9):
            x = c.copy()
            _kernels.lerp_(x, a, w)
            np.testing.assert_array_equal(x, torch.tensor(c).lerp_(torch.tensor(a), w).numpy())
        for v in (0.001, -2.0):
            x = c.copy()
            _kernels.addcmul_(x, a, t2, v)
            np.testing.assert_array_equal(x, torch.tensor(c).addcmul_(torch.tensor(a), torch.tensor(t2), value=v).numpy())


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name", ["SGD", "SGD-momentum", "SGD-nesterov-wd", "SGD-dampening-maximize", "Adam",
                                  "Adam-amsgrad-wd", "Adam-maximize-betas", "AdamW-amsgrad", "RMSprop-centered-momentum",
                                  "NAdam-wd", "RAdam-wd"])
def test_50_steps_bitwise_with_gradients_over_38_binades(torch, mkl_sqrt, seed, name):
    """Parameters of order 1 and fresh gradients spread over 2**-34 .. 2**4 every step, so that updates range
    from far below half a float32 ulp of the parameter to far above it; a chunk-crossing 1-D parameter, a 2-D
    and a tiny one. (Ties that float64 double rounding breaks wrongly are too rare to show up here, about one
    sum in 2**28: the constructed-midpoint and wide-exponent kernel tests above cover those.)"""
    cls, kwargs = CONFIGS[name]
    rng = np.random.default_rng(seed)

    def spread(shape, lo, hi):
        return (rng.standard_normal(shape) * np.exp2(rng.integers(lo, hi, shape))).astype(np.float32)

    values = [spread(CHUNK + 333, -2, 2), spread((47, 61), -2, 2), spread((5,), -2, 2)]
    tparams = [torch.tensor(v, requires_grad=True) for v in values]
    cparams = [core.tensor(v.copy(), requires_grad=True) for v in values]
    topt, copt = getattr(torch.optim, cls)(tparams, **kwargs), getattr(core.optim, cls)(cparams, **kwargs)
    for step in range(STEPS):
        for pt, pc in zip(tparams, cparams):
            g = spread(tuple(pt.shape), -34, 4)
            pt.grad, pc.grad = torch.tensor(g), core.tensor(g.copy())
        topt.step()
        copt.step()
        for pt, pc in zip(tparams, cparams):
            np.testing.assert_array_equal(pc.detach().numpy(), pt.detach().numpy(), err_msg=f"step {step}")


def test_fma_on_a_strided_output_rounds_ties_like_torch(torch):
    """A non-contiguous output takes the whole-array path, which repairs float64 midpoints the same way."""
    G, B = _midpoint_pairs(16)
    rng = np.random.default_rng(7)
    base = rng.standard_normal((16, 6)).astype(np.float32)
    base[:, 2] = 1.0
    a = rng.standard_normal(16).astype(np.float32)
    a[:] = G * 2.0 ** -23
    for b in (B[:3] * 2.0 ** -47).astype(np.float32):
        x = base.copy()
        _kernels.add_(x[:, 2], a, float(b))                     # x[:, 2] is strided
        t = torch.tensor(base)
        t[:, 2].add_(torch.tensor(a), alpha=float(b))
        np.testing.assert_array_equal(x, t.numpy())


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("weight1", ["midpoint", 0.1, 0.5, 0.9])
def test_adam_step32_is_torchs_adam_arithmetic(torch, mkl_sqrt, seed, weight1):
    """adam_step32_ (Adam's one-call path for a float32 parameter) against torch's lerp_ / mul_ / addcmul_ / sqrt /
    addcdiv_ sequence on values over many binades, zeros and specials, with exp_avg's lerp built to land on float32
    midpoints that float64 double rounding gets wrong (weight1 = "midpoint")."""
    rng = np.random.default_rng(seed)
    shape = (37, 41)
    n = shape[0] * shape[1]

    def arr(lo, hi):
        x = (rng.standard_normal(n) * np.exp2(rng.integers(lo, hi, n))).astype(np.float32)
        x[rng.choice(n, 20)] = rng.choice([0.0, -0.0, np.inf, -np.inf, np.nan], 20)
        return x
    p, g, m = arr(-30, 30), arr(-60, 20), arr(-60, 20)
    v = np.abs(arr(-100, 40))
    w = 0.5 if weight1 == 0.5 else 0.1 if weight1 == "midpoint" else weight1
    if weight1 == "midpoint":
        G, B = _midpoint_pairs()
        where = rng.choice(n, G.size, replace=False)
        m[where] = 1.0
        g[where] = 1.0 + G * 2.0 ** -23                  # g - m == G * 2**-23 exactly
        w = float((B * 2.0 ** -47).astype(np.float32)[0])
    p, g, m, v = (x.reshape(shape) for x in (p, g, m, v))
    beta2, bc2, eps, step = 0.999, 0.3, 1e-8, 0.01
    tp, tg, tm, tv = (torch.tensor(x) for x in (p, g, m, v))
    tm.lerp_(tg, w)
    tv.mul_(beta2).addcmul_(tg, tg, value=1 - beta2)
    tp.addcdiv_(tm, (tv.sqrt() / bc2).add_(eps), value=-step)
    cp, cm, cv = p.copy(), m.copy(), v.copy()
    with np.errstate(all="raise"):
        _kernels.adam_step32_(cp, g, cm, cv, w, beta2, 1 - beta2, bc2, eps, step)
    for c, t in ((cm, tm), (cv, tv), (cp, tp)):
        assert c.tobytes() == t.numpy().tobytes()
