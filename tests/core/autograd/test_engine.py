"""The backward engine (core/autograd/engine.py): loss.backward()'s direct entry (`_backward_from_scalar`) and
the general entry (`torch.autograd.backward` with an explicit gradient, `backward(inputs=...)`) run the same loop
on the same graphs: the same gradients, bit for bit, as each other and as torch, and torch's hook order (tensor
hooks, node pre-hooks, retain_grad, post hooks, post-accumulate-grad hooks). The edges are PyTorch's
next_functions, one flat tuple per node."""
from __future__ import annotations

import numpy as np
import pytest

import core


def _graphs(lib, x, w):
    """Graphs with one-edge, two-edge, shared-input, multi-output and broadcasting (bias) nodes (no exp / tanh:
    torch's vectorised transcendental kernels are not correctly rounded, so those differ by an ulp)."""
    return {
        "tiny": lambda: (x * 2 + 1).sum(),
        "shared": lambda: (x * x + x * 3).mean(),
        "mlp": lambda: lib.nn.functional.cross_entropy(
            lib.nn.functional.linear(x.relu(), w, w[0]).relu(), lib.tensor(np.arange(4) % 3)),
        "split": lambda: sum((p * (i + 1)).sum() for i, p in enumerate(x.split(2, 1))),
        "bias": lambda: ((x * w[0]) + w[1]).pow(2).sum(),
    }


def _leaves(lib, seed):
    rng = np.random.default_rng(seed)
    x = lib.tensor(rng.standard_normal((4, 3)).astype(np.float32), requires_grad=True)
    w = lib.tensor(rng.standard_normal((3, 3)).astype(np.float32), requires_grad=True)
    return x, w


@pytest.mark.parametrize("name", ["tiny", "shared", "mlp", "split", "bias"])
@pytest.mark.parametrize("entry", ["scalar", "general", "inputs"])
def test_entries_give_torch_gradients(torch, name, entry):
    res = {}
    for lib in (core, torch):
        x, w = _leaves(lib, 0)
        loss = _graphs(lib, x, w)[name]()
        if entry == "scalar":
            loss.backward()
        elif entry == "general":
            lib.autograd.backward([loss], [lib.ones_like(loss)])
        else:
            loss.backward(inputs=[x, w])
        res[lib.__name__] = [None if t.grad is None else t.grad.numpy().copy() for t in (x, w)]
    for c, t in zip(res["core"], res["torch"]):
        assert (c is None) == (t is None)
        if c is not None:
            assert c.dtype == t.dtype and c.tobytes() == t.tobytes()


def test_autograd_grad_matches_backward(torch):
    x, w = _leaves(core, 1)
    gx, gw = core.autograd.grad(_graphs(core, x, w)["mlp"](), [x, w])
    _graphs(core, x, w)["mlp"]().backward()
    assert gx.numpy().tobytes() == x.grad.numpy().tobytes() and gw.numpy().tobytes() == w.grad.numpy().tobytes()


def _hook_log(lib):
    log = []
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda g: log.append(("y tensor hook", g.tolist())))
    z = y * y
    z.grad_fn.register_prehook(lambda gs: log.append(("square pre", gs[0].tolist())))
    z.grad_fn.register_hook(lambda gi, go: log.append(("square post", [g.tolist() for g in gi])))
    y.grad_fn.register_prehook(lambda gs: log.append(("mul pre", gs[0].tolist(), y.grad is None)))
    x.register_hook(lambda g: log.append(("x tensor hook", g.tolist())) or g * 10)
    x.register_post_accumulate_grad_hook(lambda t: log.append(("x post-accumulate", t.grad.tolist())))
    return x, z, log


@pytest.mark.parametrize("entry", ["scalar", "general"])
def test_hook_order_is_torchs(torch, entry):
    logs = []
    for lib in (core, torch):
        x, z, log = _hook_log(lib)
        loss = z.sum()
        if entry == "scalar":
            loss.backward()
        else:
            lib.autograd.backward([loss], [lib.tensor(1.0)])
        logs.append(log + [x.grad.tolist()])
    assert logs[0] == logs[1]


def test_next_functions_are_torchs_edges(torch):
    names = []
    for lib in (core, torch):
        x, w = _leaves(lib, 2)
        loss = _graphs(lib, x, w)["mlp"]()
        seen, order, stack = set(), [], [loss.grad_fn]
        while stack:
            n = stack.pop()
            if n is None or id(n) in seen:
                continue
            seen.add(id(n))
            order.append((n.name(), tuple((f.name() if f is not None else None, nr) for f, nr in n.next_functions)))
            stack.extend(f for f, _ in n.next_functions)
        names.append(order)
    assert names[0] == names[1]
