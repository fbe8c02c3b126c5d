"""``simjudge review``'s server: bad input stores nothing, tokens, blind payloads, a ``kill -9``
loses no acknowledged label, live Krippendorff's α against the ``krippendorff`` package,
queues, pools and the command line's own checks. The servers run in this interpreter
(tests/review_server.py), but for the ``kill -9`` one: a real subprocess."""

from __future__ import annotations

import json
import math
import os
import re
import signal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from judge.calibration.labelevents import labelled
from judge.calibration.labelsdb import LabelsDB
from tests.clirun import CliResult, run_cli
from tests.review_server import cell_score, is_match, start, write_table_run


@pytest.fixture(scope="module")
def table_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return write_table_run(tmp_path_factory.mktemp("review"))


def _events(db: Path) -> int:
    with LabelsDB(db, create=False) as d:
        return d.count()


def test_bad_input_gets_4xx_and_stores_nothing(table_run: tuple[Path, Path],
                                               tmp_path: Path) -> None:
    run, _ = table_run
    db = tmp_path / "labels.db"
    s = start([str(run), "--labels", str(db)], tmp_path)
    try:
        pair = s.post("/api/next", {"reviewer": "ann"})["pair"]
        good = {"reviewer": "ann", "index": pair["index"], "key": pair["key"],
                "action": "label", "value": 1}
        cases = [
            ({**good}, False, 403),  # no token header
            ({**good, "key": "0" * 64}, True, 400),
            ({**good, "key": [pair["item_id"], pair["pred"], pair["truth"]]}, True, 400),
            ({**good, "index": 10_000}, True, 400),
            ({**good, "value": 7}, True, 400),
            ({**good, "value": 0.5}, True, 400),
            ({**good, "value": True}, True, 400),
            ({**good, "action": "delete"}, True, 400),
            ({**good, "note": "x" * 5000}, True, 400),
            ({**good, "note": "x" * 1_000_000}, True, 413),
            ({**good, "reviewer": ""}, True, 400),
            ({**good, "reviewer": "\u200b\n\u202e"}, True, 400),  # empty once normalised
        ]
        for body, token, status in cases:
            got, reply = s.call("POST", "/api/label", body, token=token)
            assert got == status, (body.get("value"), body.get("action"), got, reply)
        assert s.call("POST", "/api/label", raw=b"{not json")[0] == 400
        assert s.call("POST", "/api/undo", {"reviewer": "ann"})[0] == 409  # nothing to undo
        # the database file and anything else but the page's own files are never served
        for path in ("/labels.db", f"/{db.name}", "/static/labels.db", "/static/../labels.db",
                     "/static/page.html"):
            assert s.call("GET", path)[0] == 404, path
        # a Host header that is not loopback (DNS rebinding) is refused
        assert s.call("GET", "/", headers={"Host": "evil.example:80"})[0] == 403
        assert _events(db) == 0
        reply = s.post("/api/label", good)  # the same request, well-formed, is stored
        assert reply["event"]["id"] == 1 and _events(db) == 1
    finally:
        s.stop()


def test_off_loopback_every_request_needs_the_token(table_run: tuple[Path, Path],
                                                    tmp_path: Path) -> None:
    run, _ = table_run
    s = start([str(run), "--labels", str(tmp_path / "l.db"), "--host", "0.0.0.0"], tmp_path)
    try:
        assert s.call("GET", "/", token=False)[0] == 403
        assert s.call("GET", "/api/stats", token=False)[0] == 403
        status, page = s.call("GET", f"/?token={s.token}", token=False)
        assert status == 200
        # the page's own scripts and styles carry the token too (else the page would be blank)
        for src in re.findall(r'(?:src|href)="(/static/[^"]+)"', page):
            assert src.endswith(f"?token={s.token}") and s.call("GET", src, token=False)[0] == 200
        assert s.call("GET", "/static/review.js", token=False)[0] == 403
        assert s.call("GET", "/?token=wrong", token=False)[0] == 403
        assert s.call("POST", "/api/next", {"reviewer": "ann"})[0] == 200
    finally:
        s.stop()


