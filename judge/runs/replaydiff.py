"""Compare a replayed run with the run a bundle carries: "identical", or what differs.

``simjudge replay`` (:mod:`judge.cli.replay`) reruns a bundle's command from its cache; this
module says whether the result is the bundled run. Compared, field by field:

* ``summary.json``: every field except the circumstances of a run (:data:`VOLATILE_SUMMARY`:
  calls made, cache hits, tokens, USD, seconds);
* every ``*.jsonl`` file of the bundled run (``items.jsonl``, ``verdicts.jsonl``, probe rows…)
  and of the replay: the same rows, compared as multisets (order is not part of a run), each
  row without the fields that describe how it was obtained rather than what it says
  (:data:`VOLATILE_ROW`: latency, cached, tokens, USD, the input file's name).

A row that differs is named by its identifying fields (item id, judge, pred, truth) and the
fields whose values differ.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

VOLATILE_SUMMARY = frozenset({"judge_calls", "cache_hits", "tokens_in", "tokens_out",
                              "cost_usd", "wall_s", "judge_wall_s", "cache_refused"})
"""``summary.json`` fields that describe the run's circumstances, not its result."""
VOLATILE_ROW = frozenset({"latency_s", "cached", "tokens_in", "tokens_out", "cost_usd",
                          "source"})
"""Row fields that describe how a row was obtained (a replay reads every answer from the cache)
or the input file's path (the bundle renames it), not what it says."""
_ID_FIELDS = ("id", "item_id", "judge_id", "pred", "truth")
_SHOWN = 5


def _canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _rows(path: Path) -> list[dict[str, Any]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            rows.append({k: v for k, v in row.items() if k not in VOLATILE_ROW}
                        if isinstance(row, dict) else {"": row})
    return rows


def _short(value: Any, width: int = 60) -> str:
    text = _canon(value)
    return text if len(text) <= width else text[:width - 1] + "…"


def _label(row: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={_short(row[k], 40)}" for k in _ID_FIELDS if k in row) or "a row"


def _row_differences(name: str, bundled: list[dict[str, Any]],
                     replayed: list[dict[str, Any]]) -> list[str]:
    """What differs between two multisets of rows of one file."""
    a = Counter(_canon(r) for r in bundled)
    b = Counter(_canon(r) for r in replayed)
    only_a = list((a - b).elements())
    only_b = list((b - a).elements())
    if not only_a and not only_b:
        return []
    out = [f"{name}: {len(only_a)} row(s) of the bundled run not in the replay, "
           f"{len(only_b)} row(s) of the replay not in the bundled run"]
    # pair rows up by their identifying fields to name the fields that differ
    by_id: dict[str, list[dict[str, Any]]] = {}
    for text in only_b:
        row = json.loads(text)
        by_id.setdefault(_canon({k: row.get(k) for k in _ID_FIELDS}), []).append(row)
    for text in only_a[:_SHOWN]:
        row = json.loads(text)
        twins = by_id.get(_canon({k: row.get(k) for k in _ID_FIELDS})) or []
        if twins:
            other = twins.pop(0)
            fields = sorted(k for k in set(row) | set(other) if row.get(k) != other.get(k))
            out.append(f"  {_label(row)}: " + "; ".join(
                f"{k} {_short(row.get(k))} in the bundle, {_short(other.get(k))} in the replay"
                for k in fields[:_SHOWN]))
        else:
            out.append(f"  {_label(row)}: only in the bundled run")
    if len(only_a) > _SHOWN:
        out.append(f"  … and {len(only_a) - _SHOWN} more")
    return out


def _leaves(a: Any, b: Any, path: str) -> list[tuple[str, Any, Any]]:
    """The dotted paths (``metrics.micro_f1``) whose values differ between two JSON values,
    descending into objects present on both sides."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b), key=str)
                for d in _leaves(a.get(k), b.get(k), f"{path}.{k}")]
    return [] if a == b else [(path, a, b)]


def _summary_differences(bundled: Path, replayed: Path) -> list[str]:
    a = json.loads(bundled.read_text(encoding="utf-8"))
    b = json.loads(replayed.read_text(encoding="utf-8"))
    out = []
    for k in sorted((set(a) | set(b)) - VOLATILE_SUMMARY):
        out += [f"summary.json: {p} {_short(x)} in the bundle, {_short(y)} in the replay"
                for p, x, y in _leaves(a.get(k), b.get(k), k)]
    return out


def run_differences(bundled: Path, replayed: Path) -> list[str]:
    """Lines naming what differs between the run folders ``bundled`` and ``replayed``
    (module docstring); empty when the replay is identical.

    Raises:
        OSError, ValueError: a file cannot be read or is not JSON (the bundled run's files
            were checked against the bundle's manifest before the replay).
    """
    out = _summary_differences(bundled / "summary.json", replayed / "summary.json")
    names = sorted({p.name for p in bundled.glob("*.jsonl")}
                   | {p.name for p in replayed.glob("*.jsonl")})
    for name in names:
        a, b = bundled / name, replayed / name
        if not a.is_file() or not b.is_file():
            out.append(f"{name}: only in the {'replay' if b.is_file() else 'bundled run'}")
            continue
        out += _row_differences(name, _rows(a), _rows(b))
    return out


def compared_files(run: Path) -> list[str]:
    """The files :func:`run_differences` compares in ``run``, with their row counts, for the
    "identical" line: ``["summary.json", "items.jsonl (2 rows)", …]``."""
    out = ["summary.json"]
    for p in sorted(run.glob("*.jsonl")):
        n = sum(1 for line in p.read_text(encoding="utf-8").splitlines() if line.strip())
        out.append(f"{p.name} ({n} rows)")
    return out
