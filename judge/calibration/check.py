"""``simjudge calibrate --check``: is a ``calibration.json`` still valid for these judges?

For each judge, built with the same options as ``calibrate`` and ``eval`` (no judge is called,
no model loaded: only its settings are read), the check fails when

* **stale**: its calibration identity (:func:`judge.judges.identity.judge_identity`) differs from
  the one recorded, or none was recorded (an older simjudge) — what ``eval --tau-from`` refuses;
* **no τ**: the calibration chose no τ for it (what ``eval --tau-from`` refuses too), or it is
  not in the calibration at all;
* **low κ**: with a ``min_kappa`` gate, Cohen's κ at the calibrated τ (``at_tau.kappa``, the
  labelled pairs' agreement with the judge at τ; population-weighted for a ``--pool``
  calibration) is below it, or undefined;
* **labels changed**: given the labels, their sha256 or pair count differs from those the
  calibration was made on (``labels_source``; a calibration written before it was recorded:
  the file-level ``labels``).

Usable as a CI gate: ``simjudge calibrate --check`` exits 1 when any judge fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge.calibration.labels import LabelSet
from judge.errors import InputError
from judge.judges.base import Judge
from judge.judges.identity import Difference, judge_identity, show
from judge.pipeline.taufile import read_calibration, stale_differences, stale_message


@dataclass
class JudgeCheck:
    """The check of one judge.

    Attributes:
        judge_id: the judge.
        problems: what fails, in order: ``not calibrated``, ``stale``, ``no τ``, ``low κ``,
            ``labels changed`` (empty: the calibration is valid for it).
        reasons: one clause per problem, or what was checked when there is none.
        differences: the differing identity fields (stale).
        tau, kappa: the calibrated τ and Cohen's κ at τ (None when undefined).
    """

    judge_id: str
    problems: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    tau: float | None = None
    kappa: float | None = None

    @property
    def ok(self) -> bool:
        """True when nothing fails."""
        return not self.problems

    def line(self) -> str:
        """``ID: OK: …`` or ``ID: stale, low κ: …`` (the reasons joined by ``; ``)."""
        return f"{self.judge_id}: {'OK' if self.ok else ', '.join(self.problems)}: " \
               f"{'; '.join(self.reasons)}"


def _kappa(kappa: float | None) -> str:
    return "undefined" if kappa is None else f"{kappa:.3f}"


def _labels_reason(entry: dict[str, Any], data: dict[str, Any],
                   labels: LabelSet) -> tuple[bool, str]:
    """(changed?, what was compared) between the labels read now and the calibration's."""
    source = entry.get("labels_source")
    if not isinstance(source, dict):  # written before labels_source: the file-level record
        top = data.get("labels")
        top = top if isinstance(top, dict) else {}
        source = {"sha256": top.get("sha256"), "count": top.get("pairs")}
    was_sha, was_n = source.get("sha256"), source.get("count")
    now_sha, now_n = labels.sha256, len(labels.pairs)
    if was_sha == now_sha and was_n == now_n:
        return False, f"labels unchanged ({now_n} pairs, sha256 {show(now_sha)})"
    return True, (f"labels changed: calibrated on {show(was_n)} pairs (sha256 {show(was_sha)}), "
                  f"{labels.path} has {now_n} (sha256 {show(now_sha)})")


def check_judge(data: dict[str, Any], path: Path, judge: Judge, context: str = "",
                min_kappa: float | None = None, labels: LabelSet | None = None) -> JudgeCheck:
    """Check one judge against a parsed calibration (see the module docstring).

    Args:
        data: the calibration (:func:`judge.pipeline.taufile.read_calibration`).
        path: its file, for messages.
        judge: the judge as ``eval`` would build it.
        context: the task context its prompts get (``--context``).
        min_kappa: the κ gate in [-1, 1], or None for none.
        labels: the labels to compare with the calibration's, or None.

    Raises:
        InputError: a malformed recorded identity.
    """
    out = JudgeCheck(judge.id)
    entry = data["judges"].get(judge.id)
    if not isinstance(entry, dict):
        out.problems.append("not calibrated")
        out.reasons.append(f"no calibration for it in {path} (calibrated: "
                           f"{', '.join(data['judges']) or 'none'})")
        return out
    out.differences = stale_differences(entry, path, judge.id, judge_identity(judge, context))
    if out.differences:
        out.problems.append("stale")
        out.reasons.append(stale_message(out.differences))
    tau = entry.get("tau")
    kappa = (entry.get("at_tau") or {}).get("kappa") if tau is not None else None
    out.tau = float(tau) if isinstance(tau, (int, float)) else None
    out.kappa = float(kappa) if isinstance(kappa, (int, float)) else None
    if out.tau is None:
        out.problems.append("no τ")
        out.reasons.append(f"no τ was chosen: {entry.get('note', 'no threshold')}")
    elif min_kappa is not None and (out.kappa is None or out.kappa < min_kappa):
        out.problems.append("low κ")
        out.reasons.append(f"Cohen's κ at τ {out.tau:.4g} is {_kappa(out.kappa)}, below "
                           f"--min-kappa {min_kappa:g}")
    if labels is not None:
        changed, reason = _labels_reason(entry, data, labels)
        if changed:
            out.problems.append("labels changed")
            out.reasons.append(reason)
    if out.ok:
        out.reasons.insert(0, "identity matches")
        if out.tau is not None:
            gate = "" if min_kappa is None else f" (>= {min_kappa:g})"
            out.reasons.insert(1, f"τ {out.tau:.4g}, Cohen's κ at τ {_kappa(out.kappa)}{gate}")
        if labels is not None:
            out.reasons.append(_labels_reason(entry, data, labels)[1])
    return out


def check_calibration(path: Path, judges: Sequence[Judge], context: str = "",
                      min_kappa: float | None = None,
                      labels: LabelSet | None = None) -> list[JudgeCheck]:
    """Check every judge of ``judges`` against the calibration file ``path``.

    Args:
        path: a ``calibration.json``.
        judges: the judges, built as ``eval`` builds them (no call is made).
        context, min_kappa, labels: as :func:`check_judge`.

    Returns:
        One :class:`JudgeCheck` per judge, in order.

    Raises:
        InputError: an unreadable or malformed calibration, ``min_kappa`` outside [-1, 1].
    """
    if min_kappa is not None and not -1.0 <= min_kappa <= 1.0:  # NaN included
        raise InputError(f"expected a Cohen's κ in [-1, 1], got {min_kappa}", field="min-kappa")
    data = read_calibration(path)
    return [check_judge(data, path, j, context, min_kappa, labels) for j in judges]


def calibrated_ids(path: Path) -> list[str]:
    """The ids of the judges ``path`` calibrated (the judges ``--check`` checks when none is
    given).

    Raises:
        InputError: an unreadable or malformed calibration.
    """
    return list(read_calibration(path)["judges"])
