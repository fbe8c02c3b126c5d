"""One-line summaries of the judge probes and of ``--score-mode logprob``, as ``simjudge eval``
prints them under its metrics table (and the audit report's header shows them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from judge.record.rows import RunSummary


def _n(x: Any, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _ci(ci: Sequence[Any] | None, digits: int = 3) -> str:
    if not ci or ci[0] is None:
        return ""
    return f" [{_n(ci[0], digits)}, {_n(ci[1], digits)}]"


def probe_lines(summary: RunSummary | Mapping[str, Any]) -> list[str]:
    """Lines for the summary's ``probes`` (swap, repeat) and ``logprobs`` entries (a
    :class:`~judge.record.rows.RunSummary` or a summary object: ``simjudge rescore``'s result);
    [] when the run has neither.

    Example line: ``swap probe (15 of 15 pairs, seed 0): flip rate at τ 0.267 [0.109, 0.520]
    · mean |Δ| 0.400 [0.400, 0.400] · p95 |Δ| 0.400 · mean Δ (pred,truth − truth,pred)
    -0.400 [-0.400, -0.400] — asymmetric pairs: swap_probe.jsonl``.
    """
    lines: list[str] = []
    probes: Mapping[str, Any] = summary.get("probes") or {}
    swap = probes.get("swap")
    if swap:
        failed = sum((swap.get("failed") or {}).values())
        lines.append(
            f"swap probe ({swap.get('sampled')} of {swap.get('of_pairs')} pairs, seed "
            f"{swap.get('seed')}): flip rate at τ {_n(swap.get('flip_rate'))}"
            f"{_ci(swap.get('flip_rate_ci95'))} · mean |Δ| {_n(swap.get('mean_abs_delta'))}"
            f"{_ci(swap.get('mean_abs_delta_ci95'))} · p95 |Δ| {_n(swap.get('p95_abs_delta'))}"
            f" · mean Δ (pred,truth − truth,pred) {_n(swap.get('mean_delta'))}"
            f"{_ci(swap.get('mean_delta_ci95'))}"
            + (f" · {failed} swapped call(s) failed" if failed else "")
            + " — asymmetric pairs: swap_probe.jsonl")
    rep = probes.get("repeat")
    if rep:
        lines.append(
            f"repeat probe ({rep.get('repeats')} samples × {rep.get('pairs')} pairs): flip "
            f"rate at τ {_n(rep.get('flip_rate'))}{_ci(rep.get('flip_rate_ci95'))} · mean SD "
            f"{_n(rep.get('mean_sd'))}{_ci(rep.get('mean_sd_ci95'))} · p95 SD "
            f"{_n(rep.get('p95_sd'))}"
            + (f" · {rep.get('failed_samples')} sample(s) failed"
               if rep.get("failed_samples") else "")
            + " — unstable pairs: repeat_probe.jsonl")
    lp = summary.get("logprobs")
    if lp:
        line = (f"logprob scores: {lp.get('with_distribution')} of {lp.get('verdicts')} "
                "verdicts from a grade distribution")
        if lp.get("fallback"):
            line += (f"; {lp['fallback']} fell back to the sampled grade (the server sent no "
                     "logprobs)")
        lines.append(line)
    return lines
