"""Case files for ``tensorcli check``: loading, validation, running, and the reports.

A case file is TOML (``[[case]]`` tables) or JSON (``{"case": [...]}`` or a list of case objects).
Each case names what to run, exactly one of:

* ``op = "gather"``: a registered core op (``core.ops.registry.OPS``), called with the case's other
  fields mapped to the op's parameters by name (``input``, ``dim``, ``index``...; also ``args = {...}``
  for a parameter whose name is one of the case fields below). Tensor parameters take a literal
  (nested lists, a number, or ``{data = ..., dtype = "float64"}``) or a file as on the command
  line (``"labels.npy"``, ``"x.npz:key"``, ``"x.json"``), relative to the case file.
* ``expr = "..."``: an expression evaluated by :mod:`tensorcli.services.expr` (the whitelisted evaluator) with
  ``let = {x = [1.0, 2.0]}`` bindings (lists and files become tensors, numbers stay numbers).
* ``model = "Linear(10,5) -> ReLU()"`` with ``input_shape = [4, 10]``: a ``core.nn`` model spec
  (parsed, never evaluated, by :mod:`tensorcli.services.models`), run on a seeded random input.

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

Data files resolve inside the case file's directory: an absolute path, or a ``..`` or a symlink
that leads out of it, is refused (the same message whether or not the file exists) unless a root
given by ``check --allow-path DIR`` holds it. Case files and data files are read only when they
are regular files (tensorcli.io.open_input), and no message quotes a data file's bytes.

Malformed files raise :class:`CaseFileError` naming the file, the case and the field. Running never
uses eval: ops go through the registry, expressions through the whitelisted evaluator, data files
through :mod:`tensorcli.io` (never unpickles), and allocations are capped by ``MAX_BYTES`` (core's
allocation limit and the evaluator's ``Limits.max_bytes``) while cases run.
"""
from __future__ import annotations

import contextlib
import dataclasses
import difflib
import inspect
import json
import math
import os
import re
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..spec import NUMBER, OPERAND, TENSOR, TENSORS, classify
from . import models

SCHEMA = "tensorcli.check/1"
MAX_BYTES = 1024 ** 3                # check's default memory budget (services/budget.py), in all
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
    """Files named on the command line, and the case files inside directories (sorted, not
    recursive, so data files can live in a sub-folder). While walking a directory, a TOML/JSON file
    that holds no cases (pyproject.toml, a .json tensor) is skipped; a file named on the command
    line is always loaded, so its problems are reported. CaseFileError for a missing path."""
    out = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            # not only regular files: load_file names a device or FIFO; a regular TOML/JSON without cases
            # (pyproject.toml) is skipped while walking
            found = sorted(q for q in p.iterdir() if q.suffix.lower() in (".toml", ".json") and not q.is_dir()
                           and (not q.is_file() or holds_cases(q)))
            if not found:
                raise CaseFileError(p, "no case files in this directory (*.toml / *.json with [[case]] tables)")
            out.extend(found)
        elif p.exists():   # a regular file; load_file refuses devices, FIFOs and /proc by name
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


def holds_cases(path) -> bool:
    """Whether a file met while walking a directory is a case file: a TOML/JSON document with a
    top-level `case` array, or a JSON list of objects. A file that does not parse counts as one
    (load_file then reports where it is broken); an oversized or unreadable one does not."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return False
        text = path.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return False
    try:
        doc = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (ValueError, RecursionError):   # JSONDecodeError and TOMLDecodeError are ValueErrors
        return True
    if isinstance(doc, dict):
        return "case" in doc
    return isinstance(doc, list) and bool(doc) and all(isinstance(e, dict) for e in doc)


def load_paths(paths, *, allow=()) -> tuple[list[Path], list[Case], list[CaseFileError]]:
    """Discover and load every file; collects the errors of all malformed files. `allow`: more
    roots (directories) that data paths may lead into (check --allow-path)."""
    files = discover(paths)
    cases, errors = [], []
    for f in files:
        try:
            cases.extend(load_file(f, allow=allow))
        except CaseFileError as e:
            errors.append(e)
    return files, cases, errors


def load_file(path, *, allow=()) -> list[Case]:
    """Parse and validate one case file (tensor fields and data files loaded here); data paths
    must lead inside the file's directory or one of the `allow` roots."""
    from .. import io as tio
    from ..errors import CliError
    path = Path(path)
    label = str(path)
    try:
        f, size = tio.open_input(label, arg=None, what="case file")
    except CliError as e:
        raise CaseFileError(label, e.message.removeprefix(label).lstrip(": ")) from None
    with f:
        if size > MAX_FILE_BYTES:
            raise CaseFileError(label, f"case file of {size} bytes exceeds the limit of {MAX_FILE_BYTES}")
        try:
            raw = f.read(size + 1)   # never past what the file reported
        except OSError as e:
            raise CaseFileError(label, f"cannot read: {e.strerror or e}") from None
    if len(raw) > size:
        raise CaseFileError(label, f"the file holds more than the {size} bytes it reports")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CaseFileError(label, "not UTF-8 text") from None
    if path.suffix.lower() == ".json":
        entries = _parse_json(text, label)
    else:
        entries = _parse_toml(text, label)
    base = path.parent
    roots = _roots(base, allow)
    cases, names = [], {}
    with _allocation_limit(MAX_BYTES):
        for i, raw in enumerate(entries, 1):
            case = _validate(raw, i, label, base, roots)
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


