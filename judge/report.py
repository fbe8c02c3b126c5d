"""Audit reports of a run: one self-contained HTML file, Markdown, or JSONL.

The HTML report (template ``judge/templates/report.html.jinja``) embeds the run's data as JSON
and renders it in the browser: no network, CSS/JS/SVG inline, usable offline and by email. All
judged text is inserted with ``textContent`` (never as markup), and the embedded JSON escapes
``<``, ``>`` and ``&``, so a prediction such as ``<script>`` is shown as text. Judges' rationales
and raw outputs pass through :mod:`judge.redact`, so an API key echoed in an error never shows.
Items are drawn lazily (a heatmap is built when its item scrolls into view), so a 10,000-pair
run stays light.

For the other tasks each item shows what was compared (:func:`item_view`): booleans, texts and
references, labels with the missing and extra ones, the ranked list against the relevant
documents, or the gold and predicted function calls with the error type.

Queues computed here: pairs within ``near`` of τ, pairs on which judges disagree (panel runs),
judge failures (parse/transport errors, refusals), unmatched predictions and unmatched gold
items. Human overrides made in the page export as JSONL rows
``{"id", "pred", "truth", "label", "score", "rationale"}``, which ``simjudge calibrate`` (label)
and the ``table:`` judge (score, item-scoped by ``id``) read directly.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from jinja2 import Environment, StrictUndefined, select_autoescape

from judge.redact import Redactor
from judge.rundir import StoredRun

RAW_LIMIT = 2000
"""Characters of a judge's raw output kept in the report (the run's verdicts.jsonl has it all)."""


RANK_LIMIT = 100
"""Ranked documents shown per query (the metrics use the whole run; items.jsonl has it all)."""

_CONTENT_KEYS = ("id", "source", "query", "pred", "truth", "correct", "error_type", "error",
                 "matching", "gold_calls", "pred_calls", "category", "ranked", "qrels")


def item_view(task: str, row: dict[str, Any]) -> dict[str, Any]:
    """What the report shows of one non-selection item: its content and its metrics.

    Args:
        task: the run's task (judgment, generation, multilabel, ranking, function-call).
        row: the item's ``items.jsonl`` row.

    Returns:
        ``{"id", "source", "query", "content", "metrics"}``; ``content`` per task:

        * judgment: ``pred``, ``truth`` (booleans), ``correct``;
        * generation: ``pred`` (text), ``truth`` (list of references);
        * multilabel: ``pred``, ``truth``, ``missing`` (gold labels not predicted), ``extra``
          (predicted labels not in gold);
        * ranking: ``ranked`` (first :data:`RANK_LIMIT` as ``[rank, doc, grade or None]``),
          ``retrieved``, ``relevant`` (``[doc, grade, rank or None]`` for every document with
          grade ≥ 1, best grade first), ``relevant_missing`` (relevant but not retrieved);
        * function-call: ``gold`` and ``pred`` calls (raw output when unparseable),
          ``correct``, ``error_type``, ``error``, ``matching`` (``[gold index, pred index]``),
          ``category`` (BFCL);

        ``metrics``: the row's numeric per-item values. A row written before items carried
        their content gets ``content: {}`` (only its metrics are shown).
    """
    content: dict[str, Any] = {}
    if task == "ranking" and "ranked" in row:
        qrels: dict[str, int] = row.get("qrels") or {}
        rank_of = {d: k + 1 for k, d in enumerate(row["ranked"])}
        relevant = sorted(((d, g, rank_of.get(d)) for d, g in qrels.items() if g >= 1),
                          key=lambda x: (-x[1], x[2] if x[2] is not None else 10**9, x[0]))
        content = {"ranked": [[k + 1, d, qrels.get(d)]
                              for k, d in enumerate(row["ranked"][:RANK_LIMIT])],
                   "retrieved": len(row["ranked"]), "relevant": [list(r) for r in relevant],
                   "relevant_missing": sum(1 for r in relevant if r[2] is None)}
    elif task == "function-call" and "gold_calls" in row:
        content = {"gold": row["gold_calls"], "pred": row.get("pred_calls"),
                   **{k: row.get(k) for k in ("correct", "error_type", "error", "matching",
                                              "category")}}
    elif "pred" in row and "truth" in row:
        content = {"pred": row["pred"], "truth": row["truth"]}
        if task == "judgment":
            content["correct"] = row.get("correct", row["pred"] == row["truth"])
        elif task == "multilabel":
            content["missing"] = [x for x in row["truth"] if x not in row["pred"]]
            content["extra"] = [x for x in row["pred"] if x not in row["truth"]]
    metrics = {k: v for k, v in row.items() if k not in _CONTENT_KEYS
               and isinstance(v, (int, float)) and not isinstance(v, bool)}
    return {"id": row.get("id"), "source": row.get("source"), "query": row.get("query"),
            "content": content, "metrics": metrics}


def _pair_key(item_id: str | None, pred: str, truth: str) -> str:
    """Lookup key of a pair's verdicts; identical to the page's ``JSON.stringify([id, p, t])``."""
    return json.dumps([item_id, pred, truth], ensure_ascii=False, separators=(",", ":"))


def report_data(run: StoredRun, near: float = 0.1) -> dict[str, Any]:
    """Everything the report shows, as JSON-ready data.

    Args:
        run: a stored run.
        near: half-width of the "near τ" queue (scores with |score − τ| ≤ near).

    Raises:
        ValueError: ``near`` outside [0, 1].
    """
    if not 0.0 <= near <= 1.0:
        raise ValueError(f"near: expected a number in [0, 1], got {near}")
    cfg, summ = run.config, run.summary
    tau = float(cfg.get("tau", 0.7))
    judge = cfg.get("judge") or {}
    members = judge.get("members") or ([judge] if judge else [])
    header = {
        "run": run.path.name, "task": run.task, "created_at": cfg.get("created_at"),
        "data": (cfg.get("data") or {}).get("path"), "data_sha256": (cfg.get("data") or {}).get(
            "sha256"), "tau": tau, "judge": judge.get("id"), "vote": judge.get("vote"),
        "judges": [{"id": m.get("id"), "backend": m.get("backend"),
                    "scorer": m.get("scorer") or m.get("method"),
                    "template_sha256": m.get("template_sha256", ""),
                    "model": m.get("model")} for m in members],
        "metrics": summ.get("metrics", {}), "ci95": (summ.get("bootstrap") or {}).get("ci95", {}),
        # counts (tp, n_pred, eval_size…) are shown as integers, every other number rounded
        "int_metrics": [k for k, v in summ.get("metrics", {}).items()
                        if isinstance(v, int) and not isinstance(v, bool)],
        "metric_groups": {k: [[a, _shown(b)] for a, b in v.items()]
                          for k, v in summ.get("metrics", {}).items()
                          if isinstance(v, dict) and v and all(
                              isinstance(x, (int, float)) for x in v.values())},
        "judge_calls": summ.get("judge_calls"), "cache_hits": summ.get("cache_hits"),
        "tokens": (summ.get("tokens_in") or 0) + (summ.get("tokens_out") or 0),
        "cost_usd": summ.get("cost_usd"), "outcomes": summ.get("outcomes"),
        "panel": summ.get("panel"),
    }
    verdicts: dict[str, list[dict[str, Any]]] = {}
    red = Redactor()  # API keys echoed in error texts never reach the report (judge.redact)
    for v in run.verdicts:
        entry = {k: v.get(k) for k in ("judge_id", "score", "outcome", "rationale", "scorer",
                                        "latency_s", "tokens_in", "tokens_out", "cache_key",
                                        "cached", "output_mode", "member_of")}
        entry["rationale"] = red.text(entry["rationale"] or "")
        entry["raw"] = red.text(v.get("raw") or "")[:RAW_LIMIT]
        verdicts.setdefault(_pair_key(v.get("item_id"), v["pred"], v["truth"]), []).append(entry)
    items: list[dict[str, Any]] = []
    queues: dict[str, list[Any]] = {"near": [], "disagree": [], "failures": [],
                                    "unmatched_pred": [], "unmatched_truth": []}
    selection = run.task == "selection" and bool(run.items) and "scores" in run.items[0]
    for n, row in enumerate(run.items):
        if not selection:
            items.append(item_view(run.task, row))
            continue
        matches = row.get("matches", [])
        item = {"id": row["id"], "source": row.get("source"), "pred": row["pred"],
                "truth": row["truth"], "scores": row["scores"],
                "exact": [[m["pred_index"], m["truth_index"]] for m in matches if m["exact"]],
                "matched": [[m["pred_index"], m["truth_index"]] for m in matches
                            if not m["exact"]],
                "metrics": {k: row.get(k) for k in ("precision", "recall", "f1", "tp_fuzzy",
                                                     "n_exact")}}
        items.append(item)
        exact = {tuple(e) for e in item["exact"]}
        for i, p in enumerate(row["pred"]):
            for j, t in enumerate(row["truth"]):
                s = row["scores"][i][j]
                vs = (verdicts.get(_pair_key(row["id"], p, t))
                      or verdicts.get(_pair_key(None, p, t)) or [])
                if s is not None and (i, j) not in exact and abs(s - tau) <= near:
                    queues["near"].append([n, i, j])
                ok = [x["score"] for x in vs if x["outcome"] == "ok" and x.get("member_of")]
                if len({x > tau for x in ok}) > 1:
                    queues["disagree"].append([n, i, j])
                if any(x["outcome"] != "ok" for x in vs):
                    queues["failures"].append([n, i, j])
        matched_p = {m["pred_index"] for m in matches}
        matched_t = {m["truth_index"] for m in matches}
        queues["unmatched_pred"] += [[n, i] for i in range(len(row["pred"]))
                                     if i not in matched_p]
        queues["unmatched_truth"] += [[n, j] for j in range(len(row["truth"]))
                                      if j not in matched_t]
    # per-item counts (retrieved, relevant, n_pred…) are shown as integers in the page
    int_keys = sorted({k for it in items for k, v in (it.get("metrics") or {}).items()
                       if isinstance(v, int) and not isinstance(v, bool)})
    return {"header": header, "selection": selection, "items": items, "verdicts": verdicts,
            "queues": queues, "near": near, "item_int_metrics": int_keys}


def _shown(x: Any) -> str:
    """A number as the report shows it: ints as they are, floats to 4 decimals."""
    if isinstance(x, float):
        return "–" if x != x else f"{x:.4f}"
    return str(x)


def _no_nan(x: Any) -> Any:
    if isinstance(x, float) and x != x:
        return None
    if isinstance(x, dict):
        return {k: _no_nan(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_no_nan(v) for v in x]
    return x


def _script_json(data: Any) -> str:
    """JSON safe inside a ``<script type="application/json">`` element (NaN → null)."""
    text = json.dumps(_no_nan(data), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def render_html(run: StoredRun, near: float = 0.1) -> str:
    """The self-contained HTML report."""
    env = Environment(autoescape=select_autoescape(default=True), undefined=StrictUndefined)
    template = env.from_string(
        (resources.files("judge") / "templates" / "report.html.jinja").read_text("utf-8"))
    data = report_data(run, near)
    return template.render(title=f"simjudge audit — {run.path.name}",
                           data_json=_script_json(data), run_name=run.path.name)


def render_jsonl(run: StoredRun, near: float = 0.1) -> str:
    """One JSON line per judged cell: item, pair, score, flags and every judge's verdict."""
    data = report_data(run, near)
    flags: dict[tuple[int, int, int], set[str]] = {}
    for q in ("near", "disagree", "failures"):
        for n, i, j in data["queues"][q]:
            flags.setdefault((n, i, j), set()).add(q)
    lines = []
    for n, item in enumerate(data["items"]):
        if not data["selection"]:
            lines.append(json.dumps({"id": item["id"], "source": item["source"],
                                     "task": data["header"]["task"], "query": item["query"],
                                     **item["content"], "metrics": item["metrics"]},
                                    ensure_ascii=False))
            continue
        exact = {tuple(e) for e in item["exact"]}
        matched = {tuple(m) for m in item["matched"]}
        for i, p in enumerate(item["pred"]):
            for j, t in enumerate(item["truth"]):
                vs = (data["verdicts"].get(_pair_key(item["id"], p, t))
                      or data["verdicts"].get(_pair_key(None, p, t)) or [])
                lines.append(json.dumps({
                    "id": item["id"], "pred": p, "truth": t, "score": item["scores"][i][j],
                    "exact": (i, j) in exact, "matched": (i, j) in matched,
                    "flags": sorted(flags.get((n, i, j), ())), "verdicts": vs},
                    ensure_ascii=False))
    return "\n".join(lines) + "\n"


