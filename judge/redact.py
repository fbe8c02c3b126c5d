"""Redaction of API keys from error texts before they are stored or printed.

A server's error body can echo the request's ``Authorization`` header or the key itself (some
proxies do). simjudge never writes a key anywhere, so every error text passes through
:func:`redact` where it is created (the ``openai``, ``openai-embedding`` and ``langchain``
backends) and again where it is written (verdict rows in ``verdicts.jsonl``, the audit report,
``config.json``, ``summary.json``, the terminal).

What is replaced by :data:`MASK`:

- the value of every environment variable registered with :func:`register_key_env` (the
  judges' ``api_key_env``) and of every variable whose name looks like a credential
  (contains ``KEY``, ``TOKEN``, ``SECRET``, ``PASSW``, ``CREDENTIAL`` or ``AUTH``, e.g.
  ``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``HUGGINGFACEHUB_API_TOKEN`` — the usual key
  variables of LangChain's providers); values shorter than :data:`MIN_ENV_SECRET` characters
  are ignored (too short to be a key, and masking them would garble the text);
- key-shaped tokens whatever their source: ``sk-…`` / ``sk-proj-…`` / ``sk-ant-…`` (OpenAI,
  Anthropic, DeepSeek, DashScope style: ``sk-`` followed by at least 16 of ``[A-Za-z0-9_-]``),
  and the token after ``Bearer`` (HTTP ``Authorization: Bearer <token>``);
- the credentials of URLs (:func:`redact_url`): the whole user-info part (``user:password@``)
  and the value of every query parameter named like a secret (``api-key``, ``key``,
  ``token``, ``access_token``, ``sig``, ``signature``, ``code``, any name containing ``key``,
  ``token``, ``secret``, ``passw``, ``credential`` or ``auth``).

Each of these is found in plain text *and* in its JSON-escaped form: a key that a server echoes
inside a JSON string with ``\\uXXXX`` escapes (``\\u0073k-…``, any mix of escaped and plain
characters, with any number of backslashes) is masked as a whole, escapes included.
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
_USERINFO = re.compile(r"(?i)\b[a-z][a-z0-9+.\-]*://([^\s/?#@\"'<>\\]+)@")
_QUERY_SECRET = re.compile(
    r"(?i)[?&;](?:[a-z0-9_.\-]*(?:key|token|secret|passw|credential|auth)[a-z0-9_.\-]*"
    r"|sig|signature|code)=([^&#\s\"'<>\\]+)")
_ESCAPE = re.compile(r"\\+u([0-9a-fA-F]{4})")
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


def secret_env_names(extra_env: Iterable[str] = ()) -> list[str]:
    """Names of the environment variables whose values are secrets: the registered, the
    ``extra_env`` and the credential-named ones (module docstring), sorted."""
    names = set(_registered) | set(extra_env)
    return sorted(k for k in os.environ if k in names or _SECRET_NAME.search(k))


def secret_values(extra_env: Iterable[str] = ()) -> list[str]:
    """Current values of the registered, the ``extra_env`` and the credential-named environment
    variables (at least :data:`MIN_ENV_SECRET` characters), longest first."""
    values = {os.environ[k] for k in secret_env_names(extra_env)
              if len(os.environ[k].strip()) >= MIN_ENV_SECRET}
    return sorted(values, key=len, reverse=True)


def _pattern_spans(text: str) -> list[tuple[int, int]]:
    """The spans of the key-shaped tokens, bearer values and URL credentials in ``text``."""
    return ([m.span() for m in _KEY_TOKEN.finditer(text)]
            + [(m.end(2), m.end()) for m in _BEARER.finditer(text)]
            + [m.span(1) for m in _USERINFO.finditer(text)]
            + [m.span(1) for m in _QUERY_SECRET.finditer(text)])


def _masked(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` with each union of overlapping ``spans`` replaced by one :data:`MASK`."""
    out: list[str] = []
    pos, end = 0, -1
    for a, b in sorted(s for s in spans if s[1] > s[0]):
        if a > end:  # a new run starts (an overlapping or adjacent span joins the current one)
            out += [text[pos:a], MASK]
        end = pos = max(end, b)
    return "".join(out) + text[pos:] if out else text


def _unescaped(text: str) -> tuple[str, list[int], list[int]] | None:
    """``text`` with its ``\\uXXXX`` escapes decoded (a run of backslashes before ``u`` counts
    as one escape: JSON inside JSON), and for each decoded character the start and end of what
    it came from in ``text``; None when ``text`` holds no such escape."""
    parts: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    for m in _ESCAPE.finditer(text):
        parts.append(text[pos:m.start()])
        starts.extend(range(pos, m.start()))
        ends.extend(range(pos + 1, m.start() + 1))
        parts.append(chr(int(m.group(1), 16)))
        starts.append(m.start())
        ends.append(m.end())
        pos = m.end()
    if not parts:
        return None
    parts.append(text[pos:])
    starts.extend(range(pos, len(text)))
    ends.extend(range(pos + 1, len(text) + 1))
    return "".join(parts), starts, ends


