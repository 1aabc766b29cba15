"""`tensorcli check FILE_OR_DIR...`: run the cases of TOML/JSON case files (scripted checks for CI).

Exit status: 0 when every case passes (skipped cases allowed), 1 when a case fails or errors,
2 when a case file is malformed (the message names the file, the case and the field), a path does
not exist, -k matches no case, or --against-torch is given without PyTorch installed. The case-file format is
documented in ``tensorcli/services/cases.py`` and docs; ``examples/`` holds working case files.
"""
from __future__ import annotations

from typing import Annotated, List, Optional

import typer

from tensorcli.commands import escape_markup
from tensorcli.commands.options import DebugOpt, JsonOpt, MaxBytesOpt, NoColorOpt, QuietOpt

HELP = """Run the checks in TOML/JSON case files: exit 0 if all pass, 1 if any fails, 2 if a file is malformed.

A case names an op (called through core's registry with the case's fields as arguments), an expression (the safe expression language of `tensorcli grad`, with let bindings) or a model spec, and what to expect: a value (expect), expect_dtype, expect_shape, gradients (expect_grad, after backward with an optional gradient), hook gradients (expect_hooks), an error (expect_error / expect_error_type) or memory figures (expect_memory). Tensor fields take literals or data files (.npy/.npz[:key]/.json, relative to the case file; never unpickled). See examples/README.md.

Example case file:

  [[case]]
  name = "labels to probabilities"
  op = "gather"
  input = [[0.2, 0.3, 0.5], [0.1, 0.8, 0.1]]
  dim = 1
  index = "labels.npy"
  expect = [[0.5], [0.8]]

  [[case]]
  name = "backward with gradient weights"
  expr = "2 * x ** 2"
  let = {x = [1.0, 1.0, 1.0]}
  requires_grad = ["x"]
  gradient = [0.1, 1.0, 0.0001]
  expect_grad = {x = [0.4, 4.0, 0.0004]}

Examples:

  tensorcli check examples/
  tensorcli check cases.toml -k gather --fail-fast
  tensorcli check examples/ --junit report.xml --against-torch
  tensorcli check examples/ --junit - 2>/dev/null | xmllint --noout -

Directories contribute their case files (*.toml and *.json with [[case]] tables; sorted, not recursive): other TOML/JSON files, such as pyproject.toml, are skipped. A file named on the command line is always read.

Data files named in a case file must lie in its directory (or below it): an absolute path, or '..' or a symlink that leads out, is refused unless --allow-path names a directory that holds it. --junit never overwrites a file the run reads.
"""


def register(app):
    @app.command("check", help=escape_markup(HELP), rich_help_panel="inspect")  # '[[case]]' as written
    def check(
        paths: Annotated[List[str], typer.Argument(metavar="FILE_OR_DIR", show_default=False,
                                                   help="Case files (.toml/.json) or directories of them.")],
        junit: Annotated[Optional[str], typer.Option(
            "--junit", metavar="PATH", help="Also write a JUnit XML report to PATH ('-': stdout, the "
                                            "progress lines then go to stderr).")] = None,
        json_: JsonOpt = False,
        keyword: Annotated[Optional[List[str]], typer.Option(
            "-k", metavar="PATTERN",
            help="Run only cases whose 'file::name' contains PATTERN (a glob if it has * ? [); repeatable.")
        ] = None,
        fail_fast: Annotated[bool, typer.Option("--fail-fast", "-x",
                                                help="Stop after the first failing case.")] = False,
        against_torch: Annotated[bool, typer.Option(
            "--against-torch", help="Also run each case on PyTorch and report where core and torch disagree.")
        ] = False,
        allow_path: Annotated[Optional[List[str]], typer.Option(
            "--allow-path", metavar="DIR",
            help="Let data paths in case files lead into DIR too (by default only the case file's own "
                 "directory and below); repeatable.")] = None,
        max_bytes: MaxBytesOpt = None,
        timeout: Annotated[Optional[str], typer.Option(
            "--timeout", metavar="SECONDS", envvar="TENSORCLI_TIMEOUT", show_default=False,
            help="Time budget of each case (core and torch runs together); a case past it fails "
                 "('timed out after N s') and the run goes on. Default: 60.")] = None,
        debug: DebugOpt = False,
        no_color: NoColorOpt = False,
        quiet: QuietOpt = False,
    ):
        import sys
        from tensorcli import io, render
        from tensorcli.errors import CliError, report as report_error
        from tensorcli.render import checks as view
        from tensorcli.services import check_report, checks

        if junit == "-" and json_:
            raise CliError("--junit", "--junit - and --json both write to stdout; give --junit a file")
        _install_case_budget(max_bytes)   # loading the cases' data is within it too
        files, cases, errors = _load(paths, allow_path or (), junit)
        if errors:
            _report_malformed(errors, json_, junit)
        if against_torch:
            try:
                checks.torch_engine()
            except checks.TorchUnavailable as e:
                raise CliError("--against-torch", f"PyTorch is not installed, so cases cannot be compared "
                                                  f"with it ({e})") from None

        chosen = checks.select(cases, keyword or ())
        if not chosen:
            raise CliError("-k", f"no case matches {' / '.join(keyword or ())} (of {len(cases)} cases)")
        con = None if json_ else render.console(no_color, stderr=junit == "-")
        progress = None
        if con is not None and not _quiet():
            def progress(r):
                con.print(view.render_line(r), soft_wrap=True)
        import gc
        gc.collect()
        gc.freeze()   # core.memory's gc.collect() calls then skip the modules' objects (torch's: ~1 s)
        try:
            rep = checks.run(chosen, against_torch=against_torch, fail_fast=fail_fast, files=files,
                             deselected=len(cases) - len(chosen), progress=progress,
                             timeout=_case_timeout(timeout), max_bytes=_case_budget(max_bytes))
        finally:
            gc.unfreeze()
        if junit:
            _write(junit, check_report.to_junit(rep))
        if json_:
            sys.stdout.write(io.dumps(check_report.to_json(rep)) + "\n")
        else:
            view.render(rep, con, lines=False)
        if rep.exit_code:
            raise typer.Exit(rep.exit_code)


