"""Scorers: a versioned prompt template + a pydantic output schema + a tolerant parser.

Every scorer is a row of :data:`SCORERS`: its id ``<name>@<version>``, its template
``prompts/<name>/<version>.jinja`` (a released template never changes; its sha256 is part of the
scorer's identity and of every cache key), its output schema and its mode — ``pairwise`` (one
prediction against one gold item per request, answer :class:`SimilarityOutput`) or ``batch``
(one anchor against a numbered list of items of the other side, answer :class:`BatchOutput`).

Templates are rendered with ``jinja2.sandbox.SandboxedEnvironment`` and ``StrictUndefined``.
A template is split into chat messages on lines that are exactly ``[system]``, ``[user]`` or
``[assistant]`` *before* rendering, so judged text can never open a new message. Judged text is
also neutralised (:func:`neutralise`): every run of two or more ``<`` / ``>`` (or look-alikes)
in it becomes as many ``‹`` / ``›``, set apart from an adjacent word, so it can neither open,
close nor imitate the ``<<<NAME`` / ``NAME>>>`` markers of the data block that holds it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Annotated, Any, Literal

from jinja2 import StrictUndefined
from jinja2.sandbox import SandboxedEnvironment
from pydantic import BaseModel, ConfigDict, Field, Strict, StrictInt, ValidationError

from judge.judges.llm.choices import CONFLICT
from judge.judges.llm.jsonreply import ParseError, json_candidates, strip_fence, validation_detail

_ROLE_LINE = re.compile(r"^\[(system|user|assistant)\]\s*$", re.MULTILINE)
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


class BatchItem(BaseModel):
    """One gold item's answer inside a batch answer (1-based ``index``)."""

    # The docstring is the schema's "description" sent with structured output: keep it. Strict
    # like Score: ``index`` a JSON integer, ``score`` a finite JSON number in [0, 1] (true,
    # "0.8", null, NaN are rejected), ``rationale`` a string.
    index: StrictInt
    score: Annotated[float, Strict(), Field(ge=0.0, le=1.0, allow_inf_nan=False)]
    rationale: Annotated[str, Strict()] = ""


class BatchOutput(BaseModel):
    """Output schema of ``entity_similarity_batch``: ``{"scores": [{index, score, rationale}]}``."""

    scores: list[BatchItem]


class GradeOutput(BaseModel):
    """Output of ``entity_similarity_grade``: one grade digit 0..9 (score = grade / 9)."""

    grade: Annotated[int, Strict(), Field(ge=0, le=9)]


Mode = Literal["pairwise", "batch", "grade"]
"""How a scorer's requests are formed and read: ``pairwise`` = one (pred, truth) pair per
request, a JSON answer; ``batch`` = one anchor string against up to ``max_batch`` strings of the
other side; ``grade`` = one pair per request answered by a single grade digit, read with its
token log-probabilities (:mod:`judge.judges.llm.grades`)."""


@dataclass(frozen=True)
class ScorerEntry:
    """One row of :data:`SCORERS`.

    Attributes:
        template: the template's path inside the ``prompts`` package (``NAME/VERSION.jinja``).
        schema: pydantic model of the expected answer (its JSON Schema is sent to servers with
            structured output).
        mode: ``pairwise`` or ``batch`` (see :data:`Mode`).
    """

    template: str
    schema: type[BaseModel]
    mode: Mode


SCORERS: dict[str, ScorerEntry] = {
    "entity_similarity@v1": ScorerEntry("entity_similarity/v1.jinja", SimilarityOutput,
                                        "pairwise"),
    "entity_similarity_batch@v1": ScorerEntry("entity_similarity_batch/v1.jinja", BatchOutput,
                                              "batch"),
    "argument_equivalence@v1": ScorerEntry("argument_equivalence/v1.jinja", SimilarityOutput,
                                           "pairwise"),
    "entity_similarity_grade@v1": ScorerEntry("entity_similarity_grade/v1.jinja", GradeOutput,
                                              "grade"),
}
"""Every released scorer, by id. Template variables: ``pred``, ``truth``, ``context``
(pairwise, grade); ``anchor``, ``anchor_role``, ``items``, ``items_role``, ``context`` (batch)."""


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


