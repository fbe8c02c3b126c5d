"""What a review server's POST body may hold (both modes, :mod:`judge.review.server` and
:mod:`judge.review.itemserver`): a JSON object of at most :data:`MAX_BODY` bytes, a reviewer
name (normalised: :func:`reviewer_name`), a note. Anything else is refused with 400 and a JSON
``{"error": message}`` — never 500, and nothing is stored.

Reviewer names are self-asserted (there is no login): they are normalised so that look-alikes
made of invisible characters are one reviewer, not two — Unicode NFKC, then every control,
format (zero-width, bidi) and surrogate character and the invisible fillers removed, every
whitespace character (a line break too) made a space, runs of spaces made one, the ends
stripped. ``"pro\\u200bbe"``,
``"ｐｒｏｂｅ"`` and ``" probe "`` are all ``"probe"``; a name empty after that is refused.
Letters of other scripts that merely look alike (Cyrillic ``р``) stay distinct.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from aiohttp import web

MAX_BODY = 64 * 1024
"""Largest request body accepted, in bytes (a note of 1 MB gets 413)."""

MAX_NOTE = 4000
"""Longest note accepted, in characters."""

MAX_REVIEWER = 100
"""Longest reviewer name accepted, in characters (after normalisation)."""

_INVISIBLE_CATEGORIES = {"Cc", "Cf", "Cs", "Zl", "Zp"}  # after whitespace became spaces
_FILLERS = {"\u034f", "\u115f", "\u1160", "\u17b4", "\u17b5", "\u3164", "\uffa0"}
_SPACES = re.compile(r" +")


def error(status: int, message: str) -> web.Response:
    """A JSON ``{"error": message}`` response with HTTP ``status``."""
    return web.json_response({"error": message}, status=status)


def bad_request(message: str) -> web.HTTPBadRequest:
    """The 400 exception a handler raises: its body is ``{"error": message}``."""
    return web.HTTPBadRequest(text=json.dumps({"error": message}),
                              content_type="application/json")


async def read_body(request: web.Request) -> dict[str, Any]:
    """The request's JSON object body, its ``reviewer`` normalised (:func:`reviewer_name`).

    Raises:
        web.HTTPException: 413 (over :data:`MAX_BODY` bytes, aiohttp's ``client_max_size``);
            400 (not UTF-8, not JSON, nested too deep to parse, not an object, a bad
            reviewer).
    """
    raw = await request.read()
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise bad_request("expected a JSON object") from None
    if not isinstance(body, dict):
        raise bad_request("expected a JSON object")
    body["reviewer"] = reviewer_name(body.get("reviewer"))
    return body


def normalise_name(value: str) -> str:
    """``value`` as a reviewer name (module docstring): NFKC, no invisible characters, one
    space between words, no space at the ends. May return ``""``."""
    kept = []
    for c in unicodedata.normalize("NFKC", value):
        if c.isspace():
            kept.append(" ")
        elif unicodedata.category(c) not in _INVISIBLE_CATEGORIES and c not in _FILLERS:
            kept.append(c)
    return _SPACES.sub(" ", "".join(kept)).strip()


def reviewer_name(value: Any) -> str:
    """The normalised reviewer name of a request (:func:`normalise_name`).

    Raises:
        web.HTTPBadRequest: not a string, empty after normalisation, or longer than
            :data:`MAX_REVIEWER` characters.
    """
    name = normalise_name(value) if isinstance(value, str) else ""
    if not name or len(name) > MAX_REVIEWER:
        raise bad_request(f"reviewer must be a name of 1 to {MAX_REVIEWER} visible characters "
                          "(invisible and control characters are removed)")
    return name


def note_text(value: Any) -> str:
    """A label's note (``""`` when absent).

    Raises:
        web.HTTPBadRequest: not a string, over :data:`MAX_NOTE` characters, or not storable
            text (a lone surrogate).
    """
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > MAX_NOTE:
        raise bad_request(f"note must be a string of at most {MAX_NOTE} characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise bad_request("note must be valid Unicode text (it holds a lone surrogate)") \
            from None
    return value
