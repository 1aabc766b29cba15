"""Realistic PyTorch scripts (tests/programs/*.py) run twice in subprocesses, with real torch and with
core under `core.alias_as_torch()`; their stdout must agree line by line."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = sorted((ROOT / "tests" / "programs").glob("*.py"))
_RUN_CORE = "import core, runpy, sys; core.alias_as_torch(); sys.argv = [sys.argv[1]]; " \
            "runpy.run_path(sys.argv[0], run_name='__main__')"


def _run(args):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="0")
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.splitlines()


def _param(path):
    return pytest.param(path, id=path.stem)


def test_programs_found():
    assert 15 <= len(PROGRAMS) <= 30


@pytest.mark.parametrize("path", [_param(p) for p in PROGRAMS])
def test_program_output_matches_torch(torch, path):
    expected = _run([str(path)])
    got = _run(["-c", _RUN_CORE, str(path)])
    assert expected, "the program printed nothing"
    for i, (e, g) in enumerate(zip(expected, got)):
        assert g == e, f"line {i + 1}: torch {e!r} != core {g!r}"
    assert len(got) == len(expected)


def test_torch_functional_reexports(torch):
    import core
    import core.functional as cfunc
    import torch.functional as tfunc
    assert set(cfunc.__all__) <= set(tfunc.__all__)
    assert cfunc.einsum is core.einsum and "split" in cfunc.__all__
    with pytest.raises(AttributeError):
        cfunc.no_such_function  # noqa: B018


def test_alias_as_torch_submodules(torch):
    """Every module alias_as_torch registers is one torch has, under the same name."""
    import importlib
    import core
    names = list(core._TORCH_SUBMODULES) + list(core._TORCH_RENAMED)
    for name in names:
        importlib.import_module("torch." + name)    # the real torch has it
    code = ("import core, sys, importlib; core.alias_as_torch(); "
            f"names = {names!r}; "
            "assert all(sys.modules['torch.' + n].__name__.startswith('core') for n in names); "
            "import torch.nn.utils, torch.utils.data, torch.random; "
            "from torch.nn.modules.module import Module; "
            "assert torch.nn.utils.clip_grad_norm_ and Module is core.nn.Module; print('ok')")
    assert _run(["-c", code]) == ["ok"]
