"""Judge panels: several judges score every pair; a vote turns their scores into one.

Votes (DESIGN.md "Panel"):

* ``mean``, ``median``, ``min``, ``max``: of the members that returned ``ok``;
* ``majority`` (at τ): a pair matches when **more than half of all members** say score > τ —
  failed members stay in the denominator, so they count against a match. A match scores the
  mean of the "yes" voters' scores (> τ); a non-match scores min(mean of the ok scores, τ), which
  is never above τ. An exact tie (e.g. 2 yes of 4) is a non-match: the rule is a property of the
  counts, never of the order in which judges were listed ("宁可少说，不可说错").

Quorum: a pair is decided only when at least ``quorum`` members returned ``ok``; otherwise the
panel gives no verdict (NaN in the matrix, never matched, counted as undecided) while every
member's verdict stays in the audit trail.

A panel keeps no per-run state: the members' verdicts and the undecided count of a run are
recorded on the run's context (``ctx.panel``, a :class:`judge.judges.base.PanelState`), so one
panel object can judge any number of runs.

Agreement across members (on pairs every member scored): Krippendorff's α on the scores
(interval) and on match/no-match at τ (nominal), pairwise Pearson/Spearman and Cohen's κ at τ;
pairs on which members fall on both sides of τ are the ``disagreements``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, get_args

import numpy as np

from judge.judges.base import Judge, JudgeContext, Pair
from judge.numbers import finite_or_none
from judge.verdict import Verdict
from metrics import cohen_kappa, krippendorff_alpha, pearson, spearman

Vote = Literal["mean", "median", "majority", "min", "max"]
"""A panel's vote (see the module docstring)."""
VOTES: tuple[str, ...] = get_args(Vote)
METHOD = "panel@v1"


def vote(scores: Sequence[float | None], rule: str, tau: float) -> float:
    """Aggregate member scores (None = that member failed) with ``rule``.

    Raises:
        ValueError: unknown rule, or no member returned a score.
    """
    ok = [s for s in scores if s is not None]
    if not ok:
        raise ValueError("no member returned a score")
    if rule == "mean":
        return float(np.mean(ok))
    if rule == "median":
        return float(np.median(np.asarray(ok, dtype=np.float64)))
    if rule == "min":
        return float(min(ok))
    if rule == "max":
        return float(max(ok))
    if rule == "majority":
        yes = [s for s in ok if s > tau]
        if 2 * len(yes) > len(scores):  # strictly more than half of ALL members
            return float(np.mean(yes))
        return min(float(np.mean(ok)), tau)
    raise ValueError(f"vote: expected one of {VOTES}, got {rule!r}")


