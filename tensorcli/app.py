"""tensorcli's Typer group, `main()` and the fast path.

Commands come from `tensorcli/commands/` (contract in its __init__); the op commands, one per
registered op with an entry in `tensorcli/opspec/`, from `tensorcli/commands/op.py` (parameters: `tensorcli/spec.py`).
`main()` builds only the op command named on the command line (the fast path), and `--help`
lists the op commands from a precomputed table without building them.
Errors: everything goes through `tensorcli.errors` (one line on stderr, exit 2 for bad input;
the whole exit-code contract is in its docstring). Ctrl-C exits 130 without a traceback at any
moment: the handler below is installed before the first heavy import.
"""
from __future__ import annotations

import os
import signal
import sys


def _interrupted(signum, frame):  # pragma: no cover - exercised by tests/tensorcli/test_exit_codes.py
    """SIGINT outside a command's run (start-up, imports, exit): leave at once, status 130."""
    os._exit(130)


if os.path.basename(sys.argv[0] or "") in ("tensorcli", "__main__.py"):  # the console script, python -m
    try:
        signal.signal(signal.SIGINT, _interrupted)
    except ValueError:  # pragma: no cover - not the main thread
        pass

from typing import List, Optional  # noqa: E402 - after the SIGINT handler: imports below take ~100 ms

import typer  # noqa: E402
from typer.core import TyperCommand, TyperGroup

from . import __version__  # noqa: E402
from .commands import escape_markup as _escape, fold_example  # noqa: E402
from .errors import (CliError, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, debug_requested,  # noqa: E402
                     one_line, report)
from .spec import TENSOR_HELP  # noqa: E402

try:  # newer typer vendors click as typer._click
    from typer._click.exceptions import ClickException as _ClickException, UsageError as _UsageError
    from typer import Abort as _ClickAbort
except ImportError:  # pragma: no cover - typer on top of click
    from click.exceptions import Abort as _ClickAbort, ClickException as _ClickException, UsageError as _UsageError


# -- the app -------------------------------------------------------------------------------

class _LightCoerce:
    """Click-style conversion of plain str/int/float/bool values (and lists of them).

    Typer converts every parameter value through a pydantic TypeAdapter; importing pydantic and
    building the adapters costs ~60 ms per run, a third of an op command's budget. Parameters
    with these plain annotations get this converter instead (same results, same error class);
    anything else keeps Typer's own conversion."""

    TYPES = (str, int, float, bool)

    def __init__(self, typ, is_list):
        self.typ, self.is_list = typ, is_list

    def coerce(self, value, *, param, ctx):
        if value is None:
            return None
        if self.is_list:
            if value in ((), []):
                d = param.default
                return None if d is None else list(d)
            return [self._one(v, param, ctx) for v in value]
        return self._one(value, param, ctx)

    def _one(self, v, param, ctx):
        typ = self.typ
        if isinstance(v, typ) and not (typ is int and isinstance(v, bool)):
            return v
        if typ is str:
            return str(v)
        if typ is bool:
            s = str(v).strip().lower()
            if s in ("1", "true", "t", "yes", "y", "on"):
                return True
            if s in ("0", "false", "f", "no", "n", "off"):
                return False
            raise typer.BadParameter(f"{v!r} is not a valid boolean.", ctx=ctx, param=param)
        try:
            return typ(str(v).strip()) if typ is float else int(str(v).strip(), 10)
        except ValueError:
            what = "integer" if typ is int else "number"
            raise typer.BadParameter(f"{v!r} is not a valid {what}.", ctx=ctx, param=param) from None


def _light(p):
    import typing
    desc = getattr(p, "type_descriptor", None)
    if desc is None or getattr(p, "_runtime_param", 0) is not None:
        return p
    ann = desc.annotation
    is_list = False
    if typing.get_origin(ann) in (list, List):
        (ann,) = typing.get_args(ann) or (str,)
        is_list = True
    if ann in _LightCoerce.TYPES and getattr(desc, "file_annotation", None) is None:
        p._runtime_param = _LightCoerce(ann, is_list)
    return p


def _no_type(ctx):
    return None


def _plain_help(p):
    """--help shows a flag as a flag and an argument by its metavar: no '<bool>' / '<str>' type column."""
    if getattr(p, "is_flag", False) or (getattr(p, "param_type_name", "") == "argument" and p.metavar):
        p.display_type_rich = _no_type
    if getattr(p, "param_type_name", "") == "argument" and hasattr(p, "_usage_display_name"):
        p._usage_display_name = lambda p=p: _usage_name(p)
    return p