def _load(paths, allow, junit):
    """(files, cases, errors) of the case files; --allow-path roots must be directories, and a
    --junit path that the run reads (a case or data file) is refused before any case runs."""
    import os
    from tensorcli import io
    from tensorcli.errors import CliError
    from tensorcli.io.npyfile import check_output
    from tensorcli.services import checks
    for d in allow:
        if not os.path.isdir(d):
            raise CliError("--allow-path", f"{d} is not a directory")
    try:
        loaded = checks.load_paths(paths, allow=allow)
    except checks.CaseFileError as e:
        raise CliError(None, str(e)) from None
    if junit and junit != "-":
        with io.output_errors(junit, "--junit"):
            check_output(junit)
    return loaded


def _report_malformed(errors, json_, junit):
    """Malformed case files: JSON on stdout (--json), the JUnit report, one line each on stderr; exit 2."""
    import sys
    from tensorcli import io
    from tensorcli.errors import CliError, report as report_error
    from tensorcli.services import check_report
    if json_:
        sys.stdout.write(io.dumps(check_report.malformed_json(errors)) + "\n")
    if junit:
        _write(junit, check_report.malformed_junit(errors))
    for e in errors:   # one line each on stderr; the JSON above already says it on stdout
        report_error(CliError(None, str(e)))
    raise typer.Exit(2)


def _quiet() -> bool:
    import os
    return os.environ.get("TENSORCLI_QUIET", "") not in ("", "0")


def _write(path, text):
    """The JUnit report to stdout ('-') or to `path` atomically (a temporary file renamed at the end,
    so a failed or interrupted write leaves the old report, or none)."""
    import sys
    from tensorcli.io import output_errors
    from tensorcli.io.npyfile import atomic_output
    with output_errors(path, "--junit"):
        if path == "-":
            sys.stdout.write(text)
            sys.stdout.flush()
            return
        with atomic_output(path) as tmp, open(tmp, "w", encoding="utf-8") as f:
            f.write(text)


def _case_timeout(text):
    """--timeout for each case; check's default (services/checks.DEFAULT_TIMEOUT) without it."""
    from tensorcli.services import budget, checks
    return checks.DEFAULT_TIMEOUT if text is None else budget.parse_timeout(text)


def _install_case_budget(text):
    from tensorcli.services import budget, cases, limits
    nbytes = _case_budget(text) or cases.MAX_BYTES
    limits.apply(nbytes)
    budget.install(nbytes)


def _case_budget(text):
    """--max-bytes / TENSORCLI_MAX_BYTES when given; check's default (1 GiB) otherwise."""
    from tensorcli.services import limits
    return None if text is None else limits.parse_size(text)
