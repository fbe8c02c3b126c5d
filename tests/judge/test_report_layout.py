"""The audit page's layout in headless Chromium: no sideways overflow with long CJK and URL
strings at 1280 and 800 px, and a blind page without the metrics table, the judge accounting
or the queues (all judge-derived; they used to show empty and counting 0).

Skipped where selenium, chromium or chromedriver is missing (:mod:`tests.browser`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from judge.cli import app
from tests.browser import open_report, show_item, wait

runner = CliRunner()
CJK = "这是一个非常长的中文字符串没有任何空格用来测试页面是否会横向溢出" * 4  # 128 chars, no break
URL = "https://example.com/" + "a-very-long-path-segment/" * 12 + "?q=" + "x" * 80


def _run(tmp_path: Path) -> Path:
    rows = [{"id": "long-" + "编号" * 30, "query": URL + " " + CJK,
             "pred": [CJK, URL, "短"], "truth": [CJK + "！", URL + "&y=1", "short"]},
            {"id": "b", "pred": ["苹果"], "truth": ["apple " + URL]}]
    data = tmp_path / "long.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    res = runner.invoke(app, ["eval", str(data), "--judge", "lexical", "--bootstrap", "0",
                              "--out", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    return tmp_path / "run"


WIDTHS = """return [document.documentElement.scrollWidth, window.innerWidth,
  document.getElementById('detail').scrollWidth, document.getElementById('detail').clientWidth]"""


def test_no_sideways_overflow_at_1280_and_800_px(tmp_path: Path, chrome: Any) -> None:
    run = _run(tmp_path)
    d = chrome
    open_report(d, run / "report.html")
    for width in (1280, 800):
        d.set_window_size(width, 800)
        wait(d, lambda x, w=width: x.execute_script("return window.outerWidth") == w,
             what=f"a {width} px window")
        # the detail panel filled with the longest pair (the first cell of item 0); a click's
        # handler draws it at once, and reading the widths lays the page out first
        show_item(d, 0)
        d.execute_script("document.querySelector('rect.cell[data-item=\"0\"]')"
                         ".dispatchEvent(new MouseEvent('click', {bubbles: true}))")
        assert CJK in d.find_element("id", "detail-body").text.replace("\n", "")
        page, inner, panel, panel_box = d.execute_script(WIDTHS)
        assert inner <= width and page <= inner, (width, page, inner)
        # the panel itself: no content wider than its box (before: 601 px in 429)
        assert panel <= panel_box, (width, panel, panel_box)


def test_blind_page_shows_no_metrics_and_no_queues(tmp_path: Path, chrome: Any) -> None:
    run = _run(tmp_path)
    res = runner.invoke(app, ["audit", str(run), "--blind", "--out", str(tmp_path / "b.html")])
    assert res.exit_code == 0, res.output
    open_report(chrome, tmp_path / "b.html")
    # heatmap cells are drawn as their item scrolls into view: wait for item 0's
    show_item(chrome, 0)
    shown = chrome.execute_script("""return {
            headings: Array.from(document.querySelectorAll('#summary h4')).map(h => h.textContent),
            metricRows: document.querySelectorAll('#summary tr[data-metric]').length,
            tabs: Array.from(document.querySelectorAll('#tabs .tab')).map(t => t.textContent),
            accounting: !!document.getElementById('accounting'),
            cells: document.querySelectorAll('rect.cell').length,
            banner: !document.getElementById('blind-banner').classList.contains('hidden')}""")
    assert shown["headings"] == ["Judges"]  # no "Metrics"
    assert shown["metricRows"] == 0 and shown["tabs"] == [] and not shown["accounting"]
    assert shown["banner"] and shown["cells"] > 0  # still a page to label on


def test_the_normal_page_keeps_metrics_and_queues(tmp_path: Path, chrome: Any) -> None:
    """The counterpart: the same run's own page has them."""
    run = _run(tmp_path)
    open_report(chrome, run / "report.html")
    headings = chrome.execute_script(
        "return Array.from(document.querySelectorAll('#summary h4')).map(h => h.textContent)")
    tabs = chrome.execute_script(
        "return Array.from(document.querySelectorAll('#tabs .tab')).map(t => t.dataset.q)")
    assert headings == ["Judges", "Metrics"]
    assert tabs == ["all", "near", "disagree", "failures", "unmatched_pred", "unmatched_truth"]


def test_pages_name_cjk_fonts() -> None:
    """Chinese renders with an installed CJK font (Debian: fonts-noto-cjk, fonts-wqy-zenhei)
    whichever the system's default sans is: the pages' font lists name them."""
    from importlib import resources

    for pkg, name in (("judge.runs", "report.html.jinja"), ("judge.review", "review.css")):
        css = (resources.files(pkg) / name).read_text("utf-8")
        body = css[css.index("body{"):].split("}", 1)[0]
        for font in ('"Noto Sans CJK SC"', '"WenQuanYi Zen Hei"', '"Microsoft YaHei"',
                     '"PingFang SC"'):
            assert font in body, (name, font)
        assert body.index(font) < body.index("sans-serif")


def test_a_60k_unbroken_string_is_cut_and_hidden_characters_marked(tmp_path: Path,
                                                                   chrome: Any) -> None:
    # issue 36, item 14: an unbroken 60,000-character string froze the page; a bidi override
    # (U+202E) and a zero-width space (U+200B) showed as nothing. Now the text is cut at 2,000
    # characters with an "expand" control, and each hidden character is a visible ⟨U+XXXX⟩
    huge = "x" * 60_000
    sneaky = "pay\u202eexe.txt" + "a\u200bb"
    rows = [{"id": "big", "pred": [huge, sneaky], "truth": ["y" * 10, "pay.txt"]}]
    data = tmp_path / "big.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    res = runner.invoke(app, ["eval", str(data), "--judge", "lexical", "--bootstrap", "0",
                              "--max-chars", "0", "--out", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    d = chrome
    # a click draws the detail panel at once; its long texts are cut by the page's
    # MutationObserver (a microtask): waited for all the same
    open_report(d, tmp_path / "run" / "report.html")
    show_item(d, 0)
    d.execute_script("document.querySelector('rect.cell[data-item=\"0\"]')"
                     ".dispatchEvent(new MouseEvent('click', {bubbles: true}))")
    body = d.find_element("id", "detail-body")
    text = wait(d, lambda x: (t := body.text) and "more characters" in t and t,
                what="the cut text")
    assert "x" * 2000 in text and "x" * 2001 not in text.replace("\n", "")
    assert "58,000 more characters" in text
    longest = d.execute_script(
        "return Math.max(...[...document.querySelectorAll('main *, #detail *')]"
        ".map(e => [...e.childNodes].filter(n => n.nodeType === 3)"
        ".reduce((m, n) => Math.max(m, n.nodeValue.length), 0)))")
    # no text node on the page holds the whole string: 2,000 characters at most, plus a
    # tooltip's "… (58,000 more characters)"
    assert longest <= 2000 + len(" … (58,000 more characters)")
    d.execute_script("document.querySelector('#detail-body button.expand').click()")
    wait(d, lambda x: "x" * 60_000 in body.text.replace("\n", ""),  # expanded on request
         what="the whole text")
    d.execute_script("document.querySelector('rect.cell[data-item=\"0\"][data-i=\"1\"]')"
                     "?.dispatchEvent(new MouseEvent('click', {bubbles: true}))")
    marks = wait(d, lambda x: x.execute_script(
        "return [...document.querySelectorAll('.invisible')].map(e => e.textContent)"),
        what="marked hidden characters")
    assert "⟨U+202E⟩" in marks and "⟨U+200B⟩" in marks