def _usage_name(p) -> str:
    """'TENSOR' for a required argument, '[EXPR]' for an optional one (Typer writes '{TENSOR}')."""
    name = p.metavar or p.name.upper()
    name = name if p.required else f"[{name}]"
    return name + ("..." if p.nargs != 1 and not name.endswith("...") else "")


def _light_params(command):
    """Give a command's plain-typed parameters (and its --help) the light converter (see _LightCoerce)."""
    if getattr(command, "_tensorcli_light", False):
        return command
    for p in getattr(command, "params", ()):
        _light(p)
        _plain_help(p)
    orig = getattr(command, "get_help_option", None)
    if orig is not None:
        def get_help_option(ctx, _orig=orig):
            opt = _orig(ctx)
            return _plain_help(_light(opt)) if opt is not None else None
        command.get_help_option = get_help_option
    command._tensorcli_light = True
    return command


class TensorcliGroup(TyperGroup):
    """Runs commands with tensorcli's error policy: one line on stderr, exit 2 for bad usage/input."""

    lazy_ops: dict = {}   # command -> (panel, short help): op commands listed by --help, not built

    def list_commands(self, ctx):
        names = list(self.commands)  # registration order: ops listing first, then by category
        return names + [n for n in self.lazy_ops if n not in self.commands]

    def get_command(self, ctx, cmd_name):
        cmd = super().get_command(ctx, cmd_name)
        if cmd is None and cmd_name in self.lazy_ops:   # a row of the group's --help only
            panel, short = self.lazy_ops[cmd_name]
            return TyperCommand(cmd_name, help=short, short_help=short, rich_help_panel=panel)
        return _light_params(cmd) if cmd is not None else None

    def format_help(self, ctx, formatter):
        """The group's help drawn by render/group_help.py: Typer's rich layout without importing
        typer.rich_utils (rich.markdown, pygments: ~25 ms). Subcommands keep Typer's rendering."""
        if self.rich_markup_mode != "rich" or not getattr(typer.core, "HAS_RICH", False):
            return super().format_help(ctx, formatter)
        from .render.group_help import print_group_help
        print_group_help(self, ctx)

    def resolve_command(self, ctx, args):
        """An unknown command: suggestions from every command and every op in core's registry."""
        name = args[0] if args else None
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            raise _UsageError(no_such_command(name, self.list_commands(ctx)), ctx)
        return super().resolve_command(ctx, args)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        argv = hoist_global_options(list(sys.argv[1:] if args is None else args))
        if not argv and not os.environ.get("_TENSORCLI_COMPLETE"):   # `tensorcli` alone: a short usage
            sys.stdout.write(SHORT_USAGE)
            return 0 if not standalone_mode else sys.exit(0)
        debug = debug_requested(argv)
        json_command = _json_command(argv)
        quiet_before = os.environ.get("TENSORCLI_QUIET")
        _light_params(self)
        _catch_interrupts()
        from .services import limits
        state = limits.snapshot()
        _forget_inputs()
        import warnings
        try:
            with warnings.catch_warnings():   # -q silences warnings for this run only
                code = self._run(argv, prog_name, complete_var, debug, json_command, **extra)
        except KeyboardInterrupt:  # between two handlers
            code = EXIT_INTERRUPTED
        except _timed_out() as e:  # the timer fired as the command returned
            code = report(CliError(None, str(e)), debug=debug, json_command=json_command)
        finally:
            _end_budgets()
            _ignore_interrupts()
            limits.restore(state)
            _forget_inputs()
            _restore_env("TENSORCLI_QUIET", quiet_before)
        if not standalone_mode:
            return code
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _silence_stdout()
        except (OSError, ValueError):
            pass
        sys.exit(code)

    def _run(self, argv, prog_name, complete_var, debug, json_command=None, **extra) -> int:
        """The command's exit status, by the contract of tensorcli.errors (with --json, an error is
        also a JSON object on stdout)."""
        try:
            _apply_default_limit()
            rv = super().main(argv, prog_name or "tensorcli", complete_var, standalone_mode=False, **extra)
        except _ClickException as e:
            return _usage_error(e, debug, json_command)
        except (_ClickAbort, KeyboardInterrupt):  # click turns Ctrl-C into Abort
            _quiet_stderr_newline()
            return EXIT_INTERRUPTED
        except BrokenPipeError:  # the reader of stdout went away (`| head`): not an error
            _silence_stdout()
            return EXIT_OK
        except _timed_out() as e:  # --timeout: one line, exit 2
            return report(CliError(None, str(e)), debug=debug, json_command=json_command)
        except SystemExit as e:
            if isinstance(e.__context__, BrokenPipeError):  # Rich's Console.on_broken_pipe: exit(1)
                _silence_stdout()
                return EXIT_OK
            return e.code if isinstance(e.code, int) else (0 if e.code is None else EXIT_USAGE)
        except Exception as e:  # noqa: BLE001 - CliError, MemoryError, bugs: one line, exit 2
            if isinstance(e, OSError) and getattr(e, "errno", None) == 32:  # EPIPE wrapped by a writer
                _silence_stdout()
                return EXIT_OK
            return report(e, debug=debug, json_command=json_command)
        return rv if isinstance(rv, int) else 0


