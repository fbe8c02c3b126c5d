"""Input errors a newcomer meets, each naming what is wrong and the flag that fixes it (issue
27, item 5): stdin, a directory, a JSON array or a pretty-printed object instead of JSONL, a
missing pred/truth field (--pred-field/--truth-field), true/false or text answers given to the
selection task (--task judgment/generation), OpenAI tool_calls read as seed calls (--format
openai). Each is one line, exit 2, nothing written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge.cli import app
from tests.conftest import EXAMPLES

runner = CliRunner()


def _eval(tmp_path: Path, data: str | Path, *args: str) -> tuple[int, str]:
    out = tmp_path / "run"
    res = runner.invoke(app, ["eval", str(data), "--judge", "lexical", "--out", str(out),
                              "--cache-dir", str(tmp_path / "c"), *args])
    assert res.exit_code == 0 or not out.exists()  # bad input: nothing written
    return res.exit_code, res.stderr


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_stdin_is_refused_with_the_reason(tmp_path: Path) -> None:
    assert _eval(tmp_path, "-") == (2, (
        "simjudge: error: -: reading from stdin ('-') is not supported: a run records its "
        "input file (path and sha256) so that rescore and export can read it again; save the "
        "data to a .jsonl file first\n"))


def test_a_directory_is_called_a_directory(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    assert _eval(tmp_path, folder) == (2, (
        f"simjudge: error: {folder}: is a directory, not a data file: give a .jsonl, .csv or "
        ".tsv file (a BFCL result folder is read with --task function-call --format bfcl)\n"))


@pytest.mark.parametrize("name", ["items.json", "items.jsonl"])
def test_a_json_array_is_called_a_json_array(tmp_path: Path, name: str) -> None:
    rows = [{"id": "1", "pred": ["a"], "truth": ["a"]}, {"id": "2", "pred": ["b"],
                                                          "truth": ["c"]}]
    data = _write(tmp_path / name, json.dumps(rows, indent=2))
    out = tmp_path / ("items.jsonl" if name == "items.json" else "items-lines.jsonl")
    assert _eval(tmp_path, data) == (2, (
        f"simjudge: error: {data}:1: is a JSON array (of 2 elements), not JSONL: expected one "
        f"JSON object per line; convert it with: jq -c '.[]' {data} > {out}\n"))
    one_line = _write(tmp_path / "one.json", json.dumps(rows))  # also on a single line
    assert "is a JSON array (of 2 elements), not JSONL" in _eval(tmp_path, one_line)[1]


def test_a_pretty_printed_object_is_called_so(tmp_path: Path) -> None:
    data = _write(tmp_path / "one.json", json.dumps({"id": "1", "pred": ["a"], "truth": ["a"]},
                                                    indent=2))
    assert _eval(tmp_path, data) == (2, (
        f"simjudge: error: {data}:1: is one JSON object over several lines, not JSONL: "
        f"expected one JSON object per line; convert it with: jq -c . {data} > "
        f"{tmp_path / 'one.jsonl'}\n"))


def test_jsonl_of_arrays_and_broken_lines_keep_their_messages(tmp_path: Path) -> None:
    lines = _write(tmp_path / "l.jsonl", '["a"]\n["b"]\n')  # not one document: per line
    assert _eval(tmp_path, lines)[1] == (
        f"simjudge: error: {lines}:1: expected a JSON object, got list\n")
    broken = _write(tmp_path / "b.jsonl", '{"id": "1", "pred": ["a"], "truth": ["a"]}\n{"id"\n')
    assert _eval(tmp_path, broken)[1].startswith(f"simjudge: error: {broken}:2: malformed JSON")


def test_missing_pred_and_truth_name_the_flags(tmp_path: Path) -> None:
    data = _write(tmp_path / "d.jsonl", '{"id": "1", "answer": ["a"], "truth": ["a"]}\n')
    assert _eval(tmp_path, data) == (2, (
        f"simjudge: error: {data}:1: field 'pred': missing (fields present: answer, id, "
        "truth); name the prediction field with --pred-field\n"))
    assert _eval(tmp_path, data, "--pred-field", "answer")[0] == 0  # the fix works
    shutil.rmtree(tmp_path / "run")
    data = _write(tmp_path / "g.jsonl", '{"id": "1", "pred": ["a"], "gold": ["a"]}\n')
    assert _eval(tmp_path, data) == (2, (
        f"simjudge: error: {data}:1: field 'truth': missing (fields present: gold, id, pred); "
        "name the gold field with --truth-field\n"))


def test_scalar_answers_name_the_task_they_suit() -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        judgment = EXAMPLES / "judgment_term_translation.jsonl"
        assert _eval(Path(tmp), judgment) == (2, (
            f"simjudge: error: {judgment}:1: field 'pred': expected a list of strings, got bool "
            "(true/false answers: --task judgment)\n"))
        generation = EXAMPLES / "generation_short_answers.jsonl"
        assert _eval(Path(tmp), generation) == (2, (
            f"simjudge: error: {generation}:1: field 'pred': expected a list of strings, got "
            "str (one text answer per item: --task generation)\n"))


def test_tool_calls_read_as_seed_calls_name_format_openai(tmp_path: Path) -> None:
    data = EXAMPLES / "function_call_openai.jsonl"
    res = runner.invoke(app, ["eval", str(data), "--task", "function-call", "--out",
                              str(tmp_path / "run")])
    assert res.exit_code == 2 and res.stderr == (
        f"simjudge: error: {data}:1: field 'pred_fn': missing; the record holds OpenAI "
        "'tool_calls': read it with --format openai (fields present: gold_fn, id, query, "
        "tool_calls)\n")
    res = runner.invoke(app, ["eval", str(data), "--task", "function-call", "--format",
                              "openai", "--out", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output  # the suggested flag reads it
