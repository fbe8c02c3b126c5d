"""Typed item rows (``judge.record.itemrows``): each task's ``row_model``, rows typed once from a
stored run, written back byte for byte, and a bad row named by file, line and field."""

from __future__ import annotations

import json
import math
import shutil
import typing
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.cache import JudgeCache
from judge.errors import InputError
from judge.judges.lexical import LexicalJudge
from judge.pipeline.evaluate import run_evaluation
from judge.record.itemrows import (
    RANK_CUTOFF,
    FcErrorType,
    FunctionCallRow,
    Match,
    RankingRow,
    SelectionRow,
)
from judge.record.rows import ItemRow
from judge.record.store import load_run, write_run
from judge.tasks.base import Params, Source
from judge.tasks.columns import MeanColumn
from judge.tasks.fcoptions import FunctionCallOptions
from judge.tasks.matching import FuzzyColumns
from judge.tasks.registry import get_task, task_names
from metrics import fuzzy_prf
from metrics.fc_check import ERROR_TYPES

REPO = Path(__file__).resolve().parents[2]
EX = REPO / "examples"
FIXTURES = REPO / "tests" / "fixtures" / "runs_v0"

# one example run per task: (source, options, with the lexical judge)
RUNS = {
    "selection": (Source(EX / "glossary_en_zh.jsonl"), None, True),
    "spans": (Source(EX / "spans_ner.jsonl"), None, True),
    "judgment": (Source(EX / "judgment_term_translation.jsonl"), None, False),
    "generation": (Source(EX / "generation_short_answers.jsonl"), None, False),
    "multilabel": (Source(EX / "multilabel_support_tickets.jsonl"), None, False),
    "ranking": (Source(EX / "ranking_trec.run", gold=EX / "ranking_trec.qrels"), None, False),
    "function-call": (Source(EX / "bfcl" / "result.jsonl", gold=EX / "bfcl" /
                             "possible_answer.jsonl"),
                      FunctionCallOptions(format="bfcl",
                                          functions=EX / "bfcl" / "questions.jsonl"), False),
}


def test_every_registered_task_names_a_row_model() -> None:
    assert set(RUNS) == set(task_names())
    for name in task_names():
        model = get_task(name).row_model
        assert issubclass(model, ItemRow) and model is not ItemRow, name


def test_closed_sets_agree_with_the_metrics() -> None:
    assert set(typing.get_args(FcErrorType)) == set(ERROR_TYPES)
    aliases = {f.alias for f in RankingRow.model_fields.values() if f.alias}
    assert aliases == {f"ap@{RANK_CUTOFF}", f"ndcg@{RANK_CUTOFF}", f"err@{RANK_CUTOFF}"}
    assert {f.alias for f in FunctionCallRow.model_fields.values() if f.alias} == {
        "rouge-1", "rouge-2", "rouge-l", "bleu-4"}


@pytest.mark.parametrize("name", list(RUNS))
def test_rows_made_typed_are_written_and_read_back_byte_for_byte(name: str,
                                                                 tmp_path: Path) -> None:
    source, options, judged = RUNS[name]
    task = get_task(name)
    record = run_evaluation(task.load(source, options), task,
                            LexicalJudge() if judged else None, Params(options=options),
                            cache=JudgeCache(tmp_path / "c", "off"), bootstrap=0)
    assert all(type(r) is task.row_model for r in record.items)  # score makes typed rows
    write_run(record, tmp_path / "a")
    stored = load_run(tmp_path / "a")
    assert all(type(r) is ItemRow for r in stored.items)  # typed when the task reads them
    rows = task.rows(stored)
    assert all(type(r) is task.row_model for r in rows) and stored.items == rows
    assert task.rows(stored) is not None and stored.items[0] is rows[0]  # typed once
    assert task.metrics_from_rows(rows) == task.metrics_from_rows(task.rows(record))
    write_run(stored, tmp_path / "b")
    first = (tmp_path / "a" / "items.jsonl").read_bytes()
    assert (tmp_path / "b" / "items.jsonl").read_bytes() == first


