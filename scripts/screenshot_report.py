"""Regenerate ``docs/img/report.png``: the audit page of a real run, in headless Chromium.

Usage::

    simjudge eval examples/glossary_en_zh.jsonl --judge local --out /tmp/glossary-local
    python scripts/screenshot_report.py /tmp/glossary-local [docs/img/report.png]

The page is shown at 1280×800 CSS pixels from its top (run header, judges, metrics, queues,
the first heatmap), with the first item's first chosen semantic match clicked (its verdict in
the right-hand panel). Needs
selenium, chromium and chromedriver (Debian: ``apt-get install chromium chromium-driver``)
and a CJK font, or Chinese renders as boxes (Debian: ``fonts-noto-cjk`` or
``fonts-wqy-zenhei``).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    """Screenshot ``argv[0]/report.html`` to ``argv[1]`` (default docs/img/report.png); 2 on bad
    usage."""
    if not argv or not (Path(argv[0]) / "report.html").is_file():
        print("usage: screenshot_report.py RUN_DIR [OUT.png]  (RUN_DIR holds report.html)",
              file=sys.stderr)
        return 2
    out = Path(argv[1]) if len(argv) > 1 else ROOT / "docs" / "img" / "report.png"
    sys.path.insert(0, str(ROOT))
    from tests.browser import driver

    d = driver()
    try:
        d.set_window_size(1280, 800)
        inner = d.execute_script("return [window.outerWidth - window.innerWidth, "
                                 "window.outerHeight - window.innerHeight]")
        d.set_window_size(1280 + inner[0], 800 + inner[1])  # the viewport, not the window
        d.get((Path(argv[0]).resolve() / "report.html").as_uri())
        time.sleep(0.8)
        d.execute_script("document.getElementById('item-0').scrollIntoView();")
        time.sleep(0.5)  # its heatmap is drawn when it comes into view
        d.execute_script("""
            const cells = Array.from(document.querySelectorAll('rect.cell[data-item="0"]'));
            const best = cells.filter(c => c.getAttribute('stroke') === '#2957a4')[0] || cells[0];
            best.dispatchEvent(new MouseEvent('click', {bubbles: true}));
            window.scrollTo(0, 0);""")
        time.sleep(0.4)
        d.save_screenshot(str(out))
    finally:
        d.quit()
    print(f"written {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
