"""What every ``simjudge`` command shares: the consoles, the error exits, the progress bar, and
the report of judges stopped early. The judge options live in :mod:`judge.cli.options`.

Exit statuses: 2 for bad input (one line ``simjudge: error: FILE:LINE: field 'x': …``), 1 when
the disk refused a write or some judge calls failed, 130 on Ctrl-C, 0 otherwise.

Every line printed here — errors, warnings, tables, the progress bar's text — is made safe for
the terminal first (:func:`judge.terminal.terminal_safe`): a control sequence that a judge server
put in its error message is shown as text (``\\x1b[31m``), never run by the terminal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import typer

from judge.terminal import SafeConsole, terminal_safe

err = SafeConsole(stderr=True)
out = SafeConsole()


def echo_err(line: str) -> None:
    """Print one plain line on stderr, made terminal-safe."""
    typer.echo(terminal_safe(line), err=True)


def fail(exc: Exception) -> NoReturn:
    """Bad input: print one redacted line (never a key) and exit with status 2."""
    from judge.redact import redact

    echo_err(f"simjudge: error: {redact(str(exc))}")
    raise typer.Exit(2)


def fail_storage(exc: OSError) -> NoReturn:
    """The disk refused a write mid-run (full, size limit): one line, exit 1; completed judge
    calls are in the cache (:class:`judge.cache.CacheStorageError`,
    :class:`judge.record.atomic.RunWriteError`)."""
    from judge.redact import redact

    echo_err(f"simjudge: error: {redact(str(exc))}")
    raise typer.Exit(1)


def interrupted(exc: BaseException) -> NoReturn:
    """Ctrl-C (SIGINT): one line on stderr — what was stopped and what the cache kept
    (:class:`judge.errors.RunInterrupted`), or that nothing was judged yet — and exit status
    130 (128 + SIGINT, the shells' convention)."""
    from judge.errors import RunInterrupted

    text = (exc.message() if isinstance(exc, RunInterrupted)
            else "interrupted before any judge call; nothing written")
    echo_err(f"simjudge: {text}")
    raise typer.Exit(130)


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
        echo_err(f"simjudge: warning: {redact(str(message))}")

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
