"""Issue 36, item 13: bad request bodies to every POST endpoint of both review servers (pairs
and ``--items``) get 400 with a JSON message — never 500 — and store nothing.

Bodies are generated (hypothesis): bytes that are not a JSON object, JSON that is not an object,
objects with a bad reviewer, and well-formed label requests with one field broken or missing
(wrong JSON types, out-of-range numbers, NaN and infinities, lone surrogates, over-long notes).
A few hand-picked bodies that once answered 500 are posted first. The servers are ``simjudge
review`` commands run in this interpreter on loopback port 0 (tests/review_server.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.calibration.labelsdb import LabelsDB
from tests.review_server import Server, start, write_table_run

CHARS = st.one_of(st.characters(), st.characters(categories=["Cs"]),
                  st.sampled_from("\u200b\u202e\u2066\ufeff\x00\n "))
TEXT = st.text(CHARS, max_size=12)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6)
BAD_REVIEWER = st.one_of(
    JSON.filter(lambda v: not isinstance(v, str)),
    st.text(st.sampled_from("\u200b\u200c\u200d\u2060\ufeff\u202e\u2066\x00\x1b\n\t "),
            max_size=8),
    st.text(st.characters(codec="ascii", categories=["L"]), min_size=101, max_size=120))


def _valid_label_value(v: Any) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool) and v in (0, 1))


def _valid_match(m: Any) -> bool:
    return (isinstance(m, list) and len(m) == 2 and all(
        type(x) is int and 0 <= x < 3 for x in m))


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("fuzz")
    run, _ = write_table_run(tmp, 4)
    pairs = start([str(run), "--labels", str(tmp / "pairs.db")], tmp)
    items = None
    try:
        items = start([str(run), "--labels", str(tmp / "items.db"), "--items"], tmp)
        pair = pairs.post("/api/next", {"reviewer": "fuzz"})["pair"]
        item = items.post("/api/items/next", {"reviewer": "fuzz"})["item"]
        yield {"pairs": pairs, "items": items, "tmp": tmp,
               "pair": {"reviewer": "fuzz", "index": pair["index"], "key": pair["key"],
                        "action": "label", "value": 1, "note": ""},
               "item": {"reviewer": "fuzz", "index": item["index"], "id": item["id"],
                        "action": "label", "matches": [[0, 0]]}}
    finally:
        pairs.stop()
        if items is not None:
            items.stop()
    for name in ("pairs", "items"):  # nothing was ever stored
        with LabelsDB(tmp / f"{name}.db", create=False) as db:
            assert db.count() == 0 and db.item_events() == []


def _broken_label(good: dict[str, Any], items: bool) -> st.SearchStrategy[dict[str, Any]]:
    """``good`` with one field set to a bad value (or removed when it is required)."""
    bad = {
        "index": JSON.filter(lambda v: not (type(v) is int and v == good["index"])),
        "action": JSON.filter(lambda v: v not in ("label", "skip")),
        "reviewer": BAD_REVIEWER,
    }
    if items:
        bad["id"] = JSON.filter(lambda v: v != good["id"])
        bad["matches"] = st.one_of(
            JSON.filter(lambda v: not isinstance(v, list) and v is not None),
            st.lists(JSON.filter(lambda m: not _valid_match(m)), min_size=1, max_size=3),
            st.just([[0, 0], [1, 0]]), st.just([[0, 0], [0, 1]]))
        required = ["index", "id", "action"]
    else:
        bad["key"] = JSON.filter(lambda v: v != good["key"])
        bad["value"] = JSON.filter(lambda v: not _valid_label_value(v))
        bad["note"] = st.one_of(JSON.filter(lambda v: not isinstance(v, str) and v is not None),
                                st.just("x" * 4001), st.just("ok \ud800 note"))
        required = ["index", "key", "action", "value"]
    changed = st.sampled_from(sorted(bad)).flatmap(
        lambda f: bad[f].map(lambda v: {**good, f: v}))
    dropped = st.sampled_from(required).map(
        lambda f: {k: v for k, v in good.items() if k != f})
    return st.one_of(changed, dropped)


def _raw(body: Any) -> bytes:
    return body if isinstance(body, bytes) else json.dumps(body).encode()


def _bodies(endpoint: str, good: dict[str, Any] | None) -> st.SearchStrategy[Any]:
    def not_an_object(raw: bytes) -> bool:
        try:
            return not isinstance(json.loads(raw), dict)
        except (ValueError, RecursionError):
            return True

    common = [st.binary(max_size=40).filter(not_an_object),
              JSON.filter(lambda v: not isinstance(v, dict)),
              st.dictionaries(TEXT, JSON, max_size=3).flatmap(
                  lambda d: BAD_REVIEWER.map(lambda r: {**d, "reviewer": r}))]
    if good is not None:
        common.append(_broken_label(good, endpoint.startswith("/api/items/")))
    return st.one_of(common)


ENDPOINTS = [("pairs", "/api/next", None), ("pairs", "/api/label", "pair"),
             ("pairs", "/api/undo", None), ("items", "/api/items/next", None),
             ("items", "/api/items/label", "item"), ("items", "/api/items/undo", None)]


def _assert_400(s: Server, path: str, body: Any) -> None:
    status, got = s.call("POST", path, raw=_raw(body))
    assert status == 400, (path, body, status, got)
    assert isinstance(got, dict) and isinstance(got.get("error"), str) and got["error"], got


@pytest.mark.parametrize(("server", "path", "good"), ENDPOINTS)
def test_once_500_now_400(servers: dict[str, Any], server: str, path: str,
                          good: str | None) -> None:
    """The bodies that answered 500 before: nesting too deep to parse, a lone surrogate in the
    reviewer's name or the note, an infinite label value."""
    s = servers[server]
    _assert_400(s, path, b"[" * 30_000)
    _assert_400(s, path, {"reviewer": "\ud800"})
    if good is not None:
        body = servers[good]
        _assert_400(s, path, {**body, "reviewer": "\u200b\ufeff"})
        if server == "pairs":
            _assert_400(s, path, b'{"reviewer": "fuzz", "index": %d, "key": "%s", "action": '
                        b'"label", "value": Infinity}' % (body["index"], body["key"].encode()))
            _assert_400(s, path, {**body, "note": "a lone \udc00 surrogate"})


@pytest.mark.parametrize(("server", "path", "good"), ENDPOINTS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_bad_bodies_get_400_and_store_nothing(servers: dict[str, Any], server: str, path: str,
                                              good: str | None, data: st.DataObject) -> None:
    body = data.draw(_bodies(path, servers[good] if good else None), label="body")
    _assert_400(servers[server], path, body)
