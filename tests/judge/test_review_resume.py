"""The pair review page (``simjudge review``) in headless Chromium, issue 35: a label pressed
while the server restarts is kept and sent once it is back, and the stop banner never changes
without saying why.

The run: 12 selection items of 3×3 strings judged by a ``table:`` judge
(tests/review_server.py: prediction i and gold j name the same thing exactly when i == j)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judge.calibration.labelevents import labelled
from judge.calibration.labelsdb import LabelsDB
from tests.browser import wait
from tests.review_server import free_port, is_match, serve_on, stop, write_table_run


def _probe(d: Any) -> dict[str, Any]:
    return d.execute_script("return window.__simjudgeReview || {};") or {}


def _pair(d: Any) -> tuple[str, str]:
    from selenium.webdriver.common.by import By

    return (d.find_element(By.ID, "pred").text, d.find_element(By.ID, "truth").text)


def _press(d: Any, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(d).send_keys(key).perform()


def test_a_label_pressed_during_a_restart_is_kept(chrome: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    run, _ = write_table_run(tmp_path, 12)
    db, port = tmp_path / "labels.db", free_port()
    server = serve_on(run, db, port)
    d = chrome
    pressed: list[tuple[str, str, int]] = []
    try:
        d.get(f"http://127.0.0.1:{port}/")
        wait(d, lambda x: x.find_element(By.ID, "reviewer-input")).send_keys("ann\n")
        for n in range(3):
            wait(d, lambda x, n=n: _probe(x).get("shown", 0) >= n + 1)
            pred, truth = _pair(d)
            pressed.append((pred, truth, int(is_match(pred, truth))))
            _press(d, str(pressed[-1][2]))
            wait(d, lambda x, n=n: _probe(x)["labels"] == n + 1)
        wait(d, lambda x: _probe(x).get("shown", 0) >= 4)
        pred, truth = _pair(d)
        stop(server)
        pressed.append((pred, truth, int(is_match(pred, truth))))
        _press(d, str(pressed[-1][2]))  # the server is down: the label waits
        wait(d, lambda x: "cannot be reached" in x.find_element(By.ID, "wait-banner").text)
        _press(d, "1")  # a key pressed meanwhile is refused aloud, not taken nor lost
        wait(d, lambda x: "this key was not taken" in x.find_element(By.ID, "message").text)
        server = serve_on(run, db, port)  # the same labels.db: the same token
        wait(d, lambda x: _probe(x)["labels"] == 4)
        wait(d, lambda x: not x.find_element(By.ID, "wait-banner").is_displayed())
        wait(d, lambda x: _probe(x).get("shown", 0) >= 5)  # the session goes on, no reload
        assert _pair(d) != (pred, truth)
    finally:
        stop(server)
    with LabelsDB(db, create=False) as labels:
        counted = labelled(list(labels.events()))
    got = sorted((key[1], key[2], int(es[0].label or 0)) for key, es in counted.items())
    assert got == sorted(pressed)  # each label once, the one pressed during the restart too


ESTIMATE = {"available": True, "tau": 0.62, "low": 0.5, "high": 0.7, "loss": 0.004,
            "upper_level": 0.9, "target_loss": 0.01, "objective": "f1", "positives": 40,
            "strata": 16, "min_per_stratum": 8, "minimums_met": True}


def test_the_stop_banner_never_flips_silently(chrome: Any, tmp_path: Path) -> None:
    """The page's stop banner, fed a sequence of estimates (what /api/stats returns): once it
    said "you can stop", a later estimate that does not meet the rule replaces it with why —
    the bound that rose, a stratum below its minimum again, no estimate — and it stays until
    the rule holds again."""
    from selenium.webdriver.common.by import By

    run, _ = write_table_run(tmp_path, 12)
    db, port = tmp_path / "labels.db", free_port()
    server = serve_on(run, db, port)
    d = chrome

    def show(**change: Any) -> tuple[str, bool]:
        e = {**ESTIMATE, **change}
        text, shown = d.execute_script(
            "window.__simjudgeDrawEstimate(arguments[0]);"
            "const b = document.getElementById('stop-banner');"
            "return [b.textContent, !b.classList.contains('hidden')];", e)
        return text, shown

    try:
        d.get(f"http://127.0.0.1:{port}/")
        wait(d, lambda x: x.find_element(By.ID, "reviewer-input")).send_keys("ann\n")
        wait(d, lambda x: _probe(x).get("shown", 0) >= 1)
        # the page's own statistics must not land between the estimates fed below: wait for
        # the first (/api/stats asked after the first pair; it fills #estimate), and stop its
        # 15 s refresh (it asks only while the page is visible)
        wait(d, lambda x: x.execute_script(
            "return document.getElementById('estimate').childElementCount > 0"),
            what="the page's first statistics")
        d.execute_script("Object.defineProperty(document, 'visibilityState', "
                         "{get: () => 'hidden'})")
        assert show(stop=False, labels=100, loss_upper=0.02)[1] is False
        text, shown = show(stop=True, labels=129, loss_upper=0.008)
        assert shown and text.startswith("Enough labels: ") and "at most 0.0080" in text
        text, shown = show(stop=False, labels=132, loss_upper=0.013)
        assert shown and "(shown at 129 labelled pairs) is withdrawn" in text
        assert "rose from 0.0080 to 0.0130, above the target 0.01 (129 → 132" in text
        assert show(stop=False, labels=133, loss_upper=0.012) == (text, True)  # it stays
        text, shown = show(stop=True, labels=150, loss_upper=0.009)
        assert shown and text.startswith("Enough labels (met again): ")
        text, shown = show(stop=False, labels=149, loss_upper=0.009, minimums_met=False)
        assert shown and "below its minimum of 8 labels again" in text
        show(stop=True, labels=151, loss_upper=0.009)
        text, shown = show(available=False, why="the labels hold one class so far",
                           labels=151, stop=False)
        assert shown and "no longer available: the labels hold one class so far" in text
    finally:
        stop(server)
