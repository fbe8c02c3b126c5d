"""Options a task owns, and their validation.

Each task declares its own options (:attr:`judge.tasks.base.Task.Options`): a frozen
dataclass whose fields are the options' semantic names (``format``, ``arg_judge``, ``arg_tau``),
typed with ``Literal`` for closed sets and ``Annotated[float, Interval(...)]`` for ranges, and
described by ``metadata={"help": ...}``. The command line builds its flags from these fields
(:mod:`judge.cli.taskflags`: name ``arg_tau`` → ``--arg-tau``, help and choices from the field)
and the pipeline validates the values given with pydantic (:func:`task_options`), so the CLI and
the Python API accept exactly the same options. Stdlib dataclasses rather than pydantic models
keep ``simjudge --help`` from importing pydantic (~0.1 s, ``benchmarks/bench_startup.py``);
pydantic's ``TypeAdapter`` validates them fully.

The modules that define options import only the standard library and this module
(``annotated_types`` alone would add ~15 ms to every start).
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from typing import Any, TypeVar

from judge.errors import InputError, flag

T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class Interval:
    """``Annotated[float, Interval(ge=0.0, le=1.0)]``: the closed range of a numeric option,
    checked by :func:`task_options` with a message naming the flag.

    Attributes:
        ge, le: the lower and upper bounds (None = unbounded on that side).
    """

    ge: float | None = None
    le: float | None = None


@dataclasses.dataclass(frozen=True)
class NoOptions:
    """The options of a task that has none of its own."""


def option_fields(model: type) -> list[tuple[dataclasses.Field[Any], Any]]:
    """``(field, resolved type)`` of each option of ``model`` (``Annotated`` extras kept)."""
    hints = typing.get_type_hints(model, include_extras=True)
    return [(f, hints[f.name]) for f in dataclasses.fields(model)]


def choices(tp: Any) -> tuple[str, ...]:
    """The values of a ``Literal`` type (also inside ``Optional``/``Annotated``); () for other
    types."""
    if typing.get_origin(tp) is typing.Literal:
        return tuple(str(a) for a in typing.get_args(tp))
    for arg in typing.get_args(tp):
        found = choices(arg)
        if found:
            return found
    return ()


def _interval(tp: Any) -> tuple[float | None, float | None] | None:
    for meta in getattr(tp, "__metadata__", ()):
        if isinstance(meta, Interval):
            return meta.ge, meta.le
    return None


def task_options(model: type[T], values: Mapping[str, Any] | T | None, task: str,
                 owners: Mapping[str, list[str]] | None = None) -> T:
    """``values`` validated as the options ``model`` of task ``task``.

    Args:
        model: the task's options dataclass.
        values: ``{option name: value}`` (only the options given), an instance of ``model``
            (returned as it is), or None (the defaults).
        task: the task's name, for messages.
        owners: option name → the tasks that have it, for the message of an option this task
            does not take.

    Returns:
        An instance of ``model``.

    Raises:
        InputError: (field = the flag without ``--``) an option the task does not take
            ("--arg-judge is used by --task function-call only, not --task selection"), a value
            outside a closed set ("unknown function-call format 'xml'; expected one of seed,
            openai, bfcl"), a number outside its range ("--arg-tau must be in [0, 1], got
            1.5"), or a value of the wrong type.
    """
    from pydantic import TypeAdapter, ValidationError

    if isinstance(values, model):
        return values
    given: dict[str, Any] = dict(values or {})  # type: ignore[arg-type]
    known = {f.name: (f, tp) for f, tp in option_fields(model)}
    for name in given:
        if name not in known:
            who = " or ".join(f"--task {t}" for t in (owners or {}).get(name, [])) or "no task"
            raise InputError(f"{flag(name)} is used by {who} only, not --task {task}",
                             field=flag(name).removeprefix("--"))
    for name, value in given.items():  # ranges and closed sets, with their own messages
        f, tp = known[name]
        span = _interval(tp)
        if span is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
            lo, hi = span
            if not (value == value and (lo is None or value >= lo)  # NaN fails
                    and (hi is None or value <= hi)):
                low = "-inf" if lo is None else f"{lo:g}"
                high = "inf" if hi is None else f"{hi:g}"
                raise InputError(f"{flag(name)} must be in [{low}, {high}], got {value}",
                                 field=flag(name).removeprefix("--"))
        allowed = choices(tp)
        if allowed and value is not None and str(value) not in allowed:
            what = f.metadata.get("what", name)
            raise InputError(f"unknown {what} {value!r}; expected one of {', '.join(allowed)}",
                             field=flag(name).removeprefix("--"))
    try:
        return TypeAdapter(model).validate_python(given)
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        name = str(err["loc"][0]) if err["loc"] else ""
        raise InputError(f"{flag(name)}: {err['msg']}",
                         field=flag(name).removeprefix("--")) from None


def options_dict(options: Any) -> dict[str, Any]:
    """A task's options as JSON-ready values (paths as strings), for ``config.json``."""
    if not dataclasses.is_dataclass(options) or isinstance(options, type):
        return {}
    return {k: (str(v) if hasattr(v, "__fspath__") else v)
            for k, v in dataclasses.asdict(options).items()}
