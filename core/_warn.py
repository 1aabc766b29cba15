"""Warnings as PyTorch gives them. ATen's TORCH_WARN reaches Python through PyErr_WarnEx at stack level 1:
the warning is attributed to the Python frame that called the op (here: the first frame outside core),
its text ends with " (Triggered internally at /__w/pytorch/pytorch/<file>:<line>.)", and Python's filters
and per-location registry apply as to any warning. TORCH_WARN_ONCE warns once per process and call site,
whatever the filters, unless torch.set_warn_always(True). And the other side: torch never warns on inf/nan
results, so core's NumPy kernels run under `quietly` (NumPy's floating-point warnings off, whatever the user's
filters)."""
from __future__ import annotations

import os
import sys
import warnings

import numpy as np

_CORE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_SUFFIX = " (Triggered internally at /__w/pytorch/pytorch/{}.)"
_WARNED = set()                     # the TORCH_WARN_ONCE sites that have warned
FLAGS = {"warn_always": False}      # torch.set_warn_always / is_warn_always_enabled
TRANSPARENT = set()                 # code objects of core's wrapper frames that torch has no counterpart of

try:    # NumPy >= 2: np.errstate is a ContextVar under the hood; setting it directly costs ~0.2 us
    from numpy._core._ufunc_config import _extobj_contextvar as _ERRSTATE, _make_extobj
    _IGNORE = _make_extobj(all="ignore")
except ImportError:  # pragma: no cover - other NumPy layouts: np.seterr (process-wide) behind the same API
    class _Seterr:
        set = staticmethod(np.seterr)
        reset = staticmethod(lambda old: np.seterr(**old))
    _ERRSTATE, _IGNORE = _Seterr(), "ignore"


def quietly(fn, *args, **kwargs):
    """fn(*args, **kwargs) with NumPy's floating-point warnings off: PyTorch never warns on inf/nan results,
    whatever the user's warning filters. Same effect as `with np.errstate(all="ignore")` at a third of its
    cost (issue #15)."""
    token = _ERRSTATE.set(_IGNORE)
    try:
        return fn(*args, **kwargs)
    finally:
        _ERRSTATE.reset(token)


def set_warn_always(b):
    """torch.set_warn_always: TORCH_WARN_ONCE warnings warn every time while on."""
    FLAGS["warn_always"] = bool(b)


def user_frame(depth=2):
    """The first frame outside core above sys._getframe(depth) (None if the whole stack is core's)."""
    f = sys._getframe(depth)
    while f is not None and f.f_code.co_filename.startswith(_CORE):
        f = f.f_back
    return f


def warn_aten(message, cpp_file_line=None, once=False, category=UserWarning, from_python=False):
    """Warn as ATen's TORCH_WARN at `cpp_file_line` (e.g. "aten/src/ATen/native/Resize.cpp:30", the path
    torch 2.13 prints), attributed to the caller outside core. once=True is TORCH_WARN_ONCE keyed by the
    site; once=<a site's flag list> ([False] or []: not warned yet) keeps the state with the site.
    from_python=True where torch's public op is a Python function calling the ATen op (torch/functional.py's
    chain_matmul, meshgrid, lu): the warning is that function's, here the core function calling warn_aten.
    With cpp_file_line=None it is a plain warning at the user's line (torch's Python-level warnings whose
    stacklevel points at the user's code, C++ PyErr_WarnEx warnings without the suffix)."""
    if once is not False and not FLAGS["warn_always"]:
        if once is True:
            key = cpp_file_line or message
            if key in _WARNED:
                return
            _WARNED.add(key)
        elif any(once):
            return
        else:
            once[:] = [True]
    if cpp_file_line is not None:
        message += _SUFFIX.format(cpp_file_line)
    warn_at(message, category, sys._getframe(1) if from_python else user_frame(2))


def warn_python(message, category=UserWarning, stacklevel=1):
    """warnings.warn(message, category, stacklevel) as torch's Python code issues it, where core's frames that
    torch does not have (the registry's NumPy-keyword wrapper: TRANSPARENT) are not counted."""
    f = sys._getframe(1)
    while f is not None and stacklevel > 1:
        f = f.f_back
        if f is not None and f.f_code not in TRANSPARENT:
            stacklevel -= 1
    warn_at(message, category, f)


def warn_at(message, category, frame):
    """warnings.warn attributed to `frame`, with the registry and module name warnings.warn would use."""
    if frame is None:
        warnings.warn(message, category, stacklevel=2)
        return
    g = frame.f_globals
    # no module_globals: as warnings.warn, the line shown is read from the file (a loader's get_source fails for -c)
    warnings.warn_explicit(message, category, frame.f_code.co_filename, frame.f_lineno, g.get("__name__", "<string>"),
                           g.setdefault("__warningregistry__", {}))
