"""`tensorcli eval`: the value of an expression in the safe language, as plain data.

EXPR is run by ``services.expr`` through ``services.autograd.run_expression`` (the whitelist
interpreter of grad/graph/modes: statements separated by ``;``, the value of the last one is the
result; allocation estimates; no eval). The result is classified as Python would print it:

* ``tensor``: a Tensor (printed with core's repr, as ``print(t)`` in PyTorch);
* ``tensors``: a tuple or list whose items are all Tensors (a torch.return_types tuple keeps its
  field names: ``values``, ``indices``);
* ``size``: a torch.Size; ``number``: a Python bool, int, float or complex;
* ``value``: anything else the language can produce (a dtype, a list from ``tolist()``, ...),
  printed with ``repr`` as Python prints it.

No Typer, no Rich: commands/eval.py parses options, render/evaluate.py draws.
"""
from __future__ import annotations

import core

from .. import io
from ..errors import CliError
from . import autograd as ag
from . import vocab

KINDS = ("tensor", "tensors", "size", "number", "value")


def kind_of(value) -> str:
    """One of KINDS (see the module docstring)."""
    if isinstance(value, core.Tensor):
        return "tensor"
    if isinstance(value, core.Size):
        return "size"
    if isinstance(value, (tuple, list)) and value and all(isinstance(v, core.Tensor) for v in value):
        return "tensors"
    if isinstance(value, (bool, int, float, complex)):
        return "number"
    return "value"


def evaluate(source: str, lets, *, requires_grad=None, dtype=None, max_bytes=None, stdin_used=None):
    """(result, kind): EXPR evaluated over the --let tensors (cast to --dtype, --requires-grad marked)
    under the allocation limit. Errors are CliError naming EXPR or the --let name."""
    limit = ag.parse_max_bytes(max_bytes)
    with ag.allocation_limit(limit):
        names = ag.load_inputs(lets, requires_grad, dtype, [] if stdin_used is None else stdin_used)
        result, _ = ag.run_expression(source, names, max_bytes=limit)
    return result, kind_of(result)


def item_names(result) -> list:
    """Names of a tuple's tensors: the field names of a torch.return_types tuple, else out[i]."""
    fields = getattr(result, "_fields", None)
    return list(fields) if fields else [f"out[{i}]" for i in range(len(result))]


def _value_json(result, kind) -> dict:
    """A non-tensor result: ``value`` (JSON: numbers, booleans, lists of ints; null when JSON has no
    such value) and ``text`` (Python's repr, as PyTorch prints it)."""
    if kind == "size":
        value = [int(d) for d in result]
    elif isinstance(result, bool) or (kind == "number" and not isinstance(result, complex)):
        value = io.json_scalar(result)
    else:
        value = None
    return {"value": value, "text": repr(result)}


def to_json(source: str, result, kind: str, *, full_data: bool = False) -> dict:
    """The --json object (docs/json.md, tensorcli.eval/2)."""
    with vocab.full_data(full_data):
        if kind == "tensor":
            body = vocab.result_json(result)
        elif kind == "tensors":
            body = [vocab.array_json(t._data, name) for name, t in zip(item_names(result), result)]
        else:
            body = _value_json(result, kind)
    obj = {"expr": source, "kind": kind, "type": type_name(result), "result": body}
    return vocab.envelope("eval", obj)


def type_name(result) -> str:
    """The type as PyTorch names it: 'torch.Tensor', 'torch.Size', 'torch.return_types.max', 'float'."""
    cls = type(result)
    if isinstance(result, core.Tensor):
        return "torch.Tensor"
    if isinstance(result, core.Size):
        return "torch.Size"
    if getattr(cls, "_fields", None) is not None and cls.__module__.endswith("return_types"):
        return f"torch.return_types.{cls.__name__}"
    if isinstance(result, core.dtype):
        return "torch.dtype"
    return cls.__name__


def save(result, kind: str, path: str) -> None:
    """-o: a tensor or tuple-of-tensors result, written by io.save_result (atomic, as op commands)."""
    if kind not in ("tensor", "tensors"):
        raise CliError("--out", f"the expression's value is a {type_name(result)}, not a tensor: "
                                "nothing to write (use --json)")
    io.save_result(result, path)
