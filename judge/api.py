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

from judge.cache import CacheMode
from judge.items import DEFAULT_MAX_CHARS, Item
from judge.judges.base import Judge
from judge.judges.options import JudgeOptions
from judge.judges.panel import Vote
from judge.matrix import SimilarityMatrix
from judge.record.rows import ItemRow
from judge.record.runrecord import RunRecord
from judge.tasks.fcoptions import FcFormat
from judge.verdict import Verdict


@dataclass
class EvalResult:
    """What :func:`evaluate` produced.

    Attributes:
        record: the typed run record.
        config, summary: ``config.json`` and ``summary.json`` as dicts.
        items: the item rows (``items.jsonl``) as dicts; :attr:`rows` types them.
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

    @property
    def rows(self) -> list[ItemRow]:
        """The item rows as the task's typed row model (:mod:`judge.record.itemrows`:
        ``result.rows[0].f1``, ``.matches``…), the objects behind :attr:`items`."""
        return list(self.record.items)


def evaluate(items: Sequence[Mapping[str, Any]] | Sequence[Item], task: str = "selection",
             judge: str | Judge | Sequence[str | Judge] | None = None, tau: float = 0.7,
             context: str = "", cache_dir: str | Path | None = None,
             cache_mode: CacheMode = "read-write", out: str | Path | None = None,
             pred_field: str | None = None, truth_field: str | None = None,
             zero_division: float = 0.0, max_chars: int = DEFAULT_MAX_CHARS,
             fc_format: FcFormat | None = None, arg_tau: float | None = None, *,
             id_fields: Sequence[str] = (), task_options: Mapping[str, Any] | None = None,
             vote: Vote = "mean", quorum: int = 1, tau_from: str | Path | None = None,
             repeats: int = 1, probes: Sequence[str] = (), bootstrap: int = 1000,
             seed: int = 0, judges_file: str | Path | None = None,
             judge_options: JudgeOptions | None = None, max_usd: float | None = None,
             overwrite: bool = False, allow_stale_calibration: bool = False) -> EvalResult:
    """Python API mirroring ``simjudge eval``: the same pipeline
    (:func:`judge.pipeline.run.run_judged`), the same checks, panels, probes and bootstrap.

    Args:
        items: dicts with the task's fields (default names ``pred``/``truth``, or
            ``pred_fn``/``gold_fn`` for function calls; ``id`` used when every dict has one,
            an error when only some have one), or :class:`judge.items.Item` objects
            (``ranking`` needs Items from :func:`judge.tasks.ranking.load_ranking`). Dicts are
            copied into the run directory with ``out`` (``inputs.jsonl``), so ``simjudge
            rescore`` and ``simjudge export`` work on the run.
        task: a registered task name (:data:`judge.tasks.registry.TASKS`).
        judge: a judge spec (``local``, ``lexical``, ``table:PATH``…), a Judge object, or a
            list of them (a panel, voted by ``vote`` with ``quorum``), used by tasks with a
            judge (``selection``, ``spans``: similarity; ``function-call``: the argument
            judge, optional); ignored by the others. None = ``local`` for the tasks that need
            a judge, no judge for the others.
        tau: τ in [0, 1] (default 0.7, seed 001); tau_from: a ``calibration.json`` whose τ
            for this judge replaces it (and adds τ-aware intervals); refused when it was made
            with another judge (another model, scorer, template, score mode, endpoints,
            opposite guard, decoding parameters…: :mod:`judge.judges.identity`) unless
            ``allow_stale_calibration`` — then ``config["tau_from"]`` records ``stale`` and the
            ``differences``, and a :class:`judge.errors.StaleCalibrationWarning` is issued.
        context: task context for prompt judges, e.g. ``"IFPUG ILF names"``.
        cache_dir, cache_mode: the judge-call cache (default directory, ``read-write``).
        out: write a run directory there (atomically; checked before any judge call);
            overwrite: replace an existing one.
        pred_field, truth_field, id_fields: field names in ``items`` when they differ from the
            defaults.
        zero_division: value for undefined ratios.
        max_chars: longest string (characters) accepted in a prediction or gold value; a
            longer one raises :class:`InputError`, never truncated (default 4,096; 0 = no
            limit), as ``simjudge eval --max-chars``.
        task_options: the task's own options by name (function calls: ``format``,
            ``functions``, ``arg_judge``, ``arg_tau``; :mod:`judge.tasks.fcoptions`).
        fc_format, arg_tau: function calls: shorthands for ``task_options["format"]`` and
            ``task_options["arg_tau"]``.
        vote, quorum, repeats, probes, bootstrap, seed, judges_file, judge_options, max_usd:
            as ``simjudge eval``'s ``--vote``, ``--quorum``, ``--repeats``, ``--probe``,
            ``--bootstrap``, ``--seed``, ``--judges``, the judge flags and ``--max-usd``.

    Returns:
        :class:`EvalResult` with ``.summary``, ``.items``, ``.verdicts``, ``.record``.

    Raises:
        judge.errors.InputError: bad items (``<items>:N: field 'x': …``: a missing or mistyped
            field, a duplicate id, a string over ``max_chars``), unknown task or judge, τ
            outside [0, 1], an option of another task, an ``out`` that cannot be written, a
            stale ``tau_from`` (each differing field named).

    Example:
        >>> from judge import evaluate
        >>> r = evaluate([{"pred": ["职位信息"], "truth": ["Job Information"]}], judge="local")
        >>> r.summary["metrics"]["macro_f1"]  # doctest: +SKIP
    """
    from judge.pipeline.config import EvalConfig
    from judge.pipeline.run import run_judged
    from judge.runs.report import RENDERERS
    from judge.tasks.registry import get_task

    t = get_task(task)
    opts: dict[str, Any] = dict(task_options or {})
    for name, value in (("format", fc_format), ("arg_tau", arg_tau)):
        if value is not None:
            opts[name] = value
    given = ([] if judge is None else
             [judge] if isinstance(judge, (str, Judge)) else list(judge))
    judges: list[Any] = []
    if t.judge_role == "judge":
        judges = given
    elif t.judge_role == "arg_judge" and given:
        if isinstance(given[0], str):
            opts.setdefault("arg_judge", given[0])
        else:
            judges = given[:1]
    config = EvalConfig(
        task=task, records=list(items), pred_field=pred_field, truth_field=truth_field,
        id_fields=tuple(id_fields), max_chars=max_chars, task_options=opts, judges=judges,
        judges_file=Path(judges_file) if judges_file is not None else None,
        judge_options=judge_options, vote=vote, quorum=quorum, tau=tau,
        tau_from=Path(tau_from) if tau_from is not None else None,
        allow_stale_calibration=allow_stale_calibration, repeats=repeats,
        probes=tuple(probes), context=context, zero_division=zero_division,
        bootstrap=bootstrap, seed=seed,
        cache_dir=Path(cache_dir) if cache_dir is not None else None, cache_mode=cache_mode,
        out_dir=Path(out) if out is not None else None, overwrite=overwrite, max_usd=max_usd)
    record, judged = run_judged(config, renderers=RENDERERS)
    assert isinstance(record, RunRecord) and judged is not None  # no dry run here
    return EvalResult(record, record.config.to_row(), record.summary.to_row(),
                      record.item_rows(), judged.verdicts, judged.matrices, record.path)
