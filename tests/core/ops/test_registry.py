"""Every registered op is tested against torch: through its OpInfo in PyTorch's op_db (tests/test_opdb.py)
or through its entry in tests/samples.py, run here by the one harness."""
from __future__ import annotations

import pytest

import opdb
from core.ops.registry import OPS
from harness import compare_call
from samples import SAMPLES, TORCH_NAMES, UNDEFINED_VALUES

_DB = opdb.load_op_db()


def _opdb_names():
    names = set()
    for op in _DB or ():
        names.update({op.name, op.name.rsplit(".", 1)[-1]})
        names.update(a.name.rsplit(".", 1)[-1] if hasattr(a, "name") else str(a) for a in op.aliases or ())
    return names


@pytest.mark.skipif(_DB is None, reason="torch with expecttest not installed")
def test_every_registered_op_has_samples_in_op_db_or_samples_py():
    covered = _opdb_names() | set(SAMPLES)
    assert sorted(set(OPS) - covered) == []


def _torch_callable(torch, name):
    name = TORCH_NAMES.get(name, name)
    for owner in (torch, torch.nn.functional, torch.linalg, torch.special):
        if hasattr(owner, name):
            return getattr(owner, name)
    return lambda x, *a, **k: getattr(x, name)(*a, **k)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_sampled_op_agrees_with_torch(name, torch):
    assert name in OPS, f"samples.py has an entry for {name}, which is not registered"
    for args, kwargs in SAMPLES[name](torch):
        d = compare_call(OPS[name].fn, _torch_callable(torch, name), args, kwargs, torch,
                         values=name not in UNDEFINED_VALUES)
        assert not d, f"{name}{tuple(a.shape if hasattr(a, 'shape') else a for a in args)}: " + \
            "; ".join(map(str, d))
