"""The group's help (`tensorcli`, `tensorcli --help`), drawn as Typer's rich help draws it.

Typer renders help through typer.rich_utils, whose imports (rich.markdown -> markdown_it, rich.traceback
-> pygments) cost ~25 ms: a third of `tensorcli --help`. This module is the part of Typer 0.29's
`rich_format_help` that a group in "rich" markup mode uses (usage, help text, option panels, command
panels, epilog), with the same styles, on rich.console / table / panel only; the output is the same
text (tests/tensorcli/test_help.py compares it with Typer's). Subcommands keep Typer's own rendering."""
from __future__ import annotations

import inspect
import os
from collections import defaultdict

from rich import box
from rich.align import Align
from rich.columns import Columns
from rich.console import Console, group
from rich.highlighter import RegexHighlighter
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.theme import Theme
from typer.core import TyperArgument, TyperOption

# typer.rich_utils' styles
THEME = {"option": "bold cyan", "switch": "bold green", "negative_option": "bold magenta",
         "negative_switch": "bold red", "types": "bold yellow", "types_sep": "dim", "usage": "yellow"}
STYLE_USAGE_COMMAND, STYLE_HELPTEXT, STYLE_TYPES = "bold", "dim", "bold yellow"
STYLE_REQUIRED_SHORT, STYLE_REQUIRED_LONG, STYLE_OPTION_DEFAULT = "red", "dim red", "dim"
STYLE_OPTION_ENVVAR, STYLE_DEPRECATED, STYLE_DEPRECATED_COMMAND = "dim yellow", "red", "dim"
STYLE_PANEL_BORDER, STYLE_COMMANDS_FIRST_COLUMN = "dim", "bold cyan"
DEPRECATED_STRING = "(deprecated) "


class OptionHighlighter(RegexHighlighter):
    highlights = [r"(^|\W)(?P<switch>\-\w+)(?![a-zA-Z0-9])", r"(^|\W)(?P<option>\-\-[\w\-]+)(?![a-zA-Z0-9])",
                  r"(?P<types>\<[^\>]+\>)", r"(?P<usage>Usage: )"]


class NegativeOptionHighlighter(RegexHighlighter):
    highlights = [r"(^|\W)(?P<negative_switch>\-\w+)(?![a-zA-Z0-9])",
                  r"(^|\W)(?P<negative_option>\-\-[\w\-]+)(?![a-zA-Z0-9])"]


class TypesHighlighter(RegexHighlighter):
    highlights = [r"^(?P<types_sep>(\[|<))", r"(?P<types_sep>\|)", r"(?P<types_sep>(\]|>))(\.\.\.)?$"]


highlighter, negative_highlighter, types_highlighter = OptionHighlighter(), NegativeOptionHighlighter(), \
    TypesHighlighter()


def _console() -> Console:
    """typer.rich_utils._get_rich_console (its environment switches read at call time)."""
    width = os.environ.get("TERMINAL_WIDTH")
    force = True if (os.environ.get("GITHUB_ACTIONS") or os.environ.get("FORCE_COLOR")
                     or os.environ.get("PY_COLORS")) else None
    if os.environ.get("_TYPER_FORCE_DISABLE_TERMINAL"):
        force = False
    return Console(theme=Theme(THEME), highlighter=highlighter, color_system="auto", force_terminal=force,
                   width=int(width) if width else None)


def _rich_text(text: str, style: str = "") -> Text:
    text = inspect.cleandoc(text)
    if "\033[" in text:
        return highlighter(Text.from_ansi(text, style=style))
    return highlighter(Text.from_markup(text, style=style))


@group()
def _help_text(obj):
    if obj.deprecated:
        yield Text(DEPRECATED_STRING, style=STYLE_DEPRECATED)
    help_text = inspect.cleandoc(obj.help or "").partition("\f")[0]
    first_line, *rest = help_text.split("\n\n")
    if not first_line.startswith("\b"):
        first_line = first_line.replace("\n", " ")
    yield _rich_text(first_line.strip())
    if rest:
        yield Text("")
        yield _rich_text("\n\n".join(rest), style=STYLE_HELPTEXT)


def _parameter_help(param, ctx) -> Columns:
    items = []
    envvar = getattr(param, "envvar", None)
    if envvar is None and getattr(param, "allow_from_autoenv", None) and \
            getattr(ctx, "auto_envvar_prefix", None) is not None and param.name:
        envvar = f"{ctx.auto_envvar_prefix}_{param.name.upper()}"
    var_str = "" if envvar is None else envvar if isinstance(envvar, str) else ", ".join(str(d) for d in envvar)
    help_value = getattr(param, "help", None)
    if help_value:
        paragraphs = [x.replace("\n", " ").strip() if not x.startswith("\b") else "{}\n".format(x.strip("\b\n"))
                      for x in help_value.split("\n\n")]
        items.append(_rich_text("\n".join(paragraphs).strip()))
    if envvar and getattr(param, "show_envvar", None):
        items.append(Text(f"[env var: {var_str}]", style=STYLE_OPTION_ENVVAR))
    if isinstance(param, (TyperOption, TyperArgument)):
        default_value = param._extract_default_help_str(ctx=ctx)
        is_str = isinstance(param.show_default, str)
        if is_str or (default_value is not None and (param.show_default or ctx.show_default)):
            default = param._get_default_string(ctx=ctx, show_default_is_str=is_str, default_value=default_value)
            if default:
                items.append(Text(f"[default: {default}]", style=STYLE_OPTION_DEFAULT))
    if param.required:
        items.append(Text("[required]", style=STYLE_REQUIRED_LONG))
    return Columns(items)