def test_blind_payload_holds_no_judge_output(table_run: tuple[Path, Path],
                                             tmp_path: Path) -> None:
    run, _ = table_run
    s = start([str(run), "--labels", str(tmp_path / "l.db")], tmp_path)
    try:
        _, page = s.call("GET", "/")
        for _ in range(5):
            pair = s.post("/api/next", {"reviewer": "ann"})["pair"]
            text = json.dumps(pair)
            assert "judges" not in pair["context"] and "score" not in text
            assert set(pair["context"]) == {"kind", "query", "source", "label", "preds",
                                            "truths", "i", "j"}
            s.label("ann", pair, int(is_match(pair["pred"], pair["truth"])))
        config = json.loads(page.split('id="config">')[1].split("</script>")[0])
        assert set(config) == {"source", "scale", "graded", "top", "positive", "blind",
                               "queue", "token", "loopback"}  # no τ, no score
    finally:
        s.stop()
    s = start([str(run), "--labels", str(tmp_path / "l2.db"), "--no-blind"], tmp_path)
    try:
        pair = s.post("/api/next", {"reviewer": "ann"})["pair"]
        k, i, j = (int(pair["item_id"].split("-")[1]), pair["context"]["i"],
                   pair["context"]["j"])
        assert [v["score"] for v in pair["context"]["judges"]] == [cell_score(k, i, j)]
    finally:
        s.stop()


def test_kill_9_loses_no_acknowledged_label(table_run: tuple[Path, Path],
                                            tmp_path: Path) -> None:
    """A real subprocess: what is tested is the process killed by SIGKILL (no clean-up runs),
    and that every label it acknowledged is in the database all the same."""
    run, _ = table_run
    db = tmp_path / "labels.db"
    s = start([str(run), "--labels", str(db)], tmp_path, process=True)
    sent = []
    try:
        pair = s.post("/api/next", {"reviewer": "ann"})["pair"]
        for _ in range(25):
            value = int(is_match(pair["pred"], pair["truth"]))
            reply = s.label("ann", pair, value)  # acknowledged: committed before this reply
            sent.append(((pair["item_id"], pair["pred"], pair["truth"]), value))
            pair = reply["pair"]
    finally:
        os.kill(s.proc.pid, signal.SIGKILL)
        s.proc.wait(10)
    assert s.proc.returncode == -signal.SIGKILL
    with LabelsDB(db, create=False) as d:
        got = labelled(list(d.events()))
    assert len(got) == 25
    assert {k: es[0].label for k, es in got.items()} == dict(sent)


def test_live_alpha_equals_the_krippendorff_package(table_run: tuple[Path, Path],
                                                    tmp_path: Path) -> None:
    krippendorff = pytest.importorskip("krippendorff")
    run, _ = table_run
    db = tmp_path / "labels.db"
    s = start([str(run), "--labels", str(db), "--overlap", "1"], tmp_path)
    try:
        ann: dict[int, int] = {}
        pair = s.post("/api/next", {"reviewer": "ann"})["pair"]
        for _ in range(12):
            ann[pair["index"]] = int(is_match(pair["pred"], pair["truth"]))
            pair = s.label("ann", pair, ann[pair["index"]])["pair"]
        # with --overlap 1 bob is shown ann's pairs first; he flips every third label
        bob: dict[int, int] = {}
        pair = s.post("/api/next", {"reviewer": "bob"})["pair"]
        for n in range(8):
            assert pair["index"] in ann  # a pair ann labelled
            v = ann[pair["index"]] if n % 3 else 1 - ann[pair["index"]]
            bob[pair["index"]] = v
            pair = s.label("bob", pair, v)["pair"]
        stats = s.call("GET", "/api/stats")[1]
    finally:
        s.stop()
    units = sorted(ann)
    data = np.array([[ann[u] for u in units],
                     [bob.get(u, np.nan) for u in units]], dtype=float)
    want = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    got = stats["agreement"]
    assert got["shared_pairs"] == 8 and got["reviewers"] == 2 and got["level"] == "nominal"
    assert math.isclose(got["alpha"], want, rel_tol=1e-12, abs_tol=1e-12)
    assert stats["progress"]["reviewers"] == {"ann": {"labels": 12, "skips": 0},
                                              "bob": {"labels": 8, "skips": 0}}


