"""Case files for ``tensorcli check``: loading, validation, running, and the reports.

A case file is TOML (``[[case]]`` tables) or JSON (``{"case": [...]}`` or a list of case objects).
Each case names what to run, exactly one of:

* ``op = "gather"``: a registered core op (``core.ops.registry.OPS``), called with the case's other
  fields mapped to the op's parameters by name (``input``, ``dim``, ``index``...; also ``args = {...}``
  for a parameter whose name is one of the case fields below). Tensor parameters take a literal
  (nested lists, a number, or ``{data = ..., dtype = "float64"}``) or a file as on the command
  line (``"labels.npy"``, ``"x.npz:key"``, ``"x.json"``), relative to the case file.
* ``expr = "..."``: an expression evaluated by :mod:`tensorcli.expr` (the whitelisted evaluator) with
  ``let = {x = [1.0, 2.0]}`` bindings (lists and files become tensors, numbers stay numbers).
* ``model = "Linear(10,5) -> ReLU()"`` with ``input_shape = [4, 10]``: a ``core.nn`` model spec
  (parsed, never evaluated, by :mod:`tensorcli.commands.memory`), run on a seeded random input.

Options: ``requires_grad = ["x"]`` (let names or op parameters), ``grad_mode`` (``grad``,
``no_grad``, ``inference_mode``) for the run, ``gradient`` (for backward of a non-scalar result),
``backward`` (false: never call backward), ``atol`` / ``rtol`` (defaults 1e-8 / 1e-5, as
``torch.allclose``), ``skip = "reason"``, ``description``, ``batches`` / ``keep_outputs`` (memory runs).

Expectations (at least one): ``expect`` (value; a tuple result is compared item by item),
``expect_dtype``, ``expect_shape``, ``expect_grad = {x = [...]}`` (after ``result.backward(gradient)``
when the result requires grad; ``"None"`` expects no gradient), ``expect_hooks = {z = [[...]]}`` (the
gradients a hook on ``z`` sees, one entry per call), ``expect_error`` (substring of the message) /
``expect_error_type`` (class name), ``expect_memory = {mode = "no_grad", saved_bytes = 0}`` (fields of
``core.memory.ModeReport``; a value may be a comparison string such as ``">0"`` or ``"<= 4096"``;
a list of tables checks several modes).

Malformed files raise :class:`CaseFileError` naming the file, the case and the field. Running never
uses eval: ops go through the registry, expressions through the whitelisted evaluator, data files
through :mod:`tensorcli.io` (never unpickles), and allocations are capped by ``MAX_BYTES`` (core's
allocation limit and the evaluator's ``Limits.max_bytes``) while cases run.
"""
from __future__ import annotations

import contextlib
import dataclasses
import difflib
import fnmatch
import inspect
import json
import math
import os
import re
import time
import tomllib
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["SCHEMA", "MAX_BYTES", "CaseFileError", "Case", "CaseResult", "Report", "TorchUnavailable",
           "discover", "load_file", "load_paths", "select", "run_case", "run", "run_paths", "check_outcome",
           "to_json", "to_junit", "malformed_json", "malformed_junit", "render", "render_line"]

SCHEMA = "tensorcli.check/1"
MAX_BYTES = 1024 ** 3                # largest single allocation while cases run
MAX_FILE_BYTES = 16 * 1024 ** 2      # largest case file read
MAX_COMPARE = 10_000_000             # elements compared value by value
DEFAULT_ATOL, DEFAULT_RTOL = 1e-8, 1e-5
GRAD_MODES = ("grad", "no_grad", "inference_mode")

_INFO = {"name", "description", "skip"}
_TARGETS = ("op", "expr", "model")
_OPTIONS = {"args", "let", "requires_grad", "grad_mode", "input_shape", "gradient", "backward", "atol",
            "rtol", "batches", "keep_outputs"}
_EXPECTS = ("expect", "expect_dtype", "expect_shape", "expect_grad", "expect_hooks", "expect_error",
            "expect_error_type", "expect_memory")
FIELDS = _INFO | set(_TARGETS) | _OPTIONS | set(_EXPECTS)

class CaseFileError(Exception):
    """A malformed case file: names the file, the case (index and name) and the field."""

    def __init__(self, file, message, *, case=None, field=None, line=None):
        self.file, self.message, self.case, self.field, self.line = str(file), message, case, field, line
        super().__init__(str(self))

    def __str__(self):
        where = self.file + (f":{self.line}" if self.line else "")
        parts = [where]
        if self.case:
            parts.append(self.case)
        if self.field:
            parts.append(f"field '{self.field}'")
        return ": ".join(parts + [self.message])

    def to_dict(self):
        return {"file": self.file, "line": self.line, "case": self.case, "field": self.field,
                "message": self.message}


class TorchUnavailable(RuntimeError):
    """--against-torch was asked for but PyTorch is not importable."""


# -- values -------------------------------------------------------------------------------------

@dataclass
class TensorSpec:
    """A tensor argument loaded once; every run builds a fresh tensor from a copy of ``array``."""

    array: np.ndarray
    scalar: bool = False     # written as a bare number: stays a Python number where PyTorch allows

    def build(self, eng):
        return eng.tensor(self.array)


@dataclass
class DtypeSpec:
    name: str

    def build(self, eng):
        return eng.dtype(self.name)


_NONE = object()             # an expected "no gradient"


def _build(value, eng):
    if isinstance(value, (TensorSpec, DtypeSpec)):
        return value.build(eng)
    if isinstance(value, list):
        return [_build(v, eng) for v in value]
    return value


@dataclass
class Case:
    file: str
    index: int               # 1-based position in the file
    name: str
    kind: str                # 'op' | 'expr' | 'model'
    target: str              # op name, expression source or model spec
    raw: dict
    args: dict = field(default_factory=dict)      # op: parameter -> value (TensorSpec / python)
    let: dict = field(default_factory=dict)
    program: object = None
    requires_grad: list = field(default_factory=list)
    grad_mode: str = "grad"
    input_shape: tuple | None = None
    input: TensorSpec | None = None                # model cases: a given input instead of input_shape
    gradient: TensorSpec | None = None
    backward: bool | None = None
    atol: float = DEFAULT_ATOL
    rtol: float = DEFAULT_RTOL
    batches: int = 1
    keep_outputs: bool = False
    skip: str | None = None
    expects: dict = field(default_factory=dict)    # expectation field -> normalised value

    @property
    def id(self):
        return f"{self.file}::{self.name}"

    @property
    def classname(self):
        p = self.file
        for suffix in (".toml", ".json"):
            if p.endswith(suffix):
                p = p[: -len(suffix)]
        return p.replace("\\", "/").strip("./").replace("/", ".") or p

    def needs_run(self):
        """False when only memory figures are expected (the main run would be wasted work)."""
        return any(k != "expect_memory" for k in self.expects)


# -- discovery and loading ---------------------------------------------------------------------

