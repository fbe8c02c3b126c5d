"""The drift canary's options (``calibrate --check CAL LABELS --rejudge N``), defined once and
added to ``calibrate`` by :func:`with_canary_flags` (the pattern of
:func:`judge.cli.options.with_judge_flags`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from judge.errors import InputError, flag

Rejudge = Annotated[int | None, typer.Option(
    help="--check: the drift canary. Judge N labelled pairs of the calibration again (a pinned "
    "subset stratified by label and stored verdict; needs LABELS) with the cache bypassed, and "
    "exit 1 when the scores shifted, ROC-AUC or κ at τ moved, or verdicts flipped "
    "significantly at --alpha, when the CUSUM over past checks signals, or when calls failed. "
    "Each check is appended to CAL's history (calibration.drift.jsonl). Costs N calls per "
    "judge (--dry-run prices them).")]
Alpha = Annotated[float, typer.Option(
    help="--rejudge: the significance level of the check's four tests together (each at "
    "alpha/4, Bonferroni).")]
FlipTolerance = Annotated[float, typer.Option(
    help="--rejudge: the least chance granted each pair of flipping its verdict at τ with the "
    "judge unchanged (beyond it, the chance its own noise gives it, measured in the check). A "
    "judge whose scores repeat exactly needs it: give its repeat probe's flip rate (eval "
    "--repeats 2).")]
History = Annotated[Path | None, typer.Option(
    help="--rejudge: the history file (JSON lines; default beside the calibration: "
    "calibration.drift.jsonl).")]
DryRun = Annotated[bool, typer.Option(
    help="--rejudge: price the calls (requests, tokens, USD) without making them; nothing "
    "written.")]
Json = Annotated[bool, typer.Option(
    "--json", help="--rejudge: print the checks' numbers as JSON on stdout (--dry-run: the "
    "estimate).")]

CANARY_FLAGS: dict[str, tuple[Any, Any]] = {
    "rejudge": (Rejudge, None), "alpha": (Alpha, 0.05), "flip_tolerance": (FlipTolerance, 0.01),
    "history": (History, None), "dry_run": (DryRun, False), "as_json": (Json, False),
}
"""The canary's flags: parameter name → (annotated type, default)."""


def with_canary_flags(command: Callable[..., None]) -> Callable[..., None]:
    """Give ``calibrate`` the flags of :data:`CANARY_FLAGS`: the command declares a parameter
    ``canary: dict[str, Any] | None`` and receives them collected in it, with its own ``seed``
    (the pinned subset's and the bootstrap's) and ``bootstrap`` (resamples)."""
    from judge.cli.options import with_flag_group

    return with_flag_group(command, "canary", CANARY_FLAGS, lambda flags, own: {
        **flags, "seed": own.get("seed", 0), "bootstrap": own.get("bootstrap", 1000)})


def given_flags(canary: Mapping[str, Any] | None) -> list[str]:
    """The canary flags set to other than their defaults, spelt as flags (``--rejudge``)."""
    return [flag("json" if k == "as_json" else k) for k, (_, default) in CANARY_FLAGS.items()
            if (canary or {}).get(k, default) != default]


def check_canary(canary: Mapping[str, Any], has_labels: bool, bootstrap: int) -> int | None:
    """The checked ``--rejudge`` N (None: no re-judging; then no other canary flag may be set).

    Raises:
        InputError: canary flags without ``--rejudge``; N < 1; no LABELS; ``--alpha`` outside
            (0, 1); ``--flip-tolerance`` outside [0, 1); ``--bootstrap`` below 100.
    """
    n = canary.get("rejudge")
    if n is None:
        extra = given_flags(canary)
        if extra:
            raise InputError(f"{', '.join(extra)} go with --check CAL LABELS --rejudge N",
                             field=extra[0].removeprefix("--"))
        return None
    if n < 1:
        raise InputError(f"expected a number of pairs >= 1, got {n}", field="rejudge")
    if not has_labels:
        raise InputError("--rejudge needs LABELS: the labels the calibration was made on "
                         "(their pairs are judged again)", field="rejudge")
    if not 0.0 < canary["alpha"] < 1.0:
        raise InputError(f"expected a level in (0, 1), got {canary['alpha']}", field="alpha")
    if not 0.0 <= canary["flip_tolerance"] < 1.0:
        raise InputError(f"expected a rate in [0, 1), got {canary['flip_tolerance']}",
                         field="flip-tolerance")
    if bootstrap < 100:
        raise InputError(f"--rejudge needs at least 100 bootstrap resamples, got {bootstrap}",
                         field="bootstrap")
    return int(n)
