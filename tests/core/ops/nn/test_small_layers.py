"""The small layers of issue #14 vs torch: pdist, pixel_shuffle / pixel_unshuffle, channel_shuffle,
bilinear, rms_norm, local_response_norm, alpha_dropout, feature_alpha_dropout, dropout3d (values, dtypes,
grad_fn names, gradients, errors, the random stream), their modules (reprs, init under a seed, forward)
and their CLI examples."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
import core.nn.functional as CF
from tests.core.ops.nn.test_activation_variants import run_cli_example

RNG = np.random.default_rng(23)
M = RNG.standard_normal((5, 4))
M[3] = M[1]                                 # a zero distance (pdist's subgradient at 0)
IMG = RNG.standard_normal((2, 8, 3, 4))
VOL = RNG.standard_normal((2, 3, 2, 3, 2))
X1 = RNG.standard_normal((2, 3, 4))
X2 = RNG.standard_normal((2, 3, 5))
WB = RNG.standard_normal((6, 4, 5))
BB = RNG.standard_normal(6)
W34 = RNG.random((3, 4)) + 0.5

# (id, inputs (requires grad), fn(L, F, *inputs), double backward in torch?)
CASES = [
    ("pdist_p2", (M,), lambda L, F, x: F.pdist(x), False),
    ("pdist_p1", (M,), lambda L, F, x: L.pdist(x, 1), False),
    ("pdist_p0", (M,), lambda L, F, x: F.pdist(x, 0), False),
    ("pdist_p1.5", (M,), lambda L, F, x: F.pdist(x, 1.5), False),
    ("pdist_p0.5", (M,), lambda L, F, x: F.pdist(x, 0.5), False),
    ("pdist_p3", (M,), lambda L, F, x: F.pdist(x, 3), False),
    ("pdist_inf", (M,), lambda L, F, x: F.pdist(x, float("inf")), False),
    ("pdist_one_row", (M[:1],), lambda L, F, x: F.pdist(x), False),
    ("pixel_shuffle", (IMG,), lambda L, F, x: F.pixel_shuffle(x, 2), True),
    ("pixel_shuffle_batch_dims", (IMG.reshape(1, 2, 8, 3, 4),), lambda L, F, x: L.pixel_shuffle(x, 2), True),
    ("pixel_unshuffle", (IMG[:, :, :2],), lambda L, F, x: F.pixel_unshuffle(x, 2), True),
    ("pixel_unshuffle_3d", (IMG[0, :, :2],), lambda L, F, x: L.pixel_unshuffle(x, 1), True),
    ("channel_shuffle", (IMG,), lambda L, F, x: F.channel_shuffle(x, 4), True),
    ("channel_shuffle_3d", (X1,), lambda L, F, x: L.channel_shuffle(x, 3), True),
    ("bilinear", (X1, X2, WB, BB), lambda L, F, a, b, w, c: F.bilinear(a, b, w, c), True),
    ("bilinear_nobias", (X1[0], X2[0], WB), lambda L, F, a, b, w: L.bilinear(a, b, w), True),
    ("bilinear_1d", (X1[0, 0], X2[0, 0], WB), lambda L, F, a, b, w: F.bilinear(a, b, w), True),
    ("rms_norm", (IMG,), lambda L, F, x: F.rms_norm(x, (3, 4)), True),
    ("rms_norm_weight_eps", (IMG, W34), lambda L, F, x, w: L.rms_norm(x, [3, 4], w, 0.5), True),
    ("rms_norm_list_shape", (X1, X1[0, 0]), lambda L, F, x, w: F.rms_norm(x, [4], w), True),
    ("local_response_norm_3d", (X1,), lambda L, F, x: F.local_response_norm(x, 2), True),
    ("local_response_norm_4d", (IMG,), lambda L, F, x: F.local_response_norm(x, 3, 0.1, 0.5, 2.0), True),
    ("local_response_norm_5d", (VOL,), lambda L, F, x: F.local_response_norm(x, 4, 1.0), True),
    ("alpha_dropout_eval", (IMG,), lambda L, F, x: F.alpha_dropout(x, 0.3) * 1, True),
    ("feature_alpha_dropout_eval", (IMG,), lambda L, F, x: F.feature_alpha_dropout(x, 0.3, False) * 1, True),
    ("dropout3d_eval", (VOL,), lambda L, F, x: F.dropout3d(x, 0.3, False) * 1, True),
    ("alpha_dropout_p1", (IMG,), lambda L, F, x: F.alpha_dropout(x, 1.0, True), True),
]


def _leaves(L, arrays):
    return [L.tensor(a, requires_grad=True) for a in arrays]


def _np(t):
    if t is None:
        return None
    return t.detach().numpy(force=True) if hasattr(t, "_is_zerotensor") else t.detach().numpy()


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(torch, case):
    _, arrays, fn, double = case
    ic, it = _leaves(core, arrays), _leaves(torch, arrays)
    oc, ot = fn(core, CF, *ic), fn(torch, torch.nn.functional, *it)
    assert tuple(oc.shape) == tuple(ot.shape) and str(oc.dtype) == str(ot.dtype)
    np.testing.assert_allclose(_np(oc), _np(ot), rtol=1e-12, atol=1e-12)
    assert oc.grad_fn.name() == ot.grad_fn.name()
    w = RNG.standard_normal(tuple(oc.shape))
    gc = core.autograd.grad((oc * core.tensor(w)).sum(), ic, create_graph=double, allow_unused=True)
    gt = torch.autograd.grad((ot * torch.tensor(w)).sum(), it, create_graph=double, allow_unused=True)
    for a, b in zip(gc, gt, strict=True):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-10, atol=1e-12)
    if not double:   # torch: "the derivative for '_pdist_backward' is not implemented"
        return
    sc = sum((g * g).sum() for g in gc if g.requires_grad)
    st = sum((g * g).sum() for g in gt if g.requires_grad)
    hc = [None] * len(ic) if isinstance(sc, int) else core.autograd.grad(sc, ic, allow_unused=True)
    ht = [None] * len(it) if isinstance(st, int) else torch.autograd.grad(st, it, allow_unused=True)
    for a, b in zip(hc, ht):
        a, b = _np(a), _np(b)
        if a is not None or b is not None:
            np.testing.assert_allclose(a if a is not None else np.zeros_like(b),
                                       b if b is not None else np.zeros_like(a), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("dtype", ["int64", "bool", "float32"])
@pytest.mark.parametrize("call", [
    lambda L, F, x: F.pixel_shuffle(x, 2), lambda L, F, x: F.pixel_unshuffle(x[:, :, :2], 2),
    lambda L, F, x: F.channel_shuffle(x, 2), lambda L, F, x: L.native_channel_shuffle(x, 4),
], ids=["pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle"])
def test_shuffles_keep_any_dtype(torch, call, dtype):
    a = (IMG * 3).astype(dtype)
    oc, ot = call(core, CF, core.tensor(a)), call(torch, torch.nn.functional, torch.tensor(a))
    assert str(oc.dtype) == str(ot.dtype) and oc.is_contiguous() == ot.is_contiguous()
    np.testing.assert_array_equal(oc.numpy(), ot.numpy())


def test_float32_close_to_torch(torch):
    for fn in (lambda L, F, x: F.pdist(x[0, 0]), lambda L, F, x: F.rms_norm(x, (3, 4)),
               lambda L, F, x: F.local_response_norm(x, 3), lambda L, F, x: F.pdist(x[0, 0], 0.7),
               lambda L, F, x: F.bilinear(x[0], x[1], L.ones(2, 4, 4))):
        a = fn(core, CF, core.tensor(IMG.astype(np.float32)))
        b = fn(torch, torch.nn.functional, torch.tensor(IMG.astype(np.float32)))
        assert str(a.dtype) == str(b.dtype) == "torch.float32"
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-6, atol=1e-6)


ERRORS = [
    lambda L, F: F.pdist(L.ones(3)), lambda L, F: F.pdist(L.ones(3, 2, dtype=L.int64)),
    lambda L, F: F.pdist(L.ones(3, 2), -1.0),
    lambda L, F: F.pixel_shuffle(L.ones(4, 2), 2), lambda L, F: F.pixel_shuffle(L.ones(3, 2, 2), 0),
    lambda L, F: F.pixel_shuffle(L.ones(3, 2, 2), 2),
    lambda L, F: F.pixel_unshuffle(L.ones(4, 2), 2), lambda L, F: F.pixel_unshuffle(L.ones(1, 4, 4), -1),
    lambda L, F: F.pixel_unshuffle(L.ones(1, 3, 4), 2), lambda L, F: F.pixel_unshuffle(L.ones(1, 4, 3), 2),
    lambda L, F: F.channel_shuffle(L.ones(4, 2), 2), lambda L, F: F.channel_shuffle(L.ones(1, 4, 2), 0),
    lambda L, F: F.channel_shuffle(L.ones(1, 3, 2), 2),
    lambda L, F: F.bilinear(L.ones(2, 3), L.ones(4), L.ones(1, 3, 4)),
    lambda L, F: F.bilinear(L.ones(2, 3), L.ones(3, 4), L.ones(1, 3, 4)),
    lambda L, F: F.bilinear(L.ones(2, 3), L.ones(2, 4), L.ones(1, 2, 4)),
    lambda L, F: F.bilinear(L.ones(2, 3), L.ones(2, 4), L.ones(1, 3, 5)),
    lambda L, F: F.bilinear(L.ones(2, 3), L.ones(2, 4), L.ones(1, 3, 4), L.ones(2)),
    lambda L, F: F.rms_norm(L.ones(2, 3), (2,)), lambda L, F: F.rms_norm(L.ones(2, 3), (3,), L.ones(2)),
    lambda L, F: F.rms_norm(L.ones(2, 3), ()), lambda L, F: F.rms_norm(L.ones(2, 3), (2, 4)),
    lambda L, F: F.rms_norm(L.ones(2, 3), 3), lambda L, F: F.rms_norm(L.ones(2, 3, dtype=L.int64), (3,)),
    lambda L, F: F.local_response_norm(L.ones(2, 3), 2),
    lambda L, F: F.alpha_dropout(L.ones(3), 1.5), lambda L, F: F.feature_alpha_dropout(L.ones(3), -0.1),
    lambda L, F: F.feature_alpha_dropout(L.ones(3), 0.5, True), lambda L, F: F.dropout3d(L.ones(2, 2, 2, 2), 2.0),
    lambda L, F: F.dropout1d(L.ones(3), 0.5), lambda L, F: F.dropout1d(L.ones(2, 2, 2, 2), 0.5),
    lambda L, F: F.dropout1d(L.ones(2, 2), -0.5),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(torch, call):
    msgs = []
    for L, F in ((core, CF), (torch, torch.nn.functional)):
        with pytest.raises(Exception) as e:
            call(L, F)
        msgs.append((type(e.value).__name__, str(e.value).split("\n")[0]))
    assert msgs[0] == msgs[1]


# -- modules ----------------------------------------------------------------------------------------

MODULES = [
    ("PairwiseDistance", (), {}, (X1, X1 * 2)), ("PairwiseDistance", (1.0, 1e-3, True), {}, (X1, X1 * 2)),
    ("CosineSimilarity", (2,), {}, (X1, X1 + 1)), ("PixelShuffle", (2,), {}, (IMG,)),
    ("PixelUnshuffle", (1,), {}, (IMG,)), ("ChannelShuffle", (2,), {}, (IMG,)),
    ("Bilinear", (4, 5, 6), {}, (X1, X2)), ("Bilinear", (4, 5, 2), {"bias": False}, (X1, X2)),
    ("RMSNorm", (4,), {}, (X1,)), ("RMSNorm", ([3, 4],), {"eps": 1e-3, "elementwise_affine": False}, (IMG,)),
    ("LocalResponseNorm", (3,), {"k": 2.0}, (IMG,)), ("AlphaDropout", (), {}, (IMG,)),
    ("FeatureAlphaDropout", (0.2, True), {}, (IMG,)), ("Dropout3d", (), {}, (VOL,)),
    ("Dropout1d", (0.4,), {}, (IMG[0],)),
]


@pytest.mark.parametrize("case", MODULES, ids=[f"{c[0]}{c[1]}" for c in MODULES])
def test_modules_repr_init_and_forward(torch, case):
    """Parameters drawn under the same seed equal torch's (Bilinear: uniform(-1/sqrt(in1), ...))."""
    name, args, kwargs, inputs = case
    core.manual_seed(3)
    torch.manual_seed(3)
    mc = getattr(core.nn, name)(*args, **kwargs).double()
    mt = getattr(torch.nn, name)(*args, **kwargs).double()
    assert repr(mc) == repr(mt)
    for (nc, pc), (nt, pt) in zip(mc.named_parameters(), mt.named_parameters(), strict=True):
        assert nc == nt
        np.testing.assert_array_equal(pc.detach().numpy(), pt.detach().numpy())
    mc.eval()
    mt.eval()
    oc = mc(*(core.tensor(a) for a in inputs))
    ot = mt(*(torch.tensor(a) for a in inputs))
    np.testing.assert_allclose(oc.detach().numpy(), ot.detach().numpy(), rtol=1e-12, atol=1e-12)


