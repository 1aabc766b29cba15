"""The op commands: one Typer command per registered op with an `Op` entry in tensorcli/opspec/
(`scatter_add` -> `tensorcli scatter-add`), parameters from `tensorcli.spec`, body = parse ->
services.run_op -> render.

`register(app, names)` adds them (only `names` on main()'s fast path). `tensorcli --help` lists
them from the generated table op_table.py without importing core (regenerate it with
`python scripts/regenerate.py` after adding or changing an op's registration or its opspec entry).
"""
from __future__ import annotations

import importlib
import inspect
import os
import sys
from typing import List, Optional

import typer

from tensorcli import opspec
from tensorcli.commands import escape_markup as _escape, fold_example
from tensorcli.commands.options import (AtOpt, DebugOpt, DtypeOpt, ExplainOpt, FullDataOpt, JsonOpt, MaxBytesOpt,
                                        MaxRowsOpt, NoColorOpt, OutOpt, QuietOpt, TimeoutOpt)
from tensorcli.commands.explain_options import BackwardOpt, GradOutputOpt, GridOpt, SvgOpt
from tensorcli.errors import CliError
from tensorcli.spec import (DIM, EXCLUSIVE, FLAG, INT, INTS, NUMBER, OPERAND, STR, TENSOR,
                            TENSOR_HELP, TENSORS, ParamSpec, classify, command_name, examples, param_help, rule_text)

_P = inspect.Parameter

def metavar(spec: ParamSpec, choices=None) -> str:
    """What an option's value reads like: TENSOR, DIM, DIMS / SIZES / SHAPE, INT, NUMBER, a choice."""
    if spec.kind in (TENSOR, TENSORS):
        return "TENSOR"
    if spec.kind in (INTS, STR):
        return "|".join(choices) if choices and spec.kind == STR else spec.name.upper()
    return {OPERAND: "X", INT: "INT", DIM: "DIM", NUMBER: "NUMBER", FLAG: ""}[spec.kind]


def _synopsis(info, specs) -> str:
    parts = ["tensorcli", command_name(info.name)]
    by_name = {s.name: s for s in specs}
    for s in specs:
        if s.positional:
            parts.append(s.cli + ("..." if s.kind == TENSORS else ""))
        elif s.required or s.kind in (INTS,):
            parts.append(f"{s.cli} {metavar(s)}".strip())
    for a, b in EXCLUSIVE:
        if a in by_name and b in by_name:
            sa, sb = by_name[a], by_name[b]
            parts.append(f"({sa.cli} {metavar(sa)} | {sb.cli} {metavar(sb)})")
    return " ".join(parts)


def help_text(info, specs) -> str:
    """The command's --help body: summary, formula, usage, examples (one line each, never wrapped)."""
    lines = [info.summary or info.name]
    r = rule_text(info)
    if r:
        lines += ["", f"Formula (2-D, dim=1):  {r}"]
    exs = examples(info)
    lines += ["", "Synopsis:", "", fold_example(_synopsis(info, specs))]
    if exs:
        lines += ["", "Example:" if len(exs) == 1 else "Examples:", ""] + [fold_example(e) for e in exs]
    lines += ["", "Tensor arguments: " + TENSOR_HELP]
    offered = _offered(info)
    lines += [" ".join(text for group, text in (
        ("explain", "--explain shows where each output element comes from; --at 0,1 explains one."),
        ("backward", "--backward shows the gradient as a mapping.")) if group in offered)]
    return _escape("\n".join(lines).rstrip())


def _typer_param(spec: ParamSpec, info):
    """(annotation, default) for one op parameter."""
    help_ = _escape(param_help(spec))
    if spec.positional:
        if spec.kind == TENSORS:
            return List[str], typer.Argument(..., metavar="TENSORS...", help=_escape(TENSOR_HELP), show_default=False)
        meta = "INPUT" if spec.kind == TENSOR else spec.name.upper()
        return str, typer.Argument(..., metavar=meta, help=_escape(TENSOR_HELP if spec.kind == TENSOR else help_),
                                   show_default=False)
    if spec.kind == FLAG:
        d = bool(spec.default) if spec.default is not _P.empty else False
        return bool, typer.Option(d, f"{spec.cli}/--no-{spec.cli[2:]}", help=help_)
    if spec.kind == TENSORS:
        return Optional[List[str]], typer.Option(... if spec.required else None, spec.cli, metavar="TENSOR",
                                                 help=help_, show_default=False)
    choices = opspec.entry(info.name).choices.get(spec.name)
    if choices:
        help_ = (help_ + " " if help_ else "") + "One of: " + ", ".join(choices) + "."
    ann = Optional[int] if spec.kind == INT else Optional[str]
    meta = metavar(spec, choices)
    if spec.required:
        return ann, typer.Option(..., spec.cli, metavar=meta, help=help_, show_default=False)
    show = spec.default is not None and spec.default is not _P.empty and spec.kind not in (TENSOR,)
    return ann, typer.Option(None, spec.cli, metavar=meta, help=help_ + (f" [default: {spec.default}]" if show else ""),
                             show_default=False)


