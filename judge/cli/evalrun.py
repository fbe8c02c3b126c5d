"""``simjudge eval`` behind its flags: hand the :class:`~judge.pipeline.config.EvalConfig` to
the pipeline (:func:`judge.pipeline.run.run`), which checks every option, builds the judge(s),
loads the items, evaluates and writes the run — in that order, so bad input fails (exit 2)
before any judge call and before anything is written."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from judge.pipeline.config import EvalConfig


def run_eval(config: EvalConfig, progress_factory: Callable[..., Any] | None = None) -> Any:
    """Run ``config`` with the audit report rendered into the run directory (default
    ``runs/<UTC time>-<task>-<pid>``); returns the written
    :class:`~judge.record.runrecord.RunRecord`, or the estimate of ``--dry-run``.

    Raises:
        InputError: any bad option or input (before any judge call or write).
        judge.errors.CacheMissError: a needed call in ``cache-only`` mode.
        judge.errors.BatchPendingError: ``--batch-api`` lost track of a running batch.
        OSError: the disk refused a write (:class:`judge.cache.CacheStorageError`,
            :class:`judge.record.atomic.RunWriteError`).
    """
    from judge.pipeline.run import run
    from judge.record.atomic import default_run_dir
    from judge.runs.report import RENDERERS

    if config.out_dir is None and not config.dry_run:  # the command line always writes a run
        config = replace(config, out_dir=default_run_dir(config.task))
    return run(config, renderers=RENDERERS, progress_factory=progress_factory)


def read_overrides(paths: Sequence[Path] | None) -> Any:
    """``--overrides``: the :class:`~judge.tasks.overrides.HumanOverrides` of the label files
    (:func:`judge.calibration.overrides.read_overrides`), or None without any.

    Raises:
        InputError: an unreadable file or a bad label (file, line and field named).
    """
    if not paths:
        return None
    from judge.calibration.overrides import read_overrides as read

    return read(paths)