def discover(paths) -> list[Path]:
    """Files named on the command line, and the *.toml / *.json files inside directories (sorted,
    not recursive, so data files can live in a sub-folder). CaseFileError for a missing path."""
    out = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found = sorted(q for q in p.iterdir() if q.suffix.lower() in (".toml", ".json") and q.is_file())
            if not found:
                raise CaseFileError(p, "no *.toml or *.json case files in this directory")
            out.extend(found)
        elif p.is_file():
            out.append(p)
        else:
            raise CaseFileError(p, "no such file or directory")
    seen, uniq = set(), []
    for p in out:
        key = os.path.realpath(p)
        if key not in seen:
            seen.add(key)
            uniq.append(p)
    return uniq


def load_paths(paths) -> tuple[list[Path], list[Case], list[CaseFileError]]:
    """Discover and load every file; collects the errors of all malformed files."""
    files = discover(paths)
    cases, errors = [], []
    for f in files:
        try:
            cases.extend(load_file(f))
        except CaseFileError as e:
            errors.append(e)
    return files, cases, errors


def load_file(path) -> list[Case]:
    """Parse and validate one case file (tensor fields and data files loaded here)."""
    path = Path(path)
    label = str(path)
    try:
        size = path.stat().st_size
    except OSError as e:
        raise CaseFileError(label, f"cannot read: {e.strerror or e}") from None
    if size > MAX_FILE_BYTES:
        raise CaseFileError(label, f"case file of {size} bytes exceeds the limit of {MAX_FILE_BYTES}")
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CaseFileError(label, "not UTF-8 text") from None
    except OSError as e:
        raise CaseFileError(label, f"cannot read: {e.strerror or e}") from None
    if path.suffix.lower() == ".json":
        entries = _parse_json(text, label)
    else:
        entries = _parse_toml(text, label)
    base = path.parent
    cases, names = [], {}
    with _allocation_limit(MAX_BYTES):
        for i, raw in enumerate(entries, 1):
            case = _validate(raw, i, label, base)
            if case.name in names:
                raise CaseFileError(label, f"duplicate case name (also case {names[case.name]})",
                                    case=_case_label(i, case.name), field="name")
            names[case.name] = i
            cases.append(case)
    return cases


def _parse_toml(text, label):
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        line = int(m.group(1)) if m else None
        raise CaseFileError(label, f"invalid TOML: {msg}", line=line) from None
    except RecursionError:
        raise CaseFileError(label, "invalid TOML: nested too deeply") from None
    return _entries(doc, label)


def _parse_json(text, label):
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise CaseFileError(label, f"invalid JSON: {e.msg} (line {e.lineno}, column {e.colno})",
                            line=e.lineno) from None
    except RecursionError:
        raise CaseFileError(label, "invalid JSON: nested too deeply") from None
    return _entries(doc, label)


def _entries(doc, label):
    if isinstance(doc, list):
        entries = doc
    elif isinstance(doc, dict):
        extra = sorted(set(doc) - {"case"})
        if extra:
            raise CaseFileError(label, f"unknown top-level key (case files hold only [[case]] tables)",
                                field=extra[0])
        if "case" not in doc:
            raise CaseFileError(label, "no cases: expected [[case]] tables", field="case")
        entries = doc["case"]
    else:
        raise CaseFileError(label, f"expected a table of cases, got {type(doc).__name__}")
    if not isinstance(entries, list):
        raise CaseFileError(label, "'case' must be an array of tables ([[case]])", field="case")
    if not entries:
        raise CaseFileError(label, "no cases", field="case")
    for i, e in enumerate(entries, 1):
        if not isinstance(e, dict):
            raise CaseFileError(label, f"a case must be a table, got {_tname(e)}", case=f"case {i}")
    return entries


def _case_label(index, name=None):
    return f"case {index} '{name}'" if name else f"case {index}"


def _tname(v):
    return {dict: "table", list: "array", str: "string", bool: "boolean", int: "integer",
            float: "float"}.get(type(v), type(v).__name__)


class _V:
    """Validation helpers bound to one case (for the error location)."""

    def __init__(self, label, index, raw, base):
        self.label, self.index, self.raw, self.base = label, index, raw, base
        name = raw.get("name")
        self.case = _case_label(index, name if isinstance(name, str) else None)

    def err(self, fld, message):
        return CaseFileError(self.label, message, case=self.case, field=fld)

    def typed(self, fld, value, types, what):
        if isinstance(value, bool) and bool not in types:
            raise self.err(fld, f"expected {what}, got boolean")
        if not isinstance(value, types):
            raise self.err(fld, f"expected {what}, got {_tname(value)}")
        return value

    def number(self, fld, value, minimum=0.0):
        self.typed(fld, value, (int, float), "a number")
        if not math.isfinite(value) or value < minimum:
            raise self.err(fld, f"expected a finite number >= {minimum}, got {value}")
        return float(value)

    def int_list(self, fld, value):
        self.typed(fld, value, (list,), "an array of integers")
        for v in value:
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise self.err(fld, f"expected an array of non-negative integers, got {value!r}")
        return tuple(value)

    def names(self, fld, value):
        self.typed(fld, value, (list,), "an array of names")
        for v in value:
            if not isinstance(v, str) or not v.isidentifier():
                raise self.err(fld, f"expected an array of names, got {v!r}")
        return list(value)

    # tensors ------------------------------------------------------------------------------
    def tensor(self, fld, value, *, dtype=None):
        """A TensorSpec from a literal, a {data/file, dtype} table or a data file name."""
        from . import io as tio
        from .errors import CliError
        import core
        if isinstance(value, dict):
            unknown = sorted(set(value) - {"data", "file", "dtype"})
            if unknown:
                raise self.err(f"{fld}.{unknown[0]}", "unknown key in a tensor table (expected data or "
                                                      "file, and optionally dtype)")
            if ("data" in value) == ("file" in value):
                raise self.err(fld, "a tensor table needs exactly one of 'data' or 'file'")
            dt = value.get("dtype")
            if dt is not None:
                self.dtype_name(f"{fld}.dtype", dt)
            inner = value.get("data", value.get("file"))
            if "file" in value:
                self.typed(f"{fld}.file", inner, (str,), "a file name")
            return self.tensor(fld, inner, dtype=dt)
        if isinstance(value, str):
            spec = value.strip()
            if spec == "-" or spec.startswith("-:"):
                raise self.err(fld, "stdin ('-') cannot be used in a case file")
            if spec[:1] not in "[{" and not os.path.isabs(spec):
                spec = str(self.base / spec)
            try:
                t = tio.load_tensor(spec, arg=fld, dtype=dtype)
            except CliError as e:
                raise self.err(fld, e.message) from None
            return TensorSpec(tio.c_order(t._data))
        if isinstance(value, dict) or value is None:
            raise self.err(fld, f"expected a tensor, got {_tname(value)}")
        try:
            t = core.tensor(value, dtype=tio.parse_dtype(dtype) if dtype else None)
        except (ValueError, TypeError, RuntimeError, OverflowError) as e:
            raise self.err(fld, f"not a tensor: {_first_line(e)}") from None
        return TensorSpec(tio.c_order(t._data), scalar=not isinstance(value, list))

    def dtype_name(self, fld, value):
        from . import io as tio
        from .errors import CliError
        self.typed(fld, value, (str,), "a dtype name such as \"float32\"")
        try:
            return str(tio.parse_dtype(value, arg=fld)).replace("torch.", "")
        except CliError as e:
            raise self.err(fld, e.message) from None

    def expected(self, fld, value):
        """An expected value: nested numbers/bools (ragged allowed for tuple results) or a file."""
        if isinstance(value, (str, dict)):
            return self.tensor(fld, value).array
        self.literal(fld, value, 0)
        return value

    def literal(self, fld, value, depth):
        if depth > 32:
            raise self.err(fld, "nested too deeply")
        if isinstance(value, list):
            for v in value:
                self.literal(fld, v, depth + 1)
        elif not isinstance(value, (bool, int, float)):
            raise self.err(fld, f"expected numbers, booleans or arrays of them, got {_tname(value)}")


