"""Scorers: a versioned prompt template + a pydantic output schema + a tolerant parser.

A scorer id is ``<name>@<version>``; its template is ``prompts/<name>/<version>.jinja`` and its
identity also includes the template file's sha256 (DESIGN.md "Prompt templates").

Templates are rendered with ``jinja2.sandbox.SandboxedEnvironment`` and ``StrictUndefined``.
A template is split into chat messages on lines that are exactly ``[system]``, ``[user]`` or
``[assistant]`` *before* rendering, so judged text can never open a new message. Judged text is
also neutralised (:func:`neutralise`): every run of two or more ``<`` / ``>`` (or look-alikes)
in it becomes as many ``‹`` / ``›``, set apart from an adjacent word, so it can neither open,
close nor imitate the ``<<<NAME`` / ``NAME>>>`` markers of the data block that holds it.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Annotated, Any

from jinja2 import StrictUndefined
from jinja2.sandbox import SandboxedEnvironment
from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationError

_ROLE_LINE = re.compile(r"^\[(system|user|assistant)\]\s*$", re.MULTILINE)
_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")
# "score: 0.8" in prose; the number must end there ("1e-3", "8/10", "80%" are not read as 1, 8
# or 80 — they fail instead)
_SCORE_FALLBACK = re.compile(r"""["']?score["']?\s*[:=]\s*([-+]?\d+(?:\.\d+)?)(?![\w%/]|\.\d)""",
                             re.IGNORECASE)

Score = Annotated[float, Strict(), Field(ge=0.0, le=1.0, allow_inf_nan=False,
                                         description="similarity from 0 (unrelated) to 1 (same)")]
"""A judge's score: a JSON number in [0, 1]. Strict: ``true``, ``"0.8"``, ``null``, NaN and
±Infinity are rejected (never coerced to a number), as is anything outside [0, 1] (never
clipped). Integers 0 and 1 are numbers and are accepted."""


class SimilarityOutput(BaseModel):
    """Output schema of ``entity_similarity``: ``{"score": 0..1, "rationale": str}``."""

    # The docstring above is the schema's "description", sent to servers with structured
    # output (and so part of recorded request bodies): keep it unchanged. ``score`` is a strict
    # Score (see above); ``rationale`` must be a string when present.
    model_config = ConfigDict(extra="ignore")

    score: Score
    rationale: Annotated[str, Strict()] = Field(default="", description="one or two sentences")


class ParseError(ValueError):
    """A completion that does not contain a valid answer (becomes ``outcome=parse_error``)."""


_OPEN_WEIGHT = {"<": 1, "\ufe64": 1, "\uff1c": 1, "\u2039": 1, "\u276e": 1, "\u2329": 1,
                "\u3008": 1, "\u27e8": 1, "\u226a": 2, "\u27ea": 2, "\u22d8": 3}
"""Characters that read as opening angle brackets, and how many each stands for: ``<`` and its
look-alikes (small ﹤, fullwidth ＜, ‹, ❮, 〈, 〈, ⟨) count 1; ≪ and ⟪ count 2; ⋘ counts 3.
(« and the Chinese book-title mark 《 are punctuation and are left alone.)"""
_CLOSE_WEIGHT = {">": 1, "\ufe65": 1, "\uff1e": 1, "\u203a": 1, "\u276f": 1, "\u232a": 1,
                 "\u3009": 1, "\u27e9": 1, "\u226b": 2, "\u27eb": 2, "\u22d9": 3}
"""The closing counterparts of :data:`_OPEN_WEIGHT`."""
_OPEN_SET = "[" + re.escape("".join(_OPEN_WEIGHT)) + "]"
_CLOSE_SET = "[" + re.escape("".join(_CLOSE_WEIGHT)) + "]"
_OPEN_RUN = re.compile(f"{_OPEN_SET}(?:\\s*{_OPEN_SET})*")  # brackets apart only by whitespace
_CLOSE_RUN = re.compile(f"{_CLOSE_SET}(?:\\s*{_CLOSE_SET})*")


