"""What every ``simjudge`` command shares: the consoles, the error exits, the progress bar, and
the report of judges stopped early. The judge options live in :mod:`judge.cli.options`.

Exit statuses: 2 for bad input (one line ``simjudge: error: FILE:LINE: field 'x': …``), 1 when
the disk refused a write or some judge calls failed, 0 otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import typer
from rich.console import Console

err = Console(stderr=True)
out = Console()


def fail(exc: Exception) -> NoReturn:
    """Bad input: print one redacted line (never a key) and exit with status 2."""
    from judge.redact import redact

    typer.echo(f"simjudge: error: {redact(str(exc))}", err=True)
    raise typer.Exit(2)


def fail_storage(exc: OSError) -> NoReturn:
    """The disk refused a write mid-run (full, size limit): one line, exit 1; completed judge
    calls are in the cache (:class:`judge.cache.CacheStorageError`,
    :class:`judge.record.atomic.RunWriteError`)."""
    from judge.redact import redact

    typer.echo(f"simjudge: error: {redact(str(exc))}", err=True)
    raise typer.Exit(1)


def say(text: str) -> None:
    """Print a plain line on stdout (no markup, no highlighting)."""
    out.print(text, highlight=False, markup=False)


@contextmanager
def warnings_to_stderr() -> Iterator[None]:
    """Within it, each simjudge warning (:class:`judge.errors.StaleCalibrationWarning`) is
    printed at once as one redacted line ``simjudge: warning: …`` on stderr (not Python's
    ``file:line: Category:`` form), every time it is issued (a refusing cache's once)."""
    import warnings

    from judge.errors import CacheRefusedWarning, StaleCalibrationWarning
    from judge.redact import redact

    def show(message: Any, category: Any, *args: Any, **kwargs: Any) -> None:
        typer.echo(f"simjudge: warning: {redact(str(message))}", err=True)

    with warnings.catch_warnings():
        warnings.simplefilter("always", StaleCalibrationWarning)
        warnings.simplefilter("once", CacheRefusedWarning)
        warnings.showwarning = show
        yield


@contextmanager
def progress(label: str = "judging", enabled: bool = True,
             ) -> Iterator[Callable[..., Callable[[int], None]]]:
    """A transient progress bar on stderr; yields a factory ``(total, live JudgeStats or None,
    phase label = label) -> advance(n)``: one row per phase (the Batch API's wait — in
    requests, its live text from ``stats.live_text()`` —, judging — in pairs, embedding
    included —, matching, writing), with elapsed time, ETA and, while judging, calls, cache
    hits, tokens and USD as they accrue. The bar appears only once the factory is called (when
    judging starts), so an error raised before — bad input — prints its one line and nothing
    else. ``enabled=False`` (``eval --quiet``): the factory's ``advance`` does nothing and no
    bar is drawn."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    if not enabled:
        yield lambda total, stats, phase=None: lambda n: None
        return
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                   TextColumn("{task.fields[live]}"), console=err, transient=True)
    started = False

    def factory(total: int, stats: Any, phase: str | None = None) -> Callable[[int], None]:
        nonlocal started
        if not started:
            bar.start()
            started = True
        task = bar.add_task(phase or label, total=total or None, live="")

        def advance(n: int) -> None:
            live = "" if stats is None else stats.live_text() if hasattr(
                stats, "live_text") else (  # the Batch API's wait: batches, cost, ETA
                f"calls {stats.judge_calls}  cache {stats.cache_hits}  tokens "
                f"{stats.tokens_in + stats.tokens_out}  ${stats.cost_usd:.4f}")
            bar.update(task, advance=n, live=live)

        return advance

    try:
        yield factory
    finally:
        if started:
            bar.stop()


def report_stops(summary_or_stops: list[dict[str, Any]]) -> None:
    """One stderr line per judge stopped early: after repeated fatal errors, or by the budget
    (``--max-usd``)."""
    for s in summary_or_stops:
        if s.get("cause") == "budget":
            err.print(f"simjudge: the budget stopped judge {s['judge']}: {s['reason']}; "
                      f"{s['pairs_not_attempted']} pair(s) not attempted (recorded as "
                      "transport_error 'not attempted: budget: …', not cached: a rerun with a "
                      "larger --max-usd finishes them, its cache hits are free)",
                      highlight=False, markup=False, soft_wrap=True)
            continue
        err.print(f"simjudge: judge {s['judge']} stopped early: {s['reason']}; "
                  f"{s['pairs_not_attempted']} pair(s) not attempted (recorded as "
                  "transport_error, not cached: a rerun retries them)", highlight=False,
                  markup=False, soft_wrap=True)


def report_cache(summary: dict[str, Any], run: Any) -> bool:
    """One stderr line when the cache refused writes during the run (disk full…): how many
    answers it stored and where the others are (the run's ``unstored_answers.jsonl``); True
    then (exit status 1: the disk refused a write), else False."""
    refused = summary.get("cache_refused")
    if not refused:
        return False
    held, dropped = refused.get("unstored") or 0, refused.get("dropped") or 0
    where = (f"{held} paid answer(s) it refused are kept in {run}/unstored_answers.jsonl: "
             f"once there is room, 'simjudge cache import {run}' stores them (a rerun before "
             "that pays for them again)" if held else "no paid answer is missing from it")
    if dropped:
        where += f"; {dropped} free answer(s) (local encoder vectors) are recomputed by a rerun"
    err.print(f"simjudge: the judge-call cache refused writes ({refused.get('reason')}); it "
              f"stored {refused.get('stored')} answer(s) of this run; {where}",
              highlight=False, markup=False, soft_wrap=True)
    return True
