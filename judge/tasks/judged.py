"""What a task's judging step hands to its scoring step: :class:`Judged`."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judge.record.verdictlog import VerdictLog
    from judge.verdict import Verdict

Rows = list[dict[str, Any]]
"""Rows of a JSONL file as plain objects (a run's extra files: ``disagreements.jsonl``…; item
rows are the task's typed :attr:`~judge.tasks.base.Task.row_model`)."""


@dataclass
class Judged:
    """What a task's judging step produced.

    Attributes:
        log: every verdict row of ``verdicts.jsonl`` (verdict fields plus ``item_id``,
            ``member_of``, ``function``/``parameter``… where they apply), as a
            :class:`~judge.record.verdictlog.VerdictLog` (a spool file for ``simjudge eval``).
        accounting: entries for ``summary.json`` (pair counts, outcomes, panel agreement…).
        extra_jsonl: more JSONL files of the run directory (e.g. ``disagreements.jsonl``).
        matrices: per item, the similarity matrices the task judged (selection: one per item).
        data: task-specific result handed to :meth:`Task.score` (e.g. function calls'
            argument-equivalence test).
        objects: the verdict objects themselves when the task keeps them (function-call
            arguments' :class:`~judge.tasks.arguments.ArgVerdict`); None = read from the log.
    """

    log: VerdictLog = field(default_factory=lambda: _memory_log())
    accounting: dict[str, Any] = field(default_factory=dict)
    extra_jsonl: dict[str, Rows] = field(default_factory=dict)
    matrices: list[Any] = field(default_factory=list)
    data: Any = None
    objects: list[Verdict] | None = None

    def rows(self) -> Iterator[dict[str, Any]]:
        """The verdict rows as plain dicts, one at a time (call again to iterate again)."""
        return self.log.rows()

    @property
    def verdicts(self) -> list[Verdict]:
        """The decided verdicts (rows without ``member_of``: one per distinct judged pair), as
        :class:`~judge.verdict.Verdict` objects — for the Python API; read from the log."""
        from judge.verdict import Verdict

        if self.objects is not None:
            return list(self.objects)
        names = Verdict.model_fields
        return [Verdict.model_validate({k: v for k, v in r.items() if k in names})
                for r in self.rows() if r.get("member_of") is None]

    @property
    def failed(self) -> int:
        """Judged pairs without a score (parse/transport errors, refusals)."""
        outcomes = self.accounting.get("outcomes") or {}
        return sum(v for k, v in outcomes.items() if k != "ok")


def _memory_log() -> VerdictLog:
    from judge.record.verdictlog import VerdictLog

    return VerdictLog.memory()
