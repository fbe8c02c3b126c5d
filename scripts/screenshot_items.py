"""Regenerate ``docs/img/review-items.png``: ``simjudge review RUN --items`` in headless
Chromium, 40 items checked from the keyboard, and the labels database they leave.

Usage::

    simjudge eval examples/am2ico_items.jsonl --judge local --tau 0.7 --out /tmp/am2ico
    python scripts/screenshot_items.py /tmp/am2ico examples/am2ico_items_human.jsonl \\
        /tmp/am2ico-labels.db [docs/img/review-items.png]

The reviewer played here is the AM2iCo annotators (``examples/am2ico_items_human.jsonl``: the
pairs they labelled "same meaning"): for each item the page shows, their pairs are linked with
the page's keys (``1``–``9`` a prediction, ``a``–``z`` its gold) and the item is submitted
with Enter. The design is ``stratified``. The screenshot is of the 40th item with its links
typed, before Enter, at 1280×800 CSS pixels. Needs selenium, chromium, chromedriver and a CJK
font (see ``scripts/screenshot_report.py``).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ITEMS = 40


def _wait(d: Any, condition: Any, timeout: float = 60.0) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = condition(d)
        if got:
            return got
        time.sleep(0.05)
    raise TimeoutError("the page did not get there in time")


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = int(s.getsockname()[1])
    s.close()
    return port


def main(argv: list[str]) -> int:
    """Label 40 items of ``argv[0]`` as ``argv[1]`` says, into the labels database
    ``argv[2]``; screenshot to ``argv[3]`` (default docs/img/review-items.png); 2 on bad
    usage."""
    if len(argv) < 3 or not (Path(argv[0]) / "summary.json").is_file():
        print("usage: screenshot_items.py RUN_DIR HUMAN.jsonl LABELS.db [OUT.png]",
              file=sys.stderr)
        return 2
    run, human_file, db = Path(argv[0]), Path(argv[1]), Path(argv[2])
    out = Path(argv[3]) if len(argv) > 3 else ROOT / "docs" / "img" / "review-items.png"
    human = {r["id"]: r["matches"] for r in map(json.loads, human_file.read_text(
        "utf-8").splitlines())}
    sys.path.insert(0, str(ROOT))
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from tests.browser import driver

    port = _free_port()
    simjudge = str(Path(sys.executable).with_name("simjudge"))
    proc = subprocess.Popen([simjudge, "review", str(run), "--items",
                             "--design", "stratified", "--labels", str(db), "--port",
                             str(port)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    while "http://" not in proc.stdout.readline():
        if proc.poll() is not None:
            return 1
    d = driver()
    try:
        d.set_window_size(1280, 800)
        inner = d.execute_script("return [window.outerWidth - window.innerWidth, "
                                 "window.outerHeight - window.innerHeight]")
        d.set_window_size(1280 + inner[0], 800 + inner[1])
        d.get(f"http://127.0.0.1:{port}/")
        _wait(d, lambda x: x.find_element(By.ID, "reviewer-input")).send_keys("ann\n")
        probe = "return window.__simjudgeItems || {};"
        for n in range(1, ITEMS + 1):
            _wait(d, lambda x, n=n: x.execute_script(probe).get("shown", 0) >= n)
            item_id = d.execute_script("return document.body.dataset.item;")
            preds = [li.text.split("\n")[0] for li in d.find_elements(By.CSS_SELECTOR,
                                                                       "#preds li")]
            golds = [li.text for li in d.find_elements(By.CSS_SELECTOR, "#golds li")]
            keys = "".join(f"{preds.index(p) + 1}{chr(97 + golds.index(t))}"
                           for p, t in human[item_id])
            ActionChains(d).send_keys(keys).perform()
            if n == ITEMS:
                time.sleep(0.6)  # the links drawn, the live estimate refreshed
                d.save_screenshot(str(out))
            ActionChains(d).send_keys(Keys.ENTER).perform()
            _wait(d, lambda x, n=n: x.execute_script(probe).get("submitted", 0) >= n)
    finally:
        d.quit()
        proc.terminate()
        proc.wait(10)
    print(f"{ITEMS} items labelled into {db}; screenshot written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
