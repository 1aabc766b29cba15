"""`tensorcli memory`: what autograd keeps alive under grad, no_grad, inference_mode and detach.

Runs a forward pass (optionally backward) of a model spec or an expression for some batches under
each mode and reports the graph (saved for backward), the kept results, and the traced peak.

    tensorcli memory --model 'Linear(1000,1000)' --input-shape 100,1000 --batches 5 --keep-outputs
    tensorcli memory --model 'Conv2d(3,16,3) -> ReLU() -> Flatten() -> Linear(14400,10)' --input-shape 8,3,32,32
    tensorcli memory 'torch.sigmoid(x @ w)' --let x='[[1.0,2.0]]' --let w=w.npy --requires-grad w

A model spec is a chain of ``core.nn`` layer calls joined by ``->`` (services/models.py: parsed,
never evaluated). No Typer, no Rich: commands/memory.py parses options, render/memory.py draws.

JSON output (``--json``), stable keys; all byte counts are ints, times are seconds:

* ``schema``: ``"tensorcli.memory/2"``; ``command``: ``"memory"`` (docs/json.md).
* ``source``: ``model`` (the spec or null), ``expr`` (the expression or null), ``input_shape``
  (list or null), ``batches``, ``keep_outputs``, ``backward``, ``seed``, ``parameter_bytes`` (the
  model's parameters, each buffer once; for an EXPR the --requires-grad tensors).
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
  ``wall_s`` (median over ``--repeats`` runs, the modes interleaved); ``timing`` (``repeats``,
  ``median_s``, ``min_s``, ``max_s``: the spread of ``wall_s``; one repeat without ``--timings``); ``per_layer`` (grad only: ``{layer: {type, nodes, saved_tensors, saved_bytes}}``,
  layers named as in ``model.named_modules()``, ``"(no module)"`` for ops outside layers);
  ``per_batch_bytes`` (traced bytes after each batch); ``note`` (e.g. why backward was skipped).
* ``ratios``: grad / no_grad for ``retained_bytes``, ``peak_bytes``, ``saved_bytes``, ``wall_s``
  (null when either mode was not run or the denominator is 0).

The same text is in docs/memory-json.md.
"""
from __future__ import annotations

import core
from core import memory

from .. import io
from ..errors import USER_EXCEPTIONS, CliError
from . import autograd as ag
from .models import SpecError, build_model

SCHEMA = "tensorcli.memory/2"
NO_MODULE = "(no module)"          # per_layer key of ops run outside any nn.Module
MODES = ("grad", "no_grad", "inference_mode", "detach")
DEFAULT_MODES = ("grad", "no_grad", "inference_mode")
MAX_BATCHES = 10_000
MAX_INPUT_BYTES = 1024 ** 3          # one input batch
MAX_RETAINED_BYTES = 8 * 1024 ** 3   # a run stops when more than this stays allocated
PROGRESS_MIN_BATCHES = 10


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
              keep_outputs: bool = False, backward: bool = False, seed: int = 0, progress=None, repeats: int = 1,
              dtype=None):
    """Measure a model spec under each mode. Inputs: a fresh ``randn(input_shape)`` per batch,
    seeded with ``seed + 1 + batch`` (dropped by the runner after the batch, so under grad only
    the graph keeps it), or the same ``input_tensor`` every batch (held by the runner; it counts
    as held). Each mode starts from the same seeded
    model (BatchNorm's running statistics and gradients do not leak from one mode into the next).
    ``progress(mode, batches_done)`` is called after each batch. ``repeats``: see `_repeated`. ``dtype``: the
    parameters and the random inputs in that dtype (default float32).
    Returns a ``core.memory.MemoryReport``."""
    _check_batches(batches)
    modes = parse_modes(modes)
    if input_tensor is None and input_shape is None:
        raise SpecError("--input-shape", "give --input-shape or --input with --model")
    if input_tensor is None:
        input_shape = parse_shape(",".join(map(str, input_shape))) if not isinstance(input_shape, str) \
            else parse_shape(input_shape)
    def inputs(i):
        if input_tensor is not None:
            return input_tensor
        return core.randn(*input_shape, generator=core.Generator().manual_seed(seed + 1 + i),
                          **({"dtype": dtype} if dtype is not None else {}))

    def one(mode, rep):
        model = build_model(spec, seed)
        if dtype is not None:   # --dtype: the parameters and the random inputs in that dtype
            model = model.to(dtype)
        try:
            return memory.measure(model, mode=mode, batches=batches, inputs=inputs,
                                  keep_outputs=keep_outputs, backward=backward, module=model,
                                  held=[input_tensor] if input_tensor is not None else (),
                                  progress=_progress_cb(progress, mode) if rep == 0 else None, warmup=1,
                                  max_retained=MAX_RETAINED_BYTES)
        except RecursionError:
            raise SpecError("--model", f"{mode}: model nested too deeply") from None
        except USER_EXCEPTIONS as e:
            raise SpecError("--model", f"{mode}: {type(e).__name__}: {_first_line(e)}") from None
    return _repeated(one, modes, repeats)


