"""The one entry point of an evaluation: :func:`run` (``EvalConfig`` → ``RunRecord``), shared by
``simjudge eval`` and the Python API :func:`judge.evaluate`.

Order, so that bad input fails (exit 2 on the command line) before any judge call and before
anything is written: every option is checked and the judges are built; the items are loaded
and checked; the output directory is checked; then the judges are called, the items scored
and the run written atomically. The run's input provenance (files and their sha256, fields,
the command; records given in memory copied into the run directory;
:mod:`judge.pipeline.inputs`) is recorded with it, for the command line and the Python API
alike, so ``rescore`` and ``export`` work on either.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from judge.cache import JudgeCache
from judge.errors import InputError, RunInterrupted
from judge.items import Item
from judge.judges.base import Judge
from judge.judges.keys import keys_optional
from judge.pipeline.checks import check_judge_use, check_max_chars, check_min, parse_probe
from judge.pipeline.config import EvalConfig
from judge.pipeline.evaluate import ProgressFactory, check_probes, evaluate_judged, with_tau_cis
from judge.pipeline.inputs import load_items, provenance
from judge.record.runrecord import RunRecord
from judge.record.store import INPUT_FILE, Renderer, write_run
from judge.tasks.base import Judged, Params, Task
from judge.tasks.options import task_options
from judge.tasks.overrides import HumanOverrides
from judge.tasks.registry import get_task, option_owners, options_model


def build_judge(config: EvalConfig, task: Task, options: Any
                ) -> tuple[Judge | None, float, dict[str, Any] | None]:
    """The task's judge (several: a :class:`~judge.judges.panel.Panel`; repeats wrapped), the
    τ to use and its calibration provenance (``tau_from``), built — so checked — before any
    data is read.

    Raises:
        InputError: a bad judge spec or judges file, a bad vote or quorum, ``tau_from`` for a
            task without τ or a calibration without this judge.
    """
    from judge.judges.judgesfile import build_judges
    from judge.judges.options import JudgeOptions
    from judge.judges.panel import Panel
    from judge.judges.registry import parse_judge_spec
    from judge.probes.repeat import repeated

    tau, calibration = config.tau, None
    jopts = config.judge_options or JudgeOptions()
    if config.tau_from is not None and not task.uses_tau:
        raise InputError(f"--tau-from is not used by --task {task.name} (τ applies to "
                         "selection matching; for function calls use --arg-tau)",
                         field="tau-from")
    if task.judge_role == "arg_judge":
        spec = getattr(options, "arg_judge", None)
        if spec is None:  # a Judge object given by the Python API, or none
            return next((j for j in config.judges if not isinstance(j, str)), None), tau, None
        return parse_judge_spec(spec, replace(jopts, scorer="argument_equivalence@v1")
                                ), tau, None
    if task.judge_role != "judge":
        return None, tau, None
    specs = [j for j in config.judges if isinstance(j, str)]
    given = [j for j in config.judges if not isinstance(j, str)]
    judges = [*given, *build_judges(specs, config.judges_file, jopts)] if (
        specs or not given or config.judges_file) else given
    try:
        judge = judges[0] if len(judges) == 1 else Panel(judges, config.vote, config.quorum,
                                                         tau)
    except ValueError as exc:
        raise InputError(str(exc), field="judge") from None
    if config.tau_from is not None:  # τ calibrated for this judge (a panel: under its own id)
        tau, calibration = calibrated_tau(config, judge)
        if isinstance(judge, Panel):
            judge.tau = tau
    return repeated(judge, config.repeats, config.vote, config.quorum, tau), tau, calibration


def calibrated_tau(config: EvalConfig, judge: Judge) -> tuple[float, dict[str, Any]]:
    """τ of ``config.tau_from`` for ``judge`` and its provenance, checked against the judge's
    calibration identity (:func:`judge.judges.identity.judge_identity`, with the run's
    ``context``); ``repeats`` > 1 averages samples, which the calibrated scores were not, so it
    is one more difference. A stale calibration allowed by ``config.allow_stale_calibration`` is
    warned of (:class:`judge.errors.StaleCalibrationWarning`).

    Raises:
        InputError: as :func:`judge.pipeline.taufile.tau_from_calibration`.
    """
    import warnings

    from judge.errors import StaleCalibrationWarning
    from judge.judges.identity import judge_identity
    from judge.pipeline.taufile import tau_from_calibration

    assert config.tau_from is not None
    identity = judge_identity(judge, config.context)
    if config.repeats > 1:  # the calibrated judge scored each pair once
        identity = {**identity, "repeats": config.repeats}
    tau, calibration = tau_from_calibration(config.tau_from, judge.id, identity,
                                            config.allow_stale_calibration)
    if calibration["stale"]:
        warnings.warn(f"{config.tau_from}: using τ {tau:g} of a stale calibration (made with "
                      f"another judge): {calibration['stale_message']}",
                      StaleCalibrationWarning, stacklevel=2)
    return tau, calibration


def run(config: EvalConfig, renderers: Mapping[str, Renderer] | None = None,
        progress_factory: ProgressFactory | None = None) -> RunRecord | dict[str, Any]:
    """Check, judge, score and (with ``config.out_dir``) write one evaluation: the record of
    :func:`run_judged`."""
    return run_judged(config, renderers, progress_factory)[0]


def run_judged(config: EvalConfig, renderers: Mapping[str, Renderer] | None = None,
               progress_factory: ProgressFactory | None = None
               ) -> tuple[RunRecord | dict[str, Any], Judged | None]:
    """Check, judge, score and (with ``config.out_dir``) write one evaluation.

    Args:
        config: the evaluation (:class:`~judge.pipeline.config.EvalConfig`).
        renderers: files rendered into the run directory from the record (``simjudge eval``
            and :func:`judge.evaluate` pass :data:`judge.runs.report.RENDERERS`).
        progress_factory: progress-bar factory (:data:`judge.pipeline.evaluate.ProgressFactory`).

    Returns:
        ``(record, judged)``: the :class:`~judge.record.runrecord.RunRecord` (``path`` set when
        written) and the task's :class:`~judge.tasks.base.Judged` (verdict objects and
        similarity matrices, for the Python API); with ``config.dry_run`` the estimate of
        :func:`judge.pipeline.dryrun.dry_run` and None.

    Raises:
        InputError: any bad option or input — before any judge call or write.
        judge.errors.CacheMissError: a needed call in ``cache-only`` mode.
        judge.errors.BatchPendingError: ``batch_api`` lost track of a running batch.
        OSError: the disk refused a write (:class:`judge.cache.CacheStorageError`,
            :class:`judge.record.atomic.RunWriteError`).
    """
    from judge.pipeline.checks import check_cache_mode
    from judge.pipeline.dryrun import check_budget, dry_run
    from judge.pipeline.taufile import tau_samples
    from judge.record.outdir import prepare_out_dir

    task = get_task(config.task)
    if not 0.0 <= config.tau <= 1.0:  # NaN included
        raise InputError(f"tau must be in [0, 1], got {config.tau}", field="tau")
    check_cache_mode(config.cache_mode)
    check_max_chars(config.max_chars)
    options = task_options(options_model(task.name), config.task_options, task.name,
                           option_owners())
    check_judge_use(task, any(isinstance(j, str) for j in config.judges),
                    config.judges_file is not None, False)
    check_min("quorum", config.quorum, 1)
    check_min("bootstrap", config.bootstrap, 0, " (0 = no CIs)")
    swap = parse_probe(list(config.probes))
    check_min("repeats", config.repeats, 1)
    check_min("limit", config.limit, 1, " (the items to score)")
    # a dry run and a cache-only run call nothing: they need no API key
    with keys_optional(config.dry_run or config.cache_mode == "cache-only"):
        judge, tau, calibration = build_judge(config, task, options)
    samples = None
    if calibration is not None and config.tau_from is not None:
        samples = tau_samples(config.tau_from, calibration["judge"])
        calibration["tau_samples"] = len(samples or [])
    if config.repeats > 1 and judge is None:
        raise InputError(f"--repeats needs a judge, and --task {task.name} uses none here",
                         field="repeats")
    check_probes(task, judge, swap)
    check_budget(judge, config.max_usd)
    items = load_items(config, task, options)
    options = task.settled_options(items, options)
    if config.overrides is not None:  # labels naming no pair of the run: before any call
        check_overrides(task, items, config.overrides)
    for check in config.item_checks:
        check(items, task)
    params = Params(tau=tau, zero_division=config.zero_division, context=config.context,
                    options=options, overrides=config.overrides)
    if config.dry_run:  # estimate, call nothing, write nothing
        return dry_run(task, judge, items, params, JudgeCache(config.cache_dir, "read-only"),
                       batch_api=bool(config.batch_api)), None
    extra, copy = provenance(config, task, options, calibration)
    if config.out_dir is not None:
        prepare_out_dir(Path(config.out_dir), config.overwrite)  # before any judge call
    cache = JudgeCache(config.cache_dir, config.cache_mode)
    try:
        with long_lived_heap():
            return _judge_and_write(config, items, task, judge, params, cache, extra, copy, swap,
                                    tau, samples, renderers, progress_factory)
    except KeyboardInterrupt as exc:  # Ctrl-C: no run written, the finished answers cached
        cache.flush()  # the answers a full disk refused, one more try
        raise RunInterrupted(cache.stored, str(cache.directory), cache.mode,
                             len(cache.unstored)) from exc
    finally:
        cache.close()


GC_YOUNG = 200_000
"""Allocations that trigger a collection of the youngest generation during a run (CPython's
default is 700): see :func:`long_lived_heap`. On a 10,000-pair ``--judge local`` eval its
young collections took 0.20–0.22 s of CPU at 20,000 and 0.06–0.11 s at 200,000, which also
leaves no middle-generation collection (8 at 20,000)."""


@contextlib.contextmanager
def long_lived_heap() -> Iterator[None]:
    """Fewer and shorter garbage collections while a run judges, scores and writes.

    A run keeps what it builds (a matrix, a verdict and an item row per item) until it is
    written, and each full collection of CPython's collector walks every object of the
    process, the imported modules' included: on a 10,000-pair ``--judge local`` eval, 5 full
    collections took ~1.0 s of CPU (timed with :data:`gc.callbacks`). Inside this context the
    objects that exist when it starts (imported modules, the loaded items) are left out of
    the collector's walks (:func:`gc.freeze`) and the youngest generation is collected every
    :data:`GC_YOUNG` allocations: 1 full collection and ~0.3 s on that run. Both are undone
    at the end; cyclic garbage is still collected during the run, less often. Nothing is
    changed when the collector is disabled or when objects are frozen already (by a pre-fork
    server, or an enclosing run): their freeze is left as it is.
    """
    if not gc.isenabled() or gc.get_freeze_count():
        yield
        return
    old = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(old[0], GC_YOUNG), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)
        gc.unfreeze()


def _judge_and_write(config: EvalConfig, items: list[Item], task: Task, judge: Judge | None,
                     params: Params, cache: JudgeCache, extra: dict[str, Any],
                     copy: str | None, swap: float, tau: float, samples: Any,
                     renderers: Mapping[str, Renderer] | None,
                     progress_factory: ProgressFactory | None
                     ) -> tuple[RunRecord, Judged]:
    """The part of :func:`run_judged` after every check: judge, score, write."""
    from judge.record.atomic import RunWriteError

    record, judged = evaluate_judged(
        items, task, judge, params, cache=cache, config_extra=extra,
        progress_factory=progress_factory, bootstrap=config.bootstrap, seed=config.seed,
        swap=swap, max_usd=config.max_usd, batch_api=config.batch_api,
        run_dir=Path(config.out_dir) if config.out_dir is not None else None)
    if samples:
        with_tau_cis(record, task, tau, samples, config.bootstrap, config.seed)
    if config.out_dir is not None:
        files = dict(renderers or {})
        if copy is not None:
            files[INPUT_FILE] = _writer(copy)
        written = progress_factory(1, None, "writing") if progress_factory else None
        try:
            record.path = write_run(record, Path(config.out_dir), config.overwrite,
                                    renderers=files)
        except RunWriteError as exc:
            held = (record.summary.to_row().get("cache_refused") or {}).get("unstored")
            if not held:
                raise
            raise RunWriteError(f"{exc}; except the {held} answer(s) the cache had refused "
                                "too, which are lost") from exc
        if written is not None:
            written(1)
    return record, judged


def check_overrides(task: Task, items: list[Item], overrides: HumanOverrides) -> None:
    """Refuse human overrides for a task without judged matrices, or naming a pair the items
    do not have (:meth:`judge.tasks.overrides.HumanOverrides.check`).

    Raises:
        InputError: either (the label's file, line and field named).
    """
    groups = task.pair_groups(items)
    if groups is None:
        raise InputError(f"--overrides applies to tasks whose judge scores pairs into "
                         f"similarity matrices (selection, spans), not --task {task.name}",
                         field="overrides")
    overrides.check(groups)


def _writer(text: str) -> Callable[[RunRecord, str, IO[str]], None]:
    """A renderer that writes ``text`` as it is."""
    def write(record: RunRecord, name: str, out: IO[str]) -> None:
        out.write(text)
    return write


__all__ = ["EvalConfig", "build_judge", "calibrated_tau", "load_items", "provenance", "run",
           "run_judged"]
