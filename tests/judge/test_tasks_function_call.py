"""``simjudge eval --task function-call``: BFCL agreement, formats, argument judge, parsing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.tasks.bfclmodels import bfcl_model
from judge.tasks.fcformats import Unparseable
from tests.conftest import EXAMPLES, shared_file

runner = CliRunner()
CATEGORIES = {"simple": 0.8825, "multiple_function": 0.91, "parallel_function": 0.90,
              "parallel_multiple_function": 0.83}


def _eval(*args: str | Path) -> None:
    res = runner.invoke(app, ["eval", *map(str, args)], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("category", list(CATEGORIES))
def test_bfcl_agrees_with_official_score_files(tmp_path, category: str) -> None:  # type: ignore[no-untyped-def]
    base = "gorilla_openfunctions_v1_test_"
    results = shared_file(f"bfcl/results/gpt-4o-2024-05-13-FC/{base}{category}_result.json")
    gold = shared_file(f"bfcl/gold/possible_answer/{base}{category}.json")
    questions = shared_file(f"bfcl/gold/question/{base}{category}.json")
    score_file = shared_file(f"bfcl/scores/gpt-4o-2024-05-13-FC/{category}_score.json")
    _eval(results, "--task", "function-call", "--format", "bfcl", "--gold", gold,
          "--functions", questions, "--out", tmp_path / "run", "--bootstrap", "0")
    lines = score_file.read_text().splitlines()
    official = json.loads(lines[0])
    failed = {json.loads(x)["prompt"]["id"] for x in lines[1:]}
    rows = [json.loads(x) for x in (tmp_path / "run" / "items.jsonl").read_text().splitlines()]
    agree = sum(r["correct"] == (r["id"] not in failed) for r in rows)
    assert agree / len(rows) >= 0.99
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert abs(summary["metrics"]["accuracy"] - official["accuracy"]) <= 0.005
    assert official["accuracy"] == CATEGORIES[category]
    assert all(r["error_type"] for r in rows if not r["correct"])
    counts = summary["metrics"]["error_types"]
    assert sum(counts.values()) == sum(not r["correct"] for r in rows)


def test_seed_set_strict_and_with_argument_judge(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = EXAMPLES / "seed003_home_automation.jsonl"
    _eval(data, "--task", "function-call", "--id-field", "id", "--out", tmp_path / "strict",
          "--bootstrap", "0")
    strict = json.loads((tmp_path / "strict" / "summary.json").read_text())["metrics"]
    assert (strict["fn_acc_name"], round(strict["fn_acc_all"], 5)) == (1.0, 0.72727)
    _eval(data, "--task", "function-call", "--id-field", "id", "--arg-judge", "local",
          "--out", tmp_path / "judged", "--cache-dir", tmp_path / "c", "--bootstrap", "0")
    rows = {json.loads(x)["id"]: json.loads(x)
            for x in (tmp_path / "judged" / "items.jsonl").read_text().splitlines()}
    assert rows["ha-05"]["fn_acc_all"] == 1.0 and rows["ha-05"]["correct"]  # 开启 ≈ 打开
    assert rows["ha-03"]["fn_acc_all"] == 0.0 and not rows["ha-03"]["correct"]  # 23 ≠ 22
    assert rows["ha-11"]["error_type"] == "value_mismatch"  # 关闭 is the opposite of 打开
    verdicts = [json.loads(x) for x in (tmp_path / "judged" / "verdicts.jsonl").read_text()
                .splitlines()]
    # numbers are never sent to the judge; the two string pairs are, once each
    assert sorted((v["pred"], v["truth"]) for v in verdicts) == [("关闭", "打开"), ("开启", "打开")]
    summary = json.loads((tmp_path / "judged" / "summary.json").read_text())
    assert summary["metrics"]["fn_acc_all"] == pytest.approx(9 / 11)


def test_openai_tool_calls_format_and_unparseable(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rows = [
        {"id": 1, "gold_fn": [{"name": "light", "arguments": {"room": "客厅", "on": True}}],
         "tool_calls": [{"type": "function", "function": {
             "name": "light", "arguments": "{\"room\": \"客厅\", \"on\": true}"}}]},
        {"id": 2, "gold_fn": [{"name": "light", "arguments": {"room": "卧室", "on": False}}],
         "tool_calls": [{"type": "function", "function": {
             "name": "light", "arguments": "{\"room\": \"卧室\", \"on\": tru"}}]},
    ]
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    _eval(data, "--task", "function-call", "--format", "openai", "--id-field", "id",
          "--out", tmp_path / "run", "--bootstrap", "0")
    items = [json.loads(x) for x in (tmp_path / "run" / "items.jsonl").read_text().splitlines()]
    assert items[0]["correct"] and items[0]["fn_acc_all"] == 1.0
    assert items[1]["error_type"] == "unparseable" and not items[1]["correct"]
    assert items[1]["fn_acc_all"] == 0.0 and items[1]["fn_acc_name"] == 0.0  # never credited


def test_raw_text_results_are_parsed_safely() -> None:
    decode = bfcl_model("generic").decode
    assert decode("[math.factorial(number=5), g(x='a', y=[1, 2])]", "python") == [
        {"math.factorial": {"number": 5}}, {"g": {"x": "a", "y": [1, 2]}}]
    # nothing is ever run: a keyword-less call is kept as its text (BFCL's leniency)
    assert decode("[f(x=open('/etc/passwd'))]", "python") == [{"f": {"x": "open('/etc/passwd')"}}]
    for bad in ("__import__('os').system('echo x') + 1", "[f(x=1", "[f(x=y + 1)]"):
        with pytest.raises(Unparseable):
            decode(bad, "python")
    assert decode([{"f": "{\"a\": 1}"}], "python") == [{"f": {"a": 1}}]
    with pytest.raises(Unparseable):
        decode([{"f": "{\"a\": 1"}], "python")
    assert decode([], "python") == []  # no call: wrong for an AST item, right for relevance


def test_bfcl_needs_its_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = tmp_path / "r.jsonl"
    data.write_text('{"id": "simple_0", "result": []}\n')
    res = runner.invoke(app, ["eval", str(data), "--task", "function-call", "--format", "bfcl"])
    assert res.exit_code == 2 and "needs --functions" in res.output
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id": "simple_0", "function": {"name": "f"}}\n')
    res = runner.invoke(app, ["eval", str(data), "--task", "function-call", "--format", "bfcl",
                              "--functions", str(questions)])
    # only relevance items may come without a possible answer
    assert res.exit_code == 2 and "has no possible answer" in res.output
    res = runner.invoke(app, ["eval", str(data), "--task", "function-call", "--format", "xml"])
    assert res.exit_code == 2 and "unknown function-call format" in res.output