# The options every op command has (the shared ones from commands/options.py).
_COMMON = (("cli_dtype", DtypeOpt, None), ("cli_out", OutOpt, None), ("cli_json", JsonOpt, False),
           ("cli_explain", ExplainOpt, False), ("cli_at", AtOpt, None), ("cli_max_rows", MaxRowsOpt, 40),
           ("cli_debug", DebugOpt, False), ("cli_no_color", NoColorOpt, False),
           ("cli_backward", BackwardOpt, False), ("cli_grad_output", GradOutputOpt, None),
           ("cli_grid", GridOpt, False), ("cli_svg", SvgOpt, None), ("cli_max_bytes", MaxBytesOpt, None),
           ("cli_timeout", TimeoutOpt, None),
           ("cli_full_data", FullDataOpt, False), ("cli_quiet", QuietOpt, False))


# Options that only work on some ops: (group, option names). An op's entry says which groups it
# cannot offer: Op(explain=False) (no element mapping) drops the explain group, Op(backward=False)
# (no gradient) the backward one; --max-rows goes with whichever table remains.
_GROUPS = {"explain": ("cli_explain", "cli_at", "cli_grid", "cli_svg"), "backward": ("cli_backward", "cli_grad_output")}
_DEFAULTS = {name: default for name, _, default in _COMMON}


def _offered(info) -> set:
    """The option groups (explain, backward) this op's command offers."""
    e = opspec.entry(info.name)
    return {g for g in _GROUPS if getattr(e, g, True) is not False}


def _common_options(info):
    offered = _offered(info)
    dropped = {n for g, names in _GROUPS.items() if g not in offered for n in names}
    if not offered:
        dropped.add("cli_max_rows")
    return [c for c in _COMMON if c[0] not in dropped]


def make_op_command(info):
    """(callback, help): the Typer callback for one op, its signature built from the op's."""
    specs = classify(info)
    params, annotations = [], {}
    for s in specs:
        ann, default = _typer_param(s, info)
        params.append(_P("p_" + s.name, _P.KEYWORD_ONLY, annotation=ann, default=default))
        annotations["p_" + s.name] = ann
    for name, ann, default in _common_options(info):
        params.append(_P(name, _P.KEYWORD_ONLY, annotation=ann, default=default))
        annotations[name] = ann

    def callback(**values):
        run_command(info, specs, {**_DEFAULTS, **values})   # options not offered: their defaults

    callback.__signature__ = inspect.Signature(params)
    callback.__annotations__ = annotations
    callback.__name__ = info.name.replace(".", "_")
    callback.__doc__ = info.summary
    return callback, help_text(info, specs)


def register(app, names=None):
    """Add the op commands (all, or those in `names`) to the app, in registry order."""
    if names is not None and not names:
        return
    if names is not None and not _names_an_op_command(names):
        return   # no op command named (`tensorcli ops`, `show`, ...): core is not needed
    from core.ops.registry import OPS   # the registry is core: only when op commands are built
    for name, info in list(OPS.items()):   # (a lazy entry read below imports its family: OPS may grow)
        if names is not None and command_name(name) not in names:
            continue   # (before reading `info`: a lazy family's entry would import the family)
        if not opspec.is_command(name):
            continue
        cb, help_ = make_op_command(info)
        app.command(command_name(name), help=help_, rich_help_panel=f"{info.category} ops",
                    short_help=_escape(info.summary or ""))(cb)


# -- the precomputed table for `tensorcli --help` --------------------------------------------------

TABLE_MODULE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "op_table.py")
LISTING_MODULE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "op_listing.py")


