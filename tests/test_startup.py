"""Start-up: `import core` leaves the lazy op families (core/ops/families.py) and numpy.random unimported,
and every public name still resolves as with an eager import (CORE_EAGER_FAMILIES=1): the same
Tensor attributes, core.X functions, registry entries (in the same order) and values."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import core
from core.ops import families, registry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAZY_MODULES = tuple(f"core.ops.{f}" for f in families.LAZY)


def _run(code, eager=False, **env):
    env = dict(os.environ, PYTHONPATH=ROOT, CORE_EAGER_FAMILIES="1" if eager else "0", **env)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_import_core_does_not_import_the_lazy_families_or_numpy_random():
    code = ("import sys, core; print([m for m in sys.modules if m == 'numpy.random' or "
            f"m.startswith({LAZY_MODULES!r})])")
    assert _run(code) == "[]\n"


def test_the_lazy_table_is_current():
    """core/ops/lazy_table.py is what `python -m core.ops` writes from an eager import."""
    text = _run("import core.ops.families as f; print(f.table_text(), end='')", eager=True)
    with open(os.path.join(ROOT, "core", "ops", "lazy_table.py")) as f:
        assert f.read() == text, "stale: run python -m core.ops"


# names before any use, then every name resolved: the same in both modes
_SURVEY = r"""
import json, inspect, core
from core.ops.registry import OPS, FUNCTIONS, METHODS
T = core.Tensor
before = {"dir_tensor": dir(T), "dir_core": dir(core), "all": core.__all__, "ops": list(OPS),
          "functions": sorted(FUNCTIONS), "methods": sorted(METHODS),
          "meta": [[i.name, i.category, i.summary, list(i.methods), i.inplace, i.kind]
                   for i in OPS.values()]}
def who(v):
    v = getattr(v, "fget", v)
    return [getattr(v, "__module__", None), getattr(v, "__qualname__", type(v).__name__)]
after = {"core": {n: who(getattr(core, n)) for n in sorted(FUNCTIONS)},
         "tensor": {n: [hasattr(T, n), who(T.__dict__.get(n, getattr(T, n)))] for n in sorted(METHODS)},
         "ops": {n: [who(i.fn), str(i.signature)] for n, i in OPS.items()},
         "same": sorted(n for n in FUNCTIONS if getattr(core, n) is not FUNCTIONS[n]),
         "dir_tensor": dir(T), "ops_order": list(OPS)}
print(json.dumps({"before": before, "after": after}))
"""


def test_every_public_name_resolves_as_with_an_eager_import():
    lazy, eager = json.loads(_run(_SURVEY)), json.loads(_run(_SURVEY, eager=True))
    for key in eager["before"]:
        assert lazy["before"][key] == eager["before"][key], key
    for key in eager["after"]:
        assert lazy["after"][key] == eager["after"][key], key


def test_lazy_methods_are_plain_functions_outside_the_operator_guards():
    from core import _bind
    lazy = [n for n, m in registry.LAZY.items() if n in registry.METHODS]
    assert lazy, "no lazy Tensor methods: is the table empty?"
    assert not [n for n in lazy if n.strip("_") in _bind.BINARY_DUNDERS]


# each kind of placeholder, used first in a fresh process, gives torch's answer
FIRST_USES = {
    "method": "x.svd()[1]",
    "function": "core.linalg.det(x)",
    "core_function": "core.sort(x, 1)[0]",
    "operator": "x @ x",
    "registry": "OPS['linalg.inv'].fn(x)",
    "inplace_function": "core.relu_(x - 2)",
    "nn_functional": "core.nn.functional.softmax(x, 0)",
    "random_kernel": "(core.manual_seed(0), core.rand(3))[1]",
}


@pytest.mark.parametrize("kind", sorted(FIRST_USES))
def test_first_use_of_a_lazy_family_matches_torch(kind, torch):
    expr = FIRST_USES[kind]
    code = ("import json, core\nfrom core.ops.registry import OPS\n"
            "x = core.tensor([[4.0, 1.0], [2.0, 3.0]])\n"
            f"r = {expr}\nprint(json.dumps([r.tolist(), str(r.dtype)]))")
    got = json.loads(_run(code))
    import torch as core_alias  # noqa: F401 - the same expression on torch
    x = torch.tensor([[4.0, 1.0], [2.0, 3.0]])
    want = eval(expr.replace("core.", "torch.").replace("OPS['linalg.inv'].fn", "torch.linalg.inv"),
                {"torch": torch, "x": x})
    assert got[1] == str(want.dtype)
    assert torch.allclose(torch.tensor(got[0], dtype=want.dtype), want, atol=1e-6)


def test_a_stale_table_entry_fails_loudly():
    """A name the table promises but the family does not register: a clear RuntimeError, no recursion."""
    info = registry.LazyOpInfo("core.ops.sorting", "no_such_op", "sorting", "", (), None, None)
    with pytest.raises(RuntimeError, match="lazy_table.py is stale"):
        info.fn
    attr = registry.LazyAttribute("core.ops.sorting", "no_such_method")
    with pytest.raises(RuntimeError, match="lazy_table.py is stale"):
        attr.__get__(core.tensor([1.0]), core.Tensor)


def test_an_op_command_imports_no_lazy_family_and_no_rich():
    """`tensorcli gather` on a small input: core's eager families only, plain-text output (no Rich)."""
    code = ("import sys; from tensorcli.app import main\n"
            "try: main(['gather', '[[1,2],[3,4]]', '--dim', '1', '--index', '[[0,0],[1,0]]'])\n"
            "except SystemExit: pass\n"
            f"print([m for m in sys.modules if m == 'rich' or m == 'numpy.random' or m.startswith({LAZY_MODULES!r})])")
    out = _run(code, NO_COLOR="1").splitlines()
    assert out[-1] == "[]" and "tensor([[1, 1]," in "\n".join(out)


def test_ops_listing_imports_no_lazy_family():
    """`tensorcli ops` lists nn and linalg commands from the placeholders' metadata."""
    code = ("import sys; from tensorcli.app import main\ntry: main(['ops'])\nexcept SystemExit: pass\n"
            f"print([m for m in sys.modules if m.startswith({LAZY_MODULES!r})])")
    out = _run(code, NO_COLOR="1")
    assert out.splitlines()[-1] == "[]" and "conv2d" in out and "matmul" in out
