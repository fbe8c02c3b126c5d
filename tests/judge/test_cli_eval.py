"""``simjudge eval`` end to end: real data, run directories, caching and bad input."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest
from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score
from typer.testing import CliRunner

from judge.cli import app
from judge.record.store import RUN_FILES
from metrics import fc_score
from tests.conftest import EXAMPLES, shared_file

runner = CliRunner()

IFPUG_ARGS = ["--where", "task=ilf_selection", "--pred-field", "final_answer",
              "--truth-field", "ground_truth", "--id-field", "run,doc_id"]


def _eval(*args: str | Path) -> tuple[int, str]:
    res = runner.invoke(app, ["eval", *map(str, args)])
    return res.exit_code, res.output


def _run(out: Path) -> tuple[dict, list[dict], list[dict], dict]:
    config = json.loads((out / "config.json").read_text())
    items = [json.loads(x) for x in (out / "items.jsonl").read_text().splitlines()]
    verdicts = [json.loads(x) for x in (out / "verdicts.jsonl").read_text().splitlines()]
    summary = json.loads((out / "summary.json").read_text())
    return config, items, verdicts, summary


def test_seed003_function_calls_reproduce_fc_score(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = EXAMPLES / "seed003_home_automation.jsonl"
    code, output = _eval(data, "--task", "function-call", "--id-field", "id",
                         "--out", tmp_path / "run", "--cache-dir", tmp_path / "c")
    assert code == 0, output
    _, items, verdicts, summary = _run(tmp_path / "run")
    expected = fc_score([json.loads(x) for x in data.read_text().splitlines()])
    for key, value in expected.items():
        got = summary["metrics"][key]
        assert (round(got, 5) if isinstance(got, float) else got) == value, key
    assert summary["metrics"]["fn_acc_all"] == pytest.approx(8 / 11)
    assert [i["id"] for i in items if i["fn_acc_all"] == 0] == ["ha-03", "ha-05", "ha-11"]
    assert verdicts == []


def _ifpug_table(tmp_path: Path) -> Path:
    """The study's own judge scores as a table: every 'pred <-> gold (score)' it reported."""
    # The study's judge scored some pairs differently in different runs, so rows are scoped to
    # their item with the table's ``id`` column (the same id that --id-field run,doc_id builds).
    pattern = re.compile(r"^(.*) <-> (.*) \(([0-9.]+)\)$")
    rows = []
    for line in shared_file("ifpug/ilf_runs.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r["task"] != "ilf_selection":
            continue
        for m in r["evaluation_metrics"]["semantic_matches"]:
            p, t, s = pattern.match(m).groups()  # type: ignore[union-attr]
            rows.append({"id": f"{r['run']}/{r['doc_id']}", "pred": p, "truth": t,
                         "score": float(s)})
    path = tmp_path / "study_judge.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in rows),
                    encoding="utf-8")
    return path


