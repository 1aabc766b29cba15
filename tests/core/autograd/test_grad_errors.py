"""Autograd entry points raise torch's exception class and text for empty or misused arguments, and the
second derivatives torch does not implement (margin losses, pdist, hardsigmoid) raise its error."""
from __future__ import annotations

import warnings

import pytest

import core
from conftest import assert_same, same_error


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


DOUBLE_BACKWARD = {
    "multi_margin": lambda L, x: L.nn.functional.multi_margin_loss(x, L.tensor([0, 2, 1])),
    "multi_margin_none_p2_weight": lambda L, x: L.nn.functional.multi_margin_loss(
        x, L.tensor([0, 2, 1]), p=2, weight=L.ones(4, dtype=L.float64), reduction="none"),
    "multilabel_margin": lambda L, x: L.nn.functional.multilabel_margin_loss(
        x, L.tensor([[0, 2, -1, 0], [1, -1, 0, 0], [3, 2, 1, 0]])),
    "multilabel_margin_sum": lambda L, x: L.nn.functional.multilabel_margin_loss(
        x, L.tensor([[0, 2, -1, 0], [1, -1, 0, 0], [3, 2, 1, 0]]), reduction="sum"),
    "pdist": lambda L, x: L.nn.functional.pdist(x),
    "pdist_p1": lambda L, x: L.pdist(x, p=1),
    "pdist_pinf": lambda L, x: L.pdist(x, p=float("inf")),
    "hardsigmoid": lambda L, x: L.nn.functional.hardsigmoid(x * 3),
    "hardsigmoid_": lambda L, x: L.nn.functional.hardsigmoid(x * 3, inplace=True),
    "hardsigmoid_module": lambda L, x: L.nn.Hardsigmoid()(x),
}


@pytest.mark.parametrize("name", list(DOUBLE_BACKWARD))
def test_double_backward_not_implemented_like_torch(torch, name):
    """The first gradient matches torch's (values, grad_fn name, requires_grad under create_graph); the second
    raises torch's error (class and text)."""
    def first(L):
        L.manual_seed(0)
        x = L.randn(3, 4, dtype=L.float64, requires_grad=True)
        (g,) = L.autograd.grad(DOUBLE_BACKWARD[name](L, x).sum(), x, create_graph=True)
        return x, g
    (xc, gc), (xt, gt) = first(core), first(torch)
    assert_same(gc, gt, rtol=1e-12, atol=1e-12)
    assert (gc.requires_grad, gc.grad_fn.name()) == (gt.requires_grad, gt.grad_fn.name())
    ec, et = same_error(lambda: core.autograd.grad(gc.sum(), xc), lambda: torch.autograd.grad(gt.sum(), xt))
    assert et is not None and str(ec) == str(et)


@pytest.mark.parametrize("name", ["multi_margin", "pdist", "hardsigmoid"])
def test_first_gradient_without_graph_unchanged(torch, name):
    def grad(L):
        L.manual_seed(0)
        x = L.randn(3, 4, dtype=L.float64, requires_grad=True)
        DOUBLE_BACKWARD[name](L, x).sum().backward()
        return x.grad
    g = grad(core)
    assert_same(g, grad(torch), rtol=1e-12, atol=1e-12)
    assert g.grad_fn is None and not g.requires_grad

