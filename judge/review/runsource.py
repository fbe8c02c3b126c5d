"""A run directory as a review source (:func:`from_run`): every judged cell of its similarity
matrices and every judged argument value pair of a function-call run, with the run's queues and
what the page shows of each pair (the item as the audit page draws it; with judge output only
when the review is not blind)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from judge.calibration.labelevents import PairKey
from judge.calibration.pool import run_sha256
from judge.errors import InputError
from judge.review.calls import argument_items
from judge.review.population import QUEUES, Population, source_id

_JUDGE_KEYS = ("judge_id", "score", "outcome", "rationale", "member_of")
_BLIND_CALL_KEYS = ("correct", "error_type", "error", "matching")
"""What a function-call item's view holds that an argument judge decided."""


def _strip_calls(content: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in content.items() if k not in _BLIND_CALL_KEYS}


def from_run(path: Path, blind: bool) -> Population:
    """The judged pairs of a run directory (see the module docstring).

    Raises:
        InputError: not a run directory, a malformed run, or a run with no judged pair (a task
            without a judge, or every pair an exact match).
    """
    from judge.record.store import load_run
    from judge.runs.audit import report_data

    record = load_run(path)
    kept: list[tuple[str, dict[str, Any]]] = []

    def sink(key: str, row: dict[str, Any]) -> None:
        # function-call argument verdicts are pairs of their own; other verdicts are kept only
        # to show them (not blind)
        if not blind or (row.get("function") is not None and not row.get("member_of")):
            kept.append((key, row))

    data = report_data(record, sink=sink)
    keys: list[PairKey] = []
    scores: list[float] = []
    where: list[tuple[int, int, int, int] | tuple[str, str, str]] = []
    cell_index: dict[tuple[int, int, int, int], int] = {}
    seen: dict[PairKey, int] = {}
    for n, item in enumerate(data["items"]):
        for h, hm in enumerate(item["heatmaps"]):
            exact = {tuple(e) for e in hm["exact"]}
            for i, p in enumerate(hm["pred"]):
                for j, t in enumerate(hm["truth"]):
                    if (i, j) in exact:
                        continue
                    key: PairKey = (item["id"], p, t)
                    if key in seen:
                        cell_index[(n, h, i, j)] = seen[key]
                        continue
                    s = hm["scores"][i][j]
                    seen[key] = cell_index[(n, h, i, j)] = len(keys)
                    keys.append(key)
                    scores.append(float(s) if s is not None else float("nan"))
                    where.append((n, h, i, j))
    verdicts: dict[str, list[dict[str, Any]]] = {}
    for k, row in kept:
        if row.get("function") is not None and not row.get("member_of"):
            scope = f"{row['function']}.{row.get('parameter', '')}"
            key = (scope, row["pred"], row["truth"])
            if key not in seen:
                seen[key] = len(keys)
                keys.append(key)
                s = row.get("score")
                scores.append(float(s) if isinstance(s, (int, float)) and row.get(
                    "outcome", "ok") == "ok" else float("nan"))
                where.append((scope, str(row["function"]), str(row.get("parameter", ""))))
        if not blind:
            verdicts.setdefault(k, []).append({x: row.get(x) for x in _JUDGE_KEYS})
    if not keys:
        raise InputError("the run has no judged pair to review (its task uses no judge, or "
                         "every pair was an exact match)", path)
    queues: dict[str, list[int]] = {}
    for q in QUEUES:
        got = [cell_index[(e[0], e[1], e[2], e[3])] for e in data["queues"].get(q, [])
               if (e[0], e[1], e[2], e[3]) in cell_index]
        queues[q] = list(dict.fromkeys(got))
    items = data["items"]
    found = argument_items(items) if any(len(w) == 3 for w in where) else {}

    def context(i: int, blind_now: bool) -> dict[str, Any]:
        w = where[i]
        if len(w) == 3:
            ctx: dict[str, Any] = {"kind": "argument", "function": w[1], "parameter": w[2]}
            hits = found.get(keys[i], [])  # type: ignore[arg-type]
            if hits:  # the first item holding the pair, drawn as the audit page draws it
                item = items[hits[0]]
                content = item.get("content") or {}
                ctx.update({"item": item["id"], "query": item.get("query"),
                            "other_items": len(hits) - 1,
                            "content": _strip_calls(content) if blind_now else content})
        else:
            n, h, pi, tj = w
            item, hm = items[n], items[n]["heatmaps"][h]
            ctx = {"kind": "cell", "query": item.get("query"), "source": item.get("source"),
                   "label": hm["label"], "preds": hm["pred"], "truths": hm["truth"],
                   "i": pi, "j": tj}
            content = item.get("content") or {}
            if blind_now and item["heatmaps"]:
                content = {}  # spans' matched/missing lists come from the judge's matching
            elif blind_now and content.get("kind") == "calls":
                content = _strip_calls(content)
            if content:
                ctx["content"] = content
        if not blind_now:
            key = keys[i]
            from judge.runs.audit import pair_key

            vs = verdicts.get(pair_key(key)) or verdicts.get(pair_key((None, key[1], key[2])))
            ctx["judges"] = vs or []
        return ctx

    judge = record.config.judge
    tau = record.config.tau if isinstance(record.config.tau, (int, float)) else None
    return Population("run", f"run {path} ({record.task})", source_id(path, run_sha256(path)),
                      keys, np.asarray(scores, dtype=np.float64),
                      judge.id if judge is not None else None, tau, queues, context)