def _validate(raw, index, label, base) -> Case:
    v = _V(label, index, raw, base)
    if "name" not in raw:
        raise v.err("name", "missing required field")
    name = v.typed("name", raw["name"], (str,), "a string")
    if not name.strip():
        raise v.err("name", "must not be empty")
    targets = [k for k in _TARGETS if k in raw]
    if len(targets) != 1:
        if not targets:
            raise v.err("op", "missing required field: each case needs one of op, expr or model")
        raise v.err(targets[1], f"a case has exactly one of op, expr or model (got {', '.join(targets)})")
    kind = targets[0]
    target = v.typed(kind, raw[kind], (str,), "a string")
    case = Case(label, index, name, kind, target, raw)

    op_info = None
    if kind == "op":
        from core.ops.registry import OPS
        op_info = OPS.get(target)
        if op_info is None:
            close = difflib.get_close_matches(target, list(OPS), n=3)
            hint = f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
            raise v.err("op", f"unknown op '{target}'{hint}")
        params = inspect.signature(op_info.fn).parameters
        unknown = [k for k in raw if k not in FIELDS and k not in params]
    else:
        unknown = [k for k in raw if k not in FIELDS and not (kind == "model" and k == "input")]
    if unknown:
        k = unknown[0]
        pool = sorted(FIELDS | (set(inspect.signature(op_info.fn).parameters) if op_info else set()))
        close = difflib.get_close_matches(k, pool, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        extra = f"; {target}() takes {', '.join(inspect.signature(op_info.fn).parameters)}" if op_info else ""
        raise v.err(k, f"unknown field{hint}{extra}")

    if "description" in raw:
        v.typed("description", raw["description"], (str,), "a string")
    if "skip" in raw:
        s = v.typed("skip", raw["skip"], (bool, str), "a boolean or a reason")
        case.skip = (s if isinstance(s, str) else "skip = true") if s else None
    if "grad_mode" in raw:
        m = v.typed("grad_mode", raw["grad_mode"], (str,), "a string")
        if m not in GRAD_MODES:
            raise v.err("grad_mode", f"expected one of {', '.join(GRAD_MODES)}, got '{m}'")
        case.grad_mode = m
    if "atol" in raw:
        case.atol = v.number("atol", raw["atol"])
    if "rtol" in raw:
        case.rtol = v.number("rtol", raw["rtol"])
    if "backward" in raw:
        case.backward = v.typed("backward", raw["backward"], (bool,), "a boolean")
    if "requires_grad" in raw:
        case.requires_grad = v.names("requires_grad", raw["requires_grad"])
    if "gradient" in raw:
        case.gradient = v.tensor("gradient", raw["gradient"])
    if "batches" in raw:
        b = v.typed("batches", raw["batches"], (int,), "an integer")
        if not 1 <= b <= 1000:
            raise v.err("batches", f"expected 1..1000, got {b}")
        case.batches = b
    if "keep_outputs" in raw:
        case.keep_outputs = v.typed("keep_outputs", raw["keep_outputs"], (bool,), "a boolean")

    for k in ("let", "args"):
        if k in raw:
            v.typed(k, raw[k], (dict,), "a table")
    if kind != "expr" and "let" in raw:
        raise v.err("let", f"only expr cases take let bindings (this is an {kind} case)")
    if kind != "op" and "args" in raw:
        raise v.err("args", f"only op cases take args (this is an {kind} case)")
    if kind == "model" and ("input_shape" in raw) == ("input" in raw):
        if "input" in raw:
            raise v.err("input", "give input or input_shape, not both")
        raise v.err("input_shape", "missing required field: a model case needs input_shape (or input)")
    if kind == "model" and "input" in raw:
        case.input = v.tensor("input", raw["input"])
    if "input_shape" in raw:
        if kind != "model":
            raise v.err("input_shape", "only model cases take input_shape")
        case.input_shape = v.int_list("input_shape", raw["input_shape"])
        if not case.input_shape:
            raise v.err("input_shape", "must not be empty")

    if kind == "op":
        _validate_op(v, case, op_info)
    elif kind == "expr":
        _validate_expr(v, case)
    else:
        _validate_model(v, case)

    bindings = set(case.args) if kind == "op" else set(case.let)
    for n in case.requires_grad:
        if kind == "model":
            raise v.err("requires_grad", "model cases take no requires_grad (parameters already do)")
        if kind == "op" and n not in bindings:
            raise v.err("requires_grad", f"'{n}' is not an argument given to {target}()")
        if kind == "op" and not isinstance(case.args[n], TensorSpec):
            raise v.err("requires_grad", f"'{n}' is not a tensor argument")
        if kind == "expr" and n not in bindings:
            raise v.err("requires_grad", f"'{n}' is not a let binding")
    _validate_expects(v, case, bindings)
    return case


def _validate_op(v, case, info):
    sig = inspect.signature(info.fn)
    given = {k: case.raw[k] for k in case.raw if k not in FIELDS}
    for k, val in case.raw.get("args", {}).items():
        if k not in sig.parameters:
            raise v.err(f"args.{k}", f"{case.target}() has no parameter '{k}' "
                                     f"(parameters: {', '.join(sig.parameters)})")
        if k in given:
            raise v.err(f"args.{k}", "given twice (also as a field)")
        given[k] = val
    for pname, p in sig.parameters.items():
        if p.kind is p.VAR_KEYWORD:
            continue
        if pname not in given and p.default is p.empty and p.kind is not p.VAR_POSITIONAL:
            raise v.err(pname, f"missing required field: {case.target}() needs '{pname}'")
    from . import app
    kinds = {p.name: p.kind for p in app.classify(info)}
    first = next(iter(sig.parameters), None)
    for k, val in given.items():
        case.args[k] = _op_value(v, kinds, first, k, val)


def _op_value(v, kinds, first, k, val):
    """A case field as an op argument, typed by the CLI's parameter conventions (tensorcli.app)."""
    from . import app
    kind = kinds.get(k)
    if k == "dtype" and isinstance(val, str):
        return DtypeSpec(v.dtype_name(k, val))
    if isinstance(val, dict):
        return v.tensor(k, val)
    if kind == app.TENSORS:
        v.typed(k, val, (list,), "an array of tensors")
        return [v.tensor(f"{k}[{i}]", x) for i, x in enumerate(val)]
    if kind in (app.TENSOR, app.OPERAND, app.NUMBER):
        if isinstance(val, (list, str)) or (k == first and kind == app.TENSOR):
            return v.tensor(k, val)
        return val
    if isinstance(val, list):
        v.literal(k, val, 0)
        return list(val)
    return val


def _validate_expr(v, case):
    from . import expr
    try:
        case.program = expr.parse(case.target, _limits())
    except expr.ExprError as e:
        raise v.err("expr", str(e)) from None
    for k, val in case.raw.get("let", {}).items():
        fld = f"let.{k}"
        if not isinstance(k, str) or not k.isidentifier() or k.startswith("_"):
            raise v.err(fld, "not a valid name")
        if k in expr.ALIASES:
            raise v.err(fld, f"'{k}' is a module alias and cannot be rebound")
        if isinstance(val, (list, str, dict)):
            case.let[k] = v.tensor(fld, val)
        elif isinstance(val, (bool, int, float)):
            case.let[k] = v.tensor(fld, val) if k in case.raw.get("requires_grad", ()) else val
        else:
            raise v.err(fld, f"expected a tensor or a number, got {_tname(val)}")


def _validate_model(v, case):
    from .commands import memory as mem
    try:
        layers = mem.parse_model_spec(case.target)
        mem.check_model_size(layers)
    except mem.SpecError as e:
        raise v.err("model", e.message) from None
    if case.input_shape is None:
        return
    try:
        import core
        n = core.creation.check_alloc(case.input_shape, core.float32)
    except RuntimeError as e:
        raise v.err("input_shape", _first_line(e)) from None
    if n * 4 > MAX_BYTES:
        raise v.err("input_shape", f"an input of shape {list(case.input_shape)} needs {n * 4} bytes "
                                   f"(limit {MAX_BYTES})")


_CMP = re.compile(r"^\s*(==|!=|<=|>=|<|>)?\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$")


def _memory_fields():
    from core.memory import ModeReport
    return {f.name for f in dataclasses.fields(ModeReport)
            if f.name not in ("mode", "per_layer", "per_batch_bytes", "note", "keep_outputs", "batches")}


def _validate_expects(v, case, bindings):
    raw = case.raw
    present = [k for k in _EXPECTS if k in raw]
    if not present and case.skip is None:
        raise v.err("expect", "missing required field: a case needs at least one of " + ", ".join(_EXPECTS))
    errs = [k for k in ("expect_error", "expect_error_type") if k in raw]
    if errs:
        others = [k for k in present if k not in errs]
        if others:
            raise v.err(others[0], f"cannot be combined with {errs[0]} (an error leaves no result)")
    ex = case.expects
    if "expect" in raw:
        ex["expect"] = v.expected("expect", raw["expect"])
    if "expect_dtype" in raw:
        ex["expect_dtype"] = v.dtype_name("expect_dtype", raw["expect_dtype"])
    if "expect_shape" in raw:
        ex["expect_shape"] = list(v.int_list("expect_shape", raw["expect_shape"]))
    for k in ("expect_grad", "expect_hooks"):
        if k not in raw:
            continue
        if case.kind == "model":
            raise v.err(k, "not available for model cases")
        table = v.typed(k, raw[k], (dict,), "a table of name = value")
        out = {}
        for n, val in table.items():
            fld = f"{k}.{n}"
            if n not in bindings and k == "expect_hooks" and case.kind == "op":
                raise v.err(fld, f"'{n}' is not an argument given to {case.target}()")
            if k == "expect_grad":
                out[n] = _NONE if isinstance(val, str) and val.strip().lower() == "none" else v.expected(fld, val)
            else:
                v.typed(fld, val, (list,), "an array with one gradient per hook call")
                out[n] = [v.expected(f"{fld}[{i}]", x) for i, x in enumerate(val)]
        ex[k] = out
    if "expect_error" in raw:
        ex["expect_error"] = v.typed("expect_error", raw["expect_error"], (str,), "a string")
    if "expect_error_type" in raw:
        t = v.typed("expect_error_type", raw["expect_error_type"], (str,), "an exception class name")
        if not t.isidentifier():
            raise v.err("expect_error_type", f"not a class name: {t!r}")
        ex["expect_error_type"] = t
    if "expect_memory" in raw:
        if case.kind == "op":
            raise v.err("expect_memory", "memory figures need an expr or a model case")
        val = raw["expect_memory"]
        tables = val if isinstance(val, list) else [val]
        fields_ok = _memory_fields()
        entries = []
        for i, t in enumerate(tables):
            fld = "expect_memory" if not isinstance(val, list) else f"expect_memory[{i}]"
            v.typed(fld, t, (dict,), "a table such as {mode = \"no_grad\", saved_bytes = 0}")
            mode = t.get("mode")
            if mode is None:
                raise v.err(f"{fld}.mode", "missing required field")
            from core.memory import MODES
            if mode not in MODES:
                raise v.err(f"{fld}.mode", f"expected one of {', '.join(MODES)}, got {mode!r}")
            checks = {}
            for key, want in t.items():
                if key == "mode":
                    continue
                if key not in fields_ok:
                    close = difflib.get_close_matches(key, sorted(fields_ok), n=1)
                    hint = f" (did you mean '{close[0]}'?)" if close else ""
                    raise v.err(f"{fld}.{key}", f"unknown memory figure{hint}")
                if isinstance(want, bool) or not isinstance(want, (int, float, str)):
                    raise v.err(f"{fld}.{key}", f"expected a number or a comparison such as \">0\", "
                                                f"got {_tname(want)}")
                if isinstance(want, str):
                    m = _CMP.match(want)
                    if not m:
                        raise v.err(f"{fld}.{key}", f"not a comparison: {want!r} (use e.g. \">0\", \"<= 4096\")")
                    checks[key] = (m.group(1) or "==", float(m.group(2)))
                else:
                    checks[key] = ("==", float(want))
            entries.append((mode, checks))
        ex["expect_memory"] = entries


# -- engines (core / torch) ----------------------------------------------------------------------

class _Engine:
    """What a case needs from a tensor library: tensors from arrays, dtypes, ops, grad modes."""

    def __init__(self, name, mod):
        self.name, self.mod = name, mod
        self._backend = None

    def tensor(self, arr):
        if self.name == "core":
            from core.tensor import Tensor
            return Tensor._make(arr.copy())
        return self.mod.from_numpy(arr.copy())

    def dtype(self, name):
        return getattr(self.mod, name)

    def is_tensor(self, x):
        return isinstance(x, self.mod.Tensor)

    def mode(self, mode):
        if mode == "no_grad":
            return self.mod.no_grad()
        if mode == "inference_mode":
            return self.mod.inference_mode()
        return self.mod.enable_grad()

    def backend(self):
        if self._backend is None:
            from .expr import Backend
            self._backend = Backend.from_module(self.mod)
        return self._backend

    def extra_callables(self):
        """The built-in example Functions (tensorcli.functions); for torch, the same forward and
        backward on a torch.autograd.Function subclass."""
        if not hasattr(self, "_extras"):
            try:
                from .functions import FUNCTIONS
            except ImportError:
                FUNCTIONS = {}
            extras = {}
            for name, cls in FUNCTIONS.items():
                if self.name != "core":
                    body = {k: cls.__dict__[k] for k in ("forward", "backward") if k in cls.__dict__}
                    cls = type(name, (self.mod.autograd.Function,), body)
                extras[f"{name}.apply"] = cls.apply
            self._extras = extras or None
        return self._extras

    def call_op(self, name, sig, args):
        """Call the op with the case's arguments: parameters up to a *varargs go positionally."""
        pos, kw = [], {}
        params = list(sig.parameters.values())
        has_var = any(p.kind is p.VAR_POSITIONAL for p in params)
        for p in params:
            if p.kind is p.VAR_POSITIONAL:
                if p.name in args:
                    val = args[p.name]
                    pos.extend(val if isinstance(val, (list, tuple)) else [val])
                has_var = False
            elif p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and has_var:
                pos.append(args[p.name] if p.name in args else p.default)
            elif p.name in args:
                kw[p.name] = args[p.name]
        if self.name == "core":
            from core.ops.registry import OPS
            return OPS[name].fn(*pos, **kw)
        fn = getattr(self.mod, name, None)
        if fn is None:   # a Tensor method only in torch (view, expand...): self is the first argument
            if not pos and kw:
                first = next(iter(sig.parameters))
                pos = [kw.pop(first)]
            return getattr(pos[0], name)(*pos[1:], **kw)
        return fn(*pos, **kw)


_ENGINES: dict = {}


def _engine(name):
    if name not in _ENGINES:
        if name == "core":
            import core
            _ENGINES[name] = _Engine("core", core)
        else:
            try:
                import torch
            except ImportError as e:
                raise TorchUnavailable(f"--against-torch needs PyTorch, which is not installed ({e})") from None
            _ENGINES[name] = _Engine("torch", torch)
    return _ENGINES[name]


def _limits():
    from .expr import Limits
    return Limits(max_bytes=MAX_BYTES)


@contextlib.contextmanager
def _allocation_limit(nbytes):
    import core.creation as cc
    old = cc.get_allocation_limit()
    cc.set_allocation_limit(min(old, nbytes))
    try:
        yield
    finally:
        cc.set_allocation_limit(old)


# -- running one case -----------------------------------------------------------------------------

@dataclass
class Outcome:
    result: object = None
    error: BaseException | None = None
    stage: str = ""                          # where the error happened
    grads: dict = field(default_factory=dict)
    hooks: dict = field(default_factory=dict)
    memory: dict = field(default_factory=dict)   # mode -> ModeReport


def _seed(eng):
    try:
        eng.mod.manual_seed(0)
    except Exception:   # pragma: no cover - core RNG absent
        pass


def _execute(case: Case, eng) -> Outcome:
    out = Outcome()
    if not case.needs_run():
        return out
    stage = "setup"
    try:
        _seed(eng)
        if case.kind == "op":
            names = {k: _build(val, eng) for k, val in case.args.items()}
        elif case.kind == "expr":
            names = {k: _build(val, eng) for k, val in case.let.items()}
        else:
            names = {}
        for n in case.requires_grad:
            names[n].requires_grad_(True)
        stage = "run"
        with eng.mode(case.grad_mode):
            if case.kind == "op":
                from core.ops.registry import OPS
                result = eng.call_op(case.target, inspect.signature(OPS[case.target].fn), names)
            elif case.kind == "expr":
                from . import expr
                result, ns = expr.evaluate(case.program, names, limits=case.program.limits,
                                           backend=eng.backend(), extra_callables=eng.extra_callables())
                names = ns
            else:
                result = _run_model(case, eng)
        out.result = result
        hooks = case.expects.get("expect_hooks", {})
        for n in hooks:
            t = names.get(n)
            if not eng.is_tensor(t):
                raise TypeError(f"expect_hooks: '{n}' is not a tensor after the run")
            seen = out.hooks.setdefault(n, [])
            t.register_hook(lambda g, seen=seen: seen.append(g.detach().clone()))
        wants_grads = "expect_grad" in case.expects or hooks
        if wants_grads and case.backward is not False and eng.is_tensor(result) and (
                result.requires_grad or case.backward):
            stage = "backward"
            gradient = case.gradient.build(eng) if case.gradient is not None else None
            result.backward(gradient)
        for n in case.expects.get("expect_grad", {}):
            if n not in names:
                raise NameError(f"expect_grad: no tensor named '{n}' after the run")
            t = names[n]
            with warnings.catch_warnings():   # a non-leaf's .grad warns; expecting None is the point
                warnings.simplefilter("ignore", UserWarning)
                out.grads[n] = t.grad if eng.is_tensor(t) else None
    except Exception as e:   # noqa: BLE001 - any exception is an outcome to compare
        out.error, out.stage = e, stage
    return out


def _run_model(case, eng):
    from .commands import memory as mem
    model = mem.build_model(case.target, 0)
    if eng.name != "core":
        model = _torch_model(case.target, model, eng)
    if case.input is not None:
        x = case.input.build(eng)
    else:
        x = eng.tensor(np.random.default_rng(1).standard_normal(case.input_shape).astype(np.float32))
    return model(x)


def _torch_model(spec, core_model, eng):
    """The same layers in torch.nn, with core's (seeded) parameters and buffers copied in."""
    from .commands import memory as mem
    nn = eng.mod.nn
    layers = [getattr(nn, name)(*args, **kwargs) for name, args, kwargs in mem.parse_model_spec(spec)]
    model = nn.Sequential(*layers)
    state = {k: eng.mod.from_numpy(np.array(v._data)) for k, v in core_model.state_dict().items()}
    model.load_state_dict(state)
    return model


def _memory(case: Case) -> dict:
    """mode -> ModeReport for the modes named by expect_memory (core only)."""
    from .commands import memory as mem
    modes = tuple(dict.fromkeys(m for m, _ in case.expects["expect_memory"]))
    if case.kind == "model":
        x = case.input.build(_engine("core")) if case.input is not None else None
        rep = mem.run_model(case.target, input_shape=case.input_shape, input_tensor=x, batches=case.batches,
                            modes=modes, keep_outputs=case.keep_outputs)
    else:
        eng = _engine("core")
        names = {k: _build(val, eng) for k, val in case.let.items()}
        for n in case.requires_grad:
            names[n].requires_grad_(True)
        rep = mem.run_expr(case.target, names, batches=case.batches, modes=modes,
                           keep_outputs=case.keep_outputs)
    return rep.modes


# -- comparing --------------------------------------------------------------------------------

def _first_line(e):
    s = " ".join(str(e).split())
    return s if s else type(e).__name__


def _short(e, limit=300):
    s = f"{type(e).__name__}: {_first_line(e)}"
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _to_array(x):
    """A NumPy array for a tensor (core or torch) or plain data; None if not array-like."""
    if hasattr(x, "detach") and hasattr(x, "numpy"):
        x = x.detach()
        if hasattr(x, "_data"):
            return np.asarray(x._data)
        return x.numpy()
    if isinstance(x, (bool, int, float, np.generic, np.ndarray)):
        return np.asarray(x)
    return None


def _fmt_num(v):
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (float, np.floating)):
        return f"{float(v):.6g}"
    return str(v)


