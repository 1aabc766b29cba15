"""Start-up, per module: `import core` imports only the op modules core/ops/lazy_table.py marks eager, an
op command imports the module of its op (and what that imports), and an op loaded late behaves as
torch's (values, dtypes, grads, errors, memory layout) with every name present before and after."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import core
from core import _bind
from core.ops import lazy_table, registry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAZY_UNITS = tuple(u for u, eager in lazy_table.UNITS if not eager)
EAGER_UNITS = tuple(u for u, eager in lazy_table.UNITS if eager)


def _run(code, eager=False):
    env = dict(os.environ, PYTHONPATH=ROOT, CORE_EAGER_FAMILIES="1" if eager else "0", NO_COLOR="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def _loaded(prefix="core.ops"):
    return f"sorted(m for m in sys.modules if m.startswith({prefix!r}))"


def test_the_table_has_fine_grained_lazy_units():
    """Units of the lazy packages are single modules, and most of them are lazy."""
    for pkg in ("pointwise", "reduce", "shape", "indexing"):
        assert [u for u in LAZY_UNITS if u.startswith(f"core.ops.{pkg}.")], pkg
    assert "core.ops.indexing.gather_scatter" in LAZY_UNITS


def test_import_core_imports_no_lazy_unit_and_every_eager_one():
    loaded = json.loads(_run(f"import sys, json, core; print(json.dumps({_loaded()}))"))
    assert not [u for u in LAZY_UNITS if u in loaded]
    assert [u for u in EAGER_UNITS if u not in loaded] == []
    assert not [m for m in loaded if m.startswith(("core.ops.reduce", "core.ops.indexing"))]


def test_gather_command_imports_its_module_and_no_reduce_or_lazy_pointwise_module():
    code = ("import sys, json; from tensorcli.app import main\n"
            "try: main(['gather', '[[1,2],[3,4]]', '--dim', '1', '--index', '[[0,0],[1,0]]'])\n"
            "except SystemExit: pass\n"
            f"print(json.dumps({_loaded()}))")
    out = _run(code).splitlines()
    loaded = json.loads(out[-1])
    assert "tensor([[1, 1]," in "\n".join(out)
    assert "core.ops.indexing.gather_scatter" in loaded
    assert [m for m in loaded if m.startswith("core.ops.reduce")] == []
    assert [u for u in LAZY_UNITS if u in loaded] == ["core.ops.indexing.gather_scatter"]


def test_names_are_present_before_and_real_after_a_lazy_load():
    code = r"""
import json, core
from core.ops.registry import FUNCTIONS, METHODS, OPS, LazyOpInfo, is_placeholder
T = core.Tensor
def state():
    got = {"dir_core": "gather" in dir(core) and "gather" in dir(T), "op_lazy": isinstance(OPS["gather"], LazyOpInfo),
           "fn_stub": is_placeholder(FUNCTIONS["gather"]), "method_stub": is_placeholder(T.__dict__["gather"]),
           "summary": OPS["gather"].summary}
    got["has_tensor"] = hasattr(T, "gather") and hasattr(T, "scatter_")   # hasattr imports the module
    return got
before = state()
x = core.tensor([[1.0, 2.0], [3.0, 4.0]])
r = x.gather(1, core.tensor([[0, 0], [1, 0]]))
after = state()
after["same"] = [core.gather is FUNCTIONS["gather"], T.__dict__["gather"] is METHODS["gather"],
                 OPS["gather"].fn is FUNCTIONS["gather"]]
print(json.dumps([before, after, r.tolist()]))
"""
    before, after, value = json.loads(_run(code))
    assert before == {"dir_core": True, "has_tensor": True, "op_lazy": True, "fn_stub": True, "method_stub": True,
                      "summary": after["summary"]}
    assert after["same"] == [True, True, True]
    assert not (after["op_lazy"] or after["fn_stub"] or after["method_stub"])
    assert value == [[1.0, 1.0], [4.0, 3.0]]


# first uses of lazily loaded modules, each in a fresh process: torch's value, dtype, shape and strides
FIRST_USES = {
    "gather": "x.gather(1, t([[0, 0], [1, 0]]))",
    "sum_dim": "x.sum(1)",
    "alias_of_lazy_special": "torch.arccosh(x + 1)",
    "inplace_alias": "(x + 1).arccosh_()",
    "getitem": "x[t([1, 0])]",
    "where_method": "x.where(x > 2, t(0.0))",
    "elementwise_layout": "torch.digamma(x.t())",
    "cat": "torch.cat([x, x], 1)",
    "cumsum": "x.cumsum(0)",
    "einsum": "torch.einsum('ij,jk->ik', x, x)",
}


def _describe(r):
    return [r.tolist(), str(r.dtype), list(r.shape), list(r.stride())]


@pytest.mark.parametrize("case", sorted(FIRST_USES))
def test_first_use_of_a_lazy_module_matches_torch(case, torch):
    expr = FIRST_USES[case]
    code = ("import json, core as torch\nt = torch.tensor\nx = t([[4.0, 1.0], [2.0, 3.0]])\n"
            f"r = {expr}\nprint(json.dumps([r.tolist(), str(r.dtype), list(r.shape), list(r.stride())]))")
    got = json.loads(_run(code))
    t = torch.tensor
    want = _describe(eval(expr, {"torch": torch, "t": t, "x": t([[4.0, 1.0], [2.0, 3.0]])}))
    assert got[1:] == want[1:]
    assert torch.allclose(torch.tensor(got[0]), torch.tensor(want[0]), atol=1e-6)


def test_gradient_and_error_of_a_lazy_op_match_torch(torch):
    code = r"""
