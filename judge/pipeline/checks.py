"""Checks of command-line options that no library object validates on its own.

Run by ``simjudge eval``/``calibrate``/``rescore``/``compare`` before any data is read or any
judge is called; each failure is one :class:`judge.errors.InputError` line naming the option
(exit status 2). Judge settings (``--rpm``, ``--timeout``, ``--samples``…) are checked by
:class:`judge.judges.options.JudgeOptions` itself, so the Python API gets the same checks.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from judge.cachemodes import CACHE_MODES
from judge.errors import InputError, flag

if TYPE_CHECKING:
    from judge.tasks.base import Task

def check_judge_use(task: Task, judge_given: bool, judges_file_given: bool,
                    arg_judge_given: bool) -> None:
    """Refuse judge options that ``task`` would silently ignore.

    Args:
        task: the ``--task``.
        judge_given: ``--judge`` was given at least once.
        judges_file_given: ``--judges FILE`` was given.
        arg_judge_given: ``--arg-judge`` was given.

    Raises:
        InputError: ``--judge``/``--judges`` with a task whose judge role is not ``judge``
            (with the task's reason; for function calls the message points to
            ``--arg-judge``), or ``--arg-judge`` with a task whose judge role it is not.
    """
    if task.judge_role != "judge" and (judge_given or judges_file_given):
        given = "judge" if judge_given else "judges"
        hint = (f"; to judge string argument values use {flag(task.judge_role)}"
                if task.judge_role else "")
        raise InputError(f"{flag(given)} is not used by --task {task.name} "
                         f"({task.no_judge_reason}){hint}", field=given)
    if arg_judge_given and task.judge_role != "arg_judge":
        raise InputError(f"--arg-judge is used by --task function-call only, not --task "
                         f"{task.name}", field="arg-judge")


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


def check_cache_mode(mode: str) -> None:
    """Raise :class:`InputError` for an unknown ``--cache-mode``."""
    if mode not in CACHE_MODES:
        raise InputError(f"unknown cache mode {mode!r}; expected one of "
                         f"{', '.join(CACHE_MODES)}", field="cache-mode")


def check_max_chars(max_chars: int) -> None:
    """Raise :class:`InputError` for a negative ``--max-chars``."""
    if max_chars < 0:
        raise InputError(f"--max-chars must be >= 0 (0 = no limit), got {max_chars}",
                         field="max-chars")


def parse_probe(values: list[str]) -> float:
    """The swap share of ``--probe`` values: ``swap`` (a seeded 10 % sample of the judged pairs),
    ``swap=FRACTION`` (FRACTION in (0, 1]; ``swap=1`` = every pair). Returns 0 when no probe is
    asked for.

    Raises:
        InputError: an unknown probe or a FRACTION that is not a number in (0, 1].
    """
    swap = 0.0
    for v in values:
        name, sep, arg = v.partition("=")
        if name.strip() != "swap":
            raise InputError(f"--probe: unknown probe {v!r}; expected swap or swap=FRACTION "
                             "(repeats: --repeats N)", field="probe")
        try:
            swap = float(arg) if sep else 0.1
        except ValueError:
            swap = math.nan
        if not 0.0 < swap <= 1.0:
            raise InputError(f"--probe swap=FRACTION takes a share in (0, 1], got {arg!r}",
                             field="probe")
    return swap
