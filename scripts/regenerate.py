#!/usr/bin/env python
"""Regenerate every file generated from the sources: the one command to run after changing an op
(its registration, docstring's first line, CLI entry, a new op).

    python scripts/regenerate.py            # the tables and the man page, then README transcripts and snapshots
    python scripts/regenerate.py --tables   # only the four files below (a few seconds)

In order:
1. core/ops/lazy_table.py: the names (OPS entries, core.X functions, Tensor methods) each lazy family
   registers (core/ops/families.py), found by importing the families one by one in a fresh process that
   starts from an empty table; checked there: no lazy family shares a name with another family, records
   a non-function or an operator, or imports a lazy family listed after it in families.LAZY.
2. tensorcli/commands/op_table.py and op_listing.py: what `tensorcli --help` and `tensorcli ops` show
   without importing core (tensorcli.commands.op.table_source / listing_source), from core's registry.
3. docs/tensorcli.1: `tensorcli --man` (tensorcli.app.man_page).
4. README.md's transcripts (scripts/readme_transcripts.py) and tests/snapshots/ (scripts/cli_snapshot.py
   --update): the CLI run again, as a user sees it.
Files generated from torch rather than from the sources have their own scripts (they need torch):
scripts/unmodelled_names.py, scripts/torch_grad_nodes.py, scripts/make_golden.py.

tests/test_generated.py calls sources() and compares each file byte for byte. Nothing here runs when
core or tensorcli is imported.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAZY_TABLE = os.path.join(ROOT, "core", "ops", "lazy_table.py")
OP_TABLE = os.path.join(ROOT, "tensorcli", "commands", "op_table.py")
OP_LISTING = os.path.join(ROOT, "tensorcli", "commands", "op_listing.py")
MAN = os.path.join(ROOT, "docs", "tensorcli.1")
KEYS = ("ops", "functions", "methods")

# Run in a fresh process: core imported with an empty lazy table, then each lazy unit in turn (after the
# units it imports at module level, read from its source), noting what each registers.
_LAZY_NAMES = r"""
import ast, importlib, json, os, sys, types
empty = types.ModuleType("core.ops.lazy_table")
empty.FAMILIES = {}
sys.modules["core.ops.lazy_table"] = empty      # core starts with no placeholders
import core
from core import _bind
from core.ops import families, registry
ROOT = os.path.dirname(os.path.dirname(core.__file__))
units = families.units()
problems = [f"{u} is imported by `import core`: eager code imports it at module level" for u in units if u in sys.modules]


def sources(unit):
    path = os.path.join(ROOT, *unit.split("."))
    if os.path.isdir(path):
        return [(os.path.join(d, f), True) for d, _, fs in os.walk(path) for f in fs if f.endswith(".py")]
    return [(path + ".py", False)]


def module_level_imports(path):
    todo, out = list(ast.parse(open(path).read()).body), []
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        todo += list(ast.iter_child_nodes(node))
    return out


def deps(unit):
    found = set()
    for path, _ in sources(unit):
        rel = os.path.relpath(path, ROOT)[:-3].split(os.sep)
        package = rel[:-1]   # what a relative import is relative to (for __init__.py: the package itself)
        for node in module_level_imports(path):
            if isinstance(node, ast.Import):
                targets = [(a.name, []) for a in node.names]
            else:
                base = package[:len(package) - (node.level - 1)] if node.level else []
                target = ".".join(base + ([node.module] if node.module else [])) if node.level else node.module
                targets = [(target, [a.name for a in node.names])]
            for target, names in targets:
                owner = getattr(sys.modules.get(target), "_EXPORTS", {})
                cands = [target] + [f"{target}.{n}" for n in names] + [f"{target}.{owner[n]}" for n in names if n in owner]
                found |= {v for v in units if v != unit for c in cands if c == v or c.startswith(v + ".")}
    return found


order, seen = [], set()
def visit(unit, stack=()):
    if unit in seen:
        return
    if unit in stack:
        problems.append("import cycle between lazy units: " + " -> ".join(stack + (unit,)))
        return
    for d in sorted(deps(unit), key=units.index):
        visit(d, stack + (unit,))
    seen.add(unit)
    order.append(unit)
for unit in units:
    visit(unit)

