"""ASGD, Rprop, Adafactor, SparseAdam and torch.optim.swa_utils against torch: parameters and state bit for bit
after many steps on the same gradients (float32; float64 within a rounding), errors, defaults, repr, state_dict
round trips (also between core and torch), and the averaging utilities."""
from __future__ import annotations

import math
import subprocess
import sys
import warnings

import numpy as np
import pytest

import core
from conftest import same_error
from core.optim import _exact, _kernels
from tests.core.optim.test_bitwise import CONFIGS as BITWISE_CONFIGS
from tests.core.optim.test_bitwise import Pair, assert_state_bitwise, mkl_sqrt  # noqa: F401  (mkl_sqrt is a fixture)

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
# foreach=True: torch's multi-tensor implementations (ASGD's is a different formulation, Adafactor's rounds its last
# update differently)
CONFIGS.update({f"{name}-foreach": (cls, dict(kwargs, foreach=True)) for name, (cls, kwargs) in list(CONFIGS.items())
                if name in ("ASGD", "ASGD-t0-wd", "ASGD-maximize", "Rprop-etas", "Rprop-maximize", "Adafactor",
                            "Adafactor-wd", "Adafactor-maximize")})
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


@pytest.mark.parametrize("name", ["ASGD-t0-wd", "ASGD-foreach", "Rprop-etas", "Adafactor-wd", "Adafactor-foreach"])
def test_float64_parameters_keep_dtype_and_are_bitwise(torch, mkl_sqrt, name):
    cls, kwargs = CONFIGS[name]
    pair = Pair(torch, cls, kwargs, dtype="float64")
    for step in range(10):
        pair.step()
        assert pair.mismatches() == [0] * len(pair.cparams), f"step {step}"
    for pc, pt in zip(pair.cparams, pair.tparams):
        assert pc.dtype == core.float64
        assert_state_bitwise(pair.copt.state[pc], pair.topt.state[pt])


NEW = ["ASGD", "Rprop", "Adafactor", "SparseAdam"]


def _same_error(fc, ft):
    ec, et = same_error(fc, ft)
    assert et is not None and type(ec) is type(et) and str(ec) == str(et)


BAD_ARGS = [
    ("ASGD", dict(lr=-1)), ("ASGD", dict(weight_decay=-1)), ("Rprop", dict(lr=-1)), ("Rprop", dict(etas=(1.5, 2.0))),
    ("Rprop", dict(etas=(0.5, 0.9))), ("Adafactor", dict(lr=-1)), ("Adafactor", dict(beta2_decay=0.5)),
    ("Adafactor", dict(eps=(-1.0, 1e-3))), ("Adafactor", dict(eps=(None, -1.0))), ("Adafactor", dict(d=0.5)),
    ("Adafactor", dict(weight_decay=-1)), ("SparseAdam", dict(lr=0)), ("SparseAdam", dict(eps=0)),
    ("SparseAdam", dict(betas=(1.0, 0.9))), ("SparseAdam", dict(betas=(0.9, -0.1))),
]


@pytest.mark.parametrize("cls,kwargs", BAD_ARGS, ids=[f"{c}-{k}" for c, k in BAD_ARGS])
def test_invalid_hyperparameters_raise_like_torch(torch, cls, kwargs):
    _same_error(lambda: getattr(core.optim, cls)([core.ones(2, requires_grad=True)], **kwargs),
                lambda: getattr(torch.optim, cls)([torch.ones(2, requires_grad=True)], **kwargs))


@pytest.mark.parametrize("cls", NEW)
def test_repr_defaults_and_group_keys_match_torch(torch, cls):
    oc = getattr(core.optim, cls)([core.ones(2, requires_grad=True)])
    ot = getattr(torch.optim, cls)([torch.ones(2, requires_grad=True)])
    assert repr(oc) == repr(ot)
    assert oc.defaults == ot.defaults
    assert list(oc.param_groups[0]) == list(ot.param_groups[0])


