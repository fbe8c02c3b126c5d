"""``simjudge rescore``: recompute matching and metrics from a run's stored verdicts.

No judge is called. For a single judge the stored similarity matrices are re-matched at the new
τ. For a panel the members' stored verdicts are voted again (the ``majority`` vote depends on τ;
``--vote``/``--quorum`` change the rule) and then matched. At the run's own τ and vote the
result equals the run's own numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from judge.errors import InputError
from judge.panel import VOTES, vote
from judge.rundir import StoredRun, stored_matrix
from judge.uncertainty import bootstrap_cis
from metrics import aggregate_fuzzy, fuzzy_match, normalize


def _panel_matrices(run: StoredRun, rule: str, quorum: int, tau: float) -> list[np.ndarray]:
    panel = run.config["judge"]
    members = [m["id"] for m in panel["members"]]
    member_of = panel["id"]
    scores: dict[tuple[Any, str, str, str], float | None] = {}
    for v in run.verdicts:
        if v.get("member_of") == member_of:
            scores[(v.get("item_id"), v["pred"], v["truth"], v["judge_id"])] = (
                v["score"] if v["outcome"] == "ok" else None)
    scoped = any(k[0] is not None for k in scores)
    out = []
    for row in run.items:
        pred, truth = row["pred"], row["truth"]
        m = np.full((len(pred), len(truth)), np.nan)
        for i, p in enumerate(pred):
            for j, t in enumerate(truth):
                if normalize(p) == normalize(t):
                    m[i, j] = 1.0
                    continue
                scope = row["id"] if scoped else None
                member_scores = [scores.get((scope, p, t, jid)) for jid in members]
                if sum(s is not None for s in member_scores) >= quorum:
                    m[i, j] = vote(member_scores, rule, tau)
        out.append(m)
    return out


def rescore(run: StoredRun, tau: float | None = None, rule: str | None = None,
            quorum: int | None = None, n_boot: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Metrics of a stored selection run at τ (and, for panels, another vote or quorum).

    Args:
        run: a stored selection run.
        tau: the threshold in [0, 1]; None = the run's own τ (``config.json``), which
            reproduces the run's metrics.
        rule, quorum: panel runs: another vote / quorum (None = the run's).
        n_boot, seed: bootstrap resamples and seed of the CIs.

    Returns:
        ``{"run", "tau", "tau_source" ("run" or "option"), "vote", "quorum",
        "judge_calls": 0, "metrics", "bootstrap", "items": [...]}``.

    Raises:
        InputError: not a selection run with stored scores, τ outside [0, 1], a vote/quorum
            for a run that is not a panel, an unknown vote or a bad quorum.
    """
    if run.task != "selection" or not run.items or "scores" not in run.items[0]:
        raise InputError("rescore needs a selection run written by simjudge eval "
                         "(items.jsonl with stored scores)", run.path)
    source = "option"
    if tau is None:
        tau, source = run.config.get("tau"), "run"
        if not isinstance(tau, (int, float)) or isinstance(tau, bool):
            raise InputError(f"config.json has no numeric tau ({tau!r}): give --tau",
                             run.path, field="tau")
        tau = float(tau)
    if not 0.0 <= tau <= 1.0:
        raise InputError(f"tau must be in [0, 1], got {tau}", field="tau")
    judge = run.config.get("judge") or {}
    is_panel = judge.get("backend") == "panel"
    if not is_panel and (rule is not None or quorum is not None):
        raise InputError("--vote and --quorum apply to panel runs only", run.path, field="vote")
    if is_panel:
        rule = rule or judge["vote"]
        quorum = judge["quorum"] if quorum is None else quorum
        if rule not in VOTES:
            raise InputError(f"unknown vote {rule!r}; expected one of {', '.join(VOTES)}",
                             field="vote")
        if not 1 <= quorum <= len(judge["members"]):
            raise InputError(f"quorum must be 1..{len(judge['members'])}", field="quorum")
        matrices = _panel_matrices(run, rule, quorum, tau)
    else:
        matrices = [stored_matrix(row) for row in run.items]
    zd = float(run.config.get("zero_division", 0.0))
    results = [fuzzy_match(row["pred"], row["truth"], m, tau=tau, zero_division=zd)
               for row, m in zip(run.items, matrices, strict=True)]
    items = [{"id": row["id"], **r.to_dict()} for row, r in zip(run.items, results, strict=True)]
    return {"run": str(run.path), "tau": tau, "tau_source": source, "vote": rule,
            "quorum": quorum, "judge_calls": 0,
            "metrics": {"tau": tau, **aggregate_fuzzy(results, zero_division=zd).to_dict()},
            "bootstrap": bootstrap_cis("selection", items, n_boot, seed), "items": items}
