"""The tasks' own options on the command line: one typer flag per field of each task's options
dataclass (:data:`judge.tasks.registry.TASK_OPTIONS`), spelt from the field's name
(``arg_tau`` → ``--arg-tau``; a short alias from the field's ``metadata["short"]``; given
once per value when ``metadata["repeat"]``), with the field's help and, for a closed set, its
choices. The values given (and only those) reach the pipeline as ``task_options``, where the
task's model validates them (:func:`judge.tasks.options.task_options`) — so an option of
another task is refused, not silently ignored."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from judge.tasks.options import choices, option_fields
from judge.tasks.registry import TASK_OPTIONS, options_model


def _cli_type(tp: Any) -> Any:
    """The type typer parses a flag as: a switch, a path, a number or a string (closed sets are
    parsed as strings and checked by the task's model, with its own message)."""
    text = str(tp)
    if "bool" in text:
        return bool
    if "Path" in text:
        return Path
    if "float" in text:
        return float
    if "int" in text and "Literal" not in text:
        return int
    return str


def task_flags() -> dict[str, Any]:
    """Option name → its annotated typer type (optional, with the field's help and choices),
    over every task with options, in registry order.

    Raises:
        TypeError: two tasks declare the same option name with different types.
    """
    flags: dict[str, Any] = {}
    kinds: dict[str, Any] = {}
    for task in TASK_OPTIONS:
        for f, tp in option_fields(options_model(task)):
            kind = _cli_type(tp)
            if kinds.setdefault(f.name, kind) is not kind:
                raise TypeError(f"option {f.name!r} has two types across tasks")
            if f.name in flags:
                continue
            allowed = choices(tp)
            help_ = str(f.metadata.get("help", ""))
            if allowed and not all(c in help_ for c in allowed):
                help_ += f" One of: {', '.join(allowed)}."
            names = ([f"--{f.name.replace('_', '-')}/--no-{f.name.replace('_', '-')}"]
                     if kind is bool else [])  # a switch: on, off, or unset (the default)
            if f.metadata.get("short"):  # a short alias (ranking's trec_eval letters)
                names = [*(names or [f"--{f.name.replace('_', '-')}"]), f.metadata["short"]]
            if f.metadata.get("repeat"):  # a flag given once per value
                kind = list[str]
            flags[f.name] = Annotated[kind | None, typer.Option(*names, help=help_)]
    return flags


def with_task_flags(command: Callable[..., None]) -> Callable[..., None]:
    """Give a typer command every task option's flag (see the module docstring).

    The command declares a last parameter ``task_flags: dict[str, Any]``; typer sees the
    individual flags (default unset), and the command receives the ones given, by option
    name, ready to be the pipeline's ``task_options``.
    """
    flags = task_flags()
    sig = inspect.signature(command, eval_str=True)
    own = [p for p in sig.parameters.values() if p.name != "task_flags"]
    extra = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None,
                               annotation=annotation)
             for name, annotation in flags.items()]

    @functools.wraps(command)
    def wrapper(**kwargs: Any) -> None:
        given = {name: v for name in flags if (v := kwargs.pop(name)) not in (None, [])}
        command(**kwargs, task_flags=given)

    wrapper.__signature__ = sig.replace(parameters=[*own, *extra])  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in [*own, *extra]}
    del wrapper.__wrapped__  # typer must read the signature above, not the command's
    return wrapper