def _forget_inputs():
    """Each run starts with no recorded inputs (io.npyfile: outputs never overwrite an input of the
    same run); in-process callers (tests) run many commands. Nothing to do before io is imported."""
    npyfile = sys.modules.get("tensorcli.io.npyfile")
    if npyfile is not None:
        npyfile.forget_inputs()


# Options every command accepts, also before the command (`tensorcli -q gather ...` is run as
# `tensorcli gather -q ...`): name -> whether it takes a value.
GLOBAL_OPTIONS = {"-q": False, "--quiet": False, "--debug": False, "--no-color": False, "--max-bytes": True}


def hoist_global_options(argv: list) -> list:
    """Move the global options written before the command to just after it, where every command
    accepts them: one place parses them, whichever side of the command they are written on."""
    moved, i = [], 0
    while i < len(argv):
        a = argv[i]
        name = a.split("=", 1)[0]
        if name not in GLOBAL_OPTIONS:
            break
        takes = GLOBAL_OPTIONS[name] and "=" not in a
        moved += argv[i:i + 1 + takes]
        i += 1 + takes
    rest = argv[i:]
    if not moved or not rest or rest[0].startswith("-"):   # no command follows (`tensorcli -q --help`)
        return argv
    return [rest[0], *moved, *rest[1:]]


def _after_global_options(argv) -> list:
    """argv from the command name on (global options before it skipped)."""
    return hoist_global_options(list(argv))


def _restore_env(name, value):
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


def _timed_out():
    from .services.budget import TimedOut
    return TimedOut


def _end_budgets():
    """The command's time and memory budgets end with it (services/budget.py): the timer stops and
    the process gets its data limit back (in-process runs: tests)."""
    budget = sys.modules.get(f"{__package__}.services.budget")
    if budget is not None:
        budget.stop_timer()
        budget.uninstall()


def _catch_interrupts():
    """While a command runs, Ctrl-C raises KeyboardInterrupt (so `finally` blocks clean up)."""
    if signal.getsignal(signal.SIGINT) is _interrupted:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _ignore_interrupts():
    """After the run, Ctrl-C ends the process at once (status 130, nothing printed)."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupted)


def _quiet_stderr_newline():
    try:
        sys.stderr.write("\n")
    except (OSError, ValueError):
        pass


def no_such_command(name: str, commands) -> str:
    """"No such command 'meen'. Did you mean 'mean'?": close command names first, then core's ops
    that have no command (their Python name)."""
    import difflib
    commands = [c for c in commands if c]
    key = name.replace("_", "-").lower()
    close = difflib.get_close_matches(key, commands, n=3, cutoff=0.6)
    if key in commands and key != name:
        close = [key]
    ops = _ops_without_command(commands)
    hit = name.replace("-", "_") if name.replace("-", "_") in ops else None
    if hit:
        close = []
    msg = f"No such command '{name}'."
    if close:
        msg += " Did you mean " + " or ".join(f"'{c}'" for c in close) + "?"
    near = [hit] if hit else difflib.get_close_matches(name.replace("-", "_"), ops, n=2, cutoff=0.75)
    if near and not (close and close[0] == key):
        msg += (" " + " / ".join(f"torch.{o}" for o in near) + (" has" if len(near) == 1 else " have")
                + " no command yet: try it in an expression, e.g. tensorcli eval "
                + f"'torch.{near[0]}(x)' --let x='[1.0, 2.0]' (tensorcli ops --all lists every op)")
    return msg


def _ops_without_command(commands) -> list:
    """Names in core's registry that are not commands (only on this error path: imports core)."""
    try:
        from core.ops.registry import OPS
    except Exception:  # noqa: BLE001 - suggestions are a courtesy
        return []
    have = set(commands)
    return [n for n in OPS if n.replace("_", "-") not in have and "." not in n]


