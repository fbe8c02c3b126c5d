"""``openai:MODEL``: judges served by the OpenAI API or any OpenAI-compatible server (vLLM,
llama.cpp server, Ollama, DeepSeek, Qwen/DashScope…) through the official ``openai`` SDK.

Structured output first: ``response_format = {"type": "json_schema", "strict": true, ...}`` with
the scorer's schema. A server that rejects it (HTTP 400, 422 or 500 whose error names the
response format — llama-cpp-python answers 500) is asked again in JSON mode
(``{"type": "json_object"}``), then with no response format and the tolerant
parser; the mode that worked is remembered for the rest of the run and recorded on every verdict
(``output_mode``). The SDK's own retries handle 429/5xx/timeouts with exponential backoff and
``Retry-After``; a failure says what really happened (:mod:`judge.judges.failures`), and an
HTTP 200 reply that breaks the protocol is that pair's ``transport_error``
(:mod:`judge.judges.llm.replies`). The API key is read from an environment variable at call time
and is never stored in the cache, a run file or a log.
"""

from __future__ import annotations

import copy
from typing import Any

from judge.judges.failures import describe_sdk_error
from judge.judges.keys import require_key
from judge.judges.llm.endpoints import EndpointPool
from judge.judges.llm.llmjudge import CallResult, LLMJudge, LLMJudgeConfig
from judge.judges.llm.openai_client import chat_options, make_client, resolve_http
from judge.judges.llm.replies import chat_result
from judge.redact import register_key_env

