"""How ``simjudge`` prints its help: click's plain help formatter, with a command's options
grouped in sections by their help panel (:mod:`judge.cli.panels`).

typer renders help through rich (a bordered table per panel) when it can; for ``eval``'s ~90
options that took ~0.18 s of every ``simjudge eval --help`` (0.485 s in all on the 2-core test
machine; now 0.20 s), plus ~0.06 s importing rich's Markdown and pygments. The
plain formatter lays out the same sections (``Arguments``, ``Options``, then one per panel, in
the order the options are declared) in a few milliseconds, wrapped to the terminal's width
(80 columns when piped), and its text is what ``--help`` shows in any terminal or log.

:func:`print_help` answers ``simjudge [COMMAND …] -h|--help`` before typer parses anything:
typer 0.29 coerces even the eager ``--help`` flag through a pydantic ``TypeAdapter``, and
importing pydantic for that took ~85 ms of every help. It prints the same text
(``tests/judge/test_cli_conventions.py`` compares the two for every command).
"""

from __future__ import annotations

from collections.abc import Sequence

import typer
from typer._click import Context, HelpFormatter
from typer.core import TyperCommand

OPTIONS = "Options"
"""The section of options that belong to no panel (``--help`` among them)."""


class PanelCommand(TyperCommand):
    """A typer command whose help lists its arguments, then the options of no panel, then each
    panel's options under the panel's title (``rich_help_panel`` of each option, set by
    :func:`judge.cli.panels.with_panels`), in plain text."""

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        """Write the ``Arguments`` section, then one section per panel (``Options`` first)."""
        args: list[tuple[str, str]] = []
        sections: dict[str, list[tuple[str, str]]] = {OPTIONS: []}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                args.append(record)
            else:
                title = getattr(param, "rich_help_panel", None) or OPTIONS
                sections.setdefault(title, []).append(record)
        if args:
            with formatter.section("Arguments"):
                _write_rows(formatter, args)
        for title, rows in sections.items():
            if rows:
                with formatter.section(title):
                    _write_rows(formatter, rows)


def _write_rows(formatter: HelpFormatter, rows: list[tuple[str, str]]) -> None:
    """Click's definition list, its first column as wide as the widest name that fits in 30
    characters: a longer name (``--text-overlap / --no-text-overlap``) stands on a line of its
    own instead of widening the column, and squeezing the help, of the whole section."""
    fitting = [len(name) for name, _ in rows if len(name) <= 30]
    formatter.write_dl(rows, col_max=max(fitting, default=30))


HELP_FLAGS = ("-h", "--help")
"""The help options of every command (the app's ``context_settings``)."""


def print_help(app: typer.Typer, args: Sequence[str], prog: str = "simjudge") -> bool:
    """Print the help of the command ``args`` name, when ``args`` is command names followed by
    ``-h`` or ``--help`` and nothing else (``["eval", "--help"]``, ``["cache", "stats", "-h"]``,
    ``["--help"]``), the way typer would, without parsing (see the module docstring).

    Args:
        app: the typer application (:data:`judge.cli.app`).
        args: the command line after the program name.
        prog: the program name shown in the usage line.

    Returns:
        True when the help was printed; False when ``args`` is anything else (an option, an
        argument or an unknown name before the help flag, or no help flag): typer handles it.
    """
    if not args or args[-1] not in HELP_FLAGS:
        return False
    command = typer.main.get_command(app)
    ctx = Context(command, info_name=prog, **command.context_settings)
    for name in args[:-1]:
        sub = getattr(command, "commands", {}).get(name)
        if sub is None:
            return False
        command = sub
        ctx = Context(command, info_name=name, parent=ctx, **command.context_settings)
    typer.echo(command.get_help(ctx))
    return True