def _json_command(argv) -> str | None:
    """The command's name when the command line asks for --json (before a `--`), else None."""
    if "--json" not in argv[: argv.index("--") if "--" in argv else len(argv)]:
        return None
    words = [a for a in _after_global_options(argv) if not a.startswith("-")]
    return words[0] if words else "tensorcli"


def _silence_stdout():
    import os
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _usage_error(e, debug, json_command=None) -> int:
    if type(e).__name__ == "NoArgsIsHelpError":  # `tensorcli` alone: the help (Rich already printed it)
        text = e.format_message()
        if text.strip():
            sys.stdout.write(text + "\n")
        return 0
    ctx = getattr(e, "ctx", None)
    hint = ""
    if ctx is not None:
        hint = f" (see '{ctx.command_path} --help')"
    err = CliError(None, one_line(e.format_message()) + hint)
    report(err, debug=debug, json_command=json_command)
    return getattr(e, "exit_code", EXIT_USAGE) or EXIT_USAGE


def _version(value: bool):
    if value:
        sys.stdout.write(f"tensorcli {__version__}\n")
        raise typer.Exit()


def _quiet(value: bool):
    if value:
        os.environ["TENSORCLI_QUIET"] = "1"
    return value


def _man(value: bool):
    if value:
        sys.stdout.write(man_page())
        raise typer.Exit()


def man_page(table=None) -> str:
    """`tensorcli --man` (and docs/tensorcli.1): the manual page, every command in --help order (the op
    commands from `table`, by default the generated commands/op_table.py)."""
    from .render.man import man_page as render
    group = typer.main.get_command(build_app(set()))   # the commands without building the op commands
    rows = [(name, (cmd.short_help or (cmd.help or "").split("\n")[0]).strip())
            for name, cmd in group.commands.items() if not getattr(cmd, "hidden", False)]
    from .commands import op
    table = op.cached_table() if table is None else table
    rows += [(name, short) for name, _panel, short in (table if table is not None else op.command_table())]
    return render(__version__, APP_HELP, rows)


def _apply_default_limit():
    """Before any command imports core: the allocation limit from TENSORCLI_MAX_BYTES or the
    default (a fraction of physical memory); a command's --max-bytes replaces it."""
    from .services import limits
    limits.apply(limits.effective(None))


APP_HELP = _escape("""See what a PyTorch tensor op does, from the shell.

Each op command runs the op on your tensors (PyTorch's semantics, on a NumPy engine) and prints the result; --explain shows where every output element came from.

Examples:

""" + "\n".join(fold_example(e) for e in (
    "tensorcli gather '[[1,2,3],[4,5,6]]' --dim 1 --index '[[0,2],[1,0]]' --explain",
    "tensorcli scatter-add '[0,0,0]' --dim 0 --index '[0,2,0]' --src '[1,2,3]'",
    "tensorcli gather x.npy --dim 0 --index idx.npz:idx -o - | tensorcli show -",
    "tensorcli ops")) + """

Tensor arguments: """ + TENSOR_HELP + """

Exit status: 0 ok; 1 a check failed (tensorcli check); 2 bad usage, bad input, a refused allocation or out of memory; 130 interrupted.

Environment: TENSORCLI_MAX_BYTES (memory a command may allocate in all, as --max-bytes; default half of physical memory), TENSORCLI_TIMEOUT (seconds, as --timeout), TENSORCLI_MAX_JSON_BYTES (largest JSON text read as a tensor, default 16 MiB), TENSORCLI_JSON_MAX_ELEMENTS (--json lists tensors up to this many elements, default 10000; --full-data for all), TENSORCLI_DEBUG=1 (tracebacks, as --debug), NO_COLOR (no colours), CORE_MAX_ALLOC_BYTES (core's own limit; TENSORCLI_MAX_BYTES wins).

Manual page: tensorcli --man | man -l -   ·   JSON keys: docs/json.md""")


SHORT_USAGE = """\
Usage: tensorcli COMMAND [ARGS]... [OPTIONS]

See what a PyTorch tensor op does, from the shell: each op command runs the op
(PyTorch's semantics) and --explain shows where every output element came from.

  tensorcli gather '[[1,2,3],[4,5,6]]' --dim 1 --index '[[0,2],[1,0]]' --explain
  tensorcli show x.npy                     shape, dtype, statistics, values
  tensorcli eval 'a @ b' --let a=... --let b=...    any expression, safely
  tensorcli grad 'y = 2 * x ** 2' --let x='[1.0]' --requires-grad x
  tensorcli check examples/                run TOML/JSON case files

Every command: --help, --json, -q, --debug, --no-color, --max-bytes SIZE.
Exit status: 0 ok, 1 a check failed, 2 bad usage or input, 130 interrupted.

The full list:  tensorcli --help     (every command and option)
                tensorcli ops        (every op command with its formula)
"""


