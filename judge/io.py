"""Reading evaluation data: JSONL, CSV and TSV records with file/line positions.

Every problem raises :class:`judge.errors.InputError` naming the file, the 1-based line and the
field, e.g. ``data.jsonl:7: field 'final_answer': expected a list of strings, got int``.
Files are UTF-8 (Excel's byte-order mark is skipped; any other encoding is an error naming the
line); JSONL is split on ``\n`` only; what Python's JSON parser crashes on or lets through
although it is not JSON or not usable (NaN, Infinity, numbers beyond a float's range, a key
given twice in one object, deep nesting, huge integers, lone surrogates) is an error too
(:func:`loads`).
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from typing import Any

from judge.errors import InputError, printable
from judge.jsontext import MAX_NESTING as MAX_NESTING
from judge.jsontext import check_value as check_value
from judge.jsontext import loads as loads


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
    """Hex sha256 of a file's bytes; of a folder (a BFCL result folder), the sha256 of one line
    ``RELATIVE_PATH<TAB>SHA256`` per file inside it, in sorted order."""
    if Path(path).is_dir():
        root = Path(path)
        lines = "".join(f"{p.relative_to(root).as_posix()}\t{file_sha256(p)}\n"
                        for p in sorted(root.rglob("*")) if p.is_file())
        return hashlib.sha256(lines.encode("utf-8")).hexdigest()
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _format_of(path: Path) -> str:
    if str(path) == "-":
        raise InputError("reading from stdin ('-') is not supported: a run records its input "
                         "file (path and sha256) so that rescore and export can read it "
                         "again; save the data to a .jsonl file first", path)
    if path.is_dir():
        raise InputError("is a directory, not a data file: give a .jsonl, .csv or .tsv file "
                         "(a BFCL result folder is read with --task function-call --format "
                         "bfcl)", path)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        return "jsonl"
    if suffix == ".csv":
        return "csv"
    if suffix in (".tsv", ".tab"):
        return "tsv"
    raise InputError(f"unknown file type {suffix!r}; expected .jsonl, .csv or .tsv", path)



def read_text_utf8(path: str | Path) -> str:
    """A text file's contents, decoded as UTF-8 (a leading byte-order mark, as Excel writes it,
    is dropped).

    Raises:
        InputError: unreadable file, or bytes that are not UTF-8 (the line and the first bad
            byte are named, e.g. a GBK- or Latin-1-encoded file; UTF-16 and NUL bytes are
            named as such).
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc}", p) from None
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise InputError("file is UTF-16 (it starts with a UTF-16 byte-order mark), not UTF-8; "
                         "re-save it as UTF-8", p, 1)
    raw = raw.removeprefix(b"\xef\xbb\xbf")
    nul = raw.find(b"\x00")
    if nul >= 0:
        raise InputError("contains NUL bytes (UTF-16 without a byte-order mark, or not a text "
                         "file?); re-save it as UTF-8", p, raw.count(b"\n", 0, nul) + 1)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(f"not UTF-8 (byte 0x{raw[exc.start]:02x} at line {line}, byte "
                         f"{column} of the line; GBK, Latin-1 or another legacy encoding?); "
                         "re-save the file as UTF-8", p, line) from None


def check_string_sizes(value: Any, max_chars: int, path: str | Path | None, line: int | None,
                       field: str) -> None:
    """Refuse any string in ``value`` (a field's value: a string, or lists/objects holding
    strings, keys included) longer than ``max_chars`` characters; ``max_chars`` 0 = no limit.

    A longer string is bad input, never truncated: a judge would see a different text from the
    one the metrics report on (and the embedded encoder's memory grows with the length).

    Raises:
        InputError: ``FILE:LINE: field 'pred': string of 10,485,760 characters exceeds
            --max-chars 4096``.
    """
    if max_chars <= 0:
        return
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if len(v) > max_chars:
                raise InputError(f"string of {len(v):,} characters exceeds --max-chars "
                                 f"{max_chars}", path, line, field)
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)


def split_jsonl(text: str) -> list[str]:
    """JSONL lines: split on ``\\n`` only (a ``\\r`` before it is JSON whitespace).

    ``str.splitlines()`` also splits on U+2028, U+2029, U+0085, U+000B/C and U+001C–U+001E,
    which JSON allows unescaped inside strings: it would cut records in two.
    """
    return text.split("\n")


