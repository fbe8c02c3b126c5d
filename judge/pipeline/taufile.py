"""Reading τ back from a ``calibration.json`` written by ``simjudge calibrate`` (``eval
--tau-from``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judge.errors import InputError
from judge.io import file_sha256


def tau_samples(path: Path, judge_id: str) -> list[float] | None:
    """The bootstrap τ̂ values ``simjudge calibrate`` recorded for ``judge_id``
    (``judges[id].bootstrap.tau_samples``; one per resample whose labels held both classes),
    for τ-aware metric intervals (:func:`judge.pipeline.uncertainty.joint_tau_cis`).

    Args:
        path: a ``calibration.json`` already read by :func:`tau_from_calibration`.
        judge_id: the calibrated judge's id.

    Returns:
        The values, or None when the file has none (``--bootstrap 0``, an older simjudge).

    Raises:
        InputError: the samples are not a list of numbers in [0, 1] (field named).
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        got = data["judges"][judge_id].get("bootstrap", {}).get("tau_samples")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError,
            AttributeError):
        return None
    if got is None:
        return None
    if not isinstance(got, list) or not all(
            isinstance(t, (int, float)) and not isinstance(t, bool) and 0.0 <= t <= 1.0
            for t in got):
        raise InputError("tau_samples must be a list of numbers in [0, 1]", path,
                         field=f"judges.{judge_id}.bootstrap.tau_samples")
    return [float(t) for t in got] or None


def tau_from_calibration(path: Path, judge_id: str) -> tuple[float, dict[str, Any]]:
    """The τ calibrated for ``judge_id`` in ``path``, and its provenance for ``config.json``.

    Args:
        path: a ``calibration.json`` (``{"objective", "judges": {id: {"tau", …}}}``).
        judge_id: the judge whose τ to use (its spec string or judges-file id).

    Returns:
        ``(tau in [0, 1], {"path", "sha256", "judge", "tau", "objective"})``.

    Raises:
        InputError: an unreadable or malformed file; no entry for ``judge_id`` (the calibrated
            ids listed); an undefined τ (the calibration's note quoted); τ outside [0, 1].
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read calibration file: {exc}", path) from None
    judges = data.get("judges") if isinstance(data, dict) else None
    if not isinstance(judges, dict) or judge_id not in judges:
        known = ", ".join(judges) if isinstance(judges, dict) else "none"
        raise InputError(f"no calibration for judge {judge_id!r} (calibrated: {known})", path,
                         field="judges")
    tau = judges[judge_id].get("tau")
    if tau is None:
        raise InputError(f"τ is undefined for judge {judge_id!r}: "
                         f"{judges[judge_id].get('note', 'no threshold was chosen')}", path,
                         field="tau")
    if not isinstance(tau, (int, float)) or isinstance(tau, bool) or not 0.0 <= tau <= 1.0:
        raise InputError(f"calibrated tau {tau!r} is not in [0, 1]", path, field="tau")
    return float(tau), {"path": str(path), "sha256": file_sha256(path), "judge": judge_id,
                        "tau": float(tau), "objective": data.get("objective")}
