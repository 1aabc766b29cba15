"""tensorcli's Typer app and `main()`.

Op commands are generated from ONE table, `core.ops.registry.OPS`: every OpInfo with `cli=True`
becomes a command (`scatter_add` -> `tensorcli scatter-add`) whose options come from the op's
Python signature through the naming conventions in `CONVENTIONS` (PyTorch's parameter names:
`index` is a tensor, `dim` an int, `dims` a list of ints, `include_self` a flag, ...). A
registration may refine a parameter with `register(..., cli_params={"indices": "tensor"})`
(kinds: see `KINDS`), `cli_example="..."` for `--help`, and `cli_choices={"reduce": (...)}`.

Other commands come from the modules in `tensorcli/commands/` (contract in its __init__).
Errors: everything goes through `tensorcli.errors` (one line on stderr, exit 2 for bad input).
"""
from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass
from typing import List, Optional

import typer
from typer.core import TyperGroup

from . import __version__
from .commands import escape_markup as _escape
from .errors import CliError, EXIT_USAGE, debug_requested, one_line, report, user_errors

try:  # newer typer vendors click as typer._click
    from typer._click.exceptions import ClickException as _ClickException
    from typer import Abort as _ClickAbort
except ImportError:  # pragma: no cover - typer on top of click
    from click.exceptions import Abort as _ClickAbort, ClickException as _ClickException


# -- parameter conventions (the one table) ------------------------------------------------

TENSOR = "tensor"          # one tensor: JSON literal, .npy/.npz[:key]/.json path, or - (stdin)
TENSORS = "tensors"        # several tensors: repeatable option, or several positional arguments
OPERAND = "operand"        # a tensor or a plain number (e.g. `repeats`)
INT = "int"
INTS = "ints"              # '1,0,2'
DIM = "dim"                # an int, or ints '0,1' for ops taking several dims
NUMBER = "number"          # int / float / inf / nan / true / false
FLAG = "flag"
STR = "str"
SKIP = "skip"              # not exposed (out=, device=, ...)
EQUATION = "equation"      # einsum(*args): EQUATION then TENSORS, packed into the var-positional
KINDS = (TENSOR, TENSORS, OPERAND, INT, INTS, DIM, NUMBER, FLAG, STR, SKIP, EQUATION)

CONVENTIONS = {
    **dict.fromkeys(("input", "self", "index", "src", "mask", "values", "other", "source", "tensor",
                     "weight", "bias", "condition", "target", "mat2", "vec", "end", "exponent"), TENSOR),
    **dict.fromkeys(("indices", "tensors", "operands"), TENSORS),
    "repeats": OPERAND,
    **dict.fromkeys(("dim0", "dim1", "dim2", "dimension", "start", "length", "step", "chunks", "sections",
                     "diagonal", "offset", "num_classes", "k", "output_size", "start_dim", "end_dim",
                     "n", "num_samples", "storage_offset"), INT),
    **dict.fromkeys(("dim", "split_size_or_sections", "shifts", "destination"), DIM),
    **dict.fromkeys(("dims", "sizes", "shape", "size", "stride", "split_sizes"), INTS),
    **dict.fromkeys(("value", "alpha", "min", "max", "fill_value", "beta", "p", "eps", "scalar"), NUMBER),
    **dict.fromkeys(("reduce", "equation", "mode", "rounding_mode", "indexing", "side"), STR),
    **dict.fromkeys(("accumulate", "include_self", "keepdim", "largest", "sorted", "descending", "stable",
                     "unbiased", "return_inverse", "return_counts", "right", "upper"), FLAG),
    **dict.fromkeys(("out", "dtype", "sparse_grad", "layout", "device", "pin_memory", "requires_grad",
                     "memory_format", "generator", "names", "unsafe"), SKIP),
}
# Parameters whose meaning differs from the convention in one op (refine with cli_params instead).
OVERRIDES = {("take_along_dim", "indices"): TENSOR, ("movedim", "source"): DIM, ("select", "index"): INT,
             ("unfold", "size"): INT, ("einsum", "args"): EQUATION}
