"""The rows and objects of a run directory, as typed models: ``config.json``
(:class:`RunConfig`), ``summary.json`` (:class:`RunSummary`), an ``items.jsonl`` row
(:class:`ItemRow`) and a ``verdicts.jsonl`` row (:class:`VerdictRow`).

The models name the fields every run has and *allow* more (kept and written back after the
named ones). An item row is read as an :class:`ItemRow` (id and source) and typed by its task's
row model (:mod:`judge.record.itemrows`: ``SelectionRow``, ``SpansRow``… — subclasses of
:class:`ItemRow` that name everything the task writes), once, when the task first reads it
(:meth:`judge.record.runrecord.RunRecord.rows_as`). Runs written by earlier versions of simjudge
load as long as they carry the required fields (``tests/fixtures/runs_v0``).
:class:`judge.record.runrecord.RunRecord` holds them together.
"""

from __future__ import annotations

import functools
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from judge.record.config import (
    SCHEMA_VERSION,
    CalibrationRef,
    FieldSpec,
    InputFile,
    JudgeDescription,
)
from judge.verdict import Outcome


class OpenRow(BaseModel):
    """A model that keeps fields it does not name (task-specific ones) and round-trips them.

    A named field may have a JSON name that is not a Python name (``rouge-1``, ``ap@10``): its
    alias, used on disk and by :meth:`get`; the Python name is accepted too.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    def get(self, key: str, default: Any = None) -> Any:
        """The field ``key`` (its JSON name; named or extra), or ``default`` — dict-style access
        for code that reads fields a model does not name (a backend's, a run's extra file's)."""
        name = _json_names(type(self)).get(key)
        if name is not None:
            return getattr(self, name)
        return (self.model_extra or {}).get(key, default)

    def has(self, *keys: str) -> bool:
        """Whether the row carries every field ``keys`` (JSON names): set when it was made or
        read, or kept as an extra one — a row written by an older simjudge may lack a field a
        model names (its audit view is then empty)."""
        names = _json_names(type(self))
        given = self.__pydantic_fields_set__  # model_fields_set, without its property
        for k in keys:
            name = names.get(k)
            if not (name in given if name is not None else k in (self.__pydantic_extra__ or ())):
                return False
        return True

    def to_row(self) -> dict[str, Any]:
        """The JSON object written to disk: the fields that were set, by their JSON names, named
        ones first (in the model's order, which is the order the task writes them), then the
        others, so a row read from disk is written back as it was."""
        # model_dump's own call, without its wrapper (a run writes one row per item)
        return self.__pydantic_serializer__.to_python(self, exclude_unset=True, by_alias=True)


@functools.cache
def _json_names(model: type[BaseModel]) -> dict[str, str]:
    """JSON name → Python name of ``model``'s named fields (their alias, else their name; the
    Python name maps to itself too)."""
    names = {(f.alias or n): n for n, f in model.model_fields.items()}
    names.update({n: n for n in model.model_fields})
    return names


@functools.cache
def _field_keys(model: type[BaseModel]) -> tuple[tuple[str, str], ...]:
    """``(Python name, JSON name)`` of ``model``'s named fields, in the model's order."""
    return tuple((n, f.alias or n) for n, f in model.model_fields.items())


class RunConfig(OpenRow):
    """``config.json``: how the run was made.

    Attributes:
        schema_version: the run-record schema (:data:`judge.record.config.SCHEMA_VERSION`; a
            run written before versions is read as v0 and upgraded,
            :func:`judge.record.config.upgrade_config`).
        created_at: ISO 8601 UTC time the run started.
        task: the task name (:data:`judge.tasks.registry.TASKS`).
        tau: τ in [0, 1] (meaningful for tasks that match with a threshold).
        context: task context given to prompt judges.
        zero_division: value of undefined ratios.
        judge: the judge's description (:class:`~judge.record.config.JudgeDescription`: id,
            backend, model, scorer, a panel's members…); None when the task used no judge.
        cache: ``{"directory", "mode"}`` of the judge-call cache.
        versions: package versions the numbers depend on (:mod:`judge.versions`).
        command: the command line (empty for a Python-API run).
        data, gold, functions, labels: the input files
            (:class:`~judge.record.config.InputFile`; ``data`` may be the in-run copy of records
            given in memory; ``labels``: multilabel's ``--labels`` file); None when not used.
        fields: how the items were read (:class:`~judge.record.config.FieldSpec`).
        tau_from: the calibration whose τ was used (:class:`~judge.record.config.CalibrationRef`).
        task_options: the task's own options as given to it (function calls: format,
            functions, arg_judge, arg_tau).

    The task's own entries (``function_call_format``) are extra fields.
    """

    schema_version: int = SCHEMA_VERSION
    created_at: str = ""
    task: str
    tau: float | None = None
    context: str = ""
    zero_division: float = 0.0
    judge: JudgeDescription | None = None
    cache: dict[str, Any] = Field(default_factory=dict)
    versions: dict[str, Any] = Field(default_factory=dict)
    command: list[str] = Field(default_factory=list)
    data: InputFile | None = None
    gold: InputFile | None = None
    functions: InputFile | None = None
    labels: InputFile | None = None
    fields: FieldSpec | None = None
    tau_from: CalibrationRef | None = None
    task_options: dict[str, Any] = Field(default_factory=dict)


class RunSummary(OpenRow):
    """``summary.json``: dataset metrics and accounting.

    Attributes:
        task: the task name.
        n_items: number of items, >= 0.
        metrics: the task's dataset metrics (numbers in [0, 1] unless named otherwise, plus
            counts and per-class/per-category tables).
        bootstrap: ``{"resamples", "seed", "ci95": {metric: [low, high]}}``.
        judge_calls, cache_hits: model calls made and answers served from the cache.
        tokens_in, tokens_out: token usage of the calls made.
        cost_usd: USD spent on the calls made.
        outcomes: verdict counts per outcome (tasks with a judge).
        pairs_without_verdict: judged pairs left without a score.
        stopped_early: judges stopped after repeated fatal errors, with the reason.
        wall_s: seconds the evaluation took.
    """

    task: str
    n_items: int = Field(ge=0)
    metrics: dict[str, Any] = Field(default_factory=dict)
    bootstrap: dict[str, Any] = Field(default_factory=dict)
    judge_calls: int = 0
    cache_hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    outcomes: dict[str, int] = Field(default_factory=dict)
    pairs_without_verdict: int = 0
    stopped_early: list[dict[str, Any]] = Field(default_factory=list)
    wall_s: float = 0.0


class ItemRow(OpenRow):
    """One ``items.jsonl`` row: an item's id and source, plus the task's per-item content and
    metrics — named by the task's row model (a subclass, :mod:`judge.record.itemrows`), extra
    fields of a row not yet typed by its task.

    Attributes:
        id: the item id (the data's id field(s), else its position).
        source: where the item was read (``FILE:LINE``).
    """

    id: str
    source: str = ""

    def numbers(self) -> dict[str, int | float]:
        """The row's top-level numbers (per-item metrics and counts; booleans are not numbers)
        by JSON name, in the order :meth:`to_row` writes them."""
        out: dict[str, int | float] = {}
        given, values = self.__pydantic_fields_set__, self.__dict__
        # by type first (the audit page of a 10,000-item run reads every row's fields, mostly
        # numbers, strings and lists); isinstance for the rest: numpy's float64, never a bool
        for n, key in _field_keys(type(self)):
            if n in given:
                v: Any = values.get(n)
                t = type(v)
                if t is float or t is int or (t not in _NOT_NUMBERS
                                              and isinstance(v, (int, float))):
                    out[key] = v
        for key, v in (self.__pydantic_extra__ or {}).items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                out[key] = v
        return out


_NOT_NUMBERS = frozenset({bool, str, list, dict, type(None)})
"""Types :meth:`ItemRow.numbers` leaves out without asking isinstance."""


class VerdictRow(OpenRow):
    """One ``verdicts.jsonl`` row: a :class:`judge.verdict.Verdict`'s fields plus where it
    applies (``item_id`` for item-scoped judges, ``member_of`` for a panel member's own verdict,
    ``function``/``parameter`` for function-call argument judgements).

    Attributes:
        pred, truth: the judged strings.
        score: in [0, 1] when ``outcome`` is ``ok``, else None.
        outcome: ``ok``, ``parse_error``, ``transport_error`` or ``refused``.
        judge_id: the judge that produced it.
        rationale, raw: the judge's explanation and raw output.
        item_id: the item it was judged for (item-scoped judges), else None.
        member_of: the panel id, on a panel member's own verdict.
        logprob_fallback: a grade verdict that asked for logprobs and got none (its score is
            the sampled grade); absent (False) otherwise and in runs written before the field.
    """

    pred: str
    truth: str
    score: float | None = None
    outcome: Outcome = "ok"
    judge_id: str = ""
    rationale: str = ""
    raw: str = ""
    item_id: str | None = None
    member_of: str | None = None
    logprob_fallback: bool = False
