"""A run's verdict rows, held in memory or streamed to a JSONL file: :class:`VerdictLog`.

A million-pair run makes a million verdicts (each a few hundred bytes of rationale, raw
output and cache key; several KB as Python objects). ``simjudge eval`` therefore appends each
verdict, as it completes, to a *spool* — an anonymous temporary JSONL file, deleted when the
log is closed or the process ends — and keeps only what matching needs (a score per pair).
Every reader (the report, probes, ``verdicts.jsonl``, panel agreement) iterates the log, one
row at a time; :func:`judge.record.store.load_run` backs the log by the run's own
``verdicts.jsonl`` the same way. Small logs built from rows (:func:`judge.record.store.
record_from_parts`, the tests) stay in memory; both kinds behave as one ``Sequence``.

Rows are appended redacted (:mod:`judge.redact`): an API key echoed in an error text never
reaches the spool file. Lines are split on ``\\n`` only (JSON escapes it inside strings), so
U+2028 and friends in judged strings are kept as they are.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, overload

from pydantic import GetCoreSchemaHandler, ValidationError
from pydantic_core import core_schema

from judge.record.atomic import dumps
from judge.record.jsonlines import OffsetFile, loads_line
from judge.record.rows import VerdictRow

READ_BLOCK = 1 << 20
"""Bytes read at a time when a file-backed log is iterated."""


class VerdictLog(Sequence[VerdictRow]):
    """The verdict rows of a run, in memory or in a JSONL file, in the order they were added.

    ``len``, indexing (``log[k]``, O(1) via an offset index) and iteration give
    :class:`~judge.record.rows.VerdictRow` objects; :meth:`rows` gives plain dicts (the
    fast path of readers that need a few fields of every row).

    Build one with :meth:`memory` (rows validated and held), :meth:`spool` (an anonymous
    temporary file; rows appended with :meth:`append` are redacted and written at once) or
    :meth:`open` (an existing ``verdicts.jsonl``, validated in one streaming pass).
    """

    def __init__(self) -> None:
        self._rows: list[VerdictRow] | None = []
        self._file: OffsetFile | None = None
        self._writer: IO[bytes] | None = None
        self._offsets = array("q", [0])  # line starts, then the end (file-backed)
        self._redactor: Any = None
        self._label = "the verdict spool"

    # ------------------------------------------------------------------ construction
    @classmethod
    def memory(cls, rows: Iterable[Mapping[str, Any] | VerdictRow] = ()) -> VerdictLog:
        """A log held in memory.

        Args:
            rows: verdict rows (dicts with at least ``pred`` and ``truth``) or
                :class:`VerdictRow` objects.

        Raises:
            pydantic.ValidationError: a row without a required field or with a mistyped one.
        """
        log = cls()
        log._rows = [r if isinstance(r, VerdictRow) else VerdictRow.model_validate(r)
                     for r in rows]
        return log

    @classmethod
    def spool(cls, directory: str | Path | None = None, run_dir: str | Path | None = None,
              ) -> VerdictLog:
        """An empty log backed by an anonymous temporary file (deleted on :meth:`close`, when
        the log is collected, or when the process ends, even by a kill).

        Args:
            directory: where the file lives (default ``$SIMJUDGE_SPOOL_DIR``, else the
                system's temporary directory).
            run_dir: the run directory the verdicts are for: a failed write is then reported
                as that run's (:class:`judge.record.atomic.RunWriteError` "cannot write RUN_DIR:
                …"); None = "cannot write the verdict spool: …".

        Raises:
            judge.record.atomic.RunWriteError: the file cannot be created.
        """
        from judge.redact import Redactor

        log = cls()
        log._label = str(run_dir) if run_dir is not None else "the verdict spool"
        where = directory or os.environ.get("SIMJUDGE_SPOOL_DIR") or None
        with log._guard():
            fh = tempfile.TemporaryFile(dir=where)  # noqa: SIM115 (held; closed by close())
        log._rows, log._file, log._writer = None, OffsetFile(fh), fh
        log._redactor = Redactor()
        return log

    @contextlib.contextmanager
    def _guard(self) -> Iterator[None]:
        """OSError of the spool file → :class:`~judge.record.atomic.RunWriteError`."""
        from judge.record.atomic import RunWriteError

        try:
            yield
        except RunWriteError:
            raise
        except OSError as exc:
            raise RunWriteError(f"cannot write {self._label}: "
                                f"{exc.strerror or exc}") from exc

    @classmethod
    def open(cls, path: str | Path) -> VerdictLog:
        """A log read from an existing JSONL file, each row validated as a
        :class:`VerdictRow` in one streaming pass (nothing but line offsets is kept; the file
        stays open, so the log still reads after the directory is replaced).

        Raises:
            OSError: the file cannot be read.
            judge.errors.InputError: malformed JSON or an invalid row — the file, line and
                field named.
        """
        from judge.errors import InputError

        p = Path(path)
        log = cls()
        log._rows, log._file = None, OffsetFile(open(p, "rb"))  # noqa: SIM115 (held by the log)
        offsets = array("q")
        pos = 0
        for lineno, line in enumerate(log._lines(whole=True), start=1):
            start, pos = pos, pos + len(line) + 1
            if not line.strip():
                continue
            try:
                row = loads_line(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"malformed JSON: {exc.msg}", p, lineno) from None
            try:
                VerdictRow.model_validate(row)
            except ValidationError as exc:
                err = exc.errors(include_url=False)[0]
                field = ".".join(str(x) for x in err["loc"]) or None
                raise InputError(f"invalid run file: {err['msg']}", p, lineno, field) from None
            offsets.append(start)
        size = os.fstat(log._file.fd).st_size
        offsets.append(min(pos, size))
        log._offsets = offsets
        return log

    # ------------------------------------------------------------------ writing
    def append(self, row: Mapping[str, Any]) -> None:
        """Add one verdict row (a dict: ``Verdict.model_dump()`` plus ``item_id``,
        ``member_of``…); a spool writes it redacted at once.

        Raises:
            ValueError: the log was read from a run directory (it is read-only).
            judge.record.atomic.RunWriteError: the spool's disk refused the write.
        """
        self.extend((row,))

    def extend(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """:meth:`append` each row; a spool writes them in one call (the same bytes). Raises
        as :meth:`append`."""
        if self._rows is not None:
            self._rows.extend(VerdictRow.model_validate(r) for r in rows)
            return
        if self._writer is None:
            raise ValueError("a verdict log read from a run directory is read-only")
        from judge.redact import redact_row

        lines = [(dumps(redact_row(r, self._redactor)) + "\n").encode("utf-8") for r in rows]
        with self._guard():
            self._writer.write(b"".join(lines))
        for line in lines:
            self._offsets.append(self._offsets[-1] + len(line))

    def close(self) -> None:
        """Release the file (a spool's is deleted); the log is empty afterwards."""
        if self._file is not None:
            self._file.fh.close()
        self._file = self._writer = None
        self._rows, self._offsets = [], array("q", [0])

    @property
    def on_disk(self) -> bool:
        """Whether the rows live in a file (a spool or a run's ``verdicts.jsonl``)."""
        return self._rows is None

    # ------------------------------------------------------------------ reading
    def __eq__(self, other: object) -> bool:
        """Equal to another log or a list/tuple of :class:`VerdictRow` with equal rows in the
        same order."""
        if not isinstance(other, (VerdictLog, list, tuple)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other,
                                                                      strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"VerdictLog({len(self)} rows, {'on disk' if self.on_disk else 'in memory'})"

    def __len__(self) -> int:
        return len(self._rows) if self._rows is not None else len(self._offsets) - 1

    @overload
    def __getitem__(self, k: int) -> VerdictRow: ...

    @overload
    def __getitem__(self, k: slice) -> list[VerdictRow]: ...

    def __getitem__(self, k: int | slice) -> VerdictRow | list[VerdictRow]:
        if self._rows is not None:
            return self._rows[k]
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        return _row_model(self.row(k))

    def row(self, k: int) -> dict[str, Any]:
        """Row ``k`` (0-based; negative counts from the end) as a plain dict, as
        :meth:`rows` yields it; a file-backed log reads just that line.

        Raises:
            IndexError: ``k`` out of range.
        """
        if self._rows is not None:
            return self._rows[k].to_row()
        n = len(self)
        if not -n <= k < n:
            raise IndexError("verdict index out of range")
        k %= n
        assert self._file is not None
        self._flush()
        start, end = self._offsets[k], self._offsets[k + 1]
        row: dict[str, Any] = loads_line(self._file.read(start, end - start))
        return row

    def __iter__(self) -> Iterator[VerdictRow]:
        if self._rows is not None:
            yield from self._rows
            return
        for row in self.rows():
            yield _row_model(row)

    def rows(self, containing: str | None = None) -> Iterator[dict[str, Any]]:
        """Every row as a plain dict (the fields that were set, named ones and the task's
        own), in order, read one at a time for a file-backed log.

        Args:
            containing: ASCII text a reader needs in some string of the row (e.g. ``"grade"``):
                a file-backed log skips undecoded the lines without it (JSON keeps ASCII
                letters as they are); an in-memory log yields every row. None = every row.
        """
        if self._rows is not None:
            for r in self._rows:
                yield r.to_row()
            return
        needle = containing.encode("ascii") if containing is not None else b""
        for line in self._lines():
            if needle in line and line.strip():
                yield loads_line(line)

    def raw_lines(self) -> Iterator[bytes]:
        """A file-backed log's lines as stored (UTF-8 JSON, no newline; already redacted: a
        spool redacts on :meth:`append`, a run's file was written redacted)."""
        yield from (line for line in self._lines() if line.strip())

    def _flush(self) -> None:
        if self._writer is not None:
            with self._guard():
                self._writer.flush()

    def _lines(self, whole: bool = False) -> Iterator[bytes]:
        """The file's lines (by offset, in :data:`READ_BLOCK` reads); ``whole``: up to the
        file's end (while opening), else up to the last row added."""
        assert self._file is not None
        self._flush()
        end = os.fstat(self._file.fd).st_size if whole else self._offsets[-1]
        pos, tail = 0, b""
        while pos < end:
            block = self._file.read(pos, min(READ_BLOCK, end - pos))
            if not block:
                break
            pos += len(block)
            parts = (tail + block).split(b"\n")
            tail = parts.pop()
            yield from parts
        if tail:
            yield tail

    # ------------------------------------------------------------------ pydantic
    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler,
                                     ) -> core_schema.CoreSchema:
        """A field of this type takes a :class:`VerdictLog` as it is, or a list of rows
        validated as ``list[VerdictRow]`` (errors located ``(field, row, key)``)."""
        def wrap(value: Any, inner: core_schema.ValidatorFunctionWrapHandler) -> VerdictLog:
            if isinstance(value, VerdictLog):
                return value
            return cls.memory(inner(value))

        return core_schema.no_info_wrap_validator_function(
            wrap, handler.generate_schema(list[VerdictRow]),
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda log: list(log.rows())))


def _row_model(row: dict[str, Any]) -> VerdictRow:
    """A stored (already validated) row as a :class:`VerdictRow`, without validating again."""
    return VerdictRow.model_construct(**row)