def command_table() -> list[tuple[str, str, str]]:
    """(command, help panel, short help) of every op command, in registry order."""
    from core.ops.registry import OPS   # the registry is core: only when (re)generating the table
    return [(command_name(name), f"{info.category} ops", _escape(info.summary or ""))
            for name, info in list(OPS.items()) if opspec.is_command(name)]


def _generated(doc, name, rows) -> str:
    """A generated module: its docstring and one list, a row a line."""
    body = "".join(f"    {row!r},\n" for row in rows)
    return f'"""{doc}"""\n{name} = [\n{body}]\n'


def table_source() -> str:
    """The text of op_table.py for the current registry."""
    return _generated("GENERATED by `python scripts/regenerate.py` from core's registry: the op commands that\n"
                      "`tensorcli --help` lists without importing core (tests/test_generated.py checks it is current).",
                      "COMMANDS", command_table())


def listing_source() -> str:
    """The text of op_listing.py: services.ops.all_rows() (2-D formulas, dim=1) for the current registry."""
    from tensorcli.services.ops import all_rows
    return _generated("GENERATED by `python scripts/regenerate.py` from core's registry: the rows `tensorcli ops`\n"
                      "prints (2-D formulas, dim=1) without importing core (tests/test_generated.py checks it is current).",
                      "LISTING", all_rows())


# No check at run time that the generated tables match core (docs/architecture.md, "Generated files"): the
# files are regenerated by one command and tests/test_generated.py compares them byte for byte.

def _generated_module(module_name):
    """The generated module tensorcli.commands.<module_name>, or None when it is missing."""
    try:
        return importlib.import_module(f"tensorcli.commands.{module_name}")
    except ImportError:
        return None


def _names_an_op_command(names) -> bool:
    """Whether `names` may hold an op command: a name the generated table lists is one (~3 ms, core not
    imported); without the table, any name may be."""
    table = cached_table()
    return table is None or bool(names & {row[0] for row in table})


def cached_table():
    """op_table.COMMANDS: (command, help panel, short help) of every op command; None without the file."""
    table = _generated_module("op_table")
    return table.COMMANDS if table is not None else None


def cached_listing():
    """op_listing.LISTING (services.ops.all_rows() for 2-D, dim=1); None without the file."""
    table = _generated_module("op_listing")
    return table.LISTING if table is not None else None


def run_command(info, specs, values):
    """Parse the common options, run the op (services.run_op), print (render) or write JSON / a file."""
    from tensorcli import io, render
    from tensorcli.services import run_op
    out_path, as_json, at_text = values["cli_out"], values["cli_json"], values["cli_at"]
    explain_on = values["cli_explain"] or at_text is not None
    max_rows = values["cli_max_rows"]
    if out_path == "-" and as_json:
        raise CliError("--json", "cannot be combined with -o - (both write to stdout)")
    if max_rows is not None and max_rows < 0:
        raise CliError("--max-rows", f"must be >= 0, got {max_rows}")
    if values.get("p_dim") == "all":
        return run_all_dims(info, specs, values, max_rows)
    grid_on = values["cli_grid"] or values["cli_svg"] is not None
    at = io.parse_ints(at_text, arg="--at") if at_text is not None else None
    streamed = None
    if not (explain_on or grid_on or values["cli_backward"] or values["cli_grad_output"] is not None):
        streamed = _streamed(info, specs, values)
    if streamed is None:
        call, result, expl = run_op.run(info, specs, values, explain=explain_on, at=at, max_rows=max_rows)
        bw = _backward(call, values, max_rows)
    else:
        (call, result), expl, bw = streamed, None, None
        if result is None:   # written block by block to -o
            return
    human = sys.stdout
    if out_path is not None:
        io.save_result(result, out_path)
        if out_path == "-":
            human = sys.stderr
    if as_json:
        obj = run_op.to_json(info, call, result, expl if explain_on else None, max_rows=max_rows,
                             full_data=values.get("cli_full_data", False))
        if bw is not None:
            from tensorcli.services.explain_any import backward_json
            obj.update(backward_json(bw))
        sys.stdout.write(io.dumps(obj) + "\n")
        return
    no_color = values["cli_no_color"]
    if out_path is None:
        render.print_result(result, run_op.title(call), no_color=no_color)
    _render_extras(call, result, expl if explain_on else None, bw, values, human)


