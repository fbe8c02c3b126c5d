// Item content views, drawn by their kind (judge.tasks.views: boolean, texts, labels, ranking,
// calls): shared by the audit page (judge/runs/report.html.jinja, inlined) and the review page
// (judge/review/, served). Every text goes through textContent: judged text is never markup.
"use strict";
const ItemViews = (() => {
const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined && text !== null) e.textContent = String(text); if (cls) e.className = cls; return e; };
const fint = (x) => (x === null || x === undefined) ? "–" : String(Math.round(x));
function row2(t, head, value, cls){ const tr = el("tr"); tr.appendChild(el("th", head)); const td = el("td"); if (value instanceof Node) td.appendChild(value); else td.textContent = value; if (cls) td.className = cls; tr.appendChild(td); t.appendChild(tr); return tr; }
function chips(labels, cls){ const d = el("div"); if (!labels.length) d.appendChild(el("span", "(none)", "legend")); labels.forEach(l => d.appendChild(el("span", l, "chip " + (cls(l) || "")))); return d; }
// one call per line, as judge.tasks.views.calls_json; raw model text unchanged
function callsJson(x){
  if (typeof x === "string") return x;
  if (Array.isArray(x) && x.length) return "[\n" + x.map(v => "  " + JSON.stringify(v)).join(",\n") + "\n]";
  if (x && typeof x === "object" && Object.keys(x).length) return "{\n" + Object.keys(x).map(k => "  " + JSON.stringify(k) + ": " + JSON.stringify(x[k])).join(",\n") + "\n}";
  return JSON.stringify(x);
}
function jsonBlock(title, x, cls){ const d = el("div"); d.appendChild(el("h4", title)); d.appendChild(el("pre", callsJson(x), cls)); return d; }
function contentView(item){
  const c = item.content || {}, box = el("div", null, "content"), t = el("table");
  box.appendChild(t);
  if (item.query) row2(t, "query", item.query);
  if (!Object.keys(c).length) { row2(t, "content", "not stored in this run (written by an older simjudge)"); return box; }
  if (c.kind === "boolean") {
    row2(t, "prediction", String(c.pred), "pred"); row2(t, "gold", String(c.truth), "truth");
    if (c.correct !== undefined) row2(t, "verdict", c.correct ? "correct" : "wrong", c.correct ? "ok" : "bad");
  } else if (c.kind === "texts") {
    row2(t, "prediction", c.pred, "pred");
    c.truth.forEach((r, k) => row2(t, c.truth.length > 1 ? "reference " + (k + 1) : "reference", r, "truth"));
  } else if (c.kind === "labels") {
    // coloured by the view's own missing/extra lists (multi-label: set difference; spans:
    // left unmatched after exact and judged matching), so chips and lists always agree
    const missing = new Set(c.missing), extra = new Set(c.extra);
    row2(t, "predicted", chips(c.pred, l => extra.has(l) ? "extra" : "hit"), "pred");
    row2(t, "gold", chips(c.truth, l => missing.has(l) ? "miss" : "hit"), "truth");
    row2(t, "missing · extra", (c.missing.join(", ") || "–") + " · " + (c.extra.join(", ") || "–"));
    if (c.matched && c.matched.length) row2(t, "matched", c.matched.join(" · "));
    if (c.error) row2(t, "why", c.error);  // spans: an invalid item (a span with an empty type)
  } else if (c.kind === "ranking") {
    row2(t, "relevant", c.relevant.length + " (" + c.relevant_missing + " not retrieved)");
    const rel = el("table", null, "relevant"); const rh = el("tr"); ["relevant document", "grade", "rank"].forEach(x => rh.appendChild(el("th", x))); rel.appendChild(rh);
    c.relevant.forEach(r => { const tr = el("tr"); [r[0], fint(r[1]), r[2] === null ? "not retrieved" : fint(r[2])].forEach(x => tr.appendChild(el("td", x))); rel.appendChild(tr); });
    box.appendChild(rel);
    const rk = el("table", null, "ranked"); const kh = el("tr"); ["rank", "retrieved document", "grade"].forEach(x => kh.appendChild(el("th", x))); rk.appendChild(kh);
    c.ranked.forEach(r => { const tr = el("tr", null, r[2] !== null && r[2] >= 1 ? "rel" : ""); [fint(r[0]), r[1], r[2] === null ? "unjudged" : fint(r[2])].forEach(x => tr.appendChild(el("td", x))); rk.appendChild(tr); });
    box.appendChild(el("h4", "Ranking (" + c.retrieved + " retrieved" + (c.ranked.length < c.retrieved ? ", first " + c.ranked.length + " shown" : "") + ")"));
    box.appendChild(rk);
  } else if (c.kind === "calls") {
    if (c.correct !== undefined) row2(t, "verdict", c.correct ? "correct" : "wrong: " + c.error_type, c.correct ? "ok" : "bad");
    if (c.error) row2(t, "why", c.error);
    if (c.category) row2(t, "category", c.category);
    if (c.matching && c.matching.length) row2(t, "matching", c.matching.map(m => "gold " + m[0] + " ↔ pred " + m[1]).join(", "));
    const calls = el("div", null, "calls");
    calls.appendChild(jsonBlock("gold calls", c.gold, "gold-calls"));
    calls.appendChild(jsonBlock("predicted calls", c.pred, "pred-calls"));
    box.appendChild(calls);
  } else {
    box.appendChild(el("pre", JSON.stringify(c, null, 2)));
  }
  return box;
}

return {row2, chips, callsJson, jsonBlock, contentView};
})();
