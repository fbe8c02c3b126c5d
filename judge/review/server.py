"""The ``simjudge review`` web server (aiohttp): the labelling page and its JSON API.

Routes (nothing else is served — in particular never the labels database):

* ``GET /`` the page; ``GET /static/{review.js, pending.js, textview.js, review.css,
  itemviews.js, itemviews.css}``;
* ``GET /api/state?reviewer=R`` configuration, progress, agreement and the last estimate;
* ``POST /api/next`` ``{"reviewer"}`` → the pair to show (``{"pair": null}`` when none is left);
* ``POST /api/label`` ``{"reviewer", "index", "key", "action": "label"|"skip", "value",
  "note"}`` (``key``: the pair's :func:`~judge.review.population.pair_hash` as ``/api/next``
  sent it, never its texts) → the stored event and the next pair; the event is committed to
  SQLite before the reply is sent;
* ``POST /api/undo`` ``{"reviewer"}`` → the withdrawn event and its pair, shown again;
* ``GET /api/stats`` τ̂, its interval, the expected loss and the stopping rule (computed off the
  event loop), agreement and progress.

Security. The server binds 127.0.0.1 unless told otherwise. Every POST must carry the session
token in the ``X-Simjudge-Token`` header (a page of another origin cannot set it, so it cannot
post labels through the reviewer's browser); on any other host than loopback every request must
carry it (``?token=`` in the URL the server prints, or the header) and gets 403 without it. On
loopback the ``Host`` header must name loopback (DNS rebinding). Responses forbid framing,
sniffing, referrers and every script or style not served here (Content-Security-Policy).
Bodies over :data:`~judge.review.bodies.MAX_BODY` bytes get 413; a body that is not a JSON
object, a reviewer name empty once normalised (:mod:`judge.review.bodies`), a bad note, a label
off the scale, an unknown pair key or any other bad value gets 400 with a JSON message — and
nothing is stored. A full disk under the database gets 507 (:mod:`judge.review.diskfull`).
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
from importlib import resources
from typing import Any

from aiohttp import web

from judge.review.bodies import MAX_BODY, error, note_text, read_body, reviewer_name
from judge.review.diskfull import storage_middleware
from judge.review.estimate import Estimate, run_estimate
from judge.review.population import pair_hash
from judge.review.session import ReviewSession

TOKEN_HEADER = "X-Simjudge-Token"

_STATIC = {
    "review.js": ("judge.review", "application/javascript"),
    "items.js": ("judge.review", "application/javascript"),
    "pending.js": ("judge.review", "application/javascript"),
    "textview.js": ("judge.runs", "application/javascript"),
    "review.css": ("judge.review", "text/css"),
    "itemviews.js": ("judge.runs", "application/javascript"),
    "itemviews.css": ("judge.runs", "text/css"),
}
_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")

SESSION = web.AppKey("session", ReviewSession)
CONFIG = web.AppKey("config", dict)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is the loopback interface."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _security(token: str, loopback: bool) -> Any:
    @web.middleware
    async def middleware(request: web.Request, handler: Any) -> web.StreamResponse:
        if loopback:
            host = (request.host or "").rsplit(":", 1)[0]
            if not is_loopback(host):
                return _secured(error(403, "this server answers requests to loopback only"))
        given = request.headers.get(TOKEN_HEADER) or request.query.get("token", "")
        ok = hmac.compare_digest(given.encode(), token.encode())
        if request.method == "POST":
            if not hmac.compare_digest(request.headers.get(TOKEN_HEADER, "").encode(),
                                       token.encode()):
                return _secured(error(403, f"missing or wrong {TOKEN_HEADER} header"))
        elif not loopback and not ok:
            return _secured(error(403, "missing or wrong token: open the URL simjudge review "
                                       "printed"))
        try:
            resp = await handler(request)
        except web.HTTPException as exc:  # raised again: aiohttp deprecates returning one
            _secured(exc)
            raise
        return _secured(resp)
    return middleware


def _secured(resp: web.StreamResponse) -> web.StreamResponse:
    """``resp`` with the page's security headers (CSP, no sniffing, no referrer, no framing,
    no caching)."""
    resp.headers.update({"Content-Security-Policy": _CSP, "X-Content-Type-Options": "nosniff",
                         "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY",
                         "Cache-Control": "no-store"})
    return resp


def _pair(session: ReviewSession, i: int | None) -> dict[str, Any] | None:
    return None if i is None else session.pop.pair(i, session.opt.blind)


def _stats_now(session: ReviewSession) -> dict[str, Any]:
    return {"progress": session.progress(), "agreement": session.agreement()}


async def page(request: web.Request) -> web.Response:
    """The labelling page, with the session's configuration embedded as JSON."""
    cfg = request.app[CONFIG]
    html = resources.files("judge.review").joinpath("page.html").read_text("utf-8")
    token = cfg["token"]
    data = json.dumps(cfg, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e")
    html = html.replace("@@CONFIG@@", data).replace("@@TOKEN@@", token if not cfg["loopback"]
                                                    else "")
    return web.Response(text=html, content_type="text/html", charset="utf-8")


async def static(request: web.Request) -> web.Response:
    """One of the page's own scripts and styles (:data:`_STATIC`); 404 for any other name."""
    name = request.match_info["name"]
    if name not in _STATIC:
        raise web.HTTPNotFound()
    package, ctype = _STATIC[name]
    text = resources.files(package).joinpath(name).read_text("utf-8")
    return web.Response(text=text, content_type=ctype, charset="utf-8")


async def state(request: web.Request) -> web.Response:
    """Configuration, progress, agreement, the last estimate and the reviewer's current pair."""
    session = request.app[SESSION]
    reviewer = request.query.get("reviewer")
    current = session.current(reviewer_name(reviewer)) if reviewer else None
    return web.json_response({**_stats_now(session), "estimate": session.last_estimate,
                              "pair": _pair(session, current)})


async def next_pair(request: web.Request) -> web.Response:
    """The pair to show the reviewer (their current one, or the design's next)."""
    session = request.app[SESSION]
    body = await read_body(request)
    i = session.next_pair(body["reviewer"])
    return web.json_response({"pair": _pair(session, i), "progress": session.progress(),
                              "reviewer": body["reviewer"]})


async def label(request: web.Request) -> web.Response:
    """Store a label or skip (committed before the reply), then answer with the next pair."""
    session = request.app[SESSION]
    body = await read_body(request)
    index = body.get("index")
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(
            session.pop):
        return error(400, "unknown pair: index out of range")
    if body.get("key") != pair_hash(session.pop.keys[index]):
        return error(400, "unknown pair key: the key does not name the pair at that index")
    note = note_text(body.get("note"))
    action = body.get("action")
    if action not in ("label", "skip"):
        return error(400, "action must be 'label' or 'skip'")
    value = body.get("value") if action == "label" else None
    try:
        event = session.record(body["reviewer"], index, action, value, note)
    except ValueError as exc:
        return error(400, str(exc))
    i = session.next_pair(body["reviewer"])
    return web.json_response({"event": {"id": event.id, "action": event.action,
                                        "label": event.label, "grade": event.grade},
                              "pair": _pair(session, i), "progress": session.progress()})


async def undo(request: web.Request) -> web.Response:
    """Withdraw the reviewer's latest label or skip; its pair is shown again."""
    session = request.app[SESSION]
    body = await read_body(request)
    got = session.undo(body["reviewer"])
    if got is None:
        return error(409, "nothing to undo")
    event, i = got
    return web.json_response({"undone": {"id": event.id, "action": event.action,
                                         "label": event.label, "grade": event.grade},
                              "pair": _pair(session, i), "progress": session.progress()})


async def stats(request: web.Request) -> web.Response:
    """The estimate (recomputed when labels changed, in a worker thread; a label request
    meanwhile waits at most for the interpreter's switch interval), agreement and progress."""
    session = request.app[SESSION]
    async with request.app[_ESTIMATING]:
        if not session.current_estimate():
            n_events, job = session.estimate_job()
            if not isinstance(job, Estimate):
                job = await asyncio.get_running_loop().run_in_executor(
                    None, run_estimate, session.pop.scores, session.strata, job)
            session.store_estimate(n_events, job)
        est = session.last_estimate
    return web.json_response({**_stats_now(session), "estimate": est})


_ESTIMATING = web.AppKey("estimating", asyncio.Lock)


def make_app(session: ReviewSession, token: str, loopback: bool,
             config: dict[str, Any]) -> web.Application:
    """The aiohttp application of a review session.

    Args:
        session: the session (population, database, options).
        token: the secret every POST (and, off loopback, every request) must carry.
        loopback: whether the server listens on loopback only (then GETs need no token, and the
            ``Host`` header must be loopback).
        config: what the page is told (source, scale, blind, queue, reviewer keys…; the token is
            added here).
    """
    app = web.Application(client_max_size=MAX_BODY, middlewares=[
        _security(token, loopback), storage_middleware(session.db.path)])
    app[SESSION] = session
    app[CONFIG] = {**config, "token": token, "loopback": loopback}
    app[_ESTIMATING] = asyncio.Lock()
    app.router.add_get("/", page)
    app.router.add_get("/static/{name}", static)
    app.router.add_get("/api/state", state)
    app.router.add_get("/api/stats", stats)
    app.router.add_post("/api/next", next_pair)
    app.router.add_post("/api/label", label)
    app.router.add_post("/api/undo", undo)
    return app