def redact_url(url: str) -> str:
    """``url`` (or several, comma-separated) with its credentials masked: the user-info part
    (``http://user:password@host`` → ``http://[REDACTED]@host``), the value of every query
    parameter named like a secret (``?api-key=…``, ``key=``, ``token=``, ``access_token=``,
    ``sig=``…), and key-shaped tokens. Depends on ``url`` alone (never on the environment),
    so it can be part of a cache key; a URL without credentials is returned unchanged.

    Examples:
        >>> redact_url("https://u:p@example.org/v1?api-version=2024-06-01&api-key=abc")
        'https://[REDACTED]@example.org/v1?api-version=2024-06-01&api-key=[REDACTED]'
    """
    decoded = _unescaped(url)
    if decoded is not None:
        text, starts, ends = decoded
        return _masked(url, [(starts[a], ends[b - 1]) for a, b in _pattern_spans(text)])
    return _masked(url, _pattern_spans(url))


_SCALARS = frozenset((int, float, bool))
"""Types a row's values have that hold no text (passed as they are, without a call)."""


class Redactor:
    """Replaces secrets in text; build once, apply to many strings (the sinks' bulk path).

    Args:
        extra_env: more environment-variable names whose values are secrets.
    """

    def __init__(self, extra_env: Iterable[str] = ()) -> None:
        values = secret_values(extra_env)
        self._values = re.compile("|".join(re.escape(v) for v in values)) if values else None
        # one search tells whether any of the patterns occurs (most texts hold none)
        scoped = [p.pattern if not p.pattern.startswith("(?i)") else
                  "(?i:" + p.pattern.removeprefix("(?i)") + ")"
                  for p in (_KEY_TOKEN, _BEARER, _USERINFO, _QUERY_SECRET)]
        self._any = re.compile("|".join(
            ([self._values.pattern] if self._values is not None else []) + scoped))

    def _spans(self, text: str) -> list[tuple[int, int]]:
        values = [] if self._values is None else [m.span() for m in self._values.finditer(text)]
        return values + _pattern_spans(text)

    def text(self, text: str) -> str:
        """``text`` with every secret replaced by :data:`MASK`, in plain or JSON-escaped form
        (see the module docstring)."""
        if not text:
            return text
        if "\\" in text and (decoded := _unescaped(text)) is not None:
            plain, starts, ends = decoded
            return _masked(text, [(starts[a], ends[b - 1]) for a, b in self._spans(plain)])
        if not self._may_hold(text) or self._any.search(text) is None:
            return text
        return _masked(text, self._spans(text))

    def _may_hold(self, text: str) -> bool:
        """False only when ``text`` cannot hold a secret: every pattern needs a literal piece
        (``sk-``, ``bearer`` in any case, ``://``, ``=``) and substring tests cost ~2 µs against
        ~35 µs for the combined search on a 200-character rationale (10,000 verdicts pass here
        twice); an environment secret is searched as before."""
        return ("sk-" in text or "://" in text or "=" in text or "bearer" in text.lower()
                or (self._values is not None and self._values.search(text) is not None))

    def obj(self, obj: Any, keep: frozenset[str] = frozenset()) -> Any:
        """A copy of a JSON-like value with every string redacted, except the values of the
        mapping keys in ``keep`` (at any depth), e.g. the judged ``pred``/``truth``. Mapping
        keys that are not identifiers (an endpoint URL keying its statistics) are redacted
        too."""
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, Mapping):  # a row's strings redacted in place of a call each
            return {(self.text(k) if type(k) is str and not k.isidentifier() else k):
                    v if k in keep or v is None or type(v) in _SCALARS
                    else self.text(v) if type(v) is str
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
    texts = []
    for k, v in row.items():  # the usual row: flat, and no text that could hold a secret
        if type(k) is not str or not k.isidentifier():
            break
        if type(v) is str:
            if k not in JUDGED_FIELDS:
                texts.append(v)
        elif not (v is None or type(v) in _SCALARS):
            break
    else:  # every text unchanged by Redactor.text: tested once on all of them, joined
        joined = "\n".join(texts)
        if "\\" not in joined and not r._may_hold(joined):
            return dict(row)
    redacted: dict[str, Any] = r.obj(row, JUDGED_FIELDS)  # a mapping gives a new dict
    return redacted
