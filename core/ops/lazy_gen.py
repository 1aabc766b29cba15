"""The generator of core/ops/lazy_table.py (`python -m core.ops`), run in an eager import
(CORE_EAGER_FAMILIES=1) from what each unit registered (families.EVENTS) and from the source's
module-level imports.

A unit (a whole lazy family, or one module of a FINE package, or einsum / conversion) is lazy unless
laziness could change something:
- it shares an OPS / FUNCTIONS / METHODS name with another unit (the later registration overrides:
  both stay eager, so the final owner is the same);
- it records a Tensor attribute that is not a plain function (a property), a core.X that is not a
  plain function, or an operator (the operator guards of core/_bind.py wrap real functions);
- an eager unit, or core's start-up, imports it at module level (then it runs at start-up anyway).
A package's own registrations (pointwise's aliases: `core.subtract is core.sub`) belong to the unit
that registered the same object first, so the alias appears when that unit is imported."""
from __future__ import annotations

import ast
import importlib
import os
import sys
import types

from .. import _bind
from . import families, registry

CORE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(CORE)
PACKAGES = tuple(f"{__package__}.{p}" for p in families.FINE)
WHOLE = tuple(f"{__package__}.{p}" for p in families.LAZY)


# -- who registered what ----------------------------------------------------------------------------

def attributed_events():
    """[(unit, {key: [names]})] in completion order; a package's own registrations of an object some unit
    registered first (an alias) are moved to that unit."""
    if not families.EAGER:
        raise RuntimeError("the lazy table is generated from an eager import: CORE_EAGER_FAMILIES=1")
    first_writer, rows = {}, {}
    for unit, got in families.EVENTS:
        rows[unit] = {key: [] for key in families.KEYS}
        for key in families.KEYS:
            for name, value in got[key].items():
                owner = first_writer.get(id(value)) if unit in PACKAGES else None
                rows[owner or unit][key].append(name)
                if unit not in PACKAGES:
                    first_writer.setdefault(id(value), unit)
    return [(unit, rows[unit]) for unit, _ in families.EVENTS]


def _must_stay_eager(events):
    """Units that laziness could change (see the module docstring), before following imports."""
    owners, eager = {}, set(PACKAGES)
    for unit, row in events:
        for key in families.KEYS:
            for name in row[key]:
                owners.setdefault((key, name), set()).add(unit)
    for (key, name), units in owners.items():
        value = {"ops": registry.OPS, "functions": registry.FUNCTIONS, "methods": registry.METHODS}[key][name]
        operator = key == "methods" and name.strip("_") in _bind.BINARY_DUNDERS
        plain = key == "ops" or type(value) is types.FunctionType
        if len(units) > 1 or operator or not plain:
            eager |= units
    return eager


# -- module-level imports, read from the source --------------------------------------------------------

def _module_files():
    out = {}
    for base, _, files in os.walk(CORE):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(base, f)
                parts = os.path.relpath(path, ROOT)[:-3].split(os.sep)
                out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _target(module, path, node):
    if not node.level:
        return node.module
    base = (module if path.endswith("__init__.py") else module.rpartition(".")[0]).split(".")
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(module, path, everywhere=False):
    """[(target module, [names])] of `path`'s imports: module level outside `if` blocks, or all."""
    tree = ast.parse(open(path).read())
    nodes = ast.walk(tree) if everywhere else [
        st for node in tree.body if not isinstance(node, ast.If)
        for st in (node.body if isinstance(node, ast.Try) else [node])]
    out = []
    for node in nodes:
        if isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            out.append((_target(module, path, node), [a.name for a in node.names]))
    return out


def _deps(module, path, files, exports):
    """Modules that importing `module` runs (a lazy package's name: the submodule that defines it)."""
    out = set()
    for target, names in _imports(module, path):
        parts = target.split(".")
        out |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
        for name in names:
            if f"{target}.{name}" in files:
                out.add(f"{target}.{name}")
            elif target in exports and name in exports[target]:
                out.add(f"{target}.{exports[target][name]}")
    return {d for d in out if d in files and d != module}


def _reached(roots, files, exports):
    seen, todo = set(), list(roots)
    while todo:
        m = todo.pop()
        if m in seen or m not in files:
            continue
        seen.add(m)
        todo += _deps(m, files[m], files, exports)
    return seen


