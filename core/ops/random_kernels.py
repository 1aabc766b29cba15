"""NumPy ports of torch's CPU random kernels (ATen/native/cpu/DistributionTemplates.h,
ATen/core/DistributionsHelper.h, TransformationHelper.h, TensorFactories.cpp randperm_cpu).
Each takes a core.random.Generator and returns the n values in the order the kernel writes them
(memory order), drawing exactly the words torch draws, vectorised over the 32-bit word stream."""
from __future__ import annotations

import math

import numpy as np

from .. import _rng_math as m
from .. import dtypes as _dt

_M24 = np.uint64((1 << 24) - 1)
_M53 = np.uint64((1 << 53) - 1)
_DIGITS = {"float16": 11, "float32": 24, "float64": 53}
_TWO_PI = 2.0 * math.pi


# -- uniform_real_distribution<T> ---------------------------------------------------------------

_CHUNK = 1 << 14        # elements per pass of the chunked samplers: temporaries stay small


def unit(gen, n, dt):
    """n draws of uniform_real_distribution<T>(0, 1) before the affine step: 24 bits of random()
    times 2**-24 in float (float and Half), 53 bits of random64() times 2**-53 for double."""
    if dt is _dt.float64:
        return (gen.words64(n) & _M53).astype(np.float64) * 2.0 ** -53
    return (gen.words(n) & _M24).astype(np.float32) * np.float32(2.0 ** -24)   # Half too: float's 24 bits


def _chunked(n, npdt, draw, out=None):
    """An n-array (or `out`) filled chunk by chunk with draw(count) (draws stay in stream order)."""
    out = np.empty(n, npdt) if out is None else out
    for i in range(0, n, _CHUNK):
        out[i:i + _CHUNK] = draw(min(_CHUNK, n - i))
    return out


def uniform(gen, n, dt, a=0.0, b=1.0, out=None):
    """uniform_kernel: x * (to - from) + from in T's accumulate type (GCC contracts it to an FMA);
    a value that rounds up to `to` in T becomes `from`, keeping [from, to). Written into `out`
    (a flat array of n) when given."""
    return _chunked(n, dt.np, lambda k: _uniform_chunk(gen, k, dt, a, b), out)


def _uniform_chunk(gen, n, dt, a, b):
    x = unit(gen, n, dt)
    if dt is _dt.float64:
        r = m.fma64(x, float(b) - float(a), float(a)) if (a, b) != (0.0, 1.0) else x
    else:
        lo, hi = np.float32(a), np.float32(b)   # Half too: from/to stay float (the accumulate type)
        r = (m.fma32(x, hi - lo, lo) if (lo, hi) != (0.0, 1.0) else x).astype(dt.np)
    lo, hi = np.asarray(a, dt.np), np.asarray(b, dt.np)
    return np.where(r == hi, lo, r) if lo != hi else r


# -- normal -------------------------------------------------------------------------------------

def normal(gen, n, dt, mean=0.0, std=1.0, contiguous=True, out=None):
    """normal_kernel: normal_fill (uniforms first, then Box-Muller in blocks of 16, the last 16
    redrawn when n % 16) for contiguous tensors of >= 16 elements; otherwise one
    normal_distribution<double> draw per element (with the generator's cached second value)."""
    if n >= 16 and contiguous:
        if dt is _dt.float32:
            return _normal_fill(gen, n, dt, lambda d: _fill16_avx2(d, mean, std), out)
        if dt is _dt.float16:
            return _normal_fill_half(gen, n, mean, std)
        return _normal_fill(gen, n, dt, lambda d: _fill16(d, dt, mean, std), out)
    return _affine64(normal_double(gen, n), mean, std).astype(dt.np)


_CHUNK_ROWS = 2048      # rows of 16 per NumPy pass: keeps the temporaries in cache


