"""The task registry: ``--task NAME`` → :class:`judge.tasks.base.Task`.

Adding a task is one module under :mod:`judge.tasks` plus one line here.
"""

from __future__ import annotations

from importlib import import_module

from judge.errors import InputError
from judge.tasks.base import Task

TASKS: dict[str, str] = {
    "selection": "judge.tasks.selection:SelectionTask",
    "judgment": "judge.tasks.judgment:JudgmentTask",
    "function-call": "judge.tasks.function_call:FunctionCallTask",
    "generation": "judge.tasks.generation:GenerationTask",
    "multilabel": "judge.tasks.multilabel:MultilabelTask",
    "ranking": "judge.tasks.ranking:RankingTask",
    "spans": "judge.tasks.spans:SpansTask",
}
"""Task name → ``module:class``, imported on first use (keeps ``simjudge --help`` fast)."""

_loaded: dict[str, Task] = {}


def task_names() -> tuple[str, ...]:
    """Every registered task name, in registry order."""
    return tuple(TASKS)


def get_task(name: str) -> Task:
    """The task registered as ``name`` (one shared instance per name).

    Raises:
        InputError: an unknown task name (the known ones listed), field ``task``.
    """
    if name not in TASKS:
        raise InputError(f"unknown task {name!r}; expected one of: {', '.join(TASKS)}",
                         field="task")
    if name not in _loaded:
        module, _, cls = TASKS[name].partition(":")
        _loaded[name] = getattr(import_module(module), cls)()
    return _loaded[name]