def neutralise(text: str) -> str:
    """Make judged text unable to open, close or imitate a ``<<<NAME`` / ``NAME>>>`` data
    marker, keeping it readable.

    Every run of two or more angle brackets of one direction — ``<`` and its look-alikes (see
    :data:`_OPEN_WEIGHT`; ≪ counts 2, ⋘ counts 3), apart only by whitespace if at all — becomes
    as many single guillemets ``‹`` (closing: ``›``), which no template uses; when such a run
    touches a letter, digit or ``_`` on its inner side a space is put between them, so
    ``<<<<<PRED_ITEM`` and ``< < <PRED_ITEM`` become ``‹‹‹‹‹ PRED_ITEM`` and ``‹‹‹ PRED_ITEM``,
    and ``GOLD_ITEM>>>`` becomes ``GOLD_ITEM ›››``. A lone ``<`` or ``>`` (``a < b``, ``<b>``)
    is kept as it is, except an opening bracket that ends the text or a closing one that starts
    it (``‹`` / ``›``): across the line break it could lengthen a template's marker. The result
    therefore contains no two angle brackets of one direction in a row even after NFKC
    normalisation and whitespace removal, also where it meets the template's text, and a
    template's markers are the only markers in a rendered prompt. Idempotent.
    """

    def opening(m: re.Match[str]) -> str:
        n = sum(_OPEN_WEIGHT.get(c, 0) for c in m.group())
        if n < 2 and m.string[m.end():].strip():  # a lone "<" ending the text could join a
            return m.group()                       # template's "<<<" on the next line
        nxt = m.string[m.end():m.end() + 1]
        return "\u2039" * n + (" " if nxt and (nxt.isalnum() or nxt == "_") else "")

    def closing(m: re.Match[str]) -> str:
        n = sum(_CLOSE_WEIGHT.get(c, 0) for c in m.group())
        if n < 2 and m.string[:m.start()].strip():  # likewise a lone ">" opening the text
            return m.group()
        prev = m.string[m.start() - 1:m.start()] if m.start() else ""
        return (" " if prev and (prev.isalnum() or prev == "_") else "") + "\u203a" * n

    return _CLOSE_RUN.sub(closing, _OPEN_RUN.sub(opening, text))


_MAX_OBJECT_STARTS = 1000
"""Most ``{`` positions :func:`extract_json_object` tries (each try can scan the rest of the
text, so a long broken answer costs at most this many scans)."""


def extract_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object embedded in ``text``, or None.

    Never raises: text that is not JSON, JSON nested too deeply for the decoder
    (``RecursionError``) and integers over Python's 4,300-digit limit (``ValueError``) all
    count as "no object here".
    """
    decoder = json.JSONDecoder()
    for n, m in enumerate(re.finditer(r"\{", text)):
        if n >= _MAX_OBJECT_STARTS:
            break
        try:
            obj, _ = decoder.raw_decode(text, m.start())
        except ValueError:  # JSONDecodeError, or an over-long integer literal
            continue
        except RecursionError:  # deeper starts are nested inside this one: give up
            return None
        if isinstance(obj, dict):
            return obj
    return None


def json_candidates(raw: str) -> list[Any]:
    """The JSON value a completion holds, as a list of at most one candidate: the whole text
    (a Markdown code fence stripped) when it is JSON, else the first JSON object inside it,
    else nothing. Never raises (see :func:`extract_json_object`)."""
    text = _FENCE.sub("", raw.strip())
    try:
        return [json.loads(text)]
    except (ValueError, RecursionError):
        obj = extract_json_object(text)
        return [] if obj is None else [obj]


def validation_detail(exc: ValidationError) -> str:
    """The first validation error of a pydantic exception as ``field: message`` (e.g.
    ``score: Input should be a valid number``)."""
    first = exc.errors()[0]
    loc = ".".join(str(x) for x in first.get("loc", ()))
    return f"{loc}: {first.get('msg', str(exc))}" if loc else str(first.get("msg", exc))


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
        ``score: <number>`` pattern (a plain decimal number that ends there).

        Args:
            raw: the completion text.

        Raises:
            ParseError: nothing valid found; the score is not a JSON number (``true``,
                ``"0.8"``, ``null``), is NaN/Infinity, or is outside [0, 1] (never coerced,
                never clipped).
        """
        text = _FENCE.sub("", raw.strip())
        candidates = json_candidates(raw)
        errors = []
        for cand in candidates:
            try:
                return self.schema.model_validate(cand)
            except ValidationError as exc:
                errors.append(validation_detail(exc))
        # "score: 0.8" in plain prose only: text that opens a JSON object but does not parse is
        # broken JSON (e.g. truncated '{"score": 0.'), and reading a number out of it would
        # turn a failure into a score
        m = _SCORE_FALLBACK.search(text) if "{" not in text else None
        if m and not candidates:
            try:
                return self.schema.model_validate({"score": float(m.group(1)), "rationale": text})
            except ValidationError as exc:
                errors.append(validation_detail(exc))
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
