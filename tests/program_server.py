"""Runs Python programs as `python program.py` would, each in a fork of a server process that imported torch
(or core as torch) once: tests/core/test_programs.py and tests/core/test_training_loop.py compare their stdout."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="0")
_PRELOAD = "import torch, torch.nn, torch.utils.data, torch.distributions, torch.autograd.functional"
# torch's optimizers import torch._dynamo on first use (~1.1 s): the torch server pays it once
TORCH_PRELOAD = _PRELOAD + ", torch.optim, torch._dynamo"
CORE_PRELOAD = "import core; core.alias_as_torch(); " + _PRELOAD
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


class ProgramServer:
    def __init__(self, preload):
        self.proc = subprocess.Popen([sys.executable, "-c", _SERVER.replace("PRELOAD", preload)], cwd=ROOT,
                                     env=ENV, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

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
