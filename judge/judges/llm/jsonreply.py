"""Reading a judge's JSON answer out of a completion, tolerantly and without ever raising on
odd text: a Markdown code fence is stripped, the whole text or else the first JSON object inside
it is taken (:func:`json_candidates`), and a pydantic validation error becomes one short
``field: message`` line (:func:`validation_detail`). Used by the scorers
(:mod:`judge.judges.llm.scorer`) and by the reply checks (:mod:`judge.judges.llm.replies`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")


class ParseError(ValueError):
    """A completion that does not contain a valid answer (becomes ``outcome=parse_error``)."""


def strip_fence(raw: str) -> str:
    """``raw`` without surrounding whitespace and without a Markdown code fence around it
    (```` ```json … ``` ````)."""
    return _FENCE.sub("", raw.strip())


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
    text = strip_fence(raw)
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
