"""The summary table a notebook shows for a run (``_repr_html_`` of
:class:`~judge.record.runrecord.RunRecord` and :class:`judge.api.EvalResult`).

What it shows is in ``config.json`` and ``summary.json``: the task, items, judge and τ, each
dataset metric with its bootstrap 95 % interval, and the judging accounting (calls, cache hits,
tokens, USD, seconds, verdict outcomes). Every text is HTML-escaped (judge ids, paths and
metric names come from user input); numbers are rounded as the terminal rounds them (floats to
4 decimals, counts as integers, ``–`` when undefined).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

DASH = "–"
SHOWN_ABOVE = ("tau", "n_items")
"""Metrics entries the caption shows (τ, items): not repeated in the metrics table."""


def _num(x: Any) -> str:
    if x is None or isinstance(x, bool):
        return DASH if x is None else ("yes" if x else "no")
    if isinstance(x, int):
        return f"{x:,}"
    if isinstance(x, float):
        return f"{x:.4f}" if math.isfinite(x) else DASH
    return str(x)


def _ci(ci: Sequence[Any] | None) -> str:
    if not ci or len(ci) != 2 or any(not isinstance(v, (int, float)) for v in ci):
        return ""
    return f"[{_num(float(ci[0]))}, {_num(float(ci[1]))}]"


def _row(*cells: str, head: bool = False) -> str:
    tag = "th" if head else "td"
    first, *rest = cells
    return ("<tr><th style=\"text-align:left\">" + escape(first) + "</th>"
            + "".join(f"<{tag} style=\"text-align:right\">{escape(c)}</{tag}>" for c in rest)
            + "</tr>")


def summary_html(config: Mapping[str, Any], summary: Mapping[str, Any],
                 path: str | None = None) -> str:
    """The HTML summary of a run.

    Args:
        config: ``config.json`` as a dict (``task``, ``tau``, ``judge.id``…).
        summary: ``summary.json`` as a dict (``n_items``, ``metrics``, ``bootstrap``…).
        path: the run directory, when it was written.

    Returns:
        One ``<div>`` holding a caption and two tables (metrics; accounting), every text
        escaped.
    """
    judge = (config.get("judge") or {}).get("id") if isinstance(config.get("judge"),
                                                                 Mapping) else None
    tau = config.get("tau")
    caption = (f"simjudge run — {config.get('task')}, {_num(summary.get('n_items'))} items, "
               f"judge {judge or DASH}, τ {f'{tau:g}' if isinstance(tau, float) else DASH}")
    ci95 = ((summary.get("bootstrap") or {}).get("ci95") or {})
    metrics = summary.get("metrics") or {}
    rows = [_row("metric", "value", "95 % CI", head=True)]
    nested = []
    for name, value in metrics.items():
        if name in SHOWN_ABOVE:
            continue
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            rows.append(_row(str(name), _num(value), _ci(ci95.get(name))))
        elif isinstance(value, (Mapping, list)):
            nested.append(str(name))
    outcomes = summary.get("outcomes") or {}
    acct = [_row("judge calls", _num(summary.get("judge_calls"))),
            _row("cache hits", _num(summary.get("cache_hits"))),
            _row("tokens in / out", f"{_num(summary.get('tokens_in'))} / "
                                    f"{_num(summary.get('tokens_out'))}"),
            _row("USD", _num(summary.get("cost_usd"))),
            _row("seconds", _num(summary.get("wall_s")))]
    if outcomes:
        acct.append(_row("verdicts", ", ".join(f"{k} {_num(v)}" for k, v in outcomes.items())))
    if summary.get("pairs_without_verdict"):
        acct.append(_row("pairs without a score", _num(summary.get("pairs_without_verdict"))))
    notes = []
    if nested:
        notes.append("per-class and per-category tables (" + ", ".join(nested)
                     + "): summary.json")
    if path:
        notes.append(f"run directory: {path}")
    table = "<table style=\"border-collapse:collapse\">{}</table>"
    return ("<div class=\"simjudge-run\"><p><b>" + escape(caption) + "</b></p>"
            + table.format("".join(rows)) + table.format("".join(acct))
            + "".join(f"<p><small>{escape(n)}</small></p>" for n in notes) + "</div>")
