"""Running one op command: CLI values -> the op's arguments -> result (and its explanation).

No Typer, no Rich: `tensorcli.commands.op` parses and renders; this module converts and calls.
"""
from __future__ import annotations

import inspect
import os
from dataclasses import dataclass

from .. import io
from ..io.npyfile import MMAP_MIN_BYTES
from ..errors import CliError, user_errors
from ..spec import (DIM, EXCLUSIVE, FLAG, INT, INTS, NUMBER, OPERAND, TENSOR, TENSORS, ParamSpec,
                    command_name)

_P = inspect.Parameter


@dataclass
class Call:
    """One op call with its arguments, replayable on other tensors (explain runs it on positions)."""

    info: object
    specs: list
    values: dict          # op parameter name -> Python value (Tensor, tuple of Tensors, number, ...)

    def run(self, **replace):
        vals = dict(self.values, **replace)
        args, kwargs = [], {}
        params = list(self.info.signature.parameters.values())
        has_var = any(p.kind is _P.VAR_POSITIONAL for p in params)
        packed = {}
        for s in self.specs:
            if s.pack and s.name in vals:
                v = vals[s.name]
                packed.setdefault(s.pack, []).extend(v if s.kind == TENSORS else [v])
        for p in params:
            if p.kind is _P.VAR_POSITIONAL:
                args.extend(packed.get(p.name) or vals.get(p.name, ()))
            elif p.kind is _P.VAR_KEYWORD:
                continue
            elif p.kind is _P.KEYWORD_ONLY:
                if p.name in vals:
                    kwargs[p.name] = vals[p.name]
            elif p.kind is _P.POSITIONAL_ONLY or has_var:
                args.append(vals.get(p.name, p.default))
            elif p.name in vals:
                kwargs[p.name] = vals[p.name]
        return self.info.fn(*args, **kwargs)

    def scalars(self) -> dict:
        """Non-tensor arguments as given (for titles and --json)."""
        from core import Tensor   # core only once an op runs (the module is imported by every op command)
        out = {}
        for s in self.specs:
            if s.name == "dim" and s.name not in self.values and isinstance(s.default, int):
                out["dim"] = s.default  # the effective dim, for titles
                continue
            v = self.values.get(s.name)
            if s.name in self.values and not isinstance(v, Tensor) and not (
                    isinstance(v, (tuple, list)) and v and isinstance(v[0], Tensor)):
                out[s.name] = list(v) if isinstance(v, tuple) else v
        return out


def _convert(spec: ParamSpec, raw, *, stdin_used, dtype):
    arg = spec.cli
    if spec.kind == TENSOR:
        return io.load_tensor(raw, arg=arg, dtype=dtype if spec.positional else None, stdin_used=stdin_used)
    if spec.kind == TENSORS:
        cast = dtype if spec.positional else None
        return tuple(io.load_tensor(r, arg=f"{arg}[{i}]" if len(raw) > 1 else arg, dtype=cast,
                                    stdin_used=stdin_used) for i, r in enumerate(raw))
    if spec.kind == OPERAND:
        try:
            return io.parse_number(raw, arg=arg)
        except CliError:
            return io.load_tensor(raw, arg=arg, stdin_used=stdin_used)
    if spec.kind == INT:
        return int(raw)
    if spec.kind == INTS:
        return io.parse_ints(raw, arg=arg)
    if spec.kind == DIM:
        v = io.parse_ints(raw, arg=arg)
        if len(v) == 1 and "," not in str(raw) and "[" not in str(raw):
            return v[0]
        return v
    if spec.kind == NUMBER:
        return io.parse_number(raw, arg=arg)
    if spec.kind == FLAG:
        return bool(raw)
    return raw


def build_call(info, specs, values, *, stdin_used=None, skip=()) -> Call:
    """Convert CLI values into op arguments (loading tensors, parsing ints) and check combinations;
    the parameters named in `skip` are left out (a streamed INPUT is never loaded)."""
    stdin_used = [] if stdin_used is None else stdin_used
    dtype = None
    if values.get("cli_dtype"):
        dtype = io.parse_dtype(values["cli_dtype"])
    given = {s.name: values.get("p_" + s.name) for s in specs}
    names = {s.name: s for s in specs}
    for a, b in EXCLUSIVE:
        if a in names and b in names and given.get(a) is not None and given.get(b) is not None:
            raise CliError(names[a].cli, f"{names[a].cli} and {names[b].cli} cannot be used together")
    out = {}
    for s in specs:
        raw = given[s.name]
        if s.name in skip:
            continue
        if s.kind == FLAG:
            if s.default is _P.empty or bool(raw) != bool(s.default):
                out[s.name] = bool(raw)
            continue
        if raw is None or (s.kind == TENSORS and not s.positional and raw == []):
            continue
        out[s.name] = _convert(s, raw, stdin_used=stdin_used, dtype=dtype)
    return Call(info, specs, out)


def title(call: Call) -> str:
    """'gather(dim=1)': the op and its non-tensor arguments."""
    args = ", ".join(f"{k}={v}" for k, v in call.scalars().items())
    return f"{call.info.name}({args})"


