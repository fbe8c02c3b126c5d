"""A whole ``simjudge review`` session in headless Chromium: 30 pairs labelled by keyboard, one
undone, the page reloaded (it resumes), a second reviewer in a second browser, export, then
``calibrate`` from the database — every number checked against the hand labels
(:func:`tests.review_server.is_match`) and scikit-learn / the ``krippendorff`` package."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.browser import wait
from tests.clirun import run_cli
from tests.review_server import cell_score, is_match, start, write_table_run


def _probe(d: Any) -> dict[str, Any]:
    return d.execute_script("return window.__simjudgeReview || null;") or {}


def _pair(d: Any) -> tuple[str, str, str]:
    """(item id line, prediction, gold) shown now, as rendered (innerText), read in one call."""
    got = d.execute_script("return ['pair-id', 'pred', 'truth'].map("
                           "k => document.getElementById(k).innerText);")
    return got[0], got[1], got[2]


def _press(d: Any, key: str) -> None:
    """Press ``key`` and wait until the page has drawn the pair that follows."""
    from selenium.webdriver.common.action_chains import ActionChains

    before = _probe(d).get("shown", 0)
    ActionChains(d).send_keys(key).perform()
    wait(d, lambda x: _probe(x).get("shown", 0) > before)


def _sign_in(d: Any, url: str, name: str) -> None:
    from selenium.webdriver.common.by import By

    d.get(url)
    box = wait(d, lambda x: x.find_element(By.ID, "reviewer-input"))
    wait(d, lambda x: box.is_displayed())
    box.send_keys(name + "\n")
    wait(d, lambda x: _probe(x).get("shown", 0) >= 1)


def test_a_whole_session_in_two_browsers(chrome: Any, second_chrome: Any,
                                         tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    run, table = write_table_run(tmp_path)
    db = tmp_path / "labels.db"
    s = start([str(run), "--labels", str(db), "--overlap", "0.5", "--seed", "3"], tmp_path)
    ann_pages, bob_pages = chrome, second_chrome  # two browsers: storage apart
    ann: dict[tuple[str, str], int] = {}
    bob: dict[tuple[str, str], int] = {}
    try:
        _sign_in(ann_pages, s.url, "ann")
        assert ann_pages.find_element(By.ID, "blind-banner").is_displayed()
        for _ in range(30):
            _, pred, truth = _pair(ann_pages)
            ann[(pred, truth)] = int(is_match(pred, truth))
            _press(ann_pages, str(ann[(pred, truth)]))
        # undo the 30th label: its pair comes back
        last = list(ann)[-1]
        _press(ann_pages, "u")
        assert _pair(ann_pages)[1:] == last
        del ann[last]
        # key press → next pair drawn, by the page's performance.now(): 30 labels + the undo
        timings = wait(ann_pages, lambda x: len(t := _probe(x)["timings"]) == 31 and t)
        assert all(0 < t < 5000 for t in timings)
        # reload: no reviewer question, the same pair (resumed), 29 labels counted
        ann_pages.refresh()
        wait(ann_pages, lambda x: _probe(x).get("shown", 0) >= 1)
        assert not ann_pages.find_element(By.ID, "reviewer-dialog").is_displayed()
        assert _pair(ann_pages)[1:] == last
        wait(ann_pages, lambda x: "29 of 108 pairs labelled" in x.find_element(
            By.ID, "progress").text)
        ann[last] = int(is_match(*last))
        _press(ann_pages, str(ann[last]))

        # a second reviewer in a second browser: the overlap pairs ann labelled come first
        _sign_in(bob_pages, s.url, "bob")
        for n in range(8):
            _, pred, truth = _pair(bob_pages)
            assert (pred, truth) in ann  # a pair of the overlap share, labelled by ann
            right = int(is_match(pred, truth))
            bob[(pred, truth)] = right if n % 4 else 1 - right  # bob disagrees on 2 of 8
            _press(bob_pages, str(bob[(pred, truth)]))
        bob_pages.refresh()
        wait(bob_pages, lambda x: _probe(x).get("shown", 0) >= 1)
        agreement = wait(bob_pages, lambda x: (t := x.find_element(By.ID, "agreement").text)
                          and "α" in t and t)
        estimate = bob_pages.find_element(By.ID, "estimate").text
        shot = tmp_path / "review.png"
        ann_pages.save_screenshot(str(shot))
    finally:
        s.stop()

    # the labels database, exported: exactly the hand labels
    out = tmp_path / "labels.jsonl"
    res = run_cli("labels", "export", db, "-o", out)
    assert res.returncode == 0, res.stderr
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(rows) == 30
    for r in rows:
        key = (r["pred"], r["truth"])
        want = [ann[key]] + ([bob[key]] if key in bob else [])
        assert r["label"] == want and r["reviewers"] == ["ann", "bob"][: len(want)]

    # Krippendorff's α on the page = the krippendorff package on the exported labels
    krippendorff = pytest.importorskip("krippendorff")
    keys = [(r["pred"], r["truth"]) for r in rows]
    data = np.array([[ann[k] for k in keys], [bob.get(k, np.nan) for k in keys]], dtype=float)
    alpha = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert f"α (nominal) {alpha:.3f} over 8 pairs" in agreement
    assert "τ̂ = " in estimate and "F1 lost by using τ̂: " in estimate
    assert "at most with 95 % probability" in estimate

    # calibrate from the database: τ and F1 at τ as scikit-learn computes them on the hand
    # labels (two reviewers who disagree: a tie, so not a match) and the table's scores
    cal = tmp_path / "cal"
    got = run_cli("calibrate", db, "--judge", f"table:{table}", "--out", cal, "--bootstrap",
                  "0", "--folds", "2")
    assert got.returncode == 0, got.stderr
    result = json.loads((cal / "calibration.json").read_text())
    entry = next(iter(result["judges"].values()))
    from sklearn.metrics import f1_score

    y = np.array([int(ann[k] and bob.get(k, ann[k])) for k in keys])
    scores = np.array([_score(k) for k in keys])
    distinct = np.unique(scores)
    candidates = (distinct[:-1] + distinct[1:]) / 2
    f1s = [f1_score(y, scores > c) for c in candidates]
    best = max(f1s)
    tau = max(c for c, f in zip(candidates, f1s, strict=True) if math.isclose(f, best))
    assert math.isclose(entry["tau"], tau, abs_tol=1e-12)
    assert math.isclose(entry["at_tau"]["f1"], best, abs_tol=1e-12)
    assert entry["pairs_scored"] == 30
    assert shot.stat().st_size > 10_000


def _score(key: tuple[str, str]) -> float:
    """The table judge's score of a pair of tests.review_server.item_strings."""
    pred, truth = key
    k = int(pred.split(" ")[1].split("-")[0])
    i = "αβγ".index(pred[-2])
    j = "αβγ".index(truth[-2])
    return cell_score(k, i, j)


