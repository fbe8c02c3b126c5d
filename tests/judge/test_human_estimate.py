"""Issue 35: ``simjudge estimate`` / ``eval --human`` / ``judge.estimate`` — every metric of a
run judge-only, PPI++ and human-only, from item labels checked against the run.

The run: 12 selection items of 3×3 strings judged by a ``table:`` judge whose scores are known
(tests/review_server.py: prediction i and gold j name the same thing exactly when i == j). The
labels accept the first ``k % 4`` diagonal pairs of item k (0 to 3 matches), so the human TP
varies from item to item. The expected values are computed here from the run's rows by the
definitions (human count H against the judge's match count M per item; micro = total over the
sizes, macro = mean of per-item values) and :func:`metrics.ppi_mean`, which
tests/metrics/test_ppi.py checks by hand and against ppi-python.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import judge
from judge.calibration.labelsdb import LabelsDB
from metrics import fuzzy_prf, ppi_mean
from tests.browser import open_report, wait
from tests.clirun import run_cli
from tests.fake_openai import FakeOpenAIServer
from tests.review_server import cell_score, item_strings, write_items, write_table

N = 12
LABELLED = [1, 2, 3, 5, 6, 7, 9, 10]  # 8 of the 12 items


def _truth(k: int) -> list[list[str]]:
    preds, truths = item_strings(k)
    return [[preds[i], truths[i]] for i in range(k % 4)]


def _labels(path: Path, ks: list[int] = LABELLED, **extra: Any) -> Path:
    path.write_text("".join(json.dumps({"id": f"item-{k}", "matches": _truth(k), **extra},
                                       ensure_ascii=False) + "\n" for k in ks),
                    encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("estimate")
    data, table = write_items(tmp / "items.jsonl", N), write_table(tmp / "scores.jsonl", N)
    res = run_cli("eval", data, "--judge", f"table:{table}", "--out", tmp / "run",
                  "--bootstrap", "200", "--cache-mode", "off")
    assert res.returncode == 0, res.stderr
    return tmp / "run"


def _rows(run: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (run / "items.jsonl").read_text("utf-8").splitlines()]


def _expected(run: Path, metric: str, lam: float | str = "tune") -> tuple[float, list[float]]:
    """(value, ci) of ``metric`` by the definitions (see the module docstring)."""
    rows = _rows(run)
    big_n = len(rows)
    m = [float(len(r["matches"])) for r in rows]  # the judge's matches at τ
    h = {k: float(k % 4) for k in LABELLED}
    if metric.startswith("macro_"):
        j = ("precision", "recall", "f1").index(metric[6:])
        f = [fuzzy_prf(x, 3, 3, 0.0)[j] for x in m]
        y = [fuzzy_prf(h[k], 3, 3, 0.0)[j] for k in LABELLED]
        factor = 1.0
    else:
        f, y = m, [h[k] for k in LABELLED]
        factor = {"micro_precision": big_n / (3 * big_n), "micro_recall": big_n / (3 * big_n),
                  "micro_f1": big_n / (3 * big_n), "tp_fuzzy": big_n}[metric]
    est = ppi_mean(y, [f[k] for k in LABELLED], f, lam=lam).scaled(factor)  # type: ignore[arg-type]
    return est.value, list(est.ci)


def test_estimate_command_gives_the_three_columns(run: Path, tmp_path: Path) -> None:
    labels = _labels(tmp_path / "human.jsonl")
    res = run_cli("estimate", run, "--human", labels, "--out", tmp_path / "est")
    assert res.returncode == 0, res.stderr
    assert max(len(x) for x in res.stdout.splitlines()) <= 80
    got = json.loads((tmp_path / "est" / "estimate.json").read_text("utf-8"))
    summary = json.loads((run / "summary.json").read_text("utf-8"))
    assert (got["n_items"], got["n_labelled"], got["design"]["kind"]) == (N, 8, "uniform")
    for metric in ("micro_precision", "micro_recall", "micro_f1", "macro_precision",
                   "macro_recall", "macro_f1", "tp_fuzzy"):
        m = got["metrics"][metric]
        value, ci = _expected(run, metric)
        assert m["ppi"]["value"] == pytest.approx(value) and m["ppi"]["ci95"] == pytest.approx(ci)
        human_value, human_ci = _expected(run, metric, lam=0.0)
        assert m["human"]["value"] == pytest.approx(human_value)
        assert m["human"]["ci95"] == pytest.approx(human_ci)
        assert m["judge"]["value"] == summary["metrics"][metric]
        assert m["bias"]["value"] == pytest.approx(summary["metrics"][metric] - value)
        width = (human_ci[1] - human_ci[0]) / (ci[1] - ci[0])
        assert m["n_eff"] == pytest.approx(8 * width ** 2)
    # by hand: the labelled items' human TP is 1+2+3+1+2+3+1+2 = 15 of 8 items → the
    # human-only micro recall is 15 / (8·3) = 0.625 (before any judge correction)
    assert got["metrics"]["micro_recall"]["human"]["value"] == pytest.approx(15 / 24)
    assert got["metrics"]["n_pred"] == {"known": 3 * N}
    assert "Dorner" in got["limit"] and "macro_f1" in res.stdout and "n_eff" in res.stdout


def test_python_api_equals_the_command(run: Path, tmp_path: Path) -> None:
    labels = _labels(tmp_path / "human.jsonl")
    cli = run_cli("estimate", run, "--human", labels, "--out", tmp_path / "est", "--json")
    api = judge.estimate(run, [{"id": f"item-{k}", "matches": _truth(k)} for k in LABELLED])
    want = json.loads(cli.stdout)
    assert api["metrics"] == want["metrics"] and api["design"] == want["design"]


@pytest.mark.parametrize(("line", "field", "message"), [
    ({"id": "item-99", "matches": []}, "id", "'item-99' is not an item of run"),
    ({"id": "item-1", "matches": [["not a pred", "gold 1-0 ⟨α⟩"]]}, "matches",
     "'not a pred' is no prediction of item 'item-1'"),
    ({"id": "item-1", "matches": [["pred 1-0 ⟨α⟩", "gold 1-0 ⟨α⟩"],
                                  ["pred 1-0 ⟨α⟩", "gold 1-1 ⟨β⟩"]]}, "matches",
     "prediction 'pred 1-0 ⟨α⟩' is matched twice"),
    ({"id": "item-1", "matches": [], "run_sha256": "0" * 64}, "run_sha256",
     "these labels were made for another run (sha256 0000000000000000…)"),
    ({"id": "item-1", "matches": [], "pi": 1.5}, "pi",
     "expected an inclusion probability in (0, 1], got 1.5"),
    ({"id": "item-1", "matches": [], "pi": 0}, "pi",
     "expected an inclusion probability in (0, 1], got 0"),
])
def test_bad_labels_are_one_line_exit_2_nothing_written(run: Path, tmp_path: Path,
                                                        line: dict[str, Any], field: str,
                                                        message: str) -> None:
    labels = tmp_path / "bad.jsonl"
    good = [{"id": "item-2", "matches": _truth(2)}, {"id": "item-3", "matches": _truth(3)}]
    extra = {k: v for k, v in line.items() if k in ("pi",)}
    labels.write_text("".join(json.dumps({**g, **extra}, ensure_ascii=False) + "\n"
                              for g in good) + json.dumps(line, ensure_ascii=False) + "\n",
                      encoding="utf-8")
    res = run_cli("estimate", run, "--human", labels, "--out", tmp_path / "est")
    assert res.returncode == 2, res.output
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and res.stdout == "", res.output
    bad_line = 1 if field == "pi" else 3  # pi is checked as each line is read
    assert lines[0].startswith(f"simjudge: error: {labels}:{bad_line}: field '{field}': ")
    assert message in lines[0]
    assert not (tmp_path / "est").exists()


def test_eval_human_writes_the_estimate_and_refuses_bad_labels_before_any_call(
        tmp_path: Path) -> None:
    """With an LLM judge (the loopback fake): good labels → estimate.json in the run; a label
    naming a string the items do not have → exit 2, 0 requests, no run directory."""
    data = write_items(tmp_path / "items.jsonl", N)
    with FakeOpenAIServer() as srv:
        args = ["eval", data, "--judge", "openai:fake", "--base-url", srv.base_url,
                "--cache-dir", tmp_path / "cache", "--bootstrap", "0"]
        bad = tmp_path / "bad.jsonl"
        bad.write_text(json.dumps({"id": "item-1", "matches": [["pred 1-0 ⟨α⟩", "nope"]]},
                                  ensure_ascii=False) + "\n", encoding="utf-8")
        res = run_cli(*args, "--human", bad, "--out", tmp_path / "r1",
                      env={"OPENAI_API_KEY": "sk-local"})
        assert res.returncode == 2 and "'nope' is no gold item of item 'item-1'" in res.stderr
        assert srv.log == [] and not (tmp_path / "r1").exists()
        res = run_cli(*args, "--human", _labels(tmp_path / "human.jsonl"), "--out",
                      tmp_path / "r2", env={"OPENAI_API_KEY": "sk-local"})
    assert res.returncode == 0, res.stderr
    est = json.loads((tmp_path / "r2" / "estimate.json").read_text("utf-8"))
    assert est["n_labelled"] == 8 and "PPI++" in res.stdout
    again = judge.estimate(tmp_path / "r2", tmp_path / "human.jsonl")
    assert again["metrics"] == est["metrics"]


def test_labels_db_item_events_undo_skip_and_estimate(run: Path, tmp_path: Path) -> None:
    """Item labels in labels.db: append-only events, a later one supersedes, skip leaves no
    label, undo falls back; the estimate from the database equals the JSONL one."""
    from judge.calibration.pool import run_sha256
    from judge.review.population import source_id

    db_path = tmp_path / "labels.db"
    source = source_id(run, run_sha256(run))
    with LabelsDB(db_path) as db:
        for k in LABELLED:
            db.append_item("ann", source, f"item-{k}", "label", truth={"matches": []})
            db.append_item("ann", source, f"item-{k}", "label",
                           truth={"matches": _truth(k)})  # supersedes the empty one
        wrong = db.append_item("ann", source, "item-4", "label", truth={"matches": []})
        db.append_item("ann", source, "item-4", "undo", undoes=wrong.id)
        db.append_item("ann", source, "item-8", "skip")
        with pytest.raises(ValueError, match="refused"):
            db.append_item("ann", source, "item-8", "label", truth={"matches": []}, pi=2.0)
    res = run_cli("estimate", run, "--human", db_path, "--out", tmp_path / "est", "--json")
    assert res.returncode == 0, res.stderr
    from_db = json.loads(res.stdout)
    from_file = judge.estimate(run, _labels(tmp_path / "h.jsonl"))
    assert from_db["n_labelled"] == 8 and from_db["metrics"] == from_file["metrics"]
    import sqlite3

    con = sqlite3.connect(db_path)
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        con.execute("DELETE FROM item_events")
    con.close()


def test_labels_export_items_round_trips_and_keeps_runs_apart(run: Path,
                                                                 tmp_path: Path) -> None:
    """A labels.db holding item labels of two runs: estimate reads this run's only;
    ``labels export --items`` writes lines estimate reads to the same numbers; a database with
    other runs' labels only is refused (exit 2, nothing written)."""
    from judge.calibration.pool import run_sha256
    from judge.review.population import source_id

    db_path = tmp_path / "labels.db"
    source = source_id(run, run_sha256(run))
    with LabelsDB(db_path) as db:
        for k in LABELLED:
            db.append_item("ann", source, f"item-{k}", "label", truth={"matches": _truth(k)},
                           design="uniform")
        for k in range(N):  # another run's items share the ids; their labels must not count
            db.append_item("bob", "/elsewhere/run@sha256:" + "ab" * 32, f"item-{k}", "label",
                           truth={"matches": []})
    from_file = judge.estimate(run, _labels(tmp_path / "h.jsonl"))
    assert judge.estimate(run, db_path)["metrics"] == from_file["metrics"]
    out = tmp_path / "exported.jsonl"
    res = run_cli("labels", "export", db_path, "--items", "-o", out)
    assert res.returncode == 0, res.stderr
    assert "20 item labels of 12 items by 2 reviewers" in res.stdout
    assert "they name 2 runs" in res.stdout
    lines = [json.loads(x) for x in out.read_text("utf-8").splitlines()]
    assert len(lines) == 20
    first = lines[0]
    assert first["id"] == "item-1" and first["matches"] == _truth(1)
    assert first["reviewer"] == "ann" and first["design"] == "uniform"
    assert run_sha256(run).startswith(first["run_sha256"]) and first["blind"] is True
    mine = tmp_path / "mine.jsonl"
    mine.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines[:8]),
                    encoding="utf-8")
    assert judge.estimate(run, mine)["metrics"] == from_file["metrics"]
    # the whole export names another run on its last 12 lines: refused as labels of another run
    res = run_cli("estimate", run, "--human", out, "--out", tmp_path / "e1")
    assert res.returncode == 2 and "another run" in res.stderr
    assert not (tmp_path / "e1").exists()
    other = tmp_path / "other.db"
    with LabelsDB(other) as db:
        db.append_item("bob", "/elsewhere/run@sha256:" + "ab" * 32, "item-1", "label",
                       truth={"matches": []})
    res = run_cli("estimate", run, "--human", other, "--out", tmp_path / "e2")
    assert res.returncode == 2 and "other runs only (/elsewhere/run)" in res.stderr
    assert not (tmp_path / "e2").exists()
    res = run_cli("labels", "export", tmp_path / "h.jsonl", "--items", "-o", tmp_path / "x")
    assert res.returncode == 2 and not (tmp_path / "x").exists()


