"""The activations of issue #14 vs torch: values, dtypes, grad_fn names, gradients (backward and
create_graph double backward), in-place variants, torch.* twins, dtype errors, rrelu's random stream,
their nn modules (reprs and forward) and their CLI examples."""
from __future__ import annotations

import json
import shlex
import warnings

import numpy as np
import pytest
from typer.testing import CliRunner

import core
import core.nn.functional as CF
from conftest import cli_app_with
from core.ops.registry import OPS

RNG = np.random.default_rng(14)
X = RNG.standard_normal((3, 4, 5)) * 3
X[0, 0, :4] = [-3.0, 3.0, 0.0, 0.5]          # the kinks of hardswish / hardsigmoid / shrinks / threshold
W4 = RNG.random(4) + 0.1

# (id, x, y or None, fn(L, F, x, y)); x and y require grad
CASES = [
    ("hardswish", X, None, lambda L, F, x, y: F.hardswish(x)),
    ("hardsigmoid", X, None, lambda L, F, x, y: F.hardsigmoid(x)),
    ("relu6", X, None, lambda L, F, x, y: F.relu6(x)),
    ("selu", X, None, lambda L, F, x, y: F.selu(x)),
    ("torch_selu", X, None, lambda L, F, x, y: L.selu(x)),
    ("celu", X, None, lambda L, F, x, y: F.celu(x, 0.7)),
    ("torch_celu", X, None, lambda L, F, x, y: L.celu(x, 1.5)),
    ("glu", X, None, lambda L, F, x, y: F.glu(x, 1)),
    ("glu_last", X[..., :4], None, lambda L, F, x, y: F.glu(x)),
    ("prelu_channels", X, W4, lambda L, F, x, w: F.prelu(x, w)),
    ("prelu_single", X, W4[:1], lambda L, F, x, w: L.prelu(x, w)),
    ("prelu_method_1d", X[0, 0], W4[:1], lambda L, F, x, w: x.prelu(w)),
    ("rrelu_eval", X, None, lambda L, F, x, y: F.rrelu(x, 0.1, 0.3)),
    ("mish", X, None, lambda L, F, x, y: F.mish(x)),
    ("softsign", X, None, lambda L, F, x, y: F.softsign(x)),
    ("tanhshrink", X, None, lambda L, F, x, y: F.tanhshrink(x)),
    ("threshold", X, None, lambda L, F, x, y: F.threshold(x, 0.5, -2.0)),
    ("torch_threshold", X, None, lambda L, F, x, y: L.threshold(x, -1.0, 7.0)),
    ("softshrink", X, None, lambda L, F, x, y: F.softshrink(x, 0.5)),
    ("softshrink_0", X, None, lambda L, F, x, y: F.softshrink(x, 0.0)),
    ("hardshrink", X, None, lambda L, F, x, y: F.hardshrink(x, 0.5)),
    ("hardshrink_method", X, None, lambda L, F, x, y: x.hardshrink(3.0)),
    ("torch_hardshrink", X, None, lambda L, F, x, y: L.hardshrink(x)),
    ("softmin", X, None, lambda L, F, x, y: F.softmin(x, 1)),
    ("softmin_dtype", X, None, lambda L, F, x, y: F.softmin(x, -1, dtype=L.float32)),
]