EVIL = ['<img src=x onerror="window.__pwned=1">', "<script>window.__pwned=2</script>",
        "</script><script>window.__pwned=3</script>"]


def test_judged_text_is_inert(chrome: Any, tmp_path: Path) -> None:
    """Markup in judged strings and pool fields is shown as text, never run (the review page
    sets every text with textContent; its CSP allows only its own scripts)."""
    from selenium.webdriver.common.by import By

    pool = tmp_path / "pool.jsonl"
    table = tmp_path / "t.jsonl"
    pool.write_text("".join(json.dumps({"id": f"e{k}", "pred": e, "truth": EVIL[k - 1],
                                        "context": e}) + "\n" for k, e in enumerate(EVIL)))
    table.write_text("".join(json.dumps({"pred": e, "truth": EVIL[k - 1], "score": 0.3 * k})
                             + "\n" for k, e in enumerate(EVIL)))
    s = start([str(pool), "--labels", str(tmp_path / "l.db"), "--judge", f"table:{table}",
               "--queue", "all"], tmp_path)
    d = chrome
    try:
        _sign_in(d, s.url, "ann")
        for _ in range(3):
            _, pred, truth = _pair(d)
            assert pred in EVIL and truth in EVIL
            assert d.find_element(By.CSS_SELECTOR, "#context td").text == pred
            assert d.execute_script("return window.__pwned === undefined")
            assert not d.find_elements(By.CSS_SELECTOR, "#pair-card img, #pair-card script")
            _press(d, "0")
    finally:
        s.stop()