def test_report_marks_the_checked_items(run: Path, tmp_path: Path,
                                        chrome: Any) -> None:
    """estimate's report.html: the 8 checked items marked, each reviewer's matching beside the
    judge's (positions in the item's heatmap), a queue of them; in headless Chromium the
    badges, the queue tab and the human-only/judge-only lists show."""
    from selenium.webdriver.common.by import By

    labels = _labels(tmp_path / "h.jsonl")
    res = run_cli("estimate", run, "--human", labels, "--out", tmp_path / "est")
    assert res.returncode == 0, res.stderr
    page = tmp_path / "est" / "report.html"
    html = page.read_text("utf-8")
    data = json.loads(html.split('<script type="application/json" id="data">', 1)[1]
                      .split("</script>")[0])
    tau = json.loads((run / "config.json").read_text("utf-8"))["tau"]
    checks = data["item_checks"]
    by_id = {c["id"]: c for c in checks.values()}
    assert sorted(by_id) == sorted(f"item-{k}" for k in LABELLED)
    for k in LABELLED:
        c = by_id[f"item-{k}"]
        # item_strings: prediction i and gold i name the same thing; the labels accept the
        # first k % 4 diagonal pairs; the table judge's off-diagonal scores are <= 0.70, so
        # at τ 0.7 it matches the diagonal cells scored above τ
        assert c["reviewers"] == [{"reviewer": "", "human": [[i, i] for i in range(k % 4)],
                                   "value": k % 4}]
        assert c["judge"] == [[i, i] for i in range(3) if cell_score(k, i, i) > tau]
    assert len(data["queues"]["human_checked"]) == 8
    d = chrome
    # the page renders its items from its JSON after load: wait for them, then count
    open_report(d, page)
    wait(d, lambda drv: len(drv.find_elements(By.CSS_SELECTOR, ".item.checked .badge")) >= 8,
         timeout=60, what="the human-checked badges")
    badges = d.find_elements(By.CSS_SELECTOR, ".item.checked .badge")
    assert len(badges) == 8
    tab = next(b for b in d.find_elements(By.CSS_SELECTOR, ".tab")
               if b.text.startswith("Human-checked items"))
    assert tab.text == "Human-checked items (8)"
    row = d.find_element(By.CSS_SELECTOR, "#item-1 .human-check").text
    preds, truths = item_strings(1)
    assert f"{preds[0]} ↔ {truths[0]}" in row
    assert f"judge only: {preds[1]} ↔ {truths[1]} · {preds[2]} ↔ {truths[2]}" in row