def test_a_run_queue_in_random_order_without_estimates(table_run: tuple[Path, Path],
                                                       tmp_path: Path) -> None:
    run, _ = table_run
    tau = json.loads((run / "config.json").read_text())["tau"]
    s = start([str(run), "--labels", str(tmp_path / "l.db"), "--queue", "near"], tmp_path)
    try:
        shown = []
        pair = s.post("/api/next", {"reviewer": "ann"})["pair"]
        while pair is not None:
            k, i, j = (int(pair["item_id"].split("-")[1]), pair["context"]["i"],
                       pair["context"]["j"])
            shown.append(cell_score(k, i, j))
            pair = s.post("/api/label", {"reviewer": "ann", "index": pair["index"],
                                         "key": pair["key"],
                                         "action": "skip"})["pair"]
        stats = s.call("GET", "/api/stats")[1]
    finally:
        s.stop()
    # every cell with |score − τ| <= 0.1 (τ = 0.7; the audit's rule in floating point, so 0.8
    # is out: 0.8 − 0.7 = 0.10000000000000009), and only those
    want = sorted(cell_score(k, i, j) for k in range(12) for i in range(3) for j in range(3)
                  if abs(cell_score(k, i, j) - tau) <= 0.1)
    assert sorted(shown) == want and len(want) > 20
    assert shown != sorted(shown) and shown != sorted(shown, reverse=True)  # not score order
    assert stats["estimate"]["available"] is False
    assert stats["progress"]["reviewers"]["ann"] == {"labels": 0, "skips": len(want)}


def test_command_line_checks_come_first(table_run: tuple[Path, Path], tmp_path: Path) -> None:
    run, _ = table_run
    pool = tmp_path / "pool.jsonl"
    pool.write_text(json.dumps({"pred": "a", "truth": "b"}) + "\n")
    db = tmp_path / "l.db"
    LabelsDB(db).close()  # a binary database

    def cli(*args: str) -> CliResult:  # refused before serving: in-process
        return run_cli("review", *args, "--port", "0", cwd=tmp_path)

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"pred": "a", "truth": \n')
    for args, message in [
        ((str(bad), "--labels", str(tmp_path / "new.db"), "--judge", "lexical"),
         "malformed JSON"),
        ((str(run), "--labels", str(tmp_path / "pool.jsonl" / "x.db")), "not a writable"),
        ((str(pool), "--labels", str(db)), "needs --judge"),
        ((str(run), "--labels", str(db), "--queue", "nearest"), "unknown queue"),
        ((str(run), "--labels", str(db), "--overlap", "1.5"), "field 'overlap'"),
        ((str(run), "--labels", str(db), "--scale", "0-5"), "scale binary"),
        ((str(run), "--labels", str(db), "--judge", "lexical"), "already holds"),
        ((str(pool), "--labels", str(db), "--queue", "near", "--judge", "lexical"),
         "run's queue"),
        ((str(tmp_path / "missing"), "--labels", str(db)), "no such file"),
    ]:
        got = cli(*args)
        assert got.returncode == 2, (args, got.stderr)
        assert message in got.stderr and got.stderr.count("\n") == 1, (args, got.stderr)
    assert not (tmp_path / "new.db").exists()  # bad input: no empty database left behind


