"""The function-call task's options (:class:`FunctionCallOptions`), in a module of their own
that imports only the standard library and :mod:`judge.tasks.options`, so the command line can
list them without loading the task. The BFCL options that come next belong here too."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol

from judge.tasks.options import Interval

FcFormat = Literal["seed", "openai", "bfcl"]
"""Function-call input formats: seed 003's call lists, OpenAI ``tool_calls``, BFCL results."""
FcMatching = Literal["official", "optimal"]
"""How several calls are matched (:data:`metrics.fc_check.MATCHINGS`)."""


class Recorded(Protocol):
    """A run's recorded configuration (:class:`judge.record.config.RunConfig`, or a dict)."""

    def get(self, key: str, default: Any = None, /) -> Any:
        """The value recorded under ``key``, else ``default``."""


@dataclass(frozen=True)
class FunctionCallOptions:
    """Options of ``--task function-call``.

    Attributes:
        format: the input format (:data:`FcFormat`).
        functions: BFCL: the question file with the function schemas (required with
            ``format="bfcl"``, with ``--gold``), or BFCL's data folder for a result folder.
        arg_judge: a judge spec for string argument equivalence (e.g. ``local``); None =
            exact equality of values.
        arg_tau: argument values match when the argument judge's score is > this, in [0, 1].
        bfcl_model: BFCL: the model whose raw results these are (a model of BFCL's handler
            map, e.g. ``gpt-4o-2024-05-13-FC``, or a decoder family such as ``llama``); None =
            detected from the result folder's name (``generic`` when BFCL does not know it).
        fc_matching: ``official`` (BFCL's order of checks) or ``optimal`` (an assignment
            solver); None = ``official`` with ``format="bfcl"``, ``optimal`` otherwise.
        text_overlap: compute seed 003's ROUGE-1/2/L and BLEU-4 of the calls' texts; None =
            on, except with ``format="bfcl"`` (BFCL reports none, and they cost most of a
            BFCL run's time: ``docs/performance.md``).
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
    bfcl_model: str | None = field(default=None, metadata={
        "help": "function-call --format bfcl: the BFCL model (or decoder family) that wrote "
                "the results; default: the result folder's name."})
    fc_matching: FcMatching | None = field(default=None, metadata={
        "help": "function-call: match several calls by BFCL's order of checks (official; "
                "default with --format bfcl) or an assignment solver (optimal).",
        "what": "call matching"})
    text_overlap: bool | None = field(default=None, metadata={
        "help": "function-call, generation: ROUGE-1/2/L and BLEU-4 of the texts (default: "
                "on; function-call: off with --format bfcl)."})

    def matching(self) -> str:
        """The matching in force: ``fc_matching``, else ``official`` for BFCL input and
        ``optimal`` for the other formats."""
        if self.fc_matching is not None:
            return self.fc_matching
        return "official" if self.format == "bfcl" else "optimal"

    def overlap(self) -> bool:
        """Whether text overlap is computed: ``text_overlap``, else on except for BFCL
        input."""
        if self.text_overlap is not None:
            return self.text_overlap
        return self.format != "bfcl"

    @classmethod
    def from_config(cls, config: Recorded, functions: Path | None,
                    ) -> FunctionCallOptions:
        """The options a run recorded in its ``config.json`` (the task's ``config_entries``),
        with ``functions`` its schema input as found again; a run from before
        ``text_overlap`` existed computed text overlap."""
        return cls(format=str(config.get("function_call_format") or "seed"),  # type: ignore[arg-type]
                   functions=functions, bfcl_model=config.get("bfcl_model"),
                   fc_matching=config.get("fc_matching"),
                   text_overlap=config.get("text_overlap", True))
