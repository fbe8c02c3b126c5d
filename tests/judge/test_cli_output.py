"""Issue 11, "What the user sees": terminal output of eval/compare/calibrate, the audit report's
item content for every task, counts as integers, and the example commands of the docs
(docs/getting-started.md).

Terminal checks run the CLI in-process as a piped process with ``COLUMNS=100``
(:func:`tests.clirun.run_cli`); the HTML checks drive
Debian's chromium through chromedriver (skipped when selenium/chromium are absent) and also read
the report's embedded JSON.
"""

from __future__ import annotations

import json
import re
import shlex
from fractions import Fraction
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pytest
from rich.console import Console
from typer.testing import CliRunner

from judge.cli import app
from judge.display import compare_summary, eval_summary, print_all
from tests.browser import open_report
from tests.clirun import CliResult, run_cli
from tests.conftest import EXAMPLES, REPO

runner = CliRunner()
LONG_FLOAT = re.compile(r"\d\.\d{5,}")  # a repr such as -0.2233515852077883


def _cli(*args: str | Path, cwd: Path = REPO) -> CliResult:
    """``simjudge ARGS`` in-process, piped, on a 100-column terminal."""
    return run_cli(*args, cwd=cwd, columns=100)


def _readable(text: str, width: int = 100) -> None:
    for line in text.splitlines():
        assert len(line) <= width, f"{len(line)} columns: {line!r}"
    assert not LONG_FLOAT.search(text), LONG_FLOAT.search(text)
    assert "None" not in text and "nan" not in text.lower().split()


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").split("\n") if x.strip()]


# ------------------------------------------------------------------ documented example commands

def _readme_eval_commands() -> list[list[str]]:
    """Every ``simjudge eval examples/…`` command in the ```bash blocks of Getting started
    (docs/getting-started.md: the first eval and one command per example file), except those
    that read a file an earlier command of their block writes (``--tau-from``). Every snippet
    of every page also runs in tests/test_docs_snippets.py."""
    text = (REPO / "docs" / "getting-started.md").read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```bash[^\n]*\n(.*?)```", text, flags=re.S):
        joined = block.replace("\\\n", " ")
        for line in joined.splitlines():
            k = line.find("simjudge eval examples/")
            if k >= 0 and "--tau-from" not in line:
                commands.append(shlex.split(line[k:])[2:])  # drop "simjudge eval"
    return commands


AP_301 = (Fraction(1, 6) + Fraction(2, 7)) / 2  # relevant at ranks 6 and 7 of 10, R = 2
AP_302 = (1 + 1 + Fraction(3, 4) + Fraction(4, 5) + Fraction(5, 6) + Fraction(6, 8)
          + Fraction(7, 9)) / 7  # relevant at ranks 1, 2, 4, 5, 6, 8, 9 of 10, R = 7

# data file → (summary metric, value derived by hand); see examples/README.md
KNOWN: dict[str, list[tuple[str, float]]] = {
    # 24 items × 4 gold terms; macro F1 as published in docs/getting-started.md for the local judge
    "examples/glossary_en_zh.jsonl": [("n_truth", 96), ("macro_f1", 0.6709)],
    # TP 4 (term-01..04), FP 2 (05, 06), FN 1 (07), TN 3 → F1 = 8/(8+2+1) = 8/11
    "examples/judgment_term_translation.jsonl": [("f1", 8 / 11), ("tp", 4), ("fp", 2)],
    # per-item token F1: gen-01 2·1·(5/6)/(1+5/6) = 10/11, gen-03 0, four exact → (10/11+4)/6
    "examples/generation_short_answers.jsonl": [("f1", 9 / 11), ("precision", 5 / 6)],
    # overall TP 7, FP 2, FN 2 → O-P = O-R = O-F1 = 7/9
    "examples/multilabel_support_tickets.jsonl": [("of1", 7 / 9), ("op", 7 / 9)],
    "examples/ranking_trec.run": [("map", float((AP_301 + AP_302) / 2)), ("queries", 2)],
    # seed 003: items 3 ("22"≠"23"), 5 ("开启"≠"打开"), 11 fail strict matching → 8/11
    "examples/seed003_home_automation.jsonl": [("fn_acc_all", 8 / 11), ("fn_acc_name", 1.0)],
    # oa-01..03 correct, one item of each of the 7 error types → 3/10
    "examples/function_call_openai.jsonl": [("accuracy", 0.3)],
    # lexical: only "New York" ↔ "New York City" (0.775) > 0.7, 2 exact → TP 2.775 of 6/6
    # (hand derivation in tests/judge/test_tasks_spans.py); strict 2/6
    "examples/spans_ner.jsonl": [("micro_f1", 0.4625), ("strict_f1", 1 / 3)],
    # simple_0, simple_1, multiple_function_2, parallel_function_0 correct → 4/9
    "examples/bfcl/result.jsonl": [("accuracy", 4 / 9)],
}


