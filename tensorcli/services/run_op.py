"""Running one op command: CLI values -> the op's arguments -> result (and its explanation).

No Typer, no Rich: `tensorcli.commands.op` parses and renders; this module converts and calls.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass

from .. import io
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


def build_call(info, specs, values, *, stdin_used=None) -> Call:
    """Convert CLI values into op arguments (loading tensors, parsing ints) and check combinations."""
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