# -- the names lazy packages re-export ----------------------------------------------------------------

def _own_names(path):
    """Names a package's __init__ binds at module level in lazy mode (outside `if` blocks)."""
    names = set()
    for node in ast.parse(open(path).read()).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def exports(files):
    """{package: {name: submodule}}: every name any source file imports from a lazy package (every name
    of shape's and indexing's namespace), with the submodule to import for it."""
    wanted = {p: set() for p in PACKAGES}
    for base in ("core", "tensorcli", "tests", "scripts"):
        for dirpath, _, names in os.walk(os.path.join(ROOT, base)):
            for f in names:
                if f.endswith(".py"):
                    path = os.path.join(dirpath, f)
                    module = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".").removesuffix(".__init__")
                    for target, imported in _imports(module, path, everywhere=True):
                        if target in wanted:
                            wanted[target] |= set(imported)
    out = {}
    for pkg in PACKAGES:
        mod = sys.modules[pkg]
        if pkg.endswith((".shape", ".indexing")):
            wanted[pkg] |= {n for n in vars(mod) if not n.startswith("__")}
        own = _own_names(files[pkg])
        subs = sorted(m.rpartition(".")[2] for m in files if m.startswith(pkg + "."))
        table = {}
        for name in sorted(wanted[pkg] - own):
            value = vars(mod).get(name)
            if value is None or isinstance(value, types.ModuleType):
                continue
            home = getattr(value, "__module__", "") or ""
            order = ([home.rpartition(".")[2]] if home.startswith(pkg + ".") else []) + subs
            found = [s for s in order if vars(importlib.import_module(f"{pkg}.{s}")).get(name) is value]
            if found:   # else (pointwise's aliases): the package's __getattr__ knows
                table[name] = found[0]
        out[pkg] = table
    return out


# -- the table ------------------------------------------------------------------------------------------

def units():
    """([(unit, eager)], {lazy unit: row}, exports) from the eager import."""
    events = attributed_events()
    files = _module_files()
    table_exports = exports(files)
    eager = _must_stay_eager(events)
    named = {u for u, _ in events}
    start = _reached(["core"] + sorted(u for u in eager if u in files), files, table_exports)
    eager |= named & start
    bad = sorted(eager & set(WHOLE))
    if bad:
        raise RuntimeError(f"{bad} must be lazy (families.LAZY) but share names, record non-functions or are "
                           "imported at start-up")
    listed, rows = [], {}
    for unit, row in events:
        if not any(row.values()):
            continue
        listed.append((unit, unit in eager))
        if unit not in eager:
            rows[unit] = _row(row)
    return listed, rows, table_exports


def _row(row):
    ops = []
    for name in row["ops"]:
        info = registry.OPS[name]
        ops.append((name, info.category, info.summary, tuple(info.methods), info.inplace, info.kind))
    return {"ops": ops, "functions": list(row["functions"]), "methods": list(row["methods"])}


def table_text() -> str:
    """The text of core/ops/lazy_table.py."""
    listed, rows, table_exports = units()
    lines = ['"""GENERATED by `python -m core.ops` from an eager import: do not edit.',
             "", "UNITS: the op modules (or whole families) in the order an eager import completes them, and whether",
             "`import core` imports them (core/ops/families.py). FAMILIES: per lazy unit its ops (name, category,",
             "summary, methods, inplace, kind), core.X functions and Tensor methods.",
             'EXPORTS: per lazy package, the submodule that defines each name it re-exports."""',
             "# flake8: noqa"]
    lines += _wrapped("UNITS = (", [f"({unit!r}, {eager})" for unit, eager in listed], ")")
    lines.append("FAMILIES = {")
    for module, row in rows.items():   # one line a op row, the rest packed (the file stays under 800 lines)
        lines.append(f'    {module!r}: {{"ops": [')
        lines += [f"        {op!r}," for op in row["ops"]]
        lines += _wrapped('    ], "functions": [', [repr(n) for n in row["functions"]], "],")
        lines += _wrapped('    "methods": [', [repr(n) for n in row["methods"]], "]},")
    lines += ["}", "EXPORTS = {"]
    for pkg, table in table_exports.items():
        lines += _wrapped(f"    {pkg!r}: {{", [f"{n!r}: {s!r}" for n, s in table.items()], "},")
    return "\n".join(lines + ["}", ""])


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
