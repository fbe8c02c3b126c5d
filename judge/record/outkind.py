"""Whether a folder holds a simjudge output — the only kind of folder ``--overwrite`` replaces.

``--overwrite`` deletes the folder it replaces. Before issue 36 it replaced any non-empty
folder but ``/``, home and the current directory's line, so ``--out examples --overwrite`` wiped
the user's examples (the run's own input file among them). A folder is now replaced only when it
is one of simjudge's outputs, recognised by the record each command writes at its top:

* ``eval``: ``config.json`` and ``summary.json`` that validate as a run's config and summary
  (:class:`judge.record.rows.RunConfig`, :class:`judge.record.rows.RunSummary`);
* ``calibrate``: ``calibration.json`` with ``labels``, ``objective`` and ``judges``;
* ``leaderboard``: ``leaderboard.json`` with ``settings``;
* ``estimate``: ``estimate.json`` with ``run`` and ``human_labels``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_RECORDS = {"calibration": ("calibration.json", ("labels", "objective", "judges")),
            "leaderboard": ("leaderboard.json", ("settings",)),
            "estimate": ("estimate.json", ("run", "human_labels"))}
_MAX_BYTES = 64 << 20
"""A record file larger than this is not read (not one simjudge wrote at the top)."""


def _object(path: Path) -> dict[str, Any] | None:
    try:
        if not path.is_file() or path.is_symlink() or path.stat().st_size > _MAX_BYTES:
            return None
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def output_kind(folder: Path) -> str | None:
    """``"run"``, ``"calibration"``, ``"leaderboard"`` or ``"estimate"`` when ``folder`` holds
    that simjudge output (module docstring), else None. Never raises."""
    from pydantic import ValidationError

    from judge.record.rows import RunConfig, RunSummary

    config, summary = _object(folder / "config.json"), _object(folder / "summary.json")
    if config is not None and summary is not None:
        try:
            RunConfig.model_validate(config)
            RunSummary.model_validate(summary)
            return "run"
        except ValidationError:
            pass
    for kind, (name, keys) in _RECORDS.items():
        doc = _object(folder / name)
        if doc is not None and all(k in doc for k in keys):
            return kind
    return None
