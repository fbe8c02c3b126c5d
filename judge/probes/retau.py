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
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from judge.errors import InputError
from judge.probes.stats import repeat_summary, swap_summary
from judge.record.proberows import RepeatProbeRow, SwapProbeRow

M = TypeVar("M", bound=BaseModel)

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

    Raises:
        InputError: a probe row that is not a valid :class:`SwapProbeRow` /
            :class:`RepeatProbeRow` (file, row and field named).
    """
    out: dict[str, Any] = {}
    swap = stored.get("swap")
    if swap is not None:
        rows = _typed(SwapProbeRow, extra, "swap_probe.jsonl")
        done = [(float(r.score), float(r.swapped_score)) for r in rows
                if r.swapped_score is not None and r.score is not None]
        out["swap"] = {**{k: swap[k] for k in _SWAP_KEEP if k in swap},
                       **swap_summary([s for s, _ in done], [w for _, w in done], tau, n_boot,
                                      seed)}
    rep = stored.get("repeat")
    if rep is not None:
        samples = [[float(x) for x in r.scores if x is not None]
                   for r in _typed(RepeatProbeRow, extra, "repeat_probe.jsonl")]
        out["repeat"] = {**{k: rep[k] for k in _REPEAT_KEEP if k in rep},
                         **repeat_summary(samples, tau, n_boot, seed)}
    return out


def _typed(model: type[M], extra: Mapping[str, Sequence[Mapping[str, Any]]], name: str,
           ) -> list[M]:
    """The rows of the run's extra file ``name`` as ``model``.

    Raises:
        InputError: a row that is not a valid ``model`` (the file, the row's number and the
            field named).
    """
    out = []
    for k, r in enumerate(extra.get(name, [])):
        try:
            out.append(model.model_validate(r))
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            field = ".".join(str(x) for x in err["loc"]) or None
            raise InputError(f"invalid run file: row {k + 1}: {err['msg']}", name,
                             field=field) from None
    return out
