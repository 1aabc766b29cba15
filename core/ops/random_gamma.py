"""torch._standard_gamma, torch._sample_dirichlet, torch._standard_gamma_grad and torch._dirichlet_grad with
torch's CPU values bit for bit: ports of ATen's sample_gamma, standard_gamma_grad_one, dirichlet_grad_one
and digamma_one (aten/src/ATen/native/Distributions.h, BSD) and of _s_gamma_cpu / _s_dirichlet_cpu /
_standard_gamma_grad_cpu / _dirichlet_grad_cpu (Distributions.cpp). Each element is a cpu_serial_kernel
step in the (contiguous) output's order, drawing uniform doubles and normal_distribution<double> values (with the
generator's cached second Box-Muller value) from the generator in ATen's order. Scalar math is glibc's
(Python's math module calls it, as ATen does); `s` rounds what ATen computes in scalar_t."""
from __future__ import annotations

import ctypes
import ctypes.util
import math

import numpy as np

from .. import dtypes as _dt
from ..autograd.function import Op
from ..random import gen_or_default
from ..tensor import Tensor
from .registry import export

_F32 = np.float32
_THIRD_F = float(_F32(1.0) / _F32(3.0))      # 1.0f / 3.0f
_C0331 = float(_F32(0.0331))                  # 0.0331f
_LONG = {"float16": "Half", "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
         "bool": "Bool"}


def _log(x):
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


def _sqrt(x):
    return math.sqrt(x) if x >= 0 else math.nan


def _pow(x, y):
    try:
        return math.pow(x, y)
    except (ValueError, OverflowError):
        return float(np.power(np.float64(x), np.float64(y)))


def _libm():
    """glibc's libm (its float logf / powf / tanf are what ATen's float kernels call)."""
    try:
        return ctypes.CDLL("libm.so.6")
    except OSError:     # not glibc's soname: let ctypes look it up (runs ldconfig)
        return ctypes.CDLL(ctypes.util.find_library("m"))


_LIBM = _libm()
for _name in ("logf", "powf", "tanf"):
    getattr(_LIBM, _name).restype = ctypes.c_float
    getattr(_LIBM, _name).argtypes = [ctypes.c_float] * (2 if _name == "powf" else 1)


def _logs(x, s):
    """std::log in scalar_t: glibc's logf for float, log for double."""
    return float(_F32(_LIBM.logf(x))) if s is _F32 else _log(x)


def _pows(x, y, s):
    return float(_F32(_LIBM.powf(x, y))) if s is _F32 else _pow(x, y)


def _check_float(t, kernel):
    if t.dtype not in (_dt.float32, _dt.float64):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_LONG.get(t.dtype.name, t.dtype.name)}'")


def _scalar_type(np_dtype):
    return float if np_dtype == np.float64 else _F32


def _serial(out_dtype, fn, *arrays):
    """cpu_serial_kernel into a fresh contiguous output: fn over the broadcast inputs in C order (the
    output's memory order, which TensorIterator follows)."""
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    vals = [fn(*v) for v in zip(*(np.broadcast_to(a, shape).ravel().tolist() for a in arrays))]
    return np.array(vals, out_dtype).reshape(shape) if vals else np.zeros(shape, out_dtype)


# -- sample_gamma -----------------------------------------------------------------------------------

class _Stream:
    """The generator's uniform doubles (random64() & (2**53 - 1), times 2**-53) and normal_distribution<double>
    draws (Box-Muller with the generator's cached second value), read from a block of pre-drawn words.
    close() rewinds the generator and re-draws exactly the words consumed, leaving it where ATen leaves it."""

    def __init__(self, gen, hint):
        self.gen, self.state, self.override = gen, gen._bitgen.state, gen._next_override
        self.buf, self.pos = gen.words(hint + 64).tolist(), 0

    def uniform(self):
        pos = self.pos
        if pos + 2 > len(self.buf):
            self.buf += self.gen.words(len(self.buf)).tolist()
        self.pos = pos + 2
        return (((self.buf[pos] << 32) | self.buf[pos + 1]) & 0x1FFFFFFFFFFFFF) * 2.0 ** -53

    def normal(self):
        gen = self.gen
        if gen._normal_double is not None:
            value, gen._normal_double = gen._normal_double, None
            return value
        u1, u2 = self.uniform(), self.uniform()
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        gen._normal_double = r * math.sin(theta)
        return r * math.cos(theta)

    def close(self):
        gen = self.gen
        gen._bitgen.state = self.state
        if self.pos:
            gen.words(self.pos)
        else:
            gen._next_override = self.override


