"""RNN / GRU / LSTM outputs carry the grad_fn names torch's CPU path gives them (torch 2.13): a float32 LSTM
without projections runs through oneDNN's fused layer (MkldnnRnnLayerBackward0; batch_first adds
TransposeBackward0, bidirectional CatBackward0), RNN / GRU stack their steps and batch_first transposes in
place (TransposeBackward1); float64, proj_size and packed input take the step-by-step path. Values and
gradients are compared with torch on the same weights."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import core

CONFIGS = [dict(), dict(batch_first=True), dict(bidirectional=True), dict(num_layers=2),
           dict(num_layers=2, bidirectional=True, batch_first=True), dict(bias=False)]


def _names(out):
    o, h = out
    hs = h if isinstance(h, tuple) else (h,)
    po = o.data if hasattr(o, "batch_sizes") else o
    return (po.grad_fn.name() if po.grad_fn is not None else None,
            [x.grad_fn.name() if x.grad_fn is not None else None for x in hs])


def _pair(torch, cls, dtype_name="float32", **kw):
    t = getattr(torch.nn, cls)(3, 4, **kw).to(getattr(torch, dtype_name))
    c = getattr(core.nn, cls)(3, 4, **kw).to(getattr(core, dtype_name))
    c.load_state_dict({k: core.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return c, t


@pytest.mark.parametrize("cls", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("kw", CONFIGS, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items()) or "default")
def test_grad_fn_names_and_grads_as_torch(torch, cls, kw):
    c, t = _pair(torch, cls, **kw)
    x = np.random.default_rng(0).standard_normal((5, 2, 3)).astype(np.float32)
    cx, tx = core.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    co, to = c(cx), t(tx)
    assert _names(co) == _names(to)
    np.testing.assert_allclose(co[0].detach().numpy(), to[0].detach().numpy(), rtol=1e-5, atol=1e-6)
    co[0].sum().backward()
    to[0].sum().backward()
    np.testing.assert_allclose(cx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("cls", ["RNN", "GRU", "LSTM"])
def test_other_paths_as_torch(torch, cls):
    """float64, unbatched, packed, eval, no_grad (and LSTM's proj_size) as torch names them."""
    x = np.random.default_rng(1).standard_normal((5, 2, 3))
    c, t = _pair(torch, cls, "float64", batch_first=True)
    assert _names(c(core.tensor(x))) == _names(t(torch.tensor(x)))
    c, t = _pair(torch, cls)
    x32 = x.astype(np.float32)
    assert _names(c(core.tensor(x32[:, 0]))) == _names(t(torch.tensor(x32[:, 0])))
    pc = core.nn.utils.rnn.pack_padded_sequence(core.tensor(x32), [5, 3])
    pt = torch.nn.utils.rnn.pack_padded_sequence(torch.tensor(x32), [5, 3])
    assert _names(c(pc)) == _names(t(pt))
    c.eval(), t.eval()
    assert _names(c(core.tensor(x32))) == _names(t(torch.tensor(x32)))
    with core.no_grad(), torch.no_grad():
        assert _names(c(core.tensor(x32))) == _names(t(torch.tensor(x32))) == (None, [None] * len(_names(c(core.tensor(x32)))[1]))


def test_lstm_projection_warns_once_as_torch(torch):
    """torch's TORCH_WARN_ONCE from RNN.cpp when a float32 LSTM has projections (once per process: compared
    only when torch has not warned earlier in this process)."""
    x = np.random.default_rng(2).standard_normal((5, 2, 3)).astype(np.float32)
    got = {}
    for mod in (core, torch):
        m = mod.nn.LSTM(3, 4, proj_size=2)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = m(mod.tensor(x))
            m(mod.tensor(x))
        got[mod.__name__] = ([str(i.message) for i in w if "oneDNN" in str(i.message)], _names(out))
    assert got["core"][1] == got["torch"][1]
    if got["torch"][0]:
        assert got["core"][0] == got["torch"][0]
