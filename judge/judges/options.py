"""Settings of judges (:class:`JudgeOptions`) and their checks.

The options come from command-line flags (:data:`OPTION_FLAGS` names the flag of each) or from a
judges TOML file (:mod:`judge.judges.judgesfile`); which backend uses which option is listed in
:data:`judge.judges.registry.REGISTRY`. Every option is checked when a :class:`JudgeOptions` is
built (:func:`validate_options`), so the Python API gets the same checks as the command line.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal, get_args
from urllib.parse import SplitResult, urlsplit

from judge.errors import InputError
from judge.prices import Price

__all__ = ["METHODS", "OPTION_FLAGS", "SCORE_MODES", "JudgeOptions", "is_credential_name",
           "validate_options"]


@dataclass
class JudgeOptions:
    """Settings of remote judges (ignored by ``local``, ``lexical`` and ``table``).

    Attributes:
        base_url: OpenAI-compatible endpoint (None = the provider's default).
        api_key_env: environment variable holding the API key (its value is never stored).
        scorer: ``name@version`` of the prompt scorer.
        params: decoding parameters (temperature, seed, max_tokens, n…).
        concurrency: calls in flight (default 16).
        max_batch: most items per request with a batch scorer (default 20).
        rpm, tpm: requests/tokens per minute limits (None = unlimited).
        timeout_s: per-request timeout in seconds.
        max_retries: SDK retries with backoff for 429/5xx/timeouts.
        prices: model → :class:`judge.prices.Price` (USD per 1M tokens).
        judge_id: id to record instead of the spec (from a judges TOML file).
        method: LangChain structured-output method, if not the provider default.
        http: HTTP transport of the openai SDK: ``auto`` (aiohttp when installed), ``aiohttp``
            or ``httpx``.
        stop_after: stop a remote judge after this many consecutive calls failing with the
            same fatal error (401/403/404, refused connection, DNS failure); 0 = never
            (default 8, :mod:`judge.judges.failures`).
        threads: BLAS threads of the ``local`` judge's encoder (>= 1; None = automatic: 2 on
            an idle machine, 1 when the other cores are busy — measured, see
            :func:`judge.judges.embedding.local.auto_threads`).
        score_mode: ``verbal`` (the score the model writes) or ``logprob`` (the grade scorer
            ``entity_similarity_grade@v1`` with token log-probabilities: score = E[grade] / 9;
            ``openai:`` judges; :mod:`judge.judges.llm.grades`).
        opposite_guard: the ``local`` judge caps short pairs that differ by an opposite term
            (:mod:`judge.judges.embedding.opposites`; default True, False = the calibrated cosine
            alone).
        structured_field: ``vllm:`` judges' structured-output request field: ``auto`` (by each
            server's ``GET /version``), ``structured_outputs``, ``guided_json`` or
            ``response_format`` (:mod:`judge.judges.llm.servers`).
    """

    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    scorer: str = "entity_similarity@v1"
    params: dict[str, Any] = field(default_factory=lambda: {"temperature": 0.0})
    concurrency: int = 16
    max_batch: int = 20
    rpm: int | None = None
    tpm: int | None = None
    timeout_s: float = 60.0
    max_retries: int = 2
    prices: dict[str, Price] = field(default_factory=dict)
    judge_id: str | None = None
    method: str | None = None
    http: str = "auto"
    stop_after: int = 8
    threads: int | None = None
    score_mode: ScoreMode = "verbal"
    opposite_guard: bool = True
    structured_field: str = "auto"

    def __post_init__(self) -> None:
        """Check every setting (types and ranges) before any judge is built or called.

        Raises:
            InputError: the first bad setting, its field named, with the command-line flag
                that sets it; an ``api_key_env`` that is not a variable name (e.g. the key
                itself) is reported without echoing the value.
        """
        validate_options(self)


ScoreMode = Literal["verbal", "logprob"]
"""Values of ``score_mode``."""
SCORE_MODES: tuple[str, ...] = get_args(ScoreMode)
STRUCTURED_FIELDS = ("auto", "structured_outputs", "guided_json", "response_format")
"""Values of ``structured_field`` (as :data:`judge.judges.llm.servers.STRUCTURED_FIELDS`)."""
METHODS = ("json_schema", "function_calling", "json_mode")
"""LangChain ``with_structured_output`` methods accepted by ``method``."""

OPTION_FLAGS = {"concurrency": "--concurrency", "max_batch": "--max-batch", "rpm": "--rpm",
                "tpm": "--tpm", "timeout_s": "--timeout", "max_retries": "--max-retries",
                "base_url": "--base-url", "api_key_env": "--api-key-env", "scorer": "--scorer",
                "method": "--structured-method", "http": "--http", "params.n": "--samples",
                "params.temperature": "--temperature", "params.max_tokens": "--max-tokens",
                "params.seed": "--decoding-seed", "stop_after": "--stop-after",
                "threads": "--threads", "score_mode": "--score-mode",
                "opposite_guard": "--no-opposite-guard",
                "structured_field": "--structured-field"}
"""Command-line flag of each :class:`JudgeOptions` setting (named in error messages)."""
_CREDENTIAL_NAME = re.compile(
    r"(^|_)(api_?key|key|token|access_?token|auth_?token|secret|client_?secret|password|passwd"
    r"|authorization|bearer|credentials?)$", re.IGNORECASE)


def is_credential_name(name: str) -> bool:
    """True for a setting name that would hold a credential (``api_key``, ``key``, ``token``,
    ``secret``, ``password``, ``authorization``… alone or as the last ``_`` part, any case;
    ``max_tokens`` is not one). Keys belong in the environment, named by ``api_key_env``."""
    return bool(_CREDENTIAL_NAME.search(name.replace("-", "_")))


def _bad(name: str, message: str) -> InputError:
    flag = OPTION_FLAGS.get(name)
    return InputError(f"{flag} {message}" if flag else message, field=name)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(float(v)))


def _credentials_in(obj: Any, where: str) -> str | None:
    """The path of the first credential-named key or key-shaped string inside ``obj``."""
    from judge.redact import looks_like_key

    if isinstance(obj, dict):
        for k, v in obj.items():
            here = f"{where}.{k}"
            if is_credential_name(str(k)):
                return here
            found = _credentials_in(v, here)
            if found:
                return found
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            found = _credentials_in(v, f"{where}[{i}]")
            if found:
                return found
    elif isinstance(obj, str) and looks_like_key(obj):
        return where
    return None


def _parsed_url(part: Any) -> SplitResult | None:
    """``part`` split into a URL, or None when it is not a string or its host or port cannot
    be read (``http://[::1``, a port ``abc`` or past 65535)."""
    if not isinstance(part, str):
        return None
    try:
        url = urlsplit(part.strip())
        url.port  # noqa: B018  # raises ValueError on a bad port
    except ValueError:
        return None
    return url


def _check_base_url(base_url: Any) -> None:
    """``base_url``: http(s) URLs, comma-separated, without user name or password.

    Raises:
        InputError: the first bad URL; the message shows the option with its credentials
            masked (:func:`judge.redact.redact`), never a key or password.
    """
    from judge.redact import looks_like_key, redact

    text = str(base_url)
    shown = "(redacted)" if "://" not in text and looks_like_key(text) else redact(text)
    parts = base_url.split(",") if isinstance(base_url, str) else [None]
    for part in parts:
        url = _parsed_url(part)
        if url is None or url.scheme not in ("http", "https") or not url.hostname:
            raise _bad("base_url", f"must be an http:// or https:// URL (several: "
                                   f"comma-separated), got {shown!r}")
        if "@" in url.netloc:  # the SDK sends the key as a Bearer header: never basic auth
            raise _bad("base_url", "must not hold a user name or password (user:password@): "
                                   "the key goes in the variable named by --api-key-env (sent "
                                   f"as 'Authorization: Bearer'); got {shown!r}")


def validate_options(o: JudgeOptions) -> None:
    """Check a :class:`JudgeOptions` (see :meth:`JudgeOptions.__post_init__`).

    Rules: ``concurrency``, ``max_batch`` integers >= 1; ``rpm``, ``tpm`` None or integers
    >= 1; ``timeout_s`` a finite number > 0 (seconds); ``max_retries`` an integer >= 0;
    ``base_url`` None or ``http(s)://HOST…`` URLs (comma-separated) without
    ``user:password@``; ``api_key_env`` a variable NAME (``[A-Za-z_][A-Za-z0-9_]*``) that does
    not look like a key; ``scorer`` a string;
    ``params`` a table with string keys, no credential-named key or key-shaped value at any
    depth, ``score_mode`` one of :data:`SCORE_MODES`, ``n`` and ``max_tokens`` integers
    >= 1, ``temperature`` a number >= 0, ``top_p`` in
    (0, 1], ``seed`` an integer; ``method`` None or one of :data:`METHODS`; ``judge_id`` None or
    a non-empty string; ``http`` one of ``auto``, ``aiohttp``, ``httpx``; ``structured_field``
    one of :data:`STRUCTURED_FIELDS`.

    Raises:
        InputError: the first violation (field named; never echoes a suspected key).
    """
    from judge.redact import is_env_name, looks_like_key

    for name in ("concurrency", "max_batch"):
        v = getattr(o, name)
        if not _is_int(v) or v < 1:
            raise _bad(name, f"must be an integer >= 1, got {v!r}")
    for name in ("rpm", "tpm"):
        v = getattr(o, name)
        if v is not None and (not _is_int(v) or v < 1):
            raise _bad(name, f"must be an integer >= 1 (per minute; omit for no limit), "
                             f"got {v!r}")
    if not _is_number(o.timeout_s) or o.timeout_s <= 0:
        raise _bad("timeout_s", f"must be a number of seconds > 0, got {o.timeout_s!r}")
    if o.threads is not None and (not _is_int(o.threads) or o.threads < 1):
        raise _bad("threads", f"must be an integer >= 1 (omit for automatic), got "
                              f"{o.threads!r}")
    if not isinstance(o.opposite_guard, bool):
        raise _bad("opposite_guard", f"must be true or false, got {o.opposite_guard!r}")
    if not _is_int(o.max_retries) or o.max_retries < 0:
        raise _bad("max_retries", f"must be an integer >= 0, got {o.max_retries!r}")
    if o.base_url is not None:  # one URL, or several comma-separated (judge.judges.llm.endpoints)
        _check_base_url(o.base_url)
    if not isinstance(o.api_key_env, str) or not is_env_name(o.api_key_env) or looks_like_key(
            o.api_key_env):
        raise _bad("api_key_env", "takes the NAME of an environment variable (e.g. "
                                  "OPENAI_API_KEY), not the key; put the key in that variable")
    if not isinstance(o.scorer, str):
        raise _bad("scorer", f"must be NAME@VERSION, got {o.scorer!r}")
    if not isinstance(o.params, dict) or not all(isinstance(k, str) for k in o.params):
        raise _bad("params", "must be a table of decoding parameters with string keys")
    found = _credentials_in(o.params, "params")
    if found:
        raise InputError("credentials do not belong in decoding parameters: put the key in "
                         "an environment variable and name it with api_key_env", field=found)
    p = o.params
    for name in ("n", "max_tokens"):
        if name in p and (not _is_int(p[name]) or p[name] < 1):
            raise _bad(f"params.{name}", f"must be an integer >= 1, got {p[name]!r}")
    if "temperature" in p and (not _is_number(p["temperature"]) or p["temperature"] < 0):
        raise _bad("params.temperature", f"must be a number >= 0, got {p['temperature']!r}")
    if "top_p" in p and (not _is_number(p["top_p"]) or not 0 < p["top_p"] <= 1):
        raise _bad("params.top_p", f"must be a number in (0, 1], got {p['top_p']!r}")
    if "seed" in p and not _is_int(p["seed"]):
        raise _bad("params.seed", f"must be an integer, got {p['seed']!r}")
    if o.method is not None and o.method not in METHODS:
        raise _bad("method", f"must be one of {', '.join(METHODS)}, got {o.method!r}")
    if o.judge_id is not None and (not isinstance(o.judge_id, str) or not o.judge_id):
        raise _bad("judge_id", f"must be a non-empty string, got {o.judge_id!r}")
    if o.http not in ("auto", "aiohttp", "httpx"):
        raise _bad("http", f"must be auto, aiohttp or httpx, got {o.http!r}")
    if o.score_mode not in SCORE_MODES:
        raise _bad("score_mode", f"must be one of {', '.join(SCORE_MODES)}, got "
                                 f"{o.score_mode!r}")
    if o.structured_field not in STRUCTURED_FIELDS:
        raise _bad("structured_field", f"must be one of {', '.join(STRUCTURED_FIELDS)}, got "
                                       f"{o.structured_field!r}")
    if not _is_int(o.stop_after) or o.stop_after < 0:
        raise _bad("stop_after", f"must be an integer >= 0 (0 = never stop), "
                                 f"got {o.stop_after!r}")
