"""What the audit report shows of a run, as JSON-ready data (:func:`report_data`); rendered as
HTML, Markdown or JSONL by :mod:`judge.runs.report`.

The data knows no task: it asks the run's task (:func:`judge.tasks.registry.get_task`) for each
item row's :meth:`~judge.tasks.base.Task.view` (content whose ``"kind"`` says how it is drawn:
``boolean``, ``texts``, ``labels``, ``ranking``, ``calls``; see :mod:`judge.tasks.views`) and
:meth:`~judge.tasks.base.Task.matrices` (the similarity matrices drawn as heatmaps: one per
selection item, one per entity type for spans).

Queues, computed over every heatmap: pairs within ``near`` of τ, pairs on which a panel's
members disagree (scores on both sides of τ), judge failures (parse/transport errors,
refusals), asymmetric pairs (the swap probe scored them differently the other way round; largest
|Δ| first), unstable pairs (the repeat probe's samples differ; largest SD first), unmatched
predictions and unmatched gold strings. Judges' rationales and raw outputs
pass through :mod:`judge.redact`, so an API key echoed in an error never shows.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from judge.probes.text import probe_lines
from judge.redact import Redactor
from judge.runs.record import RunRecord, VerdictRow
from judge.tasks.base import HeatmapView

RAW_LIMIT = 2000
"""Characters of a judge's raw output kept in the report (the run's verdicts.jsonl has it all)."""

_CONTENT_KEYS = frozenset((
    "id", "source", "query", "pred", "truth", "correct", "error_type", "error", "matching",
    "gold_calls", "pred_calls", "category", "ranked", "qrels"))
_VERDICT_KEYS = ("judge_id", "score", "outcome", "rationale", "scorer", "latency_s", "tokens_in",
                 "tokens_out", "cache_key", "cached", "output_mode", "member_of", "distribution")
_QUEUES = ("near", "disagree", "failures", "asymmetric", "unstable", "unmatched_pred",
           "unmatched_truth")
_PROBE_FILES = {"swap": "swap_probe.jsonl", "repeat": "repeat_probe.jsonl"}
"""The probe rows of a run (:mod:`judge.probes`), by probe."""
_VERDICT_DEFAULTS = {k: f.get_default() for k, f in VerdictRow.model_fields.items()
                     if not f.is_required()}
"""Values of the verdict fields a row leaves unset (rows keep only the fields that were set)."""


_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
Pair = tuple[str | None, str, str]
"""``(item id or None, pred, truth)``: the pair a verdict was made for."""


def pair_key(pair: Pair) -> str:
    """Lookup key of a pair's verdicts; identical to the page's ``JSON.stringify([id, p, t])``."""
    return _encode(list(pair))


def _is_exact(match: Mapping[str, Any]) -> bool:
    """Whether a chosen match is an exact one (``kind`` ``"exact"``; runs written before
    matches carried a kind say ``"exact": true``)."""
    return match.get("kind") == "exact" or match.get("exact") is True


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _header(record: RunRecord, uses_tau: bool) -> dict[str, Any]:
    cfg, summ = record.config, record.summary
    judge = cfg.judge or {}
    members = judge.get("members") or ([judge] if judge else [])
    data = cfg.get("data") or {}
    metrics = summ.metrics
    return {
        "run": record.path.name if record.path is not None else "run", "task": record.task,
        "created_at": cfg.created_at, "data": data.get("path"),
        "data_sha256": data.get("sha256"), "tau": cfg.tau, "uses_tau": uses_tau,
        "judge": judge.get("id"), "vote": judge.get("vote"),
        "judges": [{"id": m.get("id"), "backend": m.get("backend"),
                    "scorer": m.get("scorer") or m.get("method"),
                    "template_sha256": m.get("template_sha256", ""),
                    "model": m.get("model")} for m in members],
        "metrics": metrics, "ci95": summ.bootstrap.get("ci95", {}),
        # counts (tp, n_pred, eval_size…) are shown as integers, every other number rounded
        "int_metrics": [k for k, v in metrics.items() if isinstance(v, int)
                        and not isinstance(v, bool)],
        "metric_groups": {k: [[a, _shown(b)] for a, b in v.items()] for k, v in metrics.items()
                          if isinstance(v, dict) and v and all(map(_number, v.values()))},
        "judge_calls": summ.judge_calls, "cache_hits": summ.cache_hits,
        "tokens": summ.tokens_in + summ.tokens_out, "cost_usd": summ.cost_usd,
        "outcomes": summ.outcomes, "panel": summ.get("panel"),
        "probe_lines": probe_lines(summ.to_row()),
    }


def _heatmap(hm: HeatmapView) -> dict[str, Any]:
    return {"label": hm.label, "pred": list(hm.pred), "truth": list(hm.truth),
            "scores": hm.scores,
            "exact": [[m["pred_index"], m["truth_index"]] for m in hm.matches if _is_exact(m)],
            "matched": [[m["pred_index"], m["truth_index"]] for m in hm.matches
                        if not _is_exact(m)]}


def cell_verdicts(verdicts: Mapping[str, list[dict[str, Any]]], item_id: str | None,
                  pred: str, truth: str) -> list[dict[str, Any]]:
    """A pair's verdicts (``report_data(...)["verdicts"]``): those judged for this item
    (item-scoped judges), else the run-wide ones; [] when the pair has none."""
    return verdicts.get(pair_key((item_id, pred, truth))) or verdicts.get(
        pair_key((None, pred, truth))) or []


def _probe_rows(record: RunRecord) -> dict[Pair, dict[str, Any]]:
    """Each probed pair's probe rows: ``{(item id, pred, truth): {"swap": row, "repeat": row}}``
    (the rows of ``swap_probe.jsonl`` / ``repeat_probe.jsonl``)."""
    out: dict[Pair, dict[str, Any]] = {}
    for probe, name in _PROBE_FILES.items():
        for r in record.extra.get(name, []):
            out.setdefault((r.get("item_id"), r["pred"], r["truth"]), {})[probe] = r
    return out


def _probe_weight(rows: Mapping[str, Any], probe: str) -> float:
    """How strongly a probed pair belongs in the asymmetric (|Δ|) or unstable (SD) queue; 0 =
    not at all."""
    row = rows.get(probe) or {}
    value = row.get("delta") if probe == "swap" else row.get("sd")
    return abs(float(value)) if value is not None and _number(value) else 0.0


def _queue_heatmap(queues: dict[str, list[list[int]]], n: int, h: int, hm: dict[str, Any],
                   item_id: str, verdicts: Mapping[Pair, list[dict[str, Any]]],
                   tau: float | None, near: float,
                   probes: Mapping[Pair, dict[str, Any]] | None = None,
                   weights: dict[str, list[float]] | None = None) -> None:
    """Add one heatmap's cells to the queues (entries ``[item, heatmap, i, j]`` or, for the
    unmatched ones, ``[item, heatmap, i]``); probed cells go to the ``asymmetric`` and
    ``unstable`` queues with their weight in ``weights`` (for sorting)."""
    exact = {tuple(e) for e in hm["exact"]}
    for i, p in enumerate(hm["pred"]):
        for j, t in enumerate(hm["truth"]):
            s = hm["scores"][i][j]
            vs = verdicts.get((item_id, p, t)) or verdicts.get((None, p, t)) or []
            if tau is not None and s is not None and (i, j) not in exact and abs(s - tau) <= near:
                queues["near"].append([n, h, i, j])
            ok = [x["score"] for x in vs if x["outcome"] == "ok" and x.get("member_of")]
            if tau is not None and len({x > tau for x in ok}) > 1:
                queues["disagree"].append([n, h, i, j])
            if any(x["outcome"] != "ok" for x in vs):
                queues["failures"].append([n, h, i, j])
            pr = (probes.get((item_id, p, t)) or probes.get((None, p, t))) if probes else None
            if pr and weights is not None:
                for queue, probe in (("asymmetric", "swap"), ("unstable", "repeat")):
                    w = _probe_weight(pr, probe)
                    if w > 0:
                        queues[queue].append([n, h, i, j])
                        weights[queue].append(w)
    used_p = {i for i, _ in hm["exact"] + hm["matched"]}
    used_t = {j for _, j in hm["exact"] + hm["matched"]}
    queues["unmatched_pred"] += [[n, h, i] for i in range(len(hm["pred"])) if i not in used_p]
    queues["unmatched_truth"] += [[n, h, j] for j in range(len(hm["truth"])) if j not in used_t]


def report_data(record: RunRecord, near: float = 0.1,
                verdict_rows: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """Everything the report shows, as JSON-ready data.

    Args:
        record: the run.
        near: half-width of the "near τ" queue (scores with |score − τ| ≤ near), in [0, 1].
        verdict_rows: ``record.verdict_rows()`` when the caller has them already.

    Returns:
        ``{"header", "pairs" (whether any item has a heatmap), "items": [{"id", "source",
        "query", "content", "metrics", "heatmaps": [{"label", "pred", "truth", "scores",
        "exact", "matched"}]}], "verdicts": {pair key: [verdict…]}, "queues", "probes": {pair
        key: {"swap": row, "repeat": row}}, "near", "item_int_metrics"}``.

    Raises:
        ValueError: ``near`` outside [0, 1].
        InputError: the run's task is not a registered task.
    """
    from judge.tasks.registry import get_task

    if not 0.0 <= near <= 1.0:
        raise ValueError(f"near: expected a number in [0, 1], got {near}")
    task = get_task(record.task)
    header = _header(record, task.uses_tau)
    tau = header["tau"] if _number(header["tau"]) else None
    verdicts: dict[Pair, list[dict[str, Any]]] = {}
    red = Redactor()  # API keys echoed in error texts never reach the report (judge.redact)
    for v in verdict_rows if verdict_rows is not None else record.verdict_rows():
        entry = {k: v.get(k, _VERDICT_DEFAULTS.get(k)) for k in _VERDICT_KEYS}
        entry["rationale"] = red.text(entry["rationale"] or "")
        entry["raw"] = red.text(v.get("raw") or "")[:RAW_LIMIT]
        verdicts.setdefault((v.get("item_id"), v["pred"], v["truth"]), []).append(entry)
    items: list[dict[str, Any]] = []
    queues: dict[str, list[list[int]]] = {q: [] for q in _QUEUES}
    probes = _probe_rows(record)
    weights: dict[str, list[float]] = {"asymmetric": [], "unstable": []}
    for n, item in enumerate(record.items):
        row = item.to_row()
        heatmaps = [_heatmap(hm) for hm in task.matrices(row)]
        items.append({"id": row["id"], "source": row.get("source"), "query": row.get("query"),
                      "content": task.view(row), "heatmaps": heatmaps,
                      "metrics": {k: v for k, v in row.items()
                                  if k not in _CONTENT_KEYS and _number(v)}})
        for h, hm in enumerate(heatmaps):
            _queue_heatmap(queues, n, h, hm, row["id"], verdicts, tau, near, probes, weights)
    for queue, ws in weights.items():  # largest |Δ| / SD first (a stable sort keeps ties)
        order = sorted(range(len(ws)), key=lambda k: -ws[k])
        queues[queue] = [queues[queue][k] for k in order]
    # per-item counts (retrieved, relevant, n_pred…) are shown as integers in the page
    int_keys = sorted({k for it in items for k, v in it["metrics"].items()
                       if isinstance(v, int) and not isinstance(v, bool)})
    return {"header": header, "pairs": any(it["heatmaps"] for it in items), "items": items,
            "verdicts": {pair_key(k): vs for k, vs in verdicts.items()}, "queues": queues,
            "probes": {pair_key(k): v for k, v in probes.items()}, "near": near,
            "item_int_metrics": int_keys}


def _shown(x: Any) -> str:
    """A number as the report shows it: ints as they are, floats to 4 decimals."""
    if isinstance(x, float):
        return "–" if x != x else f"{x:.4f}"
    return str(x)
