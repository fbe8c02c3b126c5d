// The item review page (simjudge review RUN --items): one item at a time; the reviewer links
// each prediction to the gold item it names, or to none, from the keyboard, then submits.
// Keys: 1-9 or ↑/↓ select a prediction; a-z link it to that gold item (a gold item already
// linked to another prediction moves: a match is one-to-one); Backspace/Delete unlink it;
// Enter submits the item; Shift+S skips it; Shift+U undoes the last submission. Texts are set
// through textContent only. In a blind review the server sends no judge output.
"use strict";
(() => {
const CFG = JSON.parse(document.getElementById("config").textContent);
const $ = (id) => document.getElementById(id);
const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined && text !== null) e.textContent = String(text); if (cls) e.className = cls; return e; };
const fmt = (x, d) => (x === null || x === undefined || Number.isNaN(x)) ? "–" : Number(x).toFixed(d === undefined ? 3 : d);
const REVIEWER_KEY = "simjudge-review-reviewer";
const PROBE = window.__simjudgeItems = {submitted: 0, shown: 0, errors: 0, statsErrors: 0};
Pending.init(CFG, $("wait-banner"));
let reviewer = "";
try { reviewer = localStorage.getItem(REVIEWER_KEY) || ""; } catch (e) { reviewer = ""; }
let item = null, selected = 0, links = new Map(), busy = false;  // links: pred index → gold index

// isError: counted in PROBE[counter] (default "errors"; a failed statistics refresh, which the
// next label redoes, in "statsErrors")
function say(text, isError, counter) {
  const m = $("message"); m.textContent = text || ""; m.className = "message" + (isError ? " error" : "");
  if (isError) PROBE[counter || "errors"]++;
}
$("meta").textContent = [CFG.source, "design " + CFG.design, CFG.items + " items"].join(" · ");
if (CFG.blind) $("blind-banner").classList.remove("hidden");

const letter = (j) => String.fromCharCode(97 + j);
function draw() {
  const preds = $("preds"), golds = $("golds"), box = $("links");
  preds.textContent = ""; golds.textContent = ""; box.textContent = "";
  if (!item) return;
  const judged = new Map((item.judge_matches || []).map(([i, j, s]) => [i, [j, s]]));
  item.pred.forEach((p, i) => {
    const li = el("li", p, (i === selected ? "selected " : "") + (links.has(i) ? "linked" : ""));
    if (judged.has(i)) li.appendChild(el("span", "judge: " + letter(judged.get(i)[0]) + " " + fmt(judged.get(i)[1], 2), "judge"));
    li.addEventListener("click", () => { selected = i; draw(); });
    preds.appendChild(li);
  });
  const used = new Set(links.values());
  item.truth.forEach((t, j) => {
    const li = el("li", t, used.has(j) ? "linked" : "");
    li.addEventListener("click", () => link(j));
    golds.appendChild(li);
  });
  if (!links.size) box.appendChild(el("span", "no match linked: submitting says none of the predictions names a gold item", "legend"));
  [...links.entries()].sort((a, b) => a[0] - b[0]).forEach(([i, j]) => box.appendChild(el("span", (i + 1) + " → " + letter(j))));
  TextView.fix($("item-body"));  // long texts cut, invisible characters marked
  document.body.dataset.item = item.id;
  document.body.dataset.links = JSON.stringify([...links.entries()].sort((a, b) => a[0] - b[0]));
}
function show(it) {
  item = it; selected = 0; links = new Map();
  if (!it) {
    $("item-body").classList.add("hidden"); $("item-empty").classList.remove("hidden");
    $("item-empty").textContent = "No item left for you. Thank you!";
    document.body.dataset.item = "none";
  } else {
    $("item-empty").classList.add("hidden"); $("item-body").classList.remove("hidden");
    $("item-id").textContent = "item " + it.id + " · " + it.pred.length + " predictions, " + it.truth.length + " gold";
    $("query").textContent = it.query || "";
  }
  PROBE.shown++; draw();
}
function link(j) {
  if (!item || j >= item.truth.length) return;
  for (const [i, g] of links) if (g === j) links.delete(i);  // one-to-one: the gold moves
  links.set(selected, j);
  if (selected + 1 < item.pred.length) selected++;
  draw();
}
function drawProgress(pr) {
  if (!pr) return;
  const box = $("progress"); box.textContent = "";
  const bar = el("progress"); bar.max = Math.max(pr.items, 1); bar.value = pr.labelled; box.appendChild(bar);
  box.appendChild(el("div", pr.labelled + " of " + pr.items + " items checked"));
  Object.entries(pr.reviewers || {}).forEach(([name, c]) => box.appendChild(el("div", name + ": " + c.labels + " checked, " + c.skips + " skipped", name === reviewer ? "me" : "legend")));
}
function drawEstimate(e) {
  const box = $("estimate"); box.textContent = "";
  if (!e || !e.available) { box.appendChild(el("div", (e && e.why) || "computed after the first items…", "legend")); return; }
  const t = el("table"), head = el("tr");
  ["metric", "judge", "PPI++ 95 %", "checked only"].forEach(h => head.appendChild(el("th", h))); t.appendChild(head);
  ["micro_f1", "macro_f1"].forEach(name => {
    const m = e.metrics[name]; if (!m || m.known !== undefined) return;
    const tr = el("tr"); tr.dataset.metric = name;
    [name, fmt(m.judge.value), fmt(m.ppi.value) + " [" + fmt(m.ppi.ci95[0]) + ", " + fmt(m.ppi.ci95[1]) + "]",
     fmt(m.human.value) + " [" + fmt(m.human.ci95[0]) + ", " + fmt(m.human.ci95[1]) + "]"].forEach(x => tr.appendChild(el("td", x)));
    t.appendChild(tr);
  });
  box.appendChild(t);
  box.appendChild(el("div", e.n_labelled + " of " + e.n_items + " items checked (" + e.design.kind + " design); n_eff of micro F1: " + fmt(e.metrics.micro_f1 && e.metrics.micro_f1.n_eff, 0), "legend"));
}
let statsBusy = null;
function refreshStats() {
  if (statsBusy) return statsBusy;
  statsBusy = Pending.api("GET", "/api/items/stats").then(s => { drawProgress(s.progress); drawEstimate(s.estimate); })
    .catch(err => say("estimate: " + err.message, true, "statsErrors")).finally(() => { statsBusy = null; });
  return statsBusy;
}