def _fmt_value(x, limit=8):
    a = _to_array(x)
    if a is None:
        if isinstance(x, (list, tuple)):
            return "(" + ", ".join(_fmt_value(i) for i in x[:limit]) + (", ..." if len(x) > limit else "") + ")"
        return repr(x)[:80]
    flat = a.flat[:limit]          # never a.reshape(-1): a broadcast view could be terabytes
    body = ", ".join(_fmt_num(v) for v in flat) + (", ..." if a.size > limit else "")
    return f"[{body}] shape {list(a.shape)}" if a.ndim else body


def _dtype_str(x):
    d = getattr(x, "dtype", None)
    return str(d).replace("torch.", "") if d is not None else type(x).__name__


def _compare_values(what, expected, actual, atol, rtol, details):
    """Append differences between expected (array-like) and actual to details; True if equal."""
    act = _to_array(actual)
    if act is None:
        if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple, np.ndarray)):
            if len(expected) != len(actual):
                details.append(f"{what}: expected {len(expected)} results, got {len(actual)}")
                return False
            ok = True
            names = getattr(actual, "_fields", None)
            for i, (e, a) in enumerate(zip(expected, actual)):
                ok &= _compare_values(f"{what}[{names[i] if names else i}]", e, a, atol, rtol, details)
            return ok
        details.append(f"{what}: expected {_fmt_value(expected)}, got {type(actual).__name__} {_fmt_value(actual)}")
        return False
    try:
        exp = np.asarray(expected)
    except ValueError:
        details.append(f"{what}: the expected value is ragged but the result is a tensor of shape {list(act.shape)}")
        return False
    if exp.dtype == object:
        details.append(f"{what}: the expected value is ragged but the result has shape {list(act.shape)}")
        return False
    if exp.shape != act.shape:
        details.append(f"{what} shape: expected {list(exp.shape)}, got {list(act.shape)} "
                       f"(actual {_fmt_value(act)})")
        return False
    if act.size > MAX_COMPARE:
        details.append(f"{what}: {act.size} elements is too many to compare (limit {MAX_COMPARE})")
        return False
    if act.dtype.kind in "fc" or exp.dtype.kind in "fc":
        a64, e64 = act.astype(np.float64), exp.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            close = np.isclose(a64, e64, atol=atol, rtol=rtol, equal_nan=True)
    else:
        close = act == exp
        a64 = e64 = None
    if close.all():
        return True
    bad = np.argwhere(~close) if close.ndim else np.zeros((1, 0), dtype=int)
    n = int((~close).sum())
    head = f"{what}: {n} of {close.size} elements differ"
    if a64 is not None:
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.abs(a64 - e64)
            finite = diff[np.isfinite(diff)]
        if finite.size:
            head += f" (max abs diff {float(finite.max()):.6g}; atol {atol:g}, rtol {rtol:g})"
    details.append(head)
    for idx in bad[:5]:
        t = tuple(int(i) for i in idx)
        details.append(f"  at {list(t)}: expected {_fmt_num(exp[t])}, got {_fmt_num(act[t])}")
    if n > 5:
        details.append(f"  ... and {n - 5} more")
    return False