def sample_gamma(alpha, st, s):
    """ATen's sample_gamma<scalar_t, double> drawing from the _Stream st: Marsaglia-Tsang, boosted (alpha + 1,
    times U^(1/alpha)) below 1."""
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        scale *= _pow(1 - st.uniform(), float(s(1.0) / s(alpha)))
        alpha = float(s(alpha) + s(1.0))
    d = float(s(alpha) - s(_THIRD_F))
    c = 1.0 / _sqrt(9.0 * d)
    while True:
        while True:
            x = st.normal()
            y = 1.0 + c * x
            if not y <= 0:
                break
        v = y * y * y
        u = 1 - st.uniform()
        xx = x * x
        if u < 1.0 - _C0331 * xx * xx:
            return scale * d * v
        if _log(u) < 0.5 * xx + d * (1.0 - v + _log(v)):
            return scale * d * v


def gamma_np(alpha, gen):
    """_s_gamma_cpu on an ndarray: one draw per alpha in memory order, max(tiny, sample) in the dtype."""
    s = _scalar_type(alpha.dtype)
    tiny = alpha.dtype.type(np.finfo(alpha.dtype).tiny)
    st = _Stream(gen, 8 * alpha.size)
    try:
        with np.errstate(all="ignore"):
            return _serial(alpha.dtype, lambda a: max(tiny, alpha.dtype.type(sample_gamma(a, st, s))), alpha)
    finally:
        st.close()


class StandardGammaBackward0(Op):
    """derivatives.yaml: self: grad * _standard_gamma_grad(self, result)."""

    @staticmethod
    def forward(ctx, alpha, gen):
        out = gamma_np(alpha._data, gen)
        ctx.alpha_np, ctx.out_np = alpha._data, out
        return out

    @staticmethod
    def backward(ctx, g):
        return g * Tensor._make(gamma_grad_np(ctx.alpha_np, ctx.out_np))


@export
def _standard_gamma(input, generator=None):
    """torch._standard_gamma(alpha): one Gamma(alpha, 1) draw per element (ATen's sample_gamma), with the
    reparameterised gradient of _standard_gamma_grad."""
    _check_float(input, "gamma_cpu")
    return StandardGammaBackward0.apply(input, gen_or_default(generator))


# -- _sample_dirichlet ------------------------------------------------------------------------------

def dirichlet_np(alpha, gen):
    """_s_dirichlet_cpu: double gammas (alpha cast to double), over their sum along the last dim (torch's
    sum order), cast to the dtype and clamped to [tiny, nexttoward(1, 0)]."""
    tiny64 = np.finfo(np.float64).tiny
    st = _Stream(gen, 8 * alpha.size)
    try:
        with np.errstate(all="ignore"):
            gamma = _serial(np.float64, lambda a: max(tiny64, sample_gamma(a, st, float)), alpha.astype(np.float64))
    finally:
        st.close()
    with np.errstate(all="ignore"):
        total = Tensor._make(gamma).sum(-1, keepdim=True)._data
        ratio = (gamma / total).astype(alpha.dtype)
    one = alpha.dtype.type(1)
    return np.minimum(np.nextafter(one, alpha.dtype.type(0)), np.maximum(np.finfo(alpha.dtype).tiny, ratio))


class NotImplemented(Op):    # noqa: A001  torch's grad_fn name for ops whose derivative is not implemented
    """_sample_dirichlet's node: backward raises (derivatives.yaml: not_implemented)."""

    @staticmethod
    def forward(ctx, alpha, gen):
        return dirichlet_np(alpha._data, gen)

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("derivative for aten::_sample_dirichlet is not implemented")


@export
def _sample_dirichlet(input, generator=None):
    """torch._sample_dirichlet(alpha): Dirichlet draws over the last dim (ATen's _s_dirichlet_cpu)."""
    _check_float(input, "dirichlet")
    return NotImplemented.apply(input, gen_or_default(generator))


# -- reparameterised gradients ---------------------------------------------------------------------

_PSI_10 = 2.25175258906672110764
_DIGAMMA_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
              -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
              8.33333333333333333333E-2)


def _digamma_one(x, s=float):
    """ATen's digamma_one<scalar_t, double> (Cephes): x, 1 / x, log(x) and 0.5f / x in scalar_t, the sums in
    double, the result rounded to scalar_t."""
    x = s(x)
    if x == 0:
        return math.inf
    additional = 0.0
    x_is_integer = x == math.floor(x)
    if x < 0:
        if x_is_integer:
            return math.inf
        pi = s(math.pi)
        tan = float(_F32(_LIBM.tanf(pi * x))) if s is _F32 else math.tan(pi * x)
        additional = float(s(-pi / s(tan)))
        x = s(1 - x)
    result = 0.0
    while x < 10:
        result -= float(s(1 / x))
        x = s(x + s(1))
    if x == 10:
        return float(s(result + _PSI_10 + additional))
    y = 0.0
    if x < 1.0e17:
        z = 1.0 / float(s(x * x))
        p = 0.0
        for a in _DIGAMMA_A:
            p = p * z + a
        y = z * p
    return float(s(result + _logs(float(x), s) - float(s(s(0.5) / x)) - y + additional))


