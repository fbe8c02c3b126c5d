"""How many independent judges a panel is worth, measured on the user's own labels
(``leaderboard --panel``; issue 38).

For a panel row of the leaderboard, from the member verdicts the panel recorded while scoring
the labelled pairs, on the pairs **every** member scored (``ok``): each member's verdict at its
own calibrated τ (its leaderboard row's; the panel's τ for a member without a row) and its
error indicator against the human label; each pair of members' error φ, their mean φ̄ and
Kish's effective number of independent judges (:mod:`metrics.independence`) with φ̄ taken as 0
when negative — members whose errors avoid each other are worth at most k, not more; and each
member's Cohen's κ at its τ beside the panel's κ at the panel's τ (is the panel better than its
best member?).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from judge.calibration.labels import LabelledPair, LabelSet
from judge.errors import InputError
from judge.judges.base import Judge
from judge.numbers import finite_or_none
from metrics import cohen_kappa, effective_judges, error_phi, mean_error_phi

VOTES = ("mean", "median", "min", "max")
"""The votes of a ``leaderboard --panel`` (``majority`` needs a τ before the panel is scored)."""
SOURCE = ("error φ: Pearson correlation of 0/1 error indicators (= sklearn matthews_corrcoef); "
          "n_eff = k / (1 + (k - 1) max(mean φ, 0)), Kish 1965, Survey Sampling §5.4")


def panel_independence(member_verdicts: Sequence[Mapping[str, Any]], labels: LabelSet,
                       taus: Mapping[str, float | None], tau: float,
                       panel_kappa: float | None) -> dict[str, Any] | None:
    """The independence report of one panel (module docstring).

    Args:
        member_verdicts: the panel's member verdict rows (``judge_id``, ``pred``, ``truth``,
            ``score``, ``outcome``), as :class:`judge.calibration.scoring.JudgeScores` keeps.
        labels: the labelled pairs the panel scored.
        taus: judge id → its own calibrated τ (a member says "same" when its score > its τ);
            a member missing here, or with None, uses ``tau``.
        tau: the panel's τ.
        panel_kappa: the panel's κ at its τ (reported beside the members').

    Returns:
        None with fewer than 2 members; else ``{"members": [ids], "pairs": n (every member
        scored them), "member_tau": {id: τ}, "member_kappa": {id: κ or None}, "best_member",
        "best_member_kappa", "panel_kappa", "error_phi": {"a | b": φ or None},
        "mean_error_phi", "n_eff", "source"}`` — φ None where a member's errors are
        constant, ``n_eff`` None when no φ is defined or no pair was scored by all.
    """
    scores: dict[str, dict[tuple[str, str], float]] = {}
    for v in member_verdicts:
        judge_id = str(v.get("judge_id"))
        got = scores.setdefault(judge_id, {})
        if v.get("outcome") == "ok" and v.get("score") is not None:
            got[(str(v.get("pred")), str(v.get("truth")))] = float(v["score"])
    members = sorted(scores)
    if len(members) < 2:
        return None
    pairs = [p for p in labels.pairs if all((p.pred, p.truth) in scores[m] for m in members)]
    truth = np.array([p.positive for p in pairs], dtype=bool)
    cut = {m: tau if taus.get(m) is None else float(taus[m] or 0.0) for m in members}
    said = np.array([[scores[m][(p.pred, p.truth)] > cut[m] for p in pairs] for m in members],
                    dtype=bool).reshape(len(members), len(pairs))
    kappas = {m: (finite_or_none(cohen_kappa(list(truth), list(said[i]))) if pairs else None)
              for i, m in enumerate(members)}
    phi = error_phi(said != truth[None, :]) if pairs else np.full((len(members),) * 2, math.nan)
    rho = mean_error_phi(phi)
    best = max((m for m in members if kappas[m] is not None), key=lambda m: kappas[m] or 0.0,
               default=None)
    return {"members": members, "pairs": len(pairs), "member_tau": cut, "member_kappa": kappas,
            "best_member": best, "best_member_kappa": kappas.get(best) if best else None,
            "panel_kappa": panel_kappa,
            "error_phi": {f"{a} | {b}": finite_or_none(float(phi[i, j]))
                          for i, a in enumerate(members) for j, b in enumerate(members) if i < j},
            "mean_error_phi": finite_or_none(rho),
            "n_eff": finite_or_none(effective_judges(len(members), max(rho, 0.0))
                                    if not math.isnan(rho) else math.nan),
            "source": SOURCE}


def eval_panel(verdict_rows: Iterable[Mapping[str, Any]], overrides: Any, panel_id: str,
               tau: float) -> dict[str, Any] | None:
    """The report of :func:`panel_independence` for a panel run of ``simjudge eval
    --overrides``: the human labels are the overrides (a pair is positive when its reviewers'
    mean scaled label is > τ, the overrides' own rule), every member votes at the run's τ,
    and the panel's κ is that of its own verdicts at τ (kept beside the human row of an
    overridden pair as ``judge_score``) on the labelled pairs it scored.

    Args:
        verdict_rows: the run's ``verdicts.jsonl`` rows (members' carry ``member_of``).
        overrides: the run's :class:`judge.tasks.overrides.HumanOverrides`.
        panel_id: the panel's judge id; tau: the run's τ.

    Returns:
        :func:`panel_independence`'s dict plus ``labelled_pairs``, or None when no pair is
        labelled or the panel has fewer than two members.
    """
    members, panel = [], {}
    for v in verdict_rows:
        if v.get("member_of") == panel_id:
            members.append(v)
        elif v.get("member_of") is None:
            human = v.get("source") == "human"
            score = v.get("judge_score") if human else v.get("score")
            outcome = v.get("judge_outcome") if human else v.get("outcome")
            if (human or v.get("judge_id") == panel_id) and outcome == "ok" and score is not None:
                panel[(str(v.get("pred")), str(v.get("truth")))] = float(score)
    seen: dict[tuple[str, str], LabelledPair] = {}
    for (iid, pred, truth), h in overrides.pairs.items():
        seen.setdefault((pred, truth), LabelledPair(pred, truth, h.score, h.score > tau,
                                                    tuple(h.labels), h.where, iid))
    if not seen:
        return None
    labels = LabelSet(list(seen.values()), False, None, None, "overrides", "", len(seen))
    truth_said = [(p.positive, panel[(p.pred, p.truth)] > tau) for p in labels.pairs
                  if (p.pred, p.truth) in panel]
    kappa = (finite_or_none(cohen_kappa([t for t, _ in truth_said], [s for _, s in truth_said]))
             if truth_said else None)
    report = panel_independence(members, labels, {}, tau, kappa)
    return None if report is None else {**report, "labelled_pairs": len(seen)}


def leaderboard_panel(judges: Sequence[Judge], vote: str) -> Judge:
    """The panel of ``judges`` with ``vote`` (``leaderboard --panel``), checked before any call.

    Raises:
        InputError: fewer than two judges, or a vote not in :data:`VOTES`.
    """
    from judge.judges.panel import Panel

    if vote not in VOTES:
        raise InputError(f"expected one of {', '.join(VOTES)}, got {vote!r}", field="panel")
    if len(judges) < 2:
        raise InputError("a panel needs at least two --judge", field="panel")
    return Panel(list(judges), vote)


def panel_note(report: Mapping[str, Any]) -> str:
    """One line for the leaderboard's notes: what the panel is worth in independent judges."""
    k = len(report["members"])
    if report.get("n_eff") is None:
        return (f"panel of {k}: error correlation undefined on {report['pairs']} pairs every "
                "member scored (a member erred on all or none)")
    best = report.get("best_member")
    vs = "" if best is None else (
        f"; panel κ {_num(report.get('panel_kappa'))} vs its best member {best}'s "
        f"{_num(report.get('best_member_kappa'))}")
    return (f"panel of {k} worth {report['n_eff']:.2f} independent judges (mean error φ "
            f"{report['mean_error_phi']:.3f} over {report['pairs']} pairs every member "
            f"scored; Kish){vs}")


def _num(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"
