"""What one evaluation is asked to do: :class:`EvalConfig`, the one input of
:func:`judge.pipeline.run.run`, built alike by ``simjudge eval`` and by the Python API
:func:`judge.evaluate` (so both get panels, probes, repeats, ``tau_from``, the bootstrap and
the same checks)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judge.cachemodes import CacheMode
from judge.items import DEFAULT_MAX_CHARS
from judge.judges.llm.batchstate import BatchLimits
from judge.judges.panel import Vote

if TYPE_CHECKING:
    from judge.tasks.overrides import HumanOverrides


@dataclass
class EvalConfig:
    """One evaluation: input, task and its options, judges, scoring, probes, cache, output.

    Input (exactly one of the two):
        data: JSONL/CSV/TSV file of predictions (``ranking``: a TREC run file), with ``gold``
            (a separate gold file joined on the id; ``ranking``: qrels), ``pred_field``,
            ``truth_field``, ``id_fields``, ``where`` (``FIELD=VALUE`` filters).
        limit: score only the first N >= 1 items (after ``where``; with ``gold``, of the joined
            items in the data's order; records in memory: of the records kept), cut before any
            judge call and recorded in ``config.json``'s ``fields``; None = all.
        records: the items in memory: dicts with the task's fields (recorded in the run
            directory, :data:`judge.record.store.INPUT_FILE`, so the run can be re-scored and
            exported) or :class:`judge.items.Item` objects (not recorded).
        max_chars: longest string (characters) accepted in a prediction or gold value, >= 0
            (0 = no limit); a longer one is bad input, never truncated.

    Task:
        task: a registered task name (``simjudge tasks``).
        task_options: the task's own options by name (``{"format": "openai", "arg_tau":
            0.6}``), only those given, or an instance of the task's ``Options``; validated by
            :func:`judge.tasks.options.task_options` (an option of another task is refused).

    Judges (tasks whose judge role is ``judge``; the function-call task's argument judge is its
    ``arg_judge`` option):
        judges: judge specs or :class:`~judge.judges.base.Judge` objects; several form a panel;
            empty = ``local`` for the tasks that need a judge. With ``judges_file`` (a TOML
            judges file) the specs name its ids (empty: all of them).
        judge_options: :class:`judge.judges.options.JudgeOptions` for judges built from specs
            (None = the defaults).
        vote, quorum: the panel's vote and quorum (>= 1).
        tau: τ in [0, 1]; tau_from: a ``calibration.json`` whose τ for this judge replaces it
            (refused when it was made with another judge: :mod:`judge.judges.identity`);
            allow_stale_calibration: use such a stale calibration's τ anyway (recorded in
            ``config.json``'s ``tau_from`` and warned of with a
            :class:`judge.errors.StaleCalibrationWarning`).
        repeats: judge every pair N >= 1 times (repeat probe); probes: ``swap`` or
            ``swap=FRACTION`` (order-swap probe).
        context: task context handed to prompt judges.
        overrides: human labels that take precedence over the judge for the pairs they cover
            (:class:`judge.tasks.overrides.HumanOverrides`, read by
            :func:`judge.calibration.overrides.read_overrides`; tasks with
            :meth:`~judge.tasks.base.Task.pair_groups`); a label naming no pair of the run is
            refused before any judge call. None = none.
        item_checks: more checks of the loaded items, each ``check(items, task)`` raising
            :class:`~judge.errors.InputError`, run before any judge call (``eval --human``:
            the item labels against the items).

    Scoring and output:
        zero_division: value of undefined ratios; bootstrap: resamples of the 95 % CIs (>= 0);
        seed: their seed.
        cache_dir, cache_mode: the judge-call cache.
        out_dir: the run directory to write (None: write nothing); overwrite: replace it.
        dry_run: estimate requests, tokens and USD; call and write nothing.
        max_usd: budget in USD for LLM judges (> 0); batch_api: ``openai:`` judges through the
            Batch API (True, or a :class:`~judge.judges.llm.batchstate.BatchLimits` with the
            split and pacing limits).
        command: the command line, recorded in ``config.json``.
    """

    task: str = "selection"
    data: Path | None = None
    records: Sequence[Any] | None = None
    gold: Path | None = None
    pred_field: str | None = None
    truth_field: str | None = None
    id_fields: Sequence[str] = ()
    where: Sequence[str] = ()
    limit: int | None = None
    max_chars: int = DEFAULT_MAX_CHARS
    task_options: Mapping[str, Any] | Any = field(default_factory=dict)
    judges: Sequence[Any] = ()
    judges_file: Path | None = None
    judge_options: Any = None
    vote: Vote = "mean"
    quorum: int = 1
    tau: float = 0.7
    tau_from: Path | None = None
    allow_stale_calibration: bool = False
    repeats: int = 1
    probes: Sequence[str] = ()
    context: str = ""
    overrides: HumanOverrides | None = None
    item_checks: Sequence[Callable[[list[Any], Any], None]] = ()
    zero_division: float = 0.0
    bootstrap: int = 1000
    seed: int = 0
    cache_dir: Path | None = None
    cache_mode: CacheMode = "read-write"
    out_dir: Path | None = None
    overwrite: bool = False
    dry_run: bool = False
    max_usd: float | None = None
    batch_api: bool | BatchLimits = False
    command: Sequence[str] = ()
