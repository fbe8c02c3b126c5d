"""``simjudge compare``: several runs over the same data, side by side.

* every dataset metric of each run, and the difference of each run from the first (B − A) with
  a paired bootstrap 95 % interval (resampling items, the same indices for both runs);
* per judge (every judge id in each run's verdicts, panel members included): verdicts, outcomes,
  parse-error rate, cache hits, tokens, USD and latency p50/p95 of the calls made;
* for tasks matched at τ (:attr:`judge.tasks.base.Task.uses_tau`), agreement between the runs'
  top-level verdicts on the pairs both scored: Pearson, Spearman, Cohen's κ at each run's τ, and
  Krippendorff's α (interval).

The dataset metrics and their paired bootstrap come from the task's
:meth:`~judge.tasks.base.Task.metrics_from_rows`, the function behind the runs' own numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from judge.errors import InputError
from judge.numbers import finite_or_none
from judge.pipeline.uncertainty import paired_bootstrap
from judge.record.runrecord import RunRecord, VerdictRow
from metrics import cohen_kappa, krippendorff_alpha, pearson, spearman


def judge_operations(run: RunRecord) -> dict[str, dict[str, Any]]:
    """Per judge id: verdicts, outcomes, parse-error rate in [0, 1], cache hits, tokens, USD and
    latency p50/p95 in seconds of the calls made (None without a timed call)."""
    out: dict[str, dict[str, Any]] = {}
    groups: dict[str, list[VerdictRow]] = {}
    for v in run.verdicts:
        groups.setdefault(v.judge_id, []).append(v)
    for jid, vs in groups.items():
        outcomes: dict[str, int] = {}
        for v in vs:
            outcomes[v.outcome] = outcomes.get(v.outcome, 0) + 1
        lat = [v.get("latency_s") for v in vs if not v.get("cached") and v.get("latency_s")]
        out[jid] = {
            "verdicts": len(vs), "outcomes": outcomes,
            "parse_error_rate": outcomes.get("parse_error", 0) / len(vs),
            "cached": sum(1 for v in vs if v.get("cached")),
            "tokens_in": sum(v.get("tokens_in", 0) or 0 for v in vs),
            "tokens_out": sum(v.get("tokens_out", 0) or 0 for v in vs),
            "cost_usd": round(sum(v.get("cost_usd", 0.0) or 0.0 for v in vs), 6),
            "latency_p50_s": finite_or_none(float(np.percentile(lat, 50))) if lat else None,
            "latency_p95_s": finite_or_none(float(np.percentile(lat, 95))) if lat else None,
        }
    return out


def _top_scores(run: RunRecord) -> dict[tuple[str, str], float]:
    jid = run.judge_id
    return {(v.pred, v.truth): v.score for v in run.verdicts
            if v.judge_id == jid and v.outcome == "ok" and v.member_of is None
            and v.score is not None}


def _tau(run: RunRecord) -> float:
    return float(run.config.tau) if run.config.tau is not None else 0.7


def run_agreement(a: RunRecord, b: RunRecord) -> dict[str, Any]:
    """Agreement of two runs' top-level verdicts on the (pred, truth) pairs both scored ``ok``.

    Returns:
        ``{"shared_pairs", "pearson", "spearman", "kappa_at_tau" (each run's verdicts
        thresholded at its own τ, 0.7 when the run has none), "alpha_interval"}``; the
        statistics are None with fewer than two shared pairs or when undefined.
    """
    sa, sb = _top_scores(a), _top_scores(b)
    shared = sorted(set(sa) & set(sb))
    out: dict[str, Any] = {"shared_pairs": len(shared), "pearson": None, "spearman": None,
                           "kappa_at_tau": None, "alpha_interval": None}
    if len(shared) >= 2:
        x = np.array([sa[k] for k in shared])
        y = np.array([sb[k] for k in shared])
        ta, tb = _tau(a), _tau(b)
        out.update({"pearson": finite_or_none(pearson(x, y)),
                    "spearman": finite_or_none(spearman(x, y)),
                    "kappa_at_tau": finite_or_none(cohen_kappa(list(x > ta), list(y > tb))),
                    "alpha_interval": finite_or_none(krippendorff_alpha(np.vstack([x, y])))})
    return out


def compare_runs(runs: Sequence[RunRecord], n_boot: int = 1000, seed: int = 0,
                 ) -> dict[str, Any]:
    """Compare runs over the same items (see module docstring).

    Args:
        runs: two or more runs of one task over the same item ids (any order).
        n_boot, seed: paired bootstrap resamples (>= 0) and seed.

    Returns:
        ``{"task", "items", "bootstrap", "runs": [...], "differences": [{"a", "b",
        "metrics": {metric: {"a", "b", "diff", "ci95"}}}], "agreement": [...]}``.

    Raises:
        InputError: fewer than two runs, different tasks, item ids that differ (the first
            missing id named), an unknown task, or a row that is not a valid row of it.
    """
    from judge.tasks.registry import get_task

    if len(runs) < 2:
        raise InputError("compare needs at least two runs")
    task = runs[0].task
    base = runs[0]
    ids = [r.id for r in base.items]
    for run in runs[1:]:
        if run.task != task:
            raise InputError(f"task {run.task!r} differs from {task!r} of {base.path}", run.path)
        other = {r.id for r in run.items}
        missing = [i for i in ids if i not in other]
        extra = sorted(other - set(ids))
        if missing or extra:
            which = f"item {missing[0]!r} is missing" if missing else f"extra item {extra[0]!r}"
            raise InputError(f"runs are not over the same data: {which}", run.path)
    typed = get_task(task)
    scoring = typed.scoring(base.config.task_options)
    for run in runs[1:]:
        if typed.scoring(run.config.task_options) != scoring:
            raise InputError(f"the runs score their items differently: the task options "
                             f"in {run.path}/config.json differ from {base.path}'s (for "
                             "multilabel: another label space)", run.path)
    metric_fn = scoring.metrics_from_rows
    by_id = [{r.id: r for r in typed.rows(run)} for run in runs]
    aligned = [[rows[i] for i in ids] for rows in by_id]
    labels = [f"{_name(run)} ({run.judge_id or run.task})" for run in runs]
    diffs = [paired_bootstrap(metric_fn, aligned[0], aligned[k], n_boot, seed,
                              resample=scoring.resampled) for k in range(1, len(runs))]
    return {
        "task": task, "items": len(ids), "bootstrap": {"resamples": n_boot, "seed": seed},
        "runs": [{"label": lab, "path": str(run.path), "judge": run.judge_id,
                  "tau": run.config.tau, "judge_calls": run.summary.judge_calls,
                  "cache_hits": run.summary.cache_hits, "tokens_in": run.summary.tokens_in,
                  "tokens_out": run.summary.tokens_out, "cost_usd": run.summary.cost_usd,
                  "wall_s": run.summary.wall_s,
                  "judges": judge_operations(run)} for lab, run in zip(labels, runs, strict=True)],
        "differences": [{"a": labels[0], "b": labels[k + 1], "metrics": d}
                        for k, d in enumerate(diffs)],
        "agreement": [{"a": labels[0], "b": labels[k], **run_agreement(runs[0], runs[k])}
                      for k in range(1, len(runs)) if get_task(task).uses_tau],
    }


def _name(run: RunRecord) -> str:
    return run.path.name if run.path is not None else "run"


def to_markdown(result: dict[str, Any]) -> str:
    """The comparison as Markdown tables, rounded as the terminal shows it (metrics to 4
    decimals, differences and CIs to 3, signed; undefined statistics as ``–``)."""
    from judge.display import interval, num

    runs = result["runs"]
    lines = [f"# simjudge compare — {result['task']}, {result['items']} items", "",
             "| metric | " + " | ".join(r["label"] for r in runs) + " | "
             + " | ".join(f"Δ {d['b']} − A [95% CI]" for d in result["differences"]) + " |",
             "|---" * (1 + len(runs) + len(result["differences"])) + "|"]
    for metric in result["differences"][0]["metrics"]:
        first = result["differences"][0]["metrics"][metric]
        vals = [first["a"]] + [d["metrics"][metric]["b"] for d in result["differences"]]
        cells = [num(v) for v in vals]
        for d in result["differences"]:
            m = d["metrics"][metric]
            cells.append(f"{num(m['diff'], 3, signed=True)} "
                         f"{interval(m.get('ci95'), 3, signed=True)}".rstrip())
        lines.append(f"| {metric} | " + " | ".join(cells) + " |")
    lines += ["", "| run | judge | verdicts | outcomes | parse-error rate | cached | tokens | "
              "USD | latency p50 / p95 (s) |", "|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        for jid, j in r["judges"].items():
            outcomes = ", ".join(f"{k} {v}" for k, v in j["outcomes"].items())
            lines.append(f"| {r['label']} | {jid} | {j['verdicts']} | {outcomes} | "
                         f"{num(j['parse_error_rate'], 3)} | {j['cached']} | "
                         f"{j['tokens_in'] + j['tokens_out']} | {num(j['cost_usd'], 4)} | "
                         f"{num(j['latency_p50_s'], 3)} / {num(j['latency_p95_s'], 3)} |")
    if result["agreement"]:
        lines += ["", "| runs | shared pairs | Pearson | Spearman | κ at τ | α |",
                  "|---|---|---|---|---|---|"]
        for a in result["agreement"]:
            lines.append(f"| {a['a']} vs {a['b']} | {a['shared_pairs']} | "
                         f"{num(a['pearson'], 3)} | {num(a['spearman'], 3)} | "
                         f"{num(a['kappa_at_tau'], 3)} | {num(a['alpha_interval'], 3)} |")
    return "\n".join(lines) + "\n"
