"""Autograd entry points raise torch's exception class and text for empty or misused arguments."""
from __future__ import annotations

import warnings

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


@pytest.mark.parametrize("value", [lambda L: L.ones(2, 3), lambda L: L.ones(3, dtype=L.float64),
                                   lambda L: L.ones(3, dtype=L.int64), lambda L: L.ones(3, dtype=L.bool)])
def test_assigning_a_mismatched_grad_is_torchs_error(torch, value):
    msgs = []
    for L in (core, torch):
        x = L.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError) as e:
            x.grad = value(L)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_unused_input_of_grad_names_its_index_as_torch(torch):
    msgs = []
    for L in (core, torch):
        x, y = L.ones(3, requires_grad=True), L.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError) as e:
            L.autograd.grad((x * 2).sum(), [x, y])
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("case", ["saved_input_modified", "leaf_modified_under_no_grad", "output_modified",
                                  "under_anomaly_mode"])
def test_modified_inplace_error_is_torchs_text(torch, case):
    def run(L):
        a = L.ones(3, requires_grad=True)
        if case == "saved_input_modified":
            b = a * 1
            c = b * b
            b.add_(1)
            c.sum().backward()
        elif case == "leaf_modified_under_no_grad":
            c = a * a
            with L.no_grad():
                a.add_(1)
            c.sum().backward()
        elif case == "output_modified":
            y = a.exp()
            y.add_(1)
            y.sum().backward()
        else:
            with L.autograd.set_detect_anomaly(True):
                y = a.sigmoid()
                y.mul_(2)
                y.sum().backward()
    msgs = []
    for L in (core, torch):
        with pytest.raises(RuntimeError) as e:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                run(L)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
