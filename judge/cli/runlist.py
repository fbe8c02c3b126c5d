"""``simjudge runs``: list the past runs of a folder, one line each, from their ``config.json``
and ``summary.json`` (no judge call, nothing written)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from judge.cli.common import err, fail, out, say
from judge.errors import InputError

MAIN_METRICS = ("cf1", "macro_f1", "f1", "accuracy", "map")
"""The metric shown per run, the first its summary has: selection and spans ``macro_f1``,
judgment and generation ``f1``, multi-label ``cf1`` (C-F1, the seed's harmonic mean of C-P and
C-R; first, as a multi-label summary also holds scikit-learn's ``macro_f1``),
function calls ``accuracy``, ranking ``map``."""


def runs_command(
    folder: Annotated[Path, typer.Argument(
        help="The folder holding the run directories (default: runs).")] = Path("runs"),
) -> None:
    """List the runs in a folder: one line per run directory (name, task, judge(s), items,
    main metric, date of the run), oldest first, read from its config.json and summary.json.

    The metric is the task's main one: macro F1 (selection, spans), F1 (judgment,
    generation), C-F1 (multi-label), accuracy (function calls), MAP (ranking). Folders that
    are not eval runs (no config.json and summary.json: calibrations, leaderboards, other
    folders) are left out; a run whose files cannot be read is left out with a warning on
    stderr. The lines fit the terminal's width (80 columns when piped; long run names and
    judge ids are cut, ending in …). Exit status 2 when the folder does not exist.
    """
    try:
        if not folder.is_dir():
            raise InputError("no such folder (eval writes its runs into runs/ by default; "
                             "give the folder holding the run directories)", folder)
    except InputError as exc:
        fail(exc)
    rows = []
    for d in sorted(p for p in folder.iterdir() if p.is_dir()):
        if not ((d / "config.json").is_file() and (d / "summary.json").is_file()):
            continue
        try:
            rows.append(_row(d))
        except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
            err.print(f"simjudge: warning: {d}: skipped, not readable as a run: {exc}",
                      highlight=False, markup=False, soft_wrap=True)
    if not rows:
        say(f"no runs in {folder}")
        return
    heads = ("run", "task", "judge", "items", "metric", "value", "date")
    rows = [heads, *(r[:-1] for r in sorted(rows, key=lambda r: r[-1]))]
    widths = [max(len(r[k]) for r in rows) for k in range(len(heads))]
    # run and judge share what the other columns leave, 10 at least: judge ids are cut at the
    # end, run names in the middle (default names differ at both ends: time and pid)
    room = out.width - 2 * (len(heads) - 1) - sum(widths) + widths[0] + widths[2]
    # (never wider than their longest cell: a floor of 10 for a 5-character column made the
    # line 5 columns too long, so the date wrapped)
    widths[0] = min(widths[0], max(10, room - min(widths[2], 10)))
    widths[2] = min(widths[2], max(10, room - widths[0]))
    for k, r in enumerate(rows):
        cells = [_cut(c, w, middle=not j).rjust(w) if h in ("items", "value") else
                 _cut(c, w, middle=not j).ljust(w)
                 for j, (c, w, h) in enumerate(zip(r, widths, heads, strict=True))]
        say("  ".join(cells).rstrip())
        if not k:
            say("  ".join("-" * w for w in widths))


def _cut(text: str, width: int, middle: bool = False) -> str:
    """``text`` cut to ``width`` characters with a … at its end (``middle``: in its middle)."""
    if len(text) <= width:
        return text
    head = width // 2 if middle else width - 1
    return text[:head] + "…" + text[len(text) - (width - 1 - head):]


def _row(run: Path) -> tuple[str, ...]:
    """(name, task, judge(s), items, metric, value, date, created_at) of a run directory.

    Raises:
        OSError, ValueError (bad JSON), TypeError, KeyError, AttributeError: unreadable.
    """
    from judge.display import num

    config: dict[str, Any] = json.loads((run / "config.json").read_text(encoding="utf-8"))
    summary: dict[str, Any] = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    metrics = summary["metrics"]
    metric = next((m for m in MAIN_METRICS if isinstance(metrics.get(m), (int, float))), None)
    judge = config.get("judge") or {}
    judges = judge.get("id") or "–"
    created = str(config.get("created_at") or "")
    return (run.name, str(config.get("task") or summary.get("task")), str(judges),
            num(summary.get("n_items")), metric or "–",
            num(metrics[metric], 4) if metric else "–", created[:10], created)
