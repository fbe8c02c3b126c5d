"""The verdict log (judge/record/verdictlog.py) and the chunked, spooled judging of large runs
(issue 15 item 3): rows are streamed to disk redacted, read back in order, and a run judged in
small chunks through a spool is the run judged at once in memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge import matrix
from judge.cache import JudgeCache
from judge.errors import InputError
from judge.judges.base import JudgeContext
from judge.judges.lexical import LexicalJudge
from judge.judges.panel import Panel
from judge.judges.registry import parse_judge_spec
from judge.pipeline.evaluate import run_evaluation
from judge.record.runrecord import VerdictRow
from judge.record.store import load_run, write_run
from judge.record.verdictlog import VerdictLog
from judge.tasks.base import Params
from judge.tasks.registry import get_task


def _rows(n: int) -> list[dict[str, object]]:
    # U+2028 inside a judged string: lines are split on "\n" only
    return [{"pred": f"p{k}\u2028x", "truth": f"t{k}", "score": k / n, "outcome": "ok",
             "judge_id": "j", "rationale": f"because {k}", "item_id": f"i{k % 3}"}
            for k in range(n)]


def test_spool_round_trips_rows_in_order_and_indexes_them() -> None:
    log = VerdictLog.spool()
    rows = _rows(250)
    log.extend(rows)
    assert log.on_disk and len(log) == 250
    assert list(log.rows()) == rows  # plain dicts, field for field, in order
    assert log[0].pred == "p0\u2028x" and log[-1].truth == "t249" and log[17].score == 17 / 250
    assert [v.truth for v in log[3:6]] == ["t3", "t4", "t5"]
    with pytest.raises(IndexError):
        log[250]
    # the same rows held in memory compare equal, and appending after reading works
    assert log == VerdictLog.memory(rows)
    log.append({"pred": "a", "truth": "b"})
    assert len(log) == 251 and log[250].truth == "b"
    log.close()
    assert len(log) == 0


def test_extend_writes_the_bytes_of_one_append_per_row_and_rows_can_skip_lines() -> None:
    rows = _rows(40)
    rows[7]["scorer"] = "openai-grade@v1"
    one, batch = VerdictLog.spool(), VerdictLog.spool()
    for r in rows:
        one.append(r)
    batch.extend(rows[:25])
    batch.extend([])
    batch.extend(rows[25:])
    assert list(batch.raw_lines()) == list(one.raw_lines())
    # offsets: each row read on its own is the row at that index
    assert [batch.row(k) for k in (0, 24, 25, 39)] == [rows[0], rows[24], rows[25], rows[39]]
    # a file-backed log decodes only the lines holding the text; in memory, every row comes
    assert list(batch.rows(containing="grade")) == [rows[7]]
    assert list(batch.rows(containing="because 3")) == [rows[3], *rows[30:40]]
    assert len(list(VerdictLog.memory(rows).rows(containing="grade"))) == 40


def test_spool_redacts_api_keys_before_they_reach_the_disk(
        monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-" + "A1b2C3d4" * 5
    monkeypatch.setenv("OPENAI_API_KEY", key)
    log = VerdictLog.spool()
    log.append({"pred": key, "truth": "t", "outcome": "transport_error",
                "rationale": f"401: bad key {key}", "raw": f"Bearer {key}"})
    stored = b"".join(log.raw_lines()).decode("utf-8")
    # the judged string is data and kept; every judge text is masked
    assert stored.count(key) == 1 and json.loads(stored)["pred"] == key
    assert key not in log[0].rationale and key not in log[0].raw


def test_open_validates_in_one_pass_and_names_file_line_and_field(tmp_path: Path) -> None:
    good = tmp_path / "v.jsonl"
    good.write_text('{"pred": "a", "truth": "b"}\n\n{"pred": "c", "truth": "d", '
                    '"score": 0.5}\n', encoding="utf-8")
    log = VerdictLog.open(good)
    assert len(log) == 2 and log[1].score == 0.5 and [r["pred"] for r in log.rows()] == ["a", "c"]
    good.unlink()  # the open file still reads (a run directory replaced under it)
    assert log[0].truth == "b"
    with pytest.raises(ValueError, match="read-only"):
        log.append({"pred": "x", "truth": "y"})
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"pred": "a", "truth": "b"}\n{"pred": "a", "truth": "b", '
                   '"outcome": "maybe"}\n', encoding="utf-8")
    with pytest.raises(InputError) as e:
        VerdictLog.open(bad)
    assert f"{bad}:2" in str(e.value) and "outcome" in str(e.value)


def _items(n: int) -> list[object]:
    rows = [{"id": f"i{k}", "pred": [f"alpha {k}", f"beta {k % 4}", "Gamma"],
             "truth": [f"alpha {k} x", "gamma", f"delta {k % 5}"]} for k in range(n)]
    return get_task("selection").from_dicts(rows)  # type: ignore[return-value]


@pytest.mark.parametrize("judge_spec", ["lexical", "panel"])
def test_chunked_spooled_run_equals_the_run_judged_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, judge_spec: str) -> None:
    items = _items(12)
    # 12 items × 9 cells = 108; "Gamma"/"gamma" exact in each (12); of the 96 others,
    # ("beta k%4", "gamma") takes 4 values (−8) and ("Gamma", "delta k%5") 5 (−7);
    # ("beta k%4", "delta k%5") are 12 distinct (k < 20): 96 − 8 − 7 = 81 distinct pairs

    def judge() -> object:
        lex = parse_judge_spec("lexical")
        if judge_spec == "lexical":
            return lex
        return Panel([lex, LexicalJudge("lexical-b")], "mean", 2, 0.7)

    def run(chunk: int) -> object:
        monkeypatch.setattr(matrix, "CHUNK_PAIRS", chunk)
        return run_evaluation(items, "selection", judge(),  # type: ignore[arg-type]
                              Params(tau=0.3), cache=JudgeCache(tmp_path / "c", "off"),
                              bootstrap=0)

    whole, chunked = run(10**9), run(7)
    assert whole.summary.get("pairs_distinct") == chunked.summary.get("pairs_distinct") == 81
    assert whole.summary.metrics == chunked.summary.metrics
    assert whole.item_rows() == chunked.item_rows()
    assert chunked.verdicts.on_disk
    key = lambda r: (r.get("member_of") or "", r["pred"], r["truth"], r["judge_id"])  # noqa: E731
    assert sorted(map(key, whole.verdict_rows())) == sorted(map(key, chunked.verdict_rows()))
    n_rows = 81 * (3 if judge_spec == "panel" else 1)  # a panel: 2 member rows + the vote
    assert len(chunked.verdicts) == n_rows
    if judge_spec == "panel":  # per chunk of 7 pairs: 14 member rows, then the 7 votes
        first = [r.get("member_of") for r in list(chunked.verdict_rows())[:21]]
        assert first == [whole.judge_id] * 14 + [None] * 7
        assert (whole.summary.get("panel")["agreement"]
                == chunked.summary.get("panel")["agreement"])
    out = write_run(chunked, tmp_path / "run")  # type: ignore[arg-type]
    back = load_run(out)
    assert len(back.verdicts) == n_rows and back.verdicts.on_disk
    assert list(back.verdict_rows()) == list(chunked.verdict_rows())


def test_matrix_cells_keep_score_outcome_and_judge_only(tmp_path: Path) -> None:
    ctx = JudgeContext(cache=JudgeCache(tmp_path, "off"))
    build = matrix.build_matrices([(["Job Info", "x"], ["job info", "Login"])],
                                  parse_judge_spec("lexical"), ctx)
    m = build.matrices[0]
    assert m.cell(0, 0) is None and bool(m.exact[0, 0])  # exact: no verdict
    cell = m.cell(1, 1)
    assert cell is not None and cell.judge_id == "lexical" and cell.outcome == "ok"
    assert cell.score == m.scores[1, 1] and set(m.verdicts) == {(0, 1), (1, 0), (1, 1)}
    assert isinstance(build.log[0], VerdictRow) and len(build.log) == 3
