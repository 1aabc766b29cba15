"""Lazy units at first use: each behaves as torch's (values, dtypes, shapes, strides, gradients, errors),
through every kind of placeholder (core.X, Tensor method, operator, registry entry, in-place alias, a
package's re-exported name); a package's re-exported function stays the function when its same-named
module is imported."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from paths import ROOT

# expression -> the lazy unit it is the first to use (one process runs them all, in this order)
FIRST_USES = {
    "x.view(4)": "core.ops.shape.views",
    "torch.cat([x, x], 1)": "core.ops.shape.join",
    "x.gather(1, t([[0, 0], [1, 0]]))": "core.ops.indexing.gather_scatter",
    "x.sum(1)": "core.ops.reduce",
    "x[t([1, 0])]": "core.ops.indexing.getitem",
    "x.svd()[1]": "core.ops.linalg",
    "torch.sort(x, 1)[0]": "core.ops.sorting",
    "torch.relu_(x - 2)": "core.ops.nn",
    "(torch.manual_seed(0), torch.rand(3))[1]": "core.ops.random",
    "torch.masked.sum(x, 0, mask=x > 2)": "core.ops.masked",
    "torch.digamma(x.t())": None,
    "(x + 1).arccosh_()": None,
    "x.where(x > 2, t(0.0))": None,
}

_CODE = r"""
import json, sys, core as torch
t = torch.tensor
out = []
for expr, unit in json.loads(sys.argv[1]).items():
    fresh = unit is None or unit not in sys.modules
    x = t([[4.0, 1.0], [2.0, 3.0]])
    r = eval(expr)
    out.append([fresh, r.tolist(), str(r.dtype), list(r.shape), list(r.stride())])
print(json.dumps(out))
"""


def _run(code, *args):
    env = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1")
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_first_use_of_each_lazy_unit_matches_torch(torch):
    got = json.loads(_run(_CODE, json.dumps(FIRST_USES)))
    t = torch.tensor
    for (expr, unit), (fresh, value, dtype, shape, stride) in zip(FIRST_USES.items(), got):
        assert fresh, f"{unit} was loaded before {expr}: not a first use"
        torch.manual_seed(0)
        want = eval(expr, {"torch": torch, "t": t, "x": t([[4.0, 1.0], [2.0, 3.0]])})
        assert [dtype, shape, stride] == [str(want.dtype), list(want.shape), list(want.stride())], expr
        assert torch.allclose(torch.tensor(value, dtype=want.dtype), want, atol=1e-6), expr


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
    err = [type(e).__name__, str(e)]
print(json.dumps([x.grad.tolist(), y.grad_fn.name(), err]))
"""
    grad, node, err = json.loads(_run(code))
    x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = torch.gather(x, 1, torch.tensor([[0, 0], [1, 0]]))
    y.sum().backward()
    try:
        torch.gather(x, 5, torch.tensor([[0]]))
    except Exception as e:  # noqa: BLE001 - compared below
        want = [type(e).__name__, str(e)]
    assert [grad, node, err] == [x.grad.tolist(), y.grad_fn.name(), want]


def test_a_package_reexport_is_the_function_even_after_its_module_is_imported():
    """indexing/take.py defines take, shape/split.py split: `from core.ops.indexing import take` is the
    function before and after the module is imported (registry.ExportingPackage)."""
    code = ("import json, core\nfrom core.ops.indexing import take as a\nimport core.ops.shape.split\n"
            "from core.ops.shape import split as b\nimport core.ops.indexing.take\nfrom core.ops.indexing import take as c\n"
            "from core.ops.indexing import _scatter_into_zeros as d\n"
            "print(json.dumps([[type(o).__name__, o.__module__] for o in (a, b, c, d)]))")
    assert json.loads(_run(code)) == [["function", "core.ops.indexing.take"], ["function", "core.ops.shape.split"],
                                      ["function", "core.ops.indexing.take"],
                                      ["function", "core.ops.indexing.gather_scatter"]]
