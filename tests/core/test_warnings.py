"""Warnings as PyTorch gives them: ATen's UserWarnings with torch's text (its "Triggered internally at ..."
suffix included) attributed to the caller's line, once per process (TORCH_WARN_ONCE) or every call as torch,
Python-level warnings where torch's stacklevel puts them; and no NumPy floating-point RuntimeWarning where torch
gives none (inf/nan results), whatever the user's warning filters."""
from __future__ import annotations

import importlib
import json
import os
import warnings

import numpy as np
import pytest

import core
from core import _warn

HERE = os.path.abspath(__file__)


def _warnings_of(fn, L):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        fn(L)
    return [(w.category.__name__, str(w.message)) for w in seen]


DOF_CASES = {
    "var of one": lambda L: L.ones(1).var(),
    "std over a dim of one": lambda L: L.ones(3, 1).std(1),
    "var_mean": lambda L: L.var_mean(L.ones(3, 1), 1),
    "std_mean": lambda L: L.std_mean(L.ones(3, 1), 1),
    "empty var": lambda L: L.tensor([]).var(),
    "correction = n": lambda L: L.ones(2, 3).var(0, correction=2),
    "enough degrees": lambda L: L.ones(2, 3).var(0),
}


@pytest.mark.parametrize("name", sorted(DOF_CASES))
def test_degrees_of_freedom_warning_is_atens(torch, name):
    assert _warnings_of(DOF_CASES[name], core) == _warnings_of(DOF_CASES[name], torch)


# -- every warning of the probe (and more sites), each case on one line: the line a warning is attributed to ----

def _x(L):
    return L.arange(6.).reshape(2, 3)


def _checkpoint(L, **kw):
    checkpoint = importlib.import_module(L.__name__ + ".utils.checkpoint").checkpoint
    return checkpoint(lambda t: t * 2, L.ones(2, requires_grad=True), **kw)


def _gradcheck_float(L):
    try:
        L.autograd.gradcheck(lambda t: t * 2, (L.ones(2, requires_grad=True),))
    except Exception as e:   # both raise GradcheckError on float32 (compared by the warning list only)
        return type(e).__name__