def run(info, specs, values, *, explain=False, at=None, max_rows=0):
    """Run the op on the parsed CLI values: (call, result, Explanation or None)."""
    call = build_call(info, specs, values)
    with user_errors(command_name(info.name)):
        result = call.run()
    expl = None
    if explain:
        from . import explain_any as ex   # autograd / position codes: only with --explain
        with user_errors("--explain"):  # the op ran; a failure here is the op refusing position codes
            expl = ex.explain(call, result, at=at, max_rows=max_rows)
    return call, result, expl


def to_json(info, call, result, expl=None, *, max_rows=0, full_data=False) -> dict:
    """The --json object of an op command (schema tensorcli.op/2, docs/json.md): the command, the
    op, its non-tensor arguments, the result (summarised above the threshold unless full_data)."""
    from . import vocab
    args = {k: io.json_scalar(v) for k, v in call.scalars().items()}
    with vocab.full_data(full_data):
        obj = {"op": info.name, "args": args, "result": vocab.result_json(result)}
    if expl is not None:
        obj.update(expl.to_json(max_rows=max_rows))
    return vocab.envelope(command_name(info.name), obj, schema_name="op")


# -- streaming: a memory-mapped .npy INPUT through services/stream.py ------------------------------

STREAM_REDUCTIONS = ("sum", "mean")
STREAM_VARIANCES = ("var", "std")   # over all elements: two float64 passes (sum/mean/amax over all
                                    # elements need no stream: core reduces the map in bounded blocks)
STREAM_MOVEMENTS = ("gather", "index_select", "narrow", "flip", "take_along_dim", "permute", "transpose", "cat")
FALLBACK = object()   # stream_run's answer when the arguments do not stream: run the op in memory


@dataclass
class StreamRequest:
    """An op command that will stream: the call (INPUT left out), the file, where the result goes
    (a .npy path, "-", or None: returned in memory, reductions only) and stream.run's arguments."""

    call: Call
    src: object           # the .npy path (cat: the list of paths)
    out: object
    args: dict


def _stream_args(name, vals):
    """stream.run's keyword arguments from the op's (None: these arguments do not stream)."""
    if name in STREAM_VARIANCES:   # over every element only (one dim: in memory)
        return ({k: vals.get(k) for k in ("unbiased", "correction", "keepdim")}
                if vals.get("dim") is None else None)
    if name in STREAM_REDUCTIONS:
        d = vals.get("dim")
        return {"dim": d, "keepdim": bool(vals.get("keepdim", False))} if isinstance(d, int) else None
    if name in ("gather", "index_select"):
        return {"dim": vals["dim"], "index": vals["index"]} if isinstance(vals.get("dim"), int) else None
    if name == "take_along_dim":
        d = vals.get("dim")
        return {"dim": d, "indices": vals["indices"]} if isinstance(d, int) else None
    if name == "narrow":
        return {k: vals[k] for k in ("dim", "start", "length")} if isinstance(vals.get("dim"), int) else None
    if name in ("flip", "permute"):
        return {"dims": tuple(vals["dims"])}
    if name == "cat":
        return {"dim": vals.get("dim", 0)} if isinstance(vals.get("dim", 0), int) else None
    return {"dim0": vals["dim0"], "dim1": vals["dim1"]}   # transpose


def stream_request(info, specs, values):
    """A StreamRequest when this op command should stream rather than load INPUT, else None.

    Streams when: the op is one services/stream.py runs with the in-memory op's exact result,
    INPUT (cat: every TENSOR) is a .npy path, of io.npyfile.MMAP_MIN_BYTES or more in all,
    no --dtype cast, and the result goes to `-o FILE.npy` / `-o -` (movements; not with --json) or
    is small (reductions over one dim). The caller leaves out --explain/--at/--backward/--grid:
    those run the op in memory (they need every element's provenance)."""
    name, out = info.name, values.get("cli_out")
    src = values.get("p_tensors") if name == "cat" else values.get("p_input")
    srcs = list(src) if name == "cat" and src else [src]
    if name not in STREAM_REDUCTIONS + STREAM_MOVEMENTS + STREAM_VARIANCES or values.get("cli_dtype"):
        return None
    if not all(isinstance(p, str) and p.lower().endswith(".npy") and os.path.isfile(p) for p in srcs):
        return None
    if sum(os.path.getsize(p) for p in srcs) < MMAP_MIN_BYTES:
        return None
    to_file = isinstance(out, str) and (out == "-" or out.lower().endswith(".npy")) and not values.get("cli_json")
    if name in STREAM_MOVEMENTS and not to_file:
        return None
    call = build_call(info, specs, values, skip=("tensors",) if name == "cat" else ("input",))
    args = _stream_args(name, call.values)
    if args is None:
        return None
    return StreamRequest(call, src, out if to_file and name not in STREAM_VARIANCES else None, args)


def stream_run(req, *, progress=None):
    """Run a StreamRequest: the result Tensor (in-memory result), None (written to -o), or
    FALLBACK when the arguments do not stream exactly (the caller runs the op in memory)."""
    from . import stream   # block machinery: only for a large .npy INPUT
    with user_errors(command_name(req.call.info.name)):
        try:
            if req.call.info.name in STREAM_VARIANCES:
                res = stream.variance_all(req.src, req.call.info.name, progress=progress, **req.args)
            else:
                res = stream.run(req.call.info.name, req.src, req.out, progress=progress, strict=True,
                                 **req.args)
        except stream.NotStreamable:
            return FALLBACK
    if req.out is not None:
        return None
    import core   # loaded already by stream
    return core.from_numpy(res)
