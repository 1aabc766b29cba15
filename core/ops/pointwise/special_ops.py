"""torch.special's own functions (erfcx, i0e, i1, i1e, ndtr, ndtri, log_ndtr, entr, bessel_j0/j1, xlog1py,
zeta) and the top-level polygamma, mvlgamma, nextafter and frexp. Kernels are the float64 NumPy ones of
_special_kernels, cast back to the input's float dtype (integers compute in the default dtype); gradient
formulas are PyTorch's derivatives.yaml ones, in core ops. The special_* names are registered without a
core.<name> function (torch has none): core.special exposes them."""
from __future__ import annotations

import math

import numpy as np

from ... import dtypes as _dt
from ... import return_types
from ...autograd.function import Op
from ...tensor import Tensor
from .. import registry
from ..inplace import make_inplace
from ..registry import register
from . import _special_kernels as K
from ._common import _g_for, _out, quietly
from ._out_checks import check_out_dtype, out_tuple
from .arithmetic import MulBackward1
from .binary_math import _define
from .special import _digamma64, digamma, lgamma
from .unary import _unary, erf, exp, log, log1p, sign

_SQRT_2PI = math.sqrt(2 * math.pi)


def _k(fn):
    """A float64 kernel as a forward keeping the input's float dtype."""
    return lambda x: np.asarray(fn(x), dtype=np.float64).astype(x.dtype, copy=False)


def _t(fn, like):
    """fn's values on like's data as a new tensor of like's dtype (no graph)."""
    return Tensor._make(np.asarray(quietly(fn, like._data.astype(np.float64)), dtype=like._data.dtype))


def _rekey(name):
    """File the special_<name> op under torch's public name special.<name> (no core.<name> function)."""
    info = registry.OPS.pop("special_" + name)
    info.name = "special." + name
    registry.OPS[info.name] = info


def _special(name, kernel, grad, *, node, doc, save="input"):
    r = _unary("special_" + name, _k(kernel), grad, methods=(), inplace=False, node=node, doc=doc, save=save,
               function=False)
    _rekey(name)
    return r


erfcx, SpecialErfcxBackward0 = _special(
    "erfcx", K.erfcx, lambda g, a, o: g * (2 * a * _t(K.erfcx, a) - 2 / math.sqrt(math.pi)),
    node="SpecialErfcxBackward0", doc="Scaled complementary error function exp(x^2) erfc(x).")
i0e, SpecialI0EBackward0 = _special(
    "i0e", K.i0e, lambda g, a, o: g * (_t(K.i1e, a) - sign(a) * _t(K.i0e, a)),
    node="SpecialI0EBackward0", doc="Exponentially scaled modified Bessel function exp(-|x|) I0(x).")


def _i1_grad(g, a, o):
    """PyTorch's i1_backward: I0(x) - I1(x) / x, and 0.5 at x == 0."""
    safe = a.masked_fill(a == 0, 1)
    return g * (_t(np.i0, a) - _t(K.i1, a) / safe).masked_fill(a == 0, 0.5)


def _i1e_grad(g, a, o):
    """PyTorch's i1e_backward: i0e(x) - i1e(x) (sign(x) + 1 / x), and 0.5 at x == 0."""
    safe = a.masked_fill(a == 0, 1)
    return g * (_t(K.i0e, a) - _t(K.i1e, a) * (sign(a) + 1 / safe)).masked_fill(a == 0, 0.5)


i1, SpecialI1Backward0 = _special("i1", K.i1, _i1_grad, node="SpecialI1Backward0",
                                  doc="Modified Bessel function of the first kind, order 1.")
i1e, SpecialI1EBackward0 = _special("i1e", K.i1e, _i1e_grad, node="SpecialI1EBackward0",
                                    doc="Exponentially scaled I1: exp(-|x|) I1(x).")
ndtri, SpecialNdtriBackward0 = _special(
    "ndtri", K.ndtri, lambda g, a, o: g * _SQRT_2PI * exp(o * o / 2), save="output",
    node="SpecialNdtriBackward0", doc="Inverse of the standard normal CDF (quantile function).")


def _log_ndtr_grad(g, a, o):
    return g / _SQRT_2PI * exp(-(_t(K.log_ndtr, a) + a * a / 2))


log_ndtr, SpecialLogNdtrBackward0 = _special("log_ndtr", K.log_ndtr, _log_ndtr_grad, node="SpecialLogNdtrBackward0",
                                             doc="Log of the standard normal CDF, accurate in the lower tail.")


