"""Property tests: reshape / permute / cat / split round trips, and agreement with torch on
random shapes (values, strides, view-ness)."""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

import core

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


def _data(shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


@SETTINGS
@given(shape=shapes, data=st.data())
def test_reshape_round_trip(shape, data):
    x = core.tensor(_data(shape))
    n = x.numel()
    # a random factorisation of n (with a -1 somewhere when n > 0)
    dims, rest = [], n
    for _ in range(data.draw(st.integers(0, 3))):
        d = data.draw(st.sampled_from([k for k in range(1, 5) if rest % k == 0] or [1]))
        dims.append(d)
        rest //= d
    dims.append(rest)
    if n > 0:
        dims[data.draw(st.integers(0, len(dims) - 1))] = -1
    y = x.reshape(dims)
    assert y.numel() == n
    np.testing.assert_array_equal(y.reshape(shape).numpy(), x.numpy())
    np.testing.assert_array_equal(y.flatten().numpy(), x.numpy().reshape(-1))


@SETTINGS
@given(shape=shapes, data=st.data())
def test_permute_round_trip_and_torch_strides(shape, data, torch):
    perm = data.draw(st.permutations(range(len(shape))))
    x = core.tensor(_data(shape))
    y = x.permute(perm)
    inv = list(np.argsort(perm))
    np.testing.assert_array_equal(y.permute(inv).numpy(), x.numpy())
    ty = torch.tensor(_data(shape)).permute(perm)
    if y.numel():   # strides of empty tensors are not meaningful (NumPy and torch pick differently)
        assert y.stride() == ty.stride() and y.is_contiguous() == ty.is_contiguous()
    np.testing.assert_array_equal(y.contiguous().numpy(), ty.contiguous().numpy())


@SETTINGS
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple), data=st.data())
def test_cat_of_split_is_identity(shape, data):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    size = data.draw(st.integers(1, 4))
    x = core.tensor(_data(shape))
    parts = x.split(size, dim)
    np.testing.assert_array_equal(core.cat(parts, dim).numpy(), x.numpy())
    np.testing.assert_array_equal(core.stack(x.unbind(dim), dim).numpy(), x.numpy())


@SETTINGS
@given(shape=st.lists(st.integers(0, 3), min_size=1, max_size=3).map(tuple), data=st.data())
def test_cat_matches_torch_including_grads(shape, data, torch):
    dim = data.draw(st.integers(0, len(shape) - 1))
    extra = [data.draw(st.integers(0, 3)) for _ in range(data.draw(st.integers(1, 3)))]
    arrays = [_data(shape[:dim] + (e,) + shape[dim + 1:]) + k for k, e in enumerate(extra)]
    ct = [core.tensor(a, requires_grad=True) for a in arrays]
    tt = [torch.tensor(a, requires_grad=True) for a in arrays]
    r, tr = core.cat(ct, dim), torch.cat(tt, dim)
    np.testing.assert_array_equal(r.detach().numpy(), tr.detach().numpy())
    w = np.arange(r.numel(), dtype=np.float32).reshape(tuple(r.shape))
    (r * core.tensor(w)).sum().backward()
    (tr * torch.tensor(w)).sum().backward()
    for c, t in zip(ct, tt):
        np.testing.assert_array_equal(c.grad.numpy(), t.grad.numpy())


@SETTINGS
@given(shape=shapes, data=st.data())
def test_view_or_error_agrees_with_torch(shape, data, torch):
    """view() succeeds exactly when torch's does (after a random transpose)."""
    x, tx = core.tensor(_data(shape)), torch.tensor(_data(shape))
    if len(shape) >= 2:
        a, b = data.draw(st.integers(0, len(shape) - 1)), data.draw(st.integers(0, len(shape) - 1))
        x, tx = x.transpose(a, b), tx.transpose(a, b)
    target = (-1,) if data.draw(st.booleans()) else (x.numel(),) if len(shape) else ()
    try:
        tr = tx.view(target)
    except RuntimeError:
        tr = None
    try:
        r = x.view(target)
    except RuntimeError:
        r = None
    assert (r is None) == (tr is None)
    if r is not None:
        np.testing.assert_array_equal(r.numpy(), tr.numpy())
        if r.numel():
            assert r.stride() == tr.stride()
