"""Issue 11, reading input: gold joins on ids, data ids kept, JSONL split on ``\\n`` only, bad
input (encodings, JSON the parser chokes on, BFCL shapes) and ``--max-chars``.

Every case runs the real CLI on real files: in a subprocess where the behaviour is the process's
(exit status, no traceback, memory), else in-process with typer's runner. "Checked before any
judge call" is shown with a loopback OpenAI-compatible server that logs every request.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from judge import evaluate
from judge.cli import app
from judge.errors import InputError
from judge.io import read_records
from tests.clirun import CliResult, run_cli
from tests.conftest import shared_file
from tests.fake_openai import FakeOpenAIServer

runner = CliRunner()
ODD = "a\u2028b\u2029c\u0085d"  # JSON allows these unescaped; str.splitlines() splits on them


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    return path


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").split("\n") if x.strip()]


def _invoke(*args: str | Path) -> tuple[int, str, BaseException | None]:
    res = runner.invoke(app, [*map(str, args)], env={"COLUMNS": "200"})
    return res.exit_code, res.output, res.exception


def _cli(*args: str | Path, cwd: Path) -> CliResult:
    return run_cli(*args, cwd=cwd)


def _assert_bad_input(code: int, output: str, exc: BaseException | None, pattern: str,
                      tmp_path: Path) -> None:
    """Exit 2, one error line matching ``pattern``, no traceback, nothing written."""
    assert code == 2, output
    assert isinstance(exc, SystemExit), exc  # not an uncaught exception
    lines = [x for x in output.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("simjudge: error: "), output
    assert re.search(pattern, lines[0]), lines[0]
    assert "Traceback" not in output
    assert not (tmp_path / "run").exists()
    assert not list(tmp_path.glob(".run*"))


# --- 1. gold joined on ids -----------------------------------------------------------------

PRED = [{"id": "a", "pred": ["User Login", "Report"]}, {"id": "b", "pred": ["x y"]},
        {"id": "c", "pred": ["alpha"]}, {"id": "d", "pred": []}]
GOLD = [{"id": "a", "truth": ["user login", "Audit"]}, {"id": "b", "truth": ["XY"]},
        {"id": "c", "truth": ["omega"]}, {"id": "d", "truth": []}]


def test_reversed_gold_gives_the_aligned_f1(tmp_path: Path) -> None:
    pred = _jsonl(tmp_path / "pred.jsonl", PRED)
    aligned = _jsonl(tmp_path / "gold.jsonl", GOLD)
    reversed_ = _jsonl(tmp_path / "gold_rev.jsonl", GOLD[::-1])
    f1 = {}
    for name, gold in (("aligned", aligned), ("reversed", reversed_)):
        proc = _cli("eval", pred, "--gold", gold, "--judge", "lexical", "--out", tmp_path / name,
                    "--cache-dir", tmp_path / "c", "--bootstrap", "0", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        summary = json.loads((tmp_path / name / "summary.json").read_text())
        f1[name] = summary["metrics"]["macro_f1"]
        items = {r["id"]: r for r in _rows(tmp_path / name / "items.jsonl")}
        assert sorted(items) == ["a", "b", "c", "d"]  # the data's ids, not line numbers
        assert items["c"]["truth"] == ["omega"]  # c is paired with c's gold, not d's
    # a: "User Login" exact, "Report"/"Audit" share no bigram or token → P = R = 1/2, F1 0.5;
    # b: "x y" ≡ "XY" after normalisation → 1; c: alpha/omega share nothing → 0; d: both
    # empty → 1. Macro F1 = (0.5 + 1 + 0 + 1) / 4.
    assert f1["aligned"] == pytest.approx(0.625)
    assert f1["reversed"] == f1["aligned"]


def test_reversed_gold_on_ifpug_runs(tmp_path: Path) -> None:
    src = shared_file("ifpug/ilf_runs.jsonl")
    preds, golds = [], []
    for line in src.read_text(encoding="utf-8").split("\n"):
        if not line.strip():
            continue
        r = json.loads(line)
        if r["task"] == "ilf_selection":
            rid = f"{r['run']}/{r['doc_id']}"
            preds.append({"id": rid, "pred": r["final_answer"]})
            golds.append({"id": rid, "truth": r["ground_truth"]})
    assert len(preds) == 96
    pred = _jsonl(tmp_path / "pred.jsonl", preds)
    f1 = {}
    for name, rows in (("aligned", golds), ("reversed", golds[::-1])):
        gold = _jsonl(tmp_path / f"{name}.jsonl", rows)
        code, output, _ = _invoke("eval", pred, "--gold", gold, "--judge", "lexical", "--out",
                                  tmp_path / name, "--cache-dir", tmp_path / "c",
                                  "--bootstrap", "0")
        assert code == 0, output
        f1[name] = json.loads((tmp_path / name / "summary.json").read_text())["metrics"][
            "macro_f1"]
    # the single-file run with the study's own id fields is the reference
    code, output, _ = _invoke("eval", src, "--where", "task=ilf_selection", "--pred-field",
                              "final_answer", "--truth-field", "ground_truth", "--id-field",
                              "run,doc_id", "--judge", "lexical", "--out", tmp_path / "one",
                              "--cache-dir", tmp_path / "c", "--bootstrap", "0")
    assert code == 0, output
    reference = json.loads((tmp_path / "one" / "summary.json").read_text())["metrics"]
    print(f"IFPUG lexical macro F1: aligned {f1['aligned']:.4f}, reversed {f1['reversed']:.4f}, "
          f"single file {reference['macro_f1']:.4f}")
    assert f1["reversed"] == pytest.approx(f1["aligned"], abs=1e-12)
    assert f1["aligned"] == pytest.approx(reference["macro_f1"], abs=1e-12)


@pytest.mark.parametrize(
    ("pred_rows", "gold_rows", "pattern"),
    [
        # ids on one side only
        ([{"id": "a", "pred": ["x"]}], [{"truth": ["x"]}],
         r"gold.jsonl:1: field 'id': missing, but .*pred.jsonl:1 has an 'id'"),
        # ids on some records only
        ([{"id": "a", "pred": ["x"]}, {"pred": ["y"]}],
         [{"id": "a", "truth": ["x"]}, {"id": "b", "truth": ["y"]}],
         r"pred.jsonl:2: field 'id': missing"),
        # an extra gold id
        ([{"id": "a", "pred": ["x"]}], [{"id": "a", "truth": ["x"]}, {"id": "z", "truth": []}],
         r"gold.jsonl:2: field 'id': id 'z' has no prediction record in .*pred.jsonl"),
        # a missing gold id
        ([{"id": "a", "pred": ["x"]}, {"id": "b", "pred": ["y"]}], [{"id": "a", "truth": []}],
         r"pred.jsonl:2: field 'id': id 'b' has no gold record in .*gold.jsonl"),
        # a duplicate gold id
        ([{"id": "a", "pred": ["x"]}], [{"id": "a", "truth": []}, {"id": "a", "truth": []}],
         r"gold.jsonl:2: field 'id': duplicate id 'a' \(first at line 1\)"),
        # no ids, different counts
        ([{"pred": ["x"]}, {"pred": ["y"]}], [{"truth": ["x"]}],
         r"pred.jsonl:2: record 2 has no counterpart: .*pred.jsonl has 2 records and "
         r".*gold.jsonl 1"),
        # a null id
        ([{"id": None, "pred": ["x"]}], [{"id": "a", "truth": ["x"]}],
         r"pred.jsonl:1: field 'id': expected a string or integer id, got null"),
    ],
)
def test_gold_join_errors(tmp_path: Path, pred_rows: list[dict[str, Any]],
                          gold_rows: list[dict[str, Any]], pattern: str) -> None:
    pred = _jsonl(tmp_path / "pred.jsonl", pred_rows)
    gold = _jsonl(tmp_path / "gold.jsonl", gold_rows)
    _assert_bad_input(*_invoke("eval", pred, "--gold", gold, "--judge", "lexical", "--out",
                               tmp_path / "run", "--cache-dir", tmp_path / "c"),
                      pattern, tmp_path)


def test_no_ids_and_equal_counts_pair_by_position(tmp_path: Path) -> None:
    pred = _jsonl(tmp_path / "pred.jsonl", [{"pred": ["x"]}, {"pred": ["y"]}])
    gold = _jsonl(tmp_path / "gold.jsonl", [{"truth": ["x"]}, {"truth": ["q"]}])
    code, output, _ = _invoke("eval", pred, "--gold", gold, "--judge", "lexical", "--out",
                              tmp_path / "run", "--cache-dir", tmp_path / "c", "--bootstrap", "0")
    assert code == 0, output
    items = _rows(tmp_path / "run" / "items.jsonl")
    # record 1 ↔ record 1 (exact), record 2 ↔ record 2 ("y"/"q" share nothing)
    assert [(i["id"], i["f1"]) for i in items] == [("line1", 1.0), ("line2", 0.0)]


# --- 2. single-file input keeps the data's ids ------------------------------------------------

def test_single_file_keeps_data_ids(tmp_path: Path) -> None:
    data = _jsonl(tmp_path / "data.jsonl", [{"id": "glossary-7", "pred": ["队长"],
                                             "truth": ["captain"]},
                                            {"id": 42, "pred": ["jar"], "truth": ["Jar"]}])
    code, output, _ = _invoke("eval", data, "--judge", "lexical", "--out", tmp_path / "run",
                              "--cache-dir", tmp_path / "c", "--bootstrap", "0")
    assert code == 0, output
    assert [r["id"] for r in _rows(tmp_path / "run" / "items.jsonl")] == ["glossary-7", "42"]
    report = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    assert "glossary-7" in report  # searchable by the data's id


@pytest.mark.parametrize(
    ("rows", "pattern"),
    [
        ([{"id": "a", "pred": ["x"], "truth": ["x"]}, {"id": "b", "pred": [], "truth": []},
          {"id": "a", "pred": [], "truth": []}],
         r"data.jsonl:3: field 'id': duplicate id 'a' \(first at line 1\)"),
        ([{"id": "a", "pred": ["x"], "truth": ["x"]}, {"pred": [], "truth": []}],
         r"data.jsonl:2: field 'id': missing, but .*data.jsonl:1 has an 'id'"),
    ],
)
def test_single_file_id_errors(tmp_path: Path, rows: list[dict[str, Any]],
                               pattern: str) -> None:
    data = _jsonl(tmp_path / "data.jsonl", rows)
    _assert_bad_input(*_invoke("eval", data, "--judge", "lexical", "--out", tmp_path / "run",
                               "--cache-dir", tmp_path / "c"), pattern, tmp_path)


def test_function_call_items_keep_ids_and_reject_duplicates(tmp_path: Path) -> None:
    call = [{"name": "f", "arguments": {"a": 1}}]
    rows = [{"id": "fc-1", "pred_fn": call, "gold_fn": call},
            {"id": "fc-2", "pred_fn": [], "gold_fn": call}]
    data = _jsonl(tmp_path / "data.jsonl", rows)
    code, output, _ = _invoke("eval", data, "--task", "function-call", "--out", tmp_path / "run",
                              "--bootstrap", "0")
    assert code == 0, output
    items = _rows(tmp_path / "run" / "items.jsonl")
    assert [(r["id"], r["correct"]) for r in items] == [("fc-1", True), ("fc-2", False)]
    _jsonl(data, [*rows, {"id": "fc-1", "pred_fn": [], "gold_fn": []}])
    (tmp_path / "second").mkdir()
    _assert_bad_input(*_invoke("eval", data, "--task", "function-call", "--out",
                               tmp_path / "second" / "run"),
                      r"data.jsonl:3: field 'id': duplicate id 'fc-1'", tmp_path / "second")


def test_python_api_id_rule(tmp_path: Path) -> None:
    r = evaluate([{"id": "k1", "pred": ["a"], "truth": ["a"]}], judge="lexical",
                 cache_dir=tmp_path / "c")
    assert r.items[0]["id"] == "k1"
    with pytest.raises(InputError, match=r"<items>:2: field 'id': missing"):
        rows: list[dict[str, Any]] = [{"id": "k1", "pred": ["a"], "truth": ["a"]},
                                      {"pred": [], "truth": []}]
        evaluate(rows, judge="lexical", cache_dir=tmp_path / "c")


# --- 3. JSONL with U+2028 / U+2029 / U+0085 end to end -------------------------------------

def test_line_separator_characters_round_trip(tmp_path: Path) -> None:
    preds = [f"x{ODD}", "职位信息", f"{ODD}y"]
    truths = [f"x{ODD}", "Job Information", "z\u2028w"]
    data = _jsonl(tmp_path / "data.jsonl", [{"id": "i1", "pred": preds, "truth": truths},
                                            {"id": "i2", "pred": [ODD], "truth": ["other"]}])
    raw = data.read_text(encoding="utf-8")
    assert len(raw.splitlines()) > 2  # the input itself would be cut by splitlines()
    for name, judge in (("lex", "lexical"), ("loc", "local")):
        proc = _cli("eval", data, "--judge", judge, "--out", tmp_path / name, "--cache-dir",
                    tmp_path / "c", "--bootstrap", "50", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
    items_text = (tmp_path / "lex" / "items.jsonl").read_text(encoding="utf-8")
    assert "\u2028" in items_text and len(items_text.splitlines()) > 2  # written raw
    items = _rows(tmp_path / "lex" / "items.jsonl")
    assert [i["pred"] for i in items] == [preds, [ODD]]
    assert [i["truth"] for i in items] == [truths, ["other"]]
    verdict_preds = {v["pred"] for v in _rows(tmp_path / "lex" / "verdicts.jsonl")}
    assert f"{ODD}y" in verdict_preds  # judged (not an exact match) and stored unchanged

    proc = _cli("audit", tmp_path / "lex", "--format", "jsonl", "--out", tmp_path / "audit.jsonl",
                cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    audit_text = (tmp_path / "audit.jsonl").read_text(encoding="utf-8")
    assert f"{ODD}y" in {json.loads(x).get("pred") for x in audit_text.split("\n") if x.strip()}
    proc = _cli("audit", tmp_path / "lex", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr

    proc = _cli("rescore", tmp_path / "lex", "--tau", "0.7", "--bootstrap", "0", "--out",
                tmp_path / "rescore.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "lex" / "summary.json").read_text())
    rescored = json.loads((tmp_path / "rescore.json").read_text())
    assert rescored["metrics"]["macro_f1"] == pytest.approx(summary["metrics"]["macro_f1"])

    proc = _cli("compare", tmp_path / "lex", tmp_path / "loc", "--bootstrap", "50", "--out",
                tmp_path / "cmp", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "cmp" / "compare.json").read_text())["items"] == 2


def test_csv_cell_with_line_separator(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    # a quoted cell holding U+2028… and a real newline (JSON whitespace between elements)
    cell = ("[" + json.dumps(ODD, ensure_ascii=False) + ',\n"q"]').replace('"', '""')
    path.write_text(f'id,pred\nk,"{cell}"\nm,"[]"\n', encoding="utf-8")
    recs = read_records(path)
    assert [(r.line, r.data["id"]) for r in recs] == [(2, "k"), (4, "m")]  # k spans lines 2-3
    assert json.loads(recs[0].data["pred"]) == [ODD, "q"]


# --- 4. bad input: one line, exit 2, no judge call --------------------------------------------

BAD_JSONL = [
    ('{"pred": ["a"], "truth": ["b"]}\n{"pred": ["a"], "truth": ["\\ud800x"]}\n',
     r"data.jsonl:2: field 'truth': lone surrogate \\ud800"),
    ('{"truth": ["b"], "pred": ' + "[" * 100_000 + "]" * 100_000 + "}\n",
     r"data.jsonl:1: field 'pred': JSON nested deeper than 100 levels"),
    ('{"pred": ["a"], "truth": ["b"], "n": ' + "7" * 5000 + "}\n",
     r"data.jsonl:1: field 'n': integer of 5,000 digits exceeds Python's limit of 4,300"),
    ('{"pred": ["a"], "truth": ["b"]}\n' + "[" * 100_000 + "]" * 100_000 + "\n",
     r"data.jsonl:2: JSON nested deeper than 100 levels"),
]


@pytest.mark.parametrize(("content", "pattern"), BAD_JSONL)
def test_bad_json_exits_2_before_any_judge_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                content: str, pattern: str) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-hardening")
    data = tmp_path / "data.jsonl"
    data.write_text(content, encoding="utf-8")
    with FakeOpenAIServer() as srv:
        result = _invoke("eval", data, "--judge", "openai:fake-model", "--base-url",
                         srv.base_url, "--out", tmp_path / "run", "--cache-dir", tmp_path / "c")
        _assert_bad_input(*result, pattern, tmp_path)
        assert srv.log == []
        # control: the same server is called for a good file (so the check above can fail)
        data.write_text('{"pred": ["a"], "truth": ["b"]}\n', encoding="utf-8")
        code, output, _ = _invoke("eval", data, "--judge", "openai:fake-model", "--base-url",
                                  srv.base_url, "--out", tmp_path / "ok", "--cache-dir",
                                  tmp_path / "c", "--bootstrap", "0")
        assert code == 0, output
        assert len(srv.log) >= 1


def test_bad_json_in_a_subprocess_has_no_traceback(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text('{"pred": ' + "[" * 100_000 + "]" * 100_000 + ', "truth": []}\n')
    proc = _cli("eval", data, "--judge", "lexical", "--out", tmp_path / "run", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"simjudge: error: {data}:1: field 'pred': JSON nested deeper than 100 levels"]
    assert not (tmp_path / "run").exists()


def test_excel_bom_csv_is_read(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    data.write_bytes("id,pred,truth\nr1,\"[\"\"职位信息\"\"]\",\"[\"\"职位信息\"\"]\"\n"
                     .encode("utf-8-sig"))
    assert data.read_bytes()[:3] == b"\xef\xbb\xbf"
    assert list(read_records(data)[0].data) == ["id", "pred", "truth"]  # not "\ufeffid"
    code, output, _ = _invoke("eval", data, "--judge", "lexical", "--out", tmp_path / "run",
                              "--cache-dir", tmp_path / "c", "--bootstrap", "0")
    assert code == 0, output
    assert [(r["id"], r["f1"]) for r in _rows(tmp_path / "run" / "items.jsonl")] == [("r1", 1.0)]


def test_gbk_file_names_the_encoding(tmp_path: Path) -> None:
    data = tmp_path / "data.csv"
    # "中文" in GBK is d6 d0 ce c4: 0xd6 starts a UTF-8 sequence that 0xd0 cannot continue
    data.write_bytes("id,pred,truth\nr1,\"[\"\"a\"\"]\",\"[\"\"a\"\"]\"\nr2,\"[\"\"中文\"\"]\",\"[]\"\n"
                     .encode("gbk"))
    _assert_bad_input(*_invoke("eval", data, "--judge", "lexical", "--out", tmp_path / "run"),
                      r"data.csv:3: not UTF-8 \(byte 0xd6 at line 3.*\); re-save the file as "
                      r"UTF-8", tmp_path)


@pytest.mark.parametrize(("encoding", "pattern"), [
    ("utf-16", r"data.csv:1: file is UTF-16 \(it starts with a UTF-16 byte-order mark\)"),
    ("utf-16-le", r"data.csv:1: contains NUL bytes \(UTF-16 without a byte-order mark"),
])
def test_utf16_file_is_named(tmp_path: Path, encoding: str, pattern: str) -> None:
    data = tmp_path / "data.csv"
    data.write_bytes('id,pred,truth\nr1,"[]","[]"\n'.encode(encoding))
    _assert_bad_input(*_invoke("eval", data, "--judge", "lexical", "--out", tmp_path / "run"),
                      pattern, tmp_path)


def test_ranking_files_get_the_same_encoding_check(tmp_path: Path) -> None:
    run = tmp_path / "run.txt"
    run.write_bytes("q1 Q0 d1 1 3.0 x\nq1 Q0 中文 2 2.0 x\n".encode("gbk"))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\n")
    _assert_bad_input(*_invoke("eval", run, "--task", "ranking", "--gold", qrels, "--out",
                               tmp_path / "run"),
                      r"run.txt:2: not UTF-8 \(byte 0xd6", tmp_path)


def test_labels_and_table_readers_share_the_checks(tmp_path: Path) -> None:
    labels = tmp_path / "labels.tsv"
    labels.write_bytes("pred\ttruth\tlabel\n打开\t开启\t1\n关闭\t打开\t0\n".encode("gbk"))
    _assert_bad_input(*_invoke("calibrate", labels, "--judge", "lexical", "--out",
                               tmp_path / "run"),
                      r"labels.tsv:2: not UTF-8", tmp_path)
    labels = _jsonl(tmp_path / "labels.jsonl", [{"pred": "a", "truth": "a", "label": 1},
                                                {"pred": "b" * 5000, "truth": "c", "label": 0}])
    _assert_bad_input(*_invoke("calibrate", labels, "--judge", "lexical", "--out",
                               tmp_path / "run"),
                      r"labels.jsonl:2: field 'pred': string of 5,000 characters exceeds "
                      r"--max-chars 4096", tmp_path)
    code, output, _ = _invoke("calibrate", labels, "--judge", "lexical", "--max-chars", "0",
                              "--bootstrap", "10", "--folds", "2", "--out", tmp_path / "cal",
                              "--cache-dir", tmp_path / "c")
    assert code == 0, output
    table = tmp_path / "t.jsonl"
    table.write_text('{"pred": "a", "truth": "b", "score": 0.5}\n'
                     '{"pred": "\\udfff", "truth": "b", "score": 0.5}\n', encoding="utf-8")
    data = _jsonl(tmp_path / "data.jsonl", [{"pred": ["a"], "truth": ["b"]}])
    _assert_bad_input(*_invoke("eval", data, "--judge", f"table:{table}", "--out",
                               tmp_path / "run"),
                      r"t.jsonl:2: field 'pred': lone surrogate \\udfff", tmp_path)


# --- BFCL shapes ------------------------------------------------------------------------------

QUESTION = {"id": "simple_0", "question": "area?", "function": {
    "name": "area", "parameters": {"type": "dict", "properties": {
        "base": {"type": "integer"}, "height": {"type": "integer"}},
        "required": ["base", "height"]}}}
ANSWER = {"id": "simple_0", "ground_truth": {"area": {"base": [10], "height": [5]}}}
RESULT = {"id": "simple_0", "result": [{"area": "{\"base\": 10, \"height\": 5}"}]}


def _bfcl(tmp_path, results: list[Any], answers: list[Any],
          questions: list[Any]) -> tuple[int, str, BaseException | None]:
    r = _jsonl(tmp_path / "result.json", results)
    a = _jsonl(tmp_path / "answer.json", answers)
    q = _jsonl(tmp_path / "question.json", questions)
    return _invoke("eval", r, "--task", "function-call", "--format", "bfcl", "--gold", a,
                   "--functions", q, "--out", tmp_path / "run", "--bootstrap", "0")


def test_bfcl_well_formed_control(tmp_path: Path) -> None:
    code, output, _ = _bfcl(tmp_path, [RESULT], [ANSWER], [QUESTION])
    assert code == 0, output
    assert _rows(tmp_path / "run" / "items.jsonl")[0]["correct"] is True


def _with(base: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return {**base, **kw}


BAD_BFCL = [
    ("gold a string", [RESULT], [_with(ANSWER, ground_truth="area(base=10)")], [QUESTION],
     r"answer.json:1: field 'ground_truth': expected an object \{function: .*got str"),
    ("gold a list of strings", [RESULT], [_with(ANSWER, ground_truth=["area"])], [QUESTION],
     r"answer.json:1: field 'ground_truth': element 0: expected an object .*got str"),
    ("values not a list", [RESULT], [_with(ANSWER, ground_truth={"area": {"base": 10,
                                                                          "height": [5]}})],
     [QUESTION], r"answer.json:1: field 'ground_truth': function 'area': parameter 'base': "
                 r"expected a list of acceptable values, got int"),
    ("function not an object", [RESULT], [_with(ANSWER, ground_truth={"area": "x"})],
     [QUESTION], r"answer.json:1: field 'ground_truth': function 'area': expected an object"),
    ("duplicate result id", [RESULT, RESULT], [ANSWER], [QUESTION],
     r"result.json:2: field 'id': duplicate id 'simple_0' \(first at line 1\)"),
    ("duplicate answer id", [RESULT], [ANSWER, ANSWER], [QUESTION],
     r"answer.json:2: field 'id': duplicate id 'simple_0'"),
    ("duplicate question id", [RESULT], [ANSWER], [QUESTION, QUESTION],
     r"question.json:2: field 'id': duplicate id 'simple_0'"),
    ("properties a list", [RESULT], [ANSWER],
     [_with(QUESTION, function={"name": "area", "parameters": {"properties": [
         {"base": {"type": "integer"}}]}})],
     r"question.json:1: field 'function': function 0 \('area'\): 'parameters.properties' "
     r"must be an object \{param: schema\}, got list"),
    ("property type a list", [RESULT], [ANSWER],
     [_with(QUESTION, function={"name": "area", "parameters": {"properties": {
         "base": {"type": ["integer"]}}}})],
     r"question.json:1: field 'function': function 0 \('area'\): property 'base': 'type' "
     r"must be a string"),
    ("schema without a name", [RESULT], [ANSWER], [_with(QUESTION, function=[{"x": 1}])],
     r"question.json:1: field 'function': function 0: expected a schema object with a string "
     r"'name'"),
    # --max-chars reads BFCL results decoded (the raw text is never judged): a 5,000-character
    # argument value is refused, a long raw text around short calls is not (test_bfcl.py)
    ("decoded result string too long",
     [_with(RESULT, result="[area(base='" + "1" * 5000 + "')]")], [ANSWER], [QUESTION],
     r"result.json:1: field 'result': decoded calls hold a string of 5,000 characters, over "
     r"--max-chars 4096"),
]


@pytest.mark.parametrize(("case", "results", "answers", "questions", "pattern"), BAD_BFCL,
                         ids=[c[0] for c in BAD_BFCL])
def test_bfcl_bad_shapes_exit_2(tmp_path: Path, case: str, results: list[Any],
                                answers: list[Any], questions: list[Any], pattern: str) -> None:
    _assert_bad_input(*_bfcl(tmp_path, results, answers, questions), pattern, tmp_path)


def test_bfcl_list_gold_keeps_repeated_calls(tmp_path: Path) -> None:
    # a list-wrapped ground truth naming the same function twice: both calls are expected
    answer = {"id": "parallel_function_0", "ground_truth": [
        {"area": {"base": [10], "height": [5]}}, {"area": {"base": [3], "height": [4]}}]}
    question = _with(QUESTION, id="parallel_function_0")
    one = {"id": "parallel_function_0", "result": [{"area": "{\"base\": 10, \"height\": 5}"}]}
    code, output, _ = _bfcl(tmp_path, [one], [answer], [question])
    assert code == 0, output
    row = _rows(tmp_path / "run" / "items.jsonl")[0]
    assert (row["correct"], row["error_type"]) == (False, "wrong_count")  # 1 call for 2


def test_model_written_json_the_parser_chokes_on_is_unparseable(tmp_path: Path) -> None:
    # in predictions (model output) such JSON is an unparseable item, never an abort or credit
    gold = [{"name": "f", "arguments": {"a": 1}}]
    rows = [{"id": "deep", "gold_fn": gold, "tool_calls": [
                {"function": {"name": "f", "arguments": "[" * 5000 + "]" * 5000}}]},
            {"id": "bigint", "gold_fn": gold, "tool_calls": [
                {"function": {"name": "f", "arguments": '{"a": ' + "1" * 4400 + "}"}}]},
            {"id": "surrogate", "gold_fn": gold, "tool_calls": [
                {"function": {"name": "f", "arguments": '{"a": "\\ud800"}'}}]},
            {"id": "ok", "gold_fn": gold, "tool_calls": [
                {"function": {"name": "f", "arguments": '{"a": 1}'}}]}]
    data = _jsonl(tmp_path / "data.jsonl", rows)
    code, output, _ = _invoke("eval", data, "--task", "function-call", "--format", "openai",
                              "--out", tmp_path / "run", "--bootstrap", "0")
    assert code == 0, output
    items = {r["id"]: r for r in _rows(tmp_path / "run" / "items.jsonl")}
    assert {k: (r["correct"], r["error_type"]) for k, r in items.items()} == {
        "deep": (False, "unparseable"), "bigint": (False, "unparseable"),
        "surrogate": (False, "unparseable"), "ok": (True, None)}


# --- 5. --max-chars ---------------------------------------------------------------------------

def test_ten_megabyte_field_exits_2_with_bounded_memory(tmp_path: Path) -> None:
    data = _jsonl(tmp_path / "data.jsonl", [{"id": "ok", "pred": ["a"], "truth": ["a"]},
                                            {"id": "big", "pred": ["x" * 10_485_760],
                                             "truth": ["y"]}])
    # refused while reading, before any judge is built (no cache directory made); the peak
    # memory of such a run is measured by benchmarks/bench_memory.py (a process per case)
    for judge in ("local", "lexical"):
        res = _cli("eval", data, "--judge", judge, "--out", tmp_path / "run", "--cache-dir",
                   tmp_path / "c", cwd=tmp_path)
        assert res.returncode == 2 and res.stdout == "", res.stderr
        assert res.stderr.splitlines() == [
            f"simjudge: error: {data}:2: field 'pred': string of 10,485,760 characters "
            "exceeds --max-chars 4096"]
        assert not (tmp_path / "run").exists() and not (tmp_path / "c").exists()


def test_max_chars_boundary_and_off(tmp_path: Path) -> None:
    data = _jsonl(tmp_path / "data.jsonl", [{"pred": ["p" * 4096], "truth": ["t" * 4097]}])
    _assert_bad_input(*_invoke("eval", data, "--judge", "lexical", "--out", tmp_path / "run",
                               "--cache-dir", tmp_path / "c"),
                      r"data.jsonl:1: field 'truth': string of 4,097 characters exceeds "
                      r"--max-chars 4096", tmp_path)  # 4,096 (pred) is within the limit
    _assert_bad_input(*_invoke("eval", data, "--judge", "lexical", "--max-chars", "100",
                               "--out", tmp_path / "run", "--cache-dir", tmp_path / "c"),
                      r"field 'pred': string of 4,096 characters exceeds --max-chars 100",
                      tmp_path)
    _assert_bad_input(*_invoke("eval", data, "--judge", "lexical", "--max-chars", "-1",
                               "--out", tmp_path / "run"),
                      r"field 'max-chars': --max-chars must be >= 0", tmp_path)
    code, output, _ = _invoke("eval", data, "--judge", "lexical", "--max-chars", "0", "--out",
                              tmp_path / "run", "--cache-dir", tmp_path / "c", "--bootstrap", "0")
    assert code == 0, output
    assert _rows(tmp_path / "run" / "items.jsonl")[0]["truth"] == ["t" * 4097]


def test_python_api_max_chars(tmp_path: Path) -> None:
    rows = [{"pred": ["a"], "truth": ["a"]}, {"pred": ["é" * 5000], "truth": ["b"]}]
    with pytest.raises(InputError, match=r"^<items>:2: field 'pred': string of 5,000 characters "
                                         r"exceeds --max-chars 4096$"):
        evaluate(rows, judge="lexical", cache_dir=tmp_path / "c")
    r = evaluate(rows, judge="lexical", cache_dir=tmp_path / "c", max_chars=0)
    assert r.items[1]["pred"] == ["é" * 5000]
    from judge.items import Item

    with pytest.raises(InputError, match=r"^x.jsonl:3: field 'truth': string of 11 characters "
                                         r"exceeds --max-chars 10$"):
        evaluate([Item("i", "x.jsonl:3", ["a"], ["b" * 11])], judge="lexical",
                 cache_dir=tmp_path / "c", max_chars=10)


def test_csv_tsv_plain_string_cell_is_a_one_item_list(tmp_path: Path) -> None:
    # issue 27: a plain cell in a list field was refused ("expected a list of strings, got
    # str"); it is the one-item list the user means, commas kept; an empty cell is no item.
    # Per item: r1 ["Job Information, HR"] vs ["job information, hr"]: exact → F1 1;
    # r2 ["A", "B"] (JSON array) vs ["a"]: 1 exact of 2 preds → P 1/2, R 1, F1 2/3;
    # r3 [] vs ["x"]: F1 0
    for sep, name in ((",", "data.csv"), ("\t", "data.tsv")):
        data = tmp_path / name
        cells = [("r1", "Job Information, HR", "job information, hr"),
                 ("r2", '["A", "B"]', "a"), ("r3", "", "x")]
        if sep == ",":
            body = "".join(f'{i},"{p.replace(chr(34), chr(34) * 2)}","{t}"\n'
                           for i, p, t in cells)
        else:
            body = "".join(f"{i}\t{p}\t{t}\n" for i, p, t in cells)
        data.write_text(f"id{sep}pred{sep}truth\n" + body, encoding="utf-8")
        out = tmp_path / f"run-{name}"
        code, output, _ = _invoke("eval", data, "--judge", "lexical", "--out", out,
                                  "--cache-dir", tmp_path / "c", "--bootstrap", "0")
        assert code == 0, output
        rows = _rows(out / "items.jsonl")
        assert [r["pred"] for r in rows] == [["Job Information, HR"], ["A", "B"], []]
        assert [r["f1"] for r in rows] == pytest.approx([1.0, 2 / 3, 0.0])