PROBE = {
    "out resized": lambda L: L.add(_x(L), _x(L), out=L.empty(7)),
    "mm out resized": lambda L: L.mm(L.ones(2, 2), L.ones(2, 2), out=L.empty(3)),
    "arange out resized": lambda L: L.arange(0, 3, out=L.empty(5)),
    "index_reduce beta": lambda L: L.ones(4).index_reduce(0, L.tensor([0, 1]), L.tensor([2., 3.]), 'prod'),
    "nuclear_norm": lambda L: L.nuclear_norm(_x(L)),
    "frobenius_norm": lambda L: L.frobenius_norm(_x(L), dim=(0, 1)),
    "chain_matmul": lambda L: L.chain_matmul(_x(L), _x(L).t()),
    "cholesky": lambda L: L.cholesky(L.eye(2)),
    "T of 3-d": lambda L: L.ones(2, 3, 4).T,
    "scatter reduce": lambda L: L.zeros(2, 2).scatter(0, L.tensor([[0, 1]]), L.ones(1, 2), reduce='add'),
    "scatter_ reduce": lambda L: L.zeros(2, 2).scatter_(0, L.tensor([[0, 1]]), L.ones(1, 2), reduce='add'),
    "scatter_ value reduce": lambda L: L.zeros(2, 2).scatter_(0, L.tensor([[0, 1]]), 2.0, reduce='add'),
    "tensor of ndarrays": lambda L: L.tensor([np.ones(2), np.ones(2)]),
    "tensor of nested ndarrays": lambda L: L.tensor([[np.ones(2)]]),
    "tensor of numbers": lambda L: L.tensor([np.float64(1.0), 2.0]),
    "meshgrid": lambda L: L.meshgrid(L.arange(2), L.arange(3)),
    "softmax no dim": lambda L: L.nn.functional.softmax(_x(L)),
    "log_softmax no dim": lambda L: L.nn.functional.log_softmax(_x(L)),
    "softmin no dim": lambda L: L.nn.functional.softmin(_x(L)),
    "gumbel_softmax eps": lambda L: L.nn.functional.gumbel_softmax(_x(L), eps=1e-3),
    "uint8 index": lambda L: _x(L)[L.tensor([1, 0], dtype=L.uint8)],
    "sequence index": lambda L: L.ones(3, 3)[[0, slice(None)]],
    "where uint8": lambda L: L.where(L.tensor([1, 0], dtype=L.uint8), L.ones(2), L.zeros(2)),
    "range": lambda L: L.range(0, 3),
    "mse_loss sizes": lambda L: L.nn.functional.mse_loss(L.ones(3), L.ones(3, 1)),
    "lu": lambda L: L.lu(L.eye(2)),
    "cross no dim": lambda L: L.cross(L.ones(3, 3), L.ones(3, 3)),
    "init empty": lambda L: L.nn.init.normal_(L.empty(0)),
    "upsample": lambda L: L.nn.functional.upsample(L.ones(1, 1, 2, 2), scale_factor=2),
    "upsample_nearest": lambda L: L.nn.functional.upsample_nearest(L.ones(1, 1, 2, 2), scale_factor=2),
    "dropout eval": lambda L: L.nn.functional.dropout(_x(L), 0.5, training=False),
    "dropout2d of 2-d": lambda L: L.nn.functional.dropout2d(L.ones(2, 3)),
    "dropout3d of 3-d": lambda L: L.nn.functional.dropout3d(L.ones(2, 3, 4)),
    "var of 3": lambda L: L.ones(3).var(),
    "std of 1": lambda L: L.ones(1).std(),
    "std with NumPy's axis": lambda L: L.ones(1, 3).std(axis=0),
    "cov dof": lambda L: L.cov(L.ones(2, 1)),
    "list index": lambda L: L.ones(3)[[0, 1]],
    "resize_": lambda L: _x(L).resize_(3, 2),
    "resize": lambda L: L.ones(4).resize(2, 2),
    "masked_fill": lambda L: L.ones(2, 2).masked_fill(L.tensor([[1, 0], [0, 1]], dtype=L.uint8).bool(), 0),
    "qr": lambda L: L.qr(L.eye(2)),
    "triangular_solve": lambda L: L.triangular_solve(L.eye(2), L.eye(2)),
    "backward": lambda L: L.ones(3, requires_grad=True).sum().backward(),
    "non-leaf grad": lambda L: (L.ones(3, requires_grad=True) * 2).grad,
    "gelu tanh": lambda L: L.nn.functional.gelu(_x(L), approximate='tanh'),
    "Transformer": lambda L: L.nn.Transformer(8, 2, 1, 1, 16),
    "nll_loss reduce": lambda L: L.nn.functional.nll_loss(L.zeros(3, 5), L.tensor([1, 0, 4]), reduce=False),
    "MSELoss size_average": lambda L: L.nn.MSELoss(size_average=False),
    "elementwise_mean": lambda L: L.nn.functional.mse_loss(L.ones(3), L.ones(3), reduction='elementwise_mean'),
    "bilinear by 1.5": lambda L: L.nn.functional.interpolate(L.ones(1, 1, 4, 4), scale_factor=1.5, mode='bilinear'),
    "tensor of tensor": lambda L: L.tensor(L.ones(2)),
    "type FloatTensor": lambda L: L.as_tensor([1, 2]).type(L.FloatTensor),
    "clip_grad_norm_": lambda L: L.nn.utils.clip_grad_norm_([L.nn.Parameter(L.ones(2))], 1.0),
    "clip_grad_norm": lambda L: L.nn.utils.clip_grad_norm([L.nn.Parameter(L.ones(2))], 1.0),
    "expand add_": lambda L: L.ones(2, 2).expand(2, 2).add_(1),
    "linalg.norm": lambda L: L.linalg.norm(_x(L)),
    "norm fro": lambda L: L.norm(_x(L), p='fro'),
    "to float sigmoid": lambda L: L.ones(3).to(L.int64).float().sigmoid(),
    "F.tanh": lambda L: L.nn.functional.tanh(_x(L)),
    "F.sigmoid": lambda L: L.nn.functional.sigmoid(_x(L)),
    "max keepdim": lambda L: L.max(L.ones(2, 2), 1, True),
    "Normal": lambda L: L.distributions.Normal(0., 1.),
    "unique unsorted": lambda L: L.unique(L.tensor([1, 1]), sorted=False),
    "checkpoint": lambda L: _checkpoint(L, use_reentrant=True),
    "checkpoint without use_reentrant": lambda L: _checkpoint(L),
    "gradcheck of float32": _gradcheck_float,
    "trunc_normal_ far mean": lambda L: L.nn.init.trunc_normal_(L.empty(3), mean=5.0, std=1.0, a=-2, b=2),
    "init.normal": lambda L: L.nn.init.normal(L.empty(3)),
    "RNN dropout": lambda L: L.nn.RNN(2, 2, num_layers=1, dropout=0.5),
    "grid_sample": lambda L: L.nn.functional.grid_sample(L.ones(1, 1, 2, 2), L.zeros(1, 2, 2, 2)),
    "affine_grid": lambda L: L.nn.functional.affine_grid(L.eye(2, 3).unsqueeze(0), [1, 1, 2, 2]),
    "kl_div mean": lambda L: L.nn.functional.kl_div(L.zeros(2, 3), L.ones(2, 3) / 3),
    "InstanceNorm size": lambda L: L.nn.InstanceNorm1d(3)(L.ones(2, 4, 5)),
    "sample_n": lambda L: L.distributions.Normal(0., 1.).sample_n(2),
    "get_lr": lambda L: L.optim.lr_scheduler.StepLR(L.optim.SGD([L.nn.Parameter(L.ones(1))], lr=0.1), 1).get_lr(),
    "duplicate params": lambda L: L.optim.SGD([L.nn.Parameter(L.ones(1))] * 2, lr=0.1),
}