def test_function_call_items_are_labelled_correct_or_not(tmp_path: Path) -> None:
    """A function-call run: labels say whether a person accepts an item's calls; accuracy and
    fn_acc_all get the three estimates (the run's per-item verdicts predict the human one),
    fn_acc_name (no judge) is known; a selection-style label is refused, exit 2."""
    res = run_cli("eval", "examples/function_call_openai.jsonl", "--task", "function-call",
                  "--format", "openai", "--out", tmp_path / "run", "--bootstrap", "200")
    assert res.returncode == 0, res.stderr
    rows = _rows(tmp_path / "run")
    f = [float(r["correct"]) for r in rows]
    # six items checked; the person also accepts oa-04 (say, a value the checker is strict on)
    checked = {r["id"]: bool(r["correct"]) or r["id"] == "oa-04" for r in rows[:6]}
    human = tmp_path / "fc.jsonl"
    human.write_text("".join(json.dumps({"id": k, "correct": v}) + "\n"
                             for k, v in checked.items()), encoding="utf-8")
    got = judge.estimate(tmp_path / "run", human)
    m = got["metrics"]
    want = ppi_mean([float(v) for v in checked.values()], f[:6], f)
    assert m["accuracy"]["ppi"]["value"] == pytest.approx(want.value, abs=1e-12)
    assert m["accuracy"]["ppi"]["ci95"] == pytest.approx(list(want.ci), abs=1e-12)
    assert m["accuracy"]["judge"]["value"] == pytest.approx(0.3)
    fn_all = [float(r["fn_acc_all"]) for r in rows]
    want_all = ppi_mean([float(v) for v in checked.values()], fn_all[:6], fn_all)
    assert m["fn_acc_all"]["ppi"]["value"] == pytest.approx(want_all.value, abs=1e-12)
    assert "known" in m["fn_acc_name"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "oa-01", "matches": []}) + "\n", encoding="utf-8")
    res = run_cli("estimate", tmp_path / "run", "--human", bad, "--out", tmp_path / "e")
    assert res.returncode == 2 and "bad.jsonl:1" in res.stderr and "correct" in res.stderr
    assert not (tmp_path / "e").exists()


