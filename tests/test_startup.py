"""Start-up: `import core` imports no lazy unit (core/ops/families.py: whole families and single modules of
shape and indexing) and not numpy.random; an op command imports its own unit only; every public name exists
before first use and is the same name after every unit is loaded. A unit that creeps into start-up (an
eager module importing it at module level) fails here."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import core
from core.ops import families, registry
from paths import ROOT

UNITS = tuple(families.units())


def _run(code, **env):
    env = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1", **env)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def _loaded_units():
    return f"[m for m in sys.modules if m in {UNITS!r} or m == 'numpy.random' or m == 'rich']"


def test_the_lazy_units_are_the_measured_ones():
    """Whole families and single modules of shape and indexing (docs/architecture.md, "Lazy loading")."""
    for family in ("reduce", "linalg", "sorting", "random", "nn", "masked"):
        assert f"core.ops.{family}" in UNITS
    assert "core.ops.indexing.gather_scatter" in UNITS and "core.ops.shape.split" in UNITS
    assert not [u for u in UNITS if u.startswith("core.ops.pointwise")]


def test_import_core_imports_no_lazy_unit_and_not_numpy_random():
    assert _run(f"import sys, core; print({_loaded_units()})") == "[]\n"


def test_an_op_command_imports_its_unit_and_no_other_and_no_rich():
    """`tensorcli gather` on a small input: indexing/gather_scatter.py only, plain-text output (no Rich)."""
    code = ("import sys; from tensorcli.app import main\n"
            "try: main(['gather', '[[1,2],[3,4]]', '--dim', '1', '--index', '[[0,0],[1,0]]'])\n"
            "except SystemExit: pass\n"
            f"print({_loaded_units()})")
    out = _run(code).splitlines()
    assert "tensor([[1, 1]," in "\n".join(out)
    assert out[-1] == "['core.ops.indexing.gather_scatter']"


_SURVEY = r"""
import json, core
from core.ops import families
from core.ops.registry import OPS, FUNCTIONS, METHODS, is_placeholder
T = core.Tensor
def names():
    return {"dir_tensor": dir(T), "dir_core": dir(core), "all": core.__all__, "ops": list(OPS),
            "functions": sorted(FUNCTIONS), "methods": sorted(METHODS)}
before = names()
families.load_all()
after = names()
left = sorted(n for t in (OPS, FUNCTIONS, METHODS) for n, v in t.items() if is_placeholder(v))
left += sorted(n for n, v in vars(T).items() if is_placeholder(v))
left += sorted(n for n in FUNCTIONS if getattr(core, n) is not FUNCTIONS[n])
print(json.dumps([before, after, left]))
"""


def test_every_name_exists_before_first_use_and_is_real_after_loading():
    """The table names exactly what the units register (same names, same OPS order, before and after
    every unit is imported), and loading replaces every placeholder (Tensor's attributes and core.X too)."""
    before, after, left = json.loads(_run(_SURVEY))
    for key in before:
        assert before[key] == after[key], key
    assert left == []


def test_lazy_methods_are_not_operators():
    from core import _bind
    lazy = [n for n, m in registry.LAZY.items() if n in registry.METHODS]
    assert lazy, "no lazy Tensor methods: is the table empty?"
    assert not [n for n in lazy if n.strip("_") in _bind.BINARY_DUNDERS]


def test_a_stale_table_entry_fails_loudly():
    """A name the table promises but the unit does not register: a clear RuntimeError, no recursion."""
    info = registry.LazyOpInfo("core.ops.sorting", "no_such_op")
    with pytest.raises(RuntimeError, match="lazy_table.py is stale"):
        info.summary
    attr = registry.LazyAttribute("core.ops.sorting", "no_such_method")
    with pytest.raises(RuntimeError, match="lazy_table.py is stale"):
        attr.__get__(core.tensor([1.0]), core.Tensor)


def test_a_placeholder_reads_its_fields_from_the_loaded_unit():
    """OPS[name] of a lazy op answers from the registration itself (never from a copy in the table)."""
    code = ("import json, core\nfrom core.ops.registry import OPS\n"
            "lazy = type(OPS['renorm']).__name__\nsummary = OPS['renorm'].summary\n"
            "print(json.dumps([lazy, summary, type(OPS['renorm']).__name__, OPS['renorm'].fn.__doc__.split('.')[0]]))")
    lazy, summary, now, doc = json.loads(_run(code))
    assert (lazy, now) == ("LazyOpInfo", "OpInfo")
    assert summary.startswith(doc)
