"""Reading evaluation data: JSONL, CSV and TSV records with file/line positions.

Every problem raises :class:`judge.errors.InputError` naming the file, the 1-based line and the
field, e.g. ``data.jsonl:7: field 'final_answer': expected a list of strings, got int``.
Files are UTF-8 (Excel's byte-order mark is skipped; any other encoding is an error naming the
line); JSONL is split on ``\n`` only; what Python's JSON parser crashes on or lets through
unusable (deep nesting, huge integers, lone surrogates) is an error too (:func:`loads`).
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from io import StringIO
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


MAX_NESTING = 100
"""Deepest nesting of arrays/objects accepted in one record (the record object is level 1).

Real evaluation data nests a few levels (function-call arguments); Python's own JSON parser gives
up near 1,000 levels with a ``RecursionError``, and deep values break later steps too."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_TOKEN = re.compile(_STRING + r"|[\[\]{}]|\d+")
_COLON = re.compile(r"\s*:")


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


def _locate(line: str, max_depth: int | None = None, max_digits: int | None = None,
            ) -> tuple[str | None, int, int]:
    """Scan JSON text for the first container nested deeper than ``max_depth`` or the first
    integer with more than ``max_digits`` digits (outside strings).

    Returns:
        ``(top-level field or None, depth reached, digits)`` of the first offence; the field is
        None when the offence is not inside a top-level object member.
    """
    depth = 0
    key: str | None = None
    for m in _TOKEN.finditer(line):
        tok = m.group()
        c = tok[0]
        if c == '"':
            if depth == 1 and _COLON.match(line, m.end()):
                try:
                    key = json.loads(tok)
                except ValueError:
                    key = tok[1:-1]
                if key is not None and _SURROGATE.search(key):
                    key = None  # cannot be printed
        elif c in "[{":
            depth += 1
            if max_depth is not None and depth > max_depth:
                return key, depth, 0
        elif c in "]}":
            depth -= 1
        elif max_digits is not None and len(tok) > max_digits:
            return (key if depth >= 1 else None), depth, len(tok)
    return None, depth, 0


def loads(text: str, path: str | Path | None = None, line: int | None = None,
          field: str | None = None) -> Any:
    """``json.loads`` for user input, with every failure as one :class:`InputError`.

    Rejects what Python's parser either crashes on or silently accepts but nothing downstream
    can handle: malformed JSON; nesting deeper than :data:`MAX_NESTING` (the parser raises
    ``RecursionError`` near 1,000 levels); integers of more than 4,300 digits (Python's
    ``sys.get_int_max_str_digits()`` limit, a ``ValueError``); lone UTF-16 surrogates such as
    ``"\\ud800"`` (not Unicode: they cannot be written back as UTF-8).

    Args:
        text: the JSON text (one JSONL line or one CSV cell).
        path, line: where the text is, for the message.
        field: the field holding the text (a CSV cell); for a whole JSONL line the offending
            top-level field is found and named.

    Raises:
        InputError: ``FILE:LINE: field 'x': what is wrong``.
    """
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON: {exc.msg} (column {exc.colno})", path, line,
                         field) from None
    except RecursionError:
        key, _, _ = _locate(text, max_depth=MAX_NESTING)
        raise InputError(f"JSON nested deeper than {MAX_NESTING} levels", path, line,
                         field or key) from None
    except ValueError as exc:  # int longer than sys.get_int_max_str_digits()
        limit = sys.get_int_max_str_digits()
        key, _, digits = _locate(text, max_digits=limit)
        what = f"integer of {digits:,} digits" if digits else f"number ({exc})"
        raise InputError(f"{what} exceeds Python's limit of {limit:,} digits "
                         "(sys.get_int_max_str_digits())", path, line, field or key) from None
    surrogates = _SURROGATE_ESCAPE.search(text) is not None
    # no deeper than the number of brackets that open: most texts need no walk at all
    if surrogates or text.count("[") + text.count("{") > MAX_NESTING:
        check_value(obj, path, line, field, surrogates=surrogates)
    return obj


def check_value(obj: Any, path: str | Path | None = None, line: int | None = None,
                field: str | None = None, surrogates: bool = True) -> None:
    """Check a decoded JSON value: nesting at most :data:`MAX_NESTING` levels, no lone
    surrogate in any string or key. Iterative (no recursion limit).

    Args:
        obj: the value; when ``field`` is None and ``obj`` is an object, offences are named by
            the top-level member they sit in.
        surrogates: False skips the surrogate scan (the JSON text had no ``\\uD8xx``–``\\uDFxx``
            escape, so no string can hold one).

    Raises:
        InputError: too deep, or a lone surrogate (code point named).
    """
    stack: list[tuple[Any, int, str | None]] = [(obj, 1, field)]
    while stack:
        value, depth, top = stack.pop()
        if isinstance(value, str):
            if surrogates and (m := _SURROGATE.search(value)):
                raise InputError(f"lone surrogate \\u{ord(m.group()):04x} in a string (a broken "
                                 "UTF-16 escape, not valid Unicode)", path, line, top)
        elif isinstance(value, (dict, list)):
            if depth > MAX_NESTING:
                raise InputError(f"JSON nested deeper than {MAX_NESTING} levels", path, line, top)
            if isinstance(value, dict):
                for k, v in value.items():
                    name = k if top is None and depth == 1 else top
                    if surrogates and _SURROGATE.search(k):
                        raise InputError("lone surrogate in a key (a broken UTF-16 escape, not "
                                         "valid Unicode)", path, line, name if depth > 1 else
                                         None)
                    stack.append((v, depth + 1, name))
            else:
                stack.extend((v, depth + 1, top) for v in value)


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
        raise record.error(f"missing (fields present: {', '.join(sorted(record.data))})", field)
    return record.data[field]


def record_id(record: Record, id_fields: Sequence[str]) -> str:
    """The record's id: the ``id_fields`` values joined by ``/``; ``line<N>`` if none.

    Raises:
        InputError: an id field is missing, null, empty, or an array/object.
    """
    if not id_fields:
        return f"line{record.line}"
    parts = []
    for f in id_fields:
        value = get_field(record, f)
        if value is None or value == "" or isinstance(value, (list, dict)):
            shown = "empty" if value == "" else json.dumps(value, ensure_ascii=False)[:40]
            raise record.error(f"expected a string or number id, got {shown}", f)
        parts.append(_as_text(value))
    return "/".join(parts)


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
