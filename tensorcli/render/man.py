"""`tensorcli --man`: the manual page (roff), generated from the same help text as --help.

docs/tensorcli.1 is this output (tests/tensorcli/test_help.py checks it is current; regenerate with
`tensorcli --man > docs/tensorcli.1`). Standard library only.
"""
from __future__ import annotations

import re

ENVIRONMENT = (
    ("TENSORCLI_MAX_BYTES", "Memory a command may allocate in all (e.g. 2GiB); the environment form of "
                            "--max-bytes. Default: half of physical memory (check: 1 GiB)."),
    ("TENSORCLI_TIMEOUT", "Seconds a command may run (check: each case); the environment form of --timeout."),
    ("TENSORCLI_MAX_JSON_BYTES", "Largest JSON text read as a tensor (default 16 MiB); use .npy for more."),
    ("TENSORCLI_JSON_MAX_ELEMENTS", "Above this many elements, --json summarises a tensor instead of "
                                    "listing it (default 10000); --full-data lists every element."),
    ("TENSORCLI_DEBUG", "Set to 1: print the Python traceback with every error (as --debug)."),
    ("NO_COLOR", "Set: no colours (as --no-color)."),
    ("CORE_MAX_ALLOC_BYTES", "core's own allocation limit (Python API); TENSORCLI_MAX_BYTES takes precedence."),
)

EXIT_STATUS = (
    ("0", "Success (also when the reader of stdout closed the pipe, as with | head)."),
    ("1", "A check failed (tensorcli check) - and nothing else."),
    ("2", "Bad usage, bad input, a refused allocation or out of memory: one line on stderr."),
    ("130", "Interrupted (Ctrl-C)."),
)


def _esc(text: str) -> str:
    text = re.sub(r"\\(\[)", r"\1", text)          # Rich markup escapes in help text
    text = text.replace("\\", "\\e")
    return "\n".join(("\\&" + ln) if ln[:1] in (".", "'") else ln for ln in text.split("\n"))


def _commands():
    """(name, short help) of every command, in --help order, without building the op commands."""
    import typer
    from ..app import build_app
    from ..commands import op
    group = typer.main.get_command(build_app(set()))
    rows = []
    for name, cmd in group.commands.items():
        if not getattr(cmd, "hidden", False):
            rows.append((name, (cmd.short_help or (cmd.help or "").split("\n")[0]).strip()))
    table = op.cached_table()
    if table is None:
        table = op.command_table()
    rows += [(name, short) for name, _panel, short in table]
    return rows


def man_page() -> str:
    from .. import __version__
    from ..app import APP_HELP
    out = [f'.TH TENSORCLI 1 "" "tensorcli {__version__}" "User Commands"',
           ".SH NAME", "tensorcli \\- see what a PyTorch tensor op does, from the shell",
           ".SH SYNOPSIS", ".B tensorcli", "[\\-V] [\\-q] [\\-\\-man] COMMAND [ARGS]... [OPTIONS]",
           ".SH DESCRIPTION"]
    for para in APP_HELP.split("\n\n"):
        if para.startswith("  "):
            out += [".PP", ".nf", _esc(para), ".fi"]
        else:
            out += [".PP", _esc(para)]
    out += [".SH COMMANDS", "Every command has --help with examples."]
    for name, short in _commands():
        out += [".TP", f"\\fB{_esc(name)}\\fR", _esc(short)]
    out += [".SH COMMON OPTIONS",
            ".TP", "\\fB\\-\\-json\\fR", "One JSON object on stdout; its keys are listed in docs/json.md.",
            ".TP", "\\fB\\-\\-max\\-bytes\\fR SIZE",
            "Memory the command may allocate in all (2GiB, 512MiB, ...): tensors, temporaries and Python "
            "objects; memory-mapped inputs do not count. Past it: exit 2.",
            ".TP", "\\fB\\-\\-timeout\\fR SECONDS", "Stop after SECONDS with exit 2 (check: per case, default 60).",
            ".TP", "\\fB\\-o\\fR, \\fB\\-\\-out\\fR PATH", "Save the result (.npy, .npz, .json; - for .npy on stdout).",
            ".TP", "\\fB\\-\\-debug\\fR", "Python traceback on errors.",
            ".TP", "\\fB\\-\\-no\\-color\\fR", "No colours."]
    out.append(".SH ENVIRONMENT")
    for name, text in ENVIRONMENT:
        out += [".TP", f"\\fB{name}\\fR", _esc(text)]
    out.append(".SH EXIT STATUS")
    for code, text in EXIT_STATUS:
        out += [".TP", f"\\fB{code}\\fR", _esc(text)]
    out += [".SH SEE ALSO", "README.md, docs/json.md, docs/architecture.md"]
    return "\n".join(out) + "\n"
