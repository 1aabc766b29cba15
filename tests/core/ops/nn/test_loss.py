"""The losses of issue #14 vs torch: values, dtypes, grad_fn names, gradients of every differentiable
argument (backward and create_graph double backward), torch.* twins with int reductions, argument
errors, the loss modules (reprs, forward) and the CLI examples."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core
import core.nn.functional as CF
from tests.core.ops.nn.test_activation_variants import run_cli_example

RNG = np.random.default_rng(41)
A = RNG.standard_normal((4, 5))
B = RNG.standard_normal((4, 5))
C = RNG.standard_normal((4, 5))
SIGN = np.where(RNG.random((4, 5)) > 0.5, 1.0, -1.0)
SIGN4 = np.array([1.0, -1.0, -1.0, 1.0])
CLS = np.array([1, 0, 4, 2])
ML = np.array([[3, 0, -1, 1, 2], [4, -1, 0, 0, 0], [0, 1, 2, 3, 4], [-1, 2, 0, 0, 0]])
PROB = RNG.random((4, 5))
POS = RNG.random((4, 5)) + 0.1
COUNTS = RNG.integers(0, 5, (4, 5)).astype(np.float64)
RED = ["none", "mean", "sum"]


def _t(L, a, grad=False):
    return L.tensor(a, requires_grad=grad)


# (id, fn(L, F, a, b, c) -> loss): a, b, c are A, B, C as leaves requiring grad
CASES = []
for r in RED:
    CASES += [
        (f"soft_margin_{r}", lambda L, F, a, b, c, r=r: F.soft_margin_loss(a, b.detach(), reduction=r)),
        (f"soft_margin_sign_{r}", lambda L, F, a, b, c, r=r: F.soft_margin_loss(a, _t(L, SIGN), reduction=r)),
        (f"margin_ranking_{r}", lambda L, F, a, b, c, r=r: F.margin_ranking_loss(a, b, _t(L, SIGN), 0.3, reduction=r)),
        (f"hinge_embedding_{r}", lambda L, F, a, b, c, r=r: F.hinge_embedding_loss(a, _t(L, SIGN), 0.5, reduction=r)),
        (f"cosine_embedding_{r}", lambda L, F, a, b, c, r=r: F.cosine_embedding_loss(a, b, _t(L, SIGN4), 0.1,
                                                                                     reduction=r)),
        (f"cosine_embedding_1d_{r}", lambda L, F, a, b, c, r=r: F.cosine_embedding_loss(a[0], b[0], _t(L, -1.0),
                                                                                        reduction=r)),
        (f"multi_margin_{r}", lambda L, F, a, b, c, r=r: F.multi_margin_loss(a, _t(L, CLS), reduction=r)),
        (f"multi_margin_p2_w_{r}", lambda L, F, a, b, c, r=r: F.multi_margin_loss(
            a, _t(L, CLS), p=2, margin=0.7, weight=_t(L, POS[0]), reduction=r)),
        (f"multi_margin_1d_{r}", lambda L, F, a, b, c, r=r: F.multi_margin_loss(a[1], _t(L, [3]), reduction=r)),
        (f"multi_margin_0d_target_{r}", lambda L, F, a, b, c, r=r: F.multi_margin_loss(a[1], _t(L, 3), reduction=r)),
        (f"multilabel_margin_{r}", lambda L, F, a, b, c, r=r: F.multilabel_margin_loss(a, _t(L, ML), reduction=r)),
        (f"multilabel_margin_1d_{r}", lambda L, F, a, b, c, r=r: F.multilabel_margin_loss(a[0], _t(L, ML[0]),
                                                                                          reduction=r)),
        (f"multilabel_soft_margin_{r}", lambda L, F, a, b, c, r=r: F.multilabel_soft_margin_loss(
            a, _t(L, PROB), reduction=r)),
        (f"multilabel_soft_margin_w_{r}", lambda L, F, a, b, c, r=r: F.multilabel_soft_margin_loss(
            a, b, weight=_t(L, POS[1]), reduction=r)),
        (f"triplet_margin_{r}", lambda L, F, a, b, c, r=r: F.triplet_margin_loss(a, b, c, reduction=r)),
        (f"triplet_margin_swap_p1_{r}", lambda L, F, a, b, c, r=r: F.triplet_margin_loss(
            a, b, c, margin=2.0, p=1, swap=True, reduction=r)),
        (f"triplet_distance_{r}", lambda L, F, a, b, c, r=r: F.triplet_margin_with_distance_loss(
            a, b, c, reduction=r)),
        (f"triplet_distance_fn_swap_{r}", lambda L, F, a, b, c, r=r: F.triplet_margin_with_distance_loss(
            a, b, c, distance_function=lambda x, y: 1.0 - F.cosine_similarity(x, y), swap=True, margin=0.5,
            reduction=r)),
        (f"poisson_nll_{r}", lambda L, F, a, b, c, r=r: F.poisson_nll_loss(a, _t(L, COUNTS), reduction=r)),
        (f"poisson_nll_full_{r}", lambda L, F, a, b, c, r=r: F.poisson_nll_loss(
            a.exp(), _t(L, COUNTS), log_input=False, full=True, reduction=r)),
        (f"gaussian_nll_{r}", lambda L, F, a, b, c, r=r: F.gaussian_nll_loss(a, b, c.abs(), reduction=r)),
        (f"gaussian_nll_full_homo_{r}", lambda L, F, a, b, c, r=r: F.gaussian_nll_loss(
            a, b, c[:, 0].abs(), full=True, reduction=r)),
        (f"gaussian_nll_float_var_{r}", lambda L, F, a, b, c, r=r: F.gaussian_nll_loss(a, b, 0.5, reduction=r)),
        (f"gaussian_nll_bcast_var_{r}", lambda L, F, a, b, c, r=r: F.gaussian_nll_loss(
            a, b, c[:, :1].abs(), eps=0.3, reduction=r)),
    ]
TWIN_CASES = [
    ("torch_margin_ranking", lambda L, F, a, b, c: L.margin_ranking_loss(a, b, _t(L, SIGN), 0.1, 2)),
    ("torch_hinge_embedding", lambda L, F, a, b, c: L.hinge_embedding_loss(a, _t(L, SIGN), 1.0, 0)),
    ("torch_cosine_embedding", lambda L, F, a, b, c: L.cosine_embedding_loss(a, b, _t(L, SIGN4), 0.0, 1)),
    ("torch_triplet_margin", lambda L, F, a, b, c: L.triplet_margin_loss(a, b, c, 1.0, 2.0, 1e-6, True, 1)),
    ("torch_poisson_nll", lambda L, F, a, b, c: L.poisson_nll_loss(a, _t(L, COUNTS), True, True, 1e-8, 2)),
]
# torch has no double backward for these kernels' backward ("derivative ... is not implemented")
NO_DOUBLE_BACKWARD = ("multi_margin", "multilabel_margin")


def _run(lib, fn):
    a, b, c = (_t(lib, v, True) for v in (A, B, C))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (a, b, c), fn(lib, lib.nn.functional, a, b, c)


def _np(t):
    if t is None:
        return None
    return t.detach().numpy(force=True) if hasattr(t, "_is_zerotensor") else t.detach().numpy()


@pytest.mark.parametrize("case", CASES + TWIN_CASES, ids=[c[0] for c in CASES + TWIN_CASES])
def test_matches_torch(torch, case):
    name, fn = case
    ic, oc = _run(core, fn)
    it, ot = _run(torch, fn)
    assert tuple(oc.shape) == tuple(ot.shape) and str(oc.dtype) == str(ot.dtype)
    np.testing.assert_allclose(_np(oc), _np(ot), rtol=1e-12, atol=1e-12)
    assert oc.grad_fn.name() == ot.grad_fn.name()
    w = RNG.standard_normal(tuple(oc.shape))
    gc = core.autograd.grad((oc * core.tensor(w)).sum(), ic, create_graph=True, allow_unused=True)
    gt = torch.autograd.grad((ot * torch.tensor(w)).sum(), it, create_graph=True, allow_unused=True)
    for a, b in zip(gc, gt, strict=True):
        a, b = _np(a), _np(b)
        if a is None or b is None:   # no path to that leaf: None in torch, None or zeros in core
            assert np.all((a if a is not None else 0) == 0) and np.all((b if b is not None else 0) == 0)
            continue
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    if any(k in name for k in NO_DOUBLE_BACKWARD):
        return
    sc = sum((g * g).sum() for g in gc if g is not None and g.requires_grad)
    st = sum((g * g).sum() for g in gt if g is not None and g.requires_grad)
    hc = [None] * 3 if isinstance(sc, int) else core.autograd.grad(sc, ic, allow_unused=True)
    ht = [None] * 3 if isinstance(st, int) else torch.autograd.grad(st, it, allow_unused=True)
    for a, b in zip(hc, ht):
        a, b = _np(a), _np(b)
        if a is not None or b is not None:
            np.testing.assert_allclose(a if a is not None else np.zeros_like(b),
                                       b if b is not None else np.zeros_like(a), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name, call", [
    ("soft_margin", lambda L, F, x: F.soft_margin_loss(x, L.tensor(SIGN[0], dtype=L.float32))),
    ("multi_margin", lambda L, F, x: F.multi_margin_loss(x.reshape(1, 5), L.tensor([2]))),
    ("multilabel_margin", lambda L, F, x: F.multilabel_margin_loss(x, L.tensor(ML[0]))),
    ("cosine_embedding", lambda L, F, x: F.cosine_embedding_loss(x, x.flip(0), L.tensor(-1))),
    ("triplet_margin", lambda L, F, x: F.triplet_margin_loss(x, x * 2, x.flip(0))),
    ("poisson_nll", lambda L, F, x: F.poisson_nll_loss(x, L.tensor(COUNTS[0], dtype=L.float32), full=True)),
])
def test_float32_close_to_torch(torch, name, call):
    x = A[0].astype(np.float32)
    a, b = call(core, CF, core.tensor(x)), call(torch, torch.nn.functional, torch.tensor(x))
    assert str(a.dtype) == str(b.dtype) == "torch.float32"
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-6, atol=1e-7)


ERRORS = [
    lambda L, F: F.margin_ranking_loss(L.ones(3), L.ones(3), L.ones(1, 3)),
    lambda L, F: F.margin_ranking_loss(L.ones(3), L.ones(3), L.ones(3), reduction="avg"),
    lambda L, F: F.soft_margin_loss(L.ones(3, 4), L.ones(3)),
    lambda L, F: F.multi_margin_loss(L.ones(2, 3), L.tensor([0, 1]), p=3),
    lambda L, F: F.multi_margin_loss(L.ones(2, 3), L.tensor([0, 1]), weight=L.ones(1, 3)),
    lambda L, F: F.multi_margin_loss(L.ones(2, 3), L.tensor([0, 1, 2])),
    lambda L, F: F.multi_margin_loss(L.ones(2, 3), L.tensor([[0], [1]])),
    lambda L, F: F.multi_margin_loss(L.ones(2, 3, 4), L.tensor([0, 1])),
    lambda L, F: F.multi_margin_loss(L.ones(2, 3), L.tensor([0, 1]), weight=L.ones(3, requires_grad=True)),
    lambda L, F: F.soft_margin_loss(L.ones(3), L.ones(3, requires_grad=True)),
    lambda L, F: F.multi_margin_loss(L.ones(2, 3), L.tensor([0, 1]), weight=L.ones(4)),
    lambda L, F: F.multi_margin_loss(L.ones(2, 3), L.tensor([0, 3])),
    lambda L, F: F.multi_margin_loss(L.ones(2, 0), L.tensor([0, 0])),
    lambda L, F: F.multi_margin_loss(L.ones(2, 3, dtype=L.int64), L.tensor([0, 1])),
    lambda L, F: F.multilabel_margin_loss(L.ones(2, 3), L.tensor([0, 1])),
    lambda L, F: F.multilabel_margin_loss(L.ones(3), L.tensor([0, 1])),
    lambda L, F: F.multilabel_margin_loss(L.ones(3), L.tensor([0, 5, 1])),
    lambda L, F: F.multilabel_margin_loss(L.ones(0, 3), L.ones(0, 2, dtype=L.int64)),
    lambda L, F: F.cosine_embedding_loss(L.ones(2, 3), L.ones(2, 3), L.ones(2, 1)),
    lambda L, F: F.cosine_embedding_loss(L.ones(2, 3), L.ones(2, 3), L.ones(())),
    lambda L, F: F.cosine_embedding_loss(L.ones(3), L.ones(2, 3), L.ones(2)),
    lambda L, F: F.triplet_margin_loss(L.ones(2, 3), L.ones(2, 3), L.ones(3)),
    lambda L, F: F.triplet_margin_loss(L.ones(2, 3), L.ones(2, 3), L.ones(2, 3), margin=0.0),
    lambda L, F: F.triplet_margin_with_distance_loss(L.ones(2, 3), L.ones(2, 3), L.ones(3)),
    lambda L, F: F.triplet_margin_with_distance_loss(L.ones(2, 3), L.ones(2, 3), L.ones(2, 3), margin=-1.0),
    lambda L, F: F.triplet_margin_with_distance_loss(L.ones(2, 3), L.ones(2, 3), L.ones(2, 3), reduction="x"),
    lambda L, F: F.poisson_nll_loss(L.ones(3), L.ones(3), reduction="avg"),
    lambda L, F: F.gaussian_nll_loss(L.ones(3), L.ones(3), -1.0),
    lambda L, F: F.gaussian_nll_loss(L.ones(3), L.ones(3), -L.ones(3)),
    lambda L, F: F.gaussian_nll_loss(L.ones(2, 3), L.ones(2, 3), L.ones(3, 2)),
    lambda L, F: F.gaussian_nll_loss(L.ones(3), L.ones(3), L.ones(3), reduction="avg"),
    lambda L, F: F.multilabel_soft_margin_loss(L.ones(2, 3), L.ones(2, 3), reduction="avg"),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(torch, call):
    msgs = []
    for L, F in ((core, CF), (torch, torch.nn.functional)):
        with pytest.raises(Exception) as e:
            call(L, F)
        msgs.append((type(e.value).__name__, str(e.value).split("\n")[0]))
    assert msgs[0] == msgs[1]


def test_legacy_size_average_flags_warn_as_torch(torch):
    for L, F in ((core, CF), (torch, torch.nn.functional)):
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            out = F.soft_margin_loss(L.tensor(A), L.tensor(B), size_average=False)
        np.testing.assert_allclose(out.numpy(), np.log1p(np.exp(-A * B)).sum(), rtol=1e-12)


# -- modules ----------------------------------------------------------------------------------------

MODULES = [
    ("SoftMarginLoss", (), {}, 2), ("MarginRankingLoss", (0.5,), {}, 3), ("HingeEmbeddingLoss", (0.5,), {}, 2),
    ("CosineEmbeddingLoss", (0.2,), {"reduction": "sum"}, 3), ("MultiMarginLoss", (2, 0.5), {}, 2),
    ("MultiLabelMarginLoss", (), {}, 2), ("MultiLabelSoftMarginLoss", (), {}, 2),
    ("TripletMarginLoss", (), {"swap": True}, 3), ("TripletMarginWithDistanceLoss", (), {"margin": 0.5}, 3),
    ("GaussianNLLLoss", (), {"full": True}, 3), ("PoissonNLLLoss", (), {"reduction": "none"}, 2),
]


def _module_args(L, name):
    return {"CosineEmbeddingLoss": (L.tensor(A), L.tensor(B), L.tensor(SIGN4)),
            "MarginRankingLoss": (L.tensor(A), L.tensor(B), L.tensor(SIGN)),
            "HingeEmbeddingLoss": (L.tensor(A), L.tensor(SIGN)),
            "MultiMarginLoss": (L.tensor(A), L.tensor(CLS)),
            "MultiLabelMarginLoss": (L.tensor(A), L.tensor(ML)),
            "GaussianNLLLoss": (L.tensor(A), L.tensor(B), L.tensor(POS)),
            "PoissonNLLLoss": (L.tensor(A), L.tensor(COUNTS)),
            }.get(name, (L.tensor(A), L.tensor(B), L.tensor(C)))


@pytest.mark.parametrize("case", MODULES, ids=[c[0] for c in MODULES])
def test_modules_repr_and_forward(torch, case):
    name, args, kwargs, nargs = case
    mc = getattr(core.nn, name)(*args, **kwargs)
    mt = getattr(torch.nn, name)(*args, **kwargs)
    assert repr(mc) == repr(mt)
    oc = mc(*_module_args(core, name)[:nargs])
    ot = mt(*_module_args(torch, name)[:nargs])
    np.testing.assert_allclose(oc.numpy(), ot.numpy(), rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda L: L.nn.MultiMarginLoss(p=3),
    lambda L: L.nn.MultiMarginLoss(weight=L.ones(2, 2)),
    lambda L: L.nn.TripletMarginLoss(margin=0),
    lambda L: L.nn.TripletMarginWithDistanceLoss(margin=-0.5),
])
def test_module_argument_errors(torch, call):
    msgs = []
    for L in (core, torch):
        with pytest.raises(ValueError) as e:
            call(L)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


CLI_REFERENCE = {
    "soft_margin_loss": lambda T: T.nn.functional.soft_margin_loss(T.tensor([0.5, -2, 1]), T.tensor([1.0, -1, 1])),
    "margin_ranking_loss": lambda T: T.nn.functional.margin_ranking_loss(T.tensor([0.5, 2]), T.tensor([1.0, 1]),
                                                                         T.tensor([1.0, -1])),
    "hinge_embedding_loss": lambda T: T.nn.functional.hinge_embedding_loss(T.tensor([0.5, 2, 0.1]),
                                                                           T.tensor([1.0, -1, -1])),
    "cosine_embedding_loss": lambda T: T.nn.functional.cosine_embedding_loss(
        T.tensor([[1.0, 0], [0, 1]]), T.tensor([[1.0, 1], [1, 0]]), T.tensor([1, -1])),
    "multi_margin_loss": lambda T: T.nn.functional.multi_margin_loss(T.tensor([[0.1, 0.8, 0.3]]), T.tensor([1])),
    "multilabel_margin_loss": lambda T: T.nn.functional.multilabel_margin_loss(T.tensor([[0.1, 0.2, 0.4, 0.8]]),
                                                                               T.tensor([[3, 0, -1, 1]])),
    "multilabel_soft_margin_loss": lambda T: T.nn.functional.multilabel_soft_margin_loss(
        T.tensor([[0.5, -2, 1]]), T.tensor([[1.0, 0, 1]])),
    "triplet_margin_loss": lambda T: T.nn.functional.triplet_margin_loss(T.tensor([[0.0, 1]]), T.tensor([[0.0, 2]]),
                                                                         T.tensor([[1.0, 1]])),
    "triplet_margin_with_distance_loss": lambda T: T.nn.functional.triplet_margin_with_distance_loss(
        T.tensor([[0.0, 1]]), T.tensor([[0.0, 2]]), T.tensor([[1.0, 1]])),
    "poisson_nll_loss": lambda T: T.nn.functional.poisson_nll_loss(T.tensor([0.5, 2, 0.1]), T.tensor([1.0, 3, 0])),
    "gaussian_nll_loss": lambda T: T.nn.functional.gaussian_nll_loss(T.tensor([0.5, 2]), T.tensor([1.0, 1]),
                                                                     T.tensor([1.0, 0.5])),
}


@pytest.mark.parametrize("name", sorted(CLI_REFERENCE))
def test_cli_example_matches_torch(torch, name):
    run_cli_example(torch, name, CLI_REFERENCE[name])


def _ce_data(n, c, dtype, seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((n, c)) * rng.choice([0.5, 3.0, 40.0])).astype(dtype)
    if seed % 3 == 2:       # a dominant logit per row: picked log-probabilities of 0 (signed zeros in the sum)
        x[np.arange(n), rng.integers(0, c, n)] = 1e4
    return x, rng.integers(0, c, n)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cross_entropy_reduction_is_nll_loss_cascade(dtype):
    """_ce_reduce (the cascade written out for 16 < N <= 256) equals nll_loss's general cascade bit for bit,
    for every batch size around the chunk boundaries and with signed zeros, nan and mixed magnitudes."""
    from core.ops.nn.loss import _ce_reduce, _nll_reduce
    rng = np.random.default_rng(3)
    dt = np.dtype(dtype)
    for n in list(range(1, 50)) + [63, 64, 65, 127, 128, 129, 240, 255, 256, 257, 300]:
        for kind in range(4):
            p = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(dtype)
            if kind == 1:
                p = np.where(rng.random(n) < 0.5, 0.0, -0.0).astype(dtype)
            elif kind == 2:
                p[rng.integers(0, n)] = np.nan
            elif kind == 3:
                p = -np.abs(p)
            for reduction in ("mean", "sum"):
                with np.errstate(all="ignore"):
                    a, b = _ce_reduce(p, reduction, dt), _nll_reduce(p, reduction, dt)
                assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), (n, kind, reduction)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n, c", [(64, 10), (17, 3), (256, 5), (5, 7), (300, 4)])
def test_cross_entropy_with_grad_is_the_unfused_graph(torch, dtype, n, c):
    """cross_entropy with a graph (nll_loss's forward fused in) gives the bits of log_softmax + nll_loss run
    separately, loss and gradient, and torch's graph: NllLossBackward0 -> LogSoftmaxBackward0 -> AccumulateGrad."""
    for seed in range(3):
        x, t = _ce_data(n, c, dtype, seed)
        for reduction in ("mean", "sum"):
            xc = core.tensor(x, requires_grad=True)
            loss = CF.cross_entropy(xc, core.tensor(t), reduction=reduction)
            loss.backward()
            xr = core.tensor(x, requires_grad=True)
            ref = CF.nll_loss(CF.log_softmax(xr, 1), core.tensor(t), reduction=reduction)
            ref.backward()
            assert loss.detach().numpy().tobytes() == ref.detach().numpy().tobytes()
            assert xc.grad.numpy().tobytes() == xr.grad.numpy().tobytes()
            xt = torch.tensor(x, requires_grad=True)
            lt = torch.nn.functional.cross_entropy(xt, torch.tensor(t), reduction=reduction)
            lt.backward()
            tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
            np.testing.assert_allclose(loss.detach().numpy(), lt.detach().numpy(), **tol)
            np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), **tol)
            fc, ft = loss.grad_fn, lt.grad_fn
            for _ in range(3):
                assert fc.name() == ft.name() and len(fc.next_functions) == len(ft.next_functions)
                fc, ft = (fc.next_functions or ((None, 0),))[0][0], (ft.next_functions or ((None, 0),))[0][0]
            assert fc is None and ft is None