def test_bilinear_module_rejects_zero_in1_as_torch(torch):
    msgs = []
    for L in (core, torch):
        with pytest.raises(ValueError) as e:
            L.nn.Bilinear(0, 2, 3)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


CLI_REFERENCE = {
    "pdist": lambda T: T.pdist(T.tensor([[0.0, 0], [3, 4], [6, 8]]), 2),
    "pixel_shuffle": lambda T: T.pixel_shuffle(T.arange(1, 17).reshape(4, 2, 2), 2),
    "pixel_unshuffle": lambda T: T.pixel_unshuffle(T.tensor([[[1, 2], [3, 4]]]), 2),
    "channel_shuffle": lambda T: T.channel_shuffle(T.tensor([[[1], [2], [3], [4]]]), 2),
    "bilinear": lambda T: T.bilinear(T.tensor([[1.0, 2]]), T.tensor([[3.0, 4, 5]]),
                                     T.tensor([[[1.0, 0, 0], [0, 1, 0]]])),
    "rms_norm": lambda T: T.rms_norm(T.tensor([[1.0, 2, 3], [2, 4, 9]]), [3]),
    "local_response_norm": lambda T: T.nn.functional.local_response_norm(T.tensor([[[1.0, 2], [3, 4], [5, 6]]]), 2),
    "alpha_dropout": lambda T: T.nn.functional.alpha_dropout(T.tensor([[1.0, 2, 3, 4]]), 0.5, False),
    "feature_alpha_dropout": lambda T: T.nn.functional.feature_alpha_dropout(T.tensor([[[1.0, 2]], [[3, 4]]]), 0.5,
                                                                             False),
    "dropout3d": lambda T: T.nn.functional.dropout3d(T.tensor([[[[[1.0, 2]]]]]), 0.5, False),
    "dropout1d": lambda T: T.nn.functional.dropout1d(T.tensor([[[1.0, 2, 3]]]), 0.5, False),
    "affine_grid": lambda T: T.nn.functional.affine_grid(T.tensor([[[1.0, 0.2, 0.1], [0.3, 0.9, -0.2]]]), [1, 1, 2, 3],
                                                         align_corners=True),
}


@pytest.mark.parametrize("name", sorted(CLI_REFERENCE))
def test_cli_example_matches_torch(torch, name):
    run_cli_example(torch, name, CLI_REFERENCE[name])


# -- affine_grid -----------------------------------------------------------------------------------