def test_pool_with_a_judge_undo_and_resume(tmp_path: Path) -> None:
    pool = tmp_path / "pool.jsonl"
    table = tmp_path / "t.jsonl"
    rows = [(f"w{k}", f"v{k}", round(0.02 + 0.96 * k / 59, 4)) for k in range(60)]
    pool.write_text("".join(json.dumps({"id": f"p{k}", "pred": p, "truth": t,
                                        "context": "glossary"}) + "\n"
                            for k, (p, t, _) in enumerate(rows)))
    table.write_text("".join(json.dumps({"pred": p, "truth": t, "score": sc}) + "\n"
                             for p, t, sc in rows))
    db = tmp_path / "l.db"
    s = start([str(pool), "--labels", str(db), "--judge", f"table:{table}", "--strata", "4"],
              tmp_path)
    try:
        pair = s.post("/api/next", {"reviewer": "ann"})["pair"]
        assert pair["context"] == {"kind": "fields", "fields": {"context": "glossary"}}
        seen = []
        for _ in range(12):
            k = int(pair["item_id"][1:])
            seen.append(k)
            pair = s.label("ann", pair, int(k >= 30))["pair"]
        # the design's first 12 labels: 3 in each of the 4 score strata (k 0-14, 15-29 …)
        assert sorted(np.bincount([k // 15 for k in seen], minlength=4)) == [3, 3, 3, 3]
        undone = s.post("/api/undo", {"reviewer": "ann"})
        assert undone["undone"]["id"] == 12 and undone["pair"]["item_id"] == f"p{seen[-1]}"
        # a page reload asks again: the undone pair is still the current one
        again = s.post("/api/next", {"reviewer": "ann"})["pair"]
        assert again["index"] == undone["pair"]["index"]
        stats = s.call("GET", "/api/stats")[1]
        assert stats["progress"]["labelled"] == 11
        est = stats["estimate"]
        # labels are k >= 30, scores increase with k: a perfect separation, so τ̂ lies between
        # the highest-scoring negative and the lowest-scoring positive labelled pair
        lab = sorted(seen[:-1])
        neg = max(rows[k][2] for k in lab if k < 30)
        pos = min(rows[k][2] for k in lab if k >= 30)
        assert est["available"] and neg <= est["tau"] < pos
    finally:
        s.stop()


def _eval(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "run"
    res = run_cli("eval", *args, "--out", out, "--bootstrap", "0", "--cache-mode", "off")
    assert res.returncode == 0, res.stderr
    return out


def test_a_spans_run_offers_cells_per_entity_type(tmp_path: Path) -> None:
    from tests.conftest import EXAMPLES

    run = _eval(tmp_path, str(EXAMPLES / "spans_ner.jsonl"), "--task", "spans", "--judge",
                "lexical")
    rows = [json.loads(x) for x in (run / "items.jsonl").read_text().splitlines()]
    # by hand from the run: the non-exact cells of every item's per-type matrices
    want = {(r["id"], p, g) for r in rows for t in r["types"]
            for i, p in enumerate(t["pred"]) for j, g in enumerate(t["truth"])
            if not any(m["pred_index"] == i and m["truth_index"] == j and m["exact"]
                       for m in t["matches"])}
    s = start([str(run), "--labels", str(tmp_path / "l.db"), "--queue", "all"], tmp_path)
    try:
        got = set()
        pair = s.post("/api/next", {"reviewer": "ann"})["pair"]
        while pair is not None:
            ctx = pair["context"]
            assert ctx["kind"] == "cell" and ctx["label"] in {"PER", "LOC", "ORG"}
            assert "content" not in ctx  # blind: the matched/missing lists are the judge's
            assert ctx["preds"][ctx["i"]] == pair["pred"]
            got.add((pair["item_id"], pair["pred"], pair["truth"]))
            pair = s.label("ann", pair, 0)["pair"]
    finally:
        s.stop()
    assert got == want and len(want) > 0


def test_a_function_call_run_offers_its_argument_pairs(tmp_path: Path) -> None:
    from tests.conftest import EXAMPLES

    run = _eval(tmp_path, str(EXAMPLES / "seed003_home_automation.jsonl"), "--task",
                "function-call", "--format", "seed", "--arg-judge", "lexical")
    verdicts = [json.loads(x) for x in (run / "verdicts.jsonl").read_text().splitlines()]
    want = {(f"{v['function']}.{v['parameter']}", v["pred"], v["truth"]) for v in verdicts}
    s = start([str(run), "--labels", str(tmp_path / "l.db"), "--queue", "all"], tmp_path)
    contexts: dict[tuple[str, str], tuple[str, str]] = {}
    try:
        got = set()
        pair = s.post("/api/next", {"reviewer": "ann"})["pair"]
        while pair is not None:
            assert pair["context"]["kind"] == "argument"
            fn, param = pair["item_id"].split(".")
            ctx = pair["context"]
            assert (ctx["kind"], ctx["function"], ctx["parameter"]) == ("argument", fn, param)
            # the first item holding the pair, its calls as the audit page shows them (blind:
            # no verdict, error type or matching, which the argument judge decided)
            calls = {c["name"]: c["arguments"] for c in ctx["content"]["pred"]}
            assert calls[fn][param] == pair["pred"]
            assert set(ctx["content"]) == {"kind", "gold", "pred", "category"}
            contexts[(pair["pred"], pair["truth"])] = (ctx["item"], ctx["query"])
            got.add((pair["item_id"], pair["pred"], pair["truth"]))
            pair = s.label("ann", pair, 1)["pair"]
    finally:
        s.stop()
    # seed 003's judged string values, e.g. light_control.action: 关闭 vs 打开
    assert got == want and ("light_control.action", "关闭", "打开") in got
    items = {json.loads(x)["id"]: json.loads(x) for x in (run / "items.jsonl").read_text()
             .splitlines()}
    item, query = contexts[("关闭", "打开")]
    assert items[item]["query"] == query


def test_a_suggestions_round_labelled_and_merged(tmp_path: Path) -> None:
    from tests.conftest import EXAMPLES

    rows = (EXAMPLES / "am2ico_word_pairs.tsv").read_text(encoding="utf-8").splitlines()
    data = rows[151:351]  # the file holds 250 positives, then 250 negatives
    (tmp_path / "labels.tsv").write_text("\n".join([rows[0], *data[::5]]) + "\n",
                                         encoding="utf-8")  # 40 labelled pairs, both classes
    pool = [r for k, r in enumerate(data) if k % 5]
    (tmp_path / "pool.tsv").write_text("\n".join([rows[0], *pool]) + "\n", encoding="utf-8")
    got = run_cli("calibrate", "labels.tsv", "--judge", "local", "--pool", "pool.tsv",
                  "--suggest", "12", "--out", "cal", "--bootstrap", "50", "--folds", "2",
                  "--cache-mode", "off", cwd=tmp_path)
    assert got.returncode == 0, got.stderr
    suggested = [json.loads(x) for x in (tmp_path / "cal/suggestions.jsonl").read_text()
                 .splitlines()]
    s = start([str(tmp_path / "cal"), "--labels", str(tmp_path / "l.db")], tmp_path)
    try:
        shown = []
        pair = s.post("/api/next", {"reviewer": "ann"})["pair"]
        while pair is not None:
            shown.append(pair["item_id"])
            pair = s.label("ann", pair, len(shown) % 2)["pair"]
        est = s.call("GET", "/api/stats")[1]["estimate"]
    finally:
        s.stop()
    # every suggestion once; no population in a suggestions file: no τ on the page
    assert sorted(shown) == sorted(r["id"] for r in suggested) and len(shown) == 12
    assert est["available"] is False and "calibrate" in est["why"]
    merged = run_cli("labels", "merge", "labels.tsv", "l.db", "--out", "labels2.jsonl",
                     cwd=tmp_path)
    assert merged.returncode == 0, merged.stderr
    out = [json.loads(x) for x in (tmp_path / "labels2.jsonl").read_text().splitlines()]
    assert len(out) == 40 + 12  # the first round's pairs and the new ones


def test_a_graded_scale(table_run: tuple[Path, Path], tmp_path: Path) -> None:
    """--scale 0-5: keys 0..5 store grades, a match from 3 (the upper half); 6 is refused;
    the export writes the grades and calibrate binarises them at the database's 3."""
    run, _ = table_run
    db = tmp_path / "g.db"
    s = start([str(run), "--labels", str(db), "--scale", "0-5", "--overlap", "1"], tmp_path)
    grades = [5, 2, 3, 0, 4, 1]
    try:
        pair = s.post("/api/next", {"reviewer": "ann"})["pair"]
        assert s.call("POST", "/api/label", {
            "reviewer": "ann", "index": pair["index"], "action": "label", "value": 6,
            "key": pair["key"]})[0] == 400
        for g in grades:
            reply = s.label("ann", pair, g)
            assert reply["event"]["grade"] == g and reply["event"]["label"] == int(g >= 3)
            pair = reply["pair"]
        # bob grades ann's pairs one higher (capped at 5): interval α, by the package
        bob = []
        pair = s.post("/api/next", {"reviewer": "bob"})["pair"]
        for g in grades:
            bob.append(min(g + 1, 5))
            pair = s.label("bob", pair, bob[-1])["pair"]
        stats = s.call("GET", "/api/stats")[1]
    finally:
        s.stop()
    krippendorff = pytest.importorskip("krippendorff")
    want = krippendorff.alpha(reliability_data=[grades, bob], level_of_measurement="interval")
    assert stats["agreement"]["level"] == "interval"
    assert math.isclose(stats["agreement"]["alpha"], want, rel_tol=1e-12)
    got = run_cli("labels", "export", db, "-o", tmp_path / "e.jsonl")
    assert got.returncode == 0, got.stderr
    rows = [json.loads(x) for x in (tmp_path / "e.jsonl").read_text().splitlines()]
    assert [r["label"] for r in rows] == [[g, b] for g, b in zip(grades, bob, strict=True)]


def _drain(s: Any) -> list[tuple[str, str, str]]:
    """Skip through a review queue to its end; the pair keys in the order they were served."""
    shown = []
    pair = s.post("/api/next", {"reviewer": "ann"})["pair"]
    while pair is not None:
        shown.append((pair["item_id"], pair["pred"], pair["truth"]))
        pair = s.post("/api/label", {"reviewer": "ann", "index": pair["index"],
                                     "key": pair["key"],
                                     "action": "skip"})["pair"]
    return shown


def test_panel_queue_disagree_is_served(tmp_path: Path) -> None:
    """A two-judge panel: judge A is :func:`cell_score`, judge B says 1.0 on the diagonal and
    0.0 elsewhere and has no row for item-0 (so item-0's pairs have one member's score and
    cannot be disagreements). At τ = 0.7 the members disagree exactly where A's score is on the
    other side of τ from B's (derived below from the scores, not read from the run);
    ``--queue disagree`` serves those pairs, each once, and no others."""
    from tests.review_server import item_strings, write_items, write_table

    data = write_items(tmp_path / "d.jsonl", 6)
    table_a = write_table(tmp_path / "a.jsonl", 6)
    table_b = write_table(tmp_path / "b.jsonl", 6,
                          lambda k, i, j: None if k == 0 else 1.0 if i == j else 0.0)
    run = tmp_path / "run"
    res = run_cli("eval", data, "--task", "selection", "--judge", f"table:{table_a}", "--judge",
                  f"table:{table_b}", "--vote", "mean", "--tau", "0.7", "--out", run,
                  "--bootstrap", "0", "--cache-mode", "off", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    want = set()
    for k in range(1, 6):
        preds, truths = item_strings(k)
        for i, p in enumerate(preds):
            for j, g in enumerate(truths):
                if (cell_score(k, i, j) > 0.7) != (i == j):  # B is above τ iff i == j
                    want.add((f"item-{k}", p, g))
    assert 5 <= len(want) < 45
    s = start([str(run), "--labels", str(tmp_path / "l.db"), "--queue", "disagree"], tmp_path)
    try:
        shown = _drain(s)
    finally:
        s.stop()
    assert len(shown) == len(set(shown)) and set(shown) == want
