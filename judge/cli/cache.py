"""``simjudge cache stats|clear|import``, ``simjudge tasks`` and ``simjudge version``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from judge.cli.common import fail, fail_storage, say

cache_app = typer.Typer(help="Inspect or clear the judge-call cache.", no_args_is_help=True,
                        rich_markup_mode=None)


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


@cache_app.command("import")
def cache_import(
    files: Annotated[list[Path], typer.Argument(
        help="Run directories, or their unstored_answers.jsonl files.")],
    cache_dir: Annotated[Path | None, typer.Option(help="Cache directory.")] = None,
) -> None:
    """Store the answers a run kept because the cache refused them (a full disk): each line of
    a run's unstored_answers.jsonl is checked (its sha256) before any is stored; then a rerun
    pays for none of them. Exit status 2 for a bad file (file, line and field named), 1 when
    the disk still refuses."""
    from judge.cache import JudgeCache
    from judge.errors import InputError
    from judge.jsoncache import read_unstored

    try:
        entries = {k: v for f in files for k, v in read_unstored(
            f / "unstored_answers.jsonl" if f.is_dir() else f).items()}
    except InputError as exc:
        fail(exc)
    cache = JudgeCache(cache_dir)
    try:
        stored = cache.set_many(entries)
    except InputError as exc:  # the directory cannot be opened for writing
        fail(exc)
    if cache.refused:
        fail_storage(OSError(f"cannot write to the judge-call cache in {cache.directory}: "
                             f"{cache.refused}; nothing was imported"))
    say(f"stored {stored} answer(s) in {cache.directory}")


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
