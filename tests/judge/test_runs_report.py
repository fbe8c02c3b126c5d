"""``simjudge audit``: the HTML/Markdown/JSONL reports, escaping, size, and a real browser.

The report asks the run's task for each item's view and heatmaps; the unit tests below build
records by hand (tests/run_records.py) and a made-up task with two labelled heatmaps per item,
so the queues and renderings are checked against values derived by hand.

The browser tests drive Debian's chromium through chromedriver (installed by ``.ci/run``) with
selenium; each skips, before doing any work, where selenium, chromium or chromedriver cannot be
found (the ``browser`` fixture).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.record.itemrows import Match
from judge.record.store import record_from_parts
from judge.runs.audit import report_data
from judge.runs.report import render_html, render_jsonl, render_markdown
from judge.tasks import registry
from judge.tasks.base import HeatmapView, Task
from tests.browser import clean, open_report, show_item, wait
from tests.conftest import EXAMPLES, REPO, shared_file
from tests.run_records import judgment_record, selection_record, selection_verdicts

runner = CliRunner()


def _eval(*args: str | Path) -> None:
    res = runner.invoke(app, ["eval", *map(str, args)], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output


def _data(tmp_path: Path, rows: list[dict]) -> Path:
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return path


EVIL = ['<script>window.__pwned=1</script>', '<img src=x onerror="window.__pwned=2">']


def test_eval_writes_report_and_judged_text_is_escaped(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = _data(tmp_path, [{"id": "x", "pred": EVIL, "truth": ["script", "image"]}])
    _eval(data, "--id-field", "id", "--judge", "lexical", "--out", tmp_path / "run",
          "--bootstrap", "0")
    html = (tmp_path / "run" / "report.html").read_text()
    # the only <script> elements are the page's two; judged text is JSON with < > & escaped
    assert len(re.findall(r"<script", html)) == 2
    assert "window.__pwned" in html and "<script>window.__pwned" not in html
    assert "\\u003cscript\\u003ewindow.__pwned=1\\u003c/script\\u003e" in html
    assert "onerror=" not in html.split('id="data">')[0]
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")  # no network


def test_markdown_and_jsonl(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = _data(tmp_path, [{"id": "a", "pred": ["User Login", "Report"],
                             "truth": ["user login", "Audit"]}])
    _eval(data, "--id-field", "id", "--judge", "lexical", "--out", tmp_path / "run",
          "--bootstrap", "0")
    for fmt in ("md", "jsonl"):
        res = runner.invoke(app, ["audit", str(tmp_path / "run"), "--format", fmt])
        assert res.exit_code == 0, res.output
    md = (tmp_path / "run" / "report.md").read_text()
    assert "- exact: 'User Login' = 'user login'" in md
    assert "- unmatched prediction: 'Report'" in md and "- unmatched gold: 'Audit'" in md
    rows = [json.loads(x) for x in (tmp_path / "run" / "report.jsonl").read_text().splitlines()]
    assert len(rows) == 4  # 2 × 2 cells
    exact = [r for r in rows if r["exact"]]
    assert len(exact) == 1 and exact[0]["verdicts"] == []  # exact: no judge call
    judged = [r for r in rows if not r["exact"]]
    assert all(r["verdicts"][0]["judge_id"] == "lexical" for r in judged)
    res = runner.invoke(app, ["audit", str(tmp_path / "run"), "--format", "pdf"])
    assert res.exit_code == 2 and "unknown format" in res.output


def test_ten_thousand_pairs_stay_small(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rows = [{"id": f"item{k:03d}", "pred": [f"predicted entity {k}-{i}" for i in range(10)],
             "truth": [f"gold entity {k}-{j}" for j in range(10)]} for k in range(100)]
    _eval(_data(tmp_path, rows), "--id-field", "id", "--judge", "lexical", "--out",
          tmp_path / "run", "--bootstrap", "0")
    size = (tmp_path / "run" / "report.html").stat().st_size
    # 10,000 judged pairs: 4.3 MB of page data, embedded gzip-compressed (measured 0.11 MB)
    assert size < 1_000_000, size


def _browse(d: Any, report: Path, shot: Path | None = None) -> dict:  # type: ignore[type-arg]
    """What the audit page ``report`` shows in the browser ``d``: rectangles drawn at load,
    the heatmap labels of item 0, the rationales of its first two judged cells after a click
    on each (the first then marked a match, the second no match, each with a note), the
    exported overrides, and how many items a search for nothing hides."""
    from selenium.webdriver.common.by import By

    open_report(d, report)
    # the heatmaps near the viewport, drawn once the page has laid itself out
    out: dict = {"rects_at_load": wait(d, lambda x: len(x.find_elements(By.CSS_SELECTOR,
                                                                         "rect.cell")))}
    show_item(d, 0)
    # read in one call each (a round trip per element costs seconds on a page of 200 items)
    out["labels"] = d.execute_script(
        "return [...document.querySelectorAll('svg text')].map(t => t.textContent)")
    judged = d.execute_script(  # item 0's cells but the exact ones (green outline)
        "return [...document.querySelectorAll('rect.cell[data-item=\"0\"]')]"
        ".filter(c => c.getAttribute('stroke') !== '#1b7f3b')")
    for k, cell in enumerate(judged[:2]):
        # a click draws the cell's detail at once (the page's handler is synchronous)
        d.execute_script(
            "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", cell)
        out.setdefault("rationales", []).append(
            [r.text for r in d.find_elements(By.CSS_SELECTOR, ".rationale")])
        note = d.find_element(By.ID, "ov-note")
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", note)
        note.send_keys(f"checked by hand {k}")
        button = d.find_element(By.ID, "ov-match" if k == 0 else "ov-nomatch")
        d.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
        button.click()
        wait(d, lambda x, k=k: len(x.find_elements(By.CSS_SELECTOR, "#ov-list li")) == k + 1,
             what=f"override {k + 1} in the list")
    export = d.find_element(By.ID, "export-btn")
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", export)
    export.click()
    out["export"] = d.find_element(By.ID, "export-text").get_attribute("value")
    out["search_hidden"] = d.execute_script(
        "const s=document.getElementById('search'); s.value='zzz-no-such-item';"
        "s.dispatchEvent(new Event('input')); return document.querySelectorAll("
        "'section.item.hidden').length")
    # nothing injected ran: not in the heatmaps, nor in the clicked cells' detail panels
    out["pwned"] = d.execute_script("return window.__pwned === undefined ? null : 1")
    if shot is not None:
        d.execute_script("const s=document.getElementById('search'); s.value='';"
                         "s.dispatchEvent(new Event('input'));")
        show_item(d, 0)
        d.save_screenshot(str(shot))
    return out


def test_browser_escaping(tmp_path: Path, chrome: Any) -> None:
    data = _data(tmp_path, [{"id": "x", "pred": EVIL, "truth": ["script", "image"]}])
    _eval(data, "--id-field", "id", "--judge", "lexical", "--out", tmp_path / "run",
          "--bootstrap", "0")
    seen = _browse(chrome, tmp_path / "run" / "report.html")
    assert seen["pwned"] is None  # nothing injected ran
    assert any("<script>window.__pwned" in t for t in seen["labels"])  # shown as text


def _overrides_roundtrip(d: Any, tmp_path: Path, run: Path, data_args: list[str | Path],
                         shot: Path | None = None) -> None:
    clean(d)  # a browser that has not seen the page: no overrides kept in its storage
    seen = _browse(d, run / "report.html", shot)
    assert all(len(r) >= 1 and all(x.strip() for x in r) for r in seen["rationales"])
    assert seen["search_hidden"] > 0
    lines = [json.loads(x) for x in seen["export"].splitlines()]
    assert [x["label"] for x in lines] == [1, 0] and [x["score"] for x in lines] == [1.0, 0.0]
    ov = tmp_path / "overrides.jsonl"
    ov.write_text(seen["export"])
    # the table judge reads it: the overridden pairs get the human scores in that item
    _eval(*data_args, "--judge", f"table:{ov}", "--out", tmp_path / "human", "--bootstrap", "0")
    verdicts = [json.loads(x) for x in (tmp_path / "human" / "verdicts.jsonl").read_text()
                .splitlines()]
    got = {(v["pred"], v["truth"]): v["score"] for v in verdicts}
    for x in lines:
        assert got[(x["pred"], x["truth"])] == x["score"]
    # and calibrate reads it as labels
    res = runner.invoke(app, ["calibrate", str(ov), "--judge", "lexical", "--out",
                              str(tmp_path / "cal"), "--bootstrap", "10", "--folds", "2"])
    assert res.exit_code in (0, 2), res.output
    assert "field 'label'" not in res.output and "field 'pred'" not in res.output


def test_browser_audit_ifpug_local_run(tmp_path: Path, chrome: Any) -> None:
    data = shared_file("ifpug/ilf_runs.jsonl")
    args: list[str | Path] = [data, "--where", "task=ilf_selection", "--pred-field",
                              "final_answer", "--truth-field", "ground_truth", "--id-field",
                              "run,doc_id", "--cache-dir", tmp_path / "c"]
    _eval(*args, "--judge", "local", "--out", tmp_path / "run", "--bootstrap", "100")
    shot = tmp_path / "report.png"  # docs/report.png is taken by scripts/screenshot_report.py
    _overrides_roundtrip(chrome, tmp_path, tmp_path / "run", args, shot)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_browser_audit_panel_run_shows_every_member(tmp_path: Path, chrome: Any) -> None:
    data = EXAMPLES / "glossary_en_zh.jsonl"
    args: list[str | Path] = [data, "--id-field", "id", "--cache-dir", tmp_path / "c"]
    _eval(*args, "--judge", "local", "--judge", "lexical", "--out", tmp_path / "run",
          "--bootstrap", "0")
    seen = _browse(chrome, tmp_path / "run" / "report.html")
    # each clicked cell lists local, lexical and the panel's vote
    assert all(len(r) == 3 for r in seen["rationales"])
    assert any("mean vote of 2/2 ok members" in x for r in seen["rationales"] for x in r)
    _overrides_roundtrip(chrome, tmp_path, tmp_path / "run", args)


def test_lazy_rendering(tmp_path: Path, chrome: Any) -> None:
    rows = [{"id": f"i{k:03d}", "pred": [f"p{k} {i}" for i in range(5)],
             "truth": [f"t{k} {j}" for j in range(5)]} for k in range(200)]
    _eval(_data(tmp_path, rows), "--id-field", "id", "--judge", "lexical", "--out",
          tmp_path / "run", "--bootstrap", "0")
    seen = _browse(chrome, tmp_path / "run" / "report.html")
    assert 0 < seen["rects_at_load"] < 200 * 25  # only items near the viewport are drawn


def test_large_page_data_is_embedded_compressed(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import base64
    import gzip

    from judge.record.store import load_run
    from judge.runs import pagedata, report

    rows = [{"id": f"i{k}", "pred": [f"p{k} {i}" for i in range(4)],
             "truth": [f"t{k} {j}" for j in range(4)]} for k in range(50)]
    _eval(_data(tmp_path, rows), "--id-field", "id", "--judge", "lexical", "--out",
          tmp_path / "run", "--bootstrap", "0")
    record = load_run(tmp_path / "run")
    plain = report.render_html(record)
    assert 'id="data-gz"' not in plain  # a small page keeps plain JSON
    monkeypatch.setattr(pagedata, "COMPRESS_OVER", 0)
    monkeypatch.setattr(pagedata, "SHARD_VERDICTS", 300)
    packed = report.render_html(record)
    assert 'id="data-gz"' in packed and 'id="data">' not in packed

    def blocks(marker: str) -> list[Any]:
        found = [b.split("</script>", 1)[0] for b in packed.split(marker)[1:]]
        return [json.loads(gzip.decompress(base64.b64decode(b)).decode("utf-8"))
                for b in found]

    main, = blocks('id="data-gz">')
    shards = blocks('class="verdicts-gz">')
    data_plain = json.loads(plain.split('id="data">', 1)[1].split("</script>", 1)[0])
    # 50 items × 16 distinct lexical pairs = 800 verdicts: shards of 300, 300 and 200
    assert [len(s) for s in shards] == [300, 300, 200] and main["verdicts"] == []
    # the same page data, compressed: the shards joined are the plain page's verdicts
    assert {**main, "verdicts": [v for s in shards for v in s]} == data_plain
    assert len(packed) < len(plain)
    assert report.render_html(record) == packed  # deterministic (no gzip timestamp)


def test_verdict_chunks_embed_as_single_entries(monkeypatch: pytest.MonkeyPatch) -> None:
    import base64
    import gzip

    from judge.runs import pagedata

    # chunk_size: the largest divisor of SHARD_VERDICTS up to 256 (by hand: 50,000 = 250 × 200;
    # 300's divisors up to 256 end at 150; 7 is prime)
    assert pagedata.chunk_size() == 250
    entries = [json.dumps([f"k{k}", {"score": k / 10}]) for k in range(20)]

    def page(chunked: bool, shard: int, compress_over: int) -> tuple[str, list[Any]]:
        monkeypatch.setattr(pagedata, "SHARD_VERDICTS", shard)
        monkeypatch.setattr(pagedata, "COMPRESS_OVER", compress_over)
        size = pagedata.chunk_size() if chunked else 1
        p = pagedata.Payload()
        for k in range(0, len(entries), size):
            p.verdicts(",".join(entries[k:k + size]), len(entries[k:k + size]))
        p.write(',"near":0.1')
        html = "".join(p.html())
        shards = [json.loads(gzip.decompress(base64.b64decode(b.split("</script>")[0])))
                  for b in html.split('class="verdicts-gz">')[1:]]
        return html, shards

    for shard, compress_over in ((300, 10**9), (6, 0), (7, 0)):
        one, one_shards = page(False, shard, compress_over)
        many, many_shards = page(True, shard, compress_over)
        assert many_shards == one_shards and one.count("<script") == many.count("<script")
        if compress_over:  # plain JSON: the same bytes
            assert many == one and json.loads(one.split('id="data">')[1].split("<")[0])[
                "verdicts"] == [json.loads(e) for e in entries]
    assert pagedata.chunk_size() == 7 and [len(s) for s in many_shards] == [7, 7, 6]
    monkeypatch.setattr(pagedata, "SHARD_VERDICTS", 6)
    p = pagedata.Payload()
    p.verdicts(",".join(entries[:4]), 4)
    with pytest.raises(ValueError, match="cross a shard boundary: 2 fit"):
        p.verdicts(",".join(entries[4:8]), 4)


def test_gzip_in_a_thread_writes_the_stream_it_writes_alone(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the page's gzip is compressed in a worker thread (zlib releases the GIL), in the order fed,
    # at most AHEAD pieces ahead: the same bytes as compressing in the caller, which inflate
    # to the text fed. 48 pieces of ~44 KB of random base64 text (zlib emits output for each:
    # an order mixed up shows) against FEED 32 KB: the AHEAD bound (8) is passed many times.
    import base64
    import gzip
    import random
    from concurrent.futures import ThreadPoolExecutor

    from judge.runs import pagedata

    monkeypatch.setattr(pagedata.Gzip, "FEED", 1 << 15)
    rng = random.Random(7)
    texts = [f'["é{k}",' + base64.b64encode(rng.randbytes(33_000)).decode() + '"]'
             for k in range(48)]

    def stream(pool: ThreadPoolExecutor | None) -> str:
        z = pagedata.Gzip(pool)
        for k, t in enumerate(texts):
            z.write(t if k % 2 else t.encode("utf-8"))  # str and bytes alike
        return "".join(z.base64())

    with ThreadPoolExecutor(1) as pool:
        threaded = stream(pool)
    alone = stream(None)
    assert threaded == alone
    assert gzip.decompress(base64.b64decode(threaded)).decode("utf-8") == "".join(texts)


def test_browser_compressed_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 chrome: Any) -> None:
    from judge.runs import pagedata

    monkeypatch.setattr(pagedata, "COMPRESS_OVER", 0)  # every page compressed
    rows = [{"id": "i0", "pred": ["Job Information", "Login"], "truth": ["job info", "Logout"]}]
    _eval(_data(tmp_path, rows), "--id-field", "id", "--judge", "lexical", "--out",
          tmp_path / "run", "--bootstrap", "0")
    assert 'id="data-gz"' in (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    seen = _browse(chrome, tmp_path / "run" / "report.html")
    # the page inflated its data: the heatmap's labels, a clicked cell's rationale, export
    text = " ".join(seen["labels"])
    assert all(s in text for s in ("Job Information", "Login", "job info", "Logout")), text
    assert seen["rationales"] and seen["rationales"][0]
    assert [json.loads(x)["id"] for x in seen["export"].splitlines()] == ["i0", "i0"]


# ------------------------------------------------------------------ reports of hand-built records
def test_report_data_of_a_selection_record() -> None:
    d = report_data(selection_record())
    assert d["pairs"] and d["header"]["tau"] == 0.7 and d["header"]["uses_tau"]
    a = d["items"][0]
    assert a["content"] == {} and a["metrics"] == {
        "n_pred": 2, "n_truth": 2, "n_exact": 1, "tp_fuzzy": 1.75, "precision": 0.875,
        "recall": 0.875, "f1": 0.875, "cells_without_verdict": 0}
    assert a["heatmaps"] == [{"label": "", "pred": ["User Login", "Report"],
                              "truth": ["user login", "Reports list"],
                              "scores": [[1.0, 0.1], [0.2, 0.75]], "exact": [[0, 0]],
                              "matched": [[1, 1]]}]
    # near τ 0.7 ± 0.1 (exact cells left out): a's Report ↔ Reports list 0.75, b's Audit ↔
    # Audit trail 0.65; the failed Audit ↔ Budget verdict; b's prediction and both gold unmatched
    assert d["queues"] == {"near": [[0, 0, 1, 1], [1, 0, 0, 0]], "disagree": [],
                           "failures": [[1, 0, 0, 1]], "asymmetric": [], "unstable": [],
                           "human_ne_judge": [],
                           "unmatched_pred": [[1, 0, 0]],
                           "unmatched_truth": [[1, 0, 0], [1, 0, 1]]}
    assert report_data(selection_record(), near=0.04)["queues"]["near"] == []  # 0.05 away
    assert d["item_int_metrics"] == ["cells_without_verdict", "n_exact", "n_pred", "n_truth"]
    with pytest.raises(ValueError, match="near"):
        report_data(selection_record(), near=1.5)


def test_panel_members_on_both_sides_of_tau_disagree() -> None:
    rec = selection_record()
    verdicts = [*selection_verdicts(),
                *({"pred": "Report", "truth": "Reports list", "score": s, "judge_id": m,
                   "member_of": "panel"} for m, s in (("m1", 0.9), ("m2", 0.5)))]
    rec = record_from_parts(rec.config.to_row(), rec.summary.to_row(), rec.item_rows(),
                            verdicts)
    d = report_data(rec)
    assert d["queues"]["disagree"] == [[0, 0, 1, 1]]  # 0.9 > τ 0.7 ≥ 0.5
    assert [v["judge_id"] for v in d["verdicts"]['[null,"Report","Reports list"]']] == [
        "lexical", "m1", "m2"]


def test_markdown_and_jsonl_of_a_selection_record() -> None:
    md = render_markdown(selection_record()).splitlines()
    for line in ("- task: selection; data: d.jsonl; τ = 0.7", "## Near τ (±0.1) (2)",
                 "- a: 'Report' ↔ 'Reports list' (0.75)", "- b: 'Audit' ↔ 'Audit trail' (0.65)",
                 "## Judges disagree (0)", "## Judge failures (1)",
                 "- b: 'Audit' ↔ 'Budget' (–)", "- exact: 'User Login' = 'user login'",
                 "- matched: 'Report' ↔ 'Reports list' (0.75)",
                 "- unmatched prediction: 'Audit'", "- unmatched gold: 'Budget'",
                 "| micro_f1 | 0.5000 |  |"):
        assert line in md, line
    rows = [json.loads(x) for x in render_jsonl(selection_record()).splitlines()]
    assert len(rows) == 4 + 2  # a 2×2 cells, b 1×2
    exact = rows[0]
    assert (exact["pred"], exact["truth"], exact["exact"], exact["verdicts"]) == (
        "User Login", "user login", True, [])
    fail = rows[-1]
    assert (fail["id"], fail["truth"], fail["score"], fail["flags"]) == (
        "b", "Budget", None, ["failures"])
    assert fail["verdicts"][0]["outcome"] == "parse_error" and "label" not in fail


def test_items_without_heatmaps_show_their_view() -> None:
    rec = judgment_record([True, False])
    d = report_data(rec)
    assert not d["pairs"] and all(not q for q in d["queues"].values())
    assert d["items"][1] == {"id": "q1", "source": "j.jsonl:2", "query": "question 1",
                             "content": {"kind": "boolean", "pred": False, "truth": True,
                                         "correct": False},
                             "heatmaps": [], "metrics": {}}
    md = render_markdown(rec)
    assert "### q1\n- query: 'question 1'\n- prediction: false · gold: true → wrong\n" in md
    assert "Near τ" not in md and "τ =" not in md
    rows = [json.loads(x) for x in render_jsonl(rec).splitlines()]
    assert rows[0] == {"id": "q0", "source": "j.jsonl:1", "task": "judgment",
                       "query": "question 0", "kind": "boolean", "pred": True, "truth": True,
                       "correct": True, "metrics": {}}


class _TwoTypes(Task):
    """A made-up task with two labelled heatmaps per item (as spans draws one per type)."""

    name: ClassVar[str] = "two-types"
    uses_tau: ClassVar[bool] = True

    def matrices(self, row: Mapping[str, Any]) -> list[HeatmapView]:
        return [HeatmapView("PER", ["Ann"], ["Anne"], [[0.72]],
                            [Match(pred_index=0, truth_index=0, score=0.72,
                                   kind="judged", judge_id="j")]),
                HeatmapView("LOC", ["Paris", "Rome"], ["Paris"], [[1.0], [0.3]],
                            [Match(pred_index=0, truth_index=0, score=1.0,
                                   kind="exact", judge_id=None)])]

    def view(self, row: Mapping[str, Any]) -> dict[str, Any]:
        return {"kind": "texts", "pred": "Ann went to Paris and Rome", "truth": ["Anne, Paris"]}

    def markdown(self, content: Mapping[str, Any]) -> list[str]:
        return [f"- sentence: {content['pred']}"]

    def score(self, items: Any, judged: Any, params: Any) -> tuple[list[dict[str, Any]],
                                                                  dict[str, Any]]:
        return [{"id": i.id, "source": i.source} for i in items], {}  # the report needs none

    def metrics_from_rows(self, rows: Any) -> dict[str, float]:
        return {}


def test_queues_cover_every_labelled_heatmap(monkeypatch: pytest.MonkeyPatch) -> None:
    real = registry.get_task
    monkeypatch.setattr(registry, "get_task",
                        lambda name: _TwoTypes() if name == "two-types" else real(name))
    rec = record_from_parts(
        {"task": "two-types", "tau": 0.7}, {"task": "two-types", "n_items": 1},
        [{"id": "s1"}],
        [{"pred": "Ann", "truth": "Anne", "score": 0.72, "judge_id": "j"},
         {"pred": "Rome", "truth": "Paris", "score": None, "outcome": "transport_error",
          "judge_id": "j"}])
    d = report_data(rec)
    per, loc = d["items"][0]["heatmaps"]
    assert (per["label"], per["exact"], per["matched"]) == ("PER", [], [[0, 0]])
    assert (loc["label"], loc["exact"], loc["matched"]) == ("LOC", [[0, 0]], [])
    # PER: Ann ↔ Anne 0.72 within 0.1 of τ; LOC: Rome ↔ Paris failed and Rome is unmatched
    assert d["queues"] == {"near": [[0, 0, 0, 0]], "disagree": [], "failures": [[0, 1, 1, 0]],
                           "asymmetric": [], "unstable": [], "human_ne_judge": [],
                           "unmatched_pred": [[0, 1, 1]], "unmatched_truth": []}
    md = render_markdown(rec).splitlines()
    for line in ("- s1 [PER]: 'Ann' ↔ 'Anne' (0.72)", "- s1 [LOC]: 'Rome' ↔ 'Paris' (0.30)",
                 "- sentence: Ann went to Paris and Rome", "#### PER",
                 "- matched: 'Ann' ↔ 'Anne' (0.72)", "#### LOC", "- exact: 'Paris' = 'Paris'",
                 "- unmatched prediction: 'Rome'"):
        assert line in md, line
    rows = [json.loads(x) for x in render_jsonl(rec).splitlines()]
    assert [(r["label"], r["pred"], r["flags"]) for r in rows] == [
        ("PER", "Ann", ["near"]), ("LOC", "Paris", []), ("LOC", "Rome", ["failures"])]
    html = render_html(rec, name="spans-run")
    assert "<title>simjudge audit — spans-run</title>" in html and '"label":"LOC"' in html


def test_html_of_a_record_escapes_judged_text() -> None:
    rec = selection_record()
    rec.items[1].__pydantic_extra__["pred"] = EVIL[:1]  # type: ignore[index]
    html = render_html(rec)
    assert len(re.findall(r"<script", html)) == 2
    assert "\\u003cscript\\u003ewindow.__pwned=1\\u003c/script\\u003e" in html


def test_no_task_is_named_in_code_outside_the_tasks() -> None:
    # the report, rescore, compare, CLI… ask the task; only judge/tasks/ names tasks
    judge_dir = REPO / "judge"
    offenders = [f"{p.relative_to(REPO)}:{n}" for p in sorted(judge_dir.rglob("*"))
                 if p.suffix in (".py", ".jinja") and "tasks" not in p.relative_to(
                     judge_dir).parts[:1]
                 for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
                 if "task ==" in line]
    assert offenders == []


def test_undefined_statistics_are_null_in_the_page() -> None:
    rec = selection_record()
    rec.summary.metrics["macro_f1"] = float("nan")  # e.g. 0/0 with zero_division NaN
    html = render_html(rec)
    assert '"macro_f1":null' in html and "NaN" not in html


def test_browser_spans_report_heatmaps_per_type_and_chips(tmp_path: Path, chrome: Any) -> None:
    """examples/spans_ner.jsonl with the lexical judge (hand derivation in examples/README.md):
    ner-01 has one heatmap per type (LOC, ORG, PER); "New York" matched "New York City" by the
    judge (0.775 > τ) is a hit although its offsets differ, "Obama" (13/21 < τ) is extra."""
    _eval(EXAMPLES / "spans_ner.jsonl", "--task", "spans", "--judge", "lexical", "--out",
          tmp_path / "run", "--bootstrap", "0", "--cache-dir", tmp_path / "c")
    from selenium.webdriver.common.by import By

    open_report(chrome, tmp_path / "run" / "report.html")
    show_item(chrome, 0)
    item = chrome.find_element(By.ID, "item-0")
    titles = [h.text for h in item.find_elements(By.CSS_SELECTOR, "h4")]
    chips = {c.text: c.get_attribute("class") for c in item.find_elements(By.CSS_SELECTOR, ".chip")}
    assert [t for t in titles if t in ("LOC", "ORG", "PER")] == ["LOC", "ORG", "PER"]
    assert "hit" in chips["LOC 'New York' [21, 29)"]
    assert "extra" in chips["PER 'Obama' [7, 12)"]
    assert "miss" in chips["PER 'Barack Obama' [0, 12)"]


def test_jsonl_of_a_run_on_disk_equals_the_in_memory_one(tmp_path: Path) -> None:
    # the on-disk run's verdicts are read back one line at a time by row number (streamed
    # report): the lines must be the same as from the record held in memory
    from judge.record.store import load_run, write_run

    rec = selection_record()
    write_run(rec, tmp_path / "run")
    loaded = load_run(tmp_path / "run")
    assert loaded.verdicts.on_disk
    assert render_jsonl(loaded) == render_jsonl(rec)
    assert loaded.verdicts.row(-1) == rec.verdicts.row(len(rec.verdicts) - 1)
    with pytest.raises(IndexError):
        loaded.verdicts.row(len(rec.verdicts))


def test_reports_are_never_half_written(tmp_path: Path) -> None:
    from judge.record.atomic import write_text_atomic

    target = tmp_path / "report.jsonl"
    target.write_text("earlier report\n", encoding="utf-8")

    def fails_midway(f: Any) -> None:
        f.write('{"id": "a"}\n')
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        write_text_atomic(target, fails_midway)
    assert target.read_text(encoding="utf-8") == "earlier report\n"  # untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.jsonl"]  # no partial left
    size = write_text_atomic(target, lambda f: f.write("新 report\n"))
    assert size == 3 + 8  # 新 is 3 bytes of UTF-8, " report\n" 8
    # missing parent directories are made; an impossible path names the file asked for
    assert write_text_atomic(tmp_path / "new" / "dir" / "r.md", lambda f: f.write("x")) == 1
    with pytest.raises(OSError, match=r"^cannot write .*report\.jsonl/r\.md: "):
        write_text_atomic(target / "r.md", lambda f: f.write("x"))
    assert target.read_text(encoding="utf-8") == "新 report\n"
    # the CLI: a bad label file is exit 2 and leaves the run's earlier page as it was
    data = _data(tmp_path, [{"id": "a", "pred": ["User Login"], "truth": ["user login", "x"]}])
    _eval(data, "--id-field", "id", "--judge", "lexical", "--out", tmp_path / "run",
          "--bootstrap", "0")
    page = (tmp_path / "run" / "report.html").read_bytes()
    bad = tmp_path / "labels.jsonl"
    bad.write_text('{"id": "a", "pred": "User Login"}\n', encoding="utf-8")
    res = runner.invoke(app, ["audit", str(tmp_path / "run"), "--overrides", str(bad)])
    assert res.exit_code == 2 and "labels.jsonl:1" in res.output, res.output
    assert (tmp_path / "run" / "report.html").read_bytes() == page
    assert not list((tmp_path / "run").glob("*.partial"))