MODES = ("json_schema", "json_object", "text")
FLAVOUR_MODES: dict[str, tuple[str, ...]] = {
    "openai": MODES,
    "vllm": ("json_schema", "text"),
    "sglang": ("json_schema", "text"),
}
"""Structured-output request fields tried in order, by server flavour (``openai:``, ``vllm:``,
``sglang:`` specs): OpenAI and compatible servers take ``response_format`` (JSON schema, then
JSON mode); SGLang takes ``response_format`` json_schema (no JSON mode); a vLLM endpoint's chain
depends on its version (:func:`judge.judges.llm.servers.vllm_modes`: ``structured_outputs``
from 0.10.2, ``guided_json`` before); the one here is for a vLLM whose version is unknown.
``text`` = no format, the tolerant parser."""
_UNSUPPORTED_IN_STRICT = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "title",
                          "default")


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON Schema usable with ``strict: true``: every object closed (``additionalProperties:
    false``) with all properties required, and keywords strict mode rejects removed (the
    pydantic model still enforces them when parsing)."""
    s = copy.deepcopy(schema)

    def fix(node: Any) -> None:
        if isinstance(node, dict):
            for k in _UNSUPPORTED_IN_STRICT:
                node.pop(k, None)
            if node.get("type") == "object" and "properties" in node:
                node["additionalProperties"] = False
                node["required"] = list(node["properties"])
            for v in node.values():
                fix(v)
        elif isinstance(node, list):
            for v in node:
                fix(v)

    fix(s)
    return s


def _format_rejected(exc: Exception) -> bool:
    text = str(exc).lower()
    return any(w in text for w in ("response_format", "json_schema", "json schema",
                                   "structured output", "json_object", "not supported",
                                   "guided_json", "guided", "structured_outputs"))


class OpenAIJudge(LLMJudge):
    """Chat-completions judge.

    Args:
        judge_id: id to record (default spec ``openai:MODEL``).
        config: model, scorer, decoding params, base_url, concurrency, limits, price.
        api_key_env: environment variable holding the key (default ``OPENAI_API_KEY``); for a
            custom ``base_url`` an unset variable means "no key needed".
        timeout_s: per-request timeout in seconds (default 60).
        max_retries: SDK retries for 429/5xx/timeouts/connection errors (default 2).
        http: ``auto``, ``aiohttp`` or ``httpx`` (:func:`resolve_http`).
        flavour: ``openai``, ``vllm`` or ``sglang``: the structured-output fields sent
            (:data:`FLAVOUR_MODES`); it is the judge's ``backend`` (part of the cache key).
        structured_field: ``vllm:`` judges: ``auto`` (by each endpoint's ``GET /version``),
            ``structured_outputs``, ``guided_json`` or ``response_format``
            (:mod:`judge.judges.llm.servers`).

    ``config.base_url`` may list several endpoints, comma-separated: requests are balanced
    over them with failover (:mod:`judge.judges.llm.endpoints`).

    Raises:
        judge.errors.InputError: no key for the OpenAI API itself; ``structured_field`` unknown,
            or not ``auto`` for a flavour other than ``vllm``.
    """

    backend = "openai"

    def __init__(self, judge_id: str, config: LLMJudgeConfig, api_key_env: str = "OPENAI_API_KEY",
                 timeout_s: float = 60.0, max_retries: int = 2, http: str = "auto",
                 flavour: str = "openai", structured_field: str = "auto") -> None:
        super().__init__(judge_id, config)
        from judge.errors import InputError
        from judge.judges.llm.endpoints import split_urls
        from judge.judges.llm.servers import STRUCTURED_FIELDS, vllm_modes

        if flavour not in FLAVOUR_MODES:
            raise InputError(f"unknown server flavour {flavour!r}; expected one of "
                             f"{', '.join(FLAVOUR_MODES)}", field="judge")
        if structured_field not in STRUCTURED_FIELDS:
            raise InputError(f"--structured-field must be one of {', '.join(STRUCTURED_FIELDS)}"
                             f", got {structured_field!r}", field="structured_field")
        if structured_field != "auto" and flavour != "vllm":
            raise InputError(f"--structured-field {structured_field} chooses the field of "
                             f"vllm: judges, not {flavour}:", field="structured_field")
        self.backend = flavour
        self.structured_field = structured_field
        self.modes = (vllm_modes(None, structured_field) if flavour == "vllm"
                      else FLAVOUR_MODES[flavour])
        # per endpoint: (modes, index of the mode in use); a vLLM endpoint's by its version
        self._chains: dict[str | None, tuple[tuple[str, ...], int]] = {}
        self.server_versions: dict[str, str | None] = {}  # vllm: endpoint -> GET /version
        self._detecting: dict[str | None, Any] = {}  # endpoint -> its detection (this loop)
        urls = split_urls(config.base_url)
        self._pool = (EndpointPool(urls, lambda url: make_client(
            api_key_env, url, timeout_s, max_retries, self.http, deadline=True))
            if len(urls) > 1 else None)

        self.api_key_env = api_key_env
        register_key_env(api_key_env)  # its value is redacted from every error text
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.http = resolve_http(http)
        self.missing_key = require_key(api_key_env, config.base_url)  # judge.judges.keys
        self._client: Any = None
        # built once: pydantic's schema generation costs ~1 ms a call
        self._guided = strict_schema(config.scorer.json_schema())  # also vLLM's guided_json
        self._formats: dict[str, dict[str, Any]] = {
            "json_schema": {"type": "json_schema",
                            "json_schema": {"name": config.scorer.name, "strict": True,
                                            "schema": self._guided}},
            "json_object": {"type": "json_object"},
        }

    def _get_client(self) -> Any:
        if self._client is None:
            self._client = make_client(self.api_key_env, self.config.base_url, self.timeout_s,
                                       self.max_retries, self.http)
        return self._client

    def api_client(self) -> Any:
        """The ``AsyncOpenAI`` client of this judge's (single) endpoint, for the Batch API
        (:mod:`judge.judges.llm.batchapi`); closed by :meth:`aclose`."""
        return self._get_client()

    async def aclose(self) -> None:
        """Close the HTTP client(s) (they belong to the event loop of this run)."""
        if self._client is not None:
            await self._client.close()
            self._client = None
        if self._pool is not None:
            await self._pool.aclose()
        self._detecting = {}  # futures of this run's event loop

    def describe(self) -> dict[str, Any]:
        """Identity plus the key's variable name (never its value) and the output mode."""
        return {**super().describe(), "api_key_env": self.api_key_env,
                "timeout_s": self.timeout_s, "max_retries": self.max_retries,
                "http": self.http, "output_mode": self.output_mode,
                **({"server_versions": dict(self.server_versions)}
                   if self.backend == "vllm" else {})}

    def sample_of(self, k: int) -> OpenAIJudge:
        """As :meth:`LLMJudge.sample_of`; a clone gets its own endpoint pool (its clients are
        closed when its calls end, which must not cut off the other samples' calls)."""
        clone = super().sample_of(k)
        assert isinstance(clone, OpenAIJudge)
        if clone is not self and self._pool is not None:
            clone._pool = self._pool.fresh()
        return clone

    @property
    def endpoint_pool(self) -> EndpointPool | None:
        """The endpoints balanced over (several base URLs; each :meth:`sample_of` clone has
        its own), else None."""
        return self._pool

    def _response_format(self, mode: str) -> dict[str, Any] | None:
        fmt: dict[str, Any] | None = self._formats.get(mode)
        return fmt

    def _chain(self, url: str | None) -> tuple[tuple[str, ...], int]:
        """``(modes, index in use)`` of endpoint ``url``: its own once known (a vLLM endpoint's
        by its version), else the flavour's; a grade scorer starts at ``text`` (one digit read
        with its logprobs: no JSON format)."""
        chain = self._chains.get(url)
        if chain is not None:
            return chain
        start = self.modes.index("text") if self.config.scorer.mode == "grade" else 0
        return self.modes, start

    @property
    def output_mode(self) -> str:
        """The structured-output mode requests to the first endpoint use now (a server that
        rejected one moved it down its chain; a vLLM endpoint's chain is by its version)."""
        from judge.judges.llm.endpoints import split_urls

        urls = split_urls(self.config.base_url)
        modes, i = self._chain(urls[0] if urls else self.config.base_url)
        return modes[i]

    async def _detect(self, client: Any, url: str) -> None:
        """A ``vllm:`` endpoint's version (``GET /version``, once per endpoint, shared by the
        calls that start meanwhile) and so its chain of modes.

        Raises:
            judge.errors.InputError: a forced ``--structured-field`` this version ignores.
        """
        import asyncio

        from judge.judges.llm.servers import check_forced, server_version, vllm_modes

        task = self._detecting.get(url)
        if task is None:
            task = asyncio.ensure_future(server_version(client, url, self.timeout_s))
            self._detecting[url] = task
        version = await asyncio.shield(task)
        if url in self._chains:
            return
        check_forced(self.structured_field, version, url)
        self.server_versions[url] = version
        modes = vllm_modes(version, self.structured_field)
        start = modes.index("text") if self.config.scorer.mode == "grade" else 0
        self._chains[url] = (modes, start)

    def request_body(self, messages: list[dict[str, str]], mode: str) -> dict[str, Any]:
        """The JSON body of ``POST /chat/completions`` for ``messages`` in output ``mode``
        (model, decoding parameters, and ``response_format`` or ``guided_json``), plus the
        completion limit of ``--max-usd`` when the judge sets none (:attr:`sent_limit`:
        ``max_completion_tokens`` for the OpenAI API, whose reasoning models refuse
        ``max_tokens``; ``max_tokens`` for other servers)."""
        body: dict[str, Any] = {"model": self.config.model, "messages": messages,
                                **self.config.params}
        if self.sent_limit is not None:
            body["max_completion_tokens" if self.config.base_url is None else "max_tokens"] = (
                self.sent_limit)
        fmt = self._response_format(mode)
        if fmt is not None:
            body["response_format"] = fmt
        elif mode == "guided_json":
            body["guided_json"] = self._guided
        elif mode == "structured_outputs":
            body["structured_outputs"] = {"json": self._guided}
        return body

    async def call(self, messages: list[dict[str, str]]) -> CallResult:
        """One chat completion with the structured-output fallback chain (on the least busy
        endpoint, failing over to the others, when there are several)."""
        pool = self._pool
        if pool is None:
            return await self._call_on(self._get_client(), self.config.base_url, messages)
        return await pool.request(lambda ep: self._call_on(pool.client(ep), ep.url, messages))

    async def _call_on(self, client: Any, base_url: str | None,
                       messages: list[dict[str, str]]) -> CallResult:
        import httpx2
        import openai

        if self.backend == "vllm" and base_url is not None and base_url not in self._chains:
            await self._detect(client, base_url)
        while True:
            modes, index = self._chain(base_url)
            mode = modes[index]
            body = self.request_body(messages, mode)
            try:
                # The SDK's generic request method: the same POST /chat/completions with the
                # SDK's retries, backoff, Retry-After, timeouts and typed errors, but without
                # its per-call typed-parameter transform and response-model construction
                # (~1.7 ms of CPU per request together, which halved a 64-way concurrent run).
                # The options are a shallow copy of one template, and JudgeClient builds the
                # HTTP request from a template learnt from the SDK (judge.judges.llm.openai_client).
                raw = await client.request(httpx2.Response, chat_options(body))
            except openai.APIStatusError as exc:
                # servers reject an unsupported response_format with 400, 422 or even 500
                # (llama-cpp-python answers 500 with a validation error): fall back by message
                if mode != "text" and exc.status_code in (400, 422, 500) and _format_rejected(exc):
                    modes, index = self._chain(base_url)
                    self._chains[base_url] = (modes, max(index, modes.index(mode) + 1))
                    continue
                raise describe_sdk_error(exc, base_url, self.timeout_s) from None
            except openai.OpenAIError as exc:  # connection, timeout, anything else of the SDK
                raise describe_sdk_error(exc, base_url, self.timeout_s) from None
            # a 200 reply can still be anything (HTML, cut-off JSON, wrong types): checked
            return chat_result(raw, mode)