def _entr_np(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = -x * np.log(np.where(x > 0, x, 1))
    return np.where(x < 0, -np.inf, np.where(x == 0, 0.0, r))


entr, SpecialEntrBackward0 = _special("entr", _entr_np, lambda g, a, o: g * -(1 + log(a)),
                                      node="SpecialEntrBackward0", doc="-x log(x), 0 at 0 and -inf for x < 0.")


@register(name="special.ndtr", category="pointwise", function=False)
def ndtr(input, *, out=None):
    """Standard normal CDF, as PyTorch composes it: (1 + erf(x / sqrt 2)) / 2."""
    x = input if input.dtype.is_floating_point else input.to(_dt.get_default_dtype())
    return _out(MulBackward1.apply(1 + erf(MulBackward1.apply(x, math.sqrt(0.5))), 0.5), out)


def _no_grad_unary(name, kernel, doc):
    """A function PyTorch defines without a derivative (its result never requires grad)."""
    def fn(input, *, out=None):
        d = input._data if input._data.dtype.kind == "f" else input._data.astype(_dt.get_default_dtype().np)
        return _out(Tensor._make(np.asarray(quietly(kernel, d), dtype=np.float64).astype(d.dtype)), out)
    fn.__name__, fn.__doc__ = name, doc
    return register(name="special." + name, category="pointwise", function=False)(fn)


bessel_j0 = _no_grad_unary("bessel_j0", K.bessel_j0, "Bessel function of the first kind, order 0 (no gradient).")
bessel_j1 = _no_grad_unary("bessel_j1", K.bessel_j1, "Bessel function of the first kind, order 1 (no gradient).")


# -- binary: xlog1py, zeta, nextafter ------------------------------------------------------------------------

def _xlog1py_np(x, y):
    zero = (x == 0) & ~np.isnan(y)
    return np.where(zero, 0, x * np.log1p(np.where(zero, 0, y))).astype(np.result_type(x, y), copy=False)


def _scalar_t(v, g):
    return v if isinstance(v, Tensor) else Tensor._make(np.asarray(v, dtype=g._data.dtype))


def _xlog1py_grad(ctx, g, a, b, out):
    """d/dx = log1p(y), 0 where x == 0 and y <= -1; d/dy = x / (1 + y) (PyTorch's formulas)."""
    ta, tb = _scalar_t(a, g), _scalar_t(b, g)
    ga = g * log1p(tb).masked_fill((ta == 0).logical_and(tb <= -1), 0) if _g_for(ctx, 0) else None
    gb = g * ta / (tb + 1) if _g_for(ctx, 1) else None
    return ga, gb


def _zeta_grad(ctx, g, a, b, out):
    """PyTorch: no derivative for x; d/dq = -x zeta(x + 1, q)."""
    if _g_for(ctx, 0):
        raise NotImplementedError("the derivative for 'zeta' is not implemented.")
    ta, tb = _scalar_t(a, g), _scalar_t(b, g)
    return None, g * -ta * zeta(ta + 1, tb)


_, SpecialXlog1PyBackward0 = _define("xlog1py", "SpecialXlog1PyBackward0", _xlog1py_np, _xlog1py_grad,
                                     float_out=True, public=False)
_, SpecialZetaBackward0 = _define("zeta", "SpecialZetaBackward0", lambda x, q: K.zeta(x, q).astype(
    np.result_type(x, q), copy=False), _zeta_grad, float_out=True, public=False)


def _binary_special(name, node):
    """f(input, other) with PyTorch's three overloads: Backward0 (two tensors), Backward1 (number first),
    Backward2 (number second)."""
    node1 = type(node.__name__[:-1] + "1", (node,), {})
    node2 = type(node.__name__[:-1] + "2", (node,), {})

    def fn(input, other, *, out=None):
        if not isinstance(input, Tensor):
            if not isinstance(other, Tensor):
                raise TypeError(f"special_{name}() received an invalid combination of arguments - got "
                                f"({type(input).__name__}, {type(other).__name__})")
            return _out(node1.apply(input, other), out)
        return _out((node if isinstance(other, Tensor) else node2).apply(input, other), out)
    fn.__name__ = name
    return fn


xlog1py = register(name="special.xlog1py", category="pointwise", function=False,
                   summary="input * log1p(other), 0 where input == 0 (unless other is NaN).")(
    _binary_special("xlog1py", SpecialXlog1PyBackward0))
zeta = register(name="special.zeta", category="pointwise", function=False,
                summary="Hurwitz zeta function sum_k (k + other) ** -input.")(
    _binary_special("zeta", SpecialZetaBackward0))


def _nextafter_grad(ctx, g, a, b, out):
    """As PyTorch computes it: grad for input (0 where input == other), zeros for other."""
    return (g.masked_fill(a == b, 0) if _g_for(ctx, 0) else None), (g.new_zeros(g.shape) if _g_for(ctx, 1) else None)


def _igamma_grad(sign):
    def grad(ctx, g, a, x, out):
        """PyTorch: no derivative for a; d/dx = +-exp((a - 1) log x - x - lgamma(a))."""
        if _g_for(ctx, 0):
            raise NotImplementedError(f"the derivative for '{'igamma' if sign > 0 else 'igammac'}: input' is not "
                                      "implemented.")
        ta, tx = _scalar_t(a, g), _scalar_t(x, g)
        return None, g * sign * exp((ta - 1) * log(tx) - tx - lgamma(ta))
    return grad


def _kernel64(fn):
    return lambda a, x: fn(a, x).astype(np.result_type(a, x), copy=False)


igamma, IgammaBackward0 = _define("igamma", "IgammaBackward0", _kernel64(K.igamma), _igamma_grad(1), reject="bi",
                                  doc="Regularized lower incomplete gamma function P(input, other).")
igammac, IgammacBackward0 = _define("igammac", "IgammacBackward0", _kernel64(K.igammac), _igamma_grad(-1),
                                    reject="bi", doc="Regularized upper incomplete gamma function Q(input, other).")
nextafter, NextafterBackward0 = _define("nextafter", "NextafterBackward0", np.nextafter, _nextafter_grad, reject="bi",
                                        doc="The next float after input towards other.")


# -- polygamma, mvlgamma, frexp ----------------------------------------------------------------------------

def _float_data(a):
    d = a._data
    return d if d.dtype.kind == "f" else d.astype(_dt.get_default_dtype().np)


class PolygammaBackward0(Op):
    """psi^(n)(x); the gradient is psi^(n+1)(x)."""
    contiguous_output = False

    @staticmethod
    def forward(ctx, a, n):
        d = _float_data(a)
        ctx.save_for_backward(a)
        ctx.n = n
        return np.asarray(quietly(K.polygamma, n, d, _digamma64)).astype(d.dtype, copy=False)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return polygamma(ctx.n + 1, a if a.dtype.is_floating_point else a.to(g.dtype)) * g


@register(category="pointwise")
def polygamma(n, input, *, out=None):
    """The n-th derivative of digamma (n >= 0): digamma, trigamma, then (-1)^(n+1) n! zeta(n + 1, x)."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return _out(PolygammaBackward0.apply(input, int(n)), out)


def _polygamma_method(self, n):
    """Tensor.polygamma(n) == torch.polygamma(n, self)."""
    return polygamma(n, self)


registry.method("polygamma", _polygamma_method)
registry.add_inplace("polygamma", "polygamma_", make_inplace(_polygamma_method, "polygamma_"))


class MvlgammaBackward0(Op):
    """log of the multivariate gamma: sum_j lgamma(x - j/2) + p(p-1)/4 log(pi); gradient sum_j digamma(x - j/2)."""
    contiguous_output = False

    @staticmethod
    def forward(ctx, a, p):
        d = _float_data(a).astype(np.float64)
        ctx.save_for_backward(a)
        ctx.p = p
        lg = np.vectorize(lambda v: math.lgamma(v) if v > 0 or v != np.floor(v) else math.inf, otypes=[np.float64])
        r = sum(quietly(lg, d - j / 2) for j in range(p)) + p * (p - 1) / 4 * math.log(math.pi)
        return np.asarray(r, dtype=_float_data(a).dtype)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        x = a if a.dtype.is_floating_point else a.to(g.dtype)
        return g * sum(digamma(x - j / 2) for j in range(ctx.p))


@register(category="pointwise", methods=("mvlgamma",), inplace="mvlgamma_")
def mvlgamma(input, p, *, out=None):
    """Multivariate log-gamma of dimension p (p >= 1)."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return _out(MvlgammaBackward0.apply(input, int(p)), out)


multigammaln = mvlgamma
_frexp_type = return_types._make("frexp", ("mantissa", "exponent"))


class FrexpBackward0(Op):
    """mantissa * 2 ** exponent == input; the mantissa's gradient is grad / 2 ** exponent."""
    contiguous_output = False

    @staticmethod
    def forward(ctx, a):
        m, e = np.frexp(a._data)
        ctx.exp = e
        return m

    @staticmethod
    def backward(ctx, g):
        return g / Tensor._make(np.exp2(ctx.exp).astype(g._data.dtype))


@register(category="pointwise", methods=("frexp",))
def frexp(input, *, out=None):
    """Decompose input into mantissa in [0.5, 1) (signed) and an int32 exponent: input = m * 2 ** e."""
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    if out is not None:     # ATen's frexp_out checks, then both written
        check_out_dtype(out[0], input._data.dtype, "torch.frexp() expects mantissa to have dtype {want} but got {got}")
        check_out_dtype(out[1], np.int32, "torch.frexp() expects exponent to have int dtype but got {got}")
    m = FrexpBackward0.apply(input)
    e = Tensor._make(np.frexp(input._data)[1].astype(np.int32))
    return _frexp_type(m, e) if out is None else out_tuple(_frexp_type(m, e), out, "frexp", _out)
