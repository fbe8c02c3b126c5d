"""The tolerant parser: structured answers, fallbacks, and failures as parse errors."""

from __future__ import annotations

import pytest

from judge.judges.llm.jsonreply import ParseError
from judge.judges.llm.scorer import SCORERS, BatchOutput, GradeOutput, SimilarityOutput, load_scorer
from tests.conftest import REPO

S = load_scorer("entity_similarity@v1")


@pytest.mark.parametrize(
    ("raw", "score", "rationale"),
    [
        ('{"score": 0.9, "rationale": "same entity"}', 0.9, "same entity"),
        ('```json\n{"score": 1, "rationale": "x"}\n```', 1.0, "x"),
        ('Here you go: {"score": 0.25, "rationale": "different"} hope it helps', 0.25,
         "different"),
        ('{"score": 0.4}', 0.4, ""),
        ("score: 0.8", 0.8, "score: 0.8"),
    ],
)
def test_parses(raw: str, score: float, rationale: str) -> None:
    out = S.parse(raw)
    assert out.score == score  # type: ignore[attr-defined]
    assert out.rationale == rationale  # type: ignore[attr-defined]


@pytest.mark.parametrize("raw", ['{"score": 1.5}', '{"score": -0.1, "rationale": "x"}',
                                 "I cannot help with that.", '{"rationale": "no score"}',
                                 '{"score": "high"}', ""])
def test_failures_are_parse_errors_never_scores(raw: str) -> None:
    with pytest.raises(ParseError):
        S.parse(raw)


@pytest.mark.parametrize("raw", ['{"score": 0.', '{"score": 0', '{"score": 1, "rationale": "cut',
                                 'Here: {"score": 0.'])
def test_truncated_json_is_never_read_as_a_score(raw: str) -> None:
    with pytest.raises(ParseError):
        S.parse(raw)


# ------------------------------------------------------------------------- SCORERS table
def test_scorers_table_modes_and_schemas() -> None:
    assert {k: (e.mode, e.schema) for k, e in SCORERS.items()} == {
        "entity_similarity@v1": ("pairwise", SimilarityOutput),
        "entity_similarity_batch@v1": ("batch", BatchOutput),
        "entity_similarity_grade@v1": ("grade", GradeOutput),
        "argument_equivalence@v1": ("pairwise", SimilarityOutput),
    }
    for scorer_id, entry in SCORERS.items():
        s = load_scorer(scorer_id)
        assert (s.id, s.mode, s.schema) == (scorer_id, entry.mode, entry.schema)
        assert entry.template == f"{s.name}/{s.version}.jinja"


def test_every_released_template_is_a_scorer() -> None:
    lock = (REPO / "prompts" / "versions.lock").read_text(encoding="utf-8").splitlines()
    released = {line.split()[0] for line in lock if line and not line.startswith("#")}
    assert released == {e.template for e in SCORERS.values()}


def test_batch_reply_is_parsed_by_the_batch_schema() -> None:
    b = load_scorer("entity_similarity_batch@v1")
    reply = ('```json\n{"scores": [{"index": 2, "score": 0.25, "rationale": "different"}, '
             '{"index": 1, "score": 1, "rationale": "same"}]}\n```')
    whole = BatchOutput.model_validate_json(reply.strip("`").removeprefix("json\n"))
    assert [(i.index, i.score, i.rationale) for i in whole.scores] == [
        (2, 0.25, "different"), (1, 1.0, "same")]
    # positions are 0-based: index 1 → item 0
    assert b.parse_batch(reply, 2) == {0: (1.0, "same"), 1: (0.25, "different")}
    # one bad entry is that item's error only; out-of-range indices answer nothing; a repeated
    # index with another score is that item's error too (issue 36: no silent choice)
    mixed = ('{"scores": [{"index": 1, "score": true}, {"index": 2, "score": 0.5}, '
             '{"index": 9, "score": 0.1}, {"index": 2, "score": 0.9}]}')
    got = b.parse_batch(mixed, 2)
    assert got[1] == ("conflicting scores in one reply: item 2 has entries scoring 0.5 and 0.9; "
                      "none is used")
    assert b.parse_batch(mixed.replace("0.9", "0.5"), 2)[1] == (0.5, "")
    assert isinstance(got[0], str) and got[0].startswith("unparseable judge output: scores.0.score")
    assert set(got) == {0, 1}
    with pytest.raises(ParseError, match=r'expected an object \{"scores"'):
        b.parse_batch('{"score": 0.5}', 1)
    with pytest.raises(ParseError, match="no JSON object"):
        b.parse_batch("no idea", 1)
    # the pairwise scorer's schema rejects a batch reply
    with pytest.raises(ParseError):
        S.parse('{"scores": [{"index": 1, "score": 0.5}]}')