# Options that cannot be combined (PyTorch overloads: scatter(src) / scatter(value)).
EXCLUSIVE = (("src", "value"),)

HELP = {
    "dim": "Dimension to work along (negative counts from the end).",
    "index": "Index tensor (int64).",
    "indices": "Index tensor(s); repeat the option for several.",
    "src": "Source tensor whose values are written.",
    "value": "A number to write (instead of --src).",
    "mask": "Boolean mask tensor.",
    "reduce": "Reduction to apply.",
    "dims": "Comma-separated dims, e.g. 1,0,2.",
    "sizes": "Comma-separated sizes, e.g. 2,3.",
    "shape": "Comma-separated shape, e.g. 3,-1.",
    "equation": "Einstein summation equation, e.g. 'ij,jk->ik'.",
}
KIND_HELP = {
    TENSOR: "Tensor: JSON, .npy/.npz[:key]/.json path, or - for stdin.",
    TENSORS: "Tensors: JSON, .npy/.npz[:key]/.json paths, or - (once).",
    OPERAND: "A number or a tensor.",
    INTS: "Comma-separated integers, e.g. 1,0,2.",
    DIM: "An integer, or comma-separated integers.",
}
TENSOR_HELP = "JSON literal ('[[1,2],[3,4]]'), a .npy/.npz[:key]/.json path, or - for stdin."

# One runnable example per op command for --help (a registration's cli_example= takes precedence);
# tests/test_cli.py runs every one of them.
_X = "'[[1,2,3],[4,5,6]]'"
EXAMPLES = {
    "gather": f"{_X} --dim 1 --index '[[0,2],[1,0]]' --explain",
    "scatter": "'[0,0,0,0]' --dim 0 --index '[1,3,1]' --src '[10,20,30]' --explain",
    "scatter_add": "'[0,0,0,0]' --dim 0 --index '[1,3,1]' --src '[10,20,30]' --explain",
    "scatter_reduce": "'[0,0,0]' --dim 0 --index '[2,2,0]' --src '[5,7,1]' --reduce amax --explain",
    "index_select": f"{_X} --dim 1 --index '[2,0]' --explain",
    "index_add": f"{_X} --dim 1 --index '[2,0]' --source '[[10,20],[30,40]]' --explain",
    "index_fill": f"{_X} --dim 1 --index '[2,0]' --value -1",
    "index_put": f"{_X} --indices '[0,1]' --indices '[2,0]' --values '[9,8]' --accumulate --explain",
    "masked_fill": f"{_X} --mask '[[true,false,true],[false,false,true]]' --value 0",
    "masked_select": f"{_X} --mask '[[true,false,true],[false,false,true]]' --explain",
    "take": f"{_X} --index '[[0,5],[3,1]]'",
    "take_along_dim": f"{_X} --indices '[[0,2],[1,0]]' --dim 1 --explain",
    "nonzero": "'[[0,1],[2,0]]'",
    "argwhere": "'[[0,1],[2,0]]'",
    "one_hot": "'[0,2,1]' --num-classes 4",
    "triu": f"{_X} --diagonal 1 --explain",
    "tril": f"{_X} --explain",
    "diagonal": f"{_X} --offset 1",
    "diag_embed": "'[[1,2],[3,4]]'",
    "diag": "'[1,2,3]'",
    "view": f"{_X} --shape 3,2",
    "reshape": f"{_X} --shape -1",
    "flatten": "'[[[1,2],[3,4]]]' --start-dim 1",
    "unflatten": f"{_X} --dim 1 --sizes 3,1",
    "unsqueeze": f"{_X} --dim -1",
    "squeeze": "'[[1],[2]]' --dim 1",
    "transpose": f"{_X} --dim0 0 --dim1 1 --explain",
    "t": _X,
    "permute": f"{_X} --dims 1,0 --explain",
    "movedim": f"{_X} --source 0 --destination 1",
    "expand": "'[[1],[2]]' --sizes 2,3 --explain",
    "broadcast_to": "'[1,2,3]' --size 2,3",
    "narrow": f"{_X} --dim 1 --start 1 --length 2 --explain",
    "select": f"{_X} --dim 1 --index 2",
    "split": f"{_X} --split-size-or-sections 2 --dim 1",
    "chunk": f"{_X} --chunks 2 --dim 1 --explain",
    "unbind": _X,
    "unfold": "'[1,2,3,4,5]' --dimension 0 --size 2 --step 1 --explain",
    "as_strided": f"{_X} --size 2,2 --stride 1,2",
    "repeat": "'[1,2]' --sizes 2,2 --explain",
    "tile": "'[1,2]' --dims 2",
    "flip": f"{_X} --dims 0",
    "roll": f"{_X} --shifts 1 --dims 1",
    "argmax": f"{_X} --dim 1",
    "argmin": f"{_X} --dim 0 --keepdim",
    "max": f"{_X} --dim 1",
    "sum": f"{_X} --dim 0",
    "cumsum": f"{_X} --dim 1",
    "cat": "'[[1,2]]' '[[3,4],[5,6]]' --dim 0 --explain",
    "stack": "'[1,2]' '[3,4]' --dim 1",
    "einsum": "'ij,jk->ik' '[[1,2],[3,4]]' '[[1,0],[0,1]]'",
}

