"""What the audit report shows of a run, as JSON-ready data (:func:`report_data`); rendered as
HTML, Markdown or JSONL by :mod:`judge.runs.report`.

The data knows no task: it asks the run's task (:func:`judge.tasks.registry.get_task`) for its
typed item rows (:meth:`~judge.tasks.base.Task.rows`) and for each row's
:meth:`~judge.tasks.base.Task.view` (content whose ``"kind"`` says how it is drawn:
``boolean``, ``texts``, ``labels``, ``ranking``, ``calls``; see :mod:`judge.tasks.views`) and
:meth:`~judge.tasks.base.Task.matrices` (the similarity matrices drawn as heatmaps: one per
selection item, one per entity type for spans).

Queues, computed over every heatmap: pairs within ``near`` of τ, pairs on which a panel's
members disagree (scores on both sides of τ), judge failures (parse/transport errors,
refusals), asymmetric pairs (the swap probe scored them differently the other way round; largest
|Δ| first), unstable pairs (the repeat probe's samples differ; largest SD first), pairs whose
human override (``eval --overrides``: a ``human`` verdict row; ``audit --overrides``: the
labels' mean) is on the other side of τ from the judge's score, or that the judge left without
one (``human_ne_judge``), unmatched predictions and unmatched gold strings. Judges'
rationales and raw outputs pass through :mod:`judge.redact`, so an API key echoed in an error
never shows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from judge.probes.text import probe_lines
from judge.record.runrecord import RunRecord, VerdictRow
from judge.redact import Redactor
from judge.runs.pagejson import compact
from judge.tasks.base import HeatmapView

RAW_LIMIT = 2000
"""Characters of a judge's raw output kept in the report (the run's verdicts.jsonl has it all)."""

_CONTENT_KEYS = frozenset((
    "id", "source", "query", "pred", "truth", "correct", "error_type", "error", "matching",
    "gold_calls", "pred_calls", "category", "ranked", "qrels"))
_VERDICT_KEYS = ("judge_id", "score", "outcome", "rationale", "scorer", "latency_s", "tokens_in",
                 "tokens_out", "cache_key", "cached", "output_mode", "member_of", "distribution")
_QUEUES = ("near", "disagree", "failures", "asymmetric", "unstable", "human_ne_judge",
           "unmatched_pred", "unmatched_truth")
_PROBE_FILES = {"swap": "swap_probe.jsonl", "repeat": "repeat_probe.jsonl"}
"""The probe rows of a run (:mod:`judge.probes`), by probe."""
_VERDICT_DEFAULTS = {k: f.get_default() for k, f in VerdictRow.model_fields.items()
                     if not f.is_required()}
"""Values of the verdict fields a row leaves unset (rows keep only the fields that were set)."""
_ENTRY_DEFAULTS = tuple((k, _VERDICT_DEFAULTS.get(k)) for k in _VERDICT_KEYS)


Pair = tuple[str | None, str, str]
"""``(item id or None, pred, truth)``: the pair a verdict was made for."""


def pair_key(pair: Pair) -> str:
    """Lookup key of a pair's verdicts; identical to the page's ``JSON.stringify([id, p, t])``."""
    return compact(pair)


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _header(record: RunRecord, uses_tau: bool) -> dict[str, Any]:
    cfg, summ = record.config, record.summary
    judge = cfg.judge
    members = judge.judges() if judge is not None else []
    metrics = summ.metrics
    return {
        "run": record.path.name if record.path is not None else "run", "task": record.task,
        "created_at": cfg.created_at, "data": cfg.data.path if cfg.data else None,
        "data_sha256": cfg.data.sha256 if cfg.data else None, "tau": cfg.tau,
        "uses_tau": uses_tau,
        "judge": judge.id if judge else None, "vote": judge.vote if judge else None,
        "judges": [{"id": m.id, "backend": m.backend, "scorer": m.scorer or m.method,
                    "template_sha256": m.template_sha256 or "", "model": m.model}
                   for m in members],
        "metrics": metrics, "ci95": summ.bootstrap.get("ci95", {}),
        # counts (tp, n_pred, eval_size…) are shown as integers, every other number rounded
        "int_metrics": [k for k, v in metrics.items() if isinstance(v, int)
                        and not isinstance(v, bool)],
        "metric_groups": {k: [[a, _shown(b)] for a, b in v.items()] for k, v in metrics.items()
                          if isinstance(v, dict) and v and all(map(_number, v.values()))},
        "judge_calls": summ.judge_calls, "cache_hits": summ.cache_hits,
        "tokens": summ.tokens_in + summ.tokens_out, "cost_usd": summ.cost_usd,
        "outcomes": summ.outcomes, "panel": summ.get("panel"),
        "probe_lines": probe_lines(summ),
    }


def _heatmap(hm: HeatmapView) -> dict[str, Any]:
    exact: list[list[int]] = []
    matched: list[list[int]] = []
    for m in hm.matches:  # one pass (most heatmaps of a large run have none)
        (exact if m.is_exact else matched).append([m.pred_index, m.truth_index])
    return {"label": hm.label, "pred": list(hm.pred), "truth": list(hm.truth),
            "scores": hm.scores, "exact": exact, "matched": matched}


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


_EMPTY: frozenset[Any] = frozenset()


def _queue_heatmap(queues: dict[str, list[list[int]]], n: int, h: int, hm: dict[str, Any],
                   item_id: str, flags: Mapping[Pair, int],
                   tau: float | None, near: float,
                   probes: Mapping[Pair, dict[str, Any]] | None = None,
                   weights: dict[str, list[float]] | None = None,
                   human: Mapping[Pair, bool] | None = None) -> None:
    """Add one heatmap's cells to the queues (entries ``[item, heatmap, i, j]`` or, for the
    unmatched ones, ``[item, heatmap, i]``); ``flags``: each pair's :func:`_flag` bits;
    probed cells go to the ``asymmetric`` and ``unstable`` queues with their weight in
    ``weights`` (for sorting); ``human``: overridden pairs → whether the human and the judge
    disagree at τ (the ``human_ne_judge`` queue)."""
    pred, truth, scores = hm["pred"], hm["truth"], hm["scores"]
    exact_at, matched = hm["exact"], hm["matched"]
    exact = {(i, j) for i, j in exact_at} if exact_at else _EMPTY
    for i, p in enumerate(pred):
        row = scores[i]
        for j, t in enumerate(truth):
            s = row[j]
            if tau is not None and s is not None and (i, j) not in exact and abs(s - tau) <= near:
                queues["near"].append([n, h, i, j])
            if not (flags or human or probes):  # the usual run: no failure, panel or probe
                continue
            f = (flags.get((item_id, p, t)) or flags.get((None, p, t)) or 0) if flags else 0
            if f & _ABOVE and f & _AT_OR_BELOW:
                queues["disagree"].append([n, h, i, j])
            if f & _FAILED:
                queues["failures"].append([n, h, i, j])
            if human and human.get((item_id, p, t)):
                queues["human_ne_judge"].append([n, h, i, j])
            pr = (probes.get((item_id, p, t)) or probes.get((None, p, t))) if probes else None
            if pr and weights is not None:
                for queue, probe in (("asymmetric", "swap"), ("unstable", "repeat")):
                    w = _probe_weight(pr, probe)
                    if w > 0:
                        queues[queue].append([n, h, i, j])
                        weights[queue].append(w)
    used_p = {i for i, _ in exact_at + matched} if exact_at or matched else _EMPTY
    used_t = {j for _, j in exact_at + matched} if exact_at or matched else _EMPTY
    queues["unmatched_pred"] += [[n, h, i] for i in range(len(pred)) if i not in used_p]
    queues["unmatched_truth"] += [[n, h, j] for j in range(len(truth)) if j not in used_t]


_FAILED, _ABOVE, _AT_OR_BELOW = 1, 2, 4
"""Bits of a pair's flags: a failed verdict; a panel member's ``ok`` score above τ; one at or
below τ (both = the members disagree)."""


def _flag(v: Mapping[str, Any], tau: float | None) -> int:
    """The queue bits one verdict row sets for its pair."""
    if v.get("outcome", "ok") != "ok":
        return _FAILED
    if tau is None or not v.get("member_of") or not _number(v.get("score")):
        return 0
    return _ABOVE if v["score"] > tau else _AT_OR_BELOW


def disagrees(human: Any, judge: Any, tau: float | None) -> bool:
    """Whether a human score and the judge's score fall on opposite sides of τ (strictly
    greater = match), or the judge has no score; False without τ or a human score."""
    if tau is None or not _number(human):
        return False
    return not _number(judge) or (human > tau) != (judge > tau)


def verdict_entry(v: Mapping[str, Any], red: Redactor) -> dict[str, Any]:
    """What the report shows of one verdict row (texts redacted, raw output cut at
    :data:`RAW_LIMIT` characters)."""
    entry = {k: v.get(k, default) for k, default in _ENTRY_DEFAULTS}
    entry["rationale"] = red.text(entry["rationale"] or "")
    entry["raw"] = red.text(v.get("raw") or "")[:RAW_LIMIT]
    return entry


VerdictSink = Callable[[str, dict[str, Any]], None]
"""``(pair key, verdict row) -> None``: where :func:`report_data` streams the run's verdict
rows, as they are in the log (:func:`verdict_entry` makes what the report shows of one)."""


def report_data(record: RunRecord, near: float = 0.1,
                sink: VerdictSink | None = None) -> dict[str, Any]:
    """Everything the report shows, as JSON-ready data.

    Args:
        record: the run.
        near: half-width of the "near τ" queue (scores with |score − τ| ≤ near), in [0, 1].
        sink: stream each verdict row here, in the run's order, instead of collecting their
            entries (a large run's HTML or JSONL report; ``data["verdicts"]`` is then ``{}``);
            None = collect them.

    Returns:
        ``{"header", "pairs" (whether any item has a heatmap), "items": [{"id", "source",
        "query", "content", "metrics", "heatmaps": [{"label", "pred", "truth", "scores",
        "exact", "matched"}]}], "verdicts": {pair key: [verdict…]}, "queues", "probes": {pair
        key: {"swap": row, "repeat": row}}, "near", "item_int_metrics"}``.

    Raises:
        ValueError: ``near`` outside [0, 1].
        InputError: the run's task is not a registered task, or a row is not a valid row of
            it (``items.jsonl``, line and field named).
    """
    from judge.tasks.registry import get_task

    if not 0.0 <= near <= 1.0:
        raise ValueError(f"near: expected a number in [0, 1], got {near}")
    task = get_task(record.task)
    header = _header(record, task.uses_tau)
    tau = header["tau"] if _number(header["tau"]) else None
    verdicts: dict[str, list[dict[str, Any]]] = {}
    flags: dict[Pair, int] = {}  # only pairs with a failure or a member verdict
    human: dict[Pair, bool] = {}  # overridden pairs: human ≠ judge at τ
    red = Redactor()  # API keys echoed in error texts never reach the report (judge.redact)
    for v in record.verdict_rows():  # one at a time: a large run's log is read from disk
        pair = (v.get("item_id"), v["pred"], v["truth"])
        bits = _flag(v, tau)
        if bits:
            flags[pair] = flags.get(pair, 0) | bits
        if v.get("source") == "human":
            human[pair] = disagrees(v.get("score"), v.get("judge_score"), tau)
        if sink is not None:
            sink(pair_key(pair), v)
        else:
            verdicts.setdefault(pair_key(pair), []).append(verdict_entry(v, red))
    items: list[dict[str, Any]] = []
    queues: dict[str, list[list[int]]] = {q: [] for q in _QUEUES}
    probes = _probe_rows(record)
    weights: dict[str, list[float]] = {"asymmetric": [], "unstable": []}
    for n, row in enumerate(task.rows(record)):
        heatmaps = [_heatmap(hm) for hm in task.matrices(row)]
        items.append({"id": row.id, "source": row.source if row.has("source") else None,
                      "query": row.get("query"), "content": task.view(row),
                      "heatmaps": heatmaps,
                      "metrics": {k: v for k, v in row.numbers().items()
                                  if k not in _CONTENT_KEYS}})
        for h, hm in enumerate(heatmaps):
            _queue_heatmap(queues, n, h, hm, row.id, flags, tau, near, probes, weights, human)
    for queue, ws in weights.items():  # largest |Δ| / SD first (a stable sort keeps ties)
        order = sorted(range(len(ws)), key=lambda k: -ws[k])
        queues[queue] = [queues[queue][k] for k in order]
    # per-item counts (retrieved, relevant, n_pred…) are shown as integers in the page
    int_keys = sorted({k for it in items for k, v in it["metrics"].items()
                       if isinstance(v, int) and not isinstance(v, bool)})
    return {"header": header, "pairs": any(it["heatmaps"] for it in items), "items": items,
            "verdicts": verdicts, "queues": queues,
            "probes": {pair_key(k): v for k, v in probes.items()}, "near": near,
            "item_int_metrics": int_keys}


def _shown(x: Any) -> str:
    """A number as the report shows it: ints as they are, floats to 4 decimals."""
    if isinstance(x, float):
        return "–" if x != x else f"{x:.4f}"
    return str(x)
