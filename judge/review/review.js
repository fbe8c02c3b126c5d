// The simjudge review page: one pair at a time, labelled from the keyboard.
// Keys: 1 = match, 0 = no match (or the grades 0..N of a graded scale), s = skip, u = undo,
// n = note. Every text is set through textContent: judged text is never markup. The server
// sends no judge output in a blind review, so there is nothing here to hide.
"use strict";
(() => {
const CFG = JSON.parse(document.getElementById("config").textContent);
const $ = (id) => document.getElementById(id);
const el = ItemViews.el || ((tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined && text !== null) e.textContent = String(text); if (cls) e.className = cls; return e; });
const fmt = (x, d) => (x === null || x === undefined || Number.isNaN(x)) ? "–" : Number(x).toFixed(d === undefined ? 3 : d);
const REVIEWER_KEY = "simjudge-review-reviewer";
const OBJECTIVE = {f1: "F1", kappa: "Cohen's κ", accuracy: "accuracy", youden: "Youden's J"};
const objName = (o) => OBJECTIVE[o] || o;
// timings of key press → next pair drawn (ms, performance.now clock), for tests and benchmarks
const PROBE = window.__simjudgeReview = {timings: [], shown: 0, labels: 0, errors: 0};
let reviewer = "";
try { reviewer = localStorage.getItem(REVIEWER_KEY) || ""; } catch (e) { reviewer = ""; }
let pair = null, busy = false, note = "";

// requests go through Pending (pending.js): a label the server cannot be reached for waits
// and is retried until it is stored, with a banner saying so; a restarted server on the same
// labels.db keeps its token
Pending.init(CFG, document.getElementById("wait-banner"));
const api = (method, path, body) => Pending.api(method, path, body);

function say(text, isError) {
  const m = $("message"); m.textContent = text || ""; m.className = "message" + (isError ? " error" : "");
  if (isError) PROBE.errors++;
}

// ------------------------------------------------------------------ header and keys
$("meta").textContent = [CFG.source, "scale " + CFG.scale + (CFG.graded ? " (match at ≥ " + CFG.positive + ")" : ""), "queue " + CFG.queue].join(" · ");
if (CFG.blind) $("blind-banner").classList.remove("hidden");

function keyButton(key, text, action) {
  const b = el("button"); b.type = "button"; b.appendChild(el("kbd", key)); b.appendChild(document.createTextNode(text));
  b.dataset.key = key; b.addEventListener("click", action); return b;
}
(function drawKeys() {
  const box = $("keys");
  if (CFG.graded) {
    for (let g = 0; g <= CFG.top; g++) box.appendChild(keyButton(String(g), g >= CFG.positive ? "grade " + g + " (match)" : "grade " + g, () => send("label", g)));
  } else {
    box.appendChild(keyButton("1", "match", () => send("label", 1)));
    box.appendChild(keyButton("0", "no match", () => send("label", 0)));
  }
  box.appendChild(keyButton("s", "skip", () => send("skip")));
  box.appendChild(keyButton("u", "undo", undo));
  box.appendChild(keyButton("n", "note", openNote));
})();

// ------------------------------------------------------------------ the pair
function stringList(title, strings, here) {
  const d = el("div"); d.appendChild(el("h3", title)); const ol = el("ol");
  strings.forEach((s, k) => ol.appendChild(el("li", s, k === here ? "here" : "")));
  d.appendChild(ol); return d;
}
function table(rows) {
  const t = el("table");
  rows.forEach(([k, v]) => { const tr = el("tr"); tr.appendChild(el("th", k)); tr.appendChild(el("td", v)); t.appendChild(tr); });
  return t;
}
function drawContext(ctx) {
  const box = $("context"); box.textContent = "";
  if (!ctx || !ctx.kind) return;
  if (ctx.kind === "cell") {
    const rows = [];
    if (ctx.query) rows.push(["query", ctx.query]);
    if (ctx.label) rows.push(["entity type", ctx.label]);
    if (ctx.source) rows.push(["source", ctx.source]);
    if (rows.length) box.appendChild(table(rows));
    if (ctx.content && Object.keys(ctx.content).length) box.appendChild(ItemViews.contentView({content: ctx.content}));
    const s = el("div", null, "strings");
    s.appendChild(stringList("the item's predictions", ctx.preds, ctx.i));
    s.appendChild(stringList("the item's gold", ctx.truths, ctx.j));
    box.appendChild(s);
  } else if (ctx.kind === "argument") {
    const rows = [["function", ctx.function], ["parameter", ctx.parameter]];
    if (ctx.item) rows.push(["item", ctx.item + (ctx.other_items ? " (and " + ctx.other_items + " other item" + (ctx.other_items > 1 ? "s" : "") + ")" : "")]);
    box.appendChild(table(rows));
    if (ctx.content && Object.keys(ctx.content).length) box.appendChild(ItemViews.contentView({query: ctx.query, content: ctx.content}));
  } else if (ctx.kind === "fields") {
    box.appendChild(table(Object.entries(ctx.fields)));
  }
}
function drawJudges(judges) {
  const box = $("judges"); box.textContent = "";
  if (CFG.blind || !judges) { box.classList.add("hidden"); return; }
  box.classList.remove("hidden"); box.appendChild(el("h3", "judges"));
  if (!judges.length) box.appendChild(el("div", "no verdict recorded for this pair", "legend"));
  judges.forEach(j => {
    const d = el("div", null, "judge");
    d.appendChild(el("strong", (j.judge_id || "judge") + (j.member_of ? " (member of " + j.member_of + ")" : "")));
    d.appendChild(document.createTextNode(" · score " + fmt(j.score) + " · " + (j.outcome || "ok")));
    if (j.rationale) d.appendChild(el("div", j.rationale, "legend"));
    box.appendChild(d);
  });
}
function show(p, t0) {
  pair = p; note = ""; $("note").value = ""; $("note-card").classList.add("hidden");
  if (!p) {
    $("pair-body").classList.add("hidden"); $("pair-empty").classList.remove("hidden");
    $("pair-empty").textContent = "No pair left for you in this queue. Thank you!";
  } else {
    $("pair-empty").classList.add("hidden"); $("pair-body").classList.remove("hidden");
    $("pair-id").textContent = (p.item_id !== null ? "item " + p.item_id + " · " : "") + "pair #" + p.index;
    $("pred").textContent = p.pred; $("truth").textContent = p.truth;
    drawContext(p.context); drawJudges(p.context && p.context.judges);
    TextView.fix($("pair-body"));  // long texts cut, invisible characters marked
  }
  PROBE.shown++;
  document.body.dataset.pair = p ? String(p.index) : "none";
  if (t0 !== undefined) {
    // the next frame is the one that shows the pair
    requestAnimationFrame(() => { const ms = performance.now() - t0; PROBE.timings.push(ms); performance.measure("simjudge:key-to-pair", {start: t0, end: t0 + ms}); });
  }
}

// ------------------------------------------------------------------ progress and estimates
function drawProgress(pr) {
  if (!pr) return;
  const done = pr.labelled, total = pr.queue_pairs;
  const box = $("progress"); box.textContent = "";
  const bar = el("progress"); bar.max = Math.max(total, 1); bar.value = done; box.appendChild(bar);
  box.appendChild(el("div", done + " of " + total + " pairs labelled" + (pr.queue !== "design" && pr.queue !== "all" ? " in queue " + pr.queue : "") + (pr.labels_elsewhere ? " (" + pr.labels_elsewhere + " labels in the database name pairs of another source)" : "")));
  const t = $("per-reviewer"); t.textContent = "";
  const h = el("tr"); ["reviewer", "labels", "skips"].forEach(x => h.appendChild(el("th", x))); t.appendChild(h);
  Object.entries(pr.reviewers).forEach(([name, c]) => {
    const tr = el("tr", null, name === reviewer ? "me" : ""); [name, c.labels, c.skips].forEach(x => tr.appendChild(el("td", x))); t.appendChild(tr);
  });
}
// The stop banner never changes silently: once it has said "you can stop", a later estimate
// that no longer meets the rule replaces it with the reason (what changed, and since when).
let stopShown = null;  // {labels, upper} of the estimate that last met the rule
function lossLine(e) {
  return objName(e.objective) + " lost by using τ̂: " + fmt(e.loss, 4) + " expected, " + fmt(e.loss_upper, 4) + " at most with " + Math.round(100 * e.upper_level) + " % probability";
}
function withdrawnWhy(e, was) {
  const since = e.labels === was.labels ? "" : " (" + was.labels + " → " + e.labels + " labelled pairs)";
  if (!e.available) return "the estimate is no longer available: " + (e.why || "?") + since;
  if (!e.minimums_met) return "a stratum is below its minimum of " + e.min_per_stratum + " labels again (an undo?)" + since;
  return "the upper bound of the " + objName(e.objective) + " lost rose from " + fmt(was.upper, 4) + " to " + fmt(e.loss_upper, 4) + ", above the target " + e.target_loss + since;
}
function drawStop(e) {
  const stop = $("stop-banner");
  if (e && e.available && e.stop) {
    const again = stopShown === null && stop.dataset.state === "withdrawn" ? " (met again)" : "";
    stopShown = {labels: e.labels, upper: e.loss_upper};
    stop.textContent = "Enough labels" + again + ": the " + objName(e.objective) + " lost by using τ̂ = " + fmt(e.tau) + " is at most " + fmt(e.loss_upper, 4) + " ≤ " + e.target_loss + " with " + Math.round(100 * e.upper_level) + " % probability. You can stop; more labels still count.";
    stop.dataset.state = "stop"; stop.className = "banner done";
  } else if (stopShown !== null) {
    stop.textContent = "“You can stop” (shown at " + stopShown.labels + " labelled pairs) is withdrawn: " + withdrawnWhy(e || {available: false, why: "no estimate"}, stopShown) + ". Keep labelling.";
    stop.dataset.state = "withdrawn"; stop.className = "banner"; stopShown = null;
  } else if (stop.dataset.state !== "withdrawn") {
    stop.dataset.state = ""; stop.className = "banner hidden";
  }
}
function drawEstimate(e) {
  const box = $("estimate"); box.textContent = "";
  drawStop(e);
  if (!e) { box.appendChild(el("div", "computed after the first labels…", "legend")); return; }
  if (!e.available) {
    box.appendChild(el("div", e.why || "not available", "legend"));
    if (e.labels !== undefined) box.appendChild(el("div", e.labels + " labelled pairs, " + e.positives + " positive"));
    return;
  }
  box.appendChild(el("div", "τ̂ = " + fmt(e.tau), "big"));
  box.appendChild(el("div", "95 % interval [" + fmt(e.low) + ", " + fmt(e.high) + "] (reported, not the stopping rule)"));
  box.appendChild(el("div", lossLine(e) + " (stop when ≤ " + e.target_loss + ")"));
  box.appendChild(el("div", e.labels + " labelled pairs, " + e.positives + " positive; " + e.strata + " strata, " + (e.minimums_met ? "each with its minimum of " + e.min_per_stratum + " labels" : "not every stratum has " + e.min_per_stratum + " labels yet")));
  box.appendChild(el("div", e.stop ? "stopping rule met" : "stopping rule not met yet", e.stop ? "stop-yes" : "stop-no"));
}
function drawAgreement(a) {
  const box = $("agreement"); box.textContent = "";
  if (!a) return;
  if (a.alpha === null) box.appendChild(el("div", a.shared_pairs ? "α undefined on " + a.shared_pairs + " shared pairs (every label equal?)" : "needs pairs labelled by two reviewers (simjudge review --overlap F)", "legend"));
  else box.appendChild(el("div", "Krippendorff's α (" + a.level + ") " + fmt(a.alpha) + " over " + a.shared_pairs + " pairs labelled by two or more reviewers"));
}
let statsInFlight = null;
function refreshStats() {
  if (statsInFlight) return statsInFlight;
  statsInFlight = api("GET", "/api/stats").then(s => { drawProgress(s.progress); drawEstimate(s.estimate); drawAgreement(s.agreement); })
    .catch(err => say("statistics: " + err.message, true)).finally(() => { statsInFlight = null; });
  return statsInFlight;
}

// ------------------------------------------------------------------ actions
function refusedWhileWaiting() {
  if (busy && Pending.waiting()) { say("the server is not reachable yet: your last label is waiting to be sent; this key was not taken", true); return true; }
  return false;
}
async function send(action, value, t0) {
  if (refusedWhileWaiting() || busy || !pair || !reviewer) return;
  busy = true; if (t0 === undefined) t0 = performance.now();
  try {
    const r = await api("POST", "/api/label", {reviewer, index: pair.index, key: pair.key, action, value, note});
    PROBE.labels++;
    say(action === "skip" ? "skipped pair #" + pair.index : "labelled pair #" + pair.index + ": " + (CFG.graded ? "grade " + value : (value ? "match" : "no match")) + (note ? " (with note)" : ""));
    show(r.pair, t0); drawProgress(r.progress);
    refreshStats();
  } catch (err) { say(err.message, true); } finally { busy = false; }
}
async function undo(t0) {
  if (refusedWhileWaiting() || busy || !reviewer) return;
  busy = true; if (typeof t0 !== "number") t0 = performance.now();
  try {
    const r = await api("POST", "/api/undo", {reviewer});
    say("undid your " + r.undone.action + " (event " + r.undone.id + "); the pair is shown again");
    show(r.pair, t0); drawProgress(r.progress); refreshStats();
  } catch (err) { say(err.message, true); } finally { busy = false; }
}
function openNote() { if (!pair) return; $("note-card").classList.remove("hidden"); $("note").focus(); }
async function loadNext() {
  try { const r = await api("POST", "/api/next", {reviewer}); useName(r.reviewer); show(r.pair); drawProgress(r.progress); }
  catch (err) { say(err.message, true); }
  refreshStats();
}

document.addEventListener("keydown", (ev) => {
  if (!$("reviewer-dialog").classList.contains("hidden")) return;
  if (ev.target === $("note")) {
    if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); note = $("note").value; $("note").blur(); $("note-card").classList.add("hidden"); say(note ? "note kept: it is saved with your next label of this pair" : ""); }
    else if (ev.key === "Escape") { ev.preventDefault(); note = ""; $("note").value = ""; $("note").blur(); $("note-card").classList.add("hidden"); }
    return;
  }
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const k = ev.key, t0 = ev.timeStamp || performance.now();
  if (/^[0-9]$/.test(k)) {
    const v = Number(k);
    if (CFG.graded ? v <= CFG.top : v <= 1) { ev.preventDefault(); send("label", v, t0); }
  } else if (k === "s") { ev.preventDefault(); send("skip", undefined, t0); }
  else if (k === "u") { ev.preventDefault(); undo(t0); }
  else if (k === "n") { ev.preventDefault(); openNote(); }
});

// ------------------------------------------------------------------ reviewer, asked once
// the name as the server stores it (normalised: invisible characters removed, NFKC)
function useName(name) {
  if (!name || name === reviewer) return;
  reviewer = name; try { localStorage.setItem(REVIEWER_KEY, name); } catch (e) {}
  $("reviewer-name").textContent = name;
}
function askReviewer() { $("reviewer-dialog").classList.remove("hidden"); $("reviewer-input").value = reviewer; $("reviewer-input").focus(); }
$("reviewer-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const name = $("reviewer-input").value.trim();
  if (!name) return;
  reviewer = name; try { localStorage.setItem(REVIEWER_KEY, name); } catch (e) {}
  $("reviewer-name").textContent = name; $("reviewer-dialog").classList.add("hidden");
  loadNext();
});
$("reviewer-change").addEventListener("click", askReviewer);
setInterval(() => { if (reviewer && document.visibilityState === "visible") refreshStats(); }, 15000);
window.__simjudgeDrawEstimate = drawEstimate;  // what /api/stats feeds; tests feed it sequences
if (reviewer) { $("reviewer-name").textContent = reviewer; loadNext(); } else askReviewer();
})();