_COEF_UV = ((0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
            (0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915,
             -0.00058392623),
            (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367,
             -1.5247877e-07))


def standard_gamma_grad_one(alpha, x):
    """ATen's standard_gamma_grad_one<scalar_t, double>: -(d/dalpha cdf(x; alpha)) / pdf(x; alpha), by a
    Taylor series (x < 0.8), Rice's saddle point (alpha > 8) or a bivariate rational approximation."""
    if x < 0.8:
        numer, denom = 1.0, alpha
        series1, series2 = numer / denom, numer / (denom * denom)
        for i in range(1, 6):
            numer *= -x / float(i)
            denom += 1
            series1 += numer / denom
            series2 += numer / (denom * denom)
        pow_x_alpha = _pow(x, alpha)
        gamma_pdf = _pow(x, alpha - 1) * math.exp(-x)
        gamma_cdf = pow_x_alpha * series1
        gamma_cdf_alpha = (_log(x) - _digamma_one(alpha)) * gamma_cdf - pow_x_alpha * series2
        with np.errstate(all="ignore"):
            result = float(np.float64(-gamma_cdf_alpha) / np.float64(gamma_pdf))
        return 0.0 if math.isnan(result) else result
    if alpha > 8.0:
        if float(_F32(0.9)) * alpha <= x <= float(_F32(1.1)) * alpha:
            numer_1 = 1 + 24 * alpha * (1 + 12 * alpha)
            numer_2 = 1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha + alpha * (107 + 3600 * x)
            denom = 1244160 * (alpha * alpha) * (alpha * alpha)
            return numer_1 * numer_2 / denom
        denom = _sqrt(8 * alpha)
        term2 = denom / (alpha - x)
        term3 = _pow(x - alpha - alpha * _log(x / alpha), -1.5)
        term23 = term2 - term3 if x < alpha else term2 + term3
        term1 = _log(x / alpha) * term23 - _sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x))
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        return -stirling * (x * term1) / denom
    u, v = _log(x / alpha), _log(alpha)
    cv = [_COEF_UV[0][i] + u * (_COEF_UV[1][i] + u * _COEF_UV[2][i]) for i in range(8)]
    p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]))
    q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]))
    return math.exp(p / q)


def gamma_grad_np(alpha, x):
    """_standard_gamma_grad_cpu: standard_gamma_grad_one per element, in double, rounded to the dtype."""
    dt = np.result_type(alpha, x)
    with np.errstate(all="ignore"):
        return _serial(dt, lambda a, v: _safe(standard_gamma_grad_one, float(a), float(v)), alpha, x)


def _safe(fn, *args):
    """fn(*args); on a Python division by zero or overflow, the same formula on NumPy float64 scalars, which
    give IEEE's inf / nan as ATen's C++ does."""
    try:
        return fn(*args)
    except (ZeroDivisionError, OverflowError):
        return float(fn(*(np.float64(a) if isinstance(a, float) else a for a in args)))


class StandardGammaGradBackward0(Op):
    @staticmethod
    def forward(ctx, alpha, output):
        return gamma_grad_np(alpha._data, output._data)

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("derivative for aten::_standard_gamma_grad is not implemented")


@export
def _standard_gamma_grad(self, output):
    """torch._standard_gamma_grad(alpha, sample): d sample / d alpha of a standard Gamma draw (ATen's
    standard_gamma_grad_one)."""
    _check_float(self, "_standard_gamma_grad_cpu")
    return StandardGammaGradBackward0.apply(self, output)


# -- _dirichlet_grad ----------------------------------------------------------------------------------

def _beta_grad_alpha_small(x, alpha, beta, s):
    """Taylor expansion near x = 0 (scalar_t arithmetic)."""
    factor = s(s(s(_digamma_one(alpha, s)) - s(_digamma_one(float(s(alpha + beta)), s))) - s(_logs(float(x), s)))
    numer = s(1)
    series = s(s(numer / alpha) * s(factor + s(1 / s(alpha))))
    for i in range(1, 11):
        ci = s(i)
        numer = s(numer * s(s(s(ci - beta) * x) / ci))
        denom = s(alpha + ci)
        series = s(series + s(s(numer / denom) * s(factor + s(1 / denom))))
    result = s(s(x * s(_pows(float(s(1 - x)), float(-beta), s))) * series)
    return 0.0 if math.isnan(result) else float(result)


