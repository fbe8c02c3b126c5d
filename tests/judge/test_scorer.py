"""The tolerant parser: structured answers, fallbacks, and failures as parse errors."""

from __future__ import annotations

import pytest

from judge.scorer import ParseError, load_scorer

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
