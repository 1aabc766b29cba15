"""Imports the op families, so each registers its ops; core/__init__ imports this before binding.

`import core` imports only what the generated table core/ops/lazy_table.py marks eager. Laziness has
two grains:
- whole families (LAZY: linalg, sorting, random, nn, factories, masked): none of their modules is
  imported at start-up;
- single modules of the packages in FINE (pointwise, reduce, shape, indexing) and the one-module
  families (einsum, conversion): each submodule is a unit of its own, so `tensorcli gather` imports
  indexing/gather_scatter.py and what it imports, not the other ~80 op modules.
A lazy unit is represented by placeholders built from its table row (registry.add_lazy): a LazyOpInfo
in OPS, stubs in FUNCTIONS, LazyAttributes in METHODS; the first use of any of them imports the unit
(registry.load_family). Every public name exists as before (core.svd, Tensor.gather, OPS["gather"],
dir(), hasattr); only the moment a module is imported differs.

The table lists the units in the order an eager import completes them, so OPS keeps the eager order;
a unit stays eager when laziness could change anything (core/ops/lazy_gen.py: it shares a name with
another unit, records a non-function method or an operator, or an eager unit imports it).

    python -m core.ops                 regenerate core/ops/lazy_table.py (after changing an op module)
    CORE_EAGER_FAMILIES=1              import every op module at start-up (the generator and tests use it)
"""
from __future__ import annotations

import importlib
import os
import sys

from . import lazy_table, registry

# import order = registration order (OPS lists ops in this order; a later family may override)
ORDER = ("pointwise", "reduce", "linalg", "shape", "indexing", "einsum", "sorting", "random", "nn", "conversion",
         "factories", "masked")
LAZY = ("linalg", "sorting", "random", "nn", "factories", "masked")    # whole families
FINE = ("pointwise", "reduce", "shape", "indexing")                         # lazy per submodule
if not lazy_table.UNITS:    # no table yet (the generator's first run): import everything
    registry.EAGER = True
EAGER = registry.EAGER
KEYS = ("ops", "functions", "methods")
EVENTS: list = []    # eager mode only: (unit, {key: {name: value}}) in the order units completed


def _snapshot():
    return [dict(registry.OPS), dict(registry.FUNCTIONS), dict(registry.METHODS)]


_last = []


def _record(unit):
    """Eager mode: what `unit` (a module that just ran) registered since the previous unit."""
    now = _snapshot()
    EVENTS.append((unit, {key: {n: v for n, v in new.items() if old.get(n) is not v}
                          for key, old, new in zip(KEYS, _last[0], now)}))
    _last[0] = now


def _record_submodule(module):
    _record(module.__name__)


def _import_all():
    """CORE_EAGER_FAMILIES=1: import every family, recording what each unit registers (the table's source)."""
    _last.append(_snapshot())
    registry.SUBMODULE_HOOKS.append(_record_submodule)
    for family in ORDER:
        module = f"{__package__}.{family}"
        importlib.import_module(module)
        _record(module)
    registry.SUBMODULE_HOOKS.remove(_record_submodule)


def _import_eager_units():
    """Lazy mode: in the table's order, import each eager unit and add placeholders for each lazy one."""
    for unit, eager in lazy_table.UNITS:
        if eager:
            importlib.import_module(unit)
        elif unit not in sys.modules:
            registry.add_lazy(unit, lazy_table.FAMILIES[unit])


if EAGER:
    _import_all()
else:
    _import_eager_units()


def table_text() -> str:
    """The text of core/ops/lazy_table.py (eager mode)."""
    from . import lazy_gen   # the generator (ast, every source file): only when writing the table
    return lazy_gen.table_text()


def main():
    """`python -m core.ops`: regenerate core/ops/lazy_table.py (re-runs itself under CORE_EAGER_FAMILIES=1)."""
    if not EAGER:
        os.execve(sys.executable, [sys.executable, "-m", __package__], dict(os.environ, CORE_EAGER_FAMILIES="1"))
    path, text = lazy_table.__file__, table_text()
    with open(path, "w") as f:
        f.write(text)
    print(f"wrote {path}")
