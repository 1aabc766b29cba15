"""A CPU-only torch as users meet it: torch.cuda, torch.device, torch.backends, torch.accelerator,
default device; each compared with torch 2.13 CPU (which has no CUDA on this machine)."""
from __future__ import annotations

import pytest

import core
from core.device import check_device
from tests.conftest import same_error

QUERIES = ["cuda.is_available()", "cuda.device_count()", "cuda.manual_seed(1)", "cuda.manual_seed_all(1)",
           "cuda.seed()", "cuda.is_initialized()", "cuda.empty_cache()", "cuda.memory_allocated()",
           "cuda.max_memory_allocated()", "cuda.memory_reserved()", "cuda.is_bf16_supported()",
           "cuda.get_arch_list()", "cuda.get_rng_state_all()",
           "backends.mps.is_available()", "backends.mps.is_built()", "backends.cudnn.benchmark",
           "backends.cudnn.deterministic", "backends.cudnn.enabled", "backends.cudnn.is_available()",
           "backends.cudnn.version()", "backends.cuda.is_built()", "backends.mkldnn.is_available()",
           "backends.cuda.matmul.allow_tf32", "backends.cudnn.allow_tf32",
           "accelerator.is_available()", "accelerator.current_accelerator()", "accelerator.device_count()",
           "get_default_device().type"]
RAISING = ["cuda.current_device()", "cuda.get_device_name()", "cuda.get_device_name(0)", "cuda.synchronize()",
           "cuda.get_device_properties(0)", "cuda.init()", "cuda.initial_seed()", "cuda.get_rng_state()",
           "cuda.set_device(0)", "cuda.get_device_capability()", "cuda.device(0).__enter__()",
           "accelerator.current_device_index()", "accelerator.synchronize()", "backends.mps.is_macos13_or_newer()"]


def _run(mod, expr):
    try:
        return "ok", eval("m." + expr, {"m": mod})
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)


@pytest.mark.parametrize("expr", QUERIES + RAISING)
def test_query_like_torch(torch, expr):
    assert _run(core, expr) == _run(torch, expr)


DEVICES = [("cuda",), ("cuda:0",), ("mps",), ("cuda", 0), ("cpu",), ("cpu", 0), ("cpu:0",), ("cuda:1",), ("meta",),
           ("xpu",), (0,), ("foo",), ("CPU",), (" cpu",), ("cuda:x",), ("cpu:-1",), ("cuda:01",), ("cuda:",),
           ("cuda", -1), ("cuda:0", 1), ("cuda", "x"), ("cuda", True), ("cuda", None), (None,), (1.0,)]


@pytest.mark.parametrize("args", DEVICES, ids=str)
def test_device_construct(torch, args):
    c, t = _run(core, "device(*a)".replace("a", repr(args))), _run(torch, "device(*a)".replace("a", repr(args)))
    if c[0] == "ok":
        assert (repr(c[1]), str(c[1]), c[1].type, c[1].index) == (repr(t[1]), str(t[1]), t[1].type, t[1].index)
    else:
        assert c == t


def test_device_equality_hash_pickle(torch):
    pairs = [("cuda", "cuda:0"), ("cuda:0", "cuda:0"), ("cpu", "cpu"), ("cpu", "cpu:0"), ("mps", "cuda")]
    for a, b in pairs:
        assert (core.device(a) == core.device(b)) == (torch.device(a) == torch.device(b))
        assert (core.device(a) != core.device(b)) == (torch.device(a) != torch.device(b))
    assert (core.device("cpu") == "cpu") == (torch.device("cpu") == "cpu")
    assert core.device(core.device("cuda:1")) == core.device("cuda", 1)
    assert hash(core.device("cpu")) == hash(core.device("cpu"))
    fn, args = core.device("cuda:1").__reduce__()
    assert fn(*args) == core.device("cuda:1") and args == torch.device("cuda:1").__reduce__()[1]
    assert repr(core.device) == repr(torch.device) and repr(type(core.ones(1).device)) == repr(torch.device)
    assert core.ones(2).device == core.device("cpu") and not core.ones(2).is_cuda


