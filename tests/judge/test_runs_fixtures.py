"""Run directories written by simjudge before the redesign (``tests/fixtures/runs_v0``) stay
readable: ``audit``, ``rescore`` and ``compare`` work on them and reproduce their numbers.

The fixtures were written by ``simjudge eval`` at commit "judge.aio.run…" (issue 11 landed)
from the files beside them: ``glossary6.jsonl`` (the first 6 items of
examples/glossary_en_zh.jsonl) with ``--judge local`` and with the panel ``--judge local
--judge lexical --vote max``, and ``function_call_openai.jsonl`` (examples/) with ``--task
function-call --format openai``; ``--bootstrap 200``; report.html left out (``audit``
re-renders it). A later run format must keep loading them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.record.runrecord import RunRecord
from judge.record.store import load_run

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "runs_v0"
RUNS = ("selection_local", "selection_panel", "function_call")
runner = CliRunner()


def _summary(name: str) -> dict:  # type: ignore[type-arg]
    return json.loads((FIXTURES / name / "summary.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", RUNS)
def test_old_runs_load_and_audit(tmp_path: Path, name: str) -> None:
    stored = load_run(FIXTURES / name)
    assert isinstance(stored, RunRecord) and stored.path == FIXTURES / name
    assert stored.task == ("function-call" if name == "function_call" else "selection")
    assert len(stored.items) == _summary(name)["n_items"]
    for fmt in ("html", "md", "jsonl"):
        target = tmp_path / f"report.{fmt}"
        res = runner.invoke(app, ["audit", str(FIXTURES / name), "--format", fmt, "--out",
                                  str(target)])
        assert res.exit_code == 0, res.output
        assert target.stat().st_size > 0
    # every item id of the run appears in the re-rendered report
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert all(json.dumps(row.id)[1:-1] in html for row in stored.items)


def test_rescore_of_an_old_run_reproduces_it(tmp_path: Path) -> None:
    res = runner.invoke(app, ["rescore", str(FIXTURES / "selection_local"), "--bootstrap", "0",
                              "--out", str(tmp_path / "r.json")])
    assert res.exit_code == 0, res.output
    again = json.loads((tmp_path / "r.json").read_text())
    assert again["tau"] == 0.7 and again["tau_source"] == "run"
    assert again["metrics"] == _summary("selection_local")["metrics"]


def test_rescore_of_an_old_panel_with_another_vote(tmp_path: Path) -> None:
    # vote max reproduces the run; vote mean halves every score: lexical gives 0 to each of
    # these en–zh pairs (no shared character), so mean = local / 2 <= 0.5 < τ 0.7 → no match,
    # and no pair is an exact match (n_exact 0) → every F1 is 0
    out = tmp_path / "max.json"
    res = runner.invoke(app, ["rescore", str(FIXTURES / "selection_panel"), "--bootstrap", "0",
                              "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert json.loads(out.read_text())["metrics"] == _summary("selection_panel")["metrics"]
    res = runner.invoke(app, ["rescore", str(FIXTURES / "selection_panel"), "--vote", "mean",
                              "--bootstrap", "0", "--out", str(tmp_path / "mean.json")])
    assert res.exit_code == 0, res.output
    mean = json.loads((tmp_path / "mean.json").read_text())["metrics"]
    assert _summary("selection_panel")["metrics"]["macro_f1"] > 0.6
    assert mean["macro_f1"] == 0.0 and mean["micro_f1"] == 0.0 and mean["n_exact"] == 0


def test_compare_old_runs(tmp_path: Path) -> None:
    # local alone vs the max-panel of local and lexical (lexical 0 everywhere): same metrics,
    # every difference 0
    res = runner.invoke(app, ["compare", str(FIXTURES / "selection_local"),
                              str(FIXTURES / "selection_panel"), "--bootstrap", "100",
                              "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    result = json.loads((tmp_path / "compare.json").read_text())
    diffs = result["differences"][0]["metrics"]
    assert diffs["macro_f1"]["diff"] == 0.0 and diffs["micro_f1"]["diff"] == 0.0
