"""The one allocation limit of tensorcli: `--max-bytes SIZE` on every command, `TENSORCLI_MAX_BYTES`
as its environment form, by default a fraction of physical memory.

The limit is core's (`core.set_allocation_limit`: PyTorch would try and fail with "not enough
memory"; core refuses before NumPy allocates) and also bounds the expression language's static
estimates. Standard library only: the app applies the default before any command imports core,
through core's own environment variable (CORE_MAX_ALLOC_BYTES), so no command pays for it.
"""
from __future__ import annotations

import os
import re
import sys

from ..errors import CliError

ENV = "TENSORCLI_MAX_BYTES"
CORE_ENV = "CORE_MAX_ALLOC_BYTES"
FRACTION = 0.5              # default: half of physical memory
FALLBACK = 2 * 1024 ** 3    # when physical memory is unknown
FLAG_HINT = "raise it with --max-bytes SIZE or TENSORCLI_MAX_BYTES"

_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1024 ** 2, "mb": 1024 ** 2,
          "mib": 1024 ** 2, "g": 1024 ** 3, "gb": 1024 ** 3, "gib": 1024 ** 3, "t": 1024 ** 4,
          "tb": 1024 ** 4, "tib": 1024 ** 4}


def parse_size(text, arg: str = "--max-bytes") -> int:
    """'2GiB', '512M', '1.5g', '1000000' -> bytes (binary units); CliError(arg) otherwise."""
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    else:
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", str(text))
        if not m or m.group(2).lower() not in _UNITS:
            raise CliError(arg, f"expected a byte count such as 2GiB, 512MiB or 1000000, got {text!r}")
        value = int(float(m.group(1)) * _UNITS[m.group(2).lower()])
    if value < 1:
        raise CliError(arg, f"must be at least 1 byte, got {text!r}")
    return value


def physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def default_max_bytes() -> int:
    """FRACTION of physical memory (FALLBACK when unknown)."""
    phys = physical_memory()
    return int(phys * FRACTION) if phys else FALLBACK


def effective(text=None) -> int:
    """The limit in force: --max-bytes, else TENSORCLI_MAX_BYTES, else CORE_MAX_ALLOC_BYTES, else
    the default."""
    if text is not None:
        return parse_size(text)
    if os.environ.get(ENV, "").strip():
        return parse_size(os.environ[ENV], arg=ENV)
    if os.environ.get(CORE_ENV, "").strip().isdigit():
        return int(os.environ[CORE_ENV])
    return default_max_bytes()


def apply(nbytes: int) -> int:
    """Make `nbytes` core's allocation limit, now (core imported) or when core is imported."""
    os.environ[CORE_ENV] = str(int(nbytes))
    alloc = sys.modules.get("core._alloc")
    if alloc is not None:
        alloc.set_allocation_limit(int(nbytes))
    return int(nbytes)


def snapshot():
    """The limit state before a run (in-process callers, such as tests, get it back after)."""
    alloc = sys.modules.get("core._alloc")
    return os.environ.get(CORE_ENV), (alloc.get_allocation_limit() if alloc is not None else None)


def restore(state) -> None:
    env, core_limit = state
    if env is None:
        os.environ.pop(CORE_ENV, None)
    else:
        os.environ[CORE_ENV] = env
    alloc = sys.modules.get("core._alloc")
    if alloc is not None:
        alloc.set_allocation_limit(core_limit if core_limit is not None else int(env) if env else None)


def describe(nbytes: int) -> str:
    for unit, size in (("GiB", 1024 ** 3), ("MiB", 1024 ** 2), ("KiB", 1024)):
        if nbytes >= size:
            return f"{nbytes / size:.4g} {unit}"
    return f"{nbytes} bytes"
