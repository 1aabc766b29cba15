"""One JSON vocabulary for every `--json` output (docs/json.md lists the schemas).

Every object starts with ``"schema": "tensorcli.<command>/2"`` and ``"command"``; dtypes are spelled
as ``"float32"`` (never ``"torch.float32"``), grad modes as the Python API names them (``grad``,
``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``), counts of autograd nodes
``graph_nodes``, durations ``wall_s`` (seconds). A tensor is ``{"shape", "dtype", "numel", "data",
"truncated", "summary"}``: above TENSORCLI_JSON_MAX_ELEMENTS elements (default 10000) ``data`` is
null, ``truncated`` true and ``summary`` holds the statistics of `tensorcli show`; ``--full-data``
lists every element.
"""
from __future__ import annotations

import os
from contextlib import contextmanager

import numpy as np

VERSION = 2
DEFAULT_MAX_ELEMENTS = 10_000
_FULL = [False]
_RENAME = {"duration": "wall_s", "nodes": "graph_nodes"}   # version 1 key -> version 2 key


def schema(command: str) -> str:
    return f"tensorcli.{command}/{VERSION}"


def envelope(command: str, body: dict, *, schema_name: str | None = None) -> dict:
    """``{"schema", "command", **body}`` with dtypes spelled one way ("float32")."""
    out = {"schema": schema(schema_name or command), "command": command}
    out.update({k: v for k, v in body.items() if k not in ("schema", "command")})
    return normalize(out)


def normalize(obj, renames: dict | None = None):
    """Strip "torch." from every "dtype" value; rename keys (``renames``) at every level."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            k = (renames or {}).get(k, k)
            if k == "dtype" and isinstance(v, str):
                v = v.removeprefix("torch.")
            out[k] = normalize(v, renames)
        return out
    if isinstance(obj, list):
        return [normalize(v, renames) for v in obj]
    return obj


def max_elements() -> int:
    if _FULL[0]:
        return 1 << 62
    text = os.environ.get("TENSORCLI_JSON_MAX_ELEMENTS", "").strip()
    return int(text) if text.isdigit() else DEFAULT_MAX_ELEMENTS


@contextmanager
def full_data(on: bool):
    """--full-data for the duration of a command: every element, whatever the size."""
    old, _FULL[0] = _FULL[0], bool(on)
    try:
        yield
    finally:
        _FULL[0] = old


def summary(arr) -> dict:
    """numel, NaN/Inf counts, min/max/mean/std over the finite values (std unbiased, as torch.std):
    the statistics `tensorcli show` prints."""
    a = np.asarray(arr)
    out = {"numel": int(a.size), "nan": 0, "inf": 0, "min": None, "max": None, "mean": None, "std": None}
    if a.size > _BLOCK and a.dtype.kind != "c":   # a memory-mapped file: in blocks (services/show.py)
        return _summary_blocks(a, out)
    if a.dtype.kind in "fc":
        bad_nan, bad_inf = np.isnan(a), np.isinf(a)
        out["nan"], out["inf"] = int(bad_nan.sum()), int(bad_inf.sum())
        a = a[~(bad_nan | bad_inf)]
    if a.size == 0 or a.dtype.kind == "c":
        return out
    out["min"], out["max"] = _scalar(a.min().item()), _scalar(a.max().item())
    f = a.astype(np.float64)
    out["mean"] = _scalar(float(f.mean()))
    out["std"] = _scalar(float(f.std(ddof=1))) if f.size > 1 else "NaN"
    return out


_BLOCK = 1 << 22   # elements: above it, the statistics come from blocks of this many


def _summary_blocks(a, out):
    """summary() in bounded memory: one block at a time (float64 sums, Chan's merge for the std)."""
    from .show import CHUNK, _Acc, _flat
    from ..io.npyfile import release
    flat, acc = _flat(a), _Acc()
    for i in range(0, flat.size, CHUNK):
        acc.add(flat[i:i + CHUNK])
        release(flat, i * flat.itemsize, min(i + CHUNK, flat.size) * flat.itemsize)
    out["nan"], out["inf"] = acc.nan, acc.inf
    if acc.n:
        out["min"], out["max"] = _scalar(acc.lo.item()), _scalar(acc.hi.item())
        out["mean"] = _scalar(acc.sum / acc.n)
        out["std"] = _scalar(float(np.sqrt(acc.m2 / (acc.n - 1)))) if acc.n > 1 else "NaN"
    return out


def _scalar(v):
    from ..io import json_scalar
    return json_scalar(v)


def dtype_name(arr) -> str:
    from ..io import dtype_name as name
    return name(arr)


def array_json(arr, name: str | None = None) -> dict:
    """One tensor's data (an ndarray) in the vocabulary, summarised above max_elements()."""
    from ..io import json_data
    arr = np.asarray(arr)
    obj = {"shape": list(arr.shape), "dtype": dtype_name(arr), "numel": int(arr.size)}
    if arr.size > max_elements():
        obj.update(data=None, truncated=True, summary=summary(arr))
    else:
        obj.update(data=json_data(arr), truncated=False, summary=None)
    if name is not None:
        obj["name"] = name
    return obj


def result_json(result):
    """A command's result: one tensor object, or a list of them (with "name") for several."""
    from .. import io
    items = io._items(result)   # io's one definition of "the tensors of a result"
    if io.is_multi(result):
        return [array_json(a, name) for name, a in items]
    return array_json(items[0][1])
