"""The notebook API (issue 27): ``EvalResult.to_pandas()``, the verdicts frame,
``judge.load_run``, ``_repr_html_``, and ``evaluate()`` on a pandas DataFrame or an HF
``datasets.Dataset`` with the CLI's field options — checked against the CLI's numbers on the same
data and against values derived by hand. pandas and datasets come with the ``notebook`` extra:
the tests that need them skip without it."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import judge
from judge.cli import app
from judge.errors import InputError
from judge.judges.options import JudgeOptions
from judge.record.itemrows import SelectionRow
from judge.record.summaryhtml import summary_html

REPO = Path(__file__).resolve().parents[2]
GLOSSARY = REPO / "examples" / "glossary_en_zh.jsonl"


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def test_importing_judge_and_evaluating_dicts_does_not_import_pandas(tmp_path: Path) -> None:
    code = ("import sys, judge\n"
            "r = judge.evaluate([{'pred': ['a b'], 'truth': ['a b c']}], judge='lexical', "
            f"cache_dir={str(tmp_path)!r}, bootstrap=0)\n"
            "r._repr_html_()\n"
            "assert 'pandas' not in sys.modules and 'datasets' not in sys.modules, "
            "sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'datasets'))\n")
    # a fresh interpreter: what importing judge imports is the point (this one has pandas)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=REPO, timeout=120)
    assert res.returncode == 0, res.stderr


def test_a_clear_error_names_the_extra_when_pandas_is_missing(tmp_path: Path,
                                                              monkeypatch) -> None:
    r = judge.evaluate([{"id": "a", "pred": ["x"], "truth": ["x"]}], judge="lexical",
                       cache_dir=tmp_path, bootstrap=0)
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas → ImportError
    with pytest.raises(ImportError, match=r'needs pandas.*pip install "simjudge\[notebook\]"'):
        r.to_pandas()
    with pytest.raises(ImportError, match=r"verdicts_to_pandas\(\) needs pandas"):
        r.verdicts_to_pandas()


def test_inspect_integration_names_its_extra_when_inspect_ai_is_missing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    # as if not installed: no inspect_ai module loaded (an earlier test may have imported its
    # submodules, which an import would find without their parent) and the package unfindable
    for name in [m for m in sys.modules if m.split(".")[0] == "inspect_ai"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "inspect_ai", None)
    monkeypatch.delitem(sys.modules, "judge.integrations.inspect", raising=False)
    with pytest.raises(ImportError) as exc:
        importlib.import_module("judge.integrations.inspect")
    assert 'needs inspect_ai' in str(exc.value)
    assert 'pip install "simjudge[inspect]"' in str(exc.value)


def test_summary_html_escapes_every_text() -> None:
    html = summary_html(
        {"task": "selection", "tau": 0.7, "judge": {"id": "<script>alert(1)</script>"}},
        {"n_items": 2, "metrics": {"macro_f1": 0.5, "<img src=x>": 1.0, "per_class": {}},
         "bootstrap": {"ci95": {"macro_f1": [0.25, 0.75]}}, "judge_calls": 3,
         "outcomes": {"ok": 3}}, path="runs/<b>")
    assert "<script>" not in html and "<img" not in html and "<b>" not in html.replace(
        "<b>simjudge", "")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&lt;img src=x&gt;" in html
    assert "runs/&lt;b&gt;" in html
    assert ">0.5000<" in html and ">[0.2500, 0.7500]<" in html and "τ 0.7" in html
    assert "per-class and per-category tables (per_class)" in html


def _pandas() -> Any:
    return pytest.importorskip("pandas", reason="the notebook extra (pandas) is not installed")


def test_to_pandas_equals_the_cli_run_on_the_same_data(tmp_path: Path) -> None:
    pd = _pandas()
    cache = tmp_path / "cache"  # one cache: the same embeddings for both runs
    res = CliRunner().invoke(app, ["eval", str(GLOSSARY), "--task", "selection", "--judge",
                                   "local", "--cache-dir", str(cache), "--bootstrap", "200",
                                   "--out", str(tmp_path / "cli")])
    assert res.exit_code == 0, res.output
    cli_items = _jsonl(tmp_path / "cli" / "items.jsonl")
    cli_summary = json.loads((tmp_path / "cli" / "summary.json").read_text(encoding="utf-8"))

    df = pd.read_json(GLOSSARY, lines=True)  # the same file, as a notebook user reads it
    r = judge.evaluate(df, judge="local", cache_dir=cache, bootstrap=200)
    frame = r.to_pandas()
    assert len(frame) == 24 == len(cli_items)
    assert list(frame["id"]) == [i["id"] for i in cli_items]
    for col in ("n_pred", "n_truth", "n_exact", "tp_fuzzy", "precision", "recall", "f1"):
        assert list(frame[col]) == [i[col] for i in cli_items], col
    assert frame["source"][0] == "<items>:1"
    # typed columns: counts int64, metrics float64, ids string
    assert str(frame["n_pred"].dtype) == "int64" and str(frame["f1"].dtype) == "float64"
    assert isinstance(frame["id"].dtype, pd.StringDtype)
    assert "matches" not in frame and "scores" not in frame  # nested content stays on rows
    # macro F1 is the mean of the items' F1 (seed 001), the CLI's number and its CI
    assert r.summary["metrics"]["macro_f1"] == cli_summary["metrics"]["macro_f1"]
    assert frame["f1"].mean() == pytest.approx(cli_summary["metrics"]["macro_f1"], abs=1e-12)
    assert r.summary["bootstrap"]["ci95"] == cli_summary["bootstrap"]["ci95"]

    run = judge.load_run(tmp_path / "cli")
    assert isinstance(run, judge.RunRecord) and type(run.items[0]) is SelectionRow
    loaded = run.to_pandas()
    pd.testing.assert_frame_equal(loaded.drop(columns="source"), frame.drop(columns="source"))
    assert loaded["source"][0] == f"{GLOSSARY}:1"
    # the verdicts frame holds verdicts.jsonl, one row per judged pair and judge
    v = run.verdicts_to_pandas()
    file_rows = _jsonl(tmp_path / "cli" / "verdicts.jsonl")
    distinct = {(p, t) for i in cli_items for p in i["pred"] for t in i["truth"]}
    assert len(v) == len(file_rows) == len(distinct)  # one verdict per distinct judged pair
    assert list(v["score"]) == [x["score"] for x in file_rows]
    assert list(v.columns[:7]) == ["item_id", "judge_id", "member_of", "pred", "truth",
                                   "score", "outcome"]
    assert set(v["judge_id"]) == {"local"} and set(v["outcome"]) == {"ok"}
    html = run._repr_html_()
    macro = cli_summary["metrics"]["macro_f1"]
    lo, hi = cli_summary["bootstrap"]["ci95"]["macro_f1"]
    assert f">{macro:.4f}<" in html and f">[{lo:.4f}, {hi:.4f}]<" in html
    assert "selection, 24 items, judge local, τ 0.7" in html


def test_verdicts_frame_per_pair_and_judge_with_failed_verdicts(tmp_path: Path,
                                                                monkeypatch) -> None:
    pd = _pandas()
    from tests.fake_openai import FakeOpenAIServer, FakeServerConfig

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-notebook-0000000000")
    items = [{"id": "a", "pred": ["Login", "Report"], "truth": ["login page", "Audit"]}]
    # the fake judge scores 0.9 when both sides share their first letter, else 0.1; a reply
    # that is not JSON for pairs judging "Audit" → parse_error, a verdict without a score (NaN)
    with FakeOpenAIServer(FakeServerConfig(contents={"Audit": "not json"})) as srv:
        r = judge.evaluate(items, judge="openai:fake", cache_dir=tmp_path / "c", bootstrap=0,
                           judge_options=JudgeOptions(base_url=srv.base_url))
    v = r.verdicts_to_pandas()
    got = {(p, t): (s, o) for p, t, s, o in zip(v["pred"], v["truth"], v["score"],
                                                v["outcome"], strict=True)}
    assert got[("Login", "login page")] == (0.9, "ok")
    assert got[("Report", "login page")] == (0.1, "ok")
    for pair in (("Login", "Audit"), ("Report", "Audit")):
        assert math.isnan(got[pair][0]) and got[pair][1] == "parse_error"
    assert str(v["score"].dtype) == "float64" and len(v) == 4
    # F1 at τ 0.7: one match (Login, login page) scored 0.9 → TP 0.9, P = R = F1 = 0.45
    assert r.to_pandas()["f1"][0] == pytest.approx(0.45)

    # a panel: each member's own verdicts (member_of = the panel) and the panel's
    table = tmp_path / "scores.jsonl"
    table.write_text("".join(json.dumps(x) + "\n" for x in [
        {"pred": "Login", "truth": "login page", "score": 0.8},
        {"pred": "Login", "truth": "Audit", "score": 0.05},
        {"pred": "Report", "truth": "Audit", "score": 0.1}]), encoding="utf-8")
    r = judge.evaluate(items, judge=[f"table:{table}", "lexical"], cache_dir=tmp_path / "c",
                       bootstrap=0)
    v = r.verdicts_to_pandas()
    panel = f"panel:mean(table:{table},lexical)"
    members = v[v["member_of"] == panel]
    counts = members["judge_id"].value_counts()  # the table has no (Report, login page)
    assert counts[f"table:{table}"] == 3 and counts["lexical"] == 4 and len(counts) == 2
    decided = v[v["judge_id"] == panel]
    assert len(decided) == 4 and decided["member_of"].isna().all()
    for p, t, s in zip(decided["pred"], decided["truth"], decided["score"], strict=True):
        own = members[(members["pred"] == p) & (members["truth"] == t)]["score"]
        assert s == pytest.approx(own.mean())  # vote "mean" over the members that scored it
    assert isinstance(v, pd.DataFrame)


def test_dataframe_input_with_the_clis_field_options(tmp_path: Path) -> None:
    pd = _pandas()
    df = pd.DataFrame({
        "qid": [7, 8, 9, 10],
        "answer": [["User Login"], ["Report"], ["Audit Log"], ["x"]],
        "gold": [["user login"], ["report", "audit"], ["audit log"], ["y"]],
        "split": ["test", "test", "dev", "test"],
        "ok": [True, True, True, False],
    })
    kw: dict[str, Any] = {"judge": "lexical", "cache_dir": tmp_path / "c", "bootstrap": 0,
                          "pred_field": "answer", "truth_field": "gold", "id_fields": ["qid"]}
    r = judge.evaluate(df, where=["split=test", "ok=true"], out=tmp_path / "run", **kw)
    frame = r.to_pandas()
    # kept: qid 7 (exact: F1 1) and 8 (Report = report exactly; audit unmatched:
    # P 1, R 1/2, F1 2/3); 9 is dev, 10 is not ok
    assert list(frame["id"]) == ["7", "8"] and list(frame["source"]) == ["<items>:1",
                                                                        "<items>:2"]
    assert list(frame["f1"]) == pytest.approx([1.0, 2 / 3])
    assert judge.evaluate(df, where={"split": "test", "ok": True}, **kw).items == r.items
    # the run records the full table and the filters: rescore reads it back to the same rows
    config = json.loads((tmp_path / "run" / "config.json").read_text(encoding="utf-8"))
    assert config["fields"]["where"] == ["split=test", "ok=true"]
    assert len(_jsonl(tmp_path / "run" / "inputs.jsonl")) == 4
    from judge.tasks.inputs import run_source
    from judge.tasks.registry import get_task

    again = get_task("selection").load(run_source(judge.load_run(tmp_path / "run")))
    assert [(i.id, i.source.rpartition(":")[2]) for i in again] == [("7", "1"), ("8", "2")]
    res = CliRunner().invoke(app, ["rescore", str(tmp_path / "run"), "--bootstrap", "0",
                                   "--out", str(tmp_path / "re.json")])
    assert res.exit_code == 0, res.output
    rescored = json.loads((tmp_path / "re.json").read_text(encoding="utf-8"))
    assert [i["f1"] for i in rescored["items"]] == pytest.approx([1.0, 2 / 3])
    with pytest.raises(InputError, match="no records match the where filters"):
        judge.evaluate(df, where=["split=none"], **kw)
    # a NaN cell (a frame built from dicts where one lacked the field) is a missing field
    holes = pd.DataFrame([{"pred": ["a"], "truth": ["a"]}, {"pred": ["b"]}])
    with pytest.raises(InputError, match=r"<items>:2: field 'truth': missing"):
        judge.evaluate(holes, judge="lexical", cache_dir=tmp_path / "c")
    with pytest.raises(InputError, match="columns must be unique strings"):
        judge.evaluate(pd.DataFrame([[["a"], ["a"]]]), judge="lexical")


def test_dataset_input_equals_the_same_records_as_dicts(tmp_path: Path) -> None:
    _pandas()
    datasets = pytest.importorskip("datasets", reason="the notebook extra is not installed")
    rows = [{"id": f"q{k}", "pred": ["User Login", "Report"][: 1 + k % 2],
             "truth": ["user login"], "lang": "en" if k < 3 else "zh"} for k in range(5)]
    kw: dict[str, Any] = {"judge": "lexical", "cache_dir": tmp_path / "c", "bootstrap": 0}
    ds = datasets.Dataset.from_list(rows)
    from_ds = judge.evaluate(ds, where=["lang=en"], **kw)
    from_dicts = judge.evaluate(rows, where=["lang=en"], **kw)
    assert from_ds.items == from_dicts.items and [i["id"] for i in from_ds.items] == [
        "q0", "q1", "q2"]
    # q0: one exact pred → F1 1; q1: 2 preds, 1 exact → P 1/2, R 1, F1 2/3
    assert list(from_ds.to_pandas()["f1"]) == pytest.approx([1.0, 2 / 3, 1.0])
    with pytest.raises(InputError, match=r"DatasetDict holds several splits \(test, dev\)"):
        judge.evaluate(datasets.DatasetDict({"test": ds, "dev": ds}), **kw)
