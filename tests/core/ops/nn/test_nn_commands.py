"""The nn op family as registry entries: every entry's CLI example runs and prints what torch computes,
core.<name> exists exactly when torch.<name> does (with torch's signature), and core.nn.functional
re-exports the same functions."""
from __future__ import annotations

import json
import shlex

import numpy as np
import pytest
from typer.testing import CliRunner

import core
import core.nn.functional as CF
from core.ops.registry import FUNCTIONS, OPS
from tensorcli import app as cli_app
from tensorcli import opspec, spec

NN = sorted(n for n, i in OPS.items() if i.category == "nn")
NN_CLI = [n for n in NN if opspec.is_command(n)]   # multi_head_attention_forward (25 parameters) has no command


def _t(torch, v, dtype=None):
    return torch.tensor(v, dtype=dtype)


# name -> torch computation of that command's example (same literals)
REFERENCE = {
    "softmax": lambda T: T.softmax(_t(T, [[1.0, 2, 3], [1, 1, 1]]), 1),
    "log_softmax": lambda T: T.log_softmax(_t(T, [[1.0, 2, 3], [1, 1, 1]]), 1),
    "leaky_relu": lambda T: T.nn.functional.leaky_relu(_t(T, [[-1.5, 0, 2]]), 0.1),
    "gelu": lambda T: T.nn.functional.gelu(_t(T, [[-1.5, 0, 2]]), approximate="tanh"),
    "silu": lambda T: T.nn.functional.silu(_t(T, [[-1.5, 0, 2]])),
    "elu": lambda T: T.nn.functional.elu(_t(T, [[-1.5, 0, 2]]), 0.5),
    "softplus": lambda T: T.nn.functional.softplus(_t(T, [[-1.5, 0, 2]]), 2.0),
    "hardtanh": lambda T: T.nn.functional.hardtanh(_t(T, [[-1.5, 0, 2]]), -1.0, 1.0),
    "logsigmoid": lambda T: T.nn.functional.logsigmoid(_t(T, [[-1.5, 0, 2]])),
    "normalize": lambda T: T.nn.functional.normalize(_t(T, [[3.0, 4], [1, 0]]), dim=0),
    "linear": lambda T: T.nn.functional.linear(_t(T, [[1.0, 2, 3]]), _t(T, [[1.0, 0, 0], [0, 1, 1]]),
                                               _t(T, [0.5, -1])),
    "dropout": lambda T: T.nn.functional.dropout(_t(T, [[1.0, 2, 3, 4]]), 0.5, training=False),
    "im2col": lambda T: T.nn.functional.unfold(_t(T, [[[[1, 2, 3], [4, 5, 6], [7, 8, 9]]]], T.float64), 2),
    "fold": lambda T: T.nn.functional.fold(_t(T, [[[1, 2, 3, 4]]], T.float64), (2, 2), 1),
    "conv2d": lambda T: T.conv2d(_t(T, [[[[1.0, 2, 3], [4, 5, 6], [7, 8, 9]]]]), _t(T, [[[[1.0, 0], [0, -1]]]]),
                                 padding=1),
    "max_pool2d": lambda T: T.max_pool2d(_IMG(T), 2, 1),
    "max_pool2d_with_indices": lambda T: T.nn.functional.max_pool2d_with_indices(_IMG(T), 2),
    "avg_pool2d": lambda T: T.nn.functional.avg_pool2d(_IMG(T), 2),
    "batch_norm": lambda T: T.nn.functional.batch_norm(_t(T, [[1.0, 2], [3, 4], [5, 9]]), _t(T, [0.0, 0]),
                                                       _t(T, [1.0, 1]), training=True),
    "layer_norm": lambda T: T.nn.functional.layer_norm(_t(T, [[1.0, 2, 3], [2, 4, 9]]), (3,)),
    "nll_loss": lambda T: T.nn.functional.nll_loss(_LOGITS(T), _t(T, [0, 2])),
    "cross_entropy": lambda T: T.nn.functional.cross_entropy(_LOGITS(T), _t(T, [0, 2]), label_smoothing=0.1),
    "mse_loss": lambda T: T.nn.functional.mse_loss(_t(T, [0.5, 2, -1]), _t(T, [1.0, 1, 0])),
    "l1_loss": lambda T: T.nn.functional.l1_loss(_t(T, [0.5, 2, -1]), _t(T, [1.0, 1, 0]), reduction="sum"),
    "binary_cross_entropy": lambda T: T.nn.functional.binary_cross_entropy(_t(T, [0.2, 0.9]), _t(T, [0.0, 1])),
    "pad": lambda T: T.nn.functional.pad(_t(T, [[1, 2], [3, 4]], T.float64), (1, 1), mode="replicate"),
    "embedding": lambda T: T.nn.functional.embedding(_t(T, [2, 0]), _t(T, [[0.0, 1], [2, 3], [4, 5]])),
    "dropout2d": lambda T: T.nn.functional.dropout2d(_t(T, [[[[1.0, 2], [3, 4]]]]), 0.5, training=False),
    "conv1d": lambda T: T.conv1d(_t(T, [[[1.0, 2, 3, 4, 5]]]), _t(T, [[[1.0, 0, -1]]]), padding=1),
    "conv_transpose2d": lambda T: T.conv_transpose2d(_t(T, [[[[1.0, 2], [3, 4]]]]), _t(T, [[[[1.0, 0], [0, -1]]]]),
                                                     stride=2),
    "adaptive_avg_pool2d": lambda T: T.nn.functional.adaptive_avg_pool2d(_IMG35(T), (2, 2)),
    "adaptive_max_pool2d": lambda T: T.nn.functional.adaptive_max_pool2d(_IMG35(T), (2, 2)),
    "adaptive_avg_pool1d": lambda T: T.adaptive_avg_pool1d(_t(T, [[[1.0, 2, 3, 4, 5]]]), 2),
    "adaptive_max_pool1d": lambda T: T.nn.functional.adaptive_max_pool1d(_t(T, [[[1.0, 5, 3, 4, 2]]]), 2),
    "group_norm": lambda T: T.nn.functional.group_norm(_t(T, [[[1.0, 2], [3, 4], [5, 9], [0, 1]]]), 2),
    "instance_norm": lambda T: T.nn.functional.instance_norm(_t(T, [[[1.0, 2, 4], [3, 4, 0]]])),
    "binary_cross_entropy_with_logits": lambda T: T.nn.functional.binary_cross_entropy_with_logits(
        _t(T, [0.5, -2, 3]), _t(T, [1.0, 0, 1])),
    "smooth_l1_loss": lambda T: T.nn.functional.smooth_l1_loss(_t(T, [0.5, 2, -1]), _t(T, [1.0, 1, 0]), beta=0.5),
    "huber_loss": lambda T: T.nn.functional.huber_loss(_t(T, [0.5, 2, -1]), _t(T, [1.0, 1, 0]), delta=0.5),
    "kl_div": lambda T: T.nn.functional.kl_div(_t(T, [-1.0, -0.5, -2]), _t(T, [0.2, 0.5, 0.3]), reduction="batchmean"),
    "cosine_similarity": lambda T: T.cosine_similarity(_t(T, [[1.0, 0], [1, 1]]), _t(T, [[1.0, 1], [1, 1]]), 1),
    "pairwise_distance": lambda T: T.pairwise_distance(_t(T, [[1.0, 0], [1, 1]]), _t(T, [[0.0, 1], [1, 1]])),
    "scaled_dot_product_attention": lambda T: T.nn.functional.scaled_dot_product_attention(
        _t(T, [[[1.0, 0], [0, 1]]]), _t(T, [[[1.0, 0], [0, 1]]]), _t(T, [[[1.0, 2], [3, 4]]]), is_causal=True),
    "embedding_bag": lambda T: T.nn.functional.embedding_bag(_t(T, [0, 2, 1, 1]), _t(T, [[0.0, 1], [2, 3], [4, 5]]),
                                                             _t(T, [0, 2])),
}
from tests.core.ops.nn.test_activation_variants import CLI_REFERENCE as _ACT  # noqa: E402
from tests.core.ops.nn.test_small_layers import CLI_REFERENCE as _LAYERS  # noqa: E402
from tests.core.ops.nn.test_loss import CLI_REFERENCE as _LOSSES  # noqa: E402

