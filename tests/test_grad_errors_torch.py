"""Autograd entry points raise torch's exception class and text for empty or misused arguments."""
from __future__ import annotations

import pytest

import core


@pytest.mark.parametrize("call", [
    lambda L, x: (x * 2).sum().backward(inputs=[]),
    lambda L, x: L.autograd.grad((x * 2).sum(), []),
    lambda L, x: L.autograd.backward([x * 2], [L.ones(2)], inputs=[]),
], ids=["backward_inputs_empty", "grad_inputs_empty", "autograd_backward_inputs_empty"])
def test_error_equals_torchs(torch, call):
    msgs = []
    for L in (core, torch):
        x = L.ones(2, requires_grad=True)
        with pytest.raises(Exception) as e:
            call(L, x)
        msgs.append((type(e.value).__name__, str(e.value)))
    assert msgs[0] == msgs[1]
