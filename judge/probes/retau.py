"""The probe statistics of a stored run at another τ, from its probe rows (no judge call).

The flip rates of the swap and repeat probes depend on τ (a flip is a pair whose two
orientations, or whose samples, fall on both sides of it); |Δ| and SD do not. ``simjudge
rescore --tau`` recomputes both summaries from ``swap_probe.jsonl`` / ``repeat_probe.jsonl``
with the same functions the run used (:func:`judge.probes.stats.swap_summary`,
:func:`judge.probes.stats.repeat_summary`), so at the run's own τ, seed and resamples the result
equals the run's ``summary.probes``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from judge.probes.stats import repeat_summary, swap_summary

_SWAP_KEEP = ("fraction", "seed", "sampled", "of_pairs", "failed")
_REPEAT_KEEP = ("repeats", "failed_samples")


def probes_at(stored: Mapping[str, Any], extra: Mapping[str, Sequence[Mapping[str, Any]]],
              tau: float, n_boot: int = 1000, seed: int = 0) -> dict[str, Any]:
    """The run's probe summaries recomputed at ``tau``.

    Args:
        stored: the run's ``summary.probes`` (``{"swap": {...}, "repeat": {...}}``, either
            absent); its sampling fields (fraction, seed, sampled, of_pairs, failed, repeats,
            failed_samples) are kept.
        extra: the run's extra JSONL rows by file name (``swap_probe.jsonl`` rows carry
            ``score`` and ``swapped_score``; ``repeat_probe.jsonl`` rows carry ``scores``,
            None for a failed sample).
        tau: the threshold in [0, 1].
        n_boot, seed: bootstrap resamples (>= 0) and seed of the intervals.

    Returns:
        ``{"swap": ..., "repeat": ...}`` for the probes the run has (both keyed like
        ``summary.probes``, plus ``tau``); {} when it has none.
    """
    out: dict[str, Any] = {}
    swap = stored.get("swap")
    if swap is not None:
        done = [r for r in extra.get("swap_probe.jsonl", [])
                if r.get("swapped_score") is not None and r.get("score") is not None]
        out["swap"] = {**{k: swap[k] for k in _SWAP_KEEP if k in swap},
                       **swap_summary([float(r["score"]) for r in done],
                                      [float(r["swapped_score"]) for r in done], tau, n_boot,
                                      seed)}
    rep = stored.get("repeat")
    if rep is not None:
        samples = [[float(x) for x in r.get("scores") or [] if x is not None]
                   for r in extra.get("repeat_probe.jsonl", [])]
        out["repeat"] = {**{k: rep[k] for k in _REPEAT_KEEP if k in rep},
                         **repeat_summary(samples, tau, n_boot, seed)}
    return out
