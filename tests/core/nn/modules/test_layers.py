"""The layers of issue #13 vs torch.nn: repr, parameter/buffer names and shapes, forward and gradients
with torch's weights loaded, default initialisation through the same nn.init calls as torch's
reset_parameters, the lazy-module mechanism, and constructor / forward errors."""
from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

import core
import core.nn as cnn

RNG = np.random.default_rng(11)

# (constructor source, input shape, target kind or None)
LAYERS = [
    ("Conv1d(4, 6, 3, stride=2, padding=1)", (2, 4, 9), None),
    ("Conv1d(4, 4, 3, padding='same', padding_mode='circular', groups=2, bias=False)", (2, 4, 7), None),
    ("Conv1d(4, 6, 2)", (4, 5), None),
    ("ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)", (2, 4, 5, 5), None),
    ("ConvTranspose2d(4, 3, (2, 3), dilation=2)", (4, 3, 3), None),
    ("AdaptiveAvgPool2d((3, None))", (2, 4, 7, 5), None),
    ("AdaptiveAvgPool2d(1)", (2, 4, 7, 5), None),
    ("AdaptiveAvgPool1d(4)", (2, 3, 10), None),
    ("AdaptiveMaxPool2d((2, 3))", (2, 4, 7, 5), None),
    ("GroupNorm(2, 4)", (3, 4, 5), None),
    ("GroupNorm(4, 4, affine=False)", (3, 4, 2, 2), None),
    ("InstanceNorm2d(4)", (2, 4, 3, 3), None),
    ("InstanceNorm2d(4, affine=True, track_running_stats=True)", (2, 4, 3, 3), None),
    ("InstanceNorm2d(4, affine=True)", (4, 3, 3), None),
    ("Dropout2d(0.3)", (2, 4, 3, 3), "eval"),
    ("SiLU()", (3, 4), None),
    ("ELU(0.5)", (3, 4), None),
    ("Softplus(2.0, 3.0)", (3, 4), None),
    ("Hardtanh(-0.5, 0.5)", (3, 4), None),
    ("LogSigmoid()", (3, 4), None),
    ("EmbeddingBag(6, 3, mode='sum', padding_idx=2)", "bag", None),
    ("EmbeddingBag(6, 3, mode='max')", "bag", None),
    ("EmbeddingBag(6, 3)", "bag", None),
    ("BCEWithLogitsLoss()", (3, 4), "prob"),
    ("BCEWithLogitsLoss(reduction='sum')", (3, 4), "prob"),
    ("SmoothL1Loss(beta=0.5)", (3, 4), "real"),
    ("HuberLoss(delta=0.3)", (3, 4), "real"),
    ("KLDivLoss(reduction='batchmean')", (3, 4), "prob"),
    ("KLDivLoss(reduction='sum', log_target=True)", (3, 4), "real"),
]


def _make(lib, src):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return eval("lib.nn." + src, {"lib": lib})