def build_app(only=None, modules=None) -> typer.Typer:
    """The Typer app. `only` (a set of command names) registers just those op commands (main()'s
    fast path); `modules` overrides COMMAND_MODULES (tests)."""
    app = typer.Typer(name="tensorcli", cls=TensorcliGroup, help=APP_HELP, no_args_is_help=True,
                      add_completion=True, pretty_exceptions_enable=False,
                      context_settings={"help_option_names": ["-h", "--help"]})

    @app.callback()
    def _root(version: bool = typer.Option(False, "-V", "--version", callback=_version, is_eager=True,
                                           help="Print the version and exit."),
              quiet: bool = typer.Option(False, "-q", "--quiet", callback=_quiet, is_eager=True,
                                         help="No progress bars, notes or warnings on stderr (errors still print)."),
              man: bool = typer.Option(False, "--man", callback=_man, is_eager=True,
                                       help="Print the manual page (roff) and exit: tensorcli --man | man -l -"),
              debug: bool = typer.Option(False, "--debug", help="Show the Python traceback on errors "
                                         "(also after the command, as -q, --no-color and --max-bytes)."),
              no_color: bool = typer.Option(False, "--no-color", help="No colours."),
              max_bytes: Optional[str] = typer.Option(None, "--max-bytes", metavar="SIZE",
                                                      help="Refuse any single allocation above SIZE.")):
        """tensorcli"""

    from .commands import COMMAND_MODULES, op
    mods = COMMAND_MODULES if modules is None else modules
    if only is not None:   # main()'s fast path: only what the named command needs
        op.register(app, only)
        named = [m for m in mods if m in only]   # `tensorcli ops`, `show`, `check`: the module of that name
        if not app.registered_commands and named:
            _register_modules(app, named)
        if app.registered_commands:   # (a named module that registered nothing is retried below: a no-op)
            return app
    _register_modules(app, mods)
    if only is None:
        op.register(app, only)
    return app


def _register_modules(app, mods):
    """Import each command module (one not written yet is skipped) and let it add its commands."""
    import importlib
    for mod in mods:
        full = f"{__package__}.commands.{mod}"
        try:
            module = importlib.import_module(full)
        except ImportError as e:
            if e.name == full:  # the module itself is not written yet; errors inside it propagate
                continue
            raise
        register = getattr(module, "register", None)
        if register is not None:  # a module still being written may not define it yet
            register(app)


_APP = None


def get_app() -> typer.Typer:
    global _APP
    if _APP is None:
        _APP = build_app()
    return _APP


def __getattr__(name):
    if name == "app":
        return get_app()
    raise AttributeError(name)


def _fast_path_names(argv):
    """The op command named on the command line, when it is the only one we need to build."""
    for a in hoist_global_options(list(argv)):
        if a.startswith("-"):
            return None  # an option before the command (--help, --version): build everything
        return {a}
    return None


def _group_help(argv):
    """`tensorcli`, `tensorcli --help`: the group's help, which lists the op commands from the
    generated table (commands/op_table.py) instead of importing core and building each of them."""
    if argv and argv[0] not in ("--help", "-h"):
        return None
    from .commands import op
    table = op.cached_table()
    if table is None:
        return None
    command = typer.main.get_command(build_app(set()))
    command.lazy_ops = {name: (panel, short) for name, panel, short in table}
    return command.main(argv, prog_name="tensorcli")


def main(argv=None):
    """Console-script entry point (`tensorcli`)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if os.environ.get("_TENSORCLI_COMPLETE"):   # the shell asks for completions: every command
        return typer.main.get_command(get_app()).main(argv, prog_name="tensorcli")
    if argv in (["--version"], ["-V"]):
        sys.stdout.write(f"tensorcli {__version__}\n")
        return 0
    if argv and argv[0] in ("--help", "-h"):
        code = _group_help(argv)
        if code is not None:
            return code
    only = _fast_path_names(argv)
    app = build_app(only)
    if only is not None:
        # Typer converts every registered command's signature when it builds the group (~2 ms a
        # command): keep only the one on the command line, or all of them for a typo's suggestions.
        keep = [c for c in app.registered_commands
                if (c.name or typer.main.get_command_name(c.callback.__name__)) in only]
        if keep:
            app.registered_commands = keep
        else:
            app = get_app()
    command = typer.main.get_command(app)
    return command.main(argv, prog_name="tensorcli")


if __name__ == "__main__":  # pragma: no cover
    main()