_P = inspect.Parameter


@dataclass
class ParamSpec:
    name: str            # op parameter name
    kind: str            # one of KINDS
    pkind: object        # inspect parameter kind
    default: object
    required: bool
    positional: bool     # a CLI argument rather than an option
    cli: str             # '--include-self', 'INPUT'
    pack: str | None = None   # the var-positional parameter this value goes into (einsum's *args)


def classify(info) -> list[ParamSpec]:
    """ParamSpecs for an op's signature, by convention (+ the op's cli_params refinements)."""
    refine = dict(info.extras.get("cli_params", {}) or {})
    specs = []
    params = list(info.signature.parameters.values())
    for i, p in enumerate(params):
        if p.kind is _P.VAR_KEYWORD:
            continue
        kind = refine.get(p.name) or OVERRIDES.get((info.name, p.name)) or CONVENTIONS.get(p.name)
        if p.kind is _P.VAR_POSITIONAL:
            if kind in (None, INT, DIM):
                kind = INTS
            elif kind == TENSOR:
                kind = TENSORS
        if kind is None:
            d = p.default
            if d is _P.empty:
                kind = TENSOR
            elif isinstance(d, bool):
                kind = FLAG
            elif isinstance(d, int):
                kind = INT
            elif isinstance(d, float):
                kind = NUMBER
            elif isinstance(d, str):
                kind = STR
            elif isinstance(d, (tuple, list)):
                kind = INTS
            else:
                kind = NUMBER
        if kind == SKIP:
            continue
        if kind == EQUATION:
            specs.append(ParamSpec("equation", STR, p.kind, _P.empty, True, True, "EQUATION", pack=p.name))
            specs.append(ParamSpec("operands", TENSORS, p.kind, _P.empty, True, True, "TENSORS", pack=p.name))
            continue
        required = p.default is _P.empty and p.kind is not _P.VAR_POSITIONAL
        if p.kind is _P.VAR_POSITIONAL and kind == INTS:
            required = True
        first = i == 0
        positional = (first and kind in (TENSOR, TENSORS, STR)) or (
            p.kind is _P.VAR_POSITIONAL and kind == TENSORS and specs and specs[0].positional)
        if positional:
            cli = "INPUT" if kind == TENSOR else ("TENSORS" if kind == TENSORS else p.name.upper())
        else:
            cli = "--" + p.name.replace("_", "-")
        specs.append(ParamSpec(p.name, kind, p.kind, p.default, required, positional, cli))
    return specs


# -- building commands ---------------------------------------------------------------------



