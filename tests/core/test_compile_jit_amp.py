"""torch.compile, torch.jit (script/trace subset), torch.autocast / GradScaler and the torch.* runtime
switches: core and torch side by side (values, grads, reprs, state_dict keys, errors and warnings)."""
from __future__ import annotations

import sys
import warnings

import pytest

import core
from core.amp import autocast_mode


@pytest.fixture(autouse=True)
def _restore_distribution_validation():
    """Compiling a model turns distribution validation off for the process (torch and core alike): restore it
    for the tests that run after these in the same worker."""
    yield
    if "core._compile" in sys.modules:      # as if no model had been compiled in this worker
        sys.modules["core._compile"]._PATCHED[0] = False
    for name in ("torch.distributions.distribution", "core.distributions.distribution"):
        mod = sys.modules.get(name)
        if mod is not None:
            mod.Distribution.set_default_validate_args(True)



def _outcome(fn):
    """(result or exception class and text, warnings (category, text)) of fn()."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = ("ok", fn())
        except Exception as e:  # noqa: BLE001 - class and text are compared
            out = (type(e).__name__, str(e))
    return out, [(w.category.__name__, str(w.message)) for w in caught
                 if "core's autocast records" not in str(w.message) and w.category is not RuntimeWarning]


def _net(m):
    class Net(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = m.nn.Linear(3, 2)
            self.drop = m.nn.Dropout(0.5)
            self.k = 5

        def forward(self, x):
            return self.drop(self.fc(x).relu())
    m.manual_seed(0)
    return Net()


# -- runtime switches --------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["high", "medium", "highest", "low", "HIGH", 1])
def test_float32_matmul_precision_as_torch(torch, value):
    def run(m):
        before = m.get_float32_matmul_precision()
        try:
            return before, _outcome(lambda: m.set_float32_matmul_precision(value)), m.get_float32_matmul_precision()
        finally:
            m.set_float32_matmul_precision("highest")
    c, t = run(core), run(torch)
    assert (c[0], c[1][0], c[2]) == (t[0], t[1][0], t[2])
    assert [w[1].split(" (Triggered")[0] for w in c[1][1]] == [w[1].split(" (Triggered")[0] for w in t[1][1]]


@pytest.mark.parametrize("arg", ["torch.DoubleTensor", "DoubleTensor", "torch.cuda.FloatTensor", "torch.IntTensor",
                                 "float64", "FloatTensor", "IntTensor"])
def test_set_default_tensor_type_as_torch(torch, arg):
    def run(m):
        value = getattr(m, arg) if not arg.startswith("torch.") else arg
        try:
            out = _outcome(lambda: m.set_default_tensor_type(value))[0]
            return out, str(m.get_default_dtype()), str(m.tensor([1.]).dtype), str(m.ones(1).dtype)
        finally:
            m.set_default_dtype(m.float32)
    assert run(core) == run(torch)


def test_switches_and_flags_in_fresh_processes(program_servers, tmp_path):
    """Once-per-process behaviour (interop threads, the default-tensor-type warning) and build flags, each
    side in a fresh process: a fork of the server that only imported torch, or core as torch
    (tests/program_server.py), which saves two interpreters importing torch."""
    script = """
import warnings
warnings.simplefilter("always")
import torch
def run(f):
    try:
        print("ok", f())
    except Exception as e:
        print(type(e).__name__, e)
print(torch.get_num_interop_threads())
run(lambda: torch.set_num_interop_threads(0))
run(lambda: torch.set_num_interop_threads(2))
print(torch.get_num_interop_threads())
run(lambda: torch.set_num_interop_threads(3))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    torch.set_default_tensor_type(torch.DoubleTensor)
    torch.set_default_tensor_type(torch.FloatTensor)
    print([str(x.message).split(" (Triggered")[0] for x in w])
    print(torch.has_mkl, torch.has_lapack, torch.has_openmp, torch.has_spectral, torch.compiled_with_cxx11_abi())
    print(len(w))
    print(torch.has_cuda, torch.has_cudnn, torch.has_mps, torch.has_mkldnn)
    print([str(x.message) for x in w[1:]])