# Reported to its owner (core/ops/reduce: sum's out= path does not resize through _out): torch warns, core not yet.
MISSING = {"sum out resized": lambda L: L.sum(L.ones(2, 2), 0, out=L.empty(3))}


@pytest.fixture
def warn_always(torch):
    """torch.set_warn_always(True) on both sides: TORCH_WARN_ONCE warns on every call, so a case compares even
    when an earlier test in this process already had its one warning."""
    before = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    _warn.set_warn_always(True)
    yield torch
    torch.set_warn_always(before)
    _warn.set_warn_always(False)


def _records(fn, L):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        fn(L)
    return [(w.category.__name__, str(w.message), w.filename, w.lineno) for w in seen]


def _compare(fn, torch):
    t, c = _records(fn, torch), _records(fn, core)
    assert [r[:2] for r in c] == [r[:2] for r in t]
    torch_dir, core_dir = (os.path.dirname(m.__file__) + os.sep for m in (torch, core))
    for rc, rt in zip(c, t):
        if rt[2] == HERE:    # torch attributes it to the caller's line: so does core (the line shown is the user's)
            assert rc[2:] == rt[2:]
        else:                # to a line of its own Python code (a stacklevel, torch/functional.py): core to its own
            assert rt[2].startswith(torch_dir) and rc[2].startswith(core_dir)


@pytest.mark.parametrize("name", sorted(PROBE))
def test_warning_text_category_and_line_are_torchs(warn_always, name):
    _compare(PROBE[name], warn_always)


@pytest.mark.parametrize("name", sorted(MISSING))
@pytest.mark.xfail(strict=True, reason="core's sum(out=) does not warn on resize yet (reported)")
def test_warnings_core_does_not_give_yet(warn_always, name):
    _compare(MISSING[name], warn_always)