def test_ifpug_table_judge_reproduces_upstream(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = shared_file("ifpug/ilf_runs.jsonl")
    table = _ifpug_table(tmp_path)
    code, output = _eval(data, *IFPUG_ARGS, "--judge", f"table:{table}",
                         "--out", tmp_path / "run", "--cache-dir", tmp_path / "c")
    assert code == 0, output
    config, items, _, summary = _run(tmp_path / "run")
    upstream = {}
    for line in data.read_text().splitlines():
        r = json.loads(line)
        if r["task"] == "ilf_selection":
            upstream[f"{r['run']}/{r['doc_id']}"] = r["evaluation_metrics"]
    assert len(items) == len(upstream) == 96
    for it in items:
        up = upstream[it["id"]]
        assert it["precision"] == pytest.approx(up["precision"], abs=1e-9), it["id"]
        assert it["recall"] == pytest.approx(up["recall"], abs=1e-9), it["id"]
        assert it["f1"] == pytest.approx(up["f1_score"], abs=1e-9), it["id"]
        assert it["n_exact"] == up["exact_matches"], it["id"]
    assert summary["metrics"]["macro_f1"] == pytest.approx(
        sum(u["f1_score"] for u in upstream.values()) / 96, abs=1e-9)
    assert summary["judge_calls"] == 0 and summary["pairs_without_verdict"] > 0
    assert config["judge"]["backend"] == "table" and config["data"]["sha256"]


@pytest.fixture
def no_network(monkeypatch):  # type: ignore[no-untyped-def]
    """Any attempt to open a network connection fails the test."""
    def refuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError(f"network access attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_ifpug_local_offline_and_rerun_from_cache(tmp_path, no_network) -> None:  # type: ignore[no-untyped-def]
    data = shared_file("ifpug/ilf_runs.jsonl")
    cache = tmp_path / "cache"
    code, output = _eval(data, *IFPUG_ARGS, "--judge", "local", "--out", tmp_path / "r1",
                         "--cache-dir", cache)
    assert code == 0, output
    for name in RUN_FILES:
        assert (tmp_path / "r1" / name).stat().st_size > 0
    config, items, verdicts, s1 = _run(tmp_path / "r1")
    assert len(items) == 96 and s1["judge_calls"] > 0 and s1["cache_hits"] == 0
    assert len(verdicts) == s1["pairs_distinct"] and s1["outcomes"]["ok"] == len(verdicts)
    assert all(v["judge_id"] == "local" and 0 <= v["score"] <= 1 for v in verdicts)
    assert config["judge"]["calibration"]["settings"]["cross-lingual"]["centre"] > 0
    for key in ("macro_precision", "macro_recall", "macro_f1", "micro_precision",
                "micro_recall", "micro_f1", "tp_fuzzy", "n_exact"):
        assert key in s1["metrics"]
    code, output = _eval(data, *IFPUG_ARGS, "--judge", "local", "--out", tmp_path / "r2",
                         "--cache-dir", cache)
    assert code == 0, output
    s2 = _run(tmp_path / "r2")[3]
    assert s2["judge_calls"] == 0 and s2["cache_hits"] == s1["judge_calls"]
    assert s2["metrics"] == s1["metrics"]


def test_judgment_rows_equal_sklearn(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = shared_file("ifpug/ilf_runs.jsonl")
    code, output = _eval(data, "--task", "judgment", "--where", "task=function_point",
                         "--pred-field", "final_answer", "--truth-field", "ground_truth",
                         "--id-field", "run,doc_id,candidate_name", "--out", tmp_path / "run")
    assert code == 0, output
    _, items, _, summary = _run(tmp_path / "run")
    rows = [json.loads(x) for x in data.read_text().splitlines()]
    rows = [r for r in rows if r["task"] == "function_point"]
    y_true = [bool(r["ground_truth"]) for r in rows]
    y_pred = [bool(r["final_answer"]) for r in rows]
    m = summary["metrics"]
    assert len(items) == len(rows) == 159
    assert m["accuracy"] == pytest.approx(accuracy_score(y_true, y_pred))
    assert m["precision"] == pytest.approx(precision_score(y_true, y_pred))
    assert m["recall"] == pytest.approx(recall_score(y_true, y_pred))
    assert m["f1"] == pytest.approx(f1_score(y_true, y_pred))


def test_selection_with_gold_file_and_lexical(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pred = tmp_path / "pred.csv"
    pred.write_text('id,pred\n1,"[""User Login"", ""Report""]"\n2,"[]"\n', encoding="utf-8")
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"id": 2, "truth": []}\n{"id": 1, "truth": ["user login", "Audit"]}\n')
    code, output = _eval(pred, "--gold", gold, "--id-field", "id", "--judge", "lexical",
                         "--out", tmp_path / "run", "--cache-dir", tmp_path / "c")
    assert code == 0, output
    _, items, _, summary = _run(tmp_path / "run")
    # item 1: one exact match; "Report" vs "Audit" shares nothing → P = R = 1/2
    assert items[0]["n_exact"] == 1 and items[0]["f1"] == pytest.approx(0.5)
    assert items[1]["f1"] == 1.0  # both sides empty
    assert summary["metrics"]["macro_f1"] == pytest.approx(0.75)


def test_generation_multilabel_and_ranking(tmp_path) -> None:  # type: ignore[no-untyped-def]
    gen = tmp_path / "gen.jsonl"
    gen.write_text(json.dumps({"pred": "Python是一种高级编程语言，由Guido van Rossum创建",
                               "truth": ["Python是一种编程语言"]}, ensure_ascii=False) + "\n")
    code, output = _eval(gen, "--task", "generation", "--out", tmp_path / "g")
    assert code == 0, output
    assert _run(tmp_path / "g")[3]["metrics"]["precision"] == pytest.approx(4 / 11)
    ml = tmp_path / "ml.jsonl"
    ml.write_text('{"pred": ["a", "b"], "truth": ["a", "c"]}\n{"pred": ["b"], "truth": ["b"]}\n')
    code, output = _eval(ml, "--task", "multilabel", "--out", tmp_path / "m")
    assert code == 0, output
    m = _run(tmp_path / "m")[3]["metrics"]
    # overall: 2 correct of 3 predicted, of 3 gold
    assert (m["op"], m["or"]) == pytest.approx((2 / 3, 2 / 3))
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 1 3.0 x\nq1 Q0 d2 2 2.0 x\nq1 Q0 d3 3 1.0 x\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d3 1\nq1 0 d9 1\n")
    code, output = _eval(run, "--task", "ranking", "--gold", qrels, "--out", tmp_path / "k")
    assert code == 0, output
    # AP = (1/1 + 2/3) / 3 relevant
    assert _run(tmp_path / "k")[3]["metrics"]["map"] == pytest.approx((1 + 2 / 3) / 3)


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        ('{"pred": ["a"], "truth": ["b"]}\n{"pred": ["a"], "truth": ["b"]\n', [],
         r"data.jsonl:2: malformed JSON"),
        ('{"pred": ["a"], "truth": ["b"]}\n{"pred": ["a"]}\n', [],
         r"data.jsonl:2: field 'truth': missing"),
        ('{"pred": ["a"], "truth": "b"}\n', [],
         r"data.jsonl:1: field 'truth': expected a list of strings, got str"),
        ('{"pred": ["a", 3], "truth": ["b"]}\n', [],
         r"data.jsonl:1: field 'pred': element 1: expected a string"),
        ('{"pred": ["a"], "truth": ["b"]}\n', ["--task", "classify"], r"unknown task 'classify'"),
        ('{"pred": ["a"], "truth": ["b"]}\n', ["--judge", "gpt-9"], r"unknown judge spec 'gpt-9'"),
        ('{"pred": ["a"], "truth": ["b"]}\n', ["--tau", "1.5"], r"tau must be in \[0, 1\]"),
        ('{"pred": ["a"], "truth": ["b"]}\n', ["--cache-mode", "sometimes"], "unknown cache mode"),
        ('{"pred": true, "truth": "maybe"}\n', ["--task", "judgment"],
         r"data.jsonl:1: field 'truth': expected a boolean"),
        ('{"id": 1, "pred": ["a"], "truth": ["b"]}\n{"id": 1, "pred": ["a"], "truth": ["b"]}\n',
         ["--id-field", "id"], r"data.jsonl:2: field 'id': duplicate id '1'"),
    ],
)
def test_bad_input_exit_2_no_run_dir(tmp_path, content: str, args: list[str],  # type: ignore[no-untyped-def]
                                     message: str) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(content)
    out = tmp_path / "run"
    # tasks other than selection take no --judge (giving one is itself an error)
    judge = [] if "--judge" in args or "--task" in args else ["--judge", "lexical"]
    code, output = _eval(data, *args, *judge, "--out", out, "--cache-dir", tmp_path / "c")
    assert code == 2, output
    assert re.search(message, output), output
    assert output.count("error:") == 1
    assert not out.exists()
    assert not list(tmp_path.glob(".run*"))  # no temporary directory left either


def test_bad_table_and_unreadable_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = tmp_path / "data.jsonl"
    data.write_text('{"pred": ["a"], "truth": ["b"]}\n')
    table = tmp_path / "t.csv"
    table.write_text("pred,truth,score\na,b,0.5\na,c,7\n")
    code, output = _eval(data, "--judge", f"table:{table}", "--out", tmp_path / "run")
    assert code == 2 and re.search(r"t.csv:3: field 'score': score '7' is outside \[0, 1\]",
                                   output), output
    code, output = _eval(tmp_path / "absent.jsonl", "--judge", "lexical", "--out", tmp_path / "r")
    assert code == 2 and "absent.jsonl: cannot read file" in output, output
    code, output = _eval(data, "--judge", "lexical", "--out", tmp_path / "r", "--gold",
                         tmp_path / "absent.jsonl")
    assert code == 2 and "cannot read file" in output
    assert not (tmp_path / "run").exists() and not (tmp_path / "r").exists()


def test_gold_join_names_one_sided_ids(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pred = tmp_path / "p.jsonl"
    pred.write_text('{"id": "a", "pred": ["x"]}\n{"id": "b", "pred": ["y"]}\n')
    gold = tmp_path / "g.jsonl"
    gold.write_text('{"id": "a", "truth": ["x"]}\n{"id": "c", "truth": ["z"]}\n')
    code, output = _eval(pred, "--gold", gold, "--id-field", "id", "--judge", "lexical",
                         "--out", tmp_path / "run")
    assert code == 2 and re.search(r"p.jsonl:2: field 'id': id 'b' has no gold record", output)
    assert output.count("error:") == 1


def test_existing_out_dir_is_not_clobbered(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = tmp_path / "data.jsonl"
    data.write_text('{"pred": ["a"], "truth": ["a"]}\n')
    out = tmp_path / "run"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    code, output = _eval(data, "--judge", "lexical", "--out", out)
    assert code == 2 and "not empty" in output and (out / "keep.txt").exists()
    # --overwrite of a folder that is no simjudge output: one line, exit 2, untouched
    code, output = _eval(data, "--judge", "lexical", "--out", out, "--overwrite")
    assert code == 2 and "replaces only a simjudge output" in output
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    (out / "keep.txt").unlink()
    code, output = _eval(data, "--judge", "lexical", "--out", out)  # empty: written
    assert code == 0, output
    (out / "keep.txt").write_text("x")
    code, output = _eval(data, "--judge", "lexical", "--out", out, "--overwrite")
    assert code == 0 and not (out / "keep.txt").exists() and (out / "summary.json").exists()


def test_cache_commands(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = EXAMPLES / "glossary_en_zh.jsonl"
    code, output = _eval(data, "--judge", "local", "--out", tmp_path / "run", "--cache-dir",
                         tmp_path / "c")
    assert code == 0, output
    calls = json.loads((tmp_path / "run" / "summary.json").read_text())["judge_calls"]
    res = runner.invoke(app, ["cache", "stats", "--cache-dir", str(tmp_path / "c")])
    assert res.exit_code == 0 and f"entries   {calls}" in res.output
    res = runner.invoke(app, ["cache", "clear", "--cache-dir", str(tmp_path / "c"), "--yes"])
    assert res.exit_code == 0 and f"removed {calls} entries" in res.output
    code, output = _eval(data, "--judge", "local", "--out", tmp_path / "r2", "--cache-dir",
                         tmp_path / "c", "--cache-mode", "cache-only")
    assert code == 2 and "cache-only mode" in output and not (tmp_path / "r2").exists()
