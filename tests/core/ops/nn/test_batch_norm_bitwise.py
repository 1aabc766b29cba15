"""batch_norm in training bit for bit with torch (one thread): ATen's per-channel statistics (double sums for
an image size > 1, a row-by-row buffer with fused multiply-adds for (N, C)), invstd in double, out = fma(x,
alpha, beta)."""
import numpy as np
import pytest

import core


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(8, 6, 5, 7), (4, 3, 10), (33, 20)])
def test_batch_norm_training_bits(torch, dtype, shape):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)     # the (N, C) kernel keeps a buffer per thread
    try:
        rng = np.random.default_rng(len(shape))
        x = rng.standard_normal(shape).astype(dtype) * 2 + 0.5
        w, b = (rng.standard_normal(shape[1]).astype(dtype) for _ in range(2))
        for affine in (False, True):
            outs = []
            for lib in (core, torch):
                kw = {"weight": lib.from_numpy(w), "bias": lib.from_numpy(b)} if affine else {}
                rm, rv = lib.zeros(shape[1], dtype=getattr(lib, dtype)), lib.ones(shape[1], dtype=getattr(lib, dtype))
                outs.append(lib.nn.functional.batch_norm(lib.from_numpy(x), rm, rv, training=True, **kw).numpy())
                outs.append(lib.nn.functional.batch_norm(lib.from_numpy(x), None, None, training=True, **kw).numpy())
            assert outs[0].tobytes() == outs[2].tobytes() and outs[1].tobytes() == outs[3].tobytes()
    finally:
        torch.set_num_threads(threads)


def _strided(base, perm):
    """base's values laid out in another dim order (perm), viewed back in base's shape: not C-contiguous."""
    return np.ascontiguousarray(base.transpose(perm)).transpose(np.argsort(perm))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,perm", [((33, 20), (1, 0)), ((8, 6, 5, 7), (0, 3, 2, 1)), ((4, 3, 10), (2, 1, 0)),
                                        ((33, 20), None), ((8, 6, 5, 7), None)])
def test_batch_norm_strided_input_and_running_stats_bits(torch, dtype, shape, perm):
    """ATen's fallback for input neither C-contiguous nor channels last (at::mean, float64 squares in iterator
    order, ((x - mean) * invstd) * w + b), and the running mean / unbiased variance with momentum."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        rng = np.random.default_rng(len(shape))
        base = rng.standard_normal(shape).astype(dtype) * 2 + 1
        x = base if perm is None else _strided(base, perm)
        c = shape[1]
        w, b, rm0 = (rng.standard_normal(c).astype(dtype) for _ in range(3))
        rv0 = rng.random(c).astype(dtype) + 0.5
        for affine in (False, True):
            outs = []
            for lib in (core, torch):
                kw = {"weight": lib.from_numpy(w), "bias": lib.from_numpy(b)} if affine else {}
                rm, rv = lib.from_numpy(rm0.copy()), lib.from_numpy(rv0.copy())
                y = lib.nn.functional.batch_norm(lib.from_numpy(x), rm, rv, training=True, momentum=0.3, **kw)
                outs.append([y.numpy().tobytes(), rm.numpy().tobytes(), rv.numpy().tobytes()])
            assert outs[0] == outs[1]
    finally:
        torch.set_num_threads(threads)


def _grads(lib, x, g, w, b, rm, rv, training, need_w):
    """batch_norm's output and the gradients of input (and weight, bias) for cotangent g, in lib."""
    xt = lib.from_numpy(x).requires_grad_(True)
    ins, kw = [xt], {}
    if w is not None:
        wt, bt = lib.from_numpy(w.copy()).requires_grad_(need_w), lib.from_numpy(b.copy()).requires_grad_(need_w)
        kw = {"weight": wt, "bias": bt}
        ins += [wt, bt] if need_w else []
    stats = (lib.from_numpy(rm.copy()), lib.from_numpy(rv.copy())) if rm is not None else (None, None)
    y = lib.nn.functional.batch_norm(xt, *stats, training=training, momentum=0.3, **kw)
    return [y.detach().numpy()] + [t.numpy() for t in lib.autograd.grad(y, ins, lib.from_numpy(g))]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,perm,gperm", [
    ((40, 13), None, None), ((7, 3), None, None), ((6, 4, 1, 1), None, None),       # image size 1: (N, C) rows
    ((4, 3, 10), None, None), ((3, 5, 3), None, None), ((2, 6, 5, 7), None, None),   # per-plane vector sums
    ((33, 20), (1, 0), None), ((8, 6, 5, 7), (0, 3, 2, 1), None),                    # strided input: generic path
    ((33, 20), None, (1, 0)), ((4, 6, 5, 3), None, (0, 2, 3, 1))])                   # strided cotangent
