// The review pages' requests, kept until the server answers (simjudge review, both modes).
// A label the server cannot be reached for (a restart, a dropped connection) is never lost: it
// waits in order, is retried every RETRY_MS, and a banner says so until it is stored. A
// request refused for its token (a server started with another database) fetches the page's
// configuration again (loopback: GET / needs no token) and is sent once more. A refusal of the
// request itself (4xx with a message; 507: the disk holding labels.db is full, the label was
// not saved) is shown, never dropped silently, and not retried: the reviewer presses again.
"use strict";
window.Pending = (() => {
const RETRY_MS = 1500;
let cfg = null, banner = null, queue = [], sending = false;

function init(config, bannerEl) { cfg = config; banner = bannerEl; }

function url(path) {
  const sep = path.includes("?") ? "&" : "?";
  return cfg.loopback ? path : path + sep + "token=" + encodeURIComponent(cfg.token);
}

async function refreshToken() {
  const r = await fetch("/", {cache: "no-store"});
  const html = await r.text();
  const m = /<script type="application\/json" id="config">([\s\S]*?)<\/script>/.exec(html);
  if (m) cfg.token = JSON.parse(m[1]).token;
}

// one attempt: {ok, data} or throws {network: true} / {status, message}
async function attempt(method, path, body) {
  const headers = {"X-Simjudge-Token": cfg.token};
  const opts = {method, headers, cache: "no-store"};
  if (body !== undefined) { headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
  let r;
  try { r = await fetch(url(path), opts); } catch (e) { throw {network: true, message: String(e)}; }
  let data = null;
  try { data = await r.json(); } catch (e) { data = {error: "HTTP " + r.status}; }
  if (!r.ok) throw {status: r.status, message: (data && data.error) || ("HTTP " + r.status)};
  return data;
}

function showWaiting(since) {
  if (!banner) return;
  if (!queue.length) { banner.classList.add("hidden"); return; }
  banner.textContent = "The server cannot be reached since " + since + ": " + queue.length +
    " request" + (queue.length > 1 ? "s" : "") + " waiting (your label is kept and will be sent when it is back).";
  banner.classList.remove("hidden");
}

async function drain() {
  if (sending) return;
  sending = true;
  let since = null;
  while (queue.length) {
    const job = queue[0];
    try {
      const data = await attempt(job.method, job.path, job.body);
      queue.shift(); showWaiting(since); job.resolve(data);
    } catch (err) {
      if (err.network || (err.status >= 500 && err.status !== 507)) {
        if (!since) since = new Date().toLocaleTimeString();
        showWaiting(since);
        await new Promise(ok => setTimeout(ok, RETRY_MS));
        continue;
      }
      if (err.status === 403 && !job.refreshed) {
        job.refreshed = true;
        try { await refreshToken(); } catch (e) { /* the server is down: retry later */ }
        continue;
      }
      queue.shift(); showWaiting(since); job.reject(new Error(err.message));
    }
  }
  sending = false;
}

// POSTs are queued (in order, kept until stored); GETs are tried once
function api(method, path, body) {
  if (method !== "POST") {
    return attempt(method, path, body).catch(err => { throw new Error(err.message); });
  }
  return new Promise((resolve, reject) => { queue.push({method, path, body, resolve, reject}); drain(); });
}

return {init, api, waiting: () => queue.length};
})();