def read_records(path: str | Path) -> list[Record]:
    """Read every row of a JSONL, CSV or TSV file (UTF-8; a leading BOM, as Excel writes it, is
    skipped).

    JSONL: one JSON object per non-blank line, lines split on ``\\n`` only (see
    :func:`split_jsonl`), each decoded by :func:`loads`. CSV/TSV: a header row, then one row
    per record (``csv`` module quoting, newlines allowed inside quoted cells); cells are
    strings.

    Raises:
        InputError: ``-`` (stdin: not supported, said so), a directory, a JSON array or a
            multi-line JSON object instead of JSONL (said so), unreadable file, not UTF-8,
            unknown extension, malformed JSON, JSON nested
            deeper than :data:`MAX_NESTING`, an integer over 4,300 digits, a lone surrogate, a
            line that is not an object, or a CSV row with the wrong number of cells — each
            with file and line (and field when known).
    """
    p = Path(path)
    fmt = _format_of(p)
    text = read_text_utf8(p)
    records: list[Record] = []
    if fmt == "jsonl":
        for lineno, line in enumerate(split_jsonl(text), start=1):
            if not line.strip():
                continue
            if not records:
                _not_one_document(text, line, p, lineno)
            obj = loads(line, p, lineno)
            if not isinstance(obj, dict):
                raise InputError(f"expected a JSON object, got {type(obj).__name__}", p, lineno)
            records.append(Record(str(p), lineno, obj))
        return records
    if csv.field_size_limit() < _CSV_FIELD_LIMIT:
        # the default (131,072 characters) aborts with csv.Error; --max-chars names the field
        csv.field_size_limit(_CSV_FIELD_LIMIT)
    reader = csv.reader(StringIO(text, newline=""), delimiter="," if fmt == "csv" else "\t")
    header: list[str] | None = None
    rows = iter(reader)
    while True:
        lineno = reader.line_num + 1  # a quoted cell may span lines: name the row's first
        try:
            row = next(rows)
        except StopIteration:
            break
        except csv.Error as exc:
            raise InputError(f"malformed {fmt.upper()}: {exc}", p, reader.line_num) from None
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


_CSV_FIELD_LIMIT = 2**31 - 1


def _not_one_document(text: str, first: str, path: Path, line: int) -> None:
    """Refuse a ``.json``/``.jsonl`` file that is one JSON document — an array of records, or
    one object spread over several lines — rather than JSONL, saying so (its first line alone
    would be "malformed JSON"). JSONL is kept as the one format: its records have line numbers
    for every error message, and a stream of them is what every tool writes.

    Raises:
        InputError: the file parses as one JSON array, or as one object over several lines.
    """
    head = first.lstrip()[:1]
    if head not in ("[", "{") or (head == "{" and text.strip() == first.strip()):
        return
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return  # not one document: the line's own error follows
    out = path.with_name(path.stem + ("-lines" if path.suffix == ".jsonl" else "") + ".jsonl")
    if isinstance(doc, list):
        raise InputError(f"is a JSON array (of {len(doc):,} elements), not JSONL: expected one "
                         f"JSON object per line; convert it with: jq -c '.[]' {path} > {out}",
                         path, line)
    if isinstance(doc, dict) and len(text.strip().split("\n")) > 1:
        raise InputError("is one JSON object over several lines, not JSONL: expected one JSON "
                         f"object per line; convert it with: jq -c . {path} > {out}", path, line)


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
        present = ", ".join(printable(k) for k in sorted(record.data))
        raise record.error(f"missing (fields present: {present})", field)
    return record.data[field]


