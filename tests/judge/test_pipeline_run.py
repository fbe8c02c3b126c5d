"""One entry point (``judge.pipeline.run``) for ``simjudge eval`` and ``judge.evaluate()``: a run
written by the Python API records its input (dicts copied into the run directory), so
``simjudge rescore`` and ``simjudge export`` work on it (they refused it with "config.json
records no data file"); the Python API gets panels, probes and the bootstrap with the CLI's
numbers; a task's own options are validated by its model and refused for other tasks."""

from __future__ import annotations

import hashlib
import json
import sys
import tarfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge import evaluate
from judge.cli import app
from judge.errors import InputError
from judge.record.store import load_run
from judge.runs.rescore import rescore

EX = Path(__file__).resolve().parents[2] / "examples"
runner = CliRunner()


def _records(name: str) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in (EX / name).read_text(encoding="utf-8").splitlines()
            if line.strip()]


@pytest.mark.parametrize(("task", "file", "judge", "kwargs"), [
    ("judgment", "judgment_term_translation.jsonl", None, {}),
    ("function-call", "seed003_home_automation.jsonl", "lexical", {"arg_tau": 0.6}),
    ("selection", "glossary_en_zh.jsonl", "lexical", {}),
])
def test_a_python_api_run_is_rescored_and_exported(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch, task: str,
                                                   file: str, judge: str | None,
                                                   kwargs: dict) -> None:  # type: ignore[type-arg]
    records = _records(file)
    r = evaluate(records, task=task, judge=judge, out=tmp_path / "run",
                 cache_dir=tmp_path / "c", bootstrap=0, **kwargs)
    run = tmp_path / "run"
    config = json.loads((run / "config.json").read_text(encoding="utf-8"))
    copy = (run / "inputs.jsonl").read_bytes()
    assert config["data"] == {"path": "inputs.jsonl", "in_run": True,
                              "sha256": hashlib.sha256(copy).hexdigest()}
    assert [json.loads(x) for x in copy.decode("utf-8").splitlines()] == records
    assert "inputs.jsonl" not in load_run(run).extra  # an input, not an extra run file

    elsewhere = tmp_path / "elsewhere"  # the copy is found from any folder
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    got = rescore(load_run(run), n_boot=0)  # function calls add the arg τ used
    assert {k: got["metrics"][k] for k in r.summary["metrics"]} == r.summary["metrics"]
    res = runner.invoke(app, ["rescore", str(run), "--bootstrap", "0"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["export", str(run), str(tmp_path / "b.tar.gz")])
    assert res.exit_code == 0, res.output
    with tarfile.open(tmp_path / "b.tar.gz") as tar:
        bundled = tar.extractfile("b/input/data.jsonl")
        assert bundled is not None and bundled.read() == copy
    if task == "judgment":  # examples/README.md, derived by hand: TP 4, FP 2, FN 1, TN 3
        m = r.summary["metrics"]
        assert (m["accuracy"], m["precision"], m["recall"]) == pytest.approx((0.7, 4 / 6, 4 / 5))


def test_a_changed_input_copy_is_refused(tmp_path: Path) -> None:
    evaluate(_records("judgment_term_translation.jsonl"), task="judgment",
             out=tmp_path / "run", bootstrap=0)
    with open(tmp_path / "run" / "inputs.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"id": "term-99", "pred": true, "truth": false}\n')
    with pytest.raises(InputError, match="changed since the run"):
        rescore(load_run(tmp_path / "run"), n_boot=0)


def test_the_python_api_runs_a_panel_with_probes_as_the_cli_does(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = _records("glossary_en_zh.jsonl")[:12]
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                    encoding="utf-8")
    api = evaluate(records, judge=["lexical", "local"], vote="mean", probes=["swap=1"],
                   bootstrap=200, seed=3, cache_dir=tmp_path / "c")
    args = ["eval", str(data), "--judge", "lexical", "--judge", "local", "--vote", "mean",
            "--probe", "swap=1", "--bootstrap", "200", "--seed", "3", "--out",
            str(tmp_path / "run"), "--cache-dir", str(tmp_path / "c")]
    monkeypatch.setattr(sys, "argv", ["simjudge", *args])
    assert runner.invoke(app, args).exit_code == 0
    cli = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    assert api.config["judge"]["backend"] == "panel"
    assert [m["id"] for m in api.config["judge"]["members"]] == ["lexical", "local"]
    assert api.summary["metrics"] == cli["metrics"]
    assert api.summary["bootstrap"] == cli["bootstrap"] and api.summary["bootstrap"]["ci95"]
    assert api.summary["probes"]["swap"] == cli["probes"]["swap"]
    assert api.summary["probes"]["swap"]["pairs"] > 0


def test_task_options_are_the_tasks_own(tmp_path: Path) -> None:
    records = _records("judgment_term_translation.jsonl")
    with pytest.raises(InputError, match=r"--arg-tau is used by --task function-call only, not "
                                         r"--task judgment"):
        evaluate(records, task="judgment", task_options={"arg_tau": 0.5})
    fc = _records("seed003_home_automation.jsonl")
    with pytest.raises(InputError, match=r"--arg-tau must be in \[0, 1\], got 1.5"):
        evaluate(fc, task="function-call", arg_tau=1.5)
    with pytest.raises(InputError, match="unknown function-call format 'xml'; expected one of "
                                         "seed, openai, bfcl"):
        evaluate(fc, task="function-call", fc_format="xml")  # type: ignore[arg-type]
    r = evaluate(fc, task="function-call", cache_dir=tmp_path / "c", bootstrap=0)
    assert r.config["task_options"] == {"format": "seed", "functions": None, "arg_judge": None,
                                        "arg_tau": 0.7, "bfcl_model": None,
                                        "fc_matching": None, "text_overlap": None}
    assert r.config["function_call_format"] == "seed"


def test_eval_help_lists_the_task_options() -> None:
    res = runner.invoke(app, ["eval", "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0
    for flag in ("--format", "--functions", "--arg-judge", "--arg-tau"):
        assert flag in res.output
    assert "seed, openai (tool_calls) or bfcl" in res.output


def test_records_are_copied_only_into_a_written_run(tmp_path: Path) -> None:
    """Without ``out`` nothing is recorded, so records need not be JSON-serialisable; with
    ``out`` a record that could not be read again is refused before any judge call."""
    records = [{"id": "a", "pred": ["Report"], "truth": ["Reports"], "note": {1, 2}}]
    r = evaluate(records, judge="lexical", bootstrap=0, cache_dir=tmp_path / "c")
    assert r.config.get("data") is None and r.record.path is None
    with pytest.raises(InputError, match="JSON-serialisable"):
        evaluate(records, judge="lexical", bootstrap=0, out=tmp_path / "run",
                 cache_dir=tmp_path / "c")
    assert not (tmp_path / "run").exists()


def test_long_lived_heap_freezes_and_puts_everything_back() -> None:
    """Inside a run, the objects that existed before are frozen and the youngest generation's
    threshold is GC_YOUNG; afterwards (also after an error) both are as they were; a freeze
    made by someone else, or a disabled collector, is left alone."""
    import gc

    from judge.pipeline.run import GC_YOUNG, long_lived_heap

    before = gc.get_threshold()
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    with pytest.raises(RuntimeError), long_lived_heap():
        assert gc.get_freeze_count() > 1000  # at least the imported modules' objects
        assert gc.get_threshold() == (max(before[0], GC_YOUNG), *before[1:])
        raise RuntimeError("stop")
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before
    gc.freeze()  # someone else's freeze: kept through and after the run
    try:
        frozen = gc.get_freeze_count()
        with long_lived_heap():
            assert gc.get_freeze_count() == frozen
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
    gc.disable()
    try:
        with long_lived_heap():
            assert gc.get_freeze_count() == 0 and gc.get_threshold() == before
    finally:
        gc.enable()
