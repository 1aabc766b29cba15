"""Run one scenario with torch and with core (the library passed in as `lib`) and compare what each
recorded: tensors (values, dtype, shape), strings (reprs, error texts), other Python values."""
from __future__ import annotations

import warnings

import numpy as np


def _is_tensor(x):
    return type(x).__module__.split(".")[0] in ("torch", "core") and hasattr(x, "dtype") and hasattr(x, "shape")


def _plain(x):
    if _is_tensor(x):
        arr = x.detach().numpy() if hasattr(x.detach(), "numpy") else np.asarray(x._data)
        return ("tensor", str(x.dtype), tuple(x.shape), np.array(arr))
    if type(x).__name__ in ("dtype", "device", "Size"):
        return str(x) if type(x).__name__ != "Size" else tuple(x)
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x] if isinstance(x, list) else tuple(_plain(v) for v in x)
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    return x


def _same(c, t, rtol, atol, where):
    if isinstance(t, tuple) and len(t) == 4 and t and t[0] == "tensor":
        assert isinstance(c, tuple) and c[0] == "tensor", f"{where}: {c!r} is not a tensor"
        assert c[1:3] == t[1:3], f"{where}: dtype/shape {c[1:3]} != {t[1:3]}"
        np.testing.assert_allclose(c[3].astype(np.float64), t[3].astype(np.float64), rtol=rtol, atol=atol,
                                   equal_nan=True, err_msg=where)
    elif isinstance(t, (list, tuple)):
        assert isinstance(c, (list, tuple)) and len(c) == len(t), f"{where}: {c!r} != {t!r}"
        for i, (a, b) in enumerate(zip(c, t)):
            _same(a, b, rtol, atol, f"{where}[{i}]")
    elif isinstance(t, dict):
        assert isinstance(c, dict) and list(c) == list(t), f"{where}: keys {list(c)} != {list(t)}"
        for k in t:
            _same(c[k], t[k], rtol, atol, f"{where}[{k!r}]")
    else:
        assert c == t, f"{where}: {c!r} != {t!r}"


def side_by_side(torch, scenario, rtol=1e-5, atol=1e-6):
    """scenario(lib) -> list of records; the records of core and torch must agree."""
    import core
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _plain(scenario(torch))
        got = _plain(scenario(core))
    _same(got, expected, rtol, atol, "record")
    return got


def error_of(fn):
    """(exception class name, message) of fn(), or None when it does not raise."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__, str(e)
    return None
