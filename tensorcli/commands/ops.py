"""`tensorcli ops`: the op commands with their one-line meaning and formula."""
from __future__ import annotations

from typing import Annotated

import typer

from tensorcli.commands import escape_markup
from tensorcli.commands.options import DebugOpt, JsonOpt, MaxBytesOpt, NoColorOpt, QuietOpt

HELP = escape_markup("""List the op commands with their one-line meaning and formula.

For data-movement ops the formula out[i][j] = ... is shown for 2-D with dim=1; --ndim/--dim pick another case.

Examples:

  tensorcli ops
  tensorcli ops --category indexing --ndim 3 --dim 2
  tensorcli ops --json
""")


def register(app):
    @app.command("ops", help=HELP, rich_help_panel="inspect")
    def ops(category: Annotated[str, typer.Option("--category", metavar="NAME", help="Only this category.")] = None,
            ndim: Annotated[int, typer.Option("--ndim", help="Rank used for the formulas.")] = 2,
            dim: Annotated[int, typer.Option("--dim", help="dim used for the formulas.")] = 1,
            all_: Annotated[bool, typer.Option("--all", help="Also ops without a command.")] = False,
            json_: JsonOpt = False, max_bytes: MaxBytesOpt = None, debug: DebugOpt = False,
            no_color: NoColorOpt = False, quiet: QuietOpt = False):
        import sys
        from tensorcli import io, render
        from tensorcli.errors import CliError
        from tensorcli.render.ops import listing_lines
        from tensorcli.services.ops import listing
        if ndim < 0 or ndim > 8:
            raise CliError("--ndim", f"must be between 0 and 8, got {ndim}")
        from tensorcli.commands.op import cached_listing
        rows = listing(ndim=ndim, dim=dim, category=category, include_all=all_, precomputed=cached_listing())
        if json_:
            from tensorcli.services import vocab
            sys.stdout.write(io.dumps(vocab.envelope("ops", {"ndim": ndim, "dim": dim, "ops": rows})) + "\n")
            return
        if not rows:
            raise CliError("--category" if category else "ops",
                           f"no ops{' in category ' + repr(category) if category else ''}")
        render.print_lines(listing_lines(rows, ndim, dim), no_color=no_color)
