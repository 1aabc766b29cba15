"""torch.memory_format / torch.layout objects and channels-last strides, core and torch side by side.

Tensor.contiguous / .to / empty_like / Module.to with memory_format live in files this change does not
own: their layout is checked here through core._memory_format.laid_out, which they are to call."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import core
from core import _memory_format as mf

FORMATS = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]


@pytest.mark.parametrize("name", FORMATS + ["strided"])
def test_objects_print_and_pickle_as_torch(torch, name):
    c, t = getattr(core, name), getattr(torch, name)
    assert (repr(c), str(c)) == (repr(t), str(t))
    assert pickle.loads(pickle.dumps(c)) is c
    assert type(c).__name__ == type(t).__name__
    assert c == c and hash(c) == hash(c)


@pytest.mark.parametrize("cls", ["memory_format", "layout"])
def test_no_new_instances(torch, cls):
    def run(m):
        try:
            getattr(m, cls)()
        except TypeError as e:
            return str(e)
    assert run(core) == run(torch)


def test_layout_attribute(torch):
    c, t = core.ones(2, 3).layout, torch.ones(2, 3).layout
    assert repr(c) == repr(t) and c is core.strided and (c == core.strided) == (t == torch.strided)


def _views(m):
    """Tensors with various strides: contiguous, NHWC-backed (channels_last), transposed, size-1 dims."""
    x = m.arange(120.).reshape(2, 3, 4, 5)
    five = m.arange(240.).reshape(2, 3, 2, 4, 5)
    return {
        "nchw": x, "nhwc": x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2),
        "transposed": x.transpose(2, 3), "ones": m.ones(2, 3, 1, 1), "c1": m.ones(2, 1, 4, 5),
        "2d": m.ones(2, 3), "ndhwc": five.permute(0, 2, 3, 4, 1).contiguous().permute(0, 4, 1, 2, 3),
        "ncdhw": five, "empty": m.ones(0, 3, 2, 2), "sliced": x[:, :, ::2],
    }


@pytest.mark.parametrize("fmt", FORMATS + [None])
def test_is_contiguous_as_torch(torch, fmt):
    c_views, t_views = _views(core), _views(torch)
    for key in c_views:
        kw = {} if fmt is None else {"memory_format": getattr(torch, fmt)}
        ck = {} if fmt is None else {"memory_format": getattr(core, fmt)}
        assert c_views[key].stride() == t_views[key].stride(), key
        assert c_views[key].is_contiguous(**ck) == t_views[key].is_contiguous(**kw), key


def test_is_contiguous_rejects_other_arguments(torch):
    for bad in (1, "channels_last"):
        with pytest.raises(TypeError) as ce:
            core.ones(2).is_contiguous(memory_format=bad)
        with pytest.raises(TypeError) as te:
            torch.ones(2).is_contiguous(memory_format=bad)
        assert str(ce.value) == str(te.value)


@pytest.mark.parametrize("fmt", ["contiguous_format", "channels_last", "channels_last_3d"])
def test_laid_out_strides_are_contiguous_as_torch(torch, fmt):
    """laid_out(arr, fmt) gives what torch's x.contiguous(memory_format=fmt) gives: strides, values, errors."""
    c_views, t_views = _views(core), _views(torch)
    for key in c_views:
        t = t_views[key]
        try:
            expected = t.contiguous(memory_format=getattr(torch, fmt))
        except RuntimeError as e:
            with pytest.raises(RuntimeError, match=str(e)):
                mf.laid_out(c_views[key]._data, getattr(core, fmt))
            continue
        arr = c_views[key]._data
        got = arr if mf.is_contiguous(arr, getattr(core, fmt)) else mf.laid_out(arr, getattr(core, fmt))
        assert mf.elem_strides(got) == expected.stride() or expected.numel() == 0, key
        np.testing.assert_array_equal(got, expected.numpy())


def test_preserve_format_as_torch_clone(torch):
    """preserve_format keeps a dense input's strides, else suggests channels_last or contiguous (torch's clone)."""
    c_views, t_views = _views(core), _views(torch)
    for key in c_views:
        expected = t_views[key].clone(memory_format=torch.preserve_format)
        got = mf.laid_out(c_views[key]._data, core.preserve_format)
        assert mf.elem_strides(got) == expected.stride() or expected.numel() == 0, key
        np.testing.assert_array_equal(got, expected.numpy())


