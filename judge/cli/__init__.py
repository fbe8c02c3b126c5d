"""The ``simjudge`` command line: a thin typer face over the library.

One module per command group — :mod:`judge.cli.eval`, :mod:`judge.cli.calibrate`,
:mod:`judge.cli.leaderboard`, :mod:`judge.cli.review` (the labelling app), :mod:`judge.cli.labels`,
:mod:`judge.cli.runs` (audit, rescore, compare, export), :mod:`judge.cli.replay`,
:mod:`judge.cli.cache` (cache, tasks, version), :mod:`judge.cli.batches` (the Batch API's
batches) — sharing :mod:`judge.cli.common` (consoles,
exits, progress) and :mod:`judge.cli.options` (the judge options of ``eval`` and
``calibrate``); :mod:`judge.cli.runlist` lists past runs (``simjudge runs``). Every bad input
ends with one line ``simjudge: error: FILE:LINE: field 'x': what is wrong`` on stderr and exit
status 2, with nothing written.

Conventions of every command: ``-h`` is ``--help`` (root, commands and sub-commands: click
passes the root's help option names down to each sub-context); ``simjudge --version`` prints
``simjudge X.Y.Z``; ``--install-completion`` / ``--show-completion`` install or print the
shell's completion script (bash, zsh, fish, PowerShell; typer's, offline: the script calls
``simjudge`` itself to complete).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

import typer

from judge.cli.batches import batches_app
from judge.cli.cache import cache_app, tasks_command, version_command
from judge.cli.calibrate import calibrate_command
from judge.cli.estimate import estimate_command
from judge.cli.eval import eval_command
from judge.cli.helpformat import PanelCommand
from judge.cli.labels import labels_app
from judge.cli.leaderboard import leaderboard_command
from judge.cli.replay import replay_command
from judge.cli.review import review_command
from judge.cli.runlist import runs_command
from judge.cli.runs import audit_command, compare_command, export_command, rescore_command

app = typer.Typer(
    name="simjudge",
    help="Evaluate model outputs with LLM judges: similarity matrices → fuzzy metrics.",
    no_args_is_help=True,
    add_completion=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode=None,  # plain help, fast (judge.cli.helpformat); panels kept as sections
)
app.command("eval", cls=PanelCommand)(eval_command)
app.command("calibrate")(calibrate_command)
app.command("estimate")(estimate_command)
app.command("leaderboard")(leaderboard_command)
app.command("review")(review_command)
app.command("audit")(audit_command)
app.command("rescore")(rescore_command)
app.command("compare")(compare_command)
app.command("export")(export_command)
app.command("replay")(replay_command)
app.command("runs")(runs_command)
app.command("tasks")(tasks_command)
app.command("version")(version_command)
app.add_typer(cache_app, name="cache")
app.add_typer(labels_app, name="labels")
app.add_typer(batches_app, name="batches")


def _print_version(given: bool) -> None:
    """``--version``: print ``simjudge X.Y.Z`` (the first line of ``simjudge version``, without
    the library versions) and exit 0."""
    if given:
        from judge.versions import version_of

        typer.echo(f"simjudge {version_of('simjudge')}")
        raise typer.Exit()


def _reflow_help(typer_app: typer.Typer) -> None:
    """Give each command of ``typer_app`` (and of its sub-apps) its docstring as help with each
    paragraph on one line, so the terminal wraps it at its width (typer's rich help keeps the
    docstring's line breaks: at 80 columns every line then folds in two)."""
    import inspect

    for info in typer_app.registered_commands:
        if info.help is None and info.callback is not None and info.callback.__doc__:
            info.help = "\n\n".join(" ".join(p.split()) for p in
                                     inspect.cleandoc(info.callback.__doc__).split("\n\n"))
    for group in typer_app.registered_groups:
        if group.typer_instance is not None:
            _reflow_help(group.typer_instance)


_reflow_help(app)


@app.callback()
def _root(version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print simjudge's version and exit (the libraries' too: 'simjudge version').")
        ] = False) -> None:
    """simjudge: evaluate model outputs with LLM judges."""


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (``simjudge``): ``[COMMAND …] -h|--help`` is answered by
    :func:`judge.cli.helpformat.print_help` without parsing (the same text, ~85 ms sooner);
    everything else by typer.

    Args:
        argv: the command line after the program name (``["eval", "data.jsonl", …]``);
            ``None`` (the console script) reads ``sys.argv[1:]``.

    Raises:
        SystemExit: always, as a process would end: status 0, 1 (a failed write or failed
            judge calls), 2 (bad input, one line on stderr) or 130 (Ctrl-C); see
            :mod:`judge.cli.common`. A help request returns instead, having printed the help.
    """
    import sys

    from judge.cli.helpformat import print_help

    args = list(sys.argv[1:] if argv is None else argv)
    if not print_help(app, args):
        app(args=args, prog_name="simjudge")
