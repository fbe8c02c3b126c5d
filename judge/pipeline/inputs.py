"""The run's items and their provenance: :func:`load_items` reads them (from the data files
through the task, or from records given in memory), cut to ``--limit``; :func:`provenance` is
what ``config.json`` records of them (files and sha256, fields, the command; dict records given
in memory become the in-run ``inputs.jsonl`` copy), so ``rescore`` and ``export`` can read the
same items again, for the command line and the Python API alike."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from judge.errors import InputError
from judge.items import Item, check_items
from judge.pipeline.config import EvalConfig
from judge.record.store import INPUT_FILE
from judge.tasks.base import Source, Task
from judge.tasks.options import option_fields, options_dict


def load_items(config: EvalConfig, task: Task, options: Any) -> list[Item]:
    """The items of ``config``: read from its files, or from the records given in memory, then
    the first ``config.limit`` of them (all when None). Every record is read and checked even
    so: bad input beyond the limit is still refused.

    Raises:
        InputError: bad input, the file, line (``<items>:N`` in memory) and field named.
    """
    return _all_items(config, task, options)[:config.limit]


def _all_items(config: EvalConfig, task: Task, options: Any) -> list[Item]:
    """The items of ``config`` before ``limit`` (see :func:`load_items`)."""
    if config.records is None:
        if config.data is None:
            raise InputError("no input: give a data file or records", field="data")
        return task.load(Source(Path(config.data), config.gold, config.pred_field,
                                config.truth_field, tuple(config.id_fields),
                                tuple(config.where), config.max_chars), options)
    records = list(config.records)
    if records and isinstance(records[0], Item):
        items = [i for i in records if isinstance(i, Item)]
        if len(items) != len(records):
            raise InputError("mix of Item objects and dicts in items", field="items")
        check_items(items, config.max_chars)
        return items
    return task.from_dicts(records, config.pred_field, config.truth_field,
                           tuple(config.id_fields), max_chars=config.max_chars,
                           where=tuple(config.where))


def _records_text(records: list[Any]) -> str:
    """The records given in memory as JSONL (the in-run input copy).

    Raises:
        InputError: a record that is not JSON-serialisable (it could not be read again).
    """
    try:
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    except (TypeError, ValueError) as exc:
        raise InputError(f"records must be JSON-serialisable to be recorded with the run: {exc}",
                         field="items") from None


def _option_files(given: Any, options: Any) -> dict[str, dict[str, str]]:
    """``{role: {"path", "sha256"}}`` of the task options given as a file (a field whose
    ``metadata["role"]`` names an input role, given as the path of an existing file)."""
    from judge.io import file_sha256

    out = {}
    for f, _ in option_fields(type(options)) if dataclasses.is_dataclass(options) else []:
        value = (given.get(f.name) if isinstance(given, Mapping)
                 else getattr(given, f.name, None))
        role = f.metadata.get("role")
        if role and isinstance(value, (str, os.PathLike)) and Path(value).is_file():
            out[role] = {"path": str(value), "sha256": file_sha256(Path(value))}
    return out


def provenance(config: EvalConfig, task: Task, options: Any,
               calibration: dict[str, Any] | None) -> tuple[dict[str, Any], str | None]:
    """``config.json``'s input provenance and, for dict records given in memory, the JSONL text
    of the in-run copy (None otherwise).

    Entries: ``command``; ``data``/``gold`` and the task's file options (``functions``) as
    ``{"path", "sha256"}`` (records given in memory, when the run is written: a copy in the run
    directory, ``{"path": "inputs.jsonl", "sha256", "in_run": true}``); ``fields`` ``{"pred",
    "truth", "id", "where"}`` and ``limit`` when given; ``tau_from``; the task's options
    (``task_options``) and the task's own entries (``function_call_format``).
    """
    from judge.io import file_sha256

    entries: dict[str, Any] = {"command": list(config.command)}
    copy = None
    if config.records is not None and config.out_dir is not None:  # a run to re-read from
        records = list(config.records)
        if not (records and isinstance(records[0], Item)):
            copy = _records_text(records)
            digest = hashlib.sha256(copy.encode("utf-8")).hexdigest()
            entries["data"] = {"path": INPUT_FILE, "sha256": digest, "in_run": True}
    elif config.data is not None:
        entries["data"] = {"path": str(config.data), "sha256": file_sha256(config.data)}
    functions = getattr(options, "functions", None)
    entries["functions"] = ({"path": str(functions), "sha256": file_sha256(functions)}
                            if functions else None)
    entries["gold"] = ({"path": str(config.gold), "sha256": file_sha256(config.gold)}
                       if config.gold else None)
    entries["fields"] = {"pred": config.pred_field, "truth": config.truth_field,
                         "id": list(config.id_fields), "where": list(config.where),
                         **({"limit": config.limit} if config.limit is not None else {})}
    entries["tau_from"] = calibration
    entries.update(_option_files(config.task_options, options))
    opts = options_dict(options)
    if opts:
        entries["task_options"] = opts
    return entries, copy
