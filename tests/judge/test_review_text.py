"""Issue 36, items 8, 9 and 14 on the review page: a pair of two 45,000-character strings is
labelled and skipped (the page posts the pair's short key, never its texts), long strings are
cut with an "expand" control, invisible and bidi characters are shown marked, and a full disk
is said on the page — over HTTP and in headless Chromium."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judge.calibration.labelsdb import LabelsDB
from judge.review.bodies import MAX_BODY
from judge.review.diskfull import DISK_FULL
from tests.browser import wait
from tests.review_server import fill, in_tmpfs, mount_namespace_reason, start

LONG = ("a" * 45_000, "b" * 45_000)  # unbroken, and together over MAX_BODY
BIDI = ("abc\u202edef\u200bghi", "abc\u2066xyz\u2069\u00adend")
PLAIN = ("a plain prediction", "a plain gold")


def _pool(tmp: Path) -> list[str]:
    """A pool of the three pairs scored by a table judge; the review's arguments."""
    pairs = [LONG, BIDI, PLAIN]
    (tmp / "pool.jsonl").write_text("".join(
        json.dumps({"id": f"p{k}", "pred": p, "truth": t, "context": "c" * 30_000 if k == 0
                    else "short"}) + "\n" for k, (p, t) in enumerate(pairs)))
    (tmp / "t.jsonl").write_text("".join(
        json.dumps({"pred": p, "truth": t, "score": 0.2 + 0.3 * k}) + "\n"
        for k, (p, t) in enumerate(pairs)))
    return [str(tmp / "pool.jsonl"), "--judge", f"table:{tmp / 't.jsonl'}", "--queue", "all",
            "--max-chars", "0"]


def _stored(db: Path) -> list[tuple[str, str, int | None]]:
    with LabelsDB(db, create=False) as d:
        return [(e.key[1][:3], e.action, e.label) for e in d.events()]


def test_a_pair_over_the_body_limit_is_labelled_and_skipped(tmp_path: Path) -> None:
    assert len(json.dumps(LONG)) > MAX_BODY
    s = start([*_pool(tmp_path), "--labels", str(tmp_path / "l.db")], tmp_path)
    try:
        pair = s.post("/api/next", {"reviewer": "ann"})["pair"]
        while pair["pred"] != LONG[0]:
            pair = s.label("ann", pair, 0)["pair"]
        assert len(pair["key"]) == 64  # sha256 hex, whatever the texts' length
        s.post("/api/label", {"reviewer": "ann", "index": pair["index"], "key": pair["key"],
                              "action": "skip"})
        s.post("/api/undo", {"reviewer": "ann"})
        s.label("ann", pair, 1)
    finally:
        s.stop()
    assert ("aaa", "label", 1) in _stored(tmp_path / "l.db")
    assert ("aaa", "skip", None) in _stored(tmp_path / "l.db")


def _sign_in(d: Any, url: str, name: str) -> None:
    from selenium.webdriver.common.by import By

    d.get(url)
    box = wait(d, lambda x: x.find_element(By.ID, "reviewer-input"))
    wait(d, lambda x: box.is_displayed())
    box.send_keys(name + "\n")
    wait(d, lambda x: x.execute_script("return document.body.dataset.pair;"))


def _press(d: Any, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    before = d.execute_script("return window.__simjudgeReview.shown;")
    ActionChains(d).send_keys(key).perform()
    wait(d, lambda x: x.execute_script("return window.__simjudgeReview.shown;") > before)


def _text(d: Any, css: str) -> str:
    return str(d.execute_script("return document.querySelector(arguments[0]).textContent;",
                                css))


def test_long_and_invisible_text_on_the_page(chrome: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    db = tmp_path / "l.db"
    s = start([*_pool(tmp_path), "--labels", str(db)], tmp_path)
    d = chrome
    try:
        _sign_in(d, s.url, "ann")
        for _ in range(3):
            pred = _text(d, "#pred")
            if pred.startswith("aaa"):
                # cut: the first 2,000 characters, the count of the rest, and "expand"
                assert pred == "a" * 2000 + " … 43,000 more characters expand", pred[-60:]
                assert "c" * 2000 + " … 28,000 more characters expand" in _text(d, "#context")
                d.find_element(By.CSS_SELECTOR, "#pred button.expand").click()
                wait(d, lambda x: _text(x, "#pred") == LONG[0])
                assert _text(d, "#truth").startswith("b" * 2000 + " … 43,000 more")
                _press(d, "1")
            elif pred.startswith("abc"):
                marks = [[e.text for e in d.find_elements(By.CSS_SELECTOR,
                                                          f"#{side} .invisible")]
                         for side in ("pred", "truth")]
                assert marks == [["⟨U+202E⟩", "⟨U+200B⟩"], ["⟨U+2066⟩", "⟨U+2069⟩", "⟨U+00AD⟩"]]
                assert pred == "abc⟨U+202E⟩def⟨U+200B⟩ghi"
                _press(d, "0")
            else:
                assert pred == PLAIN[0] and not d.find_elements(By.CSS_SELECTOR, ".invisible")
                _press(d, "s")
        assert d.execute_script("return document.body.dataset.pair;") == "none"
        assert d.execute_script("return window.__simjudgeReview.errors;") == 0
    finally:
        s.stop()
    assert sorted(_stored(db)) == [("a p", "skip", None), ("aaa", "label", 1),
                                   ("abc", "label", 0)]


def test_a_full_disk_is_said_on_the_page(chrome: Any, tmp_path: Path) -> None:
    """A real subprocess: the server runs in a private mount namespace with a small tmpfs
    (filled from outside through /proc/PID/root)."""
    reason = mount_namespace_reason()
    if reason is not None:
        pytest.skip(reason)
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    mnt = tmp_path / "disk"
    s = start([*_pool(tmp_path), "--labels", f"{mnt}/labels.db"], tmp_path,
              prefix=in_tmpfs(mnt, "2m"))
    d = chrome
    try:
        _sign_in(d, s.url, "ann")
        shown = d.execute_script("return document.body.dataset.pair;")
        fill(Path(f"/proc/{s.proc.pid}/root{mnt}/filler"))
        ActionChains(d).send_keys("1").perform()
        wait(d, lambda x: x.find_element(By.ID, "message").text == DISK_FULL)
        assert "error" in d.find_element(By.ID, "message").get_attribute("class")
        assert not d.find_element(By.ID, "wait-banner").is_displayed()  # refused, not retried
        assert d.execute_script("return document.body.dataset.pair;") == shown
    finally:
        s.stop()