def run_expr(source: str, names: dict, *, batches: int = 1, modes=DEFAULT_MODES, keep_outputs=False,
             backward=False, progress=None, max_bytes: int | None = None, repeats: int = 1):
    """Measure an expression (services/expr.py, with the built-in example Functions) evaluated once
    per batch under each mode; ``names`` are its bound tensors (held by the caller)."""
    _check_batches(batches)
    modes = parse_modes(modes)
    limit = ag.DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    program = ag.parse_program(source, limit)
    def fn():
        return ag.run_expression(source, names, limit, program=program)[0]

    def one(mode, rep):
        try:
            return memory.measure(fn, mode=mode, batches=batches, keep_outputs=keep_outputs,
                                  backward=backward, held=list(names.values()),
                                  progress=_progress_cb(progress, mode) if rep == 0 else None, warmup=1,
                                  max_retained=MAX_RETAINED_BYTES)
        except CliError:
            raise
        except RecursionError:
            raise SpecError("EXPR", f"{mode}: expression nested too deeply") from None
        except USER_EXCEPTIONS as e:
            raise SpecError("EXPR", f"{mode}: {type(e).__name__}: {_first_line(e)}") from None
    return _repeated(one, modes, repeats)


MAX_REPEATS = 1000


def _repeated(one, modes, repeats):
    """Run ``one(mode, repeat)`` for every mode, ``repeats`` times, the modes interleaved (grad,
    no_grad, ..., grad, no_grad, ...) so that a slow moment of the machine hits every mode alike.
    The byte figures are the first run's (they do not depend on the repeat); each mode's
    ``wall_s`` is the median over the repeats, its spread in ``timings`` (see `timing`)."""
    if not isinstance(repeats, int) or not 1 <= repeats <= MAX_REPEATS:
        raise SpecError("--repeats", f"must be between 1 and {MAX_REPEATS}, got {repeats}")
    import dataclasses
    firsts, walls = {}, {m: [] for m in modes}
    for rep in range(repeats):
        for mode in modes:
            r = one(mode, rep)
            firsts.setdefault(mode, r)
            walls[mode].append(r.wall_s)
    reports = {m: dataclasses.replace(firsts[m], wall_s=timing(walls[m])["median_s"]) for m in modes}
    report = _with_ratios(reports)
    report.timings = {m: timing(walls[m]) for m in modes}
    return report


def timing(samples) -> dict:
    """Median and spread (min, max) of a mode's run times in seconds, over its repeats."""
    xs = sorted(samples)
    n = len(xs)
    median = xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
    return {"repeats": n, "median_s": median, "min_s": xs[0], "max_s": xs[-1]}


def parameter_bytes(model) -> int:
    """Bytes of a model's parameters, each buffer once (Linear(1000,1000): 1,001,000 float32 values,
    4,004,000 bytes): what the model weighs before anything runs, in every mode."""
    seen, total = set(), 0
    for p in model.parameters():
        owner = memory.buffer_owner(p._data)
        if id(owner) not in seen:
            seen.add(id(owner))
            total += int(owner.nbytes)
    return total


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
    ratios = {}
    g, n = reports.get("grad"), reports.get("no_grad")
    for k in ("retained_bytes", "peak_bytes", "saved_bytes", "wall_s"):
        ratios[k] = memory._ratio(getattr(g, k), getattr(n, k)) if g is not None and n is not None else None
    return memory.MemoryReport(reports, ratios)


def to_json(report, *, model=None, expr=None, input_shape=None, batches=1, keep_outputs=False,
            backward=False, seed=0) -> dict:
    """The documented ``--json`` object (see module docstring)."""
    from . import vocab
    d = vocab.normalize(report.to_dict(), {"nodes": "graph_nodes"})   # per_layer counts, as everywhere
    for mode, t in (getattr(report, "timings", None) or {}).items():
        d["modes"][mode]["timing"] = dict(t)
    return vocab.envelope("memory", {
        "source": {"model": model, "expr": expr, "input_shape": list(input_shape) if input_shape else None,
                   "batches": batches, "keep_outputs": keep_outputs, "backward": backward, "seed": seed,
                   "parameter_bytes": getattr(report, "parameter_bytes", 0)},
        "modes": d["modes"], "ratios": d["ratios"]})


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def measure_command(*, model, expr, input_shape, input_, let, requires_grad, dtype, batches, modes, keep_outputs,
                    backward, seed, max_bytes, progress_bar, repeats=1):
    """What `tensorcli memory` runs, from its raw options: (report, input shape or None).
    ``progress_bar(batches, modes)`` returns (a context manager, a progress callback)."""
    mode_list = parse_modes(modes)
    _check_batches(batches)
    limit = ag.parse_max_bytes(max_bytes)
    if (model is None) == (expr is None):
        raise SpecError("--model", "give either --model SPEC or an EXPR (not both)"
                        if model is not None else "give --model SPEC or an EXPR to run")
    shape = None
    with ag.allocation_limit(limit):
        if model is None:
            if input_shape is not None or input_ is not None:
                raise SpecError("--input-shape" if input_shape is not None else "--input",
                                "only with --model (bind expression inputs with --let)")
            names = ag.load_lets(let, io.parse_dtype(dtype), [])
            ag.mark_requires_grad(names, ag.split_names("--requires-grad", requires_grad))
            bar, update = progress_bar(batches, mode_list)
            with bar:
                report = run_expr(expr, names, batches=batches, modes=mode_list, keep_outputs=keep_outputs,
                                  backward=backward, progress=update, max_bytes=limit, repeats=repeats)
            report.parameter_bytes = sum(int(t._data.nbytes) for t in names.values() if t.requires_grad)
            return report, shape
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
        bar, update = progress_bar(batches, mode_list)
        with bar:
            report = run_model(model, input_shape=shape, input_tensor=x, batches=batches, modes=mode_list,
                               keep_outputs=keep_outputs, backward=backward, seed=seed, progress=update,
                               repeats=repeats, dtype=io.parse_dtype(dtype) if dtype else None)
        weights = build_model(model, seed)
        report.parameter_bytes = parameter_bytes(weights.to(io.parse_dtype(dtype)) if dtype else weights)
    return report, shape
