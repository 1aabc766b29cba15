"""The house rules, checked by reading the source: no import cycle among core's or tensorcli's modules,
counting imports inside functions too; few imports inside functions in core; nothing attached to Tensor
outside core/_bind.py; small files and functions; core neither writes files when imported nor reads
tests/ or scripts/; a core that knows nothing of the CLI."""
from __future__ import annotations

import ast
import functools
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORE = ROOT / "core"
MAX_FUNCTION_IMPORTS = 10
MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 80

# Import cycles that stay, each with its reason (module sets, as _cycles reports them).
KNOWN_CYCLES = {
    ("core.nn.modules", "core.nn.modules.rnn", "core.nn.modules.rnn_packed", "core.nn.utils",
     "core.nn.utils.parametrizations", "core.nn.utils.spectral_norm"):
        "torch's own layout: nn/modules/rnn.py imports nn.utils.rnn (PackedSequence), whose package imports "
        "parametrizations and spectral_norm, which import nn.modules (the conv classes); core mirrors torch's "
        "module paths, so breaking it would move a public name",
}

# Functions longer than MAX_FUNCTION_LINES, each with its reason.
LONG_FUNCTIONS = {
    "core/memory.py::graph_inventory":
        "sys.getrefcount counts references held by this frame's locals, so the bookkeeping of which tensors "
        "the caller still holds must stay in one frame",
    "tensorcli/services/program_builtins.py::make_builtins":
        "every built-in closes over the run's interpreter (budget, output, attribute rules); they read best "
        "side by side",
}


@functools.lru_cache(maxsize=None)
def _tree(path):
    """The syntax tree of `path`, parsed once per test run (the tests below walk every file)."""
    return ast.parse(path.read_text())


