"""The vector instruction set ATen's CPU dispatch picks on this machine (cpuinfo's flags; ATEN_CPU_CAPABILITY can
only lower it, as in torch), for the kernels whose results depend on the vector width: NaN handling in the vector
lanes and in the scalar tail of a loop can differ."""
from __future__ import annotations

import functools
import os

_ORDER = ("default", "avx2", "avx512")


def _detected() -> str:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            line = next((ln for ln in f if ln.startswith("flags")), "")
    except OSError:
        return "avx2"
    flags = set(line.partition(":")[2].split())
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        return "avx512"
    if {"avx2", "fma"} <= flags:
        return "avx2"
    return "default"


@functools.lru_cache(maxsize=None)
def capability() -> str:
    """'avx512', 'avx2' or 'default': what a kernel registered for AVX512 (ALSO_REGISTER_AVX512) runs on."""
    best = _detected()
    env = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    return env if env in _ORDER and _ORDER.index(env) < _ORDER.index(best) else best


def unroll_bytes(avx512_kernel: bool) -> int:
    """Bytes per iteration of ATen's vectorised loop (two Vectorized<T>: 2 x 32 bytes on AVX2, 2 x 64 for a
    kernel also built for AVX512 on a CPU that has it)."""
    return 128 if avx512_kernel and capability() == "avx512" else 64