def _option_row(param, ctx) -> tuple:
    """(required mark, [long, short, negative long, negative short, type, help]) as Typer lays them out."""
    longs, shorts, neg_longs, neg_shorts = [], [], [], []
    display_name = None
    if isinstance(param, TyperArgument):
        display_name = param.display_name_raw
        if param.metavar is None and param.nargs != 1:
            display_name += "..."
    for opt in param.opts:
        (longs if "--" in opt else shorts).append(opt if "--" in opt or not display_name else display_name)
    for opt in param.secondary_opts:
        (neg_longs if "--" in opt else neg_shorts).append(opt if "--" in opt or not display_name else display_name)
    types = Text(style=STYLE_TYPES, overflow="fold")
    shown = param.display_type_rich(ctx=ctx)
    if shown is not None:
        types.append(shown)
    range_str = param._get_number_range_help_str()
    if range_str:
        types.append(f" [{range_str}]")
    required = Text("*", style=STYLE_REQUIRED_SHORT) if param.required else ""
    return required, [highlighter(",".join(longs)), highlighter(",".join(shorts)),
                      negative_highlighter(",".join(neg_longs)), negative_highlighter(",".join(neg_shorts)),
                      types_highlighter(types), _parameter_help(param, ctx)]


def _options_panel(name, params, ctx, console):
    rows = [_option_row(p, ctx) for p in params]
    if not rows:
        return
    with_required = any(r for r, _ in rows)
    table = Table(highlight=True, show_header=False, expand=True, box=None, show_lines=False, leading=0,
                  border_style=None, row_styles=None, pad_edge=False, padding=(0, 1))
    for required, row in rows:
        table.add_row(*([required, *row] if with_required else row))
    console.print(Panel(table, border_style=STYLE_PANEL_BORDER, title=name, title_align="left"))


def _command_help(help_text: str) -> Text:
    first = inspect.cleandoc(help_text).split("\n\n")[0]
    if first.startswith("\b"):
        first = first.replace("\b\n", "")
    return _rich_text(first.strip())


def _op_names_panel(name, commands, console):
    """An op panel as the command names, wrapped (one table row per op made --help list ~400 rows and
    take ~60 ms to draw); `tensorcli ops` and `tensorcli OP --help` give each one's meaning."""
    text = Text(overflow="fold")
    for i, command in enumerate(commands):
        if i:
            text.append("  ")
        text.append(command.name or "", style=STYLE_COMMANDS_FIRST_COLUMN)
    console.print(Panel(text, border_style=STYLE_PANEL_BORDER, title=name, title_align="left"))


def _commands_panel(name, commands, console, cmd_len):
    if name.endswith(" ops") and len(commands) > OP_PANEL_ROWS:
        return _op_names_panel(name, commands, console)
    table = Table(highlight=False, show_header=False, expand=True, box=None, show_lines=False, leading=0,
                  border_style=None, row_styles=None, pad_edge=False, padding=(0, 1))
    table.add_column(style=STYLE_COMMANDS_FIRST_COLUMN, no_wrap=True, width=cmd_len)
    table.add_column("Description", justify="left", no_wrap=False, ratio=10)
    rows, deprecated = [], []
    for command in commands:
        text = Text(command.name or "", style=STYLE_DEPRECATED_COMMAND if command.deprecated else "")
        deprecated.append(Text(DEPRECATED_STRING, style=STYLE_DEPRECATED) if command.deprecated else None)
        rows.append([text, _command_help(command.short_help or command.help or "")])
    for row, dep in zip(rows, deprecated):
        table.add_row(*([*row, dep] if any(deprecated) else row))
    if table.row_count:
        console.print(Panel(table, border_style=STYLE_PANEL_BORDER, title=name, title_align="left"))


OP_PANEL_ROWS = 12   # op panels longer than this list names only


def _panels(items, default):
    """{panel title: [items]} in first-seen order, Typer's default panel first."""
    panels = defaultdict(list)
    panels[default]   # the default panel is printed first
    for item in items:
        panels[getattr(item, "rich_help_panel", None) or default].append(item)
    return panels


def print_group_help(obj, ctx) -> None:
    """typer.rich_utils.rich_format_help for a group in "rich" markup mode: usage, help, panels, epilog."""
    console = _console()
    console.print(Padding(highlighter(obj.get_usage(ctx)), 1), style=STYLE_USAGE_COMMAND)
    if obj.help:
        console.print(Padding(Align(_help_text(obj), pad=False), (0, 1, 1, 1)))
    params = [p for p in obj.get_params(ctx) if not getattr(p, "hidden", False)]
    for title, kind in (("Arguments", TyperArgument), ("Options", TyperOption)):
        for name, group_params in _panels([p for p in params if isinstance(p, kind)], title).items():
            _options_panel(name, group_params, ctx, console)
    commands = [c for c in (obj.get_command(ctx, n) for n in obj.list_commands(ctx)) if c and not c.hidden]
    cmd_len = max((len(c.name or "") for c in commands), default=0)
    for name, group_commands in _panels(commands, "Commands").items():
        _commands_panel(name, group_commands, console, cmd_len)
    if obj.epilog:
        console.print(Padding(Align(_rich_text("\n\n".join(obj.epilog.split("\n\n"))), pad=False), 1))
