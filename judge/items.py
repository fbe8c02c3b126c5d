"""Turning input records into evaluation items for each task.

Field mapping: ``pred_field`` / ``truth_field`` name the prediction and gold fields (real files
name them differently: the IFPUG runs use ``final_answer`` / ``ground_truth``); ``id_fields``
name the field(s) whose values identify an item (joined by ``/``; the line number when none).
Predictions and gold may sit in one file or in two (``gold_path``), joined on the id; an id on
one side only is an error naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge import io
from judge.errors import InputError
from judge.io import Record
from metrics import read_qrels, read_run

TASKS = ("selection", "judgment", "function-call", "generation", "multilabel", "ranking")

DEFAULT_FIELDS: dict[str, tuple[str, str]] = {
    "selection": ("pred", "truth"),
    "judgment": ("pred", "truth"),
    "function-call": ("pred_fn", "gold_fn"),
    "generation": ("pred", "truth"),
    "multilabel": ("pred", "truth"),
}

Extractor = Callable[[Record, str], Any]
EXTRACTORS: dict[str, tuple[Extractor, Extractor]] = {
    "selection": (io.string_list, io.string_list),
    "judgment": (io.boolean, io.boolean),
    "function-call": (io.call_list, io.call_list),
    "generation": (io.text, io.text_or_list),
    "multilabel": (io.label_list, io.label_list),
}


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


def check_task(task: str) -> None:
    """Raise :class:`InputError` for an unknown task."""
    if task not in TASKS:
        raise InputError(f"unknown task {task!r}; expected one of: {', '.join(TASKS)}",
                         field="task")


def items_from_records(records: Sequence[Record], task: str, pred_field: str | None = None,
                       truth_field: str | None = None, id_fields: Sequence[str] = (),
                       gold_records: Sequence[Record] | None = None,
                       extract_pred: Extractor | None = None) -> list[Item]:
    """Extract typed items from records (not for ``ranking``); ``extract_pred`` replaces the
    task's prediction extractor (e.g. OpenAI tool calls).

    Raises:
        InputError: unknown task, a missing or mistyped field, a duplicate id, or an id
            present on one side only (file and line named).
    """
    check_task(task)
    if task == "ranking":
        raise InputError("task 'ranking' reads a TREC run and qrels: use load_ranking")
    pf = pred_field or DEFAULT_FIELDS[task][0]
    tf = truth_field or DEFAULT_FIELDS[task][1]
    get_pred, get_truth = EXTRACTORS[task]
    get_pred = extract_pred or get_pred
    id_name = ",".join(id_fields) or "id"
    preds = _index_by_id(records, id_fields, id_name)
    gold = _index_by_id(gold_records, id_fields, id_name) if gold_records is not None else None
    items: list[Item] = []
    for rid, r in preds.items():
        g: Record | None = r if gold is None else gold.get(rid)
        if g is None:
            raise r.error(f"id {rid!r} has no gold record", id_name)
        query = r.data.get("query", "")
        items.append(Item(rid, f"{r.path}:{r.line}", get_pred(r, pf), get_truth(g, tf),
                          query if isinstance(query, str) else ""))
    for rid, g in (gold or {}).items():
        if rid not in preds:
            raise g.error(f"id {rid!r} has no prediction record", id_name)
    return items


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


def load_items(data: str | Path, task: str, pred_field: str | None = None,
               truth_field: str | None = None, id_fields: Sequence[str] = (),
               gold: str | Path | None = None, where: Sequence[str] = (),
               fmt: str = "seed", functions: str | Path | None = None) -> list[Item]:
    """Read a data file (and optional gold file) into items.

    Args:
        data: JSONL/CSV/TSV file of predictions (and gold, unless ``gold`` is given); for
            ``ranking`` a TREC run file.
        task: one of :data:`TASKS`.
        pred_field, truth_field: field names (defaults per task: ``pred``/``truth``, or
            ``pred_fn``/``gold_fn`` for function calls).
        id_fields: field(s) identifying an item.
        gold: separate gold file (for ``ranking``: TREC qrels, required).
        where: ``FIELD=VALUE`` filters applied to the data records (and gold records).
        fmt: function calls only: ``seed``, ``openai`` (tool_calls) or ``bfcl``.
        functions: BFCL only: the question file with the function schemas.

    Raises:
        InputError: any bad input, named by file, line and field.
    """
    check_task(task)
    if task == "ranking":
        return load_ranking(data, gold)
    if task == "function-call":
        from judge.fctask import load_fc_items

        return load_fc_items(data, fmt, pred_field, truth_field, id_fields, gold, functions,
                             where)
    filters = io.parse_where(where)
    records = io.filter_records(io.read_records(data), filters)
    if not records:
        raise InputError("no records" + (" match the --where filters" if filters else ""), data)
    gold_records = None
    if gold is not None:
        gold_records = io.filter_records(io.read_records(gold), filters)
        if not gold_records:
            raise InputError("no gold records", gold)
    return items_from_records(records, task, pred_field, truth_field, id_fields, gold_records)


def load_ranking(run_path: str | Path, qrels_path: str | Path | None) -> list[Item]:
    """TREC run + qrels → one item per judged query (pred = ranked ids, truth = judgments).

    Raises:
        InputError: no qrels given, unreadable or malformed files, no query in common.
    """
    if qrels_path is None:
        raise InputError("task 'ranking' needs the qrels file: --gold QRELS", field="gold")
    try:
        run = read_run(run_path)
        qrels = read_qrels(qrels_path)
    except OSError as exc:
        raise InputError(f"cannot read file: {exc}") from None
    except ValueError as exc:  # metrics' readers already say FILE:LINE: ...
        raise InputError(str(exc)) from None
    items = [Item(q, f"{run_path}", run[q], qrels[q]) for q in run if q in qrels]
    if not items:
        raise InputError("no query of the run has judgments in the qrels", run_path)
    return items


def items_from_dicts(rows: Sequence[Mapping[str, Any]], task: str,
                     pred_field: str | None = None, truth_field: str | None = None,
                     id_fields: Sequence[str] = ()) -> list[Item]:
    """Python-API input: a list of dicts (one per item) → items. ``id`` is used when present.

    Raises:
        InputError: as :func:`items_from_records`, with ``<items>:N`` positions (1-based).
    """
    records = [Record("<items>", i + 1, dict(r)) for i, r in enumerate(rows)]
    ids = tuple(id_fields) or (("id",) if rows and all("id" in r for r in rows) else ())
    return items_from_records(records, task, pred_field, truth_field, ids)
