"""Realistic PyTorch scripts (tests/programs/*.py) run twice in subprocesses, with real torch and with
core under `core.alias_as_torch()`; their stdout must agree line by line."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = sorted((ROOT / "tests" / "programs").glob("*.py"))
_ENV = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="0")
_PRELOAD = "import torch, torch.nn, torch.utils.data, torch.distributions, torch.autograd.functional"
# A server process imports torch (or core as torch) once, then runs each program in a fresh fork of
# itself, as `python program.py` would: __main__, argv, sys.path[0], stdout and stderr to files.
# Importing torch is ~1 s of each program's run; the fork starts from a process that ran no op.
_SERVER = """
import json, os, runpy, sys, traceback
PRELOAD
for line in sys.stdin:
    path, out, err = json.loads(line)
    sys.stdout.flush(); sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        for fd, name in ((1, out), (2, err)):
            os.dup2(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
        sys.argv, sys.path[0] = [path], os.path.dirname(path)
        code = 0
        try:
            runpy.run_path(path, run_name="__main__")
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        except BaseException:
            traceback.print_exc()
            code = 1
        sys.stdout.flush(); sys.stderr.flush()
        os._exit(code)
    print(json.dumps(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])), flush=True)
"""


class _ProgramServer:
    def __init__(self, preload):
        self.proc = subprocess.Popen([sys.executable, "-c", _SERVER.replace("PRELOAD", preload)], cwd=ROOT,
                                     env=_ENV, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(self, path):
        with tempfile.TemporaryDirectory() as tmp:
            out, err = os.path.join(tmp, "out"), os.path.join(tmp, "err")
            self.proc.stdin.write(json.dumps([str(path), out, err]) + "\n")
            self.proc.stdin.flush()
            code = json.loads(self.proc.stdout.readline())
            stdout, stderr = Path(out).read_text(), Path(err).read_text()
        assert code == 0, stderr[-2000:]
        return stdout.splitlines()

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


@pytest.fixture(scope="module")
def servers():
    pytest.importorskip("torch")
    pair = (_ProgramServer(_PRELOAD), _ProgramServer("import core; core.alias_as_torch(); " + _PRELOAD))
    yield pair
    for s in pair:
        s.close()


def _run(args):
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, env=_ENV, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.splitlines()


def _param(path):
    return pytest.param(path, id=path.stem)


def test_programs_found():
    assert 15 <= len(PROGRAMS) <= 45


@pytest.mark.parametrize("path", [_param(p) for p in PROGRAMS])
def test_program_output_matches_torch(servers, path):
    expected, got = (server.run(path) for server in servers)
    assert expected, "the program printed nothing"
    for i, (e, g) in enumerate(zip(expected, got)):
        assert g == e, f"line {i + 1}: torch {e!r} != core {g!r}"
    assert len(got) == len(expected)


def test_a_forked_run_is_what_python_program_prints(servers, tmp_path):
    prog = tmp_path / "where.py"
    prog.write_text("import os, sys\nprint(__name__, sys.argv == [__file__], sys.path[0] == os.path.dirname(__file__))\n"
                    "print(os.getcwd(), os.environ['PYTHONHASHSEED'], hash('a'))\n")
    assert servers[0].run(prog) == servers[1].run(prog) == _run([str(prog)])


def test_a_failing_program_fails_with_its_traceback(servers, tmp_path):
    prog = tmp_path / "boom.py"
    prog.write_text("print('before')\nraise ValueError('boom')\n")
    with pytest.raises(AssertionError, match="ValueError: boom"):
        servers[1].run(prog)
    (tmp_path / "ok.py").write_text("print('after')\n")
    assert servers[1].run(tmp_path / "ok.py") == ["after"]     # the server outlives a failed program


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
