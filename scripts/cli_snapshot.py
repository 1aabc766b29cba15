#!/usr/bin/env python
"""Snapshot the CLI's observable behaviour, to prove a refactor changed nothing.

    python scripts/cli_snapshot.py record /tmp/cli_before.json
    python scripts/cli_snapshot.py compare /tmp/cli_before.json [--ignore-help]

    python scripts/cli_snapshot.py --update      # rewrite tests/snapshots/ (screens users see)
    python scripts/cli_snapshot.py --check       # list the screens that differ from tests/snapshots/

`--update` / `--check`: about 30 representative screens (tests/terminal.py SCREENS), each as an
80-column colour terminal shows it with the styles stripped, kept as tests/snapshots/<subject>.txt
so that a change to what users see shows up in review (tests/tensorcli/render/test_terminal_snapshots.py compares).

`record` collects commands from README.md, docs/*.md, examples/README.md and the `Examples:` of
every command's `--help`, one small run (and a `--json` run) of every op command (its registry /
fallback example), and `--help` of the app and of each command. Each runs in a fresh scratch
directory (a copy of examples/ plus the x.npy of docs/cli-session.md) with NO_COLOR=1,
COLUMNS=100, and records stdout bytes, stderr and the exit code. `compare` reruns the commands
stored in the snapshot and lists every difference (`--ignore-help` skips the `--help` runs, whose
text may improve).
"""
from __future__ import annotations

import argparse
import base64
import difflib
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRATCH = "/tmp/tensorcli_snapshot_scratch"


def env() -> dict:
    e = dict(os.environ, NO_COLOR="1", COLUMNS="100", PYTHONPATH=ROOT, TERM="dumb")
    e.pop("FORCE_COLOR", None)
    return e


def scratch() -> str:
    """A fresh working directory: examples/ and the 2x3x4 float32 x.npy the docs use."""
    shutil.rmtree(SCRATCH, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "examples"), os.path.join(SCRATCH, "examples"))
    subprocess.run([sys.executable, "-c", "import numpy as np; np.save('x.npy', "
                    "np.arange(24, dtype=np.float32).reshape(2, 3, 4))"], cwd=SCRATCH, check=True)
    return SCRATCH


def doc_commands() -> list[str]:
    """`$ tensorcli ...` lines (with backslash continuations) and indented example lines."""
    files = [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "examples", "README.md"),
             *sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))]
    out = []
    for f in files:
        lines = open(f, encoding="utf-8").read().splitlines()
        i = 0
        while i < len(lines):
            line = lines[i].strip()
            i += 1
            m = re.match(r"^(?:\$ )?(tensorcli .*)$", line)
            if not m:
                continue
            cmd = m.group(1)
            while cmd.endswith("\\") and i < len(lines):
                cmd = cmd[:-1].rstrip() + " " + lines[i].strip()
                i += 1
            cmd = re.sub(r"\s+#.*$", "", cmd)            # trailing comments
            cmd = re.sub(r"\s{2,}\(.*\)$", "", cmd)      # "(convert JSON to .npy)" notes
            if "INPUT" in cmd or "INDEX" in cmd:         # synopsis lines, not runnable
                continue
            out.append(cmd)
    return out


