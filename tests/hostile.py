"""Shared by the hostile-input suite (the hostile tests (tests/tensorcli/**/test_*hostile*.py)): how a refusal must look, and a
child process that runs several tensorcli commands under an address-space limit and an alarm, for
inputs that would hang or fill memory if a refusal ever regressed (devices, FIFOs, /proc)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from typer.testing import CliRunner


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
ENV = {"NO_COLOR": "1", "_TYPER_FORCE_DISABLE_TERMINAL": "1"}
SECRET = "HOSTILE_SECRET_7f3a"   # written into data files: no message may ever quote it


def app():
    """The full app, built once per process (tensorcli.app.get_app; test_check.py shares it)."""
    from tensorcli.app import get_app
    return get_app()


def invoke(argv, *, env=None, input=None):
    """(exit code, stdout, one-line-checked stderr) of an in-process run."""
    r = CliRunner().invoke(app(), [str(a) for a in argv], input=input, env={**ENV, **(env or {})})
    return r.exit_code, r.stdout, ANSI.sub("", r.stderr)


def assert_refused(code, err, *words):
    """Exit 2, one line 'tensorcli: error: ...' holding every word, no traceback, no secret."""
    assert code == 2, (code, err)
    assert err.startswith("tensorcli: error: ") and err.endswith("\n") and err.count("\n") == 1, repr(err)
    assert "internal error" not in err and "Traceback" not in err, err
    assert SECRET not in err, err
    for w in words:
        assert w in err, (w, err)


_CHILD = r"""
import contextlib, io, json, resource, signal, sys
limit = int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
signal.alarm(int(sys.argv[3]))
from tensorcli.app import main
out = []
for argv in json.loads(sys.argv[1]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            main(argv)
            code = 0
        except SystemExit as e:
            code = e.code
    out.append([code, err.getvalue()])
sys.__stderr__.write("\nRESULTS " + json.dumps(out) + "\n")
sys.__stderr__.flush()
import os
os._exit(0)   # stdout may be /dev/full: no flush at exit
"""


def run_bounded(argvs, *, address_space=3 << 30, alarm=60, cwd=None, stdout=subprocess.DEVNULL):
    """[(exit code, stderr)] of each argv run in ONE child process whose address space is capped
    and which an alarm kills: a regression that reads /dev/zero or waits on a FIFO fails the test
    instead of eating the machine or hanging it. `stdout`: the child's stdout (e.g. /dev/full)."""
    env = {**os.environ, **ENV, "TENSORCLI_QUIET": "1"}   # no progress lines: stderr is the error alone
    p = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(argvs), str(address_space), str(alarm)],
                       stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=alarm + 30, env=env,
                       cwd=cwd, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    line = [x for x in p.stderr.splitlines() if x.startswith("RESULTS ")][-1]
    return [tuple(r) for r in json.loads(line[len("RESULTS "):])]
