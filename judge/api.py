"""The Python API: :func:`evaluate`, mirroring ``simjudge eval``, and its :class:`EvalResult`.

It stands on the top floor beside the CLI: it judges and scores through
:mod:`judge.pipeline.evaluate` and writes the run directory with its audit report
(:data:`judge.runs.report.RENDERERS`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge.cache import JudgeCache
from judge.errors import InputError
from judge.items import DEFAULT_MAX_CHARS, Item, check_items
from judge.judges.base import Judge
from judge.matrix import SimilarityMatrix
from judge.pipeline.evaluate import evaluate_judged
from judge.record.runrecord import RunRecord
from judge.tasks.base import Params
from judge.tasks.registry import get_task
from judge.verdict import Verdict


@dataclass
class EvalResult:
    """What :func:`evaluate` produced.

    Attributes:
        record: the typed run record.
        config, summary: ``config.json`` and ``summary.json`` as dicts.
        items: the item rows (``items.jsonl``) as dicts.
        verdicts: every judge verdict, one per distinct judged pair.
        matrices: selection: each item's :class:`~judge.matrix.SimilarityMatrix`.
        run_dir: where the run was written, if it was.
    """

    record: RunRecord
    config: dict[str, Any]
    summary: dict[str, Any]
    items: list[dict[str, Any]]
    verdicts: list[Verdict]
    matrices: list[SimilarityMatrix] = field(default_factory=list)
    run_dir: Path | None = None


def evaluate(items: Sequence[Mapping[str, Any]] | Sequence[Item], task: str = "selection",
             judge: str | Judge | None = None, tau: float = 0.7, context: str = "",
             cache_dir: str | Path | None = None, cache_mode: str = "read-write",
             out: str | Path | None = None, pred_field: str | None = None,
             truth_field: str | None = None, zero_division: float = 0.0,
             max_chars: int = DEFAULT_MAX_CHARS, fc_format: str = "seed",
             arg_tau: float = 0.7) -> EvalResult:
    """Python API mirroring ``simjudge eval``.

    Args:
        items: dicts with the task's fields (default names ``pred``/``truth``, or
            ``pred_fn``/``gold_fn`` for function calls; ``id`` used when every dict has one,
            an error when only some have one), or :class:`judge.items.Item` objects
            (``ranking`` needs Items from :func:`judge.tasks.ranking.load_ranking`).
        task: a registered task name (:data:`judge.tasks.registry.TASKS`).
        judge: a judge spec (``local``, ``lexical``, ``table:PATH``…) or a Judge object, used
            by tasks with a judge (``selection``, ``spans``: similarity; ``function-call``:
            argument equivalence, optional); ignored by the others. None = ``local`` for
            the tasks that need a judge, no judge for the others.
        tau: τ in [0, 1] (default 0.7, seed 001).
        context: task context for prompt judges, e.g. ``"IFPUG ILF names"``.
        cache_dir, cache_mode: the judge-call cache (default directory, ``read-write``).
        out: write a run directory there (atomically; checked before any judge call).
        pred_field, truth_field: field names in ``items`` when they differ from the defaults.
        zero_division: value for undefined ratios.
        max_chars: longest string (characters) accepted in a prediction or gold value; a
            longer one raises :class:`InputError`, never truncated (default 4,096; 0 = no
            limit), as ``simjudge eval --max-chars``.
        fc_format, arg_tau: function calls: input format and the argument judge's threshold.

    Returns:
        :class:`EvalResult` with ``.summary``, ``.items``, ``.verdicts``, ``.record``.

    Raises:
        judge.errors.InputError: bad items (``<items>:N: field 'x': …``: a missing or mistyped
            field, a duplicate id, a string over ``max_chars``), unknown task or judge, τ
            outside [0, 1], an ``out`` that cannot be written.

    Example:
        >>> from judge import evaluate
        >>> r = evaluate([{"pred": ["职位信息"], "truth": ["Job Information"]}], judge="local")
        >>> r.summary["metrics"]["macro_f1"]  # doctest: +SKIP
    """
    from judge.judges.registry import parse_judge_spec
    from judge.record.atomic import prepare_out_dir
    from judge.record.store import write_run
    from judge.runs.report import RENDERERS

    t = get_task(task)
    params = Params(tau=tau, zero_division=zero_division, context=context,
                    fc_format=fc_format, arg_tau=arg_tau)
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
        its = t.from_dicts(items, pred_field, truth_field,  # type: ignore[arg-type]
                           max_chars=max_chars)
    if judge is None and t.needs_judge:
        judge = "local"
    j = None
    if t.judge_role is not None and judge is not None:
        j = parse_judge_spec(judge) if isinstance(judge, str) else judge
    if out is not None:
        prepare_out_dir(Path(out), False)
    cache = JudgeCache(cache_dir, cache_mode)
    try:
        record, judged = evaluate_judged(its, t, j, params, cache=cache,
                                         run_dir=Path(out) if out is not None else None)
    finally:
        cache.close()
    run_dir = write_run(record, Path(out), renderers=RENDERERS) if out is not None else None
    return EvalResult(record, record.config.to_row(), record.summary.to_row(),
                      record.item_rows(), judged.verdicts, judged.matrices, run_dir)
