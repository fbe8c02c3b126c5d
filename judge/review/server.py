"""The ``simjudge review`` web server (aiohttp): the labelling page and its JSON API.

Routes (nothing else is served — in particular never the labels database):

* ``GET /`` the page; ``GET /static/{review.js, review.css, itemviews.js, itemviews.css}``;
* ``GET /api/state?reviewer=R`` configuration, progress, agreement and the last estimate;
* ``POST /api/next`` ``{"reviewer"}`` → the pair to show (``{"pair": null}`` when none is left);
* ``POST /api/label`` ``{"reviewer", "index", "key", "action": "label"|"skip", "value",
  "note"}`` → the stored event and the next pair; the event is committed to SQLite before the
  reply is sent;
* ``POST /api/undo`` ``{"reviewer"}`` → the withdrawn event and its pair, shown again;
* ``GET /api/stats`` τ̂, its interval, the expected loss and the stopping rule (computed off the
  event loop), agreement and progress.

Security. The server binds 127.0.0.1 unless told otherwise. Every POST must carry the session
token in the ``X-Simjudge-Token`` header (a page of another origin cannot set it, so it cannot
post labels through the reviewer's browser); on any other host than loopback every request must
carry it (``?token=`` in the URL the server prints, or the header) and gets 403 without it. On
loopback the ``Host`` header must name loopback (DNS rebinding). Responses forbid framing,
sniffing, referrers and every script or style not served here (Content-Security-Policy).
Bodies over :data:`MAX_BODY` bytes get 413, notes over :data:`MAX_NOTE` characters, labels off
the scale and unknown pair keys get 400 — and nothing is stored.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
from importlib import resources
from typing import Any

from aiohttp import web

from judge.review.estimate import Estimate, run_estimate
from judge.review.options import key_of
from judge.review.session import ReviewSession

MAX_BODY = 64 * 1024
"""Largest request body accepted, in bytes (a note of 1 MB gets 413)."""

MAX_NOTE = 4000
"""Longest note accepted, in characters."""

MAX_REVIEWER = 100
"""Longest reviewer name accepted, in characters."""

TOKEN_HEADER = "X-Simjudge-Token"

_STATIC = {
    "review.js": ("judge.review", "application/javascript"),
    "items.js": ("judge.review", "application/javascript"),
    "pending.js": ("judge.review", "application/javascript"),
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


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


def _security(token: str, loopback: bool) -> Any:
    @web.middleware
    async def middleware(request: web.Request, handler: Any) -> web.StreamResponse:
        if loopback:
            host = (request.host or "").rsplit(":", 1)[0]
            if not is_loopback(host):
                return _error(403, "this server answers requests to loopback only")
        given = request.headers.get(TOKEN_HEADER) or request.query.get("token", "")
        ok = hmac.compare_digest(given.encode(), token.encode())
        if request.method == "POST":
            if not hmac.compare_digest(request.headers.get(TOKEN_HEADER, "").encode(),
                                       token.encode()):
                return _error(403, f"missing or wrong {TOKEN_HEADER} header")
        elif not loopback and not ok:
            return _error(403, "missing or wrong token: open the URL simjudge review printed")
        try:
            resp = await handler(request)
        except web.HTTPException as exc:
            resp = exc
        resp.headers.update({"Content-Security-Policy": _CSP, "X-Content-Type-Options": "nosniff",
                             "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY",
                             "Cache-Control": "no-store"})
        return resp
    return middleware


async def _body(request: web.Request) -> dict[str, Any]:
    """The request's JSON object body with a valid ``reviewer``.

    Raises:
        web.HTTPException: 413 (too large), 400 (not a JSON object, bad reviewer).
    """
    raw = await request.read()  # over client_max_size: aiohttp answers 413
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise web.HTTPBadRequest(text='{"error": "expected a JSON object"}',
                                 content_type="application/json") from None
    if not isinstance(body, dict):
        raise web.HTTPBadRequest(text='{"error": "expected a JSON object"}',
                                 content_type="application/json")
    body["reviewer"] = _reviewer(body.get("reviewer"))
    return body


def _reviewer(value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_REVIEWER or any(
            ord(c) < 32 for c in value):
        raise web.HTTPBadRequest(
            text=json.dumps({"error": f"reviewer must be a name of 1 to {MAX_REVIEWER} "
                             "characters without control characters"}),
            content_type="application/json")
    return value.strip()


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
    current = session.current(_reviewer(reviewer)) if reviewer else None
    return web.json_response({**_stats_now(session), "estimate": session.last_estimate,
                              "pair": _pair(session, current)})


async def next_pair(request: web.Request) -> web.Response:
    """The pair to show the reviewer (their current one, or the design's next)."""
    session = request.app[SESSION]
    body = await _body(request)
    i = session.next_pair(body["reviewer"])
    return web.json_response({"pair": _pair(session, i), "progress": session.progress()})


async def label(request: web.Request) -> web.Response:
    """Store a label or skip (committed before the reply), then answer with the next pair."""
    session = request.app[SESSION]
    body = await _body(request)
    index = body.get("index")
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(
            session.pop):
        return _error(400, "unknown pair: index out of range")
    try:
        key = key_of(body.get("key"))
    except ValueError as exc:
        return _error(400, str(exc))
    if session.pop.keys[index] != key:
        return _error(400, "unknown pair key: the key does not name the pair at that index")
    note = body.get("note", "")
    if not isinstance(note, str) or len(note) > MAX_NOTE:
        return _error(400, f"note must be a string of at most {MAX_NOTE} characters")
    action = body.get("action")
    if action not in ("label", "skip"):
        return _error(400, "action must be 'label' or 'skip'")
    value = body.get("value") if action == "label" else None
    try:
        event = session.record(body["reviewer"], index, action, value, note)
    except ValueError as exc:
        return _error(400, str(exc))
    i = session.next_pair(body["reviewer"])
    return web.json_response({"event": {"id": event.id, "action": event.action,
                                        "label": event.label, "grade": event.grade},
                              "pair": _pair(session, i), "progress": session.progress()})


async def undo(request: web.Request) -> web.Response:
    """Withdraw the reviewer's latest label or skip; its pair is shown again."""
    session = request.app[SESSION]
    body = await _body(request)
    got = session.undo(body["reviewer"])
    if got is None:
        return _error(409, "nothing to undo")
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
    app = web.Application(client_max_size=MAX_BODY,
                          middlewares=[_security(token, loopback)])
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