def _synopsis(info, specs) -> str:
    parts = ["tensorcli", command_name(info.name)]
    meta = {TENSOR: "TENSOR", TENSORS: "TENSOR", OPERAND: "X", INT: "INT", INTS: "INTS", DIM: "DIM",
            NUMBER: "NUMBER", STR: "TEXT", FLAG: ""}
    by_name = {s.name: s for s in specs}
    for s in specs:
        if s.positional:
            parts.append(s.cli + ("..." if s.kind == TENSORS else ""))
        elif s.required or s.kind in (INTS,):
            parts.append(f"{s.cli} {meta[s.kind]}".strip())
    for a, b in EXCLUSIVE:
        if a in by_name and b in by_name:
            sa, sb = by_name[a], by_name[b]
            parts.append(f"({sa.cli} {meta[sa.kind]} | {sb.cli} {meta[sb.kind]})")
    return " ".join(parts)


def command_name(opname: str) -> str:
    return opname.replace("_", "-")


def rule_text(info, ndim=2, dim=1) -> str | None:
    """The op's formula for a representative call (2-D, dim=1), or None."""
    if info.rule is None:
        return None
    try:
        r = info.rule(ndim, dim)
    except Exception:  # noqa: BLE001 - a rule that needs more arguments: no formula in the listing
        return None
    return r if isinstance(r, str) else None


def _help_text(info, specs) -> str:
    lines = [info.summary or info.name]
    r = rule_text(info)
    if r:
        lines += ["", f"Formula (2-D, dim=1):  {r}"]
    ex = info.extras.get("cli_example") or (
        f"tensorcli {command_name(info.name)} {EXAMPLES[info.name]}" if info.name in EXAMPLES else None)
    examples = [ex] if isinstance(ex, str) else list(ex or [])
    lines += ["", "Usage:", "", "  " + _synopsis(info, specs)]
    if examples:
        lines += ["", "Example:" if len(examples) == 1 else "Examples:", ""] + [f"  {e}" for e in examples]
    lines += ["", "Tensor arguments: " + TENSOR_HELP]
    if info.kind:
        lines += ["--explain shows where each output element comes from; --at 0,1 explains one."]
    return _escape("\n".join(lines))


def _typer_param(spec: ParamSpec, info):
    """(annotation, default) for one op parameter."""
    help_ = _escape(HELP.get(spec.name) or KIND_HELP.get(spec.kind) or "")
    if spec.positional:
        if spec.kind == TENSORS:
            return List[str], typer.Argument(..., metavar="TENSORS...", help=_escape(TENSOR_HELP), show_default=False)
        meta = "INPUT" if spec.kind == TENSOR else spec.name.upper()
        return str, typer.Argument(..., metavar=meta, help=_escape(TENSOR_HELP if spec.kind == TENSOR else help_),
                                   show_default=False)
    names = [spec.cli]
    if spec.kind == FLAG:
        d = bool(spec.default) if spec.default is not _P.empty else False
        return bool, typer.Option(d, f"{spec.cli}/--no-{spec.cli[2:]}", help=help_)
    if spec.kind == TENSORS:
        return Optional[List[str]], typer.Option(... if spec.required else None, *names, metavar="TENSOR",
                                                 help=help_, show_default=False)
    meta = {TENSOR: "TENSOR", OPERAND: "X", INT: "INT", INTS: "INTS", DIM: "DIM", NUMBER: "NUMBER",
            STR: "TEXT"}[spec.kind]
    choices = (info.extras.get("cli_choices") or {}).get(spec.name)
    kw = {}
    if choices:
        help_ = (help_ + " " if help_ else "") + "One of: " + ", ".join(choices) + "."
    if spec.kind == INT:
        ann = Optional[int]
    else:
        ann = Optional[str]
    if spec.required:
        return ann, typer.Option(..., *names, metavar=meta, help=help_, show_default=False, **kw)
    show = spec.default is not None and spec.default is not _P.empty and spec.kind not in (TENSOR,)
    return ann, typer.Option(None, *names, metavar=meta, help=help_ + (f" [default: {spec.default}]" if show else ""),
                             show_default=False, **kw)


