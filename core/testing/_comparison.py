"""torch.testing.assert_close / assert_allclose: torch/testing/_comparison.py's pairs, messages and tolerances.

Inputs are compared pair by pair after recursing through sequences and mappings (None, bool, Python or
NumPy numbers, tensor-likes: a Tensor, or anything `as_tensor` takes when both sides are of related types);
the first failing pair raises, with torch's text ("Tensor-likes are not close!\\n\\nMismatched elements: ...").
"""
from __future__ import annotations

import cmath
import collections.abc
import contextlib
import warnings

import numpy as np

from .. import dtypes as _dt
from ..creation import as_tensor, tensor
from ..tensor import Tensor

# {dtype: (rtol, atol)}, torch's _DTYPE_PRECISIONS (dtypes core lacks are left out)
_DTYPE_PRECISIONS = {_dt.float16: (0.001, 1e-5), _dt.float32: (1.3e-6, 1e-5), _dt.float64: (1e-7, 1e-7)}
_NUMBER_DTYPES = {int: _dt.int64, float: _dt.float64}


class ErrorMeta(Exception):
    """A failure's exception class, message and the item path ('[0]['a']') where it happened."""

    def __init__(self, type, msg, *, id=()):
        super().__init__(msg)
        self.type, self.msg, self.id = type, msg, id

    def to_error(self, msg=None):
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += f"\n\nThe failure occurred for item {''.join(str([item]) for item in self.id)}"
            msg = msg(generated) if callable(msg) else generated
        return self.type(msg)


class _Unsupported(Exception):
    """This pair kind cannot handle the inputs: try the next one."""


def default_tolerances(*inputs, dtype_precisions=None):
    """The loosest (rtol, atol) of the inputs' dtypes (0, 0 for integral and bool dtypes)."""
    dts = []
    for x in inputs:
        if isinstance(x, Tensor):
            dts.append(x.dtype)
        elif isinstance(x, _dt.dtype):
            dts.append(x)
        else:
            raise TypeError(f"Expected a torch.Tensor or a torch.dtype, but got {type(x)} instead.")
    table = dtype_precisions or _DTYPE_PRECISIONS
    rtols, atols = zip(*[table.get(d, (0.0, 0.0)) for d in dts])
    return max(rtols), max(atols)


def get_tolerances(*inputs, rtol, atol, id=()):
    if (rtol is None) ^ (atol is None):
        raise ErrorMeta(ValueError, f"Both 'rtol' and 'atol' must be either specified or omitted, "
                                    f"but got no {'rtol' if rtol is None else 'atol'}.", id=id)
    if rtol is not None:
        return rtol, atol
    return default_tolerances(*inputs)


