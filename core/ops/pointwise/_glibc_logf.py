"""glibc's logf (std::log on a float, in ATen's scalar kernels: xlogy, kl_div) bit for bit in NumPy.

glibc 2.28+ (sysdeps/ieee754/flt-32/e_logf.c, from ARM's optimized-routines): x = 2**k * z with z in
[0x3f330000, 2 * 0x3f330000) as float bits, c the centre of z's sixteenth of that range (a table of 1/c and
log(c)), r = z / c - 1 and log(x) = k ln2 + log(c) + log1p(r) by a degree-4 polynomial, all in double, rounded
once to float. The multiply-adds are written unfused here; the FMA build (x86-64 multiarch, used on CPUs with FMA)
gave the same floats on every one checked: all floats in [0.5, 1), a third of [1, 2), 3 million random positive
normal floats and 300,000 of the audit's magnitudes (glibc 2.36, through ctypes)."""
from __future__ import annotations

import numpy as np

from ... import _vec_math as _vm

_TAB = (("0x1.661ec79f8f3bep+0", "-0x1.57bf7808caadep-2"), ("0x1.571ed4aaf883dp+0", "-0x1.2bef0a7c06ddbp-2"),
        ("0x1.49539f0f010bp+0", "-0x1.01eae7f513a67p-2"), ("0x1.3c995b0b80385p+0", "-0x1.b31d8a68224e9p-3"),
        ("0x1.30d190c8864a5p+0", "-0x1.6574f0ac07758p-3"), ("0x1.25e227b0b8eap+0", "-0x1.1aa2bc79c81p-3"),
        ("0x1.1bb4a4a1a343fp+0", "-0x1.a4e76ce8c0e5ep-4"), ("0x1.12358f08ae5bap+0", "-0x1.1973c5a611cccp-4"),
        ("0x1.0953f419900a7p+0", "-0x1.252f438e10c1ep-5"), ("0x1p+0", "0x0p+0"),
        ("0x1.e608cfd9a47acp-1", "0x1.aa5aa5df25984p-5"), ("0x1.ca4b31f026aap-1", "0x1.c5e53aa362eb4p-4"),
        ("0x1.b2036576afce6p-1", "0x1.526e57720db08p-3"), ("0x1.9c2d163a1aa2dp-1", "0x1.bc2860d22477p-3"),
        ("0x1.886e6037841edp-1", "0x1.1058bc8a07ee1p-2"), ("0x1.767dcf5534862p-1", "0x1.4043057b6ee09p-2"))
_INVC = np.array([float.fromhex(a) for a, _ in _TAB])
_LOGC = np.array([float.fromhex(b) for _, b in _TAB])
_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_A0, _A1, _A2 = (float.fromhex(v) for v in ("-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2", "-0x1.ffffef20a4123p-2"))
_OFF = 0x3f330000
_F32_MIN = np.float32(np.finfo(np.float32).tiny)


def logf(x):
    """glibc's logf on each element of a float32 array (special values as logf: -inf at 0, x86's default NaN below,
    a NaN input returned, inf at inf); in blocks whose float64 scratch stays in the L2 cache."""
    return _vm._blocked(_logf_block, x, np.float32, 8192)


def _logf_block(x):
    shape = x.shape
    x = x.ravel()
    with np.errstate(all="ignore"):
        ix = x.view(np.uint32)
        if np.minimum.reduce(x) < _F32_MIN or not np.maximum.reduce(x) < np.inf:    # NaN fails both
            sub = (ix > 0) & (ix < 0x00800000)
            if sub.any():       # subnormal: normalised by 2**23
                ix = np.where(sub, (x * np.float32(2.0 ** 23)).view(np.uint32) - np.uint32(23 << 23), ix)
        tmp = ix - np.uint32(_OFF)                        # uint32 arithmetic wraps as C's
        i = (tmp >> np.uint32(19)) & np.uint32(15)
        k = (tmp.view(np.int32) >> 23).astype(np.float64)
        z = (ix - (tmp & np.uint32(0xFF800000))).view(np.float32).astype(np.float64)
        r = z * _INVC.take(i)
        r -= 1.0
        y0 = _LOGC.take(i)
        y0 += k * _LN2
        r2 = r * r
        y = _A1 * r
        y += _A2
        y += _A0 * r2
        y *= r2
        y0 += r
        y += y0
        out = y.astype(np.float32)       # x == 1 gives +0 here (glibc's early return only fixes downward rounding)
        if not (np.minimum.reduce(x) > 0 and np.maximum.reduce(x) < np.inf):     # NaN fails both
            out[x == np.inf] = np.inf
            out[x < 0] = -np.float32(np.nan)   # (x - x) / (x - x): x86's default NaN has the sign bit set
            out[x != x] = x[x != x]
            out[x == 0] = -np.inf
    return out.reshape(shape)