_COMMON = (
    ("cli_dtype", Optional[str], lambda: typer.Option(None, "--dtype", metavar="DTYPE",
                                                       help="Cast INPUT to this dtype first (float32, int64, ...).")),
    ("cli_out", Optional[str], lambda: typer.Option(None, "-o", "--out", metavar="PATH",
                                                     help="Save the result (.npy/.npz/.json); '-' = .npy on stdout.")),
    ("cli_json", bool, lambda: typer.Option(False, "--json", help="Print one JSON object on stdout "
                                                                 "(NaN/Infinity as strings).")),
    ("cli_explain", bool, lambda: typer.Option(False, "--explain",
                                               help="Show where each output element comes from.")),
    ("cli_at", Optional[str], lambda: typer.Option(None, "--at", metavar="I,J",
                                                    help="Explain one output element (implies --explain).")),
    ("cli_max_rows", int, lambda: typer.Option(40, "--max-rows", metavar="N",
                                                help="Explain at most N rows (0: all).")),
    ("cli_debug", bool, lambda: typer.Option(False, "--debug", help="Show the traceback on errors.")),
    ("cli_no_color", bool, lambda: typer.Option(False, "--no-color", help="No colours (also NO_COLOR, non-TTY).")),
)


def make_op_command(info):
    """The Typer callback for one op: signature built from the op's, body = run_op."""
    specs = classify(info)
    params, annotations = [], {}
    for s in specs:
        ann, default = _typer_param(s, info)
        params.append(_P("p_" + s.name, _P.KEYWORD_ONLY, annotation=ann, default=default))
        annotations["p_" + s.name] = ann
    for name, ann, make in _COMMON:
        params.append(_P(name, _P.KEYWORD_ONLY, annotation=ann, default=make()))
        annotations[name] = ann

    def callback(**values):
        run_op(info, specs, values)

    callback.__signature__ = inspect.Signature(params)
    callback.__annotations__ = annotations
    callback.__name__ = info.name.replace(".", "_")
    callback.__doc__ = info.summary
    return callback, _help_text(info, specs)


def add_op_commands(app, names=None):
    from core.ops.registry import OPS
    for name, info in OPS.items():
        if not info.cli or (names is not None and command_name(name) not in names):
            continue
        cb, help_ = make_op_command(info)
        app.command(command_name(name), help=help_, rich_help_panel=f"{info.category} ops",
                    short_help=_escape(info.summary or ""))(cb)


# -- running an op ---------------------------------------------------------------------------

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
        from core import Tensor
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
    from . import io
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
        from .io import parse_dtype
        dtype = parse_dtype(values["cli_dtype"])
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


def _title(call: Call) -> str:
    args = ", ".join(f"{k}={v}" for k, v in call.scalars().items())
    return f"{call.info.name}({args})"


def run_op(info, specs, values):
    from . import io
    no_color = values["cli_no_color"]
    out_path, as_json = values["cli_out"], values["cli_json"]
    at_text = values["cli_at"]
    explain_on = values["cli_explain"] or at_text is not None
    max_rows = values["cli_max_rows"]
    if out_path == "-" and as_json:
        raise CliError("--json", "cannot be combined with -o - (both write to stdout)")
    if max_rows is not None and max_rows < 0:
        raise CliError("--max-rows", f"must be >= 0, got {max_rows}")
    if explain_on and not info.kind:
        raise CliError("--explain", f"{command_name(info.name)} is not a data-movement op, so there is no "
                                    "element mapping to explain")
    at = io.parse_ints(at_text, arg="--at") if at_text is not None else None

    call = build_call(info, specs, values)
    with user_errors(command_name(info.name)):
        result = call.run()

    expl = None
    if explain_on:
        from . import explain
        with user_errors("--explain"):  # the op ran; a failure here is the op refusing position codes
            expl = explain.explain(call, result, at=at, max_rows=max_rows)

    human = sys.stdout
    if out_path is not None:
        io.save_result(result, out_path)
        if out_path == "-":
            human = sys.stderr
    if as_json:
        args = {k: io.json_scalar(v) for k, v in call.scalars().items()}
        obj = {"op": info.name, "args": args, "result": io.result_json(result)}
        if expl is not None:
            obj.update(expl.to_json(max_rows=max_rows))
        sys.stdout.write(io.dumps(obj) + "\n")
        return
    if out_path is None:
        from . import render
        render.print_result(result, _title(call), no_color=no_color)
    if expl is not None:
        from . import render
        render.print_lines(expl.lines(max_rows=max_rows), no_color=no_color, file=human)


