"""``simjudge batches list|cancel|clean`` (:mod:`judge.judges.llm.batchadmin`) and the Batch API
options of ``simjudge eval`` (split and pacing limits, ``--cancel-stale``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from judge.cli.common import err, fail, fail_storage, say

batches_app = typer.Typer(help="List, cancel or clean the Batch API batches of a cache.",
                          no_args_is_help=True, rich_markup_mode=None)
CacheDir = Annotated[Path | None, typer.Option(help="Cache directory (its batches/ folder).")]
MaxRequests = Annotated[int, typer.Option(
    help="--batch-api: most requests per batch (OpenAI: 50,000).")]
MaxBytes = Annotated[int, typer.Option(
    help="--batch-api: largest batch input file in bytes (OpenAI: 200 MB).")]
QueueTokens = Annotated[str | None, typer.Option(
    help="--batch-api: prompt tokens that may be enqueued at once, N or MODEL=N,… (your "
    "tier's batch queue limit, e.g. gpt-4o-mini=2000000); default none: a batch refused "
    "for the limit is resubmitted when another ends.")]
CancelStale = Annotated[bool, typer.Option(
    help="--batch-api: cancel running batches this run no longer needs (default: collect "
    "their answers into the cache).")]


def limits(batch_api: bool, max_requests: int, max_bytes: int, queue_tokens: str | None,
           cancel_stale: bool) -> Any:
    """``eval``'s ``batch_api`` value: False, or the checked
    :class:`~judge.judges.llm.batchstate.BatchLimits` (raises InputError)."""
    from judge.judges.llm.batchapi import check_limits, parse_queue_tokens
    from judge.judges.llm.batchstate import BatchLimits

    if not batch_api:
        return False
    lim = BatchLimits(max_requests, max_bytes, parse_queue_tokens(queue_tokens), cancel_stale)
    check_limits(lim)
    return lim


def _dir(cache_dir: Path | None) -> Path:
    from judge.cache import default_cache_dir
    from judge.judges.llm.batchstate import batches_dir

    return batches_dir(cache_dir or default_cache_dir())


@batches_app.command("list")
def list_command(cache_dir: CacheDir = None, local: Annotated[bool, typer.Option(
        help="Show the recorded states only; ask the provider nothing.")] = False) -> None:
    """List the batches recorded in the cache, oldest first, one line each: id, status (asked
    of the provider unless --local), requests done of total, whether the answers are in the
    cache, judge, creation time (UTC) and files (input, output, error), then the server's
    errors. Earlier batches of the same content (resubmitted after they ended without
    answering) are marked "(earlier)"."""
    from judge import aio
    from judge.judges.llm.batchadmin import list_batches

    directory = _dir(cache_dir)
    rows = aio.run(list_batches(directory, refresh=not local))
    if not rows:
        say(f"no batches recorded in {directory}")
        return
    for r in rows:  # one line each, whole (no truncation: ids are copied from here)
        done = f"{r['done']}/{r['requests']}" if r["done"] is not None else str(r["requests"])
        files = ", ".join(f for f in (r["input_file_id"], r["output_file_id"],
                                      r["error_file_id"]) if f)
        status = (r["status"] or "not submitted") + ("" if r["current"] else " (earlier)")
        say(f"{r['batch_id'] or '-'}  {status}  {done} requests  in cache: "
            f"{'yes' if r['collected'] else 'no'}  {r['judge']}  {r['created_at']}  "
            f"files: {files or '-'}")
        for e in r.get("errors") or []:
            say(f"  {e}")
        if r.get("error"):
            err.print(f"simjudge: could not check {r['batch_id']}: {r['error']}",
                      highlight=False, markup=False)


@batches_app.command("cancel")
def cancel_command(batch: Annotated[list[str] | None, typer.Argument(
        help="Batch ids to cancel.")] = None, cache_dir: CacheDir = None,
        every: Annotated[bool, typer.Option("--all", help="Cancel every running batch.")]
        = False) -> None:
    """Cancel running batches recorded in the cache (those named, or --all). What they
    answered before stopping is collected into the cache by the next eval --batch-api run.
    Exit status 2 for an unknown id, 1 when the provider refused a cancel."""
    from judge import aio
    from judge.errors import InputError
    from judge.judges.llm.batchadmin import cancel_batches

    try:
        done = aio.run(cancel_batches(_dir(cache_dir), list(batch or []), every))
    except InputError as exc:
        fail(exc)
    for d in done:
        say(f"{d['batch_id']}: {d.get('status') or 'not cancelled: ' + d['error']}")
    if any("error" in d for d in done):
        raise typer.Exit(1)


@batches_app.command("clean")
def clean_command(cache_dir: CacheDir = None) -> None:
    """Delete, at the provider and locally, the files and states of batches whose answers are
    in the cache (and of chunks never submitted); running or uncollected batches are kept.
    Exit status 1 when some file could not be deleted (its state is kept)."""
    from judge import aio
    from judge.judges.llm.batchadmin import clean_batches

    try:
        res = aio.run(clean_batches(_dir(cache_dir)))
    except OSError as exc:
        fail_storage(exc)
    say(f"removed {len(res['removed'])} batch state(s), deleted {len(res['files_deleted'])} "
        f"uploaded or result file(s), kept {len(res['kept'])} running or uncollected "
        f"batch(es){': ' + ', '.join(res['kept']) if res['kept'] else ''}")
    for e in res["errors"]:
        err.print(f"simjudge: could not delete {e}", highlight=False, markup=False)
    if res["errors"]:
        raise typer.Exit(1)