function refusedWhileWaiting() {
  if (busy && Pending.waiting()) { say("the server is not reachable yet: your last item is waiting to be sent; this key was not taken", true); return true; }
  return false;
}
async function submit(action) {
  if (refusedWhileWaiting() || busy || !item || !reviewer) return;
  busy = true;
  const sent = item, matches = [...links.entries()].sort((a, b) => a[0] - b[0]);
  try {
    const r = await Pending.api("POST", "/api/items/label", {reviewer, index: sent.index, id: sent.id, action, matches});
    PROBE.submitted++;
    say(action === "skip" ? "skipped item " + sent.id : "checked item " + sent.id + ": " + matches.length + " match" + (matches.length === 1 ? "" : "es"));
    show(r.item); drawProgress(r.progress); refreshStats();
  } catch (err) { say(err.message, true); } finally { busy = false; }
}
async function undo() {
  if (refusedWhileWaiting() || busy || !reviewer) return;
  busy = true;
  try {
    const r = await Pending.api("POST", "/api/items/undo", {reviewer});
    say("undid your last submission (item " + r.undone.item_id + "); it is shown again");
    show(r.item); drawProgress(r.progress); refreshStats();
  } catch (err) { say(err.message, true); } finally { busy = false; }
}
async function loadNext() {
  try { const r = await Pending.api("POST", "/api/items/next", {reviewer}); useName(r.reviewer); show(r.item); drawProgress(r.progress); }
  catch (err) { say(err.message, true); }
  refreshStats();
}

document.addEventListener("keydown", (ev) => {
  if (!$("reviewer-dialog").classList.contains("hidden") || !item) return;
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const k = ev.key;
  if (/^[1-9]$/.test(k) && Number(k) <= item.pred.length) { ev.preventDefault(); selected = Number(k) - 1; draw(); }
  else if (k === "ArrowDown") { ev.preventDefault(); selected = Math.min(item.pred.length - 1, selected + 1); draw(); }
  else if (k === "ArrowUp") { ev.preventDefault(); selected = Math.max(0, selected - 1); draw(); }
  else if (/^[a-z]$/.test(k)) { ev.preventDefault(); link(k.charCodeAt(0) - 97); }
  else if (k === "Backspace" || k === "Delete") { ev.preventDefault(); links.delete(selected); draw(); }
  else if (k === "Enter") { ev.preventDefault(); submit("label"); }
  else if (k === "S") { ev.preventDefault(); submit("skip"); }
  else if (k === "U") { ev.preventDefault(); undo(); }
});

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
if (reviewer) { $("reviewer-name").textContent = reviewer; loadNext(); } else askReviewer();
})();