# -- the app -------------------------------------------------------------------------------

class _LightCoerce:
    """Click-style conversion of plain str/int/float/bool values (and lists of them).

    Typer converts every parameter value through a pydantic TypeAdapter; importing pydantic and
    building the adapters costs ~60 ms per run, a third of an op command's budget. Parameters
    with these plain annotations get this converter instead (same results, same error class);
    anything else keeps Typer's own conversion."""

    TYPES = (str, int, float, bool)

    def __init__(self, typ, is_list):
        self.typ, self.is_list = typ, is_list

    def coerce(self, value, *, param, ctx):
        if value is None:
            return None
        if self.is_list:
            if value in ((), []):
                d = param.default
                return None if d is None else list(d)
            return [self._one(v, param, ctx) for v in value]
        return self._one(value, param, ctx)

    def _one(self, v, param, ctx):
        typ = self.typ
        if isinstance(v, typ) and not (typ is int and isinstance(v, bool)):
            return v
        if typ is str:
            return str(v)
        if typ is bool:
            s = str(v).strip().lower()
            if s in ("1", "true", "t", "yes", "y", "on"):
                return True
            if s in ("0", "false", "f", "no", "n", "off"):
                return False
            raise typer.BadParameter(f"{v!r} is not a valid boolean.", ctx=ctx, param=param)
        try:
            return typ(str(v).strip()) if typ is float else int(str(v).strip(), 10)
        except ValueError:
            what = "integer" if typ is int else "number"
            raise typer.BadParameter(f"{v!r} is not a valid {what}.", ctx=ctx, param=param) from None


def _light(p):
    import typing
    desc = getattr(p, "type_descriptor", None)
    if desc is None or getattr(p, "_runtime_param", 0) is not None:
        return p
    ann = desc.annotation
    is_list = False
    if typing.get_origin(ann) in (list, List):
        (ann,) = typing.get_args(ann) or (str,)
        is_list = True
    if ann in _LightCoerce.TYPES and getattr(desc, "file_annotation", None) is None:
        p._runtime_param = _LightCoerce(ann, is_list)
    return p


def _light_params(command):
    """Give a command's plain-typed parameters (and its --help) the light converter (see _LightCoerce)."""
    if getattr(command, "_tensorcli_light", False):
        return command
    for p in getattr(command, "params", ()):
        _light(p)
    orig = getattr(command, "get_help_option", None)
    if orig is not None:
        def get_help_option(ctx, _orig=orig):
            opt = _orig(ctx)
            return _light(opt) if opt is not None else None
        command.get_help_option = get_help_option
    command._tensorcli_light = True
    return command


class TensorcliGroup(TyperGroup):
    """Runs commands with tensorcli's error policy: one line on stderr, exit 2 for bad usage/input."""

    def list_commands(self, ctx):
        return list(self.commands)  # registration order: ops listing first, then by category

    def get_command(self, ctx, cmd_name):
        cmd = super().get_command(ctx, cmd_name)
        return _light_params(cmd) if cmd is not None else None

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        argv = list(sys.argv[1:] if args is None else args)
        debug = debug_requested(argv)
        _light_params(self)
        try:
            rv = super().main(argv, prog_name or "tensorcli", complete_var, standalone_mode=False, **extra)
        except _ClickException as e:
            code = _usage_error(e, debug)
        except _ClickAbort:
            sys.stderr.write("Aborted!\n")
            code = 1
        except KeyboardInterrupt:
            code = 130
        except BrokenPipeError:
            _silence_stdout()
            code = 1
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except CliError as e:
            code = report(e, debug=debug)
        except Exception as e:  # noqa: BLE001 - the last line of defence: one line, exit 1
            code = report(e, debug=debug)
        else:
            code = rv if isinstance(rv, int) else 0
        if not standalone_mode:
            return code
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _silence_stdout()
        except (OSError, ValueError):
            pass
        sys.exit(code)