def test_sparse_adam_rejects_dense_gradients_like_torch(torch):
    res = []
    for lib in (core, torch):
        w, v = lib.ones(3, requires_grad=True), lib.ones(2, requires_grad=True)
        opt = lib.optim.SparseAdam([w, v])
        opt.step()                                   # no gradients yet: nothing to do
        (w * 2).sum().backward()
        with pytest.raises(RuntimeError) as info:
            opt.step()
        res.append((str(info.value), w.tolist(), len(opt.state), opt.state_dict()["param_groups"]))
    assert res[0] == res[1]


@pytest.mark.parametrize("name", ["ASGD-t0-wd", "Rprop-etas", "Adafactor-wd"])
def test_state_dict_round_trip_and_cross_load_with_torch(torch, mkl_sqrt, name):
    """core's state_dict equals torch's; each loads into the other library's optimizer and training goes on
    bit for bit."""
    cls, kwargs = CONFIGS[name]
    pair = Pair(torch, cls, kwargs)
    for _ in range(3):
        pair.step()
    sc, st = pair.copt.state_dict(), pair.topt.state_dict()
    assert sc["param_groups"] == st["param_groups"]
    assert list(sc["state"]) == list(st["state"])
    for k in st["state"]:
        assert_state_bitwise(sc["state"][k], st["state"][k])
    to_core = {"state": {k: {n: core.tensor(v.numpy().copy()) for n, v in s.items()} for k, s in st["state"].items()},
               "param_groups": st["param_groups"]}
    to_torch = {"state": {k: {n: torch.tensor(v.numpy().copy()) for n, v in s.items()}
                          for k, s in sc["state"].items()}, "param_groups": sc["param_groups"]}
    fresh_c = getattr(core.optim, cls)(pair.cparams, lr=123.0)
    fresh_c.load_state_dict(to_core)
    fresh_t = getattr(torch.optim, cls)(pair.tparams, lr=123.0)
    fresh_t.load_state_dict(to_torch)
    pair.copt, pair.topt = fresh_c, fresh_t
    for step in range(10):
        pair.step()
        assert pair.mismatches() == [0] * len(pair.cparams), f"step {step}"


@pytest.mark.parametrize("cls", ["ASGD", "Rprop", "Adafactor"])
def test_closure_zero_grad_hooks_and_add_param_group(torch, cls):
    res = []
    for lib in (core, torch):
        a, b = lib.ones(3, requires_grad=True), lib.full((2, 2), 0.5, requires_grad=True)
        opt = getattr(lib.optim, cls)([a])
        calls = []
        opt.register_step_pre_hook(lambda o, args, kw: calls.append("pre"))
        h = opt.register_step_post_hook(lambda o, args, kw: calls.append("post"))

        def closure():
            opt.zero_grad()
            loss = (a * a).sum() + (b * b * b).sum()
            loss.backward()
            return loss
        loss1 = opt.step(closure)
        opt.add_param_group({"params": [b], "lr": 0.1})
        h.remove()
        loss2 = opt.step(closure)
        opt.zero_grad(set_to_none=False)
        res.append((float(loss1.detach()), float(loss2.detach()), calls, a.tolist(), b.tolist(), a.grad.tolist(),
                    [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups],
                    {k: sorted(s) for k, s in opt.state_dict()["state"].items()}))
    assert res[0] == res[1]


# -- swa_utils -----------------------------------------------------------------------------------------------------

def _bn_model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.BatchNorm1d(5), lib.nn.ReLU(), lib.nn.Linear(5, 2))


def _load(model, state, lib):
    model.load_state_dict({k: lib.tensor(v.numpy().copy()) for k, v in state.items()})


SWA_KINDS = {
    "swa-default": lambda U: dict(),
    "ema-multi": lambda U: dict(multi_avg_fn=U.get_ema_multi_avg_fn(0.9)),
    "swa-multi": lambda U: dict(multi_avg_fn=U.get_swa_multi_avg_fn()),
    "ema-avg-buffers": lambda U: dict(avg_fn=U.get_ema_avg_fn(0.8), use_buffers=True),
    "swa-avg-buffers": lambda U: dict(avg_fn=U.get_swa_avg_fn(), use_buffers=True),
    "ema-multi-buffers": lambda U: dict(multi_avg_fn=U.get_ema_multi_avg_fn(0.7), use_buffers=True),
}