def test_suggest_as_torch_empty_like(torch):
    """torch.empty_like(x) of a non-dense x: its suggested format's strides."""
    for c, t in ((core.arange(120.).reshape(2, 3, 4, 5), torch.arange(120.).reshape(2, 3, 4, 5)),):
        for perm in ((0, 2, 3, 1), (0, 1, 2, 3)):
            ct = c.permute(*perm).contiguous().permute(*np.argsort(perm))[:, :, ::2]
            tt = t.permute(*perm).contiguous().permute(*np.argsort(perm).tolist())[:, :, ::2]
            got = mf.laid_out(np.zeros_like(ct._data, order="C"), mf.suggest(ct._data))
            assert mf.elem_strides(got) == torch.empty_like(tt).stride()


# -- the ops that take memory_format= ------------------------------------------------------------
# They live in views.py (contiguous), pointwise/fill_copy.py (clone), conversion.py (to), creation.py
# (*_like) and nn/module.py (Module.to), each calling core._memory_format.

OPS = {
    "contiguous_cl": lambda m, x: x.contiguous(memory_format=m.channels_last),
    "contiguous_cl3d": lambda m, x: x.contiguous(memory_format=m.channels_last_3d),
    "contiguous_preserve": lambda m, x: x.contiguous(memory_format=m.preserve_format),
    "contiguous_default": lambda m, x: x.contiguous(),
    "clone_cl": lambda m, x: x.clone(memory_format=m.channels_last),
    "clone_contiguous": lambda m, x: x.clone(memory_format=m.contiguous_format),
    "clone_preserve": lambda m, x: x.clone(),
    "to_cl": lambda m, x: x.to(memory_format=m.channels_last),
    "to_contiguous": lambda m, x: x.to(memory_format=m.contiguous_format),
    "to_dtype_cl": lambda m, x: x.to(m.float64, memory_format=m.channels_last),
    "to_dtype": lambda m, x: x.to(m.float64),
    "empty_like": lambda m, x: m.empty_like(x).zero_(),
    "zeros_like_cl": lambda m, x: m.zeros_like(x, memory_format=m.channels_last),
    "ones_like_contiguous": lambda m, x: m.ones_like(x, memory_format=m.contiguous_format),
    "full_like": lambda m, x: m.full_like(x, 2.0),
    "elementwise": lambda m, x: x.contiguous(memory_format=m.channels_last) * 2,
}


@pytest.mark.parametrize("op", sorted(OPS))
def test_memory_format_ops_as_torch(torch, op):
    c_views, t_views = _views(core), _views(torch)
    for key in c_views:
        def run(m, x):
            try:
                r = OPS[op](m, x)
            except Exception as e:  # noqa: BLE001 - class and text compared
                return type(e).__name__, str(e)
            return r.stride() if r.numel() else None, r is x, str(r.dtype), r.tolist()
        assert run(core, c_views[key]) == run(torch, t_views[key]), key


def test_memory_format_autograd_as_torch(torch):
    def run(m):
        x = m.arange(24.).reshape(1, 2, 3, 4).requires_grad_()
        rows = []
        for fn in (lambda v: v.contiguous(memory_format=m.channels_last), lambda v: v.to(memory_format=m.channels_last),
                   lambda v: v.clone(memory_format=m.channels_last)):
            x.grad = None
            y = fn(x)
            (y * m.arange(24.).reshape(1, 2, 3, 4)).sum().backward()
            rows.append((type(y.grad_fn).__name__, y.stride(), x.grad.stride(), x.grad.tolist()))
        return rows
    assert run(core) == run(torch)


def test_module_to_channels_last_as_torch(torch):
    def run(m):
        m.manual_seed(0)
        net = m.nn.Sequential(m.nn.Conv2d(2, 4, 3), m.nn.BatchNorm2d(4), m.nn.Flatten(), m.nn.Linear(36, 2))
        net = net.to(memory_format=m.channels_last)
        x = m.arange(50.).reshape(1, 2, 5, 5).to(memory_format=m.channels_last)
        out = net(x)
        return [p.stride() for p in net.parameters()], out.shape, [round(v, 4) for v in out.flatten().tolist()]
    assert run(core) == run(torch)


def test_memory_format_argument_errors_as_torch(torch):
    for fn in (lambda m: m.ones(2, 3).contiguous(memory_format="channels_last"),
               lambda m: m.ones(2, 3).clone(memory_format=1), lambda m: m.ones(2, 3).to(memory_format=m.channels_last),
               lambda m: m.ones(2, 3, 4, 5).transpose(1, 2).contiguous(memory_format=m.preserve_format)):
        def run(m):
            try:
                fn(m)
            except Exception as e:  # noqa: BLE001
                return type(e).__name__, str(e)
        assert run(core) == run(torch)