def _silence_stdout():
    import os
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _usage_error(e, debug) -> int:
    if type(e).__name__ == "NoArgsIsHelpError":  # `tensorcli` alone: the help (Rich already printed it)
        text = e.format_message()
        if text.strip():
            sys.stdout.write(text + "\n")
        return 0
    ctx = getattr(e, "ctx", None)
    hint = ""
    if ctx is not None:
        hint = f" (see '{ctx.command_path} --help')"
    err = CliError(None, one_line(e.format_message()) + hint)
    report(err, debug=debug)
    return getattr(e, "exit_code", EXIT_USAGE) or EXIT_USAGE


def _version(value: bool):
    if value:
        sys.stdout.write(f"tensorcli {__version__}\n")
        raise typer.Exit()


APP_HELP = _escape("""See what a PyTorch tensor op does, from the shell.

Each op command runs the op on your tensors (PyTorch's semantics, on a NumPy engine) and prints the result; --explain shows where every output element came from.

Examples:

  tensorcli gather '[[1,2,3],[4,5,6]]' --dim 1 --index '[[0,2],[1,0]]' --explain
  tensorcli scatter-add '[0,0,0]' --dim 0 --index '[0,2,0]' --src '[1,2,3]'
  tensorcli gather x.npy --dim 0 --index idx.npz:idx -o - | tensorcli show -
  tensorcli ops

Tensor arguments: """ + TENSOR_HELP)


def build_app(only=None, modules=None) -> typer.Typer:
    """The Typer app. `only` (a set of command names) registers just those op commands (main()'s
    fast path); `modules` overrides COMMAND_MODULES (tests)."""
    import importlib
    app = typer.Typer(name="tensorcli", cls=TensorcliGroup, help=APP_HELP, no_args_is_help=True,
                      add_completion=False, pretty_exceptions_enable=False,
                      context_settings={"help_option_names": ["-h", "--help"]})

    @app.callback()
    def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                           help="Print the version and exit.")):
        """tensorcli"""

    from .commands import COMMAND_MODULES
    for mod in COMMAND_MODULES if modules is None else modules:
        full = f"{__package__}.commands.{mod}"
        try:
            module = importlib.import_module(full)
        except ImportError as e:
            if e.name == full:  # the module itself is not written yet; errors inside it propagate
                continue
            raise
        register = getattr(module, "register", None)
        if register is not None:  # a module still being written may not define it yet
            register(app)
    add_op_commands(app, only)
    return app


_APP = None


def get_app() -> typer.Typer:
    global _APP
    if _APP is None:
        _APP = build_app()
    return _APP


def __getattr__(name):
    if name == "app":
        return get_app()
    raise AttributeError(name)


def _fast_path_names(argv):
    """The op command named on the command line, when it is the only one we need to build."""
    for a in argv:
        if a.startswith("-"):
            return None  # an option before the command (--help, --version): build everything
        return {a}
    return None


def main(argv=None):
    """Console-script entry point (`tensorcli`)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv == ["--version"]:
        sys.stdout.write(f"tensorcli {__version__}\n")
        return 0
    only = _fast_path_names(argv)
    app = build_app(only)
    if only is not None:
        # Typer converts every registered command's signature when it builds the group (~2 ms a
        # command): keep only the one on the command line, or all of them for a typo's suggestions.
        keep = [c for c in app.registered_commands
                if (c.name or typer.main.get_command_name(c.callback.__name__)) in only]
        if keep:
            app.registered_commands = keep
        else:
            app = get_app()
    command = typer.main.get_command(app)
    return command.main(argv, prog_name="tensorcli")


if __name__ == "__main__":  # pragma: no cover
    main()
