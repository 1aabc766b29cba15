"""`tensorcli grad`, `graph`, `modes`: the autograd explorer, on the safe expression language.

    tensorcli grad 'y = 2 * x ** 2' --let x='[1.0, 1.0, 1.0]' --requires-grad x --gradient '[0.1, 1.0, 0.0001]'
    tensorcli grad 'z = x + y; o = w.matmul(z)' --let x=... --let y=... --let w=... \
        --requires-grad x,y,w --hook z
    tensorcli grad 'y = x ** 2; z = y * 4; o1 = z.mean(); o2 = z.sum()' --let x=... \
        --requires-grad x --of o1 --then o2 [--retain-graph]      (or --backward-twice on the result)
    tensorcli grad 'z = MultiplyAdd.apply(w, x, b)' --let x='[1.0]' --let w='[0.5]' --let b='[0.2]' --requires-grad w,b
    tensorcli graph 'o = w.matmul(x + y)' --let ...
    tensorcli modes 'y = (x * w).sum()' --let ...

EXPR is run by ``tensorcli.services.expr`` (a whitelist interpreter: statements separated by ``;``, the
last one is the result); nothing else ever executes user text. ``--let name=TENSOR`` binds a
tensor argument (JSON literal, .json/.npy/.npz[:key], ``-`` for stdin); ``--requires-grad x,w``
marks those leaves (floating point only, as in PyTorch). The built-in example Functions of
``tensorcli.services.functions`` (``MultiplyAdd.apply``, ``GradientRescale.apply``) are callable. For the
duration of a command, ``--max-bytes`` bounds what it allocates in all (the process's data limit,
services/budget.py; the expression's static estimate and ``core.set_allocation_limit`` refuse earlier).

JSON (``--json``, one object):

* common: ``command``, ``expr``, ``result`` (tensor info of the result).
  Tensor info: ``name``, ``shape``, ``dtype`` (``"torch.float32"``), ``is_leaf``, ``requires_grad``,
  ``grad_fn`` (node name or null), ``retains_grad``, ``is_inference``, ``grad`` (nested list or
  null), ``grad_text`` (the tensor as PyTorch prints it, or null), ``note`` (why grad is null).
  Non-finite numbers are the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"`` (as tensorcli.io).
* ``grad``: ``tensors`` (named tensors after all backward passes: the --let names, then every
  assigned name, in order; tuple values as ``name[i]``; a --let tensor the expression rebound as
  ``name (--let)``; an unnamed result as ``(result)``), ``backward`` (one object per pass: ``of``,
  ``retain_graph``, ``gradient``, ``ok``, ``error`` {type, message} or null, ``grads`` {name: grad
  after this pass}, ``explanation``), ``hooks`` (``name``, ``pass``, ``grad``, ``text``, in firing
  order).
* ``graph``: ``graph`` (root node or null), ``nodes`` (op nodes, AccumulateGrad excluded),
  ``leaves``, ``saved_tensors`` and ``saved_bytes`` (distinct buffers, from core.memory), ``note``.
  Node: ``id``, ``name``, ``saved`` (list of {name, shape, dtype, bytes, is_output}), ``next``
  (children in ``next_functions`` order, null for an input that needs no grad), custom Function
  nodes also ``custom: true`` and ``needs_input_grad``; AccumulateGrad nodes ``variable`` (the leaf's
  name or null), ``shape``, ``dtype``; a node already shown has ``ref: true``; ``truncated: true``
  below ``--max-depth``.
* ``grad --steps``: schema ``tensorcli.grad-steps/2`` (docs/json.md): ``passes``, each with ``steps`` (one
  per node in execution order: gradients received before/after hooks, hooks firing, saved tensors, freed
  buffers, gradients sent per edge, a leaf's .grad before/after, the error where torch raises).
* ``modes --timeline`` (or EXPR with a ``with`` block): schema ``tensorcli.modes-timeline/2``: ``statements``
  (mode, new/changed tensors' flags, error, the statement under each other mode), ``summary``.
* ``modes``: ``modes`` (one row per mode: ``mode``, ``label``, ``ok``, ``error``, ``requires_grad``,
  ``grad_fn``, ``is_leaf``, ``is_inference``, ``graph_nodes``, ``saved_tensors``, ``saved_bytes``),
  ``summary`` (one sentence).
"""
from __future__ import annotations

from typing import Annotated, List, Optional

import typer

