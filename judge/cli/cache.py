"""``simjudge cache stats|clear``, ``simjudge tasks`` and ``simjudge version``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from judge.cli.common import fail_storage, say

cache_app = typer.Typer(help="Inspect or clear the judge-call cache.", no_args_is_help=True)


@cache_app.command("stats")
def cache_stats(
    cache_dir: Annotated[Path | None, typer.Option(help="Cache directory.")] = None,
) -> None:
    """Print the cache directory, its number of entries and its size in bytes."""
    from judge.cache import JudgeCache

    s = JudgeCache(cache_dir).stats()
    say(f"directory {s['directory']}\nentries   {s['entries']}\nsize      {s['size_bytes']} bytes")


@cache_app.command("clear")
def cache_clear(
    cache_dir: Annotated[Path | None, typer.Option(help="Cache directory.")] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete every cached judge call (paid-for answers are lost: asks first unless --yes).
    Exit status 1 when refused or when the disk refuses the deletion."""
    from judge.cache import JudgeCache

    cache = JudgeCache(cache_dir)
    if not yes and not typer.confirm(f"Delete every entry in {cache.directory}?"):
        raise typer.Exit(1)
    try:
        removed = cache.clear()
    except OSError as exc:
        fail_storage(exc)
    say(f"removed {removed} entries from {cache.directory}")


def tasks_command() -> None:
    """List the tasks (``--task`` values): name, the judge option each uses, and what it
    scores."""
    from judge.errors import flag
    from judge.tasks.registry import get_task, task_names

    for name in task_names():
        t = get_task(name)
        option = flag(t.judge_role) if t.judge_role else "-"
        typer.echo(f"{name:<14} {option:<12} {t.summary}")  # one line each


def version_command() -> None:
    """Print simjudge's version and the versions of the libraries its numbers depend on (the
    list recorded in every run's config.json, :data:`judge.versions.VERSIONED`)."""
    from judge.versions import package_versions

    versions = package_versions()
    typer.echo(f"simjudge {versions.pop('simjudge')} (Python {versions.pop('python')})")
    for dist, v in versions.items():
        typer.echo(f"  {dist} {v}")