def _run(lib, F, x, y, fn):
    xs = lib.tensor(x, requires_grad=True)
    ys = None if y is None else lib.tensor(y, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(lib, F, xs, ys)
    return xs, ys, out


def _np(t):
    return None if t is None else t.detach().numpy(force=True) if hasattr(t, "_is_zerotensor") else t.detach().numpy()


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(torch, case):
    _, x, y, fn = case
    xc, yc, oc = _run(core, CF, x, y, fn)
    xt, yt, ot = _run(torch, torch.nn.functional, x, y, fn)
    assert tuple(oc.shape) == tuple(ot.shape) and str(oc.dtype) == str(ot.dtype)
    np.testing.assert_allclose(_np(oc), _np(ot), rtol=1e-6 if oc.dtype == core.float32 else 1e-12, atol=1e-12)
    assert oc.grad_fn.name() == ot.grad_fn.name()
    wc = core.tensor(RNG.standard_normal(tuple(oc.shape)), dtype=oc.dtype)
    wt = torch.tensor(wc.numpy())
    ins_c = [t for t in (xc, yc) if t is not None]
    ins_t = [t for t in (xt, yt) if t is not None]
    gc = core.autograd.grad((oc * wc).sum(), ins_c, create_graph=True)
    gt = torch.autograd.grad((ot * wt).sum(), ins_t, create_graph=True)
    for a, b in zip(gc, gt, strict=True):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-6 if oc.dtype == core.float32 else 1e-10,
                                   atol=1e-7 if oc.dtype == core.float32 else 1e-12)
    # double backward: d/d inputs of sum(grad^2)
    sc = sum((g * g).sum() for g in gc if g.requires_grad)
    st = sum((g * g).sum() for g in gt if g.requires_grad)
    # a piecewise-constant derivative: core's gradient does not require grad where torch's does (zero)
    if case[0] == "hardsigmoid":   # both: "derivative for aten::hardsigmoid_backward is not implemented"
        with pytest.raises(RuntimeError, match="not implemented") as et:
            torch.autograd.grad(st, ins_t, allow_unused=True)
        with pytest.raises(RuntimeError, match="not implemented") as ec:
            core.autograd.grad(sc, ins_c, allow_unused=True)
        assert str(ec.value) == str(et.value)
        return
    hc = [None] * len(ins_c) if isinstance(sc, int) else core.autograd.grad(sc, ins_c, allow_unused=True)
    ht = [None] * len(ins_t) if isinstance(st, int) else torch.autograd.grad(st, ins_t, allow_unused=True)
    for a, b in zip(hc, ht, strict=True):
        a, b = _np(a), _np(b)
        if a is None and b is None:
            continue
        np.testing.assert_allclose(a if a is not None else np.zeros_like(b), b if b is not None else np.zeros_like(a),
                                   rtol=1e-6 if oc.dtype == core.float32 else 1e-9,
                                   atol=1e-7 if oc.dtype == core.float32 else 1e-10)


@pytest.mark.parametrize("n", [9, 16, 21, 40])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["hardswish", "hardsigmoid", "selu", "celu", "softshrink", "hardshrink", "prelu",
                                  "threshold", "mish", "rrelu"])
def test_nan_and_inf_like_torch(torch, name, dtype, n):
    """NaN and inf inputs: forward and gradient as torch's kernels (NaN in the vector lanes and in the scalar
    tail of ATen's CPU loop, which can differ)."""
    v = np.resize(np.array([np.nan, -np.inf, np.inf, 0.0, -3.0, 3.0, 0.5, -0.5, 7.0]), n).astype(dtype)
    v[-1] = np.nan
    res = []
    for L, F in ((core, CF), (torch, torch.nn.functional)):
        x = L.tensor(v, requires_grad=True)
        args = {"prelu": (L.tensor([0.25], dtype=x.dtype),), "threshold": (0.5, 2.0)}.get(name, ())
        out = getattr(F, name)(x, *args)
        (gx,) = L.autograd.grad(out, x, L.ones_like(out))
        res.append((out.detach().numpy(), gx.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-6, equal_nan=True)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("name", ["hardswish", "hardsigmoid", "relu6", "selu", "celu", "mish", "softsign",
                                  "tanhshrink", "softshrink", "hardshrink", "glu"])
def test_float32_close_to_torch(torch, name):
    x = X.astype(np.float32)[..., :4]
    a = getattr(CF, name)(core.tensor(x))
    b = getattr(torch.nn.functional, name)(torch.tensor(x))
    assert str(a.dtype) == str(b.dtype) == "torch.float32"
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-6, atol=1e-7)


# (id, fn(L, F, t)): in-place variants on a non-leaf (the grad_fn of the rebased result and the gradient)
INPLACE = [
    ("hardswish", lambda L, F, t: F.hardswish(t, inplace=True)),
    ("hardsigmoid", lambda L, F, t: F.hardsigmoid(t, True)),
    ("relu6", lambda L, F, t: F.relu6(t, inplace=True)),
    ("selu", lambda L, F, t: F.selu(t, True)),
    ("selu_", lambda L, F, t: F.selu_(t)),
    ("torch_selu_", lambda L, F, t: L.selu_(t)),
    ("celu", lambda L, F, t: F.celu(t, 2.0, True)),
    ("torch_celu_", lambda L, F, t: L.celu_(t, 0.5)),
    ("mish", lambda L, F, t: F.mish(t, inplace=True)),
    ("threshold", lambda L, F, t: F.threshold(t, 0.1, 3.0, True)),
    ("threshold_", lambda L, F, t: F.threshold_(t, 0.1, 3.0)),
    ("torch_threshold_", lambda L, F, t: L.threshold_(t, 0.1, 3.0)),
    ("rrelu_eval", lambda L, F, t: F.rrelu(t, inplace=True)),
    ("rrelu_", lambda L, F, t: F.rrelu_(t, 0.2, 0.2)),
]