REFERENCE.update({**_ACT, **_LOSSES, **_LAYERS})

# torch.<name> twins not provided yet (core lacks the name; F has the function)
NO_TORCH_TWIN: dict[str, str] = {}   # nn ops whose torch.X twin core does not reproduce (none now)


def _IMG35(T):
    return T.arange(1.0, 16).reshape(1, 1, 3, 5)


def _IMG(T):
    return T.arange(1.0, 17).reshape(1, 1, 4, 4)


REFERENCE.update({
    "native_layer_norm": lambda T: T.native_layer_norm(_t(T, [[1.0, 2, 3], [2, 4, 9]]), [3], _t(T, [1.0, 2, 3]),
                                                       _t(T, [0.0, 0, 1]), 1e-5),
    "native_batch_norm": lambda T: T.native_batch_norm(_t(T, [[1.0, 2], [3, 4], [5, 9]]), _t(T, [1.0, 2]),
                                                       _t(T, [0.0, 1]), _t(T, [0.0, 0]), _t(T, [1.0, 1]), True,
                                                       0.1, 1e-5),
    "native_group_norm": lambda T: T.native_group_norm(_t(T, [[[1.0, 2], [3, 4], [5, 9], [0, 1]]]),
                                                       _t(T, [1.0, 2, 3, 4]), _t(T, [0.0, 0, 1, 1]), 1, 4, 2, 2, 1e-5),
})

from tests.core.ops.nn.test_conv_transpose import COMMANDS as _CONV  # noqa: E402
from tests.core.ops.nn.test_interpolate import COMMANDS as _INTERP  # noqa: E402
from tests.core.ops.nn.test_pool import COMMANDS as _POOL  # noqa: E402

REFERENCE.update({**_POOL, **_CONV, **_INTERP})
REFERENCE["conv_tbc"] = lambda T: T.conv_tbc(_t(T, [[[1.0, 2]], [[3, 4]], [[5, 6]]]), _t(T, [[[1.0], [0]], [[0], [1]]]),
                                             _t(T, [0.5]), 0)



