"""Reading a run directory back (for ``rescore``, ``compare`` and ``calibrate --run``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from judge.errors import InputError


def stored_matrix(row: dict[str, Any]) -> NDArray[np.float64]:
    """A selection item's similarity matrix from its ``items.jsonl`` row (null → NaN)."""
    return np.array([[np.nan if x is None else x for x in r] for r in row["scores"]],
                    dtype=np.float64).reshape(len(row["pred"]), len(row["truth"]))


@dataclass
class StoredRun:
    """A run directory's contents.

    Attributes:
        path: the directory.
        config, summary: ``config.json`` and ``summary.json``.
        items: ``items.jsonl`` rows; verdicts: ``verdicts.jsonl`` rows.
    """

    path: Path
    config: dict[str, Any]
    summary: dict[str, Any]
    items: list[dict[str, Any]]
    verdicts: list[dict[str, Any]]

    @property
    def task(self) -> str:
        """The run's task."""
        return str(self.config.get("task"))

    @property
    def judge_id(self) -> str | None:
        """The run's (top-level) judge id, None for tasks without a judge."""
        judge = self.config.get("judge") or {}
        return judge.get("id")


def _jsonl(path: Path) -> list[dict[str, Any]]:
    """Rows of a JSONL file, split on ``\\n`` only: ``str.splitlines()`` would also cut at
    U+2028/U+2029/U+0085 inside judged strings, which the run files keep unescaped."""
    rows = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InputError(f"malformed JSON: {exc.msg}", path, lineno) from None
    return rows


def load_run(path: str | Path) -> StoredRun:
    """Read a run directory written by ``simjudge eval``.

    Raises:
        InputError: missing or malformed run files (file and line named).
    """
    p = Path(path)
    try:
        config = json.loads((p / "config.json").read_text(encoding="utf-8"))
        summary = json.loads((p / "summary.json").read_text(encoding="utf-8"))
        items = _jsonl(p / "items.jsonl")
        verdicts = _jsonl(p / "verdicts.jsonl")
    except OSError as exc:
        raise InputError(f"not a run directory: {exc}", p) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed run file: {exc.msg}", p) from None
    return StoredRun(p, config, summary, items, verdicts)