def _beta_grad_beta_small(x, alpha, beta, s):
    """Taylor expansion of the beta-gradient near x = 0 (scalar_t arithmetic)."""
    factor = s(s(_digamma_one(float(s(alpha + beta)), s)) - s(_digamma_one(beta, s)))
    numer, betas, dbetas, series = s(1), s(1), s(0), s(factor / alpha)
    for i in range(1, 9):
        ci = s(i)
        numer = s(numer * s(-x / ci))
        dbetas = s(s(dbetas * s(beta - ci)) + betas)
        betas = s(betas * s(beta - ci))
        series = s(series + s(s(numer / s(alpha + ci)) * s(dbetas + s(factor * betas))))
    result = s(-s(_pows(float(s(1 - x)), float(s(1 - beta)), s)) * series)
    return 0.0 if math.isnan(result) else float(result)


def _beta_grad_alpha_mid(x, alpha, beta):
    """Rice saddle point expansion for large alpha and beta (double)."""
    total = alpha + beta
    mean = alpha / total
    std = _sqrt(alpha * beta / (total + 1)) / total
    if mean - 0.1 * std <= x <= mean + 0.1 * std:
        poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
            (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta + alpha * (
                3 * (59 + 180 * beta - 90 * x) * (beta * beta) + alpha * (
                    (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (8 * (1 - x) * (135 * beta - 11)))))
        prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
        prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
        return prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / _sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha)) * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1 = term1_num / (_sqrt(2 * alpha / beta) * _pow(total, 1.5) * axbx * axbx)
    term2 = 0.5 * _log(alpha / (total * x))
    term3 = _sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4 = _pow(beta * _log(beta / (total * (1 - x))) + alpha * _log(alpha / (total * x)), -1.5)
    term1234 = term1 + term2 * (term3 + (term4 if x < mean else -term4))
    return stirling * prefactor * term1234


_DIR_C = (
    (((1.003668233, -0.01061107488, -0.0657888334, 0.01201642863),
      (0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033),
      (-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013)),
     ((0.221950385, -0.3187676331, 0.01799915743, 0.01074823814),
      (-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057),
      (0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05)),
     ((-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565),
      (0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181),
      (0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05))),
    (((1, -0.02924021934, -0.04438342661, 0.007285809825),
      (0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521),
      (-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149)),
     ((0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273),
      (0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956),
      (-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05)),
     ((0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05),
      (0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05),
      (-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06))))


def dirichlet_grad_one(x, alpha, total, s):
    """ATen's dirichlet_grad_one<scalar_t, double>: -(d/dalpha cdf(x; alpha, total - alpha)) / pdf / (1 - x)."""
    x, alpha, total = s(x), s(alpha), s(total)
    beta = s(total - alpha)
    beta_ = float(total) - float(alpha)
    boundary = s(s(total * x) * s(1 - x))
    if x <= 0.5 and boundary < 2.5:
        return _beta_grad_alpha_small(x, alpha, beta, s)
    if x >= 0.5 and boundary < 0.75:
        return -_beta_grad_beta_small(s(1 - x), beta, alpha, s)
    if alpha > 6 and beta > 6:
        return _beta_grad_alpha_mid(float(x), float(alpha), beta_)
    u = _log(float(x))
    a = _log(float(alpha)) - u
    b = _log(float(total)) - a
    pow_u, pow_a = (1, u, u * u), (1, a, a * a)
    p = q = 0.0
    for i in range(3):
        for j in range(3):
            ua = pow_u[i] * pow_a[j]
            c0, c1 = _DIR_C[0][i][j], _DIR_C[1][i][j]
            p += ua * (c0[0] + b * (c0[1] + b * (c0[2] + b * c0[3])))
            q += ua * (c1[0] + b * (c1[1] + b * (c1[2] + b * c1[3])))
    approx = float(x) * float(s(s(_digamma_one(float(total), s)) - s(_digamma_one(float(alpha), s)))) / beta_
    return p / q * approx


def dirichlet_grad_np(x, alpha, total):
    """_dirichlet_grad_cpu: dirichlet_grad_one per element, rounded to the dtype."""
    dt = x.dtype
    s = _scalar_type(dt)
    with np.errstate(all="ignore"):
        return _serial(dt, lambda xv, av, tv: _safe(dirichlet_grad_one, xv, av, tv, s), x, alpha, total)


class DirichletGradBackward0(Op):
    @staticmethod
    def forward(ctx, x, alpha, total):
        return dirichlet_grad_np(x._data, alpha._data, total._data)

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("derivative for aten::_dirichlet_grad is not implemented")


@export
def _dirichlet_grad(x, alpha, total):
    """torch._dirichlet_grad(x, alpha, total): the reparameterised gradient of Dirichlet samples (ATen's
    dirichlet_grad_one, as a Beta(alpha, total - alpha) in each coordinate)."""
    _check_float(x, "_dirichlet_grad_cpu")
    return DirichletGradBackward0.apply(x, alpha, total)
