"""A run's scoring parameters (:class:`Params`): τ, zero division, the judges' context, the
task's own options and the human overrides — what :meth:`judge.tasks.base.Task.score` and
:meth:`~judge.tasks.base.Task.judge` are given besides the items, validated once here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judge.errors import InputError

if TYPE_CHECKING:
    from judge.tasks.overrides import HumanOverrides

__all__ = ["Params"]


@dataclass(frozen=True)
class Params:
    """Scoring parameters of a run.

    Attributes:
        tau: matching threshold τ in [0, 1]: a judged pair matches when its score is strictly
            greater (seed 001's rule; ``selection`` and ``spans``).
        zero_division: value of an undefined ratio (0/0): 0.0, 1.0 or NaN (as scikit-learn's
            ``zero_division``).
        context: task context handed to prompt judges (e.g. ``"IFPUG ILF names"``).
        options: the task's own options (an instance of its :attr:`Task.Options`, validated by
            :func:`judge.tasks.options.task_options`); None = the task's defaults.
        overrides: human labels that take precedence over the judge for the pairs they cover
            (:mod:`judge.tasks.overrides`; tasks with :meth:`Task.pair_groups`); None = none.
    """

    tau: float = 0.7
    zero_division: float = 0.0
    context: str = ""
    options: Any = None
    overrides: HumanOverrides | None = None

    def __post_init__(self) -> None:
        """Raises :class:`InputError` for τ outside [0, 1]."""
        for name in ("tau",):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not 0.0 <= v <= 1.0:
                raise InputError(f"{name} must be in [0, 1], got {v!r}",
                                 field=name.replace("_", "-"))