print(torch.set_flush_denormal(True), torch.set_flush_denormal(False))
"""
    path = tmp_path / "switches.py"
    path.write_text(script)
    torch_out, core_out = (server.run(path) for server in program_servers)
    assert len(torch_out) == 11 and core_out == torch_out


# -- torch.compile ------------------------------------------------------------------------------

def test_compile_module_as_torch(torch):
    def run(m):
        net = _net(m)
        c = m.compile(net, backend="eager")
        x = m.ones(1, 3)
        c.eval()
        y = c(x)
        y.sum().backward()
        rows = [type(c).__name__, repr(c), list(c.state_dict()), [k for k, _ in c.named_parameters()], c.k,
                c._orig_mod is net, net.training, c.training, y.tolist(), net.fc.weight.grad.tolist()]
        c.train()
        c.foo = 3
        rows += [net.training, net.__dict__.get("foo"), c.foo, repr(c.fc)]
        sd = {"_orig_mod.fc.weight": m.zeros(2, 3), "_orig_mod.fc.bias": m.ones(2)}
        rows += [repr(c.load_state_dict(sd)), net.fc.bias.tolist()]
        rows.append(len(m.compile(m.nn.Sequential(m.nn.ReLU(), m.nn.Tanh()), backend="eager")))
        return rows
    assert run(core) == run(torch)


def test_compile_function_and_decorator_as_torch(torch):
    def run(m):
        def f(x):
            return x.sin() + 1
        g = m.compile(f, backend="eager")
        h = m.compile(backend="eager")(f)

        @m.compile(backend="eager", dynamic=True)
        def k(x):
            return x * 2
        return [g.__name__, g.__wrapped__ is f, g(m.zeros(2)).tolist(), h(m.ones(2)).tolist(), k(m.ones(2)).tolist(),
                m.compile(f, disable=True) is f]
    assert run(core) == run(torch)


@pytest.mark.parametrize("kwargs", [{"mode": "max-autotune", "options": {"a": 1}}, {"mode": "foo"},
                                    {"backend": "foo"}, {"model": 5}])
def test_compile_errors_as_torch(torch, kwargs):
    def run(m):
        kw = dict(kwargs)
        model = kw.pop("model", lambda x: x)
        return _outcome(lambda: m.compile(model, **kw) and None)[0]   # torch's first dynamo import warns
    assert run(core) == run(torch)


# -- torch.jit ----------------------------------------------------------------------------------

def test_jit_script_module_as_torch(torch):
    def run(m):
        net = _net(m)
        s = m.jit.script(net)
        x = m.ones(1, 3)
        s.eval()
        y = s(x)
        y.sum().backward()
        rows = [type(s).__name__, repr(s), list(s.state_dict()), s.training, net.training, net.drop.training,
                y.tolist(), net.fc.weight.grad.tolist(), s.original_name, s.fc.original_name,
                s.fc.weight is net.fc.weight, isinstance(s, m.jit.ScriptModule), isinstance(s, m.nn.Module),
                m.jit.script(s) is s]
        s.train()
        m.manual_seed(1)
        rows.append(s(m.ones(4, 3)).tolist())
        return rows
    assert run(core) == run(torch)


def test_jit_trace_and_functions_as_torch(torch):
    def run(m):
        net = _net(m).eval()
        x = m.ones(1, 3)
        t = m.jit.trace(net, x)

        def f(a, b: int = 2):
            return a * b
        sf, tf = m.jit.script(f), m.jit.trace(lambda a: a * 2, x)
        return [type(t).__name__, repr(t), t(x).tolist(), t.original_name, t.fc.original_name,
                repr(type(sf)), sf(x).tolist(), tf(x).tolist(), m.jit.trace(f, (x,))(x).tolist(),
                m.jit.is_scripting(), m.jit.is_tracing(), m.jit.annotate(int, 3),
                _outcome(lambda: m.jit.trace(f))[0]]
    assert run(core) == run(torch)


def test_jit_modifiers_as_torch(torch):
    def run(m):
        def g(x):
            return x
        rows = [m.jit.ignore(g) is g, g._torchscript_modifier, m.jit.export(g)._torchscript_modifier,
                m.jit.unused(g)._torchscript_modifier, _outcome(lambda: m.jit.ignore(drop=True)(g)._torchscript_modifier),
                _outcome(lambda: m.jit.ignore(drop=3)), m.jit.Final]
        net = m.jit.script(_net(m))
        rows.append(_outcome(lambda: m.jit.freeze(net) and None))
        rows.append(sorted({w for w in _outcome(lambda: m.jit.trace(g, m.ones(1)) and None)[1]}))
        return rows
    assert run(core) == run(torch)


def test_jit_save_and_load_refuse_clearly():
    s = core.jit.script(_net(core))
    for call in (lambda: core.jit.save(s, "x.pt"), lambda: s.save("x.pt"), lambda: core.jit.load("x.pt")):
        with pytest.raises(NotImplementedError, match="not supported by core"):
            call()


# -- autocast -----------------------------------------------------------------------------------

def test_autocast_state_as_torch(torch):
    def run(m):
        rows = [m.is_autocast_enabled(), m.is_autocast_enabled("cpu"), repr(m.get_autocast_dtype("cpu"))]
        with m.autocast(device_type="cpu"):
            rows += [m.is_autocast_enabled("cpu"), repr(m.get_autocast_dtype("cpu")), m.is_autocast_enabled()]
        with m.autocast("cpu", dtype=m.float16):
            rows += [m.is_autocast_enabled("cpu"), repr(m.get_autocast_dtype("cpu"))]
            with m.autocast("cpu", enabled=False):
                rows += [m.is_autocast_enabled("cpu"), repr(m.get_autocast_dtype("cpu"))]
            rows += [m.is_autocast_enabled("cpu")]
        with m.amp.autocast("cpu", dtype=m.float16):
            rows += [m.is_autocast_enabled("cpu")]

        @m.autocast("cpu")
        def inside():
            return m.is_autocast_enabled("cpu")
        rows += [inside(), m.is_autocast_enabled("cpu"), repr(m.get_autocast_dtype("cpu"))]
        rows.append(_outcome(lambda: (m.get_autocast_cpu_dtype() and None, m.is_autocast_cpu_enabled())))
        return rows
    c, t = run(core), run(torch)
    strip = lambda rows: [r if not isinstance(r, tuple) else (r[0], [(w[0], w[1].split(" (Triggered")[0])
                                                                    for w in r[1]]) for r in rows]
    assert strip(c) == strip(t)


def test_autocast_disabled_is_a_no_op(torch):
    def run(m):
        m.manual_seed(0)
        lin = m.nn.Linear(4, 3)
        x = m.randn(2, 4)
        with m.autocast("cpu", dtype=m.float16, enabled=False):
            y = lin(x) @ m.ones(3, 3)
            y.sum().backward()
            return [str(y.dtype), y.tolist(), lin.weight.grad.tolist(), m.is_autocast_enabled("cpu")]
    assert run(core) == run(torch)


@pytest.mark.parametrize("args", [("foo",), (1,), ("cuda",), ("cpu", "float32"), ("cpu", "float64"), ("meta",)])
def test_autocast_arguments_as_torch(torch, args):
    def run(m):
        device, *dtype = args
        kw = {"dtype": getattr(m, dtype[0])} if dtype else {}

        def enter():
            with m.autocast(device, **kw):
                return m.is_autocast_enabled(device) if isinstance(device, str) else None
        return _outcome(enter)
    assert run(core) == run(torch)


def test_deprecated_cpu_amp_spellings_as_torch(torch):
    def run(m):
        rows = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with m.cpu.amp.autocast():
                rows += [m.is_autocast_enabled("cpu"), repr(m.get_autocast_dtype("cpu"))]
            s = m.cpu.amp.GradScaler()
            rows += [s.is_enabled(), s.get_scale(), isinstance(s, m.amp.GradScaler)]
            rows += [(x.category.__name__, str(x.message)) for x in w if "core's autocast" not in str(x.message)]
        return rows
    assert run(core) == run(torch)


# -- GradScaler -----------------------------------------------------------------------------------

def _scaler_run(m, enabled=True, device="cpu", **kw):
    """A few SGD steps under a GradScaler, one with an inf gradient; what the scaler reports each step."""
    m.manual_seed(0)
    lin = m.nn.Linear(3, 1)
    opt = m.optim.SGD(lin.parameters(), lr=0.1)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        scaler = m.amp.GradScaler(device, enabled=enabled, **kw)
    rows = [[str(x.message) for x in w], scaler.is_enabled(), scaler.state_dict()]
    for step in range(5):
        opt.zero_grad()
        x = m.randn(4, 3) * (float("inf") if step == 2 else 1.0)
        loss = lin(x).pow(2).mean()
        scaled = scaler.scale(loss)
        scaled.backward()
        if step == 1:
            scaler.unscale_(opt)
            rows.append(_outcome(lambda: scaler.unscale_(opt))[0])
        rows.append(scaler.step(opt))
        rows.append(_outcome(lambda: scaler.step(opt))[0])
        scaler.update()
        rows += [scaled.item(), scaler.get_scale(), scaler._get_growth_tracker(), lin.weight.tolist()]
    rows += [scaler.state_dict(), scaler.scale([m.ones(1), (m.ones(2),)])[1][0].tolist()]
    return rows


@pytest.mark.parametrize("kw", [{}, {"enabled": False}, {"device": "cuda"}, {"growth_interval": 2, "init_scale": 8.0}])
def test_grad_scaler_training_as_torch(torch, kw):
    """Scales, growth trackers, skipped steps and errors exactly; losses and weights to float32 rounding (the
    gradients of core's linear backward may differ from torch's in the last bit, with or without a scaler)."""
    c, t = _scaler_run(core, **kw), _scaler_run(torch, **kw)
    assert _approx(c) == _approx(t)
    assert _flat(c) == pytest.approx(_flat(t), rel=1e-6, abs=1e-7, nan_ok=True)


def _approx(rows):
    """rows with every float replaced by its type name (compared exactly elsewhere with a tolerance)."""
    if isinstance(rows, (list, tuple)):
        return [_approx(r) for r in rows]
    if isinstance(rows, dict):
        return {k: _approx(v) for k, v in rows.items()}
    return "float" if isinstance(rows, float) else rows


def _flat(rows):
    if isinstance(rows, (list, tuple)):
        return [f for r in rows for f in _flat(r)]
    if isinstance(rows, dict):
        return _flat(list(rows.values()))
    return [rows] if isinstance(rows, float) else []


@pytest.mark.parametrize("kw", [{"growth_factor": 1.0}, {"backoff_factor": 1.0}])
def test_grad_scaler_errors_as_torch(torch, kw):
    assert _outcome(lambda: core.amp.GradScaler("cpu", **kw))[0] == _outcome(lambda: torch.amp.GradScaler("cpu", **kw))[0]


def test_grad_scaler_state_dict_round_trip(torch):
    def run(m):
        s = m.amp.GradScaler("cpu", init_scale=4.0)
        s.load_state_dict({"scale": 16.0, "growth_factor": 3.0, "backoff_factor": 0.25, "growth_interval": 7,
                           "_growth_tracker": 2})
        rows = [s.state_dict(), s.scale(m.ones(2)).tolist(), _outcome(lambda: s.load_state_dict({}))[0],
                _outcome(lambda: s.update())[0]]
        return rows
    assert run(core) == run(torch)


def test_bfloat16_stand_in_prints_as_torch():
    assert repr(autocast_mode.bfloat16) == "torch.bfloat16"


_VALIDATION_AFTER_COMPILE = """
import torch
print(torch.distributions.Distribution._validate_args)
torch.compile(lambda x: x, disable=True)
torch.compile(backend="eager")
print(torch.distributions.Distribution._validate_args)
torch.compile(torch.nn.Linear(2, 2), backend="eager")
print(torch.distributions.Distribution._validate_args)
print(torch.distributions.Normal(0.0, -1.0).scale)
"""


@pytest.mark.parametrize("import_first", [True, False])
def test_compiling_a_model_turns_distribution_validation_off_as_dynamo_does(program_servers, tmp_path, import_first):
    """torch._dynamo's TorchPatcher.patch runs on the first compiled model: Distribution.set_default_validate_args
    (False) for the rest of the process (whether torch.distributions was imported before or after)."""
    code = _VALIDATION_AFTER_COMPILE if import_first else \
        _VALIDATION_AFTER_COMPILE.replace("print(torch.distributions.Distribution._validate_args)\n", "", 1)
    path = tmp_path / "compile_validation.py"
    path.write_text(code)
    torch_out, core_out = (server.run(path) for server in program_servers)
    assert core_out == torch_out
