"""Reading τ back from a ``calibration.json`` written by ``simjudge calibrate`` (``eval
--tau-from``), refused when the calibration was made with another judge (a stale calibration:
:mod:`judge.judges.identity`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judge.errors import InputError
from judge.io import file_sha256
from judge.judges.identity import MISSING, Difference, identity_differences


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


def read_calibration(path: Path) -> dict[str, Any]:
    """The parsed ``calibration.json``: an object with a ``judges`` object.

    Raises:
        InputError: an unreadable file, not JSON, or no ``judges`` object (field named).
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read calibration file: {exc}", path) from None
    if not isinstance(data, dict) or not isinstance(data.get("judges"), dict):
        raise InputError("not a calibration written by simjudge calibrate (no 'judges' object)",
                         path, field="judges")
    return data


def calibrated_entry(data: dict[str, Any], path: Path, judge_id: str) -> dict[str, Any]:
    """The calibration of ``judge_id`` in a :func:`read_calibration` result.

    Raises:
        InputError: no entry for ``judge_id`` (the calibrated ids listed), or one that is not
            an object.
    """
    judges = data["judges"]
    if judge_id not in judges:
        raise InputError(f"no calibration for judge {judge_id!r} (calibrated: "
                         f"{', '.join(judges) or 'none'})", path, field="judges")
    entry = judges[judge_id]
    if not isinstance(entry, dict):
        raise InputError("expected an object", path, field=f"judges.{judge_id}")
    return entry


def stale_differences(entry: dict[str, Any], path: Path, judge_id: str,
                      identity: dict[str, Any]) -> list[Difference]:
    """How the judge a calibration was made with differs from this one.

    Args:
        entry: the judge's calibration (:func:`calibrated_entry`).
        path: the file, for messages.
        judge_id: the judge's id.
        identity: this judge's :func:`judge.judges.identity.judge_identity` (with ``repeats``
            when ``eval --repeats N`` averages N samples: a recorded identity without it
            scored 1).

    Returns:
        Every differing field (:func:`judge.judges.identity.identity_differences`), or the one
        difference ``judges.ID.identity`` (calibrated :data:`~judge.judges.identity.MISSING`)
        when the calibration recorded no identity (written by an older simjudge); [] when the
        calibration is this judge's.

    Raises:
        InputError: a recorded identity that is not an object.
    """
    where = f"judges.{judge_id}.identity"
    recorded = entry.get("identity", MISSING)
    if recorded is MISSING:
        return [Difference(where, MISSING, identity)]
    if not isinstance(recorded, dict):
        raise InputError("expected an object", path, field=where)
    if "repeats" in identity and "repeats" not in recorded:  # a judge calibrated on 1 sample
        recorded = {**recorded, "repeats": 1}
    return identity_differences(recorded, identity, where)


def stale_message(differences: list[Difference]) -> str:
    """What is stale, one clause per differing field: ``field 'judges.local.identity.method':
    calibrated usem3-cosine@v1, this judge usem3-cosine@v2; …``; a calibration without an
    identity is said to come from an older simjudge."""
    if len(differences) == 1 and differences[0].calibrated is MISSING \
            and differences[0].field.endswith(".identity"):
        return (f"field '{differences[0].field}': not recorded: this calibration was written "
                "by an older simjudge, which did not record the judge it was made with, so it "
                "cannot be matched to this judge")
    return "; ".join(d.describe() for d in differences)


def tau_from_calibration(path: Path, judge_id: str, identity: dict[str, Any],
                         allow_stale: bool = False) -> tuple[float, dict[str, Any]]:
    """The τ calibrated for ``judge_id`` in ``path``, and its provenance for ``config.json``.

    The calibration must have been made with this very judge: its recorded identity
    (:func:`judge.judges.identity.judge_identity`) must equal ``identity`` field for field.

    Args:
        path: a ``calibration.json`` (``{"objective", "judges": {id: {"tau", "identity", …}}}``).
        judge_id: the judge whose τ to use (its spec string or judges-file id).
        identity: the judge's own identity.
        allow_stale: use the τ of a stale calibration (another identity, or none recorded)
            anyway; the provenance then says so.

    Returns:
        ``(tau in [0, 1], {"path", "sha256", "judge", "tau", "objective", "stale",
        "differences"})``: ``stale`` True when the identities differ (only with
        ``allow_stale``), ``differences`` one ``{"field", "calibrated", "current"}`` per
        differing field, ``stale_message`` the text of :func:`stale_message` (stale only).

    Raises:
        InputError: an unreadable or malformed file; no entry for ``judge_id`` (the calibrated
            ids listed); a stale calibration without ``allow_stale`` (each differing field
            named with both values); an undefined τ (the calibration's note quoted); τ outside
            [0, 1].
    """
    data = read_calibration(path)
    entry = calibrated_entry(data, path, judge_id)
    differences = stale_differences(entry, path, judge_id, identity)
    if differences and not allow_stale:
        raise InputError(f"{stale_message(differences)}; τ was calibrated for another judge: "
                         "recalibrate with this one, or pass --allow-stale-calibration "
                         "(Python: allow_stale_calibration=True) to use it anyway", path)
    tau = entry.get("tau")
    if tau is None:
        raise InputError(f"τ is undefined for judge {judge_id!r}: "
                         f"{entry.get('note', 'no threshold was chosen')}", path,
                         field="tau")
    if not isinstance(tau, (int, float)) or isinstance(tau, bool) or not 0.0 <= tau <= 1.0:
        raise InputError(f"calibrated tau {tau!r} is not in [0, 1]", path, field="tau")
    provenance: dict[str, Any] = {
        "path": str(path), "sha256": file_sha256(path), "judge": judge_id, "tau": float(tau),
        "objective": data.get("objective"), "stale": bool(differences),
        "differences": [d.to_row() for d in differences]}
    if differences:
        provenance["stale_message"] = stale_message(differences)
    return float(tau), provenance