@dataclass(frozen=True)
class Scorer:
    """A prompt scorer.

    Attributes:
        name: folder under ``prompts/`` (e.g. ``entity_similarity``).
        version: template file stem (e.g. ``v1``).
        template_text: the template source.
        schema: pydantic model of the expected answer.
        schema_version: bumps when the schema or parser semantics change (part of cache keys).
        mode: ``pairwise`` (answers parsed by :meth:`parse`) or ``batch`` (answers parsed by
            :meth:`parse_batch`).
    """

    name: str
    version: str
    template_text: str
    schema: type[BaseModel] = SimilarityOutput
    schema_version: str = "1"
    mode: Mode = "pairwise"
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
        text = strip_fence(raw)
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


    def parse_batch(self, raw: str, n_items: int) -> dict[int, tuple[float, str] | str]:
        """Parse a batch completion ``{"scores": [{"index", "score", "rationale"}, ...]}``,
        judging each entry on its own (entries are :class:`BatchItem`).

        Args:
            raw: the completion text.
            n_items: how many items the request listed (valid indices are 1..n_items).

        Returns:
            0-based item position → ``(score in [0, 1], rationale)``, or the parse-error
            message of that item's entry. Items without an entry are absent; an entry naming no
            valid item answers none; the first entry for an item wins, unless a later one gives
            it another score: then the item's answer is a "conflicting scores" parse error.

        Raises:
            ParseError: no ``{"scores": [...]}`` object in the text.
        """
        candidates = json_candidates(raw)
        if not candidates:
            raise ParseError("unparseable judge output: no JSON object found")
        obj = candidates[0]
        if not isinstance(obj, dict) or not isinstance(obj.get("scores"), list):
            raise ParseError('unparseable judge output: expected an object {"scores": [...]}')
        out: dict[int, tuple[float, str] | str] = {}
        for k, entry in enumerate(obj["scores"]):
            try:
                item = BatchItem.model_validate(entry)
            except ValidationError as exc:
                index = entry.get("index") if isinstance(entry, dict) else None
                if type(index) is int and 1 <= index <= n_items:
                    out.setdefault(index - 1, "unparseable judge output: "
                                   f"scores.{k}.{validation_detail(exc)}")
                continue
            if 1 <= item.index <= n_items:
                first = out.get(item.index - 1)
                if isinstance(first, tuple) and first[0] != item.score:  # judge.judges.llm.choices
                    out[item.index - 1] = (f"{CONFLICT}: item {item.index} has entries scoring "
                                           f"{first[0]:g} and {item.score:g}; none is used")
                else:
                    out.setdefault(item.index - 1, (item.score, item.rationale))
        return out


def load_scorer(scorer_id: str) -> Scorer:
    """The scorer ``name@version`` of :data:`SCORERS`, its template read from the installed
    ``prompts`` package.

    Raises:
        ValueError: a malformed id, an id not in :data:`SCORERS` (the message lists them), or
            a template missing from the installation.
    """
    name, sep, version = scorer_id.partition("@")
    if not sep or not name or not version:
        raise ValueError(f"scorer: expected NAME@VERSION, got {scorer_id!r}")
    entry = SCORERS.get(scorer_id)
    if entry is None:
        raise ValueError(f"scorer: unknown scorer {scorer_id!r}; expected one of: "
                         f"{', '.join(SCORERS)}")
    path = resources.files("prompts")
    for part in entry.template.split("/"):
        path = path / part
    if not path.is_file():
        raise ValueError(f"scorer: no template prompts/{entry.template}")
    return Scorer(name=name, version=version, template_text=path.read_text(encoding="utf-8"),
                  schema=entry.schema, mode=entry.mode)
