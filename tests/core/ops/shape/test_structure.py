"""House rules for the shape family and the view/in-place machinery, checked on the source: small
modules and functions, imports at module level only, inplace.py below the op families, and nothing
attached to Tensor outside core/_bind.py."""
from __future__ import annotations

from paths import ROOT

import ast
import pathlib

import pytest

OPS_DIR = pathlib.Path(ROOT) / "core" / "ops"
MODULES = sorted((OPS_DIR / "shape").glob("*.py")) + [OPS_DIR / "inplace.py", OPS_DIR / "einsum.py"]
FAMILIES = {"pointwise", "reduce", "linalg", "shape", "indexing", "einsum", "activation", "sorting"}


def _tree(path):
    return ast.parse(path.read_text(), str(path))


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_module_is_small_and_so_are_its_functions(path):
    assert len(path.read_text().splitlines()) < 800
    for node in ast.walk(_tree(path)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            assert node.end_lineno - node.lineno < 80, f"{path.name}:{node.name}"


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_no_imports_inside_functions(path):
    for node in ast.walk(_tree(path)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner = [n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))]
            assert not inner, f"{path.name}:{node.name} imports inside a function"


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_nothing_is_attached_to_tensor(path):
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                assert not (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "Tensor"), \
                    f"{path.name}:{node.lineno} assigns Tensor.{t.attr}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
            assert not (node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == "Tensor"), \
                f"{path.name}:{node.lineno} setattr(Tensor, ...)"


def test_inplace_imports_no_op_family():
    for node in ast.walk(_tree(OPS_DIR / "inplace.py")):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            mod = (node.module or "").split(".")[0]
            names = {a.name for a in node.names}
            assert mod not in FAMILIES and not (names & FAMILIES), f"inplace.py imports {mod or names}"