@pytest.fixture(scope="module")
def readme_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, str, Path]]:
    """Run every documented example command (in the repository, as a user would); data file →
    (exit code, output, run dir)."""
    base = tmp_path_factory.mktemp("readme")
    runs: dict[str, tuple[int, str, Path]] = {}
    for k, args in enumerate(_readme_eval_commands()):
        out = base / f"run{k}"
        res = _cli("eval", *args, "--out", out, "--bootstrap", "200", "--cache-dir",
                   base / "cache")
        runs[args[0]] = (res.returncode, res.output, out)
    return runs


def test_readme_runs_every_example_with_its_known_value(
        readme_runs: dict[str, tuple[int, str, Path]]) -> None:
    """Each example file is run by a documented command, exits 0, and gives the value derived by
    hand; every file in examples/ is used by one command (or is a BFCL side file)."""
    assert set(readme_runs) == set(KNOWN), set(readme_runs) ^ set(KNOWN)
    for data, (code, output, out) in readme_runs.items():
        assert code == 0, (data, output)
        metrics = _json(out / "summary.json")["metrics"]
        for key, value in KNOWN[data]:
            assert metrics[key] == pytest.approx(value, abs=5e-5), (data, key)
    used = {Path(d).name for d in readme_runs} | {"ranking_trec.qrels", "README.md",
                                                 "am2ico_word_pairs.tsv",
                                                 "multisimlex_en_zh_pairs.tsv",
                                                 "glossary_items_human.jsonl",
                                                 # docs/tutorials/human-check.md runs these
                                                 "am2ico_items.jsonl",
                                                 "am2ico_items_human.jsonl",
                                                 "am2ico_items_human40.jsonl"}
    assert {p.name for p in EXAMPLES.iterdir() if p.is_file()} <= used
    assert {p.name for p in (EXAMPLES / "bfcl").iterdir()} == {
        "result.jsonl", "possible_answer.jsonl", "questions.jsonl"}


# ------------------------------------------------------------------ eval on the terminal

def test_text_overlap_is_off_for_bfcl_unless_switched_on(tmp_path: Path) -> None:
    """Seed 003's ROUGE/BLEU of the calls' texts: left out with --format bfcl (BFCL reports
    none), computed with --text-overlap, left out of a seed-format run by --no-text-overlap;
    config.json records the choice, and the rows and metrics agree with it."""
    bfcl = ("examples/bfcl/result.jsonl", "--task", "function-call", "--format", "bfcl",
            "--gold", "examples/bfcl/possible_answer.jsonl", "--functions",
            "examples/bfcl/questions.jsonl", "--bootstrap", "0")
    seed = ("examples/seed003_home_automation.jsonl", "--task", "function-call",
            "--bootstrap", "0")
    for name, args, on in (("default", bfcl, False), ("on", (*bfcl, "--text-overlap"), True),
                           ("seed-off", (*seed, "--no-text-overlap"), False)):
        res = _cli("eval", *args, "--out", tmp_path / name)
        assert res.returncode == 0, res.stderr
        config = _json(tmp_path / name / "config.json")
        assert config["text_overlap"] is on, name
        rows = [json.loads(line) for line in
                (tmp_path / name / "items.jsonl").read_text(encoding="utf-8").splitlines()]
        metrics = _json(tmp_path / name / "summary.json")["metrics"]
        for key in ("rouge-1", "rouge-2", "rouge-l", "bleu-4"):
            assert all((key in r) is on for r in rows), (name, key)
            assert (key in metrics) is on, (name, key)
        assert ("rouge-l" in res.stdout) is on, name
        if on:  # the dataset value is the mean of the items' values
            assert metrics["rouge-l"] == pytest.approx(
                sum(r["rouge-l"] for r in rows) / len(rows), abs=1e-12)
    # runs with and without text overlap compare on the metrics both hold
    res = _cli("compare", tmp_path / "on", tmp_path / "default", "--out", tmp_path / "cmp")
    assert res.returncode == 0, res.stderr
    compared = _json(tmp_path / "cmp" / "compare.json")["differences"][0]["metrics"]
    assert "accuracy" in compared and "rouge-l" not in compared
    assert compared["accuracy"]["diff"] == 0.0  # the same checker verdicts either way