@pytest.mark.parametrize("kind", list(SWA_KINDS))
def test_averaged_model_matches_torch_bitwise(torch, kind):
    """torch trains a model; core's copy gets the same weights and buffers after every step, so only the
    averaging is compared (state_dict values, dtypes and keys, n_averaged, and the averaged model's output)."""
    tmodel, cmodel = _bn_model(torch), _bn_model(core)
    _load(cmodel, tmodel.state_dict(), core)
    tavg = torch.optim.swa_utils.AveragedModel(tmodel, **SWA_KINDS[kind](torch.optim.swa_utils))
    cavg = core.optim.swa_utils.AveragedModel(cmodel, **SWA_KINDS[kind](core.optim.swa_utils))
    opt = torch.optim.SGD(tmodel.parameters(), lr=0.1, momentum=0.5)
    rng = np.random.default_rng(0)
    for _ in range(6):
        opt.zero_grad()
        tmodel(torch.tensor(rng.standard_normal((8, 4)), dtype=torch.float32)).pow(2).mean().backward()
        opt.step()
        _load(cmodel, tmodel.state_dict(), core)
        tavg.update_parameters(tmodel)
        cavg.update_parameters(cmodel)
    sc, st = cavg.state_dict(), tavg.state_dict()
    assert list(sc) == list(st)
    for k in st:
        assert str(sc[k].dtype) == str(st[k].dtype), k
        np.testing.assert_array_equal(sc[k].numpy(), st[k].numpy(), err_msg=k)
    cavg.eval()
    tavg.eval()
    x = rng.standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_allclose(cavg(core.tensor(x)).detach().numpy(), tavg(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_update_bn_and_averaged_model_errors_match_torch(torch):
    tmodel = _bn_model(torch)
    cmodel = _bn_model(core)
    _load(cmodel, tmodel.state_dict(), core)
    rng = np.random.default_rng(1)
    data = [rng.standard_normal((6, 4)).astype(np.float32) for _ in range(3)]
    res = []
    for lib, model in ((core, cmodel), (torch, tmodel)):
        model.eval()
        bn = model[1]
        bn.momentum = 0.3
        loader = [(lib.tensor(x), lib.zeros(6)) for x in data]
        lib.optim.swa_utils.update_bn(loader, model)
        res.append((model.training, bn.momentum, bn.running_mean.numpy().copy(), bn.running_var.numpy().copy(),
                    int(bn.num_batches_tracked)))
        lib.optim.swa_utils.update_bn(loader, lib.nn.Linear(4, 2))          # no BatchNorm: nothing happens
    assert res[0][:2] == res[1][:2] and res[0][4] == res[1][4]
    # the statistics go through each library's Linear (BLAS) and BatchNorm: equal to float32 rounding
    np.testing.assert_allclose(res[0][2], res[1][2], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res[0][3], res[1][3], rtol=1e-5, atol=1e-6)
    for make in (lambda L: L.optim.swa_utils.get_ema_avg_fn(1.5), lambda L: L.optim.swa_utils.get_ema_multi_avg_fn(-1),
                 lambda L: L.optim.swa_utils.AveragedModel(L.nn.Linear(1, 1), avg_fn=L.optim.swa_utils.get_swa_avg_fn(),
                                                           multi_avg_fn=L.optim.swa_utils.get_swa_multi_avg_fn())):
        _same_error(lambda: make(core), lambda: make(torch))


SWALR_CASES = {
    "cos": dict(swa_lr=0.05, anneal_epochs=4),
    "linear": dict(swa_lr=[0.05, 0.01], anneal_epochs=3, anneal_strategy="linear"),
    "no-anneal": dict(swa_lr=0.02, anneal_epochs=0),
}


@pytest.mark.parametrize("name", list(SWALR_CASES))
def test_swalr_steps_like_torch(torch, name):
    seqs = []
    for lib in (core, torch):
        w = lib.ones(2, requires_grad=True)
        opt = lib.optim.SGD([{"params": [w]}, {"params": [lib.ones(1, requires_grad=True)], "lr": 0.3}], lr=0.1)
        main = lib.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        swa = lib.optim.swa_utils.SWALR(opt, **SWALR_CASES[name])
        seq = [swa.get_last_lr()]
        for epoch in range(8):
            w.grad = lib.ones(2)
            opt.step()
            (main if epoch < 2 else swa).step()
            seq.append((swa.get_last_lr(), [g["lr"] for g in opt.param_groups]))
        sd = swa.state_dict()
        again = lib.optim.swa_utils.SWALR(opt, swa_lr=1.0)
        again.load_state_dict(sd)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lrs = swa.get_lr()
        seqs.append((seq, sorted(sd), again.anneal_func(0.5), again._anneal_strategy, lrs,
                     [str(c.message) for c in caught]))
    assert seqs[0] == seqs[1]


@pytest.mark.parametrize("kwargs", [dict(anneal_strategy="exp"), dict(anneal_epochs=-1), dict(anneal_epochs=1.5),
                                    dict(swa_lr=[0.1, 0.2, 0.3])])
def test_swalr_errors_match_torch(torch, kwargs):
    def make(lib):
        opt = lib.optim.SGD([{"params": [lib.ones(1, requires_grad=True)]},
                             {"params": [lib.ones(1, requires_grad=True)]}], lr=0.1)
        lib.optim.swa_utils.SWALR(opt, **{"swa_lr": 0.05, **kwargs})
    _same_error(lambda: make(core), lambda: make(torch))


def test_optim_namespace_matches_torch(torch):
    # Muon is left out: its Newton-Schulz iteration runs bfloat16 matmuls (core has no bfloat16)
    public = {n for n in dir(torch.optim) if not n.startswith("_")} - {"Muon"}
    assert public <= set(dir(core.optim))
    for name in ("AveragedModel", "SWALR", "update_bn", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
                 "get_ema_avg_fn", "get_swa_avg_fn"):
        assert hasattr(core.optim.swa_utils, name)
    assert math.isfinite(core.optim.swa_utils.SWALR._cosine_anneal(0.3))


def _all_configs():
    return {**{k: v for k, v in BITWISE_CONFIGS.items() if not k.endswith("-foreach")}, **CONFIGS}


@pytest.mark.parametrize("name", list(_all_configs()))
def test_saved_state_dict_crosses_between_core_and_torch(torch, mkl_sqrt, tmp_path, name):
    """An optimizer's state_dict saved by torch.save loads (core.load) into core's optimizer, core's into torch's,
    and both keep training bit for bit: the two libraries' dict shapes are the same."""
    cls, kwargs = _all_configs()[name]
    pair = Pair(torch, cls, kwargs)
    for _ in range(3):
        pair.step()
    torch.save(pair.topt.state_dict(), tmp_path / "t.pt")
    core.save(pair.copt.state_dict(), tmp_path / "c.pt")
    oc = getattr(core.optim, cls)(pair.cparams, lr=5.0)
    oc.load_state_dict(core.load(tmp_path / "t.pt"))
    ot = getattr(torch.optim, cls)(pair.tparams, lr=5.0)
    ot.load_state_dict(torch.load(tmp_path / "c.pt"))
    pair.copt, pair.topt = oc, ot
    for step in range(5):
        pair.step()
        assert pair.mismatches() == [0] * len(pair.cparams), f"step {step}"


def _swap_in(lib):
    """An Adam step run against swapped-in parameters and state: they change in place, the live ones do not."""
    out = []
    w = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    opt = lib.optim.Adam([w], lr=0.5)
    w.grad = lib.tensor([0.5, 0.25, -1.0])
    opt.step()
    other = lib.tensor([10.0, 20.0, 30.0], requires_grad=True)
    other.grad = lib.tensor([1.0, 1.0, 1.0])
    osd = {"state": {0: {k: v.clone() for k, v in opt.state_dict()["state"][0].items()}},
           "param_groups": [dict(opt.state_dict()["param_groups"][0], lr=0.25)]}
    with lib.optim.swap_in_optimizer_params_and_state(opt, {"w": other}, osd):
        out.append((opt.param_groups[0]["lr"], opt.param_groups[0]["params"][0] is other))
        opt.step()
    out.append((other.tolist(), w.tolist(), osd["state"][0]["exp_avg"].tolist(), osd["state"][0]["step"].item(),
                opt.param_groups[0]["lr"], opt.state[w]["step"].item(), len(opt.state)))
    bad = [{"state": [], "param_groups": []}, {"state": {}, "param_groups": {}}, {"state": {}, "param_groups": []},
           {"state": {5: {}}, "param_groups": [dict(osd["param_groups"][0])]},
           {"state": {0: 1}, "param_groups": [dict(osd["param_groups"][0])]},
           {"state": {}, "param_groups": [dict(osd["param_groups"][0], extra=1)]},
           {"state": {}, "param_groups": [dict(osd["param_groups"][0], params=[0, 1])]}, []]
    for sd in bad:
        try:
            with lib.optim.swap_in_optimizer_params_and_state(opt, {"w": other}, sd):
                pass
        except RuntimeError as e:
            out.append(str(e))
    fresh = lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=0.1)
    try:
        with lib.optim.swap_in_optimizer_params_and_state(fresh, {}, {}):
            pass
    except RuntimeError as e:
        out.append(str(e))
    return out


def test_swap_in_optimizer_params_and_state_like_torch(torch):
    assert _swap_in(core) == _swap_in(torch)


@pytest.mark.parametrize("name", list({**BITWISE_CONFIGS, **CONFIGS}))
def test_zero_dim_and_one_element_parameters_match_torch(torch, mkl_sqrt, name):
    """A 0-dim parameter (NumPy turns 0-dim results into scalars) next to a 2-element one, every optimizer
    configuration, bit for bit; then with an empty parameter too (Adafactor's RMS divides by its size: torch's
    ZeroDivisionError)."""
    cls, kwargs = {**BITWISE_CONFIGS, **CONFIGS}[name]
    for empty in (False, True):
        res = []
        for lib in (core, torch):
            ws = [lib.tensor(1.5, requires_grad=True), lib.tensor([0.3, -0.2], requires_grad=True)]
            ws += [lib.zeros(0, requires_grad=True)] if empty else []
            opt = getattr(lib.optim, cls)(ws, **kwargs)
            try:
                for g in (0.5, -0.25, 0.125, 0.3):
                    ws[0].grad, ws[1].grad = lib.tensor(g), lib.tensor([g, -g])
                    if empty:
                        ws[2].grad = lib.zeros(0)
                    opt.step()
            except ZeroDivisionError as e:
                res.append(str(e))
                continue
            res.append([w.tolist() for w in ws] + [[tuple(getattr(v, "shape", ())) for v in opt.state[ws[0]].values()]])
        assert res[0] == res[1]


def test_swa_utils_is_imported_on_first_use():
    """`import core.optim` does not import core.nn (swa_utils does, on first access: ~100 ms)."""
    code = ("import sys, core.optim as o; a = 'core.nn' in sys.modules; o.swa_utils; "
            "print(a, 'core.nn' in sys.modules, 'swa_utils' in dir(o))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True", "True"]


ALL_OPTIMIZERS = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop",
                  "Adafactor", "LBFGS", "SparseAdam"]


