"""core.nn.utils.rnn (PackedSequence, pad_sequence, pack_padded_sequence, pad_packed_sequence,
pack_sequence, unpad_sequence, unpack_sequence, invert_permutation) and packed input to nn.RNN / LSTM /
GRU vs torch, side by side: each case runs once with (core, core.nn.utils.rnn) and once with (torch,
torch.nn.utils.rnn); values, dtypes, shapes, reprs, grad_fn names, gradients, errors and messages."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core.nn.utils import rnn as crnn


def _libs(torch):
    import torch.nn.utils.rnn as trnn
    return (core, crnn), (torch, trnn)


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _same(c, t, exact=True, rtol=1e-7, atol=1e-10):
    """Same shape, dtype name, values (bitwise when exact) and grad_fn name."""
    assert tuple(c.shape) == tuple(t.shape)
    assert str(c.dtype) == str(t.dtype)
    if exact:
        np.testing.assert_array_equal(_np(c), _np(t))
    else:
        np.testing.assert_allclose(_np(c), _np(t), rtol=rtol, atol=atol)
    assert (c.grad_fn and c.grad_fn.name()) == (t.grad_fn and t.grad_fn.name())


def _same_packed(c, t, exact=True, **tol):
    assert type(c).__name__ == type(t).__name__ == "PackedSequence"
    _same(c.data, t.data, exact, **tol)
    for a, b in zip(c[1:], t[1:]):
        assert (a is None) == (b is None)
        if a is not None:
            _same(a, b)


def _both(torch, fn):
    (c, cr), (t, tr) = _libs(torch)
    return fn(c, cr), fn(t, tr)


def _errors(torch, fn):
    """Both raise: same class and message."""
    out = []
    for lib, r in _libs(torch):
        with pytest.raises(Exception) as info:
            fn(lib, r)
        out.append(info.value)
    assert type(out[0]) is type(out[1]) and str(out[0]) == str(out[1]), (repr(out[0]), repr(out[1]))


SEQS = [np.arange(1.0, 4.0), np.array([4.0, 5.0]), np.array([6.0])]


def _seqs(lib, dtype=None, grad=False, trailing=()):
    rng = np.random.default_rng(3)
    return [lib.tensor(rng.standard_normal((n,) + trailing), dtype=dtype, requires_grad=grad) for n in (3, 5, 2, 5)]


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence_values_grad_fn_and_gradients(torch, batch_first, side):
    def run(lib, r):
        seqs = _seqs(lib, lib.float64, grad=True, trailing=(2,))
        out = r.pad_sequence(seqs, batch_first=batch_first, padding_value=-1.5, padding_side=side)
        (out * lib.arange(out.numel(), dtype=lib.float64).view(out.shape)).sum().backward()
        return out, [s.grad for s in seqs]
    (oc, gc), (ot, gt) = _both(torch, run)
    _same(oc, ot)
    for a, b in zip(gc, gt):
        _same(a, b)


def test_pad_sequence_integer_tensor_input_and_repr(torch):
    def run(lib, r):
        ints = [lib.tensor([1, 2, 3]), lib.tensor([4]), lib.tensor([5, 6])]
        return r.pad_sequence(ints, True, 9), r.pad_sequence(lib.tensor([[1.0, 2.0], [3.0, 4.0]]))
    (c1, c2), (t1, t2) = _both(torch, run)
    _same(c1, t1)
    _same(c2, t2)
    assert repr(c1) == repr(t1)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("lengths_kind", ["list", "tensor", "int32"])
def test_pack_then_pad_round_trip(torch, batch_first, enforce_sorted, lengths_kind):
    lens = [5, 4, 2, 2, 1] if enforce_sorted else [2, 5, 1, 4, 2]

    def run(lib, r):
        x = lib.tensor(np.random.default_rng(0).standard_normal((5, 5, 3)), requires_grad=True)
        lengths = {"list": lens, "tensor": lib.tensor(lens), "int32": lib.tensor(lens, dtype=lib.int32)}[lengths_kind]
        packed = r.pack_padded_sequence(x, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
        padded, out_lens = r.pad_packed_sequence(packed, batch_first=batch_first, padding_value=0.5,
                                                 total_length=7)
        (padded * lib.arange(padded.numel(), dtype=lib.float64).view(padded.shape)).sum().backward()
        return packed, padded, out_lens, x.grad
    (pc, dc, lc, gc), (pt, dt, lt, gt) = _both(torch, run)
    _same_packed(pc, pt)
    assert repr(pc) == repr(pt)
    _same(dc, dt)
    _same(lc, lt)
    _same(gc, gt)


def test_packed_sequence_repr_and_tuple_behaviour(torch):
    def run(lib, r):
        packed = r.pack_sequence([lib.tensor(s) for s in SEQS])
        unsorted = r.pack_sequence([lib.tensor(s) for s in SEQS[::-1]], enforce_sorted=False)
        data, batch_sizes, si, ui = unsorted
        manual = r.PackedSequence(data, batch_sizes, si)
        from_pair = r.PackedSequence((data, batch_sizes))
        return packed, unsorted, manual, from_pair
    cs, ts = _both(torch, run)
    for c, t in zip(cs, ts):
        assert repr(c) == repr(t)
        _same_packed(c, t)
        assert c._fields == t._fields and len(c) == len(t) == 4
        assert c.is_cuda is t.is_cuda is False and c.is_pinned() is t.is_pinned() is False


def test_packed_sequence_conversions(torch):
    def run(lib, r):
        packed = r.pack_sequence([lib.tensor(s, dtype=lib.float32, requires_grad=True) for s in SEQS[::-1]],
                               enforce_sorted=False)
        same = (packed.to(lib.float32) is packed, packed.cpu() is packed, packed.float() is packed)
        return same, [packed.double(), packed.long(), packed.int(), packed.half(), packed.to("cpu", lib.float64),
                      packed.to(dtype=lib.int16), packed.byte(), packed.char(), packed.short()]
    (sc, cs), (st, ts) = _both(torch, run)
    assert sc == st == (True, True, True)
    for c, t in zip(cs, ts):
        _same_packed(c, t)
        assert repr(c) == repr(t)


def test_invert_permutation(torch):
    (c, cn), (t, tn) = _both(torch, lambda lib, r: (r.invert_permutation(lib.tensor([3, 0, 4, 1, 2])),
                                                    r.invert_permutation(None)))
    _same(c, t)
    assert cn is tn is None


def test_pack_sequence_unpack_unpad(torch):
    def run(lib, r):
        seqs = _seqs(lib, trailing=(2,))
        unpacked = r.unpack_sequence(r.pack_sequence(seqs, enforce_sorted=False))
        padded = r.pad_sequence(seqs)
        lengths = lib.tensor([3, 5, 2, 5])
        unpadded = r.unpad_sequence(padded, lengths)      # transposes `padded` in place, as torch
        return unpacked, unpadded, padded
    (uc, dc, pc), (ut, dt, pt) = _both(torch, run)
    _same(pc, pt)
    for a, b in zip(uc + dc, ut + dt):
        _same(a, b)


def test_lengths_longer_than_the_input_are_clamped_as_torch(torch):
    """Forward clamps each block to the input (batch_sizes keep the stated lengths); backward fails."""
    def run(lib, r):
        return r.pack_padded_sequence(lib.arange(6.0).view(3, 2).requires_grad_(), [4, 1])
    pc, pt = _both(torch, run)
    _same_packed(pc, pt)
    _errors(torch, lambda lib, r: run(lib, r).data.sum().backward())


ERRORS = {
    "unsorted": lambda lib, r: r.pack_sequence([lib.ones(1), lib.ones(3)]),
    "zero_length": lambda lib, r: r.pack_padded_sequence(lib.zeros(3, 2), [3, 0]),
    "negative_length": lambda lib, r: r.pack_padded_sequence(lib.zeros(3, 2), [2, -1]),
    "lengths_count": lambda lib, r: r.pack_padded_sequence(lib.zeros(3, 2), [3, 1, 1]),
    "lengths_2d": lambda lib, r: r.pack_padded_sequence(lib.zeros(3, 2), [[2, 1]]),
    "empty": lambda lib, r: r.pack_padded_sequence(lib.zeros(0, 2), [1, 1]),
    "total_length": lambda lib, r: r.pad_packed_sequence(r.pack_sequence([lib.ones(3)]), total_length=2),
    "pad_empty": lambda lib, r: r.pad_sequence([]),
    "pad_side": lambda lib, r: r.pad_sequence([lib.ones(2)], padding_side="up"),
    "pad_not_iterable": lambda lib, r: r.pad_sequence(3),
    "packed_no_batch_sizes": lambda lib, r: r.PackedSequence(lib.zeros(3)),
    "unpad_lengths_count": lambda lib, r: r.unpad_sequence(lib.zeros(2, 3), lib.tensor([2, 1, 1]), batch_first=True),
    "cuda": lambda lib, r: r.pack_sequence([lib.ones(2)]).cuda(),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(torch, case):
    if case == "cuda" and torch.cuda.is_available():
        pytest.skip("torch has a GPU here")
    _errors(torch, ERRORS[case])


def _pair(torch, cls, *args, **kwargs):
    tm = getattr(torch.nn, cls)(*args, **kwargs).double()
    cm = getattr(core.nn, cls)(*args, **kwargs).double()
    cm.load_state_dict({k: core.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return cm, tm


def _flat(out):
    if isinstance(out, (tuple, list)) and not type(out).__name__ == "PackedSequence":
        return [t for o in out for t in _flat(o)]
    return [out.data if type(out).__name__ == "PackedSequence" else out]


RNN_CONFIGS = [
    ("LSTM", (3, 4), {}),
    ("LSTM", (3, 4, 2), {"bidirectional": True, "batch_first": True}),
    ("LSTM", (3, 5, 2), {"proj_size": 2}),
    ("GRU", (3, 4), {}),
    ("GRU", (3, 4, 2), {"bidirectional": True}),
    ("RNN", (3, 4, 2), {"nonlinearity": "relu", "bias": False}),
    ("RNN", (3, 4), {"bidirectional": True}),
]


@pytest.mark.parametrize("cls,args,kwargs", RNN_CONFIGS)
@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("given_hx", [False, True])
def test_rnn_on_packed_input(torch, cls, args, kwargs, enforce_sorted, given_hx):
    """Packed output, final states at each sequence's last step (in the caller's batch order),
    gradients of the input, the initial state and every parameter."""
    cm, tm = _pair(torch, cls, *args, **kwargs)
    lens = [5, 4, 2, 2, 1] if enforce_sorted else [2, 5, 1, 4, 2]
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 5, 3))
    states = 1 if len(args) < 3 else args[2]
    states *= 2 if kwargs.get("bidirectional") else 1
    h_size = kwargs.get("proj_size") or args[1]
    hx = [rng.standard_normal((states, 5, h_size)), rng.standard_normal((states, 5, args[1]))]

    def run(lib, r, m):
        xt = lib.tensor(x, requires_grad=True)
        h = [lib.tensor(a, requires_grad=True) for a in (hx if cls == "LSTM" else hx[:1])]
        given = (tuple(h) if cls == "LSTM" else h[0]) if given_hx else None
        out, hn = m(r.pack_padded_sequence(xt, lens, enforce_sorted=enforce_sorted), given)
        padded, _ = r.pad_packed_sequence(out)
        loss = sum(((i + 1) * t * t).sum() for i, t in enumerate([padded] + _flat(hn)))
        loss.backward()
        return out, hn, xt.grad, [a.grad for a in h] if given_hx else [], [p.grad for p in m.parameters()]
    (cr_, tr_) = _libs(torch)
    oc, hc, gc, hgc, pgc = run(*cr_, cm)
    ot, ht, gt, hgt, pgt = run(*tr_, tm)
    _same_packed(oc, ot, exact=False)
    for a, b in zip(_flat(hc), _flat(ht)):
        _same(a, b, exact=False)
    for a, b in zip([gc] + hgc + pgc, [gt] + hgt + pgt):
        if b is None:
            assert a is None
        else:
            np.testing.assert_allclose(_np(a), _np(b), rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
def test_dropout_between_layers_draws_as_torch(torch, cls):
    cm, tm = _pair(torch, cls, 3, 4, 3, dropout=0.4, bidirectional=True)
    x = np.random.default_rng(2).standard_normal((6, 4, 3))

    def run(lib, r, m):
        lib.manual_seed(11)
        xt = lib.tensor(x, requires_grad=True)
        out, hn = m(r.pack_padded_sequence(xt, [2, 6, 3, 5], enforce_sorted=False))
        out.data.sum().backward()
        return out, hn, xt.grad
    (cr_, tr_) = _libs(torch)
    oc, hc, gc = run(*cr_, cm)
    ot, ht, gt = run(*tr_, tm)
    _same_packed(oc, ot, exact=False)
    for a, b in zip(_flat(hc) + [gc], _flat(ht) + [gt]):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-7, atol=1e-10)


def test_packed_output_unpacks_like_padded_and_ignores_batch_first(torch):
    """batch_first does not apply to packed input; the padded view of the output matches torch's."""
    def run(lib, r):
        lib.manual_seed(0)
        m = lib.nn.GRU(2, 3, batch_first=True)
        seqs = [lib.randn(n, 2) for n in (2, 4, 3)]
        out, h = m(r.pack_sequence(seqs, enforce_sorted=False))
        padded, lengths = r.pad_packed_sequence(out, batch_first=True)
        return padded, lengths, h
    (pc, lc, hc), (pt, lt, ht) = _both(torch, run)
    _same(pc, pt, exact=False, rtol=1e-5, atol=1e-6)
    _same(lc, lt)
    _same(hc, ht, exact=False, rtol=1e-5, atol=1e-6)