def test_aten_warning_through_the_numpy_alias_wrapper_is_at_the_callers_line(warn_always):
    """x.std(axis=0) goes through the registry's NumPy-keyword wrapper: the warning is still the caller's."""
    (rec,) = _records(PROBE["std with NumPy's axis"], core)
    assert rec[2] == HERE and "Triggered internally at" in rec[1]


# -- once per process, every call, and Python's once-per-location default, compared in fresh processes ---------

def _report(lib):
    """{case: [warnings of a first call, of a second call (filter 'always'), of two calls on one line under the
    default filters with set_warn_always(True)]} for torch or core, printed as JSON (run in a fresh process)."""
    L = __import__(lib)
    out = {}
    for name, fn in PROBE.items():
        counts = []
        for _ in range(2):
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                fn(L)
            counts.append(len(seen))
        out[name] = counts
    if lib == "torch":
        L.set_warn_always(True)
    else:
        _warn.set_warn_always(True)
    for name, fn in PROBE.items():
        with warnings.catch_warnings(record=True) as seen:   # the default filters: once per (text, line)
            for _ in range(2):
                fn(L)
        out[name].append(len(seen))
    print(json.dumps(out))


def test_once_and_every_call_as_torch(program_servers, tmp_path):
    """TORCH_WARN_ONCE (cholesky, meshgrid, x.T, ...) warns on the first call of the process only, TORCH_WARN
    (resize of out=, uint8 indexing, dof <= 0, ...) on every call; under the default filters both warn once per
    line (Python's registry), as torch's PyErr_WarnEx at the caller's frame. Each report runs in a fresh fork
    of a process that has imported its library and warned nothing yet."""
    reports = []
    for lib, server in zip(("torch", "core"), program_servers):
        script = tmp_path / f"report_{lib}.py"
        script.write_text(f"import sys\nsys.path.insert(0, {os.path.dirname(HERE)!r})\n"
                          f"import test_warnings as t\nt._report({lib!r})\n")
        reports.append(json.loads(server.run(script)[-1]))
    t, c = reports
    assert {k: v for k, v in c.items() if v != t[k]} == {}


# -- NumPy floating-point warnings: torch gives none on inf/nan results --------------------------------------

BIG = 3e38
INF = float("inf")


def _grad_of(L, f, x):
    x.requires_grad_()
    return L.autograd.grad(f(x), x)


def _step(L, optimizer, grad):
    p = L.nn.Parameter(L.ones(grad.shape))
    p.grad = grad
    optimizer([p]).step()