def record_id(record: Record, id_fields: Sequence[str]) -> str:
    """The record's id: the ``id_fields`` values joined by ``/``; ``line<N>`` if none. Each
    value is a non-empty string or an integer (``7`` is the id ``"7"``, the same as ``"7"``).

    Raises:
        InputError: an id field is missing, null, empty, a boolean, a number with a fraction
            or exponent (``1.0``, ``2.5``), or an array/object.
    """
    if not id_fields:
        return f"line{record.line}"
    parts = []
    for f in id_fields:
        value = get_field(record, f)
        if isinstance(value, bool) or not (isinstance(value, int) or
                                           (isinstance(value, str) and value != "")):
            shown = "empty" if value == "" else _shown(value)
            raise record.error(f"expected a string or integer id, got {shown}", f)
        parts.append(value if isinstance(value, str) else str(value))
    return "/".join(parts)


def _shown(value: Any) -> str:
    """A value as JSON, cut at 40 characters (for a message)."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


_TABLE_SUFFIXES = (".csv", ".tsv", ".tab")
"""Files whose cells are text (a list-valued cell holds JSON)."""


def maybe_json(record: Record, field: str, value: Any) -> Any:
    """Decode a CSV/TSV cell holding a JSON array or object; other values pass through.

    Raises:
        InputError: the cell starts like JSON but is malformed.
    """
    if isinstance(value, str) and record.path.endswith(_TABLE_SUFFIXES):
        s = value.strip()
        if s[:1] in ("[", "{"):
            return loads(s, record.path, record.line, field)
    return value


def string_list(record: Record, field: str) -> list[str]:
    """A list of strings. In CSV/TSV the cell holds a JSON array, or one plain string: a
    one-item list (``Job Information`` → ``["Job Information"]``, commas kept: several items
    need the array); an empty cell is an empty list.

    Raises:
        InputError: missing field, not a list, or a non-string element (index named).
    """
    value = maybe_json(record, field, get_field(record, field))
    if isinstance(value, str) and record.path.endswith(_TABLE_SUFFIXES):
        return [value] if value.strip() else []
    if not isinstance(value, list):
        raise record.error(f"expected a list of strings, got {type(value).__name__}", field)
    for i, v in enumerate(value):
        if not isinstance(v, str):
            raise record.error(f"element {i}: expected a string, got {type(v).__name__}", field)
    return value


def boolean(record: Record, field: str) -> bool:
    """A boolean label: JSON true/false or the integers 0/1, or (JSON and CSV/TSV alike) one of
    the strings ``true/false``, ``t/f``, ``yes/no``, ``y/n``, ``1/0`` (case-insensitive,
    surrounding whitespace ignored).

    Raises:
        InputError: missing field or any other value (``[true]``, ``1.0``, ``2``, ``"maybe"``).
    """
    value = get_field(record, field)
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
    raise record.error(f"expected a boolean (true/false or 0/1), got {_shown(value)}", field)


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
    """A list of function calls ``{"name": str, "arguments": object}`` (CSV: JSON in the cell;
    ``arguments`` may be left out: no arguments; other keys are kept and ignored). No call is
    ``[]``; null is not a list of calls.

    Raises:
        InputError: missing field, not a list (null included), or a malformed call (index
            named).
    """
    value = maybe_json(record, field, get_field(record, field))
    if not isinstance(value, list):
        got = "null" if value is None else type(value).__name__
        raise record.error(f"expected a list of calls ([] for no call), got {got}", field)
    for i, call in enumerate(value):
        if not isinstance(call, dict):
            raise record.error(f"call {i}: expected an object, got {type(call).__name__}", field)
        if not isinstance(call.get("name"), str):
            raise record.error(f"call {i}: 'name' must be a string", field)
        if not isinstance(call.get("arguments", {}), dict):
            raise record.error(f"call {i}: 'arguments' must be an object", field)
    return value


def label_list(record: Record, field: str) -> list[str]:
    """A list of class labels: strings, compared exactly (in CSV/TSV as
    :func:`string_list`: a JSON array, or one plain string read as a one-item list). A label
    that is a number is refused rather than turned into text: ``1`` and ``"1"`` would be one
    label, and ``1.0`` another.

    Raises:
        InputError: missing field, not a list, or an element that is not a string (index
            named).
    """
    value = maybe_json(record, field, get_field(record, field))
    if isinstance(value, list):
        for i, v in enumerate(value):
            if not isinstance(v, str):
                raise record.error(f"element {i}: expected a string label, got {_shown(v)} "
                                   "(labels are strings: write it in quotes)", field)
    return string_list(record, field)
