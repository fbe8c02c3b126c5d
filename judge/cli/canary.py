"""``simjudge calibrate --check CAL LABELS --rejudge N``: the drift canary's command-line face
(the checks: :mod:`judge.calibration.canary`; the statistics: :mod:`judge.calibration.drift`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, NoReturn

import typer

from judge.cli.common import fail, fail_storage, progress
from judge.errors import InputError


def run_canary(path: Path, judges: Sequence[Any], labels: Any, context: str, n: int,
               canary: Mapping[str, Any]) -> NoReturn:
    """Re-judge, compare, print one line per judge (or ``--json``), then exit.

    Args:
        path: the calibration file.
        judges: the judges as ``calibrate`` builds them.
        labels: the :class:`judge.calibration.labels.LabelSet` it was made on.
        context: the prompts' task context.
        n: pairs to re-judge per judge (checked, ≥ 1).
        canary: the canary flags (:data:`judge.cli.canaryopts.CANARY_FLAGS`) and ``seed``,
            ``bootstrap``.

    Raises:
        typer.Exit: 0 when every judge passes; 1 when one drifted, its CUSUM signals, calls
            failed, it fails the ordinary check, or the history could not be written; 2 on
            bad input (one line).
    """
    from judge.calibration.canary import estimate, rejudge
    from judge.judges.keys import keys_optional
    from judge.pipeline.taufile import read_calibration

    try:
        data = read_calibration(path)
        if canary["dry_run"]:
            with keys_optional():
                result = estimate(data, path, judges, labels, n, canary["seed"], context)
            _print_estimate(result, canary["as_json"])
            raise typer.Exit(0)
        with progress(enabled=not canary["as_json"]) as factory:
            checks = rejudge(path, data, judges, labels, n, context, canary["alpha"],
                             canary["flip_tolerance"], canary["seed"], canary["bootstrap"],
                             canary["history"], factory)
    except InputError as exc:
        fail(exc)
    except OSError as exc:  # the history file could not be written
        fail_storage(exc)
    failed = [c.judge_id for c in checks if not c.ok]
    if canary["as_json"]:
        typer.echo(json.dumps([{**c.record(""), "line": c.line(), "pairs": c.pairs,
                                "drift": asdict(c.drift) if c.drift else None}
                               for c in checks], ensure_ascii=False, indent=2))
    else:
        for c in checks:
            typer.echo(c.line())
        typer.echo(f"{path}: " + (f"{len(failed)} of {len(checks)} judge(s) moved or could "
                                  "not be checked" if failed else
                                  f"no drift for {len(checks)} judge(s)"))
    raise typer.Exit(1 if failed else 0)


def _print_estimate(result: dict[str, Any], as_json: bool) -> None:
    """The ``--dry-run`` estimate: JSON, or ``eval --dry-run``'s table and the judges that
    would not be re-judged."""
    if as_json:
        typer.echo(json.dumps(result, ensure_ascii=False, indent=2))
        return
    from judge.cli.common import out, say
    from judge.display import dry_run_summary, print_all

    print_all(out, dry_run_summary(result))
    for jid, why in result["skipped"].items():
        say(f"{jid}: not re-judged ({why})")
