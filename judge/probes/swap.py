"""The order-swap probe: re-judge a seeded sample of a run's pairs with the two sides exchanged.

A similarity judge should be symmetric: s(pred, truth) = s(truth, pred). For a sampled pair the
probe asks the run's judge again with the prediction in the gold slot and the gold item in the
prediction slot — for a pairwise scorer the prompt's PRED/GOLD markers swap; for the batch scorer
the pairs are grouped again, so each anchor is shown in the other role (``anchor_role`` gold ↔
predicted) — and compares the two scores (:func:`judge.probes.stats.swap_summary`). Calls go
through the same cache as the run (a rerun costs nothing) and count in the run's accounting.

Only pairs the run judged ``ok`` are sampled (a failed forward verdict has no score to compare);
exact pairs (equal after normalisation) are never judged and so never sampled.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from judge.judges.base import Judge, JudgeContext
from judge.probes.stats import swap_summary
from judge.record.proberows import SwapProbeRow

K = TypeVar("K")
Key = tuple[str | None, str, str]
"""``(item id or None, pred, truth)``."""


def sample_keys(keys: Sequence[K], fraction: float, seed: int) -> list[K]:
    """A seeded sample of ``round(fraction · n)`` keys (at least one when there are any), in
    their original order; ``fraction`` 1 takes all.

    Raises:
        ValueError: ``fraction`` outside (0, 1].
    """
    if not 0.0 < fraction <= 1.0:
        raise ValueError(f"swap fraction: expected a number in (0, 1], got {fraction}")
    n = len(keys)
    if n == 0 or fraction >= 1.0:
        return list(keys)
    k = max(1, round(fraction * n))
    idx = np.sort(np.random.default_rng(seed).choice(n, size=k, replace=False))
    return [keys[int(i)] for i in idx]


def forward_scores(verdict_rows: Iterable[Mapping[str, Any]]) -> dict[Key, float]:
    """The run's own ``ok`` scores by pair (panel members' rows left out)."""
    out: dict[Key, float] = {}
    for r in verdict_rows:
        if (r.get("member_of") is None and r.get("outcome", "ok") == "ok"
                and r.get("score") is not None):
            out.setdefault((r.get("item_id"), r["pred"], r["truth"]), float(r["score"]))
    return out


async def swap_probe(judge: Judge, verdict_rows: Iterable[Mapping[str, Any]], ctx: JudgeContext,
                     fraction: float, tau: float, seed: int = 0, n_boot: int = 1000,
                     ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Run the order-swap probe.

    Args:
        judge: the run's judge.
        verdict_rows: the run's verdict rows (``pred``, ``truth``, ``score``, ``outcome``,
            ``item_id``, ``member_of``).
        ctx: a judge context sharing the run's cache and accounting (its ``panel`` state is the
            probe's own).
        fraction: share of the run's ``ok`` pairs to probe, in (0, 1].
        tau: τ in [0, 1] for the flip rate.
        seed: seed of the sample and of the bootstrap; n_boot: bootstrap resamples.

    Returns:
        ``(rows, summary)``: one row per sampled pair
        (:class:`~judge.record.proberows.SwapProbeRow` as written to ``swap_probe.jsonl``:
        ``{"item_id", "pred", "truth", "score", "swapped_score", "swapped_outcome", "delta",
        "flip", "swapped_rationale", "swapped_cache_key", "swapped_member_cache_keys"}``,
        ``delta`` = score − swapped score, None when the swapped call failed; the last: the
        cache keys of a panel's or ``--repeats``' member calls of the swapped pair, whose own
        verdict has no key — what a bundle must carry to replay the probe) and
        :func:`judge.probes.stats.swap_summary` plus ``fraction``, ``seed``, ``sampled`` and
        ``failed`` (swapped verdicts by failure outcome).

    Raises:
        ValueError: ``fraction`` outside (0, 1].
    """
    forward = forward_scores(verdict_rows)
    chosen = sample_keys(list(forward), fraction, seed)
    by_item: dict[str | None, list[Key]] = {}
    for key in chosen:
        by_item.setdefault(key[0], []).append(key)
    rows: list[SwapProbeRow] = []
    done: list[tuple[float, float]] = []  # (score, swapped score) of the swapped calls that came
    failed: dict[str, int] = {}  # the others, by outcome
    for item_id, keys in by_item.items():
        ctx.item_id = item_id
        before = len(ctx.panel.member_verdicts)
        verdicts = await judge.judge_pairs([(t, p) for _, p, t in keys], ctx)
        members: dict[tuple[str, str], list[str]] = {}  # swapped (pred, truth) → member keys
        for m in ctx.panel.member_verdicts[before:]:
            if m.get("cache_key"):
                members.setdefault((m["pred"], m["truth"]), []).append(m["cache_key"])
        for (iid, p, t), v in zip(keys, verdicts, strict=True):
            s = forward[(iid, p, t)]
            ok = v is not None and v.outcome == "ok" and v.score is not None
            sw = float(v.score) if ok and v is not None and v.score is not None else None
            rows.append(SwapProbeRow(
                item_id=iid, pred=p, truth=t, score=s, swapped_score=sw,
                swapped_outcome="no_verdict" if v is None else v.outcome,
                delta=None if sw is None else s - sw,
                flip=None if sw is None else (s > tau) != (sw > tau),
                swapped_rationale="" if v is None else v.rationale,
                swapped_cache_key=None if v is None else v.cache_key,
                swapped_member_cache_keys=members.get((t, p), [])))
            if sw is not None:
                done.append((s, sw))
            else:
                failed[rows[-1].swapped_outcome] = failed.get(rows[-1].swapped_outcome, 0) + 1
    ctx.item_id = None
    summary = swap_summary([s for s, _ in done], [w for _, w in done], tau, n_boot, seed)
    return [r.to_row() for r in rows], {"fraction": fraction, "seed": seed,
                                        "sampled": len(rows), "of_pairs": len(forward),
                                        "failed": failed, **summary}
