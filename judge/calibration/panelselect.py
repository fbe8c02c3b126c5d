"""``leaderboard --select-panel BUDGET``: from the judges the leaderboard scored, the panel
that buys the most agreement with the human labels per dollar.

A panel here is a subset of **at least 3** of the scored judges (the ``humans`` row and a
``--panel`` row excluded; the ``lexical`` reference included) voting by **majority** of the
members' verdicts, each member at its own calibrated τ (its leaderboard row's; a judge
without a τ cannot vote) — a tie, possible with an even number of members, is negative, as the
labels' own majority rule. Two members are no panel: their majority is "both say yes". The
vote needs no new judge call: it is computed from the scores the leaderboard already has, on
the pairs every member scored.

Each panel's **κ** is Cohen's κ of its vote against the human labels, and its **cost** the sum
of its members' prices in USD per 1,000 pairs, estimated as ``--dry-run`` estimates every
command's (:func:`judge.pipeline.dryrun.judge_rows`: the prompts' tokens, every call made
afresh, at the price table's rate — never the cache's $0 of a rerun); judges that make no
call (lexical, local, table) cost 0. An LLM judge without a price in the table cannot be
costed and is left out (the report names it).

The search is exhaustive over the subsets (at most :data:`MAX_JUDGES` judges: 2¹² subsets);
among the panels within BUDGET with κ > 0 the one with the highest κ per USD is chosen (a free
panel ranks above any paid one; ties: higher κ, then fewer members). Beside it the report gives
the panel with the highest κ within BUDGET, its 95 % bootstrap CI of κ (pairs resampled), and
Kish's n_eff of its members' errors (:mod:`metrics.independence`, as ``--panel`` reports).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from judge.calibration.labels import LabelSet
from judge.errors import InputError
from judge.judges.base import Judge
from judge.numbers import finite_or_none
from metrics import (
    Confusion,
    bootstrap_indices,
    effective_judges,
    error_phi,
    kappa_from_counts,
    mean_error_phi,
    percentile_ci,
)

MAX_JUDGES = 12
"""Most candidate judges for the exhaustive search (2¹² = 4,096 subsets)."""
MIN_MEMBERS = 3
"""Fewest members of a selected panel (module docstring: why not 2)."""


@dataclass(frozen=True)
class Candidate:
    """One scored judge that may sit on a panel.

    Attributes:
        judge_id: its id; scores: its score per labelled pair (NaN: not scored);
        tau: its calibrated τ; usd_per_1k: its estimated price per 1,000 pairs.
    """

    judge_id: str
    scores: np.ndarray
    tau: float
    usd_per_1k: float


def check_select_panel(budget: float | None, judges: int) -> None:
    """Refuse a bad ``--select-panel`` before any judge call.

    Args:
        budget: USD per 1,000 pairs (None: no selection); judges: how many will be scored,
            ``lexical`` included.

    Raises:
        InputError: a negative or non-finite budget; fewer than :data:`MIN_MEMBERS` or more
            than :data:`MAX_JUDGES` judges.
    """
    if budget is None:
        return
    if not math.isfinite(budget) or budget < 0:
        raise InputError(f"--select-panel must be a budget in USD per 1,000 pairs >= 0, got "
                         f"{budget}", field="select-panel")
    if judges < MIN_MEMBERS:
        raise InputError(f"--select-panel picks a panel of >= {MIN_MEMBERS} judges from those "
                         f"scored; {judges} would be scored (lexical included): add --judge",
                         field="select-panel")
    if judges > MAX_JUDGES:
        raise InputError(f"--select-panel searches every subset of at most {MAX_JUDGES} judges "
                         f"({2 ** MAX_JUDGES:,} panels); {judges} would be scored: give fewer "
                         "--judge", field="select-panel")


def usd_per_1k(judge: Judge, labels: LabelSet) -> float | None:
    """The estimated USD of judging 1,000 of these pairs afresh (None: an unpriced LLM)."""
    from judge.pipeline.dryrun import judge_rows, usd_total

    pairs = [(p.pred, p.truth) for p in labels.pairs]
    total = usd_total(judge_rows(judge, [("", pairs)], None))
    return None if total is None else total / len(pairs) * 1000


def _votes(members: Sequence[Candidate]) -> tuple[np.ndarray, np.ndarray]:
    """``(mask of the pairs every member scored, the majority vote on all pairs)``."""
    scores = np.vstack([m.scores for m in members])
    said = scores > np.array([m.tau for m in members])[:, None]
    return ~np.isnan(scores).any(axis=0), said.sum(axis=0) * 2 > len(members)


def _kappa(vote: np.ndarray, truth: np.ndarray) -> float:
    return kappa_from_counts(*Confusion.at(vote.astype(np.float64), truth, 0.5))


def _report(members: Sequence[Candidate], truth: np.ndarray, n_boot: int,
            seed: int) -> dict[str, Any]:
    """The κ (with its bootstrap CI), cost and n_eff of one panel."""
    mask, vote = _votes(members)
    v, y = vote[mask], truth[mask]
    kappa = _kappa(v, y)
    lo = hi = math.nan
    if n_boot > 0 and v.size >= 2:
        lo, hi = percentile_ci([_kappa(v[i], y[i]) for i in bootstrap_indices(v.size, n_boot,
                                                                               seed)])
    errors = np.vstack([(m.scores[mask] > m.tau) != y for m in members])
    rho = mean_error_phi(error_phi(errors)) if v.size else math.nan
    cost = sum(m.usd_per_1k for m in members)
    return {"members": [m.judge_id for m in members], "pairs": int(v.size),
            "kappa": finite_or_none(kappa), "kappa_ci95": [finite_or_none(lo),
                                                           finite_or_none(hi)],
            "usd_per_1k": cost, "kappa_per_usd": None if cost == 0 else kappa / cost,
            "mean_error_phi": finite_or_none(rho),
            "n_eff": None if math.isnan(rho) else effective_judges(len(members), max(rho, 0.0))}


def select_panel(candidates: Sequence[Candidate], labels: LabelSet, budget: float, n_boot: int,
                 seed: int, unpriced: Sequence[str] = ()) -> dict[str, Any]:
    """The panel with the most κ per USD within ``budget`` (module docstring).

    Args:
        candidates: the priced judges with a τ (at most :data:`MAX_JUDGES`).
        labels: the labelled pairs they scored (``candidates[i].scores`` in their order).
        budget: USD per 1,000 pairs, >= 0.
        n_boot: bootstrap resamples for κ's 95 % CI (0: none); seed: their seed.
        unpriced: judges left out for want of a price or a τ (reported).

    Returns:
        ``{"budget_usd_per_1k", "vote", "candidates", "unpriced", "panels_within_budget",
        "chosen", "highest_kappa", "note"}``; ``chosen`` and ``highest_kappa`` are
        ``{"members", "pairs", "kappa", "kappa_ci95", "usd_per_1k", "kappa_per_usd",
        "mean_error_phi", "n_eff"}`` or None (then ``note`` says why).

    Raises:
        InputError: more than :data:`MAX_JUDGES` candidates.
    """
    if len(candidates) > MAX_JUDGES:
        raise InputError(f"--select-panel searches at most {MAX_JUDGES} judges, got "
                         f"{len(candidates)}", field="select-panel")
    truth = np.array([p.positive for p in labels.pairs], dtype=bool)
    scored: list[tuple[float, float, int, tuple[Candidate, ...]]] = []
    within = 0
    for k in range(MIN_MEMBERS, len(candidates) + 1):
        for members in itertools.combinations(candidates, k):
            cost = sum(m.usd_per_1k for m in members)
            if cost > budget:
                continue
            within += 1
            mask, vote = _votes(members)
            kappa = _kappa(vote[mask], truth[mask]) if mask.any() else math.nan
            if kappa > 0:
                scored.append((math.inf if cost == 0 else kappa / cost, kappa, -k, members))
    out: dict[str, Any] = {
        "budget_usd_per_1k": budget,
        "vote": f"majority of the members' verdicts at their own τ (a tie is negative); "
                f">= {MIN_MEMBERS} members",
        "candidates": [c.judge_id for c in candidates], "unpriced": list(unpriced),
        "panels_within_budget": within, "chosen": None, "highest_kappa": None, "note": None}
    if not scored:
        out["note"] = (f"no panel of >= {MIN_MEMBERS} of the {len(candidates)} priced judges "
                       f"costs <= ${budget:g} per 1,000 pairs and agrees with the labels "
                       "beyond chance (κ > 0)" if within else
                       f"no panel of >= {MIN_MEMBERS} of the {len(candidates)} priced judges "
                       f"costs <= ${budget:g} per 1,000 pairs")
        return out
    best = max(scored, key=lambda s: s[:3])
    top = max(scored, key=lambda s: (s[1], s[2], s[0]))  # κ, then fewer members, cheaper
    out["chosen"] = _report(best[3], truth, n_boot, seed)
    out["highest_kappa"] = _report(top[3], truth, n_boot, seed)
    return out


def leaderboard_selection(labels: LabelSet, judges: Sequence[Judge],
                          rows: Sequence[dict[str, Any]], scores: Sequence[np.ndarray],
                          budget: float, n_boot: int, seed: int) -> dict[str, Any]:
    """:func:`select_panel` over one leaderboard table's judge rows (a ``--panel`` row and
    the judges without a τ or a price left out)."""
    candidates, unpriced = [], []
    for judge, row, s in zip(judges, rows, scores, strict=True):
        if judge.describe().get("members"):
            continue  # the --panel row: a panel, not a member
        price = usd_per_1k(judge, labels)
        if row.get("tau") is None or price is None:
            unpriced.append(judge.id)
        else:
            candidates.append(Candidate(judge.id, s, float(row["tau"]), price))
    return select_panel(candidates, labels, budget, n_boot, seed, unpriced)


def select_panel_note(report: dict[str, Any]) -> str:
    """One line for the leaderboard's notes."""
    head = f"select-panel (<= ${report['budget_usd_per_1k']:g} per 1,000 pairs, majority vote)"
    if report.get("chosen") is None:
        return f"{head}: {report['note']}"

    def one(p: dict[str, Any]) -> str:
        lo, hi = p["kappa_ci95"]
        ci = "" if lo is None or hi is None else f" [{lo:.3f}, {hi:.3f}]"
        n_eff = "–" if p["n_eff"] is None else f"{p['n_eff']:.2f}"
        return (f"{' + '.join(p['members'])}: κ {p['kappa']:.3f}{ci}, "
                f"${p['usd_per_1k']:.4f}/1k, n_eff {n_eff}")

    text = f"{head}: most κ per USD {one(report['chosen'])}"
    if report["highest_kappa"]["members"] != report["chosen"]["members"]:
        text += f"; highest κ within budget {one(report['highest_kappa'])}"
    if report["unpriced"]:
        text += f"; left out (no price or no τ): {', '.join(report['unpriced'])}"
    return text
