"""BFCL decoding per model family, relevance, matching modes and the per-category view, on
small inputs derived by hand from the official behaviour (gorilla de8307b4: model_handler/
utils.py resolve_ast_by_type and each handler's decode_ast, eval_runner.py); and, when the
public archive is on this machine, the whole archive against the official score files."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any

import pytest

from judge.tasks.bfclcheck import bfcl_verdict
from judge.tasks.bfclmodels import MODELS, bfcl_model
from judge.tasks.bfclpython import FOLD_LIMIT, decode_calls
from judge.tasks.fcformats import Unparseable

ROOT = Path(__file__).resolve().parents[2]


def decode(family: str, result: Any, language: str = "python") -> Any:
    return bfcl_model(family).decode(result, language)


# ------------------------------------------------------------- Python call lists (utils.py)

@pytest.mark.parametrize(("text", "expected"), [
    ("[f(data=my_data)]", [{"f": {"data": "my_data"}}]),                 # Name -> identifier
    ("[f(x=data['sales'])]", [{"f": {"x": "data['sales']"}}]),          # Subscript -> text
    ("[f(x=m[1:2])]", [{"f": {"x": "m[1:2]"}}]),
    ("[f(x=len(a))]", [{"f": {"x": "len(a)"}}]),                        # Call w/o keywords
    ("[f(x=g(k=1))]", [{"f": {"x": {"g": {"k": 1}}}}]),                 # Call with keywords
    ("[f(turnsPerMeter=25/1)]", [{"f": {"turnsPerMeter": 25.0}}]),     # BinOp folded
    ("[f(s='a' + 'b', n=2**-1, m=7 // 2 % 2)]", [{"f": {"s": "ab", "n": 0.5, "m": 1}}]),
    ("[f(n=(1 < 2) + 1)]", [{"f": {"n": 2}}]),
    ("[f(n=+5, b=not True, c=~2)]", [{"f": {"n": -5, "b": -1, "c": -2}}]),  # unary negates
    ("[f(t=(1, 'a'), e=...)]", [{"f": {"t": (1, "a"), "e": "..."}}]),
    ("[f(d={'k': [1, None]})]", [{"f": {"d": {"k": [1, None]}}}]),
    ("[a.b.c(x=1), g()]", [{"a.b.c": {"x": 1}}, "g()"]),               # g() is text
    ("[x[0].f(k=1)]", [{"f": {"k": 1}}]),                               # name parts dropped
    ("[f(1, k=2)]", [{"f": {"k": 2}}]),                                 # positional dropped
    ("[f(**kw)]", [{"f": {None: "kw"}}]),                               # keyed None
    ("(f(a=1), g(b=2))", [{"f": {"a": 1}}, {"g": {"b": 2}}]),
    ("{f(a=1)}", [{"f": {"a": 1}}]),
])
def test_python_calls_decode_with_bfcls_leniencies(text: str, expected: Any) -> None:
    assert decode_calls(text) == expected


@pytest.mark.parametrize("text", [
    "[f(x=-y)]",            # unary on a name: BFCL reads .value of a Name, which fails
    "[f(x=-'a')]",          # negating a string fails
    "[f(x=y + 1)]",         # eval of a name fails in BFCL's module
    "[f(x=1/0)]",
    "[f(x=math.pi)]",       # attributes are not decoded
    "[f(x=lambda a: a)]",
    "[f(x={1, 2})]",
    "[f(x=f'{a}')]",
    "[f(x=[i for i in y])]",
    "[f(a=1), 3]",          # an element that is not a call
    "f(a=1)",               # not a list
    "[f(a=1)",              # unclosed
    f"[f(x=10**{FOLD_LIMIT + 1})]",
    "[f(x='a' * 100000)]",
])
def test_python_values_bfcl_refuses_are_unparseable(text: str) -> None:
    with pytest.raises(Unparseable):
        decode_calls(text)


# ------------------------------------------------------------------ handlers' decode_ast

def test_llama_tolerates_a_missing_closing_bracket_and_newlines() -> None:
    assert decode("llama", "[f(a=1),\ng(b=2)") == [{"f": {"a": 1}}, {"g": {"b": 2}}]
    with pytest.raises(Unparseable):
        decode("python", "[f(a=1)")  # OpenAI prompt models: parsed as written


@pytest.mark.parametrize(("family", "raw", "expected"), [
    ("fc-json", [{"f": '{"a": 1}'}], [{"f": {"a": 1}}]),
    ("gemini", {"f": '{"a": 1}'}, [{"f": {"a": 1}}]),
    ("cohere-fc", [{"f": {"a": 1}}], [{"f": {"a": 1}}]),
    ("claude-prompt", " f(a=1)", [{"f": {"a": 1}}]),
    ("bracketed", "f(a=1)]", [{"f": {"a": 1}}]),
    ("mistral-prompt", "[get\\_time(a=1)]", [{"get_time": {"a": 1}}]),
    ("gorilla", "f(a=1), g(b=2)", [{"f": {"a": 1}}, {"g": {"b": 2}}]),
    ("nexus", "f(a=1); g(b=2);", [{"f": {"a": 1}}, {"g": {"b": 2}}]),
    ("nexus", "out_of_domain(user_query='x')", "irrelevant"),
    ("nvidia", "['f(a=1)', 'g(b=2)']", [{"f": {"a": 1}}, {"g": {"b": 2}}]),
    ("databricks", "['f(a=1)']", [{"f": {"a": 1}}]),
    ("databricks", "[f(a='x y')]", [{"f": {"a": "x y"}}]),  # 'x y' breaks when unquoted
    ("deepseek", "text ```python\n[f(a=1)]\n``` more", [{"f": {"a": 1}}]),
    ("gemma", "Sure: [f(a=[1])] done", [{"f": {"a": [1]}}]),
    ("glm", 'f\n{"a": 1}\nignored', [{"f": {"a": 1}}]),
    ("glm", "no call here", ["no call here"]),
    ("granite", '<function_call> {"name": "f", "arguments": {"a": 1}} <function_call> '
                '{"name": "no_function", "arguments": {}}',
     [{"f": {"a": 1}}, "No function is called"]),
    ("granite", "<function_call> not json", ["not json"]),
    ("hermes", "<tool_call>\n{'name': 'f', 'arguments': {'a': 1}}\n</tool_call>",
     [{"f": {"a": 1}}]),
    ("xlam", '{"tool_calls": [{"name": "f", "arguments": {"a": 1}}]}', [{"f": {"a": 1}}]),
    ("xlam", '[{"name": "f", "arguments": {}}]', [{"f": {}}]),
    ("xlam", "I cannot", "I cannot"),
    ("generic", "f(a=1)", [{"f": {"a": 1}}]),
    ("generic", [{"f": '{"a": 1}'}, {"g": {"b": 2}}], [{"f": {"a": 1}}, {"g": {"b": 2}}]),
])
def test_each_family_decodes_as_its_handler(family: str, raw: Any, expected: Any) -> None:
    assert decode(family, raw) == expected


@pytest.mark.parametrize(("family", "raw"), [
    ("fc-json", "I need more details."),       # a text answer is not a list of calls
    ("fc-json", [{"f": '{"a": '}]),
    ("claude-prompt", ""),
    ("deepseek", "no code block"),
    ("gemma", "no brackets"),
    ("glm", "f\nnot json"),
    ("hermes", "<tool_call>\nnot json\n</tool_call>"),
])
def test_failures_of_each_handler_are_unparseable(family: str, raw: Any) -> None:
    with pytest.raises(Unparseable):
        decode(family, raw)


def test_hermes_casts_java_values_with_pythons_str() -> None:
    raw = '<tool_call>\n{"name": "f", "arguments": {"a": true, "b": [1]}}\n</tool_call>'
    assert decode("hermes", raw, "java") == [{"f": {"a": "True", "b": "[1]"}}]


def test_java_and_javascript_calls_are_read_by_tree_sitter() -> None:
    pytest.importorskip("tree_sitter_java")
    pytest.importorskip("tree_sitter_javascript")
    # an array creation is rebuilt from its parts without spaces, as BFCL's traverse_node
    raw = '[Geo.area(scale="2.5f", ids=new int[]{1, 2}, name="a b", pos)]'
    assert decode("python", raw, "java") == [{"Geo.area": {
        "scale": "2.5f", "ids": "new int[]{1,2}", "name": "a b", None: "pos"}}]
    assert decode("python", "[int x = 1;]", "java") == {}  # no method call
    with pytest.raises(Unparseable):
        decode("python", "[Geo.area(a=1, a=2)]", "java")  # a parameter given twice
    assert decode("llama", "[Geo.area(a=1)", "java") == [{"Geo.area": {"a": "1"}}]
    assert decode("python", "[obj.m(key='v', n=[1, 2], flag)]", "javascript") == [
        {"obj.m": {"key": "v", "n": "[1, 2]", None: "flag"}}]
    assert decode("python", "[let x = 1;]", "javascript") is None  # no call statement
    with pytest.raises(Unparseable):
        decode("python", "[f(a=]", "javascript")


def test_every_handler_map_model_has_a_decoder() -> None:
    # the 71 models of the 2024-08-11 archive, plus handler_map's gorilla-v0 and the
    # command-r-plus "optimized" variants
    assert len(MODELS) == 74
    assert bfcl_model("NousResearch_Hermes-2-Pro-Llama-3-8B").names == "underscore"
    assert bfcl_model("gpt-4o-2024-05-13").names == "exact"
    with pytest.raises(KeyError, match="decoder family"):
        bfcl_model("my-model")


# ------------------------------------------------------------------------- item verdicts

SCHEMA = {"name": "math.gcd", "parameters": {"properties": {
    "a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}}
GOLD = {"math.gcd": {"a": [12], "b": [18]}}


def test_relevance_passes_when_no_function_is_called() -> None:
    m = bfcl_model("gpt-4o-2024-05-13-FC")
    assert bfcl_verdict("Sorry, no tool fits.", "relevance", {}, [SCHEMA], m).correct
    assert bfcl_verdict([], "relevance", {}, [SCHEMA], m).correct
    called = bfcl_verdict([{"math_gcd": '{"a": 1}'}], "relevance", {}, [SCHEMA], m)
    assert (called.correct, called.error_type) == (False, "called_function")
    granite = bfcl_model("ibm-granite/granite-20b-functioncalling")
    no_fn = '<function_call> {"name": "no_function", "arguments": {}}'
    assert bfcl_verdict(no_fn, "relevance", {}, [SCHEMA], granite).correct


def test_models_name_rule_decides_the_simple_verdict() -> None:
    fc, prompt = bfcl_model("gpt-4o-2024-05-13-FC"), bfcl_model("gpt-4o-2024-05-13")
    assert bfcl_verdict([{"math_gcd": '{"a": 12, "b": 18}'}], "simple", GOLD, [SCHEMA],
                        fc).correct
    assert not bfcl_verdict([{"math.gcd": '{"a": 12, "b": 18}'}], "simple", GOLD, [SCHEMA],
                            fc).correct
    assert bfcl_verdict("[math.gcd(a=12, b=18)]", "simple", GOLD, [SCHEMA], prompt).correct
    wrong = bfcl_verdict("[math.gcd(a=12, b=18), math.gcd(a=1, b=2)]", "simple", GOLD,
                         [SCHEMA], prompt)
    assert wrong.error_type == "wrong_count"
    text = bfcl_verdict("[math.gcd()]", "simple", GOLD, [SCHEMA], prompt)
    assert (text.correct, text.error_type) == (False, "unparseable")  # 'math.gcd()' is text


# ------------------------------------------------------- a result folder in one command

def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _bfcl_folder(tmp_path: Path) -> tuple[Path, Path]:
    data, res = tmp_path / "data", tmp_path / "result" / "meta-llama_Meta-Llama-3-8B-Instruct"
    pre = "gorilla_openfunctions_v1_test_"
    _write(data / f"{pre}simple.json", [
        {"id": f"simple_{k}", "question": "gcd?", "function": SCHEMA} for k in range(3)])
    _write(data / "possible_answer" / f"{pre}simple.json", [
        {"id": f"simple_{k}", "ground_truth": GOLD} for k in range(3)])
    _write(data / f"{pre}relevance.json", [
        {"id": f"relevance_{k}", "question": "weather?", "function": SCHEMA} for k in range(2)])
    _write(res / f"{pre}simple_result.json", [
        {"id": "simple_0", "result": "[math.gcd(a=12, b=18)"},   # Llama: no closing ]
        {"id": "simple_1", "result": "[math.gcd(a=12, b=9*2)]"},  # folded to 18
        {"id": "simple_2", "result": "[math_gcd(a=12, b=18)]"}])  # Llama keeps dots
    _write(res / f"{pre}relevance_result.json", [
        {"id": "relevance_0", "result": "I cannot answer that."},
        {"id": "relevance_1", "result": "[math.gcd(a=1, b=2)]"}])
    _write(res / f"{pre}executable_simple_result.json", [{"id": "executable_simple_0",
                                                          "result": "[f()]"}])
    return res, data


def test_a_result_folder_is_scored_in_one_command(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from judge.cli import app

    res, data = _bfcl_folder(tmp_path)
    out = tmp_path / "run"
    got = CliRunner().invoke(app, ["eval", str(res), "--task", "function-call", "--format",
                                   "bfcl", "--functions", str(data), "--out", str(out),
                                   "--bootstrap", "0"])
    assert got.exit_code == 0, got.output
    config = json.loads((out / "config.json").read_text())
    assert config["bfcl_model"] == "meta-llama_Meta-Llama-3-8B-Instruct"
    assert config["fc_matching"] == "official"
    metrics = json.loads((out / "summary.json").read_text())["metrics"]
    # simple: 2 of 3 (the underscore name fails for Llama); relevance: 1 of 2
    assert metrics["bfcl"]["categories"]["simple"] == {"accuracy": 2 / 3, "correct": 2,
                                                       "total": 3}
    assert metrics["accuracy_relevance"] == 0.5
    assert metrics["bfcl"]["decoder"] == "llama"
    assert metrics["bfcl_simple_ast"] == 2 / 3 and math.isnan(metrics["bfcl_ast_summary"])
    assert "executable_simple" in metrics["bfcl"]["skipped"][0]
    assert metrics["matching_comparison"]["items_differing"] == 0
    # the same folder read as another model's output: its decoder and naming rule apply
    other = CliRunner().invoke(app, ["eval", str(res), "--task", "function-call", "--format",
                                     "bfcl", "--functions", str(data), "--bfcl-model",
                                     "NousResearch/Hermes-2-Pro-Llama-3-8B", "--out",
                                     str(tmp_path / "run2"), "--bootstrap", "0"])
    assert other.exit_code == 0, other.output
    hermes = json.loads((tmp_path / "run2" / "summary.json").read_text())["metrics"]
    assert hermes["accuracy_simple"] == 0.0  # no <tool_call> lines: nothing decodes
    assert hermes["accuracy_relevance"] == 1.0
    bad = CliRunner().invoke(app, ["eval", str(res), "--task", "function-call", "--format",
                                   "bfcl", "--functions", str(data), "--bfcl-model", "nope"])
    assert bad.exit_code == 2 and "unknown BFCL model" in bad.output


def test_max_chars_applies_to_the_decoded_calls_not_the_raw_text(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from judge.cli import app

    data = _bfcl_folder(tmp_path)[1]
    res = tmp_path / "result" / "deepseek-ai_deepseek-coder-6.7b-instruct"
    prose = "Let me think step by step about the greatest common divisor. " * 80
    assert len(prose) > 4096  # 62 characters x 80 = 4,960
    _write(res / "gorilla_openfunctions_v1_test_simple_result.json", [
        {"id": "simple_0", "result": prose + "```python\n[math.gcd(a=12, b=18)]\n```"},
        {"id": "simple_1", "result": "```python\n[math.gcd(a=12, b=9)]\n```" + prose},
        {"id": "simple_2", "result": prose}])  # no code block: unparseable, wrong
    base = ["eval", str(res), "--task", "function-call", "--format", "bfcl", "--functions",
            str(data), "--bootstrap", "0"]
    got = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "run")])
    assert got.exit_code == 0, got.output
    metrics = json.loads((tmp_path / "run" / "summary.json").read_text())["metrics"]
    assert metrics["accuracy_simple"] == 1 / 3  # simple_0 right; b=9 and no call wrong
    # a decoded string over the limit is still refused, with the result's file and line
    _write(res / "gorilla_openfunctions_v1_test_simple_result.json", [
        {"id": "simple_0", "result": "```python\n[math.gcd(a=12, b='" + "x" * 4097
         + "')]\n```"}])
    bad = CliRunner().invoke(app, [*base, "--out", str(tmp_path / "run2")])
    assert bad.exit_code == 2
    assert ("gorilla_openfunctions_v1_test_simple_result.json:1: field 'result': decoded calls "
            "hold a string of 4,097 characters, over --max-chars 4096") in bad.output
    assert not (tmp_path / "run2").exists()
    assert CliRunner().invoke(app, [*base, "--max-chars", "0", "--out",
                                    str(tmp_path / "run3")]).exit_code == 0


def test_compare_shows_the_per_category_view_across_models(tmp_path: Path) -> None:
    from judge.pipeline.config import EvalConfig
    from judge.pipeline.run import run
    from judge.runs.compare import compare_runs

    res, data = _bfcl_folder(tmp_path)
    runs = []
    for k, model in enumerate(("meta-llama/Meta-Llama-3-8B-Instruct", "gorilla")):
        runs.append(run(EvalConfig(data=res, task="function-call", out_dir=tmp_path / f"r{k}",
                                   bootstrap=0, task_options={
                                       "format": "bfcl", "functions": data,
                                       "bfcl_model": model})))
    result = compare_runs(runs, n_boot=0)
    simple = result["differences"][0]["metrics"]["accuracy_simple"]
    # gorilla wraps in [...] again: "[[math.gcd(...)" is a list in a list -> not a call
    assert (simple["a"], simple["b"]) == (2 / 3, 0.0)


# ----------------------------------------------------------------- the public archive

ARCHIVE = Path(os.environ.get("BFCL_ARCHIVE", "/tmp/bfcl-archive/2024-08-11"))
DATA = Path(os.environ.get("BFCL_DATA",
                           "/tmp/gorilla-de83/berkeley-function-call-leaderboard/data"))


@pytest.mark.skipif(not ((ARCHIVE / "score").is_dir() and DATA.is_dir()),
                    reason="BFCL result archive absent (set BFCL_ARCHIVE and BFCL_DATA)")
def test_two_archive_models_agree_with_the_official_score_files(capsys: Any) -> None:
    pytest.importorskip("tree_sitter_java")
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from check_bfcl_archive import main  # type: ignore[import-not-found]

    assert main(["--archive", str(ARCHIVE), "--data", str(DATA), "--models",
                 "meta-llama_Meta-Llama-3-8B-Instruct", "gorilla-openfunctions-v2"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^all\s+2780\s+2780\s+100\.00%$", out, re.MULTILINE), out


def test_a_folder_run_is_rescored_and_exported_with_its_folders(tmp_path: Path) -> None:
    import tarfile

    from typer.testing import CliRunner

    from judge.cli import app

    res, data = _bfcl_folder(tmp_path)
    run_dir = tmp_path / "run"
    assert CliRunner().invoke(app, ["eval", str(res), "--task", "function-call", "--format",
                                    "bfcl", "--functions", str(data), "--out", str(run_dir),
                                    "--bootstrap", "0"]).exit_code == 0
    again = CliRunner().invoke(app, ["rescore", str(run_dir)])
    assert again.exit_code == 0, again.output  # the folders are found and sha256-checked
    bundle = tmp_path / "b.tar.gz"
    got = CliRunner().invoke(app, ["export", str(run_dir), str(bundle)])
    assert got.exit_code == 0, got.output
    with tarfile.open(bundle) as tar:
        names = tar.getnames()
    # the result folder keeps its name: the replay detects the same model
    assert any(n.endswith("input/data/meta-llama_Meta-Llama-3-8B-Instruct/"
                          "gorilla_openfunctions_v1_test_simple_result.json") for n in names)
    assert any(n.endswith("input/functions/data/possible_answer/"
                          "gorilla_openfunctions_v1_test_simple.json") for n in names)
