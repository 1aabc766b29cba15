"""core.optim against torch.optim: parameter trajectories, optimizer state, zero_grad, param groups,
state_dict round trips, argument errors, repr, version counters, LR schedulers."""
from __future__ import annotations

from paths import ROOT

import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import core
from conftest import assert_same

RNG = np.random.default_rng(1234)
X = RNG.standard_normal((16, 4)).astype(np.float32)
Y = RNG.standard_normal((16, 2)).astype(np.float32)


def make_models(torch):
    """The same Linear-Tanh-Linear model in torch and core (core weights copied from torch)."""
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
    cm = core.nn.Sequential(core.nn.Linear(4, 8), core.nn.Tanh(), core.nn.Linear(8, 2))
    with core.no_grad():
        for pc, pt in zip(cm.parameters(), tm.parameters()):
            pc.copy_(core.tensor(pt.detach().numpy()))
    return cm, tm


def train_step(lib, model, opt, x, y):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    return loss


def assert_state_same(cs, ts):
    assert set(cs) == set(ts)
    for key in ts:
        if hasattr(ts[key], "shape"):
            assert_same(cs[key], ts[key])
        else:
            assert cs[key] == ts[key]


def run_both(torch, cls, kwargs, steps=5, groups=None):
    """Train both models `steps` times, comparing parameters after every step and the state at the end."""
    cm, tm = make_models(torch)
    if groups is None:
        copt = getattr(core.optim, cls)(cm.parameters(), **kwargs)
        topt = getattr(torch.optim, cls)(tm.parameters(), **kwargs)
    else:
        copt = getattr(core.optim, cls)(groups(cm), **kwargs)
        topt = getattr(torch.optim, cls)(groups(tm), **kwargs)
    cx, cy, tx, ty = core.tensor(X), core.tensor(Y), torch.tensor(X), torch.tensor(Y)
    v0 = [(pc._version, pt._version) for pc, pt in zip(cm.parameters(), tm.parameters())]
    for _ in range(steps):
        lc = train_step(core, cm, copt, cx, cy)
        lt = train_step(torch, tm, topt, tx, ty)
        assert_same(lc.detach(), lt.detach())
        for pc, pt in zip(cm.parameters(), tm.parameters()):
            assert_same(pc.detach(), pt.detach())
    for (pc, pt), (vc, vt) in zip(zip(cm.parameters(), tm.parameters()), v0):
        assert_state_same(copt.state[pc], topt.state[pt])
        assert pc._version - vc == pt._version - vt   # in-place updates per step, as torch counts them
    return cm, tm, copt, topt


SGD_CONFIGS = {
    "plain": dict(lr=0.1),
    "momentum": dict(lr=0.1, momentum=0.9),
    "nesterov": dict(lr=0.1, momentum=0.9, nesterov=True),
    "dampening": dict(lr=0.1, momentum=0.9, dampening=0.3),
    "weight_decay": dict(lr=0.1, momentum=0.5, weight_decay=0.1),
    "maximize": dict(lr=0.05, momentum=0.9, maximize=True),
}
ADAM_CONFIGS = {
    "Adam-default": ("Adam", dict()),
    "Adam-lr": ("Adam", dict(lr=0.05, betas=(0.8, 0.95), eps=1e-6)),
    "Adam-amsgrad": ("Adam", dict(lr=0.05, amsgrad=True)),
    "Adam-weight_decay": ("Adam", dict(lr=0.05, weight_decay=0.1)),
    "Adam-maximize": ("Adam", dict(lr=0.05, maximize=True)),
    "AdamW-default": ("AdamW", dict()),
    "AdamW-amsgrad": ("AdamW", dict(lr=0.05, amsgrad=True, weight_decay=0.2)),
}


# -- trajectories --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(SGD_CONFIGS))
def test_sgd_training_matches_torch(torch, name):
    run_both(torch, "SGD", SGD_CONFIGS[name])


@pytest.mark.parametrize("name", list(ADAM_CONFIGS))
def test_adam_training_matches_torch(torch, name):
    cls, kwargs = ADAM_CONFIGS[name]
    run_both(torch, cls, kwargs)


def _fixed_grad_run(lib, cls, kwargs, params, grads, dtype):
    ps = [lib.tensor(p.copy(), dtype=dtype, requires_grad=True) for p in params]
    opt = getattr(lib.optim, cls)(ps, **kwargs)
    out = []
    for g in grads:
        for p, gg in zip(ps, g):
            p.grad = lib.tensor(gg.copy(), dtype=dtype)
        opt.step()
        out.append([p.detach().numpy().copy() for p in ps])
    return ps, opt, out


