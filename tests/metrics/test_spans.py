"""metrics.spans: strict and fuzzy span P/R/F1, hand-derived values and seqeval's on WNUT-17."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from metrics.spans import (
    Counts,
    Span,
    as_span,
    by_type,
    counts_of,
    exact_span_pairs,
    match_type,
    span_match,
    span_scores,
    sum_counts,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "spans"

# Two types. PER: "Alice" exact; "Bob Smith" ↔ "Bob" judged 0.8 (> τ 0.7: fuzzy match).
# LOC: "Paris" ↔ "Paris, France" judged 0.65 (< τ 0.7: no match); 3 gold LOC spans.
PRED = [Span(0, 5, "PER", "Alice"), Span(10, 19, "PER", "Bob Smith"),
        Span(30, 35, "LOC", "Paris"), Span(40, 44, "LOC", "Rome")]
TRUTH = [Span(0, 5, "PER", "Alice"), Span(10, 13, "PER", "Bob"),
         Span(30, 43, "LOC", "Paris, France"), Span(50, 56, "LOC", "Madrid"),
         Span(60, 66, "LOC", "Berlin")]
SIMS = {"PER": [[1.0, 0.2], [0.1, 0.8]],
        "LOC": [[0.65, 0.1, 0.0], [0.05, 0.3, 0.2]]}


def _scores(tau: float) -> dict:
    return span_scores(sum_counts([counts_of(span_match(PRED, TRUTH, SIMS, tau))]))


def test_hand_derived_two_types_exact_fuzzy_and_below_tau() -> None:
    m = span_match(PRED, TRUTH, SIMS, tau=0.7)
    assert list(m) == ["LOC", "PER"]
    per, loc = m["PER"], m["LOC"]
    # PER: exact Alice (1.0) + Bob Smith ↔ Bob (0.8) → TP 1.8 of 2 pred, 2 gold
    assert (per.n_pred, per.n_truth, per.n_exact, per.tp_fuzzy) == (2, 2, 1, 1.8)
    assert [(x.pred_index, x.truth_index, x.score, x.exact) for x in per.matches] == [
        (0, 0, 1.0, True), (1, 1, 0.8, False)]
    # LOC: 0.65 is not > 0.7 → nothing matched, 2 pred, 3 gold
    assert (loc.n_pred, loc.n_truth, loc.n_exact, loc.tp_fuzzy, loc.matches) == (2, 3, 0, 0.0, ())
    s = _scores(0.7)
    # micro: TP 1.8, |pred| 4, |gold| 5 → P 0.45, R 0.36, F1 2·1.8/9 = 0.4
    assert (s["micro_precision"], s["micro_recall"]) == pytest.approx((0.45, 0.36))
    assert s["micro_f1"] == pytest.approx(0.4)
    # per type: PER P = R = F1 = 0.9; LOC 0 → macro P = R = F1 = 0.45
    assert s["per_type"]["PER"]["f1"] == pytest.approx(0.9) and s["per_type"]["LOC"]["f1"] == 0
    assert (s["macro_precision"], s["macro_recall"], s["macro_f1"]) == pytest.approx(
        (0.45, 0.45, 0.45))
    # strict: 1 exact of 4 pred / 5 gold → P 0.25, R 0.2, F1 2/9; per type PER 0.5, LOC 0
    assert (s["strict_precision"], s["strict_recall"], s["strict_f1"]) == pytest.approx(
        (0.25, 0.2, 2 / 9))
    assert s["strict_macro_f1"] == pytest.approx(0.25)
    assert (s["n_pred"], s["n_truth"], s["n_exact"], s["n_types"]) == (4, 5, 1, 2)


def test_other_taus_hand_derived() -> None:
    # τ = 0.6: LOC Paris ↔ Paris, France 0.65 now matches: LOC TP 0.65 → F1 2·0.65/5 = 0.26;
    # micro TP 2.45 → P 0.6125, R 0.49, F1 4.9/9; macro F1 (0.9 + 0.26)/2 = 0.58
    s = _scores(0.6)
    assert (s["micro_precision"], s["micro_recall"], s["micro_f1"]) == pytest.approx(
        (0.6125, 0.49, 4.9 / 9))
    assert s["macro_f1"] == pytest.approx(0.58)
    # τ = 0.8: 0.8 is not > 0.8 → only the exact match: fuzzy = strict
    s = _scores(0.8)
    assert (s["micro_precision"], s["micro_recall"], s["micro_f1"]) == pytest.approx(
        (0.25, 0.2, 2 / 9))
    assert s["strict_f1"] == pytest.approx(2 / 9)  # strict does not depend on τ


def test_tau_one_counts_only_exact_offsets_even_when_every_score_is_one() -> None:
    ones = {t: np.ones((len(ip), len(it)))
            for t, (ip, it) in by_type(PRED, TRUTH).items()}
    s = span_scores(sum_counts([counts_of(span_match(PRED, TRUTH, ones, tau=1.0))]))
    assert s["micro_f1"] == s["strict_f1"] == pytest.approx(2 / 9)
    # at τ = 0.99 the same all-ones scores match everything one-to-one: PER 2, LOC 2 of 3
    s = span_scores(sum_counts([counts_of(span_match(PRED, TRUTH, ones, tau=0.99))]))
    assert s["tp_fuzzy"] == 4.0 and s["micro_recall"] == pytest.approx(4 / 5)


def test_types_never_cross_and_no_verdict_never_matches() -> None:
    # same offsets, other type: not exact; a missing matrix (no verdicts) matches nothing
    m = span_match([Span(0, 5, "ORG", "Paris")], [Span(0, 5, "LOC", "Paris")])
    assert {t: x.tp_fuzzy for t, x in m.items()} == {"LOC": 0.0, "ORG": 0.0}
    # NaN = no verdict is never matched, even at τ = 0
    got = match_type([Span(0, 1, "X", "a")], [Span(2, 3, "X", "b")], [[math.nan]], tau=0.0)
    assert got.matches == ()
    # a score of exactly τ does not match; just above does
    assert match_type([Span(0, 1, "X", "a")], [Span(2, 3, "X", "b")], [[0.7]], 0.7).tp_fuzzy == 0
    assert match_type([Span(0, 1, "X", "a")], [Span(2, 3, "X", "b")], [[0.71]],
                      0.7).tp_fuzzy == 0.71


def test_exact_pairs_are_one_to_one_and_taken_before_fuzzy() -> None:
    # the duplicate prediction finds no second gold span with those offsets; its 0.9 score to
    # the exact-matched gold span is ignored (exact pairs are removed first)
    p = [Span(0, 3, "X", "abc"), Span(0, 3, "X", "abc")]
    t = [Span(0, 3, "X", "abc")]
    assert exact_span_pairs(p, t) == [(0, 0)]
    m = match_type(p, t, [[1.0], [0.9]], tau=0.5)
    assert (m.n_exact, m.tp_fuzzy, len(m.matches)) == (1, 1.0, 1)
    # maximum weight, not greedy: 0.9 alone < 0.8 + 0.85
    p = [Span(0, 1, "X", "a"), Span(2, 3, "X", "b")]
    t = [Span(4, 5, "X", "c"), Span(6, 7, "X", "d")]
    m = match_type(p, t, [[0.9, 0.8], [0.85, 0.1]], tau=0.7)
    assert m.tp_fuzzy == pytest.approx(1.65)


def test_empty_sides_and_zero_division() -> None:
    s = span_scores({})  # no span anywhere: nothing to find, nothing wrong
    assert (s["micro_f1"], s["macro_f1"], s["strict_f1"], s["n_types"]) == (1.0, 1.0, 1.0, 0)
    only_gold = {"PER": Counts(n_pred=0, n_truth=2)}
    s = span_scores(only_gold)
    assert (s["micro_precision"], s["micro_recall"], s["micro_f1"]) == (0.0, 0.0, 0.0)
    s = span_scores(only_gold, zero_division=1.0)  # P undefined → 1.0; R = 0 → F1 0
    assert (s["micro_precision"], s["micro_recall"], s["micro_f1"]) == (1.0, 0.0, 0.0)
    assert math.isnan(span_scores(only_gold, zero_division=math.nan)["micro_precision"])
    with pytest.raises(ValueError, match="zero_division"):
        span_scores(only_gold, zero_division=0.5)


@pytest.mark.parametrize(("value", "message"), [
    ("x", r"s\[0\]: expected an object \{start, end, type, text\}, got str"),
    ({"start": 0, "end": 1, "type": "A"}, r"s\[0\]: missing key 'text'"),
    ({"start": "0", "end": 1, "type": "A", "text": "a"},
     r"s\[0\]: 'start' must be an integer offset, got '0'"),
    ({"start": 0, "end": True, "type": "A", "text": "a"},
     r"s\[0\]: 'end' must be an integer offset, got True"),
    ({"start": -1, "end": 1, "type": "A", "text": "a"}, r"s\[0\]: 'start' must be >= 0, got -1"),
    ({"start": 4, "end": 2, "type": "A", "text": "a"},
     r"s\[0\]: 'end' must be greater than 'start' \(4\), got 2"),
    ({"start": 0, "end": 1, "type": "", "text": "a"},
     r"s\[0\]: 'type' must be a non-empty string, got an empty string"),
    ({"start": 0, "end": 1, "type": "A", "text": None},
     r"s\[0\]: 'text' must be a non-empty string, got None"),
])
def test_bad_spans_name_index_and_key(value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        as_span(value, "s[0]")
    with pytest.raises(ValueError, match=message.replace("s\\[0\\]", "pred\\[0\\]")):
        span_match([value], [])


def test_bad_matrix_and_tau() -> None:
    p, t = [Span(0, 1, "X", "a")], [Span(2, 3, "X", "b")]
    with pytest.raises(ValueError, match=r"sim: expected shape \(1, 1\)"):
        match_type(p, t, [[0.1, 0.2]])
    with pytest.raises(ValueError, match=r"sim\[0, 0\]: score 1.5 is outside \[0, 1\]"):
        match_type(p, t, [[1.5]])
    with pytest.raises(ValueError, match="tau"):
        match_type(p, t, [[0.5]], tau=1.5)
    with pytest.raises(ValueError, match="several types"):
        match_type([Span(0, 1, "X", "a")], [Span(0, 1, "Y", "a")])
    with pytest.raises(ValueError, match="pred: expected a list of spans, got str"):
        span_match("abc", [])  # type: ignore[arg-type]


# seqeval 1.2.2, strict mode (mode="strict", scheme=IOB2, zero_division=0), on the 18 WNUT-17
# test sentences of tests/fixtures/spans (gold vs the UH-RiTUAL submission), as printed by
# `python benchmarks/check_spans_seqeval.py DIR --excerpt uh_ritual -n 18`:
SEQEVAL = {
    "micro_precision": 0.5384615384615384,  # 7 of 13 predicted spans correct
    "micro_recall": 0.3181818181818182,  # 7 of 22 gold spans found
    "micro_f1": 0.39999999999999997,
    "macro_precision": 0.44999999999999996,
    "macro_recall": 0.3104166666666667,
    "macro_f1": 0.328030303030303,
    "per_type_f1": {"creative-work": 0.0, "group": 0.26666666666666666,
                    "location": 0.5454545454545454, "person": 0.5},
}


def _wnut_items() -> list[dict]:
    return [json.loads(x) for x in (FIXTURES / "wnut17_uh_ritual.jsonl").read_text(
        encoding="utf-8").splitlines() if x.strip()]


def test_wnut17_excerpt_matches_seqeval_strict() -> None:
    items = _wnut_items()
    assert len(items) == 18
    # the CoNLL copy of the excerpt: every B- tag opens one span (strict IOB2, no orphan I-)
    conll = (FIXTURES / "wnut17_uh_ritual.conll").read_text(encoding="utf-8").splitlines()
    cols = [line.split("\t") for line in conll if line]
    assert sum(c[1].startswith("B-") for c in cols) == sum(len(i["truth"]) for i in items) == 22
    assert sum(c[2].startswith("B-") for c in cols) == sum(len(i["pred"]) for i in items) == 13
    for tau, sims in ((0.7, None), (1.0, "ones")):  # strict keys; fuzzy at τ = 1
        counts = []
        for it in items:
            p, t = it["pred"], it["truth"]
            sp = span_match(p, t)
            m = sp if sims is None else span_match(
                p, t, {k: np.ones((x.n_pred, x.n_truth)) for k, x in sp.items()}, tau)
            counts.append(counts_of(m))
        s = span_scores(sum_counts(counts))
        prefix = "strict_" if sims is None else "micro_"
        for k in ("precision", "recall", "f1"):
            assert s[prefix + k] == pytest.approx(SEQEVAL["micro_" + k], abs=1e-12)
        mac = "strict_macro_" if sims is None else "macro_"
        for k in ("precision", "recall", "f1"):
            assert s[mac + k] == pytest.approx(SEQEVAL["macro_" + k], abs=1e-12)
        key = "strict_f1" if sims is None else "f1"
        assert {t: v[key] for t, v in s["per_type"].items()} == pytest.approx(
            SEQEVAL["per_type_f1"], abs=1e-12)