def _error_matches(case, err):
    ex = case.expects
    msgs = []
    want_type = ex.get("expect_error_type")
    if want_type and want_type not in {c.__name__ for c in type(err).__mro__}:
        msgs.append(f"error type: expected {want_type}, got {type(err).__name__}: {_first_line(err)}")
    want = ex.get("expect_error")
    if want and want not in str(err):
        msgs.append(f"error message: expected it to contain {want!r}, got {type(err).__name__}: "
                    f"{_first_line(err)}")
    return msgs


def check_outcome(case: Case, out: Outcome) -> tuple[str, list[str]]:
    """('passed' | 'failed' | 'error', details) of an outcome against the case's expectations."""
    ex = case.expects
    details: list[str] = []
    if "expect_error" in ex or "expect_error_type" in ex:
        if out.error is None:
            want = ex.get("expect_error") or ex.get("expect_error_type")
            return "failed", [f"expected an error ({want!r}), got a result: {_fmt_value(out.result)}"]
        d = _error_matches(case, out.error)
        return ("failed", d) if d else ("passed", [])
    if out.error is not None:
        where = {"setup": "while building the arguments", "backward": "in backward"}.get(out.stage, "")
        return "error", [f"{_short(out.error)}" + (f" ({where})" if where else "")]
    r = out.result
    if "expect_shape" in ex:
        shape = getattr(r, "shape", None)
        if shape is None:
            details.append(f"shape: expected {ex['expect_shape']}, got a {type(r).__name__} (no shape)")
        elif list(shape) != ex["expect_shape"]:
            details.append(f"shape: expected {ex['expect_shape']}, got {list(shape)}")
    if "expect_dtype" in ex:
        got = _dtype_str(r) if hasattr(r, "dtype") else None
        if got != ex["expect_dtype"]:
            details.append(f"dtype: expected {ex['expect_dtype']}, got {got or type(r).__name__}")
    if "expect" in ex:
        _compare_values("value", ex["expect"], r, case.atol, case.rtol, details)
    for n, exp in ex.get("expect_grad", {}).items():
        g = out.grads.get(n)
        if exp is _NONE:
            if g is not None:
                details.append(f"grad of {n}: expected None, got {_fmt_value(g)}")
        elif g is None:
            details.append(f"grad of {n}: expected {_fmt_value(exp)}, got None")
        else:
            _compare_values(f"grad of {n}", exp, g, case.atol, case.rtol, details)
    for n, calls in ex.get("expect_hooks", {}).items():
        seen = out.hooks.get(n, [])
        if len(seen) != len(calls):
            details.append(f"hook on {n}: expected {len(calls)} call(s), got {len(seen)}")
        for i, (e, g) in enumerate(zip(calls, seen)):
            _compare_values(f"hook on {n} call {i + 1}", e, g, case.atol, case.rtol, details)
    for mode, checks in ex.get("expect_memory", []):
        rep = out.memory.get(mode)
        if rep is None:
            details.append(f"memory ({mode}): not measured")
            continue
        for key, (op, want) in checks.items():
            got = getattr(rep, key)
            if not _cmp(got, op, want):
                details.append(f"memory ({mode}) {key}: expected {op} {_fmt_num(want)}, got {_fmt_num(got)}")
    return ("failed", details) if details else ("passed", [])