RNN_ERRORS = {
    "gru_input_size": lambda lib, r: lib.nn.GRU(5, 3)(r.pack_sequence([lib.ones(2, 4)])),
    "rnn_hidden_size": lambda lib, r: lib.nn.RNN(4, 3)(r.pack_sequence([lib.ones(2, 4)]), lib.zeros(1, 2, 3)),
    "rnn_dtype": lambda lib, r: lib.nn.RNN(4, 3)(r.pack_sequence([lib.ones(2, 4, dtype=lib.float64)])),
    "lstm_hidden_batch": lambda lib, r: lib.nn.LSTM(4, 3)(r.pack_sequence([lib.ones(3, 4), lib.ones(2, 4)]),
                                                          (lib.zeros(1, 3, 3), lib.zeros(1, 3, 3))),
    "gru_hidden_batch": lambda lib, r: lib.nn.GRU(4, 3)(r.pack_sequence([lib.ones(3, 4), lib.ones(2, 4)]),
                                                        lib.zeros(1, 3, 3)),
    "gru_input_dims": lambda lib, r: lib.nn.GRU(4, 3)(r.PackedSequence(lib.ones(2, 1, 4), lib.tensor([1, 1]))),
    "lstm_input_size": lambda lib, r: lib.nn.LSTM(5, 3)(r.pack_sequence([lib.ones(2, 4), lib.ones(1, 4)])),
}