def _fixed_inputs():
    rng = np.random.default_rng(7)
    params = [rng.standard_normal((9, 5)), rng.standard_normal(5)]
    grads = [[rng.standard_normal(p.shape) for p in params] for _ in range(5)]
    return params, grads


@pytest.mark.parametrize("name", list(SGD_CONFIGS))
def test_sgd_update_is_bitwise_equal_for_same_grads(torch, name):
    params, grads = _fixed_inputs()
    _, _, oc = _fixed_grad_run(core, "SGD", SGD_CONFIGS[name], params, grads, core.float32)
    _, _, ot = _fixed_grad_run(torch, "SGD", SGD_CONFIGS[name], params, grads, torch.float32)
    for sc, st in zip(oc, ot):
        for a, b in zip(sc, st):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", list(ADAM_CONFIGS))
def test_adam_update_matches_for_same_grads(torch, name):
    cls, kwargs = ADAM_CONFIGS[name]
    params, grads = _fixed_inputs()
    _, _, oc = _fixed_grad_run(core, cls, kwargs, params, grads, core.float32)
    _, _, ot = _fixed_grad_run(torch, cls, kwargs, params, grads, torch.float32)
    for sc, st in zip(oc, ot):
        for a, b in zip(sc, st):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("cls,kwargs", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.1, amsgrad=True)),
                                        ("AdamW", dict(lr=0.1))])
def test_float64_params_keep_dtype_and_match(torch, cls, kwargs):
    params, grads = _fixed_inputs()
    pc, oc_opt, oc = _fixed_grad_run(core, cls, kwargs, params, grads, core.float64)
    pt, ot_opt, ot = _fixed_grad_run(torch, cls, kwargs, params, grads, torch.float64)
    for sc, st in zip(oc, ot):
        for a, b in zip(sc, st):
            assert a.dtype == np.float64
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    for a, b in zip(pc, pt):
        assert_state_same(oc_opt.state[a], ot_opt.state[b])


def test_adam_step_state_is_float64_under_float64_default_dtype(torch):
    old_c, old_t = core.get_default_dtype(), torch.get_default_dtype()
    try:
        core.set_default_dtype(core.float64)
        torch.set_default_dtype(torch.float64)
        pc, pt = core.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
        oc, ot = core.optim.Adam([pc]), torch.optim.Adam([pt])
        pc.grad, pt.grad = core.ones(3), torch.ones(3)
        oc.step()
        ot.step()
        assert_same(oc.state[pc]["step"], ot.state[pt]["step"])
    finally:
        core.set_default_dtype(old_c)
        torch.set_default_dtype(old_t)


# -- step semantics ------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", ["SGD", "Adam"])
def test_step_skips_params_without_grad(torch, cls):
    for lib in (core, torch):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0], requires_grad=True)
        opt = getattr(lib.optim, cls)([a, b], lr=0.1, momentum=0.9) if cls == "SGD" else lib.optim.Adam([a, b])
        a.grad = lib.tensor([1.0, 1.0])
        opt.step()
        assert b.tolist() == [3.0] and b._version == 0
        assert b not in opt.state and a in opt.state


def test_step_bumps_version_so_stale_graph_backward_fails(torch):
    errs = []
    for lib in (core, torch):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        loss = (w * w).sum()
        w.grad = lib.ones(2)
        opt.step()
        with pytest.raises(RuntimeError) as info:
            loss.backward()
        errs.append(str(info.value))
    assert "modified by an inplace operation" in errs[0]


def test_step_runs_without_recording_a_graph(torch):
    w = core.tensor([1.0, 2.0], requires_grad=True)
    opt = core.optim.Adam([w], lr=0.1)
    w.grad = core.ones(2)
    opt.step()
    assert w.grad_fn is None and w.requires_grad and w.is_leaf
    assert opt.state[w]["exp_avg"].grad_fn is None
    assert core.is_grad_enabled()


def test_step_closure_returns_loss_computed_with_grad(torch):
    out = []
    for lib in (core, torch):
        w = lib.tensor([1.0, -2.0], requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)

        def closure():
            opt.zero_grad()
            loss = (w ** 2).sum()
            loss.backward()
            return loss

        with lib.no_grad():
            loss = opt.step(closure)
        out.append((loss.item(), w.tolist(), loss.requires_grad))
    assert out[0] == out[1]