def test_eval_prints_cis_and_function_call_error_types(tmp_path: Path) -> None:
    res = _cli("eval", "examples/bfcl/result.jsonl", "--task", "function-call", "--format",
               "bfcl", "--gold", "examples/bfcl/possible_answer.jsonl", "--functions",
               "examples/bfcl/questions.jsonl", "--out", tmp_path / "run", "--bootstrap", "300")
    assert res.returncode == 0, res.stderr
    _readable(res.stdout)
    summary = _json(tmp_path / "run" / "summary.json")
    ci = summary["bootstrap"]["ci95"]
    assert set(ci) >= {"accuracy", "fn_acc_name"}
    assert "bleu-4" not in ci  # no text overlap with --format bfcl unless --text-overlap
    for metric, (lo, hi) in ci.items():  # every metric with its CI, rounded, on one row
        value = summary["metrics"][metric]
        if value != value:  # a BFCL category without items (java here): undefined, shown as –
            assert re.search(rf"{re.escape(metric)}\s+–\s+\[–, –\]", res.stdout), metric
            continue
        assert re.search(rf"{re.escape(metric)}\s+{value:.4f}\s+\[{lo:.4f}, {hi:.4f}\]",
                         res.stdout), metric
    # one item of each of these error types (examples/README.md), 4 of 9 correct
    for etype in ("wrong_count", "wrong_name", "type_mismatch", "value_mismatch",
                  "unparseable"):
        assert re.search(rf"{etype}\s+1\s+0\.111\b", res.stdout), etype
    assert re.search(r"correct\s+4\s+0\.444\b", res.stdout)
    assert "missing_required" not in res.stdout  # zero counts are left out
    assert re.search(r"parallel_multiple_function\s+0\.0000", res.stdout)
    assert re.search(r"eval_size\s+9\s", res.stdout)  # a count, not 9.00000


