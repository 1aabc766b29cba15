"""Run the seed snippets in tests/seeds/ with either real torch or core aliased as torch,
and print a JSON map {snippet: {"stdout": ..., "error": ...}}. Used by tests/test_seeds.py
and scripts/make_golden.py: `python tests/seed_runner.py core|torch [names...]`."""
from __future__ import annotations

import contextlib
import io
import json
import os
import runpy
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = os.path.join(HERE, "seeds")


def snippets():
    return sorted(f[:-3] for f in os.listdir(SEEDS) if f.endswith(".py"))


def run(backend, names):
    sys.path.insert(0, os.path.dirname(HERE))
    if backend == "core":
        import core
        core.alias_as_torch()
    import torch
    torch.manual_seed(0)
    try:
        torch.set_num_threads(1)
    except Exception:
        pass
    out = {}
    for name in names:
        buf = io.StringIO()
        err = None
        with contextlib.redirect_stdout(buf):
            try:
                runpy.run_path(os.path.join(SEEDS, name + ".py"), run_name="__main__")
            except BaseException as e:  # noqa: BLE001 - report any failure of the snippet
                err = f"{type(e).__name__}: {e}\n" + "".join(traceback.format_exc().splitlines(True)[-6:])
        out[name] = {"stdout": buf.getvalue(), "error": err}
    return out


if __name__ == "__main__":
    backend = sys.argv[1]
    names = sys.argv[2:] or snippets()
    json.dump(run(backend, names), sys.stdout, ensure_ascii=False)