FP = {
    "add overflow": lambda L: L.full((3,), BIG) + L.full((3,), BIG),
    "sub inf - inf": lambda L: L.full((3,), INF) - L.full((3,), INF),
    "mul overflow": lambda L: L.full((3,), BIG) * L.full((3,), BIG),
    "mul by a number overflow": lambda L: L.full((3,), BIG) * 10.0,
    "inf * 0": lambda L: L.full((3,), INF) * 0.0,
    "div by zero": lambda L: L.ones(3) / L.zeros(3),
    "0 / 0": lambda L: L.zeros(3) / L.zeros(3),
    "div by the number 0": lambda L: L.ones(3) / 0.0,
    "add_ overflow": lambda L: L.full((3,), BIG).add_(L.full((3,), BIG)),
    "mul_ overflow": lambda L: L.full((3,), BIG).mul_(10.0),
    "sub_ inf - inf": lambda L: L.full((3,), INF).sub_(INF),
    "broadcast add overflow": lambda L: L.full((2, 3), BIG) + L.full((3,), BIG),
    "int8 overflow": lambda L: L.full((3,), 127, dtype=L.int8) + 1,
    "sum overflow": lambda L: L.full((4,), BIG).sum(),
    "sum over a dim overflow": lambda L: L.full((4, 2), BIG).sum(0),
    "mean overflow": lambda L: L.full((4,), BIG).mean(),
    "prod overflow": lambda L: L.full((4,), 1e30).prod(),
    "cumprod overflow": lambda L: L.full((4,), 1e30).cumprod(0),
    "cumsum overflow": lambda L: L.full((4,), BIG).cumsum(0),
    "var overflow": lambda L: L.tensor([BIG, -BIG, BIG]).var(),
    "std of inf": lambda L: L.tensor([INF, 1.0]).std(),
    "matmul overflow": lambda L: L.full((2, 2), BIG) @ L.full((2, 2), BIG),
    "mm overflow": lambda L: L.mm(L.full((2, 2), BIG), L.full((2, 2), BIG)),
    "addmm overflow": lambda L: L.addmm(L.zeros(2, 2), L.full((2, 2), BIG), L.full((2, 2), BIG)),
    "linear overflow": lambda L: L.nn.functional.linear(L.full((2, 2), BIG), L.full((2, 2), BIG)),
    "to float32 overflow": lambda L: L.full((3,), 1e300, dtype=L.float64).to(L.float32),
    "float() overflow": lambda L: L.full((3,), 1e300, dtype=L.float64).float(),
    "type overflow": lambda L: L.full((3,), 1e300, dtype=L.float64).type(L.float32),
    "nan to int32": lambda L: L.tensor([float("nan")]).to(L.int32),
    "exp overflow": lambda L: L.full((3,), 1000.0).exp(),
    "log of 0": lambda L: L.zeros(3).log(),
    "log of -1": lambda L: L.full((3,), -1.0).log(),
    "sqrt of -1": lambda L: L.full((3,), -1.0).sqrt(),
    "pow overflow": lambda L: L.full((3,), BIG) ** 2,
    "reciprocal of 0": lambda L: L.zeros(3).reciprocal(),
    "softmax of inf": lambda L: L.tensor([INF, 1.0]).softmax(0),
    "sigmoid of -1000": lambda L: L.full((3,), -1000.0).sigmoid(),
    "norm overflow": lambda L: L.full((4,), BIG).norm(),
    "max with nan": lambda L: L.tensor([float("nan"), 1.0]).max(),
    "mse_loss overflow": lambda L: L.nn.functional.mse_loss(L.full((3,), BIG), L.full((3,), -BIG)),
    "backward overflow": lambda L: (L.full((3,), BIG, requires_grad=True) * L.full((3,), BIG)).sum().backward(),
    "gradient overflow": lambda L: (L.full((3,), BIG, requires_grad=True) * 10.0).backward(L.full((3,), BIG)),
    "broadcast grad overflow": lambda L: (L.ones(3, requires_grad=True) + L.ones(4, 3)).backward(L.full((4, 3), BIG)),
    "autograd.grad of inf - inf": lambda L: _grad_of(L, lambda x: ((x - INF) * BIG).sum(), L.full((2,), INF)),
    "repr of inf and nan": lambda L: repr(L.tensor([INF, float("nan"), -INF, 1.0])),
    "repr of wide range": lambda L: repr(L.tensor([BIG, 1e-30, 0.0])),
    "str of float64 inf": lambda L: str(L.tensor([INF, 1e300, float("nan")], dtype=L.float64)),
    "isclose of inf and nan": lambda L: L.isclose(L.tensor([INF, float("nan")]), L.tensor([INF, float("nan")])),
    "clamp of nan": lambda L: L.tensor([float("nan")]).clamp(0, 1),
    "div_ by 0": lambda L: L.ones(3).div_(0.0),
    "floor_divide by 0": lambda L: L.ones(3) // 0.0,
    "remainder by 0": lambda L: L.ones(3) % 0.0,
    "int64 true division by 0": lambda L: L.ones(3, dtype=L.int64) / 0,
    "atan2 of infs": lambda L: L.atan2(L.tensor([INF]), L.tensor([INF])),
    "logsumexp of inf": lambda L: L.tensor([INF, INF]).logsumexp(0),
    "log_softmax of -inf": lambda L: L.tensor([-INF, -INF]).log_softmax(0),
    "cross_entropy of inf": lambda L: L.nn.functional.cross_entropy(L.tensor([[INF, 1.0]]), L.tensor([0])),
    "BCE at 0 and 1": lambda L: L.nn.functional.binary_cross_entropy(L.tensor([0., 1.]), L.tensor([1., 0.])),
    "layer_norm of inf": lambda L: L.nn.functional.layer_norm(L.tensor([[INF, 1.0]]), (2,)),
    "batch_norm of inf": lambda L: L.nn.functional.batch_norm(L.tensor([[INF], [1.0]]), None, None, training=True),
    "Adam step of an inf gradient": lambda L: _step(L, L.optim.Adam, L.full((2,), INF)),
    "lerp of infs": lambda L: L.lerp(L.tensor([INF]), L.tensor([-INF]), 0.5),
    "dist overflow": lambda L: L.dist(L.full((3,), BIG), L.full((3,), -BIG)),
    "cdist overflow": lambda L: L.cdist(L.full((1, 2), BIG), L.full((1, 2), -BIG)),
    "einsum overflow": lambda L: L.einsum("i,i->", L.full((3,), BIG), L.full((3,), BIG)),
    "bmm overflow": lambda L: L.bmm(L.full((1, 2, 2), BIG), L.full((1, 2, 2), BIG)),
    "float16 sum overflow": lambda L: L.full((4,), 60000.0, dtype=L.float16).sum(),
    "half() overflow": lambda L: L.full((3,), 1e10).half(),
    "mean over a dim overflow": lambda L: L.full((4, 3), BIG).mean(1),
    "median with nan": lambda L: L.tensor([float("nan"), 1.0]).median(),
    "sort with nan": lambda L: L.tensor([float("nan"), 1.0]).sort(),
    "topk with infs and nan": lambda L: L.tensor([INF, -INF, float("nan")]).topk(2),
    "softplus of 1e4": lambda L: L.nn.functional.softplus(L.full((2,), 1e4)),
    "logit at 0 and 1": lambda L: L.logit(L.tensor([0.0, 1.0])),
    "gradient of sqrt at 0": lambda L: L.zeros(2, requires_grad=True).sqrt().sum().backward(),
    "gradient of log at 0": lambda L: L.zeros(2, requires_grad=True).log().sum().backward(),
    "gradient of 1 / 0": lambda L: (L.ones(2) / L.zeros(2, requires_grad=True)).sum().backward(),
    "gradient of x ** 0.5 at 0": lambda L: (L.zeros(2, requires_grad=True) ** 0.5).sum().backward(),
    "gradient of norm at 0": lambda L: L.zeros(2, requires_grad=True).norm().backward(),
    "broadcast mean gradient": lambda L: (L.full((2,), BIG, requires_grad=True) + L.ones(3, 2)).mean().backward(),
}


