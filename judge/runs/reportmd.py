"""The Markdown audit report of a run (``simjudge audit --format md``; re-exported by
:mod:`judge.runs.report`): what :func:`judge.runs.audit.report_data` gives, for a terminal,
every text taken from the run made inert (:mod:`judge.runs.mdsafe`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judge.record.runrecord import RunRecord
from judge.runs.audit import report_data
from judge.runs.mdsafe import md_cell, md_lines, md_text


def _heatmap_markdown(hm: Mapping[str, Any]) -> list[str]:
    """Exact and judged matches, then unmatched strings, of one heatmap (texts made inert:
    :mod:`judge.runs.mdsafe`)."""
    out = [f"#### {md_text(hm['label'])}"] if hm["label"] else []
    pred = [md_text(repr(p)) for p in hm["pred"]]
    truth = [md_text(repr(t)) for t in hm["truth"]]
    out += [f"- exact: {pred[i]} = {truth[j]}" for i, j in hm["exact"]]
    out += [f"- matched: {pred[i]} ↔ {truth[j]} ({hm['scores'][i][j]:.2f})"
            for i, j in hm["matched"]]
    used_p = {i for i, _ in hm["exact"] + hm["matched"]}
    used_t = {j for _, j in hm["exact"] + hm["matched"]}
    out += [f"- unmatched prediction: {p}" for i, p in enumerate(pred) if i not in used_p]
    out += [f"- unmatched gold: {t}" for j, t in enumerate(truth) if j not in used_t]
    return out


def render_markdown(record: RunRecord, near: float = 0.1) -> str:
    """A terminal-friendly Markdown report: header, metrics, queues (runs with heatmaps) and
    each item (its metrics, the task's :meth:`~judge.tasks.base.Task.markdown` of its view and
    its heatmaps' matches). Every text taken from the run (ids, judged strings, labels, file
    names, judge ids) is made inert (:mod:`judge.runs.mdsafe`): no HTML, link or image of the
    data survives rendering.

    Raises:
        ValueError, InputError: as :func:`report_data`.
    """
    from judge.tasks.registry import get_task

    data = report_data(record, near, sink=lambda _key, _row: None)  # no verdict is shown
    task = get_task(record.task)
    h = data["header"]
    out = [f"# simjudge audit — {md_text(h['run'])}", "",
           f"- task: {md_text(h['task'])}; data: {md_text(h['data'])}"
           + (f"; τ = {md_text(h['tau'])}" if h["uses_tau"] else ""),
           "- judges: " + ("; ".join(f"{md_text(j['id'])} ({md_text(j['scorer'])}"
                                      + (f", template {j['template_sha256'][:12]}" if
                                         j["template_sha256"] else "") + ")"
                                      for j in h["judges"]) or "none"),
           f"- judge calls {h['judge_calls']}, cache hits {h['cache_hits']}, tokens "
           f"{h['tokens']}, USD {h['cost_usd'] or 0:.4f}",
           *[f"- {md_text(line)}" for line in h.get("probe_lines") or []], "", "## Metrics", "",
           "| metric | value | 95% CI |", "|---|---|---|"]
    for k, v in h["metrics"].items():
        if isinstance(v, (dict, list)):
            continue
        ci = h["ci95"].get(k)
        value = f"{v:.4f}" if isinstance(v, float) else str(v)
        out.append(f"| {md_cell(k)} | {md_cell(value)} | "
                   f"{'' if not ci else f'[{ci[0]:.4f}, {ci[1]:.4f}]'} |")
    for k, group in h["metric_groups"].items():
        out += ["", md_text(f"{k}: " + ", ".join(f"{a} {b}" for a, b in group))]
    items = data["items"]

    def cell(n: int, k: int, i: int, j: int) -> str:
        it, hm = items[n], items[n]["heatmaps"][k]
        s = hm["scores"][i][j]
        return (md_text(it["id"]) + (f" [{md_text(hm['label'])}]" if hm["label"] else "")
                + f": {md_text(repr(hm['pred'][i]))} ↔ {md_text(repr(hm['truth'][j]))} "
                f"({'–' if s is None else f'{s:.2f}'})")

    if data["pairs"]:
        for q, title in (("near", f"Near τ (±{data['near']})"), ("disagree", "Judges disagree"),
                         ("failures", "Judge failures"),
                         ("asymmetric", "Asymmetric pairs (swap probe, largest |Δ| first)"),
                         ("unstable", "Unstable pairs (repeat probe, largest SD first)"),
                         ("human_ne_judge", "Human ≠ judge (at τ)")):
            if q in ("asymmetric", "unstable", "human_ne_judge") and not data["queues"][q]:
                continue  # the probe did not run, no override, or nothing found
            out += ["", f"## {title} ({len(data['queues'][q])})", ""]
            out += [f"- {cell(*x)}" for x in data["queues"][q]]
    out += ["", "## Items", ""]
    for it in items:
        scores = " · ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}"
                            for k, v in it["metrics"].items())
        out.append(f"### {md_text(it['id'])}" + (f" — {md_text(scores)}" if scores else ""))
        if it.get("query"):
            out.append(f"- query: {md_text(repr(it['query']))}")
        out += md_lines(task.markdown(it["content"])) if it["content"] else []
        for hm in it["heatmaps"]:
            out += _heatmap_markdown(hm)
        out.append("")
    return "\n".join(out) + "\n"
