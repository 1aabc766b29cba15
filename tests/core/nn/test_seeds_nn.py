"""The nn examples of the seed documents (/work/shared/seeds/002_*, 003_*), run unchanged on core and
on torch; printed output is compared wherever it does not depend on random values."""
from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

import core
from tests.conftest import assert_same


def run_printing(fn, lib):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result = fn(lib)
    return buf.getvalue(), result


# -- 002: 二、模型使用 1、model.named_children ---------------------------------------------------------------

def _named_children_seed(torch):
    import importlib
    nn = importlib.import_module(torch.__name__ + ".nn")
    F = importlib.import_module(torch.__name__ + ".nn.functional")

    class Net(nn.Module):
        def __init__(self):
            super(Net, self).__init__()
            self.conv1 = nn.Conv2d(3, 6, 5)
            self.pool = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = self.pool(F.relu(self.conv2(x)))
            x = x.view(-1, 16 * 5 * 5)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            x = self.fc3(x)
            return x

    net = Net()

    for name, module in net.named_children():
        print('name:\t', name)
        print('module:\t', module)
    return net


def test_seed_named_children_prints_like_torch(torch):
    out_c, net = run_printing(_named_children_seed, core)
    out_t, _ = run_printing(_named_children_seed, torch)
    assert out_c == out_t
    assert "module:\t Conv2d(3, 6, kernel_size=(5, 5), stride=(1, 1))" in out_c
    assert net(core.randn(1, 3, 32, 32)).shape == core.Size([1, 10])


# -- 002: (4) torch.nn.Unfold分块 --------------------------------------------------------------------------

def _unfold_block_seed(torch, inputs):
    nn = torch.nn
    K = 2  # kernel size
    B = 2  # batch size
    C = 2  # channel num
    img_size = 3
    block_func = nn.Unfold(K, dilation=1, padding=0, stride=1)
    out = block_func(inputs); print(out.shape)
    out = out.view(B, C, -1, K * K)
    out = out.permute(0, 2, 1, 3)
    out = out.view(*out.shape[:3], 2, 2)
    print(out[1])
    return out, (B, C, img_size)


def test_seed_unfold_blocks(torch):
    x = np.random.default_rng(0).random((2, 2, 3, 3)).astype(np.float32)
    out_c, (oc, _) = run_printing(lambda lib: _unfold_block_seed(lib, lib.from_numpy(x.copy())), core)
    out_t, (ot, _) = run_printing(lambda lib: _unfold_block_seed(lib, lib.from_numpy(x.copy())), torch)
    assert out_c == out_t
    assert out_c.startswith("torch.Size([2, 8, 4])\n")
    assert_same(oc, ot)
    assert tuple(oc.shape) == (2, 4, 2, 2, 2)


def test_seed_unfold_block_with_rand_runs():
    torch = core
    inputs = torch.rand(2, 2, 3, 3)
    out, _ = _unfold_block_seed(torch, inputs)
    np.testing.assert_array_equal(out[1, 0, 0].numpy(), inputs[1, 0, :2, :2].numpy())


# -- 002: 应用 1. 卷积操作 (conv by unfold + matmul + fold) ------------------------------------------------

def test_seed_conv_by_unfold_matches_conv2d():
    torch = core
    inp = torch.randn(1, 3, 10, 12)
    w = torch.randn(2, 3, 4, 5)
    inp_unf = torch.nn.functional.unfold(inp, (4, 5))
    assert inp_unf.shape == torch.Size([1, 60, 56])
    out_unf = inp_unf.transpose(1, 2).matmul(w.view(w.size(0), -1).t()).transpose(1, 2)
    assert out_unf.shape == torch.Size([1, 2, 56])
    out = torch.nn.functional.fold(out_unf, (7, 8), (1, 1))
    assert (torch.nn.functional.conv2d(inp, w) - out).abs().max().item() < 1e-5
    assert torch.allclose(out, out_unf.view(1, 2, 7, 8))


def test_seed_conv_by_unfold_same_as_torch(torch):
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((1, 3, 10, 12)).astype(np.float32), rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    res = []
    for lib in (core, torch):
        inp, ww = lib.from_numpy(x.copy()), lib.from_numpy(w.copy())
        inp_unf = lib.nn.functional.unfold(inp, (4, 5))
        out_unf = inp_unf.transpose(1, 2).matmul(ww.view(ww.size(0), -1).t()).transpose(1, 2)
        res.append(lib.nn.functional.fold(out_unf, (7, 8), (1, 1)))
    assert_same(res[0], res[1], atol=1e-5)


# -- 002: 2、自定义卷积核进行卷积操作 (FreeDefineConV) -------------------------------------------------------

def _free_define_conv(torch):
    nn = torch.nn
    F = torch.nn.functional

    class FreeDefineConV(nn.Module):
        def __init__(self, out_channel, in_channels):
            super(FreeDefineConV, self).__init__()
            kernel = [[-1.0, -2.0, -1.0],
                      [0.0, 0.0, 0.0],
                      [1.0, 2.0, 1.0]]
            kernel = torch.FloatTensor(kernel).expand(out_channel, in_channels, 3, 3)
            self.weight = nn.Parameter(data=kernel, requires_grad=False)

        def forward(self, x):
            out = F.conv2d(x, self.weight, 1, 1)
            return out

    return FreeDefineConV