def test_step_hooks_run_in_order_and_can_be_removed(torch):
    logs = []
    for lib in (core, torch):
        log = []
        w = lib.tensor([1.0], requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        h1 = opt.register_step_pre_hook(lambda o, a, k: log.append(("pre", a[0] is o, len(a), k)))
        opt.register_step_post_hook(lambda o, a, k: log.append(("post", w.tolist())))
        w.grad = lib.ones(1)
        opt.step()
        h1.remove()
        opt.step()
        logs.append(log)
    assert logs[0] == logs[1]


# -- zero_grad -----------------------------------------------------------------------------------

def test_zero_grad_sets_grads_to_none_by_default(torch):
    cm, tm = make_models(torch)
    for lib, m in ((core, cm), (torch, tm)):
        opt = lib.optim.SGD(m.parameters(), lr=0.1)
        m(lib.tensor(X)).sum().backward()
        opt.zero_grad()
        assert all(p.grad is None for p in m.parameters())


def test_zero_grad_set_to_none_false_zeroes_in_place(torch):
    cm, tm = make_models(torch)
    for lib, m in ((core, cm), (torch, tm)):
        opt = lib.optim.SGD(m.parameters(), lr=0.1)
        m(lib.tensor(X)).sum().backward()
        before = [p.grad for p in m.parameters()]
        opt.zero_grad(set_to_none=False)
        for p, g in zip(m.parameters(), before):
            assert p.grad is g
            assert p.grad.abs().sum().item() == 0.0
            assert p.grad.shape == p.shape


def test_zero_grad_set_to_none_false_detaches_graph_grads(torch):
    res = []
    for lib in (core, torch):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        (w ** 3).sum().backward(create_graph=True)
        assert w.grad.requires_grad
        lib.optim.SGD([w]).zero_grad(set_to_none=False)
        res.append((w.grad.requires_grad, w.grad.grad_fn is None, w.grad.tolist()))
    assert res[0] == res[1] == (False, True, [0.0, 0.0])


# -- param groups --------------------------------------------------------------------------------

def _two_groups(m):
    return [{"params": m[0].parameters()}, {"params": m[2].parameters(), "lr": 0.01, "momentum": 0.5}]


def test_param_groups_with_different_lr_match_torch(torch):
    _, _, copt, topt = run_both(torch, "SGD", dict(lr=0.1, momentum=0.9), groups=_two_groups)
    strip = [[{k: v for k, v in g.items() if k != "params"} for g in o.param_groups] for o in (copt, topt)]
    assert strip[0] == strip[1]
    assert [len(g["params"]) for g in copt.param_groups] == [2, 2]


def test_param_groups_with_adam_match_torch(torch):
    run_both(torch, "Adam", dict(lr=0.01), groups=lambda m: [{"params": m[0].parameters(), "lr": 0.05},
                                                            {"params": m[2].parameters(), "betas": (0.5, 0.9)}])


def test_add_param_group_fills_defaults(torch):
    groups = []
    for lib in (core, torch):
        a, b = lib.ones(2, requires_grad=True), lib.ones(3, requires_grad=True)
        opt = lib.optim.SGD([a], lr=0.1, momentum=0.9)
        opt.add_param_group({"params": b, "lr": 0.5})
        groups.append([{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups])
        assert opt.param_groups[1]["params"][0] is b
    assert groups[0] == groups[1]


def test_named_parameters_record_param_names(torch):
    cm, tm = make_models(torch)
    sds = [lib.optim.Adam(m.named_parameters()).state_dict() for lib, m in ((core, cm), (torch, tm))]
    assert sds[0] == sds[1]
    assert sds[0]["param_groups"][0]["param_names"] == ["0.weight", "0.bias", "2.weight", "2.bias"]


# -- state_dict ----------------------------------------------------------------------------------

@pytest.mark.parametrize("cls,kwargs", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.05, amsgrad=True))])
def test_state_dict_structure_matches_torch(torch, cls, kwargs):
    _, _, copt, topt = run_both(torch, cls, kwargs, steps=2, groups=_two_groups if cls == "SGD" else None)
    sc, st = copt.state_dict(), topt.state_dict()
    assert sc["param_groups"] == st["param_groups"]
    assert list(sc["state"]) == list(st["state"])
    for k in st["state"]:
        assert_state_same(sc["state"][k], st["state"][k])


