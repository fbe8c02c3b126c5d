"""``lexical``: a deterministic surface-overlap baseline judge.

score = mean of (a) the Dice coefficient of character bigrams of the normalised strings
(:func:`metrics.normalize`; unigrams for one-character strings) and (b) the token F1 of jieba
tokens of the NFKC-casefolded strings (seed 002's clipped token overlap). It sees no meaning:
"Job Information" vs "职位信息" scores 0. Use it as a floor for ablations.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Sequence
from typing import Any

from judge.judges.base import JudgeContext, Pair
from judge.verdict import Verdict
from metrics import normalize, token_scores

METHOD = "lexical@v1"


def _grams(s: str) -> Counter[str]:
    if len(s) < 2:
        return Counter([s]) if s else Counter()
    return Counter(s[i:i + 2] for i in range(len(s) - 1))


def char_dice(a: str, b: str) -> float:
    """Dice coefficient 2|A∩B| / (|A|+|B|) of character-bigram multisets of normalised text."""
    ga, gb = _grams(normalize(a)), _grams(normalize(b))
    total = sum(ga.values()) + sum(gb.values())
    return 2 * sum((ga & gb).values()) / total if total else 0.0


def token_f1(a: str, b: str) -> float:
    """jieba-token F1 of the NFKC-casefolded strings (0.0 when either has no token)."""
    fa = unicodedata.normalize("NFKC", a).casefold()
    fb = unicodedata.normalize("NFKC", b).casefold()
    return token_scores(fa, fb, tokenizer="jieba").f1


class LexicalJudge:
    """Deterministic lexical-overlap judge (no model, no cache, no calls)."""

    def __init__(self, judge_id: str = "lexical") -> None:
        self.id = judge_id

    def describe(self) -> dict[str, Any]:
        """Identity for ``config.json``."""
        return {"id": self.id, "backend": "lexical", "method": METHOD,
                "definition": "mean(char-bigram Dice on normalised text, jieba-token F1)"}

    def work_units(self, pairs: Sequence[Pair]) -> int:
        """One unit per pair."""
        return len(pairs)

    def score(self, pred: str, truth: str) -> tuple[float, str]:
        """``(score in [0, 1], rationale)`` for one pair."""
        d, f = char_dice(pred, truth), token_f1(pred, truth)
        s = (d + f) / 2
        return s, (f"character-bigram Dice {d:.2f}, jieba-token F1 {f:.2f} → {s:.2f} "
                   "(surface overlap only; no semantics)")

    async def judge_pairs(self, pairs: Sequence[Pair], ctx: JudgeContext) -> list[Verdict | None]:
        """Score every pair deterministically."""
        out: list[Verdict | None] = []
        for pred, truth in pairs:
            s, why = self.score(pred, truth)
            out.append(Verdict(pred=pred, truth=truth, score=s, rationale=why, outcome="ok",
                               raw=f"{s:.6f}", judge_id=self.id, scorer=METHOD))
            ctx.advance(1)
        return out