MOVES = ["ones(2).to('cuda')", "ones(2).cuda()", "ones(2).to('cuda:0')", "ones(2).to(m.device('cuda:0'))",
         "ones(2).to(device='cuda')", "ones(2).to('cuda', m.float64)", "ones(2).to('mps')", "ones(2).to('cpu')",
         "ones(2).to('xpu')", "zeros(2, device='cuda')",
         "tensor([1], device='cuda')", "nn.Linear(2, 2).cuda()",
         "nn.Linear(2, 2).to('cuda')", "nn.Linear(2, 2).to('mps')", "nn.Linear(2, 2).cpu()",
         "zeros(2, device='mps')",
         "randn(2, device='cuda')",
         "arange(3, device='cuda')",
         "ones(2, device=m.device('cuda'))",
         "ones(2).to(0)",
         "nn.Linear(2, 2).to(m.device('cuda'))",
         "nn.Linear(2, 2, device='cuda')"]


@pytest.mark.parametrize("expr", MOVES)
def test_move_to_missing_device(torch, expr):
    c, t = _run(core, expr), _run(torch, expr)
    assert c[0] != "NameError" and c[0] == t[0]
    _same_message(c, t)


def _same_message(c, t):
    """Equal messages; torch appends its dispatcher's backend table to NotImplementedError."""
    if c[0] == "NotImplementedError":
        assert t[1].startswith(c[1])
    elif c[0] != "ok":
        assert c[1] == t[1]


FACTORIES = ["zeros(2, device=d)", "ones(2, 3, device=d)", "empty(2, device=d)", "full((2,), 1.0, device=d)",
             "arange(3, device=d)", "linspace(0, 1, 3, device=d)", "logspace(0, 1, 3, device=d)",
             "eye(2, device=d)", "rand(2, device=d)", "randn(2, device=d)", "randint(5, (2,), device=d)",
             "randperm(3, device=d)", "normal(0.0, 1.0, (2,), device=d)", "tensor([1.0], device=d)",
             "as_tensor([1.0], device=d)", "asarray([1.0], device=d)", "zeros_like(m.ones(2), device=d)",
             "ones_like(m.ones(2), device=d)", "empty_like(m.ones(2), device=d)", "full_like(m.ones(2), 2, device=d)",
             "rand_like(m.ones(2), device=d)", "randn_like(m.ones(2), device=d)", "randint_like(m.ones(2), 3, device=d)",
             "nn.Linear(2, 2, device=d)", "nn.Conv2d(1, 1, 3, device=d)", "nn.BatchNorm1d(2, device=d)",
             "nn.LayerNorm(2, device=d)", "nn.Embedding(3, 2, device=d)", "nn.LSTM(2, 2, device=d)",
             "nn.GRUCell(2, 2, device=d)", "nn.LazyLinear(2, device=d)", "nn.MultiheadAttention(4, 2, device=d)",
             "nn.TransformerEncoderLayer(4, 2, 8, device=d)"]


@pytest.mark.parametrize("dev", ["cuda", "mps", "cpu", "xla", "cuda:1"])
@pytest.mark.parametrize("expr", FACTORIES)
def test_factory_device(torch, expr, dev):
    """device= on every factory and layer constructor: allocation on a missing device raises torch's error."""
    c = _run(core, expr.replace("device=d", f"device={dev!r}"))
    t = _run(torch, expr.replace("device=d", f"device={dev!r}"))
    assert c[0] == t[0]
    _same_message(c, t)


