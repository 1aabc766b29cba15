"""`tensorcli memory`: what autograd keeps alive under grad, no_grad, inference_mode and detach.

Runs a forward pass (optionally backward) of a model spec or an expression for some batches under
each mode and reports the graph (saved for backward), the kept results, and the traced peak.

    tensorcli memory --model 'Linear(1000,1000)' --input-shape 100,1000 --batches 5 --keep-outputs
    tensorcli memory --model 'Conv2d(3,16,3) -> ReLU() -> Flatten() -> Linear(14400,10)' --input-shape 8,3,32,32
    tensorcli memory 'torch.sigmoid(x @ w)' --let x='[[1.0,2.0]]' --let w=w.npy --requires-grad w

A model spec is a chain of ``core.nn`` layer calls joined by ``->``. It is parsed, never evaluated:
each layer is ``ast.parse``d, its name must be in ``LAYERS`` and its arguments literal ints, floats,
bools, None, short strings, or tuples/lists of those (a leading ``-`` allowed). Parameter sizes are
checked with ``core.creation.check_alloc`` and against ``MAX_MODEL_BYTES`` before anything is built.

JSON output (``--json``), stable keys; all byte counts are ints, times are seconds:

* ``schema``: ``"tensorcli.memory/1"``.
* ``source``: ``model`` (the spec or null), ``expr`` (the expression or null), ``input_shape``
  (list or null), ``batches``, ``keep_outputs``, ``backward``, ``seed``.
* ``modes``: one object per mode run, keyed by mode name (``grad``, ``no_grad``,
  ``inference_mode``, ``detach``), each with:
  ``mode``; ``batches``; ``keep_outputs``; ``backward`` (backward actually ran); ``graph_nodes``
  (op nodes reachable from the kept results); ``freed_nodes`` (of those, released by backward);
  ``saved_tensors`` (distinct buffers saved for backward); ``saved_bytes`` (their bytes, each buffer
  once; = ``graph_bytes + parameter_bytes + held_bytes``); ``graph_bytes`` (alive only because the
  graph saved them); ``parameter_bytes`` (saved parameters); ``held_bytes`` (saved tensors held
  elsewhere: inputs, buffers, results); ``result_bytes`` (distinct buffers of the kept results);
  ``retained_bytes`` (traced bytes still allocated after the run); ``peak_bytes`` (traced peak
  during the run, above its start); ``transient_bytes`` (``peak_bytes - retained_bytes``);
  ``wall_s``; ``per_layer`` (grad only: ``{layer: {type, nodes, saved_tensors, saved_bytes}}``,
  layers named as in ``model.named_modules()``, ``"(no module)"`` for ops outside layers);
  ``per_batch_bytes`` (traced bytes after each batch); ``note`` (e.g. why backward was skipped).
* ``ratios``: grad / no_grad for ``retained_bytes``, ``peak_bytes``, ``saved_bytes``, ``wall_s``
  (null when either mode was not run or the denominator is 0).

The same text is in docs/memory-json.md.
"""
from __future__ import annotations

import ast
import math
import re
from typing import Annotated, Optional

import typer

from tensorcli.commands import DebugOpt, JsonOpt, NoColorOpt
from tensorcli.commands.autograd import LetOpt, MaxBytesOpt, RequiresGradOpt
from tensorcli.errors import CliError

SCHEMA = "tensorcli.memory/1"
NO_MODULE = "(no module)"          # per_layer key of ops run outside any nn.Module
MODES = ("grad", "no_grad", "inference_mode", "detach")
DEFAULT_MODES = ("grad", "no_grad", "inference_mode")
MAX_SPEC_CHARS = 2000
MAX_LAYERS = 64
MAX_BATCHES = 10_000
MAX_MODEL_BYTES = 2 * 1024 ** 3      # parameters of the whole model
MAX_INPUT_BYTES = 1024 ** 3          # one input batch
MAX_RETAINED_BYTES = 8 * 1024 ** 3   # a run stops when more than this stays allocated
PROGRESS_MIN_BATCHES = 10