@pytest.mark.parametrize("case", sorted(RNN_ERRORS))
def test_rnn_packed_errors(torch, case):
    _errors(torch, RNN_ERRORS[case])


@pytest.mark.parametrize("kwargs", [{}, {"proj_size": 2}, {"num_layers": 2, "bidirectional": True}])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lstm_on_one_packed_sequence_grad_fn(torch, kwargs, dtype):
    """torch's float32 LSTM without projection takes its oneDNN path for a batch of one: a view."""
    def run(lib, r):
        lib.manual_seed(0)
        m = lib.nn.LSTM(4, 3, **kwargs).to(getattr(lib, dtype))
        out, (h, c) = m(r.pack_sequence([lib.randn(3, 4, dtype=getattr(lib, dtype))]))
        return out, h, c
    cs, ts = _both(torch, run)
    _same_packed(cs[0], ts[0], exact=False, rtol=1e-5, atol=1e-6)
    for a, b in zip(cs[1:], ts[1:]):
        _same(a, b, exact=False, rtol=1e-5, atol=1e-6)


def test_alias_shares_one_packed_sequence_class(torch):
    import subprocess
    import sys
    code = ("import core, sys; core.alias_as_torch(); import torch; "
            "from torch.nn.utils.rnn import PackedSequence, pack_sequence; "
            "import torch.nn.utils.rnn as r; "
            "assert PackedSequence is core.nn.utils.rnn.PackedSequence is torch.nn.modules.rnn.PackedSequence; "
            "assert r is torch.nn.utils.rnn; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "ok", out.stderr[-2000:]
