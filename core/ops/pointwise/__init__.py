"""Elementwise ops with broadcasting and PyTorch's type promotion; each op's forward, backward and
registration live together in one of the small modules below. This package adds the aliases
(`subtract`, `clip`, `arctan2`, ...), their in-place twins, the augmented operators (`+=` is in
place, as in PyTorch) and `Tensor.where`, and re-exports what other op families import."""
from __future__ import annotations

from ...autograd.function import Op
from .. import registry
from . import (_common, addc, arithmetic, binary_math, clamp_where, comparison, fill_copy, logical_bitwise,  # noqa: F401
               power, special, unary)
from . import special_ops, special_poly  # noqa: F401
from . import special_bessel_second_kind  # noqa: F401  (registers on import)

# the former flat namespace's modules, in its order (also: the modules whose Ops are elementwise)
_MODULES = ("_common", "addc", "unary", "arithmetic", "comparison", "logical_bitwise", "clamp_where", "power",
            "fill_copy", "special", "binary_math", "special_ops", "special_poly")
_ALIASES = {"subtract": "sub", "multiply": "mul", "divide": "div", "true_divide": "div", "negative": "neg",
            "absolute": "abs", "clip": "clamp", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
            "arctan2": "atan2", "not_equal": "ne", "less": "lt", "less_equal": "le", "greater": "gt",
            "greater_equal": "ge", "fix": "trunc", "arccosh": "acosh", "arcsinh": "asinh", "arctanh": "atanh"}
# `t += x` is in place in PyTorch (views and aliases see the change)
_AUGMENTED = (("__iadd__", "add_"), ("__isub__", "sub_"), ("__imul__", "mul_"), ("__itruediv__", "div_"),
              ("__ifloordiv__", "floor_divide_"), ("__imod__", "remainder_"), ("__ipow__", "pow_"))


def _where_method(self, condition, other):
    """Tensor.where(condition, y) == torch.where(condition, self, y)."""
    return registry.FUNCTIONS["where"](condition, self, other)


def _record_aliases():
    """core.<alias> and Tensor.<alias>_ (the target's in-place variant), as PyTorch names them, and the
    augmented operators."""
    functions, methods = registry.FUNCTIONS, registry.METHODS
    for alias, target in _ALIASES.items():
        functions.setdefault(alias, functions[target])
        if target + "_" in methods and alias + "_" not in methods:
            registry.method(alias + "_", methods[target + "_"])
    for dunder, method in _AUGMENTED:
        if method in methods:
            registry.method(dunder, methods[method])


def _mark_elementwise(mod):
    """Every Op of this package is elementwise: keep the input's memory layout, as PyTorch does."""
    for obj in list(vars(mod).values()):
        if isinstance(obj, type) and issubclass(obj, Op) and obj.__module__.startswith(__name__):
            obj.contiguous_output = False


def _export_flat_namespace():
    """Every name of the former single-file pointwise.py stays importable from the package: other op
    families import helpers from it (`_out`, `_binary`, `where`, `_to_dtype`, ...)."""
    g = globals()
    for name in _MODULES:
        for k, v in vars(g[name]).items():
            if not k.startswith("__"):
                g.setdefault(k, v)
    for alias, target in _ALIASES.items():
        g[alias] = g[target]


_record_aliases()
for _name in _MODULES:
    _mark_elementwise(globals()[_name])
_export_flat_namespace()
registry.method("where", _where_method)