# layer name -> function(args, kwargs) returning the shapes of its parameters (for size checks)
def _linear(a, k):
    i, o = _arg(a, k, 0, "in_features"), _arg(a, k, 1, "out_features")
    return [(o, i), (o,)]


def _conv(nd):
    def shapes(a, k):
        i, o, ks = _arg(a, k, 0, "in_channels"), _arg(a, k, 1, "out_channels"), _arg(a, k, 2, "kernel_size")
        g = k.get("groups", 1)
        ks = tuple(ks) if isinstance(ks, (tuple, list)) else (ks,) * nd
        g = g if isinstance(g, int) and g > 0 else 1
        return [(o, i // g if isinstance(i, int) else i) + ks, (o,)]
    return shapes


def _features(a, k):
    n = _arg(a, k, 0, "num_features")
    return [(n,)] * 4


def _layernorm(a, k):
    n = _arg(a, k, 0, "normalized_shape")
    n = tuple(n) if isinstance(n, (tuple, list)) else (n,)
    return [n, n]


def _embedding(a, k):
    return [(_arg(a, k, 0, "num_embeddings"), _arg(a, k, 1, "embedding_dim"))]


def _none(a, k):
    return []


# The layers a spec may name (all in core.nn), with their parameter shapes for the size check.
LAYERS = {
    "Linear": _linear, "Conv2d": _conv(2), "BatchNorm1d": _features, "BatchNorm2d": _features,
    "LayerNorm": _layernorm, "Embedding": _embedding,
    "ReLU": _none, "LeakyReLU": _none, "GELU": _none, "Sigmoid": _none, "Tanh": _none, "Softmax": _none,
    "LogSoftmax": _none, "Dropout": _none, "Identity": _none, "Flatten": _none, "Unflatten": _none,
    "MaxPool2d": _none, "AvgPool2d": _none,
}


class SpecError(CliError):
    """A refused model spec or memory-command argument (one line on stderr, exit 2)."""


def _arg(args, kwargs, i, name):
    if i < len(args):
        return args[i]
    if name in kwargs:
        return kwargs[name]
    return 0


# -- model spec ---------------------------------------------------------------------------------

_STR_OK = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,31}$")


def _literal(node, where, depth=0):
    if isinstance(node, ast.Constant):
        v = node.value
        if v is None or isinstance(v, bool):
            return v
        if isinstance(v, int):
            if abs(v) > 2 ** 62:
                raise SpecError("--model", f"{where}: integer {v} is too large")
            return v
        if isinstance(v, float):
            if not math.isfinite(v):
                raise SpecError("--model", f"{where}: non-finite number")
            return v
        if isinstance(v, str) and _STR_OK.match(v):
            return v
        raise SpecError("--model", f"{where}: only int, float, bool, None and short identifier strings "
                                   f"are allowed, got {type(v).__name__} {str(v)[:30]!r}")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) \
            and isinstance(node.operand, ast.Constant) and type(node.operand.value) in (int, float):
        v = _literal(node.operand, where, depth)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, (ast.Tuple, ast.List)) and depth < 2:
        if len(node.elts) > 8:
            raise SpecError("--model", f"{where}: tuple of more than 8 elements")
        return tuple(_literal(e, where, depth + 1) for e in node.elts)
    raise SpecError("--model", f"{where}: arguments must be literals, not {type(node).__name__.lower()} "
                               f"'{_src(node)}'")


def _src(node):
    try:
        s = ast.unparse(node)
    except Exception:   # pragma: no cover
        s = type(node).__name__
    return s if len(s) <= 40 else s[:37] + "..."


def _layer_name(func, where):
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        raise SpecError("--model", f"{where}: expected a layer call like Linear(10, 5)")
    parts.append(func.id)
    parts.reverse()
    if len(parts) > 1 and parts[:-1] not in (["nn"], ["torch", "nn"], ["core", "nn"]):
        raise SpecError("--model", f"{where}: unknown layer '{'.'.join(parts)}'")
    return parts[-1]