@pytest.mark.parametrize("name", sorted(FP))
def test_no_numpy_floating_point_warnings_where_torch_has_none(torch, name):
    """Under catch_warnings(record=True) + simplefilter('always') (pytest's recwarn does the same), core records
    exactly what torch records: nothing, where NumPy would say 'overflow encountered in multiply'."""
    assert _warnings_of(FP[name], core) == _warnings_of(FP[name], torch)


def test_quiet_kernels_leave_numpys_own_warnings_alone():
    """core silences its own kernels only: the user's NumPy code still warns, and np.geterr is unchanged."""
    before = np.geterr()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        core.full((3,), BIG) * core.full((3,), BIG)
        (core.full((3,), BIG, requires_grad=True) * 10.0).sum().backward()
        np.float32(BIG) * np.float32(BIG)
    assert np.geterr() == before
    assert [str(w.message) for w in seen] == ["overflow encountered in scalar multiply"]


def test_broadcasting_error_in_a_fast_path_leaves_errstate_alone(torch):
    """The add/sub/mul fast paths set NumPy's errstate around the ufunc: an error inside restores it."""
    before = np.geterr()
    for L in (core, torch):
        with pytest.raises(RuntimeError):
            L.ones(2) + L.ones(3)
        with pytest.raises(RuntimeError):
            L.ones(2) * L.ones(3)
    assert np.geterr() == before
