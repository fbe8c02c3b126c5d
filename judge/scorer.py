"""Scorers: a versioned prompt template + a pydantic output schema + a tolerant parser.

A scorer id is ``<name>@<version>``; its template is ``prompts/<name>/<version>.jinja`` and its
identity also includes the template file's sha256 (DESIGN.md "Prompt templates").

Templates are rendered with ``jinja2.sandbox.SandboxedEnvironment`` and ``StrictUndefined``.
A template is split into chat messages on lines that are exactly ``[system]``, ``[user]`` or
``[assistant]`` *before* rendering, so judged text can never open a new message. Judged text is
also neutralised: every ``<<<`` / ``>>>`` in it becomes ``< < <`` / ``> > >``, so it cannot
close the data block that holds it.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from jinja2 import StrictUndefined
from jinja2.sandbox import SandboxedEnvironment
from pydantic import BaseModel, ConfigDict, Field, ValidationError

_ROLE_LINE = re.compile(r"^\[(system|user|assistant)\]\s*$", re.MULTILINE)
_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")
_SCORE_FALLBACK = re.compile(r"""["']?score["']?\s*[:=]\s*([-+]?\d+(?:\.\d+)?)""", re.IGNORECASE)


class SimilarityOutput(BaseModel):
    """Output schema of ``entity_similarity``: ``{"score": 0..1, "rationale": str}``."""

    model_config = ConfigDict(extra="ignore")

    score: float = Field(ge=0.0, le=1.0, description="similarity from 0 (unrelated) to 1 (same)")
    rationale: str = Field(default="", description="one or two sentences")


class ParseError(ValueError):
    """A completion that does not contain a valid answer (becomes ``outcome=parse_error``)."""


def neutralise(text: str) -> str:
    """Make judged text unable to close a ``<<<…>>>`` data block."""
    return text.replace("<<<", "< < <").replace(">>>", "> > >")


def extract_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object embedded in ``text``, or None."""
    decoder = json.JSONDecoder()
    for m in re.finditer(r"\{", text):
        try:
            obj, _ = decoder.raw_decode(text, m.start())
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            return obj
    return None


@dataclass(frozen=True)
class Scorer:
    """A prompt scorer.

    Attributes:
        name: folder under ``prompts/`` (e.g. ``entity_similarity``).
        version: template file stem (e.g. ``v1``).
        template_text: the template source.
        schema: pydantic model of the expected answer.
        schema_version: bumps when the schema or parser semantics change (part of cache keys).
    """

    name: str
    version: str
    template_text: str
    schema: type[BaseModel] = SimilarityOutput
    schema_version: str = "1"
    _sections: list[tuple[str, Any]] = field(default_factory=list, compare=False, repr=False)

    @property
    def id(self) -> str:
        """``name@version``."""
        return f"{self.name}@{self.version}"

    @property
    def template_sha256(self) -> str:
        """sha256 of the template file's UTF-8 bytes."""
        return hashlib.sha256(self.template_text.encode("utf-8")).hexdigest()

    def json_schema(self) -> dict[str, Any]:
        """The output schema as JSON Schema (for structured-output requests)."""
        return self.schema.model_json_schema()

    def render(self, **variables: Any) -> list[dict[str, str]]:
        """Render the chat messages.

        Args:
            variables: template variables; string values are judged text and are neutralised
                (see module docstring). For ``entity_similarity``: ``pred``, ``truth``,
                ``context``.

        Returns:
            ``[{"role": "system"|"user"|"assistant", "content": str}, ...]``.

        Raises:
            jinja2.UndefinedError: a variable the template uses is missing (StrictUndefined).
        """
        if not self._sections:
            env = SandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=False,
                                       autoescape=False)
            parts = _ROLE_LINE.split(self.template_text)
            sections = [(parts[i], env.from_string(parts[i + 1]))
                        for i in range(1, len(parts), 2)]
            object.__setattr__(self, "_sections", sections)
        clean = {k: neutralise(v) if isinstance(v, str) else
                 [neutralise(x) if isinstance(x, str) else x for x in v] if isinstance(v, list)
                 else v for k, v in variables.items()}
        return [{"role": role, "content": tpl.render(**clean).strip()}
                for role, tpl in self._sections]

    def parse(self, raw: str) -> BaseModel:
        """Parse a completion into the output schema, tolerantly.

        Tries, in order: the whole text as JSON (code fences stripped), the first JSON object
        inside the text, and finally — only for prose without any ``{`` — a
        ``score: <number>`` pattern.

        Raises:
            ParseError: nothing valid found, or the score is outside [0, 1] (never clipped).
        """
        text = _FENCE.sub("", raw.strip())
        candidates: list[Any] = []
        try:
            candidates.append(json.loads(text))
        except json.JSONDecodeError:
            obj = extract_json_object(text)
            if obj is not None:
                candidates.append(obj)
        errors = []
        for cand in candidates:
            try:
                return self.schema.model_validate(cand)
            except ValidationError as exc:
                errors.append(exc.errors()[0].get("msg", str(exc)))
        # "score: 0.8" in plain prose only: text that opens a JSON object but does not parse is
        # broken JSON (e.g. truncated '{"score": 0.'), and reading a number out of it would
        # turn a failure into a score
        m = _SCORE_FALLBACK.search(text) if "{" not in text else None
        if m and not candidates:
            try:
                return self.schema.model_validate({"score": float(m.group(1)), "rationale": text})
            except ValidationError as exc:
                errors.append(exc.errors()[0].get("msg", str(exc)))
        detail = "; ".join(errors) if errors else "no JSON object or score found"
        raise ParseError(f"unparseable judge output: {detail}")


def load_scorer(scorer_id: str) -> Scorer:
    """Load ``name@version`` from the installed ``prompts`` package.

    Raises:
        ValueError: malformed id or no such template.
    """
    name, sep, version = scorer_id.partition("@")
    if not sep or not name or not version:
        raise ValueError(f"scorer: expected NAME@VERSION, got {scorer_id!r}")
    path = resources.files("prompts") / name / f"{version}.jinja"
    if not path.is_file():
        raise ValueError(f"scorer: no template prompts/{name}/{version}.jinja")
    schema: type[BaseModel] = SimilarityOutput
    if name.endswith("_batch"):
        from judge.judges.llm import BatchOutput

        schema = BatchOutput
    return Scorer(name=name, version=version, template_text=path.read_text(encoding="utf-8"),
                  schema=schema)