def _split(spec):
    layers, depth, cur, i = [], 0, [], 0
    while i < len(spec):
        c = spec[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if depth == 0 and spec.startswith("->", i):
            layers.append("".join(cur))
            cur = []
            i += 2
            continue
        cur.append(c)
        i += 1
    layers.append("".join(cur))
    return layers


def parse_model_spec(spec: str) -> list:
    """'Linear(10,5) -> ReLU()' -> [('Linear', (10, 5), {}), ('ReLU', (), {})]. Never evaluates."""
    if not isinstance(spec, str) or not spec.strip():
        raise SpecError("--model", "empty model spec")
    if len(spec) > MAX_SPEC_CHARS:
        raise SpecError("--model", f"model spec longer than {MAX_SPEC_CHARS} characters")
    pieces = _split(spec)
    if len(pieces) > MAX_LAYERS:
        raise SpecError("--model", f"more than {MAX_LAYERS} layers")
    out = []
    for n, piece in enumerate(pieces, 1):
        text = piece.strip()
        where = f"layer {n} '{text[:40]}'"
        if not text:
            raise SpecError("--model", f"layer {n} is empty")
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError:
            raise SpecError("--model", f"{where}: not a layer call") from None
        call = tree.body
        if isinstance(call, (ast.Name, ast.Attribute)):
            call = ast.Call(func=call, args=[], keywords=[])     # 'ReLU' means 'ReLU()'
        if not isinstance(call, ast.Call):
            raise SpecError("--model", f"{where}: expected a layer call like Linear(10, 5)")
        name = _layer_name(call.func, where)
        if name not in LAYERS:
            raise SpecError("--model", f"{where}: unknown layer '{name}' (known: {', '.join(sorted(LAYERS))})")
        args = tuple(_literal(a, where) for a in call.args)
        kwargs = {}
        for kw in call.keywords:
            if kw.arg is None:
                raise SpecError("--model", f"{where}: '**' arguments are not allowed")
            if kw.arg.startswith("_"):
                raise SpecError("--model", f"{where}: keyword '{kw.arg}' is not allowed")
            kwargs[kw.arg] = _literal(kw.value, where)
        out.append((name, args, kwargs))
    return out


def check_model_size(layers: list) -> int:
    """Refuse (SpecError) before building when a parameter, or the whole model, is too large."""
    import core
    total = 0
    for n, (name, args, kwargs) in enumerate(layers, 1):
        try:
            shapes = LAYERS[name](args, kwargs)
        except Exception:
            shapes = []
        for shape in shapes:
            if not all(isinstance(s, int) and not isinstance(s, bool) for s in shape):
                continue   # the layer's constructor reports bad argument types itself
            try:
                total += core.creation.check_alloc(shape, core.float32) * 4
            except RuntimeError as e:
                raise SpecError("--model", f"layer {n} {name}: {str(e).splitlines()[0]}") from None
    if total > MAX_MODEL_BYTES:
        raise SpecError("--model", f"model parameters need {total} bytes, more than the limit of "
                                   f"{MAX_MODEL_BYTES} bytes")
    return total


def build_model(spec: str, seed: int = 0):
    """Parse, size-check and build the spec as ``core.nn.Sequential`` (seeded initialisation)."""
    import core
    layers = parse_model_spec(spec)
    check_model_size(layers)
    nn = core.nn
    mods = []
    core.manual_seed(seed)
    for n, (name, args, kwargs) in enumerate(layers, 1):
        cls = getattr(nn, name, None)
        if cls is None:
            raise SpecError("--model", f"layer {n}: core.nn has no layer '{name}'")
        try:
            mods.append(cls(*args, **kwargs))
        except (TypeError, ValueError, RuntimeError) as e:
            raise SpecError("--model", f"layer {n} {name}: {str(e).splitlines()[0] if str(e) else type(e).__name__}") \
                from None
    return nn.Sequential(*mods)


def parse_shape(text: str) -> tuple:
    """'100,1000' -> (100, 1000), refused when negative or larger than MAX_INPUT_BYTES."""
    try:
        shape = tuple(int(s) for s in str(text).replace("x", ",").split(",") if s.strip() != "")
    except ValueError:
        raise SpecError("--input-shape", f"expected comma-separated integers like 100,1000, got '{text}'") \
            from None
    if not shape:
        raise SpecError("--input-shape", "empty shape")
    if any(s < 0 for s in shape):
        raise SpecError("--input-shape", f"negative dimension in {list(shape)}")
    import core
    try:
        n = core.creation.check_alloc(shape, core.float32)
    except RuntimeError as e:
        raise SpecError("--input-shape", str(e).splitlines()[0]) from None
    if n * 4 > MAX_INPUT_BYTES:
        raise SpecError("--input-shape", f"input of shape {list(shape)} needs {n * 4} bytes, more than the "
                                         f"limit of {MAX_INPUT_BYTES} bytes")
    return shape


def parse_modes(text) -> tuple:
    if text is None:
        return DEFAULT_MODES
    items = [m.strip() for m in (text.split(",") if isinstance(text, str) else text) if m.strip()]
    for m in items:
        if m not in MODES:
            raise SpecError("--modes", f"unknown mode '{m}' (choose from {', '.join(MODES)})")
    if not items:
        raise SpecError("--modes", "no mode given")
    return tuple(dict.fromkeys(items))


# -- running ----------------------------------------------------------------------------------

def run_model(spec: str, *, input_shape=None, input_tensor=None, batches: int = 1, modes=DEFAULT_MODES,
              keep_outputs: bool = False, backward: bool = False, seed: int = 0, progress=None):
    """Measure a model spec under each mode. Inputs: a fresh ``randn(input_shape)`` per batch,
    seeded with ``seed + 1 + batch`` (dropped by the runner after the batch, so under grad only
    the graph keeps it), or the same ``input_tensor`` every batch (held by the runner; it counts
    as held). Each mode starts from the same seeded
    model (BatchNorm's running statistics and gradients do not leak from one mode into the next).
    ``progress(mode, batches_done)`` is called after each batch. Returns a
    ``core.memory.MemoryReport``."""
    import core
    from core import memory
    from tensorcli.errors import USER_EXCEPTIONS
    _check_batches(batches)
    modes = parse_modes(modes)
    if input_tensor is None and input_shape is None:
        raise SpecError("--input-shape", "give --input-shape or --input with --model")
    if input_tensor is None:
        input_shape = parse_shape(",".join(map(str, input_shape))) if not isinstance(input_shape, str) \
            else parse_shape(input_shape)
    reports = {}
    for mode in modes:
        model = build_model(spec, seed)

        def inputs(i):
            if input_tensor is not None:
                return input_tensor
            return core.randn(*input_shape, generator=core.Generator().manual_seed(seed + 1 + i))

        try:
            reports[mode] = memory.measure(model, mode=mode, batches=batches, inputs=inputs,
                                           keep_outputs=keep_outputs, backward=backward, module=model,
                                           held=[input_tensor] if input_tensor is not None else (),
                                           progress=_progress_cb(progress, mode), warmup=1,
                                           max_retained=MAX_RETAINED_BYTES)
        except RecursionError:
            raise SpecError("--model", f"{mode}: model nested too deeply") from None
        except USER_EXCEPTIONS as e:
            raise SpecError("--model", f"{mode}: {type(e).__name__}: {_first_line(e)}") from None
    return _with_ratios(reports)


def run_expr(source: str, names: dict, *, batches: int = 1, modes=DEFAULT_MODES, keep_outputs=False,
             backward=False, progress=None, max_bytes: int | None = None):
    """Measure an expression (tensorcli.expr, with the built-in example Functions) evaluated once
    per batch under each mode; ``names`` are its bound tensors (held by the caller)."""
    from core import memory
    from tensorcli.commands.autograd import DEFAULT_MAX_BYTES, parse_program, run_expression
    from tensorcli.errors import USER_EXCEPTIONS
    _check_batches(batches)
    modes = parse_modes(modes)
    limit = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    program = parse_program(source, limit)
    reports = {}

    def fn():
        return run_expression(source, names, limit, program=program)[0]

    for mode in modes:
        try:
            reports[mode] = memory.measure(fn, mode=mode, batches=batches, keep_outputs=keep_outputs,
                                           backward=backward, held=list(names.values()),
                                           progress=_progress_cb(progress, mode), warmup=1,
                                           max_retained=MAX_RETAINED_BYTES)
        except CliError:
            raise
        except RecursionError:
            raise SpecError("EXPR", f"{mode}: expression nested too deeply") from None
        except USER_EXCEPTIONS as e:
            raise SpecError("EXPR", f"{mode}: {type(e).__name__}: {_first_line(e)}") from None
    return _with_ratios(reports)


def _first_line(e):
    s = str(e)
    return s.splitlines()[0] if s else type(e).__name__


def _check_batches(batches):
    if not isinstance(batches, int) or batches < 1 or batches > MAX_BATCHES:
        raise SpecError("--batches", f"batches must be between 1 and {MAX_BATCHES}, got {batches}")


def _progress_cb(progress, mode):
    if progress is None:
        return None
    return lambda done: progress(mode, done)


def _with_ratios(reports):
    from core import memory
    ratios = {}
    g, n = reports.get("grad"), reports.get("no_grad")
    for k in ("retained_bytes", "peak_bytes", "saved_bytes", "wall_s"):
        ratios[k] = memory._ratio(getattr(g, k), getattr(n, k)) if g is not None and n is not None else None
    return memory.MemoryReport(reports, ratios)


def to_json(report, *, model=None, expr=None, input_shape=None, batches=1, keep_outputs=False,
            backward=False, seed=0) -> dict:
    """The documented ``--json`` object (see module docstring)."""
    d = report.to_dict()
    return {"schema": SCHEMA,
            "source": {"model": model, "expr": expr, "input_shape": list(input_shape) if input_shape else None,
                       "batches": batches, "keep_outputs": keep_outputs, "backward": backward, "seed": seed},
            "modes": d["modes"], "ratios": d["ratios"]}


# -- rendering ---------------------------------------------------------------------------------

def _fmt_ratio(r):
    if r is None:
        return "n/a"
    return f"{r:.2f}x"


def render(report, console, *, title="memory") -> None:
    """Rich tables: per mode, ratio, per-layer breakdown under grad, bytes bar chart."""
    from rich import box
    from rich.table import Table
    from rich.text import Text
    from core.memory import format_bytes as fb

    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for col, just in (("mode", "left"), ("graph\nnodes", "right"), ("saved\ntensors", "right"),
                      ("saved for\nbackward", "right"), ("kept\nresults", "right"), ("peak\ntraced", "right"),
                      ("wall\ntime", "right")):
        t.add_column(col, justify=just, no_wrap=True)
    for m, r in report.modes.items():
        t.add_row(m, str(r.graph_nodes), str(r.saved_tensors), fb(r.saved_bytes), fb(r.result_bytes),
                  fb(r.peak_bytes), f"{r.wall_s * 1000:.1f} ms")
    console.print(t)
    for m, r in report.modes.items():
        if r.saved_bytes:
            console.print(f"{m}: saved {fb(r.graph_bytes)} only for the graph, {fb(r.parameter_bytes)} "
                          f"parameters, {fb(r.held_bytes)} held elsewhere")
        if r.freed_nodes:
            console.print(f"{m}: backward freed the saved tensors of {r.freed_nodes} node"
                          f"{'s' if r.freed_nodes != 1 else ''}")
    ratios = report.ratios
    if "grad" in report.modes and "no_grad" in report.modes:
        console.print(f"grad / no_grad: retained {_fmt_ratio(ratios.get('retained_bytes'))}, "
                      f"peak {_fmt_ratio(ratios.get('peak_bytes'))}, wall {_fmt_ratio(ratios.get('wall_s'))}")
    for m, r in report.modes.items():
        if r.note:
            console.print(Text(f"{m}: {r.note}", style="yellow"))

    g = report.modes.get("grad")
    if g is not None and g.per_layer and list(g.per_layer) != [NO_MODULE]:
        title = "saved for backward per layer (grad)"
        if g.backward:
            title += ": all freed by backward"
        lt = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD,
                   pad_edge=False)
        for col, just in (("layer", "left"), ("type", "left"), ("nodes", "right"), ("saved tensors", "right"),
                          ("saved bytes", "right")):
            lt.add_column(col, justify=just)
        for name, d in g.per_layer.items():
            lt.add_row(name, d.get("type", ""), str(d["nodes"]), str(d["saved_tensors"]), fb(d["saved_bytes"]))
        console.print(lt)

    # bar chart: retained (graph + results + grads) and peak per mode
    top = max([max(r.peak_bytes, r.retained_bytes, r.saved_bytes + r.result_bytes)
               for r in report.modes.values()] + [1])
    width = 40
    chart = Table.grid(padding=(0, 1))
    chart.add_column()
    chart.add_column()
    chart.add_column(justify="right")
    for m, r in report.modes.items():
        for label, v, style in (("saved", r.saved_bytes, "red"), ("results", r.result_bytes, "green"),
                                ("peak", r.peak_bytes, "blue")):
            n = int(round(width * v / top))
            bar = Text("█" * n + ("▏" if n == 0 and v else ""), style=style)
            chart.add_row(f"{m} {label}", bar, fb(v))
    console.print(Text("bytes per mode", style="bold"))
    console.print(chart)