def _banded(k: int, i: int, j: int) -> float:
    """Scores that put items 0-3 in stratum near (a cell 0.05 from τ 0.7), 4-7 in mid (0.2
    from it) and 8-11 in far (every cell 0.29 away or more)."""
    base = 0.99 if i == j else 0.01
    if (i, j) == (0, 1):
        return {0: 0.75, 1: 0.5}.get(k // 4, base)
    return base


def test_stratified_labels_use_the_runs_strata(tmp_path: Path) -> None:
    """Labels naming their stratum (and pi = n_h/N_h) get the stratified estimator with each
    stratum's own λ: equal to metrics.ppi_mean given the strata (near/mid/far by the distance
    of each item's closest cell to τ, here by construction); a stratum that is not the item's
    is refused."""
    data, table = write_items(tmp_path / "i.jsonl", N), write_table(tmp_path / "t.jsonl", N,
                                                                     _banded)
    res = run_cli("eval", data, "--judge", f"table:{table}", "--out", tmp_path / "run",
                  "--bootstrap", "0", "--cache-mode", "off")
    assert res.returncode == 0, res.stderr
    strata = ["near"] * 4 + ["mid"] * 4 + ["far"] * 4
    chosen = [0, 1, 2, 4, 5, 6, 8, 9, 11]  # 3 of each stratum's 4
    lines = [{"id": f"item-{k}", "matches": _truth(k), "stratum": strata[k], "pi": 0.75}
             for k in chosen]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")
    got = judge.estimate(tmp_path / "run", path)
    assert got["design"]["kind"] == "stratified"
    assert got["design"]["strata"] == {h: {"labelled": 3, "items": 4}
                                       for h in ("near", "mid", "far")}
    m = [float(len(r["matches"])) for r in _rows(tmp_path / "run")]
    want = ppi_mean([float(k % 4) for k in chosen], [m[k] for k in chosen], m,
                    pi=[0.75] * 9, strata=[strata[k] for k in chosen],
                    population_strata=strata).scaled(1 / 3)
    assert got["metrics"]["micro_f1"]["ppi"]["value"] == pytest.approx(want.value)
    assert got["metrics"]["micro_f1"]["ppi"]["ci95"] == pytest.approx(list(want.ci))
    assert len(got["metrics"]["micro_f1"]["lambda"]) == 3
    lines[0]["stratum"] = "far"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")
    res = run_cli("estimate", tmp_path / "run", "--human", path, "--out", tmp_path / "e")
    assert res.returncode == 2
    assert res.stderr.startswith(f"simjudge: error: {path}:1: field 'stratum': item 'item-0' is "
                                 "in stratum 'near' of this run, the label says 'far'")
