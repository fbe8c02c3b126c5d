"""``--task spans`` from the command line against nervaluate (its four schemes, item by item and
per type) and seqeval (strict micro, macro, weighted and per-type), and an invalid span as an
item-level outcome."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text

from judge import load_run
from judge.display import eval_summary
from judge.tasks.registry import get_task
from tests.clirun import CliResult

nervaluate = pytest.importorskip("nervaluate")  # Python >= 3.11 (pyproject's test extra)
seqeval_metrics = pytest.importorskip("seqeval.metrics")
seqeval_scheme = pytest.importorskip("seqeval.scheme")

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "spans"
SCHEMES = ("strict", "exact", "partial", "ent_type")
Cli = Callable[..., CliResult]

# Two people and a company, predicted with overlaps across types. Item "o1": the ORG guess
# "Ann Lee" [0, 7) comes before the exact PER [0, 7) and overlaps the gold PER span, so
# nervaluate's strict loop gives that gold span to the ORG (incorrect) and counts the exact
# PER spurious; seqeval/conlleval (simjudge's strict_*) count the PER correct.
OVERLAPPING = [
    {"id": "o1", "query": "Ann Lee joined Acme Corp.",
     "truth": [{"start": 0, "end": 7, "type": "PER", "text": "Ann Lee"},
               {"start": 15, "end": 24, "type": "ORG", "text": "Acme Corp"}],
     "pred": [{"start": 0, "end": 3, "type": "ORG", "text": "Ann"},
              {"start": 0, "end": 7, "type": "PER", "text": "Ann Lee"},
              {"start": 15, "end": 19, "type": "ORG", "text": "Acme"}]},
    {"id": "o2", "query": "Bo met Cy in Rome.",
     "truth": [{"start": 0, "end": 2, "type": "PER", "text": "Bo"},
               {"start": 7, "end": 9, "type": "PER", "text": "Cy"},
               {"start": 13, "end": 17, "type": "LOC", "text": "Rome"}],
     "pred": [{"start": 7, "end": 9, "type": "LOC", "text": "Cy"},
              {"start": 13, "end": 17, "type": "LOC", "text": "Rome"},
              {"start": 0, "end": 2, "type": "PER", "text": "Bo"}]},
]


def _run(cli: Cli, tmp_path: Path, data: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    out = tmp_path / "run"
    r = cli("eval", str(data), "--task", "spans", "--judge", "lexical", "--out", str(out), "-q",
            "--bootstrap", "0")
    assert r.returncode == 0, r.stderr
    rows = [json.loads(x) for x in (out / "items.jsonl").read_text(encoding="utf-8").splitlines()]
    return json.loads((out / "summary.json").read_text(encoding="utf-8"))["metrics"], rows


def _entities(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # nervaluate's entities end on their last character: [start, end) → (start, end - 1)
    return [{"label": s["type"], "start": s["start"], "end": s["end"] - 1} for s in spans]


def _counts(c: Any) -> dict[str, int]:
    return {k: getattr(c, k) for k in ("correct", "incorrect", "partial", "missed", "spurious")}


def _assert_equals_nervaluate(records: list[dict[str, Any]], m: dict[str, Any],
                              rows: list[dict[str, Any]]) -> None:
    tags = sorted({s["type"] for r in records for s in (*r["pred"], *r["truth"])})
    for rec, row in zip(records, rows, strict=True):  # item by item, and per type within it
        ref = nervaluate.Evaluator([_entities(rec["truth"])], [_entities(rec["pred"])],
                                   tags=tags, loader="dict").evaluate()
        assert row["nervaluate"] == {s: _counts(ref["overall"][s]) for s in SCHEMES}, row["id"]
        for t in row["types"]:
            assert t["nervaluate"] == {s: _counts(ref["entities"][t["type"]][s])
                                       for s in SCHEMES}, (row["id"], t["type"])
    ref = nervaluate.Evaluator([_entities(r["truth"]) for r in records],
                               [_entities(r["pred"]) for r in records], tags=tags,
                               loader="dict").evaluate()
    for s in SCHEMES:
        assert m["nervaluate"][s] == _counts(ref["overall"][s])
        for k in ("precision", "recall", "f1"):
            assert m[f"nervaluate_{s}_{k}"] == pytest.approx(getattr(ref["overall"][s], k),
                                                             abs=1e-15)
            for t, res in ref["entities"].items():
                assert m["nervaluate_per_type"][t][s][k] == pytest.approx(
                    getattr(res[s], k), abs=1e-15)


def test_wnut17_excerpt_equals_nervaluate_and_seqeval(cli: Cli, tmp_path: Path) -> None:
    data = FIXTURES / "wnut17_uh_ritual.jsonl"
    records = [json.loads(x) for x in data.read_text(encoding="utf-8").splitlines()]
    m, rows = _run(cli, tmp_path, data)
    _assert_equals_nervaluate(records, m, rows)
    # seqeval on the same sentences as IOB2 tags (tests/fixtures/spans/README.md)
    gold: list[list[str]] = [[]]
    pred: list[list[str]] = [[]]
    for line in (FIXTURES / "wnut17_uh_ritual.conll").read_text(encoding="utf-8").splitlines():
        if not line:
            gold.append([])
            pred.append([])
            continue
        _, g, p = line.split("\t")
        gold[-1].append(g)
        pred[-1].append(p)
    gold, pred = [g for g in gold if g], [p for p in pred if p]
    rep = seqeval_metrics.classification_report(gold, pred, mode="strict",
                                                scheme=seqeval_scheme.IOB2, output_dict=True,
                                                zero_division=0)
    for ours, theirs in (("strict_", "micro avg"), ("strict_macro_", "macro avg"),
                         ("strict_weighted_", "weighted avg")):
        for k in ("precision", "recall", "f1"):
            assert m[ours + k] == pytest.approx(rep[theirs][k + ("-score" if k == "f1" else "")],
                                                abs=1e-12), (ours, k)
    for t, v in m["per_type"].items():
        assert v["strict_f1"] == pytest.approx(rep[t]["f1-score"], abs=1e-12)
        assert v["n_truth"] == rep[t]["support"]
    assert m["invalid_items"] == []


def test_overlapping_predictions_equal_nervaluate_and_differ_from_strict(
        cli: Cli, tmp_path: Path) -> None:
    data = tmp_path / "overlap.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in OVERLAPPING), encoding="utf-8")
    m, rows = _run(cli, tmp_path, data)
    _assert_equals_nervaluate(OVERLAPPING, m, rows)
    # by hand. seqeval-like strict: o1 PER exact (1 of 3 predicted), o2 LOC and PER exact
    # (2 of 3): P = 3/6, R = 3/5.
    assert (m["strict_precision"], m["strict_recall"]) == (0.5, 0.6)
    # nervaluate strict: o1 ORG "Ann" takes gold PER (incorrect), PER spurious, "Acme" takes
    # gold ORG (incorrect); o2 LOC "Cy" takes gold PER "Cy" (incorrect), Rome and Bo correct:
    # correct 2, incorrect 3, spurious 1, missed 0 → P = 2/6, R = 2/5
    assert m["nervaluate"]["strict"] == {"correct": 2, "incorrect": 3, "partial": 0,
                                         "missed": 0, "spurious": 1}
    assert m["nervaluate_strict_precision"] == pytest.approx(2 / 6)
    assert m["nervaluate_strict_recall"] == pytest.approx(2 / 5)


def test_a_span_with_an_empty_type_is_an_item_outcome(cli: Cli, tmp_path: Path) -> None:
    ann = {"start": 0, "end": 7, "type": "PER", "text": "Ann Lee"}
    good: dict[str, Any] = {"id": "g", "query": "Ann Lee", "pred": [ann], "truth": [ann]}
    bad_pred = {**good, "id": "p",
                "pred": [good["pred"][0], {"start": 0, "end": 3, "type": "", "text": "Ann"}]}
    bad_gold = {**good, "id": "t", "truth": [{**good["truth"][0], "type": ""}]}
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in (good, bad_pred, bad_gold)),
                    encoding="utf-8")
    m, rows = _run(cli, tmp_path, data)
    assert m["invalid_items"] == [
        {"id": "p", "reason": "pred span 1: 'type' is empty; scored as predicting nothing"},
        {"id": "t", "reason": "truth span 0: 'type' is empty; item left out"}]
    assert [r.get("invalid") for r in rows] == [None, m["invalid_items"][0]["reason"],
                                                 m["invalid_items"][1]["reason"]]
    # g: 1 of 1 exact; p: nothing predicted, its gold PER missed; t: left out → P 1/1, R 1/2
    assert (m["n_pred"], m["n_truth"], m["n_exact"]) == (1, 2, 1)
    assert (m["strict_precision"], m["strict_recall"]) == (1.0, 0.5)
    assert m["nervaluate"]["strict"] == {"correct": 1, "incorrect": 0, "partial": 0,
                                         "missed": 1, "spurious": 0}
    # the audit report says why
    task = get_task("spans")
    view = task.view(task.row_model.model_validate(rows[1]))
    assert view["error"] == m["invalid_items"][0]["reason"] and view["pred"] == []
    assert task.markdown(view)[-1] == f"- invalid: {view['error']}"
    assert "error" not in task.view(task.row_model.model_validate(rows[0]))
    # rescore at another τ keeps the item outcome and the nervaluate counts
    rows_at_1, at_1 = task.rescore(load_run(tmp_path / "run"), 1.0) or ([], {})
    assert at_1["invalid_items"] == m["invalid_items"]
    assert [r.nervaluate for r in rows_at_1] == [r["nervaluate"] for r in rows]
    # and the terminal
    summary = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    lines = [str(r) for r in eval_summary(summary) if isinstance(r, Text)]
    assert f"2 invalid item(s) — p: {m['invalid_items'][0]['reason']}; t: " in "\n".join(lines)