def test_batch_norm_backward_bits(torch, dtype, shape, perm, gperm):
    """native_batch_norm_backward as ATen: training and evaluation mode, with and without weight, the dx, dweight
    and dbias bits of torch's contiguous kernel (vec::reduce_all / map2_reduce_all, the fused tails), its (N, C)
    kernel (row buffers, fma(x - mean, dy, dotp)) and the generic path (at::sum, double dot products); the output too,
    but for strided input in evaluation mode."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        rng = np.random.default_rng(sum(shape))
        x = rng.standard_normal(shape).astype(dtype) * 2 + 0.5
        g = rng.standard_normal(shape).astype(dtype)
        x = x if perm is None else _strided(x, perm)
        g = g if gperm is None else _strided(g, gperm)
        c = shape[1]
        w, b, rm = (rng.standard_normal(c).astype(dtype) for _ in range(3))
        rv = rng.random(c).astype(dtype) + 0.5
        for training, affine, stats in ((True, False, False), (True, True, True), (False, True, True)):
            args = (x, g, w if affine else None, b, rm if stats else None, rv, training, True)
            ours, ref = _grads(core, *args), _grads(torch, *args)
            skip = 0 if training or perm is None else 1   # strided, evaluation: torch's vectorised sqrt (not IEEE)
            for a, r in zip(ours[skip:], ref[skip:]):
                assert a.dtype == r.dtype and a.shape == r.shape
                assert np.array_equal(a.view(f"u{a.itemsize}"), r.view(f"u{r.itemsize}"))
    finally:
        torch.set_num_threads(threads)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(1, 64, 33), (3, 8, 5, 7), (2, 16, 64)])
def test_instance_norm_bits(torch, dtype, shape):
    """instance_norm as batch_norm on the (1, N * C, *) view: values and gradients; float64 with an odd image size
    fuses the last square of each image row into the variance sum (GCC's build)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        rng = np.random.default_rng(shape[-1])
        x = rng.standard_normal(shape).astype(dtype) * 3 + 1
        g = rng.standard_normal(shape).astype(dtype)
        w, b = (rng.standard_normal(shape[1]).astype(dtype) for _ in range(2))
        outs = []
        for lib in (core, torch):
            xt, wt, bt = (lib.from_numpy(a.copy()).requires_grad_(True) for a in (x, w, b))
            y = lib.nn.functional.instance_norm(xt, weight=wt, bias=bt)
            outs.append([y.detach().numpy()] + [t.numpy() for t in lib.autograd.grad(y, [xt, wt, bt],
                                                                                  lib.from_numpy(g))])
        for a, r in zip(*outs):
            assert np.array_equal(a.view(f"u{a.itemsize}"), r.view(f"u{r.itemsize}"))
    finally:
        torch.set_num_threads(threads)


def test_fma_rows_fixes_float32_double_rounding():
    """The (N, C) kernel's buffer = fma(p, q, buffer) in float32: a float64 sum on a float32 midpoint whose exact
    value is above it (1 + 2**-23 - 2**-24 * (1 - 2**-46)) rounds up, as one fused rounding does, not to even."""
    from core.ops.nn._bn_stats import _fma_rows
    f = np.float32
    p = np.array([[1 + 2 ** -23], [-(2 ** -24) * (1 + 2 ** -23)]], f)
    q = np.array([[1], [1 - 2 ** -23]], f)
    assert _fma_rows(p, q, f)[0] == f(1 + 2 ** -23)
    assert f(np.float64(p[0, 0]) + np.float64(p[1, 0]) * np.float64(q[1, 0])) == f(1)   # what double rounding gives


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(64, 16), (2, 8, 6, 6)])
def test_batch_norm_sum_backward_bits(torch, dtype, shape):
    """y.sum().backward(): the cotangent is ones expanded with zero strides (not contiguous: ATen's generic path),
    and the gradient, nearly zero, is all rounding: its bits still match torch's."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        x = np.random.default_rng(3).standard_normal(shape).astype(dtype)
        w = np.random.default_rng(4).standard_normal(shape[1]).astype(dtype)
        grads = []
        for lib in (core, torch):
            xt, wt = lib.from_numpy(x.copy()).requires_grad_(True), lib.from_numpy(w.copy()).requires_grad_(True)
            lib.nn.functional.batch_norm(xt, None, None, wt, None, training=True).sum().backward()
            grads.append([xt.grad.numpy(), wt.grad.numpy()])
        for a, r in zip(*grads):
            assert np.array_equal(a.view(f"u{a.itemsize}"), r.view(f"u{r.itemsize}"))
    finally:
        torch.set_num_threads(threads)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(64, 16), (4, 6, 5, 7)])
def test_batch_norm_strided_parameters_bits(torch, dtype, shape):
    """C-contiguous input with a strided weight, bias or running statistic: ATen's contiguous kernel wants them all
    contiguous, so the output takes the generic ((x - mean) * invstd) * w + b, each step rounded."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        rng = np.random.default_rng(5)
        x = rng.standard_normal(shape).astype(dtype)
        p = rng.standard_normal((shape[1], 4)).astype(dtype)
        p[:, 3] = np.abs(p[:, 3]) + 0.5
        for cols in ((1, 2, None, None), (None, None, 0, 3), (1, None, 0, 3)):
            outs = []
            for lib in (core, torch):
                t = lib.from_numpy(p.copy())
                w, b, rm, rv = (None if k is None else t[:, k] for k in cols)
                y = lib.nn.functional.batch_norm(lib.from_numpy(x), rm, rv, w, b, training=True)
                outs.append([a.numpy().tobytes() for a in (y, t)])
            assert outs[0] == outs[1]
    finally:
        torch.set_num_threads(threads)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 6, 5, 7), (3, 5, 2, 2, 3)])