@pytest.mark.parametrize("name", ["selection_local", "selection_panel", "function_call"])
def test_v0_rows_are_typed_and_written_back_as_they_were(name: str, tmp_path: Path) -> None:
    stored = load_run(FIXTURES / name)
    task = get_task(stored.task)
    rows = task.rows(stored)
    assert all(isinstance(r, task.row_model) for r in rows)
    write_run(stored, tmp_path / "again")
    assert (tmp_path / "again" / "items.jsonl").read_bytes() == (
        FIXTURES / name / "items.jsonl").read_bytes()


def test_v0_selection_rows_read_by_attribute() -> None:
    rows = get_task("selection").rows(load_run(FIXTURES / "selection_local"))
    first = rows[0]
    assert isinstance(first, SelectionRow)
    # glossary-01: 4×4 matrix, one fuzzy match 意志 ↔ will (no "kind": written before it)
    assert (first.id, first.n_pred, first.n_truth, first.n_exact) == ("glossary-01", 4, 4, 0)
    assert first.scores is not None and len(first.scores) == 4
    (m,) = first.matches
    assert isinstance(m, Match) and (m.pred, m.truth, m.kind, m.exact) == (
        "意志", "will", None, False)
    assert not m.is_exact and m.judge_id == "local"


def test_numbers_keep_their_json_type() -> None:
    # an int where a float could be (tp_fuzzy 0, F1 1) stays an int, so it is written back
    # as "0", not "0.0"; a float stays a float, NaN included
    row = SelectionRow.model_validate({"id": "x", "n_pred": 0, "n_truth": 0, "n_exact": 0,
                                       "tp_fuzzy": 0, "precision": 1, "recall": 1.0,
                                       "f1": math.nan, "matches": []})
    assert type(row.tp_fuzzy) is int and type(row.recall) is float and math.isnan(row.f1)
    assert json.dumps(row.to_row()) == (
        '{"id": "x", "n_pred": 0, "n_truth": 0, "n_exact": 0, "tp_fuzzy": 0, '
        '"precision": 1, "recall": 1.0, "f1": NaN, "matches": []}')


def test_fields_by_json_name_and_fields_not_named() -> None:
    row = FunctionCallRow.model_validate({
        "id": "q", "correct": True, "fn_acc_name": 1.0, "fn_acc_all": 1.0, "rouge-1": 0.5,
        "rouge-2": 0.25, "rouge-l": 0.5, "bleu-4": 0.1, "note": "kept"})
    assert (row.rouge_1, row.get("rouge-1"), row.get("rouge_1")) == (0.5, 0.5, 0.5)
    assert row.get("note") == "kept" and row.has("note", "correct")
    assert not row.has("gold_calls") and row.get("gold_calls") is None
    assert list(row.to_row()) == ["id", "correct", "fn_acc_name", "fn_acc_all", "rouge-1",
                                  "rouge-2", "rouge-l", "bleu-4", "note"]
    assert row.numbers() == {"fn_acc_name": 1.0, "fn_acc_all": 1.0, "rouge-1": 0.5,
                             "rouge-2": 0.25, "rouge-l": 0.5, "bleu-4": 0.1}


def test_numbers_are_ints_and_floats_of_any_kind_but_not_booleans() -> None:
    row = ItemRow.model_validate({"id": "n", "k": 3, "f": 0.5, "np": np.float64(0.25),
                                  "i64": np.int64(7), "flag": True, "s": "1", "none": None,
                                  "list": [1]})
    assert not row.has("source") and row.has("id", "k") and not row.has("id", "missing")
    row.source = 2.5  # type: ignore[assignment]  # assigned, not validated: set, a number
    got = row.numbers()
    assert got == {"source": 2.5, "k": 3, "f": 0.5, "np": 0.25}  # np.int64 is no int
    assert type(got["np"]) is np.float64 and row.has("source")


