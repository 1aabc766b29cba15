"""`tensorcli memory`: what autograd keeps alive under grad, no_grad, inference_mode and detach.

Runs a forward pass (optionally backward) of a model spec or an expression for some batches under
each mode and reports the graph (saved for backward), the kept results, and the traced peak.

    tensorcli memory --model 'Linear(1000,1000)' --input-shape 100,1000 --batches 5 --keep-outputs
    tensorcli memory --model 'Conv2d(3,16,3) -> ReLU() -> Flatten() -> Linear(14400,10)' --input-shape 8,3,32,32
    tensorcli memory 'torch.sigmoid(x @ w)' --let x='[[1.0,2.0]]' --let w=w.npy --requires-grad w

A model spec is a chain of ``core.nn`` layer calls joined by ``->`` (services/models.py: parsed,
never evaluated). The work is services/memory.py, the tables render/memory.py.

JSON output (``--json``): the keys are described in services/memory.py and docs/memory-json.md.
"""
from __future__ import annotations

from typing import Annotated, Optional

import typer

from tensorcli.commands.options import (DebugOpt, DtypeOpt, JsonOpt, LetOpt, MaxBytesOpt, NoColorOpt, ProgramFileOpt,
                                        QuietOpt, RequiresGradOpt, TimeoutOpt)

DEFAULT_MODES = "grad,no_grad,inference_mode"   # services.memory.DEFAULT_MODES (not imported: cheap module)


def register(app) -> None:
    @app.command(rich_help_panel="autograd")
    def memory(
        expr: Annotated[Optional[str], typer.Argument(
            metavar="EXPR", help="Expression to run per batch (with --let), instead of --model.")] = None,
        file: ProgramFileOpt = None,
        model: Annotated[Optional[str], typer.Option(
            "--model", metavar="SPEC", help="core.nn layers joined by '->', e.g. "
            "'Conv2d(3,16,3) -> ReLU() -> Flatten() -> Linear(14400,10)'. Literal arguments only.")] = None,
        input_shape: Annotated[Optional[str], typer.Option(
            "--input-shape", metavar="SHAPE", help="Shape of the seeded random input of each batch, e.g. 100,1000.")] = None,
        input_: Annotated[Optional[str], typer.Option(
            "--input", metavar="TENSOR", help="Model input used for every batch: JSON, .npy/.npz[:key]/.json, or -.")] = None,
        let: LetOpt = None,
        requires_grad: RequiresGradOpt = None,
        dtype: DtypeOpt = None,
        batches: Annotated[int, typer.Option("--batches", metavar="N", help="Forward passes per mode.")] = 1,
        modes: Annotated[str, typer.Option(
            "--modes", metavar="MODES", help="Comma-separated: grad, no_grad, inference_mode, detach "
            "(grad mode with results detached before they are kept).")] = DEFAULT_MODES,
        keep_outputs: Annotated[bool, typer.Option(
            "--keep-outputs", help="Keep every batch's result (a feature bank); default keeps only the last.")] = False,
        backward: Annotated[bool, typer.Option(
            "--backward", help="Run out.sum().backward() after each forward (when the result requires grad).")] = False,
        seed: Annotated[int, typer.Option("--seed", help="Seed of the model's parameters and of the inputs.")] = 0,
        timings: Annotated[bool, typer.Option(
            "--timings", help="Also show each mode's run time: the median over --repeats runs (modes "
                              "interleaved) with its min-max spread. Off by default: one run's time is noise.")] = False,
        repeats: Annotated[Optional[int], typer.Option(
            "--repeats", metavar="N", help="Runs per mode for --timings (default 5; implies --timings).")] = None,
        max_bytes: MaxBytesOpt = None,
        timeout: TimeoutOpt = None,
        json_: JsonOpt = False,
        debug: DebugOpt = False,
        no_color: NoColorOpt = False,
        quiet: QuietOpt = False,
    ):
        """What autograd keeps alive: graph, kept results and peak memory under grad, no_grad,
        inference_mode (and detach), for a model spec or an expression.

        Example (the no_grad memory comparison: Linear 1000x1000 over 5 batches of 100x1000):

          tensorcli memory --model 'Linear(1000,1000)' --input-shape 100,1000 \\
              --batches 5 --keep-outputs

        Run times are shown only with --timings (the median of --repeats runs, with min-max).
        """
        from functools import partial
        from tensorcli import io, render
        from tensorcli.render.memory import progress_bar, render as render_memory
        from tensorcli.services import memory as svc
        from contextlib import nullcontext
        from tensorcli.services.evaluate import program_source
        timings = timings or repeats is not None
        program = program_source(expr, file, json_output=json_) if file is not None else nullcontext(expr)
        with program as expr:   # a program file runs per batch as EXPR would; its errors name the file
            report, shape = svc.measure_command(
                model=model, expr=expr, input_shape=input_shape, input_=input_, let=let,
                requires_grad=requires_grad, dtype=dtype, batches=batches, modes=modes, keep_outputs=keep_outputs,
                backward=backward, seed=seed, max_bytes=max_bytes,
                progress_bar=partial(progress_bar, no_color=no_color),
                repeats=(5 if repeats is None else repeats) if timings else 1)
        if json_:
            typer.echo(io.dumps(svc.to_json(report, model=model, expr=expr, input_shape=shape, batches=batches,
                                        keep_outputs=keep_outputs, backward=backward, seed=seed)))
            return
        what = f"--model '{model}'" if model is not None else f"-f {file}" if file is not None else f"'{expr}'"
        render_memory(report, render.console(no_color), title=f"memory of {what}, {batches} batch"
                      f"{'es' if batches != 1 else ''}{', outputs kept' if keep_outputs else ''}"
                      f"{', with backward' if backward else ''}",
                      timings=report.timings if timings else None, parameter_bytes=report.parameter_bytes,
                      parameters_of="the model's parameters" if model is not None else "the --requires-grad tensors")