def test_batch_norm_channels_last_bits(torch, dtype, shape):
    """Channels-last input: the statistics, output and (with a channels-last cotangent) gradients of ATen's
    channels-last kernels on the (N * H * W, C) rows, the generic backward for a contiguous cotangent; the output
    and grad_input laid out channels last, as torch's (values, running statistics and strides compared)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        rng = np.random.default_rng(len(shape))
        x, g = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
        w, b, rm = (rng.standard_normal(shape[1]).astype(dtype) for _ in range(3))
        for g_channels_last, training in ((True, True), (False, True), (True, False)):
            outs = []
            for lib in (core, torch):
                fmt = lib.channels_last if len(shape) == 4 else lib.channels_last_3d
                xt = lib.from_numpy(x).contiguous(memory_format=fmt).requires_grad_(True)
                wt, bt = (lib.from_numpy(a.copy()).requires_grad_(True) for a in (w, b))
                gt = lib.from_numpy(g).contiguous(memory_format=fmt) if g_channels_last else lib.from_numpy(g)
                rmt, rvt = lib.from_numpy(rm.copy()), lib.from_numpy(np.abs(rm) + 0.5)
                y = lib.nn.functional.batch_norm(xt, rmt, rvt, wt, bt, training=training, momentum=0.3)
                gs = lib.autograd.grad(y, [xt, wt, bt], gt)
                outs.append([y.stride(), gs[0].stride()] + [a.detach().numpy().tobytes() for a in (y, *gs, rmt, rvt)])
            assert outs[0] == outs[1]
    finally:
        torch.set_num_threads(threads)
