"""The console view of ``tensorcli check``: one line per case, the failures with their diffs, totals."""
from __future__ import annotations

from rich.text import Text

from ..services.checks import CaseResult, Report
from . import safe

_STYLE = {"passed": ("PASS", "green"), "failed": ("FAIL", "bold red"), "error": ("ERROR", "bold red"),
          "skipped": ("SKIP", "yellow")}


def _fmt_dur(s):
    return f"{s * 1000:.1f} ms" if s < 1 else f"{s:.2f} s"


def render_line(r: CaseResult):
    word, style = _STYLE[r.status]
    line = Text()
    line.append(f"{word:<5} ", style=style)
    line.append(safe.clean(f"{r.file}::"), style="dim")
    line.append(safe.clean(r.name))
    line.append(f"  {_fmt_dur(r.duration)}", style="dim")
    if r.torch is not None:
        ts = r.torch["status"]
        line.append(safe.clean(f"  torch: {ts}"), style={"agree": "green", "disagree": "bold red"}.get(ts, "yellow"))
    if r.status == "skipped" and r.message:
        line.append(safe.clean(f"  ({r.message})"), style="yellow")
    return line


def render(report: Report, console, *, lines=True) -> None:
    """One line per case, then each failure with its diff, then the totals."""
    if lines:
        for r in report.results:
            console.print(render_line(r), soft_wrap=True)
    bad = [r for r in report.results if r.status in ("failed", "error")]
    for r in bad:
        word, style = _STYLE[r.status]
        console.print()
        console.print(safe.text(f"── {word} {r.file}::{r.name}", style=style), soft_wrap=True)
        for d in r.details:
            console.print(safe.text(f"   {d}", lines=True), soft_wrap=True)
    s = report.summary()
    parts = [f"{s['passed']} passed"]
    for key, label in (("failed", "failed"), ("errors", "errors"), ("skipped", "skipped"),
                       ("deselected", "deselected")):
        if s[key]:
            parts.append(f"{s[key]} {label}")
    disagree = sum(1 for r in report.results if r.torch and r.torch["status"] == "disagree")
    if report.against_torch:
        agree = sum(1 for r in report.results if r.torch and r.torch["status"] == "agree")
        parts.append(f"torch: {agree} agree, {disagree} disagree")
    style = "bold red" if report.exit_code else "bold green"
    console.print()
    console.print(Text(", ".join(parts) + f" in {report.duration:.2f} s ({len(report.files)} file"
                       f"{'s' if len(report.files) != 1 else ''})", style=style), soft_wrap=True)