def doc_commands_from_text(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        m = re.match(r"^\s*│?\s*(tensorcli [a-z].*?)\s*│?\s*$", line)
        if m and "[OPTIONS]" not in m.group(1) and "INPUT" not in m.group(1):
            out.append(re.sub(r"\s{2,}\(.*\)$", "", m.group(1)))
    return out


def op_commands() -> list[tuple[str, str]]:
    """(command, example args) for every op command; the example as --help shows it."""
    code = ("import json, core\nfrom core.ops.registry import OPS\nfrom tensorcli import opspec\nrows = []\n"
            "for n in OPS:\n"
            "    if not opspec.is_command(n): continue\n"
            "    rows.append([opspec.command_name(n), opspec.examples(n)[0]])\n"
            "print(json.dumps(rows))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env(), cwd=ROOT)
    if p.returncode:
        raise SystemExit(p.stderr)
    return json.loads(p.stdout)


def command_names() -> list[str]:
    p = subprocess.run(["tensorcli", "--help"], capture_output=True, text=True, env=env())
    names = []
    for line in p.stdout.splitlines():
        m = re.match(r"^│ ([a-z][a-z0-9-]*)\s", line)
        if m:
            names.append(m.group(1))
    return names


# Figures that differ from run to run: wall times ("8.1 ms", "0.12 s") and ratios of measured
# times / traced peaks in `tensorcli memory` ("wall 0.85x", "peak 1.57x").
_NOISE = [(re.compile(rb"\d+(?:\.\d+)? ?(?:ms|s)\b"), b"<time>"),
          (re.compile(rb"(peak|wall) \d+\.\d+x"), rb"\1 <ratio>x")]


def normalize(data: bytes) -> bytes:
    """Run-to-run noise replaced; a time column's padding collapses with it."""
    for pat, rep in _NOISE:
        data = pat.sub(rep, data)
    return re.sub(rb" +", b" ", data)


def same(old: dict, new: dict, key: str) -> bool:
    a, b = old[key], new[key]
    if key == "stdout":
        a, b = base64.b64decode(a), base64.b64decode(b)
    elif key == "stderr":
        a, b = a.encode(), b.encode()
    else:
        return a == b
    return a == b or (b"<time>" in normalize(a) and normalize(a) == normalize(b)) or (
        b"traced" in a and normalize(a) == normalize(b))


def run(cmd: str) -> dict:
    p = subprocess.run(["bash", "-c", "tensorcli() { \"$TENSORCLI\" \"$@\"; }; " + cmd],
                       capture_output=True, env=dict(env(), TENSORCLI=shutil.which("tensorcli")),
                       cwd=scratch(), timeout=300)
    return {"cmd": cmd, "rc": p.returncode, "stdout": base64.b64encode(p.stdout).decode(),
            "stderr": p.stderr.decode("utf-8", "replace")}


def collect() -> list[str]:
    cmds = ["tensorcli --help", "tensorcli", "tensorcli --version"]
    names = command_names()
    for n in names:
        cmds.append(f"tensorcli {n} --help")
    for n in names:
        p = subprocess.run(["tensorcli", n, "--help"], capture_output=True, text=True, env=env())
        cmds += [c for c in doc_commands_from_text(p.stdout) if c.split()[1] == n or "|" in c]
    cmds += doc_commands()
    for name, ex in op_commands():
        if ex:
            cmds += [ex, ex + " --json", ex + " --debug -o out.json && cat out.json"]
        else:
            cmds.append(f"tensorcli {name} '[[1,2],[3,4]]'")
    cmds += ["tensorcli gather '[[1,2],[3,4]]' --dim 1 --index '[[0,2],[1,0]]' --json",
             "tensorcli nosuchcmd", "tensorcli gather", "tensorcli ops --json", "tensorcli ops --all",
             "tensorcli ops --category shape --ndim 3 --dim 2"]
    seen, out = set(), []
    for c in cmds:
        if c not in seen:
            seen.add(c)
            out.append(c)
    return out


def screens(update: bool) -> int:
    """Write (update) or compare tests/snapshots/<subject>.txt with the screens of tests/terminal.py."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    sys.path.insert(0, ROOT)
    os.environ.setdefault("_TYPER_FORCE_DISABLE_TERMINAL", "1")   # as the tests run (terminal() unsets it)
    import conftest  # noqa: F401 - converts the app to a click command once, as in the tests
    import terminal
    os.makedirs(terminal.SNAPSHOTS, exist_ok=True)
    bad = 0
    for name in terminal.SCREENS:
        text, path = terminal.screen(name), terminal.snapshot_path(name)
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old == text:
            continue
        bad += 1
        if update:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
            print(f"wrote {os.path.relpath(path, ROOT)}")
        else:
            print(f"DIFF {name}")
            print("\n".join(difflib.unified_diff((old or "").splitlines(), text.splitlines(), "snapshot", "now",
                                                 lineterm="", n=1)))
    known = {f"{n}.txt" for n in terminal.SCREENS}
    for f in sorted(os.listdir(terminal.SNAPSHOTS)):
        if f.endswith(".txt") and f not in known:
            if update:
                os.remove(os.path.join(terminal.SNAPSHOTS, f))
                print(f"removed tests/snapshots/{f} (no longer a screen)")
            else:
                bad += 1
                print(f"STALE tests/snapshots/{f}")
    print(f"{len(terminal.SCREENS)} screens, {bad} {'updated' if update else 'differ'}")
    return 0 if update or not bad else 1


def main() -> int:
    if len(sys.argv) == 2 and sys.argv[1] in ("--update", "--check"):
        return screens(sys.argv[1] == "--update")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=("record", "compare"))
    ap.add_argument("path")
    ap.add_argument("--ignore-help", action="store_true")
    ap.add_argument("-k", dest="match", default=None, help="compare only commands containing this text")
    a = ap.parse_args()
    if a.mode == "record":
        results = [run(c) for c in collect()]
        with open(a.path, "w") as f:
            json.dump(results, f, indent=1)
        print(f"{len(results)} commands recorded in {a.path}")
        return 0
    old = json.load(open(a.path))
    bad = 0
    for r in old:
        if a.ignore_help and ("--help" in r["cmd"] or r["cmd"] == "tensorcli"):
            continue
        if a.match and a.match not in r["cmd"]:
            continue
        n = run(r["cmd"])
        diffs = [k for k in ("rc", "stdout", "stderr") if not same(r, n, k)]
        if diffs:
            bad += 1
            print(f"DIFF {r['cmd']}: {', '.join(diffs)}")
            for k in diffs:
                before = base64.b64decode(r[k]).decode("utf-8", "replace") if k == "stdout" else str(r[k])
                after = base64.b64decode(n[k]).decode("utf-8", "replace") if k == "stdout" else str(n[k])
                print("\n".join("  " + line for line in difflib.unified_diff(
                    before.splitlines(), after.splitlines(), "before", "after", lineterm="", n=0)))
    print(f"{len(old)} commands, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