import json, core as torch
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
y = torch.gather(x, 1, torch.tensor([[0, 0], [1, 0]]))
y.sum().backward()
try:
    torch.gather(x, 5, torch.tensor([[0]]))
    err = None
except Exception as e:
    err = type(e).__name__
print(json.dumps([x.grad.tolist(), y.grad_fn.name(), err]))
"""
    grad, node, err = json.loads(_run(code))
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = torch.gather(x, 1, torch.tensor([[0, 0], [1, 0]]))
    y.sum().backward()
    with pytest.raises(Exception) as info:
        torch.gather(x, 5, torch.tensor([[0]]))
    assert [grad, node, err] == [x.grad.tolist(), y.grad_fn.name(), type(info.value).__name__]


def test_package_reexports_resolve_to_the_eager_objects():
    """`from core.ops.<package> import name` gives the object an eager import gives (indexing.take is the
    function, not the module of the same name), without importing unrelated modules."""
    code = ("import json, core\nfrom core.ops.indexing import take, _scatter_into_zeros\n"
            "from core.ops.pointwise import subtract, where, _out\nfrom core.ops.shape import permute\n"
            "from core.ops.reduce import _expand_back\n"
            "print(json.dumps([[o.__module__, o.__qualname__] for o in (take, _scatter_into_zeros, subtract, where,"
            " _out, permute, _expand_back)]))")
    assert json.loads(_run(code)) == json.loads(_run(code, eager=True))


def test_lazily_loaded_pointwise_ops_are_elementwise_as_when_eager():
    """The package marks its Ops elementwise (layout kept) once their module has run, however it was imported."""
    code = ("import json, core\nimport core.ops.pointwise.special as s\nfrom core.autograd.function import Op\n"
            "print(json.dumps(sorted([k, v.contiguous_output] for k, v in vars(s).items()"
            " if isinstance(v, type) and issubclass(v, Op) and v.__module__.startswith('core.ops.pointwise'))))")
    lazy, eager = json.loads(_run(code)), json.loads(_run(code, eager=True))
    assert lazy == eager and lazy and not any(flag for _, flag in lazy)


def test_an_operator_placeholder_is_guarded():
    """A lazy unit's operator (core/_bind.py) returns NotImplemented for other operands and computes after
    importing its unit."""
    placeholder = registry.LazyAttribute("core.ops.pointwise.arithmetic", "__add__")
    guarded = _bind._guarded("__add__", placeholder)
    x = core.tensor([1.0, 2.0])
    assert guarded._operator_guard and guarded(x, None) is NotImplemented
    assert guarded(x, 1).tolist() == [2.0, 3.0]
    assert core.Tensor.__dict__["__add__"]._operator_guard


def test_the_generator_keeps_eager_what_laziness_could_change():
    """core/ops/lazy_gen.py: a property (Tensor.T) or an operator (Tensor.__add__) keeps its module eager,
    and a package's alias of another unit's function (core.arccosh is core.acosh) belongs to that unit."""
    code = ("import json, core\nfrom core.ops import lazy_gen\nevents = lazy_gen.attributed_events()\n"
            "rows = dict(events)\neager = lazy_gen._must_stay_eager(events)\n"
            "print(json.dumps([sorted(eager), rows['core.ops.pointwise.special']['functions'],"
            " rows['core.ops.pointwise']['methods']]))")
    eager, special, package = json.loads(_run(code, eager=True))
    assert {"core.ops.shape.permute", "core.ops.pointwise.arithmetic"} <= set(eager)
    assert "core.ops.indexing.gather_scatter" not in eager
    assert {"acosh", "arccosh"} <= set(special)
    assert package == ["where"]
    assert dict(lazy_table.UNITS)["core.ops.shape.permute"] is True