@pytest.mark.parametrize("dev", ["cuda", "mps", "xla", "cpu"])
@pytest.mark.parametrize("expr", ["zeros(2)", "randn(3)", "tensor([1.0])", "as_tensor([1.0])", "arange(2)",
                                  "nn.Linear(2, 2)", "zeros_like(m.ones(2, device='cpu'))", "eye(2)"])
def test_default_device_factories(torch, expr, dev):
    """set_default_device / `with torch.device(d):` reach every factory (not *_like, which follow the input)."""
    for mod in (core, torch):
        mod.set_default_device(dev)
    try:
        c, t = _run(core, expr), _run(torch, expr)
    finally:
        for mod in (core, torch):
            mod.set_default_device(None)
    assert c[0] == t[0]
    _same_message(c, t)
    with core.device(dev):
        assert _run(core, expr)[0] == c[0]


@pytest.mark.parametrize("dev", ["cpu", "cpu:1", "cuda", "cuda:0", "mps", "xpu", "xla", "meta", "lazy", "hip",
                                 "hpu", "mtia", "ve", "privateuseone"])
def test_generator_device(torch, dev):
    c = _run(core, f"Generator(device={dev!r})")
    t = _run(torch, f"Generator(device={dev!r})")
    assert c[0] == t[0] and (c[0] == "ok" or c[1] == t[1])


def test_generator_type_and_repr(torch):
    g, tg = core.Generator(), torch.Generator()
    assert repr(type(g)) == repr(type(tg)) == "<class 'torch._C.Generator'>"
    assert repr(g).startswith("<torch._C.Generator object at 0x") and repr(tg).startswith(repr(g)[:29])
    assert isinstance(core.default_generator, core.Generator) and g.device == core.device("cpu")


CHECKS = [("cuda", "ones(2).to('{}')"), ("mps", "ones(2).to('{}')"), ("hip", "ones(2).to('{}')"),
          ("xpu", "ones(2).to('{}')"), ("vulkan", "ones(2).to('{}')"), ("lazy", "ones(2).to('{}')"),
          ("cpu:1", "ones(2).to('{}')"), ("cuda", "zeros(2, device='{}')"), ("mps", "zeros(2, device='{}')"),
          ("xla", "zeros(2, device='{}')"), ("cpu", "zeros(2, device='{}')"), ("hpu", "zeros(2, device='{}')")]


@pytest.mark.parametrize("dev,expr", CHECKS)
def test_check_device_matches_torch(torch, dev, expr):
    """check_device is what Tensor.to (alloc=False) and factories (alloc=True) must raise."""
    ec, et = same_error(lambda: check_device(dev, alloc="zeros" in expr), lambda: eval("t." + expr.format(dev),
                                                                                       {"t": torch}))
    if ec is not None:  # torch appends its dispatcher's backend table to NotImplementedError
        assert str(et).startswith(str(ec))


def test_cudnn_flags_settable(torch):
    # torch's own test utilities (imported by the op_db tests) lock torch's flags, so the behaviour is
    # checked on core; torch accepts the same assignments outside its test harness.
    for mod in (core,):
        old = mod.backends.cudnn.benchmark, mod.backends.cudnn.deterministic
        mod.backends.cudnn.benchmark, mod.backends.cudnn.deterministic = True, True
        assert mod.backends.cudnn.benchmark and mod.backends.cudnn.deterministic
        mod.backends.cudnn.benchmark, mod.backends.cudnn.deterministic = old


def test_default_device(torch):
    for mod in (core, torch):
        mod.set_default_device("cpu")
        assert str(mod.get_default_device()) == "cpu"
        mod.set_default_device("cuda")
        try:
            with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
                mod.get_default_device()
        finally:
            mod.set_default_device(None)
        assert repr(mod.get_default_device()) == "device(type='cpu')"


def test_boilerplate(torch):
    for mod in (core, torch):
        dev = mod.device("cuda" if mod.cuda.is_available() else "cpu")
        x = mod.ones(2, 3).to(dev)
        assert str(x.device) == "cpu" and x.device == dev
