"""Every package the project imports is declared in pyproject.toml: a fresh virtual environment installs
only what is declared (typer 0.29 stopped installing click, and 1,623 tests importing it were never
collected on a new machine while the developer's Python happened to have it)."""
from __future__ import annotations

import ast
import importlib.metadata as md
import os
import re
import sys
import tomllib

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _norm(dist):
    return re.sub(r"[-_.]+", "-", dist).lower()


def _declared():
    """{extra or 'run': set of normalised distribution names} from pyproject.toml."""
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    name = lambda req: _norm(re.split(r"[\s<>=!~;\[(]", req, maxsplit=1)[0])
    out = {"run": {name(r) for r in project.get("dependencies", [])}}
    for extra, reqs in project.get("optional-dependencies", {}).items():
        out[extra] = {name(r) for r in reqs}
    return out


def _imports(paths):
    """{top-level module name: first 'file:line' importing it} over the Python files below paths."""
    found = {}
    for top in paths:
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for fname in sorted(files):
                if not fname.endswith(".py"):
                    continue
                path = os.path.join(dirpath, fname)
                with open(path, encoding="utf-8") as f:
                    tree = ast.parse(f.read(), path)
                imports, tries = [], []     # one walk over the tree (two took half of this test's time)
                for node in ast.walk(tree):
                    if isinstance(node, (ast.Import, ast.ImportFrom)):
                        imports.append(node)
                    elif isinstance(node, ast.Try) and _catches_import_error(node):
                        tries.append(node)
                optional = {id(n) for t in tries for n in ast.walk(t)}
                for node in imports:
                    if id(node) in optional:
                        continue
                    if isinstance(node, ast.Import):
                        names = [a.name for a in node.names]
                    elif node.level == 0 and node.module:
                        names = [node.module]
                    else:
                        continue
                    for n in names:
                        found.setdefault(n.split(".")[0], f"{os.path.relpath(path, ROOT)}:{node.lineno}")
    return found


def _catches_import_error(node):
    """A try whose handler catches ImportError: an optional import, with its fallback beside it."""
    for h in node.handlers:
        types = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
        if any(isinstance(t, ast.Name) and t.id in ("ImportError", "ModuleNotFoundError") for t in types):
            return True
    return False


def _local():
    """Modules of the tree itself: packages at the root, and the tests' and scripts' own helper modules
    (each puts the other's folder on sys.path where it needs it)."""
    names = {"tests", "scripts"}
    for d in (ROOT, os.path.join(ROOT, "tests"), os.path.join(ROOT, "scripts")):
        for dirpath, dirs, files in os.walk(d):
            names.update(f[:-3] for f in files if f.endswith(".py"))
            names.update(x for x in dirs if os.path.exists(os.path.join(dirpath, x, "__init__.py")))
            if d == ROOT:
                break
    return names


def _undeclared(top, allowed_extras):
    declared = set().union(*(v for k, v in _declared().items() if k in allowed_extras))
    owners = md.packages_distributions()
    local = _local()
    bad = []
    for mod, where in sorted(_imports([top]).items()):
        if mod in sys.stdlib_module_names or mod in local or mod == "__future__":
            continue
        dists = {_norm(d) for d in owners.get(mod, ())} or {_norm(mod)}
        if not dists & declared:
            bad.append(f"{mod} ({where}; distribution {sorted(dists)})")
    return bad


def test_tests_import_only_declared_packages():
    assert _undeclared("tests", {"run", "test"}) == []


@pytest.mark.parametrize("top", ["core", "tensorcli"])
def test_runtime_imports_only_runtime_dependencies(top):
    # torch is imported only by `check --against-torch` / core's torch interop, inside functions, and
    # is the test extra's; everything else a user runs needs numpy, typer and rich alone.
    bad = [b for b in _undeclared(top, {"run"}) if not b.startswith("torch ")]
    assert bad == []


def test_scripts_import_only_declared_packages():
    assert _undeclared("scripts", set(_declared())) == []


def test_ci_runs_the_readme_commands_in_a_new_venv():
    """.ci/run is the README's two set-up commands (pip's -q aside) inside a virtual environment it creates."""
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        ci = f.read()
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    assert re.search(r"python3? -m venv", ci) and "/bin/activate" in ci
    commands = [line.replace("pip install -q ", "pip install ") for line in ci.splitlines()
                if line.startswith("pip install")]
    assert len(commands) == 2
    for command in commands:
        assert command in readme, command