tables = {"ops": registry.OPS, "functions": registry.FUNCTIONS, "methods": registry.METHODS}
found = {}
for unit in order:
    if unit in sys.modules:
        problems.append(f"{unit} was imported before its turn (an import this script does not see)")
        continue
    before = {key: dict(t) for key, t in tables.items()}
    importlib.import_module(unit)
    found[unit] = names = {key: [n for n, v in t.items() if before[key].get(n) is not v] for key, t in tables.items()}
    for key in names:
        for name in names[key]:
            value = tables[key][name]
            if name in before[key]:
                problems.append(f"{unit} registers {key[:-1]} {name!r}, which another unit registered")
            elif key == "methods" and name.strip("_") in _bind.BINARY_DUNDERS:
                problems.append(f"{unit} records the operator {name!r}: operators stay eager")
            elif key != "ops" and type(value) is not types.FunctionType:
                problems.append(f"{unit} records {name!r}, a {type(value).__name__}: only functions can be lazy")
for package in ("core.ops.shape", "core.ops.indexing"):
    directory = os.path.join(ROOT, *package.split("."))
    listed = set(sys.modules[package].LAZY_SUBMODULES)
    for f in sorted(os.listdir(directory)):
        if f.endswith(".py") and not f.startswith("_") and f[:-3] not in listed and f"{package}.{f[:-3]}" not in sys.modules:
            problems.append(f"{package}.{f[:-3]} is neither imported by its package nor in its LAZY_SUBMODULES")
print(json.dumps({"families": [[u, found[u]] for u in units if u in found], "problems": problems}))
"""


def lazy_names() -> list:
    """[(family module, {"ops": [...], "functions": [...], "methods": [...]})] in families.ORDER."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", _LAZY_NAMES], capture_output=True, text=True, cwd=ROOT, env=env)
    if out.returncode != 0:
        raise RuntimeError(f"reading the lazy families' names failed:\n{out.stderr[-3000:]}")
    got = json.loads(out.stdout.splitlines()[-1])
    check_problems(got["problems"])
    return got["families"]


def check_problems(problems):
    if problems:
        raise RuntimeError("a lazy unit cannot stay lazy:\n  " + "\n  ".join(problems))


def _wrapped(head, items, tail, width=116):
    """head + comma-separated items + tail, continued lines aligned under the first item."""
    lines, line = [], head
    for i, item in enumerate(items):
        piece = item + (", " if i < len(items) - 1 else "")
        if len(line) + len(piece.rstrip()) > width and line.strip() != head.strip():
            lines.append(line.rstrip())
            line = " " * len(head)
        line += piece
    return lines + [line + tail]


def lazy_table_source(families=None) -> str:
    """The text of core/ops/lazy_table.py."""
    lines = ['"""GENERATED by `python scripts/regenerate.py`: do not edit.', "",
             "The names each lazy op family registers (core/ops/families.py): its OPS entries, core.X functions and",
             "Tensor methods, in registration order. Names only: all else about an op is read from its family, which",
             '`import core` imports on the first use of any of these names."""', "# flake8: noqa", "FAMILIES = {"]
    for module, names in (lazy_names() if families is None else families):
        lines.append(f"    {module!r}: {{")
        for key in KEYS:
            lines += _wrapped(f'        "{key}": [', [repr(n) for n in names[key]], "],")
        lines.append("    },")
    return "\n".join(lines + ["}", ""])


def cli_sources() -> dict:
    """{path: text} of the files generated from core's registry through tensorcli (all families imported)."""
    from core.ops import families
    from tensorcli import app
    from tensorcli.commands import op
    families.load_all()
    return {OP_TABLE: op.table_source(), OP_LISTING: op.listing_source(), MAN: app.man_page(op.command_table())}


def sources() -> dict:
    """{path: text} of every file step 1-3 writes (the lazy table first: the others import core)."""
    return {LAZY_TABLE: lazy_table_source(), **cli_sources()}


def _write(path, text):
    with open(path, encoding="utf-8") as f:
        if f.read() == text:
            return
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {os.path.relpath(path, ROOT)}")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    _write(LAZY_TABLE, lazy_table_source())
    # the CLI's files in a new process: this one has not imported core, which reads the table just written
    code = ("import runpy, sys; sys.path.insert(0, %r); m = runpy.run_path(%r)\n"
            "for path, text in m['cli_sources']().items(): m['_write'](path, text)") % (ROOT, __file__)
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    if "--tables" not in argv:
        for script in (["readme_transcripts.py"], ["cli_snapshot.py", "--update"]):
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", script[0]), *script[1:]], check=True, cwd=ROOT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
