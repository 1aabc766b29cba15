"""The shape examples of seed 002 (unsqueeze, repeat, chunk, expand_as * broadcasting, stack,
einsum, cat in a loop, the as_strided diagonal) print the same with core as with torch."""
from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

import core


def _printed(fn, lib):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        fn(lib)
    return buf.getvalue()


def seed_unsqueeze(torch):
    targets = torch.rand(128)
    print(targets.shape)
    targets_uns = targets.unsqueeze(1).data.cpu()
    print(targets_uns.shape)


def seed_repeat(torch):
    x = torch.Tensor([1, 2, 3])
    print(x.repeat(4, 2))
    print(x.repeat(4, 2).shape)


def seed_chunk(torch):
    a = torch.arange(9.).view(1, 1, 3, 3) / 10
    print(a)
    chunk_list = a.chunk(3, 2)
    for data in enumerate(chunk_list):
        print(data, '\n')


def seed_expand_as_multiply(torch):
    input = torch.Tensor([[1, 2],
                          [1, 2]])
    print('input_shape: ', input.shape)
    yaw = torch.Tensor([[10], [20]])
    print('yaw_shape: ', yaw.shape)
    yaw = yaw.view(yaw.size(0), 1)
    print('after yaw_view:', yaw)
    print('after yaw_view shape:', yaw.shape)
    yaw = yaw.expand_as(input)
    print('after yaw_view_expand:', yaw)
    print('after yaw_view_expand shape:', yaw.shape)
    output = input * yaw
    print('output:', output)
    print('output.shape', output.shape)


def seed_stack(torch):
    aa = torch.rand(3, 256, 128)
    bb = []
    bb.append(aa)
    bb.append(aa)
    print(torch.stack(bb).shape)


def seed_einsum(torch):
    q = torch.rand(4, 3, 8, 128)
    v = torch.rand(4, 3, 8, 128)
    q_dot_v = torch.einsum('b c i d, b c j d -> b c i j', q, v)
    print(q_dot_v.shape)


def seed_cat_loop(torch):
    tensor_list = torch.zeros([0, 3])
    value = torch.FloatTensor([[1, 2, 3], [4, 5, 6]])
    for iiii in range(10):
        tensor_list = torch.cat([tensor_list, value], dim=0)
    print(tensor_list)
    print(tensor_list.shape)


def seed_as_strided_diag(torch):
    mat = torch.arange(12.).view(3, 4)
    res = torch.autograd.Variable(torch.zeros(3, 4, 4))
    res.as_strided(mat.size(), [res.stride(0), res.size(2) + 1]).copy_(mat)
    print(res)


def seed_unfold_view_permute(torch):
    K, B, C = 2, 2, 2
    inputs = torch.arange(36.).view(B, C, 3, 3)
    out = inputs.unfold(2, K, 1).unfold(3, K, 1)          # [B, C, 2, 2, K, K]
    out = out.reshape(B, C, -1, K * K)
    out = out.permute(0, 2, 1, 3)
    out = out.view(*out.shape[:3], 2, 2)
    print(out[1])


SEEDS = [seed_unsqueeze, seed_repeat, seed_chunk, seed_expand_as_multiply, seed_stack, seed_einsum,
         seed_cat_loop, seed_as_strided_diag, seed_unfold_view_permute]


@pytest.mark.parametrize("fn", SEEDS, ids=[f.__name__ for f in SEEDS])
def test_seed_example_prints_like_torch(torch, fn):
    assert _printed(fn, core) == _printed(fn, torch)


def test_seed_einsum_values_match_torch(torch):
    q, v = np.random.default_rng(0).random((2, 4, 3, 8, 128), dtype=np.float32)
    r = core.einsum('b c i d, b c j d -> b c i j', core.tensor(q), core.tensor(v))
    tr = torch.einsum('b c i d, b c j d -> b c i j', torch.tensor(q), torch.tensor(v))
    np.testing.assert_allclose(r.numpy(), tr.numpy(), rtol=1e-5, atol=1e-5)