@pytest.fixture(scope="module")
def glossary_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The glossary example judged by local, by lexical, and by their panel (one cache)."""
    base = tmp_path_factory.mktemp("glossary")
    data = EXAMPLES / "glossary_en_zh.jsonl"
    runs = {}
    for name, judges in (("local", ["local"]), ("lexical", ["lexical"]),
                         ("panel", ["local", "lexical"])):
        args = [str(data), "--out", str(base / name), "--cache-dir", str(base / "cache"),
                "--bootstrap", "200"]
        for j in judges:
            args += ["--judge", j]
        res = runner.invoke(app, ["eval", *args])
        assert res.exit_code == 0, res.output
        runs[name] = base / name
    return runs


def test_eval_prints_panel_agreement(glossary_runs: dict[str, Path], tmp_path: Path) -> None:
    res = _cli("eval", EXAMPLES / "glossary_en_zh.jsonl", "--judge", "local", "--judge",
               "lexical", "--out", tmp_path / "run", "--cache-dir",
               glossary_runs["local"].parent / "cache", "--bootstrap", "200")
    assert res.returncode == 0, res.stderr
    _readable(res.stdout)
    # α computed independently (krippendorff package) from the members' stored verdicts
    rows = [v for v in _jsonl(tmp_path / "run" / "verdicts.jsonl") if v.get("member_of")]
    scores: dict[tuple[Any, str, str], dict[str, float]] = {}
    for v in rows:
        scores.setdefault((v.get("item_id"), v["pred"], v["truth"]), {})[v["judge_id"]] = (
            v["score"])
    pairs = [s for s in scores.values() if len(s) == 2]
    mat = np.array([[s["local"] for s in pairs], [s["lexical"] for s in pairs]])
    a_int = krippendorff.alpha(reliability_data=mat, level_of_measurement="interval")
    a_nom = krippendorff.alpha(reliability_data=(mat > 0.7).astype(float),
                               level_of_measurement="nominal")
    assert f"over the {len(pairs)} pairs every member scored" in res.stdout
    assert f"interval {a_int:.3f}, nominal at τ {a_nom:.3f}" in res.stdout
    # lexical gives 0 to every cross-lingual pair: Pearson/Spearman undefined → "–"
    assert re.search(r"local vs lexical\s+0\.000\s+–\s+–", res.stdout)
    disagreements = len(_jsonl(tmp_path / "run" / "disagreements.jsonl"))
    assert f"{disagreements} pairs with members on both sides of τ" in res.stdout
    assert re.search(r"n_pred\s+96\s", res.stdout)  # 24 items × 4 predictions, an integer
    # a panel of four with long ids still fits 100 columns when rendered directly
    summary = _json(tmp_path / "run" / "summary.json")
    ids = [f"openai:very-long-model-name-{k}-2024-08-06" for k in range(4)]
    agree = summary["panel"]["agreement"]
    agree["pairwise"] = [{**agree["pairwise"][0], "a": a, "b": b}
                         for i, a in enumerate(ids) for b in ids[i + 1:]]
    summary["panel"]["members"] = ids
    console = Console(width=100, record=True, color_system=None)
    print_all(console, eval_summary(summary))
    text = console.export_text()
    _readable(text)
    assert text.count("κ at τ") == 1 and text.count("0.000") >= 6


# ------------------------------------------------------------------ compare

def test_compare_rounded_fits_100_columns(glossary_runs: dict[str, Path], tmp_path: Path,
                                          ) -> None:
    a, b, c = glossary_runs["local"], glossary_runs["lexical"], glossary_runs["panel"]
    res = _cli("compare", a, b, c, "--out", tmp_path / "cmp", "--bootstrap", "200")
    assert res.returncode == 0, res.stderr
    _readable(res.stdout)
    result = _json(tmp_path / "cmp" / "compare.json")
    ab = result["agreement"][0]
    assert ab["pearson"] is None and ab["alpha_interval"] is not None
    # the A vs B agreement row: 381 shared pairs, Pearson/Spearman undefined, α rounded
    assert re.search(rf"A vs B\s+{ab['shared_pairs']}\s+–\s+–\s+{ab['kappa_at_tau']:.3f}\s+"
                     rf"{ab['alpha_interval']:.3f}", res.stdout), res.stdout
    assert f"A = {a}" in res.stdout and f"C = {c}" in res.stdout
    diff = result["differences"][0]["metrics"]["macro_f1"]
    assert (f"{diff['diff']:+.3f} [{diff['ci95'][0]:+.3f}, {diff['ci95'][1]:+.3f}]"
            in res.stdout)
    md = (tmp_path / "cmp" / "compare.md").read_text(encoding="utf-8")
    assert not LONG_FLOAT.search(md) and "None" not in md and "{'ok'" not in md
    assert f"| {ab['alpha_interval']:.3f} |" in md and "| – | – |" in md
    # rendered directly on a 100-column console, long run names included
    result["runs"][2]["path"] = "/a/very/long/path/" + "x" * 120
    console = Console(width=100, record=True, color_system=None)
    print_all(console, compare_summary(result))
    _readable(console.export_text())


# ------------------------------------------------------------------ calibrate

def test_calibrate_says_how_repeated_rows_were_merged(tmp_path: Path) -> None:
    pairs = [("开灯", "turn on the light"), ("关灯", "turn on the light"), ("发票", "invoice"),
             ("退款", "refund"), ("退货", "refund"), ("仓库", "warehouse"),
             ("用户登录", "user login"), ("用户注销", "user login"),
             ("职位信息", "job information"), ("部门", "department"), ("预算", "budget"),
             ("价格", "price list")]
    votes = [[1, 1, 1], [0, 0, 1], [1, 1, 1], [1, 1, 0], [0, 0, 0], [1, 1, 1], [1, 1, 1],
             [0, 1, 0], [1, 1, 1], [1, 0, 1], [0, 0, 0], [0, 0, 1]]
    path = tmp_path / "labels.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for k in range(3):  # three annotators, one row per pair each: 36 rows
            for (p, t), v in zip(pairs, votes, strict=True):
                fh.write(json.dumps({"pred": p, "truth": t, "label": v[k]},
                                    ensure_ascii=False) + "\n")
    alpha = krippendorff.alpha(reliability_data=np.array(votes).T,
                               level_of_measurement="nominal")
    positives = sum(sum(v) >= 2 for v in votes)  # majority of 3 → 7
    res = _cli("calibrate", path, "--judge", "lexical", "--out", tmp_path / "cal",
               "--bootstrap", "20", "--folds", "2", "--cache-dir", tmp_path / "c")
    assert res.returncode == 0, res.stderr
    _readable(res.stdout)
    line = " ".join(res.stdout.split())  # rich may wrap the sentence
    assert (f"labels: 36 rows → 12 pairs ({positives} positive), 3 annotations per pair "
            f"merged by majority (a tie is negative); inter-annotator Krippendorff's α "
            f"(nominal) {alpha:.3f}") in line
    assert f"{alpha:.3f}" == "0.432"
    labels = _json(tmp_path / "cal" / "calibration.json")["labels"]
    assert labels["rows"] == 36 and labels["pairs"] == 12
    assert labels["inter_annotator_alpha"] == pytest.approx(alpha, abs=1e-12)


def test_calibrate_with_one_row_per_pair_says_so(tmp_path: Path) -> None:
    from judge.calibration.labels import load_labels

    path = tmp_path / "l.tsv"
    path.write_text("pred\ttruth\tlabel\na\tA\t1\nb\tC\t0\nc\tC\t1\n", encoding="utf-8")
    assert load_labels(path).describe() == ("labels: 3 rows → 3 pairs (2 positive), "
                                            "1 annotation per pair")
    path.write_text('pred\ttruth\tlabel\na\tA\t[1, 1]\nb\tC\t0\nb\tC\t1\nb\tC\t0\n',
                    encoding="utf-8")
    text = load_labels(path).describe()  # a list in a cell and repeated rows: 2–3 per pair
    assert text.startswith("labels: 4 rows → 2 pairs (1 positive), 2–3 annotations per pair")


# ------------------------------------------------------------------ audit report content

TASK_RUNS = {"judgment": "examples/judgment_term_translation.jsonl",
             "generation": "examples/generation_short_answers.jsonl",
             "multilabel": "examples/multilabel_support_tickets.jsonl",
             "ranking": "examples/ranking_trec.run",
             "openai": "examples/function_call_openai.jsonl",
             "bfcl": "examples/bfcl/result.jsonl"}


def _report_json(run: Path) -> dict[str, Any]:
    html = (run / "report.html").read_text(encoding="utf-8")
    raw = html.split('<script type="application/json" id="data">', 1)[1].split("</script>")[0]
    return json.loads(raw)


def _item(data: dict[str, Any], item_id: str) -> dict[str, Any]:
    return next(i for i in data["items"] if i["id"] == item_id)


def test_audit_embeds_each_items_content(readme_runs: dict[str, tuple[int, str, Path]]) -> None:
    runs = {k: readme_runs[v][2] for k, v in TASK_RUNS.items()}
    d = _report_json(runs["judgment"])
    assert _item(d, "term-05") == {  # the model said "translation", the reference says not
        "id": "term-05", "source": "examples/judgment_term_translation.jsonl:5",
        "query": "refund → 退货", "content": {"kind": "boolean", "pred": True, "truth": False,
                                              "correct": False},
        "metrics": {}, "heatmaps": []}
    assert d["header"]["int_metrics"] == ["tp", "fp", "fn", "tn"]  # metrics.Confusion's order
    g = _item(_report_json(runs["generation"]), "gen-02")["content"]
    assert g == {"kind": "texts", "pred": "Mercury", "truth": ["Mercury", "the planet Mercury"]}
    m = _item(_report_json(runs["multilabel"]), "ticket-03")["content"]
    assert m == {"kind": "labels", "pred": ["billing", "bug"], "truth": ["bug"], "missing": [],
                 "extra": ["billing"]}
    r = _item(_report_json(runs["ranking"]), "301")["content"]
    assert r["relevant"] == [["FBIS3-20551", 1, 6], ["FBIS3-20552", 1, 7]]
    assert r["ranked"][0] == [1, "FBIS4-50478", 0] and r["retrieved"] == 10
    o = _item(_report_json(runs["openai"]), "oa-05")["content"]
    assert o["gold"] == [{"name": "set_alarm", "arguments": {"time": "07:30"}}]
    assert o["pred"] == [{"name": "set_alarm", "arguments": {"time": "07:00"}}]
    assert o["error_type"] == "value_mismatch" and o["correct"] is False
    u = _item(_report_json(runs["openai"]), "oa-10")["content"]  # raw tool call kept
    assert u["error_type"] == "unparseable"
    assert u["pred"][0]["function"]["arguments"] == '{"text": "good morning", "target_la'
    b = _item(_report_json(runs["bfcl"]), "parallel_function_0")["content"]
    assert b["gold"]["spotify.play_1"] == {"artist": ["Taylor Swift"], "duration": [20]}
    assert b["matching"] == [[0, 1], [1, 0]] and b["correct"] is True  # swapped order
    raw = _item(_report_json(runs["bfcl"]), "parallel_multiple_function_1")["content"]["pred"]
    assert raw.startswith("[area_rectangle.calculate(length=7.0")


def test_audit_markdown_and_jsonl_show_content(readme_runs: dict[str, tuple[int, str, Path]],
                                               ) -> None:
    runs = {k: readme_runs[v][2] for k, v in TASK_RUNS.items()}
    expected_md = {
        "judgment": ["### term-07", "- query: 'suspended job → 暂停的作业'",
                     "- prediction: false · gold: true → wrong"],
        "generation": ["- prediction: 'Sydney'", "- reference: 'Canberra'"],
        "multilabel": ["- predicted: account", "- gold: account, email",
                       "- missing: email · extra: –"],
        "ranking": ["- relevant: FBIS3-20551 (grade 1, rank 6), FBIS3-20552 (grade 1, rank 7)",
                    "  6. FBIS3-20551 (grade 1)", "### 302 — retrieved 10 · relevant 7 · ap 0.844"],
        "openai": ["- wrong: missing_required — missing required parameter 'subject'",
                   '  {"name": "send_email", "arguments": {"to": "王经理", '
                   '"body": "本周进度已更新"}}'],
        "bfcl": ["- wrong: wrong_count — 1 call(s) for 2 expected · category parallel_function",
                 '  "calculate_em_force_2": {"b_field": [5], "area": [2], "d_time": [10]}'],
    }
    for task, run in runs.items():
        for fmt in ("md", "jsonl"):
            res = runner.invoke(app, ["audit", str(run), "--format", fmt])
            assert res.exit_code == 0, res.output
        md = (run / "report.md").read_text(encoding="utf-8")
        for line in expected_md[task]:  # each a whole line, or the start of a heading
            assert any(x == line or (x.startswith("###") and x.startswith(line))
                       for x in md.splitlines()), (task, line)
        rows = _jsonl(run / "report.jsonl")
        assert len(rows) == _json(run / "summary.json")["n_items"]
        assert all(r["task"] == ("function-call" if task in ("openai", "bfcl") else task)
                   for r in rows)
    rank = _jsonl(runs["ranking"] / "report.jsonl")[1]
    assert rank["id"] == "302" and rank["metrics"]["ap"] == pytest.approx(float(AP_302))
    assert [r[2] for r in rank["relevant"]] == [1, 2, 4, 5, 6, 8, 9]
    fc = {r["id"]: r for r in _jsonl(runs["openai"] / "report.jsonl")}
    assert fc["oa-08"]["error_type"] == "type_mismatch"
    assert fc["oa-08"]["pred"][0]["arguments"]["count"] == "3"


JS_ITEMS = """
return Array.from(document.querySelectorAll('section.item')).map(s => ({
  title: s.querySelector('h3').textContent,
  cells: Array.from(s.querySelectorAll('tr')).map(tr => Array.from(tr.children).map(
    c => c.textContent)),
  chips: Array.from(s.querySelectorAll('.chip')).map(c => c.textContent + ':' + c.className),
  pre: Array.from(s.querySelectorAll('pre')).map(p => p.className + '|' + p.textContent)}));
