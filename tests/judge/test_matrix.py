"""Matrix building: exact cells skip the judge; pairs deduplicated over the dataset; NaN for
missing verdicts."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import numpy as np

from judge.cache import JudgeCache
from judge.judges.base import JudgeContext, Pair
from judge.matrix import build_matrices, distinct_pairs
from judge.verdict import Verdict


class RecordingJudge:
    """Test double: scores 0.9 for pairs whose pred starts with the truth's first letter,
    no verdict for pred "?", a parse error for pred "!", and records what it was asked."""

    id = "recording"

    def __init__(self) -> None:
        self.asked: list[Pair] = []

    def describe(self) -> dict[str, Any]:
        return {"id": self.id}

    def work_units(self, pairs: Sequence[Pair]) -> int:
        return len(pairs)

    async def judge_pairs(self, pairs: Sequence[Pair], ctx: JudgeContext) -> list[Verdict | None]:
        self.asked.extend(pairs)
        out: list[Verdict | None] = []
        for p, t in pairs:
            if p == "?":
                out.append(None)
            elif p == "!":
                out.append(Verdict(pred=p, truth=t, outcome="parse_error", raw="garbage",
                                   judge_id=self.id, scorer="t@v0"))
            else:
                s = 0.9 if p[0].lower() == t[0].lower() else 0.1
                out.append(Verdict(pred=p, truth=t, score=s, judge_id=self.id, scorer="t@v0"))
        return out


def test_exact_dedupe_and_missing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    items = [
        (["Job Info", "Alpha", "?"], ["JOB  INFO", "apple"]),
        (["Alpha", "!"], ["apple"]),  # (Alpha, apple) repeats: judged once
    ]
    _, total, exact = distinct_pairs(items)
    assert (total, exact) == (8, 1)
    judge = RecordingJudge()
    build = build_matrices(items, judge, JudgeContext(cache=JudgeCache(tmp_path, "off")))
    assert len(judge.asked) == len(set(judge.asked)) == build.pairs_distinct == 6
    assert ("Job Info", "JOB  INFO") not in judge.asked
    m0, m1 = build.matrices
    assert m0.exact[0, 0] and m0.scores[0, 0] == 1.0
    assert m0.scores[1, 1] == 0.9 and m0.scores[1, 0] == 0.1
    assert np.isnan(m0.scores[2]).all()  # no verdict → NaN, never 0
    assert np.isnan(m1.scores[1, 0])  # parse error → NaN, kept as an outcome
    assert m1.verdicts[(1, 0)].outcome == "parse_error"
    # no score: the two '?' pairs (no verdict) + the '!' pair (parse_error) = 3
    assert build.pairs_without_verdict == 3
    assert build.outcomes == {"ok": 3, "parse_error": 1}


def test_no_pairs_no_call(tmp_path) -> None:  # type: ignore[no-untyped-def]
    judge = RecordingJudge()
    build = asyncio.run(_build([(["a"], ["A"]), ([], ["x"])], judge, tmp_path))
    assert judge.asked == [] and build.pairs_exact == 1 and build.matrices[1].scores.shape == (0, 1)


async def _build(items, judge, tmp_path):  # type: ignore[no-untyped-def]
    from judge.matrix import build_matrices_async

    return await build_matrices_async(items, judge, JudgeContext(cache=JudgeCache(tmp_path, "off")))
