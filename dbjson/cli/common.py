"""Shared CLI plumbing: the typer app, consoles, error rendering, exit codes."""

from __future__ import annotations

import functools
import gc
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

import typer

from ..__about__ import __version__
from ..connect import mask_text
from ..errors import DbjsonError, UsageError, hint_for

if TYPE_CHECKING:  # rich is imported when something is printed (about 30 ms of every start otherwise)
    from rich.console import Console


def escape(text: str) -> str:
    """``rich.markup.escape``, imported on first use."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


F = TypeVar("F", bound=Callable[..., Any])

app = typer.Typer(
    name="dbjson",
    help="Move whole databases between MySQL, MariaDB, PostgreSQL and SQLite through an open JSON format.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


# Options several commands share, declared once (the same name and help everywhere).
GrantsOption = Annotated[
    bool,
    typer.Option(
        "--grants",
        help="Users and roles too: recorded by export (never a password); created by import, migrate and "
        "schema-load before their grants (without a password; MySQL accounts locked).",
    ),
]
PrivilegesOption = Annotated[
    bool,
    typer.Option(
        "--privileges/--no-privileges",
        help="Keep the object privileges (GRANTs on tables, views, sequences, schemas, routines) where their "
        "roles exist in the target; a missing role is reported, not fatal (--no-privileges: as pg_restore --no-acl).",
    ),
]

AllDatabasesOption = Annotated[
    bool,
    typer.Option(
        "--all-databases",
        help="MySQL/MariaDB: a URL without a database reads every database on the server (without it, that is an error).",
    ),
]
MaxRateOption = Annotated[
    str | None,
    typer.Option(
        "--max-rate",
        help="At most this many rows (50000rows) or bytes (20MB, of JSON lines) per second, all threads together.",
    ),
]
CastOption = Annotated[
    list[str] | None,
    typer.Option(
        "--cast",
        help="A type-mapping rule (repeatable): 'type SOURCE-TYPE to TYPE' (type tinyint(1) to boolean) or "
        "'column [SCHEMA.]TABLE.COLUMN to TYPE' (column orders.status to text); see 'Cast rules' below.",
    ),
]


def choices(*values: str) -> Callable[[str], list[str]]:
    """Shell completion for an option that takes one of ``values`` (``autocompletion=choices(...)``)."""

    def complete(incomplete: str) -> list[str]:
        return [v for v in values if v.startswith(incomplete)]

    return complete


def no_color() -> bool:
    """``NO_COLOR`` set to anything non-empty (https://no-color.org): no colours, no styles at all."""
    return bool(os.environ.get("NO_COLOR"))


def apply_color_policy() -> None:
    """Colours only on a terminal (Rich detects it) and never under ``NO_COLOR``, help pages included."""
    want: Literal["auto"] | None = None if no_color() else "auto"
    if want == "auto" and "typer.rich_utils" not in sys.modules:
        return  # typer's own default; importing rich_utils (markdown, pygments) costs 0.1-0.4 s per command
    import typer.rich_utils

    typer.rich_utils.COLOR_SYSTEM = want


# Characters rich would not print as they are (``rich.control.strip_control_codes`` drops BEL, BS,
# VT, FF and CR; a tab is expanded; a newline starts a line rich renders on its own): a line holding
# one of them is printed by rich itself.
_NOT_PLAIN = frozenset("\x07\x08\x0b\x0c\r\t\n")


def _maybe_emoji(text: str) -> bool:
    """Whether rich's emoji codes (``:name:``, the pattern ``:\\S*?:``) may occur in ``text``."""
    parts = text.split(":")
    return any(not any(ch.isspace() for ch in part) for part in parts[1:-1])


class Output:
    """A console on stdout or stderr that imports rich (about 45 ms) only when rich has something to
    do: printing on a terminal, markup, styles. On a stream that is not a terminal, a line of plain
    text is written as rich writes it there (the text and a newline, no colours: ``soft_wrap``
    never wraps); anything else, and any doubt about what rich would make of the stream
    (``FORCE_COLOR``, ``TTY_COMPATIBLE``, Jupyter, IDLE), goes to :attr:`rich`. ``stream`` None:
    the output goes nowhere (``--progress json``)."""

    def __init__(self, stream: Literal["stdout", "stderr"] | None) -> None:
        self.stream = stream

    @functools.cached_property
    def rich(self) -> Console:
        """The rich console (rich imported on first use)."""
        from rich.console import Console

        if self.stream is None:
            return Console(file=open(os.devnull, "w"), color_system=None)  # noqa: SIM115 - process lifetime
        stderr = self.stream == "stderr"
        if no_color():
            return Console(stderr=stderr, color_system=None, highlight=False, soft_wrap=True)
        return Console(stderr=stderr, highlight=False, soft_wrap=True)

    def _file(self) -> Any:
        """The stream plain text may be written to (rich's ``Console.file``), or None: ask rich."""
        if "IPython" in sys.modules:
            return None
        if any(v in os.environ for v in ("FORCE_COLOR", "TTY_COMPATIBLE", "JUPYTER_COLUMNS", "JUPYTER_LINES")):
            return None
        if getattr(sys.stdin, "__module__", "").startswith("idlelib"):
            return None
        file = sys.stderr if self.stream == "stderr" else sys.stdout
        file = getattr(file, "rich_proxied_file", file)
        try:
            return None if file is None or file.isatty() else file
        except Exception:
            return None

    @property
    def is_terminal(self) -> bool:
        """Whether the output goes to a terminal (rich's ``Console.is_terminal``)."""
        if self.stream is None:
            return False
        return self._file() is None and self.rich.is_terminal

    def _write(self, text: str) -> bool:
        """Write ``text`` and a newline as rich would, if it is plain text on a plain stream."""
        if self.stream is None:
            return True
        if not _NOT_PLAIN.isdisjoint(text):
            return False
        file = self._file()
        if file is None:
            return False
        try:
            file.write(text + "\n")
        except UnicodeEncodeError as error:  # as rich says it
            error.reason = f"{error.reason}\n*** You may need to add PYTHONIOENCODING=utf-8 to your environment ***"
            raise
        file.flush()
        return True

    def print(self, text: str, *, markup: bool | None = None, highlight: bool | None = None) -> None:
        """``Console.print(text, markup=..., highlight=...)``."""
        if self.stream is None:
            return
        if highlight or (markup is not False and "[" in text) or _maybe_emoji(text) or not self._write(text):
            self.rich.print(text, markup=markup, highlight=highlight)

    def print_styled(self, label: str, style: str, message: str) -> None:
        """``label`` in ``style``, then ``message`` (``Console.print(Text.assemble((label, style), message))``)."""
        if not self._write(label + message):
            from rich.text import Text

            self.rich.print(Text.assemble((label, style), message))


def stderr_console(*, always: bool = False) -> Output:
    """The console for messages, progress and errors (stderr). Under ``--progress json`` stderr
    holds only JSON lines: this console then writes nowhere, unless ``always`` (errors)."""
    from .eventlog import OUTPUT

    if OUTPUT.progress == "json" and not always:
        return Output(None)
    return Output("stderr")


def stdout_console() -> Output:
    """The console for results (stdout)."""
    return Output("stdout")


def fail(err: DbjsonError) -> None:
    """Print a library error on stderr and exit with its code (also in the log; under --progress
    json also as an ``Error`` event)."""
    from .eventlog import OUTPUT, json_line, log_line

    log_line(f"error (exit {err.exit_code}): {err}")
    if OUTPUT.progress == "json":
        json_line({"event": "Error", "message": mask_text(str(err)), "exit_code": err.exit_code, "hint": err.hint})
    con = stderr_console(always=True)
    con.print("[bold red]error:[/] " + escape(mask_text(str(err))), markup=True, highlight=False)
    problems = err.problems
    for p in problems[1:20]:
        con.print(f"  {mask_text(str(p))}", markup=False)
    if len(problems) > 20:
        con.print(f"  ... {len(problems) - 20} more", markup=False)
    statement = getattr(err, "statement", None)
    if statement:
        con.print("  statement: " + mask_text(statement.strip())[:2000], markup=False)
    hint = err.hint or hint_for(str(err))
    if hint:
        con.print("[yellow]hint:[/] " + escape(hint), markup=True)
    raise typer.Exit(err.exit_code)


def run(fn: Callable[[], Any]) -> Any:
    """Run a library call, turning dbjson errors and Ctrl-C into clean exits."""
    _startup_done()
    try:
        return fn()
    except DbjsonError as e:
        fail(e)
    except KeyboardInterrupt:
        stderr_console(always=True).print("[bold red]interrupted[/]")
        raise typer.Exit(130) from None
    except (typer.Exit, typer.Abort):
        raise
    except Exception as e:  # a bug in dbjson: no traceback for the user unless asked for
        if os.environ.get("DBJSON_DEBUG"):
            raise
        con = stderr_console(always=True)
        text = mask_text(f"{type(e).__name__}: {e}")
        hint = hint_for(str(e))
        if hint:  # a server refusal dbjson did not wrap (a privilege, a disabled feature): not a bug
            con.print("[bold red]error:[/] " + escape(text), markup=True)
            con.print("[yellow]hint:[/] " + escape(hint), markup=True)
        else:
            con.print("[bold red]internal error:[/] " + escape(text), markup=True)
            con.print(
                "[yellow]hint:[/] this is a bug in dbjson; rerun with DBJSON_DEBUG=1 for the traceback", markup=True
            )
        raise typer.Exit(1) from None


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file (a failed dump never leaves half a file)."""
    tmp = path.with_name(path.name + ".partial")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError as e:
        raise UsageError(f"cannot write the document: {e.strerror}", file=str(path)) from None


SPEEDUPS_HINT = (
    "install a C compiler and the Python headers (Debian/Ubuntu: apt install gcc python3-dev; "
    "Fedora: dnf install gcc python3-devel; macOS: xcode-select --install), then "
    "pip install --force-reinstall --no-deps --no-binary dbjson dbjson"
)


def speedups_line() -> str:
    """Whether the C speedups are active (``--version``), and how to get them when not."""
    from .. import speedups

    built = speedups.available()
    if all(built.values()):
        if speedups.disabled():
            return "C speedups: built but disabled (DBJSON_NO_SPEEDUPS is set): the pure-Python path, 2-3x slower"
        return f"C speedups: active ({len(built)} modules)"
    missing = ", ".join(name for name, ok in built.items() if not ok)
    return f"C speedups: NOT built ({missing}): the pure-Python path, 2-3x slower on big tables; to get them, {SPEEDUPS_HINT}"


def first_run_check() -> None:
    """Once per user (a marker under $XDG_STATE_HOME/dbjson): a warning on stderr when the C
    speedups are missing (pip installs the pure-Python path silently without a compiler)."""
    state = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "dbjson"
    marker = state / "speedups-checked"
    try:
        if marker.exists():
            return
        line = speedups_line()
        if "NOT built" in line:
            sys.stderr.write(f"dbjson: warning: {line} (shown once; dbjson --version tells again)\n")
        state.mkdir(parents=True, exist_ok=True)
        marker.write_text(line + "\n", encoding="utf-8")
    except OSError:  # a read-only home: no marker, no warning
        return


def version_callback(value: bool) -> None:
    """``--version``: print the version and whether the C speedups are active, and exit."""
    if value:
        typer.echo(f"dbjson {__version__}")
        typer.echo(speedups_line())
        raise typer.Exit()


def password_prompt_callback(value: bool) -> None:
    """Ask for the password (hidden input, on the terminal) and use it like ``DBJSON_PASSWORD``."""
    if value:
        os.environ["DBJSON_PASSWORD"] = typer.prompt("Database password", hide_input=True, err=True)


# The commands, in the order of ``dbjson --help``: name -> the module of dbjson.cli that registers it
# on ``app``. The console script imports (and typer builds) only the one it runs: building every
# command's parameters took 0.07-0.3 s of each start.
COMMANDS: dict[str, str] = {
    "schema-dump": "schema_dump",
    "validate": "validate",
    "schema-load": "schema_load",
    "export": "export",
    "import": "import_",
    "verify": "verify",
    "diff": "diff",
    "migrate": "migrate",
    "sql": "sql",
}

# dbjson's own options (``_root``) by what they take: the ones that take a value, and the flags
# (typer's --install-completion/--show-completion included). Anything else before the command
# name is left to the parser, with every command loaded (its error message names them).
_ROOT_VALUE_OPTIONS = frozenset({"--config", "--progress", "--log-file"})
_ROOT_FLAGS = frozenset(
    {"--version", "-V", "--verbose", "-v", "--password-prompt", "-W", "--install-completion", "--show-completion"}
)
_ROOT_SHORT_FLAGS = frozenset("VvW")


def invoked_commands(args: list[str]) -> tuple[str, ...]:
    """The commands ``dbjson ARGS`` needs registered: the one it names, none for dbjson's own
    options alone (``--version``), every command for ``--help``, no arguments, shell completion,
    an unknown command or option (so the parser's usage and error messages are the whole CLI's)."""
    if not args or any(k.startswith("_") and k.endswith("_COMPLETE") for k in os.environ):
        return tuple(COMMANDS)
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-h", "--help"):
            return tuple(COMMANDS)
        if not arg.startswith("-") or arg == "-":
            return (arg,) if arg in COMMANDS else tuple(COMMANDS)
        if arg in _ROOT_VALUE_OPTIONS:
            i += 2
            continue
        if not (
            arg in _ROOT_FLAGS
            or arg.split("=", 1)[0] in _ROOT_VALUE_OPTIONS
            or (arg[1] != "-" and set(arg[1:]) <= _ROOT_SHORT_FLAGS)
        ):
            return tuple(COMMANDS)  # "--", an unknown option: the parser tells
        i += 1
    return ()


def evaluate_annotations(fn: Callable[..., Any]) -> None:
    """Replace a command function's annotations (strings, under ``from __future__ import
    annotations``) by their values, once: typer reads the signature of a command seven times while
    it builds it, evaluating every string each time (about 10 ms of each start). The values are
    those typer's ``inspect.signature(fn, eval_str=True)`` computes."""
    import inspect

    if any(isinstance(v, str) for v in fn.__annotations__.values()):
        fn.__annotations__ = inspect.get_annotations(fn, eval_str=True)


