"""torch.special: the special-function namespace. Where PyTorch's special.X is an alias of a core op
(expit = sigmoid, gammaln = lgamma, psi = digamma, multigammaln = mvlgamma, ...) it is the same function
here; erfcx, i0e, i1, i1e, ndtr, ndtri, log_ndtr, entr, xlog1py, zeta and bessel_j0/j1 are the
special_* ops of core/ops/pointwise/special_ops.py."""
from __future__ import annotations

from .ops import pointwise as _pw  # noqa: F401  (registers the ops below)
from .ops.nn.softmax import log_softmax as _log_softmax, softmax as _softmax
from .ops.pointwise.special_poly import POLYNOMIALS as _POLYS
from .ops.registry import FUNCTIONS as _F, OPS as _OPS

_POLY_NAMES = sorted(_POLYS) + ["modified_bessel_i0", "modified_bessel_i1", "spherical_bessel_j0"]

# special.X -> the core op it is: resolved on first access (PEP 562), so that it is the loaded op itself and
# not the lazy stand-in its module had before its first use (then `special.expit is torch.sigmoid` holds).
_ALIASES = {"erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "expit": "sigmoid", "logit": "logit", "exp2": "exp2",
            "expm1": "expm1", "log1p": "log1p", "xlogy": "xlogy", "sinc": "sinc", "logsumexp": "logsumexp",
            "gammaln": "lgamma", "digamma": "digamma", "psi": "digamma", "polygamma": "polygamma",
            "multigammaln": "mvlgamma", "i0": "i0", "gammainc": "igamma", "gammaincc": "igammac"}


def __getattr__(name):
    target = _ALIASES.get(name)
    if target is None:
        raise AttributeError(f"module 'torch.special' has no attribute '{name}'")
    fn = _OPS[target].fn
    globals()[name] = fn
    return fn


def __dir__():
    return sorted(set(globals()) | set(_ALIASES))

erfcx, i0e, i1, i1e = (_OPS["special." + n].fn for n in ("erfcx", "i0e", "i1", "i1e"))
ndtr, ndtri, log_ndtr, entr = (_OPS["special." + n].fn for n in ("ndtr", "ndtri", "log_ndtr", "entr"))
globals().update({n: _OPS["special." + n].fn for n in _POLY_NAMES})
xlog1py, zeta, bessel_j0, bessel_j1 = (_OPS["special." + n].fn for n in ("xlog1py", "zeta", "bessel_j0", "bessel_j1"))
_BESSEL_MORE = ["airy_ai", "bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1",
                "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"]
globals().update({n: _OPS["special." + n].fn for n in _BESSEL_MORE})

def round(input, *, decimals=0, out=None):
    """torch.special.round: round(input, decimals=decimals) (PyTorch's RoundBackward1 overload)."""
    return _F["round"](input, decimals=decimals, out=out)


def softmax(input, dim, *, dtype=None):
    """torch.special.softmax(input, dim, dtype=None) == torch.softmax."""
    return _softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """torch.special.log_softmax(input, dim, dtype=None) == torch.log_softmax."""
    return _log_softmax(input, dim, dtype=dtype)


__all__ = _POLY_NAMES + _BESSEL_MORE + ["bessel_j0", "bessel_j1", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1",
           "gammainc", "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit",
           "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "sinc", "softmax", "xlog1py",
           "xlogy", "zeta"]
