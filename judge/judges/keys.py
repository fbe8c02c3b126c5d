"""API keys when a judge is built: required for a provider's own API, except in a dry run.

A judge of the OpenAI API (``openai:``, ``openai-embedding:``, ``langchain:PROVIDER:``) refuses
to be built without its key (exit 2 before any call). ``eval --dry-run`` calls nothing, so it
builds its judges inside :func:`keys_optional`: a missing key is then recorded on the judge
(``missing_key``, the variable's name) and the estimate says the real run would refuse, instead
of the dry run refusing (issue 27). Every other check of the judge spec still runs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from judge.errors import InputError

_OPTIONAL: ContextVar[bool] = ContextVar("simjudge_keys_optional", default=False)


@contextmanager
def keys_optional(optional: bool = True) -> Iterator[None]:
    """Within it (when ``optional``), judges built without their API key are built anyway,
    their ``missing_key`` set (:func:`require_key`)."""
    token = _OPTIONAL.set(optional)
    try:
        yield
    finally:
        _OPTIONAL.reset(token)


def keys_are_optional() -> bool:
    """Whether judges are being built inside :func:`keys_optional`."""
    return _OPTIONAL.get()


def require_key(api_key_env: str, base_url: str | None) -> str | None:
    """Check the key of a judge of the OpenAI API itself (``base_url`` None; a custom server
    may need none).

    Args:
        api_key_env: the environment variable holding the key (its name).
        base_url: the judge's endpoint, None for the provider's own API.

    Returns:
        None when the key is set or not needed; the variable's name when it is missing inside
        :func:`keys_optional`.

    Raises:
        InputError: the key is missing (outside :func:`keys_optional`).
    """
    if base_url is not None or os.environ.get(api_key_env):
        return None
    if _OPTIONAL.get():
        return api_key_env
    raise InputError(f"{api_key_env} is not set (needed for the OpenAI API)", field="judge")
