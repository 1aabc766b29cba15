"""`tensorcli ops`: the op commands with their one-line meaning and formula."""
from __future__ import annotations

from typing import Annotated

import typer

from . import DebugOpt, JsonOpt, NoColorOpt, escape_markup

HELP = escape_markup("""List the op commands with their one-line meaning and formula.

For data-movement ops the formula out[i][j] = ... is shown for 2-D with dim=1; --ndim/--dim pick another case.

Examples:

  tensorcli ops
  tensorcli ops --category indexing --ndim 3 --dim 2
  tensorcli ops --json
""")


def listing(*, ndim=2, dim=1, category=None, include_all=False) -> list[dict]:
    from core.ops.registry import OPS
    rows = []
    for name, info in OPS.items():
        if not (info.cli or include_all):
            continue
        if category and info.category != category:
            continue
        rule = None
        if info.rule is not None:
            try:
                r = info.rule(ndim, dim)
                rule = r if isinstance(r, str) else None
            except Exception:  # noqa: BLE001 - a rule needing more than (ndim, dim)
                rule = None
        rows.append({"command": name.replace("_", "-") if info.cli else None, "op": name,
                     "category": info.category, "kind": info.kind, "summary": info.summary, "rule": rule})
    rows.sort(key=lambda r: (r["category"], r["op"]))
    return rows


def register(app):
    @app.command("ops", help=HELP, rich_help_panel="inspect")
    def ops(category: Annotated[str, typer.Option("--category", metavar="NAME", help="Only this category.")] = None,
            ndim: Annotated[int, typer.Option("--ndim", help="Rank used for the formulas.")] = 2,
            dim: Annotated[int, typer.Option("--dim", help="dim used for the formulas.")] = 1,
            all_: Annotated[bool, typer.Option("--all", help="Also ops without a command.")] = False,
            json_: JsonOpt = False, debug: DebugOpt = False, no_color: NoColorOpt = False):
        import sys
        from tensorcli import io, render
        from tensorcli.errors import CliError
        if ndim < 0 or ndim > 8:
            raise CliError("--ndim", f"must be between 0 and 8, got {ndim}")
        rows = listing(ndim=ndim, dim=dim, category=category, include_all=all_)
        if json_:
            sys.stdout.write(io.dumps({"op": "ops", "ndim": ndim, "dim": dim, "ops": rows}) + "\n")
            return
        if not rows:
            raise CliError("--category" if category else "ops",
                           f"no ops{' in category ' + repr(category) if category else ''}")
        import textwrap
        lines = [f"{len(rows)} ops (formulas for ndim={ndim}, dim={dim})"]
        cat = None
        width = max(len(r["command"] or r["op"]) for r in rows) + 2
        text_width = max(30, 78 - width)
        for r in rows:
            if r["category"] != cat:
                cat = r["category"]
                lines += ["", f"{cat}"]
            name = r["command"] or f"({r['op']})"
            body = textwrap.wrap(r["summary"] or "", text_width) or [""]
            if r["rule"]:
                body += textwrap.wrap(r["rule"], text_width, subsequent_indent="    ")
            lines.append(f"  {name.ljust(width)}{body[0]}")
            lines += [f"  {'':{width}}{b}" for b in body[1:]]
        render.print_lines(lines, no_color=no_color)
