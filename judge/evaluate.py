"""The evaluation pipeline shared by ``simjudge eval`` and the Python API :func:`evaluate`."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge import aio
from judge.cache import JudgeCache
from judge.errors import InputError
from judge.fctask import judge_arguments, score_function_call
from judge.items import Item, check_items, check_task, items_from_dicts
from judge.judges import Judge, JudgeContext, parse_judge_spec
from judge.matrix import SimilarityMatrix, build_matrices_async, distinct_pairs
from judge.panel import Panel, agreement
from judge.runs import dumps, prepare_out_dir, write_run
from judge.tasks import (
    score_generation,
    score_judgment,
    score_multilabel,
    score_ranking,
    score_selection,
)
from judge.uncertainty import bootstrap_cis
from judge.verdict import OUTCOMES, Verdict
from judge.versions import package_versions


@dataclass
class EvalResult:
    """What an evaluation produced.

    Attributes:
        config: the run's configuration (``config.json``).
        summary: dataset metrics and accounting (``summary.json``).
        items: per-item metrics and chosen matches (``items.jsonl`` rows).
        verdicts: every judge verdict (``verdicts.jsonl``), one per distinct judged pair.
        matrices: selection task only: each item's :class:`SimilarityMatrix`.
        run_dir: where the run was written, if it was.
    """

    config: dict[str, Any]
    summary: dict[str, Any]
    items: list[dict[str, Any]]
    verdicts: list[Verdict]
    matrices: list[SimilarityMatrix] = field(default_factory=list)
    run_dir: Path | None = None


def run_evaluation(items: Sequence[Item], task: str, judge: Judge | None, *, tau: float = 0.7,
                   context: str = "", cache: JudgeCache | None = None,
                   zero_division: float = 0.0, config_extra: Mapping[str, Any] | None = None,
                   out: str | Path | None = None, overwrite: bool = False,
                   progress_factory: Callable[[int, Any], Callable[[int], None]] | None = None,
                   bootstrap: int = 1000, seed: int = 0, fc_format: str = "seed",
                   arg_judge: Judge | None = None, arg_tau: float = 0.7) -> EvalResult:
    """Score ``items`` for ``task`` (judging similarity for ``selection``) and optionally write
    the run directory.

    Args:
        items: evaluation items (see :mod:`judge.items`).
        task: one of ``selection``, ``judgment``, ``function-call``, ``generation``,
            ``multilabel``, ``ranking``.
        judge: the similarity judge (used by ``selection``; ignored otherwise).
        tau: matching threshold τ in [0, 1] (selection).
        context: task context passed to prompt judges.
        cache: the judge-call cache (default: read-write in the default directory).
        zero_division: value for undefined ratios (0.0, 1.0 or NaN).
        config_extra: more entries for ``config.json`` (data file hashes, CLI arguments).
        out: run directory to write atomically; None = do not write.
        overwrite: replace an existing non-empty ``out``.
        progress_factory: ``(total_units, stats) -> advance(n)`` callback factory for a
            progress bar (``stats`` is the live :class:`judge.judges.JudgeStats`).
        bootstrap: resamples for the 95 % CIs of the dataset metrics in ``summary.json``
            (resampling items; 0 = none).
        seed: random seed of the bootstrap.
        fc_format: function calls: ``seed``, ``openai`` or ``bfcl`` (see :mod:`judge.fctask`).
        arg_judge: function calls: a judge of string argument equivalence (optional).
        arg_tau: its threshold (a value pair is equivalent when the score is > arg_tau).

    Raises:
        judge.errors.InputError: unknown task, τ outside [0, 1], or ``out`` not writable as
            a run directory (checked before any judge call: see
            :func:`judge.runs.check_out_dir`).
        judge.errors.CacheMissError: a needed judge call in ``cache-only`` mode.
        judge.cache.CacheStorageError: the cache refused a write (disk full…): the run stops;
            answers stored before are kept.
        judge.runs.RunWriteError: writing the run directory failed (disk full…); nothing is
            left there and every completed call is in the cache.
    """
    check_task(task)
    if not 0.0 <= tau <= 1.0:
        raise InputError(f"tau must be in [0, 1], got {tau}", field="tau")
    if out is not None:  # before any judge call: clean up killed runs, check writability
        prepare_out_dir(Path(out), overwrite)
    cache = cache or JudgeCache()
    t0 = time.perf_counter()
    ctx = JudgeContext(cache=cache, context=context)
    accounting: dict[str, Any] = {}
    verdicts: list[Verdict] = []
    verdict_rows: list[dict[str, Any]] = []
    extra: dict[str, list[dict[str, Any]]] = {}
    matrices: list[SimilarityMatrix] = []
    if task == "selection":
        if judge is None:
            raise InputError("task 'selection' needs a judge", field="judge")
        pairs_items = [(i.pred, i.truth) for i in items]
        if progress_factory is not None:
            ctx.progress = progress_factory(judge.work_units(distinct_pairs(pairs_items)[0]),
                                            ctx.stats)
        build = aio.run(build_matrices_async(pairs_items, judge, ctx,
                                                 ids=[i.id for i in items]))
        matrices, verdicts = build.matrices, build.verdicts
        rows, metrics = score_selection(items, matrices, tau, zero_division)
        verdict_rows = [{**v.model_dump(), **({"item_id": i} if i is not None else {})}
                        for v, i in zip(verdicts, build.verdict_items, strict=True)]
        if isinstance(judge, Panel):
            member_ids = [m.id for m in judge.members]
            agree = agreement(judge.member_verdicts, member_ids, tau)
            extra["disagreements.jsonl"] = agree.pop("disagreements")
            accounting["panel"] = {"vote": judge.vote_rule, "quorum": judge.quorum,
                                   "members": member_ids, "undecided": judge.undecided,
                                   "agreement": agree,
                                   "disagreements": len(extra["disagreements.jsonl"])}
            verdict_rows = judge.member_verdicts + verdict_rows
        accounting.update({
            "pairs_total": build.pairs_total, "pairs_exact": build.pairs_exact,
            "pairs_distinct": build.pairs_distinct,
            "pairs_without_verdict": build.pairs_without_verdict,
            "outcomes": {o: build.outcomes.get(o, 0) for o in OUTCOMES},
            "judge_wall_s": round(build.wall_s, 6),
        })
    elif task == "judgment":
        rows, metrics = score_judgment(items, zero_division)
    elif task == "function-call":
        equivalent = None
        if arg_judge is not None:
            equivalent, arg_verdicts = judge_arguments(items, fc_format, arg_judge, ctx, arg_tau)
            verdicts = arg_verdicts
            verdict_rows = [v.model_dump() for v in arg_verdicts]
            accounting["arg_judge"] = {"id": arg_judge.id, "tau": arg_tau,
                                       "pairs_judged": len(arg_verdicts)}
        rows, metrics = score_function_call(items, fc_format, equivalent)
    elif task == "generation":
        rows, metrics = score_generation(items)
    elif task == "multilabel":
        rows, metrics = score_multilabel(items, zero_division)
    else:
        rows, metrics = score_ranking(items)
    summary: dict[str, Any] = {
        "task": task, "n_items": len(items), "metrics": metrics,
        "bootstrap": bootstrap_cis(task, rows, bootstrap, seed) if rows else {},
        "judge_calls": ctx.stats.judge_calls, "cache_hits": ctx.stats.cache_hits,
        "tokens_in": ctx.stats.tokens_in, "tokens_out": ctx.stats.tokens_out,
        "cost_usd": round(ctx.stats.cost_usd, 6), **accounting,
        # judges stopped early by repeated fatal failures (judge.judges.failures)
        "stopped_early": [s.summary() for s in ctx.early_stops.values() if s.stopped],
        "wall_s": round(time.perf_counter() - t0, 6),
    }
    config: dict[str, Any] = {
        "created_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "task": task, "tau": tau, "context": context, "zero_division": zero_division,
        "judge": judge.describe() if (judge is not None and task == "selection") else (
            arg_judge.describe() if arg_judge is not None else None),
        "function_call_format": fc_format if task == "function-call" else None,
        "cache": {"directory": str(cache.directory), "mode": cache.mode},
        "versions": package_versions(), **(dict(config_extra or {})),
    }
    run_dir = None
    if out is not None:
        from judge.report import render_html
        from judge.rundir import StoredRun

        report = render_html(StoredRun(Path(out), json.loads(dumps(config)),
                                       json.loads(dumps(summary)), json.loads(dumps(rows)),
                                       json.loads(dumps(verdict_rows))))
        run_dir = write_run(Path(out), config, verdict_rows, rows, summary,
                            overwrite=overwrite, extra_jsonl=extra,
                            extra_text={"report.html": report})
    return EvalResult(config, summary, rows, verdicts, matrices, run_dir)


def evaluate(items: Sequence[Mapping[str, Any]] | Sequence[Item], task: str = "selection",
             judge: str | Judge = "local", tau: float = 0.7, context: str = "",
             cache_dir: str | Path | None = None, cache_mode: str = "read-write",
             out: str | Path | None = None, pred_field: str | None = None,
             truth_field: str | None = None, zero_division: float = 0.0,
             max_chars: int = 4096) -> EvalResult:
    """Python API mirroring ``simjudge eval``.

    Args:
        items: dicts with the task's fields (default names ``pred``/``truth``, or
            ``pred_fn``/``gold_fn`` for function calls; ``id`` used when every dict has one,
            an error when only some have one), or :class:`judge.items.Item` objects.
        task: ``selection`` (default), ``judgment``, ``function-call``, ``generation``,
            ``multilabel`` (``ranking`` needs Items built by :func:`judge.items.load_ranking`).
        judge: a judge spec (``local``, ``lexical``, ``table:PATH``) or a Judge object.
        tau: τ in [0, 1] (default 0.7, seed 001).
        context: task context for prompt judges, e.g. ``"IFPUG ILF names"``.
        cache_dir, cache_mode: the judge-call cache (default directory, ``read-write``).
        out: write a run directory there.
        pred_field, truth_field: field names in ``items`` when they differ from the defaults.
        zero_division: value for undefined ratios.
        max_chars: longest string (characters) accepted in a prediction or gold value; a
            longer one raises :class:`InputError`, never truncated (default 4,096; 0 = no
            limit), as ``simjudge eval --max-chars``.

    Returns:
        :class:`EvalResult` with ``.summary``, ``.items``, ``.verdicts``.

    Raises:
        judge.errors.InputError: bad items (``<items>:N: field 'x': …``: a missing or mistyped
            field, a duplicate id, a string over ``max_chars``), unknown task or judge.

    Example:
        >>> from judge import evaluate
        >>> r = evaluate([{"pred": ["职位信息"], "truth": ["Job Information"]}], judge="local")
        >>> r.summary["metrics"]["macro_f1"]  # doctest: +SKIP
    """
    check_task(task)
    if max_chars < 0:
        raise InputError(f"max_chars must be >= 0 (0 = no limit), got {max_chars}",
                         field="max_chars")
    its: list[Item]
    if items and isinstance(items[0], Item):
        its = [i for i in items if isinstance(i, Item)]
        if len(its) != len(items):
            raise InputError("mix of Item objects and dicts in items", field="items")
        check_items(its, max_chars)
    else:
        its = items_from_dicts(items, task, pred_field, truth_field,  # type: ignore[arg-type]
                               max_chars=max_chars)
    j = parse_judge_spec(judge) if isinstance(judge, str) else judge
    cache = JudgeCache(cache_dir, cache_mode)
    try:
        return run_evaluation(its, task, j, tau=tau, context=context, cache=cache,
                              zero_division=zero_division, out=out)
    finally:
        cache.close()
