"""Replay the golden cases (tests/golden/<case>.npz, recorded from PyTorch by scripts/make_golden.py)
on core, WITHOUT torch: values, dtypes, shapes, grad_fn names, gradients and errors."""
from __future__ import annotations

import importlib.util
import os
import sys

import numpy as np
import pytest

import core

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "golden")
_spec = importlib.util.spec_from_file_location("make_golden", os.path.join(os.path.dirname(HERE), "scripts",
                                                                         "make_golden.py"))
make_golden = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("make_golden", make_golden)   # dataclasses look their module up there
_spec.loader.exec_module(make_golden)
CASES = make_golden.CASES


def _load(name):
    path = os.path.join(GOLDEN, name + ".npz")
    if not os.path.exists(path):
        pytest.fail(f"no golden file for {name}: run scripts/make_golden.py {name}")
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _close(got, want, case):
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    if want.dtype.kind in "biu" or case.rtol == 0:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=case.rtol,
                                   atol=case.atol, equal_nan=True)


def test_every_case_has_a_golden_file_and_no_strays():
    files = {f[:-4] for f in os.listdir(GOLDEN) if f.endswith(".npz")}
    assert files == set(CASES), f"missing {sorted(set(CASES) - files)}, stray {sorted(files - set(CASES))}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_core_reproduces_golden_case(name):
    case = CASES[name]
    gold = _load(name)
    inputs = [gold[f"in{k}"] for k in range(len(case.inputs))]
    for k, x in enumerate(case.inputs):       # the recorded inputs are the case's inputs
        np.testing.assert_array_equal(inputs[k], x)
    if "error_class" in gold:
        with pytest.raises(Exception) as info:
            make_golden._run(core, case, inputs)
        assert type(info.value).__name__ == str(gold["error_class"])
        assert str(info.value) == str(gold["error_message"])
        return
    outs, leaves = make_golden._run(core, case, inputs)
    n_out = len([k for k in gold if k.startswith("out") and not k.endswith("_dtype")])
    assert len(outs) == n_out
    for k, o in enumerate(outs):
        assert str(o.dtype) == str(gold[f"out{k}_dtype"])
        _close(np.asarray(o._data), gold[f"out{k}"], case)
    first = outs[0]
    if "grad_fn" not in gold:
        assert first.grad_fn is None
        return
    assert first.grad_fn is not None and first.grad_fn.name() == str(gold["grad_fn"])
    first.backward(core.tensor(gold["upstream"]).to(first.dtype))
    for k, t in enumerate(leaves):
        key = f"grad{k}"
        if key in gold:
            assert t.grad is not None, f"input {k} got no gradient"
            _close(np.asarray(t.grad._data), gold[key], case)
        else:
            assert t.grad is None, f"input {k} got a gradient torch does not give"


def test_golden_matches_live_torch(torch):
    """When torch is installed, the stored files must still be what torch produces (regenerate if not)."""
    stale = []
    for name, case in sorted(CASES.items()):
        gold = _load(name)
        fresh = make_golden.record(name, case)
        if set(gold) != set(fresh):
            stale.append(name)
            continue
        for k, v in fresh.items():
            g = gold[k]
            if v.dtype.kind in "USO" or g.dtype.kind in "USO":
                same = str(v) == str(g)
            else:
                same = v.shape == g.shape and np.allclose(v, g, rtol=1e-6, atol=1e-7, equal_nan=True)
            if not same:
                stale.append(name)
                break
    assert not stale, f"golden files out of date (run scripts/make_golden.py {' '.join(stale)})"
