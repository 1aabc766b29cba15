"""Disagreements PyTorch's op_db found in the shape family, checked against torch side by side."""
from __future__ import annotations

import pytest

import core
from harness import compare_call


def _agree(torch, core_fn, torch_fn, *args):
    d = compare_call(core_fn, torch_fn, args, {}, torch)
    assert not d, "; ".join(map(str, d))


@pytest.mark.parametrize("dims", [(0,), [0, 1], (-1,), (), (1, 1), 0])
def test_flip_dims_keyword(torch, dims):
    x = torch.arange(6.0, dtype=torch.float64).reshape(2, 3).requires_grad_(True)
    _agree(torch, lambda t: core.flip(t, dims=dims), lambda t: torch.flip(t, dims=dims), x)
    _agree(torch, lambda t: t.flip(dims=dims), lambda t: t.flip(dims=dims), x)


def test_flip_bad_keywords(torch):
    x = torch.arange(6).reshape(2, 3)
    _agree(torch, lambda t: core.flip(t, 0, dims=(1,)), lambda t: torch.flip(t, 0, dims=(1,)), x)
    _agree(torch, lambda t: t.flip(dim=(1,)), lambda t: t.flip(dim=(1,)), x)


@pytest.mark.parametrize("offset", [None, 0, 3, 10])
def test_as_strided_on_a_partial_view_uses_the_base_storage(torch, offset):
    """as_strided's storage_offset counts from the start of the storage, not of the view (op_db's
    as_strided.partial_views; its harness copies the view out of the storage, so it is checked here)."""
    kw = {} if offset is None else {"storage_offset": offset}
    c = core.arange(20.0)[5:15].as_strided((2, 2), (1, 2), **kw)
    t = torch.arange(20.0)[5:15].as_strided((2, 2), (1, 2), **kw)
    assert c.tolist() == t.tolist() and c.storage_offset() == t.storage_offset()
