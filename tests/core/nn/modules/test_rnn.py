"""core.nn RNN / LSTM / GRU and their cells vs torch.nn: parameter names, shapes and order, repr,
outputs and gradients (torch's weights loaded into core's module), error classes and messages."""
from __future__ import annotations

import numpy as np
import pytest

import core
import core.nn as cnn


def _pair(torch, cls, *args, **kwargs):
    tm = getattr(torch.nn, cls)(*args, **kwargs).double()
    cm = getattr(cnn, cls)(*args, **kwargs).double()
    cm.load_state_dict({k: core.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return cm, tm


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [out]


def _compare(torch, cm, tm, x, hx=None):
    xc = core.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    conv = (lambda lib, h: None if h is None else (tuple(lib.tensor(a) for a in h) if isinstance(h, tuple)
                                                     else lib.tensor(h)))
    oc, ot = cm(xc, conv(core, hx)), tm(xt, conv(torch, hx))
    fc, ft = _flat(oc), _flat(ot)
    assert len(fc) == len(ft)
    for a, b in zip(fc, ft):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    sum(((i + 1) * t).sum() for i, t in enumerate(fc)).backward()
    sum(((i + 1) * t).sum() for i, t in enumerate(ft)).backward()
    np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-12)
    for (nc, pc), (nt, pt) in zip(cm.named_parameters(), tm.named_parameters()):
        assert nc == nt
        np.testing.assert_allclose(pc.grad.numpy(), pt.grad.numpy(), rtol=1e-9, atol=1e-12, err_msg=nc)


CONFIGS = [
    ("RNN", (3, 4), {}),
    ("RNN", (3, 4, 2), {"nonlinearity": "relu", "bias": False}),
    ("LSTM", (3, 4), {}),
    ("LSTM", (3, 4, 2), {"bidirectional": True, "batch_first": True}),
    ("LSTM", (3, 5), {"proj_size": 2, "num_layers": 2}),
    ("GRU", (3, 4, 2), {"bidirectional": True}),
    ("GRU", (3, 4), {"batch_first": True, "bias": False}),
]


@pytest.mark.parametrize("cls,args,kwargs", CONFIGS)
def test_layout_repr_and_forward_backward(torch, cls, args, kwargs):
    cm, tm = _pair(torch, cls, *args, **kwargs)
    assert [(n, tuple(p.shape)) for n, p in cm.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    assert repr(cm) == repr(tm)
    rng = np.random.default_rng(0)
    _compare(torch, cm, tm, rng.standard_normal((5, 2, 3)))
    cm.zero_grad(), tm.zero_grad()
    _compare(torch, cm, tm, rng.standard_normal((5, 3)))   # unbatched


def test_given_initial_state(torch):
    rng = np.random.default_rng(1)
    cm, tm = _pair(torch, "LSTM", 3, 4, 2, bidirectional=True)
    _compare(torch, cm, tm, rng.standard_normal((4, 2, 3)),
             (rng.standard_normal((4, 2, 4)), rng.standard_normal((4, 2, 4))))
    cm, tm = _pair(torch, "GRU", 3, 4)
    _compare(torch, cm, tm, rng.standard_normal((4, 2, 3)), rng.standard_normal((1, 2, 4)))


@pytest.mark.parametrize("cls,kwargs,nchunks", [("RNNCell", {}, 1), ("RNNCell", {"nonlinearity": "relu"}, 1),
                                                ("LSTMCell", {}, 4), ("GRUCell", {"bias": False}, 3)])
def test_cells(torch, cls, kwargs, nchunks):
    cm, tm = _pair(torch, cls, 3, 4, **kwargs)
    assert repr(cm) == repr(tm)
    assert [(n, tuple(p.shape)) for n, p in cm.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in tm.named_parameters()]
    rng = np.random.default_rng(2)
    _compare(torch, cm, tm, rng.standard_normal((2, 3)))
    cm.zero_grad(), tm.zero_grad()
    _compare(torch, cm, tm, rng.standard_normal(3))


def test_default_init_uses_uniform_bound(torch):
    m = cnn.LSTM(3, 16, 2)
    bound = 1 / np.sqrt(16)
    for _, p in m.named_parameters():
        assert np.abs(p.detach().numpy()).max() <= bound and p.requires_grad


def _same_error(torch, fn):
    with pytest.raises(Exception) as et:
        fn(torch)
    with pytest.raises(type(et.value)) as ec:
        fn(core)
    assert str(ec.value) == str(et.value)


@pytest.mark.parametrize("case", [
    lambda L: L.nn.LSTM(3, 4)(L.zeros(2, 3, 5, dtype=L.float32)),
    lambda L: L.nn.LSTM(3, 4)(L.zeros(2, 2, 2, 3)),
    lambda L: L.nn.GRU(3, 4)(L.zeros(2, 4)),
    lambda L: L.nn.RNN(3, 4)(L.zeros(5)),
    lambda L: L.nn.GRU(3, 4)(L.zeros(2, 2, 3), L.zeros(2, 2, 4)),
    lambda L: L.nn.LSTM(3, 4)(L.zeros(2, 2, 3), (L.zeros(1, 2, 4), L.zeros(1, 3, 4))),
    lambda L: L.nn.LSTM(3, 4)(L.zeros(2, 2, 3), (L.zeros(2, 4), L.zeros(2, 4))),
    lambda L: L.nn.RNN(3, 4)(L.zeros(2, 2, 3, dtype=L.float64)),
    lambda L: L.nn.RNN(3, 4, nonlinearity="sigmoid"),
    lambda L: L.nn.GRU(3, 4, proj_size=2),
    lambda L: L.nn.LSTM(3, 4, proj_size=4),
    lambda L: L.nn.LSTM(3, 0),
    lambda L: L.nn.LSTM(3, 4, dropout=1.5),
    lambda L: L.nn.LSTM(3, 4, bias=1),
    lambda L: L.nn.LSTMCell(3, 4)(L.zeros(1, 2, 3)),
    lambda L: L.nn.GRUCell(3, 4)(L.zeros(2, 3), L.zeros(1, 2, 4)),
    lambda L: L.nn.LSTMCell(3, 4)(L.zeros(2, 3), (L.zeros(2, 4), L.zeros(1, 2, 4))),
])
def test_errors(torch, case):
    _same_error(torch, case)


def test_dropout_warning_and_eval_mode(torch):
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        cnn.LSTM(3, 4, dropout=0.5)
    cm, tm = _pair(torch, "LSTM", 3, 4, 2, dropout=0.5)
    cm.eval(), tm.eval()
    _compare(torch, cm, tm, np.random.default_rng(3).standard_normal((3, 2, 3)))
