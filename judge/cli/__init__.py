"""The ``simjudge`` command line: a thin typer face over the library.

One module per command group — :mod:`judge.cli.eval`, :mod:`judge.cli.calibrate`,
:mod:`judge.cli.leaderboard`, :mod:`judge.cli.review` (the labelling app), :mod:`judge.cli.labels`,
:mod:`judge.cli.runs` (audit, rescore, compare),
:mod:`judge.cli.cache` (cache, tasks, version), :mod:`judge.cli.batches` (the Batch API's
batches) — sharing :mod:`judge.cli.common` (consoles,
exits, progress) and :mod:`judge.cli.options` (the judge options of ``eval`` and
``calibrate``). Every bad input ends with one line ``simjudge: error: FILE:LINE: field 'x':
what is wrong`` on stderr and exit status 2, with nothing written.
"""

from __future__ import annotations

import typer

from judge.cli.batches import batches_app
from judge.cli.cache import cache_app, tasks_command, version_command
from judge.cli.calibrate import calibrate_command
from judge.cli.eval import eval_command
from judge.cli.labels import labels_app
from judge.cli.leaderboard import leaderboard_command
from judge.cli.review import review_command
from judge.cli.runs import audit_command, compare_command, export_command, rescore_command

app = typer.Typer(
    name="simjudge",
    help="Evaluate model outputs with LLM judges: similarity matrices → fuzzy metrics.",
    no_args_is_help=True,
    add_completion=False,
)
app.command("eval")(eval_command)
app.command("calibrate")(calibrate_command)
app.command("leaderboard")(leaderboard_command)
app.command("review")(review_command)
app.command("audit")(audit_command)
app.command("rescore")(rescore_command)
app.command("compare")(compare_command)
app.command("export")(export_command)
app.command("tasks")(tasks_command)
app.command("version")(version_command)
app.add_typer(cache_app, name="cache")
app.add_typer(labels_app, name="labels")
app.add_typer(batches_app, name="batches")


@app.callback()
def _root() -> None:
    """simjudge: evaluate model outputs with LLM judges."""


def main() -> None:
    """Console-script entry point (``simjudge``)."""
    app()