# -- the command ---------------------------------------------------------------------------------

def _progress_bar(total_batches: int, modes, no_color: bool):
    """A Rich progress bar on stderr (one task per mode), or None for short runs."""
    if total_batches * len(modes) < PROGRESS_MIN_BATCHES:
        return None, None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from tensorcli import render
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=render.console(no_color, stderr=True), transient=True)
    tasks = {m: bar.add_task(m, total=total_batches, start=False) for m in modes}

    def update(mode, done):
        if done == 1:
            bar.start_task(tasks[mode])
        bar.update(tasks[mode], completed=done)
    return bar, update


def register(app) -> None:
    @app.command(rich_help_panel="autograd")
    def memory(
        expr: Annotated[Optional[str], typer.Argument(
            metavar="EXPR", help="Expression to run per batch (with --let), instead of --model.")] = None,
        model: Annotated[Optional[str], typer.Option(
            "--model", metavar="SPEC", help="core.nn layers joined by '->', e.g. "
            "'Conv2d(3,16,3) -> ReLU() -> Flatten() -> Linear(14400,10)'. Literal arguments only.")] = None,
        input_shape: Annotated[Optional[str], typer.Option(
            "--input-shape", metavar="SHAPE", help="Shape of the seeded random input of each batch, e.g. 100,1000.")] = None,
        input_: Annotated[Optional[str], typer.Option(
            "--input", metavar="TENSOR", help="Model input used for every batch: JSON, .npy/.npz[:key]/.json, or -.")] = None,
        let: LetOpt = None,
        requires_grad: RequiresGradOpt = None,
        dtype: Annotated[Optional[str], typer.Option(
            "--dtype", metavar="DTYPE", help="Cast --input or every --let tensor to this dtype first "
            "(float32, float64, ...).")] = None,
        batches: Annotated[int, typer.Option("--batches", metavar="N", help="Forward passes per mode.")] = 1,
        modes: Annotated[str, typer.Option(
            "--modes", metavar="MODES", help="Comma-separated: grad, no_grad, inference_mode, detach "
            "(grad mode with results detached before they are kept).")] = ",".join(DEFAULT_MODES),
        keep_outputs: Annotated[bool, typer.Option(
            "--keep-outputs", help="Keep every batch's result (a feature bank); default keeps only the last.")] = False,
        backward: Annotated[bool, typer.Option(
            "--backward", help="Run out.sum().backward() after each forward (when the result requires grad).")] = False,
        seed: Annotated[int, typer.Option("--seed", help="Seed of the model's parameters and of the inputs.")] = 0,
        max_bytes: MaxBytesOpt = "2GiB",
        json_: JsonOpt = False,
        debug: DebugOpt = False,
        no_color: NoColorOpt = False,
    ):
        """What autograd keeps alive: graph, kept results and peak memory under grad, no_grad,
        inference_mode (and detach), for a model spec or an expression.

        Example (the no_grad memory comparison: Linear 1000x1000 over 5 batches of 100x1000):

          tensorcli memory --model 'Linear(1000,1000)' --input-shape 100,1000 --batches 5 --keep-outputs
        """
        from tensorcli import io
        from tensorcli.commands.autograd import allocation_limit, load_lets, mark_requires_grad, parse_max_bytes, \
            split_names
        mode_list = parse_modes(modes)
        _check_batches(batches)
        limit = parse_max_bytes(max_bytes)
        if (model is None) == (expr is None):
            raise SpecError("--model", "give either --model SPEC or an EXPR (not both)"
                            if model is not None else "give --model SPEC or an EXPR to run")
        shape = None
        with allocation_limit(limit):
            if model is not None:
                for opt, v in (("--let", let), ("--requires-grad", requires_grad)):
                    if v:
                        raise SpecError(opt, "only for an EXPR, not with --model")
                if (input_shape is None) == (input_ is None):
                    raise SpecError("--input-shape", "give exactly one of --input-shape or --input with --model")
                x = None
                if input_ is not None:
                    x = io.load_tensor(input_, arg="--input", dtype=io.parse_dtype(dtype), stdin_used=[])
                else:
                    shape = parse_shape(input_shape)
                    if 4 * _numel(shape) > limit:
                        raise SpecError("--input-shape", f"input of shape {list(shape)} needs {4 * _numel(shape)} "
                                                         f"bytes, more than --max-bytes {limit}")
                bar, update = _progress_bar(batches, mode_list, no_color)
                with bar if bar is not None else _null():
                    report = run_model(model, input_shape=shape, input_tensor=x, batches=batches, modes=mode_list,
                                       keep_outputs=keep_outputs, backward=backward, seed=seed, progress=update)
            else:
                if input_shape is not None or input_ is not None:
                    raise SpecError("--input-shape" if input_shape is not None else "--input",
                                    "only with --model (bind expression inputs with --let)")
                names = load_lets(let, io.parse_dtype(dtype), [])
                mark_requires_grad(names, split_names("--requires-grad", requires_grad))
                bar, update = _progress_bar(batches, mode_list, no_color)
                with bar if bar is not None else _null():
                    report = run_expr(expr, names, batches=batches, modes=mode_list, keep_outputs=keep_outputs,
                                      backward=backward, progress=update, max_bytes=limit)
        if json_:
            typer.echo(io.dumps(to_json(report, model=model, expr=expr, input_shape=shape, batches=batches,
                                        keep_outputs=keep_outputs, backward=backward, seed=seed)))
            return
        what = f"--model '{model}'" if model is not None else f"'{expr}'"
        render(report, render_console(no_color), title=f"memory of {what}, {batches} batch"
               f"{'es' if batches != 1 else ''}{', outputs kept' if keep_outputs else ''}"
               f"{', with backward' if backward else ''}")


def render_console(no_color):
    from tensorcli import render as _render
    return _render.console(no_color)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
