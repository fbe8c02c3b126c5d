"""``--task spans``: loading spans, judging only non-exact span texts, hand-derived fuzzy
metrics, re-scoring at another τ and vote with no judge call, the audit views, and the CLI.

The example file ``examples/spans_ner.jsonl`` (3 items, types PER/LOC/ORG) and the values the
``lexical`` judge gives its pairs, derived by hand (score = mean of the Dice coefficient of the
normalised strings' character bigrams and the token F1):

* "Obama" ↔ "Barack Obama" (PER, ner-01): bigrams of "barackobama" (10) and "obama" (4) share
  ob, ba, am, ma → Dice 8/14 = 4/7; tokens {obama} vs {barack, obama} → F1 2/3;
  score (4/7 + 2/3)/2 = 13/21 ≈ 0.619;
* "New York" ↔ "New York City" (LOC, ner-01): "newyork" (6 bigrams) ⊂ "newyorkcity" (10) →
  Dice 12/16 = 0.75; tokens P 1, R 2/3 → F1 0.8; score 0.775;
* "Acme Corp" ↔ "Acme Corporation" (ORG, ner-02): "acmecorp" (7 bigrams) ⊂ "acmecorporation"
  (14) → Dice 14/21 = 2/3; tokens {acme, corp} vs {acme, corporation} → F1 1/2; score 7/12;
* "Paris" (predicted ORG) ↔ "Acme Corporation" (ORG, ner-02): no shared bigram or token → 0.
  ("Paris" is gold LOC: another type, never compared.)

Exact (same offsets and type): ORG "Acme Corp" (ner-01), PER "Angela Merkel" (ner-02).

At τ = 0.7 only 0.775 matches: PER TP 1 of 2/2 (F1 0.5), LOC TP 0.775 of 1 pred / 2 gold
(F1 1.55/3), ORG TP 1 of 3 pred / 2 gold (F1 2/5); micro TP 2.775 of 6/6 → P = R = F1 =
0.4625; macro F1 (0.5 + 1.55/3 + 0.4)/3; strict 2/6 = 1/3.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from judge.cache import JudgeCache
from judge.errors import InputError
from judge.judges.base import JudgeContext, Pair
from judge.judges.lexical import LexicalJudge
from judge.judges.panel import Panel
from judge.pipeline.evaluate import run_evaluation
from judge.record.itemrows import SpansRow
from judge.record.runrecord import RunRecord
from judge.tasks.base import Judged, Params, Source
from judge.tasks.registry import get_task
from judge.tasks.spans import SpansTask
from judge.verdict import Verdict
from tests.clirun import run_cli
from tests.conftest import REPO

EXAMPLE = REPO / "examples" / "spans_ner.jsonl"
TASK = get_task("spans")

OBAMA, NEW_YORK, ACME = 13 / 21, 0.775, 7 / 12
MACRO_07 = (0.5 + 1.55 / 3 + 0.4) / 3


def _record(tmp_path: Path, tau: float = 0.7, judge: Any = None) -> RunRecord:
    items = TASK.load(Source(EXAMPLE))
    return run_evaluation(items, TASK, judge or LexicalJudge(), Params(tau=tau),
                          cache=JudgeCache(tmp_path / "c", "off"), bootstrap=0)


def test_registered_with_its_options() -> None:
    assert isinstance(TASK, SpansTask)
    assert (TASK.name, TASK.judge_role, TASK.threshold, TASK.uses_tau, TASK.needs_judge) == (
        "spans", "judge", "tau", True, True)


def test_lexical_scores_used_below_are_the_hand_derived_ones() -> None:
    j = LexicalJudge()
    assert j.score("Obama", "Barack Obama")[0] == pytest.approx(OBAMA)
    assert j.score("New York", "New York City")[0] == pytest.approx(NEW_YORK)
    assert j.score("Acme Corp", "Acme Corporation")[0] == pytest.approx(ACME)
    assert j.score("Paris", "Acme Corporation")[0] == 0.0


def test_hand_derived_metrics_at_tau_07(tmp_path: Path) -> None:
    r = _record(tmp_path)
    m = r.summary.metrics
    assert (m["micro_precision"], m["micro_recall"], m["micro_f1"]) == pytest.approx(
        (0.4625, 0.4625, 0.4625))
    assert m["macro_f1"] == pytest.approx(MACRO_07)
    assert m["per_type_f1"] == pytest.approx({"LOC": 1.55 / 3, "ORG": 0.4, "PER": 0.5})
    assert (m["strict_precision"], m["strict_recall"], m["strict_f1"]) == pytest.approx(
        (1 / 3, 1 / 3, 1 / 3))
    assert (m["n_pred"], m["n_truth"], m["n_exact"], m["n_types"]) == (6, 6, 2, 3)
    assert m["tp_fuzzy"] == pytest.approx(2 + NEW_YORK)
    # only the 4 non-exact same-type text pairs were judged; the 2 exact spans never were
    assert (r.summary.get("pairs_distinct"), r.summary.get("span_pairs_exact")) == (4, 2)
    assert {(v["pred"], v["truth"]) for v in r.verdict_rows()} == {
        ("Obama", "Barack Obama"), ("New York", "New York City"),
        ("Acme Corp", "Acme Corporation"), ("Paris", "Acme Corporation")}
    rows = TASK.rows(r)
    # ner-03 has no span on either side: nothing to find, nothing wrong
    assert (rows[2].types, rows[2].f1) == ([], 1.0)
    # the bootstrap, compare and rescore use metrics_from_rows: it gives the summary's numbers
    again = TASK.metrics_from_rows(rows)
    assert set(again) <= set(m) and "micro_f1" in again and "strict_macro_f1" in again
    for k, v in again.items():
        assert v == pytest.approx(m[k], abs=1e-12), k


def test_rows_store_offsets_scores_and_matches(tmp_path: Path) -> None:
    row = _record(tmp_path).item_rows()[1]  # ner-02
    by = {t["type"]: t for t in row["types"]}
    org = by["ORG"]
    assert (org["pred"], org["truth"]) == (["Acme Corp", "Paris"], ["Acme Corporation"])
    assert (org["pred_offsets"], org["truth_offsets"]) == ([[0, 9], [40, 45]], [[0, 16]])
    assert org["scores"] == [[pytest.approx(ACME)], [0.0]]
    assert (org["matches"], org["unmatched_pred"], org["unmatched_truth"]) == ([], [0, 1], [0])
    assert by["PER"]["matches"] == [{"pred_index": 0, "truth_index": 0, "pred": "Angela Merkel",
                                     "truth": "Angela Merkel", "score": 1.0, "exact": True,
                                     "kind": "exact", "judge_id": None}]
    assert (by["LOC"]["pred"], by["LOC"]["truth"], by["LOC"]["scores"]) == ([], ["Paris"], [])
    # ner-01: the fuzzy match carries the judge that scored it
    loc = {t["type"]: t for t in _record(tmp_path).item_rows()[0]["types"]}["LOC"]
    assert [(x["pred"], x["truth"], x["kind"], x["judge_id"]) for x in loc["matches"]] == [
        ("New York", "New York City", "fuzzy", "lexical")]


def test_exact_spans_are_not_judged_and_their_cells_stay_empty(tmp_path: Path) -> None:
    # one type: A exact at the same offsets; B vs C judged; A's other cells never judged (None)
    items = TASK.from_dicts([{"id": "x", "pred": [
        {"start": 0, "end": 1, "type": "T", "text": "alpha"},
        {"start": 5, "end": 9, "type": "T", "text": "beta"}], "truth": [
        {"start": 0, "end": 1, "type": "T", "text": "alpha"},
        {"start": 20, "end": 25, "type": "T", "text": "betas"}]}])
    ctx = JudgeContext(cache=JudgeCache(tmp_path / "c", "off"))
    judged = asyncio.run(TASK.judge(items, LexicalJudge(), ctx, Params()))
    assert [(v.pred, v.truth) for v in judged.verdicts] == [("beta", "betas")]
    rows, _ = TASK.score(items, judged, Params())
    s = (rows[0].types or [])[0].scores
    assert (s[0][0], s[0][1], s[1][0]) == (1.0, None, None) and s[1][1] is not None


def test_rescore_at_other_taus_reproduces_hand_values_without_judging(tmp_path: Path) -> None:
    record = _record(tmp_path)
    # τ = 0.5: 13/21 (PER) and 7/12 (ORG) now match too; PER TP 34/21 of 2/2 → F1 17/21,
    # ORG TP 19/12 of 3/2 → F1 2·(19/12)/5 = 19/30, LOC unchanged 1.55/3
    rows, m = TASK.rescore(record, 0.5) or ([], {})
    tp = 2 + NEW_YORK + OBAMA + ACME
    assert m["tp_fuzzy"] == pytest.approx(tp)
    assert m["micro_f1"] == pytest.approx(tp / 6)
    assert m["macro_f1"] == pytest.approx((17 / 21 + 1.55 / 3 + 19 / 30) / 3)
    assert m["strict_f1"] == pytest.approx(1 / 3)  # strict does not depend on τ
    assert [x.kind for t in rows[0].types or [] for x in t.matches] == [
        "fuzzy", "exact", "fuzzy"]  # LOC, ORG, PER (types sorted)
    # τ = 1: nothing judged can be > 1 → fuzzy = strict
    _, m1 = TASK.rescore(record, 1.0) or ([], {})
    assert m1["micro_f1"] == pytest.approx(1 / 3) and m1["macro_f1"] == m1["strict_macro_f1"]
    # the run's own τ reproduces the run
    rows7, m7 = TASK.rescore(record, 0.7) or ([], {})
    assert {k: m7[k] for k in TASK.metrics_from_rows(rows7)} == pytest.approx(
        {k: record.summary.metrics[k] for k in TASK.metrics_from_rows(rows7)})
    assert [r.to_row() for r in rows7] == record.item_rows()


class FixedJudge:
    """A judge with fixed scores per pair (0 for any other pair)."""

    def __init__(self, judge_id: str, scores: dict[Pair, float]) -> None:
        self.id = judge_id
        self.scores = scores

    def describe(self) -> dict[str, Any]:
        return {"id": self.id, "backend": "fixed"}

    def work_units(self, pairs: Sequence[Pair]) -> int:
        return len(pairs)

    async def judge_pairs(self, pairs: Sequence[Pair], ctx: JudgeContext,
                          ) -> list[Verdict | None]:
        return [Verdict(pred=p, truth=t, score=self.scores.get((p, t), 0.0), judge_id=self.id,
                        scorer="fixed")
                for p, t in pairs]


def test_panel_run_is_revoted_from_member_verdicts(tmp_path: Path) -> None:
    # members disagree on "New York" ↔ "New York City": a 0.9, b 0.5. Mean 0.7 is not > 0.7;
    # max 0.9 matches. Every other pair: both 0.
    a = FixedJudge("a", {("New York", "New York City"): 0.9})
    b = FixedJudge("b", {("New York", "New York City"): 0.5})
    record = _record(tmp_path, judge=Panel([a, b], "mean"))
    m = record.summary.metrics
    assert m["micro_f1"] == pytest.approx(2 / 6) and m["tp_fuzzy"] == pytest.approx(2.0)
    _, again = TASK.rescore(record, 0.7) or ([], {})
    assert again["micro_f1"] == pytest.approx(2 / 6)
    _, mx = TASK.rescore(record, 0.7, rule="max") or ([], {})
    assert mx["tp_fuzzy"] == pytest.approx(2.9) and mx["micro_f1"] == pytest.approx(2.9 / 6)
    _, mn = TASK.rescore(record, 0.6, rule="mean") or ([], {})  # 0.7 > 0.6
    assert mn["tp_fuzzy"] == pytest.approx(2.7)


def test_heatmaps_one_per_type_and_views(tmp_path: Path) -> None:
    record = _record(tmp_path)
    row = TASK.rows(record)[0]  # ner-01
    hms = TASK.matrices(row)
    assert [h.label for h in hms] == ["LOC", "ORG", "PER"]
    assert (hms[0].pred, hms[0].truth, hms[0].scores) == (
        ["New York"], ["New York City"], [[pytest.approx(NEW_YORK)]])
    assert hms[2].scores == [[pytest.approx(OBAMA)]] and hms[2].matches == []
    view = TASK.view(row)
    assert view["kind"] == "labels"
    assert view["missing"] == ["PER 'Barack Obama' [0, 12)"]
    assert view["extra"] == ["PER 'Obama' [7, 12)"]
    md = TASK.markdown(view)
    assert "- matched: LOC 'New York' ↔ 'New York City' (0.775)" in md
    assert "- matched: ORG 'Acme Corp' ↔ 'Acme Corp' (exact)" in md
    assert md[2] == "- missing: PER 'Barack Obama' [0, 12) · extra: PER 'Obama' [7, 12)"
    old = SpansRow.model_construct(id="old")
    assert TASK.view(old) == {} and TASK.matrices(old) == []


def test_rescore_of_rows_without_types_is_none(tmp_path: Path) -> None:
    record = _record(tmp_path)
    old = record.model_copy(update={"items": [type(record.items[0]).model_construct(id="a")]})
    assert TASK.rescore(old, 0.5) is None


def _write(tmp_path: Path, *records: dict[str, Any], name: str = "data.jsonl") -> Path:
    p = tmp_path / name
    p.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return p


SPAN = {"start": 0, "end": 5, "type": "PER", "text": "Alice"}


@pytest.mark.parametrize(("truth", "message"), [
    ("Alice", r"data.jsonl:2: field 'truth': expected a list of spans \{start, end, type, "
              r"text\}, got str"),
    ([SPAN, {**SPAN, "end": 0}],
     r"data.jsonl:2: field 'truth': span 1: 'end' must be greater than 'start' \(0\), got 0"),
    ([{**SPAN, "start": 1.5}],
     r"data.jsonl:2: field 'truth': span 0: 'start' must be an integer offset, got 1.5"),
    ([{**SPAN, "type": 3}],  # (an empty type makes the item invalid, not the file)
     r"data.jsonl:2: field 'truth': span 0: 'type' must be a non-empty string, got 3"),
    ([{k: v for k, v in SPAN.items() if k != "text"}],
     r"data.jsonl:2: field 'truth': span 0: missing key 'text'"),
    ([["0", "5", "PER"]],
     r"data.jsonl:2: field 'truth': span 0: expected an object \{start, end, type, text\}, "
     r"got list"),
])
def test_bad_input_names_file_line_and_field(tmp_path: Path, truth: Any, message: str) -> None:
    p = _write(tmp_path, {"id": 1, "pred": [SPAN], "truth": [SPAN]},
               {"id": 2, "pred": [SPAN], "truth": truth})
    with pytest.raises(InputError, match=message):
        TASK.load(Source(p))


def test_missing_field_csv_cells_and_no_judge(tmp_path: Path) -> None:
    p = _write(tmp_path, {"id": 1, "pred": [SPAN]})
    with pytest.raises(InputError, match=r"data.jsonl:1: field 'truth': missing"):
        TASK.load(Source(p))
    csv = tmp_path / "d.csv"
    csv.write_text('id,pred,truth\n1,"[{""start"": 0, ""end"": 5, ""type"": ""PER"", '
                   '""text"": ""Alice""}]",[]\n2,"[{""start"": 0",[]\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"d.csv:3: field 'pred': malformed JSON"):
        TASK.load(Source(csv))
    csv.write_text(csv.read_text().splitlines()[0] + "\n" + csv.read_text().splitlines()[1]
                   + "\n", encoding="utf-8")
    items = TASK.load(Source(csv))
    assert (items[0].pred, items[0].truth) == ([SPAN], [])
    with pytest.raises(InputError, match="needs a judge"):
        asyncio.run(TASK.judge(items, None, JudgeContext(cache=JudgeCache(tmp_path, "off")),
                               Params()))
    # score() refuses matrices that do not belong to the items' (item, type) groups
    with pytest.raises(ValueError, match=r"expected 1 \(item, type\) matrices, got 2"):
        TASK.score(items, Judged(matrices=[None, None]), Params())


def test_cli_eval_and_rescore_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = run_cli("eval", EXAMPLE, "--task", "spans", "--judge", "lexical", "--out", out,
                  "--bootstrap", "100", "--cache-dir", tmp_path / "c", cwd=REPO)
    assert res.returncode == 0, res.stdout + res.stderr
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["task"] == "spans" and summary["n_items"] == 3
    assert summary["metrics"]["micro_f1"] == pytest.approx(0.4625)
    assert summary["metrics"]["macro_f1"] == pytest.approx(MACRO_07)
    assert "micro_f1" in summary["bootstrap"]["ci95"]
    assert (out / "report.html").is_file()
    res = run_cli("rescore", out, "--tau", "0.5", "--out", tmp_path / "r.json", cwd=REPO)
    assert res.returncode == 0, res.stdout + res.stderr
    again = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert again["judge_calls"] == 0
    assert again["metrics"]["micro_f1"] == pytest.approx((2 + NEW_YORK + OBAMA + ACME) / 6)
    res = run_cli("audit", out, "--format", "md", cwd=REPO)
    assert res.returncode == 0, res.stdout + res.stderr
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "#### LOC" in md and "- matched: 'New York' ↔ 'New York City' (0.78)" in md
    assert "- matched: LOC 'New York' ↔ 'New York City' (0.775)" in md
