"""``simjudge review RUN --items`` (issue 35): whole items checked in headless Chromium from the
keyboard alone, the server restarted in the middle of an item, and the design orders.

The run: 12 selection items of 3×3 strings judged by a ``table:`` judge
(tests/review_server.py: prediction i and gold j name the same thing exactly when i == j — the
hand truth the reviewer plays). Every check reads back the labels database."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from judge.calibration.itemevents import current_item_labels
from judge.calibration.labelsdb import LabelsDB
from judge.review.items import FIRST_PER_STRATUM, design_order
from tests.browser import wait
from tests.clirun import run_cli
from tests.review_server import Server, free_port, is_match, serve_on, stop, write_table_run


def _probe(d: Any) -> dict[str, Any]:
    return d.execute_script("return window.__simjudgeItems || null;") or {}


def _serve(run: Path, db: Path, port: int, *more: str) -> Server:
    return serve_on(run, db, port, "--items", *more)


def _shown(d: Any) -> tuple[str, list[str], list[str]]:
    """The item on the page: (id, predictions, gold)."""
    from selenium.webdriver.common.by import By

    preds = [li.text.split("\n")[0] for li in d.find_elements(By.CSS_SELECTOR, "#preds li")]
    golds = [li.text for li in d.find_elements(By.CSS_SELECTOR, "#golds li")]
    return d.execute_script("return document.body.dataset.item;"), preds, golds


def _keys(d: Any, keys: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(d).send_keys(keys).perform()


def _link_truth(d: Any) -> list[list[int]]:
    """Link every prediction to the gold item it names (the hand truth), by keyboard only;
    returns the links typed."""
    _, preds, golds = _shown(d)
    typed = []
    for i, p in enumerate(preds):
        for j, g in enumerate(golds):
            if is_match(p, g):
                _keys(d, f"{i + 1}{chr(97 + j)}")
                typed.append([i, j])
    want = json.dumps(typed).replace(" ", "")
    wait(d, lambda x: x.execute_script("return document.body.dataset.links;")
         .replace(" ", "") == want)
    return typed


def test_ten_items_by_keyboard_then_a_restart_mid_item(chrome: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    run, _ = write_table_run(tmp_path, 12)
    db, port = tmp_path / "labels.db", free_port()
    server = _serve(run, db, port)
    d = chrome
    try:
        d.get(f"http://127.0.0.1:{port}/")
        box = wait(d, lambda x: x.find_element(By.ID, "reviewer-input"))
        box.send_keys("ann\n")
        seen = []
        for _ in range(10):
            wait(d, lambda x: _probe(x).get("shown", 0) >= len(seen) + 1)
            item_id, _, _ = _shown(d)
            assert not d.find_elements(By.CSS_SELECTOR, "#preds .judge")  # blind
            _link_truth(d)
            _keys(d, Keys.ENTER)
            seen.append(item_id)
            wait(d, lambda x: _probe(x)["submitted"] == len(seen))
        # the 11th item: links made, then the server goes away before Enter
        wait(d, lambda x: _probe(x).get("shown", 0) >= 11)
        eleventh, _, _ = _shown(d)
        typed = _link_truth(d)
        stop(server)
        before = _probe(d)["submitted"]
        _keys(d, Keys.ENTER)  # sent while the server is down: kept, retried
        wait(d, lambda x: "cannot be reached" in x.find_element(By.ID, "wait-banner").text)
        server = _serve(run, db, port)  # the same labels.db: the same token
        wait(d, lambda x: _probe(x)["submitted"] == before + 1)
        assert not d.find_element(By.ID, "wait-banner").is_displayed()
        # no label or navigation error. A statistics refresh (a GET, tried once) that was on
        # its way when the server stopped fails and is counted apart: the stored label's
        # reply starts the next one, whose table is checked below
        assert _probe(d)["errors"] == 0
        est = wait(d, lambda x: x.find_elements(By.CSS_SELECTOR, "#estimate tr[data-metric]"))
        assert est[0].get_attribute("data-metric") == "micro_f1"
    finally:
        stop(server)
    with LabelsDB(db, create=False) as labels:
        events = labels.item_events()
    standing = current_item_labels(events)
    assert [e.item_id for e in standing] == [*seen, eleventh]
    assert all(e.reviewer == "ann" and e.blind for e in standing)
    # every item's accepted matches are its three diagonal pairs (the hand truth)
    for e in standing:
        pairs = e.truth["matches"]  # type: ignore[index]
        assert len(pairs) == 3 and all(is_match(p, t) for p, t in pairs)
    assert len(typed) == 3
    # the estimate reads them: 11 of 12 items, each with 3 human matches → human micro F1 1.0
    res = run_cli("estimate", run, "--human", db, "--out", tmp_path / "est", "--json")
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    assert got["n_labelled"] == 11
    assert got["metrics"]["micro_f1"]["human"]["value"] == pytest.approx(1.0)


def test_bad_requests_store_nothing(tmp_path: Path) -> None:
    """An item id that does not name the item at the index, matches that are not one-to-one
    index pairs: 400, nothing stored."""
    run, _ = write_table_run(tmp_path, 6)
    db, port = tmp_path / "labels.db", free_port()
    s = _serve(run, db, port)
    try:
        assert s.url == f"http://127.0.0.1:{port}/"  # the port asked (the token: the page's)
        item = s.post("/api/items/next", {"reviewer": "bob"})["item"]
        base = {"reviewer": "bob", "index": item["index"], "id": item["id"], "action": "label"}
        for bad, message in [({"id": "item-x"}, "does not name the item"),
                             ({"index": 99}, "out of range"),
                             ({"matches": [[0, 0], [1, 0]]}, "matched twice"),
                             ({"matches": [[0, 7]]}, "gold index] pairs of the item"),
                             ({"action": "erase"}, "action must be")]:
            status, got = s.call("POST", "/api/items/label", {**base, **bad})
            assert status == 400 and message in got["error"], (bad, got)
        status, _ = s.call("POST", "/api/items/label", {**base, "matches": [[0, 0]]},
                           token=False)
        assert status == 403
    finally:
        stop(s)
    with LabelsDB(db, create=False) as labels:
        assert labels.item_events() == []


def test_design_orders() -> None:
    """uniform: a permutation; stratified: every stratum's first FIRST_PER_STRATUM items come
    first, then the near stratum is taken about 3x, mid 1.5x its share; both seeded."""
    strata = ["near"] * 20 + ["mid"] * 40 + ["far"] * 140
    uni = design_order(strata, "uniform", 7)
    assert sorted(uni) == list(range(200)) and uni == design_order(strata, "uniform", 7)
    assert uni != design_order(strata, "uniform", 8)
    st = design_order(strata, "stratified", 7)
    assert sorted(st) == list(range(200))
    first = Counter(strata[k] for k in st[:3 * FIRST_PER_STRATUM])
    assert first == {"near": 3, "mid": 3, "far": 3}
    # after 60 items: shares ∝ N_h × weight = 60, 60, 140 → near 60/260·60 ≈ 14
    head = Counter(strata[k] for k in st[:60])
    assert head == {"near": 14, "mid": 14, "far": 32}
    with pytest.raises(ValueError, match="unknown design"):
        design_order(strata, "greedy", 0)
