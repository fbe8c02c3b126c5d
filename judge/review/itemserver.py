"""The web server of ``simjudge review RUN --items`` (aiohttp), beside the pair mode's
(:mod:`judge.review.server`, whose security middleware, body checks and static files it uses).

Routes:

* ``GET /`` the item page (``items.html``); ``GET /static/{items.js, review.css, …}``;
* ``POST /api/items/next`` ``{"reviewer"}`` → ``{"item", "progress"}`` (``item`` null when
  none is left);
* ``POST /api/items/label`` ``{"reviewer", "index", "id", "action": "label"|"skip",
  "matches": [[pred index, gold index], ...]}`` → the stored event and the next item; the
  event is committed before the reply;
* ``POST /api/items/undo`` ``{"reviewer"}`` → the withdrawn item, shown again;
* ``GET /api/items/stats`` → progress and the live estimate (computed off the event loop).

Bad requests (a body that is not a JSON object, a bad reviewer name, an index out of range, an
id that does not name the item at that index, matches that are not one-to-one index pairs of
the item) get 400 with a JSON message and store nothing; a full disk gets 507.
"""

from __future__ import annotations

import asyncio
import json
from importlib import resources
from typing import Any

from aiohttp import web

from judge.review.bodies import MAX_BODY, error, read_body
from judge.review.diskfull import storage_middleware
from judge.review.items import ItemSession
from judge.review.server import CONFIG, _security, static

ITEMS = web.AppKey("items", ItemSession)


async def page(request: web.Request) -> web.Response:
    """The item page, with the session's configuration embedded as JSON."""
    cfg = request.app[CONFIG]
    html = resources.files("judge.review").joinpath("items.html").read_text("utf-8")
    data = json.dumps(cfg, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e")
    html = html.replace("@@CONFIG@@", data).replace("@@TOKEN@@", cfg["token"] if not
                                                    cfg["loopback"] else "")
    return web.Response(text=html, content_type="text/html", charset="utf-8")


def _item(session: ItemSession, k: int | None) -> dict[str, Any] | None:
    return None if k is None else session.item(k)


async def next_item(request: web.Request) -> web.Response:
    """The item to show the reviewer."""
    session = request.app[ITEMS]
    body = await read_body(request)
    k = session.next_item(body["reviewer"])
    return web.json_response({"item": _item(session, k), "progress": session.progress(),
                              "reviewer": body["reviewer"]})


async def label(request: web.Request) -> web.Response:
    """Store an item label or skip (committed before the reply), then the next item."""
    session = request.app[ITEMS]
    body = await read_body(request)
    k = body.get("index")
    if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < len(session.rows):
        return error(400, "unknown item: index out of range")
    if body.get("id") != session.rows[k].id:
        return error(400, "unknown item: the id does not name the item at that index")
    matches = body.get("matches", [])
    if not isinstance(matches, list):
        return error(400, "matches must be a list of [prediction index, gold index] pairs")
    try:
        event = session.record_label(body["reviewer"], k, body.get("action", ""), matches)
    except ValueError as exc:
        return error(400, str(exc))
    nxt = session.next_item(body["reviewer"])
    return web.json_response({"event": {"id": event.id, "action": event.action,
                                        "item_id": event.item_id},
                              "item": _item(session, nxt), "progress": session.progress()})


async def undo(request: web.Request) -> web.Response:
    """Withdraw the reviewer's latest label or skip; its item is shown again."""
    session = request.app[ITEMS]
    body = await read_body(request)
    got = session.undo(body["reviewer"])
    if got is None:
        return error(409, "nothing to undo")
    event, k = got
    return web.json_response({"undone": {"id": event.undoes, "item_id": event.item_id},
                              "item": _item(session, k), "progress": session.progress()})


async def stats(request: web.Request) -> web.Response:
    """Progress and the estimate from the items labelled so far (in a worker thread)."""
    session = request.app[ITEMS]
    est = await asyncio.get_running_loop().run_in_executor(None, session.estimate)
    return web.json_response({"progress": session.progress(), "estimate": est})


def make_items_app(session: ItemSession, token: str, loopback: bool,
                   config: dict[str, Any]) -> web.Application:
    """The aiohttp application of an item review (see the module docstring; ``token`` and
    ``loopback`` as :func:`judge.review.server.make_app`)."""
    app = web.Application(client_max_size=MAX_BODY, middlewares=[
        _security(token, loopback), storage_middleware(session.db.path)])
    app[ITEMS] = session
    app[CONFIG] = {**config, "token": token, "loopback": loopback}
    app.router.add_get("/", page)
    app.router.add_get("/static/{name}", static)
    app.router.add_post("/api/items/next", next_item)
    app.router.add_post("/api/items/label", label)
    app.router.add_post("/api/items/undo", undo)
    app.router.add_get("/api/items/stats", stats)
    return app
