"""metrics.nerschemes: nervaluate's four schemes, equal to nervaluate document by document."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from metrics.nerschemes import (
    SCHEMES,
    SchemeCounts,
    nervaluate_counts,
    nervaluate_scores,
    nervaluate_type_counts,
    scheme_counts,
)
from metrics.spans import Span

nervaluate = pytest.importorskip("nervaluate")  # Python >= 3.11 (pyproject's test extra)

WNUT = Path(__file__).resolve().parents[1] / "fixtures" / "spans" / "wnut17_uh_ritual.jsonl"


def _entities(spans: list[Span]) -> list[dict[str, Any]]:
    # nervaluate's entities end on their last character: [start, end) → (start, end - 1)
    return [{"label": s.type, "start": s.start, "end": s.end - 1} for s in spans]


def _random_doc(rng: np.random.Generator) -> tuple[list[Span], list[Span]]:
    """Gold spans and overlapping, shifted, retyped, duplicated or made-up predictions."""
    types = ["PER", "ORG", "LOC"]
    gold = []
    for _ in range(int(rng.integers(0, 5))):
        a = int(rng.integers(0, 40))
        gold.append(Span(a, a + int(rng.integers(1, 8)), types[int(rng.integers(0, 3))], "x"))
    pred = []
    for g in gold:
        for _ in range(int(rng.integers(0, 3))):
            a = max(0, g.start + int(rng.integers(-2, 3)))
            b = max(a + 1, g.end + int(rng.integers(-2, 3)))
            typ = g.type if rng.random() < 0.6 else types[int(rng.integers(0, 3))]
            pred.append(Span(a, b, typ, "x") if rng.random() < 0.5 else Span(g.start, g.end,
                                                                             typ, "x"))
    for _ in range(int(rng.integers(0, 3))):
        a = int(rng.integers(0, 45))
        pred.append(Span(a, a + int(rng.integers(1, 6)), types[int(rng.integers(0, 3))], "x"))
    rng.shuffle(pred)
    return pred, gold


def _ours_like_theirs(ours: SchemeCounts, theirs: Any) -> None:
    assert (ours.correct, ours.incorrect, ours.partial, ours.missed, ours.spurious) == (
        theirs.correct, theirs.incorrect, theirs.partial, theirs.missed, theirs.spurious)


def _check(docs: list[tuple[list[Span], list[Span]]]) -> None:
    tags = sorted({s.type for p, t in docs for s in (*p, *t)})
    # document by document: each document alone through nervaluate's Evaluator
    for pred, gold in docs:
        if not tags:
            continue
        ref = nervaluate.Evaluator([_entities(gold)], [_entities(pred)], tags=tags,
                                   loader="dict").evaluate()
        ours = nervaluate_counts(pred, gold)
        per_type = nervaluate_type_counts(pred, gold)
        for scheme in SCHEMES:
            _ours_like_theirs(ours[scheme], ref["overall"][scheme])
            for typ, res in ref["entities"].items():
                _ours_like_theirs(per_type[typ][scheme], res[scheme])
    # the data set: counts summed over documents, nervaluate's overall scores
    ref = nervaluate.Evaluator([_entities(g) for _, g in docs], [_entities(p) for p, _ in docs],
                               tags=tags, loader="dict").evaluate()
    total = {s: sum((nervaluate_counts(p, g)[s] for p, g in docs), SchemeCounts())
             for s in SCHEMES}
    flat = nervaluate_scores(total)
    for scheme in SCHEMES:
        _ours_like_theirs(total[scheme], ref["overall"][scheme])
        for k in ("precision", "recall", "f1"):
            assert flat[f"nervaluate_{scheme}_{k}"] == pytest.approx(
                getattr(ref["overall"][scheme], k), abs=1e-15)


def test_random_overlapping_documents_equal_nervaluate() -> None:
    rng = np.random.default_rng(37)
    for _ in range(40):
        _check([_random_doc(rng) for _ in range(int(rng.integers(1, 8)))])


def test_wnut17_excerpt_equals_nervaluate() -> None:
    docs = []
    for line in WNUT.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        docs.append(([Span(**s) for s in r["pred"]], [Span(**s) for s in r["truth"]]))
    _check(docs)


def test_an_earlier_prediction_of_another_type_uses_up_the_gold_span() -> None:
    # gold PER [10, 15); pred ORG [10, 13) comes first and overlaps it: nervaluate's strict
    # loop takes the gold span as that ORG's "incorrect" match, so the exact PER prediction
    # after it finds nothing left: strict correct 0, incorrect 1, spurious 1 (P = R = 0);
    # conlleval/seqeval (simjudge's strict_*) count the PER prediction correct.
    gold = [Span(10, 15, "PER", "Alice")]
    pred = [Span(10, 13, "ORG", "Ali"), Span(10, 15, "PER", "Alice")]
    assert scheme_counts(pred, gold, "strict") == SchemeCounts(incorrect=1, spurious=1)
    # in the other order the exact one comes first: correct 1, spurious 1
    assert scheme_counts(pred[::-1], gold, "strict") == SchemeCounts(correct=1, spurious=1)
    # ent_type too: the ORG overlaps no ORG gold span, so it is incorrect and takes the PER
    # gold span; the PER prediction is spurious
    assert scheme_counts(pred, gold, "ent_type") == SchemeCounts(incorrect=1, spurious=1)
    # partial: the ORG's overlap is a partial (½): P = ½/2, R = ½/1
    c = scheme_counts(pred, gold, "partial")
    assert c == SchemeCounts(partial=1, spurious=1)
    assert c.scores("partial") == {"precision": 0.25, "recall": 0.5, "f1": 1 / 3}
    _check([(pred, gold)])


def test_touching_spans_do_not_overlap_and_one_percent_is_the_bar() -> None:
    gold = [Span(0, 5, "PER", "Alice")]
    assert scheme_counts([Span(5, 9, "PER", "Bob.")], gold, "exact") == SchemeCounts(
        missed=1, spurious=1)
    # one shared character of a 150-character gold span is 0.67 % < 1 %: no overlap
    long_gold = [Span(0, 150, "ORG", "x" * 150)]
    assert scheme_counts([Span(149, 152, "ORG", "xyz")], long_gold, "ent_type") == \
        SchemeCounts(missed=1, spurious=1)
    assert scheme_counts([Span(148, 152, "ORG", "xyzw")], long_gold, "ent_type") == \
        SchemeCounts(correct=1)
    _check([([Span(5, 9, "PER", "Bob.")], gold), ([Span(149, 152, "ORG", "xyz")], long_gold),
            ([Span(148, 152, "ORG", "xyzw")], long_gold)])


def test_unknown_scheme() -> None:
    with pytest.raises(ValueError, match="scheme: expected one of strict, exact"):
        scheme_counts([], [], "lenient")
    with pytest.raises(ValueError, match="scheme"):
        SchemeCounts().scores("lenient")
