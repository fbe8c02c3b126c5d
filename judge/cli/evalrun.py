"""``simjudge eval`` behind its flags: check every option, build the judge(s), load the items,
evaluate, write the run — in that order, so bad input fails (exit 2) before any judge call and
before anything is written."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge.errors import InputError


@dataclass
class EvalRequest:
    """The ``eval`` command's arguments (see ``simjudge eval --help`` for each)."""

    data: Path
    task: str = "selection"
    judges: list[str] = field(default_factory=list)
    judges_file: Path | None = None
    vote: str = "mean"
    quorum: int = 1
    tau: float = 0.7
    tau_from: Path | None = None
    bootstrap: int = 1000
    seed: int = 0
    out_dir: Path | None = None
    overwrite: bool = False
    pred_field: str | None = None
    truth_field: str | None = None
    id_fields: list[str] = field(default_factory=list)
    gold: Path | None = None
    max_chars: int = 4096
    where: list[str] = field(default_factory=list)
    context: str = ""
    fc_format: str = "seed"
    functions: Path | None = None
    arg_judge: str | None = None
    arg_tau: float = 0.7
    cache_dir: Path | None = None
    cache_mode: str = "read-write"
    judge_flags: dict[str, Any] = field(default_factory=dict)
    probes: list[str] = field(default_factory=list)
    repeats: int = 1
    command: list[str] = field(default_factory=list)
    dry_run: bool = False
    max_usd: float | None = None
    batch_api: bool = False


def _judge(r: EvalRequest, task: Any, options: Any) -> tuple[Any, float, dict[str, Any] | None]:
    """The task's judge (a panel for several), the τ to use and its calibration provenance."""
    from judge.calibration.taufile import tau_from_calibration
    from judge.cli.options import build_judges
    from judge.judges.panel import Panel
    from judge.judges.registry import parse_judge_spec

    tau, calibration = r.tau, None
    if r.tau_from is not None and not task.uses_tau:
        raise InputError(f"--tau-from is not used by --task {task.name} (τ applies to "
                         "selection matching; for function calls use --arg-tau)",
                         field="tau-from")
    if task.judge_role == "arg_judge":
        if r.arg_judge is None:
            return None, tau, None
        from dataclasses import replace

        return parse_judge_spec(r.arg_judge, replace(options, scorer="argument_equivalence@v1")
                                ), tau, None
    if task.judge_role != "judge":
        return None, tau, None
    from judge.probes.repeat import repeated

    judges = build_judges(r.judges, r.judges_file, options)
    try:
        judge = judges[0] if len(judges) == 1 else Panel(judges, r.vote, r.quorum, tau)
    except ValueError as exc:
        raise InputError(str(exc), field="judge") from None
    if r.tau_from is not None:  # τ calibrated for this judge (a panel: under its own id)
        tau, calibration = tau_from_calibration(r.tau_from, judge.id)
        if isinstance(judge, Panel):
            judge.tau = tau
    return repeated(judge, r.repeats, r.vote, r.quorum, tau), tau, calibration


def run_eval(r: EvalRequest, progress_factory: Callable[..., Any] | None = None) -> Any:
    """Check, judge, score and write; returns the written
    :class:`~judge.record.runrecord.RunRecord`.

    Raises:
        InputError: any bad option or input (before any judge call or write).
        judge.errors.CacheMissError: a needed call in ``cache-only`` mode.
        judge.errors.BatchPendingError: ``--batch-api`` lost track of a running batch.
        OSError: the disk refused a write (:class:`judge.cache.CacheStorageError`,
            :class:`judge.record.atomic.RunWriteError`).
    """
    from judge.cache import JudgeCache
    from judge.calibration.taufile import tau_samples
    from judge.cli.checks import check_judge_use, check_min, check_unit, parse_probe
    from judge.cli.options import judge_options
    from judge.io import file_sha256
    from judge.pipeline.dryrun import check_budget, dry_run
    from judge.pipeline.evaluate import check_probes, run_evaluation
    from judge.record.atomic import default_run_dir, prepare_out_dir
    from judge.record.store import write_run
    from judge.runs.report import RENDERERS
    from judge.tasks.base import Params, Source
    from judge.tasks.registry import get_task

    task = get_task(r.task)
    if not 0.0 <= r.tau <= 1.0:
        raise InputError(f"tau must be in [0, 1], got {r.tau}", field="tau")
    check_judge_use(task, bool(r.judges), r.judges_file is not None, r.arg_judge is not None)
    check_min("quorum", r.quorum, 1)
    check_min("bootstrap", r.bootstrap, 0, " (0 = no CIs)")
    check_unit("arg-tau", r.arg_tau)
    swap = parse_probe(r.probes)
    check_min("repeats", r.repeats, 1)
    options = judge_options(**r.judge_flags)
    judge, tau, calibration = _judge(r, task, options)  # built, so checked, before any data
    samples = None
    if calibration is not None and r.tau_from is not None:
        samples = tau_samples(r.tau_from, calibration["judge"])
        calibration["tau_samples"] = len(samples or [])
    if r.repeats > 1 and judge is None:
        raise InputError(f"--repeats needs a judge, and --task {task.name} uses none here",
                         field="repeats")
    check_probes(task, judge, swap)
    check_budget(judge, r.max_usd)
    items = task.load(Source(r.data, r.gold, r.pred_field, r.truth_field, tuple(r.id_fields),
                             tuple(r.where), r.fc_format, r.functions, r.max_chars))
    params = Params(tau=tau, context=r.context, fc_format=r.fc_format, arg_tau=r.arg_tau)
    if r.dry_run:  # estimate, call nothing, write nothing
        return dry_run(task, judge, items, params, JudgeCache(r.cache_dir, "read-only"),
                       batch_api=r.batch_api)
    run_dir = r.out_dir or default_run_dir(task.name)  # runs/<UTC time>-<task>-<pid>
    prepare_out_dir(run_dir, r.overwrite)  # before any judge call
    extra = {
        "command": r.command,
        "data": {"path": str(r.data), "sha256": file_sha256(r.data)},
        "functions": ({"path": str(r.functions), "sha256": file_sha256(r.functions)}
                      if r.functions else None),
        "gold": {"path": str(r.gold), "sha256": file_sha256(r.gold)} if r.gold else None,
        "fields": {"pred": r.pred_field, "truth": r.truth_field, "id": r.id_fields,
                   "where": r.where},
        "tau_from": calibration,
    }
    cache = JudgeCache(r.cache_dir, r.cache_mode)
    try:
        record = run_evaluation(items, task, judge, params, cache=cache, config_extra=extra,
                                progress_factory=progress_factory, bootstrap=r.bootstrap,
                                seed=r.seed, swap=swap, tau_samples=samples,
                                max_usd=r.max_usd, batch_api=r.batch_api, run_dir=run_dir)
    finally:
        cache.close()
    written = progress_factory(1, None, "writing") if progress_factory else None
    record.path = write_run(record, run_dir, r.overwrite, renderers=RENDERERS)
    if written is not None:
        written(1)
    return record
