"""``rescore`` of the tasks without a threshold (judgment, generation, multilabel, ranking):
the metrics are recomputed from the run's input files and equal the run's own."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.record.store import load_run
from judge.runs.rescore import rescore

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
runner = CliRunner()


@pytest.mark.parametrize(("task", "files", "extra", "headline"), [
    ("judgment", ["judgment_term_translation.jsonl"], [], ("f1", 0.7273)),
    ("generation", ["generation_short_answers.jsonl"], [], ("f1", 0.8182)),
    ("multilabel", ["multilabel_support_tickets.jsonl"], [], ("of1", 0.7778)),
    ("ranking", ["ranking_trec.run", "ranking_trec.qrels"], ["--gold", "ranking_trec.qrels"],
     ("map", 0.5353)),
])
def test_rescore_recomputes_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, task: str,
                                    files: list[str], extra: list[str],
                                    headline: tuple[str, float]) -> None:
    for f in files:
        shutil.copy(EXAMPLES / f, tmp_path / f)
    monkeypatch.chdir(tmp_path)
    args = ["eval", files[0], "--task", task, *extra, "--out", "run", "--bootstrap", "0"]
    monkeypatch.setattr(sys, "argv", ["simjudge", *args])
    assert runner.invoke(app, args).exit_code == 0
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    got = rescore(load_run(tmp_path / "run"), n_boot=0)
    assert got["tau"] is None and got["threshold"] is None
    assert got["metrics"] == summary["metrics"]  # every metric, counts and tables included
    key, value = headline  # the README's headline of the example file
    assert round(got["metrics"][key], 4) == value
    res = runner.invoke(app, ["rescore", "run"])
    assert res.exit_code == 0 and "no threshold" in res.output
    res = runner.invoke(app, ["rescore", "run", "--tau", "0.5"])
    assert res.exit_code == 2 and "have no threshold" in res.output
