"""Helpers for the shape/view/einsum differential tests (no tests here): run the same code
on core and torch and compare outputs, grad_fn names and gradients."""
from __future__ import annotations

import numpy as np

import core
from conftest import assert_same


def arr(*shape, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-5, 6, size=shape).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return rng.random(shape) < 0.5
    return rng.uniform(-2, 2, size=shape).astype(dtype)


def node_name(t):
    fn = t.grad_fn
    return None if fn is None else fn.name().replace("torch::autograd::", "")


def _outs(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def make(lib, arrays, requires_grad):
    out = []
    for a in arrays:
        a = np.asarray(a)
        rg = requires_grad and a.dtype.kind == "f"
        out.append(lib.tensor(a, requires_grad=rg))
    return out


def both(torch, fn, *arrays, requires_grad=True, grad=True, names=True, seed=7):
    """Run fn(lib, *tensors) with core and torch. Compares every output (shape, dtype, values),
    grad_fn names, then backpropagates the same random weights and compares input grads.
    Returns (core_result, torch_result, core_inputs, torch_inputs)."""
    ci, ti = make(core, arrays, requires_grad), make(torch, arrays, requires_grad)
    rc, rt = fn(core, *ci), fn(torch, *ti)
    oc, ot = _outs(rc), _outs(rt)
    assert len(oc) == len(ot), f"{len(oc)} outputs, torch gives {len(ot)}"
    for c, t in zip(oc, ot):
        assert_same(c, t)
        if names:
            assert node_name(c) == node_name(t), f"grad_fn {node_name(c)} != {node_name(t)}"
    if grad and requires_grad:
        rng = np.random.default_rng(seed)
        lc, lt = None, None
        for c, t in zip(oc, ot):
            if t.requires_grad:
                w = rng.standard_normal(tuple(t.shape)).astype(np.float64)
                tc = (c * core.tensor(w, dtype=c.dtype)).sum()
                tt = (t * torch.tensor(w, dtype=t.dtype)).sum()
                lc = tc if lc is None else lc + tc
                lt = tt if lt is None else lt + tt
        if lt is not None:
            lt.backward()
            lc.backward()
            for c, t in zip(ci, ti):
                if t.requires_grad:
                    assert (c.grad is None) == (t.grad is None)
                    if t.grad is not None:
                        assert_same(c.grad, t.grad, rtol=1e-4, atol=1e-5)
    return rc, rt, ci, ti


def check_rule(rule, out, env):
    """Evaluate a movement op's formula 'out[i][j] = rhs' at every out index with Python
    arithmetic (env gives input, size, ...) and compare with the op's actual result."""
    lhs, rhs = [p.strip() for p in rule.split("  (")[0].split("=", 1)]
    names = [v.strip("[]") for v in lhs[len(lhs.split("[")[0]):].split("][")] if "[" in lhs else []
    for idx in np.ndindex(*out.shape):
        scope = dict(env, **{n: i for n, i in zip(names, idx) if not n.isdigit()})
        assert eval(rhs, {}, scope) == out[idx], f"{rule} at {idx}"