def _normal_fill(gen, n, dt, fill16, out=None):
    out = _chunked(n, dt.np, lambda k: unit(gen, k, dt), out)     # every uniform first, as torch
    full = n // 16 * 16
    rows = out[:full].reshape(-1, 16)
    for i in range(0, rows.shape[0], _CHUNK_ROWS):        # then Box-Muller in place, block by block
        rows[i:i + _CHUNK_ROWS] = fill16(rows[i:i + _CHUNK_ROWS])
    if n % 16:
        out[n - 16:] = fill16(unit(gen, 16, dt).astype(dt.np).reshape(1, 16)).reshape(-1)
    return out


def _fill16_avx2(d, mean, std):
    """normal_fill_16_AVX2 on float32 rows of 16."""
    u1 = np.float32(1) - d[:, :8]
    radius = np.sqrt(np.float32(-2) * m.log256_ps(u1))
    s, c = m.sincos256_ps(np.float32(2 * math.pi) * d[:, 8:])
    out = np.concatenate([radius * c, radius * s], axis=1)
    mean, std = np.float32(mean), np.float32(std)
    return out if (mean, std) == (0, 1) else m.fma32(out, std, mean)


def _normal_fill_half(gen, n, mean, std):
    """Half: the float32 kernel on uniforms padded to a multiple of 16; the last 16 outputs are the
    last (padded) block's, then everything is rounded to Half."""
    padded = -(-n // 16) * 16
    rows = unit(gen, padded, _dt.float32).reshape(-1, 16)
    buf = np.concatenate([_fill16_avx2(rows[i:i + _CHUNK_ROWS], mean, std)
                          for i in range(0, rows.shape[0], _CHUNK_ROWS)]).reshape(-1)
    if n % 16:
        buf = np.concatenate([buf[:n - 16], buf[padded - 16:]])
    return buf.astype(np.float16)


def _fill16(d, dt, mean, std):
    """normal_fill_16<double>: std::log/cos/sin (glibc) per element, `* std + mean` fused."""
    radius = np.sqrt(-2.0 * m.log(1.0 - d[:, :8]))
    theta = _TWO_PI * d[:, 8:]
    out = np.concatenate([radius * m.cos(theta), radius * m.sin(theta)], axis=1)
    return out if (mean, std) == (0, 1) else m.fma64(out, float(std), float(mean))


def normal_double(gen, n):
    """n draws of normal_distribution<double>(0, 1): u1, u2 = two uniform doubles,
    r * cos(2 pi u1) with r = sqrt(-2 log1p(-u2)); r * sin(...) is cached for the next draw."""
    out = np.empty(n, np.float64)
    i = 0
    if n and gen._normal_double is not None:
        out[0], gen._normal_double, i = gen._normal_double, None, 1
    k = (n - i + 1) // 2
    if k:
        u = unit(gen, 2 * k, _dt.float64)
        r = np.sqrt(-2.0 * m.log1p(-u[1::2]))
        theta = _TWO_PI * u[0::2]
        pairs = np.empty(2 * k, np.float64)
        pairs[0::2] = r * m.cos(theta)
        pairs[1::2] = r * m.sin(theta)
        out[i:] = pairs[:n - i]
        if (n - i) % 2:
            gen._normal_double = float(pairs[-1])
    return out


def _affine64(x, mean, std):
    """transformation::normal: val * std + mean in double (contracted to an FMA)."""
    return x if (mean, std) == (0, 1) else m.fma64(x, float(std), float(mean))


# -- integers ------------------------------------------------------------------------------------

def random_from_to(gen, n, dt, rng, base):
    """uniform_int_from_to_distribution: (random() % range) + base, or (random64() % range) + base
    once range >= 2**28 (the threshold torch 2.13 uses, for every dtype)."""
    if rng >= 1 << 28:
        v = gen.words64(n) % np.uint64(rng)
    else:
        v = gen.words(n) % np.uint64(rng)
    return _int_to(v.astype(np.int64) + np.int64(base), dt)


def random_full(gen, n, dt):
    """uniform_int_full_range: random64() as int64 (from = int64 min, to = None)."""
    return _int_to(gen.words64(n).view(np.int64), dt)


def random_default(gen, n, dt):
    """uniform_int_distribution<T>: random() (random64() for int64/double) modulo T's range:
    2**digits + 1 for floats, max + 1 for integers, the low bit for bool."""
    if dt is _dt.bool_:
        return (gen.words(n) & np.uint64(1)).astype(bool)
    wide = dt.name in ("int64", "float64")
    v = gen.words64(n) if wide else gen.words(n)
    if dt.is_floating_point:
        return (v % np.uint64((1 << _DIGITS[dt.name]) + 1)).astype(dt.np)
    return (v % np.uint64(int(np.iinfo(dt.np).max) + 1)).astype(dt.np)


def _int_to(v, dt):
    with np.errstate(all="ignore"):
        return v.astype(dt.np) if dt is not _dt.bool_ else v != 0


def randperm(gen, n):
    """randperm_cpu: Fisher-Yates from the front, z = random() % (n - i) swapped with i
    (n < 2**32 / 20; larger n use random64() in torch and are refused here)."""
    r = np.arange(n, dtype=np.int64)
    if n > 1:
        z = (gen.words(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).astype(np.int64)
        z += np.arange(n - 1, dtype=np.int64)
        rl = r.tolist()
        for i, j in enumerate(z.tolist()):
            rl[i], rl[j] = rl[j], rl[i]
        r = np.array(rl, dtype=np.int64)
    return r


# -- other distributions (one uniform double per element) ----------------------------------------

def bernoulli_scalar(gen, n, p):
    """bernoulli_distribution<double>(p): uniform double < p."""
    return unit(gen, n, _dt.float64) < float(p)


def bernoulli_tensor(gen, p):
    """bernoulli_tensor kernel: double p -> uniform double < p; float p -> uniform float < p."""
    p = p.reshape(-1)
    if p.dtype == np.float64:
        return unit(gen, p.size, _dt.float64) < p
    return unit(gen, p.size, _dt.float32) < p.astype(np.float32)


def exponential(gen, n, lambd):
    """exponential_distribution<double>: -1 / lambda * log1p(-u)."""
    u = unit(gen, n, _dt.float64)
    return (-1.0 / float(lambd)) * m.log1p(-u)


def geometric(gen, n, p):
    """geometric_distribution<double>: ceil(log(u) / log(1 - p))."""
    u = unit(gen, n, _dt.float64)
    with np.errstate(divide="ignore"):
        return np.ceil(m.log(u) / math.log(1.0 - float(p)))


def cauchy(gen, n, median, sigma):
    """cauchy_distribution<double>: median + sigma * tan(pi * (u - 0.5))."""
    u = unit(gen, n, _dt.float64)
    return m.fma64(np.full(n, float(sigma)), m.tan(math.pi * (u - 0.5)), float(median))


def log_normal(gen, n, mean, std):
    """lognormal_distribution<double>: exp(normal_distribution<double>(mean, std))."""
    return m.exp(_affine64(normal_double(gen, n), mean, std))


# -- multinomial, poisson --------------------------------------------------------------------------

def multinomial_with_replacement(gen, probs, n_sample):
    """multinomial_with_replacement_apply (n_sample >= 2): per row, the running sum in T (float for
    Half) normalised by the total, last bucket forced to 1, then for each sample the first bucket
    whose cumulative value is >= a uniform double (the kernel's binary search)."""
    acc = np.float32 if probs.dtype == np.float16 else probs.dtype.type
    out = np.empty((probs.shape[0], n_sample), np.int64)
    for i, row in enumerate(probs.astype(acc)):
        cum = np.cumsum(row, dtype=acc)          # sequential, as the kernel's loop
        cum = cum / cum[-1]
        cum[-1] = 1
        u = unit(gen, n_sample, _dt.float64)
        out[i] = np.searchsorted(cum.astype(np.float64), u, side="left")
    return out


def poisson(gen, lam):
    """sample_poisson for each rate (in memory order): Hoermann's transformed rejection for
    lambda >= 10, the product of uniform doubles below; uniform doubles from the generator."""
    out = np.empty(lam.size, np.float64)
    for i, rate in enumerate(lam.astype(np.float64).ravel().tolist()):
        out[i] = _poisson_one(gen, rate)
    return out


def _fma(a, b, c):
    return float(m.fma64(np.array([a]), b, c)[0])


def _poisson_one(gen, lam):
    if lam >= 10:
        slam, loglam = math.sqrt(lam), math.log(lam)
        b = _fma(2.53, slam, 0.931)
        a = _fma(0.02483, b, -0.059)
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = _uniform1(gen) - 0.5
            v = _uniform1(gen)
            us = 0.5 - abs(u)
            k = math.floor(_fma(2 * a / us + b, u, lam) + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            lhs = math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)
            if lhs <= _fma(k, loglam, -lam) - math.lgamma(k + 1.0):
                return k
    if lam == 0:
        return 0
    enlam, x, prod = math.exp(-lam), 0, 1.0
    while True:
        prod *= _uniform1(gen)
        if prod > enlam:
            x += 1
        else:
            return x


def _uniform1(gen):
    return float(unit(gen, 1, _dt.float64)[0])


# -- binomial ---------------------------------------------------------------------------------------

_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                  0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                  0.00925546218271273, 0.00833056343336287)


def _stirling_tail(k):
    if k <= 9:
        return _STIRLING_TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _binomial_inversion(gen, count, prob, s):
    geom_sum, num_geom, logprob = 0.0, 0.0, float(np.log1p(s(-prob)))    # log1pf for float
    while True:
        u = _uniform1(gen)
        geom_sum += math.ceil(math.log(u) / logprob) if u > 0 else math.inf
        if geom_sum > count:
            return num_geom
        num_geom += 1


def _btrs(gen, count, prob, s):
    """Hormann's BTRS as ATen writes it (with its missing log): `s` rounds what ATen computes in scalar_t
    (float for float32 tensors), the rest is double."""
    stddev = float(np.sqrt(s(s(count * prob) * s(1 - prob))))
    b = _fma(2.53, stddev, 1.15)
    a = _fma(0.01, prob, _fma(0.0248, b, -0.0873))
    c = _fma(float(s(count * prob)), 1.0, 0.5)
    v_r = 0.92 - 4.2 / b
    r = float(s(prob / s(1 - prob)))
    alpha = (2.83 + 5.1 / b) * stddev
    m_ = float(math.floor(s((count + 1) * prob)))
    while True:
        u = _uniform1(gen) - 0.5
        v = _uniform1(gen)
        us = 0.5 - abs(u)
        k = float(math.floor(_fma(2 * a / us + b, u, c)))
        if k < 0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        upper = ((m_ + 0.5) * math.log((m_ + 1) / (r * (count - m_ + 1)))
                 + (count + 1) * math.log((count - m_ + 1) / (count - k + 1))
                 + (k + 0.5) * math.log(r * (count - k + 1) / (k + 1))
                 + _stirling_tail(m_) + _stirling_tail(count - m_) - _stirling_tail(k) - _stirling_tail(count - k))
        if v <= upper:
            return k


def _binomial_one(gen, count, prob, s):
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        return _btrs(gen, count, prob, s) if s(count * prob) >= 10.0 else _binomial_inversion(gen, count, prob, s)
    if prob > 0.5:
        q = float(s(1.0 - prob))
        if s(count * q) >= 10.0:
            return count - _btrs(gen, count, q, s)
        return count - _binomial_inversion(gen, count, q, s)
    return math.nan


def binomial(gen, count, prob):
    """sample_binomial for each (count, prob) pair in memory order (cpu_serial_kernel): BTRS when the
    mean of the smaller tail is >= 10, geometric inversion below; uniform doubles from the generator;
    scalar_t arithmetic in float for float32/half tensors."""
    s = float if count.dtype == np.float64 else np.float32
    out = np.empty(count.size, np.float64)
    for i, (n, p) in enumerate(zip(count.ravel().tolist(), prob.ravel().tolist())):
        out[i] = _binomial_one(gen, n, p, s)
    return out
