"""Which structured-output request field a server honours, by server and version.

vLLM has changed its field twice, and an unknown field is *ignored* (logged on the server),
never refused, so a client that sends the wrong one gets unconstrained answers while believing
them constrained:

* ``guided_json`` (the schema) — vLLM's own field until 0.10.1; deprecated in 0.10.2 and removed
  in 0.12.0 (docs.vllm.ai "Structured Outputs": "deprecated API fields which were removed in
  v0.12.0");
* ``structured_outputs: {"json": schema}`` — from 0.10.2;
* ``response_format: {"type": "json_schema", ...}`` — the OpenAI field, honoured by vLLM since
  0.6 and *validated* by every version (an older vLLM answers HTTP 400 to a type it does not
  know), so it is the one field that can never be silently ignored.

A ``vllm:`` judge reads each endpoint's version from ``GET /version`` (vLLM's
``{"version": "0.12.0"}``, at the server root beside ``/v1``) before its first call there, and
picks the chain of :func:`vllm_modes`; a server that does not say its version gets
``response_format`` json_schema. ``--structured-field`` forces a field; a forced field that the
detected version ignores is refused before any call (:func:`check_forced`). SGLang takes
``response_format`` json_schema (docs.sglang.io "Structured Outputs"), OpenAI and other
compatible servers ``response_format`` (json_schema, then JSON mode).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from judge.errors import InputError

STRUCTURED_FIELDS = ("auto", "structured_outputs", "guided_json", "response_format")
"""Values of ``--structured-field`` (``vllm:`` judges)."""
STRUCTURED_OUTPUTS_SINCE = (0, 10, 2)
"""First vLLM version with ``structured_outputs``."""
GUIDED_JSON_REMOVED = (0, 12, 0)
"""First vLLM version that ignores ``guided_json``."""
_CHAINS: dict[str, tuple[str, ...]] = {
    "structured_outputs": ("structured_outputs", "json_schema", "text"),
    "guided_json": ("guided_json", "json_schema", "text"),
    "response_format": ("json_schema", "text"),
}
_VERSION = re.compile(r"^\s*v?(\d+)\.(\d+)(?:\.(\d+))?")


def parse_version(text: Any) -> tuple[int, int, int] | None:
    """``(major, minor, patch)`` of a version string (``0.12.0``, ``0.11.1rc2``,
    ``0.10.2.dev17+g0a1b``: the release it leads to), or None when it is not one."""
    m = _VERSION.match(text) if isinstance(text, str) else None
    return None if m is None else (int(m[1]), int(m[2]), int(m[3] or 0))


def vllm_modes(version: str | None, forced: str = "auto") -> tuple[str, ...]:
    """The structured-output modes a ``vllm:`` judge tries, in order, on a server of
    ``version`` (None: unknown): ``forced`` (one of :data:`STRUCTURED_FIELDS`) wins; ``auto``
    picks ``structured_outputs`` from 0.10.2, ``guided_json`` before, and ``response_format``
    json_schema for an unknown version. Each chain ends with ``text`` (no field, the tolerant
    parser), reached only when the server refuses the field (HTTP 400)."""
    if forced != "auto":
        return _CHAINS[forced]
    v = parse_version(version)
    if v is None:
        return _CHAINS["response_format"]
    return _CHAINS["structured_outputs" if v >= STRUCTURED_OUTPUTS_SINCE else "guided_json"]


def check_forced(forced: str, version: str | None, url: str | None) -> None:
    """Refuse a forced field the server of ``version`` would silently ignore.

    Raises:
        InputError: (field ``structured_field``) ``guided_json`` on vLLM >= 0.12.0, or
            ``structured_outputs`` on vLLM < 0.10.2.
    """
    v = parse_version(version)
    if v is None:
        return
    if forced == "guided_json" and v >= GUIDED_JSON_REMOVED:
        why = "vLLM 0.12.0 removed guided_json and ignores it"
    elif forced == "structured_outputs" and v < STRUCTURED_OUTPUTS_SINCE:
        why = "vLLM before 0.10.2 does not know structured_outputs and ignores it"
    else:
        return
    raise InputError(f"--structured-field {forced}: the server at {url} is vLLM {version}; "
                     f"{why}, so the answers would not be constrained (use auto)",
                     field="structured_field")


def version_url(base_url: str) -> str:
    """vLLM's ``/version`` beside the OpenAI root: ``http://h:8000/v1`` →
    ``http://h:8000/version`` (a path prefix before ``/v1`` is kept)."""
    parts = urlsplit(base_url.rstrip("/"))
    path = parts.path[:-3] if parts.path.endswith("/v1") else parts.path
    return urlunsplit((parts.scheme, parts.netloc, path + "/version", "", ""))


async def server_version(client: Any, base_url: str, timeout_s: float) -> str | None:
    """The version a server reports at ``GET /version`` (:func:`version_url`), through the
    judge's own SDK ``client`` (its auth and transport; no retries), or None when it answers
    anything else (no such route, not JSON, no string ``version``) or cannot be reached."""
    import httpx2
    import openai

    try:
        resp = await client.get(version_url(base_url), cast_to=httpx2.Response,
                                options={"max_retries": 0, "timeout": timeout_s})
        data = resp.json()
    except (openai.OpenAIError, ValueError, httpx2.HTTPError):
        return None
    version = data.get("version") if isinstance(data, dict) else None
    return version if isinstance(version, str) and parse_version(version) else None
