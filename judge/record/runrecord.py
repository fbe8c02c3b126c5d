"""The typed run record: what one ``simjudge eval`` produced, in memory and on disk.

A run directory holds ``config.json`` (:class:`RunConfig`), ``summary.json``
(:class:`RunSummary`), ``items.jsonl`` (one :class:`ItemRow` per item), ``verdicts.jsonl`` (one
:class:`VerdictRow` per judge verdict, held by a :class:`~judge.record.verdictlog.VerdictLog`:
in memory, or streamed to and read from a file for large runs) and optional extra JSONL files
(``disagreements.jsonl``) plus ``report.html``. :mod:`judge.record.store` writes and reads them;
every reader (``rescore``, ``audit``, ``compare``, ``calibrate --run``) works on a
:class:`RunRecord`, never on loose dicts read by string key. The row models live in
:mod:`judge.record.rows` and are re-exported here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from judge.record.rows import ItemRow, RunConfig, RunSummary, VerdictRow
from judge.record.verdictlog import VerdictLog

__all__ = ["ItemRow", "RunConfig", "RunRecord", "RunSummary", "VerdictLog", "VerdictRow"]


class RunRecord(BaseModel):
    """A whole run: configuration, summary, item rows, verdict rows and extra JSONL files.

    Attributes:
        config, summary: :class:`RunConfig`, :class:`RunSummary`.
        items: one :class:`ItemRow` per item, in input order.
        verdicts: the :class:`VerdictLog` of :class:`VerdictRow` (a list of rows is accepted
            and validated into an in-memory log), in judging order: per chunk of judged pairs
            (:data:`judge.matrix.CHUNK_PAIRS`), a panel's member verdicts, then the decided
            ones.
        extra: more JSONL files by name (e.g. ``disagreements.jsonl``).
        path: the run directory it was read from or written to (None in memory only).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    config: RunConfig
    summary: RunSummary
    items: list[ItemRow]
    verdicts: VerdictLog = Field(default_factory=VerdictLog)
    extra: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    path: Path | None = None

    @property
    def task(self) -> str:
        """The run's task name."""
        return self.config.task

    @property
    def judge_id(self) -> str | None:
        """The run's top-level judge id (None when it used no judge)."""
        return self.config.judge.id if self.config.judge is not None else None

    def item_rows(self) -> list[dict[str, Any]]:
        """The item rows as plain dicts (the form the task code reads)."""
        return [r.to_row() for r in self.items]

    def verdict_rows(self) -> Iterator[dict[str, Any]]:
        """The verdict rows as plain dicts, one at a time (read from disk for a file-backed
        log; iterate again by calling again)."""
        return self.verdicts.rows()
