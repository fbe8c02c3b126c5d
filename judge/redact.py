"""Redaction of API keys from error texts before they are stored or printed.

A server's error body can echo the request's ``Authorization`` header or the key itself (some
proxies do). simjudge never writes a key anywhere, so every error text passes through
:func:`redact` where it is created (the ``openai``, ``openai-embedding`` and ``langchain``
backends) and again where it is written (verdict rows in ``verdicts.jsonl``, the audit report,
the terminal).

What is replaced by :data:`MASK`:

- the value of every environment variable registered with :func:`register_key_env` (the
  judges' ``api_key_env``) and of every variable whose name looks like a credential
  (contains ``KEY``, ``TOKEN``, ``SECRET``, ``PASSW``, ``CREDENTIAL`` or ``AUTH``, e.g.
  ``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``HUGGINGFACEHUB_API_TOKEN`` — the usual key
  variables of LangChain's providers); values shorter than :data:`MIN_ENV_SECRET` characters
  are ignored (too short to be a key, and masking them would garble the text);
- key-shaped tokens whatever their source: ``sk-…`` / ``sk-proj-…`` / ``sk-ant-…`` (OpenAI,
  Anthropic, DeepSeek, DashScope style: ``sk-`` followed by at least 16 of ``[A-Za-z0-9_-]``),
  and the token after ``Bearer`` (HTTP ``Authorization: Bearer <token>``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

MASK = "[REDACTED]"
MIN_ENV_SECRET = 8
"""Shortest environment-variable value treated as a secret (characters)."""

_KEY_TOKEN = re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_\-]{16,}")
_BEARER = re.compile(r"(?i)\b(bearer)(\s+|%20)[A-Za-z0-9._~+/=\-]{4,}")
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH", re.IGNORECASE)
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

_registered: set[str] = {"OPENAI_API_KEY"}


def register_key_env(name: str | None) -> None:
    """Treat the value of environment variable ``name`` as a secret from now on (a judge's
    ``api_key_env``). The name is kept, never the value: it is read at redaction time."""
    if name:
        _registered.add(name)


def is_env_name(text: str) -> bool:
    """True when ``text`` is a valid environment-variable name (``[A-Za-z_][A-Za-z0-9_]*``)."""
    return bool(_ENV_NAME.match(text))


def looks_like_key(text: str) -> bool:
    """True when ``text`` looks like an API key rather than a variable name: an ``sk-`` token,
    a ``Bearer`` header value, or a long (>= 24 characters) run of letters and digits mixing
    lower case and digits with no ``_`` (variable names are words joined by ``_``)."""
    if _KEY_TOKEN.search(text) or _BEARER.search(text):
        return True
    return (len(text) >= 24 and "_" not in text and any(c.isdigit() for c in text)
            and any(c.islower() for c in text))


def secret_values(extra_env: Iterable[str] = ()) -> list[str]:
    """Current values of the registered, the ``extra_env`` and the credential-named environment
    variables (at least :data:`MIN_ENV_SECRET` characters), longest first."""
    names = set(_registered) | set(extra_env)
    values = {v for k, v in os.environ.items()
              if (k in names or _SECRET_NAME.search(k)) and len(v.strip()) >= MIN_ENV_SECRET}
    return sorted(values, key=len, reverse=True)


class Redactor:
    """Replaces secrets in text; build once, apply to many strings (the sinks' bulk path).

    Args:
        extra_env: more environment-variable names whose values are secrets.
    """

    def __init__(self, extra_env: Iterable[str] = ()) -> None:
        values = secret_values(extra_env)
        self._values = re.compile("|".join(re.escape(v) for v in values)) if values else None
        # one search tells whether any of the three patterns occurs (most texts hold none)
        self._any = re.compile("|".join(
            ([self._values.pattern] if self._values is not None else [])
            + [_KEY_TOKEN.pattern, "(?i:" + _BEARER.pattern.removeprefix("(?i)") + ")"]))

    def text(self, text: str) -> str:
        """``text`` with every secret replaced by :data:`MASK`."""
        if not text or self._any.search(text) is None:
            return text
        if self._values is not None:
            text = self._values.sub(MASK, text)
        text = _KEY_TOKEN.sub(MASK, text)
        return _BEARER.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)

    def obj(self, obj: Any, keep: frozenset[str] = frozenset()) -> Any:
        """A copy of a JSON-like value with every string redacted, except the values of the
        mapping keys in ``keep`` (at any depth), e.g. the judged ``pred``/``truth``."""
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, Mapping):  # a row's strings redacted in place of a call each
            return {k: v if k in keep else self.text(v) if type(v) is str
                    else self.obj(v, keep) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return [self.obj(v, keep) for v in obj]
        return obj


def redact(text: str, extra_env: Iterable[str] = ()) -> str:
    """``text`` with API keys replaced by :data:`MASK` (see the module docstring)."""
    return Redactor(extra_env).text(text)


JUDGED_FIELDS = frozenset({"pred", "truth", "item_id", "id", "cache_key"})
"""Verdict-row fields that hold the evaluated data or keys of it: never rewritten."""


def redact_row(row: Mapping[str, Any], redactor: Redactor | None = None) -> dict[str, Any]:
    """A verdict (or disagreement) row with its error and judge texts redacted; the judged
    ``pred``/``truth`` strings and the ids are kept as they are (they are the data)."""
    r = redactor or Redactor()
    return dict(r.obj(dict(row), JUDGED_FIELDS))
