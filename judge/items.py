"""Turning input records into evaluation items for each task.

Field mapping: ``pred_field`` / ``truth_field`` name the prediction and gold fields (real files
name them differently: the IFPUG runs use ``final_answer`` / ``ground_truth``); ``id_fields``
name the field(s) whose values identify an item (joined by ``/``); by default the records' ``id``
field when they carry it, else ``line<N>``. Predictions and gold may sit in one file or in two
(``gold``), joined on the id one-to-one; records are paired by position only when neither file
carries ids and both hold as many records (:func:`resolve_id_fields`). A missing, extra or
duplicate id is an error naming file, line and id; an id is a non-empty string or an integer
(:func:`judge.io.record_id`). A record's optional ``query`` is a string (null = none). Strings in
the prediction and gold fields are limited to ``max_chars`` characters (default
:data:`DEFAULT_MAX_CHARS`): longer is an error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge import io
from judge.errors import InputError
from judge.io import Record

Extractor = Callable[[Record, str], Any]
"""``(record, field) -> typed value``: reads one side of an item from a record (raises
:class:`InputError` via ``record.error`` for a missing or mistyped field)."""


@dataclass(frozen=True)
class Item:
    """One evaluation item.

    Attributes:
        id: item id (unique within the dataset).
        source: ``FILE:LINE`` of the prediction record.
        pred: the prediction, typed per task (list[str], bool, list of calls, str, labels…).
        truth: the gold answer, typed per task.
        query: optional free text shown in reports (e.g. the seed 003 ``query``).
        extra: format-specific data (e.g. BFCL function schemas and category).
    """

    id: str
    source: str
    pred: Any
    truth: Any
    query: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


DEFAULT_ID = "id"
"""The id field used when no ``id_fields`` are given and the records carry it."""

DEFAULT_MAX_CHARS = 4096
"""Longest string (in characters) accepted in a prediction or gold field by default."""


def resolve_id_fields(records: Sequence[Record], id_fields: Sequence[str] = (),
                      gold_records: Sequence[Record] | None = None) -> tuple[str, ...]:
    """The id field(s) to use: ``id_fields`` when given; else :data:`DEFAULT_ID` (``id``) when
    the records carry it; else none (items are identified, and paired, by position).

    The rule for the default, so that records are never paired silently by position when they
    carry ids:

    * one file: ``id`` is used when every record has it; no record having it means ids
      ``line<N>``; some records having it and others not is an error;
    * two files (``gold_records``): ``id`` on every record of both files → joined on ``id``;
      ``id`` on no record of either file → paired by position, only if both files hold the
      same number of records; anything else (ids on one side only, or on some records) is an
      error naming the first record without an ``id``.

    Raises:
        InputError: the mixed cases above, or differing record counts without ids (the first
            record with no counterpart is named).
    """
    if id_fields:
        return tuple(id_fields)
    sides = [records] if gold_records is None else [records, gold_records]
    flags = [[DEFAULT_ID in r.data for r in side] for side in sides]
    if all(all(f) for f in flags):
        return (DEFAULT_ID,)
    if not any(any(f) for f in flags):
        if gold_records is not None and len(records) != len(gold_records):
            longer, shorter = ((records, gold_records) if len(records) > len(gold_records)
                               else (gold_records, records))
            extra = longer[len(shorter)]
            raise extra.error(
                f"record {len(shorter) + 1} has no counterpart: {records[0].path} has "
                f"{len(records)} records and {gold_records[0].path} {len(gold_records)}; "
                f"records without an '{DEFAULT_ID}' field are paired by position only when the "
                f"counts match (add '{DEFAULT_ID}' to both files or name the id with --id-field)")
        return ()
    with_id = next(r for side, f in zip(sides, flags, strict=True)
                   for r, has in zip(side, f, strict=True) if has)
    without = next(r for side, f in zip(sides, flags, strict=True)
                   for r, has in zip(side, f, strict=True) if not has)
    raise without.error(
        f"missing, but {with_id.path}:{with_id.line} has an '{DEFAULT_ID}': give every record "
        f"of {'both files' if gold_records is not None else 'the file'} an '{DEFAULT_ID}' "
        "(or name the id field(s) with --id-field)", DEFAULT_ID)


def items_from_records(records: Sequence[Record], extractors: tuple[Extractor, Extractor],
                       pred_field: str, truth_field: str, id_fields: Sequence[str] = (),
                       gold_records: Sequence[Record] | None = None,
                       max_chars: int = DEFAULT_MAX_CHARS) -> list[Item]:
    """Extract typed items from records with a task's ``extractors`` (prediction side, gold
    side), reading ``pred_field`` and ``truth_field``.

    Ids: ``id_fields``, or by default the records' ``id`` field (see :func:`resolve_id_fields`).
    With ``gold_records``, predictions and gold are joined on the id, one-to-one; records
    without any id are paired by position only when both sides hold the same number of them.

    Args:
        max_chars: longest string accepted in the prediction and gold fields (0 = no limit);
            a longer one is an error, never truncated.

    Raises:
        InputError: a missing or mistyped field (a ``query`` that is not a string too), a
            duplicate or mistyped id, an id present on one side only, records that cannot be
            paired, or a string longer than ``max_chars`` (file, line and field named).
    """
    pf, tf = pred_field, truth_field
    get_pred, get_truth = extractors
    ids = resolve_id_fields(records, id_fields, gold_records)
    id_name = ",".join(ids) or DEFAULT_ID
    preds = _index_by_id(records, ids, id_name)
    gold: dict[str, Record] | None = None
    if gold_records is not None:
        if ids:
            gold = _index_by_id(gold_records, ids, id_name)
        else:  # no ids anywhere, equal counts (checked above): pair by position
            gold = dict(zip(preds, gold_records, strict=True))
    gold_path = gold_records[0].path if gold_records else "the gold file"
    items: list[Item] = []
    for rid, r in preds.items():
        g: Record | None = r if gold is None else gold.get(rid)
        if g is None:
            raise r.error(f"id {rid!r} has no gold record in {gold_path}", id_name)
        query = _query(r)
        if g is not r:
            _query(g)
        pred, truth = _extract(get_pred, r, pf, "prediction"), _extract(get_truth, g, tf, "gold")
        io.check_string_sizes(pred, max_chars, r.path, r.line, pf)
        io.check_string_sizes(truth, max_chars, g.path, g.line, tf)
        items.append(Item(rid, f"{r.path}:{r.line}", pred, truth, query))
    for rid, g in (gold or {}).items():
        if rid not in preds:
            raise g.error(f"id {rid!r} has no prediction record in {records[0].path}"
                          if records else f"id {rid!r} has no prediction record", id_name)
    return items


def _query(record: Record) -> str:
    """The record's optional ``query`` (shown in the report): a string; null or absent = none.

    Raises:
        InputError: any other value (field ``query``).
    """
    query = record.data.get("query")
    if query is None:
        return ""
    if not isinstance(query, str):
        raise record.error(f"expected a string (the text shown as the item's query), got "
                           f"{type(query).__name__}", "query")
    return query


def _extract(get: Extractor, record: Record, field: str, side: str) -> Any:
    """``get(record, field)``; a missing field's error also names the flag that chooses the
    field (``--pred-field`` / ``--truth-field``) after the fields the record has."""
    try:
        return get(record, field)
    except InputError as exc:
        if field in record.data or not exc.message.startswith("missing (fields present"):
            raise
        flag = "--pred-field" if side == "prediction" else "--truth-field"
        raise record.error(f"{exc.message}; name the {side} field with {flag}", field) from None


def _index_by_id(records: Sequence[Record], id_fields: Sequence[str],
                 id_name: str) -> dict[str, Record]:
    """Records by id, in input order; a repeated id is an error naming both lines."""
    index: dict[str, Record] = {}
    for r in records:
        rid = io.record_id(r, id_fields)
        if rid in index:
            raise r.error(f"duplicate id {rid!r} (first at line {index[rid].line})", id_name)
        index[rid] = r
    return index


def read_sides(data: str | Path, gold: str | Path | None = None, where: Sequence[str] = (),
               ) -> tuple[list[Record], list[Record] | None]:
    """The records of a data file (and of an optional gold file) kept by the ``where``
    filters (``FIELD=VALUE``).

    Raises:
        InputError: unreadable or malformed files (file and line named), a bad filter, or no
            record left.
    """
    filters = io.parse_where(where)
    records = io.filter_records(io.read_records(data), filters)
    if not records:
        raise InputError("no records" + (" match the --where filters" if filters else ""), data)
    gold_records = None
    if gold is not None:
        gold_records = io.filter_records(io.read_records(gold), filters)
        if not gold_records:
            raise InputError("no gold records", gold)
    return records, gold_records


def load_record_items(source: Any, extractors: tuple[Extractor, Extractor],
                      default_fields: tuple[str, str]) -> list[Item]:
    """Items of a task that reads one record per item (see :class:`judge.tasks.base.Source`
    for ``source``: data and gold paths, field names, id fields, filters, ``max_chars``).

    Raises:
        InputError: any bad input, named by file, line and field.
    """
    records, gold_records = read_sides(source.data, source.gold, source.where)
    return items_from_records(records, extractors, source.pred_field or default_fields[0],
                              source.truth_field or default_fields[1], source.id_fields,
                              gold_records, max_chars=source.max_chars)


def items_from_dicts(rows: Sequence[Mapping[str, Any]], extractors: tuple[Extractor, Extractor],
                     pred_field: str, truth_field: str, id_fields: Sequence[str] = (),
                     max_chars: int = DEFAULT_MAX_CHARS, where: Sequence[str] = ()) -> list[Item]:
    """Python-API input: a list of dicts (one per item) → items. ``id`` is used when every
    dict has one (some having it and others not is an error), as in :func:`resolve_id_fields`.
    ``where`` (``FIELD=VALUE``) keeps the matching dicts, numbered by their position in
    ``rows`` (as ``--where`` keeps a file's line numbers).

    Raises:
        InputError: as :func:`items_from_records`, with ``<items>:N`` positions (1-based); a
            malformed filter, or no dict left by the filters.
    """
    filters = io.parse_where(where)
    records = []
    for i, r in enumerate(rows):
        rec = Record("<items>", i + 1, dict(r))
        io.check_value(rec.data, rec.path, rec.line, numbers=True)
        records.append(rec)
    if filters:
        records = io.filter_records(records, filters)
        if not records:
            raise InputError(f"no records match the where filters {list(where)!r}",
                             field="where")
    return items_from_records(records, extractors, pred_field, truth_field, id_fields,
                              max_chars=max_chars)


def check_items(items: Sequence[Item], max_chars: int = DEFAULT_MAX_CHARS) -> None:
    """Apply the input checks to ready-made :class:`Item` objects (Python API): unique ids, and
    no string longer than ``max_chars`` (0 = no limit) in ``pred`` or ``truth``.

    Raises:
        InputError: a duplicate id, or a string over the limit (the item's source named).
    """
    seen: dict[str, str] = {}
    for item in items:
        head, _, tail = item.source.rpartition(":")
        path, line = (head, int(tail)) if head and tail.isdigit() else (item.source, None)
        if item.id in seen:
            raise InputError(f"duplicate id {item.id!r} (first at {seen[item.id]})",
                             path or None, line, "id")
        seen[item.id] = item.source
        io.check_string_sizes(item.pred, max_chars, path or None, line, "pred")
        io.check_string_sizes(item.truth, max_chars, path or None, line, "truth")
