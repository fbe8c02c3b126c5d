"""The evaluation pipeline shared by ``simjudge eval`` and the Python API :func:`evaluate`.

:func:`run_evaluation` judges and scores items for a :class:`~judge.tasks.base.Task` and returns
the typed :class:`~judge.record.runrecord.RunRecord`; it writes nothing. Writing the run directory
(atomically, with its ``report.html``) is :func:`judge.record.store.write_run`'s job.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge import aio
from judge.cache import JudgeCache
from judge.errors import InputError
from judge.items import Item
from judge.judges.base import Judge, JudgeContext
from judge.judges.llm.batchstate import BatchLimits
from judge.judges.llm.endpoints import endpoint_summary
from judge.pipeline.uncertainty import bootstrap_cis, joint_tau_cis
from judge.record.config import SCHEMA_VERSION
from judge.record.runrecord import RunRecord
from judge.record.verdictlog import VerdictLog
from judge.tasks.base import Judged, Params, Task
from judge.tasks.registry import get_task
from judge.versions import package_versions

if TYPE_CHECKING:
    pass

ProgressFactory = Callable[..., Callable[[int], None]]
"""``(total units, live JudgeStats or None[, phase label]) -> advance(n)``: a progress-bar
factory (:func:`judge.cli.common.progress`); judging counts pairs."""


def evaluate_judged(items: Sequence[Item], task: Task | str, judge: Judge | None,
                    params: Params | None = None, *, cache: JudgeCache | None = None,
                    config_extra: Mapping[str, Any] | None = None,
                    progress_factory: ProgressFactory | None = None, bootstrap: int = 1000,
                    seed: int = 0, swap: float = 0.0,
                    max_usd: float | None = None, batch_api: bool | BatchLimits = False,
                    run_dir: Path | None = None) -> tuple[RunRecord, Judged]:
    """:func:`run_evaluation`, also returning the task's :class:`~judge.tasks.base.Judged`
    (verdict objects and similarity matrices, for the Python API)."""
    task = get_task(task) if isinstance(task, str) else task
    params = params or Params()
    task.check_judge(judge)
    check_probes(task, judge, swap)
    cache = cache or JudgeCache()
    t0 = time.perf_counter()
    spool_dir = run_dir.parent if run_dir is not None and run_dir.parent.is_dir() else None
    ctx = JudgeContext(cache=cache, context=params.context, max_usd=max_usd,  # verdicts
                       verdict_log=VerdictLog.spool(spool_dir, run_dir))  # streamed to disk
    batches = None
    if batch_api:  # the openai: judges' answers first, through the Batch API
        from judge.judges.llm.batchapi import batch_judges, fetch_batches, release

        chosen = batch_judges(judge, cache.mode)
        groups = [(c, p) for c, p in task.judge_requests(items, params) if p]
        limits = batch_api if isinstance(batch_api, BatchLimits) else None
        batches = aio.run(fetch_batches(chosen, groups, ctx, limits=limits,
                                        progress_factory=progress_factory))
    if judge is not None and progress_factory is not None:
        ctx.progress = progress_factory(task.work_units(items, judge), ctx.stats)
    judged = aio.run(task.judge(items, judge, ctx, params))
    if batches is not None:
        release(ctx)  # the fetched answers' scratch file
    probes = _probes(task, judge, judged, ctx, params, swap, bootstrap, seed, progress_factory)
    unstored = _unstored(cache)
    if unstored:  # answers the cache refused (disk full): kept in the run, none lost
        judged.extra_jsonl[UNSTORED_FILE] = unstored
    matched = progress_factory(len(items), None, "matching") if progress_factory else None
    rows, metrics = task.score(items, judged, params)
    scoring = task.scoring(params.options)
    if matched is not None:
        matched(len(items))
    summary: dict[str, Any] = {
        "task": task.name, "n_items": len(items), "metrics": metrics,
        "bootstrap": bootstrap_cis(scoring.metrics_from_rows, rows, bootstrap, seed,
                                   resample=scoring.resampled) if rows else {},
        "judge_calls": ctx.stats.judge_calls, "cache_hits": ctx.stats.cache_hits,
        "tokens_in": ctx.stats.tokens_in, "tokens_out": ctx.stats.tokens_out,
        "cost_usd": round(ctx.stats.cost_usd, 6), **judged.accounting,
        # judges stopped early by repeated fatal failures (judge.judges.failures)
        "stopped_early": [s.summary() for s in ctx.early_stops.values() if s.stopped],
        "wall_s": round(time.perf_counter() - t0, 6),
        **({"probes": probes} if probes else {}),
        # only the rows naming a grade scorer are decoded (a large run's log is on disk)
        **_logprob_counts(judged.log.rows(containing="grade")),
        **endpoint_summary(judge), **({"batch_api": batches} if batches else {}),
        **_budget_summary(ctx), **cache.storage_summary(),
    }
    config: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "created_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "task": task.name, "tau": params.tau, "context": params.context,
        "zero_division": params.zero_division,
        "judge": judge.describe() if judge is not None else None,
        "cache": {"directory": str(cache.directory), "mode": cache.mode},
        "versions": package_versions(), **(dict(config_extra or {})),
    }
    config.update(task.config_entries(params))
    record = RunRecord.model_validate({"config": config, "summary": summary, "items": rows,
                                       "verdicts": judged.log,
                                       "extra": judged.extra_jsonl})
    return record, judged


UNSTORED_FILE = "unstored_answers.jsonl"
"""The run file of the answers the cache refused (:func:`judge.jsoncache.unstored_rows`)."""


def _unstored(cache: JudgeCache) -> list[dict[str, Any]]:
    """The rows of :data:`UNSTORED_FILE`: the answers the cache still refuses after one more
    try (:meth:`judge.cache.JudgeCache.flush`); [] when it holds none."""
    from judge.jsoncache import unstored_rows

    if not cache.unstored:
        return []
    cache.flush()
    return unstored_rows(cache.unstored)


def _budget_summary(ctx: JudgeContext) -> dict[str, Any]:
    """``{"budget": …}`` (:meth:`judge.judges.budget.Budget.summary`) of a run with
    ``--max-usd``; {} without."""
    if ctx.budget is None:
        return {}
    skipped = sum(s.not_attempted for s in ctx.early_stops.values() if s.cause == "budget")
    return {"budget": ctx.budget.summary(skipped)}


def check_probes(task: Task, judge: Judge | None, swap: float) -> None:
    """Check the swap probe's share before any judge call.

    Raises:
        InputError: (field ``probe``) ``swap`` outside [0, 1]; a probe on a run without a
            judge, or on a task whose pairs cannot be swapped (``task.probe_reason``).
    """
    if not 0.0 <= swap <= 1.0:
        raise InputError(f"--probe swap=FRACTION takes a share in (0, 1], got {swap}",
                         field="probe")
    if swap > 0 and judge is None:
        raise InputError(f"--probe needs a judge, and this --task {task.name} run has none",
                         field="probe")
    if swap > 0 and task.probe_reason is not None:
        raise InputError(task.probe_reason, field="probe")


def _probes(task: Task, judge: Judge | None, judged: Judged, ctx: JudgeContext,
            params: Params, swap: float, n_boot: int, seed: int,
            progress_factory: ProgressFactory | None) -> dict[str, Any]:
    """Run the judge probes asked for (:mod:`judge.probes`); their per-pair rows go to
    ``judged.extra_jsonl`` (``swap_probe.jsonl``, ``repeat_probe.jsonl``), their summaries are
    returned for ``summary.json``'s ``probes``."""
    from judge.probes.repeat import Repeats, repeat_probe
    from judge.probes.swap import forward_scores, sample_keys, swap_probe

    out: dict[str, Any] = {}
    if judge is None:
        return out
    if isinstance(judge, Repeats):
        rows, out["repeat"] = repeat_probe(judged.rows(), judge, params.tau, n_boot, seed)
        judged.extra_jsonl["repeat_probe.jsonl"] = rows
    if swap > 0:
        pctx = JudgeContext(cache=ctx.cache, context=params.context, stats=ctx.stats,
                            max_usd=ctx.max_usd, budget=ctx.budget,
                            early_stops=ctx.early_stops)
        if progress_factory is not None:
            n = len(sample_keys(list(forward_scores(judged.rows())), swap, seed))
            pctx.progress = progress_factory(n, ctx.stats)
        rows, out["swap"] = aio.run(swap_probe(judge, judged.rows(), pctx, swap,
                                               params.tau, seed, n_boot))
        judged.extra_jsonl["swap_probe.jsonl"] = rows
    return out


