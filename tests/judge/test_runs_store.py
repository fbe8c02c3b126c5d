"""``judge.record.store``: a RunRecord written as a run directory and read back, errors naming file,
line and field, and report.html rendered from the record itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from judge.errors import InputError
from judge.record.runrecord import ItemRow, RunRecord, VerdictRow
from judge.record.store import RUN_FILES, load_run, record_from_parts, write_run
from judge.redact import MASK
from judge.runs.report import RENDERERS, render_html
from tests.run_records import selection_items, selection_record, selection_verdicts

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "runs_v0"


def _lines(path: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(x) for x in path.read_text(encoding="utf-8").split("\n") if x]


def test_write_then_load_round_trips_every_row(tmp_path: Path) -> None:
    record = selection_record()
    record.extra["disagreements.jsonl"] = [{"item_id": None, "pred": "Report",
                                            "truth": "Reports list", "scores": {"x": 0.9}}]
    out = write_run(record, tmp_path / "run", renderers=RENDERERS)
    assert out == tmp_path / "run" and record.path == out
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [*RUN_FILES, "disagreements.jsonl", "report.html"])
    # the rows on disk are the ones given, field for field and in order
    assert _lines(out / "items.jsonl") == selection_items()
    assert _lines(out / "verdicts.jsonl") == selection_verdicts()
    back = load_run(out)
    assert isinstance(back, RunRecord) and back.path == out
    assert back.item_rows() == selection_items()
    assert list(back.verdict_rows()) == selection_verdicts()
    assert back.extra == record.extra and back.config == record.config
    assert back.summary == record.summary and back.task == "selection"
    assert back.judge_id == "lexical" and back.summary.n_items == 2
    assert back.summary.outcomes == {"ok": 4, "parse_error": 1}


def test_report_is_rendered_from_the_record_as_from_the_files(tmp_path: Path) -> None:
    record = selection_record()
    write_run(record, tmp_path / "run", renderers=RENDERERS)
    written = (tmp_path / "run" / "report.html").read_text(encoding="utf-8")
    # what write_run drew from memory equals what audit draws from the files
    assert written == render_html(load_run(tmp_path / "run"))
    assert "simjudge audit — run" in written


def test_jsonl_is_split_on_newlines_only(tmp_path: Path) -> None:
    # U+2028 LINE SEPARATOR, U+0085 NEXT LINE: str.splitlines() would cut the row there
    odd = "a\u2028b\u0085c"
    items = selection_items()
    items[1]["pred"] = [odd]
    verdicts = [*selection_verdicts(), {"pred": odd, "truth": "Budget", "score": 0.0,
                                        "outcome": "ok", "judge_id": "lexical"}]
    rec = record_from_parts({"task": "selection", "tau": 0.7}, {"task": "selection",
                                                                 "n_items": 2}, items, verdicts)
    write_run(rec, tmp_path / "run")
    back = load_run(tmp_path / "run")
    assert back.items[1].get("pred") == [odd] and back.verdicts[-1].pred == odd


def test_old_runs_load_as_records() -> None:
    for name, n_items, n_verdicts, extra in (("selection_local", 6, 96, []),
                                             ("selection_panel", 6, 288, ["disagreements.jsonl"]),
                                             ("function_call", 10, 0, [])):
        rec = load_run(FIXTURES / name)
        assert (len(rec.items), len(rec.verdicts), list(rec.extra)) == (
            n_items, n_verdicts, extra)
    panel = load_run(FIXTURES / "selection_panel")
    members = [v for v in panel.verdicts if v.member_of is not None]
    assert len(members) == 192 and {v.judge_id for v in members} == {"local", "lexical"}
    assert len(panel.extra["disagreements.jsonl"]) == 20


def test_audit_outputs_in_a_run_directory_are_not_extra_files(tmp_path: Path) -> None:
    write_run(selection_record(), tmp_path / "run")
    (tmp_path / "run" / "report.jsonl").write_text('{"id": "a"}\n')
    assert load_run(tmp_path / "run").extra == {}


def _broken_run(tmp_path: Path, file: str, text: str) -> Path:
    write_run(selection_record(), tmp_path / "run")
    (tmp_path / "run" / file).write_text(text, encoding="utf-8")
    return tmp_path / "run"


@pytest.mark.parametrize("file, text, where, field, message", [
    ("items.jsonl", '{"id": "a"}\n\n{"id": "b"\n', "items.jsonl:3", None, "malformed JSON"),
    # the blank line 2 is skipped but counted: the row without an id is on line 3
    ("items.jsonl", '{"id": "a"}\n\n{"source": "x"}\n', "items.jsonl:3", "id",
     "Field required"),
    ("verdicts.jsonl", '{"pred": "p", "truth": "t"}\n{"pred": "p"}\n', "verdicts.jsonl:2",
     "truth", "Field required"),
    ("verdicts.jsonl", '{"pred": "p", "truth": "t", "outcome": "maybe"}\n', "verdicts.jsonl:1",
     "outcome", "Input should be"),
    ("config.json", '{"tau": 0.7}', "config.json", "task", "Field required"),
    ("summary.json", '{"task": "selection", "n_items": -1}', "summary.json", "n_items",
     "greater than or equal to 0"),
    ("summary.json", '{"task": ', "summary.json:1", None, "malformed JSON"),
    ("disagreements.jsonl", '{"a": 1}\n[1]\n', "disagreements.jsonl:2", None,
     "valid dictionary"),
])
def test_bad_run_files_name_file_line_and_field(tmp_path: Path, file: str, text: str,
                                                where: str, field: str | None,
                                                message: str) -> None:
    run = _broken_run(tmp_path, file, text)
    with pytest.raises(InputError) as info:
        load_run(run)
    err = info.value
    assert f"{err.path}{'' if err.line is None else f':{err.line}'}" == str(run / where)
    assert err.field == field and message in err.message


def test_missing_files_are_not_a_run_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a run directory"):
        load_run(tmp_path / "nope")
    write_run(selection_record(), tmp_path / "run")
    (tmp_path / "run" / "verdicts.jsonl").unlink()
    with pytest.raises(InputError, match=r"not a run directory.*verdicts\.jsonl"):
        load_run(tmp_path / "run")


def test_write_run_redacts_keys_but_keeps_the_data(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-live-STOREtest-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    verdicts = selection_verdicts()
    verdicts[-1]["rationale"] = f"HTTP 401: Incorrect API key provided: {key}"
    rec = record_from_parts({"task": "selection", "tau": 0.7, "command": ["--context", key]},
                            {"task": "selection", "n_items": 2}, selection_items(), verdicts,
                            {"disagreements.jsonl": [{"pred": "p", "note": key}]})
    write_run(rec, tmp_path / "run")
    for p in (tmp_path / "run").iterdir():
        assert key not in p.read_text(encoding="utf-8"), p
    assert _lines(tmp_path / "run" / "verdicts.jsonl")[-1]["rationale"].endswith(MASK)
    assert load_run(tmp_path / "run").item_rows() == selection_items()


@pytest.mark.parametrize("name", ["items.jsonl", "../x.jsonl", "notes.txt", ".hidden.jsonl",
                                  "report.jsonl"])
def test_bad_extra_file_names_are_refused_before_writing(tmp_path: Path, name: str) -> None:
    rec = selection_record()
    rec.extra[name] = [{"a": 1}]
    with pytest.raises(ValueError, match="extra run file"):
        write_run(rec, tmp_path / "run")
    assert list(tmp_path.iterdir()) == []


def test_write_run_refuses_a_non_empty_directory_and_overwrites_on_request(
        tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    with pytest.raises(InputError, match="not empty"):
        write_run(selection_record(), out)
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    # --overwrite replaces only a simjudge output: a folder of other files is never deleted
    with pytest.raises(InputError, match="replaces only a simjudge output"):
        write_run(selection_record(), out, overwrite=True)
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    (out / "keep.txt").unlink()
    write_run(selection_record(), out)
    (out / "keep.txt").write_text("x")  # a note the user left inside their run
    with pytest.raises(InputError, match="not empty"):
        write_run(selection_record(), out)
    write_run(selection_record(), out, overwrite=True)  # a run: replaced as a whole
    assert not (out / "keep.txt").exists() and load_run(out).summary.n_items == 2


def test_record_from_parts_validates() -> None:
    rec = record_from_parts({"task": "judgment"}, {"task": "judgment", "n_items": 1},
                            [{"id": "x", "pred": True, "truth": False, "correct": False}], [])
    assert isinstance(rec.items[0], ItemRow) and rec.items[0].get("correct") is False
    assert rec.path is None and rec.judge_id is None and rec.verdicts == []
    with pytest.raises(ValidationError):
        record_from_parts({"task": "judgment"}, {"task": "judgment", "n_items": 1},
                          [{"source": "no id"}], [])
    v = VerdictRow(pred="p", truth="t", score=0.5, latency_s=0.25)
    assert v.to_row() == {"pred": "p", "truth": "t", "score": 0.5, "latency_s": 0.25}


def test_write_run_renders_only_what_it_is_handed(tmp_path: Path) -> None:
    """The ground floor imports no report code: with no renderers the run directory holds the
    run files alone; a renderer writes inside the atomic write, and one that fails leaves
    nothing behind."""
    out = write_run(selection_record(), tmp_path / "plain")
    assert sorted(p.name for p in out.iterdir()) == sorted(RUN_FILES)

    def boom(record: RunRecord, name: str, fh: object) -> None:
        raise RuntimeError("renderer failed")

    with pytest.raises(RuntimeError, match="renderer failed"):
        write_run(selection_record(), tmp_path / "failed", renderers={"x.html": boom})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain"]  # no partial directory
    with pytest.raises(ValueError, match=r"rendered run file 'config\.json'"):
        write_run(selection_record(), tmp_path / "bad", renderers={"config.json": boom})
