"""``simjudge review`` latency: key press → next pair shown, with a 100,000-pair pool.

Target (issue 26): under 100 ms from the key press to the next pair drawn, with a 100k-pair
pool, measured in the browser with its own timing API (``performance.now()`` from the keydown
event's timestamp to the animation frame after the new pair is in the page; the page keeps
them in ``window.__simjudgeReview.timings``).

Setup: a pool of ``--pairs`` distinct pairs scored by a ``table:`` judge (the scores of a
seeded uniform draw, so the design has all 16 strata), served by a real ``simjudge review``
subprocess on loopback; headless Chromium (selenium) signs in and presses ``1``/``0``
``--labels`` times, each press after the previous pair is drawn (a reviewer's pace, minus the
reading), so every measure includes the label's SQLite commit, the design's choice of the next
pair, the reply and the drawing; τ̂'s estimate and the loss are recomputed in the background
after each label as in normal use. Also printed: the server's time per label request measured
from Python over HTTP (no browser), and the start-up time to a listening server.

    python benchmarks/bench_review.py [--pairs 100000] [--labels 150]

Needs selenium, chromium and chromedriver (``.ci/run`` installs them).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.browser import driver  # noqa: E402
from tests.review_server import start  # noqa: E402


def write_pool(folder: Path, n: int, seed: int = 0) -> tuple[Path, Path]:
    """``(pool, table)``: ``n`` distinct pairs and their uniform random scores."""
    rng = np.random.default_rng(seed)
    scores = rng.random(n)
    pool, table = folder / "pool.jsonl", folder / "table.jsonl"
    with pool.open("w") as p, table.open("w") as t:
        for k, s in enumerate(scores):
            p.write(json.dumps({"id": f"p{k}", "pred": f"pred {k}", "truth": f"gold {k}"}) + "\n")
            t.write(json.dumps({"pred": f"pred {k}", "truth": f"gold {k}",
                                "score": round(float(s), 6)}) + "\n")
    return pool, table


def pct(xs: list[float], q: float) -> float:
    """The ``q`` quantile (0–100) of ``xs``."""
    return float(np.percentile(xs, q))


def main() -> None:
    """Run the benchmark and print its table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--labels", type=int, default=150)
    args = ap.parse_args()
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        pool, table = write_pool(folder, args.pairs)
        t0 = time.perf_counter()
        server = start([str(pool), "--labels", str(folder / "labels.db"), "--judge",
                        f"table:{table}", "--cache-mode", "off"], folder, timeout=600)
        startup = time.perf_counter() - t0
        d = driver()
        try:
            d.get(server.url)
            d.find_element(By.ID, "reviewer-input").send_keys("bench\n")

            def shown() -> int:
                return int(d.execute_script("return window.__simjudgeReview.shown"))

            while shown() < 1:
                time.sleep(0.01)
            for k in range(args.labels):
                before = shown()
                ActionChains(d).send_keys("1" if k % 3 == 0 else "0").perform()
                while shown() == before:
                    time.sleep(0.002)
            time.sleep(0.2)
            ms = [float(x) for x in d.execute_script("return window.__simjudgeReview.timings")]
            stats = server.call("GET", "/api/stats")[1]
        finally:
            d.quit()
        # the server alone: label requests from Python, one after another
        http_ms = []
        pair = server.post("/api/next", {"reviewer": "api"})["pair"]
        for k in range(args.labels):
            t = time.perf_counter()
            pair = server.label("api", pair, k % 2)["pair"]
            http_ms.append(1000 * (time.perf_counter() - t))
        server.stop()
    est = stats["estimate"]
    print(f"pool {args.pairs:,} pairs; {args.labels} labels by keyboard in headless Chromium; "
          f"server up in {startup:.1f} s (scoring the pool with the table judge included)")
    print(f"{'measure':<44} {'median':>8} {'p95':>8} {'max':>8}")
    print(f"{'key press -> next pair drawn (browser, ms)':<44} {statistics.median(ms):8.1f} "
          f"{pct(ms, 95):8.1f} {max(ms):8.1f}")
    print(f"{'label request -> reply (Python HTTP, ms)':<44} {statistics.median(http_ms):8.1f} "
          f"{pct(http_ms, 95):8.1f} {max(http_ms):8.1f}")
    print(f"presses measured: {len(ms)}; under 100 ms: {sum(x < 100 for x in ms)}; estimate "
          f"after {est.get('labels')} labels: τ̂ {est.get('tau')}, loss {est.get('loss')}")


if __name__ == "__main__":
    main()