def load_commands(names: tuple[str, ...] | None = None) -> None:
    """Register ``names`` (default: every command) on ``app``, kept in the order of ``COMMANDS``."""
    import importlib

    for name in COMMANDS if names is None else names:
        importlib.import_module(f"{__package__}.{COMMANDS[name]}")
    for fn in [c.callback for c in app.registered_commands] + [getattr(app.registered_callback, "callback", None)]:
        if fn is not None:
            evaluate_annotations(fn)
    order = list(COMMANDS)
    app.registered_commands.sort(key=lambda c: order.index(c.name) if c.name in order else len(order))


def config_params(group: Any) -> dict[str, dict[str, Any]]:
    """Each command's parameters by the names a configuration file may use (dbjson.config)."""
    from ..config import Param

    out: dict[str, dict[str, Any]] = {}
    # [dbjson]: the options of dbjson itself (--progress, --log-file, --verbose)
    for name, cmd in [("dbjson", group), *group.commands.items()]:
        params: dict[str, Any] = {}
        for p in cmd.params:
            if p.name is None or p.name in (
                "help",
                "version",
                "config",
                "password_prompt",
                "install_completion",
                "show_completion",
            ):
                continue
            type_name = getattr(p.type, "name", "")  # (typer vendors click: told by name, not by class)
            if getattr(p, "is_flag", False) or type_name == "boolean":
                kind = "flag"
            elif p.multiple:
                kind = "list"
            elif type_name in ("int", "integer") or type_name.startswith("integer") or getattr(p, "count", False):
                kind = "int"
            else:
                kind = "value"
            param = Param(p.name, kind)
            names = {p.name, p.name.replace("_", "-")}
            names.update(o.lstrip("-") for o in getattr(p, "opts", ()) if o.startswith("--"))
            for n in names:
                params[n] = param
        out[name] = params
    return out


