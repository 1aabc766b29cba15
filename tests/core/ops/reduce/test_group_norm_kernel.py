"""group_norm's kernel node (core/ops/reduce/group_norm_kernel.py) side by side with torch on one thread, bit for
bit: the contiguous backward (planes shorter than, equal to and longer than a vector, groups of one channel to
all, channels past whole vectors), and both directions of the channels-last kernels on either side of their
plane-size switches (1024 positions forward, 2048 backward), with the memory format of output and gradient."""
import numpy as np
import pytest

import core


@pytest.fixture
def one_thread(torch):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield torch
    torch.set_num_threads(threads)


def _run(lib, x, dy, groups, w, b, fmt=None):
    """(y, x.grad, weight.grad, bias.grad, y's strides, x.grad's strides) of F.group_norm; fmt a memory format name
    to lay x out in first."""
    xt = lib.from_numpy(x.copy())
    if fmt is not None:
        xt = xt.to(memory_format=getattr(lib, fmt))
    xt.requires_grad_(True)
    wt, bt = (None if a is None else lib.from_numpy(a.copy()).requires_grad_(True) for a in (w, b))
    y = lib.nn.functional.group_norm(xt, groups, wt, bt)
    y.backward(lib.from_numpy(dy))
    grads = [None if t is None else t.grad.numpy() for t in (wt, bt)]
    return [y.detach().numpy(), xt.grad.numpy(), *grads, y.stride(), xt.grad.stride()]


def _check(shape, groups, dtype, affine, fmt=None, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 2 + 0.5).astype(dtype)
    dy = rng.standard_normal(shape).astype(dtype)
    c = shape[1]
    w = rng.standard_normal(c).astype(dtype) if affine else None
    b = rng.standard_normal(c).astype(dtype) if affine else None
    import torch
    ours, ref = _run(core, x, dy, groups, w, b, fmt), _run(torch, x, dy, groups, w, b, fmt)
    if 1 in shape:      # core's AccumulateGrad lays a gradient out by NumPy's flags, which ignore size-1 strides
        ours, ref = ours[:-1], ref[:-1]
    for name, a, r in zip(("out", "input grad", "weight grad", "bias grad", "out strides", "grad strides"), ours, ref):
        if isinstance(r, np.ndarray):
            assert a.dtype == r.dtype and a.tobytes() == r.tobytes(), (name, int((a != r).sum()))
        else:
            assert a == r, name


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,groups", [((3, 4, 1), 2), ((3, 6, 7), 3), ((2, 4, 8), 1), ((3, 4, 9), 4),
                                          ((2, 6, 8, 8), 2), ((3, 26, 5), 2), ((2, 44, 3), 2), ((2, 6, 15), 6)])
@pytest.mark.parametrize("affine", [False, True])
def test_contiguous_backward_bits(one_thread, dtype, shape, groups, affine):
    """ds / db per plane (planes of 1, 7, 8, 9, 64 elements), the per-group fold over channels (whole vectors, then
    13 / 22 remaining channels: 128-bit vectors and contracted scalars), c2 / c3, dx, dgamma and dbeta."""
    _check(shape, groups, dtype, affine)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,groups", [((2, 6, 5, 7), 2), ((3, 20, 3, 3), 2), ((2, 24, 2, 2), 24),
                                          ((2, 13, 1, 3), 1), ((4, 8, 1, 1), 2), ((2, 6, 2, 3, 4), 3)])
@pytest.mark.parametrize("affine", [False, True])
def test_channels_last_small_planes_bits(one_thread, dtype, shape, groups, affine):
    """Planes under 1024 positions: ColumnwiseMoments forward, CalcInternalGradientsChannelsLast backward
    (partial vectors of channels, groups of one channel, channels_last_3d)."""
    _check(shape, groups, dtype, affine, "channels_last" if len(shape) == 4 else "channels_last_3d", seed=1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,groups", [((2, 6, 31, 33), 3), ((2, 6, 32, 32), 3), ((1, 10, 32, 64), 2)])
def test_channels_last_large_planes_bits(one_thread, dtype, shape, groups):
    """1023 / 1024 positions (the forward's switch to per-channel sums) and 2048 (the backward's)."""
    _check(shape, groups, dtype, True, "channels_last", seed=2)


def test_channels_last_saved_statistics(one_thread):
    """native_group_norm's mean and rstd come from the channels-last kernel too."""
    torch = one_thread
    x = np.random.default_rng(3).standard_normal((2, 12, 5, 6)).astype(np.float32) * 3
    outs = [lib.native_group_norm(lib.from_numpy(x).to(memory_format=lib.channels_last), None, None, 2, 12, 30, 3,
                                  1e-5) for lib in (core, torch)]
    for a, r in zip(*outs):
        assert a.stride() == r.stride()
        assert a.numpy().tobytes() == r.numpy().tobytes()


def test_permuted_view_with_channels_last_strides_runs_that_kernel(one_thread):
    """torch picks the kernel from the strides (suggest_memory_format), so an NHWC array permuted to NCHW is
    channels last without .to(memory_format=...)."""
    torch = one_thread
    nhwc = np.random.default_rng(4).standard_normal((2, 5, 7, 12)).astype(np.float32)
    outs = [lib.nn.functional.group_norm(lib.from_numpy(nhwc).permute(0, 3, 1, 2), 4) for lib in (core, torch)]
    assert outs[0].stride() == outs[1].stride()
    assert outs[0].numpy().tobytes() == outs[1].numpy().tobytes()