from tensorcli.commands.options import (DebugOpt, DtypeOpt, FullDataOpt, JsonOpt, LetOpt, MaxBytesOpt, NoColorOpt,
                                        ProgramFileOpt, QuietOpt, RequiresGradOpt, TimeoutOpt)

DEFAULT_MAX_DEPTH = 100   # services.autograd.DEFAULT_MAX_DEPTH (not imported: see commands/__init__)


def _print_json(report: dict) -> None:
    from tensorcli import io
    from tensorcli.services import vocab
    typer.echo(io.dumps(vocab.envelope(report["command"], report)))


def grad(
    expr: Annotated[Optional[str], typer.Argument(metavar="EXPR", help="Statements separated by ';' in PyTorch "
                                         "syntax; the last one is the tensor to call backward on.")] = None,
    file: ProgramFileOpt = None,
    let: LetOpt = None,
    requires_grad: RequiresGradOpt = None,
    gradient: Annotated[Optional[str], typer.Option(
        "--gradient", metavar="TENSOR|EXPR",
        help="Gradient passed to backward (needed for non-scalar results): a tensor, 'ones', or an "
             "expression over EXPR's names such as 'torch.ones_like(y)'.")] = None,
    retain_graph: Annotated[bool, typer.Option(
        "--retain-graph", help="First backward with retain_graph=True.")] = False,
    backward_twice: Annotated[bool, typer.Option(
        "--backward-twice", help="Call backward a second time and show what happens.")] = False,
    hook: Annotated[Optional[List[str]], typer.Option(
        "--hook", metavar="NAME", help="Register a hook on NAME that prints the gradient flowing "
                                       "through it. Repeatable.")] = None,
    retain_grad: Annotated[Optional[List[str]], typer.Option(
        "--retain-grad", metavar="NAME", help="Call NAME.retain_grad() so a non-leaf keeps .grad. "
                                              "Repeatable.")] = None,
    of: Annotated[Optional[str], typer.Option(
        "--of", metavar="NAME", help="Call backward on NAME instead of the result.")] = None,
    then: Annotated[Optional[str], typer.Option(
        "--then", metavar="NAME", help="Second backward on NAME (implies --backward-twice).")] = None,
    steps: Annotated[bool, typer.Option(
        "--steps", help="Show each backward pass node by node as the engine runs it: the gradients each "
                        "node receives and sends, what it saved, hooks firing, accumulation into .grad, "
                        "freed buffers and errors (JSON: tensorcli.grad-steps/2).")] = False,
    dtype: DtypeOpt = None,
    max_bytes: MaxBytesOpt = None,
    timeout: TimeoutOpt = None,
    json_: JsonOpt = False,
    full_data: FullDataOpt = False,
    debug: DebugOpt = False,
    no_color: NoColorOpt = False,
    quiet: QuietOpt = False,
):
    """Evaluate EXPR, call backward, show every named tensor's .grad (hooks, retain_graph, custom Functions)."""
    from tensorcli.services import autograd as ag
    from tensorcli.services.evaluate import program_source
    limit = ag.parse_max_bytes(max_bytes)
    stdin_used = []
    with program_source(expr, file, stdin_used, json_output=json_) as expr:
        _grad(expr, let, requires_grad, gradient, retain_graph, backward_twice, hook, retain_grad, of, then, dtype,
              limit, json_, full_data, no_color, stdin_used, steps)


def _grad(expr, let, requires_grad, gradient, retain_graph, backward_twice, hook, retain_grad, of, then, dtype,
          limit, json_, full_data, no_color, stdin_used, steps=False):
    from tensorcli import io, render
    from tensorcli.render.autograd import print_hook, render_grad
    from tensorcli.services import autograd as ag
    with ag.allocation_limit(limit):
        names = ag.load_inputs(let, requires_grad, dtype, stdin_used)
    hooks = ag.split_names("--hook", hook)
    retains = ag.split_names("--retain-grad", retain_grad)
    if steps:
        _grad_steps(expr, names, hooks, retains, gradient=gradient, retain_graph=retain_graph,
                    backward_twice=backward_twice, of=of, then=then, dtype=dtype, limit=limit,
                    stdin_used=stdin_used, json_=json_, full_data=full_data, no_color=no_color)
        return
    console = None if json_ else render.console(no_color)

    def on_hook(name, text):
        if console is not None:
            print_hook(console, name, text)

    from tensorcli.services import vocab
    with vocab.full_data(full_data):
        report = ag.grad_report(expr, names, gradient=gradient, retain_graph=retain_graph,
                                backward_twice=backward_twice, hooks=hooks, retain_grads=retains, of=of,
                                then=then, on_hook=on_hook, max_bytes=limit,
                                dtype=io.parse_dtype(dtype) if dtype else None, stdin_used=stdin_used)
    if json_:
        _print_json(report)
    else:
        render_grad(report, console)


