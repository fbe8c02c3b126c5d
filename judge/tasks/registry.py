"""The task registry: ``--task NAME`` → :class:`judge.tasks.base.Task`.

Adding a task is one module under :mod:`judge.tasks` plus one line here.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from judge.errors import InputError

if TYPE_CHECKING:  # importing the registry stays light: the command line reads it at start
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

TASK_OPTIONS: dict[str, str] = {
    "function-call": "judge.tasks.fcoptions:FunctionCallOptions",
    "multilabel": "judge.tasks.mloptions:MultilabelOptions",
    "ranking": "judge.tasks.rankoptions:RankingOptions",
    "generation": "judge.tasks.genoptions:GenerationOptions",
}
"""Task name → ``module:class`` of its options (:attr:`judge.tasks.base.Task.Options`), for the
tasks that have options of their own: light modules, read by the command line to build its
flags without importing the tasks (``test_every_registered_task_module_exists`` checks that
each names its task's ``Options``)."""

_loaded: dict[str, Task] = {}


def task_names() -> tuple[str, ...]:
    """Every registered task name, in registry order."""
    return tuple(TASKS)


def options_model(name: str) -> type:
    """The options dataclass of task ``name`` (:class:`judge.tasks.options.NoOptions` for a
    task without options), imported without importing the task.

    Raises:
        InputError: an unknown task name.
    """
    from judge.tasks.options import NoOptions

    if name not in TASKS:
        raise InputError(f"unknown task {name!r}; expected one of: {', '.join(TASKS)}",
                         field="task")
    if name not in TASK_OPTIONS:
        return NoOptions
    module, _, cls = TASK_OPTIONS[name].partition(":")
    model: type = getattr(import_module(module), cls)
    return model


def option_owners() -> dict[str, list[str]]:
    """Option name → the tasks that take it, in registry order."""
    from judge.tasks.options import option_fields

    owners: dict[str, list[str]] = {}
    for name in TASK_OPTIONS:
        for f, _ in option_fields(options_model(name)):
            owners.setdefault(f.name, []).append(name)
    return owners


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
