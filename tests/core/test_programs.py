"""Realistic PyTorch scripts (tests/programs/*.py) run twice in subprocesses, with real torch and with
core under `core.alias_as_torch()`; their stdout must agree line by line."""
from __future__ import annotations

from paths import TESTS, ROOT

import subprocess
import sys
from pathlib import Path

import pytest

import program_server

ROOT = Path(ROOT)
PROGRAMS = sorted((ROOT / "tests" / "programs").glob("*.py"))
_ENV = program_server.ENV


def _run(args):
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, env=_ENV, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.splitlines()


def _param(path):
    return pytest.param(path, id=path.stem)


def test_programs_found():
    assert 15 <= len(PROGRAMS) <= 45


@pytest.mark.parametrize("path", [_param(p) for p in PROGRAMS])
def test_program_output_matches_torch(program_servers, path):
    expected, got = (server.run(path) for server in program_servers)
    assert expected, "the program printed nothing"
    for i, (e, g) in enumerate(zip(expected, got)):
        assert g == e, f"line {i + 1}: torch {e!r} != core {g!r}"
    assert len(got) == len(expected)


def test_a_forked_run_is_what_python_program_prints(program_servers, tmp_path):
    prog = tmp_path / "where.py"
    prog.write_text("import os, sys\nprint(__name__, sys.argv == [__file__], sys.path[0] == os.path.dirname(__file__))\n"
                    "print(os.getcwd(), os.environ['PYTHONHASHSEED'], hash('a'))\n")
    assert program_servers[0].run(prog) == program_servers[1].run(prog) == _run([str(prog)])


def test_a_failing_program_fails_with_its_traceback(program_servers, tmp_path):
    prog = tmp_path / "boom.py"
    prog.write_text("print('before')\nraise ValueError('boom')\n")
    with pytest.raises(AssertionError, match="ValueError: boom"):
        program_servers[1].run(prog)
    (tmp_path / "ok.py").write_text("print('after')\n")
    assert program_servers[1].run(tmp_path / "ok.py") == ["after"]     # the server outlives a failed program


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