def _roots(base, allow):
    """The directories data paths may lead into: the case file's own, then --allow-path roots
    (real paths: symlinks resolved)."""
    return [os.path.realpath(base or ".")] + [os.path.realpath(a) for a in allow]


def _inside(real, roots):
    return any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


class _V:
    """Validation helpers bound to one case (for the error location)."""

    def __init__(self, label, index, raw, base, roots=None):
        self.label, self.index, self.raw, self.base = label, index, raw, base
        self.roots = roots if roots is not None else _roots(base, ())
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
        from .. import io as tio
        from ..errors import CliError
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
            shown = spec
            if spec[:1] not in "[{":
                spec, real = self.data_path(fld, spec)
            try:
                t = tio.load_tensor(spec, arg=fld, dtype=dtype)
            except CliError as e:
                message = e.message
                if spec != shown:   # name the file as the case file wrote it
                    message = message.replace(real, shown)
                raise self.err(fld, message) from None
            return TensorSpec(tio.c_order(t._data))
        if isinstance(value, dict) or value is None:
            raise self.err(fld, f"expected a tensor, got {_tname(value)}")
        try:
            t = core.tensor(value, dtype=tio.parse_dtype(dtype) if dtype else None)
        except (ValueError, TypeError, RuntimeError, OverflowError) as e:
            raise self.err(fld, f"not a tensor: {_first_line(e)}") from None
        return TensorSpec(tio.c_order(t._data), scalar=not isinstance(value, list))

    def data_path(self, fld, spec):
        """(the path to load, its real path) for a data file named in the case file: relative to
        the case file's directory, and refused when it (symlinks resolved) leads outside it and
        outside every --allow-path root. The refusal reads nothing and says the same whether or
        not the file exists."""
        path, key = spec, None
        head, sep, tail = spec.rpartition(":")
        if sep and head.lower().endswith((".npy", ".npz", ".json")):   # x.npz:key
            path, key = head, tail
        real = os.path.realpath(os.path.join(self.base, path))
        if not _inside(real, self.roots):
            raise self.err(fld, f"data path {spec!r} leads outside the case file's directory "
                                "(name another root with check --allow-path DIR)")
        return real + (f":{key}" if key is not None else ""), real

    def dtype_name(self, fld, value):
        from .. import io as tio
        from ..errors import CliError
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


def _validate(raw, index, label, base, roots=None) -> Case:
    """A Case from one raw case table, or CaseFileError (via v.err) naming the field."""
    v = _V(label, index, raw, base, roots)
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
    op_info = _target_info(v, raw, kind, target)
    _validate_options(v, case, raw)
    _validate_inputs(v, case, raw, kind)
    if kind == "op":
        _validate_op(v, case, op_info)
    elif kind == "expr":
        _validate_expr(v, case)
    else:
        _validate_model(v, case)
    bindings = set(case.args) if kind == "op" else set(case.let)
    _validate_requires_grad(v, case, kind, target, bindings)
    _validate_expects(v, case, bindings)
    return case


def _target_info(v, raw, kind, target):
    """The op's OpInfo (None for expr / model cases); refuses unknown ops and unknown fields."""
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
    return op_info


def _validate_options(v, case, raw):
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


def _validate_inputs(v, case, raw, kind):
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


def _validate_requires_grad(v, case, kind, target, bindings):
    for n in case.requires_grad:
        if kind == "model":
            raise v.err("requires_grad", "model cases take no requires_grad (parameters already do)")
        if kind == "op" and n not in bindings:
            raise v.err("requires_grad", f"'{n}' is not an argument given to {target}()")
        if kind == "op" and not isinstance(case.args[n], TensorSpec):
            raise v.err("requires_grad", f"'{n}' is not a tensor argument")
        if kind == "expr" and n not in bindings:
            raise v.err("requires_grad", f"'{n}' is not a let binding")


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
    kinds = {p.name: p.kind for p in classify(info)}
    first = next(iter(sig.parameters), None)
    for k, val in given.items():
        case.args[k] = _op_value(v, kinds, first, k, val)


def _op_value(v, kinds, first, k, val):
    """A case field as an op argument, typed by the CLI's parameter conventions (tensorcli.spec)."""
    kind = kinds.get(k)
    if k == "dtype" and isinstance(val, str):
        return DtypeSpec(v.dtype_name(k, val))
    if isinstance(val, dict):
        return v.tensor(k, val)
    if kind == TENSORS:
        v.typed(k, val, (list,), "an array of tensors")
        return [v.tensor(f"{k}[{i}]", x) for i, x in enumerate(val)]
    if kind in (TENSOR, OPERAND, NUMBER):
        if isinstance(val, (list, str)) or (k == first and kind == TENSOR):
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
    try:
        layers = models.parse_model_spec(case.target)
        models.check_model_size(layers)
    except models.SpecError as e:
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


def _first_line(e):
    s = " ".join(str(e).split())
    return s if s else type(e).__name__