@pytest.mark.parametrize("cls,kwargs", [("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
                                        ("Adam", dict(lr=0.05)), ("AdamW", dict(lr=0.05, amsgrad=True))])
def test_state_dict_round_trip_continues_training_identically(torch, cls, kwargs):
    cm, tm, copt, topt = run_both(torch, cls, kwargs, steps=2)
    # A fresh optimizer on the same parameters, loaded from the saved state, continues as torch does.
    copt2 = getattr(core.optim, cls)(cm.parameters(), lr=123.0)
    copt2.load_state_dict(copt.state_dict())
    assert copt2.param_groups[0]["lr"] == kwargs["lr"]
    cx, cy, tx, ty = core.tensor(X), core.tensor(Y), torch.tensor(X), torch.tensor(Y)
    for _ in range(3):
        train_step(core, cm, copt2, cx, cy)
        train_step(torch, tm, topt, tx, ty)
        for pc, pt in zip(cm.parameters(), tm.parameters()):
            assert_same(pc.detach(), pt.detach())
    for pc, pt in zip(cm.parameters(), tm.parameters()):
        assert_state_same(copt2.state[pc], topt.state[pt])


def test_load_state_dict_with_wrong_group_count_raises(torch):
    msgs = []
    for lib in (core, torch):
        a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
        sd = lib.optim.SGD([{"params": [a]}, {"params": [b]}]).state_dict()
        with pytest.raises(ValueError) as info:
            lib.optim.SGD([a, b]).load_state_dict(sd)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


def test_load_state_dict_with_wrong_group_size_raises(torch):
    msgs = []
    for lib in (core, torch):
        a, b = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True)
        sd = lib.optim.SGD([a]).state_dict()
        with pytest.raises(ValueError) as info:
            lib.optim.SGD([a, b]).load_state_dict(sd)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


# -- errors --------------------------------------------------------------------------------------

BAD_ARGS = [
    ("SGD", dict(lr=-0.1)),
    ("SGD", dict(momentum=-0.5)),
    ("SGD", dict(weight_decay=-1e-4)),
    ("SGD", dict(nesterov=True)),
    ("SGD", dict(nesterov=True, momentum=0.9, dampening=0.1)),
    ("Adam", dict(lr=-1.0)),
    ("Adam", dict(eps=-1e-8)),
    ("Adam", dict(betas=(1.0, 0.999))),
    ("Adam", dict(betas=(0.9, -0.1))),
    ("Adam", dict(weight_decay=-0.1)),
    ("Adam", dict(betas=(0, 0.9))),
    ("AdamW", dict(betas=(0.9, 1.5))),
]


@pytest.mark.parametrize("cls,kwargs", BAD_ARGS, ids=[f"{c}-{k}" for c, k in BAD_ARGS])
def test_invalid_hyperparameters_raise_like_torch(torch, cls, kwargs):
    errs = []
    for lib in (core, torch):
        with pytest.raises(Exception) as info:
            getattr(lib.optim, cls)([lib.ones(2, requires_grad=True)], **kwargs)
        errs.append((type(info.value), str(info.value)))
    assert errs[0] == errs[1]
    assert errs[0][0] is ValueError


BAD_PARAMS = {
    "single-tensor": lambda lib: lib.ones(2, requires_grad=True),
    "empty": lambda lib: [],
    "non-leaf": lambda lib: [lib.ones(2, requires_grad=True) * 2],
    "non-tensor": lambda lib: [lib.ones(2, requires_grad=True), 3],
    "set": lambda lib: [{"params": {lib.ones(2, requires_grad=True)}}],
    "shared-between-groups": lambda lib: (lambda a: [{"params": [a]}, {"params": [a]}])(
        lib.ones(2, requires_grad=True)),
    "partial-names": lambda lib: [("w", lib.ones(2, requires_grad=True)), lib.ones(1, requires_grad=True)],
}


@pytest.mark.parametrize("name", list(BAD_PARAMS))
def test_invalid_params_raise_like_torch(torch, name):
    errs = []
    for lib in (core, torch):
        with pytest.raises(Exception) as info:
            lib.optim.SGD(BAD_PARAMS[name](lib), lr=0.1)
        errs.append((type(info.value), str(info.value)))
    assert errs[0] == errs[1]


def test_base_optimizer_step_is_not_implemented(torch):
    for lib in (core, torch):
        with pytest.raises(NotImplementedError):
            lib.optim.Optimizer([lib.ones(1, requires_grad=True)], {"lr": 0.1}).step()