def _cmp(got, op, want):
    return {"==": got == want, "!=": got != want, "<": got < want, "<=": got <= want, ">": got > want,
            ">=": got >= want}[op]


def compare_outcomes(case: Case, core_out: Outcome, torch_out: Outcome) -> list[str]:
    """Where core and torch disagree: error class, result type/shape/dtype/values, grads, hooks."""
    d: list[str] = []
    ce, te = core_out.error, torch_out.error
    if ce is not None or te is not None:
        if ce is None:
            d.append(f"torch raised {_short(te)}; core returned {_fmt_value(core_out.result)}")
        elif te is None:
            d.append(f"core raised {_short(ce)}; torch returned {_fmt_value(torch_out.result)}")
        elif type(ce).__name__ != type(te).__name__:
            d.append(f"error class: core {_short(ce)}; torch {_short(te)}")
        return d
    _diff_results("result", core_out.result, torch_out.result, case, d)
    for n in sorted(set(core_out.grads) | set(torch_out.grads)):
        _diff_results(f"grad of {n}", core_out.grads.get(n), torch_out.grads.get(n), case, d)
    for n in sorted(set(core_out.hooks) | set(torch_out.hooks)):
        a, b = core_out.hooks.get(n, []), torch_out.hooks.get(n, [])
        if len(a) != len(b):
            d.append(f"hook on {n}: core saw {len(a)} call(s), torch {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            _diff_results(f"hook on {n} call {i + 1}", x, y, case, d)
    return d


def _diff_results(what, c, t, case, d):
    ca, ta = _to_array(c), _to_array(t)
    if c is None or t is None:
        if (c is None) != (t is None):
            d.append(f"{what}: core {_fmt_value(c) if c is not None else 'None'}, "
                     f"torch {_fmt_value(t) if t is not None else 'None'}")
        return
    if ca is None or ta is None:
        if isinstance(c, (list, tuple)) and isinstance(t, (list, tuple)):
            if len(c) != len(t):
                d.append(f"{what}: core returned {len(c)} values, torch {len(t)}")
                return
            for i, (x, y) in enumerate(zip(c, t)):
                _diff_results(f"{what}[{i}]", x, y, case, d)
            return
        if (ca is None) != (ta is None) or type(c).__name__ != type(t).__name__:
            d.append(f"{what}: core {type(c).__name__} {_fmt_value(c)}, torch {type(t).__name__} {_fmt_value(t)}")
        return
    ct, tt = hasattr(c, "dtype") and not isinstance(c, np.generic), hasattr(t, "dtype") and not isinstance(t, np.generic)
    if ct != tt:
        d.append(f"{what}: core {type(c).__name__} {_fmt_value(c)}, torch {type(t).__name__} {_fmt_value(t)}")
        return
    if ct and _dtype_str(c) != _dtype_str(t):
        d.append(f"{what} dtype: core {_dtype_str(c)}, torch {_dtype_str(t)}")
    if ca.shape != ta.shape:
        d.append(f"{what} shape: core {list(ca.shape)}, torch {list(ta.shape)}")
        return
    if ca.size > MAX_COMPARE:   # shape and dtype agree; values of views this large are not compared
        return
    sub: list[str] = []
    if not _compare_values(what, ta, ca, case.atol, case.rtol, sub):
        d.extend(s.replace("expected", "torch").replace("got", "core") for s in sub)


def _alloc_refusal(err):
    if err is None:
        return False
    s = str(err)
    return ("would allocate" in s) or ("not enough memory" in s) or ("refuses allocations" in s)


# -- running many ---------------------------------------------------------------------------

@dataclass
class CaseResult:
    file: str
    name: str
    classname: str
    status: str                  # passed | failed | error | skipped
    duration: float
    message: str = ""
    details: list = field(default_factory=list)
    torch: dict | None = None

    def to_dict(self):
        return {"file": self.file, "name": self.name, "classname": self.classname, "status": self.status,
                "duration": round(self.duration, 6), "message": self.message, "details": list(self.details),
                "torch": self.torch}


@dataclass
class Report:
    files: list
    results: list
    deselected: int = 0
    duration: float = 0.0
    against_torch: bool = False

    def count(self, status):
        return sum(1 for r in self.results if r.status == status)

    @property
    def exit_code(self):
        return 1 if any(r.status in ("failed", "error") for r in self.results) else 0

    def summary(self):
        return {"tests": len(self.results), "passed": self.count("passed"), "failed": self.count("failed"),
                "errors": self.count("error"), "skipped": self.count("skipped"), "deselected": self.deselected,
                "duration": round(self.duration, 6), "against_torch": self.against_torch}


def select(cases, patterns):
    """Cases whose 'file::name' matches any -k pattern: a glob when it has * ? or [, else a
    case-insensitive substring."""
    if not patterns:
        return list(cases)
    out = []
    for c in cases:
        ident = c.id.lower()
        for p in patterns:
            p = p.lower()
            if (any(ch in p for ch in "*?[") and (fnmatch.fnmatchcase(ident, p) or fnmatch.fnmatchcase(
                    c.name.lower(), p))) or p in ident:
                out.append(c)
                break
    return out


def run_case(case: Case, against_torch=False) -> CaseResult:
    res = CaseResult(case.file, case.name, case.classname, "passed", 0.0)
    if case.skip is not None:
        res.status, res.message = "skipped", case.skip
        return res
    core_eng = _engine("core")
    t0 = time.perf_counter()
    out = _execute(case, core_eng)
    if "expect_memory" in case.expects and out.error is None:
        try:
            out.memory = _memory(case)
        except Exception as e:   # noqa: BLE001
            out.error, out.stage = e, "memory"
    status, details = check_outcome(case, out)
    res.duration = time.perf_counter() - t0
    res.status, res.details = status, details
    if against_torch:
        res.torch = _against_torch(case, out, res)
    if res.status != "passed":
        res.message = res.details[0] if res.details else res.status
    return res


def _against_torch(case, core_out, res) -> dict:
    if not case.needs_run():
        return {"status": "skipped", "message": "memory figures have no torch counterpart",
                "duration": 0.0, "details": []}
    if _alloc_refusal(core_out.error):
        return {"status": "skipped", "message": "not run on torch: core refused the allocation",
                "duration": 0.0, "details": []}
    eng = _engine("torch")
    t0 = time.perf_counter()
    tout = _execute(case, eng)
    dur = time.perf_counter() - t0
    from .expr import ExprError
    if isinstance(tout.error, ExprError) and not _alloc_refusal(tout.error):
        return {"status": "skipped", "message": f"torch: {_first_line(tout.error)}", "duration": dur,
                "details": []}
    disagree = compare_outcomes(case, core_out, tout)
    tstatus, tdetails = check_outcome(case, tout)
    details = [f"core and torch disagree: {d}" for d in disagree]
    if tstatus != "passed":
        details += [f"torch: {d}" for d in tdetails]
    info = {"status": "disagree" if disagree else "agree", "duration": dur,
            "expectations": tstatus, "details": details,
            "message": details[0] if details else "torch agrees with core"}
    if tout.error is not None:
        info["error"] = _short(tout.error)
    else:
        info["result"] = _fmt_value(tout.result)
    if details:
        if res.status == "passed":
            res.status = "failed"
        res.details = res.details + details
    return info


def run(cases, *, against_torch=False, fail_fast=False, files=(), deselected=0, progress=None) -> Report:
    """Run the cases (core's allocation limit capped at MAX_BYTES meanwhile)."""
    if against_torch:
        _engine("torch")
    report = Report(list(map(str, files)), [], deselected, 0.0, against_torch)
    t0 = time.perf_counter()
    stop = False
    with _allocation_limit(MAX_BYTES):
        for case in cases:
            if stop:
                r = CaseResult(case.file, case.name, case.classname, "skipped", 0.0,
                               "not run (--fail-fast after a failure)")
            else:
                r = run_case(case, against_torch)
                if fail_fast and r.status in ("failed", "error"):
                    stop = True
            report.results.append(r)
            if progress is not None:
                progress(r)
    report.duration = time.perf_counter() - t0
    return report


def run_paths(paths, *, patterns=(), against_torch=False, fail_fast=False, progress=None) -> Report:
    """Load (raising the first CaseFileError), select and run."""
    files, cases, errors = load_paths(paths)
    if errors:
        raise errors[0]
    chosen = select(cases, patterns)
    return run(chosen, against_torch=against_torch, fail_fast=fail_fast, files=files,
               deselected=len(cases) - len(chosen), progress=progress)


# -- reports ------------------------------------------------------------------------------------

def to_json(report: Report) -> dict:
    return {"schema": SCHEMA, "summary": report.summary(), "files": report.files,
            "cases": [r.to_dict() for r in report.results]}


def malformed_json(errors) -> dict:
    return {"schema": SCHEMA, "malformed": [e.to_dict() for e in errors]}


def to_junit(report: Report) -> str:
    """JUnit XML: <testsuites> with one <testsuite> per file and a <testcase> per case."""
    import socket
    import xml.etree.ElementTree as ET
    from datetime import datetime
    stamp = datetime.now().replace(microsecond=0).isoformat()   # the JUnit schema's form: no zone
    s = report.summary()
    root = ET.Element("testsuites", {
        "name": "tensorcli check", "tests": str(s["tests"]), "failures": str(s["failed"]),
        "errors": str(s["errors"]), "skipped": str(s["skipped"]), "time": f"{report.duration:.6f}"})
    by_file: dict = {}
    for r in report.results:
        by_file.setdefault(r.file, []).append(r)
    try:
        host = socket.gethostname()
    except OSError:   # pragma: no cover
        host = "localhost"
    for i, (fname, rs) in enumerate(by_file.items()):
        suite = ET.SubElement(root, "testsuite", {
            "name": fname, "id": str(i), "tests": str(len(rs)),
            "failures": str(sum(r.status == "failed" for r in rs)),
            "errors": str(sum(r.status == "error" for r in rs)),
            "skipped": str(sum(r.status == "skipped" for r in rs)),
            "time": f"{sum(r.duration for r in rs):.6f}", "timestamp": stamp, "hostname": host})
        for r in rs:
            tc = ET.SubElement(suite, "testcase", {"name": r.name, "classname": r.classname,
                                                   "time": f"{r.duration:.6f}"})
            if r.status in ("failed", "error"):
                tag = "failure" if r.status == "failed" else "error"
                el = ET.SubElement(tc, tag, {"message": _xml_safe(r.message),
                                             "type": "AssertionError" if tag == "failure" else "Error"})
                el.text = _xml_safe("\n".join(r.details))
            elif r.status == "skipped":
                ET.SubElement(tc, "skipped", {"message": _xml_safe(r.message)})
            if r.torch is not None:
                out = ET.SubElement(tc, "system-out")
                out.text = _xml_safe(f"torch: {r.torch['status']}: {r.torch.get('message', '')}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def malformed_junit(errors) -> str:
    """JUnit XML for malformed files: one erroring testcase per file, so CI shows what is wrong."""
    results = [CaseResult(e.file, e.case or "(case file)", Case(e.file, 0, "", "", "", {}).classname, "error",
                          0.0, str(e), [str(e)]) for e in errors]
    return to_junit(Report(sorted({e.file for e in errors}), results))


_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_safe(s):
    return _XML_BAD.sub("?", str(s))


_STYLE = {"passed": ("PASS", "green"), "failed": ("FAIL", "bold red"), "error": ("ERROR", "bold red"),
          "skipped": ("SKIP", "yellow")}


def _fmt_dur(s):
    return f"{s * 1000:.1f} ms" if s < 1 else f"{s:.2f} s"


def render_line(r: CaseResult):
    from rich.text import Text
    word, style = _STYLE[r.status]
    line = Text()
    line.append(f"{word:<5} ", style=style)
    line.append(f"{r.file}::", style="dim")
    line.append(r.name)
    line.append(f"  {_fmt_dur(r.duration)}", style="dim")
    if r.torch is not None:
        ts = r.torch["status"]
        line.append(f"  torch: {ts}", style={"agree": "green", "disagree": "bold red"}.get(ts, "yellow"))
    if r.status == "skipped" and r.message:
        line.append(f"  ({r.message})", style="yellow")
    return line


def render(report: Report, console, *, lines=True) -> None:
    """One line per case, then each failure with its diff, then the totals."""
    from rich.text import Text
    if lines:
        for r in report.results:
            console.print(render_line(r), soft_wrap=True)
    bad = [r for r in report.results if r.status in ("failed", "error")]
    for r in bad:
        word, style = _STYLE[r.status]
        console.print()
        console.print(Text(f"── {word} {r.file}::{r.name}", style=style), soft_wrap=True)
        for d in r.details:
            console.print(Text(f"   {d}"), soft_wrap=True)
    s = report.summary()
    parts = [f"{s['passed']} passed"]
    for key, label in (("failed", "failed"), ("errors", "errors"), ("skipped", "skipped"),
                       ("deselected", "deselected")):
        if s[key]:
            parts.append(f"{s[key]} {label}")
    disagree = sum(1 for r in report.results if r.torch and r.torch["status"] == "disagree")
    if report.against_torch:
        agree = sum(1 for r in report.results if r.torch and r.torch["status"] == "agree")
        parts.append(f"torch: {agree} agree, {disagree} disagree")
    style = "bold red" if report.exit_code else "bold green"
    console.print()
    console.print(Text(", ".join(parts) + f" in {report.duration:.2f} s ({len(report.files)} file"
                       f"{'s' if len(report.files) != 1 else ''})", style=style), soft_wrap=True)
