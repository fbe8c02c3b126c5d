"""``judge.tasks.views``: what the audit report shows of an item row, by kind of content."""

from __future__ import annotations

import pytest

from judge.record.itemrows import (
    FunctionCallRow,
    GenerationRow,
    JudgmentRow,
    MultilabelRow,
    RankingRow,
)
from judge.tasks.views import (
    RANK_LIMIT,
    boolean_view,
    calls_json,
    calls_view,
    labels_view,
    markdown_lines,
    ranking_view,
    texts_view,
)


def test_boolean_texts_and_labels_views() -> None:
    assert boolean_view(JudgmentRow(id="x", pred=True, truth=False)) == {
        "kind": "boolean", "pred": True, "truth": False, "correct": False}
    assert boolean_view(JudgmentRow(id="x", pred=True, truth=True, correct=True))[
        "correct"] is True
    assert texts_view(GenerationRow.model_construct(
            id="x", pred="Mercury", truth=["Mercury", "the planet"])) == {
        "kind": "texts", "pred": "Mercury", "truth": ["Mercury", "the planet"]}
    # gold b, c; predicted a, b: c is missing, a is extra
    assert labels_view(MultilabelRow(id="x", pred=["a", "b"], truth=["b", "c"])) == {
        "kind": "labels", "pred": ["a", "b"], "truth": ["b", "c"], "missing": ["c"],
        "extra": ["a"]}
    for view, model in ((boolean_view, JudgmentRow), (texts_view, GenerationRow),
                        (labels_view, MultilabelRow), (ranking_view, RankingRow),
                        (calls_view, FunctionCallRow)):
        # a row written without its content
        assert view(model.model_construct(id="old", f1=0.5)) == {}


def test_ranking_view_orders_relevant_documents() -> None:
    row = RankingRow.model_construct(id="q", ranked=["d3", "d1", "d9"],
                                     qrels={"d1": 2, "d2": 1, "d3": 0, "d4": 2})
    # relevant = grade >= 1: d1 (2, rank 2), d4 (2, not retrieved), d2 (1, not retrieved);
    # best grade first, then rank (unretrieved last), then id
    assert ranking_view(row) == {
        "kind": "ranking", "ranked": [[1, "d3", 0], [2, "d1", 2], [3, "d9", None]],
        "retrieved": 3, "relevant": [["d1", 2, 2], ["d4", 2, None], ["d2", 1, None]],
        "relevant_missing": 2}
    long = ranking_view(RankingRow.model_construct(
        id="q", ranked=[f"d{k}" for k in range(RANK_LIMIT + 50)], qrels={}))
    assert len(long["ranked"]) == RANK_LIMIT and long["retrieved"] == RANK_LIMIT + 50


def test_calls_view_and_json() -> None:
    gold = [{"name": "f", "arguments": {"x": 1}}]
    row = FunctionCallRow.model_construct(
        id="x", gold_calls=gold, pred_calls="f(x=", correct=False, error_type="unparseable",
        error="bad", matching=[], category=None)
    assert calls_view(row) == {"kind": "calls", "gold": gold, "pred": "f(x=", "correct": False,
                               "error_type": "unparseable", "error": "bad", "matching": [],
                               "category": None}
    assert calls_json(gold) == '[\n  {"name": "f", "arguments": {"x": 1}}\n]'
    assert calls_json({"f": {"x": [1]}}) == '{\n  "f": {"x": [1]}\n}'
    assert calls_json([]) == "[]" and calls_json("raw text") == "raw text"


@pytest.mark.parametrize("content, lines", [
    ({"kind": "boolean", "pred": True, "truth": True, "correct": True},
     ["- prediction: true · gold: true → correct"]),
    ({"kind": "texts", "pred": "Sydney", "truth": ["Canberra"]},
     ["- prediction: 'Sydney'", "- reference: 'Canberra'"]),
    ({"kind": "labels", "pred": [], "truth": ["x"], "missing": ["x"], "extra": []},
     ["- predicted: (none)", "- gold: x", "- missing: x · extra: –"]),
    (ranking_view(RankingRow.model_construct(id="q", ranked=["d1", "d2"],
                                             qrels={"d2": 1, "d7": 3})),
     ["- relevant: d7 (grade 3, not retrieved), d2 (grade 1, rank 2)",
      "- ranked (2 retrieved):", "  1. d1", "  2. d2 (grade 1)"]),
    ({"kind": "calls", "gold": [{"name": "f"}], "pred": "f(", "correct": False,
      "error_type": "unparseable", "error": "no call", "category": "simple"},
     ["- wrong: unparseable — no call · category simple", "- gold calls:", "```json", "[",
      '  {"name": "f"}', "]", "```", "- predicted calls:", "```", "f(", "```"]),
    ({"kind": "calls", "gold": [], "pred": "```f()```", "correct": True, "error_type": None},
     ["- correct", "- gold calls:", "```json", "[]", "```", "- predicted calls:", "````",
      "```f()```", "````"]),
    ({}, []),
    ({"kind": "heatmap-only"}, []),
])
def test_markdown_lines(content: dict, lines: list[str]) -> None:  # type: ignore[type-arg]
    assert markdown_lines(content) == lines