@pytest.mark.parametrize("case", INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_variants(torch, case):
    _, fn = case
    res = []
    for L, F in ((core, CF), (torch, torch.nn.functional)):
        x = L.tensor(X, requires_grad=True)
        t = x * 1.0
        out = fn(L, F, t)
        assert out is t
        out.backward(L.tensor(np.linspace(-1, 1, X.size).reshape(X.shape)))
        res.append((out.detach().numpy(), out.grad_fn.name(), x.grad.numpy(), t._version))
    (vc, nc, gc, verc), (vt, nt, gt, vert) = res
    np.testing.assert_allclose(vc, vt, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gc, gt, rtol=1e-12, atol=1e-12)
    assert nc == nt and verc == vert


def test_inplace_on_leaf_requiring_grad_raises_as_torch(torch):
    for L, F in ((core, CF), (torch, torch.nn.functional)):
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            F.hardswish(L.tensor([1.0, -1.0], requires_grad=True), inplace=True)


@pytest.mark.parametrize("name, call", [
    ("hardswish", lambda L, F, t: F.hardswish(t)), ("hardsigmoid", lambda L, F, t: F.hardsigmoid(t)),
    ("relu6", lambda L, F, t: F.relu6(t)), ("selu", lambda L, F, t: F.selu(t)), ("celu", lambda L, F, t: F.celu(t)),
    ("glu", lambda L, F, t: F.glu(t)), ("mish", lambda L, F, t: F.mish(t)), ("softsign", lambda L, F, t: F.softsign(t)),
    ("tanhshrink", lambda L, F, t: F.tanhshrink(t)), ("threshold", lambda L, F, t: F.threshold(t, 0, 5)),
    ("softshrink", lambda L, F, t: F.softshrink(t)), ("hardshrink", lambda L, F, t: F.hardshrink(t)),
    ("softmin", lambda L, F, t: F.softmin(t, 0)), ("rrelu", lambda L, F, t: F.rrelu(t)),
    ("rrelu_train", lambda L, F, t: F.rrelu(t, training=True)),
    ("prelu", lambda L, F, t: F.prelu(t, L.tensor([1]))),
])
@pytest.mark.parametrize("values", [[1, -2], [True, False]], ids=["int64", "bool"])
def test_integer_and_bool_inputs(torch, name, call, values):
    """Each activation's dtype support: the same result or the same error class and message as torch."""
    outs = []
    for L, F in ((core, CF), (torch, torch.nn.functional)):
        try:
            r = call(L, F, L.tensor(values))
            outs.append(("ok", str(r.dtype), r.numpy().tolist()))
        except Exception as e:  # noqa: BLE001 - the error is the result compared
            outs.append((type(e).__name__, str(e).split("\n")[0]))
    assert outs[0] == outs[1]


@pytest.mark.parametrize("call", [
    lambda L, F: F.glu(L.tensor(1.0)),
    lambda L, F: F.glu(L.ones(3, 5), 1),
    lambda L, F: F.glu(L.ones(4), 2),
    lambda L, F: F.softshrink(L.ones(3), -0.5),
    lambda L, F: F.softshrink(L.ones(3, dtype=L.float64), -2.0),
    lambda L, F: F.celu(L.ones(3), 0.0),
    lambda L, F: F.rrelu(L.ones(3), 0.5, 0.2, True),
    lambda L, F: F.prelu(L.ones(2, 3), L.ones(2)),
    lambda L, F: F.prelu(L.tensor(1.0), L.ones(2)),
    lambda L, F: F.prelu(L.ones(2, 3), L.ones(1, 1)),
    lambda L, F: F.prelu(L.ones(2, 3), L.ones(3, dtype=L.float64)),
])
def test_errors_match_torch(torch, call):
    msgs = []
    for L, F in ((core, CF), (torch, torch.nn.functional)):
        with pytest.raises(Exception) as e:
            call(L, F)
        msgs.append((type(e.value).__name__, str(e.value).split("\n")[0]))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("call", [
    lambda L, F, t: F.rrelu(t, 0.1, 0.4, training=True),
    lambda L, F, t: F.rrelu(t.transpose(0, 2), training=True),
    lambda L, F, t: L.rrelu(t, 0.2, 0.25, True),
    lambda L, F, t: F.rrelu(t * 1.0, 0.3, 0.6, True, True),
], ids=["F", "noncontiguous", "torch", "inplace"])
def test_rrelu_training_follows_torchs_stream(torch, call, dtype):
    """Training rrelu draws one uniform double per non-positive element from the generator, as ATen's
    rrelu_with_noise: the same seed gives the same slopes, bit for bit, and the same gradient."""
    x = X.astype(dtype)
    res = []
    for L, F in ((core, CF), (torch, torch.nn.functional)):
        L.manual_seed(11)
        t = L.tensor(x, requires_grad=True)
        out = call(L, F, t)
        out.backward(L.ones_like(out))
        res.append((out.detach().numpy(), t.grad.numpy(), out.grad_fn.name(), L.rand(2).numpy()))
    for a, b in zip(res[0], res[1]):
        np.testing.assert_array_equal(a, b)


def test_rrelu_equal_bounds_still_draw(torch):
    """lower == upper in training: every slope is that value, but the generator still advances, as torch's."""
    for L, F in ((core, CF), (torch, torch.nn.functional)):
        L.manual_seed(0)
        out = F.rrelu(L.tensor(X), 0.2, 0.2, training=True)
        np.testing.assert_allclose(out.numpy(), np.where(X > 0, X, 0.2 * X))
    core.manual_seed(1)
    torch.manual_seed(1)
    CF.rrelu(core.tensor(X), 0.2, 0.2, training=True)
    torch.nn.functional.rrelu(torch.tensor(X), 0.2, 0.2, training=True)
    np.testing.assert_array_equal(core.rand(3).numpy(), torch.rand(3).numpy())


def test_softmin_implicit_dim_warns_as_torch(torch):
    for L, F in ((core, CF), (torch, torch.nn.functional)):
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
            F.softmin(L.tensor(X))


# -- modules ----------------------------------------------------------------------------------------

MODULES = [
    ("Hardswish", (), {}), ("Hardswish", (True,), {}), ("Hardsigmoid", (True,), {}), ("ReLU6", (), {}),
    ("ReLU6", (True,), {}), ("SELU", (), {}), ("SELU", (True,), {}), ("CELU", (), {}), ("CELU", (2.0, True), {}),
    ("GLU", (), {}), ("GLU", (1,), {}), ("PReLU", (), {}), ("PReLU", (4, 0.1), {}), ("RReLU", (), {}),
    ("RReLU", (0.1, 0.3, True), {}), ("Mish", (), {}), ("Mish", (True,), {}), ("Softsign", (), {}),
    ("Tanhshrink", (), {}), ("Threshold", (0.1, 20), {}), ("Threshold", (0.1, 20.0, True), {}),
    ("Softshrink", (), {}), ("Hardshrink", (1.0,), {}), ("Softmin", (), {}), ("Softmin", (1,), {}),
]


@pytest.mark.parametrize("case", MODULES, ids=[f"{c[0]}{c[1]}" for c in MODULES])
def test_modules_repr_and_forward(torch, case):
    name, args, kwargs = case
    mc = getattr(core.nn, name)(*args, **kwargs)
    mt = getattr(torch.nn, name)(*args, **kwargs)
    assert repr(mc) == repr(mt)
    assert [(n, tuple(p.shape)) for n, p in mc.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in mt.named_parameters()]
    for (_, pc), (_, pt) in zip(mc.named_parameters(), mt.named_parameters()):
        np.testing.assert_array_equal(pc.detach().numpy(), pt.detach().numpy())
    mc.eval()
    mt.eval()
    x = X[..., :4].astype(np.float32)   # float32, the parameters' dtype (prelu does not promote)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        oc = mc(core.tensor(x) * 1.0)
        ot = mt(torch.tensor(x) * 1.0)
    assert str(oc.dtype) == str(ot.dtype)
    np.testing.assert_allclose(oc.detach().numpy(), ot.detach().numpy(), rtol=1e-6, atol=1e-7)


def test_prelu_module_learns_its_weight(torch):
    res = []
    for L in (core, torch):
        m = L.nn.PReLU(4)
        m(L.tensor(X[:, :, :2].astype(np.float32))).sum().backward()
        res.append(m.weight.grad.numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-6)


# -- CLI examples ------------------------------------------------------------------------------------

def _t(T, v):
    return T.tensor(v)


_A = [[-4.0, -1, 0, 2, 5]]
CLI_REFERENCE = {
    "hardswish": lambda T: T.nn.functional.hardswish(_t(T, _A)),
    "hardsigmoid": lambda T: T.nn.functional.hardsigmoid(_t(T, _A)),
    "relu6": lambda T: T.nn.functional.relu6(_t(T, _A)),
    "selu": lambda T: T.nn.functional.selu(_t(T, _A)),
    "celu": lambda T: T.nn.functional.celu(_t(T, _A), 2.0),
    "glu": lambda T: T.nn.functional.glu(_t(T, [[1.0, -2, 3, 0.5]]), 1),
    "prelu": lambda T: T.prelu(_t(T, [[-2.0, 1], [3, -4]]), _t(T, [0.25, 0.5])),
    "rrelu": lambda T: T.nn.functional.rrelu(_t(T, _A), training=False, upper=0.5),
    "mish": lambda T: T.nn.functional.mish(_t(T, _A)),
    "softsign": lambda T: T.nn.functional.softsign(_t(T, _A)),
    "tanhshrink": lambda T: T.nn.functional.tanhshrink(_t(T, _A)),
    "threshold": lambda T: T.nn.functional.threshold(_t(T, _A), 0.5, -1.0),
    "softshrink": lambda T: T.nn.functional.softshrink(_t(T, _A), 1.0),
    "hardshrink": lambda T: T.hardshrink(_t(T, _A), 1.0),
    "softmin": lambda T: T.nn.functional.softmin(_t(T, _A), 1),
}


def run_cli_example(torch, name, reference):
    """The command's example (tensorcli/opspec/), run through the CLI with --json, equals torch's computation."""
    from tensorcli import opspec
    example = opspec.examples(name)[0]
    r = CliRunner().invoke(cli_app_with(("ops",)), shlex.split(example)[1:] + ["--json"], env={"NO_COLOR": "1"})
    assert r.exit_code == 0, r.stderr
    got = json.loads(r.stdout)["result"]
    ref = reference(torch)
    assert got["shape"] == list(ref.shape)
    np.testing.assert_allclose(np.asarray(got["data"], dtype=np.float64), ref.double().numpy(), rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("name", sorted(CLI_REFERENCE))
def test_cli_example_matches_torch(torch, name):
    run_cli_example(torch, name, CLI_REFERENCE[name])


RNG_FIXED = np.random.default_rng(1).standard_normal((4, 6))


@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("dim", [-1, 0])
def test_gumbel_softmax_draws_torchs_noise(torch, hard, dim):
    """g = -log(Exponential(1)) from the default generator (torch's exponential_ bit for bit; log to the last
    bit), softmax((logits + g) / tau); hard: the one-hot argmax with the soft sample's gradient."""
    res = []
    for L in (core, torch):
        L.manual_seed(5)
        x = L.tensor(RNG_FIXED.astype(np.float32), requires_grad=True)
        y = L.nn.functional.gumbel_softmax(x, tau=0.5, hard=hard, dim=dim)
        (y * L.arange(24.0).reshape(4, 6)).sum().backward()
        res.append((y.detach().numpy(), x.grad.numpy(), y.grad_fn.name(), L.rand(3).numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-4, atol=1e-5)
    assert res[0][2] == res[1][2]
    np.testing.assert_array_equal(res[0][3], res[1][3])   # the stream advanced exactly as torch's


def test_gumbel_softmax_eps_is_deprecated_as_in_torch(torch):
    for L in (core, torch):
        with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
            L.nn.functional.gumbel_softmax(L.ones(2, 3), eps=1e-5)

