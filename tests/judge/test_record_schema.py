"""RunRecord v1: ``schema_version`` on every run written, v0 runs (no version) read and upgraded,
a newer version refused; the judge and panel description and the input provenance typed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from judge import evaluate
from judge.errors import InputError
from judge.record.config import (
    SCHEMA_VERSION,
    FieldSpec,
    InputFile,
    JudgeDescription,
    upgrade_config,
)
from judge.record.store import load_run, write_run

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "runs_v0"


@pytest.mark.parametrize("name", ["selection_local", "selection_panel", "function_call"])
def test_v0_runs_are_read_as_v1(name: str) -> None:
    raw = json.loads((FIXTURES / name / "config.json").read_text(encoding="utf-8"))
    assert "schema_version" not in raw  # written before versions existed
    stored = load_run(FIXTURES / name)
    assert stored.config.schema_version == SCHEMA_VERSION == 1
    assert isinstance(stored.config.data, InputFile)
    assert stored.config.data.path == raw["data"]["path"]
    assert stored.config.data.sha256 == raw["data"]["sha256"]
    assert isinstance(stored.config.fields, FieldSpec)
    if name == "function_call":
        assert stored.config.judge is None
        return
    judge = stored.config.judge
    assert isinstance(judge, JudgeDescription) and judge.id == raw["judge"]["id"]
    if name == "selection_panel":  # --judge local --judge lexical --vote max
        assert judge.is_panel and (judge.vote, judge.quorum) == ("max", 1)
        assert [m.id for m in judge.members] == ["local", "lexical"]
        assert all(isinstance(m, JudgeDescription) for m in judge.members)
        assert [m.id for m in judge.judges()] == ["local", "lexical"]
    else:
        assert not judge.is_panel and judge.judges() == [judge]
        # a backend-specific field is kept (the local judge's calibration record)
        assert judge.get("calibration") == raw["judge"]["calibration"]


def test_a_v0_run_rewritten_keeps_its_content_and_gains_the_version(tmp_path: Path) -> None:
    stored = load_run(FIXTURES / "selection_panel")
    write_run(stored, tmp_path / "again")
    raw = json.loads((FIXTURES / "selection_panel" / "config.json").read_text(encoding="utf-8"))
    again = json.loads((tmp_path / "again" / "config.json").read_text(encoding="utf-8"))
    assert again.pop("schema_version") == 1
    assert again == raw  # every key and value of the v0 file, nested judges included


def test_runs_written_now_carry_the_version(tmp_path: Path) -> None:
    evaluate([{"pred": ["Report"], "truth": ["Reports"]}], judge="lexical",
             out=tmp_path / "run", bootstrap=0, cache_dir=tmp_path / "c")
    raw = json.loads((tmp_path / "run" / "config.json").read_text(encoding="utf-8"))
    assert raw["schema_version"] == 1 and raw["judge"]["backend"] == "lexical"


@pytest.mark.parametrize(("version", "message"), [
    (2, "schema_version 2 is newer than this simjudge reads"),
    ("1", "schema_version must be a whole number"),
    (-1, "schema_version must be a whole number"),
])
def test_unknown_versions_are_refused(tmp_path: Path, version: object, message: str) -> None:
    run = tmp_path / "run"
    shutil.copytree(FIXTURES / "selection_local", run)
    raw = json.loads((run / "config.json").read_text(encoding="utf-8"))
    raw["schema_version"] = version
    (run / "config.json").write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(InputError, match=message) as exc:
        load_run(run)
    assert exc.value.field == "schema_version"
    assert exc.value.path == str(run / "config.json")


def test_upgrade_leaves_the_input_unchanged() -> None:
    v0 = {"task": "selection"}
    assert upgrade_config(v0) == {"task": "selection", "schema_version": 1}
    assert v0 == {"task": "selection"}
