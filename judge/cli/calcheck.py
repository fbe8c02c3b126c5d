"""``simjudge calibrate --check calibration.json``: is a calibration still valid for the judges,
as a CI gate (the checks: :mod:`judge.calibration.check`). It builds the judges from the same
flags as ``calibrate`` and ``eval`` but calls none, and writes nothing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

import typer

from judge.cli.common import fail
from judge.errors import InputError, flag


def check_options(labels: Path | None, min_kappa: float | None,
                  canary: Mapping[str, Any] | None = None) -> Path:
    """The labels file of a calibration (not a ``--check``).

    Raises:
        InputError: no LABELS; ``--min-kappa`` or a drift canary flag (``--rejudge``…),
            which go with ``--check`` only.
    """
    from judge.cli.canaryopts import given_flags

    if labels is None:
        raise InputError("give the labels file (LABELS), or --check calibration.json",
                         field="labels")
    if min_kappa is not None:
        raise InputError("--min-kappa gates --check calibration.json", field="min-kappa")
    extra = given_flags(canary)
    if extra:
        raise InputError(f"{', '.join(extra)} go with --check calibration.json",
                         field=extra[0].removeprefix("--"))
    return labels


def run_check(path: Path, labels: Path | None, judge: Sequence[str] | None,
              judges_file: Path | None, judge_flags: Mapping[str, Any] | None, context: str,
              min_kappa: float | None, label_args: tuple[Any, ...],
              given: Mapping[str, Any], canary: Mapping[str, Any] | None = None) -> NoReturn:
    """Check ``path`` for the judges and print one line per judge, then exit.

    Args:
        path: the ``calibration.json`` to check.
        labels: the labels file to compare with the calibration's (None: not compared).
        judge, judges_file, judge_flags, context: the judges as ``calibrate`` takes them; no
            ``--judge``: every judge the calibration holds, rebuilt from its id (a spec, or an
            id of ``--judges``).
        min_kappa: the κ gate (None: none).
        label_args: ``(pred_field, truth_field, label_field, positive_threshold, where,
            max_chars)`` for reading ``labels``.
        given: options that calibrate and cannot go with ``--check`` (``out``, ``pool``,
            ``suggest``, ``run``), by name.
        canary: the drift canary's flags (:mod:`judge.cli.canaryopts`) with ``seed`` and
            ``bootstrap``: with ``rejudge`` set, the check re-judges pairs
            (:func:`judge.cli.canary.run_canary`) instead.

    Raises:
        typer.Exit: 0 when every judge passes, 1 when one fails (stale, no τ, low κ, labels
            changed, not calibrated), 2 on bad input (one line, as every command).
    """
    from judge.calibration.check import calibrated_ids, check_calibration
    from judge.calibration.labels import load_labels
    from judge.cli.canaryopts import check_canary
    from judge.cli.options import judge_options
    from judge.judges.judgesfile import build_judges
    from judge.judges.keys import keys_optional

    try:
        extra = [flag(name) for name, value in given.items() if value]
        if extra:
            raise InputError(f"--check only checks a calibration (no judge call, nothing "
                             f"written): drop {', '.join(extra)}", field="check")
        opts = dict(canary or {})
        rejudge = check_canary(opts, labels is not None, opts.get("bootstrap", 1000))
        if rejudge is not None and min_kappa is not None:
            raise InputError("--min-kappa gates --check without --rejudge", field="min-kappa")
        specs = list(judge or []) or calibrated_ids(path)
        with keys_optional(bool(opts.get("dry_run"))):  # a dry run calls nothing
            judges = build_judges(specs, judges_file, judge_options(**dict(judge_flags or {})))
        pred, truth, label, threshold, where, max_chars = label_args
        label_set = None if labels is None else load_labels(
            labels, pred, truth, label, threshold, where or [], max_chars=max_chars)
        if rejudge is None:
            checks = check_calibration(path, judges, context, min_kappa, label_set)
    except InputError as exc:
        fail(exc)
    if rejudge is not None:
        from judge.cli.canary import run_canary

        run_canary(path, judges, label_set, context, rejudge, opts)
    for c in checks:  # one unwrapped line each, for CI logs
        typer.echo(c.line())
    failed = [c.judge_id for c in checks if not c.ok]
    typer.echo(f"{path}: " + (f"{len(failed)} of {len(checks)} judge(s) fail the check"
                              if failed else f"valid for {len(checks)} judge(s)"))
    raise typer.Exit(1 if failed else 0)