def _surface(lib, cls):
    w = lib.ones(2, 3, requires_grad=True)
    opt = getattr(lib.optim, cls)([w], **(dict(lr=0.1) if cls == "SGD" else {}))
    before = (list(opt.param_groups[0]), repr(opt), opt.defaults)
    if cls != "SparseAdam":
        def closure():
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            return loss
        opt.step(closure)
    sd = opt.state_dict()
    state = {k: [(n, type(v).__name__, str(getattr(v, "dtype", None)), tuple(getattr(v, "shape", ())))
                 for n, v in s.items()] for k, s in sd["state"].items()}
    return before, sd["param_groups"], state


@pytest.mark.parametrize("cls", ALL_OPTIMIZERS)
def test_param_group_keys_repr_defaults_and_state_layout_match_torch(torch, cls):
    """param_groups keys in torch's order (foreach / fused / maximize / capturable / differentiable ...), repr,
    defaults, the state_dict's groups and each state entry's name, type, dtype and shape after a closure step."""
    assert _surface(core, cls) == _surface(torch, cls)


@pytest.mark.parametrize("name", [n for n in _all_configs() if not n.endswith("-foreach")])
def test_tensor_lr_computes_like_torch(torch, mkl_sqrt, name):
    """lr given as a 0-dim Tensor: torch computes step sizes (Adam's lr / bias_correction1, ASGD's eta, ...) as
    float32 tensor operations, not in Python floats; 10 steps bit for bit."""
    cls, kwargs = _all_configs()[name]
    lr = kwargs.get("lr", 1.0 if cls == "Adadelta" else 0.01)
    pair = Pair(torch, cls, kwargs)
    pair.topt = getattr(torch.optim, cls)(pair.tparams, **dict(kwargs, lr=torch.tensor(lr)))
    pair.copt = getattr(core.optim, cls)(pair.cparams, **dict(kwargs, lr=core.tensor(lr)))
    for step in range(10):
        pair.step()
        assert pair.mismatches() == [0] * len(pair.cparams), f"step {step}"


