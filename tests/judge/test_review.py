"""Review provenance in the audit page: blind mode (no judge output in the page), reviewer /
time / note on every exported label, labelled cells marked in a re-rendered report; the data
layer without a browser, then the page in headless chromium (skipped without it)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.errors import InputError
from judge.record.store import load_run
from judge.runs.audit import report_data
from judge.runs.review import blind, with_human_labels
from tests.browser import clean, open_report, show_item
from tests.conftest import EXAMPLES
from tests.run_records import selection_record

runner = CliRunner()


def test_blind_data_holds_no_judge_output(tmp_path: Path) -> None:
    data = blind(report_data(selection_record()))
    text = json.dumps(data, ensure_ascii=False)
    assert data["header"]["blind"] is True
    assert data["verdicts"] == {} and data["probes"] == {} and data["human"] == {}
    assert all(q == [] for q in data["queues"].values())
    for item in data["items"]:
        assert item["metrics"] == {}
        for hm in item["heatmaps"]:
            assert all(s is None for row in hm["scores"] for s in row) and hm["matched"] == []
    assert '"rationale"' not in text and '"score"' not in text


def test_human_labels_attach_by_item_and_pair(tmp_path: Path) -> None:
    data = report_data(selection_record())
    item = data["items"][0]
    hm = item["heatmaps"][0]
    p, t = hm["pred"][0], hm["truth"][0]
    labels = tmp_path / "l.jsonl"
    good = [{"id": item["id"], "pred": p, "truth": t, "label": 1, "reviewer": "ann",
             "reviewed_at": "2026-11-22T10:00:00Z", "note": "same thing"},
            {"pred": p, "truth": t, "label": 0, "reviewer": "bob"}]      # no id: any item
    labels.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in good),
                      encoding="utf-8")
    data, unmatched = with_human_labels(data, [labels])
    assert unmatched == 0
    assert data["human"][json.dumps([item["id"], p, t], ensure_ascii=False,
                                    separators=(",", ":"))][0]["reviewer"] == "ann"
    assert data["human"][json.dumps([None, p, t], ensure_ascii=False,
                                    separators=(",", ":"))][0]["label"] == 0


@pytest.mark.parametrize("row,field,message", [
    ({"id": "no-such-item", "truth": "T0", "label": 1}, "id", "no item 'no-such-item' in this run"),
    ({"pred": "nowhere", "truth": "T0", "label": 1}, "pred", "'nowhere' is no prediction"),
    ({"truth": "nowhere", "label": 1}, "truth", "is no judged pair"),
])
def test_a_label_for_a_pair_not_in_the_run_is_an_error(tmp_path: Path, row: dict[str, Any],
                                                        field: str, message: str) -> None:
    data = report_data(selection_record())
    item = data["items"][0]
    hm = item["heatmaps"][0]
    ok = {"id": item["id"], "pred": hm["pred"][0], "truth": hm["truth"][0], "label": 1}
    bad = {"id": item["id"], "pred": hm["pred"][0], **row}
    if bad["truth"] == "T0":
        bad["truth"] = hm["truth"][0]
    labels = tmp_path / "l.jsonl"
    labels.write_text(json.dumps(ok) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as exc:
        with_human_labels(data, [labels])
    assert exc.value.path == str(labels) and exc.value.line == 2
    assert exc.value.field == field and message in exc.value.message


def test_blind_and_overrides_flags(tmp_path: Path) -> None:
    res = runner.invoke(app, ["eval", str(EXAMPLES / "glossary_en_zh.jsonl"), "--judge",
                              "lexical", "--out", str(tmp_path / "run"), "--bootstrap", "0"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["audit", str(tmp_path / "run"), "--blind", "--out",
                              str(tmp_path / "b.html")])
    assert res.exit_code == 0, res.output
    page = (tmp_path / "b.html").read_text(encoding="utf-8")
    normal = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    assert "character-bigram" in normal and "character-bigram" not in page  # the rationales
    res = runner.invoke(app, ["audit", str(tmp_path / "run"), "--blind", "--format", "md"])
    assert res.exit_code == 2 and "apply to the html page" in res.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"pred": "x", "label": 1}\n', encoding="utf-8")
    res = runner.invoke(app, ["audit", str(tmp_path / "run"), "--overrides", str(bad)])
    assert res.exit_code == 2 and "bad.jsonl:1: field 'truth'" in res.output
    # an empty overrides file and a label of a pair the run does not have: exit 2, one line
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    res = runner.invoke(app, ["audit", str(tmp_path / "run"), "--overrides", str(empty),
                              "--out", str(tmp_path / "o.html")])
    assert res.exit_code == 2 and f"{empty}: no labels in this file" in res.output
    other = tmp_path / "other.jsonl"
    other.write_text('{"pred": "Job Information", "truth": "no such gold", "label": 1}\n',
                     encoding="utf-8")
    res = runner.invoke(app, ["audit", str(tmp_path / "run"), "--overrides", str(other),
                              "--out", str(tmp_path / "o.html")])
    assert res.exit_code == 2 and f"{other}:1: field '" in res.output, res.output
    assert "in this run" in res.output and not (tmp_path / "o.html").exists()


def _click_first_cell(d, By, n: int = 0) -> None:  # type: ignore[no-untyped-def]
    """Click item ``n``'s first cell (its handler draws the detail panel at once)."""
    show_item(d, n)
    cell = d.find_elements(By.CSS_SELECTOR, f'rect.cell[data-item="{n}"]')[0]
    d.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))",
                     cell)