def _grad_steps(expr, names, hooks, retains, *, gradient, retain_graph, backward_twice, of, then, dtype, limit,
                stdin_used, json_, full_data, no_color):
    """grad --steps: services/backward_steps.py traces, render/backward_steps.py draws."""
    from tensorcli import io, render
    from tensorcli.services import vocab
    from tensorcli.services.backward_steps import steps_report
    with vocab.full_data(full_data):
        report = steps_report(expr, names, gradient=gradient, retain_graph=retain_graph,
                              backward_twice=backward_twice, of=of, then=then, hooks=hooks, retain_grads=retains,
                              max_bytes=limit,
                              dtype=io.parse_dtype(dtype) if dtype else None, stdin_used=stdin_used)
    if json_:
        typer.echo(io.dumps(vocab.envelope("grad", report, schema_name="grad-steps")))
        return
    from tensorcli.render.backward_steps import render_steps
    render_steps(report, render.console(no_color), render.use_color(no_color))


def graph(
    expr: Annotated[Optional[str], typer.Argument(metavar="EXPR", help="Statements separated by ';'; the last one "
                                         "is the tensor whose graph is shown.")] = None,
    file: ProgramFileOpt = None,
    let: LetOpt = None,
    requires_grad: RequiresGradOpt = None,
    max_depth: Annotated[int, typer.Option(
        "--max-depth", metavar="N", min=1, max=500, help="Show at most N levels of the graph.")] = DEFAULT_MAX_DEPTH,
    dtype: DtypeOpt = None,
    max_bytes: MaxBytesOpt = None,
    timeout: TimeoutOpt = None,
    json_: JsonOpt = False,
    debug: DebugOpt = False,
    no_color: NoColorOpt = False,
    quiet: QuietOpt = False,
):
    """The autograd graph of EXPR's result: nodes back to the leaves, with what each saved for backward."""
    from tensorcli import render
    from tensorcli.render.autograd import render_graph
    from tensorcli.services import autograd as ag
    from tensorcli.services.evaluate import program_source
    limit = ag.parse_max_bytes(max_bytes)
    stdin_used = []
    with program_source(expr, file, stdin_used, json_output=json_) as expr:
        with ag.allocation_limit(limit):
            names = ag.load_inputs(let, requires_grad, dtype, stdin_used)
        report = ag.graph_report(expr, names, max_depth=max_depth, max_bytes=limit)
    if json_:
        _print_json(report)
    else:
        render_graph(report, render.console(no_color))

def modes(
    expr: Annotated[Optional[str], typer.Argument(metavar="EXPR", help="Statements separated by ';'; the last one "
                                         "is the tensor inspected.")] = None,
    file: ProgramFileOpt = None,
    let: LetOpt = None,
    requires_grad: RequiresGradOpt = None,
    timeline: Annotated[bool, typer.Option(
        "--timeline", help="Statement by statement: the active mode (with torch.no_grad(): / "
                           "inference_mode() / enable_grad() / set_grad_enabled(b) blocks), each new or changed "
                           "tensor's flags, torch's errors, and the same statement under grad, no_grad and "
                           "inference_mode (JSON: tensorcli.modes-timeline/2). On by default when EXPR has a "
                           "with block.")] = False,
    dtype: DtypeOpt = None,
    max_bytes: MaxBytesOpt = None,
    timeout: TimeoutOpt = None,
    json_: JsonOpt = False,
    debug: DebugOpt = False,
    no_color: NoColorOpt = False,
    quiet: QuietOpt = False,
):
    """Run EXPR under each grad mode (enabled, no_grad, enable_grad, set_grad_enabled, inference_mode)."""
    from tensorcli import render
    from tensorcli.render.autograd import render_modes
    from tensorcli.services import autograd as ag
    from tensorcli.services.evaluate import program_source
    limit = ag.parse_max_bytes(max_bytes)
    stdin_used = []
    with program_source(expr, file, stdin_used, json_output=json_) as expr:
        with ag.allocation_limit(limit):
            names = ag.load_inputs(let, requires_grad, dtype, stdin_used)
        if timeline or _has_with(expr):
            from tensorcli.render.modes_timeline import render_timeline
            from tensorcli.services.modes_timeline import timeline_report
            report = timeline_report(expr, names, max_bytes=limit)
            if json_:
                from tensorcli import io
                from tensorcli.services import vocab
                typer.echo(io.dumps(vocab.envelope("modes", report, schema_name="modes-timeline")))
            else:
                render_timeline(report, render.console(no_color), render.use_color(no_color))
            return
        report = ag.modes_report(expr, names, max_bytes=limit)
    if json_:
        _print_json(report)
    else:
        render_modes(report, render.console(no_color))