def _modules(pkg="core"):
    base = ROOT / pkg
    for path in sorted(base.rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


def _resolve(module, path, node):
    """Absolute module names a `from X import a, b` / `import X` statement loads."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    pkg = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    if node.level:
        base = pkg.split(".")
        base = base[:len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module
    # `from . import x` may name a submodule
    return [target] + [f"{target}.{a.name}" for a in node.names]


def _imports(module, path, known, everywhere):
    """Modules that `module`'s imports run: at module level (outside `if` blocks: TYPE_CHECKING), or
    everywhere (inside functions too). `from pkg import name` runs pkg.name when that is a module, else
    pkg's __init__ (for name); `import a.b.c` runs a, a.b and a.b.c, except the packages `module` is
    inside, whose __init__ is already running."""
    tree = _tree(path)
    if everywhere:
        stmts = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    else:
        stmts = [st for node in tree.body if not isinstance(node, ast.If)
                 for st in (node.body if isinstance(node, ast.Try) else [node])]
    deps = set()
    for st in stmts:
        if not isinstance(st, (ast.Import, ast.ImportFrom)):
            continue
        for name in _targets(module, path, st, known):
            parts = name.split(".")
            for i in range(1, len(parts) + 1):
                cand = ".".join(parts[:i])
                if cand in known and cand != module and not (module.startswith(cand + ".") and cand != name):
                    deps.add(cand)
    return deps


def _targets(module, path, node, known):
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    target = _resolve(module, path, node)[0]
    return [f"{target}.{a.name}" if f"{target}.{a.name}" in known else target for a in node.names]


@functools.lru_cache(maxsize=None)
def _all_cycles(everywhere):
    found = []
    for pkg in ("core", "tensorcli"):
        mods = dict(_modules(pkg))
        found += _cycles({m: _imports(m, p, mods, everywhere) for m, p in mods.items()})
    return tuple(tuple(c) for c in found)


def _import_cycles(everywhere):
    return [list(c) for c in _all_cycles(everywhere) if c not in KNOWN_CYCLES]


def _function_imports(path):
    tree = _tree(path)
    found = []
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    found.append((path.relative_to(ROOT), node.lineno))
    return sorted(set(found))


def _cycles(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle_through_module_level_imports():
    assert _import_cycles(everywhere=False) == []


def test_no_import_cycle_counting_imports_inside_functions():
    """An import inside a function still couples the two modules: no cycle, even through one."""
    assert _import_cycles(everywhere=True) == []


def test_known_cycles_are_still_cycles():
    """An allowed cycle that is gone leaves the list (so the list stays true)."""
    assert set(KNOWN_CYCLES) <= set(_all_cycles(everywhere=True))


def test_core_imports_inside_functions_are_few():
    found = [hit for _, p in _modules() for hit in _function_imports(p)]
    assert len(found) <= MAX_FUNCTION_IMPORTS, found


def test_nothing_is_attached_to_tensor_outside_the_binding_module():
    offenders = []
    for _, path in _modules():
        if path.name == "_bind.py":
            continue
        tree = _tree(path)
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "Tensor":
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr"
                    and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == "Tensor"):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


# core files that still name tensorcli, each until the change that removes it lands: the lazy-table
# generator scans tensorcli's sources for the names it imports from lazy packages, and families.py's
# docstring gives `tensorcli gather` as its example (both reworked by issue 25's generation item)


def test_core_knows_nothing_of_the_cli():
    """The library under a CLI knows nothing of it (as requests of httpie): no core file names tensorcli;
    commands, examples, parameter kinds and explain formulas live in tensorcli/opspec/."""
    naming = sorted(str(p.relative_to(ROOT)) for _, p in _modules("core") if "tensorcli" in p.read_text().lower())
    assert naming == []


def test_registrations_carry_no_cli_keywords():
    """register(...) takes semantics only: no cli=, cli_*= or rule= keyword anywhere in core."""
    found = []
    for _, path in _modules("core"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                found += [f"{path.relative_to(ROOT)}:{node.lineno} {kw.arg}=" for kw in node.keywords
                          if kw.arg is not None and (kw.arg in ("cli", "rule") or kw.arg.startswith("cli_"))]
    assert found == []


def test_source_files_stay_under_800_lines():
    big = [f"{p.relative_to(ROOT)} ({n})" for pkg in ("core", "tensorcli") for _, p in _modules(pkg)
           if (n := len(p.read_text().splitlines())) > MAX_FILE_LINES]
    assert big == []


def test_functions_stay_under_80_lines_unless_listed_with_a_reason():
    long = set()
    for pkg in ("core", "tensorcli"):
        for _, path in _modules(pkg):
            for node in ast.walk(_tree(path)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES:
                        long.add(f"{path.relative_to(ROOT)}::{node.name}")
    assert long == set(LONG_FUNCTIONS)


def test_core_writes_no_file_when_imported_and_reads_no_tests_or_scripts():
    """No core module is a script (__main__.py), none opens a file for writing outside a function, and none
    names the tests/ or scripts/ folders (generated files are written by scripts/regenerate.py)."""
    found = []
    for module, path in _modules():
        rel = path.relative_to(ROOT)
        if path.name == "__main__.py":
            found.append(f"{rel}: a script inside core")
        todo = [(_tree(path), False)]   # (node, inside a function)
        while todo:
            node, inside = todo.pop()
            inside = inside or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            todo += [(child, inside) for child in ast.iter_child_nodes(node)]
            if (not inside and isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "open"):
                found.append(f"{rel}:{node.lineno}: open() at import")
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                    node.value in ("tests", "scripts") or node.value.startswith(("tests/", "scripts/"))):
                found.append(f"{rel}:{node.lineno}: names {node.value!r}")
    assert found == []


HISTORY_WORDS = {"new", "more", "extra", "extras", "fix", "fixes", "gap", "gaps", "lead", "misc"}


def test_no_file_is_named_by_history():
    """Files are named by subject, never by when or why they were written (`test_new_reduce.py`,
    `activation_more.py`, `test_opdb_fixes_lead.py`): no word of a source, test, script or doc file's
    name (split at `_`, `-` and `.`) is one of HISTORY_WORDS."""
    import re
    files = [p for d in ("core", "tensorcli", "tests", "scripts", "docs") for p in (ROOT / d).rglob("*")
             if p.suffix in (".py", ".md", ".json", ".txt") and "__pycache__" not in p.parts]
    named = [str(p.relative_to(ROOT)) for p in files
             if HISTORY_WORDS & set(re.split(r"[_\-.]", p.stem.lower()))]
    assert len(files) > 300 and named == []
