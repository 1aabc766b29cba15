"""Rich views of `tensorcli memory`: the per-mode table, per-layer breakdown, byte bars, progress."""
from __future__ import annotations

import os
from contextlib import nullcontext

from core.memory import format_bytes as fb
from rich import box
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from . import console as make_console, safe
from .fit import print_fitted
from ..services.memory import NO_MODULE, PROGRESS_MIN_BATCHES


COLUMNS = ("graph nodes: autograd nodes the run recorded; saved tensors / saved for backward: the distinct "
           "tensors (by storage) the graph keeps for backward, and their bytes; kept results: bytes of the "
           "outputs still referenced; peak traced: the highest memory tracemalloc saw allocated during the "
           "run (NumPy buffers and Python objects); wall time: the whole run, measured once.")


def _fmt_ratio(r):
    if r is None:
        return "n/a"
    return f"{r:.2f}x"


# What each column of the table means, printed under it (the words a reader needs, once).
LEGEND = ("graph nodes: autograd nodes reachable from the kept results. saved tensors: distinct buffers the "
          "graph keeps for backward; saved for backward: their bytes. kept results: bytes of the results "
          "the loop keeps. peak traced: the most bytes allocated at once during the run, above what was "
          "allocated before it (tracemalloc, NumPy's buffers included).")


def _ms(s):
    return f"{s * 1000:.0f}" if s >= 0.1 else f"{s * 1000:.2f}"


def render(report, console, *, title="memory", timings=None, parameter_bytes=None,
           parameters_of="the model's parameters") -> None:
    """Rich tables: per mode, ratio, per-layer breakdown under grad, bytes bar chart. `timings`
    ({mode: {repeats, median_s, min_s, max_s}}) adds the time column; without it no time is shown."""

    t = Table(title=safe.text(title), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    cols = [("mode", "left"), ("graph\nnodes", "right"), ("saved\ntensors", "right"),
            ("saved for\nbackward", "right"), ("kept\nresults", "right"), ("peak\ntraced", "right")]
    for col, just in cols:
        t.add_column(col, justify=just, no_wrap=True)
    for m, r in report.modes.items():
        t.add_row(safe.text(m), str(r.graph_nodes), str(r.saved_tensors), fb(r.saved_bytes), fb(r.result_bytes),
                  fb(r.peak_bytes))
    print_fitted(console, t)
    if timings:
        n = next(iter(timings.values()))["repeats"]
        console.print(Text(f"run time, median of {n} runs per mode (modes interleaved), fastest-slowest:"))
        for m, tm in timings.items():
            console.print(safe.text(f"  {m}: {_ms(tm['median_s'])} ms ({_ms(tm['min_s'])}-{_ms(tm['max_s'])})"))
    if parameter_bytes is not None:
        console.print(Text(f"parameters: {fb(parameter_bytes)} ({parameters_of}, allocated before the run "
                           f"and in every mode; not in the figures above unless saved for backward)"))
    console.print(Text(LEGEND, style="dim"))
    for m, r in report.modes.items():
        if r.saved_bytes:
            console.print(safe.text(f"{m}: saved {fb(r.graph_bytes)} only for the graph, {fb(r.parameter_bytes)} "
                                    f"parameters, {fb(r.held_bytes)} held elsewhere"))
        if r.freed_nodes:
            console.print(safe.text(f"{m}: backward freed the saved tensors of {r.freed_nodes} node"
                                    f"{'s' if r.freed_nodes != 1 else ''}"))
    ratios = report.ratios
    if "grad" in report.modes and "no_grad" in report.modes:
        console.print(safe.text(f"grad / no_grad: retained {_fmt_ratio(ratios.get('retained_bytes'))}, "
                                f"peak {_fmt_ratio(ratios.get('peak_bytes'))}"
                                + (f", time (medians) {_fmt_ratio(ratios.get('wall_s'))}" if timings else "")))
    for m, r in report.modes.items():
        if r.note:
            console.print(safe.text(f"{m}: {r.note}", style="yellow"))

    g = report.modes.get("grad")
    if g is not None and g.per_layer and list(g.per_layer) != [NO_MODULE]:
        title = "saved for backward per layer (grad)"
        if g.backward:
            title += ": all freed by backward"
        lt = Table(title=safe.text(title), title_justify="left", box=box.SIMPLE_HEAD,
                   pad_edge=False)
        for col, just in (("layer", "left"), ("type", "left"), ("nodes", "right"), ("saved tensors", "right"),
                          ("saved bytes", "right")):
            lt.add_column(col, justify=just)
        for name, d in g.per_layer.items():
            lt.add_row(safe.text(name), safe.text(d.get("type", "")), str(d["nodes"]), str(d["saved_tensors"]), fb(d["saved_bytes"]))
        print_fitted(console, lt)

    # bar chart: retained (graph + results + grads) and peak per mode
    top = max([max(r.peak_bytes, r.retained_bytes, r.saved_bytes + r.result_bytes)
               for r in report.modes.values()] + [1])
    label_w = max(len(f"{m} results") for m in report.modes) + 1
    width = max(8, min(40, console.width - label_w - 12))   # the bar shrinks with the terminal
    chart = Table.grid(padding=(0, 1))
    chart.add_column()
    chart.add_column()
    chart.add_column(justify="right")
    for m, r in report.modes.items():
        for label, v, style in (("saved", r.saved_bytes, "red"), ("results", r.result_bytes, "green"),
                                ("peak", r.peak_bytes, "blue")):
            n = int(round(width * v / top))
            bar = Text("█" * n + ("▏" if n == 0 and v else ""), style=style)
            chart.add_row(safe.text(f"{m} {label}"), bar, fb(v))
    console.print(Text("bytes per mode", style="bold"))
    console.print(chart)


def progress_bar(total_batches: int, modes, no_color: bool):
    """(A Rich progress bar on stderr with one task per mode, its update callback); for short runs
    (nullcontext(), None); also with -q/--quiet (TENSORCLI_QUIET)."""
    quiet = os.environ.get("TENSORCLI_QUIET", "") not in ("", "0")
    if quiet or total_batches * len(modes) < PROGRESS_MIN_BATCHES:
        return nullcontext(), None
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=make_console(no_color, stderr=True), transient=True)
    tasks = {m: bar.add_task(m, total=total_batches, start=False) for m in modes}

    def update(mode, done):
        if done == 1:
            bar.start_task(tasks[mode])
        bar.update(tasks[mode], completed=done)
    return bar, update