# -- repr ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls,kwargs", [("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)), ("SGD", {}),
                                        ("Adam", dict(amsgrad=True)), ("AdamW", dict(betas=(0.8, 0.9)))])
def test_repr_matches_torch(torch, cls, kwargs):
    cm, tm = make_models(torch)
    rc = repr(getattr(core.optim, cls)(_two_groups(cm), **kwargs))
    rt = repr(getattr(torch.optim, cls)(_two_groups(tm), **kwargs))
    assert rc == rt
    assert rc.startswith(cls + " (\nParameter Group 0\n")


# -- LR schedulers -------------------------------------------------------------------------------

SCHEDULERS = {
    "StepLR": lambda lr, o: lr.StepLR(o, step_size=3, gamma=0.5),
    "ExponentialLR": lambda lr, o: lr.ExponentialLR(o, gamma=0.9),
    "LambdaLR": lambda lr, o: lr.LambdaLR(o, lr_lambda=lambda e: 1.0 / (e + 1)),
    "MultiStepLR": lambda lr, o: lr.MultiStepLR(o, milestones=[2, 5, 5], gamma=0.1),
    "MultiplicativeLR": lambda lr, o: lr.MultiplicativeLR(o, lr_lambda=lambda e: 0.95),
    "CosineAnnealingLR": lambda lr, o: lr.CosineAnnealingLR(o, T_max=4, eta_min=0.001),
}


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_learning_rates_match_torch(torch, name):
    seqs = []
    for lib in (core, torch):
        w = lib.ones(2, requires_grad=True)
        opt = lib.optim.SGD([{"params": [w]}, {"params": [lib.ones(1, requires_grad=True)], "lr": 0.3}], lr=0.1)
        sched = SCHEDULERS[name](lib.optim.lr_scheduler, opt)
        seq = [sched.get_last_lr()]
        for _ in range(10):
            w.grad = lib.ones(2)
            opt.step()
            sched.step()
            seq.append(sched.get_last_lr())
            assert [g["lr"] for g in opt.param_groups] == seq[-1]
        seqs.append((seq, sched.last_epoch, [g["initial_lr"] for g in opt.param_groups]))
    assert seqs[0] == seqs[1]


def test_scheduler_state_dict_round_trip(torch):
    res = []
    for lib in (core, torch):
        opt = lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=1.0)
        s = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        for _ in range(3):
            opt.step()
            s.step()
        sd = s.state_dict()
        opt2 = lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=1.0)
        s2 = lib.optim.lr_scheduler.StepLR(opt2, step_size=7)
        s2.load_state_dict(sd)
        res.append((sorted(sd), s2.step_size, s2.last_epoch, s2.get_last_lr()))
    assert res[0] == res[1]


def test_scheduler_step_before_optimizer_step_warns(torch):
    msgs = []
    for lib in (core, torch):
        opt = lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=1.0)
        s = lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            s.step()
        msgs.append([str(r.message)[:60] for r in rec])
    assert msgs[0] == msgs[1] and len(msgs[0]) == 1


def test_scheduler_rejects_non_optimizer(torch):
    errs = []
    for lib in (core, torch):
        with pytest.raises(TypeError) as info:
            lib.optim.lr_scheduler.StepLR(object(), step_size=1)
        errs.append(str(info.value))
    assert errs[0] == errs[1] == "object is not an Optimizer"


# -- import paths --------------------------------------------------------------------------------

def test_optim_is_lazy_and_importable_as_torch_optim(torch):
    script = (
        "import sys, core\n"
        "assert 'core.optim' not in sys.modules\n"
        "assert core.optim.SGD.__module__ == 'core.optim.sgd'\n"
        "core.alias_as_torch()\n"
        "import torch\n"
        "import torch.optim as optim\n"
        "from torch.optim.lr_scheduler import StepLR\n"
        "from torch.optim import Optimizer\n"
        "w = torch.nn.Parameter(torch.ones(2))\n"
        "opt = optim.SGD([w], lr=0.5)\n"
        "s = StepLR(opt, step_size=1, gamma=0.1)\n"
        "(w * w).sum().backward(); opt.step(); s.step()\n"
        "print(isinstance(opt, Optimizer), w.tolist(), opt.param_groups[0]['lr'])\n"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "[0.0,", "0.0]", "0.05"]