def _has_with(source: str) -> bool:
    """Whether the program has a with block (the timeline runs those; the per-mode table cannot)."""
    import ast
    try:
        return any(isinstance(n, ast.With) for n in ast.walk(ast.parse(source)))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def _help(summary: str, examples) -> str:
    from tensorcli.commands import escape_markup, fold_example
    return escape_markup(summary + "\n\nExamples:\n\n" + "\n".join(fold_example(e) for e in examples)
                         + "\n\n" + _EXPR_HELP)


_EXPR_HELP = ("EXPR: PyTorch statements separated by ';' (torch.*, tensor methods, torch.nan, math.pi, "
              "float('nan')), run by a whitelist interpreter, never eval. --let NAME=TENSOR binds a tensor "
              "(literal, .npy/.npz[:key]/.json, or -); --requires-grad marks the leaves to differentiate. "
              "-f FILE (- for stdin) runs a program instead (def, class, with torch.no_grad(), for, print... as "
              "`tensorcli eval -f` runs it); its last statement is the result; with --json what it prints goes "
              "to stderr.")

GRAD_EXAMPLES = (
    "tensorcli grad 'y = 2 * x ** 2' --let x='[1.0, 1.0, 1.0]' --requires-grad x --gradient ones",
    "tensorcli grad 'y = x * w; y.backward(gradient=torch.ones_like(y))' --let x='[1.0, 2.0]' "
    "--let w='[3.0, 4.0]' --requires-grad x,w",
    "tensorcli grad 'z = x * 2; o = z.sum()' --let x='[1.0, 2.0]' --requires-grad x --hook z --retain-grad z",
    "tensorcli grad 'y = x ** 2; o = y.sum()' --let x='[1.0]' --requires-grad x --backward-twice",
    "tensorcli grad 'y = x ** 2; z = y * 4; o1 = z.mean(); o2 = z.sum(); o1.backward(); o2.backward()' "
    "--let x='[[1.0, 2.0, 3.0, 4.0]]' --requires-grad x --steps",
)
GRAPH_EXAMPLES = (
    "tensorcli graph 'o = w.matmul(x + y)' --let x='[1.0, 2.0]' --let y='[0.5, 0.5]' "
    "--let w='[[1.0, 0.0], [0.0, 1.0]]' --requires-grad x,y,w",
    "tensorcli graph 'h = torch.tanh(x @ w); loss = (h ** 2).mean()' --let x=x.npy --let w=w.npy "
    "--requires-grad w --json",
)
MODES_EXAMPLES = (
    "tensorcli modes 'y = (x * w).sum()' --let x='[1.0, 2.0]' --let w='[0.5, 0.5]' --requires-grad w",
    "tensorcli modes 'y = torch.sigmoid(x @ w)' --let x='[[1.0, 2.0]]' --let w='[[0.1], [0.2]]' "
    "--requires-grad w --json",
    "tensorcli modes $'with torch.no_grad():\\n    y = x * 2\\nwith torch.inference_mode():\\n    z = x * 2\\n"
    "w = z * x' --let x='[1.0, 2.0, 3.0]' --requires-grad x",
)


def register(app) -> None:
    app.command(rich_help_panel="autograd", help=_help(
        "Evaluate EXPR, call backward, show every named tensor's .grad (hooks, retain_graph, custom "
        "Functions). An EXPR that calls .backward(...) itself is shown as it ran.", GRAD_EXAMPLES))(grad)
    app.command(rich_help_panel="autograd", help=_help(
        "The autograd graph of EXPR's result: nodes back to the leaves, with what each saved for backward.",
        GRAPH_EXAMPLES))(graph)
    app.command(rich_help_panel="autograd", help=_help(
        "Run EXPR under each grad mode (grad, no_grad, enable_grad inside no_grad, set_grad_enabled(False), "
        "inference_mode) and compare what the result carries.", MODES_EXAMPLES))(modes)