def _mismatch_msg(*, identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    equality = rtol == 0 and atol == 0

    def diff_msg(kind, diff, idx, tol):
        msg = f"{kind.title()} difference: {diff}" if idx is None else f"Greatest {kind} difference: {diff} at index {idx}"
        return msg + ("" if equality else f" (up to {tol} allowed)") + "\n"

    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff_msg("absolute", abs_diff, abs_idx, atol) + diff_msg("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


_IDENT = "Tensor-likes"


def make_scalar_mismatch_msg(actual, expected, *, rtol, atol, identifier=None):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg(identifier=identifier or "Scalars", extra=f"Expected {expected} but got {actual}.",
                         abs_diff=abs_diff, abs_idx=None, atol=atol, rel_diff=rel_diff, rel_idx=None, rtol=rtol)


def make_tensor_mismatch_msg(actual, expected, matches, *, rtol, atol, identifier=None):
    """Mismatch count, then the greatest absolute and relative differences among the mismatches (in the
    compared dtype; integers in int64) with their indices."""
    shape = tuple(matches.shape)
    n = matches.numel()
    bad = n - int(matches.sum())
    extra = f"Mismatched elements: {bad} / {n} ({bad / n:.1%})"
    a, e, m = actual.flatten(), expected.flatten(), matches.flatten()
    if not actual.dtype.is_floating_point:
        a, e = a.to(_dt.int64), e.to(_dt.int64)
    abs_diff = (a - e).abs()
    abs_diff[m] = 0
    max_abs, abs_i = abs_diff.max(0)
    rel_diff = abs_diff / e.abs()
    rel_diff[m] = 0
    max_rel, rel_i = rel_diff.max(0)
    unravel = (lambda i: tuple(int(k) for k in np.unravel_index(int(i), shape))) if shape else (lambda i: ())
    return _mismatch_msg(identifier=identifier or _IDENT, extra=extra, abs_diff=max_abs.item(),
                         abs_idx=unravel(abs_i), atol=atol, rel_diff=max_rel.item(), rel_idx=unravel(rel_i), rtol=rtol)


def _none_pair(actual, expected, id, **opts):
    if not (actual is None or expected is None):
        raise _Unsupported

    def compare():
        if not (actual is None and expected is None):
            raise ErrorMeta(AssertionError, f"None mismatch: {actual} is not {expected}", id=id)
    return compare


def _bool_pair(actual, expected, id, **opts):
    if not all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
        raise _Unsupported
    a, e = bool(actual), bool(expected)

    def compare():
        if a is not e:
            raise ErrorMeta(AssertionError, f"Booleans mismatch: {a} is not {e}", id=id)
    return compare


def _number_pair(actual, expected, id, *, rtol=None, atol=None, equal_nan=False, check_dtype=False, **opts):
    """Python numbers (and NumPy scalars): int as int64, float as float64 for the default tolerances."""
    if not all(isinstance(x, (int, float, complex, np.number)) for x in (actual, expected)):
        raise _Unsupported
    a, e = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
    rtol, atol = get_tolerances(*[_NUMBER_DTYPES.get(type(x), _dt.float64) for x in (a, e)],
                                rtol=rtol, atol=atol, id=id)

    def compare():
        if check_dtype and type(a) is not type(e):
            raise ErrorMeta(AssertionError, f"The (d)types do not match: {type(a)} != {type(e)}.", id=id)
        if a == e or (equal_nan and cmath.isnan(a) and cmath.isnan(e)):
            return
        abs_diff = abs(a - e)
        if cmath.isfinite(abs_diff) and abs_diff <= atol + rtol * abs(e):
            return
        raise ErrorMeta(AssertionError, make_scalar_mismatch_msg(a, e, rtol=rtol, atol=atol), id=id)
    return compare


def _to_tensor(x):
    if isinstance(x, Tensor):
        return x
    try:
        return as_tensor(x)
    except Exception:
        raise _Unsupported from None


def _tensor_pair(actual, expected, id, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, **opts):
    """Tensor-likes of related types: shape, stride (check_stride), device, dtype, then values by isclose
    after promoting to a common dtype."""
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        raise _Unsupported
    if not allow_subclasses and type(actual) is not type(expected):
        raise _Unsupported
    actual, expected = _to_tensor(actual), _to_tensor(expected)
    rtol, atol = get_tolerances(actual, expected, rtol=rtol, atol=atol, id=id)

    def mismatch(name, a, e):
        raise ErrorMeta(AssertionError, f"The values for attribute '{name}' do not match: {a} != {e}.", id=id)

    def compare():
        a, e = actual, expected
        if a.shape != e.shape:
            mismatch("shape", a.shape, e.shape)
        if check_stride and a.stride() != e.stride():
            mismatch("stride()", a.stride(), e.stride())
        if check_device and a.device != e.device:
            mismatch("device", a.device, e.device)
        if check_dtype and a.dtype != e.dtype:
            mismatch("dtype", a.dtype, e.dtype)
        if a.dtype != e.dtype:
            common = _dt.promote_types(a.dtype, e.dtype)
            a, e = a.to(common), e.to(common)
        a, e = a.detach(), e.detach()
        matches = a.isclose(e, rtol=rtol, atol=atol, equal_nan=equal_nan)
        if bool(matches.all()):
            return
        if a.dim() == 0:
            msg = make_scalar_mismatch_msg(a.item(), e.item(), rtol=rtol, atol=atol)
        else:
            msg = make_tensor_mismatch_msg(a, e, matches, rtol=rtol, atol=atol)
        raise ErrorMeta(AssertionError, msg, id=id)
    return compare


_PAIRS = (_none_pair, _bool_pair, _number_pair, _tensor_pair)


def _is_seq(x):
    return isinstance(x, collections.abc.Sequence) and not isinstance(x, str)


def originate_pairs(actual, expected, options, id=()):
    """Recurse through sequences and mappings (torch's originate_pairs); each leaf's comparison closure.
    Every pair is built before any is compared: unhandled inputs (TypeError) win over a value mismatch."""
    if _is_seq(actual) and _is_seq(expected):
        if len(actual) != len(expected):
            raise ErrorMeta(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                            id=id)
        return [p for i in range(len(actual)) for p in originate_pairs(actual[i], expected[i], options, (*id, i))]
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        ak, ek = set(actual.keys()), set(expected.keys())
        if ak != ek:
            raise ErrorMeta(AssertionError, f"The keys of the mappings do not match:\n"
                                            f"Missing keys in the actual mapping: {sorted(ek - ak)}\n"
                                            f"Additional keys in the actual mapping: {sorted(ak - ek)}", id=id)
        keys = ak
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        return [p for k in keys for p in originate_pairs(actual[k], expected[k], options, (*id, k))]
    for pair in _PAIRS:
        try:
            return [pair(actual, expected, id, **options)]
        except _Unsupported:
            continue
    raise ErrorMeta(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} "
                               f"and {type(expected)}.", id=id)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """torch.testing.assert_close: |actual - expected| <= atol + rtol * |expected| elementwise, with
    torch's default (rtol, atol) per dtype; `msg` (a string, or a callable given the generated message)
    replaces the message."""
    __tracebackhide__ = True
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                   check_stride=check_stride)
    try:
        pairs = originate_pairs(actual, expected, options)
    except ErrorMeta as meta:
        raise meta.to_error() from None
    for compare in pairs:
        try:
            compare()
        except ErrorMeta as meta:
            raise meta.to_error(msg) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated torch.testing.assert_allclose (FutureWarning): looser default tolerances, dtypes not checked."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
                  "instructions in https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = default_tolerances(actual, expected, dtype_precisions={
            _dt.float16: (1e-3, 1e-3), _dt.float32: (1e-4, 1e-5), _dt.float64: (1e-5, 1e-8)})
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