@pytest.mark.parametrize("name", ["ASGD-t0-wd", "ASGD-foreach", "Rprop-etas", "Adafactor-wd", "Adafactor-foreach"])
def test_float64_default_dtype_state_matches_torch(torch, mkl_sqrt, name):
    """Under set_default_dtype(float64) the 0-dim state (step, eta, mu) is float64, as torch makes it, and
    float32 parameters still update bit for bit."""
    cls, kwargs = CONFIGS[name]
    pair = Pair(torch, cls, kwargs)
    try:
        torch.set_default_dtype(torch.float64)
        core.set_default_dtype(core.float64)
        for _ in range(10):
            pair.step()
    finally:
        torch.set_default_dtype(torch.float32)
        core.set_default_dtype(core.float32)
    assert pair.mismatches() == [0] * len(pair.cparams)
    for pc, pt in zip(pair.cparams, pair.tparams):
        assert_state_bitwise(pair.copt.state[pc], pair.topt.state[pt])



@pytest.mark.parametrize("name", [n for n in BITWISE_CONFIGS])
def test_existing_optimizers_are_bitwise_on_float64_too(torch, mkl_sqrt, name):
    """float64 add(alpha) / lerp / addcmul round one FMA in ATen: _exact.fma64_ reproduces it, so every optimizer
    configuration is bitwise torch's on float64 parameters as well."""
    cls, kwargs = BITWISE_CONFIGS[name]
    pair = Pair(torch, cls, kwargs, dtype="float64")
    for step in range(10):
        pair.step()
        assert pair.mismatches() == [0] * len(pair.cparams), f"step {step}"


@pytest.mark.parametrize("seed", range(3))
def test_float64_fma_kernels_match_torch(torch, seed):
    """add_ / lerp_ / addcmul_ on float64 operands spanning many exponents (where multiply-then-add double rounds)
    agree with torch's fused kernels bit for bit."""
    rng = np.random.default_rng(seed)
    n = 4 * _exact._CHUNK64 + 1001                     # fma64_'s chunk loop crossed, with a partial chunk
    a, b, c = (rng.standard_normal(n) * np.exp2(rng.integers(-40, 40, n)) for _ in range(3))
    for alpha in (0.37, -1e-3, 3.1):
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
    x = np.array([1e308, -1e308, np.inf, np.nan, 0.0])
    _kernels.add_(x, np.array([1e308, 2.0, 1.0, 1.0, -0.0]), 10.0)
    f64 = torch.float64
    np.testing.assert_array_equal(x, torch.tensor([1e308, -1e308, np.inf, np.nan, 0.0], dtype=f64).add_(
        torch.tensor([1e308, 2.0, 1.0, 1.0, -0.0], dtype=f64), alpha=10.0).numpy())