class Panel(Judge):
    """A judge made of several judges and a vote.

    Args:
        members: the judges (distinct ids).
        vote_rule: ``mean``, ``median``, ``majority``, ``min`` or ``max``.
        quorum: members that must return ``ok`` for a pair to be decided
            (1..len(members); default 1).
        tau: τ used by ``majority`` and by the agreement statistics.

    Raises:
        ValueError: fewer than two members, duplicate ids, unknown vote, bad quorum.
    """

    def __init__(self, members: Sequence[Judge], vote_rule: str = "mean", quorum: int = 1,
                 tau: float = 0.7) -> None:
        if len(members) < 2:
            raise ValueError("a panel needs at least two judges")
        ids = [m.id for m in members]
        if len(set(ids)) != len(ids):
            raise ValueError(f"panel members need distinct ids, got {ids}")
        if vote_rule not in VOTES:
            raise ValueError(f"vote: expected one of {VOTES}, got {vote_rule!r}")
        if not 1 <= quorum <= len(members):
            raise ValueError(f"quorum: expected 1..{len(members)}, got {quorum}")
        self.members = list(members)
        self.vote_rule = vote_rule
        self.quorum = quorum
        self.tau = tau
        self.id = f"panel:{vote_rule}({','.join(ids)})"
        self.item_scoped = any(getattr(m, "item_scoped", False) for m in members)

    def describe(self) -> dict[str, Any]:
        """Identity: vote, quorum, τ and every member's own description."""
        return {"id": self.id, "backend": "panel", "method": METHOD, "vote": self.vote_rule,
                "quorum": self.quorum, "tau": self.tau,
                "members": [m.describe() for m in self.members]}

    def work_units(self, pairs: Sequence[Pair]) -> int:
        """The members' units, summed."""
        return sum(m.work_units(pairs) for m in self.members)

    async def aclose(self) -> None:
        """Close every member (see :meth:`judge.judges.base.Judge.aclose`)."""
        for m in self.members:
            close = getattr(m, "aclose", None)
            if close is not None:
                await close()

    async def judge_pairs(self, pairs: Sequence[Pair], ctx: JudgeContext) -> list[Verdict | None]:
        """Ask every member (concurrently), return the votes; every member verdict and every
        undecided pair is recorded on ``ctx.panel``."""
        results = await asyncio.gather(*(m.judge_pairs(pairs, ctx) for m in self.members))
        state = ctx.panel
        out: list[Verdict | None] = []
        for k, (pred, truth) in enumerate(pairs):
            row = [r[k] for r in results]
            state.member_verdicts.extend({**v.model_dump(), "item_id": ctx.item_id,
                                          "member_of": self.id} for v in row if v is not None)
            scores = [v.score if (v is not None and v.outcome == "ok") else None for v in row]
            n_ok = sum(s is not None for s in scores)
            if n_ok < self.quorum:
                state.undecided += 1
                out.append(None)
                continue
            score = vote(scores, self.vote_rule, self.tau)
            parts = ", ".join(f"{m.id} {'–' if s is None else f'{s:.2f}'}"
                              for m, s in zip(self.members, scores, strict=True))
            out.append(Verdict(
                pred=pred, truth=truth, score=score, outcome="ok",
                rationale=f"{self.vote_rule} vote of {n_ok}/{len(self.members)} ok members "
                          f"({parts}) → {score:.2f}",
                raw=json.dumps({m.id: s for m, s in zip(self.members, scores, strict=True)}),
                judge_id=self.id, scorer=METHOD,
                tokens_in=sum(v.tokens_in for v in row if v is not None),
                tokens_out=sum(v.tokens_out for v in row if v is not None),
                cost_usd=sum(v.cost_usd for v in row if v is not None),
                cached=all(v is None or v.cached for v in row)))
        return out


def leaf_judges(judge: Judge | None) -> list[Judge]:
    """The judges that make calls: ``judge`` itself, or a panel's members (a repeated judge's
    samples), recursively, in order; [] for None."""
    if judge is None:
        return []
    if isinstance(judge, Panel):
        return [m for j in judge.members for m in leaf_judges(j)]
    return [judge]


def agreement(member_rows: Iterable[Mapping[str, Any]], member_ids: Sequence[str],
              tau: float) -> dict[str, Any]:
    """Inter-judge agreement from member verdict rows (see module docstring).

    Args:
        member_rows: verdict dicts with ``judge_id``, ``pred``, ``truth``, ``item_id``,
            ``outcome``, ``score``.
        member_ids: the panel's member ids, in order.
        tau: threshold for the match/no-match view.

    Returns:
        ``{"pairs_all_ok", "alpha_interval", "alpha_nominal", "pairwise": [...],
        "disagreements": [...]}``; statistics are None where undefined.
    """
    by_pair: dict[tuple[Any, str, str], dict[str, float]] = {}
    for r in member_rows:
        if r["outcome"] == "ok":
            by_pair.setdefault((r.get("item_id"), r["pred"], r["truth"]), {})[r["judge_id"]] = (
                r["score"])
    full = {k: v for k, v in by_pair.items() if all(j in v for j in member_ids)}
    keys = list(full)
    mat = np.array([[full[k][j] for k in keys] for j in member_ids], dtype=np.float64)

    out: dict[str, Any] = {"members": list(member_ids), "tau": tau, "pairs_all_ok": len(keys),
                           "alpha_interval": None, "alpha_nominal": None, "pairwise": []}
    if len(keys) >= 2:
        out["alpha_interval"] = finite_or_none(krippendorff_alpha(mat, "interval"))
        out["alpha_nominal"] = finite_or_none(
            krippendorff_alpha((mat > tau).astype(float), "nominal"))
        for a, b in itertools.combinations(range(len(member_ids)), 2):
            out["pairwise"].append({
                "a": member_ids[a], "b": member_ids[b],
                "pearson": finite_or_none(pearson(mat[a], mat[b])),
                "spearman": finite_or_none(spearman(mat[a], mat[b])),
                "kappa_at_tau": finite_or_none(
                    cohen_kappa(list(mat[a] > tau), list(mat[b] > tau))),
            })
    out["disagreements"] = [
        {"item_id": k[0], "pred": k[1], "truth": k[2], "scores": full[k]}
        for k in keys if len({full[k][j] > tau for j in member_ids}) > 1]
    return out
