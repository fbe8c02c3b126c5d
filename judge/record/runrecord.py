"""The typed run record: what one ``simjudge eval`` produced, in memory and on disk.

A run directory holds ``config.json`` (:class:`RunConfig`), ``summary.json``
(:class:`RunSummary`), ``items.jsonl`` (one :class:`ItemRow` per item), ``verdicts.jsonl`` (one
:class:`VerdictRow` per judge verdict, held by a :class:`~judge.record.verdictlog.VerdictLog`:
in memory, or streamed to and read from a file for large runs) and optional extra JSONL files
(``disagreements.jsonl``) plus ``report.html``. :mod:`judge.record.store` writes and reads them;
every reader (``rescore``, ``audit``, ``compare``, ``calibrate --run``) works on a
:class:`RunRecord`, never on loose dicts read by string key. The row models live in
:mod:`judge.record.rows` and are re-exported here; the item rows are typed by their task's row
model (:mod:`judge.record.itemrows`, :meth:`RunRecord.rows_as`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from judge.errors import InputError
from judge.record.rows import ItemRow, RunConfig, RunSummary, VerdictRow
from judge.record.verdictlog import VerdictLog

RowT = TypeVar("RowT", bound=ItemRow)

__all__ = ["ItemRow", "RunConfig", "RunRecord", "RunSummary", "VerdictLog", "VerdictRow"]


class RunRecord(BaseModel):
    """A whole run: configuration, summary, item rows, verdict rows and extra JSONL files.

    Attributes:
        config, summary: :class:`RunConfig`, :class:`RunSummary`.
        items: one :class:`ItemRow` per item, in input order: the task's row model once it
            made or read them (:meth:`rows_as`), else the plain envelope of a row read from
            disk.
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
    _item_lines: list[int] | None = PrivateAttr(default=None)
    """The line of ``items.jsonl`` each item was read from (set by
    :func:`judge.record.store.load_run`), for the messages of :meth:`rows_as`."""

    @property
    def task(self) -> str:
        """The run's task name."""
        return self.config.task

    @property
    def judge_id(self) -> str | None:
        """The run's top-level judge id (None when it used no judge)."""
        return self.config.judge.id if self.config.judge is not None else None

    def rows_as(self, model: type[RowT]) -> list[RowT]:
        """The item rows as ``model`` (the run's task's row model,
        :attr:`judge.tasks.base.Task.row_model`), validated once: the typed rows replace
        :attr:`items`, so the next call (and writing the run again) uses them as they are.

        Args:
            model: an :class:`ItemRow` subclass (or :class:`ItemRow` itself).

        Returns:
            The rows, in order.

        Raises:
            InputError: a row that is not a valid ``model`` (a required field missing, a
                mistyped value): ``items.jsonl``, its line and the field named.
        """
        if all(type(r) is model for r in self.items):
            return self.items  # type: ignore[return-value]
        typed: list[RowT] = []
        for k, r in enumerate(self.items):
            if isinstance(r, model):
                typed.append(r)
                continue
            try:
                typed.append(model.model_validate(r.to_row()))
            except ValidationError as exc:
                raise self._row_error(exc, k) from None
        self.items = list(typed)
        return typed

    def _row_error(self, exc: ValidationError, k: int) -> InputError:
        err = exc.errors(include_url=False)[0]
        where = self.path / "items.jsonl" if self.path is not None else None
        lines = self._item_lines
        line = lines[k] if lines is not None and k < len(lines) else None
        field = ".".join(str(x) for x in err["loc"]) or None
        if where is None:
            field = f"items[{k}]" + (f".{field}" if field else "")
        return InputError(f"invalid run file: {err['msg']}", where, line, field)

    def item_rows(self) -> list[dict[str, Any]]:
        """The item rows as plain dicts, as ``items.jsonl`` holds them."""
        return [r.to_row() for r in self.items]

    def to_pandas(self) -> Any:
        """The per-item rows as a ``pandas.DataFrame``: one row per item, in input order; the
        columns ``id``, ``source`` and every scalar field of the row (counts ``int64``; metrics
        such as ``precision``, ``recall``, ``f1`` — in [0, 1] — ``float64``; flags ``bool``;
        texts ``string``), typed by the task's row model once it typed the rows
        (:func:`judge.load_run` does; :mod:`judge.record.frames`). Lists and objects (matches,
        score matrices) stay on :attr:`items`.

        Raises:
            ImportError: pandas is missing (``pip install "simjudge[notebook]"``).
        """
        from judge.record.frames import frame

        model = type(self.items[0]) if self.items else ItemRow
        return frame([r.to_row() for r in self.items], model, ("id", "source"),
                     "RunRecord.to_pandas()")

    def verdicts_to_pandas(self) -> Any:
        """The verdicts as a ``pandas.DataFrame``, one row per judged pair and judge, in
        judging order (a panel's members' own verdicts carry ``member_of``): ``item_id``,
        ``judge_id``, ``member_of``, ``pred``, ``truth``, ``score`` (``float64`` in [0, 1], NaN
        when the verdict failed), ``outcome`` (``ok``, ``parse_error``, ``transport_error``,
        ``refused``), ``rationale``, ``raw`` and the backend's scalar fields (``scorer``,
        ``latency_s``, ``tokens_in``, ``cost_usd``, ``cached``…).

        Raises:
            ImportError: pandas is missing (``pip install "simjudge[notebook]"``).
        """
        from judge.record.frames import frame

        return frame(list(self.verdicts.rows()), VerdictRow,
                     ("item_id", "judge_id", "member_of", "pred", "truth", "score", "outcome"),
                     "RunRecord.verdicts_to_pandas()")

    def _repr_html_(self) -> str:
        """Jupyter's rich display: the run's summary table
        (:func:`judge.record.summaryhtml.summary_html`)."""
        from judge.record.summaryhtml import summary_html

        return summary_html(self.config.to_row(), self.summary.to_row(),
                            str(self.path) if self.path is not None else None)

    def verdict_rows(self) -> Iterator[dict[str, Any]]:
        """The verdict rows as plain dicts, one at a time (read from disk for a file-backed
        log; iterate again by calling again)."""
        return self.verdicts.rows()