def _streamed(info, specs, values):
    """(call, result Tensor or None when written to -o) for an op that streams over a large .npy
    INPUT (services/run_op.stream_request), with a progress bar on stderr; None to run in memory."""
    from tensorcli.services import run_op
    req = run_op.stream_request(info, specs, values)
    if req is None:
        return None
    from tensorcli.render.progress import progress_bar   # Rich: only when a stream runs
    with progress_bar(command_name(info.name), no_color=values["cli_no_color"]) as update:
        result = run_op.stream_run(req, progress=update)
    return None if result is run_op.FALLBACK else (req.call, result)


def _backward(call, values, max_rows):
    """The --backward mapping (services/explain_any.backward), or None."""
    if not values["cli_backward"]:
        if values["cli_grad_output"] is not None:
            raise CliError("--grad-output", "only with --backward")
        return None
    from tensorcli import io
    from tensorcli.errors import user_errors
    from tensorcli.services.explain_any import backward
    go = values["cli_grad_output"]
    go = io.load_tensor(go, arg="--grad-output") if go is not None else None
    with user_errors("--backward"):
        return backward(call, go, max_rows=max_rows)


def _render_extras(call, result, expl, bw, values, human):
    from tensorcli.render.explain import print_backward, print_explanation
    no_color, max_rows = values["cli_no_color"], values["cli_max_rows"]
    if expl is not None:
        print_explanation(expl, max_rows=max_rows, no_color=no_color, file=human)
    if bw is not None:
        print_backward(bw, max_rows=max_rows, no_color=no_color, file=human)
    if values["cli_grid"] or values["cli_svg"] is not None:
        from tensorcli.errors import user_errors
        from tensorcli.services.explain_any import explain
        from tensorcli.render.grid import over_cap, print_grid
        full = None
        if not over_cap(result):   # the cap first: every row of a big output is quadratic work
            with user_errors("--grid"):
                full = explain(call, result, max_rows=0)
        svg = values["cli_svg"]
        if svg is None:
            print_grid(call, result, full, no_color=no_color, file=human)
            return
        from tensorcli.io import output_errors
        from tensorcli.io.npyfile import atomic_output
        with output_errors(svg, "--svg"), atomic_output(svg, keep_empty=False) as tmp:
            print_grid(call, result, full, no_color=no_color, file=human, svg=tmp)


def run_all_dims(info, specs, values, max_rows):
    """--dim all: the op (and its --explain rows) for each dim of the input, side by side; a dim that
    does not fit shows its error in its own column. --json: one object, `dims` one entry per dim
    (schema tensorcli.dims/2). Options that write one result (-o, --grid, --svg, --backward) are refused."""
    from tensorcli import io, render
    from tensorcli.render.explain import explain_lines, print_dims
    from tensorcli.services import run_op
    from tensorcli.services.explain_any import valid_dims
    if not any(s.name == "dim" for s in specs):
        raise CliError("--dim", f"{command_name(info.name)} takes no dim")
    for key, flag in (("cli_out", "-o"), ("cli_grid", "--grid"), ("cli_svg", "--svg"), ("cli_backward", "--backward"),
                      ("cli_grad_output", "--grad-output")):
        if values.get(key) not in (None, False):
            raise CliError(flag, f"cannot be combined with --dim all (one result per dim): give one --dim, "
                                 f"e.g. --dim 0")
    probe = run_op.build_call(info, specs, dict(values, p_dim=None))
    at_text = values["cli_at"]
    explain_on = values["cli_explain"] or at_text is not None
    at = io.parse_ints(at_text, arg="--at") if at_text is not None else None
    columns, objs = [], []
    for d in valid_dims(probe):
        try:
            call, result, expl = run_op.run(info, specs, dict(values, p_dim=str(d)), explain=explain_on,
                                            at=at, max_rows=max_rows)
        except CliError as e:
            columns.append((d, [f"error: {e}"]))
            objs.append({"dim": d, "error": str(e)})
            continue
        lines = render.result_text(result, run_op.title(call)).split("\n")
        if expl is not None:
            lines += explain_lines(expl, max_rows=max_rows)[1:]
        columns.append((d, lines))
        obj = run_op.to_json(info, call, result, expl, max_rows=max_rows, full_data=values.get("cli_full_data", False))
        objs.append({"dim": d, **{k: v for k, v in obj.items() if k not in ("schema", "command")}})
    if values["cli_json"]:
        from tensorcli.services import vocab
        sys.stdout.write(io.dumps(vocab.envelope(command_name(info.name), {"op": info.name, "dims": objs},
                                                 schema_name="dims")) + "\n")
        return
    print_dims(columns, no_color=values["cli_no_color"])
