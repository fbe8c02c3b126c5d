"""The function-call task's options (:class:`FunctionCallOptions`), in a module of their own
that imports only the standard library and :mod:`judge.tasks.options`, so the command line can
list them without loading the task. The BFCL options that come next belong here too."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

from judge.tasks.options import Interval

FcFormat = Literal["seed", "openai", "bfcl"]
"""Function-call input formats: seed 003's call lists, OpenAI ``tool_calls``, BFCL results."""


@dataclass(frozen=True)
class FunctionCallOptions:
    """Options of ``--task function-call``.

    Attributes:
        format: the input format (:data:`FcFormat`).
        functions: BFCL: the question file with the function schemas (required with
            ``format="bfcl"``, with ``--gold``).
        arg_judge: a judge spec for string argument equivalence (e.g. ``local``); None =
            exact equality of values.
        arg_tau: argument values match when the argument judge's score is > this, in [0, 1].
    """

    format: FcFormat = field(default="seed", metadata={
        "help": "function-call: seed, openai (tool_calls) or bfcl.",
        "what": "function-call format"})
    functions: Path | None = field(default=None, metadata={
        "help": "function-call --format bfcl: the question file with the function schemas."})
    arg_judge: str | None = field(default=None, metadata={
        "help": "function-call: judge spec for string argument equivalence (e.g. local)."})
    arg_tau: Annotated[float, Interval(ge=0.0, le=1.0)] = field(default=0.7, metadata={
        "help": "function-call: argument values match when the judge's score is > this."})
