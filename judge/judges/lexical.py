"""``lexical``: a deterministic surface-overlap baseline judge.

score = mean of (a) the Dice coefficient of character bigrams of the normalised strings
(:func:`metrics.normalize`; unigrams for one-character strings) and (b) the token F1 of jieba
tokens of the NFKC-casefolded strings (seed 002's clipped token overlap). It sees no meaning:
"Job Information" vs "职位信息" scores 0. Use it as a floor for ablations.

Both parts are linear in the string length, but jieba keeps a word graph of about 0.5 KB per
character and takes about 8 s per million CJK characters (``benchmarks/bench_memory.py``), so
each string is compared by its first ``max_chars`` characters (default 4,096, as the local
judge and ``simjudge eval --max-chars``); a verdict whose input was cut says so.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Sequence
from typing import Any

from judge.judges.base import Judge, JudgeContext, Pair
from judge.judges.embedding.local import MAX_CHARS
from judge.verdict import Verdict
from metrics import normalize, token_scores
from metrics.tokenize import jieba_disjoint

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
    """jieba-token F1 of the NFKC-casefolded strings (0.0 when either has no token, or when
    they surely share none: :func:`metrics.tokenize.jieba_disjoint`, which spares loading
    jieba's dictionary to find that an English and a Chinese term share no token)."""
    fa = unicodedata.normalize("NFKC", a).casefold()
    fb = unicodedata.normalize("NFKC", b).casefold()
    if jieba_disjoint(fa, fb):
        return 0.0
    return token_scores(fa, fb, tokenizer="jieba").f1


class LexicalJudge(Judge):
    """Deterministic lexical-overlap judge (no model, no cache, no calls).

    Args:
        judge_id: id to record (default ``lexical``).
        max_chars: characters of each string that are compared (default 4,096, > 0); a longer
            string is cut to its first ``max_chars`` characters and its verdicts say so.

    Raises:
        ValueError: ``max_chars`` < 1.
    """

    def __init__(self, judge_id: str = "lexical", max_chars: int = MAX_CHARS) -> None:
        if max_chars < 1:
            raise ValueError(f"max_chars must be >= 1, got {max_chars}")
        self.id = judge_id
        self.max_chars = max_chars

    def describe(self) -> dict[str, Any]:
        """Identity for ``config.json``."""
        return {"id": self.id, "backend": "lexical", "method": METHOD,
                "definition": "mean(char-bigram Dice on normalised text, jieba-token F1)",
                "max_chars": self.max_chars}

    def work_units(self, pairs: Sequence[Pair]) -> int:
        """One unit per pair."""
        return len(pairs)

    def score(self, pred: str, truth: str) -> tuple[float, str]:
        """``(score in [0, 1], rationale)`` for one pair (each string cut to ``max_chars``)."""
        n = self.max_chars
        cuts = "".join(f"; input {side} truncated at {n:,} of {len(text):,} characters"
                       for side, text in (("pred", pred), ("truth", truth)) if len(text) > n)
        pred, truth = pred[:n], truth[:n]
        d, f = char_dice(pred, truth), token_f1(pred, truth)
        s = (d + f) / 2
        return s, (f"character-bigram Dice {d:.2f}, jieba-token F1 {f:.2f} → {s:.2f} "
                   f"(surface overlap only; no semantics){cuts}")

    async def judge_pairs(self, pairs: Sequence[Pair], ctx: JudgeContext) -> list[Verdict | None]:
        """Score every pair deterministically."""
        out: list[Verdict | None] = []
        for pred, truth in pairs:
            s, why = self.score(pred, truth)
            out.append(Verdict(pred=pred, truth=truth, score=s, rationale=why, outcome="ok",
                               raw=f"{s:.6f}", judge_id=self.id, scorer=METHOD))
            ctx.advance(1)
        return out