def test_seed_free_define_conv_positional_bias_is_a_type_error(torch):
    """F.conv2d(x, w, 1, 1) passes 1 as *bias*: PyTorch rejects it with a TypeError; so does core."""
    x = np.ones((1, 3, 5, 5), dtype=np.float32)
    msgs = []
    for lib in (core, torch):
        m = _free_define_conv(lib)(2, 3)
        assert isinstance(m.weight, lib.nn.Parameter) and not m.weight.requires_grad
        assert [n for n, _ in m.named_parameters()] == ["weight"]
        with pytest.raises(TypeError) as e:
            m(lib.from_numpy(x.copy()))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_seed_free_define_conv_kernel_with_intended_arguments(torch):
    """With the intended call F.conv2d(x, w, None, 1, 1) the Sobel kernel gives torch's values."""
    x = np.random.default_rng(1).standard_normal((1, 3, 6, 6)).astype(np.float32)
    res = []
    for lib in (core, torch):
        m = _free_define_conv(lib)(2, 3)
        res.append(lib.nn.functional.conv2d(lib.from_numpy(x.copy()), m.weight, None, 1, 1))
    assert_same(res[0], res[1], atol=1e-5)
    assert res[0].grad_fn is None


# -- 002: 三、神奇的发现 (BatchNorm1d on [B, C, L] vs [B, C]) ------------------------------------------------

def _bn_seed(torch):
    nn = torch.nn

    class modelfunc(nn.Module):

        def __init__(self, class_num):
            super(modelfunc, self).__init__()
            self.bn = nn.BatchNorm1d(1)
            self.bn2 = nn.BatchNorm1d(2)

        def forward(self, x):
            x1 = self.bn(x)
            print('\n--- BN1 ---')
            print(x1)
            print('Input Shape:\t', x1.shape)

            x2 = self.bn2(x.squeeze())
            print('\n--- BN2 ---')
            print(x2)
            print('Input Shape:\t', x2.shape)

            return x

    model_object = modelfunc(3)

    input = torch.FloatTensor([[2, 1], [1, 4]]).view(2, 1, 2)
    print(input)
    output = model_object(input)
    return model_object, output


def test_seed_batchnorm1d_prints_like_torch(torch):
    out_c, (mc, _) = run_printing(_bn_seed, core)
    out_t, (mt, _) = run_printing(_bn_seed, torch)
    assert out_c == out_t
    assert "tensor([[[ 0.0000, -0.8165]],\n\n        [[-0.8165,  1.6330]]], grad_fn=<NativeBatchNormBackward0>)" \
        in out_c
    assert "tensor([[ 1.0000, -1.0000],\n        [-1.0000,  1.0000]], grad_fn=<NativeBatchNormBackward0>)" in out_c
    for name, b in mt.named_buffers():
        assert_same(dict(mc.named_buffers())[name], b)


# -- 002: one-hot application: LogSoftmax(dim=1) on [128, 702] ------------------------------------------------

def _logsoftmax_seed(torch):
    from importlib import import_module
    Variable = import_module(torch.__name__ + ".autograd").Variable

    pred = torch.rand(128, 702)
    pred = Variable(pred)
    logsoftmax = torch.nn.LogSoftmax(dim=1)
    log_probs = logsoftmax(pred)

    targets = torch.rand(128)
    targets = targets.long()
    targets = Variable(targets)

    print(pred.shape)
    print(log_probs.shape)
    print(targets.shape)

    zeros = torch.zeros(log_probs.size())
    targets_uns = targets.unsqueeze(1).data.cpu()
    print(targets_uns.shape)
    return pred, log_probs, zeros


def test_seed_logsoftmax_prints_like_torch(torch):
    out_c, (pred, lp, zeros) = run_printing(_logsoftmax_seed, core)
    out_t, _ = run_printing(_logsoftmax_seed, torch)
    assert out_c == out_t == ("torch.Size([128, 702])\ntorch.Size([128, 702])\ntorch.Size([128])\n"
                              "torch.Size([128, 1])\n")
    np.testing.assert_allclose(np.exp(lp.numpy()).sum(1), 1, rtol=1e-5)
    assert_same(lp, torch.log_softmax(torch.from_numpy(pred.numpy()), 1))


# -- 003 (Russian): no_grad with nn.Linear and nn.Sequential in eval mode ---------------------------------------

def test_seed_linear_inference_under_no_grad():
    torch = core
    nn = torch.nn
    model = nn.Linear(10, 2)
    x = torch.randn(1, 10)
    with torch.no_grad():
        output = model(x)
    assert output.shape == torch.Size([1, 2]) and not output.requires_grad and output.grad_fn is None
    out2 = model(x)
    assert out2.requires_grad and out2.grad_fn.name() == "AddmmBackward0"
    assert torch.allclose(output, out2)


def _sequential_eval_seed(torch):
    nn = torch.nn
    model = nn.Sequential(
        nn.Linear(10, 5),
        nn.ReLU(),
        nn.Linear(5, 2)
    )
    model.eval()
    test_input = torch.randn(5, 10)
    with torch.no_grad():
        predictions = model(test_input)
        print("Размер результата предсказания:", predictions.shape)
    return model, predictions


def test_seed_sequential_eval_prints_like_torch(torch):
    out_c, (model, pred) = run_printing(_sequential_eval_seed, core)
    out_t, _ = run_printing(_sequential_eval_seed, torch)
    assert out_c == out_t == "Размер результата предсказания: torch.Size([5, 2])\n"
    assert not model.training and not model[0].training and not pred.requires_grad


def test_seed_memory_comparison_loop_runs():
    torch = core
    model = torch.nn.Linear(1000, 1000)
    inputs = [torch.randn(100, 1000) for _ in range(5)]
    with_graph = [model(inp) for inp in inputs]
    assert all(o.grad_fn is not None for o in with_graph)
    with torch.no_grad():
        without = [model(inp) for inp in inputs]
    assert all(o.grad_fn is None and not o.requires_grad for o in without)
