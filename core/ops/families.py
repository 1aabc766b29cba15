"""Imports the op families, so each registers its ops; core/__init__ imports this before binding.

A lazy unit is not imported by `import core`: its names are in the generated table
core/ops/lazy_table.py (names only), and registry.add_lazy puts placeholders in their place (a
LazyOpInfo in OPS, stubs in FUNCTIONS, LazyAttributes in METHODS); the first use of any of them imports
the unit (registry.load_family). Every public name exists from the start (core.svd, Tensor.gather,
OPS["gather"], dir(), hasattr); only the moment a unit is imported differs. Units are
- whole families, LAZY (reduce, linalg, sorting, random, nn, factories, masked);
- single modules of the eager packages shape and indexing (their LAZY_SUBMODULES), which re-export
  names from them through a PEP 562 __getattr__ (registry.lazy_exports).
Everything else is imported here, in ORDER, which is also the order of OPS (a lazy unit's placeholders
take its place; a package's lazy submodules follow its eager part).

Why these (docs/architecture.md, "Lazy loading"): a unit is lazy when importing it costs a command that
does not need it ~5 ms or more. A lazy unit must not share a name with another unit, record a property
or an operator, or be imported at module level by eager code: scripts/regenerate.py checks all three
when it writes the table.
"""
from __future__ import annotations

import importlib
import sys

from . import lazy_table, registry

# import order = the order of OPS (a later family may override an earlier one's name; lazy ones may not)
ORDER = ("pointwise", "reduce", "linalg", "shape", "indexing", "einsum", "sorting", "random", "nn", "conversion",
         "factories", "masked")
LAZY = ("reduce", "linalg", "sorting", "random", "nn", "factories", "masked")    # whole families
_NONE = {"ops": (), "functions": (), "methods": ()}


def units() -> list:
    """Every lazy unit's module, in ORDER (a package's lazy submodules after it)."""
    out = []
    for family in ORDER:
        module = f"{__package__}.{family}"
        if family in LAZY:
            out.append(module)
        else:
            out += [f"{module}.{sub}" for sub in getattr(sys.modules[module], "LAZY_SUBMODULES", ())]
    return out


def _add_placeholders(module):
    if module not in sys.modules:   # (imported by eager code already: scripts/regenerate.py reports it)
        registry.add_lazy(module, lazy_table.FAMILIES.get(module, _NONE))


def _import_families():
    for family in ORDER:
        module = f"{__package__}.{family}"
        if family in LAZY:
            _add_placeholders(module)
            continue
        package = importlib.import_module(module)
        for sub in getattr(package, "LAZY_SUBMODULES", ()):
            _add_placeholders(f"{module}.{sub}")


def load_all():
    """Import every lazy unit (what listing every op's metadata, or regenerating the tables, needs)."""
    for module in units():
        registry.load_family(module)


_import_families()