@pytest.mark.parametrize("src,shape,target", LAYERS, ids=[c[0] for c in LAYERS])
def test_layer_matches_torch(torch, src, shape, target):
    tm, cm = _make(torch, src).double(), _make(core, src).double()
    assert repr(cm) == repr(tm)
    assert [(n, tuple(p.shape)) for n, p in cm.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    assert [(n, tuple(b.shape)) for n, b in cm.named_buffers()] == [(n, tuple(b.shape)) for n, b in tm.named_buffers()]
    cm.load_state_dict({k: core.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    if target == "eval":
        cm.eval(), tm.eval()
    if shape == "bag":   # indices + offsets; the gradient checked is the weight's
        idx = [[0, 2, 1], [5, 2, 3]]
        xc, xt = core.tensor(idx), torch.tensor(idx)
        extra = ()
    else:
        x = RNG.standard_normal(shape)
        extra = () if target in (None, "eval") else (RNG.random(shape) if target == "prob" else
                                                     RNG.standard_normal(shape),)
        xc, xt = core.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        oc = cm(xc, *(core.tensor(e) for e in extra))
        ot = tm(xt, *(torch.tensor(e) for e in extra))
    assert tuple(oc.shape) == tuple(ot.shape) and str(oc.dtype) == str(ot.dtype)
    np.testing.assert_allclose(oc.detach().numpy(), ot.detach().numpy(), rtol=1e-10, atol=1e-12)
    w = RNG.standard_normal(tuple(ot.shape))
    (oc * core.tensor(w)).sum().backward()
    (ot * torch.tensor(w)).sum().backward()
    if xt.requires_grad:
        np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-11)
    for (n, pc), (_, pt) in zip(cm.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(pc.grad.numpy(), pt.grad.numpy(), rtol=1e-9, atol=1e-11, err_msg=n)
    for (n, bc), (_, bt) in zip(cm.named_buffers(), tm.named_buffers()):
        np.testing.assert_allclose(bc.numpy(), bt.numpy(), rtol=1e-7, err_msg=n)


def _record_init(lib, monkeypatch, log):
    """Wrap lib.nn.init's public functions to log top-level calls (name, shape, non-tensor args)."""
    init = lib.nn.init
    depth = [0]
    for name in ("uniform_", "normal_", "kaiming_uniform_", "kaiming_normal_", "xavier_uniform_", "xavier_normal_",
                 "zeros_", "ones_", "constant_", "trunc_normal_"):
        fn = getattr(init, name)

        def wrapped(tensor, *args, _fn=fn, _name=name, **kwargs):
            if depth[0] == 0:
                log.append((_name, tuple(tensor.shape), tuple(round(a, 12) if isinstance(a, float) else a
                                                              for a in args), tuple(sorted(kwargs.items()))))
            depth[0] += 1
            try:
                return _fn(tensor, *args, **kwargs)
            finally:
                depth[0] -= 1
        monkeypatch.setattr(init, name, wrapped)
        for mod in list(sys.modules.values()):   # `from torch.nn.init import xavier_uniform_` copies too
            if getattr(mod, "__name__", "").startswith(lib.__name__ + ".nn.") and getattr(mod, name, None) is fn:
                monkeypatch.setattr(mod, name, wrapped)


INIT = ["LSTM(3, 5, 2, bidirectional=True)", "GRU(3, 4)", "RNN(2, 3, bias=False)", "LSTMCell(3, 4)", "GRUCell(2, 3)",
        "RNNCell(2, 3)", "Conv1d(4, 6, 3)", "ConvTranspose2d(4, 6, 3, groups=2)", "Conv2d(3, 4, 2)", "GroupNorm(2, 4)",
        "InstanceNorm2d(4, affine=True, track_running_stats=True)", "Linear(3, 2)",
        "EmbeddingBag(5, 3, padding_idx=1)", "MultiheadAttention(8, 2, add_bias_kv=True)",
        "MultiheadAttention(8, 2, kdim=3, vdim=5)", "TransformerEncoderLayer(8, 2, 16)"]


@pytest.mark.parametrize("src", INIT)
def test_default_init_calls_nn_init_like_torch(torch, monkeypatch, src):
    logs = []
    for lib in (core, torch):
        log = []
        with monkeypatch.context() as mp:
            _record_init(lib, mp, log)
            _make(lib, src)
        logs.append(log)
    assert logs[0] == logs[1] and logs[0]


def test_lazy_linear(torch):
    cm, tm = cnn.LazyLinear(4), torch.nn.LazyLinear(4)
    assert repr(cm) == repr(tm) and repr(cm.weight) == repr(tm.weight)
    assert list(cm.state_dict()) == list(tm.state_dict())
    for m in (cm, tm):
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
            m.weight.shape
    x = RNG.standard_normal((2, 5)).astype(np.float32)
    oc, ot = cm(core.tensor(x)), tm(torch.tensor(x))
    assert type(cm) is cnn.Linear and type(cm.weight) is cnn.Parameter
    assert repr(cm) == repr(tm) and tuple(oc.shape) == tuple(ot.shape)
    assert tuple(cm.weight.shape) == (4, 5) and tuple(cm.bias.shape) == (4,)
    bound = np.float32(1 / np.sqrt(5)) * (1 + 1e-6)   # U(-1/sqrt(fan_in), ..) drawn in float32
    assert np.abs(cm.weight.detach().numpy()).max() <= bound and np.abs(cm.bias.detach().numpy()).max() <= bound
    cm.load_state_dict({k: core.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    np.testing.assert_allclose(cm(core.tensor(x)).detach().numpy(), ot.detach().numpy(), rtol=1e-6, atol=1e-6)
    assert not cm._forward_pre_hooks
    nb = cnn.LazyLinear(3, bias=False)
    nb(core.ones(2, 2))
    assert nb.bias is None and repr(nb) == repr(torch.nn.Linear(2, 3, bias=False))


def test_lazy_linear_in_sequential_trains(torch):
    model = cnn.Sequential(cnn.LazyLinear(8), cnn.ReLU(), cnn.LazyLinear(1))
    x = core.tensor(RNG.standard_normal((4, 3)))
    model(x.float())
    assert [tuple(p.shape) for p in model.parameters()] == [(8, 3), (8,), (1, 8), (1,)]
    loss = model(x.float()).sum()
    loss.backward()
    assert all(p.grad is not None for p in model.parameters())


@pytest.mark.parametrize("case", [
    lambda L: L.nn.GroupNorm(3, 4),
    lambda L: L.nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect"),
    lambda L: L.nn.Conv1d(3, 4, 2, groups=2),
    lambda L: L.nn.Conv1d(4, 4, 2, padding="same", stride=2),
    lambda L: L.nn.InstanceNorm2d(3, affine=True)(L.zeros(2, 4, 3, 3)),
    lambda L: L.nn.InstanceNorm2d(3)(L.zeros(2, 3)),
    lambda L: L.nn.Dropout2d(1.2),
    lambda L: L.nn.Hardtanh(1.0, -1.0),
    lambda L: L.nn.ConvTranspose2d(2, 2, 3, stride=2)(L.zeros(1, 2, 3, 3), output_size=(9, 9)),
    lambda L: L.nn.ConvTranspose2d(2, 2, 3, stride=2)(L.zeros(1, 2, 3, 3), output_size=(7,)),
])
def test_errors(torch, case):
    with pytest.raises(Exception) as et:
        case(torch)
    with pytest.raises(type(et.value)) as ec:
        case(core)
    assert str(ec.value) == str(et.value)


def test_conv_transpose_output_size(torch):
    cm, tm = cnn.ConvTranspose2d(2, 3, 3, stride=2), torch.nn.ConvTranspose2d(2, 3, 3, stride=2)
    cm.load_state_dict({k: core.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    x = RNG.standard_normal((1, 2, 4, 4)).astype(np.float32)
    oc, ot = cm(core.tensor(x), output_size=(10, 10)), tm(torch.tensor(x), output_size=(10, 10))
    assert tuple(oc.shape) == tuple(ot.shape) == (1, 3, 10, 10)
    np.testing.assert_allclose(oc.detach().numpy(), ot.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_instance_norm_warns_on_channel_mismatch_without_affine(torch):
    with pytest.warns(UserWarning, match="does not match num_features"):
        cnn.InstanceNorm2d(3)(core.zeros(2, 4, 3, 3))
