"""Reading evaluation data: JSONL, CSV and TSV records with file/line positions.

Every problem raises :class:`judge.errors.InputError` naming the file, the 1-based line and the
field, e.g. ``data.jsonl:7: field 'final_answer': expected a list of strings, got int``.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.errors import InputError


@dataclass(frozen=True)
class Record:
    """One input row.

    Attributes:
        path: source file.
        line: 1-based line number of the row in that file.
        data: the row's fields (JSON values; CSV/TSV cells are strings).
    """

    path: str
    line: int
    data: dict[str, Any]

    def error(self, message: str, field: str | None = None) -> InputError:
        """An :class:`InputError` located at this record."""
        return InputError(message, self.path, self.line, field)


def file_sha256(path: str | Path) -> str:
    """Hex sha256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _format_of(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        return "jsonl"
    if suffix == ".csv":
        return "csv"
    if suffix in (".tsv", ".tab"):
        return "tsv"
    raise InputError(f"unknown file type {suffix!r}; expected .jsonl, .csv or .tsv", path)


def read_records(path: str | Path) -> list[Record]:
    """Read every row of a JSONL, CSV or TSV file.

    JSONL: one JSON object per non-blank line. CSV/TSV: a header row, then one row per line
    (``csv`` module quoting); cells are strings.

    Raises:
        InputError: unreadable file, unknown extension, malformed JSON, a line that is not an
            object, or a CSV row with the wrong number of cells.
    """
    p = Path(path)
    fmt = _format_of(p)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read file: {exc}", p) from None
    records: list[Record] = []
    if fmt == "jsonl":
        for lineno, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"malformed JSON: {exc.msg} (column {exc.colno})", p,
                                 lineno) from None
            if not isinstance(obj, dict):
                raise InputError(f"expected a JSON object, got {type(obj).__name__}", p, lineno)
            records.append(Record(str(p), lineno, obj))
        return records
    reader = csv.reader(text.splitlines(), delimiter="," if fmt == "csv" else "\t")
    header: list[str] | None = None
    for row in reader:
        lineno = reader.line_num
        if header is None:
            header = row
            if len(set(header)) != len(header):
                raise InputError("duplicate column names in header", p, lineno)
            continue
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise InputError(f"expected {len(header)} cells as in the header, got {len(row)}",
                             p, lineno)
        records.append(Record(str(p), lineno, dict(zip(header, row, strict=True))))
    if header is None:
        raise InputError("empty file: no header row", p)
    return records


def parse_where(clauses: Sequence[str]) -> list[tuple[str, str]]:
    """Parse ``FIELD=VALUE`` filters.

    Raises:
        InputError: a clause without ``=``.
    """
    out = []
    for c in clauses:
        field, sep, value = c.partition("=")
        if not sep or not field:
            raise InputError(f"--where expects FIELD=VALUE, got {c!r}")
        out.append((field, value))
    return out


def filter_records(records: Iterable[Record], where: Sequence[tuple[str, str]]) -> list[Record]:
    """Keep records whose fields equal every ``(field, value)`` (compared as strings)."""
    out = []
    for r in records:
        if all(field in r.data and _as_text(r.data[field]) == value for field, value in where):
            out.append(r)
    return out


def _as_text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def get_field(record: Record, field: str) -> Any:
    """The value of ``field`` in ``record``.

    Raises:
        InputError: the field is missing.
    """
    if field not in record.data:
        raise record.error(f"missing (fields present: {', '.join(sorted(record.data))})", field)
    return record.data[field]


def record_id(record: Record, id_fields: Sequence[str]) -> str:
    """The record's id: the ``id_fields`` values joined by ``/``; the line number if none.

    Raises:
        InputError: an id field is missing.
    """
    if not id_fields:
        return f"line{record.line}"
    return "/".join(_as_text(get_field(record, f)) for f in id_fields)


def maybe_json(record: Record, field: str, value: Any) -> Any:
    """Decode a CSV/TSV cell holding a JSON array or object; other values pass through.

    Raises:
        InputError: the cell starts like JSON but is malformed.
    """
    if isinstance(value, str) and record.path.endswith((".csv", ".tsv", ".tab")):
        s = value.strip()
        if s[:1] in ("[", "{"):
            try:
                return json.loads(s)
            except json.JSONDecodeError as exc:
                raise record.error(f"malformed JSON in cell: {exc.msg}", field) from None
    return value


def string_list(record: Record, field: str) -> list[str]:
    """A list of strings (CSV/TSV: a JSON array in the cell).

    Raises:
        InputError: missing field, not a list, or a non-string element (index named).
    """
    value = maybe_json(record, field, get_field(record, field))
    if not isinstance(value, list):
        raise record.error(f"expected a list of strings, got {type(value).__name__}", field)
    for i, v in enumerate(value):
        if not isinstance(v, str):
            raise record.error(f"element {i}: expected a string, got {type(v).__name__}", field)
    return value


def boolean(record: Record, field: str) -> bool:
    """A boolean label: JSON true/false or 0/1; in CSV/TSV also ``true/false``, ``T/F``,
    ``yes/no``, ``0/1`` (case-insensitive).

    Raises:
        InputError: missing field or any other value.
    """
    value = get_field(record, field)
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        v = value.strip().lower()
        if v in ("true", "t", "yes", "y", "1"):
            return True
        if v in ("false", "f", "no", "n", "0"):
            return False
    raise record.error(f"expected a boolean (true/false or 0/1), got {value!r}", field)


def text(record: Record, field: str) -> str:
    """A string field.

    Raises:
        InputError: missing field or not a string.
    """
    value = get_field(record, field)
    if not isinstance(value, str):
        raise record.error(f"expected a string, got {type(value).__name__}", field)
    return value


def text_or_list(record: Record, field: str) -> list[str]:
    """One reference string or a list of them, as a list.

    Raises:
        InputError: missing field, or neither a string nor a list of strings.
    """
    value = maybe_json(record, field, get_field(record, field))
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return value
    raise record.error("expected a string or a non-empty list of strings", field)


def call_list(record: Record, field: str) -> list[dict[str, Any]]:
    """A list of function calls ``{"name": str, "arguments": object}`` (CSV: JSON in the cell).

    Raises:
        InputError: missing field, not a list, or a malformed call (index named).
    """
    value = maybe_json(record, field, get_field(record, field))
    if value is None:
        return []
    if not isinstance(value, list):
        raise record.error(f"expected a list of calls, got {type(value).__name__}", field)
    for i, call in enumerate(value):
        if not isinstance(call, dict):
            raise record.error(f"call {i}: expected an object, got {type(call).__name__}", field)
        if not isinstance(call.get("name"), str):
            raise record.error(f"call {i}: 'name' must be a string", field)
        if not isinstance(call.get("arguments", {}), dict):
            raise record.error(f"call {i}: 'arguments' must be an object", field)
    return value


def label_list(record: Record, field: str) -> list[str]:
    """A list of class labels (strings or integers, returned as strings).

    Raises:
        InputError: missing field, not a list, or an element that is neither str nor int.
    """
    value = maybe_json(record, field, get_field(record, field))
    if not isinstance(value, list):
        raise record.error(f"expected a list of labels, got {type(value).__name__}", field)
    out = []
    for i, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, (str, int)):
            raise record.error(f"element {i}: expected a string or integer label", field)
        out.append(str(v))
    return out
