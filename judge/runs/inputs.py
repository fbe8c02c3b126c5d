"""A stored run's input files, found again and checked against the sha256 its ``config.json``
recorded — for re-scoring that needs the items themselves (``rescore`` of function-call runs)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from judge.errors import InputError
from judge.io import file_sha256
from judge.runs.record import RunRecord
from judge.tasks.base import Source

_ROLES = ("data", "gold", "functions")


def _checked(record: RunRecord, role: str, entry: Any) -> Path | None:
    if not isinstance(entry, Mapping) or not entry.get("path"):
        return None
    path = Path(str(entry["path"]))
    candidates = [path] if path.is_absolute() else [Path.cwd() / path]
    if record.path is not None and not path.is_absolute():
        candidates.append(Path(record.path).parent / path)
    found = next((p for p in candidates if p.is_file()), None)
    if found is None:
        raise InputError(f"the run's {role} file {entry['path']} is not found (run from the "
                         "folder the run was made in)", record.path, field=role)
    if entry.get("sha256") and file_sha256(found) != entry["sha256"]:
        raise InputError(f"the run's {role} file {found} changed since the run (sha256 "
                         "differs): re-scoring it would not be this run", record.path,
                         field=role)
    return found


def run_source(record: RunRecord) -> Source:
    """The :class:`~judge.tasks.base.Source` the run was evaluated from: its data, gold and
    functions files (relative paths taken from the current folder, then the run directory's
    parent), fields, id fields, filters and function-call format, from ``config.json``; no
    length limit (the run already accepted the data).

    Raises:
        InputError: a file the run used is missing or differs from the sha256 recorded
            (field named: ``data``, ``gold`` or ``functions``).
    """
    cfg = record.config.model_dump()
    paths = {role: _checked(record, role, cfg.get(role)) for role in _ROLES}
    if paths["data"] is None:
        raise InputError("config.json records no data file", record.path, field="data")
    fields = cfg.get("fields") or {}
    return Source(paths["data"], paths["gold"], fields.get("pred"), fields.get("truth"),
                  tuple(fields.get("id") or ()), tuple(fields.get("where") or ()),
                  str(cfg.get("function_call_format") or "seed"), paths["functions"], 0)
