"""`tensorcli eval EXPR --let NAME=TENSOR ...`: print the value of an expression in the safe language;
`tensorcli eval -f prog.py` runs a program and prints exactly what it prints.

The language is grad's (services/expr*.py: statements separated by ';', the value of the last one;
AST whitelist, allocation estimates, never eval); services/evaluate.py runs it and classifies the
value, render/evaluate.py prints it, ``--json`` writes ``tensorcli.eval/2`` (docs/json.md) and
``-o`` writes a tensor result with the op commands' writer (tensorcli.io.save_result).
"""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from tensorcli.commands.options import (DebugOpt, DtypeOpt, FullDataOpt, JsonOpt, LetOpt, MaxBytesOpt, NoColorOpt,
                                        OutOpt, ProgramFileOpt, QuietOpt, RequiresGradOpt, TimeoutOpt)

EXAMPLES = (
    "tensorcli eval 'a @ b' --let a='[[1.0, 2.0], [3.0, 4.0]]' --let b='[[0.5], [1.0]]'",
    "tensorcli eval 'torch.softmax(x, dim=0)' --let x='[1.0, 2.0, 3.0]' --json",
    "tensorcli eval 'y = x * 2; y.max(dim=1)' --let x='[[3, 1], [2, 5]]'",
    "tensorcli eval 'x.shape' --let x='[[1, 2, 3]]'",
    "tensorcli eval 'torch.arange(6).reshape(2, 3).sum().item()'",
    "tensorcli eval 'torch.where(x > 0, x, 0.0)' --let x='[-1.0, 2.0]' -o out.npy",
)

SUMMARY = ("Print the value of an expression over --let tensors, as PyTorch prints it.\n\n"
           "A tensor is printed as print(t) in PyTorch, after a header line like the op commands'; a tuple "
           "of tensors one by one (out[0], out[1], ... or the return type's field names: values, indices); "
           "a number, a torch.Size or any other value as Python prints it.")

EXPR_HELP = ("EXPR: PyTorch statements separated by ';' (torch.*, F.*, tensor methods, operators, "
             "torch.nan, math.pi); the value of the last one is printed. A whitelist interpreter runs it, "
             "never eval; allocations above --max-bytes are refused before they happen. --let NAME=TENSOR "
             "binds a tensor (JSON literal, .npy/.npz[:key]/.json, or -). -o writes a tensor result "
             "(.npy, .npz, .json, or - for .npy bytes on stdout).\n\n"
             "PROGRAMS (-f FILE, -f - for stdin, or an EXPR of several lines): import torch / torch.nn as nn / "
             "torch.nn.functional as F / numpy as np, def and lambda, class F(torch.autograd.Function) and class "
             "Net(nn.Module), with torch.no_grad() / enable_grad() / inference_mode() / set_grad_enabled(b), "
             "for/while/if/try, print(...), hooks, nn modules, optimizers. With -f only what the program prints "
             "is printed. Loops, calls and output are bounded; errors name the line: 'line 3: RuntimeError: ...'. "
             "Example: tensorcli eval -f seed.py, or cat seed.py | tensorcli eval -f -")


def eval_(
    expr: Annotated[Optional[str], typer.Argument(metavar="EXPR", show_default=False,
                                        help="Statements separated by ';' in PyTorch syntax; the value of "
                                             "the last one is printed.")] = None,
    file: ProgramFileOpt = None,
    let: LetOpt = None,
    requires_grad: RequiresGradOpt = None,
    dtype: DtypeOpt = None,
    out: OutOpt = None,
    json_: JsonOpt = False,
    full_data: FullDataOpt = False,
    max_bytes: MaxBytesOpt = None,
    timeout: TimeoutOpt = None,
    debug: DebugOpt = False,
    no_color: NoColorOpt = False,
    quiet: QuietOpt = False,
):
    import sys
    from tensorcli import io
    from tensorcli.errors import CliError
    from tensorcli.services import evaluate as ev
    if json_ and out == "-":
        raise CliError("--json", "cannot be combined with -o - (both write to stdout)")
    stdin_used = []
    source, label = ev.read_program(expr, file, stdin_used)
    printed = [] if (json_ or out == "-") else None
    result, kind, chars = ev.evaluate(source, let, requires_grad=requires_grad, dtype=dtype, max_bytes=max_bytes,
                                      stdin_used=stdin_used, label=label,
                                      out=None if printed is None else printed.append)
    if out is not None:
        ev.save(result, kind, out)
    if out == "-" and printed:
        sys.stderr.write("".join(printed))
    if json_:
        output = "".join(printed) if printed else None
        sys.stdout.write(io.dumps(ev.to_json(source, result, kind, full_data=full_data, output=output)) + "\n")
        return
    if file is not None or (chars and result is None):
        return      # a program: its own output is the output
    if out is None:
        from tensorcli.render.evaluate import print_eval
        names = ev.item_names(result) if kind == "tensors" else None
        print_eval(source, result, kind, names, no_color=no_color)


def register(app) -> None:
    from tensorcli.commands import escape_markup, fold_example
    text = SUMMARY + "\n\nExamples:\n\n" + "\n".join(fold_example(e) for e in EXAMPLES) + "\n\n" + EXPR_HELP
    app.command("eval", help=escape_markup(text), rich_help_panel="inspect")(eval_)