def test_a_bad_row_is_named_by_file_line_and_field(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(FIXTURES / "selection_local", run)
    lines = (run / "items.jsonl").read_text(encoding="utf-8").split("\n")
    bad = json.loads(lines[2])
    bad["n_pred"] = "four"
    lines[2] = json.dumps(bad, ensure_ascii=False)
    (run / "items.jsonl").write_text("\n".join(lines), encoding="utf-8")
    stored = load_run(run)  # the envelope (id, source) is valid
    with pytest.raises(InputError) as exc:
        get_task("selection").rows(stored)
    assert (exc.value.path, exc.value.line, exc.value.field) == (
        str(run / "items.jsonl"), 3, "n_pred")
    assert "invalid run file" in exc.value.message


def test_the_python_api_gives_typed_rows_too(tmp_path: Path) -> None:
    from judge import evaluate

    # "Report" vs "Reports": bigrams re ep po or rt vs re ep po or rt ts → Dice 2·5/11; the
    # jieba tokens differ → F1 0; the lexical score is their mean 5/11 ≤ τ 0.7, so nothing
    # matches: P = R = F1 = 0
    r = evaluate([{"id": "a", "pred": ["Report"], "truth": ["Reports"]}], judge="lexical",
                 bootstrap=0, cache_dir=tmp_path / "c")
    (row,) = r.rows
    assert isinstance(row, SelectionRow) and row.to_row() == r.items[0]
    assert (row.n_pred, row.n_truth, row.f1, row.matches) == (1, 1, 0.0, [])
    assert row.scores == [[pytest.approx(5 / 11)]]


@pytest.mark.parametrize("name", list(RUNS))
def test_a_resample_prepared_once_gives_the_rows_metrics_bit_for_bit(name: str,
                                                                     tmp_path: Path) -> None:
    source, options, judged = RUNS[name]
    task = get_task(name)
    record = run_evaluation(task.load(source, options), task,
                            LexicalJudge() if judged else None, Params(options=options),
                            cache=JudgeCache(tmp_path / "c", "off"), bootstrap=0)
    rows = task.rows(record)
    of = task.resampled(rows)
    rng = np.random.default_rng(7)
    for _ in range(20):
        idx = rng.integers(0, len(rows), len(rows))
        assert of(idx) == task.metrics_from_rows([rows[i] for i in idx])


def _fuzzy_by_rows(rows: list[dict[str, Any]]) -> dict[str, float]:
    """The selection metrics as written before typed rows (dict rows, one pass per value)."""
    tp = sum(r["tp_fuzzy"] for r in rows)
    mp, mr, mf = fuzzy_prf(tp, sum(r["n_pred"] for r in rows), sum(r["n_truth"] for r in rows))
    return {"macro_precision": float(np.mean([r["precision"] for r in rows])),
            "macro_recall": float(np.mean([r["recall"] for r in rows])),
            "macro_f1": float(np.mean([r["f1"] for r in rows])),
            "micro_precision": mp, "micro_recall": mr, "micro_f1": mf}


_number = st.one_of(st.integers(0, 3), st.floats(0, 3, allow_nan=False))


@given(st.lists(st.tuples(_number, st.integers(0, 9), st.integers(0, 9), _number, _number,
                          _number), min_size=1, max_size=30),
       st.integers(0, 2**32 - 1))
@settings(max_examples=300, deadline=None)
def test_fuzzy_columns_equal_the_row_by_row_definition(values: list[tuple[Any, ...]],
                                                       seed: int) -> None:
    # ints and floats mixed, as stored rows may hold them: the same numbers bit for bit
    keys = ("tp_fuzzy", "n_pred", "n_truth", "precision", "recall", "f1")
    dicts = [dict(zip(keys, v, strict=True)) for v in values]
    rows = [SelectionRow.model_validate({"id": str(k), "n_exact": 0, **d})
            for k, d in enumerate(dicts)]
    cols = FuzzyColumns.of(rows)
    assert cols.metrics() == _fuzzy_by_rows(dicts)
    idx = np.random.default_rng(seed).integers(0, len(rows), len(rows))
    assert cols.metrics(idx) == _fuzzy_by_rows([dicts[i] for i in idx])


def test_a_mean_column_is_numpys_mean_of_the_resample() -> None:
    # beyond numpy's 8,192-element buffer, where a cast int array and a float array would be
    # summed in different blocks: a column mixing ints and floats is averaged from the list
    rng = np.random.default_rng(3)
    floats = rng.random(20_000).tolist()
    mixed = [int(3 * x) if k % 7 == 0 else x for k, x in enumerate(floats)]
    bools = [x > 0.5 for x in floats]
    for values in (floats, mixed, bools):
        col = MeanColumn(values)
        idx = rng.integers(0, len(values), len(values))
        assert col.mean(idx) == float(np.mean([values[i] for i in idx]))
        assert col.mean() == float(np.mean(values))
