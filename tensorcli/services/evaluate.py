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

Programs (``-f FILE``, ``-f -`` for stdin, or a multi-line EXPR) run the same way: what they
``print`` goes to stdout as it happens, exactly as Python would print it. With ``-f`` the run is a
script's: nothing but its own output is printed (``--json`` puts that output in ``output``).

No Typer, no Rich: commands/eval.py parses options, render/evaluate.py draws.
"""
from __future__ import annotations

from contextlib import contextmanager

import core

from .. import io
from ..errors import CliError
from . import autograd as ag
from . import expr, vocab

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


MAX_PROGRAM_BYTES = 1_000_000


def read_program(expr_arg, file, stdin_used=None):
    """(source, label): the program of EXPR or of ``-f FILE`` (``-`` reads stdin); ``label`` names it
    in error messages (EXPR, or the file). Exactly one of the two must be given."""
    if file is None:
        if expr_arg is None:
            raise CliError("EXPR", "give an expression, or a program file with -f FILE (- for stdin)")
        return expr_arg, "EXPR"
    if expr_arg is not None:
        raise CliError("-f", "give either EXPR or -f FILE, not both")
    if file == "-":
        if stdin_used is not None:
            if stdin_used:
                raise CliError("-f", f"stdin ('-') can only be read once per command, and {stdin_used[0]} "
                                     "already reads it")
            stdin_used.append("-f")
        import sys
        data = sys.stdin.read(MAX_PROGRAM_BYTES + 1) if sys.stdin is not None else ""
        label = "<stdin>"
    else:
        try:
            with open(file, "rb") as f:
                raw = f.read(MAX_PROGRAM_BYTES + 1)
        except OSError as e:
            raise CliError("-f", f"cannot read {file}: {e.strerror or e}") from None
        try:
            data = raw.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise CliError("-f", f"{file} is not UTF-8 text ({e.reason} at byte {e.start})") from None
        label = file
    if len(data) > MAX_PROGRAM_BYTES:
        raise CliError("-f", f"{label} is larger than {MAX_PROGRAM_BYTES} bytes")
    return data, label


@contextmanager
def program_source(expr_arg, file, stdin_used=None, *, json_output=False):
    """For grad/graph/modes/memory: yield the source of EXPR or ``-f FILE``; errors naming EXPR name
    the file instead; with ``json_output`` what the program prints goes to stderr (stdout is JSON)."""
    import sys
    from .program import PRINT_STREAM
    source, label = read_program(expr_arg, file, stdin_used)
    token = PRINT_STREAM.set(sys.stderr) if json_output else None
    try:
        yield source
    except CliError as e:
        if e.arg == "EXPR" and label != "EXPR":
            raise CliError(label, e.message) from e.__cause__
        raise
    finally:
        if token is not None:
            PRINT_STREAM.reset(token)


def run(source: str, names: dict, *, max_bytes: int, label: str = "EXPR", out=None):
    """Run EXPR or a program over ``names`` with the built-in Functions: expr.ProgramResult. Refusals
    and the program's exceptions become one CliError naming ``label``."""
    from .functions import CALLABLES
    with ag.expression_errors(label, source=source, names=names, max_bytes=max_bytes):
        result = expr.run_program(source, names, extra_callables=CALLABLES,
                                  limits=expr.Limits(max_bytes=max_bytes), out=out)
    ag.refuse_uninitialized(result.value, result.namespace)
    return result


def evaluate(source: str, lets, *, requires_grad=None, dtype=None, max_bytes=None, stdin_used=None,
             label="EXPR", out=None):
    """(result, kind, printed): EXPR evaluated over the --let tensors (cast to --dtype,
    --requires-grad marked) under the allocation limit; ``printed``: characters print() wrote.
    Errors are CliError naming EXPR (or ``label``) or the --let name."""
    limit = ag.parse_max_bytes(max_bytes)
    with ag.allocation_limit(limit):
        names = ag.load_inputs(lets, requires_grad, dtype, [] if stdin_used is None else stdin_used)
        res = run(source, names, max_bytes=limit, label=label, out=out)
    return res.value, kind_of(res.value), res.output_chars


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


def to_json(source: str, result, kind: str, *, full_data: bool = False, output: str | None = None) -> dict:
    """The --json object (docs/json.md, tensorcli.eval/2); ``output``: what a program printed."""
    with vocab.full_data(full_data):
        if kind == "tensor":
            body = vocab.result_json(result)
        elif kind == "tensors":
            body = [vocab.array_json(t._data, name) for name, t in zip(item_names(result), result)]
        else:
            body = _value_json(result, kind)
    obj = {"expr": source, "kind": kind, "type": type_name(result), "result": body}
    if output is not None:
        obj["output"] = output
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