def _LOGITS(T):
    return T.tensor([[2.0, 0.5, -1], [0.1, 0.2, 3]])


@pytest.fixture(scope="module")
def run():
    app = cli_app.build_app(modules=("ops",))
    runner = CliRunner()
    return lambda argv: runner.invoke(app, argv, env={"NO_COLOR": "1"})


def _values(obj):
    if isinstance(obj, list):
        return [_values(o) for o in obj]
    return np.asarray(obj["data"], dtype=np.float64), obj["shape"]


@pytest.mark.parametrize("name", NN_CLI)
def test_cli_example_matches_torch(torch, run, name):
    example = (opspec.examples(name) or [None])[0]
    assert example, f"{name} has no example"
    ref = REFERENCE[name](torch)
    r = run(shlex.split(example)[1:] + ["--json"])
    assert r.exit_code == 0, r.stderr
    got = _values(json.loads(r.stdout)["result"])
    refs = list(ref) if isinstance(ref, tuple) else [ref]
    gots = got if isinstance(got, list) else [got]
    assert len(gots) == len(refs)
    for (data, shape), t in zip(gots, refs):
        assert shape == list(t.shape)
        np.testing.assert_allclose(data, t.double().numpy(), rtol=2e-6, atol=2e-6)


def test_every_parameter_has_a_cli_kind():
    """No nn command leaves a parameter to the CLI's fallback guess: each maps through opspec's name
    conventions or the op entry's params (an int like num_groups must not become a tensor option)."""
    import inspect
    unmapped = []
    for name in NN_CLI:
        refined = opspec.entry(name).params
        for i, p in enumerate(OPS[name].signature.parameters.values()):
            known = p.name in refined or p.name in opspec.CONVENTIONS
            tensor_first = i < 2 and p.default is inspect.Parameter.empty   # input-like leading tensors
            if not known and not tensor_first and (p.default is None or p.default is inspect.Parameter.empty):
                unmapped.append((name, p.name))
    assert not unmapped, unmapped


@pytest.mark.parametrize("name", NN_CLI)
def test_help_generates(run, name):
    r = run([spec.command_name(name), "--help"])
    assert r.exit_code == 0, r.stderr
    assert f"tensorcli {spec.command_name(name)}" in r.stdout


@pytest.mark.parametrize("name", NN)
def test_core_namespace_follows_torch(torch, name):
    expected = hasattr(torch, name) and name not in NO_TORCH_TWIN
    assert (name in FUNCTIONS) == expected
    assert hasattr(core, name) == expected


TORCH_LEVEL_ONLY = {"native_layer_norm", "native_batch_norm", "native_group_norm", "convolution", "grid_sampler_2d",
                    "grid_sampler_3d"}   # torch.X, not in F


def test_functional_reexports_registered_kernels():
    for name in sorted(set(NN) - TORCH_LEVEL_ONLY):
        fn = OPS[name].fn
        public = {"softmax": CF.softmax, "log_softmax": CF.log_softmax, "im2col": CF.unfold}.get(name)
        if public is None:
            assert getattr(CF, name) is fn
        for attr in CF.__all__:
            assert callable(getattr(CF, attr))


def test_torch_signature_exports(torch):
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    w, b = np.array([1.0, 2, 0.5], np.float32), np.array([0.0, 1, -1], np.float32)
    rm, rv = np.zeros(3, np.float32), np.ones(3, np.float32)
    oc = core.batch_norm(core.tensor(x), core.tensor(w), core.tensor(b), core.tensor(rm.copy()),
                         core.tensor(rv.copy()), False, 0.1, 1e-5, False)
    ot = torch.batch_norm(torch.tensor(x), torch.tensor(w), torch.tensor(b), torch.tensor(rm.copy()),
                          torch.tensor(rv.copy()), False, 0.1, 1e-5, False)
    np.testing.assert_allclose(oc.numpy(), ot.numpy(), rtol=1e-6)
    oc = core.layer_norm(core.tensor(x), [3], core.tensor(w), core.tensor(b), 1e-5, True)
    ot = torch.layer_norm(torch.tensor(x), [3], torch.tensor(w), torch.tensor(b), 1e-5, True)
    np.testing.assert_allclose(oc.numpy(), ot.numpy(), rtol=1e-5, atol=1e-6)
    idx = [[2, 0], [1, 1]]
    oc = core.embedding(core.tensor(x), core.tensor(idx))
    ot = torch.embedding(torch.tensor(x), torch.tensor(idx))
    np.testing.assert_array_equal(oc.numpy(), ot.numpy())
    np.testing.assert_array_equal(core.dropout(core.tensor(x), 0.3, False).numpy(),
                                  torch.dropout(torch.tensor(x), 0.3, False).numpy())
    xc = core.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    oc, ot = xc.softmax(1), xt.softmax(1)
    assert type(oc.grad_fn).__name__ == type(ot.grad_fn).__name__
    np.testing.assert_allclose(oc.detach().numpy(), ot.detach().numpy(), rtol=1e-6)