def test_cross_entropy_with_grad_keeps_hooks_and_double_backward(torch):
    """The fused forward records ordinary nodes: a hook on the log_softmax node sees nll_loss's gradient, and
    create_graph differentiates again, as torch."""
    x, t = _ce_data(20, 4, np.float64, 0)
    res = {}
    for lib in (core, torch):
        seen = []
        xa = lib.tensor(x, requires_grad=True)
        loss = lib.nn.functional.cross_entropy(xa, lib.tensor(t))
        loss.grad_fn.next_functions[0][0].register_prehook(lambda g: seen.append(g[0].detach().numpy().copy()))
        (g,) = lib.autograd.grad(loss, xa, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), xa)
        res[lib] = (seen, gg.detach().numpy())
    (sc, gc), (st, gt) = res[core], res[torch]
    assert len(sc) == len(st) == 2 and sc[0].tobytes() == st[0].tobytes()    # backward, then double backward
    np.testing.assert_allclose(sc[1], st[1], rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(gc, gt, rtol=1e-10, atol=1e-14)


def _bits(ours, ref):
    o, r = np.ascontiguousarray(ours.detach().numpy()), np.ascontiguousarray(ref.detach().numpy())
    assert o.dtype == r.dtype and o.shape == r.shape
    assert np.array_equal(o.view(np.uint8), r.view(np.uint8))


def _loss_bits(torch, call, dtype, shape=(9, 19), transposed=False, grads=(0, 1)):
    """call(L, x, y, z) on core and torch: the value and the gradients of the inputs listed, bit for bit."""
    rng = np.random.default_rng(shape[0] * 31 + shape[1])
    arrays = [rng.standard_normal(shape[::-1] if transposed else shape).astype(dtype) for _ in range(3)]
    res = []
    for L in (core, torch):
        ts = [L.from_numpy(a.copy()).t() if transposed else L.from_numpy(a.copy()) for a in arrays]
        for i in grads:
            ts[i].requires_grad_(True)
        out = call(L, *ts)
        cot = L.from_numpy(np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(dtype))
        res.append((out, L.autograd.grad(out, [ts[i] for i in grads], cot)))
    _bits(res[0][0], res[1][0])
    for a, b in zip(res[0][1], res[1][1]):
        _bits(a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["none", "sum", "batchmean"])
def test_kl_div_is_torchs_bit_for_bit(torch, dtype, reduction):
    """at::xlogy(target, target) - target * input with glibc's logf (float32): values and the input's gradient."""
    def call(L, x, y, z):
        return L.nn.functional.kl_div(x, y.detach().abs() * (y.detach() > -0.5), reduction=reduction)
    _loss_bits(torch, call, dtype, grads=(0,))