def config_callback(ctx: typer.Context, value: str | None) -> str | None:
    """``--config FILE`` (or ``dbjson.toml`` here): the commands' defaults, under what the command line gives."""
    if ctx.resilient_parsing:
        return value
    from ..config import find_config, read_config

    try:
        path = find_config(value)
        if path is not None:
            group = ctx.command
            if set(getattr(group, "commands", ())) != set(COMMANDS):  # the console script built one command
                load_commands()  # the file is checked against every command's options
                group = typer.main.get_command(app)
            settings = read_config(path, config_params(group))
            ctx.default_map = {**(ctx.default_map or {}), **settings.pop("dbjson", {}), **settings}
    except DbjsonError as e:
        fail(e)
    return value


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", "-V", callback=version_callback, is_eager=True, help="Print the version and exit."
    ),
    config: str | None = typer.Option(
        None,
        "--config",
        metavar="FILE",
        callback=config_callback,
        is_eager=True,  # before --progress, --log-file, -v: its [dbjson] table gives their defaults
        help="Read the commands' URLs and options from FILE (TOML; default: ./dbjson.toml when there is one). "
        "Options on the command line win.",
    ),
    progress: str = typer.Option(
        "auto",
        "--progress",
        envvar="DBJSON_PROGRESS",
        autocompletion=choices("auto", "json", "none"),
        help="auto: bars on a terminal; json: every progress event as one JSON object per line on stderr "
        "(for orchestrators); none: no bars.",
    ),
    log_file: str | None = typer.Option(
        None,
        "--log-file",
        metavar="FILE",
        envvar="DBJSON_LOG_FILE",
        help="Append timestamped lines to FILE: the command, every progress event, warnings, errors (no passwords).",
    ),
    verbose: int = typer.Option(
        0, "--verbose", "-v", count=True, help="More lines on stderr: per table and data file (-vv: row counts too)."
    ),
    password_prompt: bool = typer.Option(
        False,
        "--password-prompt",
        "-W",
        callback=password_prompt_callback,
        help="Ask for the database password (not echoed); it is used for every URL without one, like DBJSON_PASSWORD.",
    ),
) -> None:
    """dbjson: schema-dump, schema-load, export, import, verify."""
    from .eventlog import configure

    first_run_check()
    try:
        configure(progress, log_file, verbose)
    except DbjsonError as e:
        fail(e)
    apply_color_policy()  # again: the environment may have changed since import (CliRunner, notebooks)


# The cyclic garbage collector in a ``dbjson`` process. Start-up creates some hundred thousand
# long-lived objects (modules, classes, typer's command tree, the command's library modules); the
# collector walked them tens of times while they were imported, and once more at exit, which took
# 0.04 s of a 1 s export. main() turns it off for the start-up; run() freezes what start-up made
# (gc.freeze: never scanned again) and turns it back on for the command's work; main() freezes
# everything before the interpreter's final collection. Only the console script does this: the
# library and CliRunner-driven tests keep the collector as they found it.
_startup_gc = False


def _startup_done() -> None:
    global _startup_gc
    if _startup_gc:
        _startup_gc = False
        gc.freeze()
        gc.enable()


def main() -> None:
    """The ``dbjson`` console script."""
    global _startup_gc
    if gc.isenabled():
        gc.disable()
        _startup_gc = True
    apply_color_policy()
    load_commands(invoked_commands(sys.argv[1:]))
    try:
        app()
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        sys.exit(130)
    finally:
        _startup_done()
        gc.freeze()  # the exit's final collection has nothing left to scan
