"""Checks of command-line options that no library object validates on its own.

Run by ``simjudge eval``/``calibrate``/``rescore``/``compare`` before any data is read or any
judge is called; each failure is one :class:`judge.errors.InputError` line naming the option
(exit status 2). Judge settings (``--rpm``, ``--timeout``, ``--samples``…) are checked by
:class:`judge.judges.JudgeOptions` itself, so the Python API gets the same checks.
"""

from __future__ import annotations

import math

from judge.errors import InputError

WHY_NO_JUDGE = {
    "judgment": "its labels are compared exactly",
    "generation": "its metrics are lexical",
    "multilabel": "its labels are compared exactly",
    "ranking": "it scores a TREC run against qrels",
    "function-call": "calls are checked by BFCL's rules",
}
"""Why each task other than ``selection`` uses no similarity judge."""


def check_judge_use(task: str, judge_given: bool, judges_file_given: bool,
                    arg_judge_given: bool) -> None:
    """Refuse judge options that ``task`` would silently ignore.

    Args:
        task: the ``--task`` (already checked to be known).
        judge_given: ``--judge`` was given at least once.
        judges_file_given: ``--judges FILE`` was given.
        arg_judge_given: ``--arg-judge`` was given.

    Raises:
        InputError: ``--judge``/``--judges`` with a task other than ``selection`` (for function
            calls the message points to ``--arg-judge``), or ``--arg-judge`` with a task other
            than ``function-call``.
    """
    if task != "selection" and (judge_given or judges_file_given):
        flag = "--judge" if judge_given else "--judges"
        hint = ("; to judge string argument values use --arg-judge" if task == "function-call"
                else "")
        raise InputError(f"{flag} is not used by --task {task} ({WHY_NO_JUDGE[task]}){hint}",
                         field=flag.lstrip("-"))
    if arg_judge_given and task != "function-call":
        raise InputError(f"--arg-judge is used by --task function-call only, not --task {task}",
                         field="arg-judge")


def check_unit(name: str, value: float) -> None:
    """``value`` must be a number in [0, 1] (``--tau``, ``--arg-tau``).

    Raises:
        InputError: NaN or outside [0, 1].
    """
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise InputError(f"--{name} must be in [0, 1], got {value}", field=name)


def check_min(name: str, value: int | None, minimum: int, what: str = "") -> None:
    """``value`` (when given) must be an integer >= ``minimum`` (``--bootstrap`` >= 0,
    ``--quorum`` >= 1, ``--folds`` >= 2).

    Raises:
        InputError: below the minimum.
    """
    if value is not None and value < minimum:
        raise InputError(f"--{name} must be >= {minimum}{what}, got {value}", field=name)