"""
JS_HEADER = """
return {metrics: Object.fromEntries(Array.from(document.querySelectorAll('tr[data-metric]'))
          .map(tr => [tr.dataset.metric, tr.children[1].textContent])),
        accounting: document.getElementById('accounting').textContent,
        groups: Array.from(document.querySelectorAll('p[data-metric]')).map(p => p.textContent),
        detailHidden: document.getElementById('detail').classList.contains('hidden')};
"""


def test_browser_report_shows_content_and_integer_counts(
        readme_runs: dict[str, tuple[int, str, Path]], chrome: Any) -> None:
    runs = {k: readme_runs[v][2] for k, v in TASK_RUNS.items()}
    seen: dict[str, Any] = {}
    for task, run in runs.items():
        open_report(chrome, run / "report.html")  # its items and header drawn
        seen[task] = {"items": chrome.execute_script(JS_ITEMS),
                      "header": chrome.execute_script(JS_HEADER)}
    h = seen["judgment"]["header"]
    assert {k: h["metrics"][k] for k in ("tp", "tn", "fp", "fn", "f1")} == {
        "tp": "4", "tn": "3", "fp": "2", "fn": "1", "f1": "0.7273"}
    assert h["accounting"].startswith("judge calls 0 · cache hits 0 · tokens 0 · USD 0.0000")
    assert h["detailHidden"]  # no pairs to inspect: the side panel is hidden
    assert seen["bfcl"]["header"]["metrics"]["eval_size"] == "9"
    assert ("error_types: wrong_count 1 · wrong_name 1 · missing_required 0 · unexpected_param "
            "0 · type_mismatch 1 · value_mismatch 1 · missing_optional 0 · unparseable 1 · "
            "called_function 0"
            in seen["bfcl"]["header"]["groups"])
    assert any("parallel_multiple_function 0.0000" in g  # a share, not a count
               for g in seen["bfcl"]["header"]["groups"])
    assert seen["ranking"]["header"]["metrics"]["queries"] == "2"

    def item(task: str, prefix: str) -> dict[str, Any]:
        return next(i for i in seen[task]["items"] if i["title"].startswith(prefix))

    assert item("judgment", "term-06")["cells"] == [
        ["query", "user login → 用户注销"], ["prediction", "true"], ["gold", "false"],
        ["verdict", "wrong"]]
    assert ["reference 2", "the planet Mercury"] in item("generation", "gen-02")["cells"]
    assert item("multilabel", "ticket-05")["chips"] == [
        "email:chip hit", "account:chip miss", "email:chip hit"]
    r301 = item("ranking", "301")
    assert r301["title"].startswith("301  retrieved 10 · relevant 2 · ap 0.226")
    assert ["FBIS3-20551", "1", "6"] in r301["cells"] and ["6", "FBIS3-20551", "1"] in (
        r301["cells"])
    oa = item("openai", "oa-07")
    assert ["verdict", "wrong: unexpected_param"] in oa["cells"]
    assert any(p.startswith("pred-calls|") and '"priority":"high"' in p for p in oa["pre"])
    assert any(p.startswith("gold-calls|") and '"time":"17:00"' in p for p in oa["pre"])
    bf = item("bfcl", "simple_1")
    assert any(p.startswith("pred-calls|") and '"math.factorial"' in p for p in bf["pre"])