def _logprob_counts(verdict_rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """``{"logprobs": {"verdicts", "with_distribution", "fallback"}}`` when any verdict came
    from a grade scorer asked for logprobs (``--score-mode logprob``): ``fallback`` counts the
    ``ok`` verdicts whose reply had no logprobs (score = the sampled grade: the verdict's
    ``logprob_fallback`` field, never its rationale's words); {} otherwise."""
    graded = with_dist = fallback = 0
    for r in verdict_rows:  # one pass, nothing kept: a large run's log is read from disk
        if r.get("outcome") == "ok" and "grade" in str(r.get("scorer", "")):
            dist = r.get("distribution")
            graded, with_dist = graded + 1, with_dist + (dist is not None)
            fallback += bool(r.get("logprob_fallback"))
    if not graded:
        return {}
    return {"logprobs": {"verdicts": graded, "with_distribution": with_dist, "fallback": fallback}}


def run_evaluation(items: Sequence[Item], task: Task | str, judge: Judge | None,
                   params: Params | None = None, *, cache: JudgeCache | None = None,
                   config_extra: Mapping[str, Any] | None = None,
                   progress_factory: ProgressFactory | None = None, bootstrap: int = 1000,
                   seed: int = 0, swap: float = 0.0,
                   tau_samples: Sequence[float] | None = None,
                   max_usd: float | None = None, batch_api: bool | BatchLimits = False,
                   run_dir: Path | None = None) -> RunRecord:
    """Judge (when the task uses a judge) and score ``items``; write nothing.

    Args:
        items: evaluation items (loaded by ``task.load`` or ``task.from_dicts``).
        task: a :class:`~judge.tasks.base.Task` or its registered name.
        judge: the task's judge (``selection``/``spans``: the similarity judge, required;
            ``function-call``: the optional argument judge; None for the others).
        params: τ, zero_division, context and the task's own options.
        cache: the judge-call cache (default: read-write in the default directory).
        config_extra: more ``config.json`` entries (data file hashes, CLI arguments).
        progress_factory: progress-bar factory (see :data:`ProgressFactory`).
        bootstrap: resamples of the 95 % CIs of the dataset metrics (items resampled; 0 =
            none); seed: its random seed (also of the swap probe's sample).
        swap: share of the judged ``ok`` pairs re-judged with pred and truth exchanged, in
            [0, 1] (0 = no order-swap probe; :mod:`judge.probes.swap`). A
            :class:`judge.probes.repeat.Repeats` judge adds the repeat probe's summary.
        tau_samples: the calibration's bootstrap τ̂ values (``eval --tau-from``,
            :func:`judge.pipeline.taufile.tau_samples`): ``summary.bootstrap_tau`` then holds
            metric intervals resampling items *and* τ (:func:`judge.pipeline.uncertainty.
            joint_tau_cis`), beside the item-only ``summary.bootstrap``; tasks whose metrics
            cannot be re-matched at another τ get none.
        max_usd: budget in USD (``--max-usd``): LLM judges stop before a call that would
            exceed it (:class:`judge.judges.base.JudgeContext`), their remaining pairs "not
            attempted"; None = no budget.
        batch_api: send the ``openai:`` judges' calls through the provider's Batch API first
            (``--batch-api``, :mod:`judge.judges.llm.batchapi`; resumable, half price); a
            :class:`~judge.judges.llm.batchstate.BatchLimits` sets how requests are split
            into batches and paced (True: OpenAI's limits); ``summary.batch_api`` says per
            judge what its batches did.
        run_dir: the run directory to be written, if known: the verdicts stream to a spool
            file in its parent (else the temporary directory; a failed write is that run's).

    Returns:
        The :class:`~judge.record.runrecord.RunRecord` (``path`` None until written); with probes,
        ``summary.probes`` and the ``swap_probe.jsonl`` / ``repeat_probe.jsonl`` rows.

    Raises:
        judge.errors.InputError: unknown task; a task that needs a judge without one; a swap
            probe on a task whose pairs cannot be swapped (``task.probe_reason``).
        judge.errors.CacheMissError: a needed judge call in ``cache-only`` mode.
        judge.cache.CacheStorageError: the cache refused a write (disk full…): the run stops;
            answers stored before are kept.
        judge.errors.BatchPendingError: ``batch_api`` and a batch could not be followed to its
            end (it keeps running; the same call resumes it).
        judge.record.atomic.RunWriteError: the verdict spool's disk refused a write.
    """
    record = evaluate_judged(items, task, judge, params, cache=cache,
                             config_extra=config_extra, progress_factory=progress_factory,
                             bootstrap=bootstrap, seed=seed, swap=swap, max_usd=max_usd,
                             batch_api=batch_api, run_dir=run_dir)[0]
    if tau_samples:
        with_tau_cis(record, get_task(task) if isinstance(task, str) else task,
                     (params or Params()).tau, tau_samples, bootstrap, seed)
    return record


def with_tau_cis(record: RunRecord, task: Task, tau: float, tau_samples: Sequence[float],
                 bootstrap: int, seed: int) -> None:
    """Add ``summary.bootstrap_tau`` to ``record``: metric intervals resampling items *and* τ
    (the calibration's bootstrap τ̂ values, :func:`judge.pipeline.uncertainty.joint_tau_cis`),
    for tasks whose metrics can be re-matched at another τ (others get none)."""
    if not tau_samples or task.rescore(record, tau) is None:
        return
    scoring = task.scoring(record.config.task_options)

    def rows_at(x: float) -> Any:
        done = task.rescore(record, x)
        assert done is not None
        return done[0]

    record.summary.bootstrap_tau = joint_tau_cis(  # type: ignore[attr-defined]
        rows_at, scoring.metrics_from_rows, len(record.items), tau_samples, bootstrap, seed,
        resample=scoring.resampled)
