"""Scoring human-labelled pairs with a judge (``simjudge calibrate``'s judge calls).

Normalised-equal pairs score 1.0 with no judge call, as in ``eval``; every other distinct pair
is judged once through the cache; pairs the judge gave no ``ok`` verdict keep NaN and are
counted per outcome (a failure is never a 0).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from judge import aio
from judge.cache import JudgeCache
from judge.calibration.labels import LabelSet
from judge.judges.base import Judge, JudgeContext
from metrics import normalize

ProgressFactory = Callable[..., Callable[[int], None]]
"""``(total units, live JudgeStats[, phase label]) -> advance(n)``: a progress-bar factory."""


@dataclass
class JudgeScores:
    """A judge's scores for the labelled pairs (NaN where it gave no ``ok`` verdict);
    ``tokens_in``/``tokens_out``/``cost_usd``: usage of the calls made (cache hits cost none)."""

    judge_id: str
    scores: NDArray[np.float64]
    rationales: list[str]
    judge_calls: int
    cache_hits: int
    describe: dict[str, Any]
    outcomes: dict[str, int] = field(default_factory=dict)
    first_error: str | None = None
    stopped_early: list[dict[str, Any]] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    exact: int = 0
    """Pairs equal after normalisation: scored 1.0 by that rule, without a judge call."""
    member_verdicts: list[dict[str, Any]] = field(default_factory=list)
    """A panel's (or :class:`judge.probes.repeat.Repeats`') member verdict rows
    (``ctx.panel.member_verdicts``); empty for a single judge."""


async def _score_pairs_async(all_pairs: Sequence[tuple[str, str]], judge: Judge,
                             ctx: JudgeContext) -> JudgeScores:
    n = len(all_pairs)
    scores = np.full(n, np.nan)
    rationales = [""] * n
    todo: dict[tuple[str, str], list[int]] = {}
    for k, (pred, truth) in enumerate(all_pairs):
        if normalize(pred) == normalize(truth):
            scores[k] = 1.0
            rationales[k] = "exact match after normalisation"
        else:
            todo.setdefault((pred, truth), []).append(k)
    pairs = list(todo)
    verdicts = await judge.judge_pairs(pairs, ctx) if pairs else []
    outcomes: Counter[str] = Counter()
    first_error = None
    for pair, v in zip(pairs, verdicts, strict=True):
        if v is None:
            continue
        outcomes[v.outcome] += 1
        if v.outcome == "ok" and v.score is not None:
            for k in todo[pair]:
                scores[k] = v.score
                rationales[k] = v.rationale
        elif first_error is None:
            first_error = v.rationale
    stops = [s.summary() for s in ctx.early_stops.values() if s.stopped]
    return JudgeScores(judge.id, scores, rationales, ctx.stats.judge_calls,
                       ctx.stats.cache_hits, judge.describe(), dict(outcomes), first_error,
                       stops, ctx.stats.tokens_in, ctx.stats.tokens_out, ctx.stats.cost_usd,
                       n - sum(map(len, todo.values())), list(ctx.panel.member_verdicts))


def score_pairs(pairs: Sequence[tuple[str, str]], judge: Judge, cache: JudgeCache,
                progress_factory: ProgressFactory | None = None,
                phase: str = "judging", context: str = "") -> JudgeScores:
    """Score ``(pred, truth)`` pairs with ``judge`` (each distinct pair once, through the cache;
    normalised-equal pairs 1.0 with no call); ``scores[k]`` is NaN where the judge gave no
    ``ok`` verdict.

    Args:
        progress_factory: ``(total units, live JudgeStats, phase) -> advance(n)`` for a
            progress bar (None = none); phase: its row's label.
        context: task context given to prompt judges (as ``eval --context``).
    """
    ctx = JudgeContext(cache=cache, context=context)
    if progress_factory is not None:
        distinct = list(dict.fromkeys(p for p in pairs if normalize(p[0]) != normalize(p[1])))
        ctx.progress = progress_factory(judge.work_units(distinct), ctx.stats, phase)
    return aio.run(_score_pairs_async(pairs, judge, ctx))


def score_labelled_pairs(labels: LabelSet, judge: Judge, cache: JudgeCache,
                         progress_factory: ProgressFactory | None = None,
                         context: str = "") -> JudgeScores:
    """Score every labelled pair with ``judge`` (:func:`score_pairs`, in ``labels.pairs``
    order; ``context``: task context for prompt judges)."""
    return score_pairs([(p.pred, p.truth) for p in labels.pairs], judge, cache,
                       progress_factory, f"{judge.id}: labelled pairs", context)