def render_markdown(run: StoredRun, near: float = 0.1) -> str:
    """A terminal-friendly Markdown report: header, queues and each item's matches."""
    data = report_data(run, near)
    h = data["header"]
    out = [f"# simjudge audit — {h['run']}", "",
           f"- task: {h['task']}; data: {h['data']}"
           + (f"; τ = {h['tau']}" if h["task"] == "selection" else ""),
           "- judges: " + ("; ".join(f"{j['id']} ({j['scorer']}"
                                      + (f", template {j['template_sha256'][:12]}" if
                                         j["template_sha256"] else "") + ")"
                                      for j in h["judges"]) or "none"),
           f"- judge calls {h['judge_calls']}, cache hits {h['cache_hits']}, tokens "
           f"{h['tokens']}, USD {h['cost_usd'] or 0:.4f}", "", "## Metrics", "",
           "| metric | value | 95% CI |", "|---|---|---|"]
    for k, v in h["metrics"].items():
        if isinstance(v, (dict, list)):
            continue
        ci = h["ci95"].get(k)
        value = f"{v:.4f}" if isinstance(v, float) else str(v)
        out.append(f"| {k} | {value} | {'' if not ci else f'[{ci[0]:.4f}, {ci[1]:.4f}]'} |")
    for k, group in h["metric_groups"].items():
        out += ["", f"{k}: " + ", ".join(f"{a} {b}" for a, b in group)]
    if not data["selection"]:
        out += ["", "## Items", ""]
        for it in data["items"]:
            out += _markdown_item(h["task"], it)
        return "\n".join(out) + "\n"
    items = data["items"]

    def cell(n: int, i: int, j: int) -> str:
        it = items[n]
        s = it["scores"][i][j]
        return (f"{it['id']}: {it['pred'][i]!r} ↔ {it['truth'][j]!r} "
                f"({'–' if s is None else f'{s:.2f}'})")

    for q, title in (("near", f"Near τ (±{data['near']})"), ("disagree", "Judges disagree"),
                     ("failures", "Judge failures")):
        out += ["", f"## {title} ({len(data['queues'][q])})", ""]
        out += [f"- {cell(*x)}" for x in data["queues"][q]]
    out += ["", "## Items", ""]
    for it in items:
        m = it["metrics"]
        out.append(f"### {it['id']} — P {m['precision']:.3f} R {m['recall']:.3f} "
                   f"F1 {m['f1']:.3f}")
        for i, j in it["exact"]:
            out.append(f"- exact: {it['pred'][i]!r} = {it['truth'][j]!r}")
        for i, j in it["matched"]:
            out.append(f"- matched: {it['pred'][i]!r} ↔ {it['truth'][j]!r} "
                       f"({it['scores'][i][j]:.2f})")
        used_p = {i for i, _ in it["exact"] + it["matched"]}
        used_t = {j for _, j in it["exact"] + it["matched"]}
        for i, p in enumerate(it["pred"]):
            if i not in used_p:
                out.append(f"- unmatched prediction: {p!r}")
        for j, t in enumerate(it["truth"]):
            if j not in used_t:
                out.append(f"- unmatched gold: {t!r}")
        out.append("")
    return "\n".join(out) + "\n"


