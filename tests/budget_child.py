"""Run tensorcli commands one after another in THIS process (a child of the test) and report, for
each, the exit status, stderr and the growth of resident memory during the command.

    python tests/budget_child.py COMMANDS.json RESULTS.json

COMMANDS.json: a list of argv lists (or {"argv": [...], "env": {...}} for a command with its own
environment variables). Core and the CLI are imported first, so the baseline is the
process after its imports; before each command the peak-RSS mark is reset (/proc/self/clear_refs
"5"), and the growth is VmHWM after the command minus VmRSS before it. stdout is kept (64 KiB).
Used by tests/tensorcli/services/test_budget*.py: one interpreter start for many commands, none in the test process.
"""
from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import time


def _kb(field):
    with open("/proc/self/status") as f:
        return int(re.search(field + r":\s+(\d+)", f.read()).group(1))


def main():
    commands = json.load(open(sys.argv[1]))
    import core  # noqa: F401 - the baseline includes the imports every command makes
    from tensorcli.app import main as cli
    saved_out, saved_err = os.dup(1), os.dup(2)
    results = []
    for argv in commands:
        env = {}
        if isinstance(argv, dict):   # {"argv": [...], "env": {NAME: VALUE}} for one command
            argv, env = argv["argv"], argv.get("env", {})
        saved_env = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        err, out = tempfile.TemporaryFile(), tempfile.TemporaryFile()
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            before, t0 = _kb("VmRSS"), time.process_time()
            try:
                code = cli(list(argv))
            except SystemExit as e:
                code = e.code
            sys.stdout.flush()
            sys.stderr.flush()
            growth = (_kb("VmHWM") - before) * 1024
        finally:
            os.dup2(saved_out, 1)
            os.dup2(saved_err, 2)
            for k, v in saved_env.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        err.seek(0)
        out.seek(0)
        results.append({"argv": argv, "code": code, "stderr": err.read().decode("utf-8", "replace"),
                        "stdout": out.read(1 << 16).decode("utf-8", "replace"),
                        "growth": growth, "cpu": time.process_time() - t0})
    json.dump(results, open(sys.argv[2], "w"))


if __name__ == "__main__":
    main()
