"""A run directory on disk ↔ a :class:`~judge.record.runrecord.RunRecord` in memory.

* :func:`write_run` writes ``config.json``, ``summary.json``, ``items.jsonl``,
  ``verdicts.jsonl``, the record's extra JSONL files and the files its caller renders from the
  record (``report.html``: :data:`judge.runs.report.RENDERERS`, handed in from above, so this
  ground floor imports no report code) atomically (:func:`judge.record.atomic.atomic_dir`);
* :func:`load_run` reads a run directory back (``rescore``, ``audit``, ``compare``,
  ``calibrate --run``), naming the file and line of anything malformed;
* :func:`record_from_parts` builds a validated record from plain rows.

JSON is written as Python's :mod:`json` writes it (UTF-8 with non-ASCII characters kept, NaN
allowed); JSONL files are split on ``\\n`` only when read, because ``str.splitlines()`` would
also cut at U+2028/U+2029/U+0085 inside judged strings, which the run files keep unescaped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from judge.errors import InputError
from judge.record.atomic import atomic_dir, dumps, dumps_each
from judge.record.config import upgrade_config
from judge.record.runrecord import RunRecord
from judge.record.verdictlog import VerdictLog

RUN_FILES = ("config.json", "verdicts.jsonl", "items.jsonl", "summary.json")
"""The files every run directory holds."""
REPORT_FILE = "report.html"
Renderer = Callable[[RunRecord, str, IO[str]], None]
"""``(record, run name, text stream) -> None``: writes one file of the run rendered from the
record (the audit report: :data:`judge.runs.report.RENDERERS`)."""
INPUT_FILE = "inputs.jsonl"
"""The records a Python-API run was given in memory, written into its run directory by the
pipeline so ``rescore`` and ``export`` can read them again (``config.json``'s ``data`` entry
names it with ``"in_run": true``); an input, never an extra file."""
AUDIT_FILES = ("report.jsonl",)
"""JSONL files ``simjudge audit`` may write into a run directory: never read as extra files."""


def record_from_parts(config: Mapping[str, Any], summary: Mapping[str, Any],
                      item_rows: Sequence[Mapping[str, Any]],
                      verdict_rows: Sequence[Mapping[str, Any]] | VerdictLog,
                      extra: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
                      path: str | Path | None = None) -> RunRecord:
    """A validated :class:`RunRecord` from plain JSON-like parts (what a task's scoring and
    judging produce).

    Args:
        config, summary: ``config.json`` and ``summary.json`` objects (``task`` required in
            both; ``n_items`` >= 0 in the summary).
        item_rows: one object per item (``id`` required).
        verdict_rows: one object per verdict (``pred``, ``truth`` required), or a
            :class:`~judge.record.verdictlog.VerdictLog` (kept as it is).
        extra: more JSONL files by name (``disagreements.jsonl``…).
        path: the run directory, if any.

    A ``config`` of an earlier schema version is upgraded (v0: no ``schema_version``;
    :func:`judge.record.config.upgrade_config`).

    Raises:
        pydantic.ValidationError: a part without a required field or with a mistyped one.
        InputError: a ``schema_version`` newer than this simjudge reads (field named).
    """
    if isinstance(config, Mapping):
        where = Path(path) / "config.json" if path is not None else None
        config = upgrade_config(config, where)
    return RunRecord.model_validate({
        "config": config, "summary": summary, "items": item_rows, "verdicts": verdict_rows,
        "extra": dict(extra or {}), "path": Path(path) if path is not None else None})


def _check_extra_names(names: Iterable[str]) -> None:
    for name in names:
        if (not name.endswith(".jsonl") or Path(name).name != name or name.startswith(".")
                or name in RUN_FILES or name in AUDIT_FILES or name == INPUT_FILE):
            raise ValueError(f"extra run file {name!r}: expected a plain NAME.jsonl other than "
                             f"{', '.join(RUN_FILES + AUDIT_FILES)}")


def _write_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for line in dumps_each(rows):
            fh.write(line + "\n")


def _check_rendered_name(name: str) -> None:
    if Path(name).name != name or name.startswith(".") or name in RUN_FILES or not name:
        raise ValueError(f"rendered run file {name!r}: expected a plain file name other than "
                         f"{', '.join(RUN_FILES)}")


def write_run(record: RunRecord, out: str | Path, overwrite: bool = False,
              renderers: Mapping[str, Renderer] | None = None) -> Path:
    """Write ``record`` as the run directory ``out``, atomically, with the files ``renderers``
    make from it (``{file name: renderer}``; the CLI and the Python API pass
    :data:`judge.runs.report.RENDERERS` for ``report.html``; default none).

    API keys are redacted (:mod:`judge.redact`) from the config, the summary and every
    verdict/extra row (all their texts except the judged ``pred``/``truth`` and ids); the item
    rows are the data and are written as they are. On success ``record.path`` is set to
    ``out``.

    Args:
        record: the run.
        out: the run directory (created; its parent too).
        overwrite: replace an existing run directory (the old one stays until the new one is
            in place).
        renderers: files rendered from the record inside the same atomic write (a renderer
            that raises leaves nothing behind).

    Returns:
        ``out`` as a :class:`Path`.

    Raises:
        InputError: ``out`` cannot be a run directory (see
            :func:`judge.record.outdir.check_out_dir`).
        judge.record.atomic.RunWriteError: the filesystem refused a write (disk full…); nothing
            is left behind.
        ValueError: an extra file name that is not a plain ``NAME.jsonl`` or is one of the
            run's own files; a rendered file name that is not a plain name or is a run file.
    """
    from judge.redact import Redactor, redact_row

    out = Path(out)
    _check_extra_names(record.extra)
    red = Redactor()  # API keys never reach a run file (judge.redact)
    with atomic_dir(out, overwrite) as tmp:
        (tmp / "config.json").write_text(dumps(red.obj(record.config.to_row()), indent=2)
                                         + "\n", encoding="utf-8")
        if record.verdicts.on_disk:  # a spool's or a run file's rows: stored redacted
            with open(tmp / "verdicts.jsonl", "wb") as bfh:
                for line in record.verdicts.raw_lines():
                    bfh.write(line + b"\n")
        else:
            _write_jsonl(tmp / "verdicts.jsonl",
                         (redact_row(v, red) for v in record.verdicts.rows()))
        _write_jsonl(tmp / "items.jsonl", (r.to_row() for r in record.items))
        (tmp / "summary.json").write_text(dumps(red.obj(record.summary.to_row()), indent=2)
                                          + "\n", encoding="utf-8")
        for name, rows in record.extra.items():
            _write_jsonl(tmp / name, (redact_row(r, red) for r in rows))
        for name, render in (renderers or {}).items():  # inside the atomic write: all or nothing
            _check_rendered_name(name)
            with open(tmp / name, "w", encoding="utf-8") as fh:
                render(record, out.name, fh)
    record.path = out
    return out


def _jsonl(path: Path) -> tuple[list[Any], list[int]]:
    """Values of a JSONL file and their 1-based line numbers (blank lines skipped)."""
    rows: list[Any] = []
    lines: list[int] = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InputError(f"malformed JSON: {exc.msg}", path, lineno) from None
            lines.append(lineno)
    return rows, lines


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON: {exc.msg}", path, exc.lineno) from None


def load_run(path: str | Path) -> RunRecord:
    """Read a run directory written by ``simjudge eval`` (this version or an earlier one).

    Every ``*.jsonl`` file besides ``items.jsonl`` and ``verdicts.jsonl`` (and the audit's
    ``report.jsonl``, the in-run input copy :data:`INPUT_FILE`) becomes an entry of
    ``record.extra``. The item rows are read as :class:`~judge.record.rows.ItemRow`; the run's
    task types them with its row model when it first reads them
    (:meth:`~judge.record.runrecord.RunRecord.rows_as`, which names the line of a bad row).

    Raises:
        InputError: a missing run file ("not a run directory"), malformed JSON, or a row or
            object without a required field or with a mistyped one — the file, the line (for
            JSONL files) and the field named.
    """
    p = Path(path)
    try:
        config = _json(p / "config.json")
        summary = _json(p / "summary.json")
        items, item_lines = _jsonl(p / "items.jsonl")
        verdicts = VerdictLog.open(p / "verdicts.jsonl")  # streamed, validated, not held
        extra: dict[str, list[Any]] = {}
        extra_lines: dict[str, list[int]] = {}
        for f in sorted(p.glob("*.jsonl")):
            if (f.name not in RUN_FILES and f.name not in AUDIT_FILES and f.name != INPUT_FILE
                    and f.is_file()):
                extra[f.name], extra_lines[f.name] = _jsonl(f)
    except OSError as exc:
        raise InputError(f"not a run directory: {exc}", p) from None
    try:
        record = record_from_parts(config, summary, items, verdicts, extra, p)
    except ValidationError as exc:
        lines = {"items": item_lines}
        raise _located(exc, p, lines, extra_lines) from None
    record._item_lines = item_lines  # for the messages of RunRecord.rows_as
    return record


def _located(exc: ValidationError, p: Path, lines: Mapping[str, list[int]],
             extra_lines: Mapping[str, list[int]]) -> InputError:
    """The first validation error as an :class:`InputError` naming its file, line and field."""
    err = exc.errors(include_url=False)[0]
    loc = list(err["loc"])
    part = loc.pop(0) if loc else None
    where: Path = p
    line: int | None = None
    if part in ("config", "summary"):
        where = p / f"{part}.json"
    elif part in lines and loc and isinstance(loc[0], int):
        where, line = p / f"{part}.jsonl", _row_line(loc, lines[str(part)])
    elif part == "extra" and loc and str(loc[0]) in extra_lines:
        name = str(loc.pop(0))
        where, line = p / name, _row_line(loc, extra_lines[name])
    field = ".".join(str(x) for x in loc) or None
    return InputError(f"invalid run file: {err['msg']}", where, line, field)


def _row_line(loc: list[int | str], lines: Sequence[int]) -> int | None:
    """The line of the row ``loc`` starts with (popped), or None when it names no row."""
    k = loc[0] if loc else None
    if isinstance(k, int):
        loc.pop(0)
        return lines[k]
    return None
