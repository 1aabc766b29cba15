"""Convolutions of issue #14 vs torch: conv3d and conv_transpose1d/2d/3d (stride, padding incl. 'same',
dilation, groups, output_padding, unbatched input), values, grad_fn, gradients (float64 and float32,
create_graph), error classes and messages; Conv3d / ConvTranspose1d / ConvTranspose3d modules (reprs,
weights equal to torch's under the same seed, forward with output_size); the commands' examples."""
from __future__ import annotations


import numpy as np
import pytest

import core
from core.ops.registry import OPS
from harness import assert_agree

RNG = np.random.default_rng(41)


def _t(torch, *shape, dtype="float64"):
    return torch.tensor(RNG.standard_normal(shape), dtype=getattr(torch, dtype), requires_grad=True)


# (id, input shape, weight shape, bias?, kwargs, function name)
CASES = [
    ("conv3d", (2, 4, 5, 6, 7), (6, 4, 2, 3, 2), True, {}, "conv3d"),
    ("conv3d_stride_pad_dil", (2, 4, 6, 7, 8), (6, 2, 3, 2, 3), True,
     {"stride": (2, 1, 3), "padding": (1, 0, 2), "dilation": (1, 2, 1), "groups": 2}, "conv3d"),
    ("conv3d_same", (1, 3, 5, 6, 4), (2, 3, 3, 2, 3), False, {"padding": "same", "dilation": 2}, "conv3d"),
    ("conv3d_valid", (1, 3, 5, 6, 4), (2, 3, 3, 2, 3), False, {"padding": "valid"}, "conv3d"),
    ("conv3d_unbatched", (3, 5, 6, 4), (2, 3, 3, 2, 3), True, {"stride": 2}, "conv3d"),
    ("conv3d_depthwise", (2, 4, 4, 5, 6), (8, 1, 2, 2, 2), True, {"groups": 4}, "conv3d"),
    ("conv_transpose1d", (2, 4, 7), (4, 3, 3), True, {}, "conv_transpose1d"),
    ("conv_transpose1d_all", (2, 4, 7), (4, 3, 3), True,
     {"stride": 3, "padding": 2, "output_padding": 1, "groups": 2, "dilation": 2}, "conv_transpose1d"),
    ("conv_transpose1d_unbatched", (4, 7), (4, 2, 2), False, {"stride": 2}, "conv_transpose1d"),
    ("conv_transpose2d_op_ge_stride", (2, 4, 5, 6), (4, 3, 3, 2), True,
     {"stride": 1, "output_padding": 1, "dilation": 2}, "conv_transpose2d"),
    ("conv_transpose3d", (2, 4, 3, 4, 5), (4, 3, 2, 3, 2), True, {}, "conv_transpose3d"),
    ("conv_transpose3d_all", (2, 4, 3, 4, 5), (4, 2, 2, 3, 2), True,
     {"stride": (2, 1, 3), "padding": (1, 1, 0), "output_padding": (1, 0, 2), "groups": 2, "dilation": (1, 2, 1)},
     "conv_transpose3d"),
    ("conv_transpose3d_unbatched", (4, 3, 4, 5), (4, 3, 2, 2, 2), False, {"stride": 2}, "conv_transpose3d"),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_convolution_matches_torch(torch, case, dtype):
    _, xs, ws, bias, kw, name = case
    transposed = "transpose" in name
    groups = kw.get("groups", 1)
    nb = ws[1] * groups if transposed else ws[0]
    args = [_t(torch, *xs, dtype=dtype), _t(torch, *ws, dtype=dtype)]
    if bias:
        args.append(_t(torch, nb, dtype=dtype))
    for ns in ((core, torch), (core.nn.functional, torch.nn.functional)):
        assert_agree(getattr(ns[0], name), getattr(ns[1], name), tuple(args), kw, torch)


CONV_ERRORS = [
    lambda L: L.conv3d(L.zeros(1, 1, 4, 4, 4, dtype=L.float64), L.zeros(1, 1, 2, 2, 2).long(),
                       L.zeros(1, dtype=L.float64)),
    lambda L: L.conv3d(L.zeros(1, 1, 4, 4, 4, dtype=L.float64), L.zeros(1, 1, 2, 2, 2, dtype=L.float64),
                       L.zeros(1)),
    lambda L: L.conv3d(L.zeros(2, 1, 4, 4, 4), L.zeros(1, 1, 2, 2, 2, dtype=L.float64)),
    lambda L: L.conv3d(L.zeros(1, 1, 4, 4, 4), L.zeros(1, 1, 2, 2, 2), stride=(-1,)),
    lambda L: L.conv3d(L.zeros(1, 1, 4, 4, 4), L.zeros(1, 1, 2, 2, 2), padding=(-1,)),
    lambda L: L.conv3d(L.zeros(1, 1, 4, 4, 4), L.zeros(1, 1, 2, 2, 2), dilation=(-1,)),
    lambda L: L.conv3d(L.zeros(1, 1, 4, 4, 4), L.zeros(1, 1, 2, 2, 2), dilation=(1, 1)),
    lambda L: L.conv3d(L.zeros(1, 1, 4, 4), L.zeros(1, 1, 2, 2), padding="same"),
    lambda L: L.conv3d(L.zeros(1, 1, 4, 4, 4), L.zeros(1, 1, 2, 2)),
    lambda L: L.conv3d(L.zeros(2, 2, 3, 4, 5), L.zeros(2, 2, 3, 3, 3), groups=3),
    lambda L: L.conv3d(L.zeros(2, 2, 3, 4, 5), L.zeros(2, 2, 3, 3, 3), groups=0, padding="same"),
    lambda L: L.conv3d(L.zeros(2, 3, 3, 4, 5), L.zeros(3, 1, 3, 3, 3), stride=2, padding="same", groups=3),
    lambda L: L.conv3d(L.zeros(2, 4, 3, 4, 5), L.zeros(2, 2, 5, 3, 3)),
    lambda L: L.conv3d(L.zeros(2, 4, 3, 4, 5), L.zeros(2, 4, 5, 3, 3)),
    lambda L: L.conv3d(L.zeros(4, 3, 4), L.zeros(2, 4, 3, 3, 3)),
    lambda L: L.conv3d(L.zeros(2, 4, 3, 4, 5), L.zeros(2, 4, 3, 3, 3), L.zeros(3)),
    lambda L: L.conv3d(L.zeros(2, 4, 3, 4, 5), L.zeros(2, 4, 3, 3, 3), padding="foo"),
    lambda L: L.conv_transpose1d(L.zeros(2, 4, 5), L.zeros(4, 2, 3), stride=2, output_padding=2),
    lambda L: L.conv_transpose1d(L.zeros(4, 5, 2, 2), L.zeros(4, 2, 3)),
    lambda L: L.conv_transpose1d(L.zeros(2, 4, 5), L.zeros(4, 2, 3, 3)),
    lambda L: L.conv_transpose1d(L.zeros(2, 4, 5), L.zeros(3, 2, 3)),
    lambda L: L.conv_transpose1d(L.zeros(2, 4, 5), L.zeros(4, 2, 3), groups=3),
    lambda L: L.conv_transpose1d(L.zeros(2, 4, 5), L.zeros(4, 2, 3), L.zeros(3)),
    lambda L: L.conv_transpose1d(L.zeros(2, 4, 5), L.zeros(4, 2, 3), padding=-1),
    lambda L: L.conv_transpose1d(L.zeros(2, 4, 5), L.zeros(4, 2, 3), stride=0),
    lambda L: L.conv_transpose1d(L.zeros(2, 4, 5), L.zeros(4, 2, 3), padding="same"),
    lambda L: L.conv_transpose3d(L.zeros(4, 5, 5, 5), L.zeros(4, 2, 3, 3, 3), stride=(1, 2, 1),
                                 output_padding=(0, 1, 1)),
    lambda L: L.conv_transpose3d(L.zeros(4, 5, 5), L.zeros(4, 2, 3, 3, 3)),
    lambda L: L.conv_transpose3d(L.zeros(1, 4, 5, 5, 5), L.zeros(4, 2, 3, 3, 3, dtype=L.float64)),
    lambda L: L.conv_transpose3d(L.zeros(2, 4, 5, 5, 5), L.zeros(4, 2, 3, 3, 3, dtype=L.float64)),
]


@pytest.mark.parametrize("i", range(len(CONV_ERRORS)))
def test_convolution_errors_match_torch(torch, i):
    ec = et = None
    try:
        CONV_ERRORS[i](core)
    except Exception as e:  # noqa: BLE001
        ec = e
    try:
        CONV_ERRORS[i](torch)
    except Exception as e:  # noqa: BLE001
        et = e
    assert et is not None and ec is not None, (ec, et)
    assert type(ec) is type(et) and str(ec) == str(et), (ec, et)


MODULES = [
    ("Conv3d(4, 6, 3, stride=2, padding=1, groups=2)", (2, 4, 5, 6, 7)),
    ("Conv3d(2, 3, (1, 2, 3), padding='same', bias=False, padding_mode='reflect')", (2, 2, 4, 5, 6)),
    ("Conv3d(2, 3, 2, padding=1, padding_mode='circular', dilation=2)", (2, 4, 5, 6)),
    ("ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)", (2, 4, 7)),
    ("ConvTranspose1d(2, 3, 2, bias=False)", (2, 5)),
    ("ConvTranspose3d(2, 3, 2, dilation=2)", (2, 2, 3, 4, 5)),
    ("ConvTranspose3d(4, 2, (2, 3, 1), stride=(2, 1, 2), groups=2)", (1, 4, 3, 3, 3)),
]


@pytest.mark.parametrize("spec,shape", MODULES, ids=[m[0] for m in MODULES])
def test_conv_modules_init_and_forward_as_torch(torch, spec, shape):
    torch.manual_seed(5)
    core.manual_seed(5)
    tm, cm = eval("torch.nn." + spec), eval("core.nn." + spec)   # noqa: S307 - literals above
    assert repr(cm) == repr(tm)
    for (tn, tp), (cn, cp) in zip(tm.named_parameters(), cm.named_parameters()):
        assert tn == cn
        np.testing.assert_array_equal(cp.detach().numpy(), tp.detach().numpy())
    x = torch.tensor(RNG.standard_normal(shape), dtype=torch.float32, requires_grad=True)
    assert_agree(cm, tm, (x,), {}, torch)


@pytest.mark.parametrize("n", [1, 3])
def test_conv_transpose_module_output_size(torch, n):
    cls = f"ConvTranspose{n}d"
    cm, tm = getattr(core.nn, cls)(2, 3, 3, stride=2), getattr(torch.nn, cls)(2, 3, 3, stride=2)
    with torch.no_grad():
        for cp, tp in zip(cm.parameters(), tm.parameters()):
            tp.copy_(torch.tensor(cp.detach().numpy()))
    x = torch.tensor(RNG.standard_normal((1, 2) + (3,) * n), dtype=torch.float32)
    size = [8] * n
    assert_agree(lambda v: cm(v, output_size=size), lambda v: tm(v, output_size=size), (x,), {}, torch)


COMMANDS = {   # each command's cli_example as torch computes it: tests/core/ops/nn/test_nn_commands.py runs them
    "conv3d": lambda T: T.conv3d(T.arange(1.0, 9).reshape(1, 1, 2, 2, 2), T.tensor([[[[[1.0]], [[-1]]]]])),
    "conv_transpose1d": lambda T: T.conv_transpose1d(T.tensor([[[1.0, 2, 3]]]), T.tensor([[[1.0, -1]]]), stride=2),
    "conv_transpose2d": lambda T: T.conv_transpose2d(T.tensor([[[[1.0, 2], [3, 4]]]]),
                                                     T.tensor([[[[1.0, 0], [0, -1]]]]), stride=2),
    "conv_transpose3d": lambda T: T.conv_transpose3d(T.tensor([[[[[1.0, 2]]]]]), T.tensor([[[[[1.0, -1]]]]]),
                                                     stride=2),
}