def calls_json(x: Any) -> str:
    """Function calls as JSON with one call per line (a list of calls, or BFCL's
    ``{function: {param: [acceptable…]}}``); raw model text is returned unchanged."""
    if isinstance(x, str):
        return x
    def one(v: Any) -> str:
        return json.dumps(v, ensure_ascii=False)
    if isinstance(x, list) and x:
        return "[\n" + ",\n".join(f"  {one(v)}" for v in x) + "\n]"
    if isinstance(x, dict) and x:
        return "{\n" + ",\n".join(f"  {one(k)}: {one(v)}" for k, v in x.items()) + "\n}"
    return one(x)


def _md_json(x: Any) -> list[str]:
    """A fenced block of function calls (see :func:`calls_json`)."""
    text = calls_json(x)
    fence = "````" if "```" in text else "```"
    return [fence + ("json" if not isinstance(x, str) else ""), *text.splitlines(), fence]


def _markdown_item(task: str, it: dict[str, Any]) -> list[str]:
    """Markdown of one non-selection item (see :func:`item_view`)."""
    c, m = it["content"], it["metrics"]
    scores = " · ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}"
                        for k, v in m.items())
    out = [f"### {it['id']}" + (f" — {scores}" if scores else "")]
    if it.get("query"):
        out.append(f"- query: {it['query']!r}")
    if task == "judgment" and c:
        out.append(f"- prediction: {str(c['pred']).lower()} · gold: {str(c['truth']).lower()} "
                   f"→ {'correct' if c['correct'] else 'wrong'}")
    elif task == "generation" and c:
        out.append(f"- prediction: {c['pred']!r}")
        out += [f"- reference: {t!r}" for t in c["truth"]]
    elif task == "multilabel" and c:
        out.append(f"- predicted: {', '.join(c['pred']) or '(none)'}")
        out.append(f"- gold: {', '.join(c['truth']) or '(none)'}")
        out.append(f"- missing: {', '.join(c['missing']) or '–'} · extra: "
                   f"{', '.join(c['extra']) or '–'}")
    elif task == "ranking" and c:
        rel = ", ".join(f"{d} (grade {g}, " + (f"rank {r})" if r else "not retrieved)")
                        for d, g, r in c["relevant"])
        out.append(f"- relevant: {rel or '(none)'}")
        shown = len(c["ranked"])
        out.append(f"- ranked ({c['retrieved']} retrieved"
                   + (f", first {shown} shown" if shown < c["retrieved"] else "") + "):")
        out += [f"  {r}. {d}" + ("" if g is None else f" (grade {g})") for r, d, g in c["ranked"]]
    elif task == "function-call" and c:
        verdict = "correct" if c["correct"] else f"wrong: {c['error_type']}"
        out.append(f"- {verdict}" + (f" — {c['error']}" if c.get("error") else "")
                   + (f" · category {c['category']}" if c.get("category") else ""))
        out += ["- gold calls:", *_md_json(c["gold"]), "- predicted calls:", *_md_json(c["pred"])]
    out.append("")
    return out