def test_browser_blind_review_and_provenance(tmp_path: Path, chrome: Any) -> None:
    from selenium.webdriver.common.by import By

    res = runner.invoke(app, ["eval", str(EXAMPLES / "glossary_en_zh.jsonl"), "--judge",
                              "local", "--out", str(tmp_path / "run"), "--bootstrap", "0",
                              "--cache-dir", str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    assert runner.invoke(app, ["audit", str(tmp_path / "run"), "--blind", "--out",
                               str(tmp_path / "blind.html")]).exit_code == 0
    d = chrome
    open_report(d, tmp_path / "blind.html")
    assert d.find_element(By.ID, "blind-banner").is_displayed()
    _click_first_cell(d, By)
    cell_texts = {t.get_attribute("textContent") for t in d.find_elements(
        By.CSS_SELECTOR, "#item-0 svg text[text-anchor='middle']")}
    assert cell_texts == {"?"}  # no score on any cell
    assert d.find_elements(By.CSS_SELECTOR, ".rationale") == []  # no judge rationale
    reviewer = d.find_element(By.ID, "reviewer")
    reviewer.send_keys("ann")
    d.find_element(By.ID, "ov-note").send_keys("looked it up")
    d.find_element(By.ID, "ov-match").click()  # its handler stores and lists the label
    d.find_element(By.ID, "export-btn").click()
    export = d.find_element(By.ID, "export-text").get_attribute("value")
    (row,) = [json.loads(x) for x in export.splitlines()]
    assert (row["reviewer"], row["note"], row["blind"], row["label"]) == (
        "ann", "looked it up", True, 1)
    stamp = dt.datetime.fromisoformat(row["reviewed_at"].replace("Z", "+00:00"))
    assert abs((dt.datetime.now(dt.timezone.utc) - stamp).total_seconds()) < 120
    labels = tmp_path / "ann.jsonl"
    labels.write_text(export, encoding="utf-8")
    # the blind page's items are shuffled: the labelled item's place in the normal page
    n = [it.id for it in load_run(tmp_path / "run").items].index(row["id"])
    assert runner.invoke(app, ["audit", str(tmp_path / "run"), "--overrides", str(labels),
                               "--out", str(tmp_path / "human.html")]).exit_code == 0
    clean(d)  # the re-rendered page as a browser that has not seen the blind one shows it
    open_report(d, tmp_path / "human.html")
    _click_first_cell(d, By, n)
    marked = d.find_elements(By.CSS_SELECTOR, "rect.cell.human")
    shown = [li.text for li in d.find_elements(By.CSS_SELECTOR, "#human-labels li")]
    scored = {t.get_attribute("textContent") for t in d.find_elements(
        By.CSS_SELECTOR, f"#item-{n} svg text[text-anchor='middle']")}
    assert len(marked) == 1  # the one labelled cell is outlined
    assert len(shown) == 1 and shown[0].startswith("ann: match") and "blind" in shown[0]
    assert "looked it up" in shown[0] and "?" not in scored  # the normal page shows scores


def _page_data(page: str) -> dict:  # type: ignore[type-arg]
    """The JSON a (small, uncompressed) HTML report sends to the browser."""
    raw = page.split('<script type="application/json" id="data">', 1)[1].split("</script>")[0]
    return json.loads(raw)  # type: ignore[no-any-return]


def test_blind_suggestions_page_order_and_header_say_nothing_of_the_judge(
        tmp_path: Path) -> None:
    # 225 unlabelled am2ico pairs, all suggested: allocation.suggest returns them by stratum,
    # i.e. by score (Spearman 0.995 of page position vs design score before this fix). A blind
    # page lists them in a random order (seeded) and holds no τ̂ and no score-derived value
    import csv

    from scipy.stats import spearmanr

    with open(EXAMPLES / "am2ico_word_pairs.tsv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))[::2]
    labels, pool = tmp_path / "labels.jsonl", tmp_path / "pool.jsonl"
    labels.write_text("".join(json.dumps({"pred": r["pred"], "truth": r["truth"],
                                          "label": int(r["label"])}, ensure_ascii=False) + "\n"
                              for r in rows[::10]), encoding="utf-8")
    pool.write_text("".join(json.dumps({"id": f"p{k}", "pred": r["pred"], "truth": r["truth"]},
                                       ensure_ascii=False) + "\n" for k, r in enumerate(rows)),
                    encoding="utf-8")
    out = tmp_path / "c"
    res = runner.invoke(app, ["calibrate", str(labels), "--judge", "local", "--pool", str(pool),
                              "--suggest", "300", "--bootstrap", "50", "--out", str(out),
                              "--cache-dir", str(tmp_path / "cache")])
    assert res.exit_code == 0, res.output
    rep = json.loads((out / "calibration.json").read_text(encoding="utf-8"))
    tau = rep["judges"]["local"]["tau"]
    assert rep["suggestions"]["order"] == "random" and rep["suggestions"]["order_seed"] == 0
    sug = [json.loads(x) for x in (out / "suggestions.jsonl").read_text().splitlines()]
    score = {s["id"]: s["score"] for s in sug}
    assert len(score) >= 200  # 250 rows − 25 labelled: (nearly) every pool pair
    res = runner.invoke(app, ["audit", str(out / "suggestions"), "--blind", "--out",
                              str(tmp_path / "b.html")])
    assert res.exit_code == 0, res.output
    page = (tmp_path / "b.html").read_text(encoding="utf-8")
    data = _page_data(page)
    shown = [s["score"] for s in sug]  # the suggestions file's own order is random too
    assert abs(spearmanr(range(len(shown)), shown).statistic) < 0.2
    order = [score[it["id"]] for it in data["items"]]
    assert len(order) == len(score)
    assert abs(spearmanr(range(len(order)), order).statistic) < 0.2
    h = data["header"]
    assert h["tau"] is None and h["uses_tau"] is False and h["order_seed"] == 0
    text = json.dumps(data, ensure_ascii=False)
    assert repr(tau) not in page and f"{tau:.4f}" not in text  # τ̂ nowhere in the page
    assert all("source" not in it for it in data["items"])  # its line = the run's order
    assert '"score"' not in text and '"stratum"' not in text
    # seeded: the same page twice; another --seed, another order
    runner.invoke(app, ["audit", str(out / "suggestions"), "--blind", "--out",
                        str(tmp_path / "b2.html")])
    assert [it["id"] for it in _page_data((tmp_path / "b2.html").read_text())["items"]] == [
        it["id"] for it in data["items"]]
    res = runner.invoke(app, ["audit", str(out / "suggestions"), "--blind", "--seed", "1",
                              "--out", str(tmp_path / "b3.html")])
    assert res.exit_code == 0, res.output
    b3 = _page_data((tmp_path / "b3.html").read_text())
    assert b3["header"]["order_seed"] == 1
    assert sorted(it["id"] for it in b3["items"]) == sorted(score)
    assert [it["id"] for it in b3["items"]] != [it["id"] for it in data["items"]]
