"""``simjudge eval`` behind its flags: hand the :class:`~judge.pipeline.config.EvalConfig` to
the pipeline (:func:`judge.pipeline.run.run`), which checks every option, builds the judge(s),
loads the items, evaluates and writes the run — in that order, so bad input fails (exit 2)
before any judge call and before anything is written — and what ``eval`` prints once the run
is written (:func:`report_run`: tables, early stops, cache refusals, exit status)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from judge.cli.common import err
from judge.pipeline.config import EvalConfig


def run_eval(config: EvalConfig, progress_factory: Callable[..., Any] | None = None,
             renderers: dict[str, Any] | None = None) -> Any:
    """Run ``config`` with the audit report (and ``renderers``' files) rendered into the run
    directory (default ``runs/<UTC time>-<task>-<pid>``); returns the written
    :class:`~judge.record.runrecord.RunRecord`, or the estimate of ``--dry-run``.

    Raises:
        InputError: any bad option or input (before any judge call or write).
        judge.errors.CacheMissError: a needed call in ``cache-only`` mode.
        judge.errors.BatchPendingError: ``--batch-api`` lost track of a running batch.
        OSError: the disk refused a write (:class:`judge.cache.CacheStorageError`,
            :class:`judge.record.atomic.RunWriteError`).
    """
    from judge.pipeline.run import run
    from judge.record.outdir import default_run_dir
    from judge.runs.report import RENDERERS

    if config.out_dir is None and not config.dry_run:  # the command line always writes a run
        config = replace(config, out_dir=default_run_dir(config.task))
    return run(config, {**RENDERERS, **(renderers or {})}, progress_factory)


def parse_limit(text: str | None) -> int | None:
    """``--limit N``: N, a whole number >= 1 (None when not given).

    Raises:
        InputError: (field ``limit``) anything else: ``0``, ``-3``, ``2.5``, ``ten``.
    """
    if text is None:
        return None
    from judge.errors import InputError

    value = text.strip()
    if not (value.isascii() and value.isdigit()) or int(value) < 1:
        raise InputError(f"--limit must be a whole number >= 1 (the items to score), got "
                         f"{text!r}", field="limit")
    return int(value)


def report_run(record: Any, quiet: bool, as_json: bool) -> int:
    """What ``eval`` prints once the run is written (or estimated), and its exit status.

    Default: the summary tables, ``run written to DIR`` and ``report: DIR/report.html`` on
    stdout. ``as_json`` (``--json``): the run's ``summary.json`` object (``--dry-run``: the
    estimate) as JSON on stdout, nothing else there; the two lines go to stderr. ``quiet``
    (``--quiet``): no tables and no lines. Early stops, cache refusals and failed pairs are
    reported on stderr in every mode.

    Args:
        record: the :class:`~judge.record.runrecord.RunRecord` written, or the ``--dry-run``
            estimate (a dict).
        quiet, as_json: ``--quiet``, ``--json``.

    Returns:
        1 when some judged pairs failed, a judge stopped early or the cache refused writes,
        else 0.
    """
    import json

    from judge.cli.common import out
    from judge.display import dry_run_summary, eval_summary, print_all

    if isinstance(record, dict):  # --dry-run
        if as_json:
            print(json.dumps(record, ensure_ascii=False, indent=2))
        elif not quiet:
            print_all(out, dry_run_summary(record))
        return 0
    summary = record.summary
    if as_json:
        print(_summary_text(record))
    elif not quiet:
        print_all(out, eval_summary(summary))
    if not quiet:
        where = err if as_json else out
        for line in (f"run written to {record.path}", f"report: {record.path}/report.html"):
            where.print(line, highlight=False, markup=False, soft_wrap=True)
    failed = sum(v for k, v in summary.outcomes.items() if k != "ok")
    failed += (summary.get("panel") or {}).get("undecided", 0)
    stopped = summary.stopped_early
    report_stops(stopped)
    refused = report_cache(summary, record.path)
    if failed:
        err.print(f"{failed} judged pair(s) failed: see 'outcomes' in summary.json",
                  highlight=False)
    return 1 if failed or stopped or refused else 0


def _summary_text(record: Any) -> str:
    """The run's ``summary.json`` as written (read back, so stdout holds exactly the file)."""

    return (Path(record.path) / "summary.json").read_text(encoding="utf-8").rstrip("\n")


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

